//! The declared fragment (widening.md, "The contract"): wherever the source schema declares
//! `properties` for an object, the value uses only those names there. Closed decoders cannot
//! invent keys, and nobody wants them to, so the contract only speaks about such values.
//!
//! Read from the schema JSON (not the library's IR), like the harness's `declared`. The
//! schemas that apply at a location are the node and everything its `anyOf`/`oneOf`/`allOf`
//! and local `$ref`s reach; an object there may use the union of the names their `properties`
//! declare (any name when none declares properties). A `$ref` is followed as the harness
//! follows it, by its text: `#` then tokens split at `/` (empty ones skipped, `~1` and `~0`
//! unescaped, no percent-decoding) looked up from the document's root, whatever the draft and
//! whatever `$id` says; one that leads nowhere so is not followed.
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
    declared_at(schema, &[schema], x, 0)
}

/// The node a local reference's text names from `root`, read as described in the module docs.
fn resolve_local<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let path = reference.strip_prefix('#')?;
    path.split('/')
        .filter(|t| !t.is_empty())
        .try_fold(root, |node, token| {
            let token = token.replace("~1", "/").replace("~0", "~");
            match node {
                Value::Object(m) => m.get(&token),
                Value::Array(list) if token.bytes().all(|b| b.is_ascii_digit()) => {
                    list.get(token.parse::<usize>().ok()?)
                }
                _ => None,
            }
        })
}

/// The node and everything its combinators and local references reach.
fn expand<'a>(root: &'a Value, nodes: &[&'a Value]) -> Vec<&'a Value> {
    let mut out: Vec<&Value> = Vec::new();
    let mut seen: std::collections::HashSet<*const Value> = std::collections::HashSet::new();
    let mut stack: Vec<&Value> = nodes.to_vec();
    while let Some(n) = stack.pop() {
        if !n.is_object() || out.len() > 10_000 || !seen.insert(n) {
            continue;
        }
        out.push(n);
        for k in ["anyOf", "oneOf", "allOf"] {
            if let Some(Value::Array(list)) = n.get(k) {
                stack.extend(list.iter());
            }
        }
        if let Some(target) = n
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| resolve_local(root, r))
        {
            stack.push(target);
        }
    }
    out
}

fn declared_at(root: &Value, nodes: &[&Value], x: &Value, depth: usize) -> bool {
    if depth > 200 {
        return true;
    }
    let nodes = expand(root, nodes);
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
                sub.is_empty() || declared_at(root, &sub, v, depth + 1)
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
            sub.is_empty() || declared_at(root, &sub, v, depth + 1)
        }),
        _ => true,
    }
}
