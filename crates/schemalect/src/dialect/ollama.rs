//! Ollama `format`: the source schema, changed only where Ollama's grammar converter (llama.cpp
//! `json-schema-to-grammar`) would narrow or fail.
//!
//! That converter reads a missing `additionalProperties` as `false` and an empty schema as
//! "object", ignores the siblings of `anyOf`/`oneOf`, merges `allOf` only partly, and refuses
//! unanchored patterns. So open objects say `additionalProperties: true`, every node carries an
//! explicit `type`, `allOf` is merged and unions are distributed before emission, and only
//! `^…$` patterns are sent.

use super::caps::{row, Capabilities, Partial, PatternRule, Rewrite, Support};
use super::emit::{emit, Closure, JsonDialect, Types};
use super::normalize::{normalize, Rewrites};
use super::{json_mode_allowed, Outcome};
use crate::ir::Schema;
use crate::lower::{LowerOptions, Mode, Target};
use serde_json::{json, Value};

const L4: &str = "https://github.com/ollama/ollama/blob/9db4bdbad/llama/llama.cpp/common/json-schema-to-grammar.cpp (providers.md L4)";
const L5: &str = "https://github.com/ggml-org/llama.cpp/blob/master/grammars/README.md#json-schemas--gbnf (providers.md L5)";
const I_L1: &str = "https://github.com/ggml-org/llama.cpp/pull/26939 (providers.md I-L1)";

/// What Ollama does with each keyword.
pub static CAPABILITIES: Capabilities = Capabilities {
    target: Target::Ollama,
    field: "format",
    route: "`format`: a JSON Schema or `\"json\"`: https://github.com/ollama/ollama/blob/fb307609/docs/api.md (providers.md L1, L2)",
    rows: &[
        row("type", Support::Kept, L4),
        row("enum", Support::Kept, L4),
        row("const", Support::Kept, L4),
        row("pattern", Support::Partial(Partial::Patterns(PatternRule::Anchored)), I_L1),
        row("minLength", Support::Partial(Partial::PlainStrings("enforced by llama.cpp only on nodes that admit strings alone and carry no `pattern`")), L4),
        row("maxLength", Support::Partial(Partial::PlainStrings("enforced by llama.cpp only on nodes that admit strings alone and carry no `pattern`")), L4),
        row("minimum", Support::Partial(Partial::IntegersOnly("enforced by llama.cpp on integers only; this node admits other numbers")), L5),
        row("maximum", Support::Partial(Partial::IntegersOnly("enforced by llama.cpp on integers only; this node admits other numbers")), L5),
        row("exclusiveMinimum", Support::Partial(Partial::IntegersOnly("enforced by llama.cpp on integers only; this node admits other numbers")), L5),
        row("exclusiveMaximum", Support::Partial(Partial::IntegersOnly("enforced by llama.cpp on integers only; this node admits other numbers")), L5),
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
    ],
};

const DIALECT: JsonDialect = JsonDialect {
    caps: Some(&CAPABILITIES),
    closure: Closure::ExplicitOpen,
    types: Types::Explicit,
    references: true,
};

pub(crate) fn lower(schema: &Schema, _options: &LowerOptions) -> Outcome {
    let normalized = normalize(
        schema,
        Rewrites {
            flatten_all_of: true,
            distribute_unions: true,
        },
    );
    match emit(&normalized.schema, DIALECT) {
        Ok(emitted) => {
            let mut losses = normalized.losses;
            losses.extend(emitted.losses);
            let mode = if losses.is_empty() {
                Mode::Exact
            } else {
                Mode::Widened
            };
            Outcome {
                mode,
                wire: super::object([("format", emitted.schema)]),
                losses,
            }
        }
        Err(degrade) => {
            let (mode, wire) = if json_mode_allowed(schema) {
                (Mode::Json, json!({ "format": "json" }))
            } else {
                (Mode::Prompt, Value::Object(serde_json::Map::new()))
            };
            Outcome {
                mode,
                wire,
                losses: vec![degrade.0],
            }
        }
    }
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
            json!({"type": ["null", "boolean", "object", "array", "number", "string"], "additionalProperties": true})
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
            json!({"a": {"type": "string"}, "b": {"type": "string", "enum": ["x", 1]}})
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
