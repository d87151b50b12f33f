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

/// Where the verdict does not depend on the request, none is built: the emitters' wires and
/// Gemini's `responseSchema` are empty objects, while the dialects that check limits on what
/// they send still build it.
#[test]
fn a_verdict_builds_the_request_only_where_it_is_checked() {
    let v = json!({
        "type": "object",
        "properties": {"a": {"type": "string", "description": "the a"}},
        "required": ["a"],
        "additionalProperties": false
    });
    let schema = parse(Subset::Adr126, &v, Limits::default());
    let o = LowerOptions::default();
    let sent = |t: Target, produce: Produce| dialect::lower(&schema, t, &o, produce).wire;
    assert_eq!(
        sent(Target::Ollama, Produce::Verdict),
        json!({"format": {}})
    );
    assert_eq!(
        sent(Target::Ollama, Produce::Request),
        schema.lower(Target::Ollama, &o).wire().clone()
    );
    assert_eq!(
        sent(Target::GeminiJson, Produce::Verdict),
        json!({"generationConfig": {"responseMimeType": "application/json", "responseJsonSchema": {}}})
    );
    for t in [Target::Gemini, Target::VertexGemini] {
        assert_eq!(
            sent(t, Produce::Verdict),
            json!({"generationConfig": {"responseMimeType": "application/json", "responseSchema": {}}}),
            "{t}"
        );
        assert_eq!(
            sent(t, Produce::Request),
            schema.lower(t, &o).wire().clone(),
            "{t}"
        );
    }
    for t in [Target::OpenAi, Target::ClaudeNative] {
        assert_eq!(sent(t, Produce::Verdict), sent(t, Produce::Request), "{t}");
    }
}
