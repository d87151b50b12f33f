//! Ollama `format` for MLX models: the same wire as `ollama`, read by another converter,
//! xgrammar (Ollama PR #17929, merged 2026-08-22), with other gaps (providers-2026-12.md §3.4).
//!
//! xgrammar compiles the schema in its strict mode by default, which reads a missing
//! `additionalProperties` or `items` as `false`: open objects say `additionalProperties: true`
//! and every array type says `items` (`{}`, any value, where the source leaves items free).
//! A keyword it does not support is logged and skipped; a multi-branch `allOf` degrades to any
//! JSON value, so `allOf` is merged before emission and never sent. It reads `format` before
//! `pattern` before the lengths, writes a pattern as a grammar for the raw characters between
//! the string's quotes, and a length-bounded string as `[^"\\\r\n]{m,n}`: `format` goes into
//! the description, lengths are not sent (a value with a quote or a line break could not be
//! written under them), and only patterns whose matches need no JSON escape are sent. Where a
//! fact is uncertain the row takes the side that keeps every valid value (a loss) and says so.

use super::caps::{row, Capabilities, Partial, PatternRule, Rewrite, Support};
use super::emit::{emit_for, Closure, JsonDialect, Types};
use super::normalize::{normalize, Rewrites};
use super::{json_mode_allowed, Outcome, Produce};
use crate::loss::Mode;
use crate::schema::Schema;
use crate::target::Target;
use serde_json::{json, Value};

/// xgrammar's JSON Schema converter, at the commit read.
const XG: &str = "https://github.com/mlc-ai/xgrammar/blob/00ad8e2c741c5379aaa6102938153f482a4418b3/cpp/json_schema_converter.cc";
/// xgrammar's strict mode default (`compile_json_schema(strict_mode=True)`) and what it means.
const XG_STRICT: &str = "https://github.com/mlc-ai/xgrammar/blob/53da3ff/python/xgrammar/compiler.py#L111-L173 (providers-2026-12.md §2.1): strict_mode=True by default, \"equivalent to setting unevaluatedProperties and unevaluatedItems to false\"; ParseObject/ParseArray in https://github.com/mlc-ai/xgrammar/blob/00ad8e2c741c5379aaa6102938153f482a4418b3/cpp/json_schema_converter.cc";
/// Ollama's MLX backend enforcing `format` with xgrammar, and its `allOf` gap.
const PR: &str = "https://github.com/ollama/ollama/pull/17929 (\"multi-branch `allOf` degrades to accepting any JSON value\", providers-2026-12.md §3.4)";
/// SGLang's reading of xgrammar's priorities.
const SGLANG: &str = "https://github.com/sgl-project/sglang/pull/37839 (xgrammar \"prioritizes `format` over `pattern` over `minLength`/`maxLength`\"); GenerateString in https://github.com/mlc-ai/xgrammar/blob/00ad8e2c741c5379aaa6102938153f482a4418b3/cpp/json_schema_converter.cc";

const LENGTH: &str = "not sent: xgrammar writes a length-bounded string as `[^\"\\\\\\r\\n]{m,n}` (GenerateString), so a string holding a quote, a backslash or a line break could not be written under it; and beside a `format` or `pattern` it reads those instead";
const BOUND: &str = "not sent: xgrammar builds an exact range only for integer-only nodes with integral bounds (ParseInteger; a fractional bound there is refused); a range over fractions (ParseNumber/GenerateNumber) is not known to admit every number in it, so it is left out (the side that keeps every valid value)";

/// What Ollama's MLX backend (xgrammar) does with each keyword.
pub static CAPABILITIES: Capabilities = Capabilities {
    target: Target::OllamaMlx,
    field: "format",
    route: "`format`: a JSON Schema or `\"json\"`, as for `ollama` (https://github.com/ollama/ollama/blob/fb307609/docs/api.md, providers.md L1, L2); enforced on MLX models by xgrammar since https://github.com/ollama/ollama/pull/17929 (0.32.15 and earlier ignored it: validate locally)",
    rows: &[
        row("type", Support::Kept, XG),
        row("enum", Support::Kept, XG),
        row("const", Support::Kept, XG),
        row("pattern", Support::Partial(Partial::Patterns(PatternRule::RawCharacters)), SGLANG),
        row("minLength", Support::Dropped(LENGTH), SGLANG),
        row("maxLength", Support::Dropped(LENGTH), SGLANG),
        row("minimum", Support::Partial(Partial::IntegerNodesOnly(BOUND)), XG),
        row("maximum", Support::Partial(Partial::IntegerNodesOnly(BOUND)), XG),
        row("exclusiveMinimum", Support::Partial(Partial::IntegerNodesOnly(BOUND)), XG),
        row("exclusiveMaximum", Support::Partial(Partial::IntegerNodesOnly(BOUND)), XG),
        row("multipleOf", Support::Dropped("not sent: xgrammar ignores it for numbers and beside open ranges (logged), and refuses a range holding no multiple; left out, the side that keeps every valid value"), XG),
        row("items", Support::Kept, XG_STRICT),
        row("prefixItems", Support::Rewritten(Rewrite::PrefixItemsAsItems), XG),
        row("minItems", Support::Kept, XG),
        row("maxItems", Support::Kept, XG),
        row("uniqueItems", Support::Dropped("logged and skipped by xgrammar (ParseArray: WarnUnsupportedKeywords)"), XG),
        row("properties", Support::Kept, XG),
        row("required", Support::Kept, XG),
        row("additionalProperties", Support::Kept, XG_STRICT),
        row("oneOf", Support::Rewritten(Rewrite::OneOfAsAnyOf), XG),
        row("anyOf", Support::Kept, XG),
        row("allOf", Support::Rewritten(Rewrite::MergedIntoParent), PR),
        row("not", Support::Dropped("not sent: xgrammar's schema parser has no `not` (skipped), and a negation whose schema was widened anywhere would reject more"), XG),
        row("description", Support::Kept, XG),
        row("title", Support::Kept, XG),
        row("default", Support::Kept, XG),
        row("examples", Support::Kept, XG),
        row("format", Support::Rewritten(Rewrite::IntoDescription), SGLANG),
        row("$schema", Support::Kept, XG),
        row("$id", Support::Kept, XG),
    ],
};

const DIALECT: JsonDialect = JsonDialect {
    caps: Some(&CAPABILITIES),
    closure: Closure::ExplicitOpen,
    types: Types::ExplicitOutsideBareUnions,
    references: true,
    explicit_items: true,
};

/// Ollama `format` for MLX models; `"json"` or nothing when the schema cannot be sent.
pub(crate) fn lower(schema: &Schema, produce: Produce) -> Outcome {
    let normalized = normalize(
        schema,
        Rewrites {
            flatten_all_of: true,
            distribute_unions: true,
        },
    );
    match emit_for(&normalized.schema, DIALECT, produce) {
        Ok(emitted) => {
            let mut losses = normalized.losses;
            losses.extend(emitted.losses);
            Outcome::native(
                produce.request(|| super::object([("format", emitted.schema)])),
                losses,
            )
        }
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

#[cfg(test)]
mod tests {
    use crate::{LowerOptions, Mode, Schema, Target};
    use serde_json::{json, Value};

    fn lower(v: Value) -> crate::Lowering {
        Schema::parse(&v)
            .unwrap_or_else(|e| panic!("{e}"))
            .lower(Target::OllamaMlx, &LowerOptions::default())
    }

    #[test]
    fn open_objects_and_free_arrays_say_so() {
        let l = lower(json!({
            "type": "object",
            "properties": {"tags": {"type": "array"}, "n": {"type": "integer", "minimum": 1}},
            "required": ["tags"]
        }));
        assert_eq!(l.mode(), Mode::Exact, "{:?}", l.losses());
        assert_eq!(
            l.wire()["format"],
            json!({
                "type": "object",
                "properties": {"tags": {"type": "array", "items": {}}, "n": {"type": "integer", "minimum": 1}},
                "required": ["tags"],
                "additionalProperties": true
            })
        );
    }

    #[test]
    fn all_of_is_never_sent() {
        let l = lower(json!({"allOf": [
            {"type": "object", "properties": {"a": {"type": "string"}}},
            {"required": ["a"]}
        ]}));
        assert!(!l.wire().to_string().contains("allOf"), "{}", l.wire());
        assert!(l.mode() <= Mode::Widened);
    }

    #[test]
    fn lengths_are_not_sent_and_format_is_a_hint() {
        let l = lower(json!({"type": "string", "minLength": 1, "format": "email"}));
        assert_eq!(
            l.wire()["format"],
            json!({"type": "string", "description": "format: email"})
        );
        assert_eq!(l.mode(), Mode::Widened);
        assert_eq!(l.losses()[0].keyword, "minLength");
    }

    #[test]
    fn only_patterns_written_without_escapes_are_sent() {
        for (pattern, sent) in [
            ("^[a-z]{2,8}\\d+$", true),
            ("^[A-Z0-9_-]+$", true),
            ("ab", false),
            ("^a.b$", false),
            ("^[^a]+$", false),
            ("^[ -~]+$", false),
            ("^a\"b$", false),
            ("^a\\\\b$", false),
            ("^a\\nb$", false),
            ("^[0-z]$", false),
        ] {
            let l = lower(json!({"type": "string", "pattern": pattern}));
            assert_eq!(
                l.wire()["format"].get("pattern").is_some(),
                sent,
                "{pattern}: {}",
                l.wire()
            );
            assert_eq!(l.mode() == Mode::Exact, sent, "{pattern}");
        }
    }

    #[test]
    fn numeric_bounds_only_on_integer_nodes() {
        let l = lower(json!({"type": "integer", "minimum": 0, "exclusiveMaximum": 10}));
        assert_eq!(l.mode(), Mode::Exact, "{:?}", l.losses());
        let l = lower(json!({"type": "number", "minimum": 0.5}));
        assert_eq!(l.wire()["format"], json!({"type": "number"}));
        assert_eq!(l.losses()[0].keyword, "minimum");
    }

    #[test]
    fn untyped_nodes_keep_their_arrays_open() {
        let l = lower(json!({"type": "array", "items": {"not": {"type": "string"}}}));
        let items = &l.wire()["format"]["items"];
        let branches = items["anyOf"].as_array().cloned().unwrap_or_default();
        assert_eq!(branches.len(), 2, "{items}");
        assert_eq!(
            branches[0],
            json!({"type": "object", "additionalProperties": true})
        );
        assert_eq!(branches[1]["items"], json!({}), "{items}");
        assert!(l.losses().iter().any(|x| x.keyword == "not"));
    }
}
