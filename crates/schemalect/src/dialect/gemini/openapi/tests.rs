use crate::dialect::{Outcome, Produce};
use crate::pointer::Pointer;
use crate::{LowerOptions, Lowering, Mode, Schema, Target};
use serde_json::{json, Value};
use std::collections::HashSet;

/// Walks the schema again the other way (discarding when `outcome` was built, building when it
/// was discarded) and asserts that both decide alike: the same mode and the same losses, in the
/// same order. Run on every lowering of the crate's unit tests, the emitter's
/// (`discarding_walk_decides_as_the_full_one`: the golden corpus and schemas that read what
/// they wrote) among them.
pub(super) fn check_discarding_walk(
    schema: &Schema,
    hidden: &HashSet<Pointer>,
    produce: Produce,
    outcome: &Outcome,
) {
    let other = super::walk(
        schema,
        hidden,
        match produce {
            Produce::Request => Produce::Verdict,
            Produce::Verdict => Produce::Request,
        },
    );
    assert_eq!(other.mode, outcome.mode, "{produce:?}: {:?}", outcome.wire);
    assert_eq!(
        other.losses, outcome.losses,
        "{produce:?}: {:?}",
        outcome.wire
    );
}

fn lower(v: Value) -> Lowering {
    Schema::parse(&v)
        .unwrap_or_else(|e| panic!("{e}"))
        .lower(Target::Gemini, &LowerOptions::default())
}

/// The `responseSchema` sent, after checking the request is one the provider accepts.
fn sent(l: &Lowering) -> &Value {
    let gc = &l.wire()["generationConfig"];
    assert_eq!(gc["responseMimeType"], json!("application/json"));
    let s = &gc["responseSchema"];
    let problems = provider_problems(s);
    assert!(problems.is_empty(), "{problems:?} in {s:#}");
    s
}

fn lost(l: &Lowering) -> Vec<&str> {
    let mut k: Vec<&str> = l.losses().iter().map(|x| &*x.keyword).collect();
    k.sort_unstable();
    k
}

fn mime_only(l: &Lowering) {
    assert_eq!(l.mode(), Mode::Json, "{:?}", l.wire());
    assert_eq!(
        l.wire(),
        &json!({"generationConfig": {"responseMimeType": "application/json"}})
    );
    assert_eq!(l.losses().len(), 1, "{:?}", l.losses());
}

#[test]
fn closed_object_is_exact_with_property_ordering_from_the_source() {
    let l = lower(json!({
        "type": "object",
        "title": "Person",
        "properties": {
            "name": {"type": "string", "minLength": 1, "maxLength": 80},
            "age": {"type": "integer", "minimum": 0, "maximum": 150},
            "email": {"type": "string"}
        },
        "required": ["name", "age"],
        "additionalProperties": false
    }));
    assert_eq!(l.mode(), Mode::Exact, "{:?}", l.losses());
    assert_eq!(
        l.wire(),
        &json!({"generationConfig": {
            "responseMimeType": "application/json",
            "responseSchema": {
                "type": "OBJECT",
                "title": "Person",
                "properties": {
                    "name": {"type": "STRING", "minLength": 1, "maxLength": 80},
                    "age": {"type": "INTEGER", "minimum": 0, "maximum": 150},
                    "email": {"type": "STRING"}
                },
                "propertyOrdering": ["name", "age", "email"],
                "required": ["name", "age"]
            }
        }})
    );
}

#[test]
fn property_ordering_keeps_source_order_not_alphabetical() {
    let l = lower(json!({"type": "object", "properties": {
        "zeta": {"type": "string"}, "alpha": {"type": "boolean"}, "mid": {"type": "number"}
    }}));
    assert_eq!(
        sent(&l)["propertyOrdering"],
        json!(["zeta", "alpha", "mid"])
    );
    let names: Vec<&String> = sent(&l)["properties"]
        .as_object()
        .map(|o| o.keys().collect())
        .unwrap_or_default();
    assert_eq!(names, ["zeta", "alpha", "mid"]);
    // An open object with declared properties is closed to them: exact on the declared
    // fragment, so no loss.
    assert_eq!(l.mode(), Mode::Exact);
}

#[test]
fn null_in_a_union_becomes_nullable() {
    for s in [
        json!({"type": ["string", "null"]}),
        json!({"anyOf": [{"type": "string"}, {"type": "null"}]}),
        json!({"oneOf": [{"type": "null"}, {"type": "string"}]}),
    ] {
        let l = lower(s.clone());
        assert_eq!(
            sent(&l),
            &json!({"type": "STRING", "nullable": true}),
            "{s}"
        );
    }
    assert_eq!(
        lower(json!({"type": ["string", "null"]})).mode(),
        Mode::Exact
    );
    let l = lower(
        json!({"type": ["object", "null"], "properties": {"a": {"type": "integer"}}, "required": ["a"]}),
    );
    assert_eq!(l.mode(), Mode::Exact);
    assert_eq!(
        sent(&l),
        &json!({"type": "OBJECT", "properties": {"a": {"type": "INTEGER"}}, "propertyOrdering": ["a"], "required": ["a"], "nullable": true})
    );
}

/// A branch whose only type is null but which refuses `null` is not `nullable`: `not` with a
/// keyword for numbers refuses every non-number, so the branch takes nothing, yet its admitted
/// types are `null` alone (widening property, seed 2500). It is lowered as a branch, with the
/// loss of its `not`.
#[test]
fn a_null_branch_that_refuses_null_is_not_nullable() {
    let l = lower(json!({"anyOf": [{"type": "number"}, {"type": "null", "not": {"minimum": 3}}]}));
    assert_ne!(l.mode(), Mode::Exact, "{:?}", l.wire());
    assert!(lost(&l).contains(&"not"), "{:?}", l.losses());
    // The wire takes every number the source takes.
    let wire = sent(&l);
    assert!(wire.to_string().contains("NUMBER"), "{wire}");
    // A null branch that takes `null` still is.
    let l =
        lower(json!({"anyOf": [{"type": "number"}, {"type": "null", "not": {"type": "string"}}]}));
    assert_eq!(l.mode(), Mode::Exact, "{:?}", l.losses());
    assert_eq!(sent(&l), &json!({"type": "NUMBER", "nullable": true}));
}

#[test]
fn type_lists_split_into_single_type_branches_with_their_keywords() {
    let l = lower(
        json!({"type": ["string", "integer"], "minLength": 2, "minimum": 0, "description": "An id"}),
    );
    assert_eq!(l.mode(), Mode::Exact, "{:?}", l.losses());
    assert_eq!(
        sent(&l),
        &json!({"anyOf": [
            {"type": "INTEGER", "minimum": 0, "description": "An id"},
            {"type": "STRING", "minLength": 2, "description": "An id"}
        ]})
    );
    // Null goes on a branch: a node with `anyOf` may carry no other field.
    let l = lower(json!({"type": ["string", "number", "null"]}));
    assert_eq!(
        sent(&l),
        &json!({"anyOf": [{"type": "NUMBER", "nullable": true}, {"type": "STRING"}]})
    );
    // `integer` and `number` together are just NUMBER.
    let l = lower(json!({"type": ["integer", "number"]}));
    assert_eq!(sent(&l), &json!({"type": "NUMBER"}));
}

#[test]
fn unions_keep_branch_keywords_and_move_annotations_into_branches() {
    let l = lower(json!({
        "description": "Contact",
        "anyOf": [
            {"type": "string", "pattern": "^[^@]+@[^@]+$", "description": "email"},
            {"type": "integer", "minimum": 1}
        ]
    }));
    assert_eq!(l.mode(), Mode::Exact, "{:?}", l.losses());
    assert_eq!(
        sent(&l),
        &json!({"anyOf": [
            {"type": "STRING", "pattern": "^[^@]+@[^@]+$", "description": "Contact\nemail"},
            {"type": "INTEGER", "minimum": 1, "description": "Contact"}
        ]})
    );
    let l = lower(json!({"oneOf": [{"type": "string"}, {"type": "boolean"}]}));
    assert_eq!(lost(&l), ["oneOf"]);
    assert_eq!(
        sent(&l),
        &json!({"anyOf": [{"type": "STRING"}, {"type": "BOOLEAN"}]})
    );
}

#[test]
fn union_siblings_are_distributed_so_closed_branches_keep_parent_properties() {
    // Every branch declares every name used at this place (through the parent): closing each
    // branch to its properties keeps every value of the declared fragment.
    let l = lower(json!({
        "type": "object",
        "properties": {"kind": {"type": "string"}, "a": {"type": "integer"}, "b": {"type": "boolean"}},
        "required": ["kind"],
        "anyOf": [{"required": ["a"]}, {"required": ["b"]}]
    }));
    assert_eq!(l.mode(), Mode::Exact, "{:?}", l.losses());
    assert_eq!(
        sent(&l),
        &json!({"anyOf": [
            {"type": "OBJECT", "properties": {"kind": {"type": "STRING"}, "a": {"type": "INTEGER"}, "b": {"type": "BOOLEAN"}}, "propertyOrdering": ["kind", "a", "b"], "required": ["a", "kind"]},
            {"type": "OBJECT", "properties": {"kind": {"type": "STRING"}, "a": {"type": "INTEGER"}, "b": {"type": "BOOLEAN"}}, "propertyOrdering": ["kind", "a", "b"], "required": ["b", "kind"]}
        ]})
    );
}

#[test]
fn open_branches_declaring_different_names_fall_back() {
    // `{"kind": "k", "a": 1, "b": "x"}` matches the first branch (open: `b` may be anything) and
    // uses only declared names; branches closed to their own properties would reject it.
    let l = lower(json!({
        "type": "object",
        "properties": {"kind": {"type": "string"}},
        "required": ["kind"],
        "anyOf": [
            {"properties": {"a": {"type": "integer"}}, "required": ["a"]},
            {"properties": {"b": {"type": "boolean"}}}
        ]
    }));
    assert_eq!(l.mode(), Mode::Json, "{:?}", l.losses());
    // Both branches are open: each is named.
    assert_eq!(lost(&l), ["additionalProperties", "additionalProperties"]);
    let at: Vec<&str> = l.losses().iter().map(|x| x.pointer.as_str()).collect();
    assert_eq!(at, ["/anyOf/0", "/anyOf/1"]);
}

#[test]
fn string_enums_stay_and_other_values_are_split_never_filtered() {
    let l = lower(json!({"type": "string", "enum": ["a", "b"]}));
    assert_eq!(sent(&l), &json!({"type": "STRING", "enum": ["a", "b"]}));
    assert_eq!(l.mode(), Mode::Exact);
    // Null in the enum: nullable adds null to the enum too.
    let l = lower(json!({"enum": ["a", "b", null]}));
    assert_eq!(
        sent(&l),
        &json!({"type": "STRING", "enum": ["a", "b"], "nullable": true})
    );
    assert_eq!(l.mode(), Mode::Exact);
    // A number beside strings keeps its own branch: one value is exact as equal bounds.
    let l = lower(json!({"enum": ["a", 1]}));
    assert_eq!(
        sent(&l),
        &json!({"anyOf": [{"type": "INTEGER", "minimum": 1, "maximum": 1}, {"type": "STRING", "enum": ["a"]}]})
    );
    assert_eq!(l.mode(), Mode::Exact);
    // A run of consecutive integers is exact as a range; a gap is a loss.
    let l = lower(json!({"enum": [3, 1, 2]}));
    assert_eq!(
        sent(&l),
        &json!({"type": "INTEGER", "minimum": 1, "maximum": 3})
    );
    assert_eq!(l.mode(), Mode::Exact);
    let l = lower(json!({"enum": [1, 5]}));
    assert_eq!(
        sent(&l),
        &json!({"type": "INTEGER", "minimum": 1, "maximum": 5})
    );
    assert_eq!(lost(&l), ["enum"]);
    // A non-string enum is never sent as `enum`: dropped whole (only its range and type).
    let l = lower(json!({"type": "number", "enum": [1.5, 2.5]}));
    assert_eq!(
        sent(&l),
        &json!({"type": "NUMBER", "minimum": 1.5, "maximum": 2.5})
    );
    assert_eq!(lost(&l), ["enum"]);
    let l = lower(json!({"enum": [true, false]}));
    assert_eq!(sent(&l), &json!({"type": "BOOLEAN"}));
    assert_eq!(l.mode(), Mode::Exact);
    let l = lower(json!({"enum": ["x", true]}));
    assert_eq!(
        sent(&l),
        &json!({"anyOf": [{"type": "BOOLEAN"}, {"type": "STRING", "enum": ["x"]}]})
    );
    assert_eq!(lost(&l), ["enum"]);
}

#[test]
fn const_is_a_one_value_enum_or_equal_bounds_or_just_its_type() {
    let l = lower(json!({"const": "fixed"}));
    assert_eq!(sent(&l), &json!({"type": "STRING", "enum": ["fixed"]}));
    assert_eq!(l.mode(), Mode::Exact);
    let l = lower(json!({"const": 7}));
    assert_eq!(
        sent(&l),
        &json!({"type": "INTEGER", "minimum": 7, "maximum": 7})
    );
    assert_eq!(l.mode(), Mode::Exact);
    let l = lower(json!({"const": 0.5}));
    assert_eq!(
        sent(&l),
        &json!({"type": "NUMBER", "minimum": 0.5, "maximum": 0.5})
    );
    let l = lower(json!({"const": true}));
    assert_eq!(sent(&l), &json!({"type": "BOOLEAN"}));
    assert_eq!(lost(&l), ["const"]);
    let l = lower(json!({"const": null}));
    assert_eq!(sent(&l), &json!({"type": "STRING", "nullable": true}));
    assert_eq!(lost(&l), ["const"]);
}

#[test]
fn numeric_bounds_relax_only_where_they_must() {
    // On integers an exclusive bound is exact as the next integer.
    let l = lower(json!({"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 10}));
    assert_eq!(
        sent(&l),
        &json!({"type": "INTEGER", "minimum": 1, "maximum": 9})
    );
    assert_eq!(l.mode(), Mode::Exact);
    let l = lower(json!({"type": "number", "exclusiveMinimum": 0, "multipleOf": 5}));
    assert_eq!(sent(&l), &json!({"type": "NUMBER", "minimum": 0}));
    assert_eq!(lost(&l), ["exclusiveMinimum", "multipleOf"]);
    // A bound with no exact double would be rounded by the server, maybe inward: not sent.
    let l = lower(json!({"type": "integer", "maximum": 9007199254740993u64}));
    assert_eq!(sent(&l), &json!({"type": "INTEGER"}));
    assert_eq!(lost(&l), ["maximum"]);
}

#[test]
fn unsupported_keywords_are_dropped_with_losses_annotations_without() {
    let l = lower(json!({
        "type": "array",
        "items": {"type": "string", "not": {"const": ""}},
        "uniqueItems": true,
        "default": [],
        "examples": [["a"]],
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://example.com/tags"
    }));
    assert_eq!(
        sent(&l),
        &json!({"type": "ARRAY", "items": {"type": "STRING"}})
    );
    assert_eq!(lost(&l), ["not", "uniqueItems"]);
}

#[test]
fn formats_become_description_hints() {
    let l = lower(json!({"type": "object", "properties": {
        "when": {"type": "string", "format": "date-time", "description": "Start"},
        "site": {"type": "string", "format": "uri"}
    }}));
    assert_eq!(l.mode(), Mode::Exact);
    assert_eq!(
        sent(&l)["properties"],
        json!({
            "when": {"type": "STRING", "description": "Start (format: date-time)"},
            "site": {"type": "STRING", "description": "format: uri"}
        })
    );
}

#[test]
fn patterns_are_sent_so_search_and_whole_match_agree() {
    let l = lower(json!({"type": "string", "pattern": "^[a-z]+$"}));
    assert_eq!(sent(&l), &json!({"type": "STRING", "pattern": "^[a-z]+$"}));
    let l = lower(json!({"type": "string", "pattern": "[0-9]{3}"}));
    assert_eq!(
        sent(&l),
        &json!({"type": "STRING", "pattern": "^[\\s\\S]*(?:[0-9]{3})[\\s\\S]*$"})
    );
    // Anchored-looking but not anchored: a top-level alternation.
    let l = lower(json!({"type": "string", "pattern": "^a|b$"}));
    assert_eq!(sent(&l)["pattern"], json!("^[\\s\\S]*(?:^a|b$)[\\s\\S]*$"));
    assert_eq!(l.mode(), Mode::Exact);
}

#[test]
fn patterns_are_sent_in_the_portable_spelling() {
    // The engine is undocumented: what engines read differently is written out with the
    // meaning ECMA-262 gives it. RE2 reads `\s` without `\v` and the Unicode spaces (sent as
    // written, it would reject values the source admits); Python's `re` refuses `(?<name>`;
    // RE2 and PCRE refuse `\u`.
    let l = lower(json!({"type": "string", "pattern": "^(?<y>\\d{4})\\s\\w.\\u00e9$"}));
    assert_eq!(
        sent(&l)["pattern"],
        json!("^([0-9]{4})[\\t-\\r \u{a0}\u{1680}\u{2000}-\u{200a}\u{2028}\u{2029}\u{202f}\u{205f}\u{3000}\u{feff}][0-9A-Z_a-z][^\\n\\r\u{2028}\u{2029}]\u{e9}$")
    );
    assert_eq!(l.mode(), Mode::Exact);
    // Leading look-aheads are left out (a loss), the rest spelt the same way.
    let l = lower(json!({"type": "string", "pattern": "^(?=.*\\d)\\w{8,}$"}));
    assert_eq!(sent(&l)["pattern"], json!("^[0-9A-Z_a-z]{8,}$"));
    assert_eq!(l.mode(), Mode::Widened);
    // Unanchored, wrapped around the portable text.
    let l = lower(json!({"type": "string", "pattern": "\\d"}));
    assert_eq!(sent(&l)["pattern"], json!("^[\\s\\S]*(?:[0-9])[\\s\\S]*$"));
}

#[test]
fn objects_without_declared_properties_fall_back_to_json() {
    for s in [
        json!({"type": "object"}),
        json!({"type": "object", "additionalProperties": {"type": "string"}}),
        json!({"type": "object", "properties": {}, "additionalProperties": false}),
        json!({"type": "object", "properties": {"meta": {"type": "object"}}}),
        json!({"type": "object", "properties": {"tags": {"type": "object", "additionalProperties": {"type": "integer"}}}, "required": []}),
        json!({"minLength": 1}),
    ] {
        let l = lower(s.clone());
        mime_only(&l);
        assert!(
            ["properties", "additionalProperties"].contains(&&*l.losses()[0].keyword),
            "{s}: {:?}",
            l.losses()
        );
    }
}

#[test]
fn an_optional_property_that_cannot_be_sent_is_not_deleted() {
    // Deleting `extra` would make every value that has it impossible: fall back instead.
    let l = lower(json!({
        "type": "object",
        "properties": {"id": {"type": "string"}, "extra": {"type": "object"}},
        "required": ["id"]
    }));
    mime_only(&l);
    assert_eq!(l.losses()[0].pointer.as_str(), "/properties/extra");
    // A property whose schema admits no value can never be present: leaving it out is exact.
    let l = lower(json!({
        "type": "object",
        "properties": {"id": {"type": "string"}, "never": {"type": "string", "enum": [1]}},
        "required": ["id"]
    }));
    assert_eq!(l.mode(), Mode::Exact, "{:?}", l.losses());
    assert_eq!(
        sent(&l),
        &json!({"type": "OBJECT", "properties": {"id": {"type": "STRING"}}, "propertyOrdering": ["id"], "required": ["id"]})
    );
    // Required and admitting nothing: the whole schema admits nothing.
    let l = lower(json!({
        "type": "object",
        "properties": {"never": {"type": "string", "minLength": 3, "maxLength": 1}},
        "required": ["never"]
    }));
    mime_only(&l);
}

#[test]
fn nested_objects_in_arrays() {
    let l = lower(json!({
        "type": "array",
        "minItems": 1,
        "maxItems": 10,
        "items": {
            "type": "object",
            "properties": {
                "sku": {"type": "string"},
                "qty": {"type": "integer", "minimum": 1},
                "notes": {"type": ["string", "null"]}
            },
            "required": ["sku", "qty"],
            "additionalProperties": false
        }
    }));
    assert_eq!(l.mode(), Mode::Exact);
    assert_eq!(
        sent(&l),
        &json!({
            "type": "ARRAY",
            "items": {
                "type": "OBJECT",
                "properties": {
                    "sku": {"type": "STRING"},
                    "qty": {"type": "INTEGER", "minimum": 1},
                    "notes": {"type": "STRING", "nullable": true}
                },
                "propertyOrdering": ["sku", "qty", "notes"],
                "required": ["sku", "qty"]
            },
            "minItems": 1,
            "maxItems": 10
        })
    );
}

#[test]
fn arrays_need_items_and_tuples_fold_into_items() {
    mime_only(&lower(json!({"type": "array"})));
    mime_only(&lower(
        json!({"type": "array", "prefixItems": [{"type": "string"}]}),
    ));
    let l = lower(
        json!({"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "items": {"type": "boolean"}}),
    );
    assert_eq!(
        sent(&l),
        &json!({"type": "ARRAY", "items": {"anyOf": [{"type": "STRING"}, {"type": "INTEGER"}, {"type": "BOOLEAN"}]}})
    );
    assert_eq!(lost(&l), ["prefixItems"]);
    // No tail past `maxItems`: one position is exact.
    let l = lower(json!({"type": "array", "prefixItems": [{"type": "string"}], "maxItems": 1}));
    assert_eq!(
        sent(&l),
        &json!({"type": "ARRAY", "items": {"type": "STRING"}, "maxItems": 1})
    );
    assert_eq!(l.mode(), Mode::Exact);
    // Only the empty array: `items` never applies.
    let l = lower(json!({"type": "array", "maxItems": 0}));
    assert_eq!(
        sent(&l),
        &json!({"type": "ARRAY", "items": {"type": "STRING"}, "maxItems": 0})
    );
}

#[test]
fn all_of_is_merged_or_the_lowering_falls_back() {
    let l = lower(json!({
        "type": "object",
        "allOf": [
            {"properties": {"a": {"type": "string"}}, "required": ["a"]},
            {"properties": {"b": {"type": "integer"}}}
        ]
    }));
    assert_eq!(l.mode(), Mode::Exact, "{:?}", l.losses());
    assert_eq!(
        sent(&l),
        &json!({"type": "OBJECT", "properties": {"a": {"type": "STRING"}, "b": {"type": "INTEGER"}}, "propertyOrdering": ["a", "b"], "required": ["a"]})
    );
    let l = lower(json!({"allOf": [
        {"anyOf": [{"type": "object", "properties": {"a": {"type": "string"}}}, {"type": "null"}]},
        {"anyOf": [{"type": "object", "properties": {"b": {"type": "string"}}}, {"type": "null"}]}
    ]}));
    // The first member merges; the second brings a second union, which cannot share the
    // node, and both declare properties: nothing can be dropped.
    mime_only(&l);
    assert_eq!(lost(&l), ["anyOf"]);
}

#[test]
fn required_names_that_are_not_declared_are_not_sent() {
    let l = lower(
        json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a", "ghost"]}),
    );
    assert_eq!(sent(&l)["required"], json!(["a"]));
    assert_eq!(lost(&l), ["required"]);
}

// ---- An independent reading of `responseSchema`, after tools/harness.py ----
//
// `gemini_schema_to_js` there: lower-case `type`; `nullable` adds null to the type, to `anyOf`
// and to `enum`; numeric and length bounds and `pattern` (searched) apply to their types;
// OBJECT is closed to `properties`, which must be non-empty; `required` as usual. Nothing here
// calls the lowering's code.

const FIELDS: &[&str] = &[
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "maxItems",
    "minItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "example",
    "anyOf",
    "propertyOrdering",
    "default",
    "items",
    "minimum",
    "maximum",
];

/// Reasons the provider would refuse the schema (providers.md §3.2, harness.py
/// `provider_problems`, plus: ARRAY needs `items`, `anyOf` stands alone).
fn provider_problems(s: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![("#".to_owned(), s)];
    while let Some((path, n)) = stack.pop() {
        let Some(o) = n.as_object() else {
            out.push(format!("{path}: not an object"));
            continue;
        };
        for k in o.keys() {
            if !FIELDS.contains(&k.as_str()) {
                out.push(format!("{path}: unknown field {k}"));
            }
        }
        let t = o.get("type").and_then(Value::as_str);
        if o.contains_key("anyOf") && o.len() != 1 {
            out.push(format!("{path}: anyOf beside other fields"));
        }
        if !o.contains_key("anyOf") && t.is_none() {
            out.push(format!("{path}: no type"));
        }
        if let Some(e) = o.get("enum") {
            let strings = e.as_array().is_some_and(|a| a.iter().all(Value::is_string));
            if t != Some("STRING") || !strings {
                out.push(format!("{path}: enum only for STRING, with strings"));
            }
        }
        if t == Some("OBJECT")
            && o.get("properties")
                .and_then(Value::as_object)
                .is_none_or(|p| p.is_empty())
        {
            out.push(format!("{path}: OBJECT without properties"));
        }
        if t == Some("ARRAY") && !o.contains_key("items") {
            out.push(format!("{path}: ARRAY without items"));
        }
        if let Some(p) = o.get("properties").and_then(Value::as_object) {
            for (k, v) in p {
                stack.push((format!("{path}/properties/{k}"), v));
            }
        }
        if let Some(i) = o.get("items") {
            stack.push((format!("{path}/items"), i));
        }
        if let Some(a) = o.get("anyOf").and_then(Value::as_array) {
            for (i, v) in a.iter().enumerate() {
                stack.push((format!("{path}/anyOf/{i}"), v));
            }
        }
    }
    out
}

fn is_int(n: &serde_json::Number) -> bool {
    n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or(f64::NAN)
}

fn accepts(n: &Value, x: &Value) -> bool {
    let nullable = n["nullable"] == json!(true);
    let t = n["type"].as_str().map(str::to_lowercase);
    if let Some(t) = &t {
        let ok = match (t.as_str(), x) {
            ("string", Value::String(_)) => true,
            ("number", Value::Number(_)) => true,
            ("integer", Value::Number(v)) => is_int(v),
            ("boolean", Value::Bool(_)) => true,
            ("array", Value::Array(_)) => true,
            ("object", Value::Object(_)) => true,
            ("null", Value::Null) => true,
            _ => nullable && x.is_null(),
        };
        if !ok {
            return false;
        }
    }
    if let Some(branches) = n["anyOf"].as_array() {
        if !(branches.iter().any(|b| accepts(b, x)) || (nullable && x.is_null())) {
            return false;
        }
    }
    if let Some(e) = n["enum"].as_array() {
        if !(e.contains(x) || (nullable && x.is_null())) {
            return false;
        }
    }
    match x {
        Value::String(s) => {
            let len = s.chars().count() as u64;
            if n["minLength"].as_u64().is_some_and(|m| len < m)
                || n["maxLength"].as_u64().is_some_and(|m| len > m)
            {
                return false;
            }
            if let Some(p) = n["pattern"].as_str() {
                let re = regex::Regex::new(p).unwrap_or_else(|e| panic!("{p}: {e}"));
                if !re.is_match(s) {
                    return false;
                }
            }
        }
        Value::Number(_) => {
            if !n["minimum"].is_null() && f(x) < f(&n["minimum"]) {
                return false;
            }
            if !n["maximum"].is_null() && f(x) > f(&n["maximum"]) {
                return false;
            }
        }
        Value::Array(a) => {
            let len = a.len() as u64;
            if n["minItems"].as_u64().is_some_and(|m| len < m)
                || n["maxItems"].as_u64().is_some_and(|m| len > m)
            {
                return false;
            }
            if !n["items"].is_null() && !a.iter().all(|v| accepts(&n["items"], v)) {
                return false;
            }
        }
        Value::Object(o) if t.as_deref() == Some("object") => {
            let props = n["properties"].as_object().unwrap_or_else(|| panic!("{n}"));
            assert!(!props.is_empty(), "OBJECT without properties: {n}");
            if !o
                .iter()
                .all(|(k, v)| props.get(k).is_some_and(|p| accepts(p, v)))
            {
                return false;
            }
            let required = n["required"].as_array().cloned().unwrap_or_default();
            if !required
                .iter()
                .all(|r| r.as_str().is_some_and(|r| o.contains_key(r)))
            {
                return false;
            }
        }
        _ => {}
    }
    true
}

#[test]
fn the_sent_schema_accepts_valid_instances_as_the_harness_reads_it() {
    let cases = [
        (
            json!({"type": "object", "properties": {
                "name": {"type": "string", "minLength": 1},
                "nick": {"type": ["string", "null"], "maxLength": 5},
                "tags": {"type": "array", "items": {"enum": ["a", "b", null, 3]}, "maxItems": 3}
            }, "required": ["name"]}),
            vec![
                json!({"name": "Ada"}),
                json!({"name": "Ada", "nick": null, "tags": []}),
                json!({"name": "Ada", "nick": "ad", "tags": ["a", null, 3]}),
            ],
        ),
        (
            json!({"type": ["string", "integer", "null"], "minLength": 2, "exclusiveMinimum": 0}),
            vec![json!("ab"), json!(1), json!(null), json!(1.0)],
        ),
        (
            json!({"type": "object", "properties": {"kind": {"const": "circle"}, "r": {"type": "number"}, "d": {"type": "number"}}, "required": ["kind"],
            "oneOf": [
                {"properties": {"r": {"type": "number", "exclusiveMinimum": 0}}, "required": ["r"]},
                {"properties": {"d": {"type": "number"}}, "required": ["d"]}
            ]}),
            vec![
                json!({"kind": "circle", "r": 0.5}),
                json!({"kind": "circle", "d": 2}),
            ],
        ),
        (
            json!({"type": "array", "prefixItems": [{"type": "string"}, {"const": 4}], "items": {"type": "boolean"}, "minItems": 1}),
            vec![json!(["x"]), json!(["x", 4]), json!(["x", 4, true, false])],
        ),
        (
            json!({"type": "string", "pattern": "[0-9]{3}", "format": "phone"}),
            vec![json!("tel 555 123"), json!("123")],
        ),
        (
            json!({"type": "object", "allOf": [
                {"properties": {"a": {"type": "integer", "minimum": 2}}, "required": ["a"]},
                {"properties": {"a": {"maximum": 5}, "b": {"enum": [1, 2, 3]}}}
            ]}),
            vec![json!({"a": 2}), json!({"a": 5, "b": 3})],
        ),
        (
            json!({"anyOf": [{"type": "object", "properties": {"x": {"type": "number"}}}, {"type": "array", "items": {"type": "string"}}, {"type": "null"}]}),
            vec![json!({}), json!({"x": 1.5}), json!(["s"]), json!(null)],
        ),
        (
            json!({"type": "object", "properties": {"n": {"type": "integer", "exclusiveMaximum": 10, "multipleOf": 3}, "flag": {"enum": [true, "yes"]}}}),
            vec![
                json!({"n": 9}),
                json!({"n": -3, "flag": true}),
                json!({"flag": "yes"}),
            ],
        ),
    ];
    for (source, instances) in cases {
        let schema = Schema::parse(&source).unwrap_or_else(|e| panic!("{e}"));
        let l = schema.lower(Target::Gemini, &LowerOptions::default());
        assert!(l.mode() <= Mode::Widened, "{source}: {:?}", l.losses());
        let wire = sent(&l);
        for x in instances {
            assert!(
                schema.is_valid(&x),
                "test case wrong: {x} not valid for {source}"
            );
            assert!(
                accepts(wire, &x),
                "{x} valid for {source} but not accepted by {wire:#}"
            );
        }
    }
}

#[test]
fn the_reading_rejects_what_closed_objects_and_bounds_exclude() {
    // A check of the reader itself, so the test above cannot pass vacuously.
    let wire = json!({"type": "OBJECT", "properties": {"a": {"type": "INTEGER", "minimum": 1, "nullable": true}}, "required": ["a"]});
    assert!(accepts(&wire, &json!({"a": 1})));
    assert!(accepts(&wire, &json!({"a": null})));
    assert!(!accepts(&wire, &json!({"a": 0})));
    assert!(!accepts(&wire, &json!({"a": 1, "b": 2})));
    assert!(!accepts(&wire, &json!({})));
    let wire = json!({"anyOf": [{"type": "STRING", "enum": ["x"], "nullable": true}, {"type": "BOOLEAN"}]});
    assert!(accepts(&wire, &json!(null)));
    assert!(accepts(&wire, &json!("x")));
    assert!(!accepts(&wire, &json!("y")));
    assert!(!accepts(&wire, &json!(1)));
}

#[test]
fn anchoring_is_read_off_the_pattern_and_wrapping_keeps_search_meaning() {
    use crate::dialect::emit::{full_match_safe, fully_anchored};
    use crate::pattern::Pattern;
    let compile = |p: &str| Pattern::compile(p, 1_000).unwrap_or_else(|e| panic!("{p}: {e}"));
    for (p, anchored) in [
        ("^abc$", true),
        ("^(a|b)$", true),
        ("^[a-z|]+$", true),
        ("^abc\\\\$", true),
        ("^(a$)", true),
        ("^a|b$", false),
        ("^abc\\$", false),
        ("abc$", false),
        ("^abc", false),
        ("^[$]", false),
        ("a(^|,)b$", false),
    ] {
        assert_eq!(fully_anchored(&compile(p)), anchored, "{p}");
    }
    // Read as a whole-string match, the sent pattern accepts exactly what the source pattern
    // accepts when searched.
    for p in [
        "[0-9]{3}", "^a|b$", "^ab", "cd$", "^(x|y)$", "a\\$", "a(^|,)b",
    ] {
        let source = compile(p);
        let sent = full_match_safe(&source);
        let whole = compile(&format!("^(?:{sent})$"));
        for s in [
            "", "a", "b", "ab", "xab", "abx", "cd", "xcd", "cdx", "123", "a12b345", "x", "a$",
            "\nab\n", "ab,b", ",b",
        ] {
            assert_eq!(source.is_match(s), whole.is_match(s), "{p} on {s:?}");
        }
    }
}
