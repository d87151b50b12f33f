//! The typed intermediate representation of a parsed schema.
//!
//! Nodes live in an arena and refer to each other by [`NodeId`], so one node can be used from
//! many places and a reference can point back up the tree (the extended subset needs both) while
//! the validator and the lowerings stay simple walks. Keyword groups that most nodes lack are
//! behind pointers, which keeps a node small: the IR of a schema should cost no more memory than
//! its `serde_json::Value`. The pointers are shared (`Arc`): every lowering rewrites a copy of
//! the arena (merging `allOf`, making types explicit), and a copy that shares what it does not
//! change costs a reference count per group instead of a deep copy of names and values.

use crate::pattern::Pattern;
use crate::pointer::Pointer;
use crate::value::{cmp_numbers, code_points, json_eq, json_hash, JsonType, TypeSet};
use serde_json::{Number, Value};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

/// Index of a node in its schema's arena.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub(crate) u32);

impl NodeId {
    /// The arena index.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Which subset a schema was parsed under.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Subset {
    /// The ADR-126 subset: no references, fail-closed on everything else.
    #[default]
    Adr126,
    /// ADR-126 plus local references (`$ref` to `#…`), `$defs`/`definitions`, `$comment` and
    /// vendor `x-…` keys; fail-closed on everything else, remote references included.
    Extended,
    /// JSON Schema as specified, drafts 4, 6, 7, 2019-09 and 2020-12 (chosen by `$schema`):
    /// every assertion and applicator, references into caller-provided documents, unknown
    /// keywords kept as annotations (and reported as warnings).
    Full,
}

impl Subset {
    /// The name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Subset::Adr126 => "adr126",
            Subset::Extended => "extended",
            Subset::Full => "full",
        }
    }

    /// Parses a subset name.
    pub fn from_name(name: &str) -> Option<Subset> {
        [Subset::Adr126, Subset::Extended, Subset::Full]
            .into_iter()
            .find(|s| s.name() == name)
    }
}

/// The types each node admits: the greatest solution of "a node admits its local types, within
/// what each `allOf` member and reference target admits, and within the union of what its
/// `anyOf` (and `oneOf`) branches admit; it admits nothing of a type whose own bounds
/// contradict, no object when a required property admits nothing, and no array when fewer
/// items than `minItems` can be written". Greatest, because with recursive references the
/// equations are cyclic and any smaller solution could leave out a type some value has.
///
/// Engines such as llguidance refuse a schema that admits nothing ("Unsatisfiable schema"), so
/// the lowerings need these nodes to leave them out or fall back instead of sending them.
///
/// Starting from the local types (never below the solution) and re-evaluating a node's users
/// whenever its set shrinks reaches that solution. Two kinds of use keep the work linear in the
/// schema: an applicator user (`allOf`, `$ref`, `anyOf`, `oneOf`) reads the whole set and is
/// re-evaluated on every shrink, one of seven bits at a time; a container that needs a child
/// (a required property, an item below `minItems`) only cares whether the child admits
/// anything, so it is told once, when the child becomes empty, and loses its object or array
/// type then without reading its other children. (Re-evaluating a 100,000-property object on
/// every child's shrink was quadratic.)
///
/// With `closed_is_closed`, `additionalProperties: false` forbids every undeclared name; a
/// `full` schema passes false, because its `patternProperties` admit more names.
pub(crate) fn admitted_types(nodes: &[Node], closed_is_closed: bool) -> Vec<TypeSet> {
    /// The nodes whose whole sets `evaluate` reads.
    fn applicators(node: &Node) -> impl Iterator<Item = &NodeId> {
        node.all_of
            .iter()
            .chain(&node.reference)
            .chain(&node.any_of)
            .chain(&node.one_of)
    }
    /// The children without which `node` admits no value of the type given: a required
    /// declared property (object), and an item at a position below `minItems` (array: the
    /// array would have to hold a value there). A required name that is not declared where
    /// other members are forbidden leaves no object either, but the lowerings handle that name
    /// themselves (they do not send it), so their wires stay satisfiable.
    fn needs(node: &Node) -> impl Iterator<Item = (NodeId, JsonType)> + '_ {
        let array = node.array.as_deref().into_iter().flat_map(|a| {
            let min = a.min_items.unwrap_or(0);
            let prefix = a
                .prefix_items
                .iter()
                .enumerate()
                .take_while(move |(i, _)| (*i as u64) < min)
                .map(|(_, id)| *id);
            let rest = a
                .items
                .filter(|_| (a.prefix_items.len() as u64) < min)
                .into_iter();
            prefix.chain(rest).map(|id| (id, JsonType::Array))
        });
        let object = node.object.as_deref().into_iter().flat_map(|o| {
            o.required
                .iter()
                .filter_map(|name| o.properties.get(name))
                .map(|id| (id, JsonType::Object))
        });
        array.chain(object)
    }
    /// The types the node's own bounds leave no value of.
    fn contradicted(node: &Node) -> TypeSet {
        let mut out = TypeSet::EMPTY;
        if let Some(s) = node.string.as_deref() {
            if matches!((s.min_length, s.max_length), (Some(lo), Some(hi)) if lo > hi) {
                out = out.with(JsonType::String);
            }
        }
        if let Some(n) = node.number.as_deref() {
            if let (Some(lo), Some(hi)) = (&n.lower, &n.upper) {
                if crossed(lo, hi) || no_multiple_between(n.multiple_of, lo, hi) {
                    out = out.with(JsonType::Number).with(JsonType::Integer);
                }
            }
        }
        if let Some(a) = node.array.as_deref() {
            if matches!((a.min_items, a.max_items), (Some(lo), Some(hi)) if lo > hi) {
                out = out.with(JsonType::Array);
            }
        }
        out
    }
    /// True when no number lies between a lower and an upper bound.
    fn crossed(lo: &Bound, hi: &Bound) -> bool {
        match crate::value::cmp_numbers(&lo.value, &hi.value) {
            Some(std::cmp::Ordering::Greater) => true,
            Some(std::cmp::Ordering::Equal) => lo.exclusive || hi.exclusive,
            _ => false,
        }
    }
    /// The types whose bounds in a node and in one of its union branches leave no value
    /// between them: a `minLength` of one above a `maxLength` of the other, and so on for
    /// numbers and items. Each node's own pairs are [`contradicted`]'s.
    fn bounds_clash(a: &Node, b: &Node) -> TypeSet {
        let mut out = TypeSet::EMPTY;
        let above =
            |lo: Option<u64>, hi: Option<u64>| matches!((lo, hi), (Some(lo), Some(hi)) if lo > hi);
        if let (Some(x), Some(y)) = (a.string.as_deref(), b.string.as_deref()) {
            if above(x.min_length, y.max_length) || above(y.min_length, x.max_length) {
                out = out.with(JsonType::String);
            }
        }
        if let (Some(x), Some(y)) = (a.number.as_deref(), b.number.as_deref()) {
            let cross = |lo: &Option<Bound>, hi: &Option<Bound>| matches!((lo, hi), (Some(lo), Some(hi)) if crossed(lo, hi));
            if cross(&x.lower, &y.upper) || cross(&y.lower, &x.upper) {
                out = out.with(JsonType::Number).with(JsonType::Integer);
            }
        }
        if let (Some(x), Some(y)) = (a.array.as_deref(), b.array.as_deref()) {
            if above(x.min_items, y.max_items) || above(y.min_items, x.max_items) {
                out = out.with(JsonType::Array);
            }
        }
        out
    }
    /// True when `a` has literals (`const`, `enum`) and `b` admits none of them by its `type`
    /// or its own bounds ([`beyond_bounds`]). The type sets cannot say it: the literal 2.5
    /// gives "number", whose meet with "integer" is "integer", although 2.5 is none (seed
    /// 1300, extended); and `"s"` gives "string", which a `minLength` of 2 leaves, although
    /// `"s"` is shorter (seed 47, extended: llguidance refuses such a wire as unsatisfiable).
    fn literals_outside(a: &Node, b: &Node) -> bool {
        let outside =
            |v: &Value| b.types.is_some_and(|t| !t.admits_value(v)) || beyond_bounds(v, b);
        if let Some(c) = a.constant.as_deref() {
            return outside(c);
        }
        a.enumeration
            .as_deref()
            .is_some_and(|e| e.values.iter().all(outside))
    }
    /// True when `v` breaks one of `node`'s own bounds for its type, as the validator decides
    /// them: a string's length ([`code_points`], as `minLength` counts), a number's bounds
    /// ([`Bound::admits`]), an array's length. Only these: `multipleOf`, `pattern` and the rest
    /// are not read, so a literal they would refuse still counts as admitted (wider, never
    /// narrower).
    fn beyond_bounds(v: &Value, node: &Node) -> bool {
        let outside = |len: usize, lo: Option<u64>, hi: Option<u64>| {
            let len = len as u64;
            lo.is_some_and(|lo| len < lo) || hi.is_some_and(|hi| len > hi)
        };
        match v {
            Value::String(s) => node
                .string
                .as_deref()
                .is_some_and(|r| outside(code_points(s), r.min_length, r.max_length)),
            Value::Array(items) => node
                .array
                .as_deref()
                .is_some_and(|r| outside(items.len(), r.min_items, r.max_items)),
            Value::Number(n) => node.number.as_deref().is_some_and(|r| {
                use std::cmp::Ordering::{Greater, Less};
                let breaks = |bound: &Option<Bound>, inside| {
                    bound.as_ref().is_some_and(|b| !b.admits(n, inside))
                };
                breaks(&r.lower, Greater) || breaks(&r.upper, Less)
            }),
            _ => false,
        }
    }
    /// True when no multiple of `multipleOf` lies within the bounds. A multiple of an integer
    /// is an integer, so each bound is first moved inward to the nearest integer it admits
    /// (exactly: `ceil`/`floor` of a float are exact, and integers beyond a float's precision
    /// are read as integers), and the check is then exact, so never wrong.
    fn no_multiple_between(m: Option<u64>, lo: &Bound, hi: &Bound) -> bool {
        let (Some(m), Some(first), Some(last)) = (
            m.filter(|m| *m > 0),
            integer_inside(lo, false),
            integer_inside(hi, true),
        ) else {
            return false;
        };
        let m = i128::from(m);
        // The least multiple of m at or above `first`.
        let least = first.div_euclid(m) * m + if first.rem_euclid(m) == 0 { 0 } else { m };
        least > last
    }
    /// The integer nearest to the bound on its allowed side: the least integer a lower bound
    /// admits, the greatest an upper bound admits; `None` for a float of 2^53 or more, past
    /// which not every integer is a float and readers may compare values less exactly.
    fn integer_inside(b: &Bound, upper: bool) -> Option<i128> {
        let step = i128::from(b.exclusive);
        if let Some(i) = b.value.as_i64() {
            return Some(if upper {
                i128::from(i) - step
            } else {
                i128::from(i) + step
            });
        }
        if let Some(u) = b.value.as_u64() {
            return Some(if upper {
                i128::from(u) - step
            } else {
                i128::from(u) + step
            });
        }
        let f = b.value.as_f64().filter(|f| f.abs() < 9.0e15)?;
        // Exact: a float of this size rounded to an integer is an integer i128 holds.
        Some(match (upper, b.exclusive) {
            (false, false) => f.ceil() as i128,
            (false, true) => f.floor() as i128 + 1,
            (true, false) => f.floor() as i128,
            (true, true) => f.ceil() as i128 - 1,
        })
    }
    /// The node's set given its users' sets. It starts from the node's `current` set rather
    /// than its local types: sets only shrink, so the two give the same result, and the local
    /// types (an `enum`'s values read one by one) are computed once, at the start.
    fn evaluate(
        node: &Node,
        current: TypeSet,
        ruled_out: TypeSet,
        admitted: &[TypeSet],
        apart: impl Fn(&Node, NodeId, &[TypeSet]) -> TypeSet,
    ) -> TypeSet {
        let of = |id: &NodeId| admitted.get(id.index()).copied().unwrap_or(TypeSet::ANY);
        let mut t = current;
        for m in node.all_of.iter().chain(node.reference.iter()) {
            t = t.intersect(of(m));
        }
        for union in [&node.any_of, &node.one_of] {
            if !union.is_empty() {
                t = t.intersect(union.iter().fold(TypeSet::EMPTY, |u, b| {
                    u.union(of(b).without_all(apart(node, *b, admitted)))
                }))
            }
        }
        t.without_all(ruled_out)
    }
    /// The inverse of `edges` (child, user): each child's users.
    fn inverted<T: Copy, I: Iterator<Item = (NodeId, T)>>(
        len: usize,
        edges: impl Fn() -> I,
        fill: T,
    ) -> Users<T> {
        let mut starts = vec![0usize; len + 1];
        for (m, _) in edges() {
            if let Some(s) = starts.get_mut(m.index() + 1) {
                *s += 1;
            }
        }
        for i in 1..starts.len() {
            let before = starts.get(i - 1).copied().unwrap_or(0);
            if let Some(s) = starts.get_mut(i) {
                *s += before;
            }
        }
        let mut users = vec![fill; starts.last().copied().unwrap_or(0)];
        let mut next = starts.clone();
        for (m, user) in edges() {
            if let Some(slot) = next.get_mut(m.index()) {
                if let Some(u) = users.get_mut(*slot) {
                    *u = user;
                }
                *slot += 1;
            }
        }
        Users { starts, users }
    }
    // What each node's own bounds rule out, and the types its own `type`, `enum` and `const`
    // leave besides: the sets start there.
    let mut ruled_out: Vec<TypeSet> = nodes.iter().map(contradicted).collect();
    // A node whose every literal breaks its own bounds admits nothing.
    let local: Vec<TypeSet> = nodes
        .iter()
        .zip(&ruled_out)
        .map(|(node, out)| {
            if literals_outside(node, node) {
                TypeSet::EMPTY
            } else {
                node.local_types().without_all(*out)
            }
        })
        .collect();
    // The types a member `name` may have under `o`, by its declared schema or the rule for
    // undeclared names, as far as `admitted` knows them so far (sets only shrink, so a set
    // read before it settles is wider, never narrower, than the settled one).
    let member = |o: &ObjectRules, name: &str, admitted: &[TypeSet]| {
        let of = |id: NodeId| admitted.get(id.index()).copied().unwrap_or(TypeSet::ANY);
        match o.properties.get(name) {
            Some(id) => of(id),
            None => match o.additional {
                Additional::Forbidden => TypeSet::EMPTY,
                Additional::Schema(id) => of(id),
                Additional::Unspecified | Additional::Allowed => TypeSet::ANY,
            },
        }
    };
    // True when no object meets both a union's node and one of its branches by their own
    // object keywords: a name one of them requires is a member neither can share (both
    // declare it with schemas of no common type, or one is closed to it, or gives undeclared
    // names a schema of no common type with the other's). Engines that merge a branch with
    // its siblings (llguidance) refuse a wire that offers such a branch as the only way to
    // write an object. Where both sides leave undeclared names open, only names both declare
    // can conflict; most unions' objects require none of those, and are passed at once.
    let objects_apart = |node: &Node, branch: &Node, admitted: &[TypeSet]| -> bool {
        let (Some(a), Some(b)) = (
            node.object.as_deref().filter(|_| closed_is_closed),
            branch.object.as_deref(),
        ) else {
            return false;
        };
        if a.required.is_empty() && b.required.is_empty() {
            return false;
        }
        let open = a.additional.is_open() && b.additional.is_open();
        a.required.iter().chain(&b.required).any(|name| {
            let common = if open {
                match (a.properties.get(name), b.properties.get(name)) {
                    (Some(_), Some(_)) => {
                        member(a, name, admitted).intersect(member(b, name, admitted))
                    }
                    _ => return false,
                }
            } else {
                member(a, name, admitted).intersect(member(b, name, admitted))
            };
            common.is_empty()
        })
    };
    // The types no value of which meets both a union's node and one of its branches.
    let apart = |node: &Node, branch: NodeId, admitted: &[TypeSet]| -> TypeSet {
        let Some(b) = nodes.get(branch.index()) else {
            return TypeSet::EMPTY;
        };
        if literals_outside(node, b) || literals_outside(b, node) {
            return TypeSet::ANY;
        }
        let clash = bounds_clash(node, b);
        if objects_apart(node, b, admitted) {
            clash.with(JsonType::Object)
        } else {
            clash
        }
    };
    let users = inverted(
        nodes.len(),
        || {
            nodes
                .iter()
                .enumerate()
                .flat_map(|(user, node)| applicators(node).map(move |m| (*m, user as u32)))
        },
        0u32,
    );
    let mut admitted: Vec<TypeSet> = local.clone();
    // Nodes that admit nothing and have not yet told the containers that need them. Each is
    // listed once: sets only shrink, so a node becomes empty once.
    let mut empties: Vec<u32> = (0..nodes.len() as u32)
        .filter(|i| admitted.get(*i as usize).is_some_and(|t| t.is_empty()))
        .collect();
    // Built only when some node admits nothing, which real schemas rarely have: most parses
    // never pay for looking their required names up.
    let mut needers: Option<Users<(u32, JsonType)>> = None;
    fn enqueue(user: u32, queued: &mut [bool], pending: &mut Vec<u32>) {
        if let Some(q) = queued.get_mut(user as usize).filter(|q| !**q) {
            *q = true;
            pending.push(user);
        }
    }
    // Parsed schemas number children after their parents, so popping from the end settles
    // children first and most nodes are evaluated once.
    let mut pending: Vec<u32> = (0..nodes.len() as u32).collect();
    let mut queued = vec![true; nodes.len()];
    loop {
        while let Some(i) = pending.pop() {
            let i = i as usize;
            if let Some(q) = queued.get_mut(i) {
                *q = false;
            }
            let (Some(node), Some(current), Some(out)) = (
                nodes.get(i),
                admitted.get(i).copied(),
                ruled_out.get(i).copied(),
            ) else {
                continue;
            };
            let t = evaluate(node, current, out, &admitted, apart);
            if t == current {
                continue;
            }
            if let Some(slot) = admitted.get_mut(i) {
                *slot = t;
            }
            for user in users.of(i) {
                enqueue(*user, &mut queued, &mut pending);
            }
            if t.is_empty() {
                empties.push(i as u32);
            }
        }
        if empties.is_empty() {
            break;
        }
        let needers = needers.get_or_insert_with(|| {
            inverted(
                nodes.len(),
                || {
                    nodes.iter().enumerate().flat_map(|(user, node)| {
                        needs(node).map(move |(child, t)| (child, (user as u32, t)))
                    })
                },
                (0u32, JsonType::Null),
            )
        });
        for i in empties.drain(..) {
            for (user, ty) in needers.of(i as usize) {
                let Some(r) = ruled_out.get_mut(*user as usize) else {
                    continue;
                };
                if !r.contains(*ty) {
                    *r = r.with(*ty);
                    enqueue(*user, &mut queued, &mut pending);
                }
            }
        }
    }
    admitted
}

/// Who uses each node, in one flat list: the users of node `i` are
/// `users[starts[i]..starts[i + 1]]`.
struct Users<T> {
    starts: Vec<usize>,
    users: Vec<T>,
}

impl<T> Users<T> {
    fn of(&self, i: usize) -> &[T] {
        let range =
            self.starts.get(i).copied().unwrap_or(0)..self.starts.get(i + 1).copied().unwrap_or(0);
        self.users.get(range).unwrap_or(&[])
    }
}

pub(crate) static EMPTY_NODE: Node = Node {
    pointer: Pointer::EMPTY,
    types: None,
    enumeration: None,
    constant: None,
    string: None,
    number: None,
    array: None,
    object: None,
    all_of: Vec::new(),
    any_of: Vec::new(),
    one_of: Vec::new(),
    not: None,
    reference: None,
    plain_reference: false,
    annotations: None,
    property_counts: None,
};

/// One schema object of the source.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct Node {
    /// Where the node was written in the source document.
    pub pointer: Pointer,
    /// `type`, when given.
    pub types: Option<TypeSet>,
    /// `enum`.
    pub enumeration: Option<Arc<Enumeration>>,
    /// `const`.
    pub constant: Option<Arc<Value>>,
    /// `minLength`, `maxLength`, `pattern`.
    pub string: Option<Arc<StringRules>>,
    /// `minimum`, `maximum`, `exclusive*`, `multipleOf`.
    pub number: Option<Arc<NumberRules>>,
    /// `prefixItems`, `items`, `minItems`, `maxItems`, `uniqueItems`.
    pub array: Option<Arc<ArrayRules>>,
    /// `properties`, `required`, `additionalProperties`.
    pub object: Option<Arc<ObjectRules>>,
    /// `allOf`.
    pub all_of: Vec<NodeId>,
    /// `anyOf`.
    pub any_of: Vec<NodeId>,
    /// `oneOf`.
    pub one_of: Vec<NodeId>,
    /// `not`.
    pub not: Option<NodeId>,
    /// `$ref` (extended subset): the node it resolves to. Applies in conjunction with the
    /// node's other keywords (2020-12), possibly back up the tree (recursion).
    pub reference: Option<NodeId>,
    /// True when [`Node::reference`] was written as a plain JSON Pointer from the document's
    /// root (`#` or `#/…`, no percent-encoding, no empty token, not inside a subschema with an
    /// `$id` of its own, and in drafts 4 to 7 with no sibling that declares properties or
    /// applies subschemas): a reader that resolves the text against the root document, as
    /// the declared fragment of widening.md does, reaches the same schema. Only then may the
    /// objects the reference reaches be closed to their declared names by the routes that
    /// close objects; `false` for every other reference and every node a rewrite makes, which
    /// keeps those objects open.
    pub plain_reference: bool,
    /// `title`, `description`, `default`, `examples`, `format`, `$schema`, `$id`.
    pub annotations: Option<Arc<Annotations>>,
    /// `minProperties`, `maxProperties`: set only where a `full` schema is lowered for a
    /// target whose dialect sends them (see [`crate::dialect::full_rows`]); the other subsets
    /// refuse both keywords and `full` itself keeps them in [`FullRules`]. Answers are held
    /// to the source schema, never to this rewrite; the validator still reads it, because the
    /// reshaping lens chooses a union's branch by the rewrite's verdict (a `not` over kept
    /// counts would otherwise reject every object).
    /// Behind a pointer, one word, so that the nodes of every other schema stay small.
    pub property_counts: Option<Arc<PropertyCounts>>,
}

impl Node {
    /// The types this node's own `type`, `enum` and `const` leave possible (subschemas not
    /// consulted). `ANY` when none of them is present.
    pub fn local_types(&self) -> TypeSet {
        let mut t = self.types.unwrap_or(TypeSet::ANY);
        if let Some(c) = &self.constant {
            t = t.intersect(TypeSet::of(JsonType::of(c)));
        }
        if let Some(e) = &self.enumeration {
            let of_values = e.values.iter().fold(TypeSet::EMPTY, |acc, v| {
                acc.union(TypeSet::of(JsonType::of(v)))
            });
            t = t.intersect(of_values);
        }
        t
    }

    /// Every subschema the node applies, through every keyword and its reference, in one fixed
    /// order: applicators (`allOf`, `anyOf`, `oneOf`, `not`, `$ref`), then `prefixItems`,
    /// `items`, `properties` and an `additionalProperties` schema.
    pub fn subschemas(&self) -> impl Iterator<Item = NodeId> + '_ {
        let array = self.array.as_deref();
        let object = self.object.as_deref();
        let additional = object.and_then(|o| match o.additional {
            Additional::Schema(id) => Some(id),
            _ => None,
        });
        self.all_of
            .iter()
            .chain(&self.any_of)
            .chain(&self.one_of)
            .copied()
            .chain(self.not)
            .chain(self.reference)
            .chain(
                array
                    .into_iter()
                    .flat_map(|a| a.prefix_items.iter().copied().chain(a.items)),
            )
            .chain(
                object
                    .into_iter()
                    .flat_map(|o| o.properties.iter().map(|(_, id)| id)),
            )
            .chain(additional)
    }

    /// True when the node has `anyOf` or `oneOf`: a union, whose branches carry its types.
    pub(crate) fn has_union(&self) -> bool {
        !self.any_of.is_empty() || !self.one_of.is_empty()
    }

    /// The values `const` or `enum` limit this node to (`const` when both are present), or
    /// `None` when neither is.
    pub fn literals(&self) -> Option<Vec<&Value>> {
        match (&self.constant, &self.enumeration) {
            (Some(c), _) => Some(vec![&**c]),
            (None, Some(e)) => Some(e.values.iter().collect()),
            (None, None) => None,
        }
    }

    /// How many keywords the node writes, about: what a lowering's map for it is allocated
    /// with, so it does not grow (and rehash) key by key.
    pub(crate) fn keyword_count(&self) -> usize {
        let some = |present: bool| usize::from(present);
        let annotations = self.annotations.as_deref().map_or(0, |a| {
            some(a.title.is_some())
                + some(a.description.is_some() || a.format.is_some())
                + some(a.default.is_some())
                + some(a.examples.is_some())
        });
        let string = self.string.as_deref().map_or(0, |s| {
            some(s.min_length.is_some()) + some(s.max_length.is_some()) + some(s.pattern.is_some())
        });
        let number = self.number.as_deref().map_or(0, |n| {
            some(n.lower.is_some()) + some(n.upper.is_some()) + some(n.multiple_of.is_some())
        });
        let array = self.array.as_deref().map_or(0, |a| {
            1 + some(a.min_items.is_some()) + some(a.max_items.is_some()) + some(a.unique_items)
        });
        let counts = self
            .property_counts
            .as_deref()
            .map_or(0, |c| some(c.min.is_some()) + some(c.max.is_some()));
        1 + annotations
            + some(self.enumeration.is_some() || self.constant.is_some())
            + string
            + number
            + array
            + counts
            + self.object.as_ref().map_or(0, |_| 3)
            + some(self.has_union())
            + some(!self.all_of.is_empty())
            + some(self.not.is_some())
    }

    /// `description`, if any.
    pub fn description(&self) -> Option<&str> {
        self.annotations.as_ref()?.description.as_deref()
    }

    /// `title`, if any.
    pub fn title(&self) -> Option<&str> {
        self.annotations.as_ref()?.title.as_deref()
    }

    /// `format`, if any.
    pub fn format(&self) -> Option<&str> {
        self.annotations.as_ref()?.format.as_deref()
    }
}

/// The values of an `enum`, with a hash index when there are many.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Enumeration {
    /// The values, in source order.
    pub values: Vec<Value>,
    index: Option<ByHash<Vec<u32>>>,
}

/// A map keyed by [`literal_hash`]es, which are mixed already: hashing them again would cost
/// more than the lookup.
pub(crate) type ByHash<V> = HashMap<u64, V, BuildHasherDefault<Prehashed>>;

/// The hasher of [`ByHash`]: keeps the `u64` it is given.
#[derive(Debug, Default)]
pub(crate) struct Prehashed(u64);

impl Hasher for Prehashed {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Only `write_u64` is expected; anything else still hashes, if poorly.
        for b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(*b)).wrapping_mul(MIX);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

const MIX: u64 = 0x9e37_79b9_7f4a_7c15;

/// A hash consistent with [`literal_eq`]: a string's bytes word by word (equal strings are
/// equal bytes), anything else [`json_hash`]. A word-wise multiply is a fraction of SipHash
/// on the short strings literals mostly are; it resists no chosen collisions, but a table of
/// the schema's literals can then only degrade to the scan it replaces.
pub(crate) fn literal_hash(v: &Value) -> u64 {
    let Value::String(s) = v else {
        return json_hash(v);
    };
    let mut words = s.as_bytes().chunks_exact(8);
    let mut h = s.len() as u64;
    for w in &mut words {
        let w = <[u8; 8]>::try_from(w).map_or(0, u64::from_le_bytes);
        h = (h.rotate_left(23) ^ w).wrapping_mul(MIX);
    }
    let tail = words
        .remainder()
        .iter()
        .rev()
        .fold(0, |t, b| t << 8 | u64::from(*b));
    h = (h.rotate_left(23) ^ tail).wrapping_mul(MIX);
    // The multiply mixes upwards only; the table's slot comes from the low bits.
    h ^ (h >> 32)
}

/// Above this many values, membership goes through a hash index instead of a scan.
const ENUM_INDEX_THRESHOLD: usize = 16;

impl Enumeration {
    pub(crate) fn new(values: Vec<Value>) -> Self {
        let index = (values.len() > ENUM_INDEX_THRESHOLD).then(|| {
            let mut m = ByHash::<Vec<u32>>::default();
            for (i, v) in values.iter().enumerate() {
                m.entry(literal_hash(v)).or_default().push(i as u32);
            }
            m
        });
        Enumeration { values, index }
    }

    /// True when `v` equals one of the values (JSON Schema equality).
    pub fn contains(&self, v: &Value) -> bool {
        match &self.index {
            None => self.values.iter().any(|e| literal_eq(e, v)),
            Some(m) => m.get(&literal_hash(v)).is_some_and(|bucket| {
                bucket
                    .iter()
                    .filter_map(|i| self.values.get(*i as usize))
                    .any(|e| literal_eq(e, v))
            }),
        }
    }
}

/// [`json_eq`], without its work list for the scalars that most literals are.
pub(crate) fn literal_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Number(x), Value::Number(y)) => {
            cmp_numbers(x, y) == Some(std::cmp::Ordering::Equal)
        }
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Null, Value::Null) => true,
        (Value::Array(_) | Value::Object(_), _) => json_eq(a, b),
        _ => false,
    }
}

/// String keywords.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct StringRules {
    /// `minLength`, in code points.
    pub min_length: Option<u64>,
    /// `maxLength`, in code points.
    pub max_length: Option<u64>,
    /// `pattern`, compiled once.
    pub pattern: Option<Pattern>,
}

/// A numeric bound after normalisation: `minimum` and `exclusiveMinimum` fold into the tighter
/// of the two.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Bound {
    /// The limit.
    pub value: Number,
    /// True when the limit itself is excluded.
    pub exclusive: bool,
}

impl Bound {
    /// True when `n` lies on the allowed side: `inside` is how `n` compares with the limit when
    /// it is allowed outright (`Greater` for a lower bound); the limit itself is allowed unless
    /// the bound is exclusive.
    pub(crate) fn admits(&self, n: &Number, inside: std::cmp::Ordering) -> bool {
        match crate::value::cmp_numbers(n, &self.value) {
            Some(std::cmp::Ordering::Equal) => !self.exclusive,
            Some(o) => o == inside,
            None => false,
        }
    }

    /// The keyword that expresses this bound as a lower bound.
    pub fn lower_keyword(&self) -> &'static str {
        if self.exclusive {
            "exclusiveMinimum"
        } else {
            "minimum"
        }
    }

    /// The keyword that expresses this bound as an upper bound.
    pub fn upper_keyword(&self) -> &'static str {
        if self.exclusive {
            "exclusiveMaximum"
        } else {
            "maximum"
        }
    }
}

/// Numeric keywords.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct NumberRules {
    /// The tighter of `minimum` and `exclusiveMinimum`.
    pub lower: Option<Bound>,
    /// The tighter of `maximum` and `exclusiveMaximum`.
    pub upper: Option<Bound>,
    /// `multipleOf` (a positive integer in the subset).
    pub multiple_of: Option<u64>,
}

/// Array keywords.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct ArrayRules {
    /// `prefixItems`.
    pub prefix_items: Vec<NodeId>,
    /// `items` (applies after the prefix).
    pub items: Option<NodeId>,
    /// `minItems`.
    pub min_items: Option<u64>,
    /// `maxItems`.
    pub max_items: Option<u64>,
    /// `uniqueItems: true`.
    pub unique_items: bool,
}

/// What `additionalProperties` says.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Additional {
    /// Not given: undeclared members are allowed.
    #[default]
    Unspecified,
    /// `true`.
    Allowed,
    /// `false`: only declared members.
    Forbidden,
    /// A schema every undeclared member must satisfy.
    Schema(NodeId),
}

impl Additional {
    /// True when undeclared members are allowed without any constraint.
    pub fn is_open(self) -> bool {
        matches!(self, Additional::Unspecified | Additional::Allowed)
    }
}

/// Object keywords.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct ObjectRules {
    /// `properties`, in source order.
    pub properties: Properties,
    /// `required`, in source order.
    pub required: Vec<Box<str>>,
    /// `additionalProperties`.
    pub additional: Additional,
}

impl ObjectRules {
    /// True when `name` is listed in `required`.
    pub fn is_required(&self, name: &str) -> bool {
        self.required.iter().any(|r| &**r == name)
    }
}

/// `required` of one object, looked up by name many times: hashed on the first lookup, so
/// that asking of every property is linear (a scan per name, [`ObjectRules::is_required`],
/// is quadratic over a hostile object), and an object never asked pays nothing.
pub(crate) struct RequiredNames<'a> {
    rules: &'a ObjectRules,
    hashed: Option<std::collections::HashSet<&'a str>>,
}

impl<'a> RequiredNames<'a> {
    pub(crate) fn new(rules: &'a ObjectRules) -> Self {
        RequiredNames {
            rules,
            hashed: None,
        }
    }

    /// True when `name` is listed in `required`.
    pub(crate) fn contains(&mut self, name: &str) -> bool {
        let rules = self.rules;
        self.hashed
            .get_or_insert_with(|| rules.required.iter().map(|r| &**r).collect())
            .contains(name)
    }
}

/// `minProperties` and `maxProperties` of a node, as a lowering carries them (see
/// [`Node::property_counts`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct PropertyCounts {
    /// `minProperties`.
    pub min: Option<u64>,
    /// `maxProperties`.
    pub max: Option<u64>,
}

/// An order-preserving property map with logarithmic lookup.
#[derive(Clone, Debug, Default)]
pub struct Properties {
    entries: Vec<(Box<str>, NodeId)>,
    /// Entry positions sorted by name; built once, used when there are many entries.
    sorted: Vec<u32>,
}

/// Below this many properties a linear scan beats the sorted index.
const PROPERTY_INDEX_THRESHOLD: usize = 12;

impl Properties {
    pub(crate) fn new(entries: Vec<(Box<str>, NodeId)>) -> Self {
        let mut sorted = Vec::new();
        if entries.len() > PROPERTY_INDEX_THRESHOLD {
            sorted = (0..entries.len() as u32).collect();
            sorted.sort_unstable_by(|a, b| {
                let name = |i: &u32| entries.get(*i as usize).map(|e| &*e.0);
                name(a).cmp(&name(b))
            });
        }
        Properties { entries, sorted }
    }

    /// The subschema for a declared property.
    pub fn get(&self, name: &str) -> Option<NodeId> {
        self.entries.get(self.position(name)?).map(|e| e.1)
    }

    /// Where a declared property stands in source order ([`Properties::iter`]). Names are
    /// unique: they are an object's member names, or a merge's, which takes each name once.
    pub(crate) fn position(&self, name: &str) -> Option<usize> {
        if self.sorted.is_empty() {
            return self.entries.iter().position(|(n, _)| &**n == name);
        }
        let pos = self
            .sorted
            .binary_search_by(|i| {
                self.entries
                    .get(*i as usize)
                    .map_or("", |e| &*e.0)
                    .cmp(name)
            })
            .ok()?;
        self.sorted.get(pos).map(|i| *i as usize)
    }

    /// True when declared.
    pub fn contains(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    /// Declared properties in source order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&str, NodeId)> {
        self.entries.iter().map(|(n, id)| (&**n, *id))
    }

    /// Number of declared properties.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when none are declared.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// Annotation keywords: kept for re-emission, never asserted.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct Annotations {
    /// `title`.
    pub title: Option<Box<str>>,
    /// `description`.
    pub description: Option<Box<str>>,
    /// `default`.
    pub default: Option<Value>,
    /// `examples`.
    pub examples: Option<Vec<Value>>,
    /// `format` (an annotation in 2020-12 unless a format-assertion vocabulary is in use).
    pub format: Option<Box<str>>,
    /// `$schema`.
    pub schema: Option<Box<str>>,
    /// `$id`.
    pub id: Option<Box<str>>,
}

/// A JSON Schema draft (`full` subset), chosen by `$schema`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Draft {
    /// Draft 4 (`id`, boolean `exclusiveMaximum`, `dependencies`, tuple `items`).
    Draft4,
    /// Draft 6 (`$id`, `const`, `contains`, `propertyNames`, boolean schemas).
    Draft6,
    /// Draft 7 (`if`/`then`/`else`).
    Draft7,
    /// 2019-09 (`$anchor`, `$recursiveRef`, `dependent*`, `unevaluated*`; `$ref` beside other
    /// keywords).
    Draft2019_09,
    /// 2020-12 (`prefixItems`, `$dynamicRef`), the default.
    #[default]
    Draft2020_12,
}

impl Draft {
    /// Every draft, oldest first.
    pub const ALL: [Draft; 5] = [
        Draft::Draft4,
        Draft::Draft6,
        Draft::Draft7,
        Draft::Draft2019_09,
        Draft::Draft2020_12,
    ];

    /// The name used on the command line (`draft4` … `draft2020-12`), as the official test
    /// suite names its folders.
    pub fn name(self) -> &'static str {
        match self {
            Draft::Draft4 => "draft4",
            Draft::Draft6 => "draft6",
            Draft::Draft7 => "draft7",
            Draft::Draft2019_09 => "draft2019-09",
            Draft::Draft2020_12 => "draft2020-12",
        }
    }

    /// Parses a draft name (`draft7`, `7`, `2019-09`, `draft2020-12` …).
    pub fn from_name(name: &str) -> Option<Draft> {
        let n = name.strip_prefix("draft").unwrap_or(name);
        let n = n.strip_prefix('-').unwrap_or(n);
        match n {
            "4" | "04" => Some(Draft::Draft4),
            "6" | "06" => Some(Draft::Draft6),
            "7" | "07" => Some(Draft::Draft7),
            "2019-09" => Some(Draft::Draft2019_09),
            "2020-12" => Some(Draft::Draft2020_12),
            _ => None,
        }
    }

    /// The draft a `$schema` URI names, if it is one of the five meta-schemas.
    pub fn from_meta_schema(uri: &str) -> Option<Draft> {
        let u = uri.trim_end_matches('#');
        let u = u
            .strip_prefix("http://")
            .or_else(|| u.strip_prefix("https://"))?;
        match u {
            "json-schema.org/draft-04/schema" => Some(Draft::Draft4),
            "json-schema.org/draft-06/schema" => Some(Draft::Draft6),
            "json-schema.org/draft-07/schema" => Some(Draft::Draft7),
            "json-schema.org/draft/2019-09/schema" => Some(Draft::Draft2019_09),
            "json-schema.org/draft/2020-12/schema" => Some(Draft::Draft2020_12),
            _ => None,
        }
    }
}

/// The keywords of one node that only the `full` subset has. Kept beside the arena (see
/// [`crate::Schema::full_rules`]), so nodes of the other subsets do not grow.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct FullRules {
    /// The boolean schema `false`: nothing is valid.
    pub never: bool,
    /// `patternProperties`, in source order.
    pub pattern_properties: Vec<(Pattern, NodeId)>,
    /// `propertyNames`.
    pub property_names: Option<NodeId>,
    /// `minProperties`.
    pub min_properties: Option<u64>,
    /// `maxProperties`.
    pub max_properties: Option<u64>,
    /// `dependentRequired` (and the list form of draft 4-7 `dependencies`).
    pub dependent_required: Vec<(Box<str>, Vec<Box<str>>)>,
    /// `dependentSchemas` (and the schema form of draft 4-7 `dependencies`).
    pub dependent_schemas: Vec<(Box<str>, NodeId)>,
    /// `if`.
    pub if_: Option<NodeId>,
    /// `then`.
    pub then_: Option<NodeId>,
    /// `else`.
    pub else_: Option<NodeId>,
    /// `contains`.
    pub contains: Option<NodeId>,
    /// `minContains` (2019-09 on; 1 when absent).
    pub min_contains: Option<u64>,
    /// `maxContains`.
    pub max_contains: Option<u64>,
    /// `unevaluatedProperties`.
    pub unevaluated_properties: Option<NodeId>,
    /// `unevaluatedItems`.
    pub unevaluated_items: Option<NodeId>,
    /// `multipleOf` when it is not a positive integer (checked exactly, in decimal).
    pub multiple_of: Option<Number>,
    /// `$dynamicRef` (2020-12): the statically resolved node, and the anchor name its fragment
    /// gives (dynamic resolution applies only when the target declares that `$dynamicAnchor`).
    pub dynamic_ref: Option<(NodeId, Option<Box<str>>)>,
    /// `$recursiveRef` (2019-09): the statically resolved node.
    pub recursive_ref: Option<NodeId>,
    /// `format`, when formats are asserted ([`crate::ParseOptions::with_assert_format`]).
    pub format_assertion: Option<Box<str>>,
    /// `$dynamicAnchor` declared on this node.
    pub dynamic_anchor: Option<Box<str>>,
    /// The draft this node was read as.
    pub draft: Draft,
}

/// One schema resource (a document, or a subschema with its own `$id`).
#[derive(Clone, Debug, Default)]
pub(crate) struct Resource {
    /// The absolute base URI.
    pub(crate) base: Box<str>,
    /// `$dynamicAnchor` names declared in the resource.
    pub(crate) dynamic_anchors: Vec<(Box<str>, NodeId)>,
    /// The resource root, when it says `$recursiveAnchor: true`.
    pub(crate) recursive_anchor: Option<NodeId>,
    /// The draft the resource is read as.
    pub(crate) draft: Draft,
}

/// What a `full` subset schema has beside its arena.
#[derive(Clone, Debug, Default)]
pub(crate) struct FullIr {
    /// Per node (by index): its `full`-only keywords.
    pub(crate) rules: Vec<Option<Arc<FullRules>>>,
    /// Per node (by index): the resource it belongs to, an index into `resources`.
    pub(crate) resource_of: Vec<u32>,
    pub(crate) resources: Vec<Resource>,
    /// Unknown keywords (lint warnings).
    pub(crate) warnings: Vec<crate::error::Violation>,
    /// True when some node has `unevaluated*`: only then are annotations collected.
    pub(crate) unevaluated: bool,
    /// The root document's draft.
    pub(crate) root_draft: Draft,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::subset::ParseOptions;
    use serde_json::json;

    fn admitted_at_root(v: Value) -> TypeSet {
        let options = ParseOptions {
            subset: Subset::Extended,
            ..ParseOptions::default()
        };
        let s = crate::subset::parse(&v, &options).unwrap_or_else(|e| panic!("{e}"));
        s.admitted(s.root())
    }

    #[test]
    fn admitted_types_follow_applicators() {
        let t = admitted_at_root(
            json!({"anyOf": [{"type": "string"}, {"const": 1}], "allOf": [{"type": ["string", "integer", "null"]}]}),
        );
        assert_eq!(t, TypeSet::of(JsonType::String).with(JsonType::Integer));
        // `not` and member subschemas are not consulted: wider, never narrower.
        let t = admitted_at_root(json!({"not": {"type": "string"}, "items": {"type": "string"}}));
        assert_eq!(t, TypeSet::ANY);
    }

    #[test]
    fn admitted_types_leave_out_what_bounds_and_needed_children_rule_out() {
        let none = TypeSet::EMPTY;
        let array = TypeSet::of(JsonType::Array);
        let object = TypeSet::of(JsonType::Object);
        let cases = [
            // Literals that break the bounds beside them: of the node itself, or of a union
            // and its branch either way (seed 47, extended: an unsatisfiable wire that
            // llguidance refuses). Only all of them failing rules the node out.
            (
                json!({"type": "string", "minLength": 2, "const": "s"}),
                none,
            ),
            (
                json!({"type": "string", "minLength": 2, "enum": ["s", "abc"]}),
                TypeSet::of(JsonType::String),
            ),
            (
                json!({"type": "string", "minLength": 2, "anyOf": [{"const": "s"}]}),
                none,
            ),
            (
                json!({"const": "s", "anyOf": [{"type": "string", "maxLength": 0}]}),
                none,
            ),
            (
                json!({"minLength": 2, "anyOf": [{"const": "s"}, {"type": "integer"}]}),
                TypeSet::of(JsonType::Integer),
            ),
            (
                json!({"type": "integer", "exclusiveMinimum": 1, "const": 1}),
                none,
            ),
            (
                json!({"type": "integer", "minimum": 3, "anyOf": [{"enum": [1, 2.0]}]}),
                none,
            ),
            (
                json!({"type": "number", "maximum": 1.5, "enum": [1.5, 7]}),
                TypeSet::of(JsonType::Number),
            ),
            (json!({"minItems": 2, "const": [1]}), none),
            // `multipleOf` and `pattern` are not read: wider, never narrower.
            (
                json!({"type": "integer", "multipleOf": 2, "const": 3}),
                TypeSet::of(JsonType::Integer),
            ),
            // Contradictory bounds of the node itself.
            (
                json!({"type": ["string", "array"], "minItems": 2, "maxItems": 1}),
                TypeSet::of(JsonType::String),
            ),
            (
                json!({"type": "string", "minLength": 3, "maxLength": 2}),
                none,
            ),
            (
                json!({"type": "string", "minLength": 2, "maxLength": 2}),
                TypeSet::of(JsonType::String),
            ),
            (
                json!({"type": "number", "minimum": 2, "maximum": 1.5}),
                none,
            ),
            (
                json!({"type": "integer", "exclusiveMinimum": 1, "maximum": 1}),
                none,
            ),
            (
                json!({"type": "integer", "minimum": 1, "maximum": 1}),
                TypeSet::of(JsonType::Integer),
            ),
            // No multiple of `multipleOf` between the bounds.
            (
                json!({"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1, "multipleOf": 1}),
                none,
            ),
            (
                json!({"type": "integer", "minimum": -7, "maximum": -5, "multipleOf": 4}),
                none,
            ),
            (
                json!({"type": "integer", "minimum": -8, "maximum": -5, "multipleOf": 4}),
                TypeSet::of(JsonType::Integer),
            ),
            (
                json!({"type": "number", "minimum": 1, "exclusiveMaximum": 2, "multipleOf": 1}),
                TypeSet::of(JsonType::Number),
            ),
            // Fractional bounds, moved inward to the integers they admit (seed 900, extended).
            (
                json!({"type": "number", "minimum": 0.5, "maximum": 0.9, "multipleOf": 1}),
                none,
            ),
            (
                json!({"type": "number", "minimum": 0.5, "maximum": 1, "multipleOf": 2}),
                none,
            ),
            (
                json!({"type": "number", "exclusiveMinimum": 1.5, "exclusiveMaximum": 2.0, "multipleOf": 1}),
                none,
            ),
            (
                json!({"type": "number", "minimum": 0.5, "maximum": 2.0, "multipleOf": 2}),
                TypeSet::of(JsonType::Number),
            ),
            (
                json!({"type": "number", "minimum": -0.5, "maximum": 0.5, "multipleOf": 3}),
                TypeSet::of(JsonType::Number),
            ),
            (
                json!({"type": "number", "exclusiveMinimum": 1.0, "maximum": 2.5, "multipleOf": 2}),
                TypeSet::of(JsonType::Number),
            ),
            // Bounds too large to round exactly are not decided: wider, never narrower.
            (
                json!({"type": "number", "minimum": 1.5e300, "maximum": 1.6e300, "multipleOf": 7}),
                TypeSet::of(JsonType::Number),
            ),
            // An item that admits nothing caps the length; `minItems` past the cap leaves no array.
            (
                json!({"type": "array", "prefixItems": [{"type": "string"}, {"type": "array", "minItems": 2, "maxItems": 1}], "minItems": 2}),
                none,
            ),
            (
                json!({"type": "array", "prefixItems": [{"type": "string"}, {"type": "array", "minItems": 2, "maxItems": 1}], "minItems": 1}),
                array,
            ),
            (
                json!({"type": "array", "prefixItems": [{"type": "string"}], "items": {"type": "string", "minLength": 1, "maxLength": 0}, "minItems": 2}),
                none,
            ),
            (
                json!({"type": "array", "items": {"type": "string", "minLength": 1, "maxLength": 0}}),
                array,
            ),
            // Through an applicator: the branch admits nothing, so the union is the string.
            (
                json!({"type": "array", "items": {"anyOf": [{"type": "number", "minimum": 3, "maximum": 2}, {"type": "string"}]}, "minItems": 1}),
                array,
            ),
            // A required property that admits nothing leaves no object; an optional one does not.
            (
                json!({"type": "object", "properties": {"a": {"type": "integer", "minimum": 5, "maximum": 1}}, "required": ["a"]}),
                none,
            ),
            (
                json!({"type": "object", "properties": {"a": {"type": "integer", "minimum": 5, "maximum": 1}}}),
                object,
            ),
            // And up the tree: the root needs the object that needs the empty property.
            (
                json!({"type": "object", "properties": {"o": {"type": "object", "properties": {"a": {"type": "string", "minLength": 9, "maxLength": 1}}, "required": ["a"]}}, "required": ["o"]}),
                none,
            ),
            // Through a reference: the property becomes empty only once its target is known.
            (
                json!({"$defs": {"x": {"type": "string", "minLength": 3, "maxLength": 1}}, "type": ["object", "null"], "properties": {"a": {"$ref": "#/$defs/x"}}, "required": ["a"]}),
                TypeSet::of(JsonType::Null),
            ),
            // An item past `minItems` may admit nothing: the array can stop before it.
            (
                json!({"type": "array", "prefixItems": [{"type": "string"}, {"allOf": [{"type": "string"}, {"type": "integer"}]}], "minItems": 1}),
                array,
            ),
            // An undeclared required name is left to the lowerings (see `needs`).
            (
                json!({"type": "object", "required": ["ghost"], "additionalProperties": false}),
                object,
            ),
            // A union branch closed against a name its node requires leaves no object through
            // it, and so does a branch requiring a name its closed node does not declare.
            (
                json!({"type": ["object", "null"], "properties": {"a": {"type": "string"}}, "required": ["a"], "anyOf": [{"type": "object", "additionalProperties": false}, {"type": "null"}]}),
                TypeSet::of(JsonType::Null),
            ),
            (
                json!({"type": "object", "additionalProperties": false, "anyOf": [{"required": ["k"]}]}),
                none,
            ),
            (
                json!({"type": "object", "additionalProperties": {"type": "integer"}, "anyOf": [{"properties": {"a": {"type": "string"}}, "required": ["a"]}]}),
                none,
            ),
            (
                json!({"type": "object", "properties": {"a": {}}, "required": ["a"], "anyOf": [{"properties": {"a": {}}, "additionalProperties": false}]}),
                object,
            ),
            (
                json!({"type": "object", "additionalProperties": {"type": "number"}, "anyOf": [{"properties": {"a": {"type": "integer"}}, "required": ["a"]}]}),
                object,
            ),
            // Bounds of a node and its branch with nothing between them (seed 1300, extended).
            (
                json!({"type": "string", "minLength": 2, "anyOf": [{"type": "string", "maxLength": 1}]}),
                none,
            ),
            (
                json!({"type": "string", "minLength": 2, "anyOf": [{"maxLength": 1}, {"type": "string"}]}),
                TypeSet::of(JsonType::String),
            ),
            (
                json!({"type": "number", "minimum": 5, "anyOf": [{"exclusiveMaximum": 5}]}),
                none,
            ),
            (
                json!({"type": "number", "minimum": 5, "anyOf": [{"maximum": 5}]}),
                TypeSet::of(JsonType::Number),
            ),
            (
                json!({"type": "array", "maxItems": 1, "oneOf": [{"minItems": 2}]}),
                none,
            ),
            // Literals of one side that the other's `type` admits none of.
            (
                json!({"type": ["string", "integer", "null"], "anyOf": [{"const": 2.5}]}),
                none,
            ),
            (
                json!({"enum": [2.5, "x"], "anyOf": [{"type": "integer"}, {"type": "boolean"}]}),
                none,
            ),
            (
                json!({"type": ["string", "integer"], "anyOf": [{"enum": [2.5, 3.0]}]}),
                TypeSet::of(JsonType::Integer),
            ),
            // Open on both sides: a required name both declare with no common type.
            (
                json!({"type": "object", "properties": {"a": {"type": "null"}}, "required": ["a"], "anyOf": [{"properties": {"a": {"type": "boolean"}}}]}),
                none,
            ),
            (
                json!({"type": "object", "properties": {"a": {"type": "null"}}, "anyOf": [{"properties": {"a": {"type": "boolean"}}, "required": ["a"]}]}),
                none,
            ),
            (
                json!({"type": "object", "properties": {"a": {"type": "null"}}, "anyOf": [{"properties": {"a": {"type": "boolean"}}}]}),
                object,
            ),
            (
                json!({"type": "object", "properties": {"a": {"type": ["null", "string"]}}, "required": ["a"], "anyOf": [{"properties": {"a": {"type": "string"}}}]}),
                object,
            ),
            (
                json!({"type": "object", "properties": {"a": {"type": "null"}}, "required": ["a"], "anyOf": [{"properties": {"b": {"type": "boolean"}}}]}),
                object,
            ),
            // A recursive requirement has no finite value, but the widest solution keeps it.
            (
                json!({"$defs": {"n": {"type": "object", "properties": {"next": {"$ref": "#/$defs/n"}}, "required": ["next"]}}, "$ref": "#/$defs/n"}),
                object,
            ),
        ];
        for (schema, want) in cases {
            assert_eq!(admitted_at_root(schema.clone()), want, "{schema}");
        }
    }

    #[test]
    fn a_branch_meets_its_union_by_the_members_admitted_types() {
        // `id` is undeclared beside the union, so `additionalProperties` rules it: its own
        // `type` lists integer, but its `anyOf` admits strings only, and the branch requires
        // an integer `id`. No object meets both (property seed 2500, extended generator:
        // llguidance refused the wire of this unsatisfiable schema).
        let shared = json!({
            "type": "object",
            "additionalProperties": {"type": ["string", "integer", "null"], "anyOf": [{"type": "string"}]},
            "anyOf": [{"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}]
        });
        assert_eq!(admitted_at_root(shared.clone()), TypeSet::EMPTY);
        let required = json!({"type": "object", "properties": {"a": shared}, "required": ["a"]});
        assert_eq!(admitted_at_root(required), TypeSet::EMPTY);
        // Declared on both sides with open objects: the member's admitted types meet too.
        let open = json!({
            "type": "object",
            "properties": {"id": {"type": ["string", "integer"], "anyOf": [{"type": "string"}]}},
            "anyOf": [{"properties": {"id": {"type": "integer"}}, "required": ["id"]}]
        });
        assert_eq!(admitted_at_root(open), TypeSet::EMPTY);
        // A member that admits a common type keeps the object.
        let meets = json!({
            "type": "object",
            "additionalProperties": {"type": ["string", "integer"], "anyOf": [{"type": "integer"}]},
            "anyOf": [{"properties": {"id": {"type": "integer"}}, "required": ["id"]}]
        });
        assert_eq!(admitted_at_root(meets), TypeSet::of(JsonType::Object));
    }

    #[test]
    fn a_full_schema_reads_a_closed_branch_with_its_pattern_properties() {
        // `patternProperties` admits the required name, which the closure alone does not.
        let options = ParseOptions {
            subset: Subset::Full,
            ..ParseOptions::default()
        };
        let v = json!({"type": "object", "required": ["ab"], "anyOf": [{"additionalProperties": false, "patternProperties": {"^a": {}}}]});
        let s = crate::subset::parse(&v, &options).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(s.admitted(s.root()), TypeSet::of(JsonType::Object));
        assert!(s.is_valid(&json!({"ab": 1})));
    }

    #[test]
    fn admitted_types_of_cycles_are_the_widest_solution() {
        // The front end refuses cycles that never descend into the instance, but rewrites build
        // IRs directly, and the table must settle on them too. a = anyOf[ref a, string] allows
        // any type as far as the equations go (the least solution, strings only, would be a
        // guess), and the reference as much.
        let node = |f: fn(&mut Node)| {
            let mut n = Node::default();
            f(&mut n);
            n
        };
        let nodes = vec![
            node(|n| n.any_of = vec![NodeId(1), NodeId(2)]),
            node(|n| n.reference = Some(NodeId(0))),
            node(|n| n.types = Some(TypeSet::of(JsonType::String))),
        ];
        let string = TypeSet::of(JsonType::String);
        assert_eq!(
            admitted_types(&nodes, true),
            vec![TypeSet::ANY.normalized(), TypeSet::ANY.normalized(), string]
        );
        // A cycle through `allOf` keeps what every node on it allows.
        let nodes = vec![
            node(|n| {
                n.types = Some(TypeSet::of(JsonType::Object).with(JsonType::Null));
                n.all_of = vec![NodeId(1)];
            }),
            node(|n| {
                n.types = Some(TypeSet::of(JsonType::Object).with(JsonType::String));
                n.reference = Some(NodeId(0));
            }),
        ];
        let object = TypeSet::of(JsonType::Object);
        assert_eq!(admitted_types(&nodes, true), vec![object, object]);
    }
}
