use crate::Schema;
use serde_json::{json, Value};

fn schema(v: Value) -> Schema {
    Schema::parse(&v).unwrap_or_else(|e| panic!("{e}"))
}

fn errors(s: &Schema, i: Value) -> Vec<(String, String, &'static str)> {
    match s.validate(&i) {
        Ok(()) => {
            assert!(s.is_valid(&i), "validate and is_valid disagree on {i}");
            Vec::new()
        }
        Err(e) => {
            assert!(!s.is_valid(&i), "validate and is_valid disagree on {i}");
            e.errors
                .into_iter()
                .map(|e| {
                    (
                        e.instance_path.into_string(),
                        e.schema_path.into_string(),
                        e.keyword,
                    )
                })
                .collect()
        }
    }
}

#[test]
fn reports_every_error_with_both_pointers() {
    let s = schema(json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "minLength": 2},
            "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true},
            "age": {"type": "integer", "minimum": 0}
        },
        "required": ["name", "age", "email"],
        "additionalProperties": false
    }));
    let got = errors(
        &s,
        json!({"name": "a", "tags": ["x", 1, "x"], "age": -1.0, "extra": 1}),
    );
    assert_eq!(
        got,
        vec![
            ("".into(), "/required".into(), "required"),
            (
                "/name".into(),
                "/properties/name/minLength".into(),
                "minLength"
            ),
            (
                "/tags/1".into(),
                "/properties/tags/items/type".into(),
                "type"
            ),
            (
                "/tags".into(),
                "/properties/tags/uniqueItems".into(),
                "uniqueItems"
            ),
            ("/age".into(), "/properties/age/minimum".into(), "minimum"),
            (
                "".into(),
                "/additionalProperties".into(),
                "additionalProperties"
            ),
        ]
    );
}

#[test]
fn integers_include_integral_floats() {
    let s = schema(json!({"type": "integer"}));
    assert!(s.is_valid(&json!(5.0)));
    assert!(!s.is_valid(&json!(5.5)));
    assert!(!s.is_valid(&json!("5")));
}

#[test]
fn equality_is_by_value() {
    let s = schema(json!({"enum": [1, {"a": [1]}]}));
    assert!(s.is_valid(&json!(1.0)));
    assert!(s.is_valid(&json!({"a": [1.0]})));
    assert!(!s.is_valid(&json!({"a": [true]})));
    let s = schema(json!({"const": {}}));
    assert!(!s.is_valid(&json!([])));
    let s = schema(json!({"type": "array", "uniqueItems": true}));
    assert!(!s.is_valid(&json!([1, 1.0])));
    assert!(s.is_valid(&json!([{}, []])));
}

#[test]
fn string_length_counts_code_points() {
    let s = schema(json!({"type": "string", "maxLength": 2}));
    assert!(s.is_valid(&json!("💩💩")));
    assert!(!s.is_valid(&json!("💩💩💩")));
}

#[test]
fn exclusive_bounds_and_multiples() {
    let s = schema(json!({"exclusiveMinimum": 0, "maximum": 10, "multipleOf": 2}));
    assert!(!s.is_valid(&json!(0)));
    assert!(s.is_valid(&json!(10)));
    assert!(s.is_valid(&json!(2.0)));
    assert!(!s.is_valid(&json!(3)));
    assert!(!s.is_valid(&json!(12)));
    assert!(s.is_valid(&json!("not a number")));
}

#[test]
fn prefix_items_then_items() {
    let s = schema(json!({
        "type": "array",
        "prefixItems": [{"type": "string"}, {"type": "integer"}],
        "items": {"type": "boolean"}
    }));
    assert!(s.is_valid(&json!(["a", 1, true, false])));
    assert!(s.is_valid(&json!(["a"])));
    assert!(!s.is_valid(&json!(["a", 1, 2])));
    let s = schema(json!({"type": "array", "prefixItems": [{"type": "string"}]}));
    assert!(s.is_valid(&json!(["a", 1, null])));
}

#[test]
fn combinators() {
    let s = schema(json!({"oneOf": [{"type": "integer"}, {"minimum": 2}]}));
    assert!(s.is_valid(&json!(1)));
    assert!(!s.is_valid(&json!(3)));
    assert!(s.is_valid(&json!(2.5)));
    let s = schema(json!({"anyOf": [{"type": "string"}, {"type": "null"}], "not": {"const": "x"}}));
    assert!(s.is_valid(&json!(null)));
    assert!(!s.is_valid(&json!("x")));
    assert!(!s.is_valid(&json!(1)));
    let s = schema(json!({"allOf": [{"minimum": 1}, {"maximum": 3}]}));
    assert_eq!(errors(&s, json!(5)).len(), 1);
    assert!(s.is_valid(&json!(2)));
}

#[test]
fn additional_properties_schema_applies_to_undeclared_members_only() {
    let s = schema(json!({
        "type": "object",
        "properties": {"a": {"type": "string"}},
        "additionalProperties": {"type": "integer"}
    }));
    assert!(s.is_valid(&json!({"a": "x", "b": 1})));
    assert!(!s.is_valid(&json!({"a": 1})));
    assert!(!s.is_valid(&json!({"b": "x"})));
}

#[test]
fn deep_instances_are_safe() {
    let s = schema(json!({"type": "array", "uniqueItems": true}));
    // Built twice: serde_json's clone is recursive.
    let deep = || {
        let mut v = json!(1);
        for _ in 0..100_000 {
            v = Value::Array(vec![v]);
        }
        v
    };
    let inst = Value::Array(vec![deep(), deep()]);
    assert!(!s.is_valid(&inst));
    assert!(s.validate(&inst).is_err());
    let s2 = schema(json!({"enum": [[1]]}));
    assert!(!s2.is_valid(&inst));
    // serde_json's drop is recursive: take the value apart iteratively.
    let mut stack = vec![inst];
    while let Some(v) = stack.pop() {
        if let Value::Array(items) = v {
            stack.extend(items);
        }
    }
}
