//! The providers a schema can be lowered for. Named by the dialects, which lower for each, and
//! by [`crate::lower`], which re-exports [`Target`]: kept below both.

use std::fmt;
use std::str::FromStr;

/// A provider dialect.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Target {
    /// OpenAI Chat Completions `response_format` (strict `json_schema`, else `json_object`).
    OpenAi,
    /// Groq's OpenAI-compatible `response_format`; strict only on models that support it.
    Groq,
    /// Mistral's `response_format` (rejects `$id`/`$schema`).
    Mistral,
    /// OpenRouter's pass-through `response_format`, with `provider.require_parameters`.
    OpenRouter,
    /// Gemini `generationConfig.responseSchema` (the OpenAPI-subset `Schema`).
    Gemini,
    /// Gemini `generationConfig.responseJsonSchema` (the JSON-Schema dialect).
    GeminiJson,
    /// Ollama `format`.
    Ollama,
    /// Claude: one forced tool whose `input_schema` is the schema.
    Claude,
    /// Claude `output_config.format` (constrained JSON outputs).
    ClaudeNative,
    /// OpenAI Responses API `text.format` (strict `json_schema`, else `json_object`): the same
    /// accepted subset as Chat Completions, another wire shape.
    OpenAiResponses,
    /// Claude on Amazon Bedrock's Converse API: one forced tool in `toolConfig` (Bedrock
    /// refuses Claude's `output_config.format` for recent models).
    BedrockClaude,
    /// Gemini Interactions API `response_format` (a `{type: "text", mime_type, schema}` entry).
    GeminiInteractions,
    /// Vertex AI Gemini `generationConfig.responseSchema` (Vertex's OpenAPI-subset `Schema`).
    VertexGemini,
    /// Ollama `format` for MLX models, whose converter is xgrammar (Ollama PR #17929): objects
    /// and arrays closed unless they say otherwise, `allOf` never sent.
    OllamaMlx,
    /// llama.cpp's own `llama-server`: OpenAI-compatible `response_format` `json_schema`,
    /// converted by llama.cpp's `json-schema-to-grammar` (the converter `ollama` models).
    LlamaServer,
}

impl Target {
    /// Every target, in the order reports list them.
    pub const ALL: [Target; 15] = [
        Target::OpenAi,
        Target::Groq,
        Target::Mistral,
        Target::OpenRouter,
        Target::Gemini,
        Target::GeminiJson,
        Target::Ollama,
        Target::Claude,
        Target::ClaudeNative,
        Target::OpenAiResponses,
        Target::BedrockClaude,
        Target::GeminiInteractions,
        Target::VertexGemini,
        Target::OllamaMlx,
        Target::LlamaServer,
    ];

    /// The name used on the command line and in reports.
    pub const fn name(self) -> &'static str {
        match self {
            Target::OpenAi => "openai",
            Target::Groq => "groq",
            Target::Mistral => "mistral",
            Target::OpenRouter => "openrouter",
            Target::Gemini => "gemini",
            Target::GeminiJson => "gemini-json",
            Target::Ollama => "ollama",
            Target::Claude => "claude",
            Target::ClaudeNative => "claude-native",
            Target::OpenAiResponses => "openai-responses",
            Target::BedrockClaude => "bedrock-claude",
            Target::GeminiInteractions => "gemini-interactions",
            Target::VertexGemini => "vertex-gemini",
            Target::OllamaMlx => "ollama-mlx",
            Target::LlamaServer => "llama-server",
        }
    }

    /// Parses a target name.
    pub fn from_name(name: &str) -> Option<Target> {
        Target::ALL.into_iter().find(|t| t.name() == name)
    }

    /// True for the OpenAI-compatible family (same `response_format` wire shape).
    pub fn is_openai_family(self) -> bool {
        matches!(
            self,
            Target::OpenAi | Target::Groq | Target::Mistral | Target::OpenRouter
        )
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An unknown target name.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown target `{0}`; expected one of: openai, groq, mistral, openrouter, gemini, gemini-json, ollama, claude, claude-native, openai-responses, bedrock-claude, gemini-interactions, vertex-gemini, ollama-mlx, llama-server")]
pub struct UnknownTarget(pub String);

impl FromStr for Target {
    type Err = UnknownTarget;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Target::from_name(s).ok_or_else(|| UnknownTarget(s.to_owned()))
    }
}
