//! The `full` subset before any dialect: one rewrite to the keywords every lowering already
//! knows, widening only, each step a [`Loss`].
//!
//! A `full` schema's nodes carry the usual keyword groups plus keywords no dialect lowering
//! reads (`patternProperties`, `if`/`then`/`else`, `contains`, `dependent*`, `unevaluated*`,
//! `$dynamicRef`, a decimal `multipleOf`, the schema `false` …). Each is dropped, which
//! widens where the node stands positively; the places where dropping would narrow are
//! handled first:
//!
//! - `patternProperties` beside a closed `additionalProperties` (`false` or a schema): the
//!   additional schema applies only to names no pattern matches, so dropping the patterns
//!   alone would close the object to names they allow. The object is opened too.
//! - A changed subschema under `not` inverts the widening; the `not` is dropped whole.
//! - A changed branch of `oneOf` can make two branches match where one did; the `oneOf`
//!   becomes an `anyOf`.
//!
//! The dialect lowerings then keep their own widening contract on the result, and answers are
//! still validated against the `full` schema itself.
//!
//! The one exception is a keyword the target's dialect sends itself, by a row of its
//! [`full_rows`](crate::dialect::full_rows) (Gemini's `minProperties`/`maxProperties`): it is
//! kept on the widened node ([`Node::property_counts`]) instead of dropped, and the dialect
//! lowering decides and lists what becomes of it. Such a node does not count as changed.

use crate::dialect::caps::{Row, Support};
use crate::ir::{Additional, Draft, FullRules, Node, NodeId, ObjectRules, PropertyCounts, Subset};
use crate::lower::{Loss, Target};
use crate::schema::Schema;
use crate::value::JsonType;
use std::sync::Arc;

/// What the target's dialect does with the `full`-only keywords it has rows for.
struct Sends {
    rows: &'static [Row],
    min_properties: bool,
    max_properties: bool,
}

impl Sends {
    fn of(target: Target) -> Sends {
        let rows = crate::dialect::full_rows(target);
        let sends = |keyword: &str| {
            rows.iter()
                .any(|r| r.keyword == keyword && r.support == Support::Kept)
        };
        Sends {
            rows,
            min_properties: sends("minProperties"),
            max_properties: sends("maxProperties"),
        }
    }

    /// Why `keyword` is dropped: the target's row when it has one, else the common reason.
    fn dropped(&self, keyword: &str) -> &'static str {
        self.rows
            .iter()
            .find_map(|r| match r.support {
                Support::Dropped(why) if r.keyword == keyword => Some(why),
                _ => None,
            })
            .unwrap_or(DROPPED)
    }
}

const DROPPED: &str = "not enforced: dropped (the target dialects do not carry it)";

/// The rewrite for `target`, or `None` for a schema outside the `full` subset.
pub(crate) fn widen(schema: &Schema, target: Target) -> Option<(Schema, Vec<Loss>)> {
    let full = schema.full_ir()?;
    let sends = Sends::of(target);
    let mut nodes: Vec<Node> = schema.nodes().map(|(_, n)| n.clone()).collect();
    let mut losses = Vec::new();
    let n = nodes.len();
    // Draft 4's `integer` is stricter than every later draft's (and every dialect's): `1.0`
    // is not one. Sent as is, the type admits more: widening, but a loss, and a change under
    // `not` or in a `oneOf` branch.
    let draft4_integer = |i: usize, node: &Node| {
        node.types
            .is_some_and(|t| t.contains(JsonType::Integer) && !t.contains(JsonType::Number))
            && full
                .resource_of
                .get(i)
                .and_then(|r| full.resources.get(*r as usize))
                .is_some_and(|r| r.draft == Draft::Draft4)
    };
    // Which nodes lose something themselves.
    let mut changed: Vec<bool> = nodes
        .iter()
        .enumerate()
        .map(|(i, node)| {
            schema
                .full_rules(NodeId(i as u32))
                .is_some_and(|r| asserts_something(r, &sends))
                || draft4_integer(i, node)
        })
        .collect();
    // Which nodes change, themselves or below: parents of changed nodes, to a fixpoint.
    let mut again = true;
    while again {
        again = false;
        for (i, node) in nodes.iter().enumerate() {
            if changed.get(i).copied().unwrap_or(true) {
                continue;
            }
            if node
                .subschemas()
                .any(|c| changed.get(c.index()).copied().unwrap_or(false))
            {
                if let Some(c) = changed.get_mut(i) {
                    *c = true;
                }
                again = true;
            }
        }
    }
    let is_changed = |id: NodeId| changed.get(id.index()).copied().unwrap_or(false);
    let mut extra: Vec<Node> = Vec::new();
    for (i, node) in nodes.iter_mut().enumerate() {
        let id = NodeId(i as u32);
        if let Some(rules) = schema.full_rules(id) {
            drop_rules(node, rules, &sends, &mut losses);
        }
        if draft4_integer(i, node) {
            losses.push(Loss::new(
                &node.pointer,
                "type",
                "`integer` not enforced as draft 4 reads it: an integral number written with a fraction (`1.0`) is not an integer there, but every target admits it",
            ));
        }
        if node.not.is_some_and(is_changed) {
            node.not = None;
            losses.push(Loss::new(
                &node.pointer,
                "not",
                "dropped: the schema under it uses keywords the target cannot carry, and widening them under `not` would narrow",
            ));
        }
        if node.one_of.iter().any(|b| is_changed(*b)) {
            let branches = std::mem::take(&mut node.one_of);
            if node.any_of.is_empty() {
                node.any_of = branches;
            } else {
                let at = NodeId((n + extra.len()) as u32);
                extra.push(Node {
                    pointer: node.pointer.clone(),
                    any_of: branches,
                    ..Node::default()
                });
                node.all_of.push(at);
            }
            losses.push(Loss::new(
                &node.pointer,
                "oneOf",
                "relaxed to `anyOf`: its branches use keywords the target cannot carry, so more than one may match once widened",
            ));
        }
    }
    nodes.extend(extra);
    Some((
        Schema::from_nodes(nodes, schema.root(), Subset::Extended),
        losses,
    ))
}

/// True when the node's `full`-only keywords that the target does not send assert anything
/// (`$dynamicAnchor` alone does not).
fn asserts_something(r: &FullRules, sends: &Sends) -> bool {
    r.never
        || !r.pattern_properties.is_empty()
        || r.property_names.is_some()
        || (r.min_properties.is_some() && !sends.min_properties)
        || (r.max_properties.is_some() && !sends.max_properties)
        || !r.dependent_required.is_empty()
        || !r.dependent_schemas.is_empty()
        || r.if_.is_some()
        || r.then_.is_some()
        || r.else_.is_some()
        || r.contains.is_some()
        || r.unevaluated_properties.is_some()
        || r.unevaluated_items.is_some()
        || r.multiple_of.is_some()
        || r.dynamic_ref.is_some()
        || r.recursive_ref.is_some()
        || r.format_assertion.is_some()
}

/// Drops the `full`-only keywords of one node (they are not in its groups: dropping is not
/// writing them), listing each, and opens the object where dropping patterns would close it.
/// The keywords the target sends are written into the node instead.
fn drop_rules(node: &mut Node, r: &FullRules, sends: &Sends, losses: &mut Vec<Loss>) {
    let counts = PropertyCounts {
        min: r.min_properties.filter(|_| sends.min_properties),
        max: r.max_properties.filter(|_| sends.max_properties),
    };
    if counts != PropertyCounts::default() {
        node.property_counts = Some(Arc::new(counts));
    }
    let at = node.pointer.clone();
    let mut lost = |keyword: &'static str, reason: &'static str| {
        losses.push(Loss::new(&at, keyword, reason));
    };
    if r.never {
        lost(
            "false",
            "not enforced: the schema `false` (no value) is dropped, accepting any value",
        );
    }
    if !r.pattern_properties.is_empty() {
        lost(
            "patternProperties",
            "not enforced: dropped (no target dialect expresses it while keeping the widening contract)",
        );
        let closed = node
            .object
            .as_ref()
            .is_some_and(|o| !o.additional.is_open());
        if closed {
            let o: &mut ObjectRules =
                Arc::make_mut(node.object.get_or_insert_with(Default::default));
            o.additional = Additional::Allowed;
            lost(
                "additionalProperties",
                "not enforced: the object is opened, because `patternProperties` beside it is dropped and the additional rule would then also reject the names the patterns allow",
            );
        }
    }
    for (present, keyword) in [
        (r.property_names.is_some(), "propertyNames"),
        (
            r.min_properties.is_some() && !sends.min_properties,
            "minProperties",
        ),
        (
            r.max_properties.is_some() && !sends.max_properties,
            "maxProperties",
        ),
        (!r.dependent_required.is_empty(), "dependentRequired"),
        (!r.dependent_schemas.is_empty(), "dependentSchemas"),
        (r.contains.is_some(), "contains"),
        (r.unevaluated_properties.is_some(), "unevaluatedProperties"),
        (r.unevaluated_items.is_some(), "unevaluatedItems"),
        (r.multiple_of.is_some(), "multipleOf"),
        (r.dynamic_ref.is_some(), "$dynamicRef"),
        (r.recursive_ref.is_some(), "$recursiveRef"),
        (r.format_assertion.is_some(), "format"),
    ] {
        if present {
            lost(keyword, sends.dropped(keyword));
        }
    }
    if r.if_.is_some() || r.then_.is_some() || r.else_.is_some() {
        lost(
            "if",
            "not enforced: `if`/`then`/`else` dropped whole (the target dialects do not carry it)",
        );
    }
}

#[cfg(test)]
mod tests {
    use crate::{LowerOptions, ParseOptions, Subset, Target};
    use serde_json::json;

    fn full(v: serde_json::Value) -> crate::Schema {
        crate::Schema::parse_with(&v, &ParseOptions::default().with_subset(Subset::Full))
            .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn patterns_beside_a_closed_object_open_it() {
        let s = full(json!({
            "type": "object",
            "properties": {"a": {"type": "string"}},
            "patternProperties": {"^x-": {"type": "integer"}},
            "additionalProperties": false
        }));
        let (w, losses) = super::widen(&s, Target::OpenAi).unwrap_or_else(|| panic!("full"));
        let keywords: Vec<&str> = losses.iter().map(|l| &*l.keyword).collect();
        assert_eq!(keywords, ["patternProperties", "additionalProperties"]);
        // The widened schema accepts what the source accepts, and more.
        let v = json!({"a": "s", "x-b": 1});
        assert!(s.is_valid(&v) && w.is_valid(&v));
        for t in Target::ALL {
            let l = s.lower(t, &LowerOptions::default());
            // A native lowering says what the widening dropped; a fallback lists its blockers.
            assert!(
                l.mode() >= crate::Mode::Json
                    || l.losses().iter().any(|l| l.keyword == "patternProperties"),
                "{t}"
            );
            assert!(l.accept(&v).is_ok() || l.mode() >= crate::Mode::Json, "{t}");
        }
    }

    #[test]
    fn draft4_integers_are_a_loss_and_change_not_and_one_of() {
        // Found by the `full` widening property: draft 4's `integer` rejects `1.0`, every
        // target's admits it, so an exact lowering claimed too much; and under `not` or in a
        // `oneOf` branch the wider reading would narrow.
        let s = full(json!({
            "$schema": "http://json-schema.org/draft-04/schema#",
            "type": "object",
            "properties": {
                "v": {"type": "integer"},
                "n": {"not": {"type": "integer"}},
                "o": {"oneOf": [{"type": "integer"}, {"type": "number"}]}
            },
            "required": ["v"]
        }));
        let (_, losses) = super::widen(&s, Target::OpenAi).unwrap_or_else(|| panic!("full"));
        let at: Vec<(String, &str)> = losses
            .iter()
            .map(|l| (l.pointer.to_string(), &*l.keyword))
            .collect();
        for (pointer, keyword) in [
            ("/properties/v", "type"),
            ("/properties/n", "not"),
            ("/properties/o", "oneOf"),
        ] {
            assert!(
                at.iter().any(|(p, k)| p == pointer && *k == keyword),
                "{pointer} {keyword}: {at:?}"
            );
        }
        for (x, valid) in [
            (json!({"v": 1}), true),
            (json!({"v": 1.0}), false),
            (json!({"v": 1, "n": 2.0}), true),
            (json!({"v": 1, "o": 2.0}), true),
        ] {
            assert_eq!(s.is_valid(&x), valid, "{x}");
            for t in Target::ALL {
                let l = s.lower(t, &LowerOptions::default());
                assert_ne!(l.mode(), crate::Mode::Exact, "{t}");
                if valid {
                    assert!(
                        l.accept(&x).is_ok() || l.mode() >= crate::Mode::Json,
                        "{t} {x}"
                    );
                }
            }
        }
        // Later drafts count `1.0` as an integer: nothing lost.
        let s =
            full(json!({"$schema": "http://json-schema.org/draft-06/schema#", "type": "integer"}));
        let (_, losses) = super::widen(&s, Target::OpenAi).unwrap_or_else(|| panic!("full"));
        assert!(losses.is_empty(), "{losses:?}");
    }

    #[test]
    fn changed_subschemas_under_not_and_one_of_do_not_narrow() {
        let s = full(json!({
            "not": {"minProperties": 1},
            "oneOf": [{"type": "object", "minProperties": 2}, {"type": "object"}]
        }));
        let (w, losses) = super::widen(&s, Target::OpenAi).unwrap_or_else(|| panic!("full"));
        let keywords: Vec<&str> = losses.iter().map(|l| &*l.keyword).collect();
        assert!(
            keywords.contains(&"not") && keywords.contains(&"oneOf"),
            "{keywords:?}"
        );
        assert!(s.is_valid(&json!({})));
        assert!(w.is_valid(&json!({})));
        assert!(w.is_valid(&json!({"a": 1, "b": 2})));
    }

    /// True when the wire names any of `keywords`.
    fn mentions(wire: &serde_json::Value, keywords: &[&str]) -> bool {
        let text = wire.to_string();
        keywords.iter().any(|k| text.contains(&format!("\"{k}\"")))
    }

    /// The keywords and reasons of a lowering's losses at the root.
    fn root_losses(l: &crate::Lowering) -> Vec<(&str, &str)> {
        l.losses()
            .iter()
            .filter(|x| x.pointer == crate::Pointer::root())
            .map(|x| (&*x.keyword, &*x.reason))
            .collect()
    }

    #[test]
    fn gemini_schema_routes_keep_property_counts_and_the_others_drop_them() {
        let s = full(json!({
            "type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": ["integer", "null"]}},
            "required": ["a", "b"],
            "additionalProperties": false,
            "minProperties": 1,
            "maxProperties": 2
        }));
        let options = LowerOptions::default();
        for t in [Target::Gemini, Target::VertexGemini] {
            let l = s.lower(t, &options);
            assert_eq!(l.mode(), crate::Mode::Exact, "{t}: {:?}", l.losses());
            let sent = &l.wire()["generationConfig"]["responseSchema"];
            assert_eq!(sent["minProperties"], json!(1), "{t}");
            assert_eq!(sent["maxProperties"], json!(2), "{t}");
        }
        // Not sent on `responseJsonSchema` nor on the Interactions API, each with its row's
        // reason.
        for (t, why) in [
            (Target::GeminiJson, "grammar engines refuse it"),
            (Target::GeminiInteractions, "untested on this route"),
        ] {
            let l = s.lower(t, &options);
            assert!(
                !mentions(l.wire(), &["minProperties", "maxProperties"]),
                "{t}: {}",
                l.wire()
            );
            let at: Vec<(&str, &str)> = root_losses(&l)
                .into_iter()
                .filter(|(k, _)| k.ends_with("Properties"))
                .collect();
            assert_eq!(at.len(), 2, "{t}: {at:?}");
            assert!(
                at.iter().all(|(_, reason)| reason.contains(why)),
                "{t}: {at:?}"
            );
        }
        // Every other target drops them as before.
        for t in Target::ALL {
            if crate::dialect::full_rows(t).is_empty() {
                let l = s.lower(t, &options);
                if l.mode() >= crate::Mode::Json {
                    // A fallback lists its blockers only (Groq without strict mode).
                    assert_eq!(t, Target::Groq);
                    continue;
                }
                assert!(
                    !mentions(l.wire(), &["minProperties", "maxProperties"]),
                    "{t}: {}",
                    l.wire()
                );
                let at = root_losses(&l);
                assert!(
                    at.contains(&("minProperties", super::DROPPED))
                        && at.contains(&("maxProperties", super::DROPPED)),
                    "{t}: {at:?}"
                );
            }
        }
    }

    #[test]
    fn gemini_property_counts_that_no_answer_can_meet() {
        let options = LowerOptions::default();
        let sent = |v: serde_json::Value| {
            let l = full(v).lower(Target::Gemini, &options);
            (l.wire()["generationConfig"]["responseSchema"].clone(), l)
        };
        // More members required than declared: the OBJECT emits declared keys only.
        let (wire, l) = sent(json!({
            "type": "object", "properties": {"a": {"type": "string"}}, "minProperties": 2
        }));
        assert!(wire.get("minProperties").is_none(), "{wire}");
        assert_eq!(root_losses(&l).first().map(|x| x.0), Some("minProperties"));
        // A lower count above the upper one: the branch admits nothing and is left out.
        let (wire, l) = sent(json!({
            "type": "object",
            "properties": {
                "p": {"type": ["string", "object"], "properties": {"q": {"type": "string"}},
                      "minProperties": 2, "maxProperties": 1}
            }
        }));
        assert_eq!(l.mode(), crate::Mode::Exact, "{:?}", l.losses());
        assert_eq!(wire["properties"]["p"]["type"], json!("STRING"), "{wire}");
        // Past the proto's int64.
        let (wire, l) = sent(json!({
            "type": "object", "properties": {"a": {"type": "string"}},
            "maxProperties": 18446744073709551615u64
        }));
        assert!(wire.get("maxProperties").is_none(), "{wire}");
        assert_eq!(root_losses(&l).first().map(|x| x.0), Some("maxProperties"));
    }

    #[test]
    fn kept_counts_under_not_are_read_when_a_reshaped_answer_is_encoded() {
        // Found by the `full` widening property (seed 22): the reshaping lens picks a union's
        // branch by the widened schema's verdict, and a `not` over counts the widening keeps
        // for Gemini rejected every object there while the validator did not read them.
        let s = full(json!({
            "$schema": "http://json-schema.org/draft-06/schema#",
            "anyOf": [{"type": "object", "not": {"minProperties": 1}}]
        }));
        let (w, _) = super::widen(&s, Target::Gemini).unwrap_or_else(|| panic!("widened"));
        assert!(w.is_valid(&json!({})) && !w.is_valid(&json!({"a": 1})));
        let options = LowerOptions::default().with_profile(crate::Profile::Reshaping);
        let l = s.lower(Target::Gemini, &options);
        assert!(l.is_reshaped(), "{:?}", l.losses());
        let sent = l.encode(&json!({})).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(sent, json!("{}"));
        let answer = l.accept(sent.to_string()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(answer, json!({}));
    }

    #[test]
    fn counts_merge_through_all_of_and_unions_and_bound_a_reshaped_map() {
        let options = LowerOptions::default();
        let s = full(json!({
            "type": "object",
            "properties": {"a": {"type": "string"}, "b": {"type": "string"}, "c": {"type": "string"}},
            "allOf": [{"minProperties": 1, "maxProperties": 3}, {"minProperties": 2}],
            "maxProperties": 2
        }));
        let l = s.lower(Target::Gemini, &options);
        let sent = &l.wire()["generationConfig"]["responseSchema"];
        assert_eq!(
            (&sent["minProperties"], &sent["maxProperties"]),
            (&json!(2), &json!(2))
        );
        assert_eq!(l.mode(), crate::Mode::Exact, "{:?}", l.losses());
        // Beside a union, the counts go into each branch (responseSchema allows nothing beside
        // `anyOf`), never silently away.
        let s = full(json!({
            "anyOf": [
                {"type": "object", "properties": {"a": {"type": "string"}, "c": {"type": "string"}},
                 "required": ["a"], "additionalProperties": false},
                {"type": "object", "properties": {"b": {"type": "string"}, "c": {"type": "string"}},
                 "required": ["b"], "additionalProperties": false}
            ],
            "maxProperties": 1
        }));
        let l = s.lower(Target::Gemini, &options);
        assert_eq!(l.mode(), crate::Mode::Exact, "{:?}", l.losses());
        let branches = l.wire()["generationConfig"]["responseSchema"]["anyOf"].clone();
        assert_eq!(
            branches
                .as_array()
                .map(|b| b.iter().filter(|b| b["maxProperties"] == json!(1)).count()),
            Some(2),
            "{branches}"
        );
        // A map has no OBJECT form; reshaped to entries, its counts bound the list.
        let map = json!({
            "type": "object",
            "additionalProperties": {"type": "integer"},
            "minProperties": 1,
            "maxProperties": 3
        });
        let s = full(map);
        let reshaping = options.clone().with_profile(crate::Profile::Reshaping);
        let l = s.lower(Target::Gemini, &reshaping);
        assert!(l.mode() <= crate::Mode::Widened, "{:?}", l.losses());
        let sent = &l.wire()["generationConfig"]["responseSchema"];
        assert_eq!(sent["type"], json!("ARRAY"), "{sent}");
        assert_eq!(
            (&sent["minItems"], &sent["maxItems"]),
            (&json!(1), &json!(3)),
            "{sent}"
        );
        let x = json!({"k": 1, "l": 2});
        let wire_value = l.encode(&x).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(wire_value.as_array().map(Vec::len), Some(2));
        assert_eq!(l.accept(&wire_value).ok(), Some(x));
        // Too many entries, or none, still fail the source once read back.
        assert!(l.accept(&json!([])).is_err());
        // Elsewhere the counts are gone before the reshaping, as they were.
        let l = s.lower(Target::OpenAi, &reshaping);
        assert!(
            !mentions(l.wire(), &["minItems", "maxItems"]),
            "{}",
            l.wire()
        );
    }
}
