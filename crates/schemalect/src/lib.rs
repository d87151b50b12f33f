//! # schemalect
//!
//! Compiles JSON Schemas in the ADR-126 subset into the structured-output dialects of LLM
//! providers, and validates the answers against the source.
//!
//! ```
//! use schemalect::Schema;
//! use serde_json::json;
//!
//! let schema = Schema::parse(&json!({
//!     "type": "object",
//!     "properties": {"name": {"type": "string", "minLength": 1}},
//!     "required": ["name"],
//!     "additionalProperties": false
//! }))?;
//! assert!(schema.is_valid(&json!({"name": "Ada"})));
//! let errors = schema.validate(&json!({"name": ""})).unwrap_err();
//! assert_eq!(errors.errors[0].instance_path.as_str(), "/name");
//! # Ok::<(), schemalect::SubsetError>(())
//! ```
#![cfg_attr(docsrs, feature(doc_cfg))]
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing,
        clippy::unreachable
    )
)]
#![warn(missing_docs)]

pub mod dialect;
pub mod error;
pub mod gemini_wire;
pub mod ir;
pub mod keywords;
mod lens;
pub mod limits;
pub mod lower;
pub mod pattern;
pub mod pointer;
pub mod subset;
mod validate;
pub mod value;

pub use error::{SubsetError, ValidationError, ValidationErrors, Violation, ViolationKind};
pub use ir::{NodeId, Schema, Subset};
pub use limits::Limits;
pub use lower::{
    json_mode, AcceptError, Answer, Loss, LowerOptions, Lowering, Mode, Profile, Target,
};
pub use pointer::Pointer;
pub use subset::ParseOptions;

use serde_json::Value;

/// Either a JSON syntax error (with line and column) or a schema outside the subset.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The text is not JSON.
    #[error("invalid JSON at line {line}, column {column}: {message}")]
    Json {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What the JSON parser said.
        message: String,
    },
    /// The schema is outside the subset.
    #[error(transparent)]
    Subset(#[from] SubsetError),
}

impl Error {
    pub(crate) fn json(e: &serde_json::Error) -> Self {
        Error::Json {
            line: e.line(),
            column: e.column(),
            message: json_message(e),
        }
    }
}

/// serde_json's message without the " at line L column C" it appends (callers report those).
pub(crate) fn json_message(e: &serde_json::Error) -> String {
    let full = e.to_string();
    match full.rfind(" at line ") {
        Some(i) => full.get(..i).unwrap_or(&full).to_owned(),
        None => full,
    }
}

impl Schema {
    /// Parses a schema of the ADR-126 subset with the default limits.
    pub fn parse(value: &Value) -> Result<Schema, SubsetError> {
        subset::parse(value, &ParseOptions::default())
    }

    /// Parses with explicit options (limits, subset).
    pub fn parse_with(value: &Value, options: &ParseOptions) -> Result<Schema, SubsetError> {
        subset::parse(value, options)
    }

    /// Parses JSON text, then the schema.
    pub fn from_json_str(text: &str, options: &ParseOptions) -> Result<Schema, Error> {
        let value: Value = serde_json::from_str(text).map_err(|e| Error::json(&e))?;
        Ok(subset::parse(&value, options)?)
    }
}
