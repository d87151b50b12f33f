//! The reshaping itself: from a source schema to the schema a strict decoder can enforce,
//! building the [`Lens`] that undoes it. Each target asks only for the reshapings its dialect
//! needs ([`Needs`]).
//!
//! The walk works on the normalised source (`allOf` merged, unions distributed over their
//! siblings) and builds the wire schema in a copy of its arena: untouched subtrees keep their
//! ids, reshaped nodes are appended. Subtrees under `not` and unmerged `allOf` are left alone
//! (dialects drop or refuse them anyway).

use super::{Absent, Branch, Lens, PropLens, ShapeLens, Sides, UnionLens, KEY, VALUE};
use crate::dialect::normalize::{inline_references, normalize, Rewrites};
use crate::dialect::Needs;
use crate::ir::{
    Additional, Annotations, ArrayRules, Enumeration, Node, NodeId, ObjectRules, Properties,
};
use crate::loss::Loss;
use crate::schema::Schema;
use crate::value::{json_eq, json_hash, JsonType, TypeSet};
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// A reshaped schema and its lens.
pub(crate) struct Reshaped {
    /// The normalised source the lens reads (equivalent to the source, or wider with losses),
    /// with `oneOf` read as `anyOf` as [`Reshaped::read`] reads the wire.
    pub source: Schema,
    /// The schema to lower for the provider.
    pub wire: Schema,
    /// The wire as the providers read it, which the lens judges encodings and answers by:
    /// every dialect sends `oneOf` as `anyOf` (the `oneOf` row of each capability table), and
    /// reshaping can make a `oneOf`'s branches overlap (two shapes written as one string).
    pub read: Schema,
    /// How values map between the two.
    pub lens: Lens,
    /// What the reshaping leaves unenforced natively.
    pub losses: Vec<Loss>,
}

/// Reshapes `schema` for the given needs.
#[cfg(test)]
pub(crate) fn reshape(schema: &Schema, needs: Needs) -> Reshaped {
    reshape_with(schema, needs, false)
}

/// Reshapes `schema` for the given needs. With `null_means_absent`, an optional property whose
/// schema admits `null` is sent required as it is (no `{"value": …}` wrapper), and `null` in
/// the answer lifts to absence (see [`Absent::NullIsAbsence`]).
pub(crate) fn reshape_with(schema: &Schema, needs: Needs, null_means_absent: bool) -> Reshaped {
    // References that do not recurse are written out in place first, so the reshaping sees
    // each node's whole structure; recursive ones stay and are left as they are.
    let inlined = inline_references(schema);
    let normalized = normalize(
        &inlined.schema,
        Rewrites {
            flatten_all_of: true,
            distribute_unions: true,
        },
    );
    let source = normalized.schema;
    let mut r = Reshaper {
        source: &source,
        needs,
        nodes: source.ir.nodes.clone(),
        memo: HashMap::new(),
        losses: inlined
            .losses
            .into_iter()
            .chain(normalized.losses)
            .collect(),
        unsafe_to_close: crate::dialect::declared::unsafe_to_close(&source),
        hidden: crate::dialect::declared::hidden_by_references(schema),
        compared: if null_means_absent {
            compared_whole(&source.ir.nodes)
        } else {
            Vec::new()
        },
        null_means_absent,
    };
    let (mut root, mut lens) = r.node(source.root(), 0);
    if needs.envelope_root && !is_plain_object(&r, root) {
        let pointer = source.root_node().pointer.clone();
        root = r.push(object_node(&pointer, vec![(VALUE.into(), root)]));
        lens = Lens::Envelope(Box::new(lens));
    }
    let wire = Schema::from_nodes(r.nodes, root, source.ir.subset);
    Reshaped {
        losses: r.losses,
        read: one_of_as_any_of(&wire),
        // Read the same way: normalisation may widen a `oneOf` branch (merging its `allOf`),
        // and a widened branch can make a valid value match two branches, which a `oneOf`
        // then rejects; the lens would find no branch to encode it with (widening property,
        // seed 1200, 4,000 cases). Which branch a value takes is all the lens asks of it;
        // answers are held to the schema as written.
        source: one_of_as_any_of(&source),
        wire,
        lens,
    }
}

#[cfg(test)]
impl Reshaped {
    /// The two schemas the lens maps between.
    pub fn sides(&self) -> Sides<'_> {
        Sides {
            source: &self.source,
            wire: &self.read,
        }
    }
}

/// `schema` with every `oneOf` read as `anyOf`: moved into the node's `anyOf` when it has
/// none, else conjoined as an `allOf` member holding it. Not under a `not`, where the wider
/// reading would reject more. Node ids stay as they were, so the lens's branch ids name the
/// same nodes in both.
fn one_of_as_any_of(schema: &Schema) -> Schema {
    if schema.ir.nodes.iter().all(|n| n.one_of.is_empty()) {
        return schema.clone();
    }
    let mut nodes = schema.ir.nodes.clone();
    let negated = reachable(&nodes, nodes.iter().filter_map(|n| n.not));
    for i in 0..nodes.len() {
        if negated.get(i).copied().unwrap_or(true) {
            continue;
        }
        let id = NodeId(nodes.len() as u32);
        let Some(node) = nodes.get_mut(i) else {
            break;
        };
        if node.one_of.is_empty() {
            continue;
        }
        let branches = std::mem::take(&mut node.one_of);
        if node.any_of.is_empty() {
            node.any_of = branches;
            continue;
        }
        node.all_of.push(id);
        let member = Node {
            pointer: node.pointer.clone(),
            any_of: branches,
            ..Node::default()
        };
        nodes.push(member);
    }
    Schema::from_nodes(nodes, schema.root(), schema.ir.subset)
}

/// Every node reachable from `roots` (the roots included), each visited once.
fn reachable(nodes: &[Node], roots: impl Iterator<Item = NodeId>) -> Vec<bool> {
    let mut seen = vec![false; nodes.len()];
    let mut stack: Vec<NodeId> = roots.collect();
    while let Some(id) = stack.pop() {
        match seen.get_mut(id.index()) {
            Some(s) if !*s => *s = true,
            _ => continue,
        }
        if let Some(n) = nodes.get(id.index()) {
            stack.extend(n.subschemas());
        }
    }
    seen
}

/// The nodes whose values the source compares whole with another value: those with `enum` or
/// `const`, the items of arrays with `uniqueItems`, and everything below either. An explicit
/// `null` member and an absent one are different values there, so `null` cannot be read as
/// absence in their objects ([`Absent::NullIsAbsence`]): the lifted answer could match a
/// literal the source value did not, or repeat an item the source value did not.
fn compared_whole(nodes: &[Node]) -> Vec<bool> {
    let roots = nodes.iter().enumerate().flat_map(|(i, n)| {
        let literal = (n.enumeration.is_some() || n.constant.is_some()).then_some(NodeId(i as u32));
        let items = n
            .array
            .as_deref()
            .filter(|a| a.unique_items)
            .into_iter()
            .flat_map(|a| a.prefix_items.iter().copied().chain(a.items));
        literal.into_iter().chain(items)
    });
    reachable(nodes, roots)
}

/// A closed object with these required properties.
fn object_node(pointer: &crate::Pointer, props: Vec<(Box<str>, NodeId)>) -> Node {
    let required = props.iter().map(|(n, _)| n.clone()).collect();
    Node {
        pointer: pointer.clone(),
        types: Some(TypeSet::of(JsonType::Object)),
        object: Some(Arc::new(ObjectRules {
            properties: Properties::new(props),
            required,
            additional: Additional::Forbidden,
        })),
        ..Node::default()
    }
}

/// True when the wire node only admits objects and is not a union (strict roots need that).
fn is_plain_object(r: &Reshaper<'_>, id: NodeId) -> bool {
    let Some(n) = r.nodes.get(id.index()) else {
        return false;
    };
    n.types == Some(TypeSet::of(JsonType::Object)) && !n.has_union() && n.all_of.is_empty()
}

struct Reshaper<'s> {
    source: &'s Schema,
    needs: Needs,
    nodes: Vec<Node>,
    memo: HashMap<NodeId, (NodeId, Lens)>,
    losses: Vec<Loss>,
    /// Open objects that must stay open: another schema at their place declares names they
    /// do not (see `dialect::declared`).
    unsafe_to_close: Vec<bool>,
    /// Source pointers of open objects that references hide: they stay open too.
    hidden: std::collections::HashSet<crate::Pointer>,
    /// Optional nullable properties are sent required as they are; `null` lifts to absence.
    null_means_absent: bool,
    /// By source node, with `null_means_absent`: its values are compared whole (see
    /// [`compared_whole`]), so its objects' `null` members keep their own encoding.
    compared: Vec<bool>,
}

impl Reshaper<'_> {
    fn push(&mut self, node: Node) -> NodeId {
        // Counted; a lowering that runs out is replaced by a prompt lowering when it ends.
        let _ = crate::budget::charge(crate::budget::NODE_STEPS);
        self.nodes.push(node);
        NodeId((self.nodes.len() - 1) as u32)
    }

    fn node(&mut self, id: NodeId, depth: usize) -> (NodeId, Lens) {
        if let Some(done) = self.memo.get(&id) {
            return done.clone();
        }
        let out = if depth > 512 {
            (id, Lens::Identity)
        } else {
            self.reshape(id, depth)
        };
        self.memo.insert(id, out.clone());
        out
    }

    fn reshape(&mut self, id: NodeId, depth: usize) -> (NodeId, Lens) {
        let src = self.source.node(id).clone();
        if src.reference.is_some() {
            // A recursive reference: its structure lives at its target, which a finite lens
            // cannot follow down every level. Left as the source has it.
            return (id, Lens::Identity);
        }
        let types = self.source.admitted(id);
        let is_union = src.has_union();

        if !is_union && types.contains(JsonType::Object) {
            if self.needs.maps_as_entries {
                if let Some(done) = self.map_as_entries(&src, types, depth) {
                    return done;
                }
            }
            if self.needs.opaque_free_objects && admits_free_objects(&src) {
                return self.opaque(&src);
            }
        }
        if is_union {
            return self.union(id, &src, depth);
        }

        let mut node = src.clone();
        let mut shape = ShapeLens::default();
        let mut changed = false;
        if let Some(o) = &src.object {
            let mut rules = (**o).clone();
            let mut entries = Vec::with_capacity(o.properties.len());
            // Hashed: `is_required` scans the list, quadratic over a hostile object.
            let required_names: HashSet<&str> = o.required.iter().map(|r| &**r).collect();
            let null_is_absence =
                self.null_means_absent && self.compared.get(id.index()) != Some(&true);
            for (name, pid) in o.properties.iter() {
                let (wid, lens) = self.node(pid, depth + 1);
                let required = required_names.contains(name);
                let (wid, absent) = if self.needs.all_required && !required {
                    changed = true;
                    self.optional(pid, wid, &lens, null_is_absence)
                } else {
                    (wid, Absent::Required)
                };
                changed |= wid != pid;
                if !lens.is_identity() || absent != Absent::Required {
                    shape.props.push(PropLens {
                        name: name.into(),
                        lens,
                        absent,
                    });
                }
                entries.push((Box::<str>::from(name), wid));
            }
            if self.needs.close_objects
                && !o.properties.is_empty()
                && rules.additional != Additional::Forbidden
                && self.unsafe_to_close.get(id.index()) != Some(&true)
                && !self.hidden.contains(&src.pointer)
            {
                rules.additional = Additional::Forbidden;
                changed = true;
            } else if let Additional::Schema(aid) = rules.additional {
                let (wid, lens) = self.node(aid, depth + 1);
                if !lens.is_identity() {
                    // Values under `additionalProperties` would need their own lens; keep the
                    // source schema there instead (the dialect decides what it can send).
                } else if wid != aid {
                    rules.additional = Additional::Schema(wid);
                    changed = true;
                }
            }
            if self.needs.close_objects || self.needs.all_required {
                let undeclared: Vec<Box<str>> = rules
                    .required
                    .iter()
                    .filter(|r| !o.properties.contains(r))
                    .cloned()
                    .collect();
                if !undeclared.is_empty() && rules.additional == Additional::Forbidden {
                    self.losses.push(Loss::new(&src.pointer, "required", "names properties the object does not declare; a closed object cannot have them, so they are not sent"));
                    rules.required.retain(|r| o.properties.contains(r));
                    changed = true;
                }
            }
            if self.needs.all_required {
                rules.required = entries.iter().map(|(n, _)| n.clone()).collect();
            }
            rules.properties = Properties::new(entries);
            node.object = Some(Arc::new(rules));
        }
        let free_items =
            types.contains(JsonType::Array) && src.array.as_ref().is_none_or(|a| a.items.is_none());
        if src.array.is_some() || (free_items && self.needs.opaque_free_objects) {
            let a = src.array.clone().unwrap_or_default();
            let mut rules: ArrayRules = (*a).clone();
            for (i, pid) in a.prefix_items.iter().enumerate() {
                let (wid, lens) = self.node(*pid, depth + 1);
                changed |= wid != *pid;
                if let Some(slot) = rules.prefix_items.get_mut(i) {
                    *slot = wid;
                }
                shape.prefix.push(lens);
            }
            if let Some(iid) = a.items {
                let (wid, lens) = self.node(iid, depth + 1);
                changed |= wid != iid;
                rules.items = Some(wid);
                shape.items = lens;
            } else if free_items && self.needs.opaque_free_objects {
                // Items after the prefix may be anything, arbitrary objects included: each is
                // sent as JSON text.
                let (wid, lens) = self.opaque_items(&src);
                rules.items = Some(wid);
                shape.items = lens;
                changed = true;
            }
            let mut positions = shape.prefix.iter().chain(std::iter::once(&shape.items));
            let first = positions.next();
            if rules.unique_items && positions.any(|l| Some(l) != first) {
                // Two distinct items under different lenses may be sent alike (the string "1"
                // as it is, the number 1 as JSON text). Distinctness cannot be asked of the
                // wire then: an encoding that had to meet it would not exist for a valid source
                // array. Checked on the lifted answer instead. (Items never read `null` as
                // absence: see `compared_whole`.)
                self.losses.push(Loss::new(&src.pointer, "uniqueItems", "items reshaped differently by position may be sent alike, so distinct items are checked when the answer is read"));
                rules.unique_items = false;
                changed = true;
            }
            node.array = Some(Arc::new(rules));
        }
        if !changed {
            return (id, Lens::Identity);
        }
        let lens = if shape.props.is_empty()
            && shape.prefix.iter().all(Lens::is_identity)
            && shape.items.is_identity()
        {
            Lens::Identity
        } else {
            Lens::Shape(Box::new(shape))
        };
        if !lens.is_identity() {
            if !self.drop_stale_applicators(&mut node) {
                return (id, Lens::Identity);
            }
            self.encode_literals(&mut node, &lens);
        }
        let wid = self.push(node);
        (wid, lens)
    }

    /// A `not` or `allOf` beside a reshaped node speaks of the value before reshaping: read
    /// against the encoded value it can reject it (a member sent as JSON text is a string,
    /// and a `not` that forbids a string there, or an `allOf` member's `additionalProperties`
    /// that limits a string's length, then rejects it), so the encoding of a valid value would
    /// fail the wire. Neither is sent with the reshaped node (no dialect enforces `not`, and
    /// an `allOf` left here is one normalisation could not merge); a loss each.
    ///
    /// False, and nothing dropped, when an `allOf` member declares properties: their names
    /// count where the node stands, and a dialect that closes every object would close the
    /// node to its own names once the member is gone. The node is then not reshaped.
    fn drop_stale_applicators(&mut self, node: &mut Node) -> bool {
        if self.declares_names(&node.all_of) {
            return false;
        }
        if node.not.take().is_some() {
            self.losses.push(Loss::new(
                &node.pointer,
                "not",
                "speaks of the value before reshaping, so it is not sent with the reshaped node; checked when the answer is read",
            ));
        }
        if !std::mem::take(&mut node.all_of).is_empty() {
            self.losses.push(Loss::new(
                &node.pointer,
                "allOf",
                "speaks of the value before reshaping, so it is not sent with the reshaped node; checked when the answer is read",
            ));
        }
        true
    }

    /// True when one of `members`, or a schema their combinators and references apply at the
    /// same place, declares properties.
    fn declares_names(&self, members: &[NodeId]) -> bool {
        crate::dialect::declared::expand(self.source, members)
            .into_iter()
            .any(|id| {
                self.source
                    .node(id)
                    .object
                    .as_ref()
                    .is_some_and(|o| !o.properties.is_empty())
            })
    }

    /// `enum` and `const` speak of source values; on the wire they must speak of encoded ones,
    /// so each literal goes through the node's lens (exact). One that does not encode is
    /// dropped with the rest of its keyword (a loss), never kept stale: a stale literal narrows.
    /// A literal is encoded with its integral numbers written as integers
    /// ([`super::integers_written`]): where part of it is sent as JSON text, `0` and `0.0`
    /// are different strings, and `Lens::encode_for_wire` writes a value equal to the literal
    /// the same way.
    fn encode_literals(&mut self, node: &mut Node, lens: &Lens) {
        let sides = Sides {
            source: self.source,
            wire: self.source,
        };
        // A literal's encoding, and whether writing its numbers as integers changed it.
        let encode = |v: &Value| {
            let same = super::integers_written(v);
            (
                lens.encode(same.as_ref().unwrap_or(v), sides),
                same.is_some(),
            )
        };
        if let Some(c) = node.constant.take() {
            match encode(&c).0 {
                Ok(v) => node.constant = Some(Arc::new(v)),
                Err(_) => self.losses.push(Loss::new(
                    &node.pointer,
                    "const",
                    "could not be reshaped with its node; checked when the answer is read",
                )),
            }
        }
        if let Some(e) = node.enumeration.take() {
            let mut rewritten = false;
            let encoded: Result<Vec<Value>, _> = (e.values.iter())
                .map(|v| {
                    let (encoded, changed) = encode(v);
                    rewritten |= changed;
                    encoded
                })
                .collect();
            // `[1]` and `[1.0]`, two literals as written, are one once written alike.
            let encoded = encoded.map(|values| {
                if !rewritten {
                    return values;
                }
                let mut seen = std::collections::HashSet::new();
                let fresh = |v: &Value| seen.insert(v.to_string());
                values.into_iter().filter(fresh).collect()
            });
            match encoded {
                Ok(values) => node.enumeration = Some(Arc::new(Enumeration::new(values))),
                Err(_) => self.losses.push(Loss::new(
                    &node.pointer,
                    "enum",
                    "could not be reshaped with its node; checked when the answer is read",
                )),
            }
        }
    }

    /// An optional property's wire schema: required and nullable, wrapped when its schema
    /// already admits `null` so that `null` keeps meaning "absent" and nothing else, unless
    /// `null` may mean absent ([`Absent::NullIsAbsence`]): then the property's own schema is
    /// sent, required, as long as its wire form still admits `null` (`lens` never turns `null`
    /// into something else) and `null_is_absence` holds (the object is not compared whole).
    fn optional(
        &mut self,
        source_id: NodeId,
        wire_id: NodeId,
        lens: &Lens,
        null_is_absence: bool,
    ) -> (NodeId, Absent) {
        let pointer = self.source.node(source_id).pointer.clone();
        // `admitted` is wider than exact (it does not read `not`): a property it says admits
        // `null` may still reject it, and then `null` can only mean "absent" (sending the
        // property's schema as is with `null` read as absence would have no encoding for an
        // absent property, since its own schema rejects `null`).
        let nullable = self.source.admitted(source_id).contains(JsonType::Null)
            && self.source.is_valid_at(source_id, &serde_json::Value::Null);
        if nullable && null_is_absence && keeps_null(lens) {
            return (wire_id, Absent::NullIsAbsence);
        }
        let null = self.push(Node {
            pointer: pointer.clone(),
            types: Some(TypeSet::of(JsonType::Null)),
            ..Node::default()
        });
        if nullable {
            let wrapper = self.push(object_node(&pointer, vec![(VALUE.into(), wire_id)]));
            let union = self.push(Node {
                pointer,
                any_of: vec![null, wrapper],
                ..Node::default()
            });
            return (union, Absent::Wrapped);
        }
        let union = self.push(Node {
            pointer,
            any_of: vec![wire_id, null],
            ..Node::default()
        });
        (union, Absent::Null)
    }

    fn map_as_entries(
        &mut self,
        src: &Node,
        types: TypeSet,
        depth: usize,
    ) -> Option<(NodeId, Lens)> {
        let o = src.object.as_ref()?;
        let Additional::Schema(value_id) = o.additional else {
            return None;
        };
        let only_objects_or_null =
            types.intersect(TypeSet::of(JsonType::Object).with(JsonType::Null)) == types;
        if !o.properties.is_empty()
            || !only_objects_or_null
            || src.enumeration.is_some()
            || src.constant.is_some()
        {
            return None;
        }
        let (wid, lens) = self.node(value_id, depth + 1);
        let key = self.push(Node {
            pointer: src.pointer.clone(),
            types: Some(TypeSet::of(JsonType::String)),
            ..Node::default()
        });
        let entry = self.push(object_node(
            &src.pointer,
            vec![(KEY.into(), key), (VALUE.into(), wid)],
        ));
        if !o.required.is_empty() {
            self.losses.push(Loss::new(&src.pointer, "required", "keys the map must have are not enforced natively (the map is sent as a list of entries)"));
        }
        self.losses.push(Loss::new(&src.pointer, "additionalProperties", "sent as a list of `{key, value}` entries: distinct keys are checked when the answer is read"));
        let mut t = TypeSet::of(JsonType::Array);
        if types.contains(JsonType::Null) {
            t = t.with(JsonType::Null);
        }
        // Each member is one entry, so the map's member counts (`minProperties`/`maxProperties`,
        // carried only for the dialects that send them) bound the list exactly; a key written
        // twice is refused when the answer is read (the loss above).
        let counts = src.property_counts.as_deref();
        let list = self.push(Node {
            pointer: src.pointer.clone(),
            types: Some(t),
            array: Some(Arc::new(ArrayRules {
                items: Some(entry),
                min_items: counts.and_then(|c| c.min),
                max_items: counts.and_then(|c| c.max),
                ..ArrayRules::default()
            })),
            annotations: src.annotations.clone(),
            ..Node::default()
        });
        Some((list, Lens::Entries(Box::new(lens))))
    }

    fn opaque(&mut self, src: &Node) -> (NodeId, Lens) {
        let description = match src.description() {
            Some(d) if !d.is_empty() => format!("{d} (JSON text)"),
            _ => "JSON text".to_owned(),
        };
        self.losses.push(Loss::new(&src.pointer, "", "admits arbitrary objects, so it is sent as a string of JSON text; its constraints are checked when the answer is read"));
        let id = self.push(Node {
            pointer: src.pointer.clone(),
            types: Some(TypeSet::of(JsonType::String)),
            annotations: Some(Arc::new(Annotations {
                title: src.title().map(Into::into),
                description: Some(description.into()),
                ..Annotations::default()
            })),
            ..Node::default()
        });
        (id, Lens::Opaque)
    }

    /// The items of an array that says nothing about them, sent as strings of JSON text.
    fn opaque_items(&mut self, array: &Node) -> (NodeId, Lens) {
        self.losses.push(Loss::new(&array.pointer, "items", "items may be any value, so each is sent as a string of JSON text; what they hold is checked when the answer is read"));
        let id = self.push(Node {
            pointer: array.pointer.join("items"),
            types: Some(TypeSet::of(JsonType::String)),
            annotations: Some(Arc::new(Annotations {
                description: Some("JSON text".into()),
                ..Annotations::default()
            })),
            ..Node::default()
        });
        (id, Lens::Opaque)
    }

    fn union(&mut self, id: NodeId, src: &Node, depth: usize) -> (NodeId, Lens) {
        let (branches, is_any) = if src.any_of.is_empty() {
            (&src.one_of, false)
        } else {
            (&src.any_of, true)
        };
        let mut out = Vec::with_capacity(branches.len());
        for b in branches {
            let (wid, lens) = self.node(*b, depth + 1);
            out.push(Branch {
                source: *b,
                wire: wid,
                lens,
            });
        }
        if out.iter().all(|b| b.wire == b.source) {
            return (id, Lens::Identity);
        }
        let identity = out.iter().all(|b| b.lens.is_identity());
        if !identity && !self.siblings_admit_encodings(src, &out) {
            // The union's own keywords would reject what a reshaped branch sends.
            return (id, Lens::Identity);
        }
        if !identity && !self.read_apart(&out) {
            // Reshaped branches that could read one answer two ways: leave the union as the
            // source has it (the dialect then decides what it can send).
            return (id, Lens::Identity);
        }
        let mut node = src.clone();
        let ids = out.iter().map(|b| b.wire).collect();
        if is_any {
            node.any_of = ids;
        } else {
            node.one_of = ids;
        }
        if !identity {
            if !self.drop_stale_applicators(&mut node) {
                return (id, Lens::Identity);
            }
            if is_any && !node.one_of.is_empty() {
                // A `oneOf` beside the reshaped `anyOf` speaks of the value before reshaping
                // too (its literals, its types): kept, it would reject the encoding.
                node.one_of.clear();
                self.losses.push(Loss::new(
                    &node.pointer,
                    "oneOf",
                    "speaks of the value before reshaping, so it is not sent beside the reshaped `anyOf`; checked when the answer is read",
                ));
            }
        }
        let wid = self.push(node);
        let lens = if identity {
            Lens::Identity
        } else {
            Lens::Union(Box::new(UnionLens {
                branches: out,
                null_is_absence: self.null_means_absent,
            }))
        };
        (wid, lens)
    }

    /// True when the keywords beside a union (on `node`, the union's own node) let every
    /// reshaped branch's encodings through on the wire, where they judge them as they judge
    /// the value before reshaping: the node's `type` must admit every type a reshaped branch's
    /// wire schema admits (a branch sent as JSON text is a string whatever the value was:
    /// `type: object` beside it rejected every encoding, widening property seed 2500), it must
    /// have no `const` or `enum`, and no rules for strings, numbers or arrays when a reshaped
    /// branch sends values of that type. A reshaped object is judged by the node's object
    /// rules as before (its members are reshaped within the branch's own wire schema).
    fn siblings_admit_encodings(&self, node: &Node, branches: &[Branch]) -> bool {
        let sent = branches
            .iter()
            .filter(|b| b.wire != b.source)
            .fold(TypeSet::EMPTY, |acc, b| acc.union(self.wire_types(b)));
        let judged = |t: JsonType| match t {
            JsonType::String => node.string.is_some(),
            JsonType::Number | JsonType::Integer => node.number.is_some(),
            JsonType::Array => node.array.is_some(),
            JsonType::Object | JsonType::Null | JsonType::Boolean => false,
        };
        sent.without_all(node.local_types()).is_empty()
            && (sent.is_empty() || node.literals().is_none())
            && !sent.iter().any(judged)
    }

    /// True when no wire value can be read two ways: for every two branches, either no wire
    /// value satisfies both (the types their wire schemas admit are disjoint, a branch sent as
    /// JSON text being a string whatever its source type; or they are objects that require a
    /// common property with disjoint constant values, or a member the other, closed, does not
    /// declare), or their lenses lift every value both accept alike ([`Self::lift_alike`]).
    ///
    /// The check is pairwise, so it is bounded: a union with more than [`MAX_UNION_PAIRS`]
    /// pairs of branches is not shown disjoint and stays as the source has it (never wrong,
    /// only weaker), rather than cost quadratic time on a hostile schema.
    fn read_apart(&self, branches: &[Branch]) -> bool {
        let n = branches.len();
        if n.saturating_mul(n.saturating_sub(1)) / 2 > MAX_UNION_PAIRS {
            return false;
        }
        let types: Vec<TypeSet> = branches.iter().map(|b| self.wire_types(b)).collect();
        let tags: Vec<Tags> = branches.iter().map(|b| self.tags(b)).collect();
        for (i, a) in branches.iter().enumerate() {
            for (j, b) in branches.iter().enumerate().skip(i + 1) {
                let (ta, tb) = (
                    types.get(i).copied().unwrap_or(TypeSet::ANY),
                    types.get(j).copied().unwrap_or(TypeSet::ANY),
                );
                if ta.intersect(tb).is_empty() {
                    continue;
                }
                let only_objects = |t: TypeSet| t.intersect(TypeSet::of(JsonType::Object)) == t;
                let discriminated = match (tags.get(i), tags.get(j)) {
                    (Some(x), Some(y)) => x.tell_apart(y),
                    _ => false,
                };
                if only_objects(ta)
                    && only_objects(tb)
                    && (discriminated || self.exclusive_keys(a, b) || self.lift_alike(a, b))
                {
                    continue;
                }
                return false;
            }
        }
        true
    }

    /// The types a branch's wire schema admits: the source's when the branch is untouched,
    /// else the reshaped node's own (reshaped nodes are typed).
    fn wire_types(&self, b: &Branch) -> TypeSet {
        if b.wire == b.source {
            return self.source.admitted(b.source);
        }
        self.nodes
            .get(b.wire.index())
            .map_or(TypeSet::ANY, Node::local_types)
    }

    /// One wire branch requires a member that the other, closed, does not declare: no object
    /// has both shapes (typical of "one of these tool calls" unions).
    fn exclusive_keys(&self, a: &Branch, b: &Branch) -> bool {
        let wire = |br: &Branch| {
            self.nodes
                .get(br.wire.index())
                .and_then(|n| n.object.as_deref())
        };
        let (Some(oa), Some(ob)) = (wire(a), wire(b)) else {
            return false;
        };
        let excludes = |x: &ObjectRules, y: &ObjectRules| {
            y.additional == Additional::Forbidden
                && x.required.iter().any(|r| !y.properties.contains(r))
        };
        excludes(oa, ob) || excludes(ob, oa)
    }

    /// Two object branches whose lenses lift every wire value both accept alike, so that it
    /// does not matter which of them reads an answer (typical of "one of these groups of
    /// properties is required" unions, whose branches differ only in what they require).
    /// Their lenses may differ only where one sends a member as it is, required, and the other
    /// sends its absence as `null` ([`Absent::Null`], the value itself as it is): the two
    /// readings differ on `null` alone, which the first branch's wire schema for the member
    /// does not admit (or the first branch, closed, does not declare the member at all).
    /// Items and everything else must be reshaped the same way.
    fn lift_alike(&self, a: &Branch, b: &Branch) -> bool {
        let wire_object = |br: &Branch| {
            self.nodes
                .get(br.wire.index())
                .and_then(|n| n.object.as_deref())
        };
        let (Some(sa), Some(sb), Some(oa), Some(ob)) = (
            shape_of(&a.lens),
            shape_of(&b.lens),
            wire_object(a),
            wire_object(b),
        ) else {
            return false;
        };
        if sa.prefix != sb.prefix || sa.items != sb.items {
            return false;
        }
        // `p` reshapes a member the other branch (object `o`) sends as it is, required, and
        // does not let be `null`; or does not declare, closed (then no object has both shapes).
        let null_only = |p: &PropLens, o: &ObjectRules| {
            p.absent == Absent::Null
                && p.lens.is_identity()
                && match o.properties.get(&p.name) {
                    Some(w) => !self.wire_admits_null(w),
                    None => o.additional == Additional::Forbidden,
                }
        };
        sa.props.iter().all(|p| match sb.prop(&p.name) {
            Some(q) => p == q,
            None => null_only(p, ob),
        }) && sb
            .props
            .iter()
            .all(|q| sa.prop(&q.name).is_some() || null_only(q, oa))
    }

    /// True unless the wire node `id` is known not to admit `null`.
    fn wire_admits_null(&self, id: NodeId) -> bool {
        let types = if id.index() < self.source.len() {
            self.source.admitted(id)
        } else {
            self.nodes
                .get(id.index())
                .map_or(TypeSet::ANY, Node::local_types)
        };
        types.contains(JsonType::Null)
    }

    /// A branch's candidate discriminators: the properties it requires, sends as they are
    /// (so the wire value still tells the branches apart), and limits to constant values.
    fn tags(&self, b: &Branch) -> Tags<'_> {
        let Some(o) = &self.source.node(b.source).object else {
            return Tags::default();
        };
        // The members the lens reshapes, hashed once: objects may require thousands.
        let reshaped: HashSet<&str> = match &b.lens {
            Lens::Identity => HashSet::new(),
            Lens::Shape(s) => s.props.iter().map(|p| &*p.name).collect(),
            _ => return Tags::default(),
        };
        let mut tags = HashMap::new();
        for r in o.required.iter().filter(|r| !reshaped.contains(&***r)) {
            let Some(p) = o.properties.get(r) else {
                continue;
            };
            if let Some(values) = constants(self.source.node(p)) {
                tags.insert(&**r, values);
            }
        }
        Tags(tags)
    }
}

/// The shape lens of an object node: nothing reshaped for an untouched one; `None` for any
/// other lens.
fn shape_of(lens: &Lens) -> Option<&ShapeLens> {
    /// The shape of an untouched node.
    static UNTOUCHED: ShapeLens = ShapeLens {
        props: Vec::new(),
        prefix: Vec::new(),
        items: Lens::Identity,
    };
    match lens {
        Lens::Identity => Some(&UNTOUCHED),
        Lens::Shape(s) => Some(s),
        _ => None,
    }
}

/// Pairs of union branches the reshaper checks for disjointness at most (about 1,450 branches).
const MAX_UNION_PAIRS: usize = 1 << 20;

/// Per required, untouched property: its constant values, hashed and sorted, so that two
/// branches compare in linear time.
#[derive(Default)]
struct Tags<'a>(HashMap<&'a str, Vec<(u64, &'a Value)>>);

impl Tags<'_> {
    /// Both branches require a property whose constant values differ.
    fn tell_apart(&self, other: &Tags<'_>) -> bool {
        self.0
            .iter()
            .any(|(name, xs)| other.0.get(name).is_some_and(|ys| !share_a_value(xs, ys)))
    }
}

/// True when two hash-sorted value lists have a value in common.
fn share_a_value(xs: &[(u64, &Value)], ys: &[(u64, &Value)]) -> bool {
    let (mut i, mut j) = (0, 0);
    while let (Some((hx, x)), Some((hy, _))) = (xs.get(i), ys.get(j)) {
        match hx.cmp(hy) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                // Every value of `ys` with this hash, against `x`: equal hashes may differ.
                let mut same_hash = ys.iter().skip(j).take_while(|(h, _)| h == hx);
                if same_hash.any(|(_, y)| json_eq(x, y)) {
                    return true;
                }
                i += 1;
            }
        }
    }
    false
}

/// The finite set of values a node allows through `const`/`enum`, if it has one, hashed and
/// sorted by hash.
fn constants(n: &Node) -> Option<Vec<(u64, &Value)>> {
    let mut values: Vec<(u64, &Value)> = n
        .literals()?
        .into_iter()
        .map(|v| (json_hash(v), v))
        .collect();
    values.sort_unstable_by_key(|(h, _)| *h);
    Some(values)
}

/// True when a node reshaped by `lens` admits `null` on the wire whenever its source does: every
/// lens keeps the node's types except one that sends it as JSON text (a string), directly or in
/// a union branch (which may be the branch that admitted `null`).
fn keeps_null(lens: &Lens) -> bool {
    match lens {
        Lens::Opaque => false,
        Lens::Union(u) => u.branches.iter().all(|b| keeps_null(&b.lens)),
        Lens::Identity | Lens::Shape(_) | Lens::Entries(_) | Lens::Envelope(_) => true,
    }
}

/// A node that admits objects whose members it says nothing about (no declared properties,
/// and undeclared members allowed without a schema).
fn admits_free_objects(n: &Node) -> bool {
    match &n.object {
        None => true,
        Some(o) => {
            o.properties.is_empty()
                && matches!(o.additional, Additional::Unspecified | Additional::Allowed)
        }
    }
}
