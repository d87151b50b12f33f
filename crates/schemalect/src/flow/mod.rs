//! The structured-completion flow, as pure functions: no HTTP client, the caller sends requests.
//!
//! Native emission only narrows what a model can emit; it never carries everything a schema
//! says. So every structured completion goes through the same four steps:
//!
//! 1. ask for JSON and put the schema into the prompt ([`Flow::instruction`]), next to the
//!    lowering's request fragment ([`Flow::wire`]);
//! 2. validate the answer locally against the source schema ([`Attempt::check_response`]);
//! 3. on a decode failure or a schema mismatch, make exactly one repair request that shows the
//!    model its invalid output and the schema ([`Outcome::Repair`] carries the message and the
//!    [`FinalAttempt`], which has no repair path of its own);
//! 4. return the validated value, or fail with a typed [`Failure`].
//!
//! ```
//! use schemalect::flow::{Flow, Outcome};
//! use schemalect::{LowerOptions, Target};
//! use serde_json::json;
//!
//! let schema = json!({
//!     "type": "object",
//!     "properties": {"city": {"type": "string", "minLength": 1}},
//!     "required": ["city"],
//!     "additionalProperties": false
//! });
//! let flow = Flow::new(&schema, Target::Ollama, &LowerOptions::default())?;
//! assert!(flow.instruction().contains("JSON"));
//! // Request body: the flow's wire fragment, plus the instruction as a system message.
//! let first = json!({"message": {"role": "assistant", "content": "{\"city\": \"\"}"}, "done": true, "done_reason": "stop"});
//! let Outcome::Repair(repair, last) = flow.start().check_response(&first) else { panic!() };
//! assert!(repair.text().contains("/city"));
//! // Send `repair.text()` as the next user message; the final attempt cannot ask again.
//! let second = json!({"message": {"role": "assistant", "content": "{\"city\": \"Oslo\"}"}, "done": true, "done_reason": "stop"});
//! assert_eq!(last.check_response(&second)?, json!({"city": "Oslo"}));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Outside the flow, [`lenient`] checks inputs whose schemas come from elsewhere (tool inputs,
//! MCP servers) structurally, and [`extract`] reads each provider's response body.

pub mod extract;
pub mod lenient;
mod prompt;
mod repair;
#[cfg(feature = "schemars")]
mod typed;
mod wire;

pub use extract::{ExtractError, Reply};
pub use repair::{Attempt, Failure, FinalAttempt, Outcome, RepairRequest};
#[cfg(feature = "schemars")]
#[cfg_attr(docsrs, doc(cfg(feature = "schemars")))]
pub use typed::{CompleteError, Turn, TypedFlow};

use crate::error::SubsetError;
use crate::lower::{LowerOptions, Lowering, Profile, Target};
use crate::schema::Schema;
use crate::value::deeper_than;
use serde_json::Value;

/// Source schemas nesting deeper than this are refused: they are shown to the model as JSON
/// text, and serialising is recursive. The subset's own depth limit is far lower (64 by default).
const MAX_SOURCE_DEPTH: usize = 512;

/// Why a [`Flow`] cannot be built.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FlowError {
    /// The schema is outside the subset.
    #[error(transparent)]
    Subset(#[from] SubsetError),
    /// The lowering asks for a reshaped value, but its request fragment carries no schema that
    /// describes the reshaped form (JSON or prompt mode), so the prompt cannot show the model
    /// what to produce. Lower with [`Profile::Conservative`] instead.
    #[error("the lowering asks for a reshaped value but sends no schema for it ({mode} mode); lower it with the conservative profile")]
    ReshapedWithoutSchema {
        /// The lowering's mode.
        mode: crate::lower::Mode,
    },
    /// The lowering has no schema (plain JSON mode), but a source schema was given.
    #[error("the lowering has no schema (plain JSON mode); build the flow with `Flow::json`")]
    NoSchema,
    /// The source schema nests too deeply to be shown to the model.
    #[error("the source schema nests deeper than {MAX_SOURCE_DEPTH} levels")]
    TooDeep,
    /// The Rust type's schema cannot be expressed in the subset ([`Flow::for_type`]).
    #[cfg(feature = "schemars")]
    #[cfg_attr(docsrs, doc(cfg(feature = "schemars")))]
    #[error(transparent)]
    Derive(crate::derive::DeriveError),
}

/// One structured completion's fixed parts: the lowering, the prompt instruction, and the
/// schema shown to the model. Build it once per schema and target, and reuse it for every
/// request: the instruction is computed once and is byte-for-byte stable, so prompt caches keep
/// working.
#[derive(Clone, Debug)]
pub struct Flow {
    source: Option<Value>,
    lowering: Lowering,
    /// The schema shown to the model, as compact JSON text.
    schema_text: Option<String>,
    /// What the shown schema is written in.
    dialect: prompt::Dialect,
    tool: Option<String>,
    object_only: bool,
    instruction: String,
}

impl Flow {
    /// Parses `source` (an ADR-126 schema), lowers it for `target`, and builds the flow.
    ///
    /// A reshaping lowering that sends no schema (JSON or prompt mode) cannot show the model the
    /// reshaped form it must produce; for such a schema this lowers with the conservative
    /// profile instead, which asks for the value in its natural shape.
    pub fn new(source: &Value, target: Target, options: &LowerOptions) -> Result<Flow, FlowError> {
        let schema = Schema::parse(source)?;
        match Flow::with_lowering(source, schema.lower(target, options)) {
            Err(FlowError::ReshapedWithoutSchema { .. }) => {
                let conservative = options.clone().with_profile(Profile::Conservative);
                Flow::with_lowering(source, schema.lower(target, &conservative))
            }
            built => built,
        }
    }

    /// Builds the flow for an existing lowering of `source`. `source` must be the JSON the
    /// lowering's schema was parsed from: the prompt shows it and quotes its keywords (the IR
    /// does not keep the original JSON).
    pub fn with_lowering(source: &Value, lowering: Lowering) -> Result<Flow, FlowError> {
        if lowering.schema().is_none() {
            return Err(FlowError::NoSchema);
        }
        if deeper_than(source, MAX_SOURCE_DEPTH) {
            return Err(FlowError::TooDeep);
        }
        Flow::build(Some(source.clone()), lowering)
    }

    /// A flow for plain JSON mode ([`crate::json_mode`]): the answer must be JSON, nothing more.
    pub fn json(target: Target) -> Flow {
        Flow::assemble(
            None,
            crate::lower::json_mode(target),
            None,
            prompt::Dialect::JsonSchema,
        )
    }

    fn build(source: Option<Value>, lowering: Lowering) -> Result<Flow, FlowError> {
        let facts = wire::facts(lowering.target(), lowering.wire());
        // A reshaped lowering asks for the reshaped form, which only the wire schema describes;
        // otherwise the source is the contract (and the losses' pointers address it).
        let (shown, dialect) = if lowering.is_reshaped() {
            match facts.schema {
                Some(s) if facts.openapi_schema => (Some(s), prompt::Dialect::GeminiOpenApi),
                Some(s) => (Some(s), prompt::Dialect::JsonSchema),
                None => {
                    return Err(FlowError::ReshapedWithoutSchema {
                        mode: lowering.mode(),
                    })
                }
            }
        } else {
            (source.as_ref(), prompt::Dialect::JsonSchema)
        };
        let schema_text = shown.map(Value::to_string);
        Ok(Flow::assemble(source, lowering, schema_text, dialect))
    }

    fn assemble(
        source: Option<Value>,
        lowering: Lowering,
        schema_text: Option<String>,
        dialect: prompt::Dialect,
    ) -> Flow {
        let facts = wire::facts(lowering.target(), lowering.wire());
        let tool = facts.tool.map(str::to_owned);
        let object_only = facts.object_only;
        let mut flow = Flow {
            source,
            lowering,
            schema_text,
            dialect,
            tool,
            object_only,
            instruction: String::new(),
        };
        flow.instruction = prompt::instruction(&flow);
        flow
    }

    /// The lowering: its mode, losses, and the way back ([`Lowering::accept`]).
    pub fn lowering(&self) -> &Lowering {
        &self.lowering
    }

    /// The target.
    pub fn target(&self) -> Target {
        self.lowering.target()
    }

    /// The request fragment to merge into the provider's request body (`{}` in prompt mode).
    pub fn wire(&self) -> &Value {
        self.lowering.wire()
    }

    /// The prompt instruction: answer with JSON only, the schema, and in plain words every
    /// constraint the provider does not enforce. Always contains the word "JSON" (OpenAI's
    /// `json_object` mode refuses requests whose messages lack it; the Responses API does not
    /// count `instructions`, so put it in a message). Deterministic for a given source and
    /// lowering.
    pub fn instruction(&self) -> &str {
        &self.instruction
    }

    /// The schema shown to the model, as compact JSON text (`None` in plain JSON mode).
    pub fn schema_text(&self) -> Option<&str> {
        self.schema_text.as_deref()
    }

    /// The tool the model must call (Claude's forced tool), if the request declares one.
    pub fn tool_name(&self) -> Option<&str> {
        self.tool.as_deref()
    }

    /// The first attempt. Checking it consumes it; a failed check hands out the only repair.
    pub fn start(&self) -> Attempt<'_> {
        Attempt::new(self)
    }

    /// Reads the answer out of the provider's response body (see [`extract::reply`]).
    pub fn extract(&self, body: &Value) -> Result<Reply, ExtractError> {
        extract::reply(self.target(), self.tool_name(), body)
    }

    pub(crate) fn source(&self) -> Option<&Value> {
        self.source.as_ref()
    }

    pub(crate) fn dialect(&self) -> prompt::Dialect {
        self.dialect
    }

    pub(crate) fn object_only(&self) -> bool {
        self.object_only
    }
}

#[cfg(test)]
mod tests;
