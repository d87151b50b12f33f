//! Lenient mode: a structural match for values whose schemas come from outside (tool inputs, MCP
//! servers), where the schema cannot be required to be inside the subset.
//!
//! Only `type`, `required` and `properties` are checked, recursively through `properties`;
//! every other keyword is ignored, and any JSON is accepted as a schema. A keyword whose value is
//! malformed (`type: "strnig"`, `required: "a"`, `properties: []`) is ignored too: its intent is
//! unknown, and a lenient check must not reject on a guess. `true`, `false`, `{}` and non-object
//! schemas check nothing.
//!
//! The tie to strict validation: **whatever [`Schema::validate`](crate::Schema::validate) accepts,
//! [`matches`](fn@matches) accepts**. Strict validity of a node implies its `type`, `required` and
//! `properties` hold there (keywords at one level are conjunctive, whatever combinators sit next
//! to them), `type` has the same meaning (`5.0` is an integer, every integer is a number), and
//! lenient never looks under a combinator, so nothing a combinator relaxes is checked.
//!
//! The walk is iterative, so a hostile 100,000-level value or schema cannot exhaust the stack;
//! each instance node is visited at most once (there are no references to follow), so it is
//! linear in the instance.

use crate::error::{ValidationError, ValidationErrors};
use crate::pointer::{push_token, Pointer};
use crate::value::{JsonType, TypeSet};
use serde_json::Value;

/// True when `instance` has the types, required members and property structure `schema` asks
/// for. Never fails on a schema, whatever it is.
pub fn matches(schema: &Value, instance: &Value) -> bool {
    walk(schema, instance, None)
}

/// Like [`matches`](fn@matches), but lists every mismatch, each with its instance and schema pointers
/// (keyword `type`, `required`).
pub fn validate(schema: &Value, instance: &Value) -> Result<(), ValidationErrors> {
    let mut errors = Vec::new();
    walk(schema, instance, Some(&mut errors));
    if errors.is_empty() {
        Ok(())
    } else {
        Err(ValidationErrors { errors })
    }
}

/// One pending check: a schema against an instance, and (when errors are wanted) the index of
/// its location in the walk's path arena.
struct Frame<'a> {
    schema: &'a Value,
    instance: &'a Value,
    at: usize,
}

/// Locations as a parent-linked arena of member names (index 0 is the root), so descending
/// costs nothing and a pointer is only spelled out for an error.
struct Paths<'a>(Vec<(usize, &'a str)>);

impl Paths<'_> {
    /// The instance pointer and the schema pointer (`properties` before every name) of `at`.
    fn pointers(&self, mut at: usize) -> (Pointer, Pointer) {
        let mut names = Vec::new();
        while let Some((parent, name)) = self.0.get(at).filter(|_| at != 0) {
            names.push(*name);
            at = *parent;
        }
        // Spelled out in one pass each: `Pointer::join` per level would be quadratic.
        let (mut inst, mut sch) = (String::new(), String::new());
        for name in names.iter().rev() {
            push_token(&mut inst, name);
            push_token(&mut sch, "properties");
            push_token(&mut sch, name);
        }
        (
            Pointer::parse(&inst).unwrap_or_default(),
            Pointer::parse(&sch).unwrap_or_default(),
        )
    }
}

fn walk(schema: &Value, instance: &Value, mut errors: Option<&mut Vec<ValidationError>>) -> bool {
    let mut valid = true;
    let mut paths = Paths(vec![(0, "")]);
    let mut stack = vec![Frame {
        schema,
        instance,
        at: 0,
    }];
    while let Some(frame) = stack.pop() {
        let Some(node) = frame.schema.as_object() else {
            continue;
        };
        let mut fail = |keyword: &'static str, message: String| {
            valid = false;
            if let Some(list) = errors.as_deref_mut() {
                let (inst, sch) = paths.pointers(frame.at);
                list.push(ValidationError {
                    instance_path: inst,
                    schema_path: sch.join(keyword),
                    keyword,
                    message,
                });
            }
        };
        if let Some(types) = node.get("type").and_then(type_set) {
            if !types.admits_value(frame.instance) {
                let expected: Vec<&str> = types.iter().map(JsonType::name).collect();
                fail(
                    "type",
                    format!(
                        "expected {}, found {}",
                        expected.join(" or "),
                        JsonType::of(frame.instance).name()
                    ),
                );
            }
        }
        let Some(members) = frame.instance.as_object() else {
            if !valid && errors.is_none() {
                return false;
            }
            continue;
        };
        if let Some(required) = node.get("required").and_then(string_list) {
            for name in required {
                if !members.contains_key(name) {
                    fail(
                        "required",
                        format!("the required property `{name}` is missing"),
                    );
                }
            }
        }
        if !valid && errors.is_none() {
            return false;
        }
        let Some(properties) = node.get("properties").and_then(Value::as_object) else {
            continue;
        };
        // Pushed in reverse so that errors come out in the instance's member order.
        for (name, member) in members.iter().rev() {
            if let Some(sub) = properties.get(name) {
                let at = if errors.is_some() {
                    paths.0.push((frame.at, name));
                    paths.0.len() - 1
                } else {
                    0
                };
                stack.push(Frame {
                    schema: sub,
                    instance: member,
                    at,
                });
            }
        }
    }
    valid
}

/// The types a well-formed `type` names: one known name, or a non-empty list of known names.
fn type_set(v: &Value) -> Option<TypeSet> {
    match v {
        Value::String(s) => JsonType::from_name(s).map(TypeSet::of),
        Value::Array(names) if !names.is_empty() => {
            names.iter().try_fold(TypeSet::EMPTY, |set, n| {
                n.as_str()
                    .and_then(JsonType::from_name)
                    .map(|t| set.with(t))
            })
        }
        _ => None,
    }
}

/// The names of a well-formed `required`: a list of strings.
fn string_list(v: &Value) -> Option<Vec<&str>> {
    v.as_array()?.iter().map(Value::as_str).collect()
}

#[cfg(test)]
mod tests;
