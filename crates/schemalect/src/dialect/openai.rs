//! The OpenAI family (`openai`, `groq`, `mistral`, `openrouter`): `response_format`; and
//! `openai-responses`, the same strict subset in the Responses API's `text.format`.
//!
//! Strict `json_schema` constrains decoding to the schema sent, so it is the only native mode
//! that enforces more than "an object". Strict decoders close every object and require every
//! property, so under the conservative profile strict is used only when the source already says
//! so (closed objects, every property required, an object root); the pre-pass in
//! [`super::closed`] adds what the provider needs without changing meaning (explicit types,
//! `properties: {}`), and the keyword table drops what strict mode rejects where dropping widens.
//! Otherwise `json_object` is sent when every accepted value is an object, and nothing when not:
//! `json_object` on a non-object root would make every valid answer impossible. (OpenAI also
//! refuses `json_object` unless the word "JSON" appears in the messages, providers.md I-O14:
//! the caller's prompt has to carry it.)
//!
//! Groq, Mistral and OpenRouter document a smaller subset, or none, or route to providers with
//! other rules, so their tables send only the structural core every strict upstream accepts.

use super::caps::{row, Capabilities, Partial, PatternRule, Rewrite, Row, Support, ValueKinds};
use super::closed::{self, census, root_loss, Fields};
use super::emit::{blockers, emit, Closure, Degrade, JsonDialect, Types};
use super::normalize::{normalize, Rewrites};
use super::{batch, json_mode_allowed, Outcome, Produce};
use crate::loss::{Loss, Mode};
use crate::options::LowerOptions;
use crate::pointer::Pointer;
use crate::schema::Schema;
use crate::target::Target;
use serde_json::{json, Map, Value};

const O1: &str = "https://platform.openai.com/docs/guides/structured-outputs#supported-schemas (providers.md O1)";
const O1_LIMITS: &str = "https://platform.openai.com/docs/guides/structured-outputs#objects-have-limitations-on-nesting-depth-and-size (providers.md O1, I-O13)";
const O1_ANY_OF: &str = "https://platform.openai.com/docs/guides/structured-outputs#root-objects-must-not-be-anyof-and-must-be-an-object (providers.md O1); identical first keys: https://github.com/openai/openai-python/issues/2193 (providers.md S-O1, ⚠ second-hand)";
const O1_CLOSED: &str = "https://platform.openai.com/docs/guides/structured-outputs#additionalproperties-false-must-always-be-set-in-objects ; https://github.com/lastmile-ai/openai-agents-mcp/issues/2 (providers.md O1, I-O1)";
const O1_REQUIRED: &str = "https://platform.openai.com/docs/guides/structured-outputs#all-fields-must-be-required ; https://github.com/vercel/ai/issues/6484 (providers.md O1, I-O0)";
const O1_ITEMS: &str = "https://platform.openai.com/docs/guides/structured-outputs#supported-schemas (providers.md O1); arrays without `items` refused (400 `array schema missing items`): https://github.com/gumloop/guMCP/pull/136";
const O1_ENUM: &str = "https://platform.openai.com/docs/guides/structured-outputs#supported-schemas (providers.md O1; ⚠ non-string values are not explicitly documented: kept, because a refusal is visible and never narrows, while dropping them would give up every integer enum)";
const O1_BOUNDS: &str = "https://platform.openai.com/docs/guides/structured-outputs#supported-properties ; https://github.com/pydantic/pydantic-ai/pull/2420 (providers.md O1, I-O3)";
const O5: &str = "https://github.com/openai/openai-node/blob/master/src/lib/transform.ts (providers.md O5); `allOf` refused in strict mode: providers.md O1";
const I_O2: &str = "https://github.com/567-labs/instructor/issues/1074 (providers.md I-O2)";
const I_O4_O5: &str = "https://github.com/jina-ai/node-DeepResearch/issues/79 ; https://github.com/pydantic/pydantic-ai/issues/7315 (providers.md I-O4, I-O5)";
const I_O5: &str = "https://github.com/pydantic/pydantic-ai/issues/7315 (providers.md I-O5)";
const I_O6: &str = "https://github.com/openai/openai-agents-python/pull/1884 ; https://github.com/openai/openai-node/issues/2152 (providers.md I-O6, I-O7)";
const I_O8: &str = "https://github.com/can1357/oh-my-pi/issues/206 (providers.md I-O8); `format` is an annotation in the subset, so enforcing it would narrow";
const I_O10: &str = "https://github.com/vercel/ai/pull/21037 (providers.md I-O10; regex dialect otherwise undocumented ⚠)";
const I_O12: &str = "https://github.com/mastra-ai/mastra/issues/23321 (providers.md I-O12)";
const G1: &str =
    "https://console.groq.com/docs/structured-outputs#schema-requirements (providers.md G1)";
const M1: &str = "https://docs.mistral.ai/capabilities/structured-output/custom_structured_output/ (providers.md M1, M3)";
const I_M1: &str = "https://github.com/BerriAI/litellm/pull/13389 (providers.md I-M1)";
const R1: &str = "https://openrouter.ai/docs/structured-outputs (providers.md R1: the routed provider's schema rules apply)";

const O_ROUTE: &str = "`response_format` `{type: \"json_schema\", json_schema: {name, schema, strict}}` or `{type: \"json_object\"}`: https://platform.openai.com/docs/guides/structured-outputs ; https://github.com/openai/openai-openapi `ResponseFormatJsonSchema` (providers.md O1, O3, O4)";
const O_RESPONSES_ROUTE: &str = "Responses API `text.format` `{type: \"json_schema\", name, schema, strict}` or `{type: \"json_object\"}`: https://platform.openai.com/docs/api-reference/responses/create ; the same strict subset: https://platform.openai.com/docs/guides/structured-outputs (providers.md O1; issue 20)";

const NOT_STRICT_SUBSET: &str =
    "not sent: outside the strict subset, and strict mode refuses unsupported keywords";

/// OpenAI strict `json_schema`: one subset for Chat Completions and the Responses API.
static OPENAI_ROWS: [Row; 30] = [
        row("type", Support::Kept, O1),
        row("enum", Support::Partial(Partial::EnumValues(ValueKinds::Scalars)), O1_ENUM),
        row("const", Support::Rewritten(Rewrite::ConstAsEnum), O1),
        row("pattern", Support::Partial(Partial::Patterns(PatternRule::AnchoredSimple)), I_O10),
        row("minLength", Support::Dropped("not sent: ⚠ outside the documented strict subset; historically refused (400 `'minLength' is not permitted`), accepted by a 2026 probe; the safe side is not to send it"), I_O4_O5),
        row("maxLength", Support::Dropped("not sent: ⚠ outside the documented strict subset; historically refused (400 `'maxLength' is not permitted`), accepted by a 2026 probe; the safe side is not to send it"), I_O4_O5),
        row("minimum", Support::Kept, O1_BOUNDS),
        row("maximum", Support::Kept, O1_BOUNDS),
        row("exclusiveMinimum", Support::Kept, O1_BOUNDS),
        row("exclusiveMaximum", Support::Kept, O1_BOUNDS),
        row("multipleOf", Support::Kept, O1_BOUNDS),
        row("items", Support::Kept, O1_ITEMS),
        row("prefixItems", Support::Rewritten(Rewrite::PrefixItemsAsItems), I_O5),
        row("minItems", Support::Kept, O1),
        row("maxItems", Support::Kept, O1),
        row("uniqueItems", Support::Dropped("not sent: strict mode refuses it (400)"), I_O12),
        row("properties", Support::Kept, O1_LIMITS),
        row("required", Support::Kept, O1_REQUIRED),
        row("additionalProperties", Support::Kept, O1_CLOSED),
        row("oneOf", Support::Rewritten(Rewrite::OneOfAsAnyOf), I_O6),
        row("anyOf", Support::Kept, O1_ANY_OF),
        row("allOf", Support::Rewritten(Rewrite::MergedIntoParent), O5),
        row("not", Support::Dropped("not sent: strict mode refuses it"), O1),
        row("description", Support::Kept, O1),
        row("title", Support::Kept, O1),
        row("default", Support::Dropped("not sent: strict mode refuses it (400 `'default' is not permitted`)"), I_O2),
        row("examples", Support::Dropped(NOT_STRICT_SUBSET), O1),
        row("format", Support::Rewritten(Rewrite::IntoDescription), I_O8),
        row("$schema", Support::Dropped(NOT_STRICT_SUBSET), O1),
        row("$id", Support::Dropped(NOT_STRICT_SUBSET), O1),
];

/// OpenAI Chat Completions strict `json_schema`.
pub static OPENAI: Capabilities = Capabilities {
    target: Target::OpenAi,
    field: "response_format.json_schema.schema",
    route: O_ROUTE,
    rows: &OPENAI_ROWS,
};

/// OpenAI Responses API strict `json_schema` in `text.format`: the same strict subset as
/// Chat Completions (one structured-outputs guide documents both), so the same rows.
pub static OPENAI_RESPONSES: Capabilities = Capabilities {
    target: Target::OpenAiResponses,
    field: "text.format.schema",
    route: O_RESPONSES_ROUTE,
    rows: &OPENAI_ROWS,
};

/// The structural core for OpenAI-compatible providers whose strict subset is smaller,
/// undocumented or decided upstream: `doc` is the provider's source, `why` says why the rest is
/// not sent, `meta` sources the `$schema`/`$id` rows.
const fn compat_rows(doc: &'static str, why: &'static str, meta: &'static str) -> [Row; 30] {
    [
        row("type", Support::Kept, doc),
        row(
            "enum",
            Support::Partial(Partial::EnumValues(ValueKinds::Scalars)),
            doc,
        ),
        row("const", Support::Rewritten(Rewrite::ConstAsEnum), doc),
        row("pattern", Support::Dropped(why), doc),
        row("minLength", Support::Dropped(why), doc),
        row("maxLength", Support::Dropped(why), doc),
        row("minimum", Support::Dropped(why), doc),
        row("maximum", Support::Dropped(why), doc),
        row("exclusiveMinimum", Support::Dropped(why), doc),
        row("exclusiveMaximum", Support::Dropped(why), doc),
        row("multipleOf", Support::Dropped(why), doc),
        row("items", Support::Kept, doc),
        row(
            "prefixItems",
            Support::Rewritten(Rewrite::PrefixItemsAsItems),
            doc,
        ),
        row("minItems", Support::Dropped(why), doc),
        row("maxItems", Support::Dropped(why), doc),
        row("uniqueItems", Support::Dropped(why), doc),
        row("properties", Support::Kept, doc),
        row("required", Support::Kept, doc),
        row("additionalProperties", Support::Kept, doc),
        row("oneOf", Support::Rewritten(Rewrite::OneOfAsAnyOf), doc),
        row("anyOf", Support::Kept, doc),
        row("allOf", Support::Rewritten(Rewrite::MergedIntoParent), doc),
        row("not", Support::Dropped(why), doc),
        row("description", Support::Kept, doc),
        row("title", Support::Kept, doc),
        row("default", Support::Dropped(why), doc),
        row("examples", Support::Dropped(why), doc),
        row("format", Support::Rewritten(Rewrite::IntoDescription), doc),
        row("$schema", Support::Dropped(why), meta),
        row("$id", Support::Dropped(why), meta),
    ]
}

static GROQ_ROWS: [Row; 30] = compat_rows(
    G1,
    "not sent: ⚠ outside the subset Groq documents for strict mode (types, object, array, enum, anyOf, $defs/$ref); the safe side is not to send it",
    G1,
);
static MISTRAL_ROWS: [Row; 30] = compat_rows(
    M1,
    "not sent: ⚠ Mistral publishes no keyword subset, and its schema compiler refuses keywords it does not know (it stopped accepting `$id`/`$schema`); only the structural core is sent",
    I_M1,
);
static OPENROUTER_ROWS: [Row; 30] = compat_rows(
    R1,
    "not sent: the routed provider's rules apply (Anthropic's strict decoder, for one, refuses bounds, lengths and `maxItems`), so only the structural core every strict upstream accepts is sent",
    R1,
);

/// Groq strict `json_schema` (on models that support it).
pub static GROQ: Capabilities = Capabilities {
    target: Target::Groq,
    field: "response_format.json_schema.schema",
    route: G1,
    rows: &GROQ_ROWS,
};

/// Mistral strict `json_schema`.
pub static MISTRAL: Capabilities = Capabilities {
    target: Target::Mistral,
    field: "response_format.json_schema.schema",
    route: M1,
    rows: &MISTRAL_ROWS,
};

/// OpenRouter's pass-through strict `json_schema`.
pub static OPENROUTER: Capabilities = Capabilities {
    target: Target::OpenRouter,
    field: "response_format.json_schema.schema",
    route: R1,
    rows: &OPENROUTER_ROWS,
};

/// The table of a target of the family.
pub(crate) fn table(target: Target) -> &'static Capabilities {
    match target {
        Target::Groq => &GROQ,
        Target::Mistral => &MISTRAL,
        Target::OpenRouter => &OPENROUTER,
        Target::OpenAiResponses => &OPENAI_RESPONSES,
        _ => &OPENAI,
    }
}

/// OpenAI's documented limits (providers.md §1.4), applied to the whole family: the others
/// document none, and a route may end at OpenAI.
const MAX_DEPTH: usize = 10;
const MAX_PROPERTIES: usize = 5_000;
const MAX_ENUM_VALUES: usize = 1_000;
const MAX_CHARS: usize = 120_000;
const MAX_LARGE_ENUM_CHARS: usize = 15_000;
pub(crate) const MAX_NAME: usize = 64;

pub(crate) fn lower(
    schema: &Schema,
    target: Target,
    options: &LowerOptions,
    produce: Produce,
) -> Outcome {
    let attempt = if target == Target::Groq && !options.groq_strict {
        Err(Degrade::from(root_loss(
            "strict `json_schema` not sent: the Groq model is not marked as supporting it (`LowerOptions::groq_strict`), and other Groq models only treat the schema as a hint",
        )))
    } else {
        let caps = table(target);
        let from = batch::Strict {
            dialect: "openai",
            rows: caps.rows,
            references: sends_references(caps),
        };
        batch::strict(schema, from, produce, || strict(schema, caps))
    };
    match attempt {
        Ok((sent, losses)) => {
            let wire = produce.request(|| {
                let mut spec = Map::new();
                spec.insert(
                    "name".into(),
                    Value::from(closed::wire_name(options, schema, MAX_NAME)),
                );
                if let Some(d) = closed::wire_description(options, schema) {
                    spec.insert("description".into(), Value::from(d));
                }
                spec.insert("schema".into(), sent);
                spec.insert("strict".into(), Value::Bool(true));
                let format = if target == Target::OpenAiResponses {
                    // The Responses API spells the same fields flat beside `type`.
                    let mut flat = Map::new();
                    flat.insert("type".into(), Value::from("json_schema"));
                    flat.extend(spec);
                    Value::Object(flat)
                } else {
                    super::object([
                        ("type", Value::from("json_schema")),
                        ("json_schema", Value::Object(spec)),
                    ])
                };
                request(target, options, format)
            });
            Outcome::native(wire, losses)
        }
        Err(Degrade(blockers)) => fallback(schema, target, options, blockers, produce),
    }
}

/// The request fragment: `response_format` (the Responses API: `text.format`), plus
/// OpenRouter's `provider.require_parameters` so routes that would silently ignore
/// `response_format` are skipped.
fn request(target: Target, options: &LowerOptions, format: Value) -> Value {
    let mut wire = Map::new();
    if target == Target::OpenAiResponses {
        wire.insert("text".into(), super::object([("format", format)]));
    } else {
        wire.insert("response_format".into(), format);
    }
    if target == Target::OpenRouter && options.openrouter_require_parameters {
        wire.insert("provider".into(), json!({"require_parameters": true}));
    }
    Value::Object(wire)
}

fn fallback(
    schema: &Schema,
    target: Target,
    options: &LowerOptions,
    mut blockers: Vec<Loss>,
    produce: Produce,
) -> Outcome {
    if json_mode_allowed(schema) {
        Outcome {
            mode: Mode::Json,
            wire: produce.request(|| request(target, options, json!({"type": "json_object"}))),
            losses: blockers,
        }
    } else {
        blockers.push(root_loss("`json_object` not sent either: it admits only objects, and this schema accepts other values"));
        Outcome {
            mode: Mode::Prompt,
            wire: Value::Object(Map::new()),
            losses: blockers,
        }
    }
}

/// The strict schema and its losses, or why strict mode cannot keep the contract.
fn strict(schema: &Schema, caps: &'static Capabilities) -> Result<(Value, Vec<Loss>), Degrade> {
    let normalized = normalize(
        schema,
        Rewrites {
            flatten_all_of: true,
            distribute_unions: true,
        },
    );
    closed::object_root(&normalized.schema).map_err(Degrade::from)?;
    let prepared = closed::prepare(&normalized.schema, caps);
    let dialect = JsonDialect {
        caps: Some(caps),
        closure: Closure::RequireClosed {
            all_required: true,
            no_empty_objects: None,
        },
        types: Types::OutsideUnions,
        references: sends_references(caps),
        explicit_items: false,
    };
    // Blocked by the pre-pass already: the emission only names its own blockers.
    let emitted = prepared.emitted(if prepared.blocked.is_empty() {
        emit(&prepared.schema, dialect)
    } else {
        Err(blockers(&prepared.schema, dialect))
    })?;
    let mut sent = emitted.schema;
    complete_closed_objects(&mut sent);
    within_limits(&sent)?;
    let mut losses = normalized.losses;
    losses.extend(prepared.losses);
    losses.extend(emitted.losses);
    Ok((sent, losses))
}

/// OpenAI (both APIs) and Groq document `$defs` with recursion (providers.md O1, G1); Mistral
/// and OpenRouter routes do not say, so recursion degrades there.
fn sends_references(caps: &Capabilities) -> bool {
    matches!(
        caps.target,
        Target::OpenAi | Target::OpenAiResponses | Target::Groq
    )
}

/// Gives every closed object `properties` and `required`, even empty: OpenAI refuses an object
/// schema without `properties` (400 `object schema missing properties`, e.g.
/// <https://github.com/spring-projects/spring-ai/issues/4776>), and strict mode wants `required`
/// to list every property, none included.
fn complete_closed_objects(schema: &mut Value) {
    let mut stack = vec![schema];
    while let Some(node) = stack.pop() {
        let Value::Object(map) = node else {
            continue;
        };
        // One pass over the members rather than three hashed lookups per node.
        let (mut closed, mut has_properties, mut has_required) = (false, false, false);
        for (keyword, v) in map.iter() {
            match keyword.as_str() {
                "additionalProperties" => closed = *v == Value::Bool(false),
                "properties" => has_properties = true,
                "required" => has_required = true,
                _ => {}
            }
        }
        if closed && !(has_properties && has_required) {
            if !has_properties {
                map.insert("properties".into(), Value::Object(Map::new()));
            }
            if !has_required {
                let names = map
                    .get("properties")
                    .and_then(Value::as_object)
                    .map(|p| p.keys().cloned().map(Value::from).collect())
                    .unwrap_or_default();
                map.insert("required".into(), Value::Array(names));
            }
        }
        for (key, child) in map.iter_mut() {
            match (key.as_str(), child) {
                ("properties", Value::Object(props)) => stack.extend(props.values_mut()),
                ("anyOf", Value::Array(branches)) => stack.extend(branches.iter_mut()),
                ("items", item) => stack.push(item),
                _ => {}
            }
        }
    }
}

/// Checks the documented size limits and the identical-first-key rule on what is sent.
fn within_limits(schema: &Value) -> Result<(), Degrade> {
    let c = census(schema);
    let over = |what: String| Err(Degrade::from(Loss::new(&Pointer::root(), "", what)));
    if c.depth > MAX_DEPTH {
        return over(format!(
            "objects and arrays nest {} levels deep; strict mode allows {MAX_DEPTH}",
            c.depth
        ));
    }
    if c.properties > MAX_PROPERTIES {
        return over(format!(
            "{} object properties; strict mode allows {MAX_PROPERTIES}",
            c.properties
        ));
    }
    if c.enum_values > MAX_ENUM_VALUES {
        return over(format!(
            "{} enum values; strict mode allows {MAX_ENUM_VALUES} across all enums",
            c.enum_values
        ));
    }
    if c.chars > MAX_CHARS {
        return over(format!(
            "{} characters of property names and enum values; strict mode allows {MAX_CHARS}",
            c.chars
        ));
    }
    if c.large_string_enum_chars > MAX_LARGE_ENUM_CHARS {
        return over(format!("a string enum of more than 250 values totals {} characters; strict mode allows {MAX_LARGE_ENUM_CHARS}", c.large_string_enum_chars));
    }
    if let Some(key) = shared_first_key(schema) {
        return over(format!("two object alternatives of one `anyOf` start with the same property `{key}` with the same schema, which strict mode refuses (⚠ second-hand: \"Objects provided via 'anyOf' must not share identical first keys\")"));
    }
    Ok(())
}

/// The first property shared, with the same schema, by two object branches of one `anyOf`.
///
/// The rule is known second-hand only (providers.md S-O1; reproduced in
/// <https://github.com/openai/openai-python/issues/2193> with two branches starting `name: str`).
/// Its error text suggests "adding a discriminator key", and a discriminator shares the first
/// key's *name* across branches with different values, so a repeated name *and* schema
/// (annotations aside) is treated as the refused case.
fn shared_first_key(schema: &Value) -> Option<String> {
    let mut stack = vec![schema];
    while let Some(node) = stack.pop() {
        let Value::Object(map) = node else {
            continue;
        };
        let f = Fields::of(map);
        if let Some(branches) = f.any_of {
            let mut firsts: Vec<(&String, Value)> = Vec::new();
            for branch in branches.iter().filter_map(Value::as_object) {
                let b = Fields::of(branch);
                if !b.types().any(|t| t == "object") {
                    continue;
                }
                let first = b.properties.and_then(|p| p.iter().next());
                if let Some((name, sub)) = first {
                    let sub = without_annotations(sub, 0);
                    if firsts.iter().any(|(n, s)| *n == name && *s == sub) {
                        return Some(name.clone());
                    }
                    firsts.push((name, sub));
                }
            }
            stack.extend(branches);
        }
        if let Some(props) = f.properties {
            stack.extend(props.values());
        }
        if let Some(items) = f.items {
            stack.push(items);
        }
    }
    None
}

/// A copy of an emitted schema without `title`/`description` at schema positions, for
/// comparing what a decoder enforces. Past a nesting bound every schema compares equal, so the
/// comparison errs toward treating two schemas as the same (the weaker outcome).
fn without_annotations(schema: &Value, depth: usize) -> Value {
    let Value::Object(map) = schema else {
        return schema.clone();
    };
    if depth > 64 {
        return Value::Null;
    }
    let mut out = Map::new();
    for (key, value) in map {
        let v = match (key.as_str(), value) {
            ("title" | "description", _) => continue,
            ("properties", Value::Object(props)) => Value::Object(
                props
                    .iter()
                    .map(|(n, s)| (n.clone(), without_annotations(s, depth + 1)))
                    .collect(),
            ),
            ("anyOf", Value::Array(list)) => Value::Array(
                list.iter()
                    .map(|s| without_annotations(s, depth + 1))
                    .collect(),
            ),
            ("items", item) => without_annotations(item, depth + 1),
            (_, other) => other.clone(),
        };
        out.insert(key.clone(), v);
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests;
