//! Gemini Interactions API: `response_format`, one `{type: "text", mime_type, schema}` entry.
//!
//! Google describes the Interactions API as its recommended surface, and new models may launch
//! only there. Its schema is JSON Schema like `responseJsonSchema`, but Google documents no
//! subset for it, and a 2026 live bisect on gemini-3.8-flash got HTTP 400 on `maxLength`,
//! `minimum`, `minItems` and `maxItems` (while `additionalProperties`, `enum`, `required` and
//! `integer` passed). So the table sends the structural core that was seen accepted and drops
//! every value constraint: the four refused ones and, on the safe side, their untested siblings.
//! Each drop is a loss, never a narrowing. Open objects say `additionalProperties: true` and
//! every node gets an explicit `type`, as for `responseJsonSchema`, because how the server
//! reads a missing one is undocumented.
//!
//! When the schema cannot be sent, nothing is: whether an entry without `schema` is accepted
//! is undocumented, so the fallback is prompt mode, not a bare JSON mime type.

use crate::dialect::caps::{row, Capabilities, Partial, Rewrite, Row, Support, ValueKinds};
use crate::dialect::emit::{Closure, JsonDialect, Types};
use crate::dialect::{Outcome, Produce};
use crate::loss::{Loss, Mode};
use crate::schema::Schema;
use crate::target::Target;
use serde_json::{Map, Value};

const WIRE: &str = "python-genai `google/genai/_gaos/types/interactions/textresponseformat.py`; vercel/ai `packages/google/src/interactions/google-interactions-language-model.ts`; https://ai.google.dev/gemini-api/docs/interactions (providers-2026-12.md §3.3)";
const PROBE: &str = "live bisect on gemini-3.8-flash: 400 on `maxLength`, `minimum`, `minItems`, `maxItems`; `additionalProperties`, `enum`, `required`, `integer` accepted: https://github.com/linxule/openinterviewer/pull/21 , https://github.com/linxule/openinterviewer/pull/23 (providers-2026-12.md §3.3 ⚠)";
const AS_JSON_SCHEMA: &str = "not probed on this route; sent as for `responseJsonSchema`, the same JSON-Schema dialect (providers.md GG2, §3.3 ⚠): https://github.com/googleapis/googleapis/blob/f8291d2b/google/ai/generativelanguage/v1beta/generative_service.proto ; route: https://ai.google.dev/gemini-api/docs/interactions";
const I_G5: &str = "https://github.com/google-gemini/gemini-cli/issues/3178 (providers.md I-G5, §7: `format` is an annotation; enforcing it would narrow)";

const REFUSED: &str = "not sent: refused on this route (400) by the 2026 probe";
const SIBLING: &str = "not sent: untested on this route, and its sibling constraints were refused (400); the safe side is not to send it";
const ANNOTATION: &str = "not sent: untested on this route; an annotation, nothing to enforce";

/// What the Interactions API's `response_format` schema does with each subset keyword.
#[rustfmt::skip]
pub static CAPABILITIES: Capabilities = Capabilities {
    target: Target::GeminiInteractions,
    field: "response_format.schema",
    route: WIRE,
    rows: &[
        row("type", Support::Kept, PROBE),
        row("enum", Support::Partial(Partial::EnumValues(ValueKinds::StringsAndNumbers)), PROBE),
        row("const", Support::Rewritten(Rewrite::ConstAsEnum), PROBE),
        row("pattern", Support::Dropped(SIBLING), PROBE),
        row("minLength", Support::Dropped(SIBLING), PROBE),
        row("maxLength", Support::Dropped(REFUSED), PROBE),
        row("minimum", Support::Dropped(REFUSED), PROBE),
        row("maximum", Support::Dropped(SIBLING), PROBE),
        row("exclusiveMinimum", Support::Dropped(SIBLING), PROBE),
        row("exclusiveMaximum", Support::Dropped(SIBLING), PROBE),
        row("multipleOf", Support::Dropped(SIBLING), PROBE),
        row("items", Support::Kept, AS_JSON_SCHEMA),
        row("prefixItems", Support::Rewritten(Rewrite::PrefixItemsAsItems), AS_JSON_SCHEMA),
        row("minItems", Support::Dropped(REFUSED), PROBE),
        row("maxItems", Support::Dropped(REFUSED), PROBE),
        row("uniqueItems", Support::Dropped(SIBLING), PROBE),
        row("properties", Support::Kept, PROBE),
        row("required", Support::Kept, PROBE),
        row("additionalProperties", Support::Kept, PROBE),
        row("oneOf", Support::Rewritten(Rewrite::OneOfAsAnyOf), AS_JSON_SCHEMA),
        row("anyOf", Support::Kept, AS_JSON_SCHEMA),
        row("allOf", Support::Rewritten(Rewrite::MergedIntoParent), AS_JSON_SCHEMA),
        row("not", Support::Dropped(SIBLING), PROBE),
        row("description", Support::Kept, WIRE),
        row("title", Support::Kept, WIRE),
        row("default", Support::Dropped(ANNOTATION), WIRE),
        row("examples", Support::Dropped(ANNOTATION), WIRE),
        row("format", Support::Rewritten(Rewrite::IntoDescription), I_G5),
        row("$schema", Support::Dropped(ANNOTATION), WIRE),
        row("$id", Support::Dropped(ANNOTATION), WIRE),
    ],
};

/// The rows of `response_format.schema` for keywords only the `full` subset has (see
/// [`crate::dialect::full_rows`]): the counts were not probed, and their sibling constraints
/// were refused, so neither is sent.
pub static FULL_ROWS: [Row; 2] = [
    row("minProperties", Support::Dropped(SIBLING), PROBE),
    row("maxProperties", Support::Dropped(SIBLING), PROBE),
];

const DIALECT: JsonDialect = JsonDialect {
    caps: Some(&CAPABILITIES),
    closure: Closure::ExplicitOpen,
    types: Types::Explicit,
    // References are undocumented on this route: recursion degrades, non-recursive references
    // are written out in place.
    references: false,
    explicit_items: false,
};

pub(crate) fn lower(schema: &Schema, produce: Produce) -> Outcome {
    match super::emit_json_schema(schema, DIALECT, produce) {
        Ok((sent, losses)) => {
            let wire = produce.request(|| {
                let mut entry = Map::new();
                entry.insert("type".into(), Value::from("text"));
                entry.insert("mime_type".into(), Value::from(super::JSON_MIME));
                entry.insert("schema".into(), sent);
                crate::dialect::object([("response_format", Value::Object(entry))])
            });
            Outcome::native(wire, losses)
        }
        Err(why) => prompt(why),
    }
}

fn prompt(why: Vec<Loss>) -> Outcome {
    Outcome {
        mode: Mode::Prompt,
        wire: Value::Object(Map::new()),
        losses: why,
    }
}

#[cfg(test)]
mod tests {
    use crate::{LowerOptions, Mode, Schema, Target};
    use serde_json::{json, Value};

    fn lower(v: Value) -> crate::Lowering {
        Schema::parse(&v)
            .unwrap_or_else(|e| panic!("{e}"))
            .lower(Target::GeminiInteractions, &LowerOptions::default())
    }

    fn keywords_lost(l: &crate::Lowering) -> Vec<&str> {
        l.losses().iter().map(|x| &*x.keyword).collect()
    }

    #[test]
    fn the_schema_travels_in_one_text_entry_with_the_json_mime_type() {
        let l = lower(json!({
            "type": "object",
            "properties": {"a": {"type": "string"}},
            "required": ["a"],
            "additionalProperties": false
        }));
        assert_eq!(l.mode(), Mode::Exact, "{:?}", l.losses());
        assert_eq!(
            l.wire(),
            &json!({"response_format": {
                "type": "text",
                "mime_type": "application/json",
                "schema": {
                    "type": "object",
                    "properties": {"a": {"type": "string"}},
                    "required": ["a"],
                    "additionalProperties": false
                }
            }})
        );
    }

    #[test]
    fn the_keywords_the_probe_saw_refused_are_never_sent_and_each_is_a_loss() {
        let l = lower(json!({
            "type": "object",
            "properties": {
                "s": {"type": "string", "maxLength": 3, "minLength": 1},
                "n": {"type": "integer", "minimum": 0, "maximum": 9},
                "a": {"type": "array", "items": {"type": "integer"}, "minItems": 1, "maxItems": 2}
            },
            "additionalProperties": false
        }));
        assert_eq!(l.mode(), Mode::Widened);
        let sent = l.wire()["response_format"]["schema"].to_string();
        for k in [
            "maxLength",
            "minLength",
            "minimum",
            "maximum",
            "minItems",
            "maxItems",
        ] {
            assert!(!sent.contains(k), "{k} sent: {sent}");
        }
        let mut lost = keywords_lost(&l);
        lost.sort_unstable();
        assert_eq!(
            lost,
            [
                "maxItems",
                "maxLength",
                "maximum",
                "minItems",
                "minLength",
                "minimum"
            ]
        );
    }

    #[test]
    fn open_objects_say_so_and_what_cannot_be_sent_falls_back_to_prompt_mode() {
        let l = lower(json!({"type": "object", "properties": {"a": {"type": "string"}}}));
        assert_eq!(
            l.wire()["response_format"]["schema"],
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": true})
        );
        // Two unions in one conjunction cannot share a node, and a member declares
        // properties, so dropping it would narrow: nothing is sent.
        let l = lower(json!({"allOf": [
            {"anyOf": [{"type": "object", "properties": {"a": {"type": "string"}}}, {"type": "null"}]},
            {"anyOf": [{"type": "object", "properties": {"b": {"type": "string"}}}, {"type": "null"}]}
        ]}));
        assert_eq!((l.mode(), l.wire()), (Mode::Prompt, &json!({})));
        assert_eq!(keywords_lost(&l), ["allOf"]);
    }
}
