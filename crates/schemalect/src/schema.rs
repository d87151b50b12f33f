//! A parsed schema: the IR's arena ([`crate::ir`]) with the facts every walk needs, and the
//! caches that validation builds on first use (its [`Plan`] and the [`Tags`] of wide unions).
//!
//! Kept apart from the IR's node types so that the plan, which is laid out from nodes, sits
//! between the two: `ir` ← `plan` ← `schema` ← `validate`, with no way back up.

use crate::ir::{admitted_types, Draft, FullIr, FullRules, Node, NodeId, Subset, EMPTY_NODE};
use crate::plan::discriminate::Tags;
use crate::plan::Plan;
use crate::pointer::Pointer;
use crate::value::TypeSet;
use std::collections::HashMap;
use std::sync::Arc;

/// A schema inside the subset, parsed and ready to validate and lower. Cheap to clone.
#[derive(Clone, Debug)]
pub struct Schema {
    pub(crate) ir: Arc<Ir>,
    /// Derived from a Rust type whose deserializer reads a missing field and `null` alike
    /// (`derive`): lowerings default to `LowerOptions::null_means_absent` for it.
    pub(crate) from_serde: bool,
    /// Derived from a Rust type: the type each object comes from, by source pointer (the root
    /// is the type itself), for the hint a lowering gives where an open struct blocks it
    /// (`lower::Hint::DenyUnknownFields`). `None` for schemas parsed from JSON.
    pub(crate) rust_types: Option<Arc<HashMap<Pointer, String>>>,
}

#[derive(Debug)]
pub(crate) struct Ir {
    pub(crate) nodes: Vec<Node>,
    pub(crate) root: NodeId,
    pub(crate) subset: Subset,
    /// True when some node is a reference (extended subset): only then can a node be reached
    /// twice on one path, so only then does validation count its depth.
    pub(crate) references: bool,
    /// The types each node admits (see [`Schema::admitted`]), by node index.
    admitted: Vec<TypeSet>,
    /// The tags of wide unions, built on the first validation that meets one.
    pub(crate) tags: std::sync::OnceLock<Tags>,
    /// The nodes laid out for validation, built on the first validation.
    pub(crate) plan: std::sync::OnceLock<Plan>,
    /// The `full` subset's keywords and resources, beside the arena rather than in each node:
    /// ADR-126 and extended nodes stay the size they were (one pointer per schema, `None`).
    pub(crate) full: Option<Box<FullIr>>,
    /// The limits the schema was parsed with: their work budget applies to what is done with
    /// it (validate, lower, accept).
    pub(crate) limits: crate::limits::Limits,
    /// The size of the schema's text in bytes (from below for a `Value`), which the budgets of
    /// those operations count as input.
    pub(crate) source_bytes: u64,
}

impl Schema {
    /// A schema over `nodes` (the front end's, or a rewrite's), with the facts every walk
    /// needs computed once.
    pub(crate) fn from_nodes(nodes: Vec<Node>, root: NodeId, subset: Subset) -> Schema {
        let references = nodes.iter().any(|n| n.reference.is_some());
        let admitted = admitted_types(&nodes, subset != Subset::Full);
        Schema {
            ir: Arc::new(Ir {
                nodes,
                root,
                subset,
                references,
                admitted,
                tags: Default::default(),
                plan: Default::default(),
                full: None,
                limits: crate::limits::Limits::default(),
                source_bytes: 0,
            }),
            from_serde: false,
            rust_types: None,
        }
    }

    /// The same schema, recording the limits it was parsed with and the size of its text.
    pub(crate) fn with_source(mut self, limits: crate::limits::Limits, bytes: u64) -> Schema {
        // A parse's schema is fresh: nothing else holds its arena yet.
        if let Some(ir) = Arc::get_mut(&mut self.ir) {
            ir.limits = limits;
            ir.source_bytes = bytes;
        }
        self
    }

    /// The limits whose work budget applies to operations on this schema.
    pub(crate) fn limits(&self) -> &crate::limits::Limits {
        &self.ir.limits
    }

    /// The size of the schema's text, in bytes (0 for a schema made by a rewrite).
    pub(crate) fn source_bytes(&self) -> u64 {
        self.ir.source_bytes
    }

    /// A `full` subset schema: the arena plus the keywords and resources only it has.
    pub(crate) fn from_full(nodes: Vec<Node>, root: NodeId, full: FullIr) -> Schema {
        let mut s = Schema::from_nodes(nodes, root, Subset::Full);
        if let Some(ir) = Arc::get_mut(&mut s.ir) {
            ir.full = Some(Box::new(full));
        }
        s
    }

    /// The `full` subset's keywords of node `id` (`None` outside `full` or when the node has
    /// none of them).
    pub fn full_rules(&self, id: NodeId) -> Option<&FullRules> {
        self.ir.full.as_ref()?.rules.get(id.index())?.as_deref()
    }

    /// The unknown keywords of a `full` subset schema, each with its pointer and, for a near
    /// miss of a known keyword, the keyword meant: annotations that assert nothing, reported as
    /// lint warnings. Empty outside `full`.
    pub fn warnings(&self) -> &[crate::error::Violation] {
        self.ir.full.as_ref().map_or(&[], |f| &f.warnings)
    }

    /// The draft the root document was read as (`full` subset only).
    pub fn draft(&self) -> Option<Draft> {
        Some(self.ir.full.as_ref()?.root_draft)
    }

    pub(crate) fn full_ir(&self) -> Option<&FullIr> {
        self.ir.full.as_deref()
    }

    /// The types a value matching node `id` can have, from `type`, `enum`, `const` and the
    /// applicators that constrain the node itself (`allOf`, `anyOf`, `oneOf`, `$ref`); `not`
    /// and subschemas of members are not consulted, so it may be wider than exact, never
    /// narrower. Every lowering asks this of most nodes, so it is computed once per schema.
    pub(crate) fn admitted(&self, id: NodeId) -> TypeSet {
        self.ir
            .admitted
            .get(id.index())
            .copied()
            .unwrap_or(TypeSet::ANY)
    }

    /// True when some node is a reference (extended subset).
    pub fn has_references(&self) -> bool {
        self.ir.references
    }

    /// The root node.
    pub fn root(&self) -> NodeId {
        self.ir.root
    }

    /// A node by id. Ids come from this schema; a foreign id yields the root.
    pub fn node(&self, id: NodeId) -> &Node {
        self.ir
            .nodes
            .get(id.index())
            .or_else(|| self.ir.nodes.get(self.ir.root.index()))
            .unwrap_or(&EMPTY_NODE)
    }

    /// The root node's data.
    pub fn root_node(&self) -> &Node {
        self.node(self.ir.root)
    }

    /// All nodes, in arena order.
    pub fn nodes(&self) -> impl ExactSizeIterator<Item = (NodeId, &Node)> {
        self.ir
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (NodeId(i as u32), n))
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.ir.nodes.len()
    }

    /// Always false: a parsed schema has at least its root.
    pub fn is_empty(&self) -> bool {
        self.ir.nodes.is_empty()
    }

    /// The subset the schema was parsed under.
    pub fn subset(&self) -> Subset {
        self.ir.subset
    }
}
