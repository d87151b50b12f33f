//! [rig](https://docs.rs/rig-core) (crate `rig-core`): a schema from rig's `schemars::Schema`,
//! and the two things rig's providers take from a lowering (feature `rig`, which turns on
//! `schemars` too).
//!
//! rig 0.44 depends on schemars 1, as schemalect does, so `rig::schemars::Schema` is the very
//! type [`derive::from_schemars`](crate::derive::from_schemars) maps: [`schema_from`] and
//! [`lower`] take it without a detour through JSON text.
//!
//! - [`output_schema`]: the schema for `CompletionRequestBuilder::output_schema`. rig's providers
//!   send it as OpenAI `response_format` (strict, named after the schema's `title` or
//!   `response_schema`, no description), Responses `text.format`, Ollama `format`, Gemini
//!   `responseJsonSchema` or Claude `output_config.format`: lower for `openai`,
//!   `openai-responses`, `ollama`, `gemini-json` or `claude-native` respectively. rig runs a
//!   sanitizer of its own on the OpenAI and Anthropic schemas (it removes siblings of `$ref` and
//!   adds missing `properties`); a lowering writes neither, so it has nothing to change.
//! - [`forced_tool`]: a `claude` lowering as a `ToolDefinition` and the `ToolChoice` that forces
//!   it; the answer is the tool call's arguments (a [`serde_json::Value`]).

use super::{check, member, optional_string, string, to_json, Converted, IntegrationError};
use super::{left_out_at, LeftOut};
use crate::derive::DeriveError;
use crate::{LowerOptions, Lowering, Schema, Target};
use rig::completion::ToolDefinition;
use rig::message::{ToolChoice, ToolName};
use serde_json::Value;
use std::borrow::Cow;

const OUTPUT: &str = "rig `output_schema`";
const TOOL: &str = "rig `ToolDefinition`";

/// The name errors give the schema (rig's schemas come from any type).
const TYPE_NAME: &str = "rig::schemars::Schema";

const OPENAI_NAME: &str = "rig names the format after the schema's `title` (else \
    `response_schema`) and sends no description: only the format's label differs, nothing is \
    enforced less";
const NO_STRICT: &str = "rig's `ToolDefinition` has no `strict`: Claude treats the schema as \
    guidance rather than decoding it strictly, so the input may break it (`accept` still \
    validates the answer)";

/// The subset schema of a `schemars::Schema` built for rig (e.g. by `schemars::schema_for!`),
/// mapped as [`derive::from_schemars`](crate::derive::from_schemars) maps one.
///
/// # Errors
/// A [`DeriveError`] listing every part outside the subset.
pub fn schema_from(schema: &rig::schemars::Schema) -> Result<Schema, DeriveError> {
    crate::derive::from_schemars(schema, TYPE_NAME)
}

/// [`schema_from`], lowered for `target`.
///
/// # Errors
/// As [`schema_from`].
pub fn lower(
    schema: &rig::schemars::Schema,
    target: Target,
    options: &LowerOptions,
) -> Result<Lowering, DeriveError> {
    Ok(schema_from(schema)?.lower(target, options))
}

/// The schema a native lowering sends, for rig's `output_schema`.
///
/// # Errors
/// [`IntegrationError::Target`] unless the lowering is for `openai`, `openai-responses`,
/// `ollama`, `ollama-mlx`, `gemini-json` or `claude-native`; [`IntegrationError::NoSchema`] in JSON mode
/// (rig's `output_schema` is a schema or nothing); [`IntegrationError::PromptMode`] when the
/// lowering sends nothing native; [`IntegrationError::Stronger`] for a non-strict OpenAI
/// `json_schema` (rig would send it strict).
pub fn output_schema(
    lowering: &Lowering,
) -> Result<Converted<rig::schemars::Schema>, IntegrationError> {
    check(
        lowering,
        OUTPUT,
        "`openai`, `openai-responses`, `ollama`, `ollama-mlx`, `gemini-json` or `claude-native`",
        |t| {
            matches!(
                t,
                Target::OpenAi
                    | Target::OpenAiResponses
                    | Target::Ollama
                    | Target::OllamaMlx
                    | Target::GeminiJson
                    | Target::ClaudeNative
            )
        },
    )?;
    let no_schema = || IntegrationError::NoSchema {
        integration: OUTPUT,
        target: lowering.target(),
    };
    let mut left_out = Vec::new();
    let schema = match lowering.target() {
        Target::OpenAi | Target::OpenAiResponses => {
            let spec = if lowering.target() == Target::OpenAi {
                "/response_format/json_schema"
            } else {
                "/text/format"
            };
            if lowering.wire().pointer(&format!("{spec}/schema")).is_none() {
                return Err(no_schema());
            }
            if lowering
                .wire()
                .pointer(&format!("{spec}/strict"))
                .and_then(Value::as_bool)
                != Some(true)
            {
                return Err(IntegrationError::Stronger {
                    integration: OUTPUT,
                    what: "a `json_schema` that is not strict",
                    why: "rig's OpenAI provider always sends `strict: true`",
                });
            }
            let title = lowering
                .wire()
                .pointer(&format!("{spec}/schema/title"))
                .and_then(Value::as_str)
                .unwrap_or("response_schema");
            if string(lowering, &format!("{spec}/name"))? != title {
                left_out.extend(left_out_at(lowering, &format!("{spec}/name"), OPENAI_NAME));
            }
            left_out.extend(left_out_at(
                lowering,
                &format!("{spec}/description"),
                OPENAI_NAME,
            ));
            member(lowering, &format!("{spec}/schema"))?
        }
        Target::Ollama | Target::OllamaMlx => match member(lowering, "/format")? {
            schema @ Value::Object(_) => schema,
            _ => return Err(no_schema()),
        },
        Target::GeminiJson => lowering
            .wire()
            .pointer("/generationConfig/responseJsonSchema")
            .ok_or_else(no_schema)?,
        _ => member(lowering, "/output_config/format/schema")?,
    };
    let schema =
        rig::schemars::Schema::try_from(schema.clone()).map_err(|e| IntegrationError::Crate {
            integration: OUTPUT,
            message: e.to_string(),
        })?;
    Ok(Converted {
        value: schema,
        left_out,
    })
}

/// A forced tool for rig: its definition and the choice that forces it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ForcedTool {
    /// For `CompletionRequestBuilder::tool`.
    pub definition: ToolDefinition,
    /// For `CompletionRequestBuilder::tool_choice`: `Specific` with the tool's name.
    pub choice: ToolChoice,
}

/// The forced tool of a `claude` lowering, for rig's Anthropic provider.
///
/// # Errors
/// [`IntegrationError::Target`] unless the lowering is for `claude`,
/// [`IntegrationError::PromptMode`] when it sends nothing native.
pub fn forced_tool(lowering: &Lowering) -> Result<Converted<ForcedTool>, IntegrationError> {
    check(lowering, TOOL, "`claude`", |t| t == Target::Claude)?;
    let name = string(lowering, "/tools/0/name")?;
    let name = ToolName::new(name).map_err(|e| IntegrationError::Crate {
        integration: TOOL,
        message: e.to_string(),
    })?;
    let definition = ToolDefinition::new(
        name.clone(),
        optional_string(lowering, "/tools/0/description").unwrap_or_default(),
        member(lowering, "/tools/0/input_schema")?.clone(),
    );
    let mut left_out: Vec<LeftOut> = Vec::new();
    left_out.extend(left_out_at(lowering, "/tools/0/strict", NO_STRICT));
    // Anything else of the tool that the definition does not hold (none today).
    let built = to_json(TOOL, &definition)?;
    if let Some(Value::Object(tool)) = lowering.wire().pointer("/tools/0") {
        for (key, value) in tool {
            let held = match key.as_str() {
                "input_schema" => built.get("parameters") == Some(value),
                "strict" => true,
                _ => built.get(key) == Some(value),
            };
            if !held {
                left_out.push(LeftOut {
                    pointer: format!("/tools/0/{}", super::escape(key)),
                    value: value.clone(),
                    reason: Cow::Borrowed("rig's `ToolDefinition` does not carry it"),
                });
            }
        }
    }
    Ok(Converted {
        value: ForcedTool {
            definition,
            choice: ToolChoice::Specific {
                function_names: vec![name],
            },
        },
        left_out,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{json_mode, Mode};
    use rig::schemars::{self, JsonSchema};
    use serde_json::json;

    #[allow(dead_code)]
    #[derive(JsonSchema)]
    /// A city.
    struct City {
        name: String,
        population: Option<u32>,
        kind: Kind,
    }

    #[allow(dead_code)]
    #[derive(JsonSchema)]
    enum Kind {
        Capital,
        Other,
    }

    #[test]
    fn a_schemars_schema_from_rig_is_read() {
        let generated = schemars::schema_for!(City);
        let schema = schema_from(&generated).unwrap();
        assert!(schema.is_valid(&json!({"name": "Paris", "population": null, "kind": "Capital"})));
        assert!(!schema.is_valid(&json!({"name": "Paris", "kind": "Village"})));
        let plan = lower(&generated, Target::Ollama, &LowerOptions::default()).unwrap();
        assert_eq!(plan.target(), Target::Ollama);
    }

    #[test]
    fn output_schema_is_the_wire_schema() {
        let schema = Schema::parse(&json!({
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
            "additionalProperties": false
        }))
        .unwrap();
        for (target, at) in [
            (Target::OpenAi, "/response_format/json_schema/schema"),
            (Target::OpenAiResponses, "/text/format/schema"),
            (Target::Ollama, "/format"),
            (Target::GeminiJson, "/generationConfig/responseJsonSchema"),
            (Target::ClaudeNative, "/output_config/format/schema"),
        ] {
            let plan = schema.lower(target, &LowerOptions::default());
            let got = output_schema(&plan).unwrap();
            assert_eq!(
                serde_json::to_value(&got.value).unwrap(),
                *plan.wire().pointer(at).unwrap(),
                "{target}"
            );
            let pointers: Vec<&str> = got.left_out.iter().map(|l| l.pointer.as_str()).collect();
            match target {
                // `response` is not `response_schema`: rig labels the format its own way.
                Target::OpenAi => assert_eq!(pointers, ["/response_format/json_schema/name"]),
                Target::OpenAiResponses => assert_eq!(pointers, ["/text/format/name"]),
                _ => assert!(pointers.is_empty(), "{target}: {pointers:?}"),
            }
        }
    }

    #[test]
    fn json_mode_and_other_targets_are_errors() {
        let open = Schema::parse(&json!({
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"]
        }))
        .unwrap();
        let plan = open.lower(Target::OpenAi, &LowerOptions::default());
        assert_eq!(plan.mode(), Mode::Json);
        assert!(matches!(
            output_schema(&plan),
            Err(IntegrationError::NoSchema { .. })
        ));
        let plan = open.lower(Target::Gemini, &LowerOptions::default());
        assert!(matches!(
            output_schema(&plan),
            Err(IntegrationError::Target { .. })
        ));
        assert!(matches!(
            output_schema(&json_mode(Target::Ollama)),
            Err(IntegrationError::PromptMode { .. })
        ));
        assert!(matches!(
            forced_tool(&open.lower(Target::ClaudeNative, &LowerOptions::default())),
            Err(IntegrationError::Target { .. })
        ));
    }

    #[test]
    fn the_forced_tool_holds_the_claude_tool() {
        let schema = Schema::parse(&json!({
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
            "additionalProperties": false
        }))
        .unwrap();
        let plan = schema.lower(
            Target::Claude,
            &LowerOptions::default().with_name("report_city"),
        );
        let got = forced_tool(&plan).unwrap();
        let tool = &plan.wire()["tools"][0];
        assert_eq!(
            serde_json::to_value(&got.value.definition).unwrap(),
            json!({
                "name": "report_city",
                "description": tool["description"],
                "parameters": tool["input_schema"]
            })
        );
        assert_eq!(
            got.value.choice,
            ToolChoice::Specific {
                function_names: vec![ToolName::new("report_city").unwrap()]
            }
        );
        assert_eq!(plan.wire()["tool_choice"]["name"], "report_city");
        let strict: Vec<&LeftOut> = got
            .left_out
            .iter()
            .filter(|l| l.pointer == "/tools/0/strict")
            .collect();
        assert_eq!(strict.len(), usize::from(tool.get("strict").is_some()));
        assert_eq!(got.left_out.len(), strict.len(), "{:?}", got.left_out);
    }
}
