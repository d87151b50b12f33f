//! The `full` subset's front end: JSON Schema as specified, drafts 4 to 2020-12.
//!
//! Unlike the fail-closed front end beside it, this one refuses only what cannot be checked
//! faithfully: a malformed keyword value, a `pattern` the linear-time engine cannot run, a
//! reference that resolves nowhere, a limit. Unknown keywords are annotations, as the
//! specification says; each is kept as a warning (with the keyword it is a near miss of), or an
//! error when the caller denies them.
//!
//! The draft comes from `$schema` (of the document, or of an embedded resource), else from
//! [`ParseOptions::default_draft`], else 2020-12, and decides what each keyword means: `id`
//! or `$id`, boolean or numeric `exclusiveMaximum`, tuple `items`, `dependencies`, and whether
//! `$ref` overrides its siblings (drafts 4 to 7).
//!
//! References are resolved as URIs (RFC 3986) against the base each `$id` sets. Targets are
//! found among the schemas parsed, among the locations of the documents a JSON Pointer
//! fragment reaches (parsed when first referenced, which also covers pointers into unknown
//! keywords), and among the documents the caller provides; nothing is ever fetched.

use super::front::{Bounds, Front};
use super::uri::{resolve, split_fragment};
use super::{
    annotations, array_rules, decode_fragment, number_rules, object_rules, string_rules,
    ParseOptions,
};
use crate::error::{SubsetError, Violation, ViolationKind};
use crate::ir::{Additional, Draft, FullIr, FullRules, Node, NodeId, Properties, Resource};
use crate::json::Json;
use crate::keywords::Shape;
use crate::pattern::Pattern;
use crate::pointer::Pointer;
use crate::schema::Schema;
use crate::value::{as_exact_u64, JsonType, TypeSet};
use serde_json::{Map, Value};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use vocabulary::Vocabularies;

mod metaschemas;
mod unknown;
mod vocabulary;

/// Parses `value` as a `full` subset schema.
pub(super) fn parse(value: &Value, options: &ParseOptions) -> Result<Schema, SubsetError> {
    let mut p = Full {
        options,
        front: Front::new(options.limits),
        nodes: Vec::new(),
        rules: Vec::new(),
        resource_of: Vec::new(),
        resources: Vec::new(),
        meta: Vec::new(),
        docs: Vec::new(),
        loaded: HashSet::new(),
        by_uri: HashMap::new(),
        locations: HashMap::new(),
        bases: HashMap::new(),
        pending: Vec::new(),
        warnings: Vec::new(),
        unevaluated: false,
    };
    let default = options.default_draft.unwrap_or_default();
    let (draft, vocab) = p.dialect(value, &Pointer::root(), default, None);
    p.docs.push(value);
    let root = p.document(0, "", draft, vocab);
    p.resolve_all();
    match root {
        Some(root) if p.front.violations.is_empty() => {
            let full = FullIr {
                rules: p.rules.into_iter().map(|r| r.map(Arc::new)).collect(),
                resource_of: p.resource_of,
                resources: p.resources,
                warnings: p.warnings,
                unevaluated: p.unevaluated,
                root_draft: draft,
            };
            Ok(Schema::from_full(p.nodes, root, full))
        }
        _ => Err(SubsetError {
            violations: p.front.violations,
        }),
    }
}

/// The draft a schema object's `$schema` names.
fn declared_draft(v: &Value) -> Option<Draft> {
    v.get("$schema")
        .and_then(Value::as_str)
        .and_then(Draft::from_meta_schema)
}

/// How a reference is to be resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RefKind {
    Ref,
    Dynamic,
    Recursive,
}

/// A reference waiting for the walk to finish: the node, the keyword, the absolute URI.
struct PendingRef {
    node: NodeId,
    kind: RefKind,
    uri: String,
    draft: Draft,
    /// See [`Node::plain_reference`].
    plain: bool,
}

/// Siblings of a drafts 4 to 7 `$ref` that a reader of the declared fragment takes into
/// account (they declare names or apply subschemas at the location), although the draft
/// ignores them: a reference beside one of them is not [`Node::plain_reference`].
const DECLARING_SIBLINGS: [&str; 8] = [
    "properties",
    "additionalProperties",
    "allOf",
    "anyOf",
    "oneOf",
    "items",
    "prefixItems",
    "additionalItems",
];

/// Where a resource sits: its document, the pointer to its root there, its draft.
struct Meta {
    doc: usize,
    at: Pointer,
    draft: Draft,
    vocab: Option<Vocabularies>,
}

/// The walk's position: the draft, the document, the resource, and the base URI of every
/// enclosing resource, innermost last.
#[derive(Clone)]
struct Ctx {
    draft: Draft,
    /// The vocabularies a provided meta-schema turns on; `None`: every keyword of the draft.
    vocab: Option<Vocabularies>,
    doc: usize,
    resource: u32,
    scopes: Vec<Arc<str>>,
}

impl Ctx {
    fn base(&self) -> &str {
        self.scopes.last().map_or("", |b| b)
    }
}

struct Full<'a> {
    options: &'a ParseOptions,
    front: Front,
    nodes: Vec<Node>,
    rules: Vec<Option<FullRules>>,
    resource_of: Vec<u32>,
    resources: Vec<Resource>,
    meta: Vec<Meta>,
    docs: Vec<&'a Value>,
    /// Provided documents parsed so far, by URI.
    loaded: HashSet<String>,
    /// `base#anchor` → node.
    by_uri: HashMap<String, NodeId>,
    /// (document, location in it) → node. JSON Pointer fragments are looked up here from each
    /// resource of their base: keying on the location rather than on `base#/pointer` text keeps
    /// the table linear in the document (a long property name above many nodes is not copied
    /// into each key: docs/security.md, finding 6).
    locations: HashMap<(usize, Pointer), NodeId>,
    /// Base URI → the resources that have it, in order.
    bases: HashMap<Arc<str>, Vec<u32>>,
    pending: Vec<PendingRef>,
    warnings: Vec<Violation>,
    unevaluated: bool,
}

/// Keyword values that fold into the node once the object is read.
#[derive(Default)]
struct Pending<'v> {
    tuple: bool,
    additional_items: Option<&'v Value>,
    bounds: Bounds,
}

impl<'a> Full<'a> {
    /// Parses document `doc` (retrieved as `uri`) as a new resource.
    fn document(
        &mut self,
        doc: usize,
        uri: &str,
        draft: Draft,
        vocab: Option<Vocabularies>,
    ) -> Option<NodeId> {
        let value = *self.docs.get(doc)?;
        let resource = self.new_resource(uri, doc, Pointer::root(), (draft, vocab));
        let ctx = Ctx {
            draft,
            vocab,
            doc,
            resource,
            scopes: vec![Arc::from(uri)],
        };
        self.schema(value, Pointer::root(), "", 0, &ctx)
    }

    fn new_resource(
        &mut self,
        base: &str,
        doc: usize,
        at: Pointer,
        (draft, vocab): (Draft, Option<Vocabularies>),
    ) -> u32 {
        self.resources.push(Resource {
            base: base.into(),
            draft,
            ..Resource::default()
        });
        self.meta.push(Meta {
            doc,
            at,
            draft,
            vocab,
        });
        let id = (self.resources.len() - 1) as u32;
        self.bases.entry(Arc::from(base)).or_default().push(id);
        id
    }

    /// The draft and vocabularies of a resource root `v`: those of the meta-schema its
    /// `$schema` names (a standard one, or one the caller provided), else those it inherits.
    fn dialect(
        &mut self,
        v: &Value,
        at: &Pointer,
        draft: Draft,
        vocab: Option<Vocabularies>,
    ) -> (Draft, Option<Vocabularies>) {
        let Some(uri) = v.get("$schema").and_then(Value::as_str) else {
            return (draft, vocab);
        };
        if let Some(d) = Draft::from_meta_schema(uri) {
            return (d, None);
        }
        let options = self.options;
        let Some(meta) = options.resources.get(uri.trim_end_matches('#')) else {
            return (draft, vocab);
        };
        let draft = declared_draft(meta).unwrap_or(draft);
        match vocabulary::declared(meta, draft) {
            None => (draft, None),
            Some(Ok(v)) => (draft, Some(v)),
            Some(Err(unknown)) => {
                self.front.violate(
                    at,
                    "$schema",
                    ViolationKind::Shape {
                        expected: "a meta-schema whose required vocabularies are known",
                        detail: Some(format!(
                            "`{uri}` requires the vocabulary `{unknown}`, which this implementation does not know"
                        )),
                    },
                );
                (draft, None)
            }
        }
    }

    fn out_of_nodes(&mut self, at: &Pointer, keyword: &str) -> bool {
        self.front.out_of_nodes(self.nodes.len(), at, keyword)
    }

    /// Registers node `id` at its location `at` in the document: every resource that encloses
    /// it reaches it by a JSON Pointer fragment ([`Full::lookup`]).
    fn register(&mut self, id: NodeId, at: &Pointer, ctx: &Ctx) {
        self.locations.entry((ctx.doc, at.clone())).or_insert(id);
    }

    /// Parses the subschema `v` at `at`, written under `keyword`.
    fn schema(
        &mut self,
        v: &Value,
        at: Pointer,
        keyword: &str,
        depth: usize,
        ctx: &Ctx,
    ) -> Option<NodeId> {
        if self.front.too_deep(&at, keyword, depth) {
            return None;
        }
        let obj = match v {
            Value::Object(o) => o,
            Value::Bool(b) => {
                if self.out_of_nodes(&at, keyword) {
                    return None;
                }
                let id = self.push(&at, ctx);
                self.register(id, &at, ctx);
                if !*b {
                    if let Some(r) = self.rules.get_mut(id.index()) {
                        *r = Some(FullRules {
                            never: true,
                            draft: ctx.draft,
                            ..FullRules::default()
                        });
                    }
                }
                return Some(id);
            }
            other => {
                self.front
                    .violate(&at, keyword, ViolationKind::NotASchema(other.kind()));
                return None;
            }
        };
        if self.out_of_nodes(&at, keyword) {
            return None;
        }
        let legacy_ref =
            ctx.draft <= Draft::Draft7 && obj.get("$ref").is_some_and(Value::is_string);
        let mut inner = None;
        let mut anchors: Vec<String> = Vec::new();
        let id_keyword = if ctx.draft == Draft::Draft4 {
            "id"
        } else {
            "$id"
        };
        if let (false, Some(id_text)) = (legacy_ref, obj.get(id_keyword).and_then(Value::as_str)) {
            let resolved = resolve(ctx.base(), id_text);
            let (base, frag) = split_fragment(&resolved);
            if ctx.draft <= Draft::Draft7 && !frag.is_empty() {
                anchors.push(frag.to_owned());
            }
            if !id_text.starts_with('#') {
                let (draft, vocab) = self.dialect(v, &at, ctx.draft, ctx.vocab);
                let resource = self.new_resource(base, ctx.doc, at.clone(), (draft, vocab));
                let mut scopes = ctx.scopes.clone();
                scopes.push(Arc::from(base));
                inner = Some(Ctx {
                    draft,
                    vocab,
                    doc: ctx.doc,
                    resource,
                    scopes,
                });
            }
        }
        let ctx = inner.as_ref().unwrap_or(ctx);
        let id = self.push(&at, ctx);
        self.register(id, &at, ctx);
        let base = ctx.base().to_owned();
        for a in anchors {
            self.by_uri.entry(format!("{base}#{a}")).or_insert(id);
        }
        let (node, rules) = self.object(id, obj, &at, depth, ctx, legacy_ref);
        if let Some(slot) = self.nodes.get_mut(id.index()) {
            *slot = node;
        }
        if let Some(slot) = self.rules.get_mut(id.index()) {
            *slot = rules;
        }
        Some(id)
    }

    fn push(&mut self, at: &Pointer, ctx: &Ctx) -> NodeId {
        let id = NodeId(self.nodes.len() as u32);
        self.nodes.push(Node {
            pointer: at.clone(),
            ..Node::default()
        });
        self.rules.push(None);
        self.resource_of.push(ctx.resource);
        id
    }

    fn child(
        &mut self,
        v: &Value,
        at: &Pointer,
        name: &str,
        depth: usize,
        ctx: &Ctx,
    ) -> Option<NodeId> {
        self.schema(v, at.join(name), name, depth + 1, ctx)
    }

    fn list(
        &mut self,
        v: &Value,
        at: &Pointer,
        name: &str,
        depth: usize,
        ctx: &Ctx,
    ) -> Option<Vec<NodeId>> {
        let Some(list) = v.as_array().filter(|l| !l.is_empty()) else {
            self.front.shape(at, name, Shape::SchemaList, None);
            return None;
        };
        let base = at.join(name);
        Some(
            list.iter()
                .enumerate()
                .filter_map(|(i, s)| self.schema(s, base.index(i), name, depth + 1, ctx))
                .collect(),
        )
    }

    fn map(
        &mut self,
        v: &Value,
        at: &Pointer,
        name: &str,
        depth: usize,
        ctx: &Ctx,
    ) -> Option<Vec<(Box<str>, NodeId)>> {
        let Some(map) = v.as_object() else {
            self.front.shape(at, name, Shape::SchemaMap, None);
            return None;
        };
        let base = at.join(name);
        let mut out = Vec::with_capacity(map.len());
        for (k, s) in map {
            if let Some(id) = self.schema(s, base.join(k), name, depth + 1, ctx) {
                out.push((Box::<str>::from(k.as_str()), id));
            }
        }
        Some(out)
    }

    fn reference(
        &mut self,
        id: NodeId,
        kind: RefKind,
        value: &Value,
        at: &Pointer,
        ctx: &Ctx,
        beside_declarations: bool,
    ) {
        let name = match kind {
            RefKind::Ref => "$ref",
            RefKind::Dynamic => "$dynamicRef",
            RefKind::Recursive => "$recursiveRef",
        };
        let Some(text) = value.as_str() else {
            return self.front.shape(at, name, Shape::String, None);
        };
        // In the root document's root resource: `#…` then means what it means at the root.
        let at_root_resource = ctx.doc == 0 && self.resource_of.first() == Some(&ctx.resource);
        self.pending.push(PendingRef {
            node: id,
            kind,
            uri: resolve(ctx.base(), text),
            draft: ctx.draft,
            plain: kind == RefKind::Ref
                && at_root_resource
                && !beside_declarations
                && super::is_plain_pointer(text),
        });
    }

    #[allow(clippy::too_many_lines)]
    fn object(
        &mut self,
        id: NodeId,
        obj: &Map<String, Value>,
        at: &Pointer,
        depth: usize,
        ctx: &Ctx,
        legacy_ref: bool,
    ) -> (Node, Option<FullRules>) {
        let draft = ctx.draft;
        let mut node = Node {
            pointer: at.clone(),
            ..Node::default()
        };
        let mut rules = FullRules {
            draft,
            ..FullRules::default()
        };
        let mut pending = Pending::default();
        let beside_declarations =
            legacy_ref && DECLARING_SIBLINGS.iter().any(|k| obj.contains_key(*k));
        for (name, value) in obj {
            let name = name.as_str();
            if !unknown::known(draft, name) {
                if !legacy_ref {
                    self.unknown(at, name, draft);
                }
                continue;
            }
            if ctx.vocab.is_some_and(|v| !v.admits(name)) {
                continue; // a keyword of a vocabulary the meta-schema leaves out: an annotation
            }
            match name {
                "$ref" => {
                    self.reference(id, RefKind::Ref, value, at, ctx, beside_declarations);
                }
                "$dynamicRef" => self.reference(id, RefKind::Dynamic, value, at, ctx, false),
                "$recursiveRef" => self.reference(id, RefKind::Recursive, value, at, ctx, false),
                "$anchor" | "$dynamicAnchor" => {
                    let Some(a) = value.as_str() else {
                        self.front.shape(at, name, Shape::String, None);
                        continue;
                    };
                    let key = format!("{}#{a}", ctx.base());
                    self.by_uri.entry(key).or_insert(id);
                    if name == "$dynamicAnchor" {
                        rules.dynamic_anchor = Some(a.into());
                        if let Some(r) = self.resources.get_mut(ctx.resource as usize) {
                            r.dynamic_anchors.push((a.into(), id));
                        }
                    }
                }
                "$recursiveAnchor" => {
                    let root = self
                        .meta
                        .get(ctx.resource as usize)
                        .is_some_and(|m| m.at == *at);
                    if value == &Value::Bool(true) && root {
                        if let Some(r) = self.resources.get_mut(ctx.resource as usize) {
                            r.recursive_anchor = Some(id);
                        }
                    }
                }
                "$schema" | "$id" | "id" => {
                    if let Some(s) = value.as_str() {
                        let a = annotations(&mut node);
                        if name == "$schema" {
                            a.schema = Some(s.into());
                        } else {
                            a.id = Some(s.into());
                        }
                    }
                }
                "title" | "description" => {
                    if let Some(s) = value.as_str() {
                        let a = annotations(&mut node);
                        if name == "title" {
                            a.title = Some(s.into());
                        } else {
                            a.description = Some(s.into());
                        }
                    }
                }
                "format" => {
                    if let Some(s) = value.as_str() {
                        annotations(&mut node).format = Some(s.into());
                        if self.options.assert_format
                            || ctx.vocab.is_some_and(|v| v.asserts_format())
                        {
                            rules.format_assertion = Some(s.into());
                        }
                    }
                }
                "default" => {
                    if self.front.literal_ok(value, at, name) {
                        annotations(&mut node).default = Some(value.clone());
                    }
                }
                "examples" => {
                    if let Some(list) = value.as_array() {
                        if self.front.literal_ok(value, at, name) {
                            annotations(&mut node).examples = Some(list.clone());
                        }
                    }
                }
                "$comment" | "$vocabulary" | "readOnly" | "writeOnly" | "deprecated"
                | "contentEncoding" | "contentMediaType" | "contentSchema" => {}
                "type" => node.types = self.types(value, at),
                "enum" => {
                    if !value.is_array() {
                        self.front.shape(at, name, Shape::Array, None);
                        continue;
                    }
                    if let Some(e) = self.front.enumeration(value, at, name) {
                        node.enumeration = Some(Arc::new(e));
                    }
                }
                "const" => {
                    if self.front.literal_ok(value, at, name) {
                        node.constant = Some(Arc::new(value.clone()));
                    }
                }
                "multipleOf" => match value.as_number() {
                    Some(n) if n.as_f64().is_some_and(|f| f > 0.0) => match as_exact_u64(n) {
                        Some(m) => number_rules(&mut node).multiple_of = Some(m),
                        None => rules.multiple_of = Some(n.clone()),
                    },
                    _ => self.front.shape(at, name, Shape::Number, None),
                },
                "minimum" | "maximum" => {
                    let Some(n) = value.as_number() else {
                        self.front.shape(at, name, Shape::Number, None);
                        continue;
                    };
                    if name == "minimum" {
                        pending.bounds.minimum = Some(n.clone());
                    } else {
                        pending.bounds.maximum = Some(n.clone());
                    }
                }
                "exclusiveMinimum" | "exclusiveMaximum" => {
                    let lower = name == "exclusiveMinimum";
                    match (value, draft) {
                        (Value::Bool(b), Draft::Draft4) => {
                            if lower {
                                pending.bounds.minimum_is_exclusive = *b;
                            } else {
                                pending.bounds.maximum_is_exclusive = *b;
                            }
                        }
                        (Value::Number(n), d) if d > Draft::Draft4 => {
                            if lower {
                                pending.bounds.exclusive_minimum = Some(n.clone());
                            } else {
                                pending.bounds.exclusive_maximum = Some(n.clone());
                            }
                        }
                        _ => self.front.shape(
                            at,
                            name,
                            if draft == Draft::Draft4 {
                                Shape::Boolean
                            } else {
                                Shape::Number
                            },
                            None,
                        ),
                    }
                }
                "minLength" | "maxLength" | "minItems" | "maxItems" | "minProperties"
                | "maxProperties" | "minContains" | "maxContains" => {
                    let Some(n) = value.as_number().and_then(as_exact_u64) else {
                        self.front.shape(at, name, Shape::NonNegativeInteger, None);
                        continue;
                    };
                    match name {
                        "minLength" => string_rules(&mut node).min_length = Some(n),
                        "maxLength" => string_rules(&mut node).max_length = Some(n),
                        "minItems" => array_rules(&mut node).min_items = Some(n),
                        "maxItems" => array_rules(&mut node).max_items = Some(n),
                        "minProperties" => rules.min_properties = Some(n),
                        "maxProperties" => rules.max_properties = Some(n),
                        "minContains" => rules.min_contains = Some(n),
                        _ => rules.max_contains = Some(n),
                    }
                }
                "pattern" => {
                    if let Some(p) = self.pattern(value, at, name) {
                        string_rules(&mut node).pattern = Some(p);
                    }
                }
                "uniqueItems" => match value {
                    Value::Bool(b) => array_rules(&mut node).unique_items = *b,
                    _ => self.front.shape(at, name, Shape::Boolean, None),
                },
                "required" => {
                    if let Some(names) = self.strings(value, at, name) {
                        object_rules(&mut node).required = names;
                    }
                }
                "items" => match value {
                    Value::Array(list) => {
                        let base = at.join(name);
                        let ids = list
                            .iter()
                            .enumerate()
                            .filter_map(|(i, s)| {
                                self.schema(s, base.index(i), name, depth + 1, ctx)
                            })
                            .collect();
                        array_rules(&mut node).prefix_items = ids;
                        pending.tuple = true;
                    }
                    _ => array_rules(&mut node).items = self.child(value, at, name, depth, ctx),
                },
                "prefixItems" => {
                    if let Some(ids) = self.list(value, at, name, depth, ctx) {
                        array_rules(&mut node).prefix_items = ids;
                    }
                }
                "additionalItems" => {
                    pending.additional_items = Some(value);
                }
                "contains" => rules.contains = self.child(value, at, name, depth, ctx),
                "properties" => {
                    if let Some(entries) = self.map(value, at, name, depth, ctx) {
                        object_rules(&mut node).properties = Properties::new(entries);
                    }
                }
                "patternProperties" => {
                    let Some(map) = value.as_object() else {
                        self.front.shape(at, name, Shape::SchemaMap, None);
                        continue;
                    };
                    let base = at.join(name);
                    for (src, sub) in map {
                        let child = self.schema(sub, base.join(src), name, depth + 1, ctx);
                        let pattern = self.front.pattern(src, at, name);
                        if let (Some(p), Some(c)) = (pattern, child) {
                            rules.pattern_properties.push((p, c));
                        }
                    }
                }
                "additionalProperties" => {
                    let additional = match value {
                        Value::Bool(true) => Additional::Allowed,
                        Value::Bool(false) => Additional::Forbidden,
                        _ => match self.child(value, at, name, depth, ctx) {
                            Some(c) => Additional::Schema(c),
                            None => continue,
                        },
                    };
                    object_rules(&mut node).additional = additional;
                }
                "propertyNames" => rules.property_names = self.child(value, at, name, depth, ctx),
                "dependencies" | "dependentRequired" | "dependentSchemas" => {
                    let Some(map) = value.as_object() else {
                        self.front.shape(at, name, Shape::SchemaMap, None);
                        continue;
                    };
                    let base = at.join(name);
                    for (prop, dep) in map {
                        let list = dep.is_array() && name != "dependentSchemas";
                        if list {
                            if let Some(names) = self.strings(dep, &base, prop) {
                                rules.dependent_required.push((prop.as_str().into(), names));
                            }
                        } else if name == "dependentRequired" {
                            self.front.shape(&base, prop, Shape::StringSet, None);
                        } else if let Some(c) =
                            self.schema(dep, base.join(prop), name, depth + 1, ctx)
                        {
                            rules.dependent_schemas.push((prop.as_str().into(), c));
                        }
                    }
                }
                "allOf" => node.all_of = self.list(value, at, name, depth, ctx).unwrap_or_default(),
                "anyOf" => node.any_of = self.list(value, at, name, depth, ctx).unwrap_or_default(),
                "oneOf" => node.one_of = self.list(value, at, name, depth, ctx).unwrap_or_default(),
                "not" => node.not = self.child(value, at, name, depth, ctx),
                "if" => rules.if_ = self.child(value, at, name, depth, ctx),
                "then" => rules.then_ = self.child(value, at, name, depth, ctx),
                "else" => rules.else_ = self.child(value, at, name, depth, ctx),
                "unevaluatedProperties" => {
                    self.unevaluated = true;
                    rules.unevaluated_properties = self.child(value, at, name, depth, ctx);
                }
                "unevaluatedItems" => {
                    self.unevaluated = true;
                    rules.unevaluated_items = self.child(value, at, name, depth, ctx);
                }
                "$defs" | "definitions" => {
                    self.map(value, at, name, depth, ctx);
                }
                _ => self.unknown(at, name, draft),
            }
        }
        self.fold(&mut node, &mut rules, &pending, at, depth, ctx);
        if legacy_ref {
            // Drafts 4 to 7: `$ref` overrides its siblings. They were parsed (their schemas are
            // reference targets, `definitions` beside a root `$ref` above all) but apply nothing.
            let node = Node {
                pointer: at.clone(),
                ..Node::default()
            };
            return (node, None);
        }
        let has_rules = rules.never
            || !rules.pattern_properties.is_empty()
            || rules.property_names.is_some()
            || rules.min_properties.is_some()
            || rules.max_properties.is_some()
            || !rules.dependent_required.is_empty()
            || !rules.dependent_schemas.is_empty()
            || rules.if_.is_some()
            || rules.then_.is_some()
            || rules.else_.is_some()
            || rules.contains.is_some()
            || rules.unevaluated_properties.is_some()
            || rules.unevaluated_items.is_some()
            || rules.multiple_of.is_some()
            || rules.format_assertion.is_some()
            || rules.dynamic_anchor.is_some()
            || self
                .pending
                .iter()
                .any(|p| p.node == id && p.kind != RefKind::Ref);
        (node, has_rules.then_some(rules))
    }

    fn fold(
        &mut self,
        node: &mut Node,
        rules: &mut FullRules,
        p: &Pending<'_>,
        at: &Pointer,
        depth: usize,
        ctx: &Ctx,
    ) {
        if let Some(extra) = p.additional_items {
            // `additionalItems` applies after a list under `items` only (drafts 4 to 2019-09);
            // parsed either way, so a reference can still point into it.
            let child = self.child(extra, at, "additionalItems", depth, ctx);
            if p.tuple && ctx.draft != Draft::Draft2020_12 {
                array_rules(node).items = child;
            }
        }
        p.bounds.fold(node);
        if rules.contains.is_none() {
            rules.min_contains = None;
            rules.max_contains = None;
        }
    }

    fn unknown(&mut self, at: &Pointer, name: &str, draft: Draft) {
        if name.starts_with("x-") {
            return; // vendor extension, by convention
        }
        let kind = ViolationKind::UnknownKeyword {
            suggestion: unknown::suggest(draft, name),
        };
        let v = Violation::new(at, name, kind);
        if self.options.deny_unknown {
            self.front.violations.push(v);
        } else {
            self.warnings.push(v);
        }
    }

    fn pattern(&mut self, value: &Value, at: &Pointer, name: &str) -> Option<Pattern> {
        let Some(src) = value.as_str() else {
            self.front.shape(at, name, Shape::Pattern, None);
            return None;
        };
        self.front.pattern(src, at, name)
    }

    fn types(&mut self, value: &Value, at: &Pointer) -> Option<TypeSet> {
        let names: Vec<&Value> = match value {
            Value::Array(list) => list.iter().collect(),
            other => vec![other],
        };
        let mut set = TypeSet::EMPTY;
        for n in names {
            match n.as_str().and_then(JsonType::from_name) {
                Some(t) => set = set.with(t),
                None => {
                    self.front.shape(at, "type", Shape::Types, None);
                    return None;
                }
            }
        }
        Some(set)
    }

    fn strings(&mut self, value: &Value, at: &Pointer, name: &str) -> Option<Vec<Box<str>>> {
        let Some(list) = value.as_array() else {
            self.front.shape(at, name, Shape::StringSet, None);
            return None;
        };
        let mut seen = HashSet::with_capacity(list.len());
        let mut out = Vec::with_capacity(list.len());
        for item in list {
            let Some(s) = item.as_str() else {
                self.front.shape(at, name, Shape::StringSet, None);
                return None;
            };
            if seen.insert(s) {
                out.push(s.into());
            }
        }
        Some(out)
    }

    /// Resolves every reference, parsing the locations and documents they reach on the way.
    fn resolve_all(&mut self) {
        while let Some(r) = self.pending.pop() {
            let target = self.lookup(&r.uri).or_else(|| {
                self.reach(&r.uri, r.draft)
                    .and_then(|_| self.lookup(&r.uri))
            });
            let at = self
                .nodes
                .get(r.node.index())
                .map(|n| n.pointer.clone())
                .unwrap_or_default();
            let Some(t) = target else {
                let keyword = match r.kind {
                    RefKind::Ref => "$ref",
                    RefKind::Dynamic => "$dynamicRef",
                    RefKind::Recursive => "$recursiveRef",
                };
                self.front
                    .violate(&at, keyword, ViolationKind::Unresolved(r.uri));
                continue;
            };
            match r.kind {
                RefKind::Ref => {
                    if let Some(n) = self.nodes.get_mut(r.node.index()) {
                        n.reference = Some(t);
                        n.plain_reference = r.plain;
                    }
                }
                RefKind::Dynamic | RefKind::Recursive => {
                    let (_, frag) = split_fragment(&r.uri);
                    let anchor = (!frag.is_empty() && !frag.starts_with('/'))
                        .then(|| Box::<str>::from(frag));
                    if let Some(Some(rules)) = self.rules.get_mut(r.node.index()) {
                        if r.kind == RefKind::Dynamic {
                            rules.dynamic_ref = Some((t, anchor));
                        } else {
                            rules.recursive_ref = Some(t);
                        }
                    }
                }
            }
        }
    }

    /// The node a URI names among those parsed: an anchor, or the location a JSON Pointer
    /// fragment names under the first resource of that base that has one there.
    fn lookup(&self, uri: &str) -> Option<NodeId> {
        let (base, frag) = split_fragment(uri);
        let Some(pointer) = decode_fragment(&format!("#{frag}")) else {
            return self.by_uri.get(&format!("{base}#{frag}")).copied();
        };
        let rel = Pointer::parse(&pointer)?;
        let tokens: Vec<String> = rel.tokens().collect();
        let of_base = |r: &&u32| {
            self.resources
                .get(**r as usize)
                .is_some_and(|x| &*x.base == base)
        };
        self.bases.get(base)?.iter().filter(of_base).find_map(|r| {
            let meta = self.meta.get(*r as usize)?;
            let at = tokens.iter().fold(meta.at.clone(), |p, t| p.join(t));
            self.locations.get(&(meta.doc, at)).copied()
        })
    }

    /// Parses what `uri` reaches that is not parsed yet: a provided document, or the location
    /// a JSON Pointer fragment names in a resource. `Some` when something was parsed.
    fn reach(&mut self, uri: &str, draft: Draft) -> Option<()> {
        let (base, frag) = split_fragment(uri);
        let known = self.bases.contains_key(base);
        if !known {
            let options = self.options;
            // The caller's document first, then the drafts' own meta-schemas.
            let doc = options
                .resources
                .get(base)
                .or_else(|| metaschemas::get(base))?;
            if !self.loaded.insert(base.to_owned()) {
                return None;
            }
            self.docs.push(doc);
            let (draft, vocab) = self.dialect(doc, &Pointer::root(), draft, None);
            self.document(self.docs.len() - 1, base, draft, vocab)?;
            if self.lookup(uri).is_some() {
                return Some(());
            }
        }
        let pointer = decode_fragment(&format!("#{frag}"))?;
        let r = *self.bases.get(base)?.first()? as usize;
        let meta = self.meta.get(r)?;
        let (doc, start, draft, vocab) = (meta.doc, meta.at.clone(), meta.draft, meta.vocab);
        let root = *self.docs.get(doc)?;
        let resource_root = root.pointer(start.as_str())?;
        let target = resource_root.pointer(&pointer)?;
        let mut at = start.clone();
        for token in Pointer::parse(&pointer)?.tokens() {
            at = at.join(&token);
        }
        let ctx = Ctx {
            draft,
            vocab,
            doc,
            resource: r as u32,
            scopes: vec![Arc::from(base)],
        };
        self.schema(target, at, "$ref", 0, &ctx).map(|_| ())
    }
}

#[cfg(test)]
mod tests;
