//! [async-openai](https://docs.rs/async-openai) request types from an OpenAI-family lowering
//! (feature `async-openai`, types only: no HTTP client is pulled in).
//!
//! - [`response_format`]: Chat Completions `response_format` (strict `json_schema`, or
//!   `json_object` in JSON mode) for `openai`, `groq`, `mistral` and `openrouter` lowerings;
//! - [`forced_tool`]: the same strict schema as one function tool the model is forced to call
//!   (an `openai` lowering: OpenAI documents one strict subset for `response_format` and
//!   function parameters); the answer is the call's `arguments` text;
//! - [`text`]: the Responses API `text` (`text.format`) for an `openai-responses` lowering.
//!
//! OpenRouter's `provider.require_parameters` has no place in async-openai's request type: it is
//! listed in [`Converted::left_out`] (without it OpenRouter may route to an upstream that ignores
//! `response_format`; the answer is still validated).

use super::{check, dropped, member, optional_string, other_members, string, to_json};
use super::{Converted, IntegrationError};
use crate::{Lowering, Target};
use async_openai::types::chat::{
    ChatCompletionNamedToolChoice, ChatCompletionTool, ChatCompletionToolChoiceOption,
    ChatCompletionTools, FunctionName, FunctionObject, ResponseFormat, ResponseFormatJsonSchema,
};
use async_openai::types::responses::{ResponseTextParam, TextResponseFormatConfiguration};
use serde_json::Value;

const RESPONSE_FORMAT: &str = "async-openai `ResponseFormat`";
const TOOL: &str = "async-openai `ChatCompletionTool`";
const TEXT: &str = "async-openai `ResponseTextParam`";

const NO_PROVIDER: &str = "async-openai's `CreateChatCompletionRequest` has no member for it: \
    without `provider.require_parameters` OpenRouter may route to an upstream that ignores \
    `response_format` (`accept` still validates the answer)";

/// The `response_format` of an `openai`, `groq`, `mistral` or `openrouter` lowering.
///
/// # Errors
/// [`IntegrationError::Target`] for a lowering of another target, [`IntegrationError::PromptMode`]
/// when the lowering sends nothing native.
pub fn response_format(lowering: &Lowering) -> Result<Converted<ResponseFormat>, IntegrationError> {
    check(
        lowering,
        RESPONSE_FORMAT,
        "`openai`, `groq`, `mistral` or `openrouter`",
        Target::is_openai_family,
    )?;
    let value = match string(lowering, "/response_format/type")?.as_str() {
        "json_object" => ResponseFormat::JsonObject,
        "json_schema" => ResponseFormat::JsonSchema {
            json_schema: json_schema(lowering, "/response_format/json_schema")?,
        },
        _ => return Err(unexpected(lowering, "/response_format/type")),
    };
    let mut out = Converted::new(value);
    dropped(
        member(lowering, "/response_format")?,
        &to_json(RESPONSE_FORMAT, &out.value)?,
        "/response_format",
        &mut out.left_out,
    );
    out.left_out
        .extend(other_members(lowering, &["response_format"], NO_PROVIDER));
    Ok(out)
}

/// A forced function tool: the tool and the `tool_choice` that forces it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ForcedTool {
    /// The function tool (`tools` holds it, alone or beside yours).
    pub tool: ChatCompletionTools,
    /// `{"type": "function", "function": {"name": …}}`.
    pub tool_choice: ChatCompletionToolChoiceOption,
}

/// The schema of a native `openai` lowering as one strict function tool the model is forced to
/// call, for code that reads answers from tool calls. Pass the call's `function.arguments`
/// (text) to [`Lowering::accept`].
///
/// # Errors
/// [`IntegrationError::Target`] unless the lowering is for `openai`,
/// [`IntegrationError::NoSchema`] when it sends only JSON mode, [`IntegrationError::PromptMode`]
/// when it sends nothing native.
pub fn forced_tool(lowering: &Lowering) -> Result<Converted<ForcedTool>, IntegrationError> {
    check(lowering, TOOL, "`openai`", |t| t == Target::OpenAi)?;
    if lowering
        .wire()
        .pointer("/response_format/json_schema")
        .is_none()
    {
        return Err(IntegrationError::NoSchema {
            integration: TOOL,
            target: lowering.target(),
        });
    }
    let spec = json_schema(lowering, "/response_format/json_schema")?;
    let tool_choice = ChatCompletionToolChoiceOption::Function(ChatCompletionNamedToolChoice {
        function: FunctionName {
            name: spec.name.clone(),
        },
    });
    let tool = ChatCompletionTools::Function(ChatCompletionTool {
        function: FunctionObject {
            name: spec.name,
            description: spec.description,
            parameters: Some(spec.schema),
            strict: spec.strict,
        },
    });
    Ok(Converted::new(ForcedTool { tool, tool_choice }))
}

/// The Responses API `text` (its `format`) of an `openai-responses` lowering.
///
/// # Errors
/// [`IntegrationError::Target`] unless the lowering is for `openai-responses`,
/// [`IntegrationError::PromptMode`] when it sends nothing native.
pub fn text(lowering: &Lowering) -> Result<Converted<ResponseTextParam>, IntegrationError> {
    check(lowering, TEXT, "`openai-responses`", |t| {
        t == Target::OpenAiResponses
    })?;
    let format = match string(lowering, "/text/format/type")?.as_str() {
        "json_object" => TextResponseFormatConfiguration::JsonObject,
        "json_schema" => {
            TextResponseFormatConfiguration::JsonSchema(json_schema(lowering, "/text/format")?)
        }
        _ => return Err(unexpected(lowering, "/text/format/type")),
    };
    let mut out = Converted::new(ResponseTextParam {
        format,
        verbosity: None,
    });
    dropped(
        member(lowering, "/text")?,
        &to_json(TEXT, &out.value)?,
        "/text",
        &mut out.left_out,
    );
    Ok(out)
}

/// `{name, description?, schema, strict?}` at `pointer`.
fn json_schema(
    lowering: &Lowering,
    pointer: &str,
) -> Result<ResponseFormatJsonSchema, IntegrationError> {
    Ok(ResponseFormatJsonSchema {
        name: string(lowering, &format!("{pointer}/name"))?,
        description: optional_string(lowering, &format!("{pointer}/description")),
        schema: member(lowering, &format!("{pointer}/schema"))?.clone(),
        strict: lowering
            .wire()
            .pointer(&format!("{pointer}/strict"))
            .and_then(Value::as_bool),
    })
}

fn unexpected(lowering: &Lowering, pointer: &str) -> IntegrationError {
    IntegrationError::Wire {
        target: lowering.target(),
        pointer: pointer.to_owned(),
        expected: "`json_object` or `json_schema`",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{json_mode, LowerOptions, Mode, Profile, Schema};
    use serde_json::json;

    /// Every property required, closed: the strict subset takes it as it is.
    fn city() -> Schema {
        Schema::parse(&json!({
            "description": "A city.",
            "type": "object",
            "properties": {"city": {"type": "string"}, "n": {"type": "integer", "minimum": 0}},
            "required": ["city", "n"],
            "additionalProperties": false
        }))
        .unwrap()
    }

    fn optional() -> Schema {
        Schema::parse(&json!({
            "type": "object",
            "properties": {"city": {"type": "string"}, "n": {"type": "integer"}},
            "required": ["city"]
        }))
        .unwrap()
    }

    #[test]
    fn the_response_format_serializes_to_the_wire() {
        for target in [Target::OpenAi, Target::Groq, Target::Mistral] {
            let options = LowerOptions::default().with_groq_strict(true);
            let plan = city().lower(target, &options);
            // Groq's strict subset takes no `minimum`: widened, still `json_schema`.
            assert!(plan.mode() <= Mode::Widened, "{target}");
            let got = response_format(&plan).unwrap();
            assert!(got.left_out.is_empty(), "{target}: {:?}", got.left_out);
            assert!(
                matches!(got.value, ResponseFormat::JsonSchema { .. }),
                "{target}"
            );
            assert_eq!(
                json!({"response_format": got.value}),
                *plan.wire(),
                "{target}"
            );
        }
    }

    #[test]
    fn the_strict_schema_is_sent_as_written() {
        let plan = city().lower(Target::OpenAi, &LowerOptions::default());
        let got = response_format(&plan).unwrap().value;
        let ResponseFormat::JsonSchema { json_schema } = got else {
            panic!("not json_schema: {got:?}");
        };
        assert_eq!(json_schema.strict, Some(true));
        assert_eq!(json_schema.name, "response");
        assert_eq!(json_schema.description.as_deref(), Some("A city."));
        assert_eq!(json_schema.schema["required"], json!(["city", "n"]));
    }

    #[test]
    fn json_mode_is_json_object() {
        let plan = optional().lower(Target::OpenAi, &LowerOptions::default());
        assert_eq!(plan.mode(), Mode::Json);
        let got = response_format(&plan).unwrap();
        assert_eq!(got.value, ResponseFormat::JsonObject);
        assert_eq!(
            to_json(RESPONSE_FORMAT, &got.value).unwrap(),
            json!({"type": "json_object"})
        );
    }

    #[test]
    fn the_reshaping_profile_reaches_strict() {
        let options = LowerOptions::default().with_profile(Profile::Reshaping);
        let plan = optional().lower(Target::OpenAi, &options);
        assert!(plan.mode() <= Mode::Widened);
        let got = response_format(&plan).unwrap();
        assert_eq!(json!({"response_format": got.value}), *plan.wire());
    }

    #[test]
    fn openrouter_provider_is_left_out_and_said() {
        let plan = city().lower(Target::OpenRouter, &LowerOptions::default());
        let got = response_format(&plan).unwrap();
        assert_eq!(got.left_out.len(), 1, "{:?}", got.left_out);
        assert_eq!(got.left_out[0].pointer, "/provider");
        assert_eq!(got.left_out[0].value, json!({"require_parameters": true}));
        assert_eq!(
            json!(got.value),
            plan.wire()["response_format"],
            "the format itself is whole"
        );
    }

    #[test]
    fn the_forced_tool_carries_the_strict_schema() {
        let plan = city().lower(Target::OpenAi, &LowerOptions::default().with_name("report"));
        let got = forced_tool(&plan).unwrap();
        assert!(got.left_out.is_empty());
        let spec = &plan.wire()["response_format"]["json_schema"];
        assert_eq!(
            to_json(TOOL, &got.value.tool).unwrap(),
            json!({"type": "function", "function": {
                "name": "report",
                "description": spec["description"],
                "parameters": spec["schema"],
                "strict": true
            }})
        );
        assert_eq!(
            to_json(TOOL, &got.value.tool_choice).unwrap(),
            json!({"type": "function", "function": {"name": "report"}})
        );
    }

    #[test]
    fn the_forced_tool_needs_a_schema() {
        let plan = optional().lower(Target::OpenAi, &LowerOptions::default());
        assert!(matches!(
            forced_tool(&plan),
            Err(IntegrationError::NoSchema { .. })
        ));
        let plan = city().lower(Target::Mistral, &LowerOptions::default());
        assert!(matches!(
            forced_tool(&plan),
            Err(IntegrationError::Target { .. })
        ));
    }

    #[test]
    fn the_responses_text_serializes_to_the_wire() {
        for schema in [city(), optional()] {
            let plan = schema.lower(Target::OpenAiResponses, &LowerOptions::default());
            let got = text(&plan).unwrap();
            assert!(got.left_out.is_empty());
            assert_eq!(json!({"text": got.value}), *plan.wire());
        }
    }

    #[test]
    fn other_targets_and_prompt_mode_are_errors() {
        let plan = city().lower(Target::Gemini, &LowerOptions::default());
        let err = response_format(&plan).unwrap_err();
        assert!(matches!(
            err,
            IntegrationError::Target {
                target: Target::Gemini,
                ..
            }
        ));
        assert!(err.to_string().contains("`gemini`"), "{err}");
        assert!(text(&city().lower(Target::OpenAi, &LowerOptions::default())).is_err());
        let plan = json_mode(Target::OpenAi);
        assert!(matches!(
            response_format(&plan),
            Err(IntegrationError::PromptMode { .. })
        ));
    }
}
