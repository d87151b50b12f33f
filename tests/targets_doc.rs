//! `docs/targets.md` against the code:
//!
//! - the per-target keyword matrix in `docs/targets.md` is generated from the capability tables
//!   (`schemalect::dialect::capabilities`); the test regenerates it and fails when the page
//!   differs (`SCHEMALECT_BLESS=1` rewrites that section, and only that section);
//! - the tables are checked against what the lowerings do: for every target and keyword, a
//!   probe schema that uses the keyword is lowered, and the wire must show what the row says
//!   (kept: sent unchanged and no loss; hint: sent and a loss; dropped: not sent, and a loss
//!   for assertions; rewritten: the weaker form the rewrite names; partial: both sides of the
//!   rule). A probe that falls back to a weaker mode fails the test, so no check is vacuous.

use pretty_assertions::StrComparison;
use schemalect::dialect::caps::{Partial, PatternRule, Rewrite, Row, Support, ValueKinds};
use schemalect::dialect::{capabilities, full_rows};
use schemalect::keywords::{self, Role};
use schemalect::{LowerOptions, Lowering, Mode, ParseOptions, Schema, Subset, Target};
use serde_json::{json, Value};
use std::fmt::Write as _;
use std::fs;
use support::gen::json_eq;

const BEGIN: &str =
    "<!-- BEGIN GENERATED: matrix (tests/targets_doc.rs; SCHEMALECT_BLESS=1 rewrites) -->";
const END: &str = "<!-- END GENERATED: matrix -->";

// ---------------------------------------------------------------------------------------------
// The generated section

/// The matrix cell of a row, and the legend group it belongs to.
fn code(s: Support) -> (&'static str, &'static str) {
    match s {
        Support::Kept => ("K", "kept"),
        Support::Hint(_) => ("H", "hint"),
        Support::Dropped(_) => ("D", "dropped"),
        Support::Rewritten(r) => (
            match r {
                Rewrite::OneOfAsAnyOf => "R anyOf",
                Rewrite::ExclusiveAsInclusive => "R incl",
                Rewrite::MinItemsAtMostOne => "R ≤1",
                Rewrite::ConstAsEnum => "R enum",
                Rewrite::PrefixItemsAsItems => "R items",
                Rewrite::IntoDescription => "R desc",
                Rewrite::MergedIntoParent => "R merge",
                Rewrite::TypeUnionSplit => "R split",
            },
            "transformed",
        ),
        Support::Partial(p) => (
            match p {
                Partial::EnumValues(ValueKinds::Scalars) => "P scalars",
                Partial::EnumValues(ValueKinds::StringsAndNumbers) => "P str+num",
                Partial::EnumValues(ValueKinds::Strings) => "P strings",
                Partial::Patterns(PatternRule::AnchoredSimple) => "P anchored-simple",
                Partial::Patterns(PatternRule::Ecma) => "P ecma",
                Partial::Patterns(PatternRule::Anchored) => "P anchored",
                Partial::Patterns(PatternRule::ClaudeSimple) => "P claude-regex",
                Partial::Patterns(PatternRule::FullMatchSafe) => "P full-match",
                Partial::Patterns(PatternRule::RawCharacters) => "P raw-chars",
                Partial::IntegersOnly(_) => "P integers",
                Partial::IntegerNodesOnly(_) => "P integer-nodes",
                Partial::PlainStrings(_) => "P plain-strings",
                Partial::LiteralsByType => "P by-type",
                Partial::ClosedToDeclared => "P closed",
            },
            "partial",
        ),
        Support::Degrades(_) => ("X", "degrades"),
    }
}

/// What a code means in general (the legend).
fn legend_text(s: Support) -> String {
    match s {
        Support::Kept => "sent and enforced by the provider (annotations: sent)".into(),
        Support::Hint(_) => {
            "sent, but the provider does not enforce it: a loss (the model still sees it)".into()
        }
        Support::Dropped(_) => {
            "not sent (the provider would refuse it, or it would mislead): a loss for assertions"
                .into()
        }
        Support::Rewritten(r) => r.describe().into(),
        Support::Partial(p) => p.describe().into(),
        Support::Degrades(_) => {
            "cannot be sent or dropped without narrowing: the lowering falls back to a weaker mode"
                .into()
        }
    }
}

fn role(keyword: &str) -> Option<Role> {
    keywords::lookup(keyword).map(|k| k.role)
}

/// What the row says happens, in full.
fn row_text(r: &Row) -> String {
    match r.support {
        Support::Kept if role(r.keyword) == Some(Role::Annotation) => "sent".into(),
        Support::Kept => "sent and enforced".into(),
        Support::Hint(why) => format!("sent, not enforced: {why}"),
        Support::Dropped(why) | Support::Degrades(why) => why.into(),
        Support::Rewritten(rw) => rw.describe().into(),
        Support::Partial(
            p @ (Partial::IntegersOnly(why)
            | Partial::PlainStrings(why)
            | Partial::IntegerNodesOnly(why)),
        ) => {
            format!("{} ({why})", p.describe())
        }
        Support::Partial(p) => p.describe().into(),
    }
}

fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

/// The generated section of `docs/targets.md`, between the markers.
fn matrix_section() -> String {
    let mut s = String::from("\n");
    let tables: Vec<_> = Target::ALL.iter().map(|t| capabilities(*t)).collect();

    s.push_str("### Keyword × target\n\n| keyword |");
    for t in Target::ALL {
        let _ = write!(s, " {t} |");
    }
    s.push_str("\n|---|");
    for _ in Target::ALL {
        s.push_str("---|");
    }
    s.push('\n');
    for k in keywords::SUBSET {
        let _ = write!(s, "| `{}` |", k.name);
        for caps in &tables {
            let _ = write!(s, " {} |", code(caps.support(k.name)).0);
        }
        s.push('\n');
    }

    s.push_str("\n### Legend\n\n| code | group | meaning |\n|---|---|---|\n");
    let mut seen: Vec<&str> = Vec::new();
    let mut legend: Vec<(usize, String)> = Vec::new();
    let order = [
        "kept",
        "hint",
        "transformed",
        "partial",
        "dropped",
        "degrades",
    ];
    let mut add = |sup: Support, legend: &mut Vec<(usize, String)>| {
        let (c, group) = code(sup);
        if seen.contains(&c) {
            return;
        }
        seen.push(c);
        let rank = order
            .iter()
            .position(|g| *g == group)
            .unwrap_or(order.len());
        legend.push((
            rank,
            format!("| {c} | {group} | {} |\n", cell(&legend_text(sup))),
        ));
    };
    // Kept, hint, dropped and degrades are always listed; the others as they occur.
    for sup in [
        Support::Kept,
        Support::Hint(""),
        Support::Dropped(""),
        Support::Degrades(""),
    ] {
        add(sup, &mut legend);
    }
    for caps in &tables {
        for r in caps.rows {
            add(r.support, &mut legend);
        }
    }
    legend.sort_by_key(|(rank, _)| *rank);
    for (_, line) in legend {
        s.push_str(&line);
    }

    for caps in &tables {
        let _ = write!(
            s,
            "\n### {}\n\nThe schema travels in `{}`. Route: {}\n\n| keyword | code | what happens | source |\n|---|---|---|---|\n",
            caps.target,
            caps.field,
            cell(caps.route)
        );
        for k in keywords::SUBSET {
            let r = caps
                .rows
                .iter()
                .find(|r| r.keyword == k.name)
                .copied()
                .unwrap_or(Row {
                    keyword: k.name,
                    support: caps.support(k.name),
                    source: "(no row)",
                });
            let _ = writeln!(
                s,
                "| `{}` | {} | {} | {} |",
                r.keyword,
                code(r.support).0,
                cell(&row_text(&r)),
                cell(r.source)
            );
        }
    }
    s
}

#[test]
fn every_table_has_one_sourced_row_per_subset_keyword() {
    for t in Target::ALL {
        let caps = capabilities(t);
        assert_eq!(
            caps.target, t,
            "capabilities({t}) is the table of {}",
            caps.target
        );
        for k in keywords::SUBSET {
            let n = caps.rows.iter().filter(|r| r.keyword == k.name).count();
            assert_eq!(n, 1, "{t}: {} rows for `{}`", n, k.name);
        }
        assert_eq!(
            caps.rows.len(),
            keywords::SUBSET.len(),
            "{t}: rows for non-subset keywords"
        );
        for r in caps.rows {
            assert!(
                r.source.contains("https://"),
                "{t}: `{}` has no source link",
                r.keyword
            );
        }
        assert!(
            caps.route.contains("https://"),
            "{t}: the route has no source link"
        );
    }
}

#[test]
fn targets_md_matrix_matches_the_capability_tables() {
    let path = support::workspace_root().join("docs").join("targets.md");
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let (Some(b), Some(e)) = (text.find(BEGIN), text.find(END)) else {
        panic!("docs/targets.md: the markers {BEGIN:?} … {END:?} are missing");
    };
    assert!(b < e, "docs/targets.md: the markers are out of order");
    let current = &text[b + BEGIN.len()..e];
    let want = matrix_section();
    if current == want {
        return;
    }
    if support::golden::bless() {
        let out = format!("{}{want}{}", &text[..b + BEGIN.len()], &text[e..]);
        fs::write(&path, out).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        println!("wrote the matrix section of docs/targets.md");
        return;
    }
    panic!(
        "docs/targets.md: the matrix differs from the capability tables (left: page, right: tables); run `SCHEMALECT_BLESS=1 cargo test --test targets_doc` and review the diff\n{}",
        StrComparison::new(current, &want)
    );
}

// ---------------------------------------------------------------------------------------------
// The tables against the lowerings

/// The strict-friendly root a probe sits in: one required property `p`, closed.
fn wrap(sub: Value) -> Value {
    json!({"type": "object", "properties": {"p": sub}, "required": ["p"], "additionalProperties": false})
}

/// Keywords probed at the root rather than in `p`.
const ROOT_KEYWORDS: &[&str] = &["$schema", "$id"];

/// The probe for a keyword: a subschema of `p` that uses it in its most keepable form.
fn probe(keyword: &str) -> Value {
    let closed = json!({"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"], "additionalProperties": false});
    match keyword {
        "type" => json!({"type": "string"}),
        "enum" => json!({"type": "string", "enum": ["a", "b"]}),
        "const" => json!({"const": "a"}),
        "pattern" => json!({"type": "string", "pattern": "^[a-z]+$"}),
        "minLength" => json!({"type": "string", "minLength": 1}),
        "maxLength" => json!({"type": "string", "maxLength": 9}),
        "minimum" => json!({"type": "integer", "minimum": 0}),
        "maximum" => json!({"type": "integer", "maximum": 9}),
        "exclusiveMinimum" => json!({"type": "number", "exclusiveMinimum": 0}),
        "exclusiveMaximum" => json!({"type": "number", "exclusiveMaximum": 9}),
        "multipleOf" => json!({"type": "integer", "multipleOf": 5}),
        "items" => json!({"type": "array", "items": {"type": "string"}}),
        "prefixItems" => {
            json!({"type": "array", "prefixItems": [{"type": "string"}], "items": {"type": "integer"}})
        }
        "minItems" => json!({"type": "array", "items": {"type": "string"}, "minItems": 3}),
        "maxItems" => json!({"type": "array", "items": {"type": "string"}, "maxItems": 3}),
        "uniqueItems" => {
            json!({"type": "array", "items": {"type": "string"}, "uniqueItems": true})
        }
        "properties" | "required" | "additionalProperties" => closed,
        "oneOf" => json!({"oneOf": [{"type": "string"}, {"type": "integer"}]}),
        "anyOf" => json!({"anyOf": [{"type": "string"}, {"type": "integer"}]}),
        "allOf" => json!({"allOf": [closed]}),
        "not" => json!({"type": "string", "not": {"const": "x"}}),
        "description" => json!({"type": "string", "description": "d"}),
        "title" => json!({"type": "string", "title": "T"}),
        "default" => json!({"type": "string", "default": "x"}),
        "examples" => json!({"type": "string", "examples": ["x"]}),
        "format" => json!({"type": "string", "format": "date-time"}),
        "$schema" => json!("https://json-schema.org/draft/2020-12/schema"),
        "$id" => json!("https://schemalect.invalid/probe.json"),
        other => panic!("no probe for `{other}`: add one"),
    }
}

/// The probe schema for `keyword`, with `sub` as the subschema of `p` (or the root keyword's
/// value).
fn probe_schema(keyword: &str, sub: Value) -> Value {
    if ROOT_KEYWORDS.contains(&keyword) {
        let mut root = wrap(json!({"type": "string"}));
        root[keyword] = sub;
        root
    } else {
        wrap(sub)
    }
}

fn options(target: Target) -> LowerOptions {
    LowerOptions::default().with_groq_strict(target == Target::Groq)
}

/// The emitted schema's JSON Pointer inside the wire, from the table's `field`
/// (`tools[0].input_schema` → `/tools/0/input_schema`).
fn field_pointer(field: &str) -> String {
    let mut p = String::new();
    for part in field.split('.') {
        match part.split_once('[') {
            Some((name, index)) => {
                let _ = write!(p, "/{name}/{}", index.trim_end_matches(']'));
            }
            None => {
                let _ = write!(p, "/{part}");
            }
        }
    }
    p
}

struct Probed {
    what: String,
    lowering: Lowering,
    /// The emitted schema at the probe's place (`p`, or the root for root keywords).
    node: Value,
}

impl Probed {
    fn fail(&self, msg: &str) -> String {
        let losses: Vec<String> = self
            .lowering
            .losses()
            .iter()
            .map(|l| l.to_string())
            .collect();
        format!(
            "{}: {msg}\n  mode: {}\n  node: {}\n  losses: {losses:#?}\n  wire: {}",
            self.what,
            self.lowering.mode(),
            self.node,
            self.lowering.wire()
        )
    }

    fn loss_names(&self, keyword: &str) -> bool {
        self.lowering.losses().iter().any(|l| l.keyword == keyword)
    }
}

/// Lowers a probe and finds its node; `Err` when the lowering falls back (a probe must reach a
/// native mode for its check to mean anything) or the node is missing.
fn lower_probe(target: Target, keyword: &str, sub: Value) -> Result<Probed, String> {
    let source = probe_schema(keyword, sub);
    let what = format!("[{target}] `{keyword}` probe {source}");
    let schema = Schema::parse(&source).map_err(|e| format!("{what}: not in the subset: {e}"))?;
    let lowering = schema.lower(target, &options(target));
    if lowering.mode() > Mode::Widened {
        return Err(format!(
            "{what}: the probe falls back to {} ({:?}); change the probe so the row is tested",
            lowering.mode(),
            lowering
                .losses()
                .iter()
                .map(|l| l.to_string())
                .collect::<Vec<_>>()
        ));
    }
    let root_ptr = field_pointer(capabilities(target).field);
    let root = lowering.wire().pointer(&root_ptr).cloned().ok_or_else(|| {
        format!(
            "{what}: the table's field `{}` is not in the wire {}",
            capabilities(target).field,
            lowering.wire()
        )
    })?;
    let node = if ROOT_KEYWORDS.contains(&keyword) {
        root
    } else {
        root.pointer("/properties/p")
            .cloned()
            .ok_or_else(|| format!("{what}: no `properties/p` in the emitted schema {root}"))?
    };
    Ok(Probed {
        what,
        lowering,
        node,
    })
}

/// True when `node[keyword]` carries the source's value (schema-valued keywords: the same
/// shape; lists compared as sets where order carries no meaning).
fn sent_as_is(node: &Value, keyword: &str, source: &Value) -> bool {
    let (Some(got), Some(want)) = (node.get(keyword), source.get(keyword)) else {
        return false;
    };
    match keyword {
        "items" | "additionalProperties" if want.is_object() => got.is_object(),
        "properties" => {
            got.as_object().map(|m| m.keys().collect::<Vec<_>>())
                == want.as_object().map(|m| m.keys().collect::<Vec<_>>())
        }
        "anyOf" | "oneOf" | "allOf" | "prefixItems" => {
            got.as_array().map(Vec::len) == want.as_array().map(Vec::len)
        }
        "type" => match (got, want) {
            (Value::String(g), Value::String(w)) => g.eq_ignore_ascii_case(w),
            (Value::Array(g), Value::String(w)) => g.iter().any(|t| t == w),
            _ => got == want,
        },
        _ => json_eq(got, want),
    }
}

/// Every string anywhere in `v` (for literals split across branches).
fn contains_value(v: &Value, needle: &Value) -> bool {
    if json_eq(v, needle) {
        return true;
    }
    match v {
        Value::Array(a) => a.iter().any(|x| contains_value(x, needle)),
        Value::Object(m) => m.values().any(|x| contains_value(x, needle)),
        _ => false,
    }
}

/// Checks one row; `Err` says how the lowering contradicts it.
fn check_row(target: Target, row: &Row) -> Result<(), String> {
    let k = row.keyword;
    let is_annotation = role(k) == Some(Role::Annotation);
    let src = probe(k);
    let source_node = if ROOT_KEYWORDS.contains(&k) {
        json!({ k: src.clone() })
    } else {
        src.clone()
    };
    match row.support {
        Support::Kept => {
            let p = lower_probe(target, k, src)?;
            if !sent_as_is(&p.node, k, &source_node) {
                return Err(p.fail("the row says kept, but the keyword is not sent as is"));
            }
            if p.loss_names(k) {
                return Err(p.fail("the row says kept (enforced), but a loss names the keyword"));
            }
        }
        Support::Hint(_) => {
            let p = lower_probe(target, k, src)?;
            if !sent_as_is(&p.node, k, &source_node) {
                return Err(p.fail("the row says hint (sent), but the keyword is not sent"));
            }
            if !p.loss_names(k) {
                return Err(p.fail("the row says hint (not enforced), but no loss names it"));
            }
        }
        Support::Dropped(_) => {
            let p = lower_probe(target, k, src)?;
            if p.node.get(k).is_some() {
                return Err(p.fail("the row says dropped, but the keyword is sent"));
            }
            if !is_annotation && !p.loss_names(k) {
                return Err(p.fail("the row says dropped, but no loss names the assertion"));
            }
        }
        Support::Degrades(_) => {
            let source = probe_schema(k, src);
            let schema = Schema::parse(&source).map_err(|e| e.to_string())?;
            let l = schema.lower(target, &options(target));
            if l.mode() < Mode::Json {
                return Err(format!(
                    "[{target}] `{k}`: the row says degrades, but {source} lowers to {}",
                    l.mode()
                ));
            }
        }
        Support::Rewritten(rw) => check_rewrite(target, k, rw)?,
        Support::Partial(rule) => check_partial(target, k, rule)?,
    }
    Ok(())
}

fn check_rewrite(target: Target, k: &str, rw: Rewrite) -> Result<(), String> {
    let p = lower_probe(target, k, probe(k))?;
    let n = &p.node;
    let ok = match rw {
        Rewrite::OneOfAsAnyOf => {
            n.get("oneOf").is_none()
                && n.get("anyOf")
                    .and_then(Value::as_array)
                    .is_some_and(|b| b.len() == 2)
        }
        Rewrite::ExclusiveAsInclusive => {
            let inclusive = if k == "exclusiveMinimum" {
                "minimum"
            } else {
                "maximum"
            };
            n.get(k).is_none()
                && n.get(inclusive).is_some_and(|v| json_eq(v, &probe(k)[k]))
                && p.loss_names(k)
        }
        Rewrite::MinItemsAtMostOne => {
            n.get("minItems").is_some_and(|v| json_eq(v, &json!(1))) && p.loss_names(k)
        }
        Rewrite::ConstAsEnum => n.get("const").is_none() && n.get("enum") == Some(&json!(["a"])),
        Rewrite::PrefixItemsAsItems => {
            n.get("prefixItems").is_none()
                && n.pointer("/items/anyOf")
                    .and_then(Value::as_array)
                    .is_some_and(|b| b.len() >= 2)
                && p.loss_names(k)
        }
        Rewrite::IntoDescription => {
            n.get("format").is_none()
                && n.get("description")
                    .and_then(Value::as_str)
                    .is_some_and(|d| d.contains("date-time"))
        }
        Rewrite::MergedIntoParent => {
            n.get("allOf").is_none() && n.pointer("/properties/q").is_some()
        }
        Rewrite::TypeUnionSplit => {
            // One type stays one (proto) type; `null` in a list becomes `nullable`.
            let nullable = lower_probe(target, k, json!({"type": ["string", "null"]}))?;
            let m = &nullable.node;
            if !(m.get("type").is_some_and(Value::is_string)
                && m.get("nullable") == Some(&json!(true)))
            {
                return Err(
                    nullable.fail("`type: [string, null]` is not sent as one type plus `nullable`")
                );
            }
            let several = lower_probe(
                target,
                k,
                json!({"type": ["string", "integer"], "minLength": 1, "minimum": 0}),
            )?;
            let branches = several
                .node
                .get("anyOf")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            let each_single = branches.len() == 2
                && branches
                    .iter()
                    .all(|b| b.get("type").is_some_and(Value::is_string));
            let keywords_follow = branches
                .iter()
                .any(|b| b.get("minLength").is_some() && b.get("minimum").is_none())
                && branches
                    .iter()
                    .any(|b| b.get("minimum").is_some() && b.get("minLength").is_none());
            if !(each_single && keywords_follow) {
                return Err(several.fail("several types are not sent as `anyOf` of single-type branches each with the keywords of its type"));
            }
            n.get("type").is_some_and(Value::is_string)
        }
    };
    if ok {
        Ok(())
    } else {
        Err(p.fail(&format!(
            "the row says `{}`, the wire does not show it",
            rw.describe()
        )))
    }
}

fn check_partial(target: Target, k: &str, rule: Partial) -> Result<(), String> {
    // The side of the rule where the keyword is kept.
    let kept = |sub: Value, k: &str| -> Result<Probed, String> {
        let source = sub.clone();
        let p = lower_probe(target, k, sub)?;
        if !sent_as_is(&p.node, k, &source) {
            return Err(p.fail("the rule keeps this value, but it is not sent as is"));
        }
        Ok(p)
    };
    // The side where it is dropped whole, with a loss.
    let dropped = |sub: Value, k: &str| -> Result<(), String> {
        let p = lower_probe(target, k, sub)?;
        if p.node.get(k).is_some() || !p.loss_names(k) {
            return Err(
                p.fail("the rule drops this value with a loss, but the wire or losses differ")
            );
        }
        Ok(())
    };
    match rule {
        Partial::EnumValues(kinds) => {
            let p = kept(json!({"type": "string", "enum": ["a", "b"]}), k)?;
            if p.loss_names(k) {
                return Err(p.fail("a string enum is within every rule, yet there is a loss"));
            }
            let outside = match kinds {
                ValueKinds::Scalars => {
                    json!({"type": "array", "items": {"type": "integer"}, "enum": [[1], [2]]})
                }
                ValueKinds::StringsAndNumbers => json!({"enum": [true, "a"]}),
                ValueKinds::Strings => json!({"enum": [1, "a"]}),
            };
            dropped(outside, k)
        }
        Partial::Patterns(r) => {
            let p = kept(json!({"type": "string", "pattern": "^[a-z]+$"}), k)?;
            if p.loss_names(k) {
                return Err(
                    p.fail("an anchored simple pattern is within every rule, yet there is a loss")
                );
            }
            match r {
                PatternRule::AnchoredSimple | PatternRule::Anchored => {
                    dropped(json!({"type": "string", "pattern": "ab"}), k)
                }
                PatternRule::ClaudeSimple => {
                    dropped(json!({"type": "string", "pattern": "\\bab"}), k)
                }
                PatternRule::Ecma => {
                    kept(json!({"type": "string", "pattern": "ab|\\d"}), k).map(|_| ())
                }
                PatternRule::RawCharacters => {
                    dropped(json!({"type": "string", "pattern": "ab"}), k)?;
                    dropped(json!({"type": "string", "pattern": "^a.b$"}), k)?;
                    dropped(json!({"type": "string", "pattern": "^[a-z\"]+$"}), k)
                }
                PatternRule::FullMatchSafe => {
                    let p = lower_probe(target, k, json!({"type": "string", "pattern": "ab"}))?;
                    if p.node.get(k) != Some(&json!("^[\\s\\S]*(?:ab)[\\s\\S]*$")) {
                        return Err(p.fail(
                            "an unanchored pattern is not sent in its full-match-safe form",
                        ));
                    }
                    Ok(())
                }
            }
        }
        Partial::IntegersOnly(_) => {
            let sub = probe(k); // on an integer node
            let int = if sub["type"] == "integer" {
                sub.clone()
            } else {
                let mut s = sub.clone();
                s["type"] = json!("integer");
                s
            };
            let p = kept(int.clone(), k)?;
            if p.loss_names(k) {
                return Err(p.fail("enforced on integer-only nodes, yet there is a loss"));
            }
            let mut num = int;
            num["type"] = json!("number");
            let p = lower_probe(target, k, num)?;
            if p.node.get(k).is_none() || !p.loss_names(k) {
                return Err(
                    p.fail("on a node that admits fractions the bound must be sent with a loss")
                );
            }
            Ok(())
        }
        Partial::IntegerNodesOnly(_) => {
            let mut int = probe(k);
            int["type"] = json!("integer");
            let p = kept(int.clone(), k)?;
            if p.loss_names(k) {
                return Err(p.fail("enforced on integer-only nodes, yet there is a loss"));
            }
            let mut num = int.clone();
            num["type"] = json!("number");
            let p = lower_probe(target, k, num)?;
            if p.node.get(k).is_some() || !p.loss_names(k) {
                return Err(p.fail(
                    "on a node that admits fractions the bound must be left out with a loss",
                ));
            }
            let mut fraction = int;
            fraction[k] = json!(0.5);
            let p = lower_probe(target, k, fraction)?;
            if p.node.get(k).is_some() || !p.loss_names(k) {
                return Err(p.fail("a fractional bound must be left out with a loss"));
            }
            Ok(())
        }
        Partial::PlainStrings(_) => {
            let p = kept(probe(k), k)?;
            if p.loss_names(k) {
                return Err(p.fail("enforced on plain strings, yet there is a loss"));
            }
            let mut with_pattern = probe(k);
            with_pattern["pattern"] = json!("^[a-z]+$");
            let p = lower_probe(target, k, with_pattern)?;
            if p.node.get(k).is_some() || !p.loss_names(k) {
                return Err(p.fail("beside a pattern the length must be left out with a loss"));
            }
            Ok(())
        }
        Partial::LiteralsByType => {
            let strings = if k == "const" {
                json!({"const": "a"})
            } else {
                json!({"enum": ["a", "b"]})
            };
            let p = lower_probe(target, k, strings)?;
            if p.loss_names(k) || p.node.get("enum").is_none() {
                return Err(
                    p.fail("string literals must become the STRING node's `enum`, without a loss")
                );
            }
            let mixed = lower_probe(target, k, json!({"enum": ["a", 7]}))?;
            if !(contains_value(&mixed.node, &json!(["a"]))
                && contains_value(&mixed.node, &json!(7)))
            {
                return Err(mixed.fail(
                    "mixed literals must keep the string in an `enum` and the number as bounds",
                ));
            }
            Ok(())
        }
        Partial::ClosedToDeclared => {
            let p = lower_probe(target, k, probe(k))?;
            if p.node.get(k).is_some() || p.loss_names(k) {
                return Err(p.fail(
                    "a closed object with declared properties is sent without the keyword, exactly",
                ));
            }
            let map = probe_schema(
                k,
                json!({"type": "object", "additionalProperties": {"type": "string"}}),
            );
            let l = Schema::parse(&map)
                .map_err(|e| e.to_string())?
                .lower(target, &options(target));
            if l.mode() < Mode::Json {
                return Err(format!("[{target}] a map cannot be closed to its declared properties, yet {map} lowers to {}", l.mode()));
            }
            Ok(())
        }
    }
}

#[test]
fn capability_rows_match_what_the_lowerings_do() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for t in Target::ALL {
        for row in capabilities(t).rows {
            checked += 1;
            if let Err(e) = check_row(t, row) {
                failures.push(e);
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {checked} capability rows disagree with the lowerings:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// The keywords only the `full` subset has that some target's dialect has a row for
/// (`dialect::full_rows`).
const FULL_ROW_KEYWORDS: [&str; 2] = ["minProperties", "maxProperties"];

/// Checks what `target` does with the `full`-only `keyword` against its row (or, without one,
/// against the widening's drop): a probe of one closed object with one declared property
/// and the keyword at 1, lowered from the `full` subset.
fn check_full_row(target: Target, keyword: &str, support: Option<Support>) -> Result<(), String> {
    let mut sub = probe("properties");
    sub[keyword] = json!(1);
    let source = wrap(sub);
    let what = format!("[{target}] `{keyword}` (full) probe {source}");
    let schema = Schema::parse_with(&source, &ParseOptions::default().with_subset(Subset::Full))
        .map_err(|e| format!("{what}: not in the full subset: {e}"))?;
    let lowering = schema.lower(target, &options(target));
    if lowering.mode() > Mode::Widened {
        return Err(format!(
            "{what}: the probe falls back to {}",
            lowering.mode()
        ));
    }
    let field = field_pointer(capabilities(target).field);
    let node = lowering
        .wire()
        .pointer(&format!("{field}/properties/p"))
        .cloned()
        .ok_or_else(|| format!("{what}: no `properties/p` in {}", lowering.wire()))?;
    let p = Probed {
        what,
        lowering,
        node,
    };
    let sent = p.node.get(keyword) == Some(&json!(1));
    let lost = p.loss_names(keyword);
    let (want_sent, want_lost) = match support {
        Some(Support::Kept) => (true, false),
        Some(Support::Hint(_)) => (true, true),
        None | Some(Support::Dropped(_)) => (false, true),
        Some(other) => {
            return Err(p.fail(&format!(
                "a `full` row may only keep, hint or drop: {other:?}"
            )))
        }
    };
    if (sent, lost) != (want_sent, want_lost) {
        return Err(p.fail(&format!(
            "the row ({support:?}) says sent: {want_sent}, a loss: {want_lost}; the lowering: sent: {sent}, a loss: {lost}"
        )));
    }
    Ok(())
}

#[test]
fn full_rows_match_what_the_lowerings_do_and_targets_md_names_them() {
    let page = fs::read_to_string(support::workspace_root().join("docs").join("targets.md"))
        .unwrap_or_else(|e| panic!("{e}"));
    let section = page
        .split("## Keywords of the `full` subset")
        .nth(1)
        .unwrap_or_else(|| panic!("docs/targets.md has no section on the `full` subset"));
    let mut failures = Vec::new();
    for t in Target::ALL {
        for r in full_rows(t) {
            assert!(
                FULL_ROW_KEYWORDS.contains(&r.keyword)
                    && !keywords::SUBSET.iter().any(|k| k.name == r.keyword),
                "{t}: a `full` row for `{}`, which the probe does not cover",
                r.keyword
            );
            assert!(
                r.source.contains("https://"),
                "{t}: `{}` has no source link",
                r.keyword
            );
            // The hand-written table names each target that has a row, on the keyword's line.
            let named = section
                .lines()
                .filter(|l| l.contains(&format!("`{}`", r.keyword)))
                .any(|l| l.contains(&format!("`{t}`")));
            assert!(
                named,
                "docs/targets.md, `full` section: the `{}` line does not name `{t}`",
                r.keyword
            );
        }
        for k in FULL_ROW_KEYWORDS {
            let support = full_rows(t)
                .iter()
                .find(|r| r.keyword == k)
                .map(|r| r.support);
            if let Err(e) = check_full_row(t, k, support) {
                failures.push(e);
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    // The check can fail: a row that says kept where the keyword is dropped, and the reverse.
    assert!(check_full_row(Target::OpenAi, "minProperties", Some(Support::Kept)).is_err());
    assert!(check_full_row(Target::Gemini, "maxProperties", Some(Support::Dropped(""))).is_err());
    assert!(check_full_row(Target::GeminiJson, "minProperties", Some(Support::Kept)).is_err());
}

#[test]
fn the_probes_themselves_are_in_the_subset_and_native_somewhere() {
    // Each probe is a real use of its keyword, accepted by the subset, and at least one target
    // lowers it to a native schema: a probe every target falls back on would test nothing.
    for k in keywords::SUBSET {
        let native = Target::ALL
            .iter()
            .any(|t| lower_probe(*t, k.name, probe(k.name)).is_ok());
        assert!(native, "every target falls back on the `{}` probe", k.name);
    }
}

#[test]
fn a_row_that_misstates_the_lowering_is_caught() {
    // The check can fail: rows that say something the lowering does not do are rejected.
    let wrong = [
        (Target::OpenAi, "minLength", Support::Kept),
        (Target::OpenAi, "oneOf", Support::Kept),
        (Target::OpenAi, "minimum", Support::Dropped("")),
        (Target::Ollama, "not", Support::Kept),
        (Target::Ollama, "multipleOf", Support::Kept),
        (Target::Gemini, "multipleOf", Support::Hint("")),
        (
            Target::GeminiJson,
            "pattern",
            Support::Partial(Partial::Patterns(PatternRule::AnchoredSimple)),
        ),
        (Target::GeminiJson, "exclusiveMinimum", Support::Kept),
        (Target::Claude, "minItems", Support::Kept),
        (Target::ClaudeNative, "const", Support::Kept),
        (
            Target::Groq,
            "enum",
            Support::Partial(Partial::EnumValues(ValueKinds::Strings)),
        ),
        (Target::Mistral, "items", Support::Degrades("")),
    ];
    for (target, keyword, support) in wrong {
        let row = Row {
            keyword,
            support,
            source: "https://example.invalid",
        };
        assert!(
            check_row(target, &row).is_err(),
            "[{target}] `{keyword}` as {support:?} was not caught"
        );
    }
}
