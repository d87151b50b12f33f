//! Claude: `claude` (one forced tool whose input is the answer), `claude-native`
//! (`output_config.format`) and `bedrock-claude` (the forced tool through Bedrock's Converse
//! API, which refuses `output_config.format` for recent models).
//!
//! A plain tool's `input_schema` guides the model but does not constrain it: the only thing
//! guaranteed is that the input is an object. Strict tool use and `output_config.format`
//! compile the schema into a grammar instead, with their own subset (every object closed, no
//! numeric bounds, lengths, `maxItems` or `uniqueItems`, `minItems` 0 or 1) and per-request
//! limits. So the tool is marked `strict` when the schema fits that subset after widening
//! drops, and is otherwise sent as a plain forced tool, whose honest mode is `json`.
//! `output_config.format` has no plain variant: what does not fit is not sent at all.
//!
//! A forced tool is refused when extended thinking is on, and the tool's input is always an
//! object, so both the thinking option and a root that admits anything but objects mean that
//! nothing native is sent.

use super::caps::{row, Capabilities, Partial, PatternRule, Rewrite, Row, Support, ValueKinds};
use super::closed::{self, census, root_loss};
use super::emit::{blockers, emit, emit_for, Closure, Degrade, JsonDialect, Types};
use super::normalize::{normalize, Normalized, Rewrites};
use super::{batch, Outcome, Produce};
use crate::loss::{Loss, Mode};
use crate::options::LowerOptions;
use crate::pointer::Pointer;
use crate::schema::Schema;
use crate::target::Target;
use serde_json::{json, Map, Value};

const A1: &str = "https://platform.claude.com/docs/en/build-with-claude/structured-outputs#json-schema-limitations (providers.md A1, S-A3)";
const A1_LIMITS: &str = "https://platform.claude.com/docs/en/build-with-claude/structured-outputs (providers.md A1, S-A2 §4.4)";
const A2: &str = "https://github.com/anthropics/anthropic-sdk-python/blob/main/src/anthropic/lib/_parse/_transform.py (providers.md A2)";
const A1_PATTERN: &str = "https://platform.claude.com/docs/en/build-with-claude/structured-outputs#json-schema-limitations (providers.md A1: simple regexes, full and partial matching; backreferences, lookaround, `\\b` and large `{n,m}` refused)";
const I_A6_A7: &str = "https://github.com/earendil-works/pi/issues/9953 ; https://github.com/agentjido/req_llm/issues/302 (providers.md I-A6, I-A7)";
const I_A8: &str =
    "https://github.com/ghostlobster/memorize-everything/issues/93 (providers.md I-A8)";
const A1_CLOSED: &str = "https://platform.claude.com/docs/en/build-with-claude/structured-outputs#json-schema-limitations (providers.md A1: `additionalProperties` must be false; ⚠ objects without properties: the safe side, an empty closed object, is not sent strict)";
const A1_FORMAT: &str = "https://platform.claude.com/docs/en/build-with-claude/structured-outputs#json-schema-limitations (providers.md A1); `format` is an annotation in the subset, so enforcing it would narrow";

const NOT_IN_SUBSET: &str =
    "not sent: outside the documented subset for strict tools and `output_config.format`";
const NO_NUMERIC: &str = "not sent: strict tools and `output_config.format` refuse numeric constraints (400 `For 'integer' type, properties maximum, minimum are not supported`)";
const NO_LENGTH: &str =
    "not sent: strict tools and `output_config.format` refuse string length constraints";

/// The subset of strict tools and `output_config.format` (the same grammar compiler).
static STRICT_ROWS: [Row; 30] = [
    row("type", Support::Kept, A1),
    row("enum", Support::Partial(Partial::EnumValues(ValueKinds::Scalars)), A1),
    row("const", Support::Rewritten(Rewrite::ConstAsEnum), A1),
    row("pattern", Support::Partial(Partial::Patterns(PatternRule::ClaudeSimple)), A1_PATTERN),
    row("minLength", Support::Dropped(NO_LENGTH), A1),
    row("maxLength", Support::Dropped(NO_LENGTH), A1),
    row("minimum", Support::Dropped(NO_NUMERIC), I_A6_A7),
    row("maximum", Support::Dropped(NO_NUMERIC), I_A6_A7),
    row("exclusiveMinimum", Support::Dropped(NO_NUMERIC), A1),
    row("exclusiveMaximum", Support::Dropped(NO_NUMERIC), A1),
    row("multipleOf", Support::Dropped(NO_NUMERIC), A1),
    row("items", Support::Kept, A1),
    row("prefixItems", Support::Rewritten(Rewrite::PrefixItemsAsItems), A1),
    row("minItems", Support::Rewritten(Rewrite::MinItemsAtMostOne), I_A8),
    row("maxItems", Support::Dropped("not sent: strict tools and `output_config.format` refuse array constraints beyond `minItems` 0 or 1"), I_A8),
    row("uniqueItems", Support::Dropped("not sent: strict tools and `output_config.format` refuse it"), A1),
    row("properties", Support::Kept, A1),
    row("required", Support::Kept, A1_LIMITS),
    row("additionalProperties", Support::Kept, A1_CLOSED),
    row("oneOf", Support::Rewritten(Rewrite::OneOfAsAnyOf), A2),
    row("anyOf", Support::Kept, A1_LIMITS),
    row("allOf", Support::Rewritten(Rewrite::MergedIntoParent), A1),
    row("not", Support::Dropped(NOT_IN_SUBSET), A1),
    row("description", Support::Kept, A2),
    row("title", Support::Kept, A2),
    row("default", Support::Kept, A1),
    row("examples", Support::Dropped(NOT_IN_SUBSET), A2),
    row("format", Support::Rewritten(Rewrite::IntoDescription), A1_FORMAT),
    row("$schema", Support::Dropped(NOT_IN_SUBSET), A2),
    row("$id", Support::Dropped(NOT_IN_SUBSET), A2),
];

/// Claude forced tool, `strict` when the schema fits the grammar subset.
pub static CLAUDE: Capabilities = Capabilities {
    target: Target::Claude,
    field: "tools[0].input_schema",
    route: "one tool forced with `tool_choice: {type: \"tool\", name}`, `strict` for the grammar subset: https://platform.claude.com/docs/en/agents-and-tools/tool-use/implement-tool-use#forcing-tool-use ; https://platform.claude.com/docs/en/agents-and-tools/tool-use/strict-tool-use (providers.md A1, A3, A4, A5)",
    rows: &STRICT_ROWS,
};

/// Claude `output_config.format`.
pub static CLAUDE_NATIVE: Capabilities = Capabilities {
    target: Target::ClaudeNative,
    field: "output_config.format.schema",
    route: "`output_config.format` `{type: \"json_schema\", schema}`: https://platform.claude.com/docs/en/build-with-claude/structured-outputs (providers.md A1)",
    rows: &STRICT_ROWS,
};

const BEDROCK_ROUTE: &str = "Converse `toolConfig.tools[].toolSpec` (`inputSchema.json`, `strict`) with `toolChoice.tool`: https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ToolSpecification.html ; strict tool specs: https://github.com/opensearch-project/ml-commons/issues/4799 , https://github.com/JetBrains/koog/pull/1593 ; `output_config.format` refused on Bedrock (400 `Extra inputs are not permitted`): https://github.com/vercel/ai/issues/14773 , https://github.com/maximhq/bifrost/pull/3184 (providers-2026-12.md §3.2, §3.5)";

/// Claude on Bedrock's Converse API: the forced tool in Converse's spelling. The model and its
/// grammar compiler are Anthropic's, so the keyword rows are the strict subset's; what differs
/// is the wire (see `BEDROCK_ROUTE`) and that no native output format is sent.
pub static BEDROCK: Capabilities = Capabilities {
    target: Target::BedrockClaude,
    field: "toolConfig.tools[0].toolSpec.inputSchema.json",
    route: BEDROCK_ROUTE,
    rows: &STRICT_ROWS,
};

/// Bedrock's tool names: 1 to 64 characters of `[a-zA-Z0-9_-]` (Converse `ToolSpecification`,
/// see `BEDROCK_ROUTE`), inside Claude's own 128.
const BEDROCK_MAX_NAME: usize = 64;

/// Per-request limits of strict tools and `output_config.format` together (providers.md §4.4).
///
/// The documented counts (24 optional properties, 16 union-typed ones, across all strict tools)
/// are reachable only when spread over several tools: one schema with 24 optional or 16
/// union-typed properties already fails (`Schema is too complex for compilation`, rig
/// `tests/cassettes/anthropic/strict_schema_limits/`, providers-2026-12.md §3.2). One lowering
/// sends one schema, so it is checked against the effective thresholds: at most one below.
const MAX_OPTIONAL: usize = 23;
const MAX_UNIONS: usize = 15;
/// The thresholds at which one schema fails, named in the losses.
const FAILS_AT_OPTIONAL: usize = MAX_OPTIONAL + 1;
const FAILS_AT_UNIONS: usize = MAX_UNIONS + 1;
/// Tool names: `^[a-zA-Z0-9_-]{1,128}$` (providers.md I-A4).
const MAX_NAME: usize = 128;
const DEFAULT_DESCRIPTION: &str =
    "Give your answer by calling this tool: its input is the answer, in the shape of its schema.";

const FLATTEN: Rewrites = Rewrites {
    flatten_all_of: true,
    distribute_unions: true,
};

/// The parts of a forced tool, before a wire spells them.
struct ForcedTool {
    input_schema: Value,
    strict: bool,
    mode: Mode,
    losses: Vec<Loss>,
}

/// The forced tool's name and description, as the wire spells them (only a request's: a
/// verdict reads neither).
fn tool_text(schema: &Schema, options: &LowerOptions, max_name: usize) -> (String, String) {
    let name = closed::wire_name(options, schema, max_name);
    let description =
        closed::wire_description(options, schema).unwrap_or_else(|| DEFAULT_DESCRIPTION.to_owned());
    (name, description)
}

/// The forced tool for `caps` (Claude's or Bedrock's table), or the prompt-mode outcome when
/// no tool can be forced.
fn forced_tool(
    schema: &Schema,
    options: &LowerOptions,
    caps: &'static Capabilities,
    produce: Produce,
) -> Result<ForcedTool, Outcome> {
    if options.claude_thinking {
        return Err(prompt(root_loss(
            "no forced tool sent: extended thinking is on, and Claude refuses a forced `tool_choice` with thinking (400 `Thinking may not be enabled when tool_choice forces tool use.`)",
        )));
    }
    let normalized = normalize(schema, FLATTEN);
    closed::object_root(&normalized.schema).map_err(prompt)?;
    let from = shared(caps);
    let (input_schema, strict, mode, losses) =
        match batch::strict(schema, from, produce, || strict(&normalized, caps)) {
            Ok((sent, losses)) => (sent, true, super::native_mode(&losses), losses),
            Err(Degrade(blockers)) => {
                let guide = guide(&normalized.schema, caps, produce);
                (guide, false, Mode::Json, blockers)
            }
        };
    Ok(ForcedTool {
        input_schema,
        strict,
        mode,
        losses,
    })
}

pub(crate) fn lower_tool(schema: &Schema, options: &LowerOptions, produce: Produce) -> Outcome {
    let t = match forced_tool(schema, options, &CLAUDE, produce) {
        Ok(t) => t,
        Err(outcome) => return outcome,
    };
    let wire = produce.request(|| {
        let (name, description) = tool_text(schema, options, MAX_NAME);
        let mut tool = Map::new();
        tool.insert("name".into(), Value::from(name.clone()));
        tool.insert("description".into(), Value::from(description));
        tool.insert("input_schema".into(), t.input_schema);
        if t.strict {
            tool.insert("strict".into(), Value::Bool(true));
        }
        super::object([
            ("tools", Value::Array(vec![Value::Object(tool)])),
            ("tool_choice", json!({"type": "tool", "name": name})),
        ])
    });
    Outcome {
        mode: t.mode,
        wire,
        losses: t.losses,
    }
}

/// Bedrock Converse: the same forced tool as `claude`, spelled `toolConfig.tools[0].toolSpec`
/// and forced by `toolChoice.tool.name`. Bedrock refuses `output_config.format` for recent
/// Claude models, so there is no native-format variant of this route.
pub(crate) fn lower_bedrock(schema: &Schema, options: &LowerOptions, produce: Produce) -> Outcome {
    let t = match forced_tool(schema, options, &BEDROCK, produce) {
        Ok(t) => t,
        Err(outcome) => return outcome,
    };
    let wire = produce.request(|| {
        let (name, description) = tool_text(schema, options, BEDROCK_MAX_NAME);
        let mut spec = Map::new();
        spec.insert("name".into(), Value::from(name.clone()));
        spec.insert("description".into(), Value::from(description));
        spec.insert(
            "inputSchema".into(),
            super::object([("json", t.input_schema)]),
        );
        if t.strict {
            spec.insert("strict".into(), Value::Bool(true));
        }
        super::object([(
            "toolConfig",
            super::object([
                (
                    "tools",
                    Value::Array(vec![super::object([("toolSpec", Value::Object(spec))])]),
                ),
                (
                    "toolChoice",
                    super::object([("tool", super::object([("name", Value::from(name))]))]),
                ),
            ]),
        )])
    });
    Outcome {
        mode: t.mode,
        wire,
        losses: t.losses,
    }
}

pub(crate) fn lower_native(schema: &Schema, produce: Produce) -> Outcome {
    let normalized = normalize(schema, FLATTEN);
    if let Err(loss) = closed::object_root(&normalized.schema) {
        return prompt(loss);
    }
    let from = shared(&CLAUDE_NATIVE);
    match batch::strict(schema, from, produce, || {
        strict(&normalized, &CLAUDE_NATIVE)
    }) {
        Ok((sent, losses)) => Outcome::native(
            produce.request(|| {
                super::object([(
                    "output_config",
                    super::object([(
                        "format",
                        super::object([("type", Value::from("json_schema")), ("schema", sent)]),
                    )]),
                )])
            }),
            losses,
        ),
        Err(Degrade(blockers)) => prompt_listing(blockers),
    }
}

/// The strict emission of `caps`, as a batch of assessments shares it: the three routes have
/// the same rows, and [`strict`] reads nothing else of the table.
fn shared(caps: &'static Capabilities) -> batch::Strict {
    batch::Strict {
        dialect: "claude",
        rows: caps.rows,
        references: false,
    }
}

fn prompt(loss: Loss) -> Outcome {
    prompt_listing(vec![loss])
}

/// Prompt mode, with every reason a schema could not be sent.
fn prompt_listing(losses: Vec<Loss>) -> Outcome {
    Outcome {
        mode: Mode::Prompt,
        wire: Value::Object(Map::new()),
        losses,
    }
}

/// The grammar-constrained schema and its losses, or why the grammar subset cannot keep the
/// contract. The root is known to be a non-union object.
fn strict(
    normalized: &Normalized,
    caps: &'static Capabilities,
) -> Result<(Value, Vec<Loss>), Degrade> {
    let prepared = closed::prepare(&normalized.schema, caps);
    // Counted on the IR first: a schema over the limit (a wide form) would otherwise be
    // emitted only to be dropped, and the plain tool emitted after it.
    if let Err(mut over) = optional_within_limit(closed::optional_properties(&prepared.schema)) {
        over.merge(prepared.blocked);
        return Err(over);
    }
    let dialect = JsonDialect {
        caps: Some(caps),
        closure: Closure::RequireClosed {
            all_required: false,
            no_empty_objects: Some(EMPTY_CLOSED_OBJECT),
        },
        types: Types::OutsideUnions,
        // "recursive schemas" are refused by the grammar subset (providers.md §4.3).
        references: false,
        explicit_items: false,
    };
    // Blocked by the pre-pass already: the emission only names its own blockers.
    let emitted = prepared.emitted(if prepared.blocked.is_empty() {
        emit(&prepared.schema, dialect)
    } else {
        Err(blockers(&prepared.schema, dialect))
    })?;
    within_limits(&emitted.schema)?;
    let mut losses = normalized.losses.clone();
    losses.extend(prepared.losses);
    losses.extend(emitted.losses);
    Ok((emitted.schema, losses))
}

/// Why a closed object without properties is not sent strict.
const EMPTY_CLOSED_OBJECT: &str = "a closed object declares no property; ⚠ the grammar subset's handling of objects without properties is undocumented, so the safe side is not to send it strict";

fn within_limits(schema: &Value) -> Result<(), Degrade> {
    let c = census(schema);
    if c.empty_closed_objects > 0 {
        // The emitter names each such node (`EMPTY_CLOSED_OBJECT`); this census of the wire
        // is the backstop for one the emitter did not see as such.
        return over_limit(EMPTY_CLOSED_OBJECT.to_owned());
    }
    optional_within_limit(c.optional)?;
    if c.unions > MAX_UNIONS {
        return over_limit(format!("{} union-typed nodes (`anyOf` or a list of types); one strict schema with {FAILS_AT_UNIONS} already fails (`Schema is too complex for compilation`), so at most {MAX_UNIONS} are sent strict", c.unions));
    }
    Ok(())
}

fn optional_within_limit(optional: usize) -> Result<(), Degrade> {
    if optional > MAX_OPTIONAL {
        return over_limit(format!("{optional} optional properties; one strict schema with {FAILS_AT_OPTIONAL} already fails (`Schema is too complex for compilation`), so at most {MAX_OPTIONAL} are sent strict"));
    }
    Ok(())
}

fn over_limit(what: String) -> Result<(), Degrade> {
    Err(Degrade::from(Loss::new(&Pointer::root(), "", what)))
}

/// The `input_schema` of a plain (non-strict) forced tool: guidance only, so it may stay open,
/// but its root must say `type: "object"` (exact: the root admits only objects). When even
/// that cannot be emitted, `{"type": "object"}` is what the tool guarantees anyway. Nothing is
/// checked on it, so for [`Produce::Verdict`] it is walked (the walk spends the work budget
/// the verdict depends on) but not built.
fn guide(schema: &Schema, caps: &'static Capabilities, produce: Produce) -> Value {
    let dialect = JsonDialect {
        caps: Some(caps),
        closure: Closure::ExplicitOpen,
        types: Types::AsSource,
        // Tool input schemas are JSON Schema 2020-12 (providers.md A3): `$defs` and `$ref`.
        references: true,
        explicit_items: false,
    };
    match emit_for(schema, dialect, produce) {
        Ok(emitted) => {
            let mut sent = emitted.schema;
            if let Value::Object(map) = &mut sent {
                map.insert("type".into(), Value::from("object"));
            }
            sent
        }
        Err(_) => json!({"type": "object"}),
    }
}

#[cfg(test)]
mod tests;
