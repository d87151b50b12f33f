//! What a lowering gives up: the [`Mode`] it reaches and each [`Loss`] on the way, with the
//! [`Hint`] that lifts it where one is known. Shared by the dialects, which produce them, the
//! lens, which reports the reshapings' own, and [`crate::lower`], which hands them out (and
//! re-exports them): kept below all three so that none of them imports another for them.

use crate::pointer::Pointer;
use std::borrow::Cow;
use std::fmt;

/// How much of the schema the provider enforces natively. Ordered strongest first:
/// `Exact < Widened < Json < Prompt`, so "at least as weak as" is `>=`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Mode {
    /// The native schema accepts exactly what the source accepts (on the declared fragment).
    Exact,
    /// A native schema is sent; some constraints are dropped or relaxed, each listed as a loss.
    Widened,
    /// Only "answer in JSON" is enforced (OpenAI `json_object`, Gemini mime type, Ollama `"json"`).
    Json,
    /// Nothing native: the prompt and local validation carry the schema.
    Prompt,
}

impl Mode {
    /// Every mode, strongest first.
    pub const ALL: [Mode; 4] = [Mode::Exact, Mode::Widened, Mode::Json, Mode::Prompt];

    /// The name used in reports.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Exact => "exact",
            Mode::Widened => "widened",
            Mode::Json => "json",
            Mode::Prompt => "prompt",
        }
    }

    /// Parses a mode name.
    pub fn from_name(name: &str) -> Option<Mode> {
        Mode::ALL.into_iter().find(|m| m.name() == name)
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A constraint of the source that the provider will not enforce. Local validation still does.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Loss {
    /// The schema node, in the source document.
    pub pointer: Pointer,
    /// The keyword dropped or relaxed (`""` when a whole node or the whole schema degrades).
    pub keyword: Cow<'static, str>,
    /// What happened and why.
    pub reason: Cow<'static, str>,
    /// What the user can change to lift it, when the lowering knows (a schema derived from a
    /// Rust type). Shown after the reason.
    pub hint: Option<Hint>,
}

/// A change to the user's code that lifts a loss, carried as data beside its reason so that
/// tools can act on it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Hint {
    /// The object is a Rust struct (or an enum's struct variant) that serde leaves open to
    /// unknown fields, and the provider can only send it closed: closing it in the schema
    /// alone would reject answers the type accepts. With `#[serde(deny_unknown_fields)]` on
    /// the type, schemars writes the object closed, and the provider can send it as it is.
    DenyUnknownFields {
        /// schemars' name for the type (its `$defs` name): the struct, or the enum whose
        /// variant this is.
        rust_type: String,
    },
}

impl fmt::Display for Hint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Hint::DenyUnknownFields { rust_type } => write!(
                f,
                "this object is the Rust type `{rust_type}`: add `#[serde(deny_unknown_fields)]` to it so that its schema is closed"
            ),
        }
    }
}

impl Loss {
    /// A loss at `pointer` for `keyword`.
    pub fn new(
        pointer: &Pointer,
        keyword: impl Into<Cow<'static, str>>,
        reason: impl Into<Cow<'static, str>>,
    ) -> Self {
        Loss {
            pointer: pointer.clone(),
            keyword: keyword.into(),
            reason: reason.into(),
            hint: None,
        }
    }
}

impl fmt::Display for Loss {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.keyword.is_empty() {
            write!(f, "{}: {}", self.pointer, self.reason)?;
        } else {
            write!(f, "{}: `{}` {}", self.pointer, self.keyword, self.reason)?;
        }
        match &self.hint {
            Some(hint) => write!(f, " ({hint})"),
            None => Ok(()),
        }
    }
}
