//! [`Schema::assess`] against [`Schema::lower`]: the verdict without the request.

use crate::dialect::{self, Produce};
use crate::{Limits, LowerOptions, Mode, ParseOptions, Profile, Schema, Subset, Target};
use serde_json::{json, Value};

/// Schemas that reach every mode on some target: native and exact, widened (bounds, lengths,
/// patterns), reshaped (a map, a non-object root), fallbacks (an open object, recursion), and
/// the `full` subset's widening.
fn schemas() -> Vec<(Subset, Value)> {
    vec![
        (
            Subset::Adr126,
            json!({
                "type": "object",
                "properties": {
                    "id": {"type": "integer", "minimum": 1},
                    "name": {"type": "string", "minLength": 1, "pattern": "^[a-z]+$"},
                    "tags": {"type": "array", "items": {"enum": ["a", "b", 3]}, "maxItems": 4}
                },
                "required": ["id", "name", "tags"],
                "additionalProperties": false
            }),
        ),
        (
            Subset::Adr126,
            json!({
                "type": "object",
                "properties": {
                    "counts": {"type": "object", "additionalProperties": {"type": "integer"}},
                    "note": {"type": ["string", "null"], "format": "date-time"}
                }
            }),
        ),
        (
            Subset::Adr126,
            json!({"type": "array", "prefixItems": [{"type": "string"}, {"const": 2}]}),
        ),
        (
            Subset::Adr126,
            json!({"anyOf": [{"type": "string", "maxLength": 3}, {"type": "object"}]}),
        ),
        (
            Subset::Extended,
            json!({
                "type": "object",
                "properties": {"next": {"$ref": "#"}, "v": {"type": "number"}},
                "required": ["v"],
                "additionalProperties": false
            }),
        ),
        (
            Subset::Full,
            json!({
                "type": "object",
                "properties": {"a": {"type": "string"}},
                "patternProperties": {"^x-": {"type": "integer"}},
                "minProperties": 1
            }),
        ),
    ]
}

fn parse(subset: Subset, v: &Value, limits: Limits) -> Schema {
    let options = ParseOptions::default()
        .with_subset(subset)
        .with_limits(limits);
    Schema::parse_with(v, &options).unwrap_or_else(|e| panic!("{v}: {e}"))
}

fn options() -> Vec<LowerOptions> {
    let base = LowerOptions::default();
    vec![
        base.clone(),
        base.clone().with_profile(Profile::Reshaping),
        base.clone()
            .with_profile(Profile::Reshaping)
            .with_null_means_absent(true),
        base.with_claude_thinking(true),
    ]
}

fn assert_alike(schema: &Schema, target: Target, options: &LowerOptions, what: &str) {
    let lowered = schema.lower(target, options);
    let assessed = schema.assess(target, options);
    assert_eq!(assessed.target(), target, "{what}");
    assert_eq!(assessed.mode(), lowered.mode(), "{target} {what}");
    assert_eq!(assessed.losses(), lowered.losses(), "{target} {what}");
    let hint = assessed.stronger_profile(options);
    assert_eq!(hint, lowered.stronger_profile(options), "{target} {what}");
    // What the hint claims, by its definition: the reshaping profile's lowering is native
    // where the conservative one fell back.
    let reshaping = options.clone().with_profile(Profile::Reshaping);
    let reshaped = schema.lower(target, &reshaping).mode();
    let expected = (options.profile == Profile::Conservative
        && lowered.mode() > Mode::Widened
        && reshaped <= Mode::Widened)
        .then_some((Profile::Reshaping, reshaped));
    assert_eq!(hint, expected, "hint: {target} {what}");
}

/// One schema's assessments for every target made together (sharing their strict schemas)
/// are those made alone, and their hints given together (sharing the reshapings) are the
/// hints of those made alone.
fn assert_shared_hints_alike(schema: &Schema, options: &LowerOptions, what: &str) -> usize {
    let together = schema.assess_all(&Target::ALL, options);
    let alone: Vec<_> = Target::ALL
        .iter()
        .map(|t| schema.assess(*t, options))
        .collect();
    for (a, b) in together.iter().zip(&alone) {
        assert_eq!(a.target(), b.target(), "{what}");
        assert_eq!(
            a.mode(),
            b.mode(),
            "assessed together: {} {what}",
            a.target()
        );
        assert_eq!(
            a.losses(),
            b.losses(),
            "assessed together: {} {what}",
            a.target()
        );
    }
    let hints: Vec<_> = alone.iter().map(|a| a.stronger_profile(options)).collect();
    for assessments in [&together, &alone] {
        assert_eq!(
            crate::Assessment::stronger_profiles(assessments, options),
            hints,
            "shared hints: {what}"
        );
    }
    hints.iter().flatten().count()
}

#[test]
fn an_assessment_is_the_lowerings_verdict() {
    let mut hints = 0;
    for (subset, v) in schemas() {
        let schema = parse(subset, &v, Limits::default());
        for o in options() {
            for t in Target::ALL {
                assert_alike(&schema, t, &o, &format!("{o:?} {v}"));
            }
            hints += assert_shared_hints_alike(&schema, &o, &format!("{o:?} {v}"));
        }
    }
    // The batch shares something: several targets of one family hint alike.
    assert!(hints >= 6, "only {hints} hints");
}

/// The verdict-only walk spends the work budget as the full one does, so a lowering that runs
/// out of it runs out when assessed too, at every budget.
#[test]
fn an_assessment_runs_out_of_work_where_the_lowering_does() {
    let mut ran_out = 0;
    for (subset, v) in schemas() {
        let mut floor = 16u64;
        while floor < 1 << 16 {
            floor += floor / 8;
            let limits = Limits::default()
                .with_work_floor(floor)
                .with_work_per_byte(0);
            let parsing = ParseOptions::default()
                .with_subset(subset)
                .with_limits(limits);
            // Parsing spends the same kind of budget; below what it needs there is nothing to
            // lower.
            let Ok(schema) = Schema::parse_with(&v, &parsing) else {
                continue;
            };
            for o in options() {
                for t in Target::ALL {
                    assert_alike(&schema, t, &o, &format!("floor {floor}, {o:?} {v}"));
                    let l = schema.assess(t, &o);
                    ran_out += usize::from(l.losses().iter().any(|l| l.reason.contains("steps")));
                }
                assert_shared_hints_alike(&schema, &o, &format!("floor {floor}, {o:?} {v}"));
            }
        }
    }
    assert!(ran_out > 100, "only {ran_out} assessments ran out of work");
}

/// A verdict builds no request: its wire is `null` for every target, native or fallen back
/// (or the `{}` of prompt mode, which sends nothing and allocates nothing), while the request
/// of the same lowering is the one [`Schema::lower`] sends.
#[test]
fn a_verdict_builds_no_request() {
    let schemas = [
        // Native everywhere.
        json!({
            "type": "object",
            "properties": {"a": {"type": "string", "description": "the a"}},
            "required": ["a"],
            "additionalProperties": false
        }),
        // Open: strict routes fall back to JSON mode.
        json!({"type": "object", "properties": {"a": {"type": "integer"}}}),
        // Not an object: no JSON mode either, and no forced tool.
        json!({"type": "array", "items": {"type": "string"}}),
    ];
    let base = LowerOptions::default();
    for v in schemas {
        let schema = parse(Subset::Adr126, &v, Limits::default());
        for o in [base.clone(), base.clone().with_claude_thinking(true)] {
            for t in Target::ALL {
                let sent = |produce| dialect::lower(&schema, t, &o, produce).wire;
                let verdict = sent(Produce::Verdict);
                let prompt = schema.lower(t, &o).mode() == Mode::Prompt;
                let nothing = if prompt { json!({}) } else { Value::Null };
                assert_eq!(verdict, nothing, "{t} {v}");
                assert_eq!(
                    &sent(Produce::Request),
                    schema.lower(t, &o).wire(),
                    "{t} {v}"
                );
            }
        }
    }
}

/// Literals that break the bounds beside them (of their own node, or across a union and its
/// node) leave no value, so no target sends a schema (seed 47, extended: `gemini-json` kept
/// `minLength: 2` beside `anyOf: [{"enum": ["s"]}]`, a wire llguidance refuses as
/// unsatisfiable).
#[test]
fn literals_outside_the_bounds_beside_them_send_no_schema() {
    let schemas = [
        json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/sh~1ared"}}, "required": ["a"],
               "$defs": {"sh/ared": {"type": "string", "minLength": 2,
                                     "anyOf": [{"type": "string", "const": "s", "not": {"type": "string"}}]}}}),
        json!({"type": "object", "properties": {"a": {"type": "string", "minLength": 2, "anyOf": [{"const": "s"}]}}, "required": ["a"]}),
        json!({"type": "object", "properties": {"a": {"type": "string", "minLength": 2, "const": "s"}}, "required": ["a"]}),
        json!({"type": "object", "properties": {"a": {"type": "integer", "minimum": 3, "anyOf": [{"enum": [1, 2]}]}}, "required": ["a"]}),
    ];
    for v in schemas {
        let schema = parse(Subset::Extended, &v, Limits::default());
        for t in Target::ALL {
            let l = schema.lower(t, &LowerOptions::default());
            assert!(l.mode() >= Mode::Json, "{t} {v}: {:?}", l.wire());
        }
    }
}
