//! Wide `anyOf`/`oneOf` unions are validated through their tag (the property every branch
//! requires with constant values): only the branches the tag selects are walked. This checks
//! that shortcut against the `jsonschema` crate on generated unions whose tags overlap, are
//! missing from some branches, or sit on branches that also admit non-objects, so that every
//! case where the tag must not be trusted is met.

use proptest::prelude::*;
use schemalect::Schema;
use serde_json::{json, Value};
use support::oracle;

/// Tag values, with `1` and `1.0` (one value in JSON Schema) and `null`.
fn literal() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!("a")),
        Just(json!("b")),
        Just(json!("c")),
        Just(json!(1)),
        Just(json!(1.0)),
        Just(json!(2)),
        Just(Value::Null),
    ]
}

/// One branch: usually a tagged object, sometimes without `type: object`, without the tag
/// required, or with a tag that is not a literal.
fn branch() -> impl Strategy<Value = Value> {
    (
        prop::collection::vec(literal(), 1..3),
        0..24u8,
        0..4i64,
        any::<bool>(),
    )
        .prop_map(|(literals, shape, min, closed)| {
            let tag = if literals.len() == 1 {
                json!({"const": literals[0]})
            } else {
                json!({"enum": literals})
            };
            let mut b = json!({
                "type": "object",
                "properties": {"kind": tag, "v": {"type": "integer", "minimum": min}},
                "required": ["kind", "v"]
            });
            match shape {
                0 => {
                    b.as_object_mut().map(|m| m.remove("type"));
                }
                1 => b["required"] = json!(["v"]),
                2 => b["properties"]["kind"] = json!({"type": "string"}),
                3 => b["type"] = json!(["object", "string"]),
                _ => {}
            }
            if closed {
                b["additionalProperties"] = json!(false);
            }
            b
        })
}

fn instance() -> impl Strategy<Value = Value> {
    prop_oneof![
        4 => (literal(), 0..5i64, any::<bool>()).prop_map(|(k, v, extra)| {
            let mut m = json!({"kind": k, "v": v});
            if extra {
                m["w"] = json!(true);
            }
            m
        }),
        1 => (0..5i64).prop_map(|v| json!({"v": v})),
        1 => Just(json!("text")),
        1 => Just(json!([{"kind": "a", "v": 1}])),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn tagged_unions_agree_with_jsonschema(
        branches in prop::collection::vec(branch(), 6..12),
        one_of in any::<bool>(),
        xs in prop::collection::vec(instance(), 8),
    ) {
        let s = json!({if one_of { "oneOf" } else { "anyOf" }: branches});
        let ours = Schema::parse(&s).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let theirs = oracle::compile(&s).map_err(TestCaseError::fail)?;
        for x in &xs {
            let expected = theirs.is_valid(x);
            prop_assert_eq!(ours.is_valid(x), expected, "is_valid of {} against {}", x, s);
            prop_assert_eq!(ours.validate(x).is_ok(), expected, "validate of {} against {}", x, s);
        }
    }
}
