use crate::ir::Draft;
use crate::subset::{parse, ParseOptions};
use crate::{Subset, ViolationKind};
use serde_json::{json, Value};

fn full(v: Value) -> crate::Schema {
    parse(&v, &ParseOptions::default().with_subset(Subset::Full)).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn draft_follows_schema_keyword() {
    let s = full(json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "string"}));
    assert_eq!(s.draft(), Some(Draft::Draft7));
    assert_eq!(full(json!({})).draft(), Some(Draft::Draft2020_12));
    let o = ParseOptions::default()
        .with_subset(Subset::Full)
        .with_default_draft(Draft::Draft4);
    assert_eq!(
        parse(&json!({}), &o).map(|s| s.draft()).ok().flatten(),
        Some(Draft::Draft4)
    );
}

#[test]
fn draft7_ref_ignores_its_siblings() {
    let doc = |schema: &str| {
        json!({"$schema": schema, "definitions": {"a": {"type": "string"}},
               "properties": {"x": {"$ref": "#/definitions/a", "enum": ["no"]}}})
    };
    let d7 = full(doc("http://json-schema.org/draft-07/schema#"));
    assert!(d7.is_valid(&json!({"x": "yes"})));
    let d2020 = full(doc("https://json-schema.org/draft/2020-12/schema"));
    assert!(!d2020.is_valid(&json!({"x": "yes"})));
    assert!(d2020.is_valid(&json!({"x": "no"})));
}

#[test]
fn draft4_exclusive_bounds_are_booleans() {
    let s = full(json!({"$schema": "http://json-schema.org/draft-04/schema#",
                        "maximum": 3, "exclusiveMaximum": true}));
    assert!(s.is_valid(&json!(2.5)));
    assert!(!s.is_valid(&json!(3)));
}

#[test]
fn unknown_keywords_are_warnings_with_suggestions() {
    let s =
        full(json!({"type": "object", "properties": {"a": {"readonly": true, "javaType": "X"}}}));
    let w = s.warnings();
    assert_eq!(w.len(), 2);
    assert_eq!(w[0].pointer.as_str(), "/properties/a");
    assert_eq!(w[0].keyword, "readonly");
    assert_eq!(
        w[0].kind,
        ViolationKind::UnknownKeyword {
            suggestion: Some("readOnly")
        }
    );
    assert!(w[0].reason().contains("did you mean `readOnly`?"));
    assert_eq!(
        w[1].kind,
        ViolationKind::UnknownKeyword { suggestion: None }
    );
    let denied = parse(
        &json!({"readonly": true}),
        &ParseOptions::default()
            .with_subset(Subset::Full)
            .with_deny_unknown(true),
    );
    assert!(denied.is_err());
}

#[test]
fn references_resolve_into_provided_documents_only() {
    let doc = json!({"$ref": "http://example.com/item.json#/$defs/n"});
    let bare = parse(&doc, &ParseOptions::default().with_subset(Subset::Full)).unwrap_err();
    assert!(
        matches!(&bare.violations[0].kind, ViolationKind::Unresolved(u) if u.contains("example.com"))
    );
    let o = ParseOptions::default()
        .with_subset(Subset::Full)
        .with_resource(
            "http://example.com/item.json",
            json!({"$defs": {"n": {"type": "integer"}}}),
        );
    let s = parse(&doc, &o).unwrap_or_else(|e| panic!("{e}"));
    assert!(s.is_valid(&json!(3)));
    assert!(!s.is_valid(&json!("3")));
}

#[test]
fn unevaluated_properties_see_applicators() {
    let s = full(json!({
        "allOf": [{"properties": {"a": true}}],
        "if": {"required": ["b"]}, "then": {"properties": {"b": true}},
        "unevaluatedProperties": false
    }));
    assert!(s.is_valid(&json!({"a": 1, "b": 2})));
    assert!(!s.is_valid(&json!({"a": 1, "c": 2})));
    let errors = s.validate(&json!({"c": 2})).unwrap_err();
    assert!(errors
        .errors
        .iter()
        .any(|e| e.keyword == "unevaluatedProperties"));
}

#[test]
fn dynamic_references_follow_the_dynamic_scope() {
    let s = full(json!({
        "$id": "https://example.com/strict",
        "$ref": "tree",
        "$dynamicAnchor": "node",
        "$defs": {
            "tree": {"$id": "tree", "$dynamicAnchor": "node", "type": "object",
                     "properties": {"kids": {"type": "array", "items": {"$dynamicRef": "#node"}}}},
        },
        "unevaluatedProperties": false
    }));
    assert!(s.is_valid(&json!({"kids": [{"kids": []}]})));
    assert!(!s.is_valid(&json!({"kids": [{"kids": [], "x": 1}]})));
}

#[test]
fn a_provided_meta_schema_turns_vocabularies_off() {
    let meta = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "http://example.com/no-validation",
        "$vocabulary": {
            "https://json-schema.org/draft/2020-12/vocab/applicator": true,
            "https://json-schema.org/draft/2020-12/vocab/core": true
        }
    });
    let o = ParseOptions::default()
        .with_subset(Subset::Full)
        .with_resource("http://example.com/no-validation", meta);
    let s = parse(
        &json!({"$schema": "http://example.com/no-validation",
                "properties": {"bad": false, "n": {"minimum": 10}}}),
        &o,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        s.is_valid(&json!({"n": 1})),
        "`minimum` is an annotation here"
    );
    assert!(
        !s.is_valid(&json!({"bad": 1})),
        "the applicators still apply"
    );
    assert!(s.warnings().is_empty(), "{:?}", s.warnings());
    // A required vocabulary nobody knows cannot be honoured: the document is refused.
    let o = ParseOptions::default()
        .with_subset(Subset::Full)
        .with_resource(
            "http://example.com/custom",
            json!({"$schema": "https://json-schema.org/draft/2020-12/schema",
               "$vocabulary": {"http://example.com/vocab/x": true}}),
        );
    let e = parse(&json!({"$schema": "http://example.com/custom"}), &o)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(e.contains("http://example.com/vocab/x"), "{e}");
}

#[test]
fn draft4_integers_have_no_fraction_part() {
    let d4 = full(json!({"$schema": "http://json-schema.org/draft-04/schema#", "type": "integer"}));
    assert!(d4.is_valid(&json!(12345)));
    assert!(!d4.is_valid(&json!(12345.0)));
    let message = d4
        .validate(&json!(1.0))
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(message.contains("draft 4"), "{message}");
    // An integer literal beyond 64 bits is read as a float, but it is still an integer.
    let big: Value = serde_json::from_str("123456789012345678901234567890").unwrap_or_default();
    assert!(d4.is_valid(&big));
    // Later drafts count any integral value.
    let d7 = full(json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "integer"}));
    assert!(d7.is_valid(&json!(12345.0)));
}

/// A reference to a draft's meta-schema resolves offline to the bundled copy, which then judges
/// schemas as that draft says; a caller's document for the same URI comes first.
#[test]
fn the_drafts_meta_schemas_are_bundled() {
    let d7 = full(
        json!({"properties": {"schema": {"$ref": "http://json-schema.org/draft-07/schema#"}}}),
    );
    assert!(d7.is_valid(&json!({"schema": {"type": "string", "minLength": 1}})));
    assert!(!d7.is_valid(&json!({"schema": {"type": "strin"}})));
    assert!(!d7.is_valid(&json!({"schema": {"minLength": -1}})));
    let d2020 = full(json!({"$ref": "https://json-schema.org/draft/2020-12/schema"}));
    assert!(d2020.is_valid(&json!({"prefixItems": [true], "unevaluatedItems": false})));
    assert!(!d2020.is_valid(&json!({"prefixItems": {}})));
    assert!(!d2020.is_valid(&json!({"$defs": {"a": 1}})));
    let d4 = full(json!({"$ref": "http://json-schema.org/draft-04/schema#"}));
    assert!(!d4.is_valid(&json!({"exclusiveMaximum": 3})));
    assert!(d4.is_valid(&json!({"maximum": 3, "exclusiveMaximum": true})));
    // The caller's own document at that URI wins.
    let o = ParseOptions::default()
        .with_subset(Subset::Full)
        .with_resource(
            "http://json-schema.org/draft-07/schema",
            json!({"type": "integer"}),
        );
    let own = parse(
        &json!({"$ref": "http://json-schema.org/draft-07/schema#"}),
        &o,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(own.is_valid(&json!(3)));
    assert!(!own.is_valid(&json!({})));
    // Other URIs stay unresolved: nothing is fetched.
    let e = parse(
        &json!({"$ref": "https://json-schema.org/draft/2021-01/schema"}),
        &ParseOptions::default().with_subset(Subset::Full),
    );
    assert!(e.is_err());
}
