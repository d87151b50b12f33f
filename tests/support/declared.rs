//! The declared fragment (widening.md, "The contract"): wherever the source schema declares
//! `properties` for an object, the value uses only those names there. Closed decoders cannot
//! invent keys, and nobody wants them to, so the contract only speaks about such values.
//!
//! Read from the schema JSON (not the library's IR), like the harness's `declared`. The
//! schemas that apply at a location are the node and everything its `anyOf`/`oneOf`/`allOf`
//! reach; an object there may use the union of the names their `properties` declare (any name
//! when none declares properties).
//!
//! Tuples are read in every draft's spelling: `prefixItems` with `items`, and the list form of
//! `items` with `additionalItems` (drafts 4 to 2019-09).
//!
//! Differs from the harness: the value of an undeclared member is checked against the
//! `additionalProperties` schemas that apply to it (the harness stops there), so a map of
//! objects with declared properties is held to those names too, as widening.md's "wherever S
//! declares properties" says.

use serde_json::Value;

/// True when `x` lies in the declared fragment of `schema`.
pub fn declared(schema: &Value, x: &Value) -> bool {
    declared_at(&[schema], x, 0)
}

/// The node and everything its combinators reach.
fn expand<'a>(nodes: &[&'a Value]) -> Vec<&'a Value> {
    let mut out = Vec::new();
    let mut stack: Vec<&Value> = nodes.to_vec();
    while let Some(n) = stack.pop() {
        if !n.is_object() || out.len() > 10_000 {
            continue;
        }
        out.push(n);
        for k in ["anyOf", "oneOf", "allOf"] {
            if let Some(Value::Array(list)) = n.get(k) {
                stack.extend(list.iter());
            }
        }
    }
    out
}

fn declared_at(nodes: &[&Value], x: &Value, depth: usize) -> bool {
    if depth > 200 {
        return true;
    }
    let nodes = expand(nodes);
    match x {
        Value::Object(members) => {
            let props: Vec<&serde_json::Map<String, Value>> = nodes
                .iter()
                .filter_map(|n| n.get("properties").and_then(Value::as_object))
                .collect();
            if !props.is_empty()
                && members
                    .keys()
                    .any(|k| !props.iter().any(|p| p.contains_key(k)))
            {
                return false;
            }
            members.iter().all(|(k, v)| {
                let sub: Vec<&Value> = nodes
                    .iter()
                    .filter_map(|n| {
                        let own = n
                            .get("properties")
                            .and_then(Value::as_object)
                            .and_then(|p| p.get(k));
                        own.or_else(|| n.get("additionalProperties").filter(|a| a.is_object()))
                    })
                    .collect();
                sub.is_empty() || declared_at(&sub, v, depth + 1)
            })
        }
        Value::Array(items) => items.iter().enumerate().all(|(i, v)| {
            let sub: Vec<&Value> = nodes
                .iter()
                .filter_map(|n| {
                    // A tuple: `prefixItems` then `items` (2020-12), or `items` as a list then
                    // `additionalItems` (drafts 4 to 2019-09).
                    let (tuple, tail) = match (n.get("prefixItems"), n.get("items")) {
                        (Some(Value::Array(pi)), _) => (Some(pi), n.get("items")),
                        (None, Some(Value::Array(pi))) => (Some(pi), n.get("additionalItems")),
                        _ => (None, n.get("items")),
                    };
                    match tuple {
                        Some(pi) if i < pi.len() => Some(&pi[i]),
                        _ => tail.filter(|s| s.is_object()),
                    }
                })
                .collect();
            sub.is_empty() || declared_at(&sub, v, depth + 1)
        }),
        _ => true,
    }
}
