use super::MAX_EVAL_DEPTH;
use crate::ir::{Additional, ArrayRules, Node, NodeId, ObjectRules, Properties, Subset};
use crate::value::{JsonType, TypeSet};
use crate::Schema;
use serde_json::{json, Value};
use std::sync::Arc;

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

/// An object node over `names` (each an integer property) with `required` as given (repeats
/// and undeclared names included, as a rewrite could leave them) and `additional`.
fn object_schema(names: &[String], required: &[&str], additional: Option<Additional>) -> Schema {
    let int = || Node {
        types: Some(TypeSet::of(JsonType::Integer)),
        ..Node::default()
    };
    let mut nodes = vec![Node::default(), int()];
    let mut entries = Vec::new();
    for name in names {
        entries.push((Box::<str>::from(name.as_str()), NodeId(nodes.len() as u32)));
        nodes.push(int());
    }
    let additional = match additional {
        Some(a) => a,
        None => {
            nodes.push(Node {
                types: Some(TypeSet::of(JsonType::String)),
                ..Node::default()
            });
            Additional::Schema(NodeId(nodes.len() as u32 - 1))
        }
    };
    nodes[0].object = Some(Arc::new(ObjectRules {
        properties: Properties::new(entries),
        required: required.iter().map(|r| Box::<str>::from(*r)).collect(),
        additional,
    }));
    Schema::from_nodes(nodes, NodeId(0), Subset::Adr126)
}

/// The object keywords spelled out: what both the one-pass verdict and the error walk must
/// agree with.
fn object_oracle(
    names: &[String],
    required: &[&str],
    additional: Option<Additional>,
    i: &Value,
) -> bool {
    let Value::Object(map) = i else {
        return true;
    };
    required.iter().all(|r| map.contains_key(*r))
        && map.iter().all(|(k, v)| {
            if names.contains(k) {
                v.is_i64()
            } else {
                match additional {
                    Some(Additional::Forbidden) => false,
                    None => v.is_string(),
                    _ => true,
                }
            }
        })
}

#[test]
fn one_pass_object_check_agrees_with_the_keywords() {
    // Names that share a head (length, first and last eight bytes) and differ in the middle,
    // short names, and enough of them to be hashed rather than scanned.
    let long = |c: char| format!("abcdefgh{c}{c}{c}ijklmnop");
    for count in [3, 40] {
        let mut names: Vec<String> = vec![long('x'), long('y'), "a".into(), "ab".into()];
        names.extend((0..count).map(|i| format!("p{i}")));
        let requireds: [&[&str]; 5] = [
            &[],
            &["a", "p1"],
            &["a", "a", "p1"],
            &["a", "undeclared", "undeclared"],
            &["abcdefghxxxijklmnop", "q"],
        ];
        let additionals = [
            None,
            Some(Additional::Unspecified),
            Some(Additional::Allowed),
            Some(Additional::Forbidden),
        ];
        let pool = [
            ("a", json!(1)),
            ("p1", json!(2)),
            ("abcdefghxxxijklmnop", json!(3)),
            ("abcdefghzzzijklmnop", json!(4)),
            ("undeclared", json!("s")),
            ("q", json!(5)),
            ("p1", json!("wrong")),
            ("ab", json!(6)),
        ];
        for required in requireds {
            for additional in additionals {
                let s = object_schema(&names, required, additional);
                for mask in 0u32..(1 << pool.len()) {
                    let mut map = serde_json::Map::new();
                    // Reversed, so that members also come against the schema's order.
                    for (k, v) in pool
                        .iter()
                        .rev()
                        .enumerate()
                        .filter_map(|(i, kv)| (mask & (1 << i) != 0).then_some(kv))
                    {
                        map.insert((*k).to_owned(), v.clone());
                    }
                    let i = Value::Object(map);
                    let want = object_oracle(&names, required, additional, &i);
                    assert_eq!(s.is_valid(&i), want, "{required:?} {additional:?} {i}");
                    assert_eq!(errors(&s, i.clone()).is_empty(), want, "{i}");
                }
            }
        }
    }
}

#[test]
fn required_errors_keep_their_order_and_repeats() {
    let names = vec!["a".to_owned(), "b".to_owned()];
    let s = object_schema(&names, &["b", "x", "a", "x"], Some(Additional::Forbidden));
    let got = errors(&s, json!({"c": 1, "a": "no"}));
    let keywords: Vec<_> = got.iter().map(|e| e.2).collect();
    assert_eq!(
        keywords,
        [
            "required",
            "required",
            "required",
            "additionalProperties",
            "type"
        ]
    );
    let e = s.validate(&json!({})).unwrap_err();
    let missing: Vec<_> = e.errors.iter().map(|e| e.message.as_str()).collect();
    assert_eq!(
        missing,
        [
            "the required property `b` is missing",
            "the required property `x` is missing",
            "the required property `a` is missing",
            "the required property `x` is missing"
        ]
    );
}

#[test]
fn only_required_is_checked_by_lookups_on_large_objects() {
    let s = schema(json!({"required": ["k3", "k7"]}));
    let big = |skip: &str| {
        Value::Object(
            (0..20)
                .map(|i| format!("k{i}"))
                .filter(|k| k != skip)
                .map(|k| (k, json!(null)))
                .collect(),
        )
    };
    assert!(s.is_valid(&big("k1")));
    assert!(!s.is_valid(&big("k7")));
    assert!(s.is_valid(&json!({"k7": 1, "k3": 2})));
    assert!(!s.is_valid(&json!({"k7": 1})));
    assert!(s.is_valid(&json!("not an object")));
}

/// `items` nested `levels` deep, built without the front end (whose depth limit is lower).
fn nested_items(levels: usize) -> Schema {
    let nodes = (0..=levels)
        .map(|i| Node {
            array: (i < levels).then(|| {
                Arc::new(ArrayRules {
                    items: Some(NodeId(i as u32 + 1)),
                    ..ArrayRules::default()
                })
            }),
            ..Node::default()
        })
        .collect();
    Schema::from_nodes(nodes, NodeId(0), Subset::Adr126)
}

fn nested_array(levels: usize) -> Value {
    (0..levels).fold(json!(1), |v, _| Value::Array(vec![v]))
}

#[test]
fn the_depth_cap_holds_for_deep_schemas_without_references() {
    // Shallow enough: no depth is counted, and nothing is refused.
    let s = nested_items(MAX_EVAL_DEPTH - 1);
    assert!(s.is_valid(&nested_array(MAX_EVAL_DEPTH - 1)));
    // One level deeper than the cap allows: refused as before, by both entry points.
    let s = nested_items(MAX_EVAL_DEPTH);
    let deep = nested_array(MAX_EVAL_DEPTH);
    assert!(!s.is_valid(&deep));
    let e = s.validate(&deep).unwrap_err();
    assert!(e.to_string().contains("validation limit"), "{e}");
    assert!(s.is_valid(&nested_array(10)));
}

#[test]
fn quick_number_comparisons_agree_with_exact_ones() {
    let numbers = [
        json!(0),
        json!(-1),
        json!(1.5),
        json!(-0.0),
        json!(9_007_199_254_740_993u64),
        json!(9_007_199_254_740_992.0),
        json!(u64::MAX),
        json!(i64::MIN),
        json!(1e300),
    ];
    for a in &numbers {
        for b in &numbers {
            let (Value::Number(x), Value::Number(y)) = (a, b) else {
                unreachable!()
            };
            if let Some(quick) = super::checks::cmp_quick(x, y) {
                assert_eq!(Some(quick), crate::value::cmp_numbers(x, y), "{a} {b}");
            }
        }
    }
    let s = schema(json!({"minimum": 9_007_199_254_740_993u64}));
    assert!(!s.is_valid(&json!(9_007_199_254_740_992.0)));
    assert!(s.is_valid(&json!(9_007_199_254_740_993u64)));
}

#[test]
fn string_lengths_decided_by_bytes_agree_with_counting() {
    let s = schema(json!({"type": "string", "minLength": 3, "maxLength": 4}));
    for (text, ok) in [
        ("ab", false),
        ("abc", true),
        ("abcd", true),
        ("abcde", false),
        ("💩💩", false),
        ("💩💩💩", true),
        ("💩💩💩💩💩", false),
        ("é", false),
        ("éééé", true),
    ] {
        assert_eq!(s.is_valid(&json!(text)), ok, "{text}");
        assert_eq!(errors(&s, json!(text)).is_empty(), ok, "{text}");
    }
}

#[test]
fn one_of_names_its_first_two_matches() {
    let s = schema(json!({"oneOf": [{"type": "string"}, {"minimum": 5}, {"type": "integer"}]}));
    let message = |i: Value| s.validate(&i).unwrap_err().errors[0].message.clone();
    assert_eq!(
        message(json!(7)),
        "matches more than one alternative (at least 1 and 2)"
    );
    // Each alternative says why it fails (issue 19).
    assert_eq!(
        message(json!(1.5)),
        "matches none of the 3 alternatives (0: `type`: expected string, found number; 1: `minimum`: 1.5 is less than 5; 2: `type`: expected integer, found number)"
    );
    assert!(s.is_valid(&json!(3)));
    assert!(!s.is_valid(&json!(7)));
}

#[test]
fn failed_unions_give_a_reason_per_alternative() {
    let s = schema(json!({"type": "object", "properties": {"pay": {"anyOf": [
        {"type": "object", "properties": {"iban": {"type": "string"}}, "required": ["iban"]},
        {"type": "object", "properties": {"card": {"type": "string", "minLength": 12}}, "required": ["card"]}
    ]}}}));
    let e = s.validate(&json!({"pay": {"card": "123"}})).unwrap_err();
    assert_eq!(e.errors.len(), 1, "{e}");
    assert_eq!(
        e.errors[0].message,
        "matches none of the 2 alternatives (0: at /pay, `required`: the required property `iban` is missing; 1: at /pay/card, `minLength`: is 3 characters long, shorter than 12)"
    );
    // Nested unions are explained at the outer one only; past eight alternatives, a count.
    let branches: Vec<Value> = (0..10).map(|i| json!({"const": i})).collect();
    let s = schema(json!({"anyOf": [{"anyOf": branches.clone()}, {"type": "string"}]}));
    let m = s.validate(&json!(11)).unwrap_err().errors[0]
        .message
        .clone();
    assert_eq!(
        m,
        "matches none of the 2 alternatives (0: `anyOf`: matches none of the 10 alternatives; 1: `type`: expected string, found integer)"
    );
    let s = schema(json!({"anyOf": branches}));
    let m = s.validate(&json!(11)).unwrap_err().errors[0]
        .message
        .clone();
    assert!(m.ends_with("; and 2 more)"), "{m}");
    assert!(!s.is_valid(&json!(11)));
}

/// The `full` subset's walk gives the same reason per alternative as the other walk (issue 19),
/// from the same code, and for its own keywords too.
#[test]
fn the_full_walk_gives_a_reason_per_alternative() {
    let full = |v: Value| {
        Schema::parse_with(
            &v,
            &crate::ParseOptions::default().with_subset(Subset::Full),
        )
        .unwrap_or_else(|e| panic!("{e}"))
    };
    let first_message = |s: &Schema, i: Value| {
        assert!(!s.is_valid(&i));
        let e = s.validate(&i).unwrap_err();
        assert_eq!(e.errors.len(), 1, "{e}");
        e.errors[0].message.clone()
    };
    let pay = json!({"type": "object", "properties": {"pay": {"anyOf": [
        {"type": "object", "properties": {"iban": {"type": "string"}}, "required": ["iban"]},
        {"type": "object", "properties": {"card": {"type": "string", "minLength": 12}}, "required": ["card"]}
    ]}}});
    let answer = json!({"pay": {"card": "123"}});
    let expected = "matches none of the 2 alternatives (0: at /pay, `required`: the required property `iban` is missing; 1: at /pay/card, `minLength`: is 3 characters long, shorter than 12)";
    assert_eq!(
        first_message(&schema(pay.clone()), answer.clone()),
        expected
    );
    let in_full = full(pay);
    assert!(in_full.full_ir().is_some(), "parsed for the `full` walk");
    assert_eq!(first_message(&in_full, answer), expected);

    // `oneOf`, a keyword only the full subset has, a nested union by count, and past eight
    // alternatives a count.
    let s = full(json!({"oneOf": [
        {"type": "object", "dependentRequired": {"a": ["b"]}},
        {"anyOf": [{"type": "string"}, {"type": "null"}]},
        {"type": "object", "propertyNames": {"maxLength": 1}}
    ]}));
    assert_eq!(
        first_message(&s, json!({"a": 1, "cc": 2})),
        "matches none of the 3 alternatives (0: `dependentRequired`: the property `b` is required when `a` is present; 1: `anyOf`: matches none of the 2 alternatives; 2: `propertyNames`: the property name `cc` fails `propertyNames`)"
    );
    let branches: Vec<Value> = (0..10).map(|i| json!({"const": i})).collect();
    let m = first_message(&full(json!({"anyOf": branches})), json!(11));
    assert!(
        m.starts_with("matches none of the 10 alternatives (0: `const`: "),
        "{m}"
    );
    assert!(m.ends_with("; and 2 more)"), "{m}");
}

/// A validation with no operation in progress counts on a detached meter of one chunk; a walk
/// that needs more starts again under the installed budget and gets the answer that budget
/// gives: accepted within it, refused with a `$work` error past it, the same inside an
/// operation in progress (which shares its budget instead).
#[test]
fn a_walk_past_the_detached_allowance_gets_the_installed_budgets_answer() {
    use crate::limits::{Limits, Operation};
    use crate::ParseOptions;
    let source = json!({"type": "array", "items": {"type": "integer"}});
    // 100,000 items take over 200,000 steps: more than a chunk (65,536), within the default
    // budget of 4,000,000.
    let big = Value::Array((0..100_000).map(|i| json!(i)).collect());
    let s = schema(source.clone());
    assert!(s.is_valid(&big) && s.validate(&big).is_ok());
    let mut bad = big.clone();
    if let Some(last) = bad.as_array_mut().and_then(|a| a.last_mut()) {
        *last = json!("x");
    }
    assert_eq!(
        errors(&s, bad),
        vec![("/99999".into(), "/items/type".into(), "type")]
    );
    let nested = crate::budget::run(Operation::Accept, &Limits::default(), 0, None, |b| {
        (s.is_valid(&big), b.exceeded().is_none())
    });
    assert_eq!(nested, (true, true));
    // Past a caller's budget (1,000 steps, nothing per byte): refused however it started.
    let tight = Limits::default()
        .with_work_floor(1_000)
        .with_work_per_byte(0);
    let s = Schema::parse_with(&source, &ParseOptions::default().with_limits(tight))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(!s.is_valid(&big));
    let e = s.validate(&big).expect_err("past the budget");
    assert!(e.errors.last().is_some_and(|e| e.is_work_limit()), "{e:?}");
    // Within it, a small instance is accepted on the detached meter alone.
    assert!(s.is_valid(&json!([1, 2, 3])) && s.validate(&json!([1, 2, 3])).is_ok());
}

/// A chain of `levels` `dependentSchemas`, each through a `$ref` to the next, and an object
/// with every key of the chain (valid when the walk can follow it to its end).
fn dependent_chain(levels: usize) -> (Schema, Value) {
    let mut defs = serde_json::Map::new();
    for i in 0..levels {
        defs.insert(
            format!("d{i}"),
            json!({"required": [format!("k{i}")],
                   "dependentSchemas": {format!("k{i}"): {"$ref": format!("#/$defs/d{}", i + 1)}}}),
        );
    }
    defs.insert(format!("d{levels}"), json!({}));
    let s = Schema::parse_with(
        &json!({"$defs": defs, "$ref": "#/$defs/d0"}),
        &crate::ParseOptions::default().with_subset(Subset::Full),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let inst = (0..levels).map(|i| (format!("k{i}"), json!(i))).collect();
    (s, Value::Object(inst))
}

#[test]
fn a_full_walk_stopped_by_its_depth_cap_says_so_beside_the_failures_it_caused() {
    let (s, inst) = dependent_chain(20);
    assert!(s.is_valid(&inst) && s.validate(&inst).is_ok());
    // Deeper than the `full` walk's cap: each level records its own failure, and the list
    // must still name the cause, once, where it happened.
    let (s, inst) = dependent_chain(super::full::MAX_DEPTH);
    assert!(!s.is_valid(&inst));
    let e = s.validate(&inst).unwrap_err();
    assert!(e.errors.len() > 1, "{e}");
    let stopped: Vec<_> = e
        .errors
        .iter()
        .filter(|e| e.message.contains("levels of nesting"))
        .collect();
    assert_eq!(stopped.len(), 1, "{e}");
    assert!(
        stopped
            .iter()
            .all(|e| e.schema_path.to_string().starts_with("/$defs/")),
        "{e}"
    );
}

/// The messages written without `format!` read as the format strings they replaced did.
#[test]
fn messages_built_directly_read_as_their_format_strings() {
    fn messages(s: &Schema, i: &Value) -> Vec<(&'static str, String)> {
        match s.validate(i) {
            Ok(()) => Vec::new(),
            Err(e) => e
                .errors
                .into_iter()
                .map(|e| (e.keyword, e.message))
                .collect(),
        }
    }
    let odd = "a`b \"q\" é/~\u{1}";
    let s = schema(json!({
        "type": "object",
        "properties": {
            "c": {"const": {"k": [1, 2]}},
            "e": {"enum": ["x", "y", 3]},
            "p": {"type": "string", "pattern": "^[a-z\"\\\\]+$"},
            "u": {"anyOf": [{"type": "integer"}, {"type": "boolean"}]},
            "o": {"oneOf": [{"type": "integer"}, {"type": "number"}]},
            "n": {"oneOf": [{"type": "integer"}, {"type": "boolean"}]},
        },
        "required": ["c", odd],
        "additionalProperties": false,
    }));
    let long = "Z\"é".repeat(30);
    let got = messages(
        &s,
        &json!({"c": "x", "e": "zz", "p": long, "u": "s", "o": 3, "n": "s", "extra": 1}),
    );
    let preview = |v: &Value| super::checks::preview(v);
    let reasons = |at: &str| {
        format!(
            " (0: at /{at}, `type`: expected integer, found string; \
             1: at /{at}, `type`: expected boolean, found string)"
        )
    };
    let expected = vec![
        (
            "const",
            format!(
                "expected the constant {}, found {}",
                preview(&json!({"k": [1, 2]})),
                preview(&json!("x"))
            ),
        ),
        (
            "enum",
            format!(
                "{} is not one of the {} allowed values",
                preview(&json!("zz")),
                3
            ),
        ),
        (
            "pattern",
            format!(
                "{} does not match the pattern {:?}",
                preview(&json!(long)),
                "^[a-z\"\\\\]+$"
            ),
        ),
        (
            "anyOf",
            format!("matches none of the {} alternatives{}", 2, reasons("u")),
        ),
        (
            "oneOf",
            format!(
                "matches more than one alternative (at least {} and {})",
                0, 1
            ),
        ),
        (
            "oneOf",
            format!("matches none of the {} alternatives{}", 2, reasons("n")),
        ),
        (
            "additionalProperties",
            format!("the property `{}` is not allowed", "extra"),
        ),
        (
            "required",
            format!("the required property `{odd}` is missing"),
        ),
    ];
    let mut got_sorted = got.clone();
    got_sorted.sort();
    let mut expected_sorted: Vec<(&'static str, String)> = expected;
    expected_sorted.sort();
    assert_eq!(got_sorted, expected_sorted, "{got:#?}");
}

/// A reference met first under a failed union, walked once more for that alternative's reason,
/// still has its errors in the list when a sibling `$ref` reaches the same target on the same
/// value (the reason's walk had marked the target's errors as reported, and they were lost).
#[test]
fn a_reference_walked_for_a_reason_still_reports_its_errors() {
    let source = json!({
        "$defs": {"a": {"type": "object", "required": ["x"]}},
        "anyOf": [{"$ref": "#/$defs/a"}, {"type": "string"}],
        "$ref": "#/$defs/a"
    });
    for subset in [Subset::Extended, Subset::Full] {
        let s = Schema::parse_with(&source, &crate::ParseOptions::default().with_subset(subset))
            .unwrap_or_else(|e| panic!("{e}"));
        let found = errors(&s, json!({}));
        let kinds: Vec<(&str, &str)> = found
            .iter()
            .map(|(_, schema_path, keyword)| (schema_path.as_str(), *keyword))
            .collect();
        assert_eq!(
            kinds,
            [("/anyOf", "anyOf"), ("/$defs/a/required", "required")],
            "{subset:?}"
        );
    }
}

/// One schema location reached twice on one value (two references to one definition) fails
/// once in the error list, in both walks.
#[test]
fn a_location_reached_twice_on_one_value_fails_once() {
    let source = json!({
        "$defs": {"int": {"type": "integer"}},
        "allOf": [
            {"properties": {"foo": {"$ref": "#/$defs/int"}}},
            {"additionalProperties": {"$ref": "#/$defs/int"}}
        ]
    });
    for subset in [Subset::Extended, Subset::Full] {
        let s = Schema::parse_with(&source, &crate::ParseOptions::default().with_subset(subset))
            .unwrap_or_else(|e| panic!("{e}"));
        let found = errors(&s, json!({"foo": "x"}));
        assert_eq!(
            found,
            [("/foo".to_string(), "/$defs/int/type".to_string(), "type")],
            "{subset:?}"
        );
    }
}

/// The error list names a missing required member before the members that fail, though the
/// walk finds both in one pass over the members; the other walk (`full`) lists them in that
/// order too.
#[test]
fn a_missing_member_is_listed_before_the_failing_members() {
    let source = json!({
        "type": "object",
        "properties": {"a": {"type": "string"}, "b": {"type": "integer"}},
        "required": ["a", "c"],
        "additionalProperties": false
    });
    let want = vec![
        ("".to_string(), "/required".to_string(), "required"),
        ("/a".to_string(), "/properties/a/type".to_string(), "type"),
        ("/b".to_string(), "/properties/b/type".to_string(), "type"),
        (
            "".to_string(),
            "/additionalProperties".to_string(),
            "additionalProperties",
        ),
    ];
    let instance = json!({"a": 1, "b": "x", "d": true});
    assert_eq!(errors(&schema(source.clone()), instance.clone()), want);
    let full = Schema::parse_with(
        &source,
        &crate::ParseOptions::default().with_subset(Subset::Full),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(errors(&full, instance), want);
    // Under a union, whose alternatives give their first failure as a reason, the missing
    // member is that reason.
    let s = schema(json!({"anyOf": [source, {"type": "string"}]}));
    let Err(e) = s.validate(&json!({"a": 1, "b": "x"})) else {
        panic!("accepted");
    };
    let message = &e.errors[0].message;
    assert!(
        message.contains("0: ") && message.contains("`c`"),
        "{message}"
    );
}

/// Where the error list reaches its limit inside an object, what is kept is what recording in
/// the list's order keeps: the missing member first, then the first failing members, then the
/// last error saying that the rest were omitted.
#[test]
fn the_error_limit_keeps_a_missing_member_and_the_first_failing_members() {
    let n = super::MAX_ERRORS + 200;
    let properties: serde_json::Map<String, Value> = (0..n)
        .map(|i| (format!("p{i:04}"), json!({"type": "string"})))
        .collect();
    let s = schema(json!({
        "type": "object",
        "properties": properties,
        "required": ["missing"]
    }));
    let instance: serde_json::Map<String, Value> =
        (0..n).map(|i| (format!("p{i:04}"), json!(i))).collect();
    let Err(e) = s.validate(&Value::Object(instance)) else {
        panic!("accepted");
    };
    let got = &e.errors;
    assert_eq!(got.len(), super::MAX_ERRORS + 1);
    assert_eq!(got[0].keyword, "required");
    assert_eq!(got[1].instance_path.as_str(), "/p0000");
    assert_eq!(
        got[super::MAX_ERRORS - 1].instance_path.as_str(),
        format!("/p{:04}", super::MAX_ERRORS - 2)
    );
    let last = &got[super::MAX_ERRORS];
    assert!(
        last.keyword.is_empty() && last.message.contains("omitted"),
        "{last:?}"
    );
}
