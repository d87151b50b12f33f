//! The check-and-repair state machine: a first [`Attempt`], at most one repair, a
//! [`FinalAttempt`].
//!
//! "At most one repair" is a property of the types, not of a counter: checking consumes the
//! attempt, only [`Attempt::check`] can return [`Outcome::Repair`], and the [`FinalAttempt`] it
//! hands out returns a plain `Result`, which has no way to ask again.

use super::extract::{ExtractError, Reply};
use super::Flow;
use crate::lower::{AcceptError, Answer};
use crate::value::deeper_than;
use serde_json::{json, Value};
use std::fmt::Write as _;

/// The previous answer is shown in full up to this many characters; beyond, its head and tail.
const MAX_SHOWN_CHARS: usize = 4000;
/// Characters kept from the end of a long answer (where a cut-off or a syntax error often is).
const SHOWN_TAIL_CHARS: usize = 1000;
/// At most this many validation errors are listed; the rest are counted.
const MAX_LISTED_ERRORS: usize = 20;
/// A decoded answer nesting deeper than this is not re-serialised for the repair message.
const MAX_SHOWN_DEPTH: usize = 128;

/// The first attempt of a structured completion. Check the provider's answer with it.
#[derive(Debug)]
#[must_use = "an attempt does nothing until its answer is checked"]
pub struct Attempt<'f> {
    flow: &'f Flow,
}

/// What became of the first answer.
#[derive(Debug)]
#[must_use]
pub enum Outcome<'f> {
    /// The answer decodes and conforms to the source schema: here is the value (lifted back to
    /// the source shape when the lowering reshaped it).
    Accepted(Value),
    /// The answer does not decode or does not conform: send the repair request, then check the
    /// next answer with the final attempt.
    Repair(RepairRequest, FinalAttempt<'f>),
    /// The provider gave no usable answer (refusal, cut-off, error, wrong tool); a repair round
    /// would not help.
    Failed(Failure),
}

/// The second and last attempt, after the repair request. It cannot ask for another repair.
#[derive(Debug)]
#[must_use = "the final attempt does nothing until its answer is checked"]
pub struct FinalAttempt<'f> {
    flow: &'f Flow,
    first: AcceptError,
}

/// Why a structured completion failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Failure {
    /// The provider's response holds no answer to check.
    #[error("the provider gave no usable answer: {error}")]
    NoAnswer {
        /// Why.
        error: ExtractError,
        /// Why the first answer was rejected, when this happened in the repair round.
        first: Option<AcceptError>,
    },
    /// The repaired answer was rejected too.
    #[error("the answer was still rejected after the repair round: {last}")]
    Rejected {
        /// Why the first answer was rejected.
        first: AcceptError,
        /// Why the repaired answer was rejected.
        last: AcceptError,
    },
}

/// The follow-up for the single repair round.
///
/// Continue the conversation with the model's invalid output as its turn, then
/// [`RepairRequest::text`] as the next user message. After a Claude `tool_use` block the next
/// user message must answer the call: send [`RepairRequest::claude_tool_result`] as its
/// content.
#[derive(Clone, Debug)]
pub struct RepairRequest {
    text: String,
    previous: Reply,
}

impl RepairRequest {
    /// The repair message: why the previous answer was rejected (every error with its JSON
    /// Pointer), the answer itself (shortened when huge, saying so), the schema, and the request
    /// to answer again with corrected JSON only.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The model's previous output, as the provider returned it (for the assistant turn).
    pub fn previous(&self) -> &Reply {
        &self.previous
    }

    /// The id of the tool call being answered (Claude forced tool), if any.
    pub fn tool_use_id(&self) -> Option<&str> {
        match &self.previous {
            Reply::ToolUse { id, .. } => Some(id),
            _ => None,
        }
    }

    /// A Claude `tool_result` content block answering the invalid tool call with the repair
    /// text, marked `is_error` so the model retries the call. `None` unless the previous answer
    /// was a tool call.
    pub fn claude_tool_result(&self) -> Option<Value> {
        self.tool_use_id().map(|id| {
            json!({
                "type": "tool_result",
                "tool_use_id": id,
                "is_error": true,
                "content": self.text,
            })
        })
    }
}

impl<'f> Attempt<'f> {
    pub(crate) fn new(flow: &'f Flow) -> Self {
        Attempt { flow }
    }

    /// Checks a response body: reads the answer ([`Flow::extract`]), then checks it.
    pub fn check_response(self, body: &Value) -> Outcome<'f> {
        match self.flow.extract(body) {
            Ok(reply) => self.check_reply(reply),
            Err(error) => Outcome::Failed(Failure::NoAnswer { error, first: None }),
        }
    }

    /// Checks an answer the caller read from the response (text, or a decoded value).
    pub fn check<'a>(self, answer: impl Into<Answer<'a>>) -> Outcome<'f> {
        self.check_reply(Reply::from(answer.into()))
    }

    /// Checks an answer read by [`Flow::extract`].
    pub fn check_reply(self, reply: Reply) -> Outcome<'f> {
        match self.flow.lowering().accept(reply.answer()) {
            Ok(value) => Outcome::Accepted(value),
            Err(first) => {
                let text = repair_text(self.flow, &reply, &first);
                Outcome::Repair(
                    RepairRequest {
                        text,
                        previous: reply,
                    },
                    FinalAttempt {
                        flow: self.flow,
                        first,
                    },
                )
            }
        }
    }
}

impl FinalAttempt<'_> {
    /// Why the first answer was rejected.
    pub fn first_error(&self) -> &AcceptError {
        &self.first
    }

    /// Checks the response body to the repair request.
    pub fn check_response(self, body: &Value) -> Result<Value, Failure> {
        match self.flow.extract(body) {
            Ok(reply) => self.check_reply(reply),
            Err(error) => Err(Failure::NoAnswer {
                error,
                first: Some(self.first),
            }),
        }
    }

    /// Checks the answer to the repair request (text, or a decoded value).
    pub fn check<'a>(self, answer: impl Into<Answer<'a>>) -> Result<Value, Failure> {
        self.check_reply(Reply::from(answer.into()))
    }

    /// Checks an answer read by [`Flow::extract`].
    pub fn check_reply(self, reply: Reply) -> Result<Value, Failure> {
        self.flow
            .lowering()
            .accept(reply.answer())
            .map_err(|last| Failure::Rejected {
                first: self.first,
                last,
            })
    }
}

/// The repair message for `reply`, rejected with `error`.
fn repair_text(flow: &Flow, reply: &Reply, error: &AcceptError) -> String {
    let mut out = String::from("Your previous answer was rejected: ");
    match error {
        AcceptError::Decode {
            line,
            column,
            message,
        } => {
            let _ = write!(
                out,
                "it is not valid JSON ({message} at line {line}, column {column})."
            );
        }
        AcceptError::Shape { pointer, message } => {
            let _ = write!(
                out,
                "it does not have the form the schema asks for.\n- at {}: {message}",
                at(pointer.as_str())
            );
        }
        AcceptError::Work(_) => {
            // The model cannot fix a budget; asking for a shorter answer is what can help.
            out.push_str("it was too large or too complex to check; answer again, shorter.");
        }
        AcceptError::Invalid(errors) => {
            let n = errors.errors.len();
            let plural = if n == 1 { "" } else { "s" };
            // A reshaped answer is checked after it is turned back into the data's natural
            // form, against the source schema, which the model has not seen: say where in the
            // data, and leave out schema pointers into a document the model does not have.
            let reshaped = flow.lowering().is_reshaped();
            if reshaped {
                let _ = write!(
                    out,
                    "the data it encodes breaks the schema's constraints ({n} error{plural}; locations name the data in its natural form):"
                );
            } else {
                let _ = write!(
                    out,
                    "it does not conform to the {} ({n} error{plural}):",
                    flow.dialect().noun()
                );
            }
            for e in errors.errors.iter().take(MAX_LISTED_ERRORS) {
                let _ = write!(
                    out,
                    "\n- at {}: {}",
                    at(e.instance_path.as_str()),
                    e.message
                );
                if !reshaped {
                    let _ = write!(out, " (schema: `{}`)", e.schema_path);
                }
            }
            if n > MAX_LISTED_ERRORS {
                let _ = write!(out, "\n- and {} more.", n - MAX_LISTED_ERRORS);
            }
        }
    }

    let (shown, total) = shown_answer(reply);
    match total {
        Some(total) => {
            let _ = write!(
                out,
                "\nYour previous answer ({total} characters, shortened here) was:"
            );
        }
        None => out.push_str("\nYour previous answer was:"),
    }
    out.push_str("\n<previous_answer>\n");
    out.push_str(&shown);
    out.push_str("\n</previous_answer>\n");

    let value = if flow.object_only() {
        "a single JSON object"
    } else {
        "a single JSON value"
    };
    match flow.tool_name() {
        Some(tool) => {
            let _ = write!(
                out,
                "Call the tool `{tool}` again with corrected input, as {value}, keeping what was already right."
            );
        }
        None => {
            let _ = write!(
                out,
                "Answer again with the corrected JSON only, keeping what was already right: {value}, with no text before or after it and no Markdown code fence."
            );
        }
    }
    if let Some(schema) = flow.schema_text() {
        let _ = write!(
            out,
            " It must conform to this {}:\n{schema}",
            flow.dialect().noun()
        );
    }
    out
}

/// `` `/a/0` ``, or "the top level" for the root.
fn at(pointer: &str) -> String {
    if pointer.is_empty() {
        "the top level".to_owned()
    } else {
        format!("`{pointer}`")
    }
}

/// The previous answer as shown, and its length in characters when it was shortened.
fn shown_answer(reply: &Reply) -> (String, Option<usize>) {
    if let Reply::Value(v) | Reply::ToolUse { input: v, .. } = reply {
        // Serialising is recursive; provider JSON is at most 128 deep, a caller's value may not be.
        if deeper_than(v, MAX_SHOWN_DEPTH) {
            return ("(a value nested too deeply to show)".to_owned(), None);
        }
    }
    let text = reply.to_text();
    let total = text.chars().count();
    if total <= MAX_SHOWN_CHARS {
        return (text.into_owned(), None);
    }
    let head_chars = MAX_SHOWN_CHARS - SHOWN_TAIL_CHARS;
    let head: String = text.chars().take(head_chars).collect();
    let tail: String = text.chars().skip(total - SHOWN_TAIL_CHARS).collect();
    let omitted = total - head_chars - SHOWN_TAIL_CHARS;
    (
        format!("{head}\n[... {omitted} characters omitted ...]\n{tail}"),
        Some(total),
    )
}
