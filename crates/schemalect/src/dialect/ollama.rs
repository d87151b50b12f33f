//! Ollama `format`: the source schema, changed only where Ollama's grammar converter (llama.cpp
//! `json-schema-to-grammar`) would narrow or fail.
//!
//! That converter reads a missing `additionalProperties` as `false` and an empty schema as
//! "object", ignores the siblings of `anyOf`/`oneOf`, merges `allOf` only partly, and refuses
//! unanchored patterns. So open objects say `additionalProperties: true`, every node carries an
//! explicit `type`, `allOf` is merged and unions are distributed before emission, and only
//! `^…$` patterns are sent, rendered in the escapes llama.cpp's GBNF parser reads
//! ([`Pattern::grammar`](crate::pattern::Pattern::grammar)).
//!
//! Size discipline (issue 18): llama.cpp refuses a repetition above its threshold of 2,000
//! (`MAX_REPETITION_THRESHOLD`; at exactly 2,000 in some versions, and others drop the bound
//! silently), so length and item bounds from 2,000 up are not sent. An open object with many
//! declared names makes the converter build an "any other key" rule over all of them that
//! passes llama.cpp's limits (78 names were enough in issue 18): such an object is sent free
//! (its declared names not sent), never closed. And the converter reads every object key `$ref`
//! as a reference, also inside data (a property named `$ref`, an `enum` value `{"$ref": …}`),
//! and fails: no rewrite of the schema avoids that, so such a schema falls back to `"json"`.

use super::caps::{row, Capabilities, Partial, PatternRule, Rewrite, Support};
use super::emit::{emit_for, Closure, Degrade, JsonDialect, Types};
use super::normalize::{normalize, Rewrites};
use super::{json_mode_allowed, Outcome, Produce};
use crate::ir::{Additional, ObjectRules};
use crate::loss::{Loss, Mode};
use crate::schema::Schema;
use crate::target::Target;
use serde_json::{json, Value};
use std::sync::Arc;

const L4: &str = "https://github.com/ollama/ollama/blob/9db4bdbad/llama/llama.cpp/common/json-schema-to-grammar.cpp (providers.md L4)";
const L5: &str = "https://github.com/ggml-org/llama.cpp/blob/master/grammars/README.md#json-schemas--gbnf (providers.md L5)";
const I_L1: &str = "https://github.com/ggml-org/llama.cpp/pull/26939 (providers.md I-L1)";

/// llama.cpp's `MAX_REPETITION_THRESHOLD`: a grammar with a repetition above it fails to parse
/// (and one of exactly 2,000 did too before a fix), so bounds from here up are not sent.
/// Source: providers-2026-12.md §3.4 (llama.cpp issues #27087, #27859, PR #28469).
pub(crate) const REPETITION_THRESHOLD: u64 = 2_000;

/// Most declared names an open object is sent with: above, the converter's "any other key"
/// rule (a negation of every declared name) passes llama.cpp's grammar limits. Issue 18 saw 78
/// names fail; this keeps a margin below that.
pub(crate) const MAX_OPEN_OBJECT_NAMES: usize = 48;

/// What Ollama does with each keyword.
pub static CAPABILITIES: Capabilities = Capabilities {
    target: Target::Ollama,
    field: "format",
    route: "`format`: a JSON Schema or `\"json\"`: https://github.com/ollama/ollama/blob/fb307609/docs/api.md (providers.md L1, L2)",
    rows: LLAMA_CPP_ROWS,
};

/// What llama.cpp's own server does with each keyword: the same converter as Ollama's GGUF
/// backend (`common/json-schema-to-grammar.cpp`, which Ollama vendors), so the same rows.
pub static LLAMA_SERVER: Capabilities = Capabilities {
    target: Target::LlamaServer,
    field: "response_format.json_schema.schema",
    route: "`/v1/chat/completions` `response_format: {type: \"json_schema\", json_schema: {schema}}`: https://github.com/ggml-org/llama.cpp/blob/25d5b0c53f9a146f3d7a99a18610d9d623b5041e/tools/server/README.md ; `{type: \"json_object\"}` without a schema is a no-op and `grammar` beside `json_schema` is a 500 (llama-server b10499, rig `tests/cassettes/llamacpp/structured_output_matrix/`, providers-2026-12.md §3.4)",
    rows: LLAMA_CPP_ROWS,
};

/// The rows of llama.cpp's `json-schema-to-grammar`, shared by the routes that use it.
const LLAMA_CPP_ROWS: &[super::caps::Row] = &[
        row("type", Support::Kept, L4),
        row("enum", Support::Kept, L4),
        row("const", Support::Kept, L4),
        row("pattern", Support::Partial(Partial::Patterns(PatternRule::Anchored)), I_L1),
        row("minLength", Support::Partial(Partial::PlainStrings("enforced by llama.cpp only on nodes that admit strings alone")), L4),
        row("maxLength", Support::Partial(Partial::PlainStrings("enforced by llama.cpp only on nodes that admit strings alone")), L4),
        row("minimum", Support::Partial(Partial::IntegersOnly("llama.cpp enforces numeric bounds only where `type` is `integer`; this node admits more than integers")), L5),
        row("maximum", Support::Partial(Partial::IntegersOnly("llama.cpp enforces numeric bounds only where `type` is `integer`; this node admits more than integers")), L5),
        row("exclusiveMinimum", Support::Partial(Partial::IntegersOnly("llama.cpp enforces numeric bounds only where `type` is `integer`; this node admits more than integers")), L5),
        row("exclusiveMaximum", Support::Partial(Partial::IntegersOnly("llama.cpp enforces numeric bounds only where `type` is `integer`; this node admits more than integers")), L5),
        row("multipleOf", Support::Hint("skipped silently by llama.cpp"), L4),
        row("items", Support::Kept, L4),
        row("prefixItems", Support::Rewritten(Rewrite::PrefixItemsAsItems), L5),
        row("minItems", Support::Kept, L4),
        row("maxItems", Support::Kept, L4),
        row("uniqueItems", Support::Hint("skipped silently by llama.cpp"), L5),
        row("properties", Support::Kept, L4),
        row("required", Support::Kept, L4),
        row("additionalProperties", Support::Kept, L5),
        row("oneOf", Support::Rewritten(Rewrite::OneOfAsAnyOf), L4),
        row("anyOf", Support::Kept, L4),
        row("allOf", Support::Rewritten(Rewrite::MergedIntoParent), L4),
        row("not", Support::Dropped("skipped silently by llama.cpp, and a negation whose schema was widened anywhere (a merge, a dropped pattern) would reject more"), L5),
        row("description", Support::Kept, L4),
        row("title", Support::Kept, L4),
        row("default", Support::Kept, L4),
        row("examples", Support::Kept, L4),
        row("format", Support::Rewritten(Rewrite::IntoDescription), L5),
        row("$schema", Support::Kept, L4),
        row("$id", Support::Kept, L4),
];

const DIALECT: JsonDialect = JsonDialect {
    caps: Some(&CAPABILITIES),
    closure: Closure::ExplicitOpen,
    types: Types::ExplicitOutsideBareUnions,
    references: true,
    explicit_items: false,
};

/// Ollama `format` (GGUF models, llama.cpp's converter); `"json"` or nothing when the schema
/// cannot be sent.
pub(crate) fn lower(schema: &Schema, produce: Produce) -> Outcome {
    match convert(schema, &CAPABILITIES, produce) {
        Ok((sent, losses)) => Outcome::native(
            produce.request(|| super::object([("format", sent)])),
            losses,
        ),
        Err(degrade) => {
            let (mode, wire) = if json_mode_allowed(schema) {
                (Mode::Json, produce.request(|| json!({ "format": "json" })))
            } else {
                (Mode::Prompt, Value::Object(serde_json::Map::new()))
            };
            Outcome {
                mode,
                wire,
                losses: degrade.0,
            }
        }
    }
}

/// llama-server `response_format` `json_schema`. The fallback is never `json_object`, which
/// llama-server ignores without a schema (providers-2026-12.md §3.4), but a `json_schema` whose
/// schema admits every JSON value as llama.cpp reads it ([`any_value`]); no `grammar` is ever
/// sent beside it.
pub(crate) fn lower_llama_server(schema: &Schema, produce: Produce) -> Outcome {
    match convert(schema, &LLAMA_SERVER, produce) {
        Ok((sent, losses)) => Outcome::native(produce.request(|| llama_server_wire(sent)), losses),
        Err(degrade) => Outcome {
            mode: Mode::Json,
            wire: produce.request(|| llama_server_wire(any_value())),
            losses: degrade.0,
        },
    }
}

fn llama_server_wire(schema: Value) -> Value {
    super::object([(
        "response_format",
        super::object([
            ("type", Value::from("json_schema")),
            ("json_schema", super::object([("schema", schema)])),
        ]),
    )])
}

/// A schema that admits every JSON value as llama.cpp's converter reads it. `{}` will not do:
/// the converter reads an empty schema as "object". A `type` list is a union of the primitive
/// rules, and an object with `additionalProperties: true` and no properties is its free object
/// rule, so this union admits every value.
pub(crate) fn any_value() -> Value {
    json!({"anyOf": [
        {"type": "object", "additionalProperties": true},
        {"type": ["null", "boolean", "array", "number", "string"]}
    ]})
}

/// The schema as llama.cpp's converter must receive it (module docs), with every loss; or why
/// it cannot be sent. `caps` is the route's table (the same rows for every llama.cpp route).
fn convert(
    schema: &Schema,
    caps: &'static Capabilities,
    produce: Produce,
) -> Result<(Value, Vec<Loss>), Degrade> {
    let dialect = JsonDialect {
        caps: Some(caps),
        ..DIALECT
    };
    let normalized = normalize(
        schema,
        Rewrites {
            flatten_all_of: true,
            distribute_unions: true,
        },
    );
    let refused = ref_key_in_data(&normalized.schema);
    let (disciplined, relaxed) = discipline(&normalized.schema);
    let emitted = refused.map_or_else(|| emit_for(&disciplined, dialect, produce), Err)?;
    let mut losses = normalized.losses;
    losses.extend(relaxed);
    losses.extend(emitted.losses);
    Ok((emitted.schema, losses))
}

/// The first place where an object key `$ref` occurs in data the converter reads (property
/// names, `enum`, `const`, `default`, `examples`), as the reason to fall back.
fn ref_key_in_data(schema: &Schema) -> Option<Degrade> {
    const WHY: &str = "llama.cpp's grammar converter reads every object key `$ref` as a reference, also in data (property names, `enum`, `const`, `default`, `examples`), and fails on this schema; no rewrite avoids that";
    fn has_ref_key(v: &Value, depth: usize) -> bool {
        match v {
            Value::Object(m) => {
                m.contains_key("$ref")
                    || (depth < 128 && m.values().any(|v| has_ref_key(v, depth + 1)))
            }
            Value::Array(a) => depth < 128 && a.iter().any(|v| has_ref_key(v, depth + 1)),
            _ => false,
        }
    }
    schema.nodes().find_map(|(_, n)| {
        let keyword = if n
            .object
            .as_ref()
            .is_some_and(|o| o.properties.contains("$ref"))
        {
            "properties"
        } else if n
            .enumeration
            .as_ref()
            .is_some_and(|e| e.values.iter().any(|v| has_ref_key(v, 0)))
        {
            "enum"
        } else if n.constant.as_ref().is_some_and(|c| has_ref_key(c, 0)) {
            "const"
        } else if n
            .annotations
            .as_ref()
            .is_some_and(|a| a.default.as_ref().is_some_and(|d| has_ref_key(d, 0)))
        {
            "default"
        } else if n.annotations.as_ref().is_some_and(|a| {
            a.examples
                .as_ref()
                .is_some_and(|x| x.iter().any(|v| has_ref_key(v, 0)))
        }) {
            "examples"
        } else {
            return None;
        };
        Some(Degrade::from(Loss::new(&n.pointer, keyword, WHY)))
    })
}

/// The schema with what llama.cpp cannot take relaxed (module docs): length and item bounds
/// from [`REPETITION_THRESHOLD`] up dropped, open objects with more than
/// [`MAX_OPEN_OBJECT_NAMES`] declared names made free. Each change widens and is a loss.
fn discipline(schema: &Schema) -> (Schema, Vec<Loss>) {
    const BOUND: &str = "not sent: llama.cpp refuses a repetition bound from its threshold of 2,000 up (or drops it, by version)";
    let big = |n: Option<u64>| n.is_some_and(|n| n >= REPETITION_THRESHOLD);
    let wide = |o: &ObjectRules| {
        o.additional != Additional::Forbidden && o.properties.len() > MAX_OPEN_OBJECT_NAMES
    };
    let needed = schema.nodes().any(|(_, n)| {
        n.string
            .as_ref()
            .is_some_and(|s| big(s.min_length) || big(s.max_length))
            || n.array
                .as_ref()
                .is_some_and(|a| big(a.min_items) || big(a.max_items))
            || n.object.as_deref().is_some_and(wide)
    });
    if !needed {
        return (schema.clone(), Vec::new());
    }
    let mut losses = Vec::new();
    let nodes = schema
        .nodes()
        .map(|(_, n)| {
            let mut n = n.clone();
            if let Some(s) = n.string.as_mut() {
                for (keyword, bound) in [("minLength", s.min_length), ("maxLength", s.max_length)]
                {
                    if big(bound) {
                        losses.push(Loss::new(&n.pointer, keyword, BOUND));
                    }
                }
                if big(s.min_length) || big(s.max_length) {
                    let s = Arc::make_mut(s);
                    s.min_length = s.min_length.filter(|&b| !big(Some(b)));
                    s.max_length = s.max_length.filter(|&b| !big(Some(b)));
                }
            }
            if let Some(a) = n.array.as_mut() {
                for (keyword, bound) in [("minItems", a.min_items), ("maxItems", a.max_items)] {
                    if big(bound) {
                        losses.push(Loss::new(&n.pointer, keyword, BOUND));
                    }
                }
                if big(a.min_items) || big(a.max_items) {
                    let a = Arc::make_mut(a);
                    a.min_items = a.min_items.filter(|&b| !big(Some(b)));
                    a.max_items = a.max_items.filter(|&b| !big(Some(b)));
                }
            }
            if let Some(o) = n.object.as_mut().filter(|o| wide(o)) {
                losses.push(Loss::new(&n.pointer, "properties", "not sent: an open object with this many declared names makes llama.cpp's grammar converter build a rule for the other keys that passes its limits; sent as a free object (declared names, `required` and `additionalProperties` not enforced natively)"));
                *Arc::make_mut(o) = ObjectRules {
                    additional: Additional::Allowed,
                    ..ObjectRules::default()
                };
            }
            n
        })
        .collect();
    (
        Schema::from_nodes(nodes, schema.root(), schema.subset()),
        losses,
    )
}

#[cfg(test)]
mod tests {
    use crate::{LowerOptions, Mode, Schema, Target};
    use serde_json::{json, Value};

    fn lower(v: Value) -> crate::Lowering {
        Schema::parse(&v)
            .unwrap_or_else(|e| panic!("{e}"))
            .lower(Target::Ollama, &LowerOptions::default())
    }

    #[test]
    fn open_objects_say_so_and_closed_ones_stay_closed() {
        let l = lower(json!({
            "type": "object",
            "properties": {"a": {"type": "object", "properties": {"b": {"type": "string"}}, "additionalProperties": false}},
            "required": ["a"]
        }));
        assert_eq!(l.mode(), Mode::Exact);
        assert_eq!(
            l.wire(),
            &json!({"format": {
                "type": "object",
                "properties": {"a": {"type": "object", "properties": {"b": {"type": "string"}}, "additionalProperties": false}},
                "required": ["a"],
                "additionalProperties": true
            }})
        );
    }

    #[test]
    fn unanchored_patterns_are_dropped_with_a_loss() {
        let l = lower(json!({"type": "string", "pattern": "ab"}));
        assert_eq!(l.mode(), Mode::Widened);
        assert_eq!(l.wire(), &json!({"format": {"type": "string"}}));
        assert_eq!(l.losses().len(), 1);
        assert_eq!(l.losses()[0].keyword, "pattern");
        let l = lower(json!({"type": "string", "pattern": "^ab$"}));
        assert_eq!(l.mode(), Mode::Exact);
    }

    #[test]
    fn shorthand_classes_are_spelled_out_for_the_grammar() {
        let l = lower(json!({"type": "string", "pattern": "^\\d{3}-\\w+$"}));
        assert_eq!(l.mode(), Mode::Exact, "{:?}", l.losses());
        let sent = l.wire()["format"]["pattern"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        assert!(!sent.contains("\\d") && !sent.contains("\\w"), "{sent}");
        let schema = Schema::parse(&json!({"type": "string", "pattern": sent})).unwrap();
        for (s, ok) in [
            ("123-ab_c", true),
            ("12-a", false),
            ("١٢٣-a", false),
            ("123-é", false),
        ] {
            assert_eq!(schema.is_valid(&json!(s)), ok, "{s}");
        }
    }

    #[test]
    fn nodes_without_type_get_every_admitted_type() {
        let l = lower(json!({"type": "array", "items": {"not": {"type": "string"}}}));
        assert_eq!(
            l.wire()["format"]["items"],
            json!({"anyOf": [
                {"type": "object", "additionalProperties": true},
                {"type": ["null", "boolean", "array", "number", "string"]}
            ]})
        );
    }

    /// A bare union leaves `type` and openness to its branches, which carry them: written
    /// beside it, grammar engines intersect them with every branch, which fails around a
    /// recursive reference (issue 18).
    #[test]
    fn bare_unions_carry_no_keywords_of_their_own() {
        let l = lower(json!({"type": "object", "properties": {
            "a": {"anyOf": [{"type": "object", "properties": {"b": {"type": "integer"}}}, {"type": "null"}]}
        }}));
        assert_eq!(l.mode(), Mode::Exact, "{:?}", l.losses());
        assert_eq!(
            l.wire()["format"]["properties"]["a"],
            json!({"anyOf": [
                {"type": "object", "properties": {"b": {"type": "integer"}}, "additionalProperties": true},
                {"type": "null"}
            ]})
        );
        // Object keywords of the source beside a union go into its branches.
        let l = lower(json!({"required": ["b"], "anyOf": [{"type": "object"}, {"type": "null"}]}));
        assert_eq!(
            l.wire()["format"],
            json!({"anyOf": [
                {"type": "object", "required": ["b"], "additionalProperties": true},
                {"type": "null", "required": ["b"]}
            ]})
        );
    }

    #[test]
    fn format_becomes_a_description_hint() {
        let l = lower(json!({"type": "string", "format": "date-time", "description": "When"}));
        assert_eq!(
            l.wire(),
            &json!({"format": {"description": "When (format: date-time)", "type": "string"}})
        );
        assert_eq!(l.mode(), Mode::Exact);
    }

    #[test]
    fn all_of_is_merged() {
        let l = lower(
            json!({"type": "object", "allOf": [{"properties": {"a": {"type": "integer"}}, "required": ["a"]}]}),
        );
        assert_eq!(l.mode(), Mode::Exact, "{:?}", l.losses());
        assert_eq!(
            l.wire()["format"],
            json!({"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"], "additionalProperties": true})
        );
        // A parent's `additionalProperties: false` does not see members' properties: the
        // merge widens (allows `a`) and says so.
        let l = lower(
            json!({"type": "object", "allOf": [{"properties": {"a": {"type": "integer"}}}], "additionalProperties": false}),
        );
        assert_eq!(l.mode(), Mode::Widened);
        assert_eq!(l.losses()[0].keyword, "additionalProperties");
    }
}

#[cfg(test)]
mod extended_tests {
    use crate::{LowerOptions, Mode, ParseOptions, Schema, Subset, Target};
    use serde_json::json;

    fn ext(v: serde_json::Value) -> Schema {
        let opts = ParseOptions {
            subset: Subset::Extended,
            ..ParseOptions::default()
        };
        Schema::parse_with(&v, &opts).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn names_required_where_the_object_forbids_them_are_not_sent() {
        // No object is valid; sent as is, llguidance refuses the schema ("required property
        // 'zz' is unsatisfiable"). Without the name the wire is wider, and says so.
        let s = ext(json!({
            "type": "object",
            "properties": {"a": {"type": "string"}},
            "required": ["a", "zz"],
            "additionalProperties": false
        }));
        for target in [Target::Ollama, Target::GeminiJson] {
            let l = s.lower(target, &LowerOptions::default());
            assert_eq!(l.mode(), Mode::Widened, "{target}");
            assert!(
                l.losses()
                    .iter()
                    .any(|x| x.keyword == "required" && x.pointer.as_str().is_empty()),
                "{target}: {:?}",
                l.losses()
            );
            let text = l.wire().to_string();
            assert!(text.contains(r#""required":["a"]"#), "{target}: {text}");
        }
    }

    #[test]
    fn optional_properties_that_admit_nothing_are_left_out() {
        // `scope` admits nothing (strings listed for an array, as in a corpus schema): it can
        // never be present, so the object is sent without it.
        let props = json!({"a": {"type": "string"}, "scope": {"type": "array", "enum": ["x"]}});
        let closed =
            ext(json!({"type": "object", "properties": props, "additionalProperties": false}));
        let l = closed.lower(Target::Ollama, &LowerOptions::default());
        assert_eq!(l.mode(), Mode::Exact, "{:?}", l.losses());
        assert_eq!(
            l.wire()["format"]["properties"],
            json!({"a": {"type": "string"}})
        );
        // Open, the name falls to the rule for undeclared members: wider, and a loss.
        let open = ext(json!({"type": "object", "properties": props}));
        let l = open.lower(Target::Ollama, &LowerOptions::default());
        assert_eq!(l.mode(), Mode::Widened);
        assert!(l
            .losses()
            .iter()
            .any(|x| x.pointer.as_str() == "/properties/scope" && x.keyword == "properties"));
        // Required, it leaves no object: the route falls back, as before.
        let required = ext(json!({"type": "object", "properties": props, "required": ["scope"]}));
        let l = required.lower(Target::Ollama, &LowerOptions::default());
        assert!(l.mode() > Mode::Widened, "{:?}", l.mode());
    }

    #[test]
    fn references_that_do_not_recurse_are_written_out() {
        let s = ext(json!({
            "$defs": {"name": {"type": "string"}},
            "type": "object",
            "properties": {"a": {"$ref": "#/$defs/name"}, "b": {"$ref": "#/$defs/name", "enum": ["x", 1]}},
            "additionalProperties": false
        }));
        let l = s.lower(Target::Ollama, &LowerOptions::default());
        assert_eq!(l.mode(), Mode::Exact, "{:?}", l.losses());
        assert_eq!(
            l.wire()["format"]["properties"],
            // `1` is not a string: the merged node leaves it out, exactly.
            json!({"a": {"type": "string"}, "b": {"type": "string", "enum": ["x"]}})
        );
    }
}

#[cfg(test)]
mod negation_tests {
    use crate::{LowerOptions, Mode, Schema, Target};
    use serde_json::json;

    fn lower(v: serde_json::Value) -> crate::Lowering {
        Schema::parse(&v)
            .unwrap_or_else(|e| panic!("{e}"))
            .lower(Target::Ollama, &LowerOptions::default())
    }

    #[test]
    fn one_of_with_a_weakened_branch_goes_as_any_of() {
        // Without its pattern the first branch overlaps the second: `oneOf` would then reject
        // "xy", which the source accepts (it matches only the second branch).
        let l = lower(
            json!({"oneOf": [{"type": "string", "pattern": "^a"}, {"type": "string", "minLength": 2}]}),
        );
        assert!(l.wire()["format"].get("oneOf").is_none(), "{}", l.wire());
        assert!(l.wire()["format"].get("anyOf").is_some());
        assert_eq!(l.mode(), Mode::Widened);
        // llama.cpp reads `oneOf` as `anyOf` anyway: it is always sent so, with a loss.
        let disjoint = lower(json!({"oneOf": [{"type": "string"}, {"type": "integer"}]}));
        assert!(disjoint.wire()["format"].get("anyOf").is_some());
    }

    #[test]
    fn not_with_a_weakened_schema_is_dropped() {
        // Without its pattern, `not` would reject every string.
        let l = lower(json!({"type": "string", "not": {"pattern": "^a"}}));
        assert!(l.wire()["format"].get("not").is_none(), "{}", l.wire());
        assert!(l.losses().iter().any(|x| x.keyword == "not"));
        let l = lower(json!({"type": "string", "not": {"const": "a"}}));
        assert!(l.wire()["format"].get("not").is_none());
    }
}

#[cfg(test)]
mod enforcement_tests {
    use crate::{LowerOptions, Mode, Schema, Target};
    use serde_json::json;

    fn mode(v: serde_json::Value) -> Mode {
        Schema::parse(&v)
            .unwrap_or_else(|e| panic!("{e}"))
            .lower(Target::Ollama, &LowerOptions::default())
            .mode()
    }

    #[test]
    fn integer_bounds_and_plain_string_lengths_are_enforced() {
        assert_eq!(
            mode(json!({"type": "integer", "minimum": 0, "exclusiveMaximum": 256})),
            Mode::Exact
        );
        assert_eq!(mode(json!({"type": "number", "minimum": 0})), Mode::Widened);
        assert_eq!(
            mode(json!({"type": "string", "minLength": 1, "maxLength": 9})),
            Mode::Exact
        );
        assert_eq!(
            mode(json!({"type": "string", "minLength": 1, "pattern": "^a+$"})),
            Mode::Widened
        );
        assert_eq!(
            mode(json!({"type": ["string", "null"], "maxLength": 9})),
            Mode::Widened
        );
    }
}

#[cfg(test)]
mod recursion_tests {
    use crate::{LowerOptions, Mode, ParseOptions, Schema, Subset, Target};
    use serde_json::json;

    #[test]
    fn recursive_references_travel_as_defs_where_the_dialect_has_them() {
        let s = Schema::parse_with(
            &json!({
                "$defs": {"node": {
                    "type": "object",
                    "properties": {"name": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}},
                    "required": ["name", "children"],
                    "additionalProperties": false
                }},
                "$ref": "#/$defs/node"
            }),
            &ParseOptions::default().with_subset(Subset::Extended),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let l = s.lower(Target::Ollama, &LowerOptions::default());
        assert_eq!(l.mode(), Mode::Exact, "{:?}", l.losses());
        let f = &l.wire()["format"];
        assert_eq!(
            f["$defs"]["node"]["properties"]["children"]["items"],
            json!({"$ref": "#/$defs/node"})
        );
        let o = s.lower(Target::OpenAi, &LowerOptions::default());
        assert_eq!(o.mode(), Mode::Exact, "{:?}", o.losses());
        let r = &o.wire()["response_format"]["json_schema"]["schema"];
        assert_eq!(
            r["properties"]["children"]["items"],
            json!({"$ref": "#/$defs/node"})
        );
        for t in [
            Target::Gemini,
            Target::GeminiJson,
            Target::ClaudeNative,
            Target::Mistral,
        ] {
            assert!(
                s.lower(t, &LowerOptions::default()).mode() >= Mode::Json,
                "{t}"
            );
        }
    }
}

#[cfg(test)]
mod discipline_tests {
    use crate::{LowerOptions, Mode, Schema, Target};
    use serde_json::{json, Map, Value};

    fn lower(v: Value) -> crate::Lowering {
        Schema::parse(&v)
            .unwrap_or_else(|e| panic!("{e}"))
            .lower(Target::Ollama, &LowerOptions::default())
    }

    #[test]
    fn bounds_from_the_repetition_threshold_up_are_not_sent() {
        let l = lower(json!({"type": "string", "minLength": 1, "maxLength": 2000}));
        assert_eq!(
            l.wire()["format"],
            json!({"type": "string", "minLength": 1})
        );
        assert_eq!(l.mode(), Mode::Widened);
        assert_eq!(l.losses()[0].keyword, "maxLength");
        let l = lower(json!({"type": "array", "items": {"type": "integer"}, "maxItems": 1999}));
        assert_eq!(l.mode(), Mode::Exact, "{:?}", l.losses());
    }

    #[test]
    fn wide_open_objects_go_free_and_closed_ones_stay() {
        let props: Map<String, Value> = (0..60)
            .map(|i| (format!("p{i}"), json!({"type": "string"})))
            .collect();
        let l = lower(json!({"type": "object", "properties": props.clone(), "required": ["p1"]}));
        assert_eq!(
            l.wire()["format"],
            json!({"type": "object", "additionalProperties": true})
        );
        assert!(l.losses().iter().any(|x| x.keyword == "properties"));
        let closed =
            lower(json!({"type": "object", "properties": props, "additionalProperties": false}));
        assert_eq!(closed.mode(), Mode::Exact, "{:?}", closed.losses());
    }

    #[test]
    fn a_ref_key_in_data_falls_back_to_json_mode() {
        for schema in [
            json!({"type": "object", "properties": {"$ref": {"type": "string"}}}),
            json!({"type": "object", "properties": {"a": {"enum": [{"$ref": "x"}, 1]}}}),
            json!({"type": "object", "default": {"k": [{"$ref": 1}]}}),
        ] {
            let l = lower(schema.clone());
            assert_eq!(l.mode(), Mode::Json, "{schema}");
            assert_eq!(l.wire(), &json!({"format": "json"}));
            assert!(l.losses()[0].reason.contains("$ref"), "{:?}", l.losses());
        }
    }
}

#[cfg(test)]
mod llama_server_tests {
    use crate::{LowerOptions, Mode, Schema, Target};
    use serde_json::{json, Value};

    fn lower(v: Value) -> crate::Lowering {
        Schema::parse(&v)
            .unwrap_or_else(|e| panic!("{e}"))
            .lower(Target::LlamaServer, &LowerOptions::default())
    }

    #[test]
    fn the_schema_travels_as_ollama_sends_it_in_response_format() {
        let source =
            json!({"type": "object", "properties": {"a": {"type": "string", "maxLength": 2000}}});
        let l = lower(source.clone());
        let o = Schema::parse(&source)
            .unwrap_or_else(|e| panic!("{e}"))
            .lower(Target::Ollama, &LowerOptions::default());
        assert_eq!(
            l.wire(),
            &json!({"response_format": {"type": "json_schema", "json_schema": {"schema": o.wire()["format"]}}})
        );
        assert_eq!(l.mode(), Mode::Widened);
        assert_eq!(l.losses(), o.losses());
    }

    /// `json_object` without a schema is a no-op on llama-server: the fallback is a schema that
    /// admits every JSON value, whatever the root, and never `json_object` or a `grammar`.
    #[test]
    fn the_fallback_is_a_schema_for_any_value() {
        for (schema, valid) in [
            (
                json!({"type": "object", "properties": {"$ref": {"type": "string"}}}),
                json!({"$ref": "#/a"}),
            ),
            (
                json!({"type": "array", "items": {"enum": [{"$ref": "x"}]}}),
                json!([{"$ref": "x"}]),
            ),
        ] {
            let l = lower(schema.clone());
            assert_eq!(l.mode(), Mode::Json, "{schema}");
            assert_eq!(
                l.wire(),
                &json!({"response_format": {"type": "json_schema", "json_schema": {"schema": super::any_value()}}})
            );
            assert!(!l.wire().to_string().contains("json_object"));
            assert_eq!(l.accept(valid.to_string()).ok(), Some(valid));
        }
    }

    #[test]
    fn a_grammar_in_the_body_is_removed_on_merge() {
        let l = lower(json!({"type": "string"}));
        let mut body = json!({"model": "m", "grammar": "root ::= \"x\"", "response_format": {"type": "json_object"}});
        l.merge_into(&mut body);
        assert_eq!(
            body,
            json!({"model": "m", "response_format": {"type": "json_schema", "json_schema": {"schema": {"type": "string"}}}})
        );
    }
}
