//! The schema laid out for the walk, built once per schema on its first validation.
//!
//! A node of the IR is wide (every keyword group has a slot) and its property names sit in
//! separate allocations, so reading it costs several cache lines even when the node only says
//! `type: string`. The plan keeps per node a few bytes that tell the walk which groups to
//! read at all, and per object node a table that finds a member's subschema, and tells whether
//! it is required, by comparing words instead of strings. It is built from the finished
//! arena, which no one changes afterwards, so it can never disagree with the nodes.

pub(crate) mod discriminate;

use crate::ir::{Additional, Node, NodeId, ObjectRules};
use crate::value::TypeSet;
use serde_json::{Map, Value};
use std::collections::HashSet;

/// Recursion cap for validation: a recursive schema applied to a very deep instance stops here
/// with an error instead of exhausting the stack.
pub(crate) const MAX_EVAL_DEPTH: usize = 512;

/// The keyword groups a node has (bits of [`Brief::has`]).
pub(super) const LITERALS: u8 = 1;
pub(super) const STRING: u8 = 1 << 1;
pub(super) const NUMBER: u8 = 1 << 2;
pub(super) const ARRAY: u8 = 1 << 3;
pub(super) const OBJECT: u8 = 1 << 4;
pub(super) const APPLICATORS: u8 = 1 << 5;

/// What the walk reads first of a node.
#[derive(Clone, Copy, Debug)]
pub(super) struct Brief {
    /// `type`, or every type when absent (which admits anything, as no `type` does).
    pub(super) types: TypeSet,
    /// The keyword groups present: a node with none is decided by `types` alone.
    pub(super) has: u8,
    /// The node's entry in [`Plan::members`], when it has object rules.
    members: u32,
}

/// The brief of a node without keywords, as `Schema::node` gives for an empty arena.
const EMPTY: Brief = Brief {
    types: TypeSet::ANY,
    has: 0,
    members: u32::MAX,
};

#[derive(Debug)]
pub(crate) struct Plan {
    briefs: Box<[Brief]>,
    /// Where a foreign id leads, as in `Schema::node`.
    root: NodeId,
    members: Box<[Members]>,
    /// True when no chain of subschemas reaches the recursion cap, so the walk need not
    /// count its depth: no cycle (recursive reference), and no chain that long.
    pub(super) shallow: bool,
    /// The allowance of a walk that runs without the thread's budget installed (the work
    /// budget, at most one chunk: [`crate::budget::Meter::detached_allowance`], given to
    /// [`crate::budget::Meter::detached`]), or 0 when it may not: when the schema is `full`
    /// (its walk charges more than its meter). Otherwise a walk's own meter counts all of
    /// its work, its patterns' engines included (they charge the meter they are handed:
    /// [`crate::pattern::Pattern::is_match_charging`]). (A budget of 0 gives a detached meter
    /// nothing to spend, so 0 can say "not detached" without changing an answer.)
    pub(super) detached_budget: u64,
}

impl Plan {
    /// The plan of the arena `nodes`; `budget` is the schema's work budget when a walk of
    /// it has nothing but its meter to count (not `full`), `None` otherwise.
    pub(crate) fn build(nodes: &[Node], root: NodeId, budget: Option<u64>) -> Plan {
        let mut members = Vec::new();
        let briefs = nodes
            .iter()
            .map(|node| {
                let mut brief = Brief {
                    types: node.types.unwrap_or(TypeSet::ANY),
                    has: 0,
                    members: u32::MAX,
                };
                let groups = [
                    (
                        node.constant.is_some() || node.enumeration.is_some(),
                        LITERALS,
                    ),
                    (node.string.is_some(), STRING),
                    (node.number.is_some(), NUMBER),
                    (node.array.is_some(), ARRAY),
                    (
                        node.object.as_ref().is_some_and(|o| {
                            !o.required.is_empty()
                                || !o.properties.is_empty()
                                || o.additional != Additional::Unspecified
                        }) || node.property_counts.is_some(),
                        OBJECT,
                    ),
                    (
                        !node.all_of.is_empty()
                            || !node.any_of.is_empty()
                            || !node.one_of.is_empty()
                            || node.not.is_some()
                            || node.reference.is_some(),
                        APPLICATORS,
                    ),
                ];
                for (present, bit) in groups {
                    if present {
                        brief.has |= bit;
                    }
                }
                if let Some(rules) = node.object.as_ref().filter(|_| brief.has & OBJECT != 0) {
                    if let Ok(at) = u32::try_from(members.len()) {
                        brief.members = at;
                        members.push(Members::new(rules));
                    }
                }
                brief
            })
            .collect();
        Plan {
            briefs,
            root,
            members: members.into_boxed_slice(),
            shallow: longest_chain(nodes).is_some_and(|n| n < MAX_EVAL_DEPTH),
            detached_budget: budget.map_or(0, crate::budget::Meter::detached_allowance),
        }
    }

    pub(super) fn brief(&self, id: NodeId) -> Brief {
        let brief = self.briefs.get(id.index());
        brief
            .or_else(|| self.briefs.get(self.root.index()))
            .copied()
            .unwrap_or(EMPTY)
    }

    /// The member table of a node with object rules.
    pub(super) fn members(&self, brief: Brief) -> Option<&Members> {
        self.members.get(brief.members as usize)
    }
}

/// The most levels of depth one walk can add below any node (edges of the longest chain of
/// subschemas), or `None` when a chain is a cycle or leaves the arena. Iterative: the arena
/// may nest deeper than the stack allows.
fn longest_chain(nodes: &[Node]) -> Option<usize> {
    /// Entered and not finished: met again, it closes a cycle.
    const OPEN: usize = usize::MAX;
    let mut height: Vec<Option<usize>> = vec![None; nodes.len()];
    let mut longest = 0;
    let mut stack = Vec::new();
    for start in 0..nodes.len() {
        stack.push((start, false));
        while let Some((i, finished)) = stack.pop() {
            let node = nodes.get(i)?;
            if finished {
                let mut h = 0;
                for c in node.subschemas() {
                    h = h.max(height.get(c.index()).copied().flatten()?.saturating_add(1));
                }
                *height.get_mut(i)? = Some(h);
                longest = longest.max(h);
                continue;
            }
            match height.get(i)? {
                Some(OPEN) => return None,
                Some(_) => continue,
                None => {}
            }
            *height.get_mut(i)? = Some(OPEN);
            stack.push((i, true));
            for c in node.subschemas() {
                match height.get(c.index())? {
                    Some(OPEN) => return None,
                    Some(_) => {}
                    None => stack.push((c.index(), false)),
                }
            }
        }
    }
    Some(longest)
}

/// A name's length with its first and last eight bytes, read as two words that overlap when the
/// name is shorter than 16 bytes. Two names of up to 16 bytes are equal exactly when their heads
/// are; longer ones also need their middles compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Head {
    len: usize,
    first: u64,
    last: u64,
}

/// Names up to this long are decided by their heads.
const INLINE: usize = 16;

impl Head {
    fn of(name: &str) -> Head {
        let b = name.as_bytes();
        let len = b.len();
        let word = |at: usize| {
            b.get(at..at + 8)
                .and_then(|w| <[u8; 8]>::try_from(w).ok())
                .map_or(0, u64::from_le_bytes)
        };
        let half = |at: usize| {
            b.get(at..at + 4)
                .and_then(|w| <[u8; 4]>::try_from(w).ok())
                .map_or(0, |w| u64::from(u32::from_le_bytes(w)))
        };
        let (first, last) = match len {
            8.. => (word(0), word(len - 8)),
            4..=7 => (half(0), half(len - 4)),
            _ => (b.iter().rev().fold(0, |w, c| w << 8 | u64::from(*c)), 0),
        };
        Head { len, first, last }
    }

    /// A hash of the head for the bucketed tables.
    fn fold(self) -> u64 {
        (self.first ^ self.last.rotate_left(32) ^ self.len as u64)
            .wrapping_mul(0x9e37_79b9_7f4a_7c15)
    }
}

/// One name an object node knows: a declared property, or a `required` name no property
/// declares.
#[derive(Clone, Copy, Debug)]
pub(super) struct Entry {
    head: Head,
    /// The property's subschema; `None` for an undeclared required name.
    pub(super) node: Option<NodeId>,
    pub(super) required: bool,
}

/// The names of an object node, for one pass over an instance's members that finds each
/// member's subschema and counts the required names it meets.
#[derive(Debug)]
pub(super) struct Members {
    /// Properties in source order, then the undeclared required names.
    entries: Box<[Entry]>,
    /// The full names, beside `entries`, for the names longer than their heads.
    names: Box<[Box<str>]>,
    /// When there are many names, positions in `entries` by bucket of their heads' hash:
    /// bucket `s` is `by_hash[starts[s]..starts[s + 1]]`. Empty when the names are scanned.
    by_hash: Box<[u32]>,
    starts: Box<[u32]>,
    shift: u32,
    /// Distinct `required` names: an instance has them all exactly when that many of its
    /// members are found required here (member names are distinct).
    pub(super) required: usize,
    /// `additionalProperties`.
    pub(super) additional: Additional,
    /// True when members must be visited (`properties` or `additionalProperties` given);
    /// otherwise only `required` is checked.
    pub(super) visits: bool,
}

/// Up to this many names a scan beats hashing the key.
const SCAN_MAX: usize = 12;

impl Members {
    fn new(rules: &ObjectRules) -> Members {
        let required: HashSet<&str> = rules.required.iter().map(|r| &**r).collect();
        let mut seen = HashSet::new();
        let mut entries = Vec::new();
        let mut names: Vec<Box<str>> = Vec::new();
        for (name, id) in rules.properties.iter() {
            // A repeated name (no front end makes one) keeps its first schema, as a scan does.
            if seen.insert(name) {
                entries.push(entry(name, Some(id), required.contains(name)));
                names.push(name.into());
            }
        }
        for name in &rules.required {
            if seen.insert(&**name) {
                entries.push(entry(name, None, true));
                names.push(name.clone());
            }
        }
        let mut members = Members {
            entries: Box::default(),
            names: names.into_boxed_slice(),
            by_hash: Box::default(),
            starts: Box::default(),
            shift: 0,
            required: required.len(),
            additional: rules.additional,
            visits: !rules.properties.is_empty() || rules.additional != Additional::Unspecified,
        };
        if entries.len() > SCAN_MAX {
            let bits = (entries.len() * 2).next_power_of_two().trailing_zeros();
            members.shift = 64 - bits;
            let slot = |e: &Entry| (e.head.fold() >> (64 - bits)) as usize;
            let mut by_hash: Vec<u32> = (0..entries.len() as u32).collect();
            // Stable: a bucket keeps source order, so the first of repeated heads is found.
            by_hash.sort_by_key(|i| entries.get(*i as usize).map_or(0, slot));
            let mut starts = vec![0u32; (1 << bits) + 1];
            for e in &entries {
                if let Some(n) = starts.get_mut(slot(e) + 1) {
                    *n += 1;
                }
            }
            for i in 1..starts.len() {
                let before = starts.get(i - 1).copied().unwrap_or(0);
                if let Some(n) = starts.get_mut(i) {
                    *n += before;
                }
            }
            members.by_hash = by_hash.into_boxed_slice();
            members.starts = starts.into_boxed_slice();
        }
        members.entries = entries.into_boxed_slice();
        members
    }

    /// Each member of `map` with its entry, if the node names it: the one pass over an
    /// object's members that the walks make, each search hinted with the position after the
    /// previous member's entry (see [`Members::find`]).
    #[inline(always)]
    pub(super) fn resolve<'a>(
        &'a self,
        map: &'a Map<String, Value>,
    ) -> impl Iterator<Item = (&'a str, &'a Value, Option<&'a Entry>)> + 'a {
        let mut hint = 0;
        map.iter().map(move |(key, member)| {
            let found = self.find(key, hint);
            hint = found.map_or(hint, |(i, _)| i + 1);
            (key.as_str(), member, found.map(|(_, e)| e))
        })
    }

    /// The entry for member `key`, if the node names it, with its position. `hint` is where
    /// the caller expects the name, tried first: instances mostly list their members in the
    /// schema's order, so the position after the previous member's entry is usually the hit,
    /// and only a miss pays for the search.
    #[inline(always)]
    pub(super) fn find(&self, key: &str, hint: usize) -> Option<(usize, &Entry)> {
        let head = Head::of(key);
        match self.entries.get(hint) {
            Some(e) if self.is(hint, e, head, key) => Some((hint, e)),
            _ => self.search(key, head),
        }
    }

    /// True when entry `i`, `e`, names `key`, whose head is `head`.
    #[inline(always)]
    fn is(&self, i: usize, e: &Entry, head: Head, key: &str) -> bool {
        e.head == head && (head.len <= INLINE || self.names.get(i).is_some_and(|n| **n == *key))
    }

    /// [`Members::find`] past its hint: a scan of few names, else the name's bucket.
    fn search(&self, key: &str, head: Head) -> Option<(usize, &Entry)> {
        let at = |i: usize| {
            let e = self.entries.get(i)?;
            self.is(i, e, head, key).then_some((i, e))
        };
        if self.starts.is_empty() {
            return (0..self.entries.len()).find_map(at);
        }
        let slot = (head.fold() >> self.shift) as usize;
        let bound = |s| self.starts.get(s).map_or(0, |n| *n as usize);
        self.by_hash
            .get(bound(slot)..bound(slot + 1))?
            .iter()
            .find_map(|i| at(*i as usize))
    }
}

fn entry(name: &str, node: Option<NodeId>, required: bool) -> Entry {
    Entry {
        head: Head::of(name),
        node,
        required,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Properties;

    fn members(names: &[String], required: &[&str]) -> Members {
        let entries = names
            .iter()
            .enumerate()
            .map(|(i, n)| (Box::<str>::from(n.as_str()), NodeId(i as u32)))
            .collect();
        Members::new(&ObjectRules {
            properties: Properties::new(entries),
            required: required.iter().map(|r| Box::<str>::from(*r)).collect(),
            additional: Additional::Unspecified,
        })
    }

    #[test]
    fn every_name_is_found_from_any_hint_and_no_other() {
        // Every length up to past two words, and names that agree on their heads.
        let mut names: Vec<String> = (0..=20).map(|n| "x".repeat(n)).collect();
        names.extend(["abcdefgh-1-ijklmnop", "abcdefgh-2-ijklmnop", "é", "ü€"].map(String::from));
        for count in [4, names.len()] {
            let names = &names[..count];
            let m = members(names, &["x", "undeclared"]);
            assert_eq!(m.required, 2);
            for hint in 0..=count + 2 {
                for (i, name) in names.iter().enumerate() {
                    let (at, e) = m.find(name, hint).unwrap_or_else(|| panic!("{name}"));
                    assert_eq!(
                        (at, e.node),
                        (i, Some(NodeId(i as u32))),
                        "{name} from {hint}"
                    );
                    assert_eq!(e.required, name == "x");
                }
                let (_, e) = m
                    .find("undeclared", hint)
                    .expect("undeclared required name");
                assert!(e.node.is_none() && e.required);
                for absent in ["abcdefgh-3-ijklmnop", "y", "xx\0", "undeclare", ""] {
                    if !names.iter().any(|n| n == absent) {
                        assert!(m.find(absent, hint).is_none(), "{absent:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_repeated_property_keeps_its_first_schema() {
        let m = members(&["a".into(), "b".into(), "a".into()], &[]);
        assert_eq!(m.find("a", 2).map(|(_, e)| e.node), Some(Some(NodeId(0))));
    }

    #[test]
    fn chains_are_measured_and_cycles_found() {
        let with = |children: &[(usize, usize)], n: usize| {
            let mut nodes = vec![Node::default(); n];
            for (parent, child) in children {
                nodes[*parent].all_of.push(NodeId(*child as u32));
            }
            longest_chain(&nodes)
        };
        assert_eq!(with(&[], 1), Some(0));
        assert_eq!(with(&[(0, 1), (1, 2), (0, 2)], 3), Some(2));
        assert_eq!(with(&[(0, 1), (1, 2), (2, 1)], 3), None);
        assert_eq!(with(&[(0, 0)], 1), None);
        assert_eq!(with(&[(0, 5)], 1), None, "a child outside the arena");
    }
}
