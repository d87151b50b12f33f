//! The `full` subset's walk: every keyword of drafts 4 to 2020-12, with the meaning of the
//! draft each node was read as, and the annotations `unevaluated*` need.
//!
//! A separate walk from the one beside it, which is laid out for speed on the subsets without
//! these keywords: it stays as fast as it was, and this one stays a plain reading of the
//! specification. Annotations (which members and items some keyword evaluated) are collected
//! only when a node of the schema has `unevaluatedProperties` or `unevaluatedItems`, and a
//! subschema's annotations count only when it passes, as the specification says.
//!
//! `$dynamicRef` and `$recursiveRef` follow the dynamic scope: the schema resources the walk
//! entered on its way to the node, outermost first. Recursion is capped at [`MAX_DEPTH`]
//! levels, and the walk spends the operation's work budget (a schema whose references fan out,
//! or `unevaluated*` over nested unions, can otherwise ask for exponentially many visits):
//! each subschema visit its [`super::evaluation_cost`] plus what the `full` keywords
//! read (`patternProperties` per member and pattern, `dependentRequired` names), each merge of
//! evaluated annotations their number, each dynamic scope walk its length. Past either, the
//! instance is not accepted and the error says why.

use super::checks::{self, preview, Sink};
use super::reasons::{BranchReasons, FirstFailure};
use super::{admits, Path, Report, Work};
use crate::error::ValidationError;
use crate::ir::{Additional, Draft, FullIr, Node, NodeId};
use crate::schema::Schema;
use crate::value::{JsonType, TypeSet};
use serde_json::{Number, Value};
use std::cell::Cell;
use std::collections::hash_map::DefaultHasher;
use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};

mod decimal;
mod format;

/// Deepest nesting of subschema visits one validation follows.
pub(crate) const MAX_DEPTH: usize = 256;

/// The dynamic scope: the resources entered, innermost first.
struct Scope<'a> {
    resource: u32,
    parent: Option<&'a Scope<'a>>,
}

/// What the keywords of a node evaluated of one instance location.
#[derive(Default)]
struct Evaluated<'i> {
    props: HashSet<&'i str>,
    items: HashSet<usize>,
}

impl<'i> Evaluated<'i> {
    fn len(&self) -> usize {
        self.props.len() + self.items.len()
    }

    fn merge(&mut self, other: Evaluated<'i>) {
        self.props.extend(other.props);
        self.items.extend(other.items);
    }
}

/// The error of a walk stopped by [`MAX_DEPTH`].
#[cold]
fn depth_message() -> String {
    format!("validation stopped: past {MAX_DEPTH} levels of nesting (subschemas applied within one another)")
}

/// Where failures go: nowhere (a verdict), the error list, or the first failure of a union
/// branch whose reason a failed `anyOf`/`oneOf` gives.
enum Dest<'e> {
    List(&'e mut Vec<ValidationError>),
    First(&'e mut FirstFailure),
}

type Errors<'e> = Option<Dest<'e>>;

pub(super) struct FullWalk<'s> {
    schema: &'s Schema,
    ir: &'s FullIr,
    depth: Cell<usize>,
    /// The walk's share of the operation's work budget.
    pub(super) work: Work,
    pub(super) exceeded: Cell<bool>,
    /// Set while the branches of a failed union are walked for their reasons: a union failing
    /// inside one is reported by its count only, as in the other walk.
    explaining: Cell<bool>,
}

/// Removes the repeats of an error (the same instance path, schema path, keyword and message),
/// keeping the first: this walk reaches one schema location on one value once per way to it
/// (two references to one definition), and fails it the same way each time. The other walk
/// evaluates a reference target once per value and reports it once.
pub(super) fn drop_repeats(errors: &mut Vec<ValidationError>) {
    if errors.len() < 2 {
        return;
    }
    let mut kept: HashMap<u64, Vec<usize>> = HashMap::new();
    let mut out: Vec<ValidationError> = Vec::with_capacity(errors.len());
    for e in std::mem::take(errors) {
        let mut h = DefaultHasher::new();
        (&e.instance_path, &e.schema_path, e.keyword, &e.message).hash(&mut h);
        let same = kept.entry(h.finish()).or_default();
        if same.iter().any(|&i| out.get(i) == Some(&e)) {
            continue;
        }
        same.push(out.len());
        out.push(e);
    }
    *errors = out;
}

/// How many failures `errors` holds: the list's length, whether the first failure is
/// recorded, 0 for a verdict.
fn recorded(errors: &Errors<'_>) -> usize {
    match errors {
        Some(Dest::List(list)) => list.len(),
        Some(Dest::First(first)) => usize::from(first.is_recorded()),
        None => 0,
    }
}

/// Records a failure when errors are wanted, under the same count and byte budget as the other
/// walk (past it, one last error says that the rest were omitted).
fn record(
    errors: &mut Errors<'_>,
    node: &Node,
    keyword: &'static str,
    path: &Path<'_>,
    message: impl FnOnce() -> String,
) {
    match errors {
        Some(Dest::List(list)) => Report::record(&mut **list, node, keyword, path, message),
        Some(Dest::First(first)) => first.record(keyword, path, message),
        None => {}
    }
}

/// Records a failure; without an error list, the node has failed and the walk returns.
macro_rules! fail {
    ($errors:expr, $valid:ident, $node:expr, $kw:expr, $path:expr, $($msg:tt)+) => {{
        $valid = false;
        if $errors.is_none() {
            return false;
        }
        record($errors, $node, $kw, $path, || format!($($msg)+));
    }};
}

/// A node and an instance location as a [`Sink`] for the shared checks.
struct At<'a, 'e, 'p> {
    errors: &'a mut Errors<'e>,
    node: &'a Node,
    path: &'a Path<'p>,
}

impl Sink for At<'_, '_, '_> {
    fn verdict_only(&self) -> bool {
        self.errors.is_none()
    }

    fn fail(&mut self, keyword: &'static str, message: impl FnOnce() -> String) {
        record(self.errors, self.node, keyword, self.path, message);
    }
}

impl<'s> FullWalk<'s> {
    pub(super) fn new(schema: &'s Schema, ir: &'s FullIr) -> Self {
        FullWalk {
            schema,
            ir,
            depth: Cell::new(0),
            work: Work::new(crate::budget::Meter::new()),
            exceeded: Cell::new(false),
            explaining: Cell::new(false),
        }
    }

    /// Validates `inst` against node `id`.
    pub(super) fn run(
        &self,
        id: NodeId,
        inst: &Value,
        errors: Option<&mut Vec<ValidationError>>,
    ) -> bool {
        let mut errors = errors.map(Dest::List);
        let scope = Scope {
            resource: self.resource(id),
            parent: None,
        };
        let valid = self.node(
            id,
            inst,
            &Path::Root,
            &scope,
            &mut errors,
            &mut Evaluated::default(),
        );
        if self.exceeded.get() {
            if let Some(Dest::List(list)) = errors {
                super::note_stop(list, depth_message(), "");
            }
            return false;
        }
        valid
    }

    /// Why each alternative of a failed union rejects `inst`, as the other walk gives it
    /// ([`super::reasons`]): each branch walked once more into its first failure, within the
    /// work budget. Asked for only when errors are recorded (`fail!` returns before the
    /// message otherwise); a union failing inside a branch is given by its count only.
    fn branch_reasons(
        &self,
        list: &[NodeId],
        inst: &Value,
        path: &Path<'_>,
        scope: &Scope<'_>,
    ) -> String {
        if self.explaining.replace(true) {
            return String::new();
        }
        let mut reasons = BranchReasons::default();
        for (i, sub) in list.iter().enumerate() {
            if !reasons.wants_more() {
                reasons.skip();
                continue;
            }
            let mut first = FirstFailure::default();
            let passed = self.node(
                *sub,
                inst,
                path,
                scope,
                &mut Some(Dest::First(&mut first)),
                &mut Evaluated::default(),
            );
            reasons.add(i, passed, first);
        }
        self.explaining.set(false);
        reasons.finish()
    }

    fn resource(&self, id: NodeId) -> u32 {
        self.ir.resource_of.get(id.index()).copied().unwrap_or(0)
    }

    fn collect(&self) -> bool {
        self.ir.unevaluated
    }

    fn node<'i>(
        &self,
        id: NodeId,
        inst: &'i Value,
        path: &Path<'_>,
        scope: &Scope<'_>,
        errors: &mut Errors<'_>,
        out: &mut Evaluated<'i>,
    ) -> bool {
        if !self
            .work
            .spend(self.schema.node(id), inst, path, self.full_cost(id, inst))
        {
            return false;
        }
        let depth = self.depth.get();
        if depth >= MAX_DEPTH {
            self.exceeded.set(true);
            record(errors, self.schema.node(id), "$ref", path, depth_message);
            return false;
        }
        self.depth.set(depth + 1);
        let resource = self.resource(id);
        let inner;
        let scope = if resource == scope.resource {
            scope
        } else {
            inner = Scope {
                resource,
                parent: Some(scope),
            };
            &inner
        };
        let mut local = Evaluated::default();
        let valid = self.keywords(id, inst, path, scope, errors, &mut local);
        self.depth.set(depth);
        if valid && self.collect() {
            if !self.work.spend_steps(local.len() as u64) {
                return false;
            }
            out.merge(local);
        }
        valid
    }

    /// What the `full` keywords of node `id` read of `inst` beyond
    /// [`super::evaluation_cost`]: each member name against each `patternProperties`
    /// pattern, and the names `dependentRequired` and `dependentSchemas` look up.
    fn full_cost(&self, id: NodeId, inst: &Value) -> u64 {
        let (Some(rules), Value::Object(map)) = (self.schema.full_rules(id), inst) else {
            return 0;
        };
        let mut cost = rules.dependent_schemas.len() as u64;
        for (_, needed) in &rules.dependent_required {
            cost = cost.saturating_add(1 + needed.len() as u64);
        }
        if !rules.pattern_properties.is_empty() {
            let names: u64 = map
                .keys()
                .map(|k| 1 + k.len() as u64 / crate::budget::STRING_BYTES_PER_STEP)
                .sum();
            cost = cost.saturating_add(names.saturating_mul(rules.pattern_properties.len() as u64));
        }
        cost
    }

    #[allow(clippy::too_many_lines)]
    fn keywords<'i>(
        &self,
        id: NodeId,
        inst: &'i Value,
        path: &Path<'_>,
        scope: &Scope<'_>,
        errors: &mut Errors<'_>,
        local: &mut Evaluated<'i>,
    ) -> bool {
        let node = self.schema.node(id);
        let rules = self.schema.full_rules(id);
        let mut valid = true;
        if rules.is_some_and(|r| r.never) {
            fail!(
                errors,
                valid,
                node,
                "false",
                path,
                "the schema `false` accepts no value"
            );
        }
        if let Some(t) = node.types {
            if !admits(t, inst) {
                fail!(
                    errors,
                    valid,
                    node,
                    "type",
                    path,
                    "{}",
                    checks::type_message(t, inst)
                );
            } else if self.draft4_float_for_integer(id, t, inst) {
                fail!(
                    errors,
                    valid,
                    node,
                    "type",
                    path,
                    "expected integer, found {inst} (in draft 4 a number written with a fraction or exponent is not an integer)"
                );
            }
        }
        valid &= checks::literals(node, inst, &mut At { errors, node, path });
        if !valid && errors.is_none() {
            return false;
        }
        match inst {
            Value::String(s) => {
                let sink = &mut At { errors, node, path };
                if let Some(string) = &node.string {
                    valid &= checks::string(string, s, crate::budget::charge, sink);
                }
                if let Some(f) = rules.and_then(|r| r.format_assertion.as_deref()) {
                    valid &= format_conforms(f, s, sink);
                }
            }
            Value::Number(n) => {
                let sink = &mut At { errors, node, path };
                if let Some(number) = &node.number {
                    valid &= checks::number(number, n, sink);
                }
                if let Some(m) = rules.and_then(|r| r.multiple_of.as_ref()) {
                    valid &= decimal_multiple(m, n, sink);
                }
            }
            Value::Array(items) => valid &= self.array(id, node, items, path, scope, errors, local),
            Value::Object(_) => valid &= self.object(id, node, inst, path, scope, errors, local),
            _ => {}
        }
        if !valid && errors.is_none() {
            return false;
        }
        for sub in &node.all_of {
            let before = recorded(errors);
            if !self.node(*sub, inst, path, scope, errors, local) {
                // The member's own errors say why, as in the other walk; this one only when
                // the member recorded none.
                if recorded(errors) != before {
                    valid = false;
                } else {
                    fail!(
                        errors,
                        valid,
                        node,
                        "allOf",
                        path,
                        "fails a schema under `allOf`"
                    );
                }
            }
        }
        if !node.any_of.is_empty() {
            let mut any = false;
            for sub in &node.any_of {
                if self.node(*sub, inst, path, scope, &mut None, local) {
                    any = true;
                    if !self.collect() {
                        break;
                    }
                }
            }
            if !any {
                fail!(
                    errors,
                    valid,
                    node,
                    "anyOf",
                    path,
                    "matches none of the {} alternatives{}",
                    node.any_of.len(),
                    self.branch_reasons(&node.any_of, inst, path, scope)
                );
            }
        }
        if !node.one_of.is_empty() {
            let mut matched = Vec::new();
            let mut kept = Evaluated::default();
            for (i, sub) in node.one_of.iter().enumerate() {
                let mut e = Evaluated::default();
                if self.node(*sub, inst, path, scope, &mut None, &mut e) {
                    matched.push(i);
                    kept = e;
                    if matched.len() > 1 {
                        break;
                    }
                }
            }
            match matched.as_slice() {
                [_] => local.merge(kept),
                [] => fail!(
                    errors,
                    valid,
                    node,
                    "oneOf",
                    path,
                    "matches none of the {} alternatives{}",
                    node.one_of.len(),
                    self.branch_reasons(&node.one_of, inst, path, scope)
                ),
                [a, b, ..] => fail!(
                    errors,
                    valid,
                    node,
                    "oneOf",
                    path,
                    "matches more than one alternative (at least {a} and {b})"
                ),
            }
        }
        if let Some(not) = node.not {
            if self.node(not, inst, path, scope, &mut None, &mut Evaluated::default()) {
                fail!(
                    errors,
                    valid,
                    node,
                    "not",
                    path,
                    "matches the schema under `not`"
                );
            }
        }
        if let Some(target) = node.reference {
            valid &= self.node(target, inst, path, scope, errors, local);
        }
        let Some(rules) = rules else {
            return valid;
        };
        if !valid && errors.is_none() {
            return false;
        }
        if let Some((target, anchor)) = &rules.dynamic_ref {
            let target = self.dynamic(*target, anchor.as_deref(), scope);
            valid &= self.node(target, inst, path, scope, errors, local);
        }
        if let Some(target) = rules.recursive_ref {
            let target = self.recursive(target, scope);
            valid &= self.node(target, inst, path, scope, errors, local);
        }
        if let Some(cond) = rules.if_ {
            let mut e = Evaluated::default();
            let branch = if self.node(cond, inst, path, scope, &mut None, &mut e) {
                local.merge(e);
                rules.then_.map(|t| (t, "then"))
            } else {
                rules.else_.map(|t| (t, "else"))
            };
            if let Some((sub, keyword)) = branch {
                if !self.node(sub, inst, path, scope, errors, local) {
                    fail!(
                        errors,
                        valid,
                        node,
                        keyword,
                        path,
                        "fails the schema under `{keyword}`"
                    );
                }
            }
        }
        if !valid && errors.is_none() {
            return false;
        }
        // Last: they see what every other keyword of the node evaluated.
        if let (Some(u), Value::Object(map)) = (rules.unevaluated_properties, inst) {
            for (key, member) in map {
                if local.props.contains(key.as_str()) {
                    continue;
                }
                let at = Path::Key(path, key);
                if self.node(u, member, &at, scope, errors, &mut Evaluated::default()) {
                    local.props.insert(key);
                } else {
                    fail!(
                        errors,
                        valid,
                        node,
                        "unevaluatedProperties",
                        path,
                        "the property `{key}`, which no other keyword evaluates, fails `unevaluatedProperties`"
                    );
                }
            }
        }
        if let (Some(u), Value::Array(items)) = (rules.unevaluated_items, inst) {
            for (i, item) in items.iter().enumerate() {
                if local.items.contains(&i) {
                    continue;
                }
                let at = Path::Index(path, i);
                if self.node(u, item, &at, scope, errors, &mut Evaluated::default()) {
                    local.items.insert(i);
                } else {
                    fail!(
                        errors,
                        valid,
                        node,
                        "unevaluatedItems",
                        path,
                        "item {i}, which no other keyword evaluates, fails `unevaluatedItems`"
                    );
                }
            }
        }
        valid
    }

    /// Draft 4: `integer` is a number written without a fraction or exponent, so `1.0` is not
    /// one (later drafts count any integral value). serde_json reads such a number as a float;
    /// so does an integer literal beyond 64 bits, which stays an integer here.
    fn draft4_float_for_integer(&self, id: NodeId, types: TypeSet, inst: &Value) -> bool {
        let Value::Number(n) = inst else {
            return false;
        };
        n.as_f64()
            .is_some_and(|f| n.is_f64() && f.abs() < 18_446_744_073_709_551_616.0)
            && types.contains(JsonType::Integer)
            && !types.contains(JsonType::Number)
            && self
                .ir
                .resources
                .get(self.resource(id) as usize)
                .is_some_and(|r| r.draft == Draft::Draft4)
    }

    /// `$dynamicRef`: when the statically resolved target declares the `$dynamicAnchor` its
    /// fragment names, the outermost resource of the dynamic scope that declares it wins.
    fn dynamic(&self, target: NodeId, anchor: Option<&str>, scope: &Scope<'_>) -> NodeId {
        let Some(name) = anchor else {
            return target;
        };
        let declares = self
            .schema
            .full_rules(target)
            .and_then(|r| r.dynamic_anchor.as_deref())
            == Some(name);
        if !declares {
            return target;
        }
        let mut found = target;
        let mut cur = Some(scope);
        while let Some(s) = cur {
            if let Some(r) = self.ir.resources.get(s.resource as usize) {
                // Charged; a walk past its budget stops at its next visit.
                let _ = self.work.spend_steps(1 + r.dynamic_anchors.len() as u64);
                if let Some((_, id)) = r.dynamic_anchors.iter().find(|(n, _)| &**n == name) {
                    found = *id;
                }
            }
            cur = s.parent;
        }
        found
    }

    /// `$recursiveRef`: when the target's resource says `$recursiveAnchor: true`, the outermost
    /// resource of the dynamic scope that says so too wins.
    fn recursive(&self, target: NodeId, scope: &Scope<'_>) -> NodeId {
        let anchored = self
            .ir
            .resources
            .get(self.resource(target) as usize)
            .is_some_and(|r| r.recursive_anchor.is_some());
        if !anchored {
            return target;
        }
        let mut found = target;
        let mut cur = Some(scope);
        while let Some(s) = cur {
            let _ = self.work.spend_steps(1);
            if let Some(root) = self
                .ir
                .resources
                .get(s.resource as usize)
                .and_then(|r| r.recursive_anchor)
            {
                found = root;
            }
            cur = s.parent;
        }
        found
    }

    #[allow(clippy::too_many_arguments)]
    fn array<'i>(
        &self,
        id: NodeId,
        node: &Node,
        items: &'i [Value],
        path: &Path<'_>,
        scope: &Scope<'_>,
        errors: &mut Errors<'_>,
        local: &mut Evaluated<'i>,
    ) -> bool {
        let mut valid = true;
        if let Some(rules) = &node.array {
            valid &= checks::array_size(rules, items.len(), &mut At { errors, node, path });
            if !valid && errors.is_none() {
                return false;
            }
            for (i, item) in items.iter().enumerate() {
                let Some(sub) = rules.prefix_items.get(i).copied().or(rules.items) else {
                    break;
                };
                let at = Path::Index(path, i);
                if self.node(sub, item, &at, scope, errors, &mut Evaluated::default()) {
                    if self.collect() {
                        local.items.insert(i);
                    }
                } else {
                    valid = false;
                    if errors.is_none() {
                        return false;
                    }
                }
            }
            valid &= checks::unique(rules, items, &mut At { errors, node, path });
            if !valid && errors.is_none() {
                return false;
            }
        }
        let Some(rules) = self.schema.full_rules(id) else {
            return valid;
        };
        if let Some(c) = rules.contains {
            let mut count = 0u64;
            for (i, item) in items.iter().enumerate() {
                let at = Path::Index(path, i);
                if self.node(c, item, &at, scope, &mut None, &mut Evaluated::default()) {
                    count += 1;
                    if self.collect() && rules.draft >= Draft::Draft2020_12 {
                        local.items.insert(i);
                    }
                }
            }
            let min = rules.min_contains.unwrap_or(1);
            if count < min {
                fail!(
                    errors,
                    valid,
                    node,
                    "contains",
                    path,
                    "has {count} items matching `contains`, fewer than {min}"
                );
            }
            if let Some(max) = rules.max_contains.filter(|m| count > *m) {
                fail!(
                    errors,
                    valid,
                    node,
                    "maxContains",
                    path,
                    "has {count} items matching `contains`, more than {max}"
                );
            }
        }
        valid
    }

    #[allow(clippy::too_many_arguments, clippy::too_many_lines)]
    fn object<'i>(
        &self,
        id: NodeId,
        node: &Node,
        inst: &'i Value,
        path: &Path<'_>,
        scope: &Scope<'_>,
        errors: &mut Errors<'_>,
        local: &mut Evaluated<'i>,
    ) -> bool {
        let Value::Object(map) = inst else {
            return true;
        };
        let mut valid = true;
        let rules = self.schema.full_rules(id);
        let patterns = rules.map_or(&[][..], |r| &r.pattern_properties[..]);
        let collect = self.collect();
        if let Some(o) = &node.object {
            valid &= checks::required(&o.required, map, &mut At { errors, node, path });
            if !valid && errors.is_none() {
                return false;
            }
        }
        let additional = node
            .object
            .as_ref()
            .map_or(Additional::Unspecified, |o| o.additional);
        let visits = node
            .object
            .as_ref()
            .is_some_and(|o| !o.properties.is_empty())
            || !patterns.is_empty()
            || additional != Additional::Unspecified;
        if visits {
            for (key, member) in map {
                let at = Path::Key(path, key);
                let mut matched = false;
                let mut ok = true;
                if let Some(sub) = node.object.as_ref().and_then(|o| o.properties.get(key)) {
                    matched = true;
                    ok &= self.node(sub, member, &at, scope, errors, &mut Evaluated::default());
                }
                for (p, sub) in patterns {
                    if p.is_match(key) {
                        matched = true;
                        ok &=
                            self.node(*sub, member, &at, scope, errors, &mut Evaluated::default());
                    }
                }
                if !matched {
                    match additional {
                        Additional::Schema(sub) => {
                            matched = true;
                            ok &= self.node(
                                sub,
                                member,
                                &at,
                                scope,
                                errors,
                                &mut Evaluated::default(),
                            );
                        }
                        Additional::Forbidden => {
                            fail!(
                                errors,
                                valid,
                                node,
                                "additionalProperties",
                                path,
                                "the property `{key}` is not allowed"
                            );
                        }
                        Additional::Allowed => matched = true,
                        Additional::Unspecified => {}
                    }
                }
                if !ok {
                    valid = false;
                    if errors.is_none() {
                        return false;
                    }
                } else if matched && collect {
                    local.props.insert(key);
                }
            }
        }
        let Some(rules) = rules else {
            return valid;
        };
        valid &= checks::property_count(
            rules.min_properties,
            rules.max_properties,
            map.len(),
            &mut At { errors, node, path },
        );
        if !valid && errors.is_none() {
            return false;
        }
        if let Some(names) = rules.property_names {
            for key in map.keys() {
                let name = Value::String(key.clone());
                if !self.node(
                    names,
                    &name,
                    path,
                    scope,
                    &mut None,
                    &mut Evaluated::default(),
                ) {
                    fail!(
                        errors,
                        valid,
                        node,
                        "propertyNames",
                        path,
                        "the property name `{key}` fails `propertyNames`"
                    );
                }
            }
        }
        for (prop, needed) in &rules.dependent_required {
            if !map.contains_key(&**prop) {
                continue;
            }
            for n in needed {
                if !map.contains_key(&**n) {
                    fail!(
                        errors,
                        valid,
                        node,
                        "dependentRequired",
                        path,
                        "the property `{n}` is required when `{prop}` is present"
                    );
                }
            }
        }
        for (prop, sub) in &rules.dependent_schemas {
            if map.contains_key(&**prop) && !self.node(*sub, inst, path, scope, errors, local) {
                fail!(
                    errors,
                    valid,
                    node,
                    "dependentSchemas",
                    path,
                    "fails the schema that applies when `{prop}` is present"
                );
            }
        }
        valid
    }
}

/// `format`, when it is asserted.
fn format_conforms(format: &str, s: &str, sink: &mut impl Sink) -> bool {
    let valid = format::conforms(format, s);
    if !valid {
        sink.fail("format", || {
            format!(
                "{} is not a valid `{format}`",
                preview(&Value::String(s.to_owned()))
            )
        });
    }
    valid
}

/// `multipleOf` with a divisor that is not a positive integer, decided in decimal.
fn decimal_multiple(m: &Number, n: &Number, sink: &mut impl Sink) -> bool {
    let valid = decimal::is_multiple(n, m);
    if !valid {
        sink.fail("multipleOf", || format!("{n} is not a multiple of {m}"));
    }
    valid
}
