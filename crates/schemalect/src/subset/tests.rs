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
    let opts = ParseOptions::default().with_limits(Limits::default().with_max_enum_values(30_000));
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

mod extended {
    use super::*;

    fn ext(v: Value) -> Result<Schema, Vec<String>> {
        let opts = ParseOptions {
            subset: Subset::Extended,
            ..ParseOptions::default()
        };
        parse(&v, &opts).map_err(|e| e.violations.iter().map(|v| v.to_string()).collect())
    }

    #[test]
    fn local_references_resolve_and_share_nodes() {
        let s = ext(json!({
            "$defs": {"name": {"type": "string", "minLength": 1}},
            "definitions": {"age": {"type": "integer", "minimum": 0}},
            "type": "object",
            "properties": {
                "first": {"$ref": "#/$defs/name"},
                "last": {"$ref": "#/$defs/name", "maxLength": 3},
                "age": {"$ref": "#/definitions/age"},
                "again": {"$ref": "#/properties/age"}
            },
            "$comment": "vendor keys and comments are annotations here",
            "x-vendor": {"anything": true}
        }))
        .unwrap();
        assert!(s.is_valid(&json!({"first": "a", "last": "abc", "age": 3, "again": 1})));
        assert!(!s.is_valid(&json!({"first": ""})));
        assert!(
            !s.is_valid(&json!({"last": "abcd"})),
            "siblings of $ref apply too"
        );
        assert!(!s.is_valid(&json!({"again": -1})));
        let first = s
            .root_node()
            .object
            .as_ref()
            .unwrap()
            .properties
            .get("first")
            .unwrap();
        let last = s
            .root_node()
            .object
            .as_ref()
            .unwrap()
            .properties
            .get("last")
            .unwrap();
        assert_eq!(
            s.node(first).reference,
            s.node(last).reference,
            "one definition, shared"
        );
    }

    #[test]
    fn recursion_is_a_cycle_and_validation_is_depth_safe() {
        let s = ext(json!({
            "type": "object",
            "properties": {"value": {"type": "integer"}, "next": {"$ref": "#"}},
            "required": ["value"]
        }))
        .unwrap();
        assert!(s.is_valid(&json!({"value": 1, "next": {"value": 2, "next": {"value": 3}}})));
        assert!(!s.is_valid(&json!({"value": 1, "next": {"value": "x"}})));
        // A list 100,000 long: the validator stops at its limit with an error, no crash.
        let mut v = json!({"value": 0});
        for _ in 0..100_000 {
            let mut m = serde_json::Map::new();
            m.insert("value".into(), json!(1));
            m.insert("next".into(), v);
            v = Value::Object(m);
        }
        assert!(!s.is_valid(&v));
        let errs = s.validate(&v).unwrap_err();
        assert!(errs.to_string().contains("validation limit"), "{errs}");
        let mut cur = v;
        while let Value::Object(mut m) = cur {
            cur = m.remove("next").unwrap_or(Value::Null);
        }
    }

    #[test]
    fn limit_hit_under_not_still_rejects() {
        let s = ext(json!({
            "$defs": {"deep": {"type": "array", "items": {"$ref": "#/$defs/deep"}}},
            "not": {"$ref": "#/$defs/deep"}
        }))
        .unwrap();
        assert!(s.is_valid(&json!(1)));
        assert!(!s.is_valid(&json!([[]])));
        let mut v = json!([]);
        for _ in 0..1_000 {
            v = Value::Array(vec![v]);
        }
        assert!(
            !s.is_valid(&v),
            "hitting the limit under `not` must not make the instance valid"
        );
        assert!(s.validate(&v).is_err());
    }

    #[test]
    fn bad_references_are_named() {
        let e = ext(json!({"type": "object", "properties": {
            "a": {"$ref": "https://example.com/s.json"},
            "b": {"$ref": "#/$defs/missing"},
            "c": {"$ref": "#anchor"}
        }}))
        .unwrap_err();
        assert_eq!(e.len(), 3, "{e:?}");
        assert!(e[0].contains("remote references are outside the extended subset"));
        assert!(e[1].contains("does not point to a schema object"));
        let e = ext(json!({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"allOf": [{"$ref": "#/$defs/a"}]}}, "$ref": "#/$defs/a"})).unwrap_err();
        assert!(
            e.iter()
                .any(|m| m.contains("never descends into the instance")),
            "{e:?}"
        );
    }

    #[test]
    fn adr126_is_unchanged() {
        let v = json!({"$defs": {"a": {"type": "string"}}, "$ref": "#/$defs/a", "x-k": 1, "$comment": "c"});
        let adr = violations(v.clone());
        assert_eq!(adr.len(), 5, "{adr:?}");
        assert!(ext(v).is_ok());
        // The extended subset accepts schemas that assert nothing: they accept every value.
        let any =
            ext(json!({"$defs": {"a": {"type": "string"}}, "description": "anything"})).unwrap();
        assert!(any.is_valid(&json!({"x": [1]})));
    }

    #[test]
    fn percent_encoded_and_escaped_pointers() {
        let s = ext(json!({
            "$defs": {"a b": {"type": "string"}, "c/d": {"type": "integer"}},
            "anyOf": [{"$ref": "#/$defs/a%20b"}, {"$ref": "#/$defs/c~1d"}]
        }))
        .unwrap();
        assert!(s.is_valid(&json!("x")));
        assert!(s.is_valid(&json!(1)));
        assert!(!s.is_valid(&json!(true)));
    }

    #[test]
    fn plain_pointers_are_those_a_textual_reader_resolves_alike() {
        for (text, plain) in [
            ("#", true),
            ("#/$defs/a", true),
            ("#/$defs/c~1d", true),
            ("#/anyOf/0", true),
            ("#/$defs/a%20b", false),
            ("#/", false),
            ("#/$defs//a", false),
            ("#anchor", false),
            ("other.json#/a", false),
        ] {
            assert_eq!(is_plain_pointer(text), plain, "{text}");
        }
        let s = ext(json!({
            "$defs": {"a b": {"type": "string"}, "c": {"type": "integer"}},
            "anyOf": [{"$ref": "#/$defs/a%20b"}, {"$ref": "#/$defs/c"}]
        }))
        .unwrap();
        let flags: Vec<(String, bool)> = s
            .nodes()
            .filter(|(_, n)| n.reference.is_some())
            .map(|(_, n)| (n.pointer.to_string(), n.plain_reference))
            .collect();
        assert_eq!(
            flags,
            vec![
                ("/anyOf/0".to_owned(), false),
                ("/anyOf/1".to_owned(), true)
            ]
        );
    }
}
