//! Tagged unions: which branches of an `anyOf`/`oneOf` an object can possibly match.
//!
//! Real unions are mostly tagged: every branch is an object that requires one property (`type`,
//! `kind`, `op`…) with constant values, different per branch. Trying every branch costs a
//! walk per branch; reading the tag first leaves only the branches whose literals contain the
//! instance's value. The index is a necessary condition, never a verdict: the branches it keeps
//! are still validated in full, and a branch is skipped only when no instance could satisfy it
//! (not an object, tag missing, or tag outside the branch's literals). Built once per schema,
//! on the first union wide enough to profit.

use crate::ir::{literal_hash, ByHash, Node, NodeId, ObjectRules};
use crate::value::{JsonType, TypeSet};
use serde_json::{Map, Value};
use std::collections::HashSet;

/// Unions with fewer branches are tried branch by branch: the index would not pay for itself.
pub(crate) const MIN_BRANCHES: usize = 6;

/// The tag of one union: the property every branch requires with constant values, and per
/// literal hash the positions of the branches that list such a literal (ascending).
#[derive(Debug)]
pub(crate) struct Tag {
    property: Box<str>,
    branches: ByHash<Vec<u32>>,
}

impl Tag {
    /// The positions of the branches `instance` can match, ascending; every other branch
    /// certainly fails. Empty when the instance is not an object or lacks the tag.
    pub(crate) fn candidates(&self, instance: &Value) -> &[u32] {
        instance
            .as_object()
            .and_then(|m| member(m, &self.property))
            .and_then(|v| self.branches.get(&literal_hash(v)))
            .map_or(&[], Vec::as_slice)
    }
}

/// Up to this many members, comparing names beats hashing one (the map's SipHash).
const SCAN_MEMBERS: usize = 8;

/// `map.get(name)`, by a scan when the map is small.
fn member<'v>(map: &'v Map<String, Value>, name: &str) -> Option<&'v Value> {
    if map.len() > SCAN_MEMBERS {
        return map.get(name);
    }
    map.iter().find(|(k, _)| *k == name).map(|(_, v)| v)
}

/// The tags of a schema's wide unions, by node (ascending, for a binary search that hashes
/// nothing): `anyOf` and `oneOf` apart.
#[derive(Debug, Default)]
pub(crate) struct Tags {
    any_of: Vec<(NodeId, Tag)>,
    one_of: Vec<(NodeId, Tag)>,
}

impl Tags {
    pub(crate) fn build(nodes: &[Node]) -> Tags {
        let mut tags = Tags::default();
        for (i, node) in nodes.iter().enumerate() {
            let id = NodeId(i as u32);
            if let Some(t) = tag(nodes, &node.any_of) {
                tags.any_of.push((id, t));
            }
            if let Some(t) = tag(nodes, &node.one_of) {
                tags.one_of.push((id, t));
            }
        }
        tags
    }

    pub(crate) fn any_of(&self, id: NodeId) -> Option<&Tag> {
        find(&self.any_of, id)
    }

    pub(crate) fn one_of(&self, id: NodeId) -> Option<&Tag> {
        find(&self.one_of, id)
    }
}

fn find(tags: &[(NodeId, Tag)], id: NodeId) -> Option<&Tag> {
    let at = tags.binary_search_by_key(&id, |(n, _)| *n).ok()?;
    tags.get(at).map(|(_, t)| t)
}

/// A branch that can carry a tag: it admits only objects and is not a reference (what a
/// reference adds is not visible here), with its `required` names hashed once.
struct Candidate<'a> {
    object: &'a ObjectRules,
    required: HashSet<&'a str>,
}

/// A tag for `branches`, when they have one: tried with each property the first branch
/// requires, in order.
fn tag(nodes: &[Node], branches: &[NodeId]) -> Option<Tag> {
    if branches.len() < MIN_BRANCHES {
        return None;
    }
    let candidates: Vec<Candidate<'_>> = branches
        .iter()
        .map(|id| {
            let node = nodes.get(id.index())?;
            if node.reference.is_some() || node.types != Some(TypeSet::of(JsonType::Object)) {
                return None;
            }
            let object = node.object.as_deref()?;
            let required = object.required.iter().map(|r| &**r).collect();
            Some(Candidate { object, required })
        })
        .collect::<Option<_>>()?;
    let first = candidates.first()?;
    first
        .object
        .required
        .iter()
        .find_map(|p| tag_on(nodes, &candidates, p))
}

/// The tag on `property`, when every branch requires it and limits it to its own literals.
fn tag_on(nodes: &[Node], branches: &[Candidate<'_>], property: &str) -> Option<Tag> {
    let mut index = ByHash::<Vec<u32>>::default();
    for (position, branch) in branches.iter().enumerate() {
        for literal in literals(nodes, branch, property)? {
            let list = index.entry(literal_hash(literal)).or_default();
            if list.last() != Some(&(position as u32)) {
                list.push(position as u32);
            }
        }
    }
    Some(Tag {
        property: property.into(),
        branches: index,
    })
}

/// The values `property` may take in a valid instance of `branch`, when the branch requires it
/// and limits it by `const` or `enum` (and the property's schema is not a reference).
fn literals<'a>(
    nodes: &'a [Node],
    branch: &Candidate<'_>,
    property: &str,
) -> Option<Vec<&'a Value>> {
    if !branch.required.contains(property) {
        return None;
    }
    let value_node = nodes.get(branch.object.properties.get(property)?.index())?;
    if value_node.reference.is_some() {
        return None;
    }
    value_node.literals()
}

#[cfg(test)]
mod tests {
    use crate::Schema;
    use serde_json::{json, Value};

    fn tagged(n: usize, combinator: &str) -> Schema {
        let branches: Vec<Value> = (0..n)
            .map(|i| {
                json!({
                    "type": "object",
                    "properties": {"kind": {"enum": [format!("k{i}"), i]}, "v": {"type": "integer", "minimum": i}},
                    "required": ["kind", "v"],
                    "additionalProperties": false
                })
            })
            .collect();
        Schema::parse(&json!({combinator: branches})).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn tagged_unions_keep_their_verdicts() {
        for combinator in ["anyOf", "oneOf"] {
            let s = tagged(10, combinator);
            assert!(s.is_valid(&json!({"kind": "k9", "v": 9})));
            assert!(
                s.is_valid(&json!({"kind": 9.0, "v": 12})),
                "1 and 1.0 are one tag"
            );
            assert!(
                !s.is_valid(&json!({"kind": "k9", "v": 8})),
                "the tagged branch fails"
            );
            assert!(
                !s.is_valid(&json!({"kind": "k10", "v": 100})),
                "no such tag"
            );
            assert!(!s.is_valid(&json!({"v": 100})), "no tag");
            assert!(!s.is_valid(&json!(["k1"])), "not an object");
            let e = s.validate(&json!({"kind": "nope", "v": 1})).unwrap_err();
            assert!(e.to_string().contains("none of the 10 alternatives"), "{e}");
        }
    }

    #[test]
    fn a_tag_shared_by_two_branches_keeps_both() {
        // Both branches take `kind: "a"`: `oneOf` must see both match.
        let mut branches: Vec<Value> = (0..8)
            .map(|i| json!({"type": "object", "properties": {"kind": {"const": format!("k{i}")}}, "required": ["kind"]}))
            .collect();
        branches.push(json!({"type": "object", "properties": {"kind": {"enum": ["k3", "x"]}}, "required": ["kind"]}));
        let s = Schema::parse(&json!({"oneOf": branches})).unwrap_or_else(|e| panic!("{e}"));
        assert!(!s.is_valid(&json!({"kind": "k3"})), "two branches match");
        assert!(s.is_valid(&json!({"kind": "x"})));
        assert!(s.is_valid(&json!({"kind": "k4"})));
    }

    #[test]
    fn untagged_branches_are_all_tried() {
        // One branch does not say `type: object`: it admits strings, so no tag is built.
        let mut branches: Vec<Value> = (0..8)
            .map(|i| json!({"type": "object", "properties": {"kind": {"const": i}}, "required": ["kind"]}))
            .collect();
        branches.push(json!({"properties": {"kind": {"const": 99}}, "required": ["kind"]}));
        let s = Schema::parse(&json!({"anyOf": branches})).unwrap_or_else(|e| panic!("{e}"));
        assert!(s.is_valid(&json!("any string")));
        assert!(s.is_valid(&json!({"kind": 99})));
        assert!(!s.is_valid(&json!({"kind": 100})));
    }
}
