//! The widening proof in the extended subset (`docs/subset.md`, "The extended subset"):
//! generators of extended-subset schemas (local `$ref` into `$defs`/`definitions`, shared
//! definitions, recursion through a definition or through `#`, mutual recursion, `$comment`,
//! vendor `x-` keys, any-value subschemas `{}`/`true`/annotation-only) and of values aimed at
//! them, plus [`for_oracle`], which writes the draft-04 spellings the extended subset accepts
//! in their 2020-12 form so that the `jsonschema` crate reads the source as the subset does.
//!
//! Like [`crate::gen`], everything works on the schema's JSON, never on the library's IR, and
//! every strategy shrinks.

use crate::gen;
use proptest::collection::vec;
use proptest::option;
use proptest::prelude::*;
use proptest::sample::select;
use proptest::strategy::{BoxedStrategy, Just};
use serde_json::{json, Map, Value};

/// Schemas that accept every value in the extended subset.
pub const ANY_VALUE: &[&str] = &[
    "{}",
    "true",
    r#"{"description": "anything"}"#,
    r#"{"$comment": "free-form"}"#,
    r#"{"x-kind": "free"}"#,
];

fn any_value_schema() -> BoxedStrategy<Value> {
    select(ANY_VALUE)
        .prop_map(|s| serde_json::from_str(s).unwrap_or(Value::Bool(true)))
        .boxed()
}

/// The definition names used, one of which needs escaping in a pointer and one
/// percent-encoding in a URI fragment.
const DEF_NAMES: &[(&str, &str)] = &[
    ("d0", "d0"),
    ("d1", "d1"),
    ("sh/ared", "sh~1ared"),
    ("a b", "a%20b"),
];

fn reference(container: &str, encoded_name: &str) -> Value {
    json!({ "$ref": format!("#/{container}/{encoded_name}") })
}

/// How a property uses a definition.
#[derive(Clone, Copy, Debug)]
enum Use {
    /// `{"$ref": …}`.
    Plain,
    /// `{"$ref": …, "description": …}` (an annotation beside the reference).
    Annotated,
    /// `{"$ref": …, "not": {"type": "null"}}` (an assertion beside the reference).
    WithAssertion,
    /// `{"type": "array", "items": {"$ref": …}}`.
    Items,
    /// `{"anyOf": [{"$ref": …}, {"type": "null"}]}`.
    OrNull,
}

const USES: &[Use] = &[
    Use::Plain,
    Use::Annotated,
    Use::WithAssertion,
    Use::Items,
    Use::OrNull,
];

fn use_site(r: Value, how: Use) -> Value {
    match how {
        Use::Plain => r,
        Use::Annotated => {
            let mut r = r;
            r["description"] = json!("a shared definition");
            r
        }
        Use::WithAssertion => {
            let mut r = r;
            r["not"] = json!({"type": "null"});
            r
        }
        Use::Items => json!({"type": "array", "items": r}),
        Use::OrNull => json!({"anyOf": [r, {"type": "null"}]}),
    }
}

/// `additionalProperties` of a generated object: absent, `false`, `true` or an any-value
/// schema.
fn closure() -> BoxedStrategy<Option<Value>> {
    prop_oneof![
        2 => Just(None),
        2 => Just(Some(json!(false))),
        1 => Just(Some(json!(true))),
        1 => any_value_schema().prop_map(Some),
    ]
    .boxed()
}

fn object(props: Map<String, Value>, required: Vec<&str>, ap: Option<Value>) -> Value {
    let mut m = Map::new();
    m.insert("type".into(), json!("object"));
    m.insert("properties".into(), Value::Object(props));
    if !required.is_empty() {
        m.insert("required".into(), json!(required));
    }
    if let Some(ap) = ap {
        m.insert("additionalProperties".into(), ap);
    }
    Value::Object(m)
}

/// Definitions shared by several properties (no recursion): written out in place by every
/// dialect.
fn shared_definitions() -> BoxedStrategy<Value> {
    (
        vec(gen::schema(2), 1..3),
        select(&["$defs", "definitions"][..]),
        vec((0usize..4, select(USES), any::<bool>()), 1..4),
        closure(),
        any::<bool>(),
    )
        .prop_map(|(defs, container, uses, ap, special_names)| {
            let names: Vec<(&str, &str)> = if special_names {
                DEF_NAMES[2..].to_vec()
            } else {
                DEF_NAMES[..2].to_vec()
            };
            let mut d = Map::new();
            for (i, s) in defs.iter().enumerate() {
                d.insert(names[i % names.len()].0.to_owned(), s.clone());
            }
            let mut props = Map::new();
            let mut required = Vec::new();
            for (i, (which, how, req)) in uses.iter().enumerate() {
                let (_, encoded) = names[which % defs.len().min(names.len())];
                let name = ["a", "b", "c", "d"][i];
                props.insert(
                    name.to_owned(),
                    use_site(reference(container, encoded), *how),
                );
                if *req {
                    required.push(name);
                }
            }
            let mut root = object(props, required, ap);
            root[container] = Value::Object(d);
            root
        })
        .boxed()
}

/// A linked list through a definition: `next` is the node again (optional) or the node or
/// null (required). The root is the reference, a property holding it, or an array of nodes.
fn linked_list() -> BoxedStrategy<Value> {
    (
        gen::schema(1),
        any::<bool>(),
        closure(),
        0u8..3,
        select(&["$defs", "definitions"][..]),
    )
        .prop_map(|(payload, next_required, ap, root_form, container)| {
            let r = reference(container, "node");
            let next = if next_required {
                json!({"anyOf": [r.clone(), {"type": "null"}]})
            } else {
                r.clone()
            };
            let mut props = Map::new();
            props.insert("value".into(), payload);
            props.insert("next".into(), next);
            let required = if next_required {
                vec!["value", "next"]
            } else {
                vec!["value"]
            };
            let node = object(props, required, ap);
            let mut root = match root_form {
                0 => r,
                1 => json!({"type": "object", "properties": {"head": r}, "additionalProperties": false}),
                _ => json!({"type": "array", "items": r, "maxItems": 3}),
            };
            root[container] = json!({ "node": node });
            root
        })
        .boxed()
}

/// A tree through the root itself (`{"$ref": "#"}`): a label and optional children.
fn tree() -> BoxedStrategy<Value> {
    (
        gen::schema(1),
        any::<bool>(),
        closure(),
        option::of(1u64..4),
    )
        .prop_map(|(label, children_required, ap, max_children)| {
            let mut children = json!({"type": "array", "items": {"$ref": "#"}});
            if let Some(m) = max_children {
                children["maxItems"] = json!(m);
            }
            let mut props = Map::new();
            props.insert("label".into(), label);
            props.insert("children".into(), children);
            let required = if children_required {
                vec!["label", "children"]
            } else {
                vec!["label"]
            };
            object(props, required, ap)
        })
        .boxed()
}

/// Two definitions that refer to each other: an expression is a leaf or a node of two
/// expressions.
fn mutual_recursion() -> BoxedStrategy<Value> {
    (gen::schema(1), closure(), any::<bool>())
        .prop_map(|(leaf, ap, root_is_ref)| {
            let mut props = Map::new();
            props.insert("op".into(), json!({"enum": ["+", "*"]}));
            props.insert("left".into(), json!({"$ref": "#/$defs/expr"}));
            props.insert("right".into(), json!({"$ref": "#/$defs/expr"}));
            let node = object(props, vec!["op", "left", "right"], ap);
            let defs = json!({
                "expr": {"anyOf": [leaf, {"$ref": "#/$defs/node"}]},
                "node": node
            });
            if root_is_ref {
                json!({"$ref": "#/$defs/expr", "$defs": defs})
            } else {
                json!({
                    "type": "object",
                    "properties": {"e": {"$ref": "#/$defs/expr"}},
                    "required": ["e"],
                    "additionalProperties": false,
                    "$defs": defs
                })
            }
        })
        .boxed()
}

/// Any-value subschemas in every applicator position, beside generated ones.
fn any_values() -> BoxedStrategy<Value> {
    (
        any_value_schema(),
        any_value_schema(),
        any_value_schema(),
        gen::schema(2),
        closure(),
        any::<bool>(),
    )
        .prop_map(|(a, items, branch, other, ap, required)| {
            let mut props = Map::new();
            props.insert("free".into(), a);
            props.insert("list".into(), json!({"type": "array", "items": items}));
            props.insert(
                "either".into(),
                json!({"anyOf": [branch, {"type": "string"}]}),
            );
            props.insert("typed".into(), other);
            object(props, if required { vec!["free"] } else { vec![] }, ap)
        })
        .boxed()
}

/// Adds `$comment` and a vendor key to a schema object.
fn annotate(s: Value, comment: bool, vendor: bool) -> Value {
    let Value::Object(mut m) = s else { return s };
    if comment {
        m.insert("$comment".into(), json!("generated"));
    }
    if vendor {
        m.insert("x-origin".into(), json!({"tool": "proptest", "version": 1}));
    }
    Value::Object(m)
}

/// Extended-subset schemas (nearly always in the subset: check with `Schema::parse_with`).
pub fn root_schema() -> BoxedStrategy<Value> {
    (
        prop_oneof![
            3 => shared_definitions(),
            2 => linked_list(),
            2 => tree(),
            1 => mutual_recursion(),
            2 => any_values(),
            1 => any_value_schema(),
        ],
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(s, comment, vendor)| annotate(s, comment, vendor))
        .boxed()
}

/// The node a URI fragment (without the `#`: a percent-encoded JSON Pointer) names in `root`.
fn resolve<'a>(root: &'a Value, fragment: &str) -> Option<&'a Value> {
    let bytes = fragment.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            decoded.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            decoded.push(bytes[i]);
            i += 1;
        }
    }
    root.pointer(&String::from_utf8(decoded).ok()?)
}

/// `schema` with every local `$ref` written out in place, `depth` references deep; past that a
/// reference becomes `{"type": "null"}` (values generated there may be invalid, and the
/// validators then discard them). A reference with siblings becomes an `allOf` of the target
/// and the siblings, as 2020-12 reads it. For value generation only.
pub fn unroll(schema: &Value, depth: usize) -> Value {
    unroll_at(schema, schema, depth)
}

fn unroll_at(root: &Value, s: &Value, depth: usize) -> Value {
    match s {
        Value::Object(m) => {
            let mut out = Map::new();
            for (k, v) in m {
                if matches!(k.as_str(), "$defs" | "definitions" | "$ref") {
                    continue;
                }
                let mapped = match k.as_str() {
                    "enum" | "const" | "default" | "examples" | "required" | "example" => v.clone(),
                    _ => unroll_at(root, v, depth),
                };
                out.insert(k.clone(), mapped);
            }
            if let Some(Value::String(r)) = m.get("$ref") {
                let target = r
                    .strip_prefix('#')
                    .and_then(|f| resolve(root, f))
                    .filter(|_| depth > 0);
                let inlined = match target {
                    Some(t) => unroll_at(root, t, depth - 1),
                    None => json!({"type": "null"}),
                };
                if out.is_empty() {
                    return inlined;
                }
                out.insert("allOf".into(), json!([inlined]));
            }
            Value::Object(out)
        }
        Value::Array(a) => Value::Array(a.iter().map(|x| unroll_at(root, x, depth)).collect()),
        other => other.clone(),
    }
}

/// Values aimed at an extended-subset schema: [`gen::value`] on the schema unrolled three
/// references deep.
pub fn value(schema: &Value) -> BoxedStrategy<Value> {
    gen::value(&unroll(schema, 3))
}

/// `x` with a member `"zz": null` added to every object below the root: such a value lies in
/// the declared fragment only where no `properties` applies (a map, or an open object reached
/// through a `$ref` the declared fragment does not follow: one percent-encoded), so it probes
/// that closed decoders keep those objects open.
pub fn with_undeclared_members(x: &Value) -> Value {
    fn go(x: &Value, top: bool) -> Value {
        match x {
            Value::Object(m) => {
                let mut out: Map<String, Value> =
                    m.iter().map(|(k, v)| (k.clone(), go(v, false))).collect();
                if !top && !out.contains_key("zz") {
                    out.insert("zz".into(), Value::Null);
                }
                Value::Object(out)
            }
            Value::Array(a) => Value::Array(a.iter().map(|v| go(v, false)).collect()),
            other => other.clone(),
        }
    }
    go(x, true)
}

/// The schema as the `jsonschema` crate must read it to agree with the extended subset: the
/// draft-04 tuple (`items` as a list, with `additionalItems`) written as `prefixItems` and
/// `items`, and `$schema` URIs removed by [`crate::oracle::compile`] as usual. Everything else
/// is unchanged.
pub fn for_oracle(s: &Value) -> Value {
    match s {
        Value::Object(m) => {
            let mut out = Map::new();
            let tuple = matches!(m.get("items"), Some(Value::Array(_)));
            for (k, v) in m {
                match (k.as_str(), v) {
                    ("enum" | "const" | "default" | "examples" | "example" | "required", _) => {
                        out.insert(k.clone(), v.clone());
                    }
                    ("items", Value::Array(list)) => {
                        out.insert(
                            "prefixItems".into(),
                            Value::Array(list.iter().map(for_oracle).collect()),
                        );
                    }
                    ("additionalItems", _) if tuple => {
                        out.insert("items".into(), for_oracle(v));
                    }
                    ("additionalItems", _) => {} // ignored without a tuple, as in draft 4
                    ("properties" | "$defs" | "definitions", Value::Object(children)) => {
                        out.insert(
                            k.clone(),
                            Value::Object(
                                children
                                    .iter()
                                    .map(|(n, c)| (n.clone(), for_oracle(c)))
                                    .collect(),
                            ),
                        );
                    }
                    (_, Value::Object(_)) | (_, Value::Array(_)) => {
                        out.insert(k.clone(), for_oracle(v));
                    }
                    _ => {
                        out.insert(k.clone(), v.clone());
                    }
                }
            }
            Value::Object(out)
        }
        Value::Array(a) => Value::Array(a.iter().map(for_oracle).collect()),
        other => other.clone(),
    }
}
