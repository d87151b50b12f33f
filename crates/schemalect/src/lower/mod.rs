//! Lowering: one parsed schema to one provider's request fragment, widening only.
//!
//! A [`Lowering`] carries the wire fragment (shaped exactly as the provider's request body
//! expects, ready to merge), the [`Mode`] reached, every [`Loss`] (a constraint the provider will
//! not enforce), and the way back: [`Lowering::accept`] decodes the provider's answer, undoes any
//! reshaping and validates the result against the source schema, which stays authoritative.

mod answer_text;
mod reshapes;
#[cfg(test)]
mod tests;
mod widen_full;

pub use crate::loss::{Hint, Loss, Mode};
pub use crate::options::{LowerOptions, Profile};
pub use crate::target::{Target, UnknownTarget};

use crate::budget;
use crate::dialect::Produce;
use crate::error::ValidationErrors;
use crate::ir::Additional;
use crate::lens::{reshape, Lens, LensError, Sides};
use crate::limits::{Limits, Operation, WorkExceeded};
use crate::pointer::Pointer;
use crate::schema::Schema;
use reshapes::Reshapes;
use serde_json::Value;
use std::borrow::Cow;

/// A provider's answer, as the caller has it: `&str`, `String`, `&String` or `&Value`.
#[derive(Clone, Debug)]
pub enum Answer<'a> {
    /// Message text (OpenAI `message.content`, Gemini part text, Ollama `message.content`,
    /// Claude text block under `output_config.format`). A Markdown code fence around the JSON,
    /// or prose before it, is stripped when the text as a whole is not JSON.
    Text(Cow<'a, str>),
    /// An already-decoded value (Claude `tool_use` block `input`).
    Value(&'a Value),
}

impl<'a> From<&'a str> for Answer<'a> {
    fn from(s: &'a str) -> Self {
        Answer::Text(Cow::Borrowed(s))
    }
}

impl<'a> From<&'a String> for Answer<'a> {
    fn from(s: &'a String) -> Self {
        Answer::Text(Cow::Borrowed(s))
    }
}

impl From<String> for Answer<'_> {
    fn from(s: String) -> Self {
        Answer::Text(Cow::Owned(s))
    }
}

impl<'a> From<&'a Value> for Answer<'a> {
    fn from(v: &'a Value) -> Self {
        Answer::Value(v)
    }
}

/// Why an answer was not accepted.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AcceptError {
    /// The answer text is not JSON.
    #[error("the answer is not valid JSON (line {line}, column {column}): {message}")]
    Decode {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// The decoder's message.
        message: String,
    },
    /// The answer does not have the shape the lowering asked the provider for, so the
    /// reshaping cannot be undone.
    #[error("the answer does not have the requested shape at {pointer}: {message}")]
    Shape {
        /// Where in the answer.
        pointer: Pointer,
        /// What was expected.
        message: String,
    },
    /// The answer decodes but fails the source schema.
    #[error(transparent)]
    Invalid(#[from] ValidationErrors),
    /// Accepting the answer (undoing the reshaping, validating) ran out of its work budget
    /// ([`crate::limits::Limit::Work`]): the answer is not accepted.
    #[error(transparent)]
    Work(#[from] WorkExceeded),
}

/// One schema lowered for one target.
#[derive(Clone, Debug)]
pub struct Lowering {
    verdict: Assessment,
    wire: Value,
    reshaped: Option<Reshaping>,
}

/// What lowering one schema for one target reaches, without the request: the [`Mode`] and
/// every [`Loss`], as [`Schema::lower`] would give them ([`Schema::assess`]). A [`Lowering`]
/// carries one ([`Lowering::assessment`]).
#[derive(Clone, Debug)]
pub struct Assessment {
    schema: Option<Schema>,
    target: Target,
    mode: Mode,
    losses: Vec<Loss>,
    /// The work its lowering spent, when it ran as an operation of its own.
    spent: Option<u64>,
}

impl Assessment {
    /// The target.
    pub fn target(&self) -> Target {
        self.target
    }

    /// The mode reached.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// Every constraint the provider will not enforce.
    pub fn losses(&self) -> &[Loss] {
        &self.losses
    }

    /// The source schema (`None` for plain JSON mode).
    pub fn schema(&self) -> Option<&Schema> {
        self.schema.as_ref()
    }

    /// Every hint of these losses: what the user can change in their code to lift them (see
    /// [`Hint`]).
    pub fn hints(&self) -> impl Iterator<Item = &Hint> {
        self.losses.iter().filter_map(|l| l.hint.as_ref())
    }

    /// The profile that reaches a native mode where this lowering fell back, with the mode it
    /// reaches: today [`Profile::Reshaping`] where the conservative profile sends only JSON
    /// mode or a prompt (`--profile reshaping` on the command line). `options` are the ones
    /// this lowering was made with. `None` when this lowering is native already, was made
    /// with the reshaping profile, or no profile does better.
    ///
    /// It tries the target's reshapings, so it is asked for only when a fallback is reported
    /// (the CLI's text `lint` prints it as a hint), not on every lowering. For the
    /// assessments of one schema for several targets, [`Assessment::stronger_profiles`] gives
    /// the same answers with fewer reshapings.
    pub fn stronger_profile(&self, options: &LowerOptions) -> Option<(Profile, Mode)> {
        self.stronger_profile_with(options, &mut Reshapes::default())
    }

    /// [`Assessment::stronger_profile`] of each of `assessments`, in order, each made with
    /// `options`. Targets of one family need the same reshaping of a schema (the five of
    /// the OpenAI family, the three Claude routes, the two Gemini `responseSchema` ones), so
    /// the assessments of one schema share it: made once, then reused, its work charged again
    /// to each so that each runs out of work where it would alone.
    ///
    /// ```
    /// use schemalect::{Assessment, LowerOptions, Schema, Target};
    /// use serde_json::json;
    ///
    /// // A map: a fallback on the strict targets unless reshaped into a list of entries.
    /// let schema = Schema::parse(&json!({
    ///     "type": "object",
    ///     "additionalProperties": {"type": "integer"}
    /// }))?;
    /// let options = LowerOptions::default();
    /// let assessments: Vec<Assessment> =
    ///     Target::ALL.iter().map(|t| schema.assess(*t, &options)).collect();
    /// let hints = Assessment::stronger_profiles(&assessments, &options);
    /// for (a, hint) in assessments.iter().zip(&hints) {
    ///     assert_eq!(*hint, a.stronger_profile(&options));
    /// }
    /// assert!(hints.iter().any(Option::is_some));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn stronger_profiles<A: AsRef<Assessment>>(
        assessments: &[A],
        options: &LowerOptions,
    ) -> Vec<Option<(Profile, Mode)>> {
        let mut reshapes = Reshapes::default();
        // The reshaped schemas are shared too, so their strict emissions are (see
        // `Schema::assess_all`).
        crate::dialect::batch::run(|| {
            assessments
                .iter()
                .map(|a| a.as_ref().stronger_profile_with(options, &mut reshapes))
                .collect()
        })
    }

    fn stronger_profile_with(
        &self,
        options: &LowerOptions,
        reshapes: &mut Reshapes,
    ) -> Option<(Profile, Mode)> {
        if self.mode <= Mode::Widened || options.profile == Profile::Reshaping {
            return None;
        }
        let schema = self.schema.as_ref()?;
        let reshaping = options.clone().with_profile(Profile::Reshaping);
        let mode = match self.spent.filter(|_| !budget::in_progress()) {
            Some(spent) => schema.reshaped_mode(self.target, &reshaping, spent, reshapes)?,
            None => schema.assess(self.target, &reshaping).mode,
        };
        (mode <= Mode::Widened).then_some((Profile::Reshaping, mode))
    }
}

impl AsRef<Assessment> for Assessment {
    fn as_ref(&self) -> &Assessment {
        self
    }
}

impl AsRef<Assessment> for Lowering {
    fn as_ref(&self) -> &Assessment {
        &self.verdict
    }
}

/// What a reshaping lowering needs to undo itself.
#[derive(Clone, Debug)]
struct Reshaping {
    /// The normalised source the lens reads.
    source: Schema,
    /// The reshaped schema that was lowered, as the providers read it (`Reshaped::read`).
    wire: Schema,
    lens: Lens,
}

impl Reshaping {
    fn sides(&self) -> Sides<'_> {
        Sides {
            source: &self.source,
            wire: &self.wire,
        }
    }
}

/// The identity lens: a copy, refused past the depth a reshaping lens accepts, because
/// `Value::clone` recurses once per level (a built 100,000-deep value would overflow the stack).
fn copy(value: &Value) -> Result<Value, AcceptError> {
    if crate::value::deeper_than(value, crate::lens::MAX_DEPTH) {
        return Err(AcceptError::Shape {
            pointer: Pointer::root(),
            message: format!(
                "the value nests deeper than {} levels",
                crate::lens::MAX_DEPTH
            ),
        });
    }
    Ok(value.clone())
}

fn shape_error(e: LensError) -> AcceptError {
    AcceptError::Shape {
        pointer: e.pointer,
        message: e.message,
    }
}

impl Lowering {
    /// A lowering that sends nothing native.
    pub(crate) fn prompt(schema: Option<Schema>, target: Target, losses: Vec<Loss>) -> Self {
        Lowering {
            verdict: Assessment {
                schema,
                target,
                mode: Mode::Prompt,
                losses,
                spent: None,
            },
            wire: Value::Object(serde_json::Map::new()),
            reshaped: None,
        }
    }

    /// The target.
    pub fn target(&self) -> Target {
        self.verdict.target
    }

    /// The mode reached.
    pub fn mode(&self) -> Mode {
        self.verdict.mode
    }

    /// The request fragment to merge into the provider's request body (`{}` in prompt mode).
    pub fn wire(&self) -> &Value {
        &self.wire
    }

    /// Every constraint the provider will not enforce.
    pub fn losses(&self) -> &[Loss] {
        &self.verdict.losses
    }

    /// The source schema (`None` for plain JSON mode).
    pub fn schema(&self) -> Option<&Schema> {
        self.verdict.schema.as_ref()
    }

    /// The mode and losses without the request: what [`Schema::assess`] gives.
    pub fn assessment(&self) -> &Assessment {
        &self.verdict
    }

    /// Merges the wire fragment into a provider request body, replacing whatever an earlier
    /// merge of any lowering for the same provider wrote, so that one body can be reused for
    /// several schemas or targets:
    ///
    /// - OpenAI family: `response_format` is replaced whole (never a `json_schema` member left
    ///   beside `"type": "json_object"`); OpenRouter's `provider` is merged member by member;
    /// - Gemini: `responseSchema`, `responseJsonSchema` and `responseMimeType` are removed from
    ///   `generationConfig` before the fragment's are added, the caller's other settings
    ///   (`temperature`, …) kept;
    /// - Ollama (both backends): `format` is replaced;
    /// - llama-server: `response_format` is replaced and a `grammar` removed (llama-server
    ///   refuses the two together);
    /// - Claude: the answer tool an earlier merge forced (named by `tool_choice`) and any tool
    ///   of the fragment's name are removed before the fragment's tool is appended to the
    ///   caller's tools; `tool_choice` and `output_config.format` are replaced or removed;
    /// - OpenAI Responses: `text.format` is replaced, the caller's other `text` settings kept;
    /// - Gemini Interactions: `response_format` is replaced;
    /// - Bedrock Converse: a tool of the fragment's name is removed from `toolConfig.tools`
    ///   before the fragment's is appended, and `toolConfig.toolChoice` is replaced or removed.
    ///
    /// A prompt-mode lowering (an empty fragment) removes them as well. A body that is not an
    /// object becomes the fragment.
    pub fn merge_into(&self, body: &mut Value) {
        if !body.is_object() {
            *body = Value::Object(serde_json::Map::new());
        }
        let Value::Object(target) = body else {
            return;
        };
        self.remove_earlier(target);
        let Value::Object(fragment) = &self.wire else {
            return;
        };
        for (key, value) in fragment {
            match (target.get_mut(key), value) {
                (Some(Value::Object(existing)), Value::Object(add)) => {
                    for (k, v) in add {
                        // Bedrock's `toolConfig.tools`: the caller's tools are kept, as for
                        // Claude's top-level `tools`.
                        match (existing.get_mut(k), v) {
                            (Some(Value::Array(tools)), Value::Array(more)) if k == "tools" => {
                                tools.extend(more.iter().cloned());
                            }
                            _ => {
                                existing.insert(k.clone(), v.clone());
                            }
                        }
                    }
                }
                (Some(Value::Array(existing)), Value::Array(add)) if key == "tools" => {
                    existing.extend(add.iter().cloned());
                }
                _ => {
                    target.insert(key.clone(), value.clone());
                }
            }
        }
    }

    /// Removes from `body` what a lowering for this provider family writes (see
    /// [`Lowering::merge_into`]).
    fn remove_earlier(&self, body: &mut serde_json::Map<String, Value>) {
        fn remove_member(body: &mut serde_json::Map<String, Value>, key: &str, members: &[&str]) {
            if let Some(Value::Object(inner)) = body.get_mut(key) {
                for m in members {
                    inner.remove(*m);
                }
                if inner.is_empty() {
                    body.remove(key);
                }
            }
        }
        match self.verdict.target {
            Target::OpenAi | Target::Groq | Target::Mistral | Target::OpenRouter => {
                body.remove("response_format");
            }
            Target::OpenAiResponses => remove_member(body, "text", &["format"]),
            Target::GeminiInteractions => {
                body.remove("response_format");
            }
            Target::BedrockClaude => {
                let name = |t: &Value| t.pointer("/toolSpec/name").cloned();
                let names: Vec<Value> = self
                    .wire
                    .pointer("/toolConfig/tools")
                    .and_then(Value::as_array)
                    .map(|tools| tools.iter().filter_map(name).collect())
                    .unwrap_or_default();
                if let Some(Value::Array(tools)) =
                    body.get_mut("toolConfig").and_then(|c| c.get_mut("tools"))
                {
                    tools.retain(|t| name(t).is_none_or(|n| !names.contains(&n)));
                }
                remove_member(body, "toolConfig", &["toolChoice"]);
                if let Some(Value::Object(config)) = body.get_mut("toolConfig") {
                    if config
                        .get("tools")
                        .and_then(Value::as_array)
                        .is_some_and(Vec::is_empty)
                    {
                        config.remove("tools");
                    }
                    if config.is_empty() {
                        body.remove("toolConfig");
                    }
                }
            }
            Target::Gemini | Target::GeminiJson | Target::VertexGemini => remove_member(
                body,
                "generationConfig",
                &["responseSchema", "responseJsonSchema", "responseMimeType"],
            ),
            Target::Ollama | Target::OllamaMlx => {
                body.remove("format");
            }
            // `grammar` goes too: llama-server refuses it beside `json_schema` (HTTP 500).
            Target::LlamaServer => {
                body.remove("response_format");
                body.remove("grammar");
            }
            Target::Claude | Target::ClaudeNative => {
                let mut names: Vec<Value> = Vec::new();
                if let Some(forced) = body
                    .get("tool_choice")
                    .filter(|c| c.get("type").and_then(Value::as_str) == Some("tool"))
                    .and_then(|c| c.get("name"))
                {
                    names.push(forced.clone());
                }
                if let Some(Value::Array(tools)) = self.wire.get("tools") {
                    names.extend(tools.iter().filter_map(|t| t.get("name")).cloned());
                }
                if let Some(Value::Array(tools)) = body.get_mut("tools") {
                    tools.retain(|t| t.get("name").is_none_or(|n| !names.contains(n)));
                    if tools.is_empty() {
                        body.remove("tools");
                    }
                }
                if !names.is_empty() {
                    body.remove("tool_choice");
                }
                remove_member(body, "output_config", &["format"]);
            }
        }
    }

    /// True when the provider is asked for a reshaped value (reshaping profile) that
    /// [`Lowering::accept`] turns back into a source value.
    pub fn is_reshaped(&self) -> bool {
        self.reshaped.is_some()
    }

    /// The value the provider is asked to produce for the source value `value` (identity unless
    /// reshaped). Useful for few-shot examples and for testing. When reshaped, a value with no
    /// encoding the wire accepts (outside the declared fragment, or invalid) is an error.
    pub fn encode(&self, value: &Value) -> Result<Value, AcceptError> {
        self.metered(budget::value_bytes(value), || match &self.reshaped {
            Some(r) => r
                .lens
                .encode_for_wire(value, r.sides())
                .map_err(shape_error),
            None => copy(value),
        })
    }

    /// The source value for a decoded answer (identity unless reshaped). Reshapes only: it
    /// never repairs a value, and it does not validate; [`Lowering::accept`] does both steps.
    pub fn lift(&self, answer: &Value) -> Result<Value, AcceptError> {
        self.metered(budget::value_bytes(answer), || self.lift_value(answer))
    }

    fn lift_value(&self, answer: &Value) -> Result<Value, AcceptError> {
        match &self.reshaped {
            Some(r) => r.lens.lift(answer, r.sides()).map_err(shape_error),
            None => copy(answer),
        }
    }

    /// Runs `f` as an [`Operation::Accept`] on `bytes` bytes of answer (and the source schema),
    /// under the source schema's work budget: past it, [`AcceptError::Work`].
    fn metered(
        &self,
        bytes: u64,
        f: impl FnOnce() -> Result<Value, AcceptError>,
    ) -> Result<Value, AcceptError> {
        let (limits, schema_bytes) = match &self.verdict.schema {
            Some(s) => (*s.limits(), s.source_bytes()),
            None => (Limits::default(), 0),
        };
        let mut f = Some(f);
        budget::run(
            Operation::Accept,
            &limits,
            schema_bytes.saturating_add(bytes),
            None,
            |b| {
                let out = match f.take() {
                    Some(f) => f(),
                    None => copy(&Value::Null),
                };
                match b.exceeded() {
                    Some(e) => Err(AcceptError::Work(e)),
                    None => out,
                }
            },
        )
    }

    /// Decodes the provider's answer, undoes any reshaping and validates the result against the
    /// source schema. Answer text is read as JSON; when it is not, the JSON inside a Markdown
    /// code fence, or after leading prose, is read instead (the decode error, if any, is about
    /// the text as given).
    pub fn accept<'a>(&self, answer: impl Into<Answer<'a>>) -> Result<Value, AcceptError> {
        let answer = answer.into();
        let bytes = match &answer {
            Answer::Text(text) => text.len() as u64,
            Answer::Value(v) => budget::value_bytes(*v),
        };
        self.metered(bytes, || {
            let decoded;
            let value = match &answer {
                Answer::Text(text) => {
                    decoded = answer_text::decode(text).map_err(|e| AcceptError::Decode {
                        line: e.line(),
                        column: e.column(),
                        message: crate::json_message(&e),
                    })?;
                    &decoded
                }
                Answer::Value(v) => *v,
            };
            let value = self.lift_value(value)?;
            if let Some(schema) = &self.verdict.schema {
                schema.validate(&value)?;
            }
            Ok(value)
        })
    }
}

impl Schema {
    /// Lowers the schema for `target`. Never fails: when nothing native can keep the widening
    /// contract, the lowering falls back to a weaker mode and says why in its losses.
    ///
    /// With [`Profile::Reshaping`], the target's reshapings are tried as well, and kept only
    /// when they reach a stronger mode than the conservative lowering.
    pub fn lower(&self, target: Target, options: &LowerOptions) -> Lowering {
        self.lower_for(target, options, Produce::Request)
    }

    /// What [`Schema::lower`] reaches for `target`, its mode and every loss, without building
    /// the request: for linters and reports, which never send it. Equal to the
    /// [`Lowering::assessment`] of `lower(target, options)`, and cheaper where the dialect's
    /// verdict does not depend on the request it would build (`dialect::Produce`).
    ///
    /// ```
    /// use schemalect::{LowerOptions, Mode, Schema, Target};
    /// use serde_json::json;
    ///
    /// let schema = Schema::parse(&json!({
    ///     "type": "object",
    ///     "properties": {"id": {"type": "integer", "minimum": 1}},
    ///     "required": ["id"]
    /// }))?;
    /// let options = LowerOptions::default();
    /// for target in [Target::Ollama, Target::OpenAi, Target::Claude] {
    ///     let verdict = schema.assess(target, &options);
    ///     let lowering = schema.lower(target, &options);
    ///     assert_eq!(verdict.mode(), lowering.mode());
    ///     assert_eq!(verdict.losses(), lowering.losses());
    /// }
    /// // OpenAI's strict mode needs every object closed: this one is open, so JSON mode.
    /// assert_eq!(schema.assess(Target::OpenAi, &options).mode(), Mode::Json);
    /// # Ok::<(), schemalect::SubsetError>(())
    /// ```
    pub fn assess(&self, target: Target, options: &LowerOptions) -> Assessment {
        self.lower_for(target, options, Produce::Verdict).verdict
    }

    /// [`Schema::assess`] for each of `targets`, in order. The targets that build the same
    /// strict schema for their limit checks (OpenAI's two routes, Claude's three) build it
    /// once: each later one reuses its verdict, charging the work it cost again, so each
    /// assessment runs out of work where it would alone.
    ///
    /// ```
    /// use schemalect::{LowerOptions, Schema, Target};
    /// use serde_json::json;
    ///
    /// let schema = Schema::parse(&json!({
    ///     "type": "object",
    ///     "properties": {"id": {"type": "integer", "minimum": 1}},
    ///     "required": ["id"],
    ///     "additionalProperties": false
    /// }))?;
    /// let options = LowerOptions::default();
    /// for a in schema.assess_all(&Target::ALL, &options) {
    ///     let alone = schema.assess(a.target(), &options);
    ///     assert_eq!((a.mode(), a.losses()), (alone.mode(), alone.losses()));
    /// }
    /// # Ok::<(), schemalect::SubsetError>(())
    /// ```
    pub fn assess_all(&self, targets: &[Target], options: &LowerOptions) -> Vec<Assessment> {
        crate::dialect::batch::run(|| targets.iter().map(|t| self.assess(*t, options)).collect())
    }

    /// The lowering, within the schema's work budget; its wire is meaningless unless
    /// `produce` is [`Produce::Request`].
    fn lower_for(&self, target: Target, options: &LowerOptions, produce: Produce) -> Lowering {
        // Run inside another operation (the `full` subset's widening lowered), what the budget
        // has spent is not this lowering's alone.
        let own_operation = !budget::in_progress();
        self.lowering_budget(|b| {
            let mut lowering = self.lower_within_budget(target, options, produce);
            lowering.verdict.hint_rust_types();
            let mut lowering = match b.exceeded() {
                // What was built past the budget is not used: nothing native is sent.
                Some(e) => Lowering::prompt(
                    Some(self.clone()),
                    target,
                    vec![Loss::new(&Pointer::root(), "", e.to_string())],
                ),
                None => lowering,
            };
            lowering.verdict.spent = own_operation.then(|| b.spent());
            lowering
        })
    }

    fn lower_within_budget(
        &self,
        target: Target,
        options: &LowerOptions,
        produce: Produce,
    ) -> Lowering {
        if let Some((widened, mut losses)) = widen_full::widen(self, target) {
            // `full`: lowered as its widening to the keywords the dialects know; answers are
            // still held to the `full` schema itself.
            let mut lowering = widened.lower_for(target, options, produce);
            let verdict = &mut lowering.verdict;
            verdict.schema = Some(self.clone());
            // A fallback sends no schema, so the widening's losses concern nothing sent: its
            // losses stay the blockers alone, one per node (issue 19).
            if !losses.is_empty() && verdict.mode < Mode::Json {
                verdict.mode = after_widening(verdict.mode, &losses);
                losses.append(&mut verdict.losses);
                verdict.losses = losses;
            }
            return lowering;
        }
        let out = crate::dialect::lower(self, target, options, produce);
        let mut lowering = Lowering {
            verdict: Assessment {
                schema: Some(self.clone()),
                target,
                mode: out.mode,
                losses: out.losses,
                spent: None,
            },
            wire: out.wire,
            reshaped: None,
        };
        let needs = crate::dialect::reshape_needs(target);
        if lowering.verdict.mode <= Mode::Exact || needs.is_none() {
            return lowering;
        }
        if options.profile == Profile::Reshaping {
            let reshaped = self.reshaped(target, options, needs, produce);
            if let Some((out, r)) = reshaped.filter(|(out, _)| out.mode < lowering.verdict.mode) {
                lowering.verdict.mode = out.mode;
                lowering.verdict.losses = out.losses;
                lowering.wire = out.wire;
                lowering.reshaped = Some(r);
            }
        }
        lowering
    }
}

impl Assessment {
    /// Gives [`Hint::DenyUnknownFields`] to each loss of a schema derived from a Rust type that
    /// is about an open object the type's serde attributes leave open: a blocker or a widening
    /// keyed on `additionalProperties` at an object that allows undeclared members without a
    /// schema for them (a struct; not a map, whose members are its values) and that names a
    /// Rust type. Closing such an object is what the lowering could not do without narrowing.
    fn hint_rust_types(&mut self) {
        let Some(schema) = &self.schema else {
            return;
        };
        let Some(types) = schema.rust_types.as_deref() else {
            return;
        };
        if self.mode == Mode::Exact {
            return;
        }
        let named = |l: &Loss| {
            l.keyword == "additionalProperties"
                && l.hint.is_none()
                && types.contains_key(&l.pointer)
        };
        if !self.losses.iter().any(named) {
            return;
        }
        // One pass over the nodes, not one per loss.
        let open_structs: std::collections::HashSet<&Pointer> = schema
            .nodes()
            .filter(|(_, n)| {
                n.object.as_deref().is_some_and(|o| {
                    matches!(o.additional, Additional::Unspecified | Additional::Allowed)
                })
            })
            .map(|(_, n)| &n.pointer)
            .collect();
        for loss in &mut self.losses {
            if !named(loss) || !open_structs.contains(&loss.pointer) {
                continue;
            }
            if let Some(rust_type) = types.get(&loss.pointer) {
                loss.hint = Some(Hint::DenyUnknownFields {
                    rust_type: rust_type.clone(),
                });
            }
        }
    }
}

impl Lowering {
    /// Every hint of this lowering's losses: what the user can change in their code to lift
    /// them (see [`Hint`]).
    pub fn hints(&self) -> impl Iterator<Item = &Hint> {
        self.verdict.hints()
    }

    /// The profile that reaches a native mode where this lowering fell back, with the mode it
    /// reaches ([`Assessment::stronger_profile`]). `options` are the ones this lowering was
    /// made with.
    pub fn stronger_profile(&self, options: &LowerOptions) -> Option<(Profile, Mode)> {
        self.verdict.stronger_profile(options)
    }
}

impl Schema {
    /// Runs `f` as a lowering of this schema: under its work budget for a lowering, or under
    /// the budget of the operation in progress.
    fn lowering_budget<R>(&self, f: impl FnMut(budget::Budget) -> R) -> R {
        budget::run(
            Operation::Lower,
            self.limits(),
            self.source_bytes(),
            None,
            f,
        )
    }

    /// The mode of the reshaping profile's lowering for `target`, for a schema whose
    /// conservative lowering fell back (JSON mode or a prompt) after spending `spent` steps;
    /// `None` when the target reshapes nothing or the work budget runs out.
    ///
    /// That lowering repeats the conservative one before it tries the reshapings (the dialects
    /// read no profile, so it reaches the same fallback in the same steps), and takes the
    /// reshaped lowering when its mode is stronger. So only the reshaped lowering is made
    /// here, under a budget that has spent `spent` already: it runs out exactly where the
    /// whole lowering would. The `full` subset's widening is made again outside the budget,
    /// its steps being part of `spent`, and a native mode reached on a widening that lost
    /// something is `Widened`, as in [`Schema::lower`]. The reshaping itself is taken from
    /// `reshapes` when another target made it already.
    fn reshaped_mode(
        &self,
        target: Target,
        options: &LowerOptions,
        spent: u64,
        reshapes: &mut Reshapes,
    ) -> Option<Mode> {
        let needs = crate::dialect::reshape_needs(target);
        if needs.is_none() {
            return None;
        }
        let widened = widen_full::widen(self, target);
        let source = widened.as_ref().map_or(self, |(w, _)| w);
        let nulls = options.null_means_absent.unwrap_or(source.from_serde);
        self.lowering_budget(|b| {
            if !budget::charge(spent) {
                return None;
            }
            let r = reshapes.get(source, needs, nulls, b)?;
            let out = source.lower_reshaped(r, target, options, Produce::Verdict);
            let mode = match &widened {
                Some((_, losses)) => after_widening(out.mode, losses),
                None => out.mode,
            };
            b.exceeded().is_none().then_some(mode)
        })
    }

    /// The reshaping profile's lowering for `target`, with its losses (the reshaping's first)
    /// and the way back; `None` when the target reshapes nothing.
    fn reshaped(
        &self,
        target: Target,
        options: &LowerOptions,
        needs: crate::dialect::Needs,
        produce: Produce,
    ) -> Option<(crate::dialect::Outcome, Reshaping)> {
        if needs.is_none() {
            return None;
        }
        let nulls = options.null_means_absent.unwrap_or(self.from_serde);
        let r = reshape::reshape_with(self, needs, nulls);
        let out = self.lower_reshaped(&r, target, options, produce);
        Some((
            out,
            Reshaping {
                source: r.source,
                wire: r.read,
                lens: r.lens,
            },
        ))
    }

    /// `r`, this schema reshaped, lowered for `target`, with the reshaping's losses first.
    fn lower_reshaped(
        &self,
        r: &reshape::Reshaped,
        target: Target,
        options: &LowerOptions,
        produce: Produce,
    ) -> crate::dialect::Outcome {
        // The dialect that closes every object judges the reshaped schema, where a reshaping
        // may have moved an object away from the schemas it shares its place with (a map's
        // value schema into an entry list): what the source says must stay open, stays open.
        let mut hidden = crate::dialect::declared::hidden_by_references(self);
        if matches!(target, Target::Gemini | Target::VertexGemini) {
            hidden.extend(crate::dialect::declared::unsafe_pointers(self));
        }
        let mut out = crate::dialect::lower_derived(&r.wire, target, options, &hidden, produce);
        if out.mode == Mode::Exact && !r.losses.is_empty() {
            // What the reshaping leaves to the local check is a loss like any other.
            out.mode = Mode::Widened;
        }
        let mut losses = r.losses.clone();
        losses.append(&mut out.losses);
        out.losses = losses;
        out
    }
}

/// The mode of a lowering of a `full` schema's widening that lost `widening_losses`: an exact
/// lowering of the widening is not exact for the schema itself.
fn after_widening(mode: Mode, widening_losses: &[Loss]) -> Mode {
    if mode == Mode::Exact && !widening_losses.is_empty() {
        Mode::Widened
    } else {
        mode
    }
}

/// Plain JSON mode for `target`: no schema, only "answer in JSON" where the provider has it.
pub fn json_mode(target: Target) -> Lowering {
    Lowering::prompt(None, target, Vec::new())
}
