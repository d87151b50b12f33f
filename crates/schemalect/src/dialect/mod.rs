//! Provider dialects: one module per provider family, each a widening lowering described by a
//! capability table (see [`caps`]).

pub(crate) mod batch;
pub mod caps;
mod claude;
mod closed;
pub(crate) mod declared;
mod emit;
mod gemini;
pub(crate) mod normalize;
mod ollama;
mod ollama_mlx;
mod openai;
pub mod refusal;
mod simple_regex;

use crate::loss::{Loss, Mode};
use crate::options::LowerOptions;
use crate::schema::Schema;
use crate::target::Target;
use crate::value::{JsonType, TypeSet};
use serde_json::Value;
use std::collections::HashSet;

pub use caps::Capabilities;
pub use refusal::{contradiction, Contradicted, Contradiction};

/// What a lowering is asked for. A linter reads a lowering's verdict (its mode and losses) and
/// never sends its request, and building the request is most of an emission's cost (maps of
/// owned keys and values, written and dropped). So for [`Produce::Verdict`] the dialects whose
/// verdict does not depend on the request they build walk the schema without building it (the
/// emitter's discarding walk, and that of Gemini's `responseSchema` lowering, each deciding as
/// its full walk does). Those that check limits on the request built (OpenAI's and Claude's
/// strict schemas) still build the schema, but none builds the request around it
/// ([`Produce::request`]): a verdict-only lowering's wire is `null` (`{}` in prompt mode) and
/// never leaves the crate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Produce {
    /// The request, to be sent: every lowering a caller can see.
    Request,
    /// The mode and losses alone ([`crate::Schema::assess`]).
    Verdict,
}

impl Produce {
    /// The request of a lowering, built by `build` only when it is to be sent. A verdict's is
    /// `null`, never read: the envelope around the schema (the request's maps, the schema's
    /// name and description) was 7 % of a SARIF `lint` of the shared corpus.
    pub(crate) fn request(self, build: impl FnOnce() -> Value) -> Value {
        match self {
            Produce::Request => build(),
            Produce::Verdict => Value::Null,
        }
    }
}

/// What a dialect produced: the lowering without its schema handle.
pub(crate) struct Outcome {
    pub mode: Mode,
    pub wire: Value,
    pub losses: Vec<Loss>,
}

impl Outcome {
    /// A native lowering: `Exact` when nothing was lost, else `Widened` (a lowering is exact
    /// exactly when it lists no loss, widening.md).
    pub(crate) fn native(wire: Value, losses: Vec<Loss>) -> Outcome {
        Outcome {
            mode: native_mode(&losses),
            wire,
            losses,
        }
    }
}

/// The mode of a native schema sent with `losses`: `Exact` when nothing was lost, else
/// `Widened`.
pub(crate) fn native_mode(losses: &[Loss]) -> Mode {
    if losses.is_empty() {
        Mode::Exact
    } else {
        Mode::Widened
    }
}

/// A JSON object of `entries`, moved in. Wire fragments are built with this rather than
/// `serde_json::json!`, which serialises an interpolated `Value` into a new one: a deep copy of
/// the whole lowered schema per request.
pub(crate) fn object<const N: usize>(entries: [(&str, Value); N]) -> Value {
    Value::Object(
        entries
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v))
            .collect(),
    )
}

/// True when every target sends `name` as given for [`LowerOptions::with_name`]:
/// `[A-Za-z0-9_-]{1,64}` (OpenAI's rule, the strictest). Another name is replaced by one
/// derived from the schema's `title`, so callers that want an error instead check it first.
///
/// [`LowerOptions::with_name`]: crate::LowerOptions::with_name
pub fn is_portable_name(name: &str) -> bool {
    closed::is_valid_name(name, openai::MAX_NAME)
}

/// The capability table of a target.
pub fn capabilities(target: Target) -> &'static Capabilities {
    match target {
        Target::Ollama => &ollama::CAPABILITIES,
        Target::Gemini => &gemini::OPENAPI_CAPABILITIES,
        Target::GeminiJson => &gemini::JSON_CAPABILITIES,
        Target::OpenAi | Target::Groq | Target::Mistral | Target::OpenRouter => {
            openai::table(target)
        }
        Target::Claude => &claude::CLAUDE,
        Target::ClaudeNative => &claude::CLAUDE_NATIVE,
        Target::OpenAiResponses => openai::table(target),
        Target::BedrockClaude => &claude::BEDROCK,
        Target::GeminiInteractions => &gemini::INTERACTIONS_CAPABILITIES,
        Target::VertexGemini => &gemini::VERTEX_CAPABILITIES,
        Target::OllamaMlx => &ollama_mlx::CAPABILITIES,
        Target::LlamaServer => &ollama::LLAMA_SERVER,
    }
}

/// The rows of a target's dialect for keywords only the `full` subset has (today Gemini's
/// `minProperties` and `maxProperties`), each with its source. The widening of `full` schemas
/// (`lower::widen_full`) keeps a keyword on the nodes it lowers where the row is
/// [`Support::Kept`](caps::Support::Kept), for the dialect lowering to send, and drops it
/// everywhere else, a loss (with the row's reason where the row says
/// [`Support::Dropped`](caps::Support::Dropped)): a target without rows drops every such
/// keyword. `docs/targets.md` lists them under "Keywords of the `full` subset", and
/// `tests/targets_doc.rs` checks each row against the lowerings.
pub fn full_rows(target: Target) -> &'static [caps::Row] {
    match target {
        Target::Gemini => &gemini::OPENAPI_FULL_ROWS,
        Target::VertexGemini => &gemini::VERTEX_FULL_ROWS,
        Target::GeminiJson => &gemini::JSON_FULL_ROWS,
        Target::GeminiInteractions => &gemini::INTERACTIONS_FULL_ROWS,
        Target::OpenAi
        | Target::Groq
        | Target::Mistral
        | Target::OpenRouter
        | Target::Ollama
        | Target::Claude
        | Target::ClaudeNative
        | Target::OpenAiResponses
        | Target::BedrockClaude
        | Target::OllamaMlx
        | Target::LlamaServer => &[],
    }
}

/// Which reshapings a target needs (the reshaping profile's lens makes them: [`crate::lens`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Needs {
    /// Close objects that declare properties (values in the declared fragment are unchanged).
    pub close_objects: bool,
    /// Every property required: optional ones become required-and-nullable.
    pub all_required: bool,
    /// Maps (`additionalProperties: {…}` without properties) become lists of entries.
    pub maps_as_entries: bool,
    /// Nodes admitting arbitrary objects become strings of JSON text.
    pub opaque_free_objects: bool,
    /// A root that is not a plain object becomes `{"value": root}`.
    pub envelope_root: bool,
}

impl Needs {
    /// True when nothing would be reshaped.
    pub fn is_none(self) -> bool {
        self == Needs::default()
    }
}

/// The reshapings a target's dialect needs to reach its strict mode (reshaping profile).
pub(crate) fn reshape_needs(target: Target) -> Needs {
    match target {
        Target::OpenAi
        | Target::OpenAiResponses
        | Target::Groq
        | Target::Mistral
        | Target::OpenRouter => Needs {
            close_objects: true,
            all_required: true,
            maps_as_entries: true,
            opaque_free_objects: true,
            envelope_root: true,
        },
        Target::Claude | Target::ClaudeNative | Target::BedrockClaude => Needs {
            close_objects: true,
            all_required: false,
            maps_as_entries: true,
            opaque_free_objects: true,
            envelope_root: true,
        },
        Target::Gemini | Target::VertexGemini => Needs {
            maps_as_entries: true,
            opaque_free_objects: true,
            ..Needs::default()
        },
        // All speak JSON Schema with explicit `additionalProperties`: nothing to reshape.
        Target::GeminiJson
        | Target::GeminiInteractions
        | Target::Ollama
        | Target::OllamaMlx
        | Target::LlamaServer => Needs::default(),
    }
}

/// Lowers `schema` for `target`.
pub(crate) fn lower(
    schema: &Schema,
    target: Target,
    options: &LowerOptions,
    produce: Produce,
) -> Outcome {
    lower_derived(
        schema,
        target,
        options,
        &declared::hidden_by_references(schema),
        produce,
    )
}

/// Lowers a schema derived from the source (reshaped), where `hidden` (the open objects that
/// references hide, see [`declared`]) was computed on the source as written.
pub(crate) fn lower_derived(
    schema: &Schema,
    target: Target,
    options: &LowerOptions,
    hidden: &HashSet<crate::pointer::Pointer>,
    produce: Produce,
) -> Outcome {
    // Extended subset: references that are not recursive are written out in place for every
    // dialect; recursive ones are left to the dialect. Past the output bound none is written
    // out: the dialects that accept `$defs` send each definition once, the others fall back.
    let (inlined, expansion) = normalize::inline_references_within_bound(schema);
    let mut out = match target {
        // The one dialect that closes every object itself must know which it must not close.
        Target::Gemini | Target::VertexGemini => {
            gemini::lower_openapi(&inlined.schema, options, hidden, produce)
        }
        _ => lower_inlined(&inlined.schema, target, options, produce),
    };
    if let Some(x) = expansion.filter(|_| out.mode > Mode::Widened) {
        for loss in out.losses.iter_mut().filter(|l| l.keyword == "$ref") {
            loss.reason = x.reason(&loss.reason).into();
        }
    }
    if !inlined.losses.is_empty() && out.mode <= Mode::Widened {
        let mut losses = inlined.losses;
        losses.append(&mut out.losses);
        out.losses = losses;
        out.mode = Mode::Widened;
    }
    out
}

fn lower_inlined(
    schema: &Schema,
    target: Target,
    options: &LowerOptions,
    produce: Produce,
) -> Outcome {
    match target {
        Target::Ollama => ollama::lower(schema, produce),
        Target::OllamaMlx => ollama_mlx::lower(schema, produce),
        Target::LlamaServer => ollama::lower_llama_server(schema, produce),
        Target::Gemini | Target::VertexGemini => {
            let hidden = declared::hidden_by_references(schema);
            gemini::lower_openapi(schema, options, &hidden, produce)
        }
        Target::GeminiJson => gemini::lower_json(schema, produce),
        Target::GeminiInteractions => gemini::lower_interactions(schema, produce),
        Target::OpenAi
        | Target::OpenAiResponses
        | Target::Groq
        | Target::Mistral
        | Target::OpenRouter => openai::lower(schema, target, options, produce),
        Target::Claude => claude::lower_tool(schema, options, produce),
        Target::ClaudeNative => claude::lower_native(schema, produce),
        Target::BedrockClaude => claude::lower_bedrock(schema, options, produce),
    }
}

/// True when every value the schema accepts is an object, so an object-only JSON mode
/// (OpenAI `json_object`, Ollama `"json"`) cannot narrow.
pub(crate) fn json_mode_allowed(schema: &Schema) -> bool {
    let t = schema.admitted(schema.root());
    !t.is_empty() && t.intersect(TypeSet::of(JsonType::Object)) == t
}

/// The schema written back as JSON Schema 2020-12: every keyword kept, in a canonical order,
/// numeric bounds in their normalised form, recursive references through `$defs`.
pub(crate) fn source_value(schema: &Schema) -> Result<Value, Loss> {
    let dialect = emit::JsonDialect {
        caps: None,
        closure: emit::Closure::AsSource,
        types: emit::Types::AsSource,
        references: true,
        explicit_items: false,
    };
    // Without a capability table only the emission limits can stop it, and they stop the
    // walk at the first node: one reason.
    emit::emit(schema, dialect).map(|e| e.schema).map_err(|d| {
        d.0.into_iter().next().unwrap_or_else(|| {
            Loss::new(
                &crate::Pointer::root(),
                "",
                "the schema cannot be written back",
            )
        })
    })
}
