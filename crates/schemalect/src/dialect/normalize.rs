//! Widening rewrites on the IR that several dialects need before emission.
//!
//! - **Flatten `allOf`**: most dialects lack `allOf`, and dropping it narrows whenever a member
//!   declares properties (a closed decoder then rejects them). So members are merged into their
//!   parent: `N ∧ M` becomes one node. The merge is exact where JSON Schema allows (types
//!   intersect, bounds tighten, `required` unites, integer `multipleOf` becomes the lcm) and
//!   widening where it cannot be exact (two patterns: one is kept), each such case a loss.
//! - **Distribute unions**: llama.cpp reads only the union of a node that has `anyOf`/`oneOf`
//!   and ignores its siblings; `N ∧ (A ∨ B)` is rewritten to `(N ∧ A) ∨ (N ∧ B)`, which means
//!   the same and survives that reading.
//!
//! A merge that cannot keep the contract (two unions in one conjunction) is left in place; the
//! dialect then sees the `allOf` and falls back. Merges copy subtrees, so a node budget stops
//! a pathological document from growing without bound.

use crate::ir::{
    Additional, ArrayRules, Bound, Enumeration, Node, NodeId, NumberRules, ObjectRules, Properties,
    PropertyCounts, StringRules,
};
use crate::loss::Loss;
use crate::pointer::Pointer;
use crate::schema::Schema;
use crate::value::{cmp_numbers, json_eq};
use std::cmp::Ordering;
use std::sync::Arc;

/// Which rewrites to apply.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Rewrites {
    pub flatten_all_of: bool,
    pub distribute_unions: bool,
}

/// The rewritten schema and what the rewrites relaxed.
pub(crate) struct Normalized {
    pub schema: Schema,
    pub losses: Vec<Loss>,
}

/// Applies the rewrites. Returns the schema unchanged (cheaply) when there is nothing to do.
pub(crate) fn normalize(schema: &Schema, rewrites: Rewrites) -> Normalized {
    let needed = schema.nodes().any(|(_, n)| {
        (rewrites.flatten_all_of && !n.all_of.is_empty())
            || (rewrites.distribute_unions && has_union_with_siblings(n))
    });
    if !needed {
        return Normalized {
            schema: schema.clone(),
            losses: Vec::new(),
        };
    }
    let original = schema.ir.nodes.len();
    let mut m = Merger::new(schema, rewrites);
    // Children mostly have higher ids than their parents, so this visits most children first;
    // a merge that reads a node not yet done (reached through a `$ref`) finishes it first.
    for i in (0..original).rev() {
        m.finish(NodeId(i as u32));
    }
    Normalized {
        schema: Schema::from_nodes(m.nodes, schema.ir.root, schema.ir.subset),
        losses: m.losses,
    }
}

fn has_union_with_siblings(n: &Node) -> bool {
    n.has_union() && has_assertions_besides_unions(n)
}

/// True when the node asserts something besides its unions (what distribution folds away).
pub(crate) fn has_assertions_besides_unions(n: &Node) -> bool {
    n.reference.is_some()
        || n.types.is_some()
        || n.enumeration.is_some()
        || n.constant.is_some()
        || n.string.is_some()
        || n.number.is_some()
        || n.array.is_some()
        || n.object.is_some()
        || n.property_counts.is_some()
        || n.not.is_some()
        || !n.all_of.is_empty()
}

/// How deep finishing a node on demand may nest (each level a node read by a merge before its
/// turn, through a chain of references). Each level may recurse as deep as the schema nests,
/// so the bound keeps the stack small; past it a merge reads the node as it is, which at
/// worst leaves an `allOf` in place for the dialect to fall back on (a weaker mode, never a
/// narrower wire).
const MAX_ON_DEMAND: usize = 8;

struct Merger {
    nodes: Vec<Node>,
    losses: Vec<Loss>,
    budget: usize,
    rewrites: Rewrites,
    /// Which of the original nodes have had the rewrites applied.
    done: Vec<bool>,
    /// How many [`Merger::finished`] calls are finishing a node right now.
    on_demand: usize,
}

impl Merger {
    /// A merger over a copy of the schema's nodes, none of them finished yet.
    fn new(schema: &Schema, rewrites: Rewrites) -> Merger {
        let original = schema.ir.nodes.len();
        Merger {
            nodes: schema.ir.nodes.clone(),
            losses: Vec::new(),
            budget: original.saturating_mul(4).saturating_add(1_000),
            rewrites,
            done: vec![false; original],
            on_demand: 0,
        }
    }

    fn get(&self, id: NodeId) -> Node {
        self.nodes.get(id.index()).cloned().unwrap_or_default()
    }

    fn put(&mut self, id: NodeId, node: Node) {
        if let Some(slot) = self.nodes.get_mut(id.index()) {
            *slot = node;
        }
    }

    fn push(&mut self, node: Node) -> Option<NodeId> {
        if self.nodes.len() >= self.budget || !crate::budget::charge(crate::budget::NODE_STEPS) {
            return None;
        }
        self.nodes.push(node);
        Some(NodeId((self.nodes.len() - 1) as u32))
    }

    /// The node, with the rewrites applied first when it is an original node not yet done.
    /// Ids do not order a node reached through a `$ref` after the nodes that use it, and a
    /// merge that copied such a node unfinished would carry its `allOf` into a new node that
    /// is never finished: the dialect would then fall back for an `allOf` it could merge.
    fn finished(&mut self, id: NodeId) -> Node {
        let pending = self.done.get(id.index()).is_some_and(|done| !done);
        if pending && self.on_demand < MAX_ON_DEMAND {
            self.on_demand += 1;
            self.finish(id);
            self.on_demand -= 1;
        }
        self.get(id)
    }

    /// Applies the rewrites to one node (once), finishing the nodes it merges first.
    fn finish(&mut self, id: NodeId) {
        match self.done.get_mut(id.index()) {
            Some(done) if !*done => *done = true,
            _ => return,
        }
        let mut node = self.get(id);
        if self.rewrites.flatten_all_of && !node.all_of.is_empty() {
            let members = std::mem::take(&mut node.all_of);
            let mut kept = Vec::new();
            for member in members {
                let m = self.finished(member);
                match self.conj(&node, &m) {
                    Some(merged) => node = merged,
                    None => kept.push(member),
                }
            }
            node.all_of = kept;
        }
        if self.rewrites.distribute_unions {
            if let Some(distributed) = self.distribute(&node) {
                node = distributed;
            }
        }
        self.put(id, node);
    }

    /// `N ∧ (A ∨ B)` → `(N ∧ A) ∨ (N ∧ B)`; `None` when not applicable or not possible.
    fn distribute(&mut self, node: &Node) -> Option<Node> {
        if !has_union_with_siblings(node) || !node.all_of.is_empty() {
            return None;
        }
        let (use_any, branches) = match (node.any_of.is_empty(), node.one_of.is_empty()) {
            (false, true) => (true, node.any_of.clone()),
            (true, false) => (false, node.one_of.clone()),
            _ => return None,
        };
        let mut base = node.clone();
        base.any_of.clear();
        base.one_of.clear();
        base.annotations = None;
        let mut out = Vec::with_capacity(branches.len());
        for b in branches {
            let branch = self.finished(b);
            let mut merged = self.conj(&branch, &base)?;
            if let Some(d) = self.distribute(&merged) {
                merged = d;
            }
            merged.pointer = branch.pointer.clone();
            merged.annotations = branch.annotations.clone();
            out.push(self.push(merged)?);
        }
        let mut result = Node {
            pointer: node.pointer.clone(),
            annotations: node.annotations.clone(),
            ..Node::default()
        };
        if use_any {
            result.any_of = out;
        } else {
            result.one_of = out;
        }
        Some(result)
    }

    fn loss(&mut self, at: &Pointer, keyword: &'static str, reason: &'static str) {
        self.losses.push(Loss::new(at, keyword, reason));
    }

    /// The conjunction of two nodes as one node: exact where possible, widening otherwise
    /// (each relaxation a loss). `None` when the two cannot share one node.
    fn conj(&mut self, a: &Node, b: &Node) -> Option<Node> {
        let mut n = a.clone();
        n.types = match (a.types, b.types) {
            (Some(x), Some(y)) => Some(x.intersect(y)),
            (x, y) => x.or(y),
        };
        n.enumeration = match (&a.enumeration, &b.enumeration) {
            (Some(x), Some(y)) => {
                let kept: Vec<_> = x.values.iter().filter(|v| y.contains(v)).cloned().collect();
                if kept.is_empty() {
                    // The conjunction admits nothing; keeping one side only widens.
                    self.loss(&b.pointer, "enum", "conjoined with another `enum` with no common value; the other `enum` is kept alone");
                    Some(x.clone())
                } else {
                    Some(Arc::new(Enumeration::new(kept)))
                }
            }
            (x, y) => x.clone().or_else(|| y.clone()),
        };
        n.constant = match (&a.constant, &b.constant) {
            (Some(x), Some(y)) => {
                if !json_eq(x, y) {
                    self.loss(
                        &b.pointer,
                        "const",
                        "conjoined with a different `const`; one is kept alone",
                    );
                }
                Some(x.clone())
            }
            (x, y) => x.clone().or_else(|| y.clone()),
        };
        n.string = self.strings(a, b);
        n.number = self.numbers(a, b);
        n.array = match (&a.array, &b.array) {
            (Some(x), Some(y)) => Some(Arc::new(self.arrays(x, y)?)),
            (x, y) => x.clone().or_else(|| y.clone()),
        };
        n.object = match (&a.object, &b.object) {
            (Some(x), Some(y)) => Some(Arc::new(self.objects(x, y, &b.pointer)?)),
            (x, y) => x.clone().or_else(|| y.clone()),
        };
        n.property_counts = match (&a.property_counts, &b.property_counts) {
            (Some(x), Some(y)) => Some(Arc::new(PropertyCounts {
                min: max_opt(x.min, y.min),
                max: min_opt(x.max, y.max),
            })),
            (x, y) => x.clone().or_else(|| y.clone()),
        };
        n.all_of = a.all_of.iter().chain(b.all_of.iter()).copied().collect();
        n.any_of = pick_union(&a.any_of, &b.any_of)?;
        n.one_of = pick_union(&a.one_of, &b.one_of)?;
        (n.reference, n.plain_reference) = match (a.reference, b.reference) {
            (Some(x), Some(y)) if x != y => return None,
            (Some(x), Some(_)) => (Some(x), a.plain_reference && b.plain_reference),
            (Some(x), None) => (Some(x), a.plain_reference),
            (None, y) => (y, b.plain_reference),
        };
        n.not = match (a.not, b.not) {
            (Some(x), Some(_)) => {
                self.loss(
                    &b.pointer,
                    "not",
                    "two `not` schemas in one conjunction; one is not sent",
                );
                Some(x)
            }
            (x, y) => x.or(y),
        };
        if n.annotations.is_none() {
            n.annotations = b.annotations.clone();
        }
        fit_literals(&mut n);
        Some(n)
    }

    fn strings(&mut self, a: &Node, b: &Node) -> Option<Arc<StringRules>> {
        let (x, y) = match (&a.string, &b.string) {
            (Some(x), Some(y)) => (x, y),
            (x, y) => return x.clone().or_else(|| y.clone()),
        };
        let pattern = match (&x.pattern, &y.pattern) {
            (Some(p), Some(q)) if p.as_str() != q.as_str() => {
                self.loss(
                    &b.pointer,
                    "pattern",
                    "two patterns cannot be merged into one; this one is not sent",
                );
                Some(p.clone())
            }
            (p, q) => p.clone().or_else(|| q.clone()),
        };
        Some(Arc::new(StringRules {
            min_length: max_opt(x.min_length, y.min_length),
            max_length: min_opt(x.max_length, y.max_length),
            pattern,
        }))
    }

    fn numbers(&mut self, a: &Node, b: &Node) -> Option<Arc<NumberRules>> {
        let (x, y) = match (&a.number, &b.number) {
            (Some(x), Some(y)) => (x, y),
            (x, y) => return x.clone().or_else(|| y.clone()),
        };
        let multiple_of = match (x.multiple_of, y.multiple_of) {
            (Some(p), Some(q)) => match lcm(p, q) {
                Some(l) => Some(l),
                None => {
                    self.loss(
                        &b.pointer,
                        "multipleOf",
                        "the least common multiple overflows; one divisor is not sent",
                    );
                    Some(p.max(q))
                }
            },
            (p, q) => p.or(q),
        };
        Some(Arc::new(NumberRules {
            lower: tighter(&x.lower, &y.lower, Ordering::Greater),
            upper: tighter(&x.upper, &y.upper, Ordering::Less),
            multiple_of,
        }))
    }

    fn arrays(&mut self, x: &ArrayRules, y: &ArrayRules) -> Option<ArrayRules> {
        let len = x.prefix_items.len().max(y.prefix_items.len());
        let mut prefix = Vec::with_capacity(len);
        for i in 0..len {
            let left = x.prefix_items.get(i).copied().or(x.items);
            let right = y.prefix_items.get(i).copied().or(y.items);
            prefix.push(self.conj_ids(left, right)?);
        }
        let items = match (x.items, y.items) {
            (Some(p), Some(q)) => self.conj_ids(Some(p), Some(q))?,
            (p, q) => p.or(q),
        };
        Some(ArrayRules {
            prefix_items: prefix.into_iter().flatten().collect(),
            items,
            min_items: max_opt(x.min_items, y.min_items),
            max_items: min_opt(x.max_items, y.max_items),
            unique_items: x.unique_items || y.unique_items,
        })
    }

    /// Conjunction of two optional subschemas as a new node.
    fn conj_ids(&mut self, a: Option<NodeId>, b: Option<NodeId>) -> Option<Option<NodeId>> {
        match (a, b) {
            (Some(p), Some(q)) if p == q => Some(Some(p)),
            (Some(p), Some(q)) => {
                let (pn, qn) = (self.finished(p), self.finished(q));
                let mut merged = self.conj(&pn, &qn)?;
                if self.rewrites.distribute_unions {
                    if let Some(d) = self.distribute(&merged) {
                        merged = d;
                    }
                }
                Some(Some(self.push(merged)?))
            }
            (p, q) => Some(p.or(q)),
        }
    }

    fn objects(&mut self, x: &ObjectRules, y: &ObjectRules, at: &Pointer) -> Option<ObjectRules> {
        let mut entries: Vec<(Box<str>, NodeId)> = Vec::new();
        let mut names: Vec<&str> = x.properties.iter().map(|(n, _)| n).collect();
        names.extend(
            y.properties
                .iter()
                .map(|(n, _)| n)
                .filter(|n| !x.properties.contains(n)),
        );
        let mut forbidden_somewhere = false;
        for name in names {
            let left = applicable(x, name, &mut forbidden_somewhere);
            let right = applicable(y, name, &mut forbidden_somewhere);
            if let Some(id) = self.conj_ids(left, right)? {
                entries.push((name.into(), id));
            }
        }
        if forbidden_somewhere {
            self.loss(at, "additionalProperties", "a property declared by one side of a conjunction is forbidden by the other; the merged schema allows it");
        }
        let additional = match (x.additional, y.additional) {
            (Additional::Forbidden, _) | (_, Additional::Forbidden) => Additional::Forbidden,
            (Additional::Schema(p), Additional::Schema(q)) => {
                match self.conj_ids(Some(p), Some(q))? {
                    Some(id) => Additional::Schema(id),
                    None => Additional::Unspecified,
                }
            }
            (Additional::Schema(p), _) | (_, Additional::Schema(p)) => Additional::Schema(p),
            (Additional::Allowed, _) | (_, Additional::Allowed) => Additional::Allowed,
            _ => Additional::Unspecified,
        };
        let mut required = x.required.clone();
        let mut seen: std::collections::HashSet<&str> = x.required.iter().map(|r| &**r).collect();
        for r in &y.required {
            if seen.insert(&**r) {
                required.push(r.clone());
            }
        }
        Some(ObjectRules {
            properties: Properties::new(entries),
            required,
            additional,
        })
    }
}

/// The schema that applies to member `name` under these object rules: its property schema,
/// else the `additionalProperties` schema. Notes when the member is forbidden outright.
fn applicable(rules: &ObjectRules, name: &str, forbidden: &mut bool) -> Option<NodeId> {
    if let Some(id) = rules.properties.get(name) {
        return Some(id);
    }
    match rules.additional {
        Additional::Schema(id) => Some(id),
        Additional::Forbidden => {
            *forbidden = true;
            None
        }
        _ => None,
    }
}

fn pick_union(a: &[NodeId], b: &[NodeId]) -> Option<Vec<NodeId>> {
    match (a.is_empty(), b.is_empty()) {
        (_, true) => Some(a.to_vec()),
        (true, false) => Some(b.to_vec()),
        (false, false) => None,
    }
}

/// Leaves out of a merged node's `enum` the values its merged keywords reject on their own
/// (`validate::shallow_admits`): the source rejects them too, so this is exact. Engines that check a
/// schema for satisfiability (llguidance) refuse an `enum` none of whose values meets its
/// siblings, though each side of the conjunction alone was satisfiable. When no value is left
/// (or the `const` itself fails), the node keeps an empty `enum`: it admits nothing, which the
/// admitted-type table sees, so a union drops the branch and elsewhere the route falls back.
fn fit_literals(n: &mut Node) {
    let fits = |v: &serde_json::Value| crate::validate::shallow_admits(n, v);
    let constant_fails = n.constant.as_deref().is_some_and(|c| !fits(c));
    let kept = match &n.enumeration {
        _ if constant_fails => Some(Vec::new()),
        Some(e) if !e.values.iter().all(fits) => {
            Some(e.values.iter().filter(|v| fits(v)).cloned().collect())
        }
        _ => None,
    };
    if let Some(values) = kept {
        n.enumeration = Some(Arc::new(Enumeration::new(values)));
    }
}

fn max_opt(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.max(y)),
        (x, y) => x.or(y),
    }
}

fn min_opt(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, y) => x.or(y),
    }
}

/// The tighter of two bounds of the same side. `wins` is the ordering of `b` against `a` that
/// makes `b` tighter (`Greater` for lower bounds); on equal values an exclusive bound wins.
fn tighter(a: &Option<Bound>, b: &Option<Bound>, wins: Ordering) -> Option<Bound> {
    match (a, b) {
        (Some(x), Some(y)) => match cmp_numbers(&y.value, &x.value) {
            Some(o) if o == wins => Some(y.clone()),
            Some(Ordering::Equal) if y.exclusive => Some(y.clone()),
            _ => Some(x.clone()),
        },
        (x, y) => x.clone().or_else(|| y.clone()),
    }
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

fn lcm(a: u64, b: u64) -> Option<u64> {
    let g = gcd(a, b);
    if g == 0 {
        return None;
    }
    (a / g).checked_mul(b)
}

/// Inlines every reference that is not recursive: the node becomes the conjunction of its own
/// keywords and its target (2020-12 applies both). Targets are shared, not copied, so the IR
/// stays a DAG of the source's size; emitters bound what they expand. Recursive references
/// (on a cycle) are left for dialects that can send `$defs`.
pub(crate) fn inline_references(schema: &Schema) -> Normalized {
    inline_references_within_bound(schema).0
}

/// [`inline_references`], unless writing the references out in place would emit more than
/// the bound ([`EXPANSION_FACTOR`] × the source's weight + [`EXPANSION_SLACK`]): then no
/// reference is written out, the schema is returned as it is, and the [`Expansion`] says why.
/// Dialects that accept `$defs` then send each shared definition once; the others fall back
/// to a weaker mode, and the caller names the bound in the loss.
pub(crate) fn inline_references_within_bound(schema: &Schema) -> (Normalized, Option<Expansion>) {
    let unchanged = || Normalized {
        schema: schema.clone(),
        losses: Vec::new(),
    };
    if !schema.has_references() {
        return (unchanged(), None);
    }
    let recursive = on_cycles(schema);
    let (source, expanded) = expansion_weights(schema, &recursive);
    let bound = source
        .saturating_mul(EXPANSION_FACTOR)
        .saturating_add(EXPANSION_SLACK);
    if expanded > bound {
        let expansion = Expansion {
            source,
            expanded,
            bound,
        };
        return (unchanged(), Some(expansion));
    }
    let original = schema.ir.nodes.len();
    let mut m = Merger::new(schema, Rewrites::default());
    // Follow chains (a → b → c): each pass resolves one link; chains are at most as long as
    // the number of nodes, and recursive links are never followed.
    for _ in 0..original {
        let mut changed = false;
        for i in 0..original {
            let id = NodeId(i as u32);
            let node = m.get(id);
            let Some(target) = node.reference else {
                continue;
            };
            if recursive.get(i).copied().unwrap_or(true) {
                continue;
            }
            let t = m.get(target);
            let mut base = node.clone();
            base.reference = None;
            if let Some(mut merged) = m.conj(&base, &t) {
                merged.pointer = node.pointer.clone();
                merged.annotations = node.annotations.clone().or(t.annotations.clone());
                m.put(id, merged);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let inlined = Normalized {
        schema: Schema::from_nodes(m.nodes, schema.ir.root, schema.ir.subset),
        losses: m.losses,
    };
    (inlined, None)
}

/// Writing shared definitions out in place may grow the schema to at most this many times its
/// own weight (plus [`EXPANSION_SLACK`]); past that, references are kept as references, which
/// the dialects that accept `$defs` send once each (docs/security.md, finding 8).
pub(crate) const EXPANSION_FACTOR: usize = 4;

/// Weight every schema may grow by when its references are written out in place, whatever
/// its own size, so that small schemas with a few shared definitions keep today's output.
pub(crate) const EXPANSION_SLACK: usize = 100_000;

/// How much writing references out in place would emit, when that is past the bound.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Expansion {
    /// The source's weight: one per node and per `enum` value, `required` name and literal.
    pub source: usize,
    /// The weight once every non-recursive reference is written out in place.
    pub expanded: usize,
    /// The bound: `EXPANSION_FACTOR × source + EXPANSION_SLACK`.
    pub bound: usize,
}

impl Expansion {
    /// The sentence a loss gives when a provider cannot receive the kept references.
    pub(crate) fn reason(&self, why: &str) -> String {
        format!(
            "shared definitions are kept as references because writing them out in place would emit {} units (schema nodes, enum values, literals), over the output bound of {} ({} × the source's {} + {}); {why}",
            self.expanded, self.bound, EXPANSION_FACTOR, self.source, EXPANSION_SLACK
        )
    }
}

/// A node's own weight in emitted output: the node, its literals and its name lists.
fn own_weight(n: &Node) -> usize {
    let mut w = 1usize;
    if let Some(e) = &n.enumeration {
        w = w.saturating_add(e.values.len());
    }
    if n.constant.is_some() {
        w = w.saturating_add(1);
    }
    if let Some(o) = &n.object {
        w = w.saturating_add(o.required.len());
    }
    if let Some(a) = &n.annotations {
        w = w.saturating_add(a.examples.as_ref().map_or(0, Vec::len));
        w = w.saturating_add(usize::from(a.default.is_some()));
    }
    w
}

/// The source's weight and the weight of the tree that writing every non-recursive reference
/// out in place would emit (the IR is a DAG: the emitters write a shared node once per path).
/// One pass over the nodes, iterative, memoised; saturating.
fn expansion_weights(schema: &Schema, recursive: &[bool]) -> (usize, usize) {
    let nodes = &schema.ir.nodes;
    let source = nodes
        .iter()
        .fold(0usize, |acc, n| acc.saturating_add(own_weight(n)));
    // 0 unvisited, 1 children pushed, 2 done.
    let mut state = vec![0u8; nodes.len()];
    let mut weight = vec![0usize; nodes.len()];
    let children = |i: usize| -> Vec<usize> {
        let Some(n) = nodes.get(i) else {
            return Vec::new();
        };
        let cut = recursive.get(i).copied().unwrap_or(true);
        n.subschemas()
            .filter(|c| !(cut && n.reference == Some(*c)))
            .map(NodeId::index)
            .collect()
    };
    let mut stack = vec![schema.ir.root.index()];
    while let Some(&i) = stack.last() {
        match state.get(i).copied() {
            Some(0) => {
                set(&mut state, i, 1);
                for c in children(i) {
                    if state.get(c) == Some(&0) {
                        stack.push(c);
                    }
                }
            }
            Some(1) => {
                stack.pop();
                let own = nodes.get(i).map_or(1, own_weight);
                let w = children(i).into_iter().fold(own, |acc, c| {
                    acc.saturating_add(weight.get(c).copied().unwrap_or(0))
                });
                set(&mut weight, i, w);
                set(&mut state, i, 2);
            }
            _ => {
                stack.pop();
            }
        }
    }
    (
        source,
        weight.get(schema.ir.root.index()).copied().unwrap_or(0),
    )
}

/// For each node: does it lie on a cycle of the schema graph (recursion)? Iterative Tarjan.
pub(crate) fn on_cycles(schema: &Schema) -> Vec<bool> {
    let n = schema.ir.nodes.len();
    let succ = |i: usize| -> Vec<usize> {
        schema
            .ir
            .nodes
            .get(i)
            .map(|node| node.subschemas().map(NodeId::index).collect())
            .unwrap_or_default()
    };
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0usize; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<usize> = Vec::new();
    let mut result = vec![false; n];
    let mut counter = 0usize;
    for start in 0..n {
        if index.get(start) != Some(&usize::MAX) {
            continue;
        }
        let mut work: Vec<(usize, Vec<usize>)> = vec![(start, succ(start))];
        set(&mut index, start, counter);
        set(&mut low, start, counter);
        counter += 1;
        stack.push(start);
        set(&mut on_stack, start, true);
        while let Some((v, next)) = work.last_mut() {
            let v = *v;
            if let Some(w) = next.pop() {
                if index.get(w) == Some(&usize::MAX) {
                    set(&mut index, w, counter);
                    set(&mut low, w, counter);
                    counter += 1;
                    stack.push(w);
                    set(&mut on_stack, w, true);
                    work.push((w, succ(w)));
                } else if on_stack.get(w) == Some(&true) {
                    let lw = index.get(w).copied().unwrap_or(0);
                    let lv = low.get(v).copied().unwrap_or(0);
                    set(&mut low, v, lv.min(lw));
                }
                continue;
            }
            work.pop();
            if let Some((parent, _)) = work.last() {
                let lp = low.get(*parent).copied().unwrap_or(0);
                let lv = low.get(v).copied().unwrap_or(0);
                set(&mut low, *parent, lp.min(lv));
            }
            if low.get(v) == index.get(v) {
                let mut members = Vec::new();
                while let Some(w) = stack.pop() {
                    set(&mut on_stack, w, false);
                    members.push(w);
                    if w == v {
                        break;
                    }
                }
                let self_loop = succ(v).contains(&v);
                if members.len() > 1 || self_loop {
                    for w in members {
                        set(&mut result, w, true);
                    }
                }
            }
        }
    }
    result
}

fn set<T>(v: &mut [T], i: usize, x: T) {
    if let Some(slot) = v.get_mut(i) {
        *slot = x;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema(v: serde_json::Value) -> Schema {
        Schema::parse(&v).unwrap_or_else(|e| panic!("{e}"))
    }

    fn flat(v: serde_json::Value) -> Normalized {
        normalize(
            &schema(v),
            Rewrites {
                flatten_all_of: true,
                distribute_unions: true,
            },
        )
    }

    /// A merge reads the nodes it merges finished, whatever their ids. Once references are
    /// written out, `b`'s second branch shares `c`'s children; with the definitions before the
    /// array that uses them, `b` is finished before `c.m`, so distributing `b`'s `m` into
    /// that branch copied `c.m` with its `allOf` not yet flattened, into a node never finished:
    /// the dialects that merge `allOf` fell back (SchemaStore's bundleconfig schema).
    #[test]
    fn merges_read_nodes_reached_through_references_finished() {
        let defs = json!({
            "base": {"properties": {"o": {"type": "integer"}}},
            "b": {"oneOf": [{"type": "string"}, {"$ref": "#/$defs/c"}], "properties": {"m": {}}},
            "c": {"properties": {"m": {"allOf": [{"$ref": "#/$defs/base"}]}}}
        });
        let items = json!({"$ref": "#/$defs/b"});
        for s in [
            json!({"$defs": defs, "items": items}),
            json!({"items": items, "$defs": defs}),
        ] {
            let parsed = Schema::parse_with(
                &s,
                &crate::ParseOptions::default().with_subset(crate::Subset::Extended),
            )
            .unwrap_or_else(|e| panic!("{e}"));
            // As the dialects that merge `allOf` see it: references written out first.
            let inlined = inline_references(&parsed).schema;
            let n = normalize(
                &inlined,
                Rewrites {
                    flatten_all_of: true,
                    distribute_unions: true,
                },
            );
            let left: Vec<_> = n
                .schema
                .nodes()
                .filter(|(_, node)| !node.all_of.is_empty())
                .map(|(_, node)| node.pointer.to_string())
                .collect();
            assert!(left.is_empty(), "{s}: `allOf` left at {left:?}");
            for i in [
                json!([{"m": {"o": 1}}, "x"]),
                json!([{"m": {"o": "no"}}]),
                json!([{"m": 1}]),
            ] {
                assert_eq!(parsed.is_valid(&i), n.schema.is_valid(&i), "{s} on {i}");
            }
        }
    }

    #[test]
    fn all_of_members_merge_into_the_parent() {
        let s = json!({
            "type": "object",
            "allOf": [
                {"properties": {"a": {"type": "string", "minLength": 2}}, "required": ["a"]},
                {"properties": {"a": {"maxLength": 5}, "b": {"type": "integer"}}, "required": ["b"]}
            ]
        });
        let n = flat(s.clone());
        assert!(n.losses.is_empty(), "{:?}", n.losses);
        let root = n.schema.root_node();
        assert!(root.all_of.is_empty());
        let o = root.object.as_ref().unwrap();
        assert_eq!(o.properties.len(), 2);
        assert_eq!(o.required.len(), 2);
        let a = n.schema.node(o.properties.get("a").unwrap());
        let sr = a.string.as_ref().unwrap();
        assert_eq!((sr.min_length, sr.max_length), (Some(2), Some(5)));
        // The merged schema means the same on these instances.
        let orig = schema(s);
        for i in [
            json!({"a": "abc", "b": 1}),
            json!({"a": "a", "b": 1}),
            json!({"a": "abcdef", "b": 1}),
            json!({"a": "abc"}),
            json!({"a": "abc", "b": "x"}),
        ] {
            assert_eq!(orig.is_valid(&i), n.schema.is_valid(&i), "{i}");
        }
    }

    #[test]
    fn merged_literals_keep_only_the_values_the_merged_rules_admit() {
        let literals = |v: serde_json::Value| -> Option<Vec<serde_json::Value>> {
            let n = flat(v);
            let e = n.schema.root_node().enumeration.clone();
            e.map(|e| e.values.clone())
        };
        // Exact: the source rejects each value left out.
        assert_eq!(
            literals(
                json!({"allOf": [{"enum": [0, false, "", "ab", "AB"]}, {"type": "string", "pattern": "^[a-z]+$"}]})
            ),
            Some(vec![json!("ab")])
        );
        assert_eq!(
            literals(
                json!({"allOf": [{"enum": [1, 5, 9]}, {"type": "integer", "minimum": 2, "maximum": 8}]})
            ),
            Some(vec![json!(5)])
        );
        assert_eq!(
            literals(
                json!({"allOf": [{"enum": [{"k": "v"}, {}, [1], {"a": 1}]}, {"type": "object", "properties": {"a": {"type": "integer"}}, "additionalProperties": false}]})
            ),
            Some(vec![json!({}), json!({"a": 1})])
        );
        // None left, or a `const` the rules reject: an empty `enum`, and the node admits
        // nothing.
        for v in [
            json!({"allOf": [{"enum": [0, false, ""]}, {"type": "string", "minLength": 1}]}),
            json!({"allOf": [{"const": "x"}, {"type": "string", "maxLength": 0}]}),
            json!({"allOf": [{"enum": [{"k": "v"}]}, {"type": "object", "required": ["a"]}]}),
        ] {
            let n = flat(v.clone());
            assert_eq!(
                n.schema.admitted(n.schema.root()),
                crate::value::TypeSet::EMPTY,
                "{v}"
            );
        }
        // Untouched where every value fits.
        assert_eq!(
            literals(json!({"allOf": [{"enum": ["a", "b"]}, {"type": "string"}]})),
            Some(vec![json!("a"), json!("b")])
        );
    }

    #[test]
    fn unions_distribute_over_siblings() {
        let s = json!({
            "type": "object",
            "properties": {"kind": {"type": "string"}},
            "required": ["kind"],
            "anyOf": [{"properties": {"a": {"type": "integer"}}, "required": ["a"]}, {"required": ["b"]}]
        });
        let n = flat(s.clone());
        let root = n.schema.root_node();
        assert!(root.types.is_none() && root.object.is_none());
        assert_eq!(root.any_of.len(), 2);
        let orig = schema(s);
        for i in [
            json!({"kind": "x", "a": 1}),
            json!({"kind": "x", "b": 1}),
            json!({"kind": "x"}),
            json!({"a": 1}),
            json!({"kind": "x", "a": "no"}),
        ] {
            assert_eq!(orig.is_valid(&i), n.schema.is_valid(&i), "{i}");
        }
    }

    #[test]
    fn bounds_tighten_and_multiples_combine() {
        let n = flat(
            json!({"allOf": [{"minimum": 1, "multipleOf": 4}, {"exclusiveMinimum": 1, "multipleOf": 6}]}),
        );
        let r = n.schema.root_node().number.as_ref().unwrap();
        assert_eq!(r.multiple_of, Some(12));
        assert!(r.lower.as_ref().unwrap().exclusive);
    }

    #[test]
    fn two_unions_in_one_conjunction_stay_unmerged() {
        let n = flat(
            json!({"allOf": [{"anyOf": [{"type": "string"}, {"type": "null"}]}, {"anyOf": [{"minLength": 1}, {"type": "null"}]}]}),
        );
        assert_eq!(n.schema.root_node().all_of.len(), 1);
    }

    #[test]
    fn conflicting_patterns_widen_with_a_loss() {
        let n = flat(json!({"allOf": [{"pattern": "^a"}, {"pattern": "b$"}]}));
        assert_eq!(n.losses.len(), 1);
        assert_eq!(n.losses[0].keyword, "pattern");
    }
}
