//! # schemalect
//!
//! Compiles JSON Schemas in the ADR-126 subset into the structured-output dialects of LLM
//! providers (OpenAI and its compatibles, Gemini, Ollama, Claude), **widening only**, and
//! validates the answers against the source.
//!
//! Providers each understand a different part of JSON Schema, and several of them reject or
//! silently narrow what they do not understand. schemalect takes one schema, sends each provider
//! the strongest request it can enforce *without ever making a valid answer impossible*, tells you
//! what the provider will not enforce, and checks every answer against the source schema, which
//! stays authoritative.
//!
//! # The pipeline
//!
//! ```text
//! serde_json::Value ──Schema::parse (fail-closed)──▶ Schema ──validate──▶ Ok / every error
//!                                                      │
//!                                                      └─lower(target, options)──▶ Lowering
//!                                                            { wire(), mode(), losses() }
//! provider's answer ──Lowering::accept──▶ decode JSON ─▶ undo reshaping ─▶ validate against the source
//! ```
//!
//! 1. [`Schema::parse`] accepts a schema only if every keyword in it is one the subset fully
//!    understands. Anything else is rejected whole, and the [`SubsetError`] lists every
//!    [`Violation`] with its JSON Pointer, keyword and a reason you can act on (the subset and its
//!    deviations from JSON Schema 2020-12 are documented in `docs/subset.md`).
//! 2. [`Schema::validate`] and [`Schema::is_valid`] check instances with 2020-12 semantics.
//! 3. [`Schema::lower`] produces a [`Lowering`] for one [`Target`]: the request fragment to merge
//!    into the provider's request body ([`Lowering::wire`]), the [`Mode`] reached (`exact`,
//!    `widened`, `json` or `prompt`) and every [`Loss`] (a constraint the provider will not
//!    enforce; local validation still does). Lowering never fails: when nothing native can keep
//!    the widening contract, it falls back to a weaker mode and says why. A linter, which
//!    reads only the mode and the losses, asks [`Schema::assess`] for them: the same
//!    [`Assessment`], without building the request where the verdict does not need it.
//! 4. [`Lowering::accept`] decodes the provider's answer (text, or the decoded tool input for
//!    Claude), undoes any reshaping and validates the result against the source schema.
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
//!
//! // Out of the subset: every violation, with where and why.
//! let err = Schema::parse(&json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/a"}}}))
//!     .unwrap_err();
//! assert_eq!(err.violations[0].pointer.as_str(), "/properties/a");
//! assert_eq!(err.violations[0].keyword, "$ref");
//! # Ok::<(), schemalect::SubsetError>(())
//! ```
//!
//! # Targets
//!
//! | [`Target`] | request fragment ([`Lowering::wire`]) | the answer to pass to [`Lowering::accept`] |
//! |---|---|---|
//! | `openai`, `groq`, `mistral`, `openrouter` | `response_format` (OpenRouter: also `provider`) | `choices[0].message.content` (text) |
//! | `gemini` | `generationConfig.responseMimeType` + `responseSchema` | `candidates[0].content.parts[0].text` (text) |
//! | `gemini-json` | `generationConfig.responseMimeType` + `responseJsonSchema` | `candidates[0].content.parts[0].text` (text) |
//! | `ollama` | `format` | `message.content` (text) |
//! | `claude` | `tools` + `tool_choice` (one forced tool) | the `input` of the `tool_use` block (a [`serde_json::Value`]) |
//! | `claude-native` | `output_config.format` | the text block (text) |
//!
//! Each example below builds the request body for one target, reports the mode and the losses,
//! and takes an answer back. The fragment is always a JSON object whose members go at the top
//! level of the request body; in `prompt` mode it is `{}` and the schema must be given to the
//! model in the prompt (local validation still holds the answer to it). Which mode a target
//! reaches depends on the schema and on the dialects implemented: read [`Lowering::mode`] rather
//! than assuming one.
//!
//! All examples use this schema:
//!
//! ```json
//! {
//!   "type": "object",
//!   "properties": {
//!     "city": {"type": "string", "minLength": 1},
//!     "population": {"type": "integer", "minimum": 0}
//!   },
//!   "required": ["city"],
//!   "additionalProperties": false
//! }
//! ```
//!
//! ## OpenAI
//!
//! ```
//! use schemalect::{LowerOptions, Mode, Schema, Target};
//! use serde_json::json;
//!
//! let source = json!({
//!     "type": "object",
//!     "properties": {
//!         "city": {"type": "string", "minLength": 1},
//!         "population": {"type": "integer", "minimum": 0}
//!     },
//!     "required": ["city"],
//!     "additionalProperties": false
//! });
//! let schema = Schema::parse(&source)?;
//! let plan = schema.lower(Target::OpenAi, &LowerOptions::default().with_name("city"));
//!
//! let mut system = String::from("Answer with a JSON object.");
//! if plan.mode() >= Mode::Json {
//!     // The provider does not enforce the schema itself: give it to the model.
//!     system.push_str(&format!(" It must match this JSON Schema: {source}"));
//! }
//! let mut body = json!({
//!     "model": "gpt-4o-mini",
//!     "messages": [
//!         {"role": "system", "content": system},
//!         {"role": "user", "content": "Which is the largest city in France?"}
//!     ]
//! });
//! // Merge the fragment (`response_format` when native) into the body.
//! for (key, value) in plan.wire().as_object().into_iter().flatten() {
//!     body[key.as_str()] = value.clone();
//! }
//! for loss in plan.losses() {
//!     eprintln!("{}: {} not enforced by the provider: {loss}", plan.target(), plan.mode());
//! }
//!
//! // `choices[0].message.content` of the response:
//! let content = r#"{"city": "Paris", "population": 2102650}"#;
//! let answer = plan.accept(content)?;
//! assert_eq!(answer, json!({"city": "Paris", "population": 2102650}));
//! // An answer that breaks the source schema is refused, whatever the provider enforced.
//! assert!(plan.accept(r#"{"city": "", "population": -1}"#).is_err());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## Groq
//!
//! Groq enforces strict `json_schema` only on some models (e.g. `openai/gpt-oss-120b`); say so
//! with [`LowerOptions::with_groq_strict`].
//!
//! ```
//! use schemalect::{LowerOptions, Schema, Target};
//! use serde_json::json;
//!
//! let schema = Schema::parse(&json!({
//!     "type": "object",
//!     "properties": {
//!         "city": {"type": "string", "minLength": 1},
//!         "population": {"type": "integer", "minimum": 0}
//!     },
//!     "required": ["city"],
//!     "additionalProperties": false
//! }))?;
//! let plan = schema.lower(Target::Groq, &LowerOptions::default().with_groq_strict(true));
//! let mut body = json!({
//!     "model": "openai/gpt-oss-120b",
//!     "messages": [{"role": "user", "content": "Which is the largest city in France? Answer in JSON."}]
//! });
//! for (key, value) in plan.wire().as_object().into_iter().flatten() {
//!     body[key.as_str()] = value.clone();
//! }
//! println!("groq: {} ({} losses)", plan.mode(), plan.losses().len());
//!
//! let answer = plan.accept(r#"{"city": "Paris"}"#)?;
//! assert_eq!(answer["city"], "Paris");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## Mistral
//!
//! ```
//! use schemalect::{LowerOptions, Schema, Target};
//! use serde_json::json;
//!
//! let schema = Schema::parse(&json!({
//!     "type": "object",
//!     "properties": {
//!         "city": {"type": "string", "minLength": 1},
//!         "population": {"type": "integer", "minimum": 0}
//!     },
//!     "required": ["city"],
//!     "additionalProperties": false
//! }))?;
//! let plan = schema.lower(Target::Mistral, &LowerOptions::default());
//! let mut body = json!({
//!     "model": "mistral-small-latest",
//!     "messages": [{"role": "user", "content": "Which is the largest city in France? Answer in JSON."}]
//! });
//! for (key, value) in plan.wire().as_object().into_iter().flatten() {
//!     body[key.as_str()] = value.clone();
//! }
//! assert!(body["messages"].is_array());
//!
//! let answer = plan.accept(r#"{"city": "Paris", "population": 2102650}"#)?;
//! assert_eq!(answer["population"], 2102650);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## OpenRouter
//!
//! By default the fragment asks OpenRouter to route only to providers that honour
//! `response_format` ([`LowerOptions::with_openrouter_require_parameters`]).
//!
//! ```
//! use schemalect::{LowerOptions, Schema, Target};
//! use serde_json::json;
//!
//! let schema = Schema::parse(&json!({
//!     "type": "object",
//!     "properties": {
//!         "city": {"type": "string", "minLength": 1},
//!         "population": {"type": "integer", "minimum": 0}
//!     },
//!     "required": ["city"],
//!     "additionalProperties": false
//! }))?;
//! let plan = schema.lower(Target::OpenRouter, &LowerOptions::default());
//! let mut body = json!({
//!     "model": "openai/gpt-4o-mini",
//!     "messages": [{"role": "user", "content": "Which is the largest city in France? Answer in JSON."}]
//! });
//! for (key, value) in plan.wire().as_object().into_iter().flatten() {
//!     body[key.as_str()] = value.clone();
//! }
//!
//! let answer = plan.accept(r#"{"city": "Paris"}"#)?;
//! assert_eq!(answer, json!({"city": "Paris"}));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## Gemini
//!
//! The fragment is a `generationConfig` object; if your body has one already (temperature, …),
//! merge its members rather than replacing it.
//!
//! ```
//! use schemalect::{LowerOptions, Schema, Target};
//! use serde_json::json;
//!
//! let schema = Schema::parse(&json!({
//!     "type": "object",
//!     "properties": {
//!         "city": {"type": "string", "minLength": 1},
//!         "population": {"type": "integer", "minimum": 0}
//!     },
//!     "required": ["city"],
//!     "additionalProperties": false
//! }))?;
//! let plan = schema.lower(Target::Gemini, &LowerOptions::default());
//! let mut body = json!({
//!     "contents": [{"role": "user", "parts": [{"text": "Which is the largest city in France? Answer in JSON."}]}],
//!     "generationConfig": {"temperature": 0.2}
//! });
//! for (key, value) in plan.wire().as_object().into_iter().flatten() {
//!     match (body.get_mut(key.as_str()), value) {
//!         (Some(serde_json::Value::Object(mine)), serde_json::Value::Object(theirs)) => {
//!             mine.extend(theirs.clone());
//!         }
//!         _ => body[key.as_str()] = value.clone(),
//!     }
//! }
//! assert_eq!(body["generationConfig"]["temperature"], 0.2);
//!
//! // `candidates[0].content.parts[0].text` of the response:
//! let answer = plan.accept(r#"{"city": "Paris", "population": 2102650}"#)?;
//! assert_eq!(answer["city"], "Paris");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## Gemini (JSON Schema dialect)
//!
//! ```
//! use schemalect::{LowerOptions, Schema, Target};
//! use serde_json::json;
//!
//! let schema = Schema::parse(&json!({
//!     "type": "object",
//!     "properties": {
//!         "city": {"type": "string", "minLength": 1},
//!         "population": {"type": "integer", "minimum": 0}
//!     },
//!     "required": ["city"],
//!     "additionalProperties": false
//! }))?;
//! let plan = schema.lower(Target::GeminiJson, &LowerOptions::default());
//! let mut body = json!({
//!     "contents": [{"role": "user", "parts": [{"text": "Which is the largest city in France? Answer in JSON."}]}]
//! });
//! for (key, value) in plan.wire().as_object().into_iter().flatten() {
//!     body[key.as_str()] = value.clone();
//! }
//!
//! let answer = plan.accept(r#"{"city": "Paris"}"#)?;
//! assert_eq!(answer["city"], "Paris");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## Ollama
//!
//! Ollama's `format` is native: the schema is sent, changed only where Ollama's grammar converter
//! would narrow it or fail.
//!
//! ```
//! use schemalect::{LowerOptions, Schema, Target};
//! use serde_json::json;
//!
//! let schema = Schema::parse(&json!({
//!     "type": "object",
//!     "properties": {
//!         "city": {"type": "string", "minLength": 1},
//!         "population": {"type": "integer", "minimum": 0}
//!     },
//!     "required": ["city"],
//!     "additionalProperties": false
//! }))?;
//! let plan = schema.lower(Target::Ollama, &LowerOptions::default());
//! assert!(plan.wire()["format"].is_object());
//! for loss in plan.losses() {
//!     // e.g. `minLength` is enforced by llama.cpp only on some string nodes
//!     eprintln!("ollama ({}): {loss}", plan.mode());
//! }
//! let mut body = json!({
//!     "model": "llama3.2",
//!     "stream": false,
//!     "messages": [{"role": "user", "content": "Which is the largest city in France?"}]
//! });
//! for (key, value) in plan.wire().as_object().into_iter().flatten() {
//!     body[key.as_str()] = value.clone();
//! }
//!
//! // `message.content` of the response:
//! let answer = plan.accept(r#"{"city": "Paris", "population": 2102650}"#)?;
//! assert_eq!(answer["population"], 2102650);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## Claude (forced tool)
//!
//! The answer is the `input` of the `tool_use` block, already decoded: pass it as a `&Value`.
//! (In `prompt` mode the model answers in text: pass the text.)
//!
//! ```
//! use schemalect::{LowerOptions, Schema, Target};
//! use serde_json::json;
//!
//! let schema = Schema::parse(&json!({
//!     "type": "object",
//!     "properties": {
//!         "city": {"type": "string", "minLength": 1},
//!         "population": {"type": "integer", "minimum": 0}
//!     },
//!     "required": ["city"],
//!     "additionalProperties": false
//! }))?;
//! let plan = schema.lower(
//!     Target::Claude,
//!     &LowerOptions::default().with_name("report_city").with_description("Report the city."),
//! );
//! let mut body = json!({
//!     "model": "claude-sonnet-4-5",
//!     "max_tokens": 1024,
//!     "messages": [{"role": "user", "content": "Which is the largest city in France?"}]
//! });
//! for (key, value) in plan.wire().as_object().into_iter().flatten() {
//!     body[key.as_str()] = value.clone();
//! }
//!
//! // The response's `{"type": "tool_use", "name": "report_city", "input": {…}}` block:
//! let input = json!({"city": "Paris", "population": 2102650});
//! let answer = plan.accept(&input)?;
//! assert_eq!(answer, input);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## Claude (constrained JSON outputs)
//!
//! ```
//! use schemalect::{LowerOptions, Schema, Target};
//! use serde_json::json;
//!
//! let schema = Schema::parse(&json!({
//!     "type": "object",
//!     "properties": {
//!         "city": {"type": "string", "minLength": 1},
//!         "population": {"type": "integer", "minimum": 0}
//!     },
//!     "required": ["city"],
//!     "additionalProperties": false
//! }))?;
//! let plan = schema.lower(Target::ClaudeNative, &LowerOptions::default());
//! let mut body = json!({
//!     "model": "claude-sonnet-4-5",
//!     "max_tokens": 1024,
//!     "messages": [{"role": "user", "content": "Which is the largest city in France? Answer in JSON."}]
//! });
//! for (key, value) in plan.wire().as_object().into_iter().flatten() {
//!     body[key.as_str()] = value.clone();
//! }
//!
//! // The text block of the response:
//! let answer = plan.accept(r#"{"city": "Paris"}"#)?;
//! assert_eq!(answer["city"], "Paris");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Reshaping
//!
//! Strict decoders want closed objects, every property required and an object root. With
//! [`Profile::Reshaping`], a lowering may ask the provider for a reshaped value (an optional
//! property as required-and-nullable, a map as a list of entries, a non-object root in an
//! envelope) when that reaches a stronger mode; [`Lowering::accept`] undoes the reshaping exactly
//! before validating. [`Lowering::encode`] shows the value the provider is asked for (for few-shot
//! examples and tests); it is the identity when nothing was reshaped.
//!
//! ```
//! use schemalect::{LowerOptions, Profile, Schema, Target};
//! use serde_json::json;
//!
//! let schema = Schema::parse(&json!({
//!     "type": "object",
//!     "properties": {"city": {"type": "string"}, "population": {"type": "integer"}},
//!     "required": ["city"]
//! }))?;
//! let options = LowerOptions::default().with_profile(Profile::Reshaping);
//! for target in Target::ALL {
//!     let plan = schema.lower(target, &options);
//!     let value = json!({"city": "Paris"});
//!     let asked = plan.encode(&value)?; // what the provider answers, reshaped or not
//!     assert_eq!(plan.accept(&asked)?, value);
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Schemas from Rust types (`schemars` feature)
//!
//! With the `schemars` feature, the [`derive`][derive-module] module builds the subset schema of any
//! `T: schemars::JsonSchema` (schemars 1.x) and takes answers back as a `T`:
//!
//! ```toml
//! [dependencies]
//! schemalect = { version = "0.1", features = ["schemars"] }
//! schemars = "1"
//! serde = { version = "1", features = ["derive"] }
//! serde_json = "1"
//! ```
//!
//! ```
//! # #[cfg(feature = "schemars")]
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use schemalect::derive::{schema_for, AcceptTyped};
//! use schemalect::{LowerOptions, Profile, Target};
//! use schemars::JsonSchema;
//! use serde::{Deserialize, Serialize};
//!
//! /// The largest city of a country.
//! #[derive(Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
//! struct City {
//!     /// The city's name.
//!     name: String,
//!     /// Inhabitants, if known.
//!     population: Option<u32>,
//!     kind: Kind,
//! }
//!
//! #[derive(Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
//! #[serde(rename_all = "snake_case")]
//! enum Kind {
//!     Capital,
//!     Other,
//! }
//!
//! let schema = schema_for::<City>()?;
//! let expected = City { name: "Paris".into(), population: Some(2_102_650), kind: Kind::Capital };
//! for target in Target::ALL {
//!     for profile in Profile::ALL {
//!         let plan = schema.lower(target, &LowerOptions::default().with_profile(profile));
//!         // Merge `plan.wire()` into the request body as above; here, the recorded answer:
//!         let answer = plan.encode(&serde_json::to_value(&expected)?)?;
//!         let city: City = plan.accept_as(&answer.to_string())?;
//!         assert_eq!(city, expected);
//!     }
//! }
//! # Ok(())
//! # }
//! # #[cfg(not(feature = "schemars"))]
//! # fn main() {}
//! ```
//!
//! A type the subset cannot express is an error naming the type and where:
//!
//! ```
//! # #[cfg(feature = "schemars")]
//! # fn main() {
//! use schemalect::derive::schema_for;
//!
//! #[derive(schemars::JsonSchema)]
//! struct Tree {
//!     label: String,
//!     children: Vec<Tree>,
//! }
//!
//! let err = schema_for::<Tree>().unwrap_err();
//! assert!(err.type_name.ends_with("Tree"));
//! assert_eq!(err.problems[0].pointer.as_str(), "/properties/children/items");
//! println!("{err}");
//! // the schema of `…::Tree` cannot be expressed in the subset (1 problem)
//! //   at /properties/children/items: `…::Tree` is a recursive type (it contains itself), …
//! # }
//! # #[cfg(not(feature = "schemars"))]
//! # fn main() {}
//! ```
//!
//! See the [`derive`][derive-module] module for the mapping from what schemars emits to the subset, and
//! `examples/derive.rs` for request bodies for OpenAI, Gemini, Ollama and Claude built from one
//! derived type.
//!
//! # Feature flags
//!
//! | feature | default | what it adds |
//! |---|---|---|
//! | `schemars` | off | the [`derive`][derive-module] module: [`derive::schema_for`][derive-schema-for], [`derive::AcceptTyped::accept_as`][derive-accept-as] (depends on `schemars` 1.x and `serde`) |
//! | `async-openai` | off | `integrations::async_openai`: async-openai's `ResponseFormat`, a forced function tool and the Responses API `text` from a lowering (async-openai 0.43, types only) |
//! | `ollama-rs` | off | `integrations::ollama_rs`: ollama-rs's `FormatType` from an Ollama lowering (ollama-rs 0.3, which depends on reqwest) |
//! | `rig` | off | `integrations::rig`: a schema from `rig::schemars::Schema`, rig's `output_schema` and a forced `ToolDefinition` from a lowering (rig-core 0.44, Rust 1.95; turns on `schemars`) |
//! | `genai` | off | `integrations::genai`: genai's `ChatResponseFormat` from a lowering (genai 0.7, which depends on reqwest and tokio) |
//!
//! The integrations and what each crate leaves out are described in the `integrations` module
//! and in `docs/targets.md` ("Using it with async-openai, ollama-rs, rig and genai").
//!
//! # Safety against untrusted input
//!
//! Schemas and answers may come from users, registries and models. Parsing is bounded by
//! [`Limits`] (depth, node count, enum size, pattern length), patterns run on a linear-time
//! engine, every operation (parse, validate, lower, accept) runs within a work budget
//! proportional to its input ([`Limits::work_per_byte`]), and nothing in the library panics on
//! any input (`docs/security.md`).
#![cfg_attr(
    feature = "schemars",
    doc = "",
    doc = "[derive-module]: mod@derive",
    doc = "[derive-schema-for]: derive::schema_for",
    doc = "[derive-accept-as]: derive::AcceptTyped::accept_as"
)]
#![cfg_attr(
    not(feature = "schemars"),
    doc = "",
    doc = "[derive-module]: https://docs.rs/schemalect/latest/schemalect/derive/index.html",
    doc = "[derive-schema-for]: https://docs.rs/schemalect/latest/schemalect/derive/fn.schema_for.html",
    doc = "[derive-accept-as]: https://docs.rs/schemalect/latest/schemalect/derive/trait.AcceptTyped.html#tymethod.accept_as"
)]
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

mod budget;
#[cfg(feature = "schemars")]
#[cfg_attr(docsrs, doc(cfg(feature = "schemars")))]
pub mod derive;
pub mod dialect;
pub mod error;
pub mod flow;
pub mod gemini_wire;
#[cfg(any(
    feature = "async-openai",
    feature = "ollama-rs",
    feature = "rig",
    feature = "genai"
))]
#[cfg_attr(
    docsrs,
    doc(cfg(any(
        feature = "async-openai",
        feature = "ollama-rs",
        feature = "rig",
        feature = "genai"
    )))
)]
pub mod integrations;
pub mod ir;
pub mod json;
pub mod keywords;
mod lens;
pub mod limits;
mod loss;
pub mod lower;
mod options;
pub mod pattern;
mod plan;
pub mod pointer;
mod schema;
mod seen;
pub mod subset;
mod target;
mod validate;
pub mod value;

#[cfg(feature = "schemars")]
#[cfg_attr(docsrs, doc(cfg(feature = "schemars")))]
pub use derive::{for_type, for_type_with};
pub use error::{SubsetError, ValidationError, ValidationErrors, Violation, ViolationKind};
pub use ir::{Draft, FullRules, NodeId, Subset};
pub use limits::Limits;
pub use lower::{
    json_mode, AcceptError, Answer, Assessment, Hint, Loss, LowerOptions, Lowering, Mode, Profile,
    Target,
};
pub use pointer::Pointer;
pub use schema::Schema;
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
    /// The schema written back as JSON Schema 2020-12: every keyword kept in a canonical order,
    /// numeric bounds normalised (`minimum` and `exclusiveMinimum` folded into the tighter),
    /// recursive references (extended subset) through `$defs`. It accepts exactly what this
    /// schema accepts. Fails only past the emission limits (a schema nested deeper than 512
    /// levels or writing more than 100,000 schema objects, possible with raised parse limits).
    pub fn to_value(&self) -> Result<Value, Loss> {
        dialect::source_value(self)
    }

    /// Parses a schema of the ADR-126 subset with the default limits.
    pub fn parse(value: &Value) -> Result<Schema, SubsetError> {
        subset::parse(value, &ParseOptions::default())
    }

    /// Parses with explicit options (limits, subset).
    pub fn parse_with(value: &Value, options: &ParseOptions) -> Result<Schema, SubsetError> {
        subset::parse(value, options)
    }

    /// Parses JSON text, then the schema: the same result as `serde_json::from_str` then
    /// [`Schema::parse_with`] (with the work budget per byte of `text`), without building a
    /// `serde_json::Value` on the way except in the `full` subset (src/json/mod.rs says why).
    pub fn from_json_str(text: &str, options: &ParseOptions) -> Result<Schema, Error> {
        let bytes = text.len() as u64;
        if options.subset == Subset::Full {
            let value: Value = serde_json::from_str(text).map_err(|e| Error::json(&e))?;
            return Ok(subset::parse_sized(&value, options, bytes)?);
        }
        let (tree, root) = json::Tree::parse(text).map_err(|e| Error::json(&e))?;
        Ok(subset::parse_sized(tree.get(root), options, bytes)?)
    }

    /// Parses the value `id` of `tree` with explicit options: the same result as
    /// [`Schema::parse_with`] of that value as a `serde_json::Value`, work budget included,
    /// without building one (see [`json::Tree`]).
    pub fn parse_tree(
        tree: &json::Tree<'_>,
        id: json::Id,
        options: &ParseOptions,
    ) -> Result<Schema, SubsetError> {
        let value = tree.get(id);
        let bytes = tree.size(id).unwrap_or_else(|| budget::value_bytes(value));
        subset::parse_sized(value, options, bytes)
    }
}

/// The README's examples, run as doc tests so they cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;
