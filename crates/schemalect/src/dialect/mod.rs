//! Provider dialects: one module per provider family, each a widening lowering described by a
//! capability table (see [`caps`]).

pub mod caps;
mod emit;
pub(crate) mod normalize;
mod ollama;

use crate::ir::Schema;
use crate::lens::reshape::Needs;
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
        _ => None,
    }
}

/// The reshapings a target's dialect needs to reach its strict mode (reshaping profile).
pub(crate) fn reshape_needs(target: Target) -> Needs {
    match target {
        Target::OpenAi | Target::Groq | Target::Mistral | Target::OpenRouter => Needs {
            close_objects: true,
            all_required: true,
            maps_as_entries: true,
            opaque_free_objects: true,
            envelope_root: true,
        },
        Target::Claude | Target::ClaudeNative => Needs {
            close_objects: true,
            all_required: false,
            maps_as_entries: true,
            opaque_free_objects: true,
            envelope_root: true,
        },
        Target::Gemini => Needs {
            maps_as_entries: true,
            opaque_free_objects: true,
            ..Needs::default()
        },
        // Both speak JSON Schema with explicit `additionalProperties`: nothing to reshape.
        Target::GeminiJson | Target::Ollama => Needs::default(),
    }
}

/// Lowers `schema` for `target`.
pub(crate) fn lower(schema: &Schema, target: Target, options: &LowerOptions) -> Outcome {
    match target {
        Target::Ollama => ollama::lower(schema, options),
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
