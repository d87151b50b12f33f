//! What the closed-object strict decoders (OpenAI strict `json_schema`, Claude strict tools and
//! `output_config.format`) share beyond the generic emitter: an exact pre-pass on the IR, a
//! census of the emitted schema for their size limits, and the request name.
//!
//! The pre-pass exists because these providers refuse schemas the emitter would otherwise send
//! as written: a node that names no type (their subsets describe typed nodes only), object
//! keywords on a string node, an array without `items` (OpenAI: 400 `array schema missing
//! items`), a `required` name that no property declares. Every rewrite here is exact (it cannot
//! change which values validate) or a widening recorded as a loss; where neither is possible
//! the lowering falls back.

use super::caps::{Capabilities, Rewrite, Support};
use super::emit::{Blockers, Degrade, Emitted};
use crate::ir::{Additional, Node, NodeId};
use crate::loss::Loss;
use crate::options::LowerOptions;
use crate::pointer::Pointer;
use crate::schema::Schema;
use crate::value::{JsonType, TypeSet};
use serde_json::{Map, Value};
use std::sync::Arc;

/// The schema after the pre-pass, and what the pre-pass relaxed.
pub(crate) struct Prepared {
    pub schema: Schema,
    pub losses: Vec<Loss>,
    /// Nodes the strict dialect cannot send, one blocker each; the schema is still prepared
    /// past them so the emitter can name the blockers it finds too ([`Prepared::emitted`]).
    pub blocked: Vec<Loss>,
}

impl Prepared {
    /// The emission of the prepared schema, failing with every blocker of both passes when
    /// either found one.
    pub(crate) fn emitted(&self, emitted: Result<Emitted, Degrade>) -> Result<Emitted, Degrade> {
        match (self.blocked.is_empty(), emitted) {
            (true, emitted) => emitted,
            (false, emitted) => {
                let mut all = Degrade(self.blocked.clone());
                if let Err(more) = emitted {
                    all.merge(more.0);
                }
                Err(all)
            }
        }
    }
}

/// Rewrites every node reachable from the root so a closed-object strict dialect can send it:
/// - keyword groups that cannot apply (object keywords where no object is admitted, …) go, which
///   is exact;
/// - a node without a union is sent with exactly the types it admits, which is exact (no other
///   type could validate) and what strict decoders need: a `type` that says more is narrowed
///   here, a missing one is written by the emitter (`Types::OutsideUnions`);
/// - a closed object's `required` loses names that no property declares: such an object
///   accepts nothing, so not sending them only widens (a loss), and providers refuse them;
/// - a `not` whose row is `Dropped` goes before emission, so its subtree cannot degrade a
///   lowering that never sends it.
///
/// An array whose items are unconstrained degrades: "any value" includes open objects, which
/// these decoders cannot produce, and OpenAI refuses an array without `items` outright.
pub(crate) fn prepare(schema: &Schema, caps: &Capabilities) -> Prepared {
    let source = &schema.ir.nodes;
    // The arena is copied at the first node that changes: many schemas have none, and the
    // copy is the one large allocation of a lowering.
    let mut copy: Option<Vec<Node>> = None;
    let mut losses = Vec::new();
    let mut blocked = Blockers::default();
    let mut seen = vec![false; source.len()];
    let mut stack = vec![schema.root()];
    let walk_all_of = !matches!(
        caps.support("allOf"),
        Support::Rewritten(Rewrite::MergedIntoParent)
    );
    while let Some(id) = stack.pop() {
        match seen.get_mut(id.index()) {
            Some(done) if !*done => *done = true,
            _ => continue,
        }
        // Still as in the source: a node is edited once, when it is first reached.
        let Some(node) = source.get(id.index()) else {
            continue;
        };
        let edit = match edit(node, schema.admitted(id), caps, &mut losses) {
            Ok(edit) => edit,
            Err(Degrade(why)) => {
                blocked.add(why);
                push_children(schema, node, walk_all_of, &mut stack);
                continue;
            }
        };
        if edit.is_none() {
            push_children(schema, node, walk_all_of, &mut stack);
            continue;
        }
        let nodes = copy.get_or_insert_with(|| source.clone());
        if let Some(node) = nodes.get_mut(id.index()) {
            edit.apply(node);
            push_children(schema, node, walk_all_of, &mut stack);
        }
    }
    let schema = match copy {
        Some(nodes) => Schema::from_nodes(nodes, schema.ir.root, schema.ir.subset),
        None => schema.clone(),
    };
    Prepared {
        schema,
        losses,
        blocked: blocked.into_list(),
    }
}

/// What the pre-pass changes in one node, decided before anything is copied.
#[derive(Default)]
struct Edit {
    drop_object: bool,
    drop_array: bool,
    drop_string: bool,
    drop_number: bool,
    drop_not: bool,
    types: Option<TypeSet>,
    prune_required: bool,
}

impl Edit {
    fn is_none(&self) -> bool {
        !(self.drop_object
            || self.drop_array
            || self.drop_string
            || self.drop_number
            || self.drop_not
            || self.prune_required
            || self.types.is_some())
    }

    fn apply(self, node: &mut Node) {
        if self.drop_object {
            node.object = None;
        }
        if self.drop_array {
            node.array = None;
        }
        if self.drop_string {
            node.string = None;
        }
        if self.drop_number {
            node.number = None;
        }
        if self.drop_not {
            node.not = None;
        }
        if self.types.is_some() {
            node.types = self.types;
        }
        if let Some(rules) = node.object.as_mut().filter(|_| self.prune_required) {
            // The rules are shared with the source: copied here, only to change them.
            let rules = Arc::make_mut(rules);
            let declared = &rules.properties;
            rules.required.retain(|name| declared.contains(name));
        }
    }
}

/// The pre-pass's edit of one node (see [`prepare`]), its losses recorded.
fn edit(
    node: &Node,
    admits: TypeSet,
    caps: &Capabilities,
    losses: &mut Vec<Loss>,
) -> Result<Edit, Degrade> {
    let mut edit = Edit::default();
    if node.reference.is_some() {
        // A recursive reference is sent as `{"$ref"}`: its target is prepared where it stands.
        return Ok(edit);
    }
    edit.drop_object = node.object.is_some() && !admits.contains(JsonType::Object);
    edit.drop_array = node.array.is_some() && !admits.contains(JsonType::Array);
    edit.drop_string = node.string.is_some() && !admits.contains(JsonType::String);
    edit.drop_number = node.number.is_some()
        && !admits.contains(JsonType::Number)
        && !admits.contains(JsonType::Integer);
    if node.not.is_some() {
        if let Support::Dropped(why) = caps.support("not") {
            edit.drop_not = true;
            losses.push(Loss::new(&node.pointer, "not", why));
        }
    }
    let is_union = node.has_union();
    if !is_union {
        if admits.is_empty() {
            return Err(Degrade::from(Loss::new(
                &node.pointer,
                "type",
                "no value satisfies this subschema, and the provider needs every node to name the types it admits",
            )));
        }
        // A node without `type` is given its admitted types by the emitter
        // (`Types::OutsideUnions`); one whose `type` says more than it admits is narrowed to
        // them here, exactly.
        edit.types = node.types.filter(|own| *own != admits).map(|_| admits);
    }
    edit.prune_required = !edit.drop_object
        && node.object.as_deref().is_some_and(|rules| {
            rules.additional == Additional::Forbidden
                && rules
                    .required
                    .iter()
                    .any(|name| !rules.properties.contains(name))
        });
    if edit.prune_required {
        losses.push(Loss::new(
            &node.pointer,
            "required",
            "lists names that no property declares while `additionalProperties` is false, so no object satisfies it; those names are not sent (providers refuse them)",
        ));
    }
    if !is_union
        && admits.contains(JsonType::Array)
        && node.array.as_ref().and_then(|a| a.items).is_none()
    {
        return Err(Degrade::from(Loss::new(
            &node.pointer,
            "items",
            "array items are unconstrained (any JSON value, open objects included), which the provider's strict mode cannot express",
        )));
    }
    Ok(edit)
}

/// The subschemas of `node` the emission writes: union branches that admit nothing are left
/// out by the emitter (exactly), so they are not prepared either.
fn push_children(schema: &Schema, node: &Node, walk_all_of: bool, stack: &mut Vec<NodeId>) {
    if let Some(rules) = &node.object {
        stack.extend(rules.properties.iter().map(|(_, id)| id));
    }
    if let Some(rules) = &node.array {
        stack.extend(rules.prefix_items.iter().copied());
        stack.extend(rules.items);
    }
    stack.extend(
        node.any_of
            .iter()
            .chain(&node.one_of)
            .copied()
            .filter(|b| !schema.admitted(*b).is_empty()),
    );
    if walk_all_of {
        stack.extend(node.all_of.iter().copied());
    }
    stack.extend(node.not);
    stack.extend(node.reference);
}

/// Checks that every value the (normalised) schema accepts is an object and that the root is
/// not a union: these dialects need `type: "object"` at the root and refuse a root `anyOf`.
pub(crate) fn object_root(schema: &Schema) -> Result<(), Loss> {
    let root = schema.root_node();
    if schema.admitted(schema.root()) != TypeSet::of(JsonType::Object) {
        return Err(Loss::new(
            &root.pointer,
            "type",
            "the root admits values other than objects, and the provider needs an object root",
        ));
    }
    if root.has_union() {
        return Err(Loss::new(
            &root.pointer,
            if root.any_of.is_empty() { "oneOf" } else { "anyOf" },
            "the root is a union (after merging `allOf` and distributing siblings over it), and the provider refuses a union at the root",
        ));
    }
    Ok(())
}

/// Sizes of an emitted schema that strict providers limit.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Census {
    /// Deepest nesting of nodes that admit objects or arrays, the root counting as level 1.
    pub depth: usize,
    /// Declared properties across all objects.
    pub properties: usize,
    /// Values across all `enum`s.
    pub enum_values: usize,
    /// Characters of property names and enum values (non-strings counted as JSON text).
    pub chars: usize,
    /// The largest character total of one all-string `enum` with more than 250 values.
    pub large_string_enum_chars: usize,
    /// Declared properties that are not required.
    pub optional: usize,
    /// Nodes with `anyOf` or a list of types.
    pub unions: usize,
    /// Closed objects that declare no property.
    pub empty_closed_objects: usize,
}

/// Declared properties that are not required, as the strict emitters write the schema out:
/// at properties, items, positions followed by `items` and union branches that admit a value,
/// a node reached from several places counted at each. At most the [`Census::optional`] of
/// the emitted schema (emission keeps every property and `required` name of those objects, or
/// fails), and equal to it unless positions without `items` hold objects. A schema already
/// over a provider's limit here need not be emitted to learn that it is.
pub(crate) fn optional_properties(schema: &Schema) -> usize {
    const NEW: u8 = 0;
    const OPEN: u8 = 1;
    const DONE: u8 = 2;
    // Per node, the count of the subtree below it: memoised, so linear in the arena however
    // often a node is reached. A node reached again while open (a cycle) adds nothing.
    let mut state = vec![NEW; schema.len()];
    let mut below = vec![0usize; schema.len()];
    let mut stack = vec![(schema.root(), false)];
    while let Some((id, children_done)) = stack.pop() {
        let i = id.index();
        if !children_done {
            if state.get(i) != Some(&NEW) {
                continue;
            }
            if let Some(s) = state.get_mut(i) {
                *s = OPEN;
            }
            stack.push((id, true));
            stack.extend(written_below(schema, id).map(|c| (c, false)));
            continue;
        }
        let node = schema.node(id);
        let own = node.object.as_deref().map_or(0, |rules| {
            let props = &rules.properties;
            let required = rules.required.iter().filter(|r| props.contains(r)).count();
            props.len().saturating_sub(required)
        });
        let total = written_below(schema, id)
            .filter(|c| state.get(c.index()) == Some(&DONE))
            .filter_map(|c| below.get(c.index()).copied())
            .fold(own, usize::saturating_add);
        if let (Some(s), Some(b)) = (state.get_mut(i), below.get_mut(i)) {
            (*s, *b) = (DONE, total);
        }
    }
    below.get(schema.root().index()).copied().unwrap_or(0)
}

/// The subschemas a strict emission certainly writes below a node (see
/// [`optional_properties`]), once per place.
fn written_below(schema: &Schema, id: NodeId) -> impl Iterator<Item = NodeId> + '_ {
    let node = schema.node(id);
    let properties = node
        .object
        .iter()
        .flat_map(|o| o.properties.iter().map(|(_, sub)| sub));
    let array = node.array.as_deref();
    let items = array.and_then(|a| a.items);
    let positions = array
        .filter(|a| a.items.is_some())
        .into_iter()
        .flat_map(|a| a.prefix_items.iter().copied());
    let branches = node
        .any_of
        .iter()
        .chain(&node.one_of)
        .copied()
        .filter(|b| !schema.admitted(*b).is_empty());
    properties.chain(items).chain(positions).chain(branches)
}

/// Counts what providers limit, walking only the positions the strict emitters produce.
pub(crate) fn census(schema: &Value) -> Census {
    let mut c = Census::default();
    let mut stack: Vec<(&Value, usize)> = vec![(schema, 0)];
    while let Some((node, level)) = stack.pop() {
        let Value::Object(map) = node else {
            continue;
        };
        let f = Fields::of(map);
        let (mut types, mut container, mut object) = (0, false, false);
        for t in f.types() {
            types += 1;
            container |= t == "object" || t == "array";
            object |= t == "object";
        }
        let level = level + usize::from(container);
        c.depth = c.depth.max(level);
        if f.has_any_of || types > 1 {
            c.unions += 1;
        }
        if let Some(props) = f.properties {
            c.properties += props.len();
            c.chars += props.keys().map(|k| k.chars().count()).sum::<usize>();
            // Sorted, not scanned per property: a scan is quadratic on wide objects.
            let mut required: Vec<&str> = f
                .required
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            required.sort_unstable();
            c.optional += props
                .keys()
                .filter(|k| required.binary_search(&k.as_str()).is_err())
                .count();
            stack.extend(props.values().map(|v| (v, level)));
        }
        if object
            && f.additional == Some(&Value::Bool(false))
            && f.properties.is_none_or(Map::is_empty)
        {
            c.empty_closed_objects += 1;
        }
        if let Some(values) = f.enumeration {
            c.enum_values += values.len();
            let chars: usize = values.iter().map(value_chars).sum();
            c.chars += chars;
            if values.len() > 250 && values.iter().all(Value::is_string) {
                c.large_string_enum_chars = c.large_string_enum_chars.max(chars);
            }
        }
        if let Some(items) = f.items {
            stack.push((items, level));
        }
        if let Some(branches) = f.any_of {
            stack.extend(branches.iter().map(|b| (b, level)));
        }
        if let Some(extra @ Value::Object(_)) = f.additional {
            stack.push((extra, level));
        }
    }
    c
}

/// The keywords of an emitted node that the census reads, found in one pass over its members:
/// a lookup per keyword would hash each name again, for every node of every lowering.
#[derive(Default)]
pub(crate) struct Fields<'a> {
    types: Option<&'a Value>,
    pub properties: Option<&'a Map<String, Value>>,
    required: Option<&'a Vec<Value>>,
    enumeration: Option<&'a Vec<Value>>,
    pub items: Option<&'a Value>,
    has_any_of: bool,
    pub any_of: Option<&'a Vec<Value>>,
    additional: Option<&'a Value>,
}

impl<'a> Fields<'a> {
    pub(crate) fn of(map: &'a Map<String, Value>) -> Self {
        let mut f = Fields::default();
        for (keyword, v) in map {
            match keyword.as_str() {
                "type" => f.types = Some(v),
                "properties" => f.properties = v.as_object(),
                "required" => f.required = v.as_array(),
                "enum" => f.enumeration = v.as_array(),
                "items" => f.items = Some(v),
                "anyOf" => {
                    f.has_any_of = true;
                    f.any_of = v.as_array();
                }
                "additionalProperties" => f.additional = Some(v),
                _ => {}
            }
        }
        f
    }

    /// The type names the node declares.
    pub(crate) fn types(&self) -> impl Iterator<Item = &'a str> {
        let (one, list) = match self.types {
            Some(Value::String(t)) => (Some(t.as_str()), None),
            Some(Value::Array(ts)) => (None, Some(ts.iter().filter_map(Value::as_str))),
            _ => (None, None),
        };
        one.into_iter().chain(list.into_iter().flatten())
    }
}

fn value_chars(v: &Value) -> usize {
    match v {
        Value::String(s) => s.chars().count(),
        other => other.to_string().chars().count(),
    }
}

/// The name sent with the schema or tool: `options.name` when the provider accepts it as is,
/// else the root `title` reduced to the accepted characters, else `"response"`.
pub(crate) fn wire_name(options: &LowerOptions, schema: &Schema, max: usize) -> String {
    if let Some(name) = &options.name {
        if is_valid_name(name, max) {
            return name.clone();
        }
    }
    schema
        .root_node()
        .title()
        .map(|t| sanitize_name(t, max))
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| "response".to_owned())
}

fn name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// `[A-Za-z0-9_-]{1,max}`, the rule OpenAI states for `json_schema.name` and Claude enforces
/// on tool names (with different maxima).
pub(crate) fn is_valid_name(name: &str, max: usize) -> bool {
    !name.is_empty() && name.chars().count() <= max && name.chars().all(name_char)
}

/// Keeps the accepted characters, turns each run of others into one `_` between kept ones, and
/// truncates, so `"Invoice line (v2)"` becomes `"Invoice_line_v2"`.
pub(crate) fn sanitize_name(text: &str, max: usize) -> String {
    let mut out = String::new();
    let mut gap = false;
    for c in text.chars() {
        if name_char(c) {
            if gap && !out.is_empty() {
                out.push('_');
            }
            gap = false;
            out.push(c);
        } else {
            gap = true;
        }
    }
    let truncated: String = out.chars().take(max).collect();
    truncated.trim_end_matches('_').to_owned()
}

/// The description sent with the schema or tool: `options.description`, else the root's.
pub(crate) fn wire_description(options: &LowerOptions, schema: &Schema) -> Option<String> {
    options
        .description
        .clone()
        .or_else(|| schema.root_node().description().map(str::to_owned))
}

/// A loss about the whole schema.
pub(crate) fn root_loss(reason: &'static str) -> Loss {
    Loss::new(&Pointer::root(), "", reason)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_are_sanitised_and_bounded() {
        assert_eq!(sanitize_name("Invoice line (v2)", 64), "Invoice_line_v2");
        assert_eq!(sanitize_name("  Über-Schema!  ", 64), "ber-Schema");
        assert_eq!(sanitize_name("ééé", 64), "");
        assert_eq!(sanitize_name(&"a".repeat(70), 64).len(), 64);
        assert_eq!(
            sanitize_name(&format!("{} b", "a".repeat(63)), 64),
            "a".repeat(63)
        );
        assert!(is_valid_name("my_schema-1", 64));
        assert!(!is_valid_name("my schema", 64));
        assert!(!is_valid_name("", 64));
        assert!(!is_valid_name(&"a".repeat(65), 64));
        assert!(is_valid_name(&"a".repeat(128), 128));
    }

    /// The IR count agrees with the census of what the strict emitter writes, on places a
    /// union, an array, positions and a shared subschema (written at each place) reach.
    #[test]
    fn optional_properties_on_the_ir_match_the_emitted_census() {
        use crate::dialect::emit::{emit, Closure, JsonDialect, Types};
        let closed = |props: serde_json::Value, required: serde_json::Value| json!({"type": "object", "properties": props, "required": required, "additionalProperties": false});
        let leaf = closed(
            json!({"a": {"type": "string"}, "b": {"type": "integer"}}),
            json!(["a"]),
        );
        let cases = [
            closed(json!({"x": {"type": "string"}}), json!([])),
            closed(
                json!({
                    "list": {"type": "array", "items": leaf.clone()},
                    "pair": {"type": "array", "prefixItems": [leaf.clone()], "items": leaf.clone()},
                    "either": {"anyOf": [leaf.clone(), {"type": "string"}]},
                    "both": {"allOf": [leaf.clone()]},
                    "n": {"type": "number"}
                }),
                json!(["list", "n", "absent"]),
            ),
        ];
        for v in cases {
            let schema = Schema::parse(&v).unwrap_or_else(|e| panic!("{e}"));
            let normalized = crate::dialect::normalize::normalize(
                &schema,
                crate::dialect::normalize::Rewrites {
                    flatten_all_of: true,
                    distribute_unions: true,
                },
            );
            let prepared = prepare(&normalized.schema, &crate::dialect::claude::CLAUDE);
            assert!(prepared.blocked.is_empty(), "{:?}", prepared.blocked);
            let dialect = JsonDialect {
                caps: Some(&crate::dialect::claude::CLAUDE),
                closure: Closure::RequireClosed {
                    all_required: false,
                    no_empty_objects: None,
                },
                types: Types::OutsideUnions,
                references: false,
                explicit_items: false,
            };
            let emitted = emit(&prepared.schema, dialect).unwrap_or_else(|d| panic!("{:?}", d.0));
            let counted = optional_properties(&prepared.schema);
            assert!(counted > 0);
            assert_eq!(counted, census(&emitted.schema).optional, "{v}");
        }
    }

    #[test]
    fn census_counts_what_providers_limit() {
        let c = census(&json!({
            "type": "object",
            "properties": {
                "ab": {"type": "array", "items": {"type": "object", "properties": {"c": {"type": ["string", "null"], "enum": ["xy", null]}}, "required": [], "additionalProperties": false}},
                "d": {"anyOf": [{"type": "integer", "enum": [10]}, {"type": "object", "additionalProperties": false}]}
            },
            "required": ["ab", "d"],
            "additionalProperties": false
        }));
        assert_eq!(
            c,
            Census {
                depth: 3,
                properties: 3,
                enum_values: 3,
                // "ab" + "d" + "c" + "xy" + "null" + "10"
                chars: 12,
                large_string_enum_chars: 0,
                optional: 1,
                unions: 2,
                empty_closed_objects: 1,
            }
        );
    }
}
