//! The fail-closed front end: a `serde_json::Value` in, the typed IR out, or every violation.
//!
//! One walk over the document. Each keyword is looked up in [`crate::keywords`]; its value's shape
//! is checked and it is stored typed in the node. Nothing stops the walk early except a limit:
//! the error lists every violation in document order. Recursion is bounded by
//! [`Limits::max_depth`], which is checked before descending.

use crate::error::{SubsetError, Violation, ViolationKind};
use crate::ir::Draft;
use crate::ir::{
    Additional, Annotations, ArrayRules, Bound, Node, NodeId, NumberRules, ObjectRules, Properties,
    StringRules, Subset,
};
use crate::json::{Json, View};
use crate::keywords::{self, Role, Shape};
use crate::limits::{Limits, Operation};
use crate::pointer::Pointer;
use crate::schema::Schema;
use crate::value::{as_exact_u64, cmp_numbers, JsonType, TypeSet};
use front::{Bounds, Front};
use serde_json::{Number, Value};
use std::cmp::Ordering;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

mod front;
mod full;
mod uri;

/// How to parse.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ParseOptions {
    /// Limits on the input.
    pub limits: Limits,
    /// The subset to accept.
    pub subset: Subset,
    /// `full` subset: the draft of a document without a (known) `$schema`; 2020-12 when `None`.
    pub default_draft: Option<Draft>,
    /// `full` subset: documents references may point into, by absolute URI. Nothing is ever
    /// fetched: a reference outside the document and these is an error naming it.
    pub resources: Arc<BTreeMap<String, Value>>,
    /// `full` subset: assert `format` (an annotation by default, as 2020-12 says).
    pub assert_format: bool,
    /// `full` subset: unknown keywords are errors instead of warnings.
    pub deny_unknown: bool,
}

impl ParseOptions {
    /// Same options with these limits.
    #[must_use]
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Same options with this subset.
    #[must_use]
    pub fn with_subset(mut self, subset: Subset) -> Self {
        self.subset = subset;
        self
    }

    /// Same options with this draft for documents that do not name one (`full` subset).
    #[must_use]
    pub fn with_default_draft(mut self, draft: Draft) -> Self {
        self.default_draft = Some(draft);
        self
    }

    /// Same options with one more document references may point into (`full` subset), under
    /// its absolute URI (a trailing `#` is ignored).
    #[must_use]
    pub fn with_resource(mut self, uri: impl Into<String>, value: Value) -> Self {
        let uri = uri.into();
        let uri = uri.strip_suffix('#').map(str::to_owned).unwrap_or(uri);
        Arc::make_mut(&mut self.resources).insert(uri, value);
        self
    }

    /// Same options, asserting `format` or not (`full` subset).
    #[must_use]
    pub fn with_assert_format(mut self, on: bool) -> Self {
        self.assert_format = on;
        self
    }

    /// Same options, with unknown keywords as errors or as warnings (`full` subset).
    #[must_use]
    pub fn with_deny_unknown(mut self, on: bool) -> Self {
        self.deny_unknown = on;
        self
    }
}

/// Parses `value` as a schema of the subset.
pub fn parse(value: &Value, options: &ParseOptions) -> Result<Schema, SubsetError> {
    parse_sized(value, options, crate::budget::value_bytes(value))
}

/// [`parse`], for a value whose text is `bytes` long: the work budget is per byte of it, and
/// the schema keeps the size for the budgets of what is done with it later. The value is a
/// `serde_json::Value` or a [`crate::json::Tree`]'s; the `full` subset reads it as a `Value`.
pub(crate) fn parse_sized<'v, J: Json<'v>>(
    value: J,
    options: &ParseOptions,
    bytes: u64,
) -> Result<Schema, SubsetError> {
    let parsed = crate::budget::run(Operation::Parse, &options.limits, bytes, None, |b| {
        let parsed = if options.subset == Subset::Full {
            full::parse(&value.as_value(), options)
        } else {
            parse_inner(value, options)
        };
        match (parsed, b.exceeded()) {
            // Spent on the last node's work (a pattern compiled): refused all the same.
            (Ok(_), Some(e)) => Err(SubsetError {
                violations: vec![Violation::new(&Pointer::root(), "", ViolationKind::Work(e))],
            }),
            (parsed, _) => parsed,
        }
    });
    parsed.map(|s| s.with_source(options.limits, bytes))
}

fn parse_inner<'v, J: Json<'v>>(value: J, options: &ParseOptions) -> Result<Schema, SubsetError> {
    let mut p = Parser {
        front: Front::new(options.limits),
        subset: options.subset,
        nodes: Vec::new(),
        locations: HashMap::new(),
        pending_refs: Vec::new(),
        embedded: None,
    };
    let root = p.schema(value, Pointer::root(), "", 0);
    p.resolve_references();
    match root {
        Some(root) if p.front.violations.is_empty() => {
            Ok(Schema::from_nodes(p.nodes, root, options.subset))
        }
        _ => Err(SubsetError {
            violations: p.front.violations,
        }),
    }
}

struct Parser {
    front: Front,
    subset: Subset,
    nodes: Vec<Node>,
    /// Extended subset: every schema location → its node, for resolving references.
    locations: HashMap<Pointer, NodeId>,
    /// Extended subset: `(node, reference text)` to resolve once the walk is done.
    pending_refs: Vec<(NodeId, String)>,
    /// Extended subset: the innermost subschema with its own `$id`/`id` we are inside, whose
    /// base URI would change how `#…` references resolve.
    embedded: Option<Pointer>,
}

/// Keyword values gathered while walking one schema object, folded into the node at the end.
struct Pending<J> {
    /// `items` was a list (drafts 4 to 2019-09): `additionalItems` then applies after it.
    tuple: bool,
    additional_items: Option<J>,
    bounds: Bounds,
}

impl<J> Default for Pending<J> {
    fn default() -> Self {
        Pending {
            tuple: false,
            additional_items: None,
            bounds: Bounds::default(),
        }
    }
}

/// True when the schema object names itself (`$id`, or draft 4's `id`, as a string): its
/// subschemas then resolve `#…` against it.
fn identified<'v, J: Json<'v>>(obj: J) -> bool {
    obj.get("$id")
        .or_else(|| obj.get("id"))
        .is_some_and(|v| v.as_str().is_some())
}

impl Parser {
    /// Points every `$ref` at its node, then refuses reference cycles that never descend into
    /// the instance (they would loop forever on any value).
    fn resolve_references(&mut self) {
        for (id, text) in std::mem::take(&mut self.pending_refs) {
            let at = self
                .nodes
                .get(id.index())
                .map(|n| n.pointer.clone())
                .unwrap_or_default();
            let target = decode_fragment(&text)
                .and_then(|p| Pointer::parse(&p))
                .and_then(|p| self.locations.get(&p).copied());
            match target {
                Some(t) => {
                    if let Some(n) = self.nodes.get_mut(id.index()) {
                        n.reference = Some(t);
                        // References inside a subschema with its own `$id` are refused above.
                        n.plain_reference = is_plain_pointer(&text);
                    }
                }
                None => self.front.violate(
                    &at,
                    "$ref",
                    ViolationKind::Shape {
                        expected: Shape::Reference.describe(),
                        detail: Some(format!(
                            "`{text}` does not point to a schema object in this document"
                        )),
                    },
                ),
            }
        }
        if let Some(at) = self.non_descending_cycle() {
            self.front.violate(&at, "$ref", ViolationKind::Shape {
                expected: Shape::Reference.describe(),
                detail: Some("this reference cycle never descends into the instance, so it would loop forever; put a `properties` or `items` step inside the cycle".into()),
            });
        }
    }

    /// A node on a cycle of `$ref`/`allOf`/`anyOf`/`oneOf`/`not` edges (edges that apply a
    /// schema to the same instance), found by an iterative depth-first search.
    fn non_descending_cycle(&self) -> Option<Pointer> {
        if self.nodes.iter().all(|n| n.reference.is_none()) {
            return None;
        }
        let edges = |n: &Node| -> Vec<NodeId> {
            n.all_of
                .iter()
                .chain(&n.any_of)
                .chain(&n.one_of)
                .copied()
                .chain(n.not)
                .chain(n.reference)
                .collect()
        };
        // 0 = unvisited, 1 = on the stack, 2 = done.
        let mut state = vec![0u8; self.nodes.len()];
        for start in 0..self.nodes.len() {
            if state.get(start) != Some(&0) {
                continue;
            }
            let mut stack: Vec<(usize, Vec<NodeId>)> = Vec::new();
            if let Some(s) = state.get_mut(start) {
                *s = 1;
            }
            stack.push((start, self.nodes.get(start).map(edges).unwrap_or_default()));
            while let Some((node, next)) = stack.last_mut() {
                let node = *node;
                match next.pop() {
                    Some(child) => match state.get(child.index()) {
                        Some(1) => return self.nodes.get(child.index()).map(|n| n.pointer.clone()),
                        Some(0) => {
                            if let Some(s) = state.get_mut(child.index()) {
                                *s = 1;
                            }
                            let e = self.nodes.get(child.index()).map(edges).unwrap_or_default();
                            stack.push((child.index(), e));
                        }
                        _ => {}
                    },
                    None => {
                        if let Some(s) = state.get_mut(node) {
                            *s = 2;
                        }
                        stack.pop();
                    }
                }
            }
        }
        None
    }

    /// Parses the subschema at `at`, written as the value of `parent_keyword`.
    fn schema<'v, J: Json<'v>>(
        &mut self,
        v: J,
        at: Pointer,
        parent_keyword: &str,
        depth: usize,
    ) -> Option<NodeId> {
        if self.front.too_deep(&at, parent_keyword, depth) {
            return None;
        }
        let members = match v.view() {
            View::Object(members) => members,
            View::Bool(true) if self.subset == Subset::Extended => {
                // `true` is the schema that accepts everything, like `{}`.
                return self.any_value(at, parent_keyword);
            }
            View::Bool(b) => {
                self.front
                    .violate(&at, parent_keyword, ViolationKind::BooleanSchema(b));
                return None;
            }
            _ => {
                self.front
                    .violate(&at, parent_keyword, ViolationKind::NotASchema(v.kind()));
                return None;
            }
        };
        if self.out_of_nodes(&at, parent_keyword) {
            return None;
        }
        let id = NodeId(self.nodes.len() as u32);
        self.nodes.push(Node::default());
        if self.subset == Subset::Extended {
            self.locations.insert(at.clone(), id);
        }
        let outer = self.embedded.clone();
        // Looked up only where it matters: two hashed look-ups per node were 1.5 % of a
        // `lower` of the corpus (docs/benchmarks.md), for a flag the ADR-126 subset never reads.
        if self.subset == Subset::Extended && depth > 0 && identified(v) {
            self.embedded = Some(at.clone());
        }
        let node = self.object::<J>(id, members, &at, depth);
        self.embedded = outer;
        if let Some(slot) = self.nodes.get_mut(id.index()) {
            *slot = node;
        }
        Some(id)
    }

    /// True (and reported once) when the node budget is spent.
    fn out_of_nodes(&mut self, at: &Pointer, parent_keyword: &str) -> bool {
        self.front
            .out_of_nodes(self.nodes.len(), at, parent_keyword)
    }

    /// A node that accepts every value (`true`, or `{}` in the extended subset).
    fn any_value(&mut self, at: Pointer, parent_keyword: &str) -> Option<NodeId> {
        if self.out_of_nodes(&at, parent_keyword) {
            return None;
        }
        let id = NodeId(self.nodes.len() as u32);
        self.locations.insert(at.clone(), id);
        self.nodes.push(Node {
            pointer: at,
            ..Node::default()
        });
        Some(id)
    }

    fn object<'v, J: Json<'v>>(
        &mut self,
        id: NodeId,
        members: J::Members,
        at: &Pointer,
        depth: usize,
    ) -> Node {
        let mut node = Node {
            pointer: at.clone(),
            ..Node::default()
        };
        let mut pending = Pending::default();
        let mut asserts = false;
        for (name, value) in members {
            let Some(kw) = keywords::lookup_in(name, self.subset) else {
                if self.subset == Subset::Extended && keywords::is_vendor_key(name) {
                    continue;
                }
                let kind = match keywords::outside_reason(name) {
                    Some(reason) => ViolationKind::Outside(reason),
                    None => ViolationKind::Unknown,
                };
                self.front.violate(at, name, kind);
                continue;
            };
            asserts |= matches!(kw.role, Role::Assertion | Role::Applicator);
            if kw.shape == Shape::Reference {
                match value.as_str() {
                    Some(_) if self.embedded.is_some() => {
                        let base = self.embedded.clone().unwrap_or_default();
                        self.front.violate(at, name, ViolationKind::Shape {
                            expected: Shape::Reference.describe(),
                            detail: Some(format!("it sits inside the subschema at {base}, whose own `$id`/`id` changes what `#…` means; move the definition to the root `$defs`")),
                        });
                    }
                    Some(r) if r.starts_with('#') => self.pending_refs.push((id, r.to_owned())),
                    Some(_) => self.front.violate(at, name, ViolationKind::Outside(
                        "remote references are outside the extended subset; bundle the referenced schema into `$defs` and point to it with `#/$defs/…`",
                    )),
                    None => self.front.shape(at, name, kw.shape, None),
                }
                continue;
            }
            self.keyword(&mut node, &mut pending, kw.name, kw.shape, value, at, depth);
        }
        self.fold_tuple(&mut node, &pending, at, depth);
        if !asserts && self.subset == Subset::Adr126 {
            self.front.violate(at, "", ViolationKind::AssertsNothing);
        }
        pending.bounds.fold(&mut node);
        node
    }

    /// Drafts 4 to 2019-09 tuples: `additionalItems` after a list under `items` becomes
    /// `items`; `false` there means no more items than the list has.
    fn fold_tuple<'v, J: Json<'v>>(
        &mut self,
        node: &mut Node,
        pending: &Pending<J>,
        at: &Pointer,
        depth: usize,
    ) {
        let Some(extra) = pending.additional_items else {
            return;
        };
        let name = "additionalItems";
        match extra.view() {
            View::Bool(true) => {}
            View::Bool(false) if pending.tuple => {
                let rules = array_rules(node);
                let n = rules.prefix_items.len() as u64;
                rules.max_items = Some(rules.max_items.map_or(n, |m| m.min(n)));
            }
            View::Bool(false) => {}
            View::Object(_) => {
                // Parsed either way (fail-closed), applied only after a tuple, as the drafts say.
                let child = self.schema(extra, at.join(name), name, depth + 1);
                if pending.tuple {
                    array_rules(node).items = child;
                }
            }
            _ => self.front.shape(at, name, Shape::BoolOrSchema, None),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn keyword<'v, J: Json<'v>>(
        &mut self,
        node: &mut Node,
        pending: &mut Pending<J>,
        name: &'static str,
        shape: Shape,
        value: J,
        at: &Pointer,
        depth: usize,
    ) {
        match name {
            "items" => {
                if let (Some(list), Subset::Extended) = (value.items(), self.subset) {
                    let base = at.join(name);
                    let ids: Vec<NodeId> = list
                        .enumerate()
                        .filter_map(|(i, s)| self.schema(s, base.index(i), name, depth + 1))
                        .collect();
                    let rules = array_rules(node);
                    if !rules.prefix_items.is_empty() {
                        return self.front.shape(
                            at,
                            name,
                            shape,
                            Some("a list under `items` next to `prefixItems`".into()),
                        );
                    }
                    rules.prefix_items = ids;
                    pending.tuple = true;
                    return;
                }
                if value.items().is_some() {
                    return self.front.shape(
                        at,
                        name,
                        shape,
                        Some(
                            "a list under `items` is the pre-2020-12 tuple form; use `prefixItems`"
                                .into(),
                        ),
                    );
                }
                let child = self.schema(value, at.join(name), name, depth + 1);
                array_rules(node).items = child;
            }
            "prefixItems" | "anyOf" | "oneOf" | "allOf" => {
                let Some(list) = value.items().filter(|a| a.len() > 0) else {
                    return self.front.shape(at, name, shape, None);
                };
                let base = at.join(name);
                let ids: Vec<NodeId> = list
                    .enumerate()
                    .filter_map(|(i, s)| self.schema(s, base.index(i), name, depth + 1))
                    .collect();
                match name {
                    "prefixItems" if pending.tuple => self.front.shape(
                        at,
                        name,
                        shape,
                        Some("`prefixItems` next to a list under `items`".into()),
                    ),
                    "prefixItems" => array_rules(node).prefix_items = ids,
                    "anyOf" => node.any_of = ids,
                    "oneOf" => node.one_of = ids,
                    _ => node.all_of = ids,
                }
            }
            "not" => node.not = self.schema(value, at.join(name), name, depth + 1),
            "properties" => {
                let Some(map) = value.members() else {
                    return self.front.shape(at, name, shape, None);
                };
                let base = at.join(name);
                let mut entries = Vec::with_capacity(map.len());
                for (prop, sub) in map {
                    if let Some(id) = self.schema(sub, base.join(prop), name, depth + 1) {
                        entries.push((Box::<str>::from(prop), id));
                    }
                }
                object_rules(node).properties = Properties::new(entries);
            }
            "additionalProperties" => {
                let additional = match value.view() {
                    View::Bool(true) => Additional::Allowed,
                    View::Bool(false) => Additional::Forbidden,
                    View::Object(_) => match self.schema(value, at.join(name), name, depth + 1) {
                        Some(id) => Additional::Schema(id),
                        None => return,
                    },
                    _ => return self.front.shape(at, name, shape, None),
                };
                object_rules(node).additional = additional;
            }
            "$defs" | "definitions" => {
                // Containers: their schemas are parsed (fail-closed like any other) and become
                // reference targets; they assert nothing where they stand.
                let Some(map) = value.members() else {
                    return self.front.shape(at, name, shape, None);
                };
                let base = at.join(name);
                for (def, sub) in map {
                    self.schema(sub, base.join(def), name, depth + 1);
                }
            }
            _ => self.assertion(node, pending, name, shape, value, at),
        }
    }

    /// The keywords without subschemas. Out of line: [`Parser::keyword`] recurses once per
    /// nesting level, and these arms' temporaries (a compiled pattern, a copied enum, a group
    /// created in place) would otherwise widen every level's stack frame. A caller who raises
    /// the depth limit relies on those frames staying small.
    #[inline(never)]
    fn assertion<'v, J: Json<'v>>(
        &mut self,
        node: &mut Node,
        pending: &mut Pending<J>,
        name: &'static str,
        shape: Shape,
        value: J,
        at: &Pointer,
    ) {
        match name {
            "additionalItems" => pending.additional_items = Some(value),
            "type" => node.types = self.types(value, at),
            "enum" => {
                if value.items().is_none_or(|i| i.len() == 0) {
                    return self.front.shape(at, name, shape, None);
                }
                if let Some(e) = self.front.enumeration(value, at, name) {
                    node.enumeration = Some(Arc::new(e));
                }
            }
            "const" => {
                if self.front.literal_ok(value, at, name) {
                    node.constant = Some(Arc::new(value.as_value().into_owned()));
                }
            }
            "pattern" => {
                let Some(src) = value.as_str() else {
                    return self.front.shape(at, name, shape, None);
                };
                if let Some(p) = self.front.pattern(src, at, name) {
                    string_rules(node).pattern = Some(p);
                }
            }
            "minLength" | "maxLength" | "minItems" | "maxItems" => {
                let Some(n) = self.count(value, at, name, shape) else {
                    return;
                };
                match name {
                    "minLength" => string_rules(node).min_length = Some(n),
                    "maxLength" => string_rules(node).max_length = Some(n),
                    "minItems" => array_rules(node).min_items = Some(n),
                    _ => array_rules(node).max_items = Some(n),
                }
            }
            "multipleOf" => {
                let n = value.as_number().and_then(as_exact_u64).filter(|n| *n > 0);
                match n {
                    Some(n) => number_rules(node).multiple_of = Some(n),
                    None => {
                        let detail = value.as_number().map(|n| {
                            format!("found {n}; fractional divisors are outside the subset")
                        });
                        self.front.shape(at, name, shape, detail);
                    }
                }
            }
            "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" => {
                let Some(n) = value.as_number() else {
                    let detail = value
                        .as_bool()
                        .is_some()
                        .then(|| "the boolean form is draft 4; write the bound itself".to_owned());
                    return self.front.shape(at, name, shape, detail);
                };
                let b = &mut pending.bounds;
                let slot = match name {
                    "minimum" => &mut b.minimum,
                    "maximum" => &mut b.maximum,
                    "exclusiveMinimum" => &mut b.exclusive_minimum,
                    _ => &mut b.exclusive_maximum,
                };
                *slot = Some(n.clone());
            }
            "uniqueItems" => match value.as_bool() {
                Some(b) => array_rules(node).unique_items = b,
                _ => self.front.shape(at, name, shape, None),
            },
            "required" => {
                if let Some(names) = self.string_set(value, at, name, shape) {
                    object_rules(node).required = names;
                }
            }
            "$comment" | "id" | "contentEncoding" | "contentMediaType" => {
                if value.as_str().is_none() {
                    self.front.shape(at, name, shape, None);
                }
            }
            "example" => {
                self.front.literal_ok(value, at, name);
            }
            "self" => {
                let iglu = at.is_root()
                    && value.members().is_some_and(|m| {
                        m.len() == 4
                            && ["vendor", "name", "format", "version"]
                                .iter()
                                .all(|k| value.get(k).is_some_and(|v| v.as_str().is_some()))
                    });
                if !iglu {
                    self.front.shape(at, name, shape, None);
                }
            }
            "readOnly" | "writeOnly" | "deprecated" => {
                if value.as_bool().is_none() {
                    self.front.shape(at, name, shape, None);
                }
            }
            "description" | "title" | "format" | "$schema" | "$id" => {
                let Some(s) = value.as_str() else {
                    return self.front.shape(at, name, shape, None);
                };
                let s: Box<str> = s.into();
                let a = annotations(node);
                match name {
                    "description" => a.description = Some(s),
                    "title" => a.title = Some(s),
                    "format" => a.format = Some(s),
                    "$schema" => a.schema = Some(s),
                    _ => a.id = Some(s),
                }
            }
            "default" => {
                if self.front.literal_ok(value, at, name) {
                    annotations(node).default = Some(value.as_value().into_owned());
                }
            }
            "examples" => match value.items() {
                Some(_) if self.front.literal_ok(value, at, name) => {
                    if let Value::Array(list) = value.as_value().into_owned() {
                        annotations(node).examples = Some(list);
                    }
                }
                Some(_) => {}
                None => self.front.shape(at, name, shape, None),
            },
            // Every row of the keyword table is handled above; a row added there without a
            // handler here is reported rather than silently accepted.
            _ => self.front.violate(at, name, ViolationKind::Unknown),
        }
    }

    fn types<'v, J: Json<'v>>(&mut self, value: J, at: &Pointer) -> Option<TypeSet> {
        let bad = |detail: String| Some(detail);
        let detail = match value.view() {
            View::String(s) => match JsonType::from_name(s) {
                Some(t) => return Some(TypeSet::of(t)),
                None => bad(format!("unknown type name `{s}`")),
            },
            View::Array(list) if list.len() > 0 => {
                let mut set = TypeSet::EMPTY;
                let mut problem = None;
                for item in list {
                    match item.as_str().and_then(JsonType::from_name) {
                        Some(t) if set.contains(t) => {
                            problem = Some(format!("`{}` is listed twice", t.name()));
                        }
                        Some(t) => set = set.with(t),
                        None => {
                            let item = item.as_value();
                            problem = Some(format!("`{item}` is not a type name"));
                        }
                    }
                }
                match problem {
                    None => return Some(set),
                    Some(p) => Some(p),
                }
            }
            View::Array(_) => bad("the list is empty".into()),
            _ => None,
        };
        self.front.shape(at, "type", Shape::Types, detail);
        None
    }

    fn count<'v, J: Json<'v>>(
        &mut self,
        value: J,
        at: &Pointer,
        name: &str,
        shape: Shape,
    ) -> Option<u64> {
        let n = value.as_number().and_then(as_exact_u64);
        if n.is_none() {
            let detail = value.as_number().map(|n| format!("found {n}"));
            self.front.shape(at, name, shape, detail);
        }
        n
    }

    fn string_set<'v, J: Json<'v>>(
        &mut self,
        value: J,
        at: &Pointer,
        name: &str,
        shape: Shape,
    ) -> Option<Vec<Box<str>>> {
        let Some(list) = value.items() else {
            self.front.shape(at, name, shape, None);
            return None;
        };
        let mut out: Vec<Box<str>> = Vec::with_capacity(list.len());
        // Duplicates are found by hashing: a pairwise scan is quadratic in a hostile list.
        let mut seen: HashSet<&str> = HashSet::with_capacity(list.len());
        for item in list {
            match item.as_str() {
                Some(s) if !seen.insert(s) => {
                    self.front
                        .shape(at, name, shape, Some(format!("`{s}` is listed twice")));
                    return None;
                }
                Some(s) => out.push(s.into()),
                None => {
                    let item = item.as_value();
                    self.front
                        .shape(at, name, shape, Some(format!("`{item}` is not a string")));
                    return None;
                }
            }
        }
        Some(out)
    }
}

/// The tighter of an inclusive and an exclusive bound. `tighter_when` is the ordering of the
/// exclusive value against the inclusive one that makes the exclusive bound win outright
/// (`Greater` for lower bounds); on equality the exclusive bound wins too.
pub(crate) fn tighter(
    inclusive: Option<Number>,
    exclusive: Option<Number>,
    tighter_when: Ordering,
) -> Option<Bound> {
    match (inclusive, exclusive) {
        (None, None) => None,
        (Some(v), None) => Some(Bound {
            value: v,
            exclusive: false,
        }),
        (None, Some(v)) => Some(Bound {
            value: v,
            exclusive: true,
        }),
        (Some(i), Some(e)) => match cmp_numbers(&e, &i) {
            Some(o) if o == tighter_when || o == Ordering::Equal => Some(Bound {
                value: e,
                exclusive: true,
            }),
            _ => Some(Bound {
                value: i,
                exclusive: false,
            }),
        },
    }
}

/// True for a local reference written as a plain JSON Pointer: `#`, or `#/` and tokens none
/// of which is empty, with no percent-encoding. A reader that splits the text at `/` and looks
/// each token up from the document's root (as widening.md's declared fragment and the
/// independent harness do) reaches what [`decode_fragment`] does; for other spellings it may
/// not (`#/a%2Fb`, `#/a//b`, an anchor), so what they reach is not followed there.
pub(crate) fn is_plain_pointer(text: &str) -> bool {
    match text.strip_prefix('#') {
        Some("") => true,
        Some(frag) => {
            frag.starts_with('/')
                && !frag.contains('%')
                && frag.split('/').skip(1).all(|t| !t.is_empty())
        }
        None => false,
    }
}

/// The JSON Pointer text of a local reference (`#` → `""`, `#/a~1b%20c` → `/a~1b c`), or
/// `None` when it is not a JSON Pointer fragment (e.g. an `$anchor` name).
pub(crate) fn decode_fragment(text: &str) -> Option<String> {
    let frag = text.strip_prefix('#')?;
    if !frag.is_empty() && !frag.starts_with('/') {
        return None;
    }
    // Percent-decoding (URI fragment) must yield UTF-8.
    let bytes = frag.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b == b'%' {
            let hex = bytes.get(i + 1..i + 3)?;
            let hex = std::str::from_utf8(hex).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

fn string_rules(node: &mut Node) -> &mut StringRules {
    Arc::make_mut(node.string.get_or_insert_with(Default::default))
}

fn number_rules(node: &mut Node) -> &mut NumberRules {
    Arc::make_mut(node.number.get_or_insert_with(Default::default))
}

fn array_rules(node: &mut Node) -> &mut ArrayRules {
    Arc::make_mut(node.array.get_or_insert_with(Default::default))
}

fn object_rules(node: &mut Node) -> &mut ObjectRules {
    Arc::make_mut(node.object.get_or_insert_with(Default::default))
}

fn annotations(node: &mut Node) -> &mut Annotations {
    Arc::make_mut(node.annotations.get_or_insert_with(Default::default))
}

#[cfg(test)]
mod tests;
