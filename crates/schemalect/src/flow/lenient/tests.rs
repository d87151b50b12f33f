use super::*;
use crate::Schema;
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use serde_json::{json, Map};

fn strict(schema: &Value) -> Schema {
    Schema::parse(schema).unwrap_or_else(|e| panic!("{e}"))
}

// ---------------------------------------------------------------------------------------------
// Hand-written cases.

#[test]
fn checks_type_required_and_properties_recursively() {
    let schema = json!({
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "address": {
                "type": "object",
                "properties": {"zip": {"type": ["string", "null"]}},
                "required": ["zip"]
            }
        },
        "required": ["name"]
    });
    assert!(matches(
        &schema,
        &json!({"name": "Ada", "address": {"zip": null}})
    ));
    assert!(!matches(&schema, &json!([])));
    assert!(!matches(&schema, &json!({"address": {"zip": "0150"}})));
    assert!(!matches(&schema, &json!({"name": 1})));
    assert!(!matches(&schema, &json!({"name": "Ada", "address": {}})));
    assert!(!matches(
        &schema,
        &json!({"name": "Ada", "address": {"zip": 150}})
    ));

    let errors = validate(
        &schema,
        &json!({"name": 7, "address": {"zip": 150}, "extra": true}),
    )
    .unwrap_err()
    .errors;
    let seen: Vec<(&str, &str, &str, &str)> = errors
        .iter()
        .map(|e| {
            (
                e.instance_path.as_str(),
                e.schema_path.as_str(),
                e.keyword,
                e.message.as_str(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        vec![
            (
                "/name",
                "/properties/name/type",
                "type",
                "expected string, found integer"
            ),
            (
                "/address/zip",
                "/properties/address/properties/zip/type",
                "type",
                "expected null or string, found integer"
            ),
        ]
    );
    let missing = validate(&schema, &json!({})).unwrap_err().errors;
    assert_eq!(missing.len(), 1);
    assert_eq!(missing[0].keyword, "required");
    assert_eq!(missing[0].instance_path.as_str(), "");
    assert_eq!(
        missing[0].message,
        "the required property `name` is missing"
    );
}

#[test]
fn type_has_the_strict_meaning() {
    let int = json!({"type": "integer"});
    assert!(matches(&int, &json!(5)));
    assert!(matches(&int, &json!(5.0)), "5.0 is an integer");
    assert!(!matches(&int, &json!(5.5)));
    let num = json!({"type": "number"});
    assert!(matches(&num, &json!(5)) && matches(&num, &json!(5.5)));
    let union = json!({"type": ["boolean", "null"]});
    assert!(matches(&union, &json!(null)) && matches(&union, &json!(false)));
    assert!(!matches(&union, &json!(0)));
    for (t, v) in [
        ("string", json!("")),
        ("array", json!([])),
        ("object", json!({})),
        ("null", json!(null)),
        ("boolean", json!(true)),
    ] {
        assert!(matches(&json!({"type": t}), &v), "{t}");
        assert!(!matches(&json!({"type": t}), &json!(1.5)), "{t}");
    }
}

#[test]
fn accepts_what_strict_rejects() {
    // Every keyword other than type/required/properties is ignored, combinators included.
    let cases = [
        (
            json!({"type": "string", "minLength": 3, "pattern": "^a+$"}),
            json!("b"),
        ),
        (json!({"enum": ["a", "b"]}), json!("c")),
        (json!({"const": 1}), json!(2)),
        (json!({"type": "integer", "minimum": 10}), json!(3)),
        (
            json!({"type": "array", "items": {"type": "string"}, "maxItems": 1}),
            json!([1, 2]),
        ),
        (
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": false}),
            json!({"a": "x", "b": 1}),
        ),
        (
            json!({"type": "object", "additionalProperties": {"type": "string"}}),
            json!({"b": 1}),
        ),
        (
            json!({"anyOf": [{"type": "string"}, {"type": "integer"}]}),
            json!(null),
        ),
        (
            json!({"type": "object", "anyOf": [{"required": ["a"]}, {"required": ["b"]}]}),
            json!({}),
        ),
        (json!({"not": {"type": "string"}}), json!("s")),
        (
            json!({"allOf": [{"type": "string"}, {"type": "integer"}]}),
            json!(true),
        ),
    ];
    for (schema, instance) in &cases {
        assert!(
            !strict(schema).is_valid(instance),
            "strict {schema} {instance}"
        );
        assert!(matches(schema, instance), "lenient {schema} {instance}");
        assert!(validate(schema, instance).is_ok());
    }
}

#[test]
fn any_schema_is_accepted_and_malformed_keywords_are_ignored() {
    let anything = [json!(1), json!("x"), json!({"a": [1]}), json!(null)];
    let schemas = [
        json!(true),
        json!(false),
        json!({}),
        json!(null),
        json!([{"type": "string"}]),
        json!("string"),
        json!({"$ref": "#/$defs/x", "$defs": {"x": {"type": "string"}}}),
        json!({"type": "strnig"}),
        json!({"type": []}),
        json!({"type": ["string", 3]}),
        json!({"type": ["string", "nope"]}),
        json!({"required": "a"}),
        json!({"required": ["a", 1]}),
        json!({"properties": [{"a": {"type": "string"}}]}),
        json!({"properties": {"a": "not a schema"}}),
        json!({"properties": {"a": false}}),
    ];
    for schema in &schemas {
        for v in &anything {
            assert!(matches(schema, v), "{schema} {v}");
        }
    }
}

#[test]
fn hostile_depth_does_not_exhaust_the_stack() {
    // Built by hand (json! serialises recursively); taken apart by hand (drop is recursive).
    let mut schema = json!({"type": "string"});
    let mut instance = json!(1);
    for _ in 0..100_000 {
        let mut props = Map::new();
        props.insert("a".into(), schema);
        let mut s = Map::new();
        s.insert("type".into(), json!("object"));
        s.insert("properties".into(), Value::Object(props));
        schema = Value::Object(s);
        let mut i = Map::new();
        i.insert("a".into(), instance);
        instance = Value::Object(i);
    }
    assert!(!matches(&schema, &instance));
    let errors = validate(&schema, &instance).unwrap_err().errors;
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].instance_path.tokens().count(), 100_000);
    for mut v in [schema, instance] {
        loop {
            let next = match &mut v {
                Value::Object(m) => m
                    .remove("properties")
                    .and_then(|mut p| p.as_object_mut().and_then(|p| p.remove("a")))
                    .or_else(|| m.remove("a")),
                _ => None,
            };
            match next {
                Some(n) => v = n,
                None => break,
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The invariant: strict-valid ⇒ lenient-valid, on generated in-subset schemas.

const NAMES: [&str; 4] = ["a", "b", "c", "d"];
const TYPES: [&str; 7] = [
    "null", "boolean", "object", "array", "number", "integer", "string",
];

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        (-3i64..4).prop_map(Value::from),
        Just(json!(2.0)),
        Just(json!(0.5)),
        prop::sample::select(vec!["", "a", "aa", "b"]).prop_map(Value::from),
    ]
}

fn type_keyword() -> impl Strategy<Value = Value> {
    prop_oneof![
        prop::sample::select(TYPES.to_vec()).prop_map(Value::from),
        prop::sample::subsequence(TYPES.to_vec(), 1..4)
            .prop_map(|ts| Value::Array(ts.into_iter().map(Value::from).collect())),
    ]
}

fn leaf_schema() -> impl Strategy<Value = Value> {
    prop_oneof![
        type_keyword().prop_map(|t| json!({"type": t})),
        (0i64..3, 0i64..4)
            .prop_map(|(lo, span)| json!({"type": "integer", "minimum": lo, "maximum": lo + span})),
        (1u64..4).prop_map(|m| json!({"type": ["number", "null"], "multipleOf": m})),
        (0u64..3).prop_map(|n| json!({"type": "string", "minLength": n, "maxLength": n + 2})),
        Just(json!({"type": "string", "pattern": "^a+$"})),
        prop::collection::vec(scalar(), 1..4).prop_map(|v| json!({"enum": v})),
        scalar().prop_map(|c| json!({"const": c})),
    ]
}

fn object_schema(inner: BoxedStrategy<Value>) -> impl Strategy<Value = Value> {
    (
        prop::collection::vec((prop::sample::select(NAMES.to_vec()), inner.clone()), 0..4),
        prop::sample::subsequence(NAMES.to_vec(), 0..3),
        prop_oneof![
            Just(None),
            Just(Some(json!(false))),
            Just(Some(json!(true))),
            inner.prop_map(Some),
        ],
        any::<bool>(),
    )
        .prop_map(|(props, required, additional, typed)| {
            let mut o = Map::new();
            if typed {
                o.insert("type".into(), json!("object"));
            }
            if !props.is_empty() {
                let p: Map<String, Value> =
                    props.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
                o.insert("properties".into(), Value::Object(p));
            }
            if !required.is_empty() {
                o.insert("required".into(), json!(required));
            }
            if let Some(a) = additional {
                o.insert("additionalProperties".into(), a);
            }
            if o.is_empty() {
                o.insert("type".into(), json!("object"));
            }
            Value::Object(o)
        })
}

/// Schemas inside the subset: every keyword the lenient matcher ignores appears, combinators
/// next to `properties` and `type` included.
fn schema() -> impl Strategy<Value = Value> {
    leaf_schema().prop_recursive(4, 40, 4, |inner| {
        let inner = inner.boxed();
        prop_oneof![
            3 => object_schema(inner.clone()),
            1 => (inner.clone(), 0u64..3, any::<bool>()).prop_map(|(items, min, unique)| {
                json!({"type": "array", "items": items, "minItems": min, "uniqueItems": unique})
            }),
            1 => (prop::collection::vec(inner.clone(), 1..3), prop::option::of(inner.clone()))
                .prop_map(|(prefix, items)| {
                    let mut o = json!({"type": "array", "prefixItems": prefix});
                    if let Some(items) = items {
                        o["items"] = items;
                    }
                    o
                }),
            1 => (prop::sample::select(vec!["anyOf", "oneOf", "allOf"]), prop::collection::vec(inner.clone(), 1..3))
                .prop_map(|(kw, branches)| json!({kw: branches})),
            1 => (object_schema(inner.clone()), prop::sample::select(vec!["anyOf", "oneOf", "allOf"]), prop::collection::vec(inner.clone(), 1..3))
                .prop_map(|(mut o, kw, branches)| {
                    o[kw] = Value::Array(branches);
                    o
                }),
            1 => inner.clone().prop_map(|s| json!({"not": s})),
        ]
    })
}

/// Generated schemas, half of them with an object root (where lenient has the most to check).
fn any_schema() -> impl Strategy<Value = Value> {
    prop_oneof![schema(), object_schema(schema().boxed())]
}

/// A small deterministic generator (xorshift), seeded by proptest.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next() % n
        }
    }
    fn coin(&mut self) -> bool {
        self.next() & 1 == 1
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        items.get(self.below(items.len() as u64) as usize)
    }
}

/// A value meant to satisfy `schema` (not always: the caller keeps the ones strict accepts).
fn sample(schema: &Value, r: &mut Rng, depth: u32) -> Value {
    let Some(o) = schema.as_object() else {
        return Value::Null;
    };
    if depth > 6 {
        return Value::Null;
    }
    if let Some(c) = o.get("const") {
        return c.clone();
    }
    if let Some(e) = o.get("enum").and_then(Value::as_array) {
        return r.pick(e).cloned().unwrap_or(Value::Null);
    }
    for kw in ["anyOf", "oneOf"] {
        if let Some(branches) = o.get(kw).and_then(Value::as_array) {
            if r.coin() || !o.contains_key("type") && !o.contains_key("properties") {
                let branch = r.pick(branches).cloned().unwrap_or(Value::Null);
                return sample(&merge(o, &branch), r, depth + 1);
            }
        }
    }
    if let Some(members) = o.get("allOf").and_then(Value::as_array) {
        let merged = members.iter().fold(Value::Object(o.clone()), |acc, m| {
            merge(acc.as_object().unwrap(), m)
        });
        let mut merged = merged.as_object().unwrap().clone();
        merged.remove("allOf");
        return sample(&Value::Object(merged), r, depth + 1);
    }
    let ty = match o.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) => r
            .pick(ts)
            .and_then(Value::as_str)
            .unwrap_or("null")
            .to_owned(),
        _ if o.contains_key("properties")
            || o.contains_key("required")
            || o.contains_key("additionalProperties") =>
        {
            "object".into()
        }
        _ => r.pick(&TYPES).copied().unwrap_or("null").to_owned(),
    };
    let int = |k: &str| o.get(k).and_then(Value::as_i64);
    match ty.as_str() {
        "null" => Value::Null,
        "boolean" => Value::Bool(r.coin()),
        "integer" | "number" => {
            let lo = int("minimum").unwrap_or(-3);
            let hi = int("maximum").unwrap_or(lo + 6).max(lo);
            let mut n = lo + r.below((hi - lo + 1) as u64) as i64;
            if let Some(m) = int("multipleOf") {
                n -= n.rem_euclid(m);
            }
            match r.below(4) {
                // An integral float is an integer to strict validation, and so to lenient.
                0 => json!(n as f64),
                1 if ty == "number" && o.get("multipleOf").is_none() => json!(n as f64 + 0.5),
                _ => json!(n),
            }
        }
        "string" => {
            let min = int("minLength").unwrap_or(0) as u64;
            let max = int("maxLength").map_or(min + 3, |m| m as u64);
            let len = min + r.below(max.saturating_sub(min) + 1);
            if o.contains_key("pattern") {
                Value::from("a".repeat(len.max(1) as usize))
            } else {
                Value::from(
                    (0..len)
                        .map(|_| if r.coin() { 'a' } else { 'b' })
                        .collect::<String>(),
                )
            }
        }
        "array" => {
            let prefix = o
                .get("prefixItems")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            let min = int("minItems").unwrap_or(0) as usize;
            let len = min.max(prefix.len().min(r.below(3) as usize)) + r.below(2) as usize;
            let items = o.get("items");
            let mut out = Vec::new();
            for i in 0..len {
                let sub = match prefix.get(i) {
                    Some(s) => s,
                    None => match items {
                        Some(s) => s,
                        None => &Value::Null,
                    },
                };
                out.push(sample(sub, r, depth + 1));
            }
            Value::Array(out)
        }
        "object" => {
            let props = o
                .get("properties")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default();
            let required: Vec<&str> = o
                .get("required")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let additional = o.get("additionalProperties");
            let mut out = Map::new();
            for (k, sub) in &props {
                if required.contains(&k.as_str()) || r.coin() {
                    out.insert(k.clone(), sample(sub, r, depth + 1));
                }
            }
            let extra = |r: &mut Rng| match additional {
                Some(s @ Value::Object(_)) => sample(s, r, depth + 1),
                _ => Value::from(r.below(3)),
            };
            for k in required {
                if !out.contains_key(k) {
                    let v = extra(r);
                    out.insert(k.to_owned(), v);
                }
            }
            if additional != Some(&json!(false)) && r.below(4) == 0 {
                let v = extra(r);
                out.insert("z".into(), v);
            }
            Value::Object(out)
        }
        _ => Value::Null,
    }
}

/// A shallow conjunction of two schema objects, for sampling: properties and required are
/// joined, other keywords of `extra` win.
fn merge(base: &Map<String, Value>, extra: &Value) -> Value {
    let mut out = base.clone();
    out.remove("anyOf");
    out.remove("oneOf");
    let Some(extra) = extra.as_object() else {
        return Value::Object(out);
    };
    for (k, v) in extra {
        match (k.as_str(), out.get_mut(k)) {
            ("properties", Some(Value::Object(p))) => {
                for (name, s) in v.as_object().into_iter().flatten() {
                    p.entry(name.clone()).or_insert_with(|| s.clone());
                }
            }
            ("required", Some(Value::Array(req))) => {
                for name in v.as_array().into_iter().flatten() {
                    if !req.contains(name) {
                        req.push(name.clone());
                    }
                }
            }
            _ => {
                out.insert(k.clone(), v.clone());
            }
        }
    }
    Value::Object(out)
}

fn any_json() -> impl Strategy<Value = Value> {
    scalar().prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((prop::sample::select(NAMES.to_vec()), inner), 0..4).prop_map(
                |members| Value::Object(
                    members
                        .into_iter()
                        .map(|(k, v)| (k.to_owned(), v))
                        .collect()
                )
            ),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, max_global_rejects: 8192, ..ProptestConfig::default() })]

    /// Values built to satisfy the schema; those strict validation accepts must pass lenient.
    #[test]
    fn strict_valid_implies_lenient_valid(schema in any_schema(), seed in 1u64..) {
        let parsed = Schema::parse(&schema);
        prop_assert!(parsed.is_ok(), "generated schema outside the subset: {schema}");
        let parsed = parsed.unwrap();
        let mut r = Rng(seed);
        let value = sample(&schema, &mut r, 0);
        prop_assume!(parsed.is_valid(&value));
        prop_assert!(matches(&schema, &value), "strict accepts but lenient rejects {value} for {schema}");
        prop_assert!(validate(&schema, &value).is_ok());

        // And lenient is not vacuous: breaking what it checks at the root makes it reject.
        if let (Some(first), Value::Object(members)) = (
            schema.get("required").and_then(|r| r.get(0)).and_then(Value::as_str),
            &value,
        ) {
            let mut broken = members.clone();
            broken.remove(first);
            let broken = Value::Object(broken);
            prop_assert!(!matches(&schema, &broken), "missing `{first}` accepted: {broken}");
            prop_assert_eq!(validate(&schema, &broken).unwrap_err().errors[0].keyword, "required");
        }
        if let Some(t) = schema.get("type").and_then(Value::as_str) {
            let other = if t == "string" { json!(0) } else { json!("s") };
            prop_assert!(!matches(&schema, &other), "{other} accepted as {t}");
        }
    }

    /// Arbitrary values: the implication holds, and both lenient entry points agree.
    #[test]
    fn lenient_rejections_are_strict_rejections(schema in any_schema(), value in any_json()) {
        let parsed = Schema::parse(&schema).unwrap();
        let lenient = matches(&schema, &value);
        prop_assert_eq!(lenient, validate(&schema, &value).is_ok());
        if !lenient {
            prop_assert!(!parsed.is_valid(&value), "lenient rejects but strict accepts {value} for {schema}");
        }
    }
}

/// The sampler must hit valid values often, or the invariant test above proves little.
#[test]
fn the_sampler_produces_strict_valid_values_for_most_schemas() {
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let strategy = any_schema();
    let (mut tried, mut valid, mut nested, mut checked) = (0, 0, 0, 0);
    for seed in 1..=400u64 {
        let schema = strategy.new_tree(&mut runner).unwrap().current();
        let parsed = strict(&schema);
        let value = sample(&schema, &mut Rng(seed), 0);
        tried += 1;
        if parsed.is_valid(&value) {
            valid += 1;
            if value
                .as_object()
                .is_some_and(|o| o.values().any(|v| v.is_object()))
            {
                nested += 1;
            }
            // A member the schema declares: lenient has a property subschema to check.
            let declared = schema.get("properties").and_then(Value::as_object);
            if value.as_object().is_some_and(|o| {
                o.keys()
                    .any(|k| declared.is_some_and(|d| d.contains_key(k)))
            }) {
                checked += 1;
            }
            assert!(matches(&schema, &value));
        }
    }
    assert!(
        valid * 2 > tried,
        "only {valid} of {tried} sampled values are valid"
    );
    assert!(nested > 20, "only {nested} valid values nest objects");
    assert!(
        checked > 50,
        "only {checked} valid values have declared members"
    );
}
