//! Gemini `responseJsonSchema`: the JSON-Schema dialect, through the generic emitter.
//!
//! The proto comment (GG2) lists the keywords the server supports and says the rest "may be
//! sent" but are not all supported. The table sends what is listed, and for the rest picks
//! per keyword between a hint (sent, a loss) and dropping: a keyword is sent unlisted only
//! when any reading the server could give it is either the source's own meaning or nothing.
//! Objects are closed when `additionalProperties` is missing (harness and I-G6 live tests), so
//! open objects say `additionalProperties: true`, and every node gets an explicit `type`
//! because how the server reads a typeless node is undocumented.

use super::{emit_json_schema, json_only, native};
use crate::dialect::caps::{row, Capabilities, Partial, Rewrite, Row, Support, ValueKinds};
use crate::dialect::emit::{Closure, JsonDialect, Types};
use crate::dialect::{Outcome, Produce};
use crate::schema::Schema;
use crate::target::Target;

const GG2: &str = "https://github.com/googleapis/googleapis/blob/f8291d2b/google/ai/generativelanguage/v1beta/generative_service.proto `GenerationConfig.response_json_schema` (providers.md GG2, §3.3)";
const GG5: &str = "https://thefutureofworkinstitute.xyz/2025/11/06/google-announces-support-for-json-schema-and-implicit-property-ordering-in-gemini-api/ (providers.md GG5, §3.1)";
const I_G6: &str = "https://github.com/prism-php/prism/issues/974 (providers.md I-G6, §3.3: `type` lists and `additionalProperties: false` work in responseJsonSchema)";
const I_G5: &str = "https://github.com/google-gemini/gemini-cli/issues/3178 (providers.md I-G5, §7: `format` is an annotation; enforcing it would narrow)";

/// What `responseJsonSchema` does with each subset keyword.
pub static CAPABILITIES: Capabilities = Capabilities {
    target: Target::GeminiJson,
    field: "generationConfig.responseJsonSchema",
    route: "`generationConfig.responseJsonSchema` with `responseMimeType: \"application/json\"`: https://github.com/googleapis/googleapis/blob/f8291d2b/google/ai/generativelanguage/v1beta/generative_service.proto `GenerationConfig` (providers.md GG2, §3.1)",
    rows: &[
        row("type", Support::Kept, I_G6),
        row("enum", Support::Partial(Partial::EnumValues(ValueKinds::StringsAndNumbers)), "listed as \"enum (strings and numbers)\"; other values might be silently removed from the list, which narrows, so such an enum is dropped whole: https://github.com/googleapis/googleapis/blob/f8291d2b/google/ai/generativelanguage/v1beta/generative_service.proto (providers.md GG2, §3.3 ⚠)"),
        row("const", Support::Rewritten(Rewrite::ConstAsEnum), "not listed, `enum` is: a string or number `const` is sent as a one-value `enum`, others dropped (providers.md GG2, §3.3 ⚠): https://github.com/googleapis/googleapis/blob/f8291d2b/google/ai/generativelanguage/v1beta/generative_service.proto"),
        row("pattern", Support::Dropped("not in the `responseJsonSchema` list of supported keywords (generative_service.proto, `GenerationConfig.response_json_schema`), and if the server did apply it, whether it searches (JSON Schema) or matches the whole string is undocumented: the latter would narrow, so it is not sent"), GG2),
        row("minLength", Support::Hint("not in the `responseJsonSchema` list of supported keywords (generative_service.proto, `GenerationConfig.response_json_schema`): sent, enforcement undocumented"), GG2),
        row("maxLength", Support::Hint("not in the `responseJsonSchema` list of supported keywords (generative_service.proto, `GenerationConfig.response_json_schema`): sent, enforcement undocumented"), GG2),
        row("minimum", Support::Kept, GG2),
        row("maximum", Support::Kept, GG2),
        row("exclusiveMinimum", Support::Rewritten(Rewrite::ExclusiveAsInclusive), "not listed, `minimum` is (providers.md GG2, §3.3 ⚠): https://github.com/googleapis/googleapis/blob/f8291d2b/google/ai/generativelanguage/v1beta/generative_service.proto"),
        row("exclusiveMaximum", Support::Rewritten(Rewrite::ExclusiveAsInclusive), "not listed, `maximum` is (providers.md GG2, §3.3 ⚠): https://github.com/googleapis/googleapis/blob/f8291d2b/google/ai/generativelanguage/v1beta/generative_service.proto"),
        row("multipleOf", Support::Hint("not in the `responseJsonSchema` list of supported keywords (generative_service.proto, `GenerationConfig.response_json_schema`): sent, enforcement undocumented; if applied it can only mean what the source means"), GG2),
        row("items", Support::Kept, GG2),
        row("prefixItems", Support::Kept, GG5),
        row("minItems", Support::Kept, GG2),
        row("maxItems", Support::Kept, GG2),
        row("uniqueItems", Support::Hint("not in the `responseJsonSchema` list of supported keywords (generative_service.proto, `GenerationConfig.response_json_schema`): sent, enforcement undocumented; if applied it can only mean what the source means"), GG2),
        row("properties", Support::Kept, GG2),
        row("required", Support::Kept, GG2),
        row("additionalProperties", Support::Kept, "listed; a missing `additionalProperties` reads as closed, so open objects say `true` (providers.md GG2, GG5, §3.3): https://github.com/googleapis/googleapis/blob/f8291d2b/google/ai/generativelanguage/v1beta/generative_service.proto"),
        row("oneOf", Support::Rewritten(Rewrite::OneOfAsAnyOf), "listed as \"oneOf (interpreted as anyOf)\"; sent as `anyOf` because a keyword dropped inside a branch can make two branches match the same value, and `oneOf` would then exclude it (providers.md GG2, §3.3): https://github.com/googleapis/googleapis/blob/f8291d2b/google/ai/generativelanguage/v1beta/generative_service.proto"),
        row("anyOf", Support::Kept, GG2),
        row("allOf", Support::Rewritten(Rewrite::MergedIntoParent), "not in the supported list (providers.md GG2, §3.3 ⚠): merged into the parent; members that declare properties and cannot be merged make the lowering fall back: https://github.com/googleapis/googleapis/blob/f8291d2b/google/ai/generativelanguage/v1beta/generative_service.proto"),
        row("not", Support::Dropped("not in the `responseJsonSchema` list of supported keywords (generative_service.proto, `GenerationConfig.response_json_schema`); a negation the server half-understands could exclude values the source accepts, so it is not sent"), GG2),
        row("description", Support::Kept, GG2),
        row("title", Support::Kept, GG2),
        row("default", Support::Dropped("not in the supported list; an annotation, nothing to enforce"), GG2),
        row("examples", Support::Dropped("not in the supported list; an annotation, nothing to enforce"), GG2),
        row("format", Support::Rewritten(Rewrite::IntoDescription), I_G5),
        row("$schema", Support::Dropped("not in the supported list; an annotation, nothing to enforce"), GG2),
        row("$id", Support::Kept, GG2),
    ],
};

/// The rows of `responseJsonSchema` for keywords only the `full` subset has (see
/// [`crate::dialect::full_rows`]). The counts are not on the supported list, and unlike the
/// unlisted keywords this table sends as hints, a grammar engine may refuse them outright:
/// llguidance, in the strict mode a server that enforces what it accepts would run, refuses
/// them on any object with an optional property. Whether the server takes them is unsure, so
/// they are not sent.
pub static FULL_ROWS: [Row; 2] = [
    row(
        "minProperties",
        Support::Dropped(UNLISTED_COUNT),
        UNLISTED_COUNT_SOURCE,
    ),
    row(
        "maxProperties",
        Support::Dropped(UNLISTED_COUNT),
        UNLISTED_COUNT_SOURCE,
    ),
];

const UNLISTED_COUNT: &str = "not sent: not in the `responseJsonSchema` list of supported keywords, and grammar engines refuse it on objects with optional properties (llguidance: \"min/maxProperties only supported when all keys listed in properties are required\"), so whether the server accepts it is unsure";
const UNLISTED_COUNT_SOURCE: &str = "https://github.com/googleapis/googleapis/blob/f8291d2b/google/ai/generativelanguage/v1beta/generative_service.proto `GenerationConfig.response_json_schema` (providers.md GG2, §3.3); llguidance's JSON Schema support: https://github.com/guidance-ai/llguidance/blob/main/docs/json_schema.md (its coverage of `min/maxProperties` over MaskBench: 90 %, providers-2026-12.md §2.1)";

const DIALECT: JsonDialect = JsonDialect {
    caps: Some(&CAPABILITIES),
    closure: Closure::ExplicitOpen,
    types: Types::Explicit,
    // "Cyclic references are unrolled to a limited degree" (providers.md GG2): a depth cut
    // would narrow, so recursion degrades; non-recursive references are written out in place.
    references: false,
    explicit_items: false,
};

/// The request field.
const FIELD: &str = "responseJsonSchema";

pub(crate) fn lower(schema: &Schema, produce: Produce) -> Outcome {
    match emit_json_schema(schema, DIALECT, produce) {
        Ok((sent, losses)) => native(produce, FIELD, sent, losses),
        Err(why) => json_only(produce, why),
    }
}

#[cfg(test)]
mod tests {
    use crate::{LowerOptions, Mode, Schema, Target};
    use serde_json::{json, Value};

    fn lower(v: Value) -> crate::Lowering {
        Schema::parse(&v)
            .unwrap_or_else(|e| panic!("{e}"))
            .lower(Target::GeminiJson, &LowerOptions::default())
    }

    fn sent(l: &crate::Lowering) -> &Value {
        assert_eq!(
            l.wire()["generationConfig"]["responseMimeType"],
            json!("application/json")
        );
        &l.wire()["generationConfig"]["responseJsonSchema"]
    }

    fn keywords_lost(l: &crate::Lowering) -> Vec<&str> {
        l.losses().iter().map(|x| &*x.keyword).collect()
    }

    #[test]
    fn closed_object_is_exact_and_open_objects_say_so() {
        let l = lower(json!({
            "type": "object",
            "properties": {
                "a": {"type": "string"},
                "m": {"type": "object", "additionalProperties": {"type": "integer"}}
            },
            "required": ["a"],
            "additionalProperties": false
        }));
        assert_eq!(l.mode(), Mode::Exact, "{:?}", l.losses());
        assert_eq!(
            l.wire(),
            &json!({"generationConfig": {
                "responseMimeType": "application/json",
                "responseJsonSchema": {
                    "type": "object",
                    "properties": {
                        "a": {"type": "string"},
                        "m": {"type": "object", "additionalProperties": {"type": "integer"}}
                    },
                    "required": ["a"],
                    "additionalProperties": false
                }
            }})
        );
        let l = lower(json!({"type": "object", "properties": {"a": {"type": "string"}}}));
        assert_eq!(
            sent(&l),
            &json!({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": true})
        );
        let l = lower(json!({"type": "object"}));
        assert_eq!(l.mode(), Mode::Exact);
        assert_eq!(
            sent(&l),
            &json!({"type": "object", "additionalProperties": true})
        );
    }

    #[test]
    fn type_lists_stay_and_typeless_nodes_get_their_admitted_types() {
        let l = lower(json!({"type": ["string", "null"], "maxLength": 3}));
        assert_eq!(
            sent(&l),
            &json!({"type": ["null", "string"], "maxLength": 3})
        );
        assert_eq!(keywords_lost(&l), ["maxLength"]);
        let l = lower(json!({"type": "array", "items": {"minimum": 0}}));
        assert_eq!(
            sent(&l)["items"],
            // Object keywords beside `"array"` in a type list go in their own branch (issue 18).
            json!({"anyOf": [
                {"type": "object", "additionalProperties": true},
                {"type": ["null", "boolean", "array", "number", "string"], "minimum": 0}
            ]})
        );
        assert_eq!(l.mode(), Mode::Exact);
    }

    #[test]
    fn enums_of_strings_and_numbers_stay_others_are_dropped_whole() {
        let l = lower(json!({"enum": ["a", 1, 2.5]}));
        assert_eq!(l.mode(), Mode::Exact);
        assert_eq!(
            sent(&l),
            &json!({"type": ["number", "string"], "enum": ["a", 1, 2.5]})
        );
        let l = lower(json!({"type": ["string", "null"], "enum": ["a", null]}));
        assert_eq!(sent(&l), &json!({"type": ["null", "string"]}));
        assert_eq!(keywords_lost(&l), ["enum"]);
    }

    #[test]
    fn const_becomes_a_one_value_enum_where_it_can() {
        let l = lower(json!({"const": "x"}));
        assert_eq!(sent(&l), &json!({"type": "string", "enum": ["x"]}));
        assert_eq!(l.mode(), Mode::Exact);
        let l = lower(json!({"const": 3}));
        assert_eq!(sent(&l), &json!({"type": "integer", "enum": [3]}));
        let l = lower(json!({"const": true}));
        assert_eq!(sent(&l), &json!({"type": "boolean"}));
        assert_eq!(keywords_lost(&l), ["const"]);
    }

    #[test]
    fn unlisted_keywords_follow_their_rows() {
        let l = lower(json!({
            "type": "object",
            "properties": {
                "s": {"type": "string", "pattern": "^a", "minLength": 1, "format": "email"},
                "n": {"type": "integer", "exclusiveMinimum": 0, "multipleOf": 2, "not": {"const": 4}},
                "t": {"type": "array", "prefixItems": [{"type": "string"}], "items": {"type": "integer"}, "uniqueItems": true},
                "u": {"oneOf": [{"type": "string"}, {"type": "integer"}]}
            },
            "required": ["s"],
            "additionalProperties": false,
            "default": {"s": "a"},
            "$schema": "https://json-schema.org/draft/2020-12/schema"
        }));
        assert_eq!(l.mode(), Mode::Widened);
        assert_eq!(
            sent(&l),
            &json!({
                "type": "object",
                "properties": {
                    "s": {"description": "format: email", "type": "string", "minLength": 1},
                    "n": {"type": "integer", "minimum": 0, "multipleOf": 2},
                    "t": {"type": "array", "prefixItems": [{"type": "string"}], "items": {"type": "integer"}, "uniqueItems": true},
                    "u": {"type": ["integer", "string"], "anyOf": [{"type": "string"}, {"type": "integer"}]}
                },
                "required": ["s"],
                "additionalProperties": false
            })
        );
        let mut lost = keywords_lost(&l);
        lost.sort_unstable();
        assert_eq!(
            lost,
            [
                "exclusiveMinimum",
                "minLength",
                "multipleOf",
                "not",
                "oneOf",
                "pattern",
                "uniqueItems"
            ]
        );
    }

    #[test]
    fn one_of_is_sent_as_any_of_so_dropped_keywords_cannot_make_branches_overlap() {
        // Without its pattern, the first branch equals the second: as `oneOf` no string would
        // match exactly one branch.
        let l = lower(
            json!({"oneOf": [{"type": "string", "pattern": "^[a-f0-9]{24}$"}, {"type": "string"}]}),
        );
        assert_eq!(
            sent(&l),
            &json!({"type": "string", "anyOf": [{"type": "string"}, {"type": "string"}]})
        );
        assert_eq!(keywords_lost(&l), ["pattern", "oneOf"]);
    }

    #[test]
    fn all_of_merges_and_falls_back_when_it_cannot() {
        let l = lower(json!({
            "type": "object",
            "allOf": [{"properties": {"a": {"type": "string"}}, "required": ["a"]}],
            "additionalProperties": false
        }));
        assert_eq!(
            sent(&l),
            &json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"], "additionalProperties": false})
        );
        // Two unions in one conjunction cannot share a node; a member declares properties, so
        // dropping it would narrow: mime type only.
        let l = lower(json!({"allOf": [
            {"anyOf": [{"type": "object", "properties": {"a": {"type": "string"}}}, {"type": "null"}]},
            {"anyOf": [{"type": "object", "properties": {"b": {"type": "string"}}}, {"type": "null"}]}
        ]}));
        assert_eq!(l.mode(), Mode::Json);
        assert_eq!(
            l.wire(),
            &json!({"generationConfig": {"responseMimeType": "application/json"}})
        );
        assert_eq!(keywords_lost(&l), ["allOf"]);
    }
}
