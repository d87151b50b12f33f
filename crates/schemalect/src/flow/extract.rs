//! Reading the answer out of a provider's response body, per target.
//!
//! Where the answer is not plain text, or the provider can stop without a complete answer, the
//! body says so in a provider-specific place: OpenAI's `message.refusal` and `finish_reason`,
//! Gemini's `finishReason` and `promptFeedback.blockReason`, Ollama's `done_reason`, Claude's
//! `stop_reason` and its `tool_use` block. Those become typed [`ExtractError`]s rather than a
//! decode failure, because a repair round cannot fix a refusal or a token limit.
//!
//! The per-provider facts live in one table (`FAMILIES`): where the stop reason is, which
//! values mean a complete answer, a truncated one or a refusal, and how to read the answer.

use crate::lower::{Answer, Target};
use serde_json::Value;
use std::borrow::Cow;

/// The answer read from a response body, ready for [`Lowering::accept`](crate::Lowering::accept)
/// (through [`Reply::answer`]).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Reply {
    /// Message text (OpenAI-compatible, Gemini, Ollama, Claude text blocks).
    Text(String),
    /// An already-decoded value the caller supplied.
    Value(Value),
    /// Claude's forced tool call: its `input` is the answer. The `id` is needed to answer the
    /// call in a repair round (a `tool_result` block must follow a `tool_use` block).
    ToolUse {
        /// The `tool_use` block's id (`toolu_…`).
        id: String,
        /// The tool's name.
        name: String,
        /// The tool input: the answer.
        input: Value,
    },
}

impl Reply {
    /// The answer, as [`Lowering::accept`](crate::Lowering::accept) takes it.
    pub fn answer(&self) -> Answer<'_> {
        match self {
            Reply::Text(t) => Answer::Text(Cow::Borrowed(t)),
            Reply::Value(v) | Reply::ToolUse { input: v, .. } => Answer::Value(v),
        }
    }

    /// The answer as the model's turn shows it: the text, or the value as compact JSON (for
    /// the assistant turn of a repair round on providers without tool calls).
    pub fn to_text(&self) -> Cow<'_, str> {
        match self {
            Reply::Text(t) => Cow::Borrowed(t),
            Reply::Value(v) | Reply::ToolUse { input: v, .. } => Cow::Owned(v.to_string()),
        }
    }
}

impl From<Answer<'_>> for Reply {
    fn from(a: Answer<'_>) -> Self {
        match a {
            Answer::Text(t) => Reply::Text(t.into_owned()),
            Answer::Value(v) => Reply::Value(v.clone()),
        }
    }
}

/// Why a response body holds no answer to check.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ExtractError {
    /// The body is the provider's error object, not a response.
    #[error("the provider returned an error: {message}")]
    Provider {
        /// The provider's message.
        message: String,
    },
    /// The model refused (OpenAI `message.refusal`, Claude `stop_reason: "refusal"`).
    #[error("the model refused{}", quoted(.text))]
    Refusal {
        /// The refusal text (may be empty).
        text: String,
    },
    /// The answer was cut off by a token limit; the JSON is incomplete.
    #[error("the answer was cut off (`{reason}`); raise the output token limit")]
    Truncated {
        /// The provider's stop reason (`length`, `MAX_TOKENS`, `max_tokens`, …).
        reason: String,
    },
    /// The provider stopped for another reason than a complete answer (OpenAI
    /// `content_filter`, Gemini `SAFETY`/`RECITATION`/…, Claude `pause_turn`, …).
    #[error("the provider stopped with `{finish_reason}` instead of a complete answer")]
    NotStop {
        /// The provider's stop reason.
        finish_reason: String,
    },
    /// Gemini blocked the prompt itself (`promptFeedback.blockReason`), so there is no candidate.
    #[error("the provider blocked the prompt (`{reason}`)")]
    Blocked {
        /// The block reason.
        reason: String,
    },
    /// The request forced a tool, but the response has no `tool_use` block.
    #[error("the response has no call of the tool `{tool}`")]
    NoToolUse {
        /// The tool the request forced.
        tool: String,
    },
    /// The response calls another tool than the one the request forced.
    #[error("the response calls the tool `{found}` instead of `{expected}`")]
    WrongTool {
        /// The tool the request forced.
        expected: String,
        /// The tool called.
        found: String,
    },
    /// The body does not have the provider's response shape.
    #[error("the response body has no {expected} at {at}")]
    Malformed {
        /// Where the answer was expected (a JSON Pointer into the body).
        at: &'static str,
        /// What was expected there.
        expected: &'static str,
    },
}

/// `: "text"`, or nothing for an empty refusal text.
fn quoted(text: &str) -> String {
    if text.is_empty() {
        String::new()
    } else {
        format!(": {text:?}")
    }
}

/// One provider family's response facts.
struct Family {
    /// Where the stop reason is (a JSON Pointer into the body). A missing or `null` stop reason
    /// is not an error: some compatible servers leave it out of complete answers.
    stop_at: &'static str,
    /// Stop reasons of a complete answer.
    complete: &'static [&'static str],
    /// Stop reasons of an answer cut off by a token limit (or a full context window).
    truncated: &'static [&'static str],
    /// Stop reasons of a refusal.
    refused: &'static [&'static str],
    /// Where a refusal text replaces the answer, if the provider has such a field.
    refusal_at: Option<&'static str>,
    /// Where the reason for a blocked prompt is, when there is no stop reason.
    blocked_at: Option<&'static str>,
    /// Reads the answer of a body whose stop reason is complete.
    read: fn(&Value, Option<&str>) -> Result<Reply, ExtractError>,
}

/// OpenAI Chat Completions and its compatible providers (providers.md §1.1, §2; Mistral's
/// `model_length` is its context-window cut-off).
const OPENAI: Family = Family {
    stop_at: "/choices/0/finish_reason",
    complete: &["stop"],
    truncated: &["length", "model_length"],
    refused: &[],
    refusal_at: Some("/choices/0/message/refusal"),
    blocked_at: None,
    read: read_openai,
};

/// Gemini `generateContent` (providers.md §3; `Candidate.FinishReason`).
const GEMINI: Family = Family {
    stop_at: "/candidates/0/finishReason",
    complete: &["STOP"],
    truncated: &["MAX_TOKENS"],
    refused: &[],
    refusal_at: None,
    blocked_at: Some("/promptFeedback/blockReason"),
    read: read_gemini,
};

/// Ollama `/api/chat` (and `/api/generate`) (providers.md §5).
const OLLAMA: Family = Family {
    stop_at: "/done_reason",
    complete: &["stop"],
    truncated: &["length"],
    refused: &[],
    refusal_at: None,
    blocked_at: None,
    read: read_ollama,
};

/// Claude Messages (providers.md §4.1 `stop_reason`, §4.2).
const CLAUDE: Family = Family {
    stop_at: "/stop_reason",
    complete: &["end_turn", "tool_use", "stop_sequence"],
    truncated: &["max_tokens", "model_context_window_exceeded"],
    refused: &["refusal"],
    refusal_at: None,
    blocked_at: None,
    read: read_claude,
};

/// OpenAI Responses API: `status`, and `output[*]` message items whose `output_text` parts
/// hold the answer (a `refusal` part replaces it); `incomplete` is a token or content cut-off.
const RESPONSES: Family = Family {
    stop_at: "/status",
    complete: &["completed"],
    truncated: &["incomplete"],
    refused: &[],
    refusal_at: None,
    blocked_at: None,
    read: read_responses,
};

/// Gemini Interactions API: `status`, and `outputs[*]` entries of type `text`.
const INTERACTIONS: Family = Family {
    stop_at: "/status",
    complete: &["completed"],
    truncated: &["incomplete"],
    refused: &[],
    refusal_at: None,
    blocked_at: None,
    read: read_interactions,
};

/// Bedrock Converse: `stopReason`, and `output.message.content[*]` blocks (`toolUse`, `text`).
const CONVERSE: Family = Family {
    stop_at: "/stopReason",
    complete: &["end_turn", "tool_use", "stop_sequence"],
    truncated: &["max_tokens", "model_context_window_exceeded"],
    refused: &[],
    refusal_at: None,
    blocked_at: None,
    read: read_converse,
};

/// The family of each target.
const FAMILIES: &[(Target, &Family)] = &[
    (Target::OpenAi, &OPENAI),
    (Target::Groq, &OPENAI),
    (Target::Mistral, &OPENAI),
    (Target::OpenRouter, &OPENAI),
    (Target::Gemini, &GEMINI),
    (Target::GeminiJson, &GEMINI),
    (Target::Ollama, &OLLAMA),
    (Target::Claude, &CLAUDE),
    (Target::ClaudeNative, &CLAUDE),
    (Target::OpenAiResponses, &RESPONSES),
    (Target::BedrockClaude, &CONVERSE),
    (Target::GeminiInteractions, &INTERACTIONS),
    (Target::VertexGemini, &GEMINI),
    (Target::OllamaMlx, &OLLAMA),
    // llama-server answers in the OpenAI chat-completion shape.
    (Target::LlamaServer, &OPENAI),
];

/// Reads the answer from `target`'s response body (the whole JSON body of a non-streaming
/// response). `tool` is the tool the request forced (Claude), if any: its `tool_use` input is
/// then the answer.
pub fn reply(target: Target, tool: Option<&str>, body: &Value) -> Result<Reply, ExtractError> {
    if let Some(message) = provider_error(body) {
        return Err(ExtractError::Provider { message });
    }
    // AWS error bodies are `{"message": "…"}` with no `output`.
    if target == Target::BedrockClaude && body.get("output").is_none() {
        if let Some(message) = body.get("message").and_then(Value::as_str) {
            return Err(ExtractError::Provider {
                message: message.to_owned(),
            });
        }
    }
    let family = FAMILIES
        .iter()
        .find(|(t, _)| *t == target)
        .map_or(&OPENAI, |(_, f)| *f);
    if let Some(text) = family
        .refusal_at
        .and_then(|at| body.pointer(at))
        .and_then(Value::as_str)
    {
        return Err(ExtractError::Refusal {
            text: text.to_owned(),
        });
    }
    match body.pointer(family.stop_at) {
        None | Some(Value::Null) => {
            if let Some(reason) = family
                .blocked_at
                .and_then(|at| body.pointer(at))
                .and_then(Value::as_str)
            {
                return Err(ExtractError::Blocked {
                    reason: reason.to_owned(),
                });
            }
        }
        Some(Value::String(reason)) => {
            let reason = reason.as_str();
            if family.refused.contains(&reason) {
                // The refusal's words, where the answer text would be.
                let text = match (family.read)(body, None) {
                    Ok(Reply::Text(t)) => t,
                    _ => String::new(),
                };
                return Err(ExtractError::Refusal { text });
            }
            if family.truncated.contains(&reason) {
                return Err(ExtractError::Truncated {
                    reason: reason.to_owned(),
                });
            }
            if !family.complete.contains(&reason) {
                return Err(ExtractError::NotStop {
                    finish_reason: reason.to_owned(),
                });
            }
        }
        Some(_) => {
            return Err(ExtractError::Malformed {
                at: family.stop_at,
                expected: "string stop reason",
            })
        }
    }
    (family.read)(body, tool)
}

/// The message of an error body: `{"error": {"message": …}}` (OpenAI-compatible, Gemini,
/// Claude's `{"type": "error", "error": {…}}`) or `{"error": "…"}` (Ollama).
fn provider_error(body: &Value) -> Option<String> {
    match body.get("error")? {
        Value::String(s) => Some(s.clone()),
        Value::Object(e) => Some(
            e.get("message")
                .and_then(Value::as_str)
                .map_or_else(|| Value::Object(e.clone()).to_string(), str::to_owned),
        ),
        Value::Null => None,
        other => Some(other.to_string()),
    }
}

/// `choices[0].message.content`: a string, or (Mistral, some compatible servers) a list of
/// chunks whose `text` parts are concatenated.
fn read_openai(body: &Value, _tool: Option<&str>) -> Result<Reply, ExtractError> {
    const AT: &str = "/choices/0/message/content";
    match body.pointer(AT) {
        Some(Value::String(s)) => Ok(Reply::Text(s.clone())),
        Some(Value::Array(chunks)) => {
            let text: String = chunks
                .iter()
                .filter(|c| c.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|c| c.get("text").and_then(Value::as_str))
                .collect();
            Ok(Reply::Text(text))
        }
        _ => Err(ExtractError::Malformed {
            at: AT,
            expected: "message text",
        }),
    }
}

/// `candidates[0].content.parts[*].text`, concatenated, leaving out thought summaries.
fn read_gemini(body: &Value, _tool: Option<&str>) -> Result<Reply, ExtractError> {
    const AT: &str = "/candidates/0/content/parts";
    let parts = body
        .pointer(AT)
        .and_then(Value::as_array)
        .ok_or(ExtractError::Malformed {
            at: AT,
            expected: "list of parts",
        })?;
    let texts: Vec<&str> = parts
        .iter()
        .filter(|p| p.get("thought").and_then(Value::as_bool) != Some(true))
        .filter_map(|p| p.get("text").and_then(Value::as_str))
        .collect();
    if texts.is_empty() {
        return Err(ExtractError::Malformed {
            at: AT,
            expected: "text part",
        });
    }
    Ok(Reply::Text(texts.concat()))
}

/// `message.content` (`/api/chat`), or `response` (`/api/generate`).
fn read_ollama(body: &Value, _tool: Option<&str>) -> Result<Reply, ExtractError> {
    body.pointer("/message/content")
        .or_else(|| body.get("response"))
        .and_then(Value::as_str)
        .map(|s| Reply::Text(s.to_owned()))
        .ok_or(ExtractError::Malformed {
            at: "/message/content",
            expected: "message text",
        })
}

/// The forced tool's `tool_use` block, or the text blocks (`output_config.format` and prompt
/// mode put the JSON there), concatenated.
fn read_claude(body: &Value, tool: Option<&str>) -> Result<Reply, ExtractError> {
    const AT: &str = CLAUDE_TOOL_USE.at;
    let blocks = body
        .get("content")
        .and_then(Value::as_array)
        .ok_or(ExtractError::Malformed {
            at: AT,
            expected: "list of content blocks",
        })?;
    let Some(expected) = tool else {
        return claude_text(body)
            .map(Reply::Text)
            .ok_or(ExtractError::Malformed {
                at: AT,
                expected: "text block",
            });
    };
    let calls = blocks
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_use"));
    forced_tool(calls, expected, &CLAUDE_TOOL_USE)
}

/// How a message spells a tool call: where its blocks are, and the key of the call's id.
struct ToolSpelling {
    at: &'static str,
    id: &'static str,
    no_input: &'static str,
}

/// Claude Messages: `{"type": "tool_use", "id", "name", "input"}` blocks in `content`.
const CLAUDE_TOOL_USE: ToolSpelling = ToolSpelling {
    at: "/content",
    id: "id",
    no_input: "`input` in the tool_use block",
};

/// Bedrock Converse: `{"toolUse": {"toolUseId", "name", "input"}}` blocks.
const CONVERSE_TOOL_USE: ToolSpelling = ToolSpelling {
    at: "/output/message/content",
    id: "toolUseId",
    no_input: "`input` in the toolUse block",
};

/// The call of the forced tool `expected` among `calls`; another tool's call or none at all
/// is an error that names what came instead.
fn forced_tool<'a>(
    calls: impl Iterator<Item = &'a Value>,
    expected: &str,
    spelling: &ToolSpelling,
) -> Result<Reply, ExtractError> {
    let mut other = None;
    for call in calls {
        let name = call.get("name").and_then(Value::as_str).unwrap_or_default();
        if name != expected {
            other.get_or_insert(name);
            continue;
        }
        let id = call
            .get(spelling.id)
            .and_then(Value::as_str)
            .unwrap_or_default();
        let input = call.get("input").ok_or(ExtractError::Malformed {
            at: spelling.at,
            expected: spelling.no_input,
        })?;
        return Ok(Reply::ToolUse {
            id: id.to_owned(),
            name: name.to_owned(),
            input: input.clone(),
        });
    }
    Err(match other {
        Some(found) => ExtractError::WrongTool {
            expected: expected.to_owned(),
            found: found.to_owned(),
        },
        None => ExtractError::NoToolUse {
            tool: expected.to_owned(),
        },
    })
}

/// The `output_text` parts of the Responses API's `message` items, concatenated; a `refusal`
/// part is the model refusing.
fn read_responses(body: &Value, _tool: Option<&str>) -> Result<Reply, ExtractError> {
    const AT: &str = "/output";
    let items = body
        .get("output")
        .and_then(Value::as_array)
        .ok_or(ExtractError::Malformed {
            at: AT,
            expected: "list of output items",
        })?;
    let mut text = String::new();
    let mut found = false;
    let parts = items
        .iter()
        .filter(|i| i.get("type").and_then(Value::as_str) == Some("message"))
        .filter_map(|i| i.get("content").and_then(Value::as_array))
        .flatten();
    for part in parts {
        match part.get("type").and_then(Value::as_str) {
            Some("output_text") => {
                if let Some(t) = part.get("text").and_then(Value::as_str) {
                    text.push_str(t);
                    found = true;
                }
            }
            Some("refusal") => {
                let words = part.get("refusal").and_then(Value::as_str).unwrap_or("");
                return Err(ExtractError::Refusal {
                    text: words.to_owned(),
                });
            }
            _ => {}
        }
    }
    if found {
        Ok(Reply::Text(text))
    } else {
        Err(ExtractError::Malformed {
            at: AT,
            expected: "`output_text` part",
        })
    }
}

/// The `text` entries of an interaction's `outputs`, concatenated (thoughts left out).
fn read_interactions(body: &Value, _tool: Option<&str>) -> Result<Reply, ExtractError> {
    const AT: &str = "/outputs";
    let outputs = body
        .get("outputs")
        .and_then(Value::as_array)
        .ok_or(ExtractError::Malformed {
            at: AT,
            expected: "list of outputs",
        })?;
    let texts: Vec<&str> = outputs
        .iter()
        .filter(|o| o.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|o| o.get("text").and_then(Value::as_str))
        .collect();
    if texts.is_empty() {
        return Err(ExtractError::Malformed {
            at: AT,
            expected: "text output",
        });
    }
    Ok(Reply::Text(texts.concat()))
}

/// The forced tool's `toolUse` block of a Converse message, or its `text` blocks.
fn read_converse(body: &Value, tool: Option<&str>) -> Result<Reply, ExtractError> {
    const AT: &str = CONVERSE_TOOL_USE.at;
    let blocks = body
        .pointer(AT)
        .and_then(Value::as_array)
        .ok_or(ExtractError::Malformed {
            at: AT,
            expected: "list of content blocks",
        })?;
    let Some(expected) = tool else {
        let texts: Vec<&str> = blocks
            .iter()
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect();
        if texts.is_empty() {
            return Err(ExtractError::Malformed {
                at: AT,
                expected: "text block",
            });
        }
        return Ok(Reply::Text(texts.concat()));
    };
    let calls = blocks.iter().filter_map(|b| b.get("toolUse"));
    forced_tool(calls, expected, &CONVERSE_TOOL_USE)
}

/// The concatenated `text` blocks of a Claude message (thinking blocks left out).
fn claude_text(body: &Value) -> Option<String> {
    let blocks = body.get("content")?.as_array()?;
    let texts: Vec<&str> = blocks
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .collect();
    (!texts.is_empty()).then(|| texts.concat())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn openai(message: Value, finish: &str) -> Value {
        json!({
            "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-4o-2024-08-06",
            "choices": [{"index": 0, "message": message, "logprobs": null, "finish_reason": finish}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
        })
    }

    #[test]
    fn openai_family() {
        let ok = openai(
            json!({"role": "assistant", "content": "{\"a\":1}", "refusal": null}),
            "stop",
        );
        for t in [
            Target::OpenAi,
            Target::Groq,
            Target::Mistral,
            Target::OpenRouter,
        ] {
            assert_eq!(reply(t, None, &ok), Ok(Reply::Text("{\"a\":1}".into())));
        }
        let refused = openai(
            json!({"role": "assistant", "content": null, "refusal": "I can't help with that."}),
            "stop",
        );
        assert_eq!(
            reply(Target::OpenAi, None, &refused),
            Err(ExtractError::Refusal {
                text: "I can't help with that.".into()
            })
        );
        let cut = openai(json!({"role": "assistant", "content": "{\"a\":"}), "length");
        assert_eq!(
            reply(Target::OpenAi, None, &cut),
            Err(ExtractError::Truncated {
                reason: "length".into()
            })
        );
        let filtered = openai(
            json!({"role": "assistant", "content": ""}),
            "content_filter",
        );
        assert_eq!(
            reply(Target::OpenAi, None, &filtered),
            Err(ExtractError::NotStop {
                finish_reason: "content_filter".into()
            })
        );
        let chunks = openai(
            json!({"role": "assistant", "content": [{"type": "thinking", "thinking": []}, {"type": "text", "text": "{\"a\""}, {"type": "text", "text": ":1}"}]}),
            "stop",
        );
        assert_eq!(
            reply(Target::Mistral, None, &chunks),
            Ok(Reply::Text("{\"a\":1}".into()))
        );
        assert_eq!(
            reply(Target::OpenAi, None, &json!({"choices": []})),
            Err(ExtractError::Malformed {
                at: "/choices/0/message/content",
                expected: "message text"
            })
        );
    }

    #[test]
    fn provider_error_bodies() {
        let bodies = [
            json!({"error": {"message": "Invalid schema", "type": "invalid_request_error", "param": "response_format", "code": null}}),
            json!({"error": {"code": 400, "message": "Invalid schema", "status": "INVALID_ARGUMENT"}}),
            json!({"type": "error", "error": {"type": "invalid_request_error", "message": "Invalid schema"}}),
            json!({"error": "Invalid schema"}),
        ];
        for (t, b) in [
            Target::OpenAi,
            Target::Gemini,
            Target::Claude,
            Target::Ollama,
        ]
        .into_iter()
        .zip(&bodies)
        {
            assert_eq!(
                reply(t, None, b),
                Err(ExtractError::Provider {
                    message: "Invalid schema".into()
                }),
                "{t}"
            );
        }
    }

    fn gemini(parts: Value, finish: &str) -> Value {
        json!({
            "candidates": [{"content": {"parts": parts, "role": "model"}, "finishReason": finish, "index": 0}],
            "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2},
            "modelVersion": "gemini-2.5-flash"
        })
    }

    #[test]
    fn gemini_parts_and_finish_reasons() {
        let ok = gemini(
            json!([{"text": "thinking...", "thought": true}, {"text": "{\"a\":"}, {"text": "1}"}]),
            "STOP",
        );
        assert_eq!(
            reply(Target::GeminiJson, None, &ok),
            Ok(Reply::Text("{\"a\":1}".into()))
        );
        assert_eq!(
            reply(
                Target::Gemini,
                None,
                &gemini(json!([{"text": "{"}]), "MAX_TOKENS")
            ),
            Err(ExtractError::Truncated {
                reason: "MAX_TOKENS".into()
            })
        );
        let safety =
            json!({"candidates": [{"finishReason": "SAFETY", "index": 0, "safetyRatings": []}]});
        assert_eq!(
            reply(Target::Gemini, None, &safety),
            Err(ExtractError::NotStop {
                finish_reason: "SAFETY".into()
            })
        );
        let blocked = json!({"promptFeedback": {"blockReason": "PROHIBITED_CONTENT"}});
        assert_eq!(
            reply(Target::Gemini, None, &blocked),
            Err(ExtractError::Blocked {
                reason: "PROHIBITED_CONTENT".into()
            })
        );
        assert_eq!(
            reply(
                Target::Gemini,
                None,
                &gemini(json!([{"functionCall": {}}]), "STOP")
            ),
            Err(ExtractError::Malformed {
                at: "/candidates/0/content/parts",
                expected: "text part"
            })
        );
    }

    #[test]
    fn ollama_chat_and_generate() {
        let chat = json!({"model": "llama3.1", "created_at": "2025-01-01T00:00:00Z", "message": {"role": "assistant", "content": "{}"}, "done": true, "done_reason": "stop"});
        assert_eq!(
            reply(Target::Ollama, None, &chat),
            Ok(Reply::Text("{}".into()))
        );
        let generate =
            json!({"model": "llama3.1", "response": "[]", "done": true, "done_reason": "stop"});
        assert_eq!(
            reply(Target::Ollama, None, &generate),
            Ok(Reply::Text("[]".into()))
        );
        let cut = json!({"message": {"role": "assistant", "content": "{\"a"}, "done": true, "done_reason": "length"});
        assert_eq!(
            reply(Target::Ollama, None, &cut),
            Err(ExtractError::Truncated {
                reason: "length".into()
            })
        );
    }

    fn claude(content: Value, stop: &str) -> Value {
        json!({
            "id": "msg_01", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
            "content": content, "stop_reason": stop, "stop_sequence": null,
            "usage": {"input_tokens": 1, "output_tokens": 1}
        })
    }

    #[test]
    fn claude_tool_use_and_text() {
        let call = claude(
            json!([{"type": "text", "text": "Here it is."}, {"type": "tool_use", "id": "toolu_1", "name": "answer", "input": {"a": 1}}]),
            "tool_use",
        );
        assert_eq!(
            reply(Target::Claude, Some("answer"), &call),
            Ok(Reply::ToolUse {
                id: "toolu_1".into(),
                name: "answer".into(),
                input: json!({"a": 1})
            })
        );
        assert_eq!(
            reply(Target::Claude, Some("other"), &call),
            Err(ExtractError::WrongTool {
                expected: "other".into(),
                found: "answer".into()
            })
        );
        let text = claude(
            json!([{"type": "thinking", "thinking": "...", "signature": "x"}, {"type": "text", "text": "{\"a\":1}"}]),
            "end_turn",
        );
        assert_eq!(
            reply(Target::ClaudeNative, None, &text),
            Ok(Reply::Text("{\"a\":1}".into()))
        );
        assert_eq!(
            reply(Target::Claude, Some("answer"), &text),
            Err(ExtractError::NoToolUse {
                tool: "answer".into()
            })
        );
        let refused = claude(
            json!([{"type": "text", "text": "I can't help."}]),
            "refusal",
        );
        assert_eq!(
            reply(Target::Claude, Some("answer"), &refused),
            Err(ExtractError::Refusal {
                text: "I can't help.".into()
            })
        );
        let cut = claude(
            json!([{"type": "tool_use", "id": "toolu_1", "name": "answer", "input": {}}]),
            "max_tokens",
        );
        assert_eq!(
            reply(Target::Claude, Some("answer"), &cut),
            Err(ExtractError::Truncated {
                reason: "max_tokens".into()
            })
        );
        assert_eq!(
            reply(Target::ClaudeNative, None, &claude(json!([]), "pause_turn")),
            Err(ExtractError::NotStop {
                finish_reason: "pause_turn".into()
            })
        );
    }

    #[test]
    fn non_string_stop_reasons_and_missing_bodies_are_malformed() {
        assert_eq!(
            reply(
                Target::Claude,
                None,
                &json!({"stop_reason": 3, "content": []})
            ),
            Err(ExtractError::Malformed {
                at: "/stop_reason",
                expected: "string stop reason"
            })
        );
        for t in Target::ALL {
            assert!(
                matches!(
                    reply(t, Some("x"), &json!(null)),
                    Err(ExtractError::Malformed { .. })
                ),
                "{t}"
            );
        }
    }

    #[test]
    fn the_new_routes_bodies_are_read() {
        let responses = json!({
            "id": "resp_1", "object": "response", "status": "completed",
            "output": [
                {"type": "reasoning", "id": "rs_1", "summary": []},
                {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "{\"a\":1}", "annotations": []}]}
            ]
        });
        assert_eq!(
            reply(Target::OpenAiResponses, None, &responses),
            Ok(Reply::Text("{\"a\":1}".into()))
        );
        let refused = json!({"status": "completed", "output": [{"type": "message", "content": [{"type": "refusal", "refusal": "no"}]}]});
        assert_eq!(
            reply(Target::OpenAiResponses, None, &refused),
            Err(ExtractError::Refusal { text: "no".into() })
        );
        assert_eq!(
            reply(
                Target::OpenAiResponses,
                None,
                &json!({"status": "incomplete", "output": []})
            ),
            Err(ExtractError::Truncated {
                reason: "incomplete".into()
            })
        );
        let interaction = json!({"id": "i1", "status": "completed", "outputs": [
            {"type": "thought", "signature": "x"}, {"type": "text", "text": "{}"}
        ]});
        assert_eq!(
            reply(Target::GeminiInteractions, None, &interaction),
            Ok(Reply::Text("{}".into()))
        );
        let converse = json!({
            "output": {"message": {"role": "assistant", "content": [
                {"toolUse": {"toolUseId": "tooluse_1", "name": "answer", "input": {"a": 1}}}
            ]}},
            "stopReason": "tool_use"
        });
        assert_eq!(
            reply(Target::BedrockClaude, Some("answer"), &converse),
            Ok(Reply::ToolUse {
                id: "tooluse_1".into(),
                name: "answer".into(),
                input: json!({"a": 1})
            })
        );
        assert_eq!(
            reply(Target::BedrockClaude, Some("other"), &converse),
            Err(ExtractError::WrongTool {
                expected: "other".into(),
                found: "answer".into()
            })
        );
        assert_eq!(
            reply(
                Target::BedrockClaude,
                None,
                &json!({"message": "The provided model identifier is invalid."})
            ),
            Err(ExtractError::Provider {
                message: "The provided model identifier is invalid.".into()
            })
        );
        let cut = json!({"output": {"message": {"content": []}}, "stopReason": "max_tokens"});
        assert_eq!(
            reply(Target::BedrockClaude, Some("answer"), &cut),
            Err(ExtractError::Truncated {
                reason: "max_tokens".into()
            })
        );
    }

    #[test]
    fn every_target_has_one_family() {
        for t in Target::ALL {
            assert_eq!(FAMILIES.iter().filter(|(x, _)| *x == t).count(), 1, "{t}");
        }
    }
}
