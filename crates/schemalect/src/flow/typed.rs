//! The typed flow (feature `schemars`): one value holds the instruction, the request fragment,
//! the answer check with its one repair round, and the typed result.

use super::{Failure, Flow, FlowError, Outcome, RepairRequest};
use crate::derive::TypedAcceptError;
use crate::lower::{LowerOptions, Target};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::marker::PhantomData;

/// A [`Flow`] for the Rust type `T`: built by [`Flow::for_type`] with the typed entry's options
/// (see [`crate::for_type`]), and completed by [`TypedFlow::complete`] into a `T`.
#[derive(Debug)]
pub struct TypedFlow<T> {
    flow: Flow,
    _type: PhantomData<fn() -> T>,
}

impl<T> Clone for TypedFlow<T> {
    fn clone(&self) -> Self {
        TypedFlow {
            flow: self.flow.clone(),
            _type: PhantomData,
        }
    }
}

/// Which request [`TypedFlow::complete`] asks the caller to send.
#[derive(Clone, Copy, Debug)]
pub enum Turn<'a> {
    /// The first request: the caller's messages, [`TypedFlow::instruction`] as the system
    /// message, and [`TypedFlow::merge_into`] on the body.
    First,
    /// The one repair request: the same request, then the model's previous answer as its turn
    /// and [`RepairRequest::text`] as the next user message (after a Claude `tool_use`, send
    /// [`RepairRequest::claude_tool_result`] as that message's content).
    Repair(&'a RepairRequest),
}

/// Why [`TypedFlow::complete`] gave no `T`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CompleteError<E> {
    /// The caller's `send` failed (transport, HTTP status, …).
    #[error("the request failed: {0}")]
    Send(E),
    /// No usable answer, or still rejected after the repair round.
    #[error(transparent)]
    Failed(#[from] Failure),
    /// The validated answer does not deserialize into the type (the schema and the type
    /// disagree; see [`TypedAcceptError::Mismatch`]).
    #[error(transparent)]
    Mismatch(TypedAcceptError),
}

impl Flow {
    /// The flow for the Rust type `T`, lowered for `target` as [`crate::for_type`] lowers it
    /// (reshaping profile, `null` read as absent).
    ///
    /// ```
    /// use schemalect::flow::{Flow, Turn};
    /// use schemalect::Target;
    /// use serde_json::json;
    ///
    /// #[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
    /// struct City { name: String, population: Option<u32> }
    ///
    /// let flow = Flow::for_type::<City>(Target::OpenAi)?;
    /// let city = flow.complete(|turn| -> Result<_, std::convert::Infallible> {
    ///     let mut body = json!({"model": "gpt-4o-mini", "messages": [
    ///         {"role": "system", "content": flow.instruction()},
    ///         {"role": "user", "content": "The largest city of France?"}]});
    ///     flow.merge_into(&mut body);
    ///     if let Turn::Repair(_repair) = turn { /* append the previous answer and `_repair.text()` */ }
    ///     // ... send `body`; here, a recorded response:
    ///     Ok(json!({"choices": [{"message": {"content": "{\"name\": \"Paris\", \"population\": null}"}, "finish_reason": "stop"}]}))
    /// })?;
    /// assert_eq!(city.name, "Paris");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`FlowError::Derive`] when `T`'s schema is outside the subset.
    pub fn for_type<T: JsonSchema + DeserializeOwned>(
        target: Target,
    ) -> Result<TypedFlow<T>, FlowError> {
        Flow::for_type_with::<T>(target, &LowerOptions::default())
    }

    /// [`Flow::for_type`] with options (name, description, …); the profile is always
    /// reshaping, and `null_means_absent` defaults to on.
    ///
    /// # Errors
    /// As [`Flow::for_type`].
    pub fn for_type_with<T: JsonSchema + DeserializeOwned>(
        target: Target,
        options: &LowerOptions,
    ) -> Result<TypedFlow<T>, FlowError> {
        let (source, schema) = crate::derive::derive::<T>().map_err(FlowError::Derive)?;
        let options = crate::derive::typed_options(options);
        let flow = match Flow::with_lowering(&source, schema.lower(target, &options)) {
            Err(FlowError::ReshapedWithoutSchema { .. }) => {
                let conservative = options.with_profile(crate::lower::Profile::Conservative);
                Flow::with_lowering(&source, schema.lower(target, &conservative))
            }
            built => built,
        }?;
        Ok(TypedFlow {
            flow,
            _type: PhantomData,
        })
    }
}

impl<T: DeserializeOwned> TypedFlow<T> {
    /// The untyped flow: lowering, losses, schema text, the step-by-step [`Flow::start`].
    pub fn flow(&self) -> &Flow {
        &self.flow
    }

    /// The prompt instruction (see [`Flow::instruction`]).
    pub fn instruction(&self) -> &str {
        self.flow.instruction()
    }

    /// The request fragment (see [`Flow::wire`]).
    pub fn wire(&self) -> &Value {
        self.flow.wire()
    }

    /// Merges the request fragment into a request body (see
    /// [`Lowering::merge_into`](crate::Lowering::merge_into)).
    pub fn merge_into(&self, body: &mut Value) {
        self.flow.lowering().merge_into(body);
    }

    /// Runs the completion: `send` is called with [`Turn::First`], must send that request and
    /// return the provider's response body; if the answer is rejected, it is called once more
    /// with [`Turn::Repair`]. The accepted answer comes back as a `T`.
    ///
    /// # Errors
    /// [`CompleteError::Send`] with `send`'s error; [`CompleteError::Failed`] when the provider
    /// gave no usable answer or the repaired answer was rejected too;
    /// [`CompleteError::Mismatch`] when a valid answer does not deserialize into `T`.
    pub fn complete<E>(
        &self,
        mut send: impl FnMut(Turn<'_>) -> Result<Value, E>,
    ) -> Result<T, CompleteError<E>> {
        let first = send(Turn::First).map_err(CompleteError::Send)?;
        let value = match self.flow.start().check_response(&first) {
            Outcome::Accepted(value) => value,
            Outcome::Failed(failure) => return Err(CompleteError::Failed(failure)),
            Outcome::Repair(repair, last) => {
                let second = send(Turn::Repair(&repair)).map_err(CompleteError::Send)?;
                last.check_response(&second)?
            }
        };
        crate::derive::typed(value).map_err(CompleteError::Mismatch)
    }
}
