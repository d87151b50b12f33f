//! The prompt instruction: answer with JSON only, the schema, and each constraint the provider
//! does not enforce, in plain words.
//!
//! The text is built once per [`Flow`] from the source JSON and the lowering, with no clock, no
//! randomness and no hash-map iteration, so the same schema and target give the same bytes on
//! every run and provider prompt caches keep hitting. The schema is shown as compact JSON: it
//! costs the fewest tokens, models read it as well as indented JSON, and `preserve_order` keeps
//! the source's key order (the order several providers emit members in).

use super::Flow;
use crate::lower::{Loss, Mode};
use crate::pointer::Pointer;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::fmt::Write as _;

/// What the schema shown to the model is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dialect {
    /// JSON Schema: the source, or a JSON-Schema wire dialect.
    JsonSchema,
    /// Gemini's `responseSchema` (the reshaped wire schema of the `gemini` target).
    GeminiOpenApi,
}

impl Dialect {
    /// The schema's name inside a sentence.
    pub(crate) fn noun(self) -> &'static str {
        match self {
            Dialect::JsonSchema => "JSON Schema",
            Dialect::GeminiOpenApi => "schema",
        }
    }

    /// The line above the schema.
    fn header(self) -> &'static str {
        match self {
            Dialect::JsonSchema => "JSON Schema:",
            Dialect::GeminiOpenApi => {
                "Schema (the OpenAPI 3.0 subset Gemini reads; `nullable: true` admits null):"
            }
        }
    }
}

/// Above this many values, an `enum` is not spelled out (the schema shows them anyway).
const MAX_LISTED_VALUES: usize = 12;
/// Above this many characters, an `enum` or `const` is not spelled out.
const MAX_LISTED_CHARS: usize = 200;

/// Builds the instruction of a flow.
pub(crate) fn instruction(flow: &Flow) -> String {
    let lowering = flow.lowering();
    let label = flow.dialect().noun();
    let value = if flow.object_only() {
        "a single JSON object"
    } else {
        "a single JSON value"
    };
    let mut out = String::new();
    match (flow.tool_name(), flow.schema_text()) {
        (Some(tool), Some(_)) => {
            let _ = write!(
                out,
                "Answer by calling the tool `{tool}` exactly once. Its input is your answer: {value} that conforms to the {label} below."
            );
        }
        (Some(tool), None) => {
            let _ = write!(
                out,
                "Answer by calling the tool `{tool}` exactly once. Its input is your answer, as {value}."
            );
        }
        (None, Some(_)) => {
            let _ = write!(
                out,
                "Answer with JSON only: {value} that conforms to the {label} below, with no text before or after it and no Markdown code fence."
            );
        }
        (None, None) => {
            let _ = write!(
                out,
                "Answer with JSON only: {value}, with no text before or after it and no Markdown code fence."
            );
        }
    }
    let Some(schema) = flow.schema_text() else {
        return out;
    };
    if lowering.is_reshaped() {
        out.push_str(RESHAPED_NOTE);
    }
    let _ = write!(out, "\n{}\n{schema}", flow.dialect().header());
    match lowering.mode() {
        Mode::Exact => {}
        Mode::Widened => {
            let lines = constraint_lines(flow.source(), lowering.losses());
            if !lines.is_empty() {
                out.push_str(if lowering.is_reshaped() {
                    "\nThese constraints of the data (located in its natural form) are not enforced while you write, so make sure your answer meets them:"
                } else {
                    "\nThese constraints of the schema are not enforced while you write, so make sure your answer meets them:"
                });
                for line in lines {
                    out.push_str("\n- ");
                    out.push_str(&line);
                }
            }
        }
        Mode::Json => out.push_str(
            "\nOnly JSON syntax is enforced while you write, not the schema: keep to every constraint in it yourself.",
        ),
        Mode::Prompt => out.push_str(
            "\nNothing enforces the schema while you write: keep to every constraint in it yourself.",
        ),
    }
    out
}

/// What a reshaping lowering asks for, in words (the reshapings are those of `lens`).
pub(crate) const RESHAPED_NOTE: &str = " The schema describes the form your answer is sent in, which can differ from the natural form of the data: optional members are always present and null when absent (a present value that may itself be null is wrapped as {\"value\": ...}), maps are lists of {\"key\": ..., \"value\": ...} entries, free-form objects are strings holding JSON text, and a top-level value that is not an object is wrapped as {\"value\": ...}. Follow the schema exactly.";

/// One line per schema location, in the order the lowering lists the losses: the location, then
/// what the value must satisfy there, one clause per distinct keyword.
fn constraint_lines(source: Option<&Value>, losses: &[Loss]) -> Vec<String> {
    // The map only finds a location's group; the order is the vector's, so output is stable.
    let mut index: HashMap<&Pointer, usize> = HashMap::new();
    let mut groups: Vec<(&Pointer, Vec<&Loss>)> = Vec::new();
    for loss in losses {
        let at = *index.entry(&loss.pointer).or_insert_with(|| {
            groups.push((&loss.pointer, Vec::new()));
            groups.len() - 1
        });
        if let Some((_, group)) = groups.get_mut(at) {
            if !group.iter().any(|l| l.keyword == loss.keyword) {
                group.push(loss);
            }
        }
    }
    groups
        .into_iter()
        .map(|(pointer, group)| {
            let node = source
                .and_then(|s| s.pointer(pointer.as_str()))
                .and_then(Value::as_object);
            let mut line = format!("{}: {}", location(pointer), clauses(node, &group));
            if !line.ends_with('.') {
                line.push('.');
            }
            line
        })
        .collect()
}

/// Lower and upper bounds that read better as one clause ("between … and …").
const RANGES: &[(&str, &str)] = &[
    ("minLength", "maxLength"),
    ("minItems", "maxItems"),
    ("minimum", "maximum"),
    ("minimum", "exclusiveMaximum"),
    ("exclusiveMinimum", "maximum"),
    ("exclusiveMinimum", "exclusiveMaximum"),
];

/// The clauses for the losses of one node, joined; a lower and an upper bound of the same kind
/// make one clause, where the lower one stands.
fn clauses(node: Option<&Map<String, Value>>, group: &[&Loss]) -> String {
    let has = |kw: &str| group.iter().any(|l| l.keyword == kw);
    // (lower, upper, clause) for each pair present with both values in the source.
    let merged: Vec<(&str, &str, String)> = match node {
        Some(n) => RANGES
            .iter()
            .filter(|(lo, up)| has(lo) && has(up))
            .filter_map(|(lo, up)| Some((*lo, *up, range(n, lo, up)?)))
            .collect(),
        None => Vec::new(),
    };
    let mut out: Vec<String> = Vec::new();
    for loss in group {
        let kw: &str = &loss.keyword;
        if merged.iter().any(|(_, up, _)| *up == kw) {
            continue;
        }
        let clause = match merged.iter().find(|(lo, _, _)| *lo == kw) {
            Some((_, _, clause)) => clause.clone(),
            None => node.and_then(|n| describe(n, kw)).unwrap_or_else(|| {
                if kw.is_empty() {
                    loss.reason.to_string()
                } else {
                    format!("keep to its `{kw}` constraint")
                }
            }),
        };
        out.push(clause);
    }
    out.join("; ")
}

/// A lower and an upper bound as one clause.
fn range(node: &Map<String, Value>, lower: &str, upper: &str) -> Option<String> {
    let (lo, up) = (node.get(lower)?, node.get(upper)?);
    Some(match lower {
        "minLength" => format!(
            "{} be {lo} to {} long",
            must(node, Kind::String),
            plural(up, "character", "characters")
        ),
        "minItems" => format!(
            "{} have {lo} to {}",
            must(node, Kind::Array),
            plural(up, "item", "items")
        ),
        _ => format!(
            "{} be {} and {}",
            must(node, Kind::Number),
            bound(lower, lo)?,
            bound(upper, up)?
        ),
    })
}

/// A numeric bound keyword as a phrase ("at least 1").
fn bound(keyword: &str, v: &Value) -> Option<String> {
    let relation = match keyword {
        "minimum" => "at least",
        "exclusiveMinimum" => "greater than",
        "maximum" => "at most",
        "exclusiveMaximum" => "less than",
        _ => return None,
    };
    Some(format!("{relation} {v}"))
}

/// One loss as its line.
#[cfg(test)]
fn constraint(source: Option<&Value>, loss: &Loss) -> String {
    constraint_lines(source, std::slice::from_ref(loss))
        .pop()
        .unwrap_or_default()
}

/// The kind of value a keyword constrains; a node typed otherwise gets an "if a …," prefix.
#[derive(Clone, Copy)]
enum Kind {
    String,
    Number,
    Array,
    Object,
}

impl Kind {
    fn article(self) -> &'static str {
        match self {
            Kind::String => "a string",
            Kind::Number => "a number",
            Kind::Array => "an array",
            Kind::Object => "an object",
        }
    }

    fn admits_only(self, type_name: &str) -> bool {
        match self {
            Kind::String => type_name == "string",
            Kind::Number => type_name == "number" || type_name == "integer",
            Kind::Array => type_name == "array",
            Kind::Object => type_name == "object",
        }
    }
}

/// "must …" when the node's `type` is that kind alone, else "if a string, must …".
fn must(node: &Map<String, Value>, kind: Kind) -> String {
    match node.get("type").and_then(Value::as_str) {
        Some(t) if kind.admits_only(t) => "must".to_owned(),
        _ => format!("if {}, must", kind.article()),
    }
}

fn type_phrase(name: &str) -> Option<&'static str> {
    Some(match name {
        "null" => "null",
        "boolean" => "a boolean",
        "object" => "an object",
        "array" => "an array",
        "number" => "a number",
        "integer" => "an integer",
        "string" => "a string",
        _ => return None,
    })
}

/// A JSON value inline, when it is short enough to be read in a sentence.
fn short(v: &Value) -> Option<String> {
    let text = v.to_string();
    (text.chars().count() <= MAX_LISTED_CHARS).then_some(text)
}

/// Names as `a`, `b` and `c`.
fn names(list: &[&str]) -> String {
    let quoted: Vec<String> = list.iter().map(|n| format!("`{n}`")).collect();
    match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        Some((last, _)) => last.clone(),
        None => String::new(),
    }
}

fn plural(n: &Value, one: &str, many: &str) -> String {
    if n.as_u64() == Some(1) {
        format!("{n} {one}")
    } else {
        format!("{n} {many}")
    }
}

/// "1 schema", "2 schemas".
fn schemas(n: usize) -> String {
    plural(&Value::from(n), "schema", "schemas")
}

/// What the keyword requires of the value, or `None` when its value is not what the subset
/// allows (then the caller falls back to naming the keyword).
fn describe(node: &Map<String, Value>, keyword: &str) -> Option<String> {
    let v = node.get(keyword)?;
    let count = || v.as_array().map_or(0, Vec::len);
    Some(match keyword {
        "type" => {
            let list: Vec<&str> = match v {
                Value::String(s) => vec![s.as_str()],
                Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
                _ => return None,
            };
            let phrases: Option<Vec<&str>> = list.into_iter().map(type_phrase).collect();
            format!("must be {}", phrases?.join(" or "))
        }
        "enum" => {
            let values = v.as_array()?;
            let listed: Option<Vec<String>> = values.iter().map(short).collect();
            match listed {
                Some(l)
                    if l.len() <= MAX_LISTED_VALUES
                        && l.iter().map(String::len).sum::<usize>() <= MAX_LISTED_CHARS =>
                {
                    format!("must be one of {}", l.join(", "))
                }
                _ => format!(
                    "must be one of the {} values listed in its `enum`",
                    values.len()
                ),
            }
        }
        "const" => match short(v) {
            Some(c) => format!("must be exactly {c}"),
            None => "must equal its `const` value".to_owned(),
        },
        "pattern" => {
            let p = v.as_str()?;
            let shown = if p.contains('`') {
                v.to_string()
            } else {
                format!("`{p}`")
            };
            format!(
                "{} match the regular expression {shown}",
                must(node, Kind::String)
            )
        }
        "minLength" => format!(
            "{} be at least {} long",
            must(node, Kind::String),
            plural(v, "character", "characters")
        ),
        "maxLength" => format!(
            "{} be at most {} long",
            must(node, Kind::String),
            plural(v, "character", "characters")
        ),
        "minimum" | "exclusiveMinimum" | "maximum" | "exclusiveMaximum" => {
            format!("{} be {}", must(node, Kind::Number), bound(keyword, v)?)
        }
        "multipleOf" => format!("{} be a multiple of {v}", must(node, Kind::Number)),
        "minItems" => format!(
            "{} have at least {}",
            must(node, Kind::Array),
            plural(v, "item", "items")
        ),
        "maxItems" => format!(
            "{} have at most {}",
            must(node, Kind::Array),
            plural(v, "item", "items")
        ),
        "uniqueItems" if v == &Value::Bool(true) => format!(
            "{} not contain the same item twice",
            must(node, Kind::Array)
        ),
        "prefixItems" => format!(
            "{} have its first items match the {} under `prefixItems`, position by position",
            must(node, Kind::Array),
            schemas(count())
        ),
        "items" => format!(
            "{} have every item match its `items` schema",
            must(node, Kind::Array)
        ),
        "required" => {
            let list: Vec<&str> = v.as_array()?.iter().filter_map(Value::as_str).collect();
            let noun = if list.len() == 1 { "member" } else { "members" };
            format!(
                "{} have the {noun} {}",
                must(node, Kind::Object),
                names(&list)
            )
        }
        "additionalProperties" => {
            let declared: Vec<&str> = node
                .get("properties")
                .and_then(Value::as_object)
                .map(|p| p.keys().map(String::as_str).collect())
                .unwrap_or_default();
            match v {
                Value::Bool(false) if declared.is_empty() => {
                    format!("{} have no members", must(node, Kind::Object))
                }
                Value::Bool(false) => format!(
                    "{} have no members other than {}",
                    must(node, Kind::Object),
                    names(&declared)
                ),
                Value::Object(_) if declared.is_empty() => format!(
                    "{} have every member match its `additionalProperties` schema",
                    must(node, Kind::Object)
                ),
                Value::Object(_) => format!(
                    "{} have every member other than {} match its `additionalProperties` schema",
                    must(node, Kind::Object),
                    names(&declared)
                ),
                _ => return None,
            }
        }
        "properties" => format!(
            "{} have each member listed under `properties` match its schema there",
            must(node, Kind::Object)
        ),
        "anyOf" => format!(
            "must match at least one of the {} under `anyOf`",
            schemas(count())
        ),
        "oneOf" => format!(
            "must match exactly one of the {} under `oneOf`",
            schemas(count())
        ),
        "allOf" => format!("must match all {} under `allOf`", schemas(count())),
        "not" => "must not match the schema under `not`".to_owned(),
        _ => return None,
    })
}

/// Where a schema node applies, as a JSONPath-like location of the answer (`$.a.b[*]`), with
/// the combinator branches it sits in. A pointer the walk does not understand is quoted as is.
pub(crate) fn location(pointer: &Pointer) -> String {
    let mut path = String::from("$");
    let mut notes: Vec<String> = Vec::new();
    let mut tokens = pointer.tokens();
    while let Some(token) = tokens.next() {
        match token.as_str() {
            "properties" => match tokens.next() {
                Some(name) => push_member(&mut path, &name),
                None => return raw(pointer),
            },
            "additionalProperties" => path.push_str(".*"),
            "items" => path.push_str("[*]"),
            "prefixItems" => match tokens.next().and_then(|i| i.parse::<usize>().ok()) {
                Some(i) => {
                    let _ = write!(path, "[{i}]");
                }
                None => return raw(pointer),
            },
            kw @ ("anyOf" | "oneOf") => match tokens.next().and_then(|i| i.parse::<usize>().ok()) {
                Some(i) => notes.push(format!(
                    "in option {} of the `{kw}` at `{path}`",
                    i.saturating_add(1)
                )),
                None => return raw(pointer),
            },
            // Conjunctive: a member of `allOf` constrains the same value.
            "allOf" => {
                if tokens
                    .next()
                    .and_then(|i| i.parse::<usize>().ok())
                    .is_none()
                {
                    return raw(pointer);
                }
            }
            "not" => notes.push(format!(
                "inside the `not` at `{path}`, which your answer must not match"
            )),
            _ => return raw(pointer),
        }
    }
    if notes.is_empty() {
        format!("`{path}`")
    } else {
        format!("`{path}` ({})", notes.join("; "))
    }
}

fn raw(pointer: &Pointer) -> String {
    format!("the schema location `{pointer}`")
}

/// `.name` for identifier-like names, else `["name"]` with JSON string escapes.
fn push_member(path: &mut String, name: &str) {
    let plain = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if plain {
        path.push('.');
        path.push_str(name);
    } else {
        let _ = write!(path, "[{}]", Value::from(name));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn loss(pointer: &str, keyword: &'static str) -> Loss {
        Loss::new(
            &Pointer::parse(pointer).unwrap_or_default(),
            keyword,
            "not enforced",
        )
    }

    #[test]
    fn locations_read_as_paths_into_the_answer() {
        let p = |s: &str| location(&Pointer::parse(s).unwrap_or_default());
        assert_eq!(p(""), "`$`");
        assert_eq!(p("/properties/a/items/properties/b"), "`$.a[*].b`");
        assert_eq!(p("/prefixItems/1/additionalProperties"), "`$[1].*`");
        assert_eq!(p("/properties/a b"), "`$[\"a b\"]`");
        assert_eq!(p("/properties/a~1b"), "`$[\"a/b\"]`");
        assert_eq!(p("/allOf/0/properties/x"), "`$.x`");
        assert_eq!(
            p("/properties/contact/anyOf/1/properties/phone"),
            "`$.contact.phone` (in option 2 of the `anyOf` at `$.contact`)"
        );
        assert_eq!(
            p("/not"),
            "`$` (inside the `not` at `$`, which your answer must not match)"
        );
        assert_eq!(p("/$defs/x"), "the schema location `/$defs/x`");
        assert_eq!(p("/properties"), "the schema location `/properties`");
    }

    #[test]
    fn each_keyword_reads_as_a_sentence() {
        let source = json!({
            "type": "object",
            "properties": {
                "code": {"type": "string", "pattern": "^[A-Z]{3}$", "minLength": 3, "maxLength": 1},
                "note": {"type": ["string", "null"], "pattern": "x`y"},
                "qty": {"type": "integer", "minimum": 1, "exclusiveMaximum": 10, "multipleOf": 2},
                "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true, "minItems": 2, "maxItems": 1, "prefixItems": [{"type": "string"}]},
                "kind": {"enum": ["a", "b", 3]},
                "many": {"enum": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]},
                "fixed": {"const": {"v": 1}},
                "pick": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
                "map": {"type": "object", "additionalProperties": {"type": "integer"}},
                "open": {"properties": {"a": {"type": "string"}}, "additionalProperties": false, "required": ["a"]}
            },
            "required": ["code"],
            "additionalProperties": false
        });
        let s = |ptr: &str, kw: &'static str| constraint(Some(&source), &loss(ptr, kw));
        assert_eq!(
            s("/properties/code", "pattern"),
            "`$.code`: must match the regular expression `^[A-Z]{3}$`."
        );
        assert_eq!(
            s("/properties/note", "pattern"),
            "`$.note`: if a string, must match the regular expression \"x`y\"."
        );
        assert_eq!(
            s("/properties/code", "minLength"),
            "`$.code`: must be at least 3 characters long."
        );
        assert_eq!(
            s("/properties/code", "maxLength"),
            "`$.code`: must be at most 1 character long."
        );
        assert_eq!(
            s("/properties/qty", "minimum"),
            "`$.qty`: must be at least 1."
        );
        assert_eq!(
            s("/properties/qty", "exclusiveMaximum"),
            "`$.qty`: must be less than 10."
        );
        assert_eq!(
            s("/properties/qty", "multipleOf"),
            "`$.qty`: must be a multiple of 2."
        );
        assert_eq!(
            s("/properties/tags", "uniqueItems"),
            "`$.tags`: must not contain the same item twice."
        );
        assert_eq!(
            s("/properties/tags", "minItems"),
            "`$.tags`: must have at least 2 items."
        );
        assert_eq!(
            s("/properties/tags", "maxItems"),
            "`$.tags`: must have at most 1 item."
        );
        assert_eq!(
            s("/properties/tags", "prefixItems"),
            "`$.tags`: must have its first items match the 1 schema under `prefixItems`, position by position."
        );
        assert_eq!(
            s("/properties/kind", "enum"),
            "`$.kind`: must be one of \"a\", \"b\", 3."
        );
        assert_eq!(
            s("/properties/many", "enum"),
            "`$.many`: must be one of the 13 values listed in its `enum`."
        );
        assert_eq!(
            s("/properties/fixed", "const"),
            "`$.fixed`: must be exactly {\"v\":1}."
        );
        assert_eq!(
            s("/properties/pick", "oneOf"),
            "`$.pick`: must match exactly one of the 2 schemas under `oneOf`."
        );
        assert_eq!(
            s("/properties/map", "additionalProperties"),
            "`$.map`: must have every member match its `additionalProperties` schema."
        );
        assert_eq!(
            s("/properties/open", "additionalProperties"),
            "`$.open`: if an object, must have no members other than `a`."
        );
        assert_eq!(
            s("", "additionalProperties"),
            "`$`: must have no members other than `code`, `note`, `qty`, `tags`, `kind`, `many`, `fixed`, `pick`, `map` and `open`."
        );
        assert_eq!(
            s("/properties/open", "required"),
            "`$.open`: if an object, must have the member `a`."
        );
        assert_eq!(s("", "type"), "`$`: must be an object.");
        assert_eq!(
            s("/properties/note", "type"),
            "`$.note`: must be a string or null."
        );
    }

    #[test]
    fn losses_of_one_location_make_one_line_with_ranges_merged() {
        let source = json!({
            "type": "object",
            "properties": {
                "n": {"type": ["number", "null"], "exclusiveMaximum": 5, "exclusiveMinimum": 0, "multipleOf": 2},
                "s": {"type": "string", "maxLength": 9, "minLength": 2},
                "a": {"type": "array", "minItems": 1, "maxItems": 3, "uniqueItems": true}
            }
        });
        let losses = [
            loss("/properties/n", "exclusiveMaximum"),
            loss("/properties/s", "maxLength"),
            loss("/properties/n", "multipleOf"),
            loss("/properties/n", "exclusiveMinimum"),
            loss("/properties/n", "multipleOf"),
            loss("/properties/s", "minLength"),
            loss("/properties/a", "minItems"),
            loss("/properties/a", "uniqueItems"),
            loss("/properties/a", "maxItems"),
            loss("/properties/x", ""),
        ];
        assert_eq!(
            constraint_lines(Some(&source), &losses),
            vec![
                "`$.n`: if a number, must be a multiple of 2; if a number, must be greater than 0 and less than 5.",
                "`$.s`: must be 2 to 9 characters long.",
                "`$.a`: must have 1 to 3 items; must not contain the same item twice.",
                "`$.x`: not enforced.",
            ]
        );
    }

    #[test]
    fn unknown_or_missing_keywords_fall_back_to_the_loss() {
        let source = json!({"type": "string"});
        assert_eq!(
            constraint(Some(&source), &loss("", "pattern")),
            "`$`: keep to its `pattern` constraint."
        );
        assert_eq!(
            constraint(None, &loss("/properties/x", "")),
            "`$.x`: not enforced."
        );
        // A pointer that does not resolve in the source is not an error either.
        assert_eq!(
            constraint(Some(&source), &loss("/properties/nope", "minimum")),
            "`$.nope`: keep to its `minimum` constraint."
        );
    }
}
