//! [genai](https://docs.rs/genai) `ChatResponseFormat` from a lowering (feature `genai`).
//!
//! genai takes one `JsonSpec` (name, description, schema) for every provider and each of its
//! adapters writes it in its own way. What follows is read from genai 0.7's adapters, and
//! decides which lowering to give it:
//!
//! | genai adapter | what it sends for a `JsonSpec` | lower for |
//! |---|---|---|
//! | OpenAI, Groq and the OpenAI-compatible ones | `response_format` `json_schema`, `strict: true`, the schema through its OpenAI sanitizer, no `description` | `openai`, `groq`, `mistral`, `openrouter` |
//! | OpenAI Responses | `text.format` `json_schema`, `strict: true`, sanitized, no `description` | `openai-responses` |
//! | Gemini | `generationConfig.responseJsonSchema`, as is | `gemini-json` |
//! | Anthropic | `output_config.format`, through its Anthropic sanitizer | `claude-native` |
//! | Ollama | nothing (only `JsonMode` is sent, as `format: "json"`) | `ollama` (JSON mode only) |
//!
//! genai's sanitizers make every property required and close every object, which can narrow a
//! schema; a strict lowering already has every property required and every object closed, so
//! they have nothing to change (the tests check it with genai's own `sanitize_json_schema`).
//! A JSON-mode lowering becomes `ChatResponseFormat::JsonMode`.

use super::{check, left_out_at, member, optional_string, other_members, string};
use super::{Converted, IntegrationError, LeftOut};
use crate::{Lowering, Target};
use genai::chat::{ChatResponseFormat, JsonSpec};
use serde_json::Value;
use std::borrow::Cow;

const FORMAT: &str = "genai `ChatResponseFormat`";

const NO_DESCRIPTION: &str = "genai's OpenAI adapters do not send `description` (an annotation: \
    the model does not see it; nothing is enforced less)";
const NO_PROVIDER: &str = "genai sends no OpenRouter `provider` member: without \
    `provider.require_parameters` OpenRouter may route to an upstream that ignores \
    `response_format` (`accept` still validates the answer)";
const OLLAMA_NO_SCHEMA: &str = "genai's Ollama adapter sends no schema for a `JsonSpec`, only \
    `format: \"json\"` for `JsonMode`: the model is held to JSON only (`accept` still validates \
    the answer); use the ollama-rs integration, or merge `Lowering::wire` into the body, to send it";
const GEMINI_NO_MIME: &str = "genai's Gemini adapter sends `responseMimeType` only with a \
    `JsonSpec`: in JSON mode the model is not held to JSON (`accept` still decodes and \
    validates the answer)";

/// The `ChatResponseFormat` of a lowering for `openai`, `groq`, `mistral`, `openrouter`,
/// `openai-responses`, `gemini-json`, `claude-native` or `ollama`. Set it with
/// `ChatOptions::with_response_format`.
///
/// # Errors
/// [`IntegrationError::Target`] for another target (`gemini` and `vertex-gemini` send
/// `responseSchema`, which genai does not write: lower for `gemini-json`; `claude` and
/// `bedrock-claude` are forced tools), [`IntegrationError::PromptMode`] when the lowering sends
/// nothing native, [`IntegrationError::Stronger`] for a non-strict `json_schema` (genai would
/// send it strict).
pub fn response_format(
    lowering: &Lowering,
) -> Result<Converted<ChatResponseFormat>, IntegrationError> {
    check(
        lowering,
        FORMAT,
        "`openai`, `groq`, `mistral`, `openrouter`, `openai-responses`, `gemini-json`, `claude-native`, `ollama` or `ollama-mlx`",
        |t| {
            t.is_openai_family()
                || matches!(
                    t,
                    Target::OpenAiResponses
                        | Target::GeminiJson
                        | Target::ClaudeNative
                        | Target::Ollama
                        | Target::OllamaMlx
                )
        },
    )?;
    match lowering.target() {
        Target::OpenAiResponses => openai(lowering, "/text/format", &["text"]),
        Target::GeminiJson => {
            let Some(schema) = lowering
                .wire()
                .pointer("/generationConfig/responseJsonSchema")
            else {
                let mut out = Converted::new(ChatResponseFormat::JsonMode);
                out.left_out.extend(left_out_at(
                    lowering,
                    "/generationConfig/responseMimeType",
                    GEMINI_NO_MIME,
                ));
                return Ok(out);
            };
            Ok(Converted::new(spec("response", None, schema.clone())))
        }
        Target::ClaudeNative => {
            let schema = member(lowering, "/output_config/format/schema")?;
            Ok(Converted::new(spec("response", None, schema.clone())))
        }
        Target::Ollama | Target::OllamaMlx => {
            let mut out = Converted::new(ChatResponseFormat::JsonMode);
            if let Some(schema @ Value::Object(_)) = lowering.wire().get("format") {
                out.left_out.push(LeftOut {
                    pointer: "/format".to_owned(),
                    value: schema.clone(),
                    reason: Cow::Borrowed(OLLAMA_NO_SCHEMA),
                });
            }
            Ok(out)
        }
        _ => openai(lowering, "/response_format", &["response_format"]),
    }
}

/// The OpenAI-shaped `json_schema` (`response_format` or `text.format`) at `at`.
fn openai(
    lowering: &Lowering,
    at: &str,
    carried: &[&str],
) -> Result<Converted<ChatResponseFormat>, IntegrationError> {
    let mut out = match string(lowering, &format!("{at}/type"))?.as_str() {
        "json_object" => Converted::new(ChatResponseFormat::JsonMode),
        "json_schema" => {
            // Chat Completions nests the spec in `json_schema`; the Responses API does not.
            let spec_at = if at == "/response_format" {
                format!("{at}/json_schema")
            } else {
                at.to_owned()
            };
            let strict = lowering
                .wire()
                .pointer(&format!("{spec_at}/strict"))
                .and_then(Value::as_bool);
            if strict != Some(true) {
                return Err(IntegrationError::Stronger {
                    integration: FORMAT,
                    what: "a `json_schema` that is not strict",
                    why: "genai's OpenAI adapters always send `strict: true`",
                });
            }
            let name = string(lowering, &format!("{spec_at}/name"))?;
            let description = optional_string(lowering, &format!("{spec_at}/description"));
            let schema = member(lowering, &format!("{spec_at}/schema"))?.clone();
            let mut out = Converted::new(spec(&name, description, schema));
            out.left_out.extend(left_out_at(
                lowering,
                &format!("{spec_at}/description"),
                NO_DESCRIPTION,
            ));
            out
        }
        _ => {
            return Err(IntegrationError::Wire {
                target: lowering.target(),
                pointer: format!("{at}/type"),
                expected: "`json_object` or `json_schema`",
            })
        }
    };
    out.left_out
        .extend(other_members(lowering, carried, NO_PROVIDER));
    Ok(out)
}

fn spec(name: &str, description: Option<String>, schema: Value) -> ChatResponseFormat {
    let spec = JsonSpec::new(name, schema);
    ChatResponseFormat::JsonSpec(match description {
        Some(d) => spec.with_description(d),
        None => spec,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{json_mode, LowerOptions, Mode, Profile, Schema};
    use genai::chat::{sanitize_json_schema, JsonSchemaDialect};
    use serde_json::json;

    fn city() -> Schema {
        Schema::parse(&json!({
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}}
            },
            "required": ["city", "tags"],
            "additionalProperties": false
        }))
        .unwrap()
    }

    fn json_spec(format: &ChatResponseFormat) -> Value {
        match format {
            ChatResponseFormat::JsonSpec(spec) => serde_json::to_value(spec).unwrap(),
            ChatResponseFormat::JsonMode => panic!("JSON mode"),
        }
    }

    #[test]
    fn openai_family_specs_hold_the_wire_and_genai_sends_them_unchanged() {
        let options = LowerOptions::default()
            .with_groq_strict(true)
            .with_openrouter_require_parameters(false);
        for target in [
            Target::OpenAi,
            Target::Groq,
            Target::Mistral,
            Target::OpenRouter,
        ] {
            let plan = city().lower(target, &options);
            assert_eq!(plan.mode(), Mode::Exact, "{target}");
            let got = response_format(&plan).unwrap();
            assert!(got.left_out.is_empty(), "{target}: {:?}", got.left_out);
            let sent = &plan.wire()["response_format"]["json_schema"];
            assert_eq!(
                json_spec(&got.value),
                json!({"name": sent["name"], "schema": sent["schema"]}),
                "{target}"
            );
            // genai's adapter runs this on the schema before sending it.
            assert_eq!(
                sanitize_json_schema(&sent["schema"], JsonSchemaDialect::OpenAiStrict),
                sent["schema"],
                "{target}"
            );
        }
    }

    #[test]
    fn the_reshaping_profile_passes_genai_sanitizer_unchanged() {
        let schema = Schema::parse(&json!({
            "type": "object",
            "properties": {"city": {"type": "string"}, "n": {"type": "integer"}},
            "required": ["city"]
        }))
        .unwrap();
        let plan = schema.lower(
            Target::OpenAiResponses,
            &LowerOptions::default().with_profile(Profile::Reshaping),
        );
        assert!(plan.mode() <= Mode::Widened);
        let got = response_format(&plan).unwrap();
        let sent = &plan.wire()["text"]["format"];
        assert_eq!(
            json_spec(&got.value),
            json!({"name": sent["name"], "schema": sent["schema"]})
        );
        assert_eq!(
            sanitize_json_schema(&sent["schema"], JsonSchemaDialect::OpenAiStrict),
            sent["schema"]
        );
    }

    #[test]
    fn description_and_openrouter_provider_are_left_out_and_said() {
        let schema = Schema::parse(&json!({
            "description": "A city.",
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
            "additionalProperties": false
        }))
        .unwrap();
        let plan = schema.lower(Target::OpenRouter, &LowerOptions::default());
        let got = response_format(&plan).unwrap();
        let pointers: Vec<&str> = got.left_out.iter().map(|l| l.pointer.as_str()).collect();
        assert_eq!(
            pointers,
            ["/response_format/json_schema/description", "/provider"]
        );
        assert_eq!(json_spec(&got.value)["description"], "A city.");
    }

    #[test]
    fn gemini_json_and_claude_native_send_the_schema() {
        let plan = city().lower(Target::GeminiJson, &LowerOptions::default());
        let got = response_format(&plan).unwrap();
        assert!(got.left_out.is_empty());
        assert_eq!(
            json_spec(&got.value)["schema"],
            plan.wire()["generationConfig"]["responseJsonSchema"]
        );
        let plan = city().lower(Target::ClaudeNative, &LowerOptions::default());
        let got = response_format(&plan).unwrap();
        let sent = &plan.wire()["output_config"]["format"]["schema"];
        assert_eq!(json_spec(&got.value)["schema"], *sent);
        assert_eq!(
            sanitize_json_schema(sent, JsonSchemaDialect::AnthropicStructured),
            *sent
        );
    }

    #[test]
    fn ollama_is_json_mode_and_the_schema_is_left_out() {
        let plan = city().lower(Target::Ollama, &LowerOptions::default());
        let got = response_format(&plan).unwrap();
        assert!(matches!(got.value, ChatResponseFormat::JsonMode));
        assert_eq!(got.left_out.len(), 1);
        assert_eq!(got.left_out[0].pointer, "/format");
        assert_eq!(got.left_out[0].value, plan.wire()["format"]);
    }

    #[test]
    fn json_mode_is_json_mode() {
        let open = Schema::parse(&json!({
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"]
        }))
        .unwrap();
        let plan = open.lower(Target::OpenAi, &LowerOptions::default());
        assert_eq!(plan.mode(), Mode::Json);
        let got = response_format(&plan).unwrap();
        assert!(matches!(got.value, ChatResponseFormat::JsonMode));
        assert!(got.left_out.is_empty());
    }

    #[test]
    fn other_targets_and_prompt_mode_are_errors() {
        for target in [
            Target::Gemini,
            Target::VertexGemini,
            Target::Claude,
            Target::BedrockClaude,
        ] {
            let plan = city().lower(target, &LowerOptions::default());
            assert!(
                matches!(response_format(&plan), Err(IntegrationError::Target { .. })),
                "{target}"
            );
        }
        assert!(matches!(
            response_format(&json_mode(Target::OpenAi)),
            Err(IntegrationError::PromptMode { .. })
        ));
    }
}
