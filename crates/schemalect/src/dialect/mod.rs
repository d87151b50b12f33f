//! Provider dialects: one module per provider family, each a widening lowering described by a
//! capability table (see [`caps`]).

pub mod caps;
mod claude;
mod closed;
mod emit;
mod normalize;
mod ollama;
mod openai;
mod simple_regex;

use crate::ir::Schema;
use crate::lower::{Loss, LowerOptions, Mode, Target};
use crate::value::{JsonType, TypeSet};
use serde_json::Value;

pub use caps::Capabilities;

/// What a dialect produced: the lowering without its schema handle.
pub(crate) struct Outcome {
    pub mode: Mode,
    pub wire: Value,
    pub losses: Vec<Loss>,
}

/// The capability table of a target.
pub fn capabilities(target: Target) -> Option<&'static Capabilities> {
    match target {
        Target::Ollama => Some(&ollama::CAPABILITIES),
        Target::OpenAi | Target::Groq | Target::Mistral | Target::OpenRouter => {
            Some(openai::table(target))
        }
        Target::Claude => Some(&claude::CLAUDE),
        Target::ClaudeNative => Some(&claude::CLAUDE_NATIVE),
        _ => None,
    }
}

/// Lowers `schema` for `target`.
pub(crate) fn lower(schema: &Schema, target: Target, options: &LowerOptions) -> Outcome {
    match target {
        Target::Ollama => ollama::lower(schema, options),
        Target::OpenAi | Target::Groq | Target::Mistral | Target::OpenRouter => {
            openai::lower(schema, target, options)
        }
        Target::Claude => claude::lower_tool(schema, options),
        Target::ClaudeNative => claude::lower_native(schema, options),
        _ => Outcome {
            mode: Mode::Prompt,
            wire: Value::Object(serde_json::Map::new()),
            losses: vec![Loss::new(
                &crate::Pointer::root(),
                "",
                "no native lowering for this target yet; the prompt and local validation carry the schema",
            )],
        },
    }
}

/// True when every value the schema accepts is an object, so an object-only JSON mode
/// (OpenAI `json_object`, Ollama `"json"`) cannot narrow.
pub(crate) fn json_mode_allowed(schema: &Schema) -> bool {
    let t = normalize::admitted(schema, schema.root());
    !t.is_empty() && t.intersect(TypeSet::of(JsonType::Object)) == t
}
