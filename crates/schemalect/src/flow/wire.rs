//! What the request fragment of a lowering tells the flow, per target, in one table: where the
//! native schema sits, which tool the model is forced to call, and whether the provider's JSON
//! mode only admits objects.
//!
//! The flow reads these facts from [`Lowering::wire`](crate::Lowering::wire) rather than from the
//! dialects, so it keeps working whatever mode a dialect reaches (and while some dialects still
//! answer in prompt mode).

use crate::lower::Target;
use serde_json::Value;

/// Where each target's request fragment carries the native schema (RFC 6901 pointers into
/// `Lowering::wire()`), as the dialects emit it (design/providers.md §1.1, §3.1, §4.1, §4.2, §5).
const SCHEMA_AT: &[(Target, &str)] = &[
    (Target::OpenAi, "/response_format/json_schema/schema"),
    (Target::Groq, "/response_format/json_schema/schema"),
    (Target::Mistral, "/response_format/json_schema/schema"),
    (Target::OpenRouter, "/response_format/json_schema/schema"),
    (Target::Gemini, "/generationConfig/responseSchema"),
    (Target::GeminiJson, "/generationConfig/responseJsonSchema"),
    (Target::Ollama, "/format"),
    (Target::Claude, "/tools/0/input_schema"),
    (Target::ClaudeNative, "/output_config/format/schema"),
    (Target::OpenAiResponses, "/text/format/schema"),
    (
        Target::BedrockClaude,
        "/toolConfig/tools/0/toolSpec/inputSchema/json",
    ),
    (Target::GeminiInteractions, "/response_format/schema"),
    (Target::VertexGemini, "/generationConfig/responseSchema"),
    (Target::OllamaMlx, "/format"),
    (Target::LlamaServer, "/response_format/json_schema/schema"),
];

/// JSON modes that only admit an object at the root: OpenAI-compatible `json_object`
/// (providers.md §1.5) and Ollama's `"json"` grammar (`root ::= object`, §5).
const OBJECT_ONLY_JSON_MODES: &[(Target, &str, &str)] = &[
    (Target::OpenAi, "/response_format/type", "json_object"),
    (Target::Groq, "/response_format/type", "json_object"),
    (Target::Mistral, "/response_format/type", "json_object"),
    (Target::OpenRouter, "/response_format/type", "json_object"),
    (Target::Ollama, "/format", "json"),
    (Target::OllamaMlx, "/format", "json"),
    (Target::OpenAiResponses, "/text/format/type", "json_object"),
];

/// What the flow needs to know about a request fragment.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct WireFacts<'a> {
    /// The native schema sent to the provider, if any (`None` in JSON and prompt modes).
    pub schema: Option<&'a Value>,
    /// The tool the model must call (Claude's forced tool), if the fragment declares one.
    pub tool: Option<&'a str>,
    /// The provider's JSON mode admits only an object at the root.
    pub object_only: bool,
    /// The native schema is Gemini's OpenAPI-subset `Schema`, not JSON Schema.
    pub openapi_schema: bool,
}

/// Reads the facts of `wire` for `target`.
pub(crate) fn facts(target: Target, wire: &Value) -> WireFacts<'_> {
    let schema = SCHEMA_AT
        .iter()
        .find(|(t, _)| *t == target)
        .and_then(|(_, at)| wire.pointer(at))
        .filter(|s| s.is_object());
    let object_only = OBJECT_ONLY_JSON_MODES
        .iter()
        .any(|(t, at, v)| *t == target && wire.pointer(at).and_then(Value::as_str) == Some(v));
    let tool = match target {
        // `tool_choice: {type: "tool", name}` names the forced tool; with extended thinking the
        // choice cannot force, and the single declared tool is still the one to call.
        Target::Claude => wire
            .pointer("/tool_choice/name")
            .or_else(|| wire.pointer("/tools/0/name"))
            .and_then(Value::as_str),
        // Converse: `toolChoice: {tool: {name}}` names it.
        Target::BedrockClaude => wire
            .pointer("/toolConfig/toolChoice/tool/name")
            .or_else(|| wire.pointer("/toolConfig/tools/0/toolSpec/name"))
            .and_then(Value::as_str),
        _ => None,
    };
    WireFacts {
        schema,
        tool,
        object_only,
        openapi_schema: matches!(target, Target::Gemini | Target::VertexGemini) && schema.is_some(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_target_has_a_schema_location() {
        for t in Target::ALL {
            assert_eq!(SCHEMA_AT.iter().filter(|(x, _)| *x == t).count(), 1, "{t}");
        }
    }

    #[test]
    fn reads_the_schema_of_each_wire_shape() {
        let s = json!({"type": "object"});
        let cases = [
            (
                Target::OpenAi,
                json!({"response_format": {"type": "json_schema", "json_schema": {"name": "x", "schema": s, "strict": true}}}),
            ),
            (
                Target::Gemini,
                json!({"generationConfig": {"responseMimeType": "application/json", "responseSchema": s}}),
            ),
            (
                Target::GeminiJson,
                json!({"generationConfig": {"responseMimeType": "application/json", "responseJsonSchema": s}}),
            ),
            (Target::Ollama, json!({"format": s})),
            (
                Target::Claude,
                json!({"tools": [{"name": "answer", "input_schema": s}], "tool_choice": {"type": "tool", "name": "answer"}}),
            ),
            (
                Target::ClaudeNative,
                json!({"output_config": {"format": {"type": "json_schema", "schema": s}}}),
            ),
            (
                Target::OpenAiResponses,
                json!({"text": {"format": {"type": "json_schema", "name": "x", "schema": s, "strict": true}}}),
            ),
            (
                Target::BedrockClaude,
                json!({"toolConfig": {"tools": [{"toolSpec": {"name": "answer", "inputSchema": {"json": s}}}], "toolChoice": {"tool": {"name": "answer"}}}}),
            ),
            (
                Target::GeminiInteractions,
                json!({"response_format": {"type": "text", "mime_type": "application/json", "schema": s}}),
            ),
            (
                Target::VertexGemini,
                json!({"generationConfig": {"responseMimeType": "application/json", "responseSchema": s}}),
            ),
        ];
        for (t, wire) in &cases {
            let f = facts(*t, wire);
            assert_eq!(f.schema, Some(&s), "{t}");
            assert!(!f.object_only, "{t}");
            assert_eq!(
                f.openapi_schema,
                matches!(*t, Target::Gemini | Target::VertexGemini)
            );
        }
        assert_eq!(facts(Target::Claude, &cases[4].1).tool, Some("answer"));
        assert_eq!(facts(Target::Ollama, &cases[4].1).tool, None);
        assert_eq!(
            facts(Target::BedrockClaude, &cases[7].1).tool,
            Some("answer")
        );
    }

    #[test]
    fn json_modes_and_prompt_mode_carry_no_schema() {
        let cases = [
            (
                Target::Groq,
                json!({"response_format": {"type": "json_object"}}),
                true,
            ),
            (Target::Ollama, json!({"format": "json"}), true),
            (
                Target::OpenAiResponses,
                json!({"text": {"format": {"type": "json_object"}}}),
                true,
            ),
            (
                Target::Gemini,
                json!({"generationConfig": {"responseMimeType": "application/json"}}),
                false,
            ),
            (Target::Claude, json!({}), false),
        ];
        for (t, wire, object_only) in &cases {
            let f = facts(*t, wire);
            assert!(
                f.schema.is_none() && f.tool.is_none() && !f.openapi_schema,
                "{t}"
            );
            assert_eq!(f.object_only, *object_only, "{t}");
        }
    }
}
