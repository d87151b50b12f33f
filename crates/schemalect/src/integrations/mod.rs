//! The request types of the Rust LLM client crates, built from a [`Lowering`].
//!
//! Why this exists: each of these crates carries its own way to send a schema (a typed
//! `response_format`, a `schemars::Schema`, a `serde_json::Value`) and several rewrite what they
//! are given with a sanitizer of their own, which can narrow the schema (make a valid answer
//! impossible) or send a keyword the provider refuses. A lowering has already made the schema
//! fit the provider, widening only; these conversions put its fragment into the crate's type
//! unchanged, so what the crate sends is what [`Lowering::wire`] says, and
//! [`Lowering::accept`] still validates the answer against the source schema.
//!
//! Each integration is behind a cargo feature of its own (none is on by default):
//!
//! | feature | module | builds |
//! |---|---|---|
//! | `async-openai` | `async_openai` | `ResponseFormat`, a forced function tool, the Responses API `text` |
//! | `ollama-rs` | `ollama_rs` | `FormatType` |
//! | `rig` | `rig` | a [`Schema`](crate::Schema) from `rig::schemars::Schema`; `output_schema`, a forced `ToolDefinition` |
//! | `genai` | `genai` | `ChatResponseFormat` (`JsonSpec` or `JsonMode`) |
//!
//! A conversion never panics. It fails with an [`IntegrationError`] when the lowering is for a
//! target the crate's type does not speak (a Gemini lowering given to ollama-rs) or sends
//! nothing native (prompt mode). When the type can hold only part of the fragment, or the crate
//! is known to send less than it is given, the conversion succeeds and lists each part that will
//! not reach the provider in [`Converted::left_out`]: read it as you read
//! [`Lowering::losses`]. What is left out only ever makes the request weaker (never a request
//! the provider refuses), and the answer is still held to the source schema by
//! [`Lowering::accept`].

#[cfg(feature = "async-openai")]
#[cfg_attr(docsrs, doc(cfg(feature = "async-openai")))]
pub mod async_openai;
#[cfg(feature = "genai")]
#[cfg_attr(docsrs, doc(cfg(feature = "genai")))]
pub mod genai;
#[cfg(feature = "ollama-rs")]
#[cfg_attr(docsrs, doc(cfg(feature = "ollama-rs")))]
pub mod ollama_rs;
#[cfg(feature = "rig")]
#[cfg_attr(docsrs, doc(cfg(feature = "rig")))]
pub mod rig;

use crate::{Lowering, Mode, Target};
use serde_json::Value;
use std::borrow::Cow;
use std::fmt;

/// Why a lowering cannot be put into a client crate's type.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum IntegrationError {
    /// The lowering is for a target whose wire the crate's type does not carry.
    #[error("{integration} takes a lowering for {accepted}, not for `{target}`: lower the schema for one of those")]
    Target {
        /// The crate and type, e.g. ``ollama-rs `FormatType` ``.
        integration: &'static str,
        /// The lowering's target.
        target: Target,
        /// The targets it takes.
        accepted: &'static str,
    },
    /// The lowering sends nothing native (prompt mode): give the schema to the model in the
    /// prompt and send no format; [`Lowering::accept`] still validates the answer.
    #[error("the `{target}` lowering is in prompt mode (nothing native to send): put the schema in the prompt; {integration} has nothing to carry")]
    PromptMode {
        /// The crate and type.
        integration: &'static str,
        /// The lowering's target.
        target: Target,
    },
    /// The crate's type needs a schema and the lowering sends only JSON mode.
    #[error("{integration} needs a schema, and the `{target}` lowering sends only JSON mode: use the crate's JSON mode, or put the schema in the prompt")]
    NoSchema {
        /// The crate and type.
        integration: &'static str,
        /// The lowering's target.
        target: Target,
    },
    /// The crate would send something stronger than the lowering (which a provider may refuse),
    /// so the conversion is refused.
    #[error("{integration} cannot send {what} as the lowering does: {why}")]
    Stronger {
        /// The crate and type.
        integration: &'static str,
        /// What of the fragment.
        what: &'static str,
        /// What the crate would send instead.
        why: &'static str,
    },
    /// The fragment lacks a member the conversion reads (the fragment is not one this version of
    /// schemalect writes for the target).
    #[error("the `{target}` fragment has no {expected} at `{pointer}`")]
    Wire {
        /// The lowering's target.
        target: Target,
        /// Where in the fragment.
        pointer: String,
        /// What was expected there.
        expected: &'static str,
    },
    /// The crate refused a value (its constructor or its serializer).
    #[error("{integration}: {message}")]
    Crate {
        /// The crate and type.
        integration: &'static str,
        /// What it said.
        message: String,
    },
}

/// A value of a client crate's type, and what of the lowering's fragment it does not send.
#[derive(Debug, Clone)]
#[must_use = "`left_out` lists what the provider will not be sent"]
pub struct Converted<T> {
    /// The crate's value.
    pub value: T,
    /// Every part of [`Lowering::wire`] the crate will not send, with its consequence.
    pub left_out: Vec<LeftOut>,
}

impl<T> Converted<T> {
    // Not every integration uses it.
    #[cfg(any(feature = "async-openai", feature = "ollama-rs", feature = "genai"))]
    fn new(value: T) -> Self {
        Converted {
            value,
            left_out: Vec::new(),
        }
    }

    /// The value, for callers that have read [`Converted::left_out`].
    pub fn into_value(self) -> T {
        self.value
    }
}

/// A part of the fragment a client crate does not send.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct LeftOut {
    /// A JSON Pointer into [`Lowering::wire`].
    pub pointer: String,
    /// The value there.
    pub value: Value,
    /// Why it is not sent and what that means for the answer.
    pub reason: Cow<'static, str>,
}

impl fmt::Display for LeftOut {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} ({}) not sent: {}",
            self.pointer, self.value, self.reason
        )
    }
}

/// The checks every conversion starts with: a target it takes, and something native to send.
fn check(
    lowering: &Lowering,
    integration: &'static str,
    accepted: &'static str,
    takes: impl Fn(Target) -> bool,
) -> Result<(), IntegrationError> {
    let target = lowering.target();
    if !takes(target) {
        return Err(IntegrationError::Target {
            integration,
            target,
            accepted,
        });
    }
    if lowering.mode() == Mode::Prompt {
        return Err(IntegrationError::PromptMode {
            integration,
            target,
        });
    }
    Ok(())
}

/// The member of the fragment at `pointer`.
fn member<'a>(lowering: &'a Lowering, pointer: &str) -> Result<&'a Value, IntegrationError> {
    lowering
        .wire()
        .pointer(pointer)
        .ok_or_else(|| IntegrationError::Wire {
            target: lowering.target(),
            pointer: pointer.to_owned(),
            expected: "member",
        })
}

// Not every integration uses it.
#[cfg(any(feature = "async-openai", feature = "genai", feature = "rig"))]
/// The string at `pointer`.
fn string(lowering: &Lowering, pointer: &str) -> Result<String, IntegrationError> {
    member(lowering, pointer)?
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| IntegrationError::Wire {
            target: lowering.target(),
            pointer: pointer.to_owned(),
            expected: "string",
        })
}

// Not every integration uses it.
#[cfg(any(feature = "async-openai", feature = "genai", feature = "rig"))]
/// The string at `pointer`, if there is one.
fn optional_string(lowering: &Lowering, pointer: &str) -> Option<String> {
    lowering
        .wire()
        .pointer(pointer)
        .and_then(Value::as_str)
        .map(str::to_owned)
}

// Not every integration uses it.
#[cfg(any(feature = "async-openai", feature = "genai"))]
/// Every top-level member of the fragment other than `carried`, as left out for `reason`.
fn other_members(lowering: &Lowering, carried: &[&str], reason: &'static str) -> Vec<LeftOut> {
    lowering
        .wire()
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(key, _)| !carried.contains(&key.as_str()))
        .map(|(key, value)| LeftOut {
            pointer: format!("/{}", escape(key)),
            value: value.clone(),
            reason: Cow::Borrowed(reason),
        })
        .collect()
}

// Not every integration uses it.
#[cfg(any(feature = "genai", feature = "rig"))]
/// The part of the fragment at `pointer`, as left out for `reason`, if it is there.
fn left_out_at(lowering: &Lowering, pointer: &str, reason: &'static str) -> Option<LeftOut> {
    lowering.wire().pointer(pointer).map(|value| LeftOut {
        pointer: pointer.to_owned(),
        value: value.clone(),
        reason: Cow::Borrowed(reason),
    })
}

/// A JSON Pointer reference token.
fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

// Not every integration uses it.
#[cfg(any(feature = "async-openai", feature = "ollama-rs", feature = "rig"))]
/// Serializes a crate value (the check that it holds what the fragment says).
fn to_json<T: serde::Serialize>(
    integration: &'static str,
    value: &T,
) -> Result<Value, IntegrationError> {
    serde_json::to_value(value).map_err(|e| IntegrationError::Crate {
        integration,
        message: e.to_string(),
    })
}

// Not every integration uses it.
#[cfg(any(feature = "async-openai", feature = "ollama-rs"))]
/// Lists, as left out, every member of `sent` (the fragment at `base`) that `built` (the crate
/// value, serialized) does not hold with the same value: a guard against a crate type that
/// drops a member this version of schemalect writes.
fn dropped(sent: &Value, built: &Value, base: &str, out: &mut Vec<LeftOut>) {
    let (Value::Object(sent), Value::Object(built)) = (sent, built) else {
        return;
    };
    for (key, value) in sent {
        let pointer = format!("{base}/{}", escape(key));
        match built.get(key) {
            Some(kept) if kept == value => {}
            Some(kept) if value.is_object() && kept.is_object() => {
                dropped(value, kept, &pointer, out);
            }
            _ => out.push(LeftOut {
                pointer,
                value: value.clone(),
                reason: Cow::Borrowed("the crate's type does not carry it"),
            }),
        }
    }
}
