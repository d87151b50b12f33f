use super::*;
use crate::ir::Additional;
use serde_json::json;

fn violations(v: Value) -> Vec<String> {
    match parse(&v, &ParseOptions::default()) {
        Ok(_) => Vec::new(),
        Err(e) => e.violations.iter().map(|v| v.to_string()).collect(),
    }
}

fn ok(v: Value) -> Schema {
    match parse(&v, &ParseOptions::default()) {
        Ok(s) => s,
        Err(e) => panic!("expected in subset: {e}"),
    }
}

#[test]
fn lists_every_violation_with_pointer_keyword_and_reason() {
    let v = violations(json!({
        "type": "object",
        "properties": {
            "a": {"$ref": "#/$defs/a"},
            "b": {"type": "string", "x-vendor": 1},
            "c": true,
            "d": {}
        },
        "$defs": {"a": {"type": "string"}}
    }));
    assert_eq!(
        v,
        vec![
            "`$ref` at /properties/a: references are outside the ADR-126 subset; inline the definition",
            "at /properties/a: this schema asserts nothing (it is empty or has annotations only), which the subset does not accept; give it a `type` or another assertion",
            "`x-vendor` at /properties/b: unknown keyword; the subset accepts no other keywords (fail-closed): remove it or move it into `description`",
            "`properties` at /properties/c: boolean schemas are outside the subset; write a schema object with the constraint you mean",
            "at /properties/d: this schema asserts nothing (it is empty or has annotations only), which the subset does not accept; give it a `type` or another assertion",
            "`$defs` at /: definitions are outside the ADR-126 subset; inline them where they are used",
        ]
    );
}

#[test]
fn annotations_only_and_empty_schemas_are_outside() {
    assert_eq!(violations(json!({})).len(), 1);
    assert_eq!(
        violations(json!({"description": "x", "title": "t"})).len(),
        1
    );
    assert!(violations(json!({"uniqueItems": false})).is_empty());
    assert_eq!(violations(json!(true)).len(), 1);
    assert_eq!(violations(json!([])).len(), 1);
}

#[test]
fn value_shapes_are_checked() {
    let cases = [
        json!({"enum": []}),
        json!({"enum": "a"}),
        json!({"minLength": -1}),
        json!({"minLength": 1.5}),
        json!({"maxItems": "3"}),
        json!({"multipleOf": 0}),
        json!({"multipleOf": 0.5}),
        json!({"required": "a"}),
        json!({"required": ["a", "a"]}),
        json!({"required": [1]}),
        json!({"type": "text"}),
        json!({"type": []}),
        json!({"type": ["string", "string"]}),
        json!({"items": [{"type": "string"}]}),
        json!({"items": true}),
        json!({"anyOf": []}),
        json!({"anyOf": {}}),
        json!({"properties": []}),
        json!({"additionalProperties": 1}),
        json!({"exclusiveMinimum": true}),
        json!({"type": "string", "title": 1}),
        json!({"type": "string", "examples": "x"}),
    ];
    for case in cases {
        assert_eq!(violations(case.clone()).len(), 1, "{case}");
    }
}

#[test]
fn integral_floats_count_as_integers_for_counts() {
    let s = ok(json!({"type": "string", "minLength": 2.0, "maxLength": 5}));
    let rules = s
        .root_node()
        .string
        .as_ref()
        .map(|r| (r.min_length, r.max_length));
    assert_eq!(rules, Some((Some(2), Some(5))));
    let s = ok(json!({"multipleOf": 3.0}));
    assert_eq!(
        s.root_node().number.as_ref().and_then(|n| n.multiple_of),
        Some(3)
    );
}

#[test]
fn bounds_fold_into_the_tighter_one() {
    let s = ok(json!({"minimum": 5, "exclusiveMinimum": 5, "maximum": 10, "exclusiveMaximum": 11}));
    let n = s.root_node().number.as_deref().cloned().unwrap_or_default();
    let lower = n.lower.unwrap_or_else(|| panic!("lower"));
    let upper = n.upper.unwrap_or_else(|| panic!("upper"));
    assert!(lower.exclusive && lower.value == json!(5).as_number().cloned().unwrap());
    assert!(!upper.exclusive && upper.value == json!(10).as_number().cloned().unwrap());
    let s = ok(json!({"minimum": 6, "exclusiveMinimum": 5}));
    let lower = s
        .root_node()
        .number
        .as_ref()
        .and_then(|n| n.lower.clone())
        .unwrap();
    assert!(!lower.exclusive);
}

#[test]
fn properties_keep_source_order_and_lookup_works_when_large() {
    let mut props = serde_json::Map::new();
    for i in (0..100).rev() {
        props.insert(format!("p{i}"), json!({"type": "integer"}));
    }
    let s = ok(json!({"type": "object", "properties": props, "additionalProperties": false}));
    let rules = s.root_node().object.as_ref().unwrap();
    let names: Vec<&str> = rules.properties.iter().map(|(n, _)| n).collect();
    assert_eq!(names.first(), Some(&"p99"));
    assert_eq!(names.last(), Some(&"p0"));
    assert!(rules.properties.get("p42").is_some());
    assert!(rules.properties.get("p100").is_none());
    assert_eq!(rules.additional, Additional::Forbidden);
}

#[test]
fn limits_are_errors_not_crashes() {
    // Built by hand: `json!` serializes interpolated values recursively.
    let mut v = json!({"type": "string"});
    for _ in 0..100_000 {
        let mut m = serde_json::Map::new();
        m.insert("type".into(), json!("array"));
        m.insert("items".into(), v);
        v = Value::Object(m);
    }
    let err = parse(&v, &ParseOptions::default()).unwrap_err();
    assert_eq!(err.violations.len(), 1);
    assert!(err.violations[0]
        .to_string()
        .contains("nesting depth exceeds the limit of 64"));
    // serde_json's drop is recursive: take the value apart iteratively.
    let mut cur = v;
    while let Value::Object(mut m) = cur {
        cur = m.remove("items").unwrap_or(Value::Null);
    }

    let big_enum: Vec<Value> = (0..20_000).map(|i| json!(i)).collect();
    let v = violations(json!({"enum": big_enum}));
    assert_eq!(v.len(), 1);
    assert!(v[0].contains("number of enum values exceeds the limit of 10000"));

    let mut props = serde_json::Map::new();
    for i in 0..100_000 {
        props.insert(format!("p{i}"), json!({"type": "integer"}));
    }
    let v = violations(json!({"type": "object", "properties": props}));
    assert_eq!(v.len(), 1);
    assert!(v[0].contains("number of schema nodes exceeds the limit of 50000"));

    let long = "a".repeat(1 << 20);
    let v = violations(json!({"type": "string", "pattern": long}));
    assert_eq!(v.len(), 1);
    assert!(v[0].contains("pattern length"));
}

#[test]
fn limits_can_be_raised() {
    let opts = ParseOptions::with_limits(Limits::default().with_max_enum_values(30_000));
    let big_enum: Vec<Value> = (0..20_000).map(|i| json!(i)).collect();
    assert!(parse(&json!({"enum": big_enum}), &opts).is_ok());
}

#[test]
fn deep_literals_are_bounded() {
    let mut v = json!(1);
    for _ in 0..100 {
        v = json!([v]);
    }
    let out = violations(json!({"const": v}));
    assert_eq!(out.len(), 1);
    assert!(out[0].starts_with("`const` at /: nesting depth"));
}

#[test]
fn out_of_subset_keywords_have_advice() {
    for (k, v) in [
        ("patternProperties", json!({"^a": {"type": "string"}})),
        ("if", json!({"type": "string"})),
        ("dependentRequired", json!({})),
        ("$comment", json!("x")),
        ("minProperties", json!(1)),
        ("_format", json!("date")),
    ] {
        let mut m = serde_json::Map::new();
        m.insert("type".into(), json!("object"));
        m.insert(k.into(), v);
        let out = violations(Value::Object(m));
        assert_eq!(out.len(), 1, "{k}");
        assert!(out[0].starts_with(&format!("`{k}` at /:")), "{}", out[0]);
    }
}

#[test]
fn local_types_come_from_type_enum_and_const() {
    use crate::value::JsonType;
    let s = ok(json!({"enum": ["a", "b"]}));
    assert_eq!(s.root_node().local_types(), TypeSet::of(JsonType::String));
    let s = ok(json!({"type": ["number", "null"], "const": 3}));
    assert_eq!(s.root_node().local_types(), TypeSet::of(JsonType::Integer));
}
