//! Which objects may be closed to their own declared properties without narrowing.
//!
//! The widening contract is stated on the *declared fragment*: wherever the source declares
//! properties for an object, a value uses only those names there. "There" is an instance
//! location, and every schema that applies at that location counts: the members of `allOf`, and
//! the branches of `anyOf`/`oneOf` too (the independent harness reads it the same way). So in
//!
//! ```json
//! {"anyOf": [{"properties": {"a": {}}}, {"properties": {"b": {}}}]}
//! ```
//!
//! `{"a": 1, "b": 2}` is in the fragment, and it matches the first branch, which is open.
//! Closing each branch to its own names (what a closed decoder does) would reject it. A node is
//! *unsafe to close* when it is open (undeclared members allowed, with or without a schema for
//! them) and some schema at its location declares a name it does not. Closed decoders must then
//! keep it open (reshaping) or fall back (Gemini `responseSchema`).
//!
//! References are followed the way a reader of the JSON follows them (widening.md's "wherever
//! S declares properties", and the independent harness): a `$ref` written as a plain JSON
//! Pointer from the document's root ([`crate::ir::Node::plain_reference`]) brings its target's
//! declarations to the location, like an `allOf` member. Any other reference (an anchor, a
//! percent-encoded or `$id`-relative pointer, a document of the registry, a drafts 4 to 7
//! `$ref` beside declarations it overrides) is not followed there: its location's names come
//! from the schemas written at it, so an open object behind it declares nothing for the
//! location, and closing it would reject values whose members such a reader counts as
//! undeclared-but-allowed. Those objects are *hidden* ([`hidden_by_references`]), results
//! keyed by source pointer, which survives inlining and normalisation.

use crate::ir::{Additional, NodeId, ObjectRules};
use crate::pointer::Pointer;
use crate::schema::Schema;
use crate::seen::Distinct;
use std::collections::{HashMap, HashSet};

/// Past this many distinct locations the analysis gives up and calls every open object unsafe.
const MAX_GROUPS: usize = 100_000;

/// Past this many (declared name, other object's `additionalProperties`) pairs at one
/// location, likewise.
const MAX_MEMBER_EXTRAS: usize = 1 << 22;

/// The source pointers of the open objects that references which are not plain pointers hide
/// from their location's declared names (see the module docs). Call it on the schema as
/// parsed, before references are written out in place; pointers survive that and
/// normalisation.
pub(crate) fn hidden_by_references(schema: &Schema) -> HashSet<Pointer> {
    let mut out = HashSet::new();
    if !schema.has_references()
        || schema
            .nodes()
            .all(|(_, n)| n.reference.is_none() || n.plain_reference)
    {
        return out;
    }
    // Everything a reference reaches, and the referring nodes, which take the target's rules.
    let open_object = |id: NodeId| {
        schema
            .node(id)
            .object
            .as_ref()
            .is_some_and(|o| o.additional != Additional::Forbidden && !o.properties.is_empty())
    };
    let mut seen = vec![false; schema.len()];
    let mut stack: Vec<NodeId> = Vec::new();
    for (_, n) in schema.nodes() {
        let Some(t) = n.reference else {
            continue;
        };
        // The referring node becomes the target once written out in place: it is hidden when
        // a reference on the way to the last target is not plain.
        let mut plain = n.plain_reference;
        let mut target = t;
        let mut hops = 0;
        while let Some(next) = schema.node(target).reference.filter(|_| hops < 64) {
            plain &= schema.node(target).plain_reference;
            target = next;
            hops += 1;
        }
        if plain {
            continue;
        }
        if !n.plain_reference {
            stack.push(t);
        }
        if open_object(target) || expand(schema, &[target]).into_iter().any(open_object) {
            out.insert(n.pointer.clone());
        }
    }
    while let Some(id) = stack.pop() {
        match seen.get_mut(id.index()) {
            Some(s) if !*s => *s = true,
            _ => continue,
        }
        // A node whose `allOf` members are open objects becomes one when normalisation merges
        // them into it, under the node's own pointer: it is hidden too. And normalisation
        // distributes a node's properties into its `anyOf`/`oneOf` branches, each under the
        // branch's own pointer: the branches are hidden with it.
        let location = expand(schema, &[id]);
        if location.iter().any(|m| open_object(*m)) {
            out.extend(location.iter().map(|m| schema.node(*m).pointer.clone()));
        }
        stack.extend(schema.node(id).subschemas());
    }
    // A node with a hidden member in `allOf` takes that member's rules when normalisation
    // merges it, under the node's own pointer, so it is hidden too: `{"allOf": [{"$ref": …}]}`
    // at the root, say. One round per level of nested `allOf` (at most the depth limit).
    for _ in 0..=crate::limits::Limits::default().max_depth {
        let more: Vec<Pointer> = schema
            .nodes()
            .filter(|(_, n)| !out.contains(&n.pointer))
            .filter(|(_, n)| {
                n.all_of
                    .iter()
                    .any(|m| out.contains(&schema.node(*m).pointer))
            })
            .map(|(_, n)| n.pointer.clone())
            .collect();
        if more.is_empty() {
            break;
        }
        out.extend(more);
    }
    out
}

/// For each node of the schema: true when closing it to its declared properties could reject
/// a value of the declared fragment. References left in the schema (recursive ones, once the
/// others are written out in place) are followed, every one of them: following one that is not
/// plain only adds names to a location, which flags more objects, never fewer (what such a
/// reference reaches is [`hidden_by_references`] anyway).
pub(crate) fn unsafe_to_close(schema: &Schema) -> Vec<bool> {
    let n = schema.len();
    let mut flags = vec![false; n];
    // Most locations hold one schema without combinators: they are tracked by node, without
    // hashing, and nothing at them can be unsafe (every name declared there is their own).
    let mut seen_alone = vec![false; n];
    let mut seen: HashSet<Vec<NodeId>> = HashSet::new();
    // Locations of one subschema wait on their own stack, so the common case allocates nothing.
    let mut lone: Vec<NodeId> = vec![schema.root()];
    let mut work: Vec<Vec<NodeId>> = Vec::new();
    loop {
        let group = match lone.pop() {
            Some(id) if is_alone(schema, id) => {
                match seen_alone.get_mut(id.index()) {
                    Some(s) if !*s => *s = true,
                    _ => continue,
                }
                push_locations_below(schema, id, &mut lone);
                continue;
            }
            Some(id) => vec![id],
            None => match work.pop() {
                Some(group) => group,
                None => break,
            },
        };
        let nodes = expand(schema, &group);
        if !seen.insert(nodes.clone()) {
            continue;
        }
        if seen.len() > MAX_GROUPS {
            return all_open_objects(schema);
        }
        // The names declared at this location, and per name the subschemas below it: built
        // in one pass over the declarations, as a union may hold thousands of objects.
        let mut names: Vec<&str> = Vec::new();
        let mut below: HashMap<&str, Vec<NodeId>> = HashMap::new();
        for id in &nodes {
            if let Some(o) = &schema.node(*id).object {
                for (name, sub) in o.properties.iter() {
                    below
                        .entry(name)
                        .or_insert_with(|| {
                            names.push(name);
                            Vec::new()
                        })
                        .push(sub);
                }
            }
        }
        for id in &nodes {
            let Some(o) = &schema.node(*id).object else {
                continue;
            };
            // Linear overall: the scan passes only names this object declares, then stops.
            let open = o.additional != Additional::Forbidden;
            if open && !o.properties.is_empty() && names.iter().any(|n| !o.properties.contains(n)) {
                if let Some(f) = flags.get_mut(id.index()) {
                    *f = true;
                }
            }
        }
        // The locations below this one, as the declared fragment walks them. A member one
        // object declares is checked against the `additionalProperties` schema of every other
        // object here that does not declare it: those apply at the member's location too.
        let extras: Vec<(&ObjectRules, NodeId)> = nodes
            .iter()
            .filter_map(|id| {
                let o = schema.node(*id).object.as_deref()?;
                match o.additional {
                    Additional::Schema(s) => Some((o, s)),
                    _ => None,
                }
            })
            .collect();
        if names.len().saturating_mul(extras.len()) > MAX_MEMBER_EXTRAS {
            return all_open_objects(schema);
        }
        for name in &names {
            let mut group = below.remove(name).unwrap_or_default();
            group.extend(
                extras
                    .iter()
                    .filter(|(o, _)| !o.properties.contains(name))
                    .map(|(_, s)| *s),
            );
            push_location(group, &mut lone, &mut work);
        }
        let arrays: Vec<_> = nodes
            .iter()
            .filter_map(|id| schema.node(*id).array.as_deref())
            .collect();
        let longest = arrays
            .iter()
            .map(|a| a.prefix_items.len())
            .max()
            .unwrap_or(0);
        for i in 0..longest {
            let group = arrays
                .iter()
                .filter_map(|a| a.prefix_items.get(i).copied().or(a.items))
                .collect();
            push_location(group, &mut lone, &mut work);
        }
        let items = arrays.iter().filter_map(|a| a.items).collect();
        push_location(items, &mut lone, &mut work);
        let additional = nodes
            .iter()
            .filter_map(|id| match schema.node(*id).object.as_ref()?.additional {
                Additional::Schema(s) => Some(s),
                _ => None,
            })
            .collect();
        push_location(additional, &mut lone, &mut work);
    }
    flags
}

/// The source pointers of the nodes [`unsafe_to_close`] flags.
pub(crate) fn unsafe_pointers(schema: &Schema) -> Vec<Pointer> {
    let flags = unsafe_to_close(schema);
    schema
        .nodes()
        .filter(|(id, _)| flags.get(id.index()) == Some(&true))
        .map(|(_, n)| n.pointer.clone())
        .collect()
}

/// True when a node is the only schema at its location: no combinators, no reference.
fn is_alone(schema: &Schema, id: NodeId) -> bool {
    let n = schema.node(id);
    n.all_of.is_empty() && n.any_of.is_empty() && n.one_of.is_empty() && n.reference.is_none()
}

/// Queues a location for [`unsafe_to_close`]: one subschema on the stack of lone ids, none
/// not at all (nothing is written there).
fn push_location(group: Vec<NodeId>, lone: &mut Vec<NodeId>, work: &mut Vec<Vec<NodeId>>) {
    match group[..] {
        [] => {}
        [id] => lone.push(id),
        _ => work.push(group),
    }
}

/// The locations below a node that is alone at its own, as [`unsafe_to_close`] walks them:
/// each holds one subschema.
fn push_locations_below(schema: &Schema, id: NodeId, lone: &mut Vec<NodeId>) {
    let n = schema.node(id);
    if let Some(o) = &n.object {
        lone.extend(o.properties.iter().map(|(_, sub)| sub));
        if let Additional::Schema(s) = o.additional {
            lone.push(s);
        }
    }
    if let Some(a) = &n.array {
        lone.extend(a.prefix_items.iter().chain(a.items.iter()).copied());
    }
}

/// The nodes that apply at one location: the group and everything its combinators and
/// references reach, sorted and without repeats.
pub(crate) fn expand(schema: &Schema, group: &[NodeId]) -> Vec<NodeId> {
    let mut seen = Distinct::new();
    let mut stack: Vec<NodeId> = group.to_vec();
    while let Some(id) = stack.pop() {
        if !seen.insert(id) {
            continue;
        }
        let n = schema.node(id);
        stack.extend(n.all_of.iter().chain(&n.any_of).chain(&n.one_of).copied());
        stack.extend(n.reference);
    }
    let mut out = seen.into_vec();
    out.sort_unstable();
    out
}

fn all_open_objects(schema: &Schema) -> Vec<bool> {
    schema
        .nodes()
        .map(|(_, n)| {
            n.object
                .as_ref()
                .is_some_and(|o| o.additional != Additional::Forbidden)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn flagged(v: serde_json::Value) -> Vec<String> {
        let s = Schema::parse(&v).unwrap_or_else(|e| panic!("{e}"));
        let flags = unsafe_to_close(&s);
        s.nodes()
            .filter(|(id, _)| flags.get(id.index()) == Some(&true))
            .map(|(_, n)| n.pointer.as_str().to_owned())
            .collect()
    }

    #[test]
    fn open_branches_declaring_different_names_are_unsafe() {
        assert_eq!(
            flagged(
                json!({"anyOf": [{"properties": {"a": {"type": "string"}}}, {"properties": {"b": {"type": "string"}}, "additionalProperties": false}]})
            ),
            vec!["/anyOf/0"]
        );
    }

    #[test]
    fn one_declarer_or_closed_objects_are_safe() {
        assert!(
            flagged(json!({"type": "object", "properties": {"a": {"type": "string"}}})).is_empty()
        );
        assert!(flagged(json!({"anyOf": [
            {"properties": {"a": {"type": "string"}}, "additionalProperties": false},
            {"properties": {"b": {"type": "string"}}, "additionalProperties": false}
        ]}))
        .is_empty());
    }

    /// The hidden pointers of an extended-subset schema, sorted.
    fn hidden(source: serde_json::Value) -> Vec<String> {
        hidden_in(crate::Subset::Extended, source)
    }

    /// The hidden pointers of a `full`-subset schema, sorted.
    fn hidden_full(source: serde_json::Value) -> Vec<String> {
        hidden_in(crate::Subset::Full, source)
    }

    fn hidden_in(subset: crate::Subset, source: serde_json::Value) -> Vec<String> {
        let opts = crate::ParseOptions::default().with_subset(subset);
        let s = Schema::parse_with(&source, &opts).unwrap_or_else(|e| panic!("{e}"));
        let mut p: Vec<String> = hidden_by_references(&s)
            .into_iter()
            .map(Pointer::into_string)
            .collect();
        p.sort();
        p
    }

    #[test]
    fn objects_behind_references_that_are_not_plain_pointers_count_as_undeclared() {
        // `%24` is `$`: the parser decodes it, a reader splitting the text does not.
        let p = hidden(json!({
                "$defs": {"item": {"type": "object", "properties": {"a": {"type": "string"}}}},
                "type": "object",
                "properties": {"x": {"$ref": "#/%24defs/item"}, "y": {"$ref": "#/definitions/closed"}},
                "additionalProperties": false,
                "definitions": {"closed": {"type": "object", "properties": {"b": {"type": "string"}}, "additionalProperties": false}}
        }));
        assert_eq!(p, vec!["/$defs/item", "/properties/x"]);
    }

    #[test]
    fn objects_behind_plain_pointers_are_not_hidden() {
        let p = hidden(json!({
                "$defs": {"item": {"type": "object", "properties": {"a": {"type": "string"}}}},
                "type": "object",
                "properties": {"x": {"$ref": "#/$defs/item"}, "y": {"$ref": "#/$defs/item"}}
        }));
        assert!(p.is_empty(), "{p:?}");
        // Reached through a plain pointer and through one that is not: hidden, since one
        // location reads it without its names.
        let p = hidden(json!({
                "$defs": {"item": {"type": "object", "properties": {"a": {"type": "string"}}}},
                "type": "object",
                "properties": {"x": {"$ref": "#/$defs/item"}, "y": {"$ref": "#/$defs/ite%6D"}}
        }));
        assert_eq!(p, vec!["/$defs/item", "/properties/y"]);
    }

    #[test]
    fn which_references_of_the_full_subset_are_plain() {
        let item = json!({"type": "object", "properties": {"a": {"type": "string"}}});
        // A root pointer, in every draft, with `definitions` beside a drafts 4 to 7 `$ref`.
        for draft in [
            "http://json-schema.org/draft-04/schema#",
            "http://json-schema.org/draft-07/schema#",
            "https://json-schema.org/draft/2020-12/schema",
        ] {
            let p = hidden_full(json!({
                "$schema": draft,
                "definitions": {"item": item},
                "properties": {"x": {"$ref": "#/definitions/item", "description": "d"}}
            }));
            assert!(p.is_empty(), "{draft}: {p:?}");
        }
        // Draft 7 ignores the siblings of `$ref`, but a reader of the declared fragment
        // counts their names: `{"x": {"a": "", "b": 1}}` is valid and declared, so the target
        // stays open.
        let p = hidden_full(json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "definitions": {"item": item},
            "properties": {"x": {"$ref": "#/definitions/item", "properties": {"b": {}}}}
        }));
        assert_eq!(p, vec!["/definitions/item", "/properties/x"]);
        // 2020-12 applies them: the location holds both, and the analysis on the written-out
        // schema sees both (nothing hidden).
        let p = hidden_full(json!({
            "definitions": {"item": item},
            "properties": {"x": {"$ref": "#/definitions/item", "properties": {"b": {}}}}
        }));
        assert!(p.is_empty(), "{p:?}");
        // An anchor, and a pointer inside a subschema with an `$id` of its own.
        let p = hidden_full(json!({
            "$defs": {"item": {"$anchor": "it", "type": "object", "properties": {"a": {"type": "string"}}}},
            "properties": {"x": {"$ref": "#it"}}
        }));
        assert_eq!(p, vec!["/$defs/item", "/properties/x"]);
        let p = hidden_full(json!({
            "$id": "https://example.com/root",
            "properties": {"x": {
                "$id": "https://example.com/inner",
                "$defs": {"item": item},
                "properties": {"y": {"$ref": "#/$defs/item"}}
            }}
        }));
        assert_eq!(
            p,
            vec!["/properties/x/$defs/item", "/properties/x/properties/y"]
        );
    }

    #[test]
    fn a_reference_left_in_the_schema_brings_its_names_to_the_location() {
        // The recursive reference stays in the schema; its location holds the node `next`
        // and, through the reference, `node`, which declares `v` and `next` but not `w`.
        let s = Schema::parse_with(
            &json!({
                "$defs": {"node": {"type": "object", "properties": {"v": {}, "next": {"$ref": "#/$defs/node", "properties": {"w": {}}}}}},
                "$ref": "#/$defs/node"
            }),
            &crate::ParseOptions::default().with_subset(crate::Subset::Extended),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let flags = unsafe_to_close(&s);
        let flagged: Vec<&str> = s
            .nodes()
            .filter(|(id, _)| flags.get(id.index()) == Some(&true))
            .map(|(_, n)| n.pointer.as_str())
            .collect();
        assert!(flagged.contains(&"/$defs/node"), "{flagged:?}");
        assert!(
            flagged.contains(&"/$defs/node/properties/next"),
            "{flagged:?}"
        );
    }

    #[test]
    fn the_branches_of_a_hidden_object_are_hidden_with_it() {
        // Normalisation distributes the target's properties into its branch, under the
        // branch's pointer: closing that branch would reject `{"a": "s", "zz": null}`.
        let p = hidden(json!({
            "type": "object",
            "properties": {"a": {"$ref": "#/%24defs/d0"}},
            "$defs": {"d0": {"type": "object", "properties": {"a": {"type": "string"}}, "anyOf": [{"type": "object"}]}}
        }));
        assert_eq!(p, vec!["/$defs/d0", "/$defs/d0/anyOf/0", "/properties/a"]);
        // And through the lowerings: the answer encodes on every route.
        let s = Schema::parse_with(
            &json!({
                "type": "object",
                "properties": {"a": {"$ref": "#/%24defs/d0"}},
                "$defs": {"d0": {"type": "object", "properties": {"a": {"type": "string"}}, "anyOf": [{"type": "object"}]}}
            }),
            &crate::ParseOptions::default().with_subset(crate::Subset::Extended),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let options = crate::LowerOptions::default().with_profile(crate::Profile::Reshaping);
        for target in crate::Target::ALL {
            let l = s.lower(target, &options);
            let x = json!({"a": {"a": "s", "zz": null}});
            if let Err(e) = l.encode(&x) {
                panic!("{target}: {e}");
            }
        }
    }

    #[test]
    fn a_node_merging_a_referenced_open_object_is_hidden_too() {
        let p = hidden(json!({
            "type": "object",
            "allOf": [{"$ref": "#/definitions/%74hing"}],
            "definitions": {"thing": {"type": "object", "properties": {"name": {"type": "string"}}}}
        }));
        assert_eq!(p, vec!["", "/allOf/0", "/definitions/thing"]);
    }

    #[test]
    fn a_member_declared_elsewhere_meets_the_additional_properties_of_the_others() {
        // `b` is declared by the second branch; the first checks it against its
        // `additionalProperties`, an open object declaring `id` only, so `{"b": {"a": ""}}`
        // (declared: `a` is a name `b` declares) would be rejected if it were closed (widening
        // property, seed 2600).
        let f = flagged(json!({"anyOf": [
            {"type": "object", "additionalProperties": {"type": "object", "properties": {"id": {"type": "string"}}}},
            {"type": "object", "properties": {"b": {"type": "object", "properties": {"a": {"type": "string"}}}}}
        ]}));
        assert!(
            f.contains(&"/anyOf/0/additionalProperties".to_owned()),
            "{f:?}"
        );
        // Through the lowerings: the answer encodes on every route, Gemini's included, whose
        // dialect judges the reshaped schema, where the map's value schema sits in an entry
        // list away from `b`.
        let s = Schema::parse(&json!({"anyOf": [
            {"type": "object", "additionalProperties": {"type": "object", "properties": {"id": {"type": "string"}}}},
            {"type": "object", "allOf": [{"properties": {"a": {"type": "string"}, "b": {"type": "object", "properties": {"a": {"type": "string"}}}}}]}
        ]}))
        .unwrap_or_else(|e| panic!("{e}"));
        let x = json!({"b": {"a": ""}});
        assert!(s.is_valid(&x));
        for profile in crate::Profile::ALL {
            let options = crate::LowerOptions::default().with_profile(profile);
            for target in crate::Target::ALL {
                let l = s.lower(target, &options);
                if let Err(e) = l.encode(&x) {
                    panic!("{target} {profile:?}: {e}");
                }
                // Gemini closes every OBJECT it is sent, so the open value schema cannot go.
                if matches!(target, crate::Target::Gemini | crate::Target::VertexGemini) {
                    assert!(l.mode() > crate::Mode::Widened, "{target} {profile:?}");
                }
            }
        }
        // Where the object declares the member itself, its `additionalProperties` does not
        // apply there: nothing to flag.
        let f = flagged(json!({"type": "object",
            "properties": {"b": {"type": "object", "properties": {"a": {"type": "string"}}}},
            "additionalProperties": {"type": "object", "properties": {"id": {"type": "string"}}}
        }));
        assert!(f.is_empty(), "{f:?}");
    }

    #[test]
    fn nested_locations_gather_names_across_branches() {
        let f = flagged(json!({"anyOf": [
            {"properties": {"x": {"properties": {"p": {"type": "integer"}}}}, "additionalProperties": false},
            {"properties": {"x": {"properties": {"q": {"type": "integer"}}, "additionalProperties": false}}, "additionalProperties": false}
        ]}));
        assert_eq!(f, vec!["/anyOf/0/properties/x"]);
    }
}
