//! Gemini `responseSchema`: the OpenAPI-subset `Schema` proto (GG1).
//!
//! The proto is narrower than JSON Schema in ways that force a lowering of its own rather than
//! a keyword table over the generic emitter:
//!
//! - `type` is one value, so a node is lowered per admitted type: one type stays one node,
//!   `null` becomes `nullable`, several types become `anyOf` of single-type branches, each with
//!   only the keywords that apply to its type (a `minimum` goes to the INTEGER branch, a
//!   `minLength` to the STRING branch). `NULL` as a type is too recent to rely on (⚠), so a
//!   value that can only be null is sent as a nullable STRING, a loss.
//! - A node with `anyOf` must have no other field (python-genai#625), so union annotations move
//!   into the branches and `nullable` sits on a branch, never beside `anyOf`.
//! - `enum` holds strings only and needs `type: STRING` (I-G4, I-G11). Literals are split by
//!   type like the node: string values become the STRING branch's `enum`, numbers the tightest
//!   bounds, booleans and null their type. Every value of the source stays admitted: splitting
//!   never filters.
//! - There is no `additionalProperties`: the decoder emits only declared keys, and an OBJECT
//!   without properties is a 400 (I-G1..3). An object with declared properties is closed to
//!   them, which is exact on the declared fragment (widening.md). An object that admits members
//!   it does not declare while declaring none (a map, `{"type": "object"}`) has no sound
//!   stand-in: there is no "any value" node (`type` is required), so the whole lowering falls
//!   back to the mime type alone. The same holds for arrays of unconstrained items: ARRAY needs
//!   `items` ("items: missing field") and no finite node admits every value.
//! - Degrading is never local. A node whose values must be admitted cannot be replaced by a
//!   narrower one or deleted: deleting an optional property makes the decoder unable to emit
//!   it, which rejects every source-valid value that has it. The one deletion that keeps the
//!   contract is of a property (or union branch, or tuple position) whose schema admits no
//!   value at all: nothing valid can carry it, so leaving it out is exact.
//!
//! Union siblings are distributed into the branches first (`N ∧ (A ∨ B)` → `(N ∧ A) ∨ (N ∧ B)`)
//! and `allOf` merged, so branch objects carry their parent's properties: closing a branch
//! that lacks them would narrow.

#[cfg(test)]
mod tests;

use super::{json_only, native};
use crate::dialect::caps::{row, Capabilities, Partial, PatternRule, Rewrite, Row, Support};
use crate::dialect::emit::{
    declares_properties, full_match_safe, with_format_hint, Blockers, Degrade, Discarding,
    LOOK_AHEADS_NOT_SENT, LOOK_AHEADS_ONLY_NOT_SENT, MAX_EMITTED_NODES,
};
use crate::dialect::normalize::{has_assertions_besides_unions, normalize, Rewrites};
use crate::dialect::{Outcome, Produce};
use crate::ir::{Additional, Bound, Node, NodeId, RequiredNames};
use crate::loss::Loss;
use crate::options::LowerOptions;
use crate::pointer::Pointer;
use crate::schema::Schema;
use crate::seen::Distinct;
use crate::target::Target;
use crate::value::{cmp_numbers, is_integer, num, JsonType, Num, TypeSet};
use serde_json::{Map, Number, Value};
use std::borrow::Cow;
use std::cmp::Ordering;
use std::collections::HashSet;

const GG1: &str = "https://github.com/googleapis/googleapis/blob/f8291d2b/google/ai/generativelanguage/v1beta/content.proto `Schema` (providers.md GG1, §3.2)";
const I_G1: &str = "https://github.com/agno-agi/agno/issues/2112 `properties: should be non-empty for OBJECT type` (providers.md I-G1..3, §3.2, §7)";
const I_G4: &str = "https://github.com/microsoft/azure-devops-mcp/issues/145 numeric enum → 400; https://github.com/decolua/9router/pull/380 enum needs STRING (providers.md I-G4, I-G11, GG1, §3.2)";
const I_G6: &str = "https://github.com/prism-php/prism/issues/974 `type` is not repeating; https://github.com/googleapis/python-genai/issues/625 `anyOf` must be the only field (providers.md I-G6, GG1, §3.2)";
const I_G7: &str = "https://github.com/tashfeenahmed/freellmapi/issues/97 `Unknown name \"additionalProperties\"` (providers.md I-G7, §3.2, §7 caveat on closed objects)";
const I_G8: &str = "https://github.com/theopenco/llmgateway/issues/1763 `Unknown name \"exclusiveMinimum\"/\"const\"` (providers.md I-G8, §3.2, §7)";
const I_G9: &str = "https://github.com/decolua/9router/pull/3018 `Unknown name \"uniqueItems\"`, `multipleOf` (providers.md I-G9, §3.2, §7)";
const I_G5: &str = "https://github.com/google-gemini/gemini-cli/issues/3178 `only 'enum' and 'date-time' are supported for STRING type` (providers.md I-G5, §3.2, §7)";
const ITEMS: &str = "https://github.com/cline/cline/issues/7339 ARRAY without `items` → 400 `items: missing field`; Schema.items (providers.md GG1, §3.2)";

/// The rows of `responseSchema` on both hosts; only `additional` (the `additionalProperties`
/// row) differs between the Gemini API and Vertex AI.
#[rustfmt::skip]
const fn rows(additional: Row) -> [Row; 30] {
    [
        row("type", Support::Rewritten(Rewrite::TypeUnionSplit), I_G6),
        row("enum", Support::Partial(Partial::LiteralsByType), I_G4),
        row("const", Support::Partial(Partial::LiteralsByType), I_G8),
        row("pattern", Support::Partial(Partial::Patterns(PatternRule::FullMatchSafe)), "regex dialect and match mode undocumented (providers.md GG1, §3.2 ⚠): sent in the portable spelling (`\\d`, `\\s`, `.`, named groups written out), in a form both readings agree on: https://github.com/googleapis/googleapis/blob/f8291d2b/google/ai/generativelanguage/v1beta/content.proto"),
        row("minLength", Support::Kept, GG1),
        row("maxLength", Support::Kept, GG1),
        row("minimum", Support::Kept, GG1),
        row("maximum", Support::Kept, GG1),
        row("exclusiveMinimum", Support::Rewritten(Rewrite::ExclusiveAsInclusive), I_G8),
        row("exclusiveMaximum", Support::Rewritten(Rewrite::ExclusiveAsInclusive), I_G8),
        row("multipleOf", Support::Dropped("no such field in the proto (400 `Unknown name`)"), I_G9),
        row("items", Support::Kept, ITEMS),
        row("prefixItems", Support::Rewritten(Rewrite::PrefixItemsAsItems), GG1),
        row("minItems", Support::Kept, GG1),
        row("maxItems", Support::Kept, GG1),
        row("uniqueItems", Support::Dropped("no such field in the proto (400 `Unknown name`)"), I_G9),
        row("properties", Support::Kept, I_G1),
        row("required", Support::Kept, GG1),
        additional,
        row("oneOf", Support::Rewritten(Rewrite::OneOfAsAnyOf), I_G8),
        row("anyOf", Support::Kept, I_G6),
        row("allOf", Support::Rewritten(Rewrite::MergedIntoParent), "no such field in the proto (providers.md §3.2, §7 caveat: dropping members that declare properties narrows closed objects): https://github.com/googleapis/googleapis/blob/f8291d2b/google/ai/generativelanguage/v1beta/content.proto"),
        row("not", Support::Dropped("no such field in the proto (400 `Unknown name`)"), GG1),
        row("description", Support::Kept, GG1),
        row("title", Support::Kept, GG1),
        row("default", Support::Dropped("accepted and ignored by the server: an annotation, nothing to gain"), GG1),
        row("examples", Support::Dropped("the proto's `example` is documented for the root only; an annotation"), GG1),
        row("format", Support::Rewritten(Rewrite::IntoDescription), I_G5),
        row("$schema", Support::Dropped("no such field in the proto (400 `Unknown name`); an annotation"), GG1),
        row("$id", Support::Dropped("no such field in the proto (400 `Unknown name`); an annotation"), GG1),
    ]
}

/// What `responseSchema` does with each subset keyword. The lowering below is written to
/// these rows; the generic emitter does not read them.
pub static CAPABILITIES: Capabilities = Capabilities {
    target: Target::Gemini,
    field: "generationConfig.responseSchema",
    route: "`generationConfig.responseSchema` with `responseMimeType: \"application/json\"`: https://github.com/googleapis/googleapis/blob/f8291d2b/google/ai/generativelanguage/v1beta/generative_service.proto `GenerationConfig` (providers.md GG2, §3.1)",
    rows: &GEMINI_ROWS,
};

static GEMINI_ROWS: [Row; 30] = rows(row(
    "additionalProperties",
    Support::Partial(Partial::ClosedToDeclared),
    I_G7,
));

/// Vertex AI's `responseSchema`: the same `Schema` dialect, whose Vertex proto also has
/// `additionalProperties` (GG4). It is still not sent: what Vertex's decoder does with an open
/// object in this dialect is undocumented, and closing every object to its declared properties
/// is exact on the declared fragment, so the Gemini API lowering is the sound one on both hosts.
pub static VERTEX_CAPABILITIES: Capabilities = Capabilities {
    target: Target::VertexGemini,
    field: "generationConfig.responseSchema",
    route: "Vertex AI `generateContent`: `generationConfig.responseSchema` with `responseMimeType: \"application/json\"`, the Vertex `Schema` proto: https://github.com/googleapis/googleapis/blob/f8291d2b/google/cloud/aiplatform/v1/openapi.proto ; https://github.com/agentgateway/agentgateway/pull/3590 (providers.md GG4, providers-2026-12.md §3.3)",
    rows: &VERTEX_ROWS,
};

static VERTEX_ROWS: [Row; 30] = rows(row(
    "additionalProperties",
    Support::Partial(Partial::ClosedToDeclared),
    VERTEX_ADDITIONAL,
));

const VERTEX_ADDITIONAL: &str = "Vertex's `Schema` has `additionalProperties` (providers.md GG4: https://github.com/googleapis/googleapis/blob/f8291d2b/google/cloud/aiplatform/v1/openapi.proto ; accepted live where the Gemini API refuses it: https://github.com/agentgateway/agentgateway/pull/3590 , providers-2026-12.md §3.3); not sent, because its decoding of an open object is undocumented and closing to the declared properties is exact on the declared fragment";

/// `Schema.min_properties`/`max_properties` of the Gemini API proto, as providers.md records it
/// (GG1, §3.2) and the published v1beta client types show it.
const GG1_COUNTS: &str = "`Schema` has `minProperties`/`maxProperties` (int64, \"for Type.OBJECT\"): https://github.com/googleapis/googleapis/blob/f8291d2b/google/ai/generativelanguage/v1beta/content.proto (providers.md GG1, §3.2); https://docs.cloud.google.com/nodejs/docs/reference/generativelanguage/latest/generativelanguage/protos.google.ai.generativelanguage.v1beta.ischema";
/// The same fields in Vertex's `Schema` (GG4).
const GG4_COUNTS: &str = "Vertex's `Schema` has `min_properties`/`max_properties` (int64, \"Minimum/Maximum number of the properties for Type.OBJECT\"): https://github.com/googleapis/googleapis/blob/3597f7db2191c00b100400991ef96e52d62f5841/google/cloud/aiplatform/v1/openapi.proto (providers.md GG4); https://pub.dev/documentation/googleapis/latest/aiplatform_v1/GoogleCloudAiplatformV1Schema/minProperties.html";

/// The rows of `responseSchema` for keywords only the `full` subset has (see
/// [`crate::dialect::full_rows`]): both counts are proto fields, sent as they are on the OBJECT
/// branch. The decoder emits only declared keys, so a `minProperties` above the number of
/// declared properties sent is not sent (no answer could meet it there), a loss.
pub static FULL_ROWS: [Row; 2] = [
    row("minProperties", Support::Kept, GG1_COUNTS),
    row("maxProperties", Support::Kept, GG1_COUNTS),
];

/// [`FULL_ROWS`] on Vertex AI.
pub static VERTEX_FULL_ROWS: [Row; 2] = [
    row("minProperties", Support::Kept, GG4_COUNTS),
    row("maxProperties", Support::Kept, GG4_COUNTS),
];

/// The request field.
const FIELD: &str = "responseSchema";

/// Deeper than this, the lowering gives up rather than risk the stack. The front end bounds
/// source depth far below it; rewritten IRs are bounded by it too.
const MAX_DEPTH: usize = 512;

/// `hidden`: source pointers of open objects that references hide (see `dialect::declared`),
/// computed on the schema as written, before references were written out in place.
///
/// For [`Produce::Verdict`] the walk builds no `Schema` nodes ([`Discarding::discarding`]) and
/// no request ([`Produce::request`]); its mode and losses are those of the request.
pub(crate) fn lower(
    schema: &Schema,
    _options: &LowerOptions,
    hidden: &HashSet<Pointer>,
    produce: Produce,
) -> Outcome {
    let outcome = walk(schema, hidden, produce);
    #[cfg(test)]
    tests::check_discarding_walk(schema, hidden, produce, &outcome);
    outcome
}

/// The lowering; for a verdict, one that builds no request.
fn walk(schema: &Schema, hidden: &HashSet<Pointer>, produce: Produce) -> Outcome {
    let normalized = normalize(
        schema,
        Rewrites {
            flatten_all_of: true,
            distribute_unions: true,
        },
    );
    let mut l = Lowerer {
        schema: &normalized.schema,
        losses: normalized.losses,
        emitted: 0,
        unsafe_to_close: crate::dialect::declared::unsafe_to_close(&normalized.schema),
        hidden,
        blocked: Blockers::default(),
        stopped: false,
        discard: produce == Produce::Verdict,
    };
    let root = normalized.schema.root();
    match l.child(root, 0) {
        Ok(_) if !l.blocked.is_empty() => json_only(produce, l.blocked.into_list()),
        Ok(Out::Node(node)) => native(produce, FIELD, Value::Object(node), l.losses),
        Ok(Out::Nothing) => json_only(
            produce,
            vec![Loss::new(
                &normalized.schema.node(root).pointer,
                "",
                "the schema admits no value; nothing native is sent",
            )],
        ),
        Err(degrade) => json_only(produce, degrade.0),
    }
}

/// A lowered node.
enum Out {
    /// The source node admits no value, so a place that holds it can be left out exactly.
    Nothing,
    /// A `Schema` node.
    Node(Map<String, Value>),
}

struct Lowerer<'s> {
    schema: &'s Schema,
    losses: Vec<Loss>,
    /// Nodes written so far: shared definitions (extended subset) are written out in place, and
    /// that must not blow up.
    emitted: usize,
    /// Objects that other schemas at their location declare more names for: every OBJECT is
    /// closed to its properties here, which would narrow them (see `dialect::declared`).
    unsafe_to_close: Vec<bool>,
    /// Source pointers of open objects hidden behind references.
    hidden: &'s HashSet<Pointer>,
    /// Nodes that cannot be sent, one blocker each: the walk goes on past them so that the
    /// fallback names them all.
    blocked: Blockers,
    /// A limit of the whole lowering (depth, size) was hit: nothing more is walked.
    stopped: bool,
    /// Nothing of this lowering is sent, whatever the walk finds: only its verdict is asked
    /// for ([`Produce::Verdict`]).
    discard: bool,
}

fn degrade(node: &Node, keyword: &'static str, reason: &'static str) -> Degrade {
    Degrade::from(Loss::new(&node.pointer, keyword, reason))
}

/// The proto's spelling of a JSON type (enum `Type` of GG1; upper case is the canonical
/// proto-JSON form, lower case only works through lenient parsing ⚠).
fn type_name(t: JsonType) -> &'static str {
    match t {
        JsonType::Null => "NULL",
        JsonType::Boolean => "BOOLEAN",
        JsonType::Object => "OBJECT",
        JsonType::Array => "ARRAY",
        JsonType::Number => "NUMBER",
        JsonType::Integer => "INTEGER",
        JsonType::String => "STRING",
    }
}

/// A `Schema` node of type `t` for `node`, allocated for the fields it will carry (one more
/// for `nullable`).
fn typed(t: JsonType, node: &Node) -> Map<String, Value> {
    let mut m = Map::with_capacity(node.keyword_count() + 1);
    m.insert("type".into(), Value::from(type_name(t)));
    m
}

/// An `int64` field's value, or `None` when the count does not fit one (the proto would
/// refuse the request).
fn int64(n: u64) -> Option<Value> {
    i64::try_from(n).ok().map(Value::from)
}

/// A `double` field's value, or `None` when the number has no exact double: the server would
/// round it, possibly inward, which narrows.
fn double(n: Number) -> Option<Number> {
    let exact = match num(&n) {
        Num::Int(i) => (i as f64) as i128 == i,
        Num::Float(_) => true,
    };
    exact.then_some(n)
}

/// An integral number as an `i128` (`5.0` included), when it has one.
fn integral(n: &Number) -> Option<i128> {
    match num(n) {
        Num::Int(i) => Some(i),
        // Integral floats of this magnitude convert exactly.
        Num::Float(f) => {
            (f.is_finite() && f.fract() == 0.0 && f.abs() < 9.0e15).then_some(f as i128)
        }
    }
}

fn number_of(i: i128) -> Option<Number> {
    if let Ok(v) = i64::try_from(i) {
        return Some(Number::from(v));
    }
    u64::try_from(i).ok().map(Number::from)
}

/// The branches of one node, kept without a list while there is only one: most nodes admit
/// one type, and a list for each of them was an allocation per node.
#[derive(Default)]
enum Branches {
    #[default]
    None,
    One(Map<String, Value>),
    Many(Vec<Map<String, Value>>),
}

impl Branches {
    fn push(&mut self, branch: Map<String, Value>) {
        *self = match std::mem::take(self) {
            Branches::None => Branches::One(branch),
            Branches::One(first) => Branches::Many(vec![first, branch]),
            Branches::Many(mut all) => {
                all.push(branch);
                Branches::Many(all)
            }
        };
    }

    fn is_empty(&self) -> bool {
        matches!(self, Branches::None)
    }
}

/// `anyOf` of the branches, or the one branch itself; branches that are themselves a bare
/// `anyOf` are spliced in (the same union, one level less).
fn union_of(branches: Branches) -> Option<Map<String, Value>> {
    let branches = match branches {
        Branches::None => return None,
        // Already final: a bare `anyOf` built here has at least two branches.
        Branches::One(only) => return Some(only),
        Branches::Many(all) => all,
    };
    let mut flat = Vec::with_capacity(branches.len());
    for mut b in branches {
        match bare_union(&mut b) {
            Some(inner) => flat.append(inner),
            None => flat.push(Value::Object(b)),
        }
    }
    match flat.len() {
        0 => None,
        1 => match flat.pop() {
            Some(Value::Object(only)) => Some(only),
            _ => None,
        },
        _ => {
            let mut m = Map::new();
            m.insert("anyOf".into(), Value::Array(flat));
            Some(m)
        }
    }
}

/// The branches of a node that is only an `anyOf`, as [`union_of`] builds it. Read from the
/// node's one field rather than looked up: hashing the key costs more than the whole check.
fn bare_union(m: &mut Map<String, Value>) -> Option<&mut Vec<Value>> {
    if m.len() != 1 {
        return None;
    }
    match m.iter_mut().next() {
        Some((key, Value::Array(list))) if key == "anyOf" => Some(list),
        _ => None,
    }
}

/// The node's `title` and `description`, with `format` folded into the description as a hint
/// (sent as a field, a server that enforces it would narrow: `format` is an annotation).
fn annotations(node: &Node) -> (Option<&str>, Option<Cow<'_, str>>) {
    let Some(a) = &node.annotations else {
        return (None, None);
    };
    let description = match &a.format {
        Some(f) => Some(Cow::Owned(with_format_hint(a.description.as_deref(), f))),
        None => a.description.as_deref().map(Cow::Borrowed),
    };
    (a.title.as_deref(), description)
}

/// Gives a branch the annotations of the node it came from. A branch's own title wins; its
/// own description follows the node's. A node has a handful of fields, so they are scanned
/// rather than looked up by hash.
fn annotate(branch: &mut Map<String, Value>, title: Option<&str>, description: Option<&str>) {
    if let Some(t) = title {
        if !branch.keys().any(|k| k == "title") {
            branch.insert("title".into(), Value::from(t));
        }
    }
    if let Some(d) = description {
        let own = branch
            .iter()
            .find_map(|(k, v)| (k == "description").then_some(v))
            .and_then(Value::as_str);
        let merged = match own {
            Some(own) if !own.is_empty() && own != d => format!("{d}\n{own}"),
            _ => d.to_owned(),
        };
        branch.insert("description".into(), Value::from(merged));
    }
}

/// The lowering discards when only its verdict is asked for, or once a blocker is recorded,
/// so it falls back. Every decision is taken from the source node and from which children
/// admit a value, never from what a built node holds; `lower`'s test check compares both
/// walks.
impl Discarding for Lowerer<'_> {
    #[inline(always)]
    fn discarding(&self) -> bool {
        self.discard || !self.blocked.is_empty()
    }
}

impl Lowerer<'_> {
    fn loss(&mut self, node: &Node, keyword: &'static str, reason: &'static str) {
        self.losses.push(Loss::new(&node.pointer, keyword, reason));
    }

    /// A `Schema` node of type `t` for `node` ([`typed`]), or an empty one when
    /// [`Discarding::discarding`].
    fn typed_node(&self, t: JsonType, node: &Node) -> Map<String, Value> {
        if self.discarding() {
            Map::new()
        } else {
            typed(t, node)
        }
    }

    /// [`union_of`] the branches; when [`Discarding::discarding`], an empty node exactly when
    /// `union_of` gives one (it gives none only for no branch: a bare `anyOf` spliced in has
    /// at least two).
    fn union_of(&self, branches: Branches) -> Option<Map<String, Value>> {
        if self.discarding() {
            (!branches.is_empty()).then(Map::new)
        } else {
            union_of(branches)
        }
    }

    /// Writes a length or count into its int64 field, or records why it is not sent.
    fn count(&mut self, node: &Node, keyword: &'static str, n: u64, m: &mut Map<String, Value>) {
        match int64(n) {
            Some(v) => self.put(m, keyword, || v),
            None => self.loss(
                node,
                keyword,
                "too large for the proto's int64 field; not sent",
            ),
        }
    }

    /// Leaves out the members of an applicator that cannot be sent. Leaving out a conjunct
    /// widens, unless a member declares properties: closed objects would then reject them.
    fn drop_members(
        &mut self,
        node: &Node,
        members: &[NodeId],
        keyword: &'static str,
        why: &'static str,
    ) -> Result<(), Degrade> {
        if members
            .iter()
            .any(|m| declares_properties(self.schema, *m, 0))
        {
            return Err(degrade(node, keyword, "cannot be sent, and leaving it out would lose the properties its members declare (objects are closed)"));
        }
        self.loss(node, keyword, why);
        Ok(())
    }

    /// A subschema's lowering. One that cannot be sent is recorded in `blocked` and stands as
    /// `{}`, so the walk goes on and names every blocker; the result is never sent, since
    /// `lower` falls back when anything is blocked. A limit of the whole lowering stops the walk.
    fn child(&mut self, id: NodeId, depth: usize) -> Result<Out, Degrade> {
        match self.node(id, depth) {
            Err(d) if !self.stopped => {
                self.blocked.add(d.0);
                Ok(Out::Node(Map::new()))
            }
            other => other,
        }
    }

    fn node(&mut self, id: NodeId, depth: usize) -> Result<Out, Degrade> {
        let node = self.schema.node(id);
        if depth > MAX_DEPTH {
            self.stopped = true;
            return Err(degrade(node, "", "the schema nests too deeply to lower"));
        }
        if node.reference.is_some() {
            return Err(degrade(
                node,
                "$ref",
                "recursive references cannot be written in `responseSchema`; local validation checks them",
            ));
        }
        self.emitted += 1;
        if self.emitted > MAX_EMITTED_NODES {
            self.stopped = true;
            return Err(degrade(
                node,
                "",
                "the schema expands past the emission limit once shared definitions are written out in place",
            ));
        }
        let has_union = node.has_union();
        if has_union && !has_assertions_besides_unions(node) {
            return self.union(node, depth);
        }
        if has_union {
            // Distribution gave up (two unions, or the node budget). The unions' types still
            // bound the node through `admitted`; the unions themselves are left out.
            if self.schema.admitted(id).is_empty() {
                return Ok(Out::Nothing);
            }
            for (members, keyword) in [(&node.any_of, "anyOf"), (&node.one_of, "oneOf")] {
                if !members.is_empty() {
                    self.drop_members(
                        node,
                        members,
                        keyword,
                        "could not be folded into its siblings; not sent",
                    )?;
                }
            }
        }
        self.typed(id, node, depth)
    }

    /// A node that is only a union (after distribution).
    fn union(&mut self, node: &Node, depth: usize) -> Result<Out, Degrade> {
        const SECOND: &str = "a second union in the same node (only one fits); not sent";
        let (members, one_of) = match (node.any_of.is_empty(), node.one_of.is_empty()) {
            (false, true) => (&node.any_of, false),
            (true, false) => (&node.one_of, true),
            // Keep the union whose branches declare properties, if either does.
            _ if node
                .one_of
                .iter()
                .any(|m| declares_properties(self.schema, *m, 0)) =>
            {
                self.drop_members(node, &node.any_of, "anyOf", SECOND)?;
                (&node.one_of, true)
            }
            _ => {
                self.drop_members(node, &node.one_of, "oneOf", SECOND)?;
                (&node.any_of, false)
            }
        };
        if one_of {
            self.loss(
                node,
                "oneOf",
                "sent as `anyOf`: matching more than one alternative is not prevented",
            );
        }
        let mut branches = Branches::None;
        let mut nullable = false;
        for id in members {
            // A branch whose only type is null is exact as `nullable` on another branch when
            // it takes `null`, the one value of that type. One that does not takes nothing
            // (`{"type": "null", "not": {"minimum": 3}}`: widening property, seed 2500) and is
            // lowered as any other branch, with its losses, never as `nullable`.
            if self.schema.admitted(*id) == TypeSet::of(JsonType::Null)
                && self.schema.is_valid_at(*id, &Value::Null)
            {
                nullable = true;
                continue;
            }
            if let Out::Node(b) = self.child(*id, depth + 1)? {
                branches.push(b);
            }
        }
        Ok(self.finish(node, branches, nullable, "type"))
    }

    /// A node without unions: one branch per admitted type.
    fn typed(&mut self, id: NodeId, node: &Node, depth: usize) -> Result<Out, Degrade> {
        let types = self.schema.admitted(id).normalized();
        if types.is_empty() {
            return Ok(Out::Nothing);
        }
        if !node.all_of.is_empty() {
            self.drop_members(
                node,
                &node.all_of,
                "allOf",
                "members that could not be merged are not sent",
            )?;
        }
        if node.not.is_some() {
            self.loss(node, "not", "no such field in responseSchema; not sent");
        }
        let literals = node.literals();
        let literals = literals.as_deref();
        let mut literals_exact = true;
        let mut branches = Branches::None;
        let mut own: Option<Degrade> = None;
        for t in types.iter() {
            let (out, exact) = match t {
                JsonType::Null => continue,
                JsonType::String => (self.string(node, literals), true),
                JsonType::Integer | JsonType::Number => self.number(node, t, literals),
                JsonType::Boolean => (
                    Out::Node(self.typed_node(JsonType::Boolean, node)),
                    literals.is_none_or(both_booleans),
                ),
                // A blocked branch of a type list leaves the other branches to be walked, so
                // that their blockers are named too.
                JsonType::Array | JsonType::Object => {
                    let out = if t == JsonType::Array {
                        self.array(node, depth)
                    } else {
                        self.object(id, node, depth)
                    };
                    match out {
                        Ok(out) => (out, literals.is_none()),
                        Err(d) if self.stopped => return Err(d),
                        Err(d) => {
                            own.get_or_insert(d);
                            continue;
                        }
                    }
                }
            };
            literals_exact &= exact;
            if let Out::Node(b) = out {
                branches.push(b);
            }
        }
        if let Some(blocked) = own {
            return Err(blocked);
        }
        let keyword = match (&node.constant, &node.enumeration) {
            (Some(_), _) => "const",
            (None, Some(_)) => "enum",
            (None, None) => "type",
        };
        if !literals_exact {
            let reason = if node.constant.is_some() {
                "only its type (and, for a number, its bounds) is sent: responseSchema has no `const`, and `enum` holds strings only"
            } else {
                "values other than strings are admitted by their type's branch but not enforced (responseSchema's `enum` holds strings only); string values are still enforced"
            };
            self.loss(node, keyword, reason);
        }
        Ok(self.finish(node, branches, types.contains(JsonType::Null), keyword))
    }

    /// One node from a node's branches: `anyOf` of them or the one branch, `nullable` on a
    /// branch when null is admitted, the node's annotations on every branch (a node with
    /// `anyOf` may carry no other field). `null_keyword` names the loss when only null is left.
    fn finish(
        &mut self,
        node: &Node,
        branches: Branches,
        nullable: bool,
        null_keyword: &'static str,
    ) -> Out {
        let mut out = match self.union_of(branches) {
            Some(m) => m,
            None if nullable => {
                self.loss(node, null_keyword, "admits only null, sent as a nullable STRING: the NULL type is too recent to rely on");
                self.typed_node(JsonType::String, node)
            }
            None => return Out::Nothing,
        };
        if self.discarding() {
            return Out::Node(out);
        }
        let (title, description) = annotations(node);
        let description = description.as_deref();
        match bare_union(&mut out) {
            Some(list) => {
                if let (true, Some(Value::Object(first))) = (nullable, list.first_mut()) {
                    first.insert("nullable".into(), Value::Bool(true));
                }
                for b in list.iter_mut() {
                    if let Value::Object(b) = b {
                        annotate(b, title, description);
                    }
                }
            }
            None => {
                if nullable {
                    out.insert("nullable".into(), Value::Bool(true));
                }
                annotate(&mut out, title, description);
            }
        }
        Out::Node(out)
    }

    fn string(&mut self, node: &Node, literals: Option<&[&Value]>) -> Out {
        let mut m = self.typed_node(JsonType::String, node);
        if let Some(lits) = literals {
            if !lits.iter().any(|v| v.is_string()) {
                return Out::Nothing;
            }
            self.put(&mut m, "enum", || {
                let values = lits.iter().filter_map(|v| v.as_str());
                let values = values.collect::<Distinct<&str>>().into_vec();
                Value::Array(values.into_iter().map(Value::from).collect())
            });
        }
        if let Some(rules) = &node.string {
            if let (Some(lo), Some(hi)) = (rules.min_length, rules.max_length) {
                if lo > hi {
                    return Out::Nothing;
                }
            }
            for (keyword, n) in [
                ("minLength", rules.min_length),
                ("maxLength", rules.max_length),
            ] {
                if let Some(n) = n {
                    self.count(node, keyword, n, &mut m);
                }
            }
            if let Some(p) = &rules.pattern {
                if p.look_aheads_only() {
                    self.loss(node, "pattern", LOOK_AHEADS_ONLY_NOT_SENT);
                } else {
                    self.put(&mut m, "pattern", || Value::from(full_match_safe(p)));
                    if p.features().look_ahead {
                        self.loss(node, "pattern", LOOK_AHEADS_NOT_SENT);
                    }
                }
            }
        }
        Out::Node(m)
    }

    /// An INTEGER or NUMBER branch, and whether the node's numeric literals (if any) are
    /// enforced exactly.
    fn number(&mut self, node: &Node, t: JsonType, literals: Option<&[&Value]>) -> (Out, bool) {
        let mut m = self.typed_node(t, node);
        let rules = node.number.as_deref();
        let mut lower = rules.and_then(|r| r.lower.clone());
        let mut upper = rules.and_then(|r| r.upper.clone());
        let mut exact = true;
        if let Some(lits) = literals {
            let nums: Vec<&Number> = lits
                .iter()
                .filter_map(|v| v.as_number())
                .filter(|n| t == JsonType::Number || is_integer(n))
                .collect();
            let (Some(lo), Some(hi)) = (
                extreme(&nums, Ordering::Less),
                extreme(&nums, Ordering::Greater),
            ) else {
                return (Out::Nothing, true);
            };
            exact = cmp_numbers(lo, hi) == Some(Ordering::Equal)
                || (t == JsonType::Integer && consecutive(&nums));
            lower = tighter(lower, lo, Ordering::Greater);
            upper = tighter(upper, hi, Ordering::Less);
        }
        let integer = t == JsonType::Integer;
        // The bounds as sent, kept here rather than looked up again in `m` (two hashed
        // look-ups per number node).
        let mut sent: [Option<Number>; 2] = [None, None];
        for ((bound, inclusive, step), sent) in
            [(lower, "minimum", 1i128), (upper, "maximum", -1i128)]
                .into_iter()
                .zip(&mut sent)
        {
            let Some(b) = bound else { continue };
            let keyword = if step > 0 {
                b.lower_keyword()
            } else {
                b.upper_keyword()
            };
            let value = if b.exclusive {
                // On integers, `> n` is `>= n + 1` exactly; otherwise the inclusive bound widens.
                match integral(&b.value)
                    .filter(|_| integer)
                    .and_then(|i| i.checked_add(step))
                    .and_then(number_of)
                {
                    Some(n) => Some(n),
                    None => {
                        self.loss(node, keyword, "sent as the inclusive bound (the bound itself is not excluded natively)");
                        Some(b.value.clone())
                    }
                }
            } else {
                Some(b.value.clone())
            };
            match value.and_then(double) {
                Some(n) => {
                    self.put(&mut m, inclusive, || Value::Number(n.clone()));
                    *sent = Some(n);
                }
                None => self.loss(
                    node,
                    keyword,
                    "has no exact double (the proto's type for bounds); not sent",
                ),
            }
        }
        if let [Some(lo), Some(hi)] = &sent {
            if cmp_numbers(lo, hi) == Some(Ordering::Greater) {
                return (Out::Nothing, true);
            }
        }
        if rules.is_some_and(|r| r.multiple_of.is_some()) {
            self.loss(
                node,
                "multipleOf",
                "no such field in responseSchema; not sent",
            );
        }
        (Out::Node(m), exact)
    }

    fn array(&mut self, node: &Node, depth: usize) -> Result<Out, Degrade> {
        let default = crate::ir::ArrayRules::default();
        let rules = node.array.as_deref().unwrap_or(&default);
        let min = rules.min_items;
        let mut cap = rules.max_items;
        let mut positions = Branches::None;
        let mut sources = 0usize;
        let prefix_len = rules.prefix_items.len() as u64;
        let mut open_tail = cap.is_none_or(|c| c > prefix_len);
        for (i, id) in rules.prefix_items.iter().enumerate() {
            if cap.is_some_and(|c| c <= i as u64) {
                break;
            }
            match self.child(*id, depth + 1)? {
                Out::Node(b) => {
                    positions.push(b);
                    sources += 1;
                }
                Out::Nothing => {
                    // No valid array reaches this position.
                    cap = Some(cap.map_or(i as u64, |c| c.min(i as u64)));
                    open_tail = false;
                    break;
                }
            }
        }
        if open_tail {
            match rules.items {
                Some(tail) => match self.child(tail, depth + 1)? {
                    Out::Node(b) => {
                        positions.push(b);
                        sources += 1;
                    }
                    Out::Nothing => {
                        cap = Some(cap.map_or(prefix_len, |c| c.min(prefix_len)));
                    }
                },
                None => {
                    return Err(degrade(node, "items", "admits items of any value (no `items`, or none past `prefixItems`); responseSchema needs `items` and has no node that admits every value"));
                }
            }
        }
        if let (Some(lo), Some(hi)) = (min, cap) {
            if lo > hi {
                return Ok(Out::Nothing);
            }
        }
        if sources > 1 && !rules.prefix_items.is_empty() {
            self.loss(
                node,
                "prefixItems",
                "positions not enforced: every item may match any position's schema",
            );
        }
        let mut m = self.typed_node(JsonType::Array, node);
        // With no position left, only the empty array is valid and `items` never applies.
        let items = self.union_of(positions);
        self.put(&mut m, "items", || {
            Value::Object(items.unwrap_or_else(|| typed(JsonType::String, node)))
        });
        for (keyword, n) in [("minItems", min), ("maxItems", cap)] {
            if let Some(n) = n {
                self.count(node, keyword, n, &mut m);
            }
        }
        if rules.unique_items {
            self.loss(
                node,
                "uniqueItems",
                "no such field in responseSchema; not sent",
            );
        }
        Ok(Out::Node(m))
    }

    fn object(&mut self, id: NodeId, node: &Node, depth: usize) -> Result<Out, Degrade> {
        // `minProperties`/`maxProperties`, carried only for this dialect (`FULL_ROWS`).
        let counts = node.property_counts.as_deref();
        let (min, max) = (counts.and_then(|c| c.min), counts.and_then(|c| c.max));
        if let (Some(lo), Some(hi)) = (min, max) {
            if lo > hi {
                // No object has that many members and that few: the OBJECT branch admits
                // nothing, and leaving it out is exact.
                return Ok(Out::Nothing);
            }
        }
        // Blocked, but its properties are still walked so that their blockers are named in
        // the same round (issue 19).
        let unsafe_to_close = (self.unsafe_to_close.get(id.index()) == Some(&true)
            || self.hidden.contains(&node.pointer))
        .then(|| {
            degrade(
                node,
                "additionalProperties",
                "the object is open and another schema for the same place declares properties it does not: an OBJECT closed to its own properties would reject values using those",
            )
        });
        let Some(rules) = node.object.as_deref().filter(|r| !r.properties.is_empty()) else {
            if let Some(blocked) = unsafe_to_close {
                return Err(blocked);
            }
            let closed = node
                .object
                .as_deref()
                .is_some_and(|r| r.additional == Additional::Forbidden);
            return Err(if closed {
                degrade(node, "properties", "admits only the empty object, and an OBJECT without properties is refused by the provider")
            } else {
                degrade(node, "additionalProperties", "admits objects whose members it does not declare (a map or an unconstrained object), and an OBJECT must list its properties and is closed to them")
            });
        };
        let mut required_names = RequiredNames::new(rules);
        // Which declared properties are sent, by position: what is decided below is decided
        // from these, not from the built node, which a discarding walk leaves empty.
        let mut kept = vec![false; rules.properties.len()];
        let mut properties = if self.discarding() {
            Map::new()
        } else {
            Map::with_capacity(rules.properties.len())
        };
        for ((name, id), kept) in rules.properties.iter().zip(&mut kept) {
            match self.child(id, depth + 1)? {
                Out::Node(p) => {
                    *kept = true;
                    self.put(&mut properties, name, || Value::Object(p));
                }
                // A required property that admits nothing makes the object admit nothing; an
                // optional one can never be present, so leaving it out is exact.
                Out::Nothing if required_names.contains(name) => return Ok(Out::Nothing),
                Out::Nothing => {}
            }
        }
        if let Some(blocked) = unsafe_to_close {
            return Err(blocked);
        }
        let sent = kept.iter().filter(|k| **k).count() as u64;
        if sent == 0 {
            return Err(degrade(node, "properties", "no declared property admits a value, so only the empty object is valid, and an OBJECT without properties is refused by the provider"));
        }
        let mut required = Vec::new();
        for r in &rules.required {
            match rules.properties.position(r) {
                Some(at) if kept.get(at) == Some(&true) => required.push(Value::from(&**r)),
                Some(_) => {}
                None => self.loss(node, "required", "names a property that `properties` does not declare; not sent (the provider closes objects to their declared properties)"),
            }
        }
        let mut m = self.typed_node(JsonType::Object, node);
        if !self.discarding() {
            let ordering = properties.keys().map(|k| Value::from(k.as_str())).collect();
            m.insert("properties".into(), Value::Object(properties));
            m.insert("propertyOrdering".into(), Value::Array(ordering));
            if !required.is_empty() {
                m.insert("required".into(), Value::Array(required));
            }
        }
        for (keyword, n) in [("minProperties", min), ("maxProperties", max)] {
            let Some(n) = n else { continue };
            if keyword == "minProperties" && n > sent {
                self.loss(node, keyword, "more than the properties the OBJECT declares, and the decoder emits only those, so no answer could meet it; not sent");
                continue;
            }
            self.count(node, keyword, n, &mut m);
        }
        Ok(Out::Node(m))
    }
}

fn both_booleans(lits: &[&Value]) -> bool {
    lits.iter().any(|v| v.as_bool() == Some(true))
        && lits.iter().any(|v| v.as_bool() == Some(false))
}

/// The least (`Less`) or greatest (`Greater`) number.
fn extreme<'a>(nums: &[&'a Number], want: Ordering) -> Option<&'a Number> {
    let mut best: Option<&Number> = None;
    for n in nums {
        best = match best {
            Some(b) if cmp_numbers(n, b) != Some(want) => Some(b),
            _ => Some(n),
        };
    }
    best
}

/// True when the numbers are integers forming a run with no gap, so the bounds of the run
/// admit exactly them.
fn consecutive(nums: &[&Number]) -> bool {
    let mut ints: Vec<i128> = Vec::with_capacity(nums.len());
    for n in nums {
        match integral(n) {
            Some(i) => ints.push(i),
            None => return false,
        }
    }
    ints.sort_unstable();
    ints.dedup();
    match (ints.first(), ints.last()) {
        (Some(lo), Some(hi)) => {
            usize::try_from(hi - lo).ok().and_then(|d| d.checked_add(1)) == Some(ints.len())
        }
        _ => false,
    }
}

/// The tighter of a source bound and an inclusive literal bound. `wins` is the ordering of the
/// literal against the bound that makes the literal tighter (`Greater` for lower bounds).
fn tighter(bound: Option<Bound>, literal: &Number, wins: Ordering) -> Option<Bound> {
    let lit = Bound {
        value: literal.clone(),
        exclusive: false,
    };
    match bound {
        Some(b) => match cmp_numbers(literal, &b.value) {
            Some(o) if o == wins => Some(lit),
            _ => Some(b),
        },
        None => Some(lit),
    }
}
