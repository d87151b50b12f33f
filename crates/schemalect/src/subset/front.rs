//! What both front ends share: the limits, the violations found so far, and the checks of
//! keyword values that read the same in every subset (the depth and node budgets, literals,
//! `enum` sizes, patterns, the numeric bounds).
//!
//! The fail-closed front end and the `full` one differ in which keywords they know and what a
//! keyword means in a draft; a limit or a pattern must be refused alike in both, with the same
//! violation, so those checks live here once.

use super::{number_rules, tighter};
use crate::budget::Meter;
use crate::error::{Violation, ViolationKind};
use crate::ir::{Enumeration, Node};
use crate::json::Json;
use crate::keywords::Shape;
use crate::limits::{Limit, Limits};
use crate::pattern::Pattern;
use crate::pointer::Pointer;
use crate::value::nests_deeper_than;
use serde_json::{Number, Value};
use std::borrow::Cow;
use std::cmp::Ordering;

/// The limits of one parse and every violation it found.
#[derive(Debug)]
pub(super) struct Front {
    pub(super) limits: Limits,
    pub(super) violations: Vec<Violation>,
    /// The node budget is spent (reported once).
    nodes_exhausted: bool,
    /// The parse's work budget: a step per node.
    work: Meter,
    /// The work budget is spent (reported once).
    work_exhausted: bool,
}

impl Front {
    pub(super) fn new(limits: Limits) -> Self {
        Front {
            limits,
            violations: Vec::new(),
            nodes_exhausted: false,
            work: Meter::new(),
            work_exhausted: false,
        }
    }

    pub(super) fn violate(&mut self, at: &Pointer, keyword: &str, kind: ViolationKind) {
        self.violations.push(Violation::new(at, keyword, kind));
    }

    /// A keyword value of the wrong shape.
    pub(super) fn shape(
        &mut self,
        at: &Pointer,
        keyword: &str,
        shape: Shape,
        detail: Option<String>,
    ) {
        self.violate(
            at,
            keyword,
            ViolationKind::Shape {
                expected: shape.describe(),
                detail,
            },
        );
    }

    /// A limit hit at `at`, with the configured maximum.
    fn limit(&mut self, at: &Pointer, keyword: &str, limit: Limit) {
        let max = match limit {
            Limit::Depth => self.limits.max_depth,
            Limit::Nodes => self.limits.max_nodes,
            Limit::EnumValues => self.limits.max_enum_values,
            Limit::PatternLength => self.limits.max_pattern_len,
            // Reported as `ViolationKind::Work`, with the numbers (see `out_of_work`).
            Limit::Work => usize::try_from(self.limits.work_floor).unwrap_or(usize::MAX),
        };
        self.violate(at, keyword, ViolationKind::Limit { limit, max });
    }

    /// True (and reported) when a subschema at `depth` nests past the depth limit.
    pub(super) fn too_deep(&mut self, at: &Pointer, keyword: &str, depth: usize) -> bool {
        let deep = depth > self.limits.max_depth;
        if deep {
            self.limit(at, keyword, Limit::Depth);
        }
        deep
    }

    /// True (and reported once) when `nodes` nodes spend the node budget: the document is then
    /// refused, so no subschema is ever dropped silently.
    pub(super) fn out_of_nodes(&mut self, nodes: usize, at: &Pointer, keyword: &str) -> bool {
        if nodes < self.limits.max_nodes {
            return self.out_of_work(at, keyword);
        }
        if !self.nodes_exhausted {
            self.nodes_exhausted = true;
            self.limit(at, keyword, Limit::Nodes);
        }
        true
    }

    /// True (and reported once, as [`ViolationKind::Work`]) when the parse's work budget is
    /// spent on the node at `at`: the document is then refused, as past the node limit.
    fn out_of_work(&mut self, at: &Pointer, keyword: &str) -> bool {
        if self.work.spend(crate::budget::NODE_STEPS) {
            return false;
        }
        if !self.work_exhausted {
            self.work_exhausted = true;
            if let Some(e) = crate::budget::current().and_then(|b| b.exceeded()) {
                self.violate(at, keyword, ViolationKind::Work(e));
            }
        }
        true
    }

    /// Checks that a literal (`enum`, `const`, `default`, `examples`) is not nested past the
    /// depth limit: equality and hashing of instances against it stay bounded.
    /// Checked before a literal read from a [`crate::json::Tree`] is built as a `Value`.
    pub(super) fn literal_ok<'v, J: Json<'v>>(
        &mut self,
        value: J,
        at: &Pointer,
        name: &str,
    ) -> bool {
        if nests_deeper_than(value, self.limits.max_depth) {
            self.limit(at, name, Limit::Depth);
            return false;
        }
        true
    }

    /// The values of `enum` (the list `value`), within the size and depth limits: a list read
    /// from a [`crate::json::Tree`] is built as `Value`s once checked, and kept; a borrowed
    /// list is copied.
    pub(super) fn enumeration<'v, J: Json<'v>>(
        &mut self,
        value: J,
        at: &Pointer,
        name: &str,
    ) -> Option<Enumeration> {
        if value.items().map_or(0, |i| i.len()) > self.limits.max_enum_values {
            self.limit(at, name, Limit::EnumValues);
            return None;
        }
        if !self.literal_ok(value, at, name) {
            return None;
        }
        let items = match value.as_value() {
            Cow::Owned(Value::Array(items)) => items,
            other => other.as_array().cloned().unwrap_or_default(),
        };
        Some(Enumeration::new(items))
    }

    /// A pattern compiled for the linear-time engine, within the length limit.
    pub(super) fn pattern(&mut self, src: &str, at: &Pointer, name: &str) -> Option<Pattern> {
        if src.chars().count() > self.limits.max_pattern_len {
            self.limit(at, name, Limit::PatternLength);
            return None;
        }
        match Pattern::compile_with(src, &self.limits) {
            Ok(p) => {
                // Counted; a parse past its budget stops at its next node.
                let compiled = p.compiled_size() as u64 + src.len() as u64;
                let _ = self
                    .work
                    .spend(compiled / crate::budget::COMPILED_BYTES_PER_STEP);
                Some(p)
            }
            Err(e) => {
                self.violate(at, name, ViolationKind::Pattern(e));
                None
            }
        }
    }
}

/// The numeric bounds of one schema object, folded into the node once it is read.
#[derive(Debug, Default)]
pub(super) struct Bounds {
    pub(super) minimum: Option<Number>,
    pub(super) exclusive_minimum: Option<Number>,
    pub(super) maximum: Option<Number>,
    pub(super) exclusive_maximum: Option<Number>,
    /// Draft 4: `exclusiveMinimum: true` makes `minimum` exclusive.
    pub(super) minimum_is_exclusive: bool,
    /// Draft 4: `exclusiveMaximum: true` makes `maximum` exclusive.
    pub(super) maximum_is_exclusive: bool,
}

impl Bounds {
    /// Sets the node's lower and upper bound to the tighter of each pair.
    pub(super) fn fold(&self, node: &mut Node) {
        let (mut min, mut max) = (self.minimum.clone(), self.maximum.clone());
        let (mut emin, mut emax) = (
            self.exclusive_minimum.clone(),
            self.exclusive_maximum.clone(),
        );
        if self.minimum_is_exclusive {
            emin = min.take();
        }
        if self.maximum_is_exclusive {
            emax = max.take();
        }
        let lower = tighter(min, emin, Ordering::Greater);
        let upper = tighter(max, emax, Ordering::Less);
        if lower.is_some() || upper.is_some() {
            let n = number_rules(node);
            n.lower = lower;
            n.upper = upper;
        }
    }
}
