//! The generic emitter: IR → JSON Schema for the dialects that speak JSON Schema (OpenAI strict,
//! Gemini `responseJsonSchema`, Ollama, Claude). Every keyword decision comes from the target's
//! capability table; what differs beyond keywords (how objects must be closed, whether every
//! node needs a `type`) is a small [`JsonDialect`] description.
//!
//! The emitter never adds a constraint. It drops or relaxes (each a [`Loss`]), or, when a node
//! cannot be expressed without narrowing, gives up with a [`Degrade`] so the dialect can fall
//! back to a weaker mode.

use super::caps::{Capabilities, Partial, PatternRule, Rewrite, Support, ValueKinds};
use super::Produce;
use crate::ir::{Additional, Draft, Node, NodeId, ObjectRules, Prehashed, RequiredNames};
use crate::keywords::{self, Role};
use crate::loss::Loss;
use crate::pointer::Pointer;
use crate::schema::Schema;
use crate::value::{JsonType, TypeSet};
use serde_json::{Map, Value};
use std::collections::HashSet;
use std::hash::BuildHasherDefault;

/// How a dialect treats objects that the source leaves open.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Closure {
    /// The decoder treats a missing `additionalProperties` as `false`: say `true` explicitly
    /// wherever the source is open.
    ExplicitOpen,
    /// Every object must be closed (`additionalProperties: false`) in the source already; with
    /// `all_required`, every declared property must be required too. Otherwise: degrade.
    RequireClosed {
        /// Every property must be listed in `required` (OpenAI strict).
        all_required: bool,
        /// A closed object that declares no property is refused or unsafe (Claude's grammar
        /// subset): it blocks at its own node, so that it is named beside the other blockers.
        /// `None`: accepted.
        no_empty_objects: Option<&'static str>,
    },
    /// Write `additionalProperties` exactly as the source has it (re-emitting the source).
    AsSource,
}

/// Which nodes without a `type` of their own are sent with the types they admit (exact: no
/// other type could validate).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Types {
    /// None: `type` only where the source has it.
    AsSource,
    /// Every node: where a node without `type` reads as "object" (llama.cpp) or any value is
    /// not expressible.
    Explicit,
    /// Every node but a bare union's (`anyOf`/`oneOf` sent, no `type` and no object keywords
    /// of its own), which gets neither a `type` nor (with [`Closure::ExplicitOpen`]) the
    /// `additionalProperties: true` of an open object: its branches carry both, so the node
    /// means the same without them. Grammar engines read keywords beside a union as an
    /// intersection with every branch, which they cannot form around a recursive reference
    /// (llguidance: "circular references with sibling keys are not supported", issue 18);
    /// llama.cpp's converter reads a union before and instead of its siblings.
    ExplicitOutsideBareUnions,
    /// Every node but a union's, whose branches carry the types: the closed-object strict
    /// decoders, whose subsets describe typed nodes only (see `closed::prepare`).
    OutsideUnions,
}

/// What the emitter needs to know about a JSON-Schema dialect beyond its keyword table.
#[derive(Clone, Copy, Debug)]
pub(crate) struct JsonDialect {
    /// The keyword table; `None` re-emits the source as it is (every keyword kept).
    pub caps: Option<&'static Capabilities>,
    /// How open objects are handled.
    pub closure: Closure,
    /// Which nodes without `type` get one (the types they admit).
    pub types: Types,
    /// The dialect resolves local `$ref`s into `$defs`, recursion included, without cutting it
    /// at a depth (extended subset). Recursive references are then sent as `$defs`; otherwise
    /// they degrade.
    pub references: bool,
    /// The decoder reads a missing `items` as `items: false` (xgrammar's strict mode, which
    /// Ollama's MLX backend runs): every node sent with an array type says `items`, `{}` where
    /// the source leaves the items free.
    pub explicit_items: bool,
}

/// Why a schema cannot be sent natively without narrowing: every blocker found, at most one
/// per node, so a user fixes them in one round instead of one round trip each.
#[derive(Clone, Debug)]
pub(crate) struct Degrade(pub Vec<Loss>);

impl From<Loss> for Degrade {
    fn from(why: Loss) -> Degrade {
        Degrade(vec![why])
    }
}

impl Degrade {
    /// Adds `more`'s blockers at nodes not already named.
    pub(crate) fn merge(&mut self, more: Vec<Loss>) {
        let mut all = Blockers::default();
        all.add(std::mem::take(&mut self.0));
        all.add(more);
        self.0 = all.into_list();
    }
}

/// The nodes a walk could not send, one blocker per node: a node written out in several
/// places (a shared definition, a flattened `allOf`) is named once, at its source pointer.
#[derive(Debug, Default)]
pub(crate) struct Blockers {
    list: Vec<Loss>,
    /// Keyed by the pointers' own chain hashes (keyed per process, kept in each pointer), not
    /// hashed again: SipHash over each blocker's pointer cost more than the rest of naming it.
    at: HashSet<Pointer, BuildHasherDefault<Prehashed>>,
}

impl Blockers {
    pub(crate) fn add(&mut self, more: Vec<Loss>) {
        for loss in more {
            if self.at.insert(loss.pointer.clone()) {
                self.list.push(loss);
            }
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    pub(crate) fn len(&self) -> usize {
        self.list.len()
    }

    /// Forgets the blockers added after the first `len` (a subtree whose blockers do not
    /// count, as under a `not` that is dropped).
    pub(crate) fn truncate(&mut self, len: usize) {
        for loss in self.list.drain(len.min(self.list.len())..) {
            self.at.remove(&loss.pointer);
        }
    }

    pub(crate) fn into_list(self) -> Vec<Loss> {
        self.list
    }
}

/// The result of emitting a whole schema.
pub(crate) struct Emitted {
    pub schema: Value,
    pub losses: Vec<Loss>,
}

/// Emits the whole schema for the dialect.
pub(crate) fn emit(schema: &Schema, dialect: JsonDialect) -> Result<Emitted, Degrade> {
    let emitted = walk(schema, dialect, false);
    #[cfg(test)]
    tests::check_discarding_walk(schema, dialect, &emitted);
    emitted
}

/// [`emit`] as `produce` asks: for [`Produce::Verdict`], the discarding walk of [`blockers`],
/// whose schema is `{}` and whose losses and blockers are the emission's. Only for callers
/// that check nothing on the schema emitted, so that their verdict is the same either way.
pub(crate) fn emit_for(
    schema: &Schema,
    dialect: JsonDialect,
    produce: Produce,
) -> Result<Emitted, Degrade> {
    match produce {
        Produce::Request => emit(schema, dialect),
        Produce::Verdict => walk(schema, dialect, true),
    }
}

/// The blockers of an emission that will not be sent whatever it finds, its caller holding
/// blockers of its own (`closed::prepare`'s): the walk of [`emit`], building no wire.
pub(crate) fn blockers(schema: &Schema, dialect: JsonDialect) -> Degrade {
    match walk(schema, dialect, true) {
        Ok(_) => Degrade(Vec::new()),
        Err(d) => d,
    }
}

/// The emission; with `discard`, one whose wire is not used (see [`Emitter::discarding`]):
/// the schema it returns is then meaningless, its losses and blockers those of the emission.
fn walk(schema: &Schema, dialect: JsonDialect, discard: bool) -> Result<Emitted, Degrade> {
    let mut e = Emitter {
        schema,
        d: dialect,
        losses: Vec::new(),
        emitted: 0,
        defs: Vec::new(),
        blocked: Blockers::default(),
        stopped: false,
        discard,
    };
    let mut root = e.child(schema.root(), 0)?;
    // Definitions reached through recursive references, each written once; writing one may
    // reach more.
    let mut defs = Map::new();
    let mut next = 0;
    while let Some((target, name)) = e.defs.get(next).cloned() {
        defs.insert(name, Value::Object(e.child(target, 1)?));
        next += 1;
    }
    if !e.blocked.is_empty() {
        return Err(Degrade(e.blocked.into_list()));
    }
    if !defs.is_empty() {
        root.insert("$defs".into(), Value::Object(defs));
    }
    Ok(Emitted {
        schema: Value::Object(root),
        losses: e.losses,
    })
}

struct Emitter<'s> {
    schema: &'s Schema,
    d: JsonDialect,
    losses: Vec<Loss>,
    /// Nodes written so far: shared definitions written out in place must not blow up.
    emitted: usize,
    /// Targets of recursive references and their `$defs` names, in the order first reached.
    defs: Vec<(NodeId, String)>,
    /// Nodes that cannot be sent, one blocker each: the walk goes on past them so that the
    /// fallback names them all.
    blocked: Blockers,
    /// A limit of the whole emission (depth, size) was hit: nothing more is walked.
    stopped: bool,
    /// Nothing of this emission is sent, whatever the walk finds ([`blockers`]).
    discard: bool,
}

/// A walk that can go on without building what it would send. A lowering asked for its
/// verdict only ([`Produce::Verdict`]), or one that has met a blocker and will fall back, still
/// walks the whole schema, to name every blocker and to make the same decisions, but builds
/// no wire: a fallback naming a hundred blockers would otherwise write out a hundred
/// subschemas only to drop them. So such a walk decides nothing by what a built node holds; a
/// test of each walk compares it with its building twin.
pub(crate) trait Discarding {
    /// True when nothing built from now on is sent.
    fn discarding(&self) -> bool;

    /// Writes `key` into `out`, unless [`Discarding::discarding`]: then the value is not even
    /// built.
    #[inline(always)]
    fn put(&self, out: &mut Map<String, Value>, key: &str, value: impl FnOnce() -> Value) {
        if !self.discarding() {
            out.insert(key.to_owned(), value());
        }
    }
}

/// The emitter discards when the caller said so ([`blockers`], [`emit_for`]) or once a blocker
/// is recorded, so the emission fails (under a `not` whose blockers are forgotten, that
/// negation is dropped whole, and its blockers were all found inside it). A keyword whose
/// writing a later one depends on (`enum` for `const`, `pattern` for the lengths, `anyOf` for
/// `oneOf`) is told by what wrote it ([`Emitter::plain`]'s answer), not by `out`; the test
/// `discarding_walk_decides_as_the_full_one` compares both walks.
impl Discarding for Emitter<'_> {
    #[inline(always)]
    fn discarding(&self) -> bool {
        self.discard || !self.blocked.is_empty()
    }
}

/// Most schema objects one emission writes (shared definitions are written once per use).
pub(crate) const MAX_EMITTED_NODES: usize = 100_000;

/// The JSON type names for a set, in a stable order.
pub(crate) fn type_names(t: TypeSet) -> Value {
    let t = t.normalized();
    let mut names = t.iter().map(|t| Value::from(t.name()));
    match (t.len(), names.next()) {
        (1, Some(only)) => only,
        (_, first) => Value::Array(first.into_iter().chain(names).collect()),
    }
}

fn is_annotation(keyword: &str) -> bool {
    keywords::lookup(keyword).is_some_and(|k| k.role == Role::Annotation)
}

fn value_kind_ok(v: &Value, kinds: ValueKinds) -> bool {
    match kinds {
        ValueKinds::Scalars => !matches!(v, Value::Array(_) | Value::Object(_)),
        ValueKinds::StringsAndNumbers => matches!(v, Value::String(_) | Value::Number(_)),
        ValueKinds::Strings => v.is_string(),
    }
}

impl Emitter<'_> {
    fn loss(&mut self, node: &Node, keyword: &'static str, reason: &'static str) {
        if !is_annotation(keyword) {
            self.losses.push(Loss::new(&node.pointer, keyword, reason));
        }
    }

    /// The `$defs` name of a reference target, allocated on first use: the last token of its
    /// source pointer made safe for every provider, made unique by a counter.
    fn def_name(&mut self, target: NodeId) -> String {
        if let Some((_, name)) = self.defs.iter().find(|(t, _)| *t == target) {
            return name.clone();
        }
        let pointer = &self.schema.node(target).pointer;
        let base: String = pointer
            .tokens()
            .last()
            .unwrap_or_else(|| "root".to_owned())
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .take(48)
            .collect();
        let base = if base.is_empty() {
            "def".to_owned()
        } else {
            base
        };
        let mut name = base.clone();
        let mut n = 1;
        while self.defs.iter().any(|(_, taken)| *taken == name) {
            n += 1;
            name = format!("{base}_{n}");
        }
        self.defs.push((target, name.clone()));
        name
    }

    fn degrade(node: &Node, keyword: &'static str, reason: &'static str) -> Degrade {
        Degrade::from(Loss::new(&node.pointer, keyword, reason))
    }

    /// A subschema's emission. One that cannot be sent is recorded in `blocked` and stands as
    /// `{}`, so the walk goes on and names every blocker; the result is never sent, since
    /// `emit` fails when anything is blocked. A limit of the whole emission stops the walk.
    fn child(&mut self, id: NodeId, depth: usize) -> Result<Map<String, Value>, Degrade> {
        match self.node(id, depth) {
            Err(d) if !self.stopped => {
                self.blocked.add(d.0);
                Ok(Map::new())
            }
            other => other,
        }
    }

    /// Keeps the first own-level blocker of a node in `own` and lets the walk go on; a limit
    /// of the whole emission (`stopped`) ends it at once. Always inlined: called five times
    /// per node, an out-of-line call cost more than the emission of a small node's keywords.
    #[inline(always)]
    fn keep_walking(
        &self,
        own: &mut Option<Degrade>,
        r: Result<(), Degrade>,
    ) -> Result<(), Degrade> {
        match r {
            Err(d) if self.stopped => Err(d),
            Err(d) => {
                own.get_or_insert(d);
                Ok(())
            }
            Ok(()) => Ok(()),
        }
    }

    fn support(&self, keyword: &str) -> Support {
        self.d.caps.map_or(Support::Kept, |c| c.support(keyword))
    }

    /// Applies a plain Kept / Hint / Dropped / Degrades row, true when the keyword is sent.
    /// Other rows are the caller's.
    fn plain(
        &mut self,
        node: &Node,
        keyword: &'static str,
        value: impl FnOnce() -> Value,
        out: &mut Map<String, Value>,
    ) -> Result<bool, Degrade> {
        match self.support(keyword) {
            Support::Kept => self.put(out, keyword, value),
            Support::Hint(why) => {
                self.put(out, keyword, value);
                self.loss(node, keyword, why);
            }
            Support::Dropped(why) => {
                self.loss(node, keyword, why);
                return Ok(false);
            }
            Support::Degrades(why) => return Err(Self::degrade(node, keyword, why)),
            Support::Rewritten(_) | Support::Partial(_) => {
                return Err(Self::degrade(
                    node,
                    keyword,
                    "has a capability row this emitter does not implement for it",
                ))
            }
        }
        Ok(true)
    }

    fn node(&mut self, id: NodeId, depth: usize) -> Result<Map<String, Value>, Degrade> {
        let node = self.schema.node(id);
        let mut out = if self.discarding() {
            Map::new()
        } else {
            Map::with_capacity(node.keyword_count())
        };
        if depth > 512 {
            self.stopped = true;
            return Err(Self::degrade(
                node,
                "",
                "the schema nests too deeply to emit",
            ));
        }
        if let Some(target) = node.reference {
            if !self.d.references {
                return Err(Self::degrade(
                    node,
                    "$ref",
                    "recursive references cannot be sent to this provider; local validation checks them",
                ));
            }
            let siblings = super::normalize::has_assertions_besides_unions(&Node {
                reference: None,
                ..node.clone()
            }) || node.has_union();
            let name = self.def_name(target);
            self.put(&mut out, "$ref", || Value::from(format!("#/$defs/{name}")));
            if !siblings {
                return Ok(out);
            }
            if self.d.closure != Closure::AsSource {
                // The reference alone admits every value the reference and its siblings
                // admit together: send it, and the siblings are the loss.
                self.loss(node, "$ref", RECURSIVE_REFERENCE_SIBLINGS_NOT_SENT);
                return Ok(out);
            }
            // 2020-12 applies `$ref` and its siblings together: write both.
        }
        self.emitted += 1;
        if self.emitted > MAX_EMITTED_NODES || !crate::budget::charge(crate::budget::NODE_STEPS) {
            self.stopped = true;
            return Err(Self::degrade(
                node,
                "",
                "the schema expands past the emission limit once shared definitions are written out in place",
            ));
        }
        self.annotations(node, depth == 0, &mut out)?;

        let admitted = self.schema.admitted(id);
        if admitted.is_empty() {
            // Union branches that admit nothing are left out before this (exactly); anywhere
            // else there is no valid way to write "no value" for every provider.
            return Err(Self::degrade(
                node,
                "type",
                "this subschema admits no value, which cannot be written as a `type`",
            ));
        }
        match node.types {
            Some(t) => {
                self.plain(node, "type", || type_names(t), &mut out)?;
            }
            None if self.d.types == Types::Explicit
                || (self.d.types == Types::ExplicitOutsideBareUnions && !self.bare_union(node))
                || (self.d.types == Types::OutsideUnions && !node.has_union()) =>
            {
                self.put(&mut out, "type", || type_names(admitted));
            }
            None => {}
        }
        let mut enum_sent = false;
        if let Some(e) = &node.enumeration {
            match self.support("enum") {
                Support::Partial(Partial::EnumValues(kinds)) => {
                    if e.values.iter().all(|v| value_kind_ok(v, kinds)) {
                        self.put(&mut out, "enum", || Value::Array(e.values.clone()));
                        enum_sent = true;
                    } else {
                        self.loss(node, "enum", "has values of a kind the provider does not accept in `enum`; dropped whole (filtering would narrow)");
                    }
                }
                _ => {
                    enum_sent =
                        self.plain(node, "enum", || Value::Array(e.values.clone()), &mut out)?;
                }
            }
        }
        if let Some(c) = &node.constant {
            match self.support("const") {
                Support::Rewritten(Rewrite::ConstAsEnum) => {
                    let enum_ok = match self.support("enum") {
                        Support::Partial(Partial::EnumValues(kinds)) => value_kind_ok(c, kinds),
                        Support::Kept => true,
                        _ => false,
                    };
                    if enum_ok && !enum_sent {
                        self.put(&mut out, "enum", || Value::Array(vec![(**c).clone()]));
                    } else {
                        self.loss(
                            node,
                            "const",
                            "cannot be sent as a one-value `enum` here; dropped",
                        );
                    }
                }
                _ => {
                    self.plain(node, "const", || (**c).clone(), &mut out)?;
                }
            }
        }
        // A node blocked by one of its own keywords still has its subschemas walked, so that
        // their blockers are named in the same round (issue 19); the node itself is named once,
        // for the first reason found.
        let mut own: Option<Degrade> = None;
        let r = self.object(node, admitted, depth, &mut out);
        self.keep_walking(&mut own, r)?;
        let r = self.array(node, depth, &mut out);
        self.keep_walking(&mut own, r)?;
        let r = self.string(node, admitted, &mut out);
        self.keep_walking(&mut own, r)?;
        let r = self.number(node, admitted, &mut out);
        self.keep_walking(&mut own, r)?;
        let r = self.combinators(node, depth, &mut out);
        self.keep_walking(&mut own, r)?;
        if let Some(blocked) = own {
            return Err(blocked);
        }
        // Both look at the written `type`, which is `node.types` or, where the dialect writes
        // it, `admitted`: a node whose types cannot name arrays (or objects and arrays) skips
        // the map look-ups, which cost as much as the rest of a small node's emission.
        let written = node.types.unwrap_or(admitted);
        if self.discarding() {
            // Both only reshape what is written.
        } else if self.d.explicit_items && written.contains(JsonType::Array) {
            items_said(&mut out);
        }
        if !self.discarding()
            && self.d.closure != Closure::AsSource
            && written.contains(JsonType::Object)
            && written.contains(JsonType::Array)
        {
            split_object_keywords(&mut out);
        }
        if let Some(a) = &node.annotations {
            if let Some(d) = &a.default {
                self.plain(node, "default", || d.clone(), &mut out)?;
            }
            if let Some(x) = &a.examples {
                self.plain(node, "examples", || Value::Array(x.clone()), &mut out)?;
            }
        }
        Ok(out)
    }

    /// Writes a node's annotations; `root` is the wire's root node, the one place `$schema`
    /// and `$id` are written. The wire is JSON Schema 2020-12 with every `$ref` a pointer
    /// from its root: a nested `$id` would move the base those pointers resolve against (a
    /// reader that follows the specification then finds nothing at `#/$defs/…`), and another
    /// draft's `$schema` would have such a reader misread it (2019-09's `items` applies to
    /// every item, blind to `prefixItems`). Neither carries a constraint.
    fn annotations(
        &mut self,
        node: &Node,
        root: bool,
        out: &mut Map<String, Value>,
    ) -> Result<(), Degrade> {
        let Some(a) = &node.annotations else {
            return Ok(());
        };
        if root {
            let this_draft = a
                .schema
                .as_deref()
                .filter(|s| Draft::from_meta_schema(s) == Some(Draft::Draft2020_12));
            if let Some(s) = this_draft {
                self.plain(node, "$schema", || Value::from(s), out)?;
            }
            if let Some(s) = &a.id {
                self.plain(node, "$id", || Value::from(&**s), out)?;
            }
        }
        if let Some(s) = &a.title {
            self.plain(node, "title", || Value::from(&**s), out)?;
        }
        let mut description = a.description.as_deref().map(str::to_owned);
        if let Some(f) = &a.format {
            match self.support("format") {
                Support::Rewritten(Rewrite::IntoDescription) => {
                    description = Some(with_format_hint(description.as_deref(), f));
                }
                _ => {
                    self.plain(node, "format", || Value::from(&**f), out)?;
                }
            }
        }
        if let Some(d) = description {
            self.plain(node, "description", || Value::from(d), out)?;
        }
        Ok(())
    }

    fn object(
        &mut self,
        node: &Node,
        admitted: TypeSet,
        depth: usize,
        out: &mut Map<String, Value>,
    ) -> Result<(), Degrade> {
        let admits_objects = admitted.contains(JsonType::Object);
        let rules = node.object.as_deref();
        if let Some(rules) = rules {
            if !rules.properties.is_empty() || out.contains_key("type") || admits_objects {
                let mut props = if self.discarding() {
                    Map::new()
                } else {
                    Map::with_capacity(rules.properties.len())
                };
                let mut required_names = RequiredNames::new(rules);
                let mut sent = 0usize;
                for (name, id) in rules.properties.iter() {
                    // An optional property that admits nothing can never be present: left
                    // out, exactly where the object is closed, widening (a loss) where the
                    // name then falls to the rule for undeclared members. A required one
                    // leaves no object; its node says so below.
                    if self.d.caps.is_some()
                        && self.schema.admitted(id).is_empty()
                        && !required_names.contains(name)
                    {
                        if rules.additional != Additional::Forbidden {
                            self.loss(self.schema.node(id), "properties", "admits no value, so this optional property can never be present; not sent, which leaves its name to the rule for undeclared members");
                        }
                        continue;
                    }
                    let sub = self.child(id, depth + 1)?;
                    sent += 1;
                    if !self.discarding() {
                        props.insert(name.to_owned(), Value::Object(sub));
                    }
                }
                if sent > 0 {
                    self.plain(node, "properties", || Value::Object(props), out)?;
                }
            }
            // A name required where `additionalProperties: false` forbids it leaves no object:
            // a provider's engine that checks satisfiability (llguidance) refuses the schema.
            // Sent without such names, the object is wider, a loss; written back as JSON
            // Schema (no capability table), `required` stays as it is.
            let forbidden = |r: &str| !rules.properties.contains(r);
            let drop_forbidden = self.d.caps.is_some()
                && rules.additional == Additional::Forbidden
                && rules.required.iter().any(|r| forbidden(r));
            if drop_forbidden {
                self.loss(node, "required", "names a property that `additionalProperties: false` forbids, so no object is valid; not sent for that name, as engines that check the schema refuse it");
            }
            let sent = |r: &str| !drop_forbidden || !forbidden(r);
            if rules.required.iter().any(|r| sent(r)) {
                let req = || {
                    Value::Array(
                        rules
                            .required
                            .iter()
                            .filter(|r| sent(r))
                            .map(|r| Value::from(&**r))
                            .collect(),
                    )
                };
                self.plain(node, "required", req, out)?;
            }
        }
        let additional = rules.map_or(Additional::Unspecified, |r| r.additional);
        match (self.d.closure, additional) {
            (_, Additional::Forbidden) => {
                if let Closure::RequireClosed {
                    no_empty_objects: Some(why),
                    ..
                } = self.d.closure
                {
                    if admits_objects && rules.is_none_or(|r| r.properties.is_empty()) {
                        return Err(Self::degrade(node, "additionalProperties", why));
                    }
                }
                self.plain(node, "additionalProperties", || Value::Bool(false), out)?;
            }
            (Closure::RequireClosed { all_required, .. }, _)
                if admits_objects && !(rules.is_none() && self.union_sent(node)) =>
            {
                // One blocker per node, naming all it needs: the optional properties too.
                const OPEN: &str = "the object is open (undeclared members allowed) and the provider requires every object closed";
                let mut why = String::from(OPEN);
                if let Some(rules) = rules.filter(|_| all_required) {
                    why.push_str("; and every property required, while ");
                    if write_optional_names(rules, &mut why) {
                        why.push_str(" optional");
                    } else {
                        why.truncate(OPEN.len());
                    }
                }
                return Err(Degrade::from(Loss::new(
                    &node.pointer,
                    "additionalProperties",
                    why,
                )));
            }
            (Closure::RequireClosed { .. }, _) => {}
            (Closure::ExplicitOpen, Additional::Schema(id)) => {
                let sub = self.child(id, depth + 1)?;
                self.plain(node, "additionalProperties", || Value::Object(sub), out)?;
            }
            (Closure::ExplicitOpen, _) if admits_objects && !self.untyped_bare_union(node) => {
                self.plain(node, "additionalProperties", || Value::Bool(true), out)?;
            }
            (Closure::ExplicitOpen, _) => {}
            (Closure::AsSource, Additional::Schema(id)) => {
                let sub = self.child(id, depth + 1)?;
                self.plain(node, "additionalProperties", || Value::Object(sub), out)?;
            }
            (Closure::AsSource, Additional::Allowed) => {
                self.plain(node, "additionalProperties", || Value::Bool(true), out)?;
            }
            (Closure::AsSource, Additional::Unspecified) => {}
        }
        if let (
            Closure::RequireClosed {
                all_required: true, ..
            },
            Some(rules),
        ) = (self.d.closure, rules)
        {
            let mut why = String::new();
            if write_optional_names(rules, &mut why) {
                why.push_str(" optional and the provider requires every property to be required");
                return Err(Degrade::from(Loss::new(&node.pointer, "required", why)));
            }
        }
        Ok(())
    }

    fn array(
        &mut self,
        node: &Node,
        depth: usize,
        out: &mut Map<String, Value>,
    ) -> Result<(), Degrade> {
        let Some(rules) = &node.array else {
            return Ok(());
        };
        // What is written, told by what wrote it rather than looked up in `out` again.
        let mut items_sent = false;
        if !rules.prefix_items.is_empty() {
            match self.support("prefixItems") {
                Support::Rewritten(Rewrite::PrefixItemsAsItems) => {
                    match rules.items {
                        Some(tail) => {
                            let mut branches = Vec::with_capacity(rules.prefix_items.len() + 1);
                            for id in rules.prefix_items.iter().copied().chain([tail]) {
                                branches.push(Value::Object(self.child(id, depth + 1)?));
                            }
                            self.put(out, "items", || {
                                let mut items = Map::new();
                                items.insert("anyOf".into(), Value::Array(branches));
                                Value::Object(items)
                            });
                            items_sent = true;
                            self.loss(node, "prefixItems", "positions not enforced: every item may match any position's schema");
                        }
                        None => self.loss(node, "prefixItems", "positions not enforced: the tail is unconstrained, so items are left unconstrained"),
                    }
                }
                _ => {
                    let mut list = Vec::with_capacity(rules.prefix_items.len());
                    for id in &rules.prefix_items {
                        list.push(Value::Object(self.child(*id, depth + 1)?));
                    }
                    items_sent = self.plain(node, "prefixItems", || Value::Array(list), out)?;
                    if let Some(tail) = rules.items {
                        let sub = self.child(tail, depth + 1)?;
                        items_sent |= self.plain(node, "items", || Value::Object(sub), out)?;
                    }
                }
            }
        } else if let Some(items) = rules.items {
            let sub = self.child(items, depth + 1)?;
            items_sent = self.plain(node, "items", || Value::Object(sub), out)?;
        }
        // The `minItems` written, 0 for none.
        let mut min_items = 0;
        if let Some(n) = rules.min_items {
            match self.support("minItems") {
                Support::Rewritten(Rewrite::MinItemsAtMostOne) if n > 1 => {
                    self.put(out, "minItems", || Value::from(1));
                    min_items = 1;
                    self.loss(
                        node,
                        "minItems",
                        "values above 1 are not accepted by the provider; sent as 1",
                    );
                }
                Support::Rewritten(Rewrite::MinItemsAtMostOne) => {
                    self.put(out, "minItems", || Value::from(n));
                    min_items = n;
                }
                _ => {
                    if self.plain(node, "minItems", || Value::from(n), out)? {
                        min_items = n;
                    }
                }
            }
        }
        if let Some(n) = rules.max_items {
            self.plain(node, "maxItems", || Value::from(n), out)?;
        }
        // `minItems` without `items` is refused by xgrammar ("minItems is greater than the
        // number of prefixItems", issue 18): say "any item" explicitly, in the dialect's
        // spelling of "any value". The strict dialects spell no "any value"; they are left.
        if min_items > 0 && !items_sent {
            match self.d.types {
                // `{}` is "any value" for xgrammar, and a typed spelling would hold an array
                // type without `items`, which it reads as closed.
                _ if self.d.explicit_items => {
                    self.put(out, "items", || Value::Object(Map::new()));
                }
                Types::AsSource => {
                    self.put(out, "items", || Value::Object(Map::new()));
                }
                Types::Explicit | Types::ExplicitOutsideBareUnions => {
                    self.put(out, "items", || {
                        let mut any = Map::new();
                        any.insert("type".into(), type_names(TypeSet::ANY));
                        if self.d.closure == Closure::ExplicitOpen {
                            any.insert("additionalProperties".into(), Value::Bool(true));
                        }
                        split_object_keywords(&mut any);
                        Value::Object(any)
                    });
                }
                Types::OutsideUnions => {}
            }
        }
        if rules.unique_items {
            self.plain(node, "uniqueItems", || Value::Bool(true), out)?;
        }
        Ok(())
    }

    fn string(
        &mut self,
        node: &Node,
        admitted: TypeSet,
        out: &mut Map<String, Value>,
    ) -> Result<(), Degrade> {
        let Some(rules) = &node.string else {
            return Ok(());
        };
        let mut pattern_sent = false;
        if let Some(p) = &rules.pattern {
            match self.support("pattern") {
                Support::Partial(Partial::Patterns(rule)) => match pattern_for(p, rule) {
                    Ok(text) => {
                        self.put(out, "pattern", || Value::from(text));
                        pattern_sent = true;
                    }
                    Err(why) => self.loss(node, "pattern", why),
                },
                _ => {
                    pattern_sent =
                        self.plain(node, "pattern", || Value::from(p.sendable()), out)?;
                }
            }
            if pattern_sent && p.features().look_ahead {
                self.loss(node, "pattern", LOOK_AHEADS_NOT_SENT);
            }
        }
        let only_strings = admitted.intersect(TypeSet::of(JsonType::String)) == admitted;
        for (keyword, n) in [
            ("minLength", rules.min_length),
            ("maxLength", rules.max_length),
        ] {
            let Some(n) = n else {
                continue;
            };
            match self.support(keyword) {
                Support::Partial(Partial::PlainStrings(_)) if pattern_sent => {
                    // Ignored beside the pattern by the converter; sent, it makes grammar
                    // engines that intersect it with the pattern exhaust their lexer.
                    self.loss(node, keyword, "not sent beside a `pattern`: llama.cpp's converter reads the pattern instead, and a grammar engine that intersects the two can exhaust its lexer and block valid text");
                }
                Support::Partial(Partial::PlainStrings(why)) => {
                    self.put(out, keyword, || Value::from(n));
                    if !only_strings {
                        self.loss(node, keyword, why);
                    }
                }
                _ => {
                    self.plain(node, keyword, || Value::from(n), out)?;
                }
            }
        }
        Ok(())
    }

    fn number(
        &mut self,
        node: &Node,
        admitted: TypeSet,
        out: &mut Map<String, Value>,
    ) -> Result<(), Degrade> {
        let Some(rules) = &node.number else {
            return Ok(());
        };
        let only_integers = admitted.intersect(TypeSet::of(JsonType::Integer)) == admitted;
        for (bound, keyword, inclusive) in [
            (
                &rules.lower,
                rules.lower.as_ref().map(|b| b.lower_keyword()),
                "minimum",
            ),
            (
                &rules.upper,
                rules.upper.as_ref().map(|b| b.upper_keyword()),
                "maximum",
            ),
        ] {
            let (Some(b), Some(keyword)) = (bound, keyword) else {
                continue;
            };
            match self.support(keyword) {
                Support::Rewritten(Rewrite::ExclusiveAsInclusive) => {
                    self.put(out, inclusive, || Value::Number(b.value.clone()));
                    self.loss(
                        node,
                        keyword,
                        "sent as the inclusive bound (the bound itself is not excluded natively)",
                    );
                }
                Support::Partial(Partial::IntegersOnly(why)) => {
                    self.put(out, keyword, || Value::Number(b.value.clone()));
                    if !only_integers {
                        self.loss(node, keyword, why);
                    }
                }
                Support::Partial(Partial::IntegerNodesOnly(why)) => {
                    // Sent only where the converter reads it as an integer range: no fraction
                    // is admitted and the bound is an integer it holds without rounding.
                    let integral = b
                        .value
                        .as_i64()
                        .is_some_and(|v| v.unsigned_abs() <= MAX_EXACT_INTEGER);
                    if integral && !admitted.contains(JsonType::Number) {
                        self.put(out, keyword, || Value::Number(b.value.clone()));
                    } else {
                        self.loss(node, keyword, why);
                    }
                }
                _ => {
                    self.plain(node, keyword, || Value::Number(b.value.clone()), out)?;
                }
            }
        }
        if let Some(m) = rules.multiple_of {
            self.plain(node, "multipleOf", || Value::from(m), out)?;
        }
        Ok(())
    }

    fn combinators(
        &mut self,
        node: &Node,
        depth: usize,
        out: &mut Map<String, Value>,
    ) -> Result<(), Degrade> {
        let mut any_of_sent = false;
        if !node.any_of.is_empty() {
            let list = self.branches(node, &node.any_of, depth)?;
            any_of_sent = self.plain(node, "anyOf", || Value::Array(list), out)?;
        }
        if !node.one_of.is_empty() {
            match self.support("oneOf") {
                Support::Rewritten(Rewrite::OneOfAsAnyOf) => {
                    if any_of_sent {
                        return Err(Self::degrade(
                            node,
                            "oneOf",
                            "cannot be sent as `anyOf` beside an `anyOf` without `allOf`",
                        ));
                    }
                    let list = self.branches(node, &node.one_of, depth)?;
                    self.put(out, "anyOf", || Value::Array(list));
                    self.loss(node, "oneOf", "sent as `anyOf`: matching more than one alternative is not prevented natively");
                }
                Support::Kept | Support::Hint(_) => {
                    // Exclusivity survives only if every branch is sent exactly: a branch that
                    // lost a constraint may now overlap another, and `oneOf` would then reject
                    // a value the source accepts. Otherwise it goes as `anyOf`.
                    let before = self.losses.len();
                    let list = self.branches(node, &node.one_of, depth)?;
                    if self.losses.len() == before || any_of_sent {
                        if self.losses.len() != before {
                            return Err(Self::degrade(node, "oneOf", "branches lost constraints, and `oneOf` cannot be sent as `anyOf` beside an `anyOf`"));
                        }
                        self.plain(node, "oneOf", || Value::Array(list), out)?;
                    } else {
                        self.put(out, "anyOf", || Value::Array(list));
                        self.loss(node, "oneOf", "sent as `anyOf`: its branches lost constraints, so exclusivity cannot be sent without narrowing");
                    }
                }
                _ => {
                    let list = self.branches(node, &node.one_of, depth)?;
                    self.plain(node, "oneOf", || Value::Array(list), out)?;
                }
            }
        }
        if !node.all_of.is_empty() {
            match self.support("allOf") {
                Support::Rewritten(Rewrite::MergedIntoParent) => {
                    // What normalisation could not merge is dropped only when dropping widens:
                    // a member that declares properties would be rejected by closed objects.
                    if node
                        .all_of
                        .iter()
                        .any(|m| declares_properties(self.schema, *m, 0))
                    {
                        return Err(Self::degrade(node, "allOf", "members that declare properties could not be merged into their parent, and dropping them would narrow"));
                    }
                    self.loss(
                        node,
                        "allOf",
                        "members that could not be merged are not sent",
                    );
                }
                _ => {
                    let list = self.list(&node.all_of, depth)?;
                    self.plain(node, "allOf", || Value::Array(list), out)?;
                }
            }
        }
        if let Some(not) = node.not {
            match self.support("not") {
                Support::Kept | Support::Hint(_) => {
                    // A negation is sent only when its schema is sent exactly: a weaker schema
                    // under `not` rejects more, which narrows. Failing that, it is dropped.
                    let before = self.losses.len();
                    let blocked_before = self.blocked.len();
                    match self.node(not, depth + 1) {
                        Err(stop) if self.stopped => return Err(stop),
                        Ok(sub)
                            if self.losses.len() == before
                                && self.blocked.len() == blocked_before =>
                        {
                            self.plain(node, "not", || Value::Object(sub), out)?;
                        }
                        _ => {
                            self.losses.truncate(before);
                            self.blocked.truncate(blocked_before);
                            self.loss(node, "not", "not sent: its schema cannot be sent exactly, and a weaker schema under `not` would reject more");
                        }
                    }
                }
                Support::Dropped(why) => self.loss(node, "not", why),
                _ => {
                    let sub = self.child(not, depth + 1)?;
                    self.plain(node, "not", || Value::Object(sub), out)?;
                }
            }
        }
        Ok(())
    }

    /// True when the node's `anyOf`/`oneOf` is sent as a union: a union without object
    /// keywords of its own leaves objects to its branches, which are emitted (and closed) in
    /// turn, so the node itself is not an open object.
    fn union_sent(&self, node: &Node) -> bool {
        (!node.any_of.is_empty() && self.support("anyOf") == Support::Kept)
            || (!node.one_of.is_empty()
                && matches!(
                    self.support("oneOf"),
                    Support::Kept | Support::Rewritten(Rewrite::OneOfAsAnyOf)
                ))
    }

    /// True when `node` is a bare union: its union is sent, and it has no `type` and no object
    /// keywords of its own.
    fn bare_union(&self, node: &Node) -> bool {
        node.types.is_none() && node.object.is_none() && self.union_sent(node)
    }

    /// True when `node` is a bare union sent without a `type` ([`Types::Explicit`] writes one
    /// on every node): then its branches, emitted and opened in turn, say everything, and an
    /// `additionalProperties: true` beside the union would only be a sibling that grammar
    /// engines intersect with every branch (llguidance cannot around a recursive reference).
    fn untyped_bare_union(&self, node: &Node) -> bool {
        self.d.types != Types::Explicit && self.bare_union(node)
    }

    fn list(&mut self, ids: &[NodeId], depth: usize) -> Result<Vec<Value>, Degrade> {
        ids.iter()
            .map(|id| self.child(*id, depth + 1).map(Value::Object))
            .collect()
    }

    /// The branches of a union, leaving out those that admit no value: they never match, so
    /// leaving them out changes nothing (for `oneOf` neither: they never count as a match).
    fn branches(
        &mut self,
        node: &Node,
        ids: &[NodeId],
        depth: usize,
    ) -> Result<Vec<Value>, Degrade> {
        let live: Vec<NodeId> = ids
            .iter()
            .copied()
            .filter(|id| !self.schema.admitted(*id).is_empty())
            .collect();
        if live.is_empty() {
            return Err(Self::degrade(
                node,
                "anyOf",
                "no alternative admits a value",
            ));
        }
        self.list(&live, depth)
    }
}

/// Writes the optional properties of `rules` for a message, "`b` is", "`b`, `c` are", the
/// first eight and how many more, into `out`, in one string: a blocker names them for each
/// node that has them. False, writing nothing, when every property is required.
fn write_optional_names(rules: &ObjectRules, out: &mut String) -> bool {
    const SHOWN: usize = 8;
    if every_property_required(rules) {
        return false;
    }
    // As `every_property_required` reads `required`: scanned on small objects, merged
    // where it lists properties in their order, hashed otherwise.
    let (scan, in_order) = match fits_scan(rules) {
        true => (true, false),
        false => (false, required_in_order(rules)),
    };
    let required: std::collections::HashSet<&str> = if scan || in_order {
        std::collections::HashSet::new()
    } else {
        rules.required.iter().map(|r| &**r).collect()
    };
    let mut next = rules.required.iter().peekable();
    let mut optional = 0usize;
    for (name, _) in rules.properties.iter() {
        let listed = if scan {
            rules.is_required(name)
        } else if in_order {
            next.next_if(|r| ***r == *name).is_some()
        } else {
            required.contains(name)
        };
        if listed {
            continue;
        }
        if optional < SHOWN {
            if optional > 0 {
                out.push_str(", ");
            }
            out.push('`');
            out.push_str(name);
            out.push('`');
        }
        optional += 1;
    }
    if optional > SHOWN {
        use std::fmt::Write;
        let _ = write!(out, ", {} more", optional - SHOWN);
    }
    out.push_str(if optional == 1 { " is" } else { " are" });
    true
}

/// True when `required` lists every declared property. Scans on the small objects of most
/// schemas; on wide ones, where a scan per property would be quadratic, merges the two lists
/// when `required` follows the declaration order and hashes the names otherwise.
fn every_property_required(rules: &ObjectRules) -> bool {
    let (properties, required) = (&rules.properties, &rules.required);
    if required.len() < properties.len() {
        return false;
    }
    if fits_scan(rules) {
        return properties.iter().all(|(name, _)| rules.is_required(name));
    }
    if required_in_order(rules) {
        // Each name met one property: all are met when there are as many names.
        return required.len() == properties.len();
    }
    let required: std::collections::HashSet<&str> = required.iter().map(|r| &**r).collect();
    properties.iter().all(|(name, _)| required.contains(name))
}

/// True when `required` lists declared properties in their declaration order, each once, as
/// generated schemas mostly do: one merge of the two lists then tells each property's place,
/// without hashing every name (property names are distinct, so each name meets one property).
fn required_in_order(rules: &ObjectRules) -> bool {
    let mut next = rules.required.iter().peekable();
    for (name, _) in rules.properties.iter() {
        if next.peek().is_none() {
            return true;
        }
        next.next_if(|r| ***r == *name);
    }
    next.peek().is_none()
}

/// True when an object is small enough that a scan of `required` per property is cheaper
/// than hashing the names.
fn fits_scan(rules: &ObjectRules) -> bool {
    const SCAN: usize = 16;
    rules.properties.len() <= SCAN && rules.required.len() <= 4 * SCAN
}

/// Keywords that only speak about objects.
const OBJECT_KEYWORDS: [&str; 3] = ["properties", "required", "additionalProperties"];

/// Keywords that only speak about arrays, strings or numbers.
const OTHER_TYPE_KEYWORDS: [&str; 15] = [
    "prefixItems",
    "items",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "format",
    "contains",
];

/// A node of several types that admits arrays and carries object keywords is written as a
/// union of an object branch (the object keywords) and a branch of the other types (their
/// keywords), which means the same. Grammar engines read object keywords on a node of a `type`
/// list as applying to every type: xgrammar then closes the arrays (only `[]` remains) when
/// `additionalProperties` is written beside `"array"` (issue 18). Nodes with a union, a
/// negation, a reference or literals of their own are left as they are (their reading does
/// not depend on the type list).
fn split_object_keywords(out: &mut Map<String, Value>) {
    let Some(Value::Array(types)) = out.get("type") else {
        return;
    };
    let has = |name: &str| types.iter().any(|t| t == name);
    let mixed = has("object") && has("array");
    let object_keywords = OBJECT_KEYWORDS.iter().any(|k| out.contains_key(*k));
    let own_reading = ["anyOf", "oneOf", "allOf", "not", "$ref", "enum", "const"]
        .iter()
        .any(|k| out.contains_key(*k));
    if !mixed || !object_keywords || own_reading {
        return;
    }
    let mut others: Vec<Value> = types.iter().filter(|t| *t != "object").cloned().collect();
    let mut object = Map::new();
    object.insert("type".into(), Value::from("object"));
    let mut rest = Map::new();
    rest.insert(
        "type".into(),
        match others.len() {
            1 => others.remove(0),
            _ => Value::Array(others),
        },
    );
    for k in OBJECT_KEYWORDS {
        if let Some(v) = out.shift_remove(k) {
            object.insert(k.into(), v);
        }
    }
    for k in OTHER_TYPE_KEYWORDS {
        if let Some(v) = out.shift_remove(k) {
            rest.insert(k.into(), v);
        }
    }
    out.shift_remove("type");
    out.insert(
        "anyOf".into(),
        Value::Array(vec![Value::Object(object), Value::Object(rest)]),
    );
}

/// A description carrying `format` as a hint (`Rewrite::IntoDescription`).
pub(crate) fn with_format_hint(description: Option<&str>, format: &str) -> String {
    match description {
        Some(d) if !d.is_empty() => format!("{d} (format: {format})"),
        _ => format!("format: {format}"),
    }
}

/// True when a node or anything its combinators reach declares object properties. Each node
/// is looked at once: combinator members may be shared, and a DAG walked as a tree is 2^n.
pub(crate) fn declares_properties(schema: &Schema, id: NodeId, depth: usize) -> bool {
    let mut seen = crate::seen::Distinct::new();
    let mut stack = vec![(id, depth)];
    while let Some((id, depth)) = stack.pop() {
        if !seen.insert(id) {
            continue;
        }
        let node = schema.node(id);
        if node
            .object
            .as_ref()
            .is_some_and(|o| !o.properties.is_empty())
        {
            return true;
        }
        if depth < 256 {
            let members = node.all_of.iter().chain(&node.any_of).chain(&node.one_of);
            stack.extend(members.map(|m| (*m, depth + 1)));
        }
    }
    false
}

/// Largest counted repetition sent to a grammar converter: llama.cpp writes `{n,m}` out as `m`
/// copies, and large bounds blow the grammar up (providers.md I-L1).
const GRAMMAR_MAX_REPETITION: u32 = 1_000;

/// Why the keywords beside a recursive reference are not sent.
const RECURSIVE_REFERENCE_SIBLINGS_NOT_SENT: &str = "the keywords beside this recursive reference are not sent, only the reference (providers refuse or ignore `$ref` siblings); answers are checked against both when validated";

/// Why a pattern's leading look-aheads are not sent beside the rest of it.
pub(crate) const LOOK_AHEADS_NOT_SENT: &str = "its look-aheads right after `^` (`(?=…)`, `(?!…)`) are not sent, only the rest of the pattern: no provider documents look-around in its pattern engine (OpenAI refuses it: \"regex lookaround is not supported\"); answers are checked against the whole pattern when validated";

/// Why a pattern of nothing but leading look-aheads is not sent at all.
pub(crate) const LOOK_AHEADS_ONLY_NOT_SENT: &str = "not sent: it is nothing but look-aheads after `^`, and no provider documents look-around in its pattern engine (OpenAI refuses it: \"regex lookaround is not supported\"); answers are checked against it when validated";

/// The pattern text to send under a rule, or why it is not sent. A pattern's leading
/// look-aheads are never sent ([`Pattern::sendable`](crate::pattern::Pattern::sendable) and
/// every rendering leave them out); the caller records that loss when the rest is sent.
fn pattern_for(p: &crate::pattern::Pattern, rule: PatternRule) -> Result<String, &'static str> {
    if p.look_aheads_only() {
        return Err(LOOK_AHEADS_ONLY_NOT_SENT);
    }
    let f = p.features();
    // What the verbatim rules judge is the text sent: the source, or its canonical rendering
    // where the source leans on an Annex B leniency other engines reject (rendered only by
    // the rules that send text as written; `full_match_safe` renders its own).
    let text = || p.sendable();
    match rule {
        PatternRule::AnchoredSimple => {
            let text = text();
            match super::simple_regex::scan(&text)? {
                shape if shape.means_whole_match() => Ok(text.into_owned()),
                _ => Err("not sent: not anchored `^…$` as a whole, and whether the provider searches or matches the whole string is undocumented"),
            }
        }
        PatternRule::Ecma => Ok(text().into_owned()),
        PatternRule::Anchored => {
            if !(f.anchored_start && f.anchored_end) || f.anchors_inside {
                return Err("not sent: the provider's grammar converter requires `^…$` anchored patterns (JSON Schema patterns search anywhere)");
            }
            if f.word_boundary || f.unicode_property {
                return Err("not sent: word boundaries and Unicode properties cannot be written as a grammar");
            }
            if f.max_repetition.is_some_and(|m| m > GRAMMAR_MAX_REPETITION) {
                return Err(
                    "not sent: a repetition bound this large blows up the provider's grammar",
                );
            }
            // Shorthand classes, `.` and named or lazy groups are spelled out with the same
            // meaning, in the escapes the converter's GBNF reads; anchors on every alternative
            // become one anchored group (the converter strips only the outer pair).
            p.grammar().ok_or("not sent: the pattern's anchors cannot be written as one `^…$` around it, which the provider's grammar converter requires")
        }
        PatternRule::ClaudeSimple => {
            let text = text();
            super::simple_regex::scan(&text).map(|_| text.into_owned())
        }
        PatternRule::FullMatchSafe => Ok(full_match_safe(p)),
        PatternRule::RawCharacters => {
            let text = text();
            if !super::simple_regex::scan(&text)?.means_whole_match() {
                return Err("not sent: xgrammar matches a pattern against the whole string, so only a pattern anchored `^…$` as a whole means the same");
            }
            super::simple_regex::raw_characters_only(&text)?;
            Ok(text.into_owned())
        }
    }
}

/// Largest bound magnitude sent as an integer range: every integer up to 2^53 is exact in the
/// doubles JSON parsers read numbers into, so the converter sees the bound as written.
const MAX_EXACT_INTEGER: u64 = 1 << 53;

/// Adds `items: {}` (any value) to a node sent with an array type and no `items`, for decoders
/// that read a missing `items` as closed ([`JsonDialect::explicit_items`]). Also beside literals
/// or a union, whichever the decoder reads first: `{}` admits every item, so it never narrows.
fn items_said(out: &mut Map<String, Value>) {
    let array = match out.get("type") {
        Some(Value::String(t)) => t == "array",
        Some(Value::Array(types)) => types.iter().any(|t| t == "array"),
        _ => false,
    };
    if array && !out.contains_key("items") {
        out.insert("items".into(), Value::Object(Map::new()));
    }
}

/// The pattern in a form that a whole-string matcher and a searcher read alike, in the
/// portable spelling ([`crate::pattern::Pattern::portable`]), for a provider whose regex
/// engine is undocumented. JSON Schema searches (`"a"` accepts `"xay"`); grammar compilers
/// often match the whole string, which would reject `"xay"` and narrow. A pattern whose every
/// alternative is anchored at both ends (read off its AST) already reads alike; any other is
/// wrapped so that both readings are "contains a match". The portable spelling writes out
/// what engines read differently or not at all (`\s`, which RE2 reads without `\v` or the
/// Unicode spaces, so it would narrow; `\d`, `\w` and `.`; named groups, which Python's `re`
/// refuses; `\u` escapes, which RE2 and PCRE refuse) as explicit classes and plain syntax of
/// the same meaning. Leading look-aheads are left out ([`crate::pattern::Pattern::sendable`]).
pub(crate) fn full_match_safe(p: &crate::pattern::Pattern) -> String {
    let text = p.portable();
    if fully_anchored(p) {
        text
    } else {
        format!("^[\\s\\S]*(?:{text})[\\s\\S]*$")
    }
}

/// True when every match of the pattern spans the whole string.
pub(crate) fn fully_anchored(p: &crate::pattern::Pattern) -> bool {
    let f = p.features();
    f.anchored_start && f.anchored_end && !f.anchors_inside
}

#[cfg(test)]
mod tests;
