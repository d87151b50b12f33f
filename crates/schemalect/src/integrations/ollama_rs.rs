//! [ollama-rs](https://docs.rs/ollama-rs) `FormatType` from an `ollama` lowering (feature
//! `ollama-rs`).
//!
//! ollama-rs sends a `FormatType` as the request's `format` verbatim: `"json"`, or the schema
//! of a `JsonStructure`. Its own `JsonStructure::new::<T>()` sends schemars' draft-07 output as
//! it is, which llama.cpp's converter reads with its own rules (objects closed unless they say
//! otherwise, some keywords dropped); the schema of an `ollama` lowering has been fitted to that
//! converter, widening only, so it is the one to send.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use ollama_rs::generation::chat::{request::ChatMessageRequest, ChatMessage};
//! use schemalect::integrations::ollama_rs::format;
//! use schemalect::{LowerOptions, Schema, Target};
//! use serde_json::json;
//!
//! let schema = Schema::parse(&json!({
//!     "type": "object",
//!     "properties": {"city": {"type": "string"}},
//!     "required": ["city"]
//! }))?;
//! let plan = schema.lower(Target::Ollama, &LowerOptions::default());
//! let request = ChatMessageRequest::new("llama3.2".into(), vec![ChatMessage::user("Capital of France?".into())])
//!     .format(format(&plan)?.into_value());
//! assert_eq!(serde_json::to_value(&request)?["format"], plan.wire()["format"]);
//! // ... send it; then `plan.accept(&response.message.content)`.
//! # Ok(()) }
//! ```

use super::{check, member, to_json, Converted, IntegrationError};
use crate::{Lowering, Target};
use ollama_rs::generation::parameters::{FormatType, JsonStructure};
use serde_json::Value;

const FORMAT: &str = "ollama-rs `FormatType`";

/// The `format` of an `ollama` or `ollama-mlx` lowering (one wire, two converters): [`FormatType::StructuredJson`] with the lowering's
/// schema, or [`FormatType::Json`] in JSON mode. ollama-rs carries the whole fragment, so
/// [`Converted::left_out`] is empty.
///
/// # Errors
/// [`IntegrationError::Target`] unless the lowering is for `ollama` or `ollama-mlx`,
/// [`IntegrationError::PromptMode`] when it sends nothing native.
pub fn format(lowering: &Lowering) -> Result<Converted<FormatType>, IntegrationError> {
    check(lowering, FORMAT, "`ollama` or `ollama-mlx`", |t| {
        matches!(t, Target::Ollama | Target::OllamaMlx)
    })?;
    let value = match member(lowering, "/format")? {
        Value::String(s) if s == "json" => FormatType::Json,
        schema @ Value::Object(_) => {
            let schema = schemars::Schema::try_from(schema.clone()).map_err(|e| {
                IntegrationError::Crate {
                    integration: FORMAT,
                    message: e.to_string(),
                }
            })?;
            FormatType::StructuredJson(Box::new(JsonStructure::new_for_schema(schema)))
        }
        _ => {
            return Err(IntegrationError::Wire {
                target: lowering.target(),
                pointer: "/format".to_owned(),
                expected: "`\"json\"` or a schema object",
            })
        }
    };
    let mut out = Converted::new(value);
    let built = serde_json::json!({"format": to_json(FORMAT, &out.value)?});
    super::dropped(lowering.wire(), &built, "", &mut out.left_out);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{json_mode, LowerOptions, Mode, Schema};
    use serde_json::json;

    fn lower(schema: Value) -> Lowering {
        Schema::parse(&schema)
            .unwrap()
            .lower(Target::Ollama, &LowerOptions::default())
    }

    #[test]
    fn the_schema_is_sent_as_the_lowering_writes_it() {
        let plan = lower(json!({
            "type": "object",
            "properties": {
                "city": {"type": "string", "minLength": 1},
                "tags": {"type": "array", "items": {"enum": ["a", "b"]}, "maxItems": 3}
            },
            "required": ["city"]
        }));
        assert!(plan.mode() <= Mode::Widened);
        let got = format(&plan).unwrap();
        assert!(got.left_out.is_empty(), "{:?}", got.left_out);
        assert!(matches!(got.value, FormatType::StructuredJson(_)));
        // Serialized by ollama-rs, compared with the fragment's `format` member by member.
        assert_eq!(json!({"format": got.value}), *plan.wire());
        // Open objects stay open: llama.cpp would close an object that does not say so.
        assert_eq!(
            serde_json::to_value(&got.value).unwrap()["additionalProperties"],
            plan.wire()["format"]["additionalProperties"]
        );
    }

    #[test]
    fn json_mode_is_the_string_json() {
        let plan = lower(json!({"type": "object", "properties": {"$ref": {"type": "string"}}}));
        assert_eq!(plan.mode(), Mode::Json);
        let got = format(&plan).unwrap();
        assert!(matches!(got.value, FormatType::Json));
        assert_eq!(serde_json::to_value(&got.value).unwrap(), json!("json"));
    }

    #[test]
    fn another_target_is_an_error() {
        let schema = Schema::parse(&json!({"type": "object"})).unwrap();
        for target in [
            Target::Gemini,
            Target::OpenAi,
            Target::Claude,
            Target::LlamaServer,
        ] {
            let plan = schema.lower(target, &LowerOptions::default());
            let err = format(&plan).unwrap_err();
            assert_eq!(
                err,
                IntegrationError::Target {
                    integration: FORMAT,
                    target,
                    accepted: "`ollama` or `ollama-mlx`"
                }
            );
        }
        assert!(matches!(
            format(&json_mode(Target::Ollama)),
            Err(IntegrationError::PromptMode { .. })
        ));
    }
}
