//! The check of one lowering against the widening contract (widening.md), shared by the
//! property test, the corpus replay and the regression tests.
//!
//! For a lowering of source `S` and values `x` with `S ⊨ x` in the declared fragment:
//! - the provider accepts the fragment (no refusal rule of providers.md fires) and `T(wire)`
//!   is a usable schema;
//! - the mode agrees with the wire: `Prompt` sends nothing that constrains, `Json` only an
//!   object-or-anything JSON mode, `Exact`/`Widened` a native schema; a lowering is `Exact`
//!   exactly when it lists no loss;
//! - `T(wire) ⊨ encode(x)`, every hint schema accepts it, and `accept` (the lift) gives back
//!   `x` exactly, from the value and from its text; with `null_means_absent` (an explicit
//!   `null` on an optional nullable property is sent as absence is), `x` without some of its
//!   `null` members, and exactly `x` when `x` has no `null` member at all;
//! - a real engine agrees: the native schema compiles in llguidance and its matcher can write
//!   every `encode(x)` ([`crate::engines`] module); and an Ollama wire passes the check of
//!   llama.cpp's converter and GBNF parser ([`crate::gbnf`]);
//! - for values the source rejects (in the declared fragment): `accept` refuses them, and an
//!   `Exact` lowering's `T(wire)` rejects them too.

use crate::oracle::{self, Language};
use crate::{engines, gbnf};
use schemalect::{Assessment, LowerOptions, Lowering, Mode, Profile, Schema, Target};
use serde_json::{json, Value};
use std::fmt::Write as _;

/// The reshaping lens's encoding of `x` for a lowering.
///
/// The value the lowering asks the provider for, for the source value `x`: the identity unless
/// the lowering reshapes (reshaping profile), then the lens's encoding. Every check below
/// (`T(wire) ⊨ encode(x)`, `lift(encode(x)) = x` through `accept`) covers the lens with it.
/// An encoding failure is reported as a violation by the caller (`Err`).
pub fn encode(lowering: &Lowering, x: &Value) -> Result<Value, String> {
    lowering
        .encode(x)
        .map_err(|e| format!("encode failed on a source-valid value: {e}"))
}

/// What one call checked.
#[derive(Clone, Copy, Debug, Default)]
pub struct Checked {
    /// `T(wire) ⊨ encode(x)` checks made (one per valid value).
    pub values: usize,
    /// Values the source rejects that were checked against `accept` (and `T` when `Exact`).
    pub negatives: usize,
    /// The lowering sends a native schema.
    pub native: bool,
}

/// The failure report of one check: what went wrong, with everything needed to reproduce it.
pub fn report(
    what: &str,
    source: &Value,
    lowering: &Lowering,
    profile: Profile,
    value: Option<&Value>,
    language: Option<&Value>,
) -> String {
    let mut s = format!(
        "[{} / {}] {what}\n  mode: {}\n",
        lowering.target(),
        profile.name(),
        lowering.mode()
    );
    for l in lowering.losses() {
        let _ = writeln!(s, "  loss: {l}");
    }
    let _ = writeln!(s, "  schema: {source}");
    if let Some(v) = value {
        let _ = writeln!(s, "  value:  {v}");
    }
    let _ = writeln!(s, "  wire:   {}", lowering.wire());
    if let Some(t) = language {
        let _ = writeln!(s, "  T(wire): {t}");
    }
    s
}

/// Checks the mode against the wire's decoder language.
fn mode_agrees(lowering: &Lowering, lang: &Language) -> Result<(), String> {
    let hints = oracle::hint_schemas(lowering.target(), lowering.wire());
    let mode = lowering.mode();
    match mode {
        Mode::Prompt if !(lang.is_anything() && hints.is_empty()) => {
            return Err("prompt mode, but the wire constrains or guides the answer".into())
        }
        Mode::Json
            if !(lang.is_anything()
                || lang.schema == json!({"type": "object"})
                || lang.admits_every_kind()) =>
        {
            return Err("json mode, but T(wire) is more than an object or anything".into())
        }
        Mode::Exact | Mode::Widened if !lang.is_native() => {
            return Err(format!(
                "{mode} mode, but the wire enforces no native schema"
            ))
        }
        _ => {}
    }
    match (mode, lowering.losses().is_empty()) {
        (Mode::Exact, false) => Err("exact mode with losses".into()),
        (m, true) if m != Mode::Exact => Err(format!("{m} mode without a loss saying why")),
        _ => Ok(()),
    }
}

/// Checks `lowering` (of the source `source`, under `profile`) against `valid` values (the
/// source accepts them; they lie in the declared fragment) and `invalid` ones (the source
/// rejects them; declared fragment). Returns what was checked, or the first failure.
pub fn check_lowering(
    source: &Value,
    lowering: &Lowering,
    profile: Profile,
    valid: &[Value],
    invalid: &[Value],
) -> Result<Checked, String> {
    check_lowering_with(source, lowering, profile, false, valid, invalid)
}

/// A fallback (JSON mode or prompt, not reshaped) names each node that blocked the native
/// mode once: its losses are at distinct nodes, besides reasons about the whole schema (no
/// keyword: a limit, or a second reason of the route such as OpenAI's `json_object` not being
/// sent either), so a user fixes every blocker in one round (issue 19).
pub fn blockers_once_per_node(lowering: &Lowering) -> Result<(), String> {
    if lowering.mode() < Mode::Json || lowering.is_reshaped() {
        return Ok(());
    }
    let mut seen = std::collections::HashSet::new();
    for loss in lowering.losses().iter().filter(|l| !l.keyword.is_empty()) {
        if !seen.insert(loss.pointer.as_str()) {
            return Err(format!(
                "the fallback names the node {} twice: {:?}",
                loss.pointer,
                lowering.losses()
            ));
        }
    }
    if lowering.losses().is_empty() {
        return Err("a fallback without a reason".to_owned());
    }
    Ok(())
}

/// `Schema::assess` gives what `lowering` (`schema.lower(target, options)`) says: the same mode
/// and the same losses, in the same order, though it builds no request where the verdict does
/// not depend on one (`lint` reads it; `lower` and `suite` print the lowering's); and its
/// `stronger_profile`, which tries only the reshapings, says what the reshaping profile's
/// whole lowering reaches.
pub fn assessed_alike(
    schema: &Schema,
    target: Target,
    options: &LowerOptions,
    lowering: &Lowering,
) -> Result<(), String> {
    let a = schema.assess(target, options);
    if a.target() != target || a.mode() != lowering.mode() || a.losses() != lowering.losses() {
        return Err(format!(
            "[assess] {target:?} {:?}: assessed {:?} with {:?}, lowered {:?} with {:?}",
            options.profile,
            a.mode(),
            a.losses(),
            lowering.mode(),
            lowering.losses()
        ));
    }
    // The hint, by its definition: the reshaping profile's lowering is native where this
    // conservative one fell back.
    let hint = a.stronger_profile(options);
    let expected = if options.profile == Profile::Conservative && lowering.mode() > Mode::Widened {
        let reshaping = options.clone().with_profile(Profile::Reshaping);
        let mode = schema.lower(target, &reshaping).mode();
        (mode <= Mode::Widened).then_some((Profile::Reshaping, mode))
    } else {
        None
    };
    if hint != expected {
        return Err(format!(
            "[assess] {target:?}: stronger_profile says {hint:?}, the reshaping lowering {expected:?}"
        ));
    }
    Ok(())
}

/// `schema`'s assessments for every target made together ([`Schema::assess_all`]) are those
/// made alone, and their hints given together ([`Assessment::stronger_profiles`], which
/// shares the reshapings among them) are the hints of the assessments made alone
/// ([`Assessment::stronger_profile`], checked against its definition by [`assessed_alike`]).
pub fn shared_hints_alike(schema: &Schema, options: &LowerOptions) -> Result<(), String> {
    // Assessed together ([`Schema::assess_all`], which shares the strict schemas among the
    // targets that build the same one): as assessed alone.
    let assessments = schema.assess_all(&Target::ALL, options);
    let alone: Vec<Assessment> = Target::ALL
        .iter()
        .map(|t| schema.assess(*t, options))
        .collect();
    for (a, alone) in assessments.iter().zip(&alone) {
        if a.mode() != alone.mode() || a.losses() != alone.losses() {
            return Err(format!(
                "[assess_all] {:?} {:?}: together {:?} with {:?}, alone {:?} with {:?}",
                a.target(),
                options.profile,
                a.mode(),
                a.losses(),
                alone.mode(),
                alone.losses()
            ));
        }
    }
    let together = Assessment::stronger_profiles(&assessments, options);
    for ((a, hint), b) in assessments.iter().zip(&together).zip(&alone) {
        let alone = b.stronger_profile(options);
        if *hint != alone {
            return Err(format!(
                "[hints] {:?} {:?}: given together {hint:?}, alone {alone:?}",
                a.target(),
                options.profile
            ));
        }
    }
    Ok(())
}

/// True when `lifted` is `x` with some object members whose value is `null` removed (and
/// nothing else changed): the only difference `null_means_absent` allows.
pub fn same_but_null_members(x: &Value, lifted: &Value) -> bool {
    match (x, lifted) {
        (Value::Object(a), Value::Object(b)) => {
            b.keys().all(|k| a.contains_key(k))
                && a.iter().all(|(k, v)| match b.get(k) {
                    Some(w) => same_but_null_members(v, w),
                    None => v.is_null(),
                })
        }
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(v, w)| same_but_null_members(v, w))
        }
        _ => x == lifted,
    }
}

/// True when some object member inside `x` is `null`.
pub fn has_null_member(x: &Value) -> bool {
    match x {
        Value::Object(m) => m.values().any(|v| v.is_null() || has_null_member(v)),
        Value::Array(a) => a.iter().any(has_null_member),
        _ => false,
    }
}

/// [`check_lowering`] for a lowering made with `LowerOptions::null_means_absent` set to
/// `null_means_absent`: then `lift(encode(x))` may drop `null` members of `x` (and only
/// those), and must be `x` itself when `x` has none.
pub fn check_lowering_with(
    source: &Value,
    lowering: &Lowering,
    profile: Profile,
    null_means_absent: bool,
    valid: &[Value],
    invalid: &[Value],
) -> Result<Checked, String> {
    // What `accept` may give back for `x`: `x`, or with `null_means_absent` and a `null`
    // member in `x`, `x` without some of its `null` members.
    let lifts_to = |x: &Value, lifted: &Value| {
        lifted == x || (null_means_absent && has_null_member(x) && same_but_null_members(x, lifted))
    };
    let target = lowering.target();
    let wire = lowering.wire();
    // The report names the profile only; a failure with `null_means_absent` says so.
    let fail = |what: &str, x: Option<&Value>, t: Option<&Value>| {
        let what = if null_means_absent {
            format!("{what} (with null_means_absent)")
        } else {
            what.to_owned()
        };
        Err(report(&what, source, lowering, profile, x, t))
    };
    let lang = match oracle::language(target, wire) {
        Ok(l) => l,
        Err(e) => return fail(&e.0, None, None),
    };
    if let Err(e) = mode_agrees(lowering, &lang) {
        return fail(&e, None, Some(&lang.schema));
    }
    if let Err(e) = blockers_once_per_node(lowering) {
        return fail(&e, None, None);
    }
    if let Some(schema) = engines::native_schema(target, wire) {
        let problems = oracle::read_alike_problems(schema);
        if !problems.is_empty() {
            return fail(
                &format!(
                    "the wire reads otherwise by the specification: {}",
                    problems.join("; ")
                ),
                None,
                None,
            );
        }
    }
    let mut checked = Checked {
        native: lang.is_native(),
        ..Checked::default()
    };
    // The routes whose schema llama.cpp's converter reads.
    let llama_schema = match target {
        Target::Ollama => wire.get("format"),
        Target::LlamaServer => wire.pointer("/response_format/json_schema/schema"),
        _ => None,
    };
    {
        if let Some(f @ Value::Object(_)) = llama_schema {
            let problems = gbnf::problems(f);
            if !problems.is_empty() {
                return fail(
                    &format!(
                        "GBNF: llama.cpp would refuse or misread the format: {}",
                        problems.join("; ")
                    ),
                    None,
                    None,
                );
            }
        }
    }
    let mut encoded = Vec::with_capacity(valid.len());
    let mut hints: Vec<(Value, jsonschema::Validator)> = Vec::new();
    for h in oracle::hint_schemas(target, wire) {
        match oracle::compile(&h) {
            Ok(v) => hints.push((h, v)),
            Err(e) => return fail(&format!("a hint schema is unusable: {e}"), None, None),
        }
    }
    for x in valid {
        let e = match encode(lowering, x) {
            Ok(e) => e,
            Err(msg) => return fail(&msg, Some(x), None),
        };
        if !lang.accepts(&e) {
            return fail(
                &format!(
                    "NARROWING: T(wire) rejects a value the source accepts (rejected by {})",
                    lang.rejection(&e)
                ),
                Some(&e),
                Some(&lang.schema),
            );
        }
        if let Some((h, _)) = hints.iter().find(|(_, v)| !v.is_valid(&e)) {
            return fail(
                &format!("NARROWING: the non-strict schema sent as a hint rejects a value the source accepts: {h}"),
                Some(&e),
                Some(&lang.schema),
            );
        }
        match lowering.accept(&e) {
            Ok(lifted) if lifted == *x => {}
            Ok(lifted) if lifts_to(x, &lifted) => {
                // An explicit `null` is sent as its absence is.
                if encode(lowering, &lifted).as_ref() != Ok(&e) {
                    return fail(
                        &format!("x and lift(encode(x)) = {lifted} encode differently"),
                        Some(x),
                        None,
                    );
                }
            }
            Ok(lifted) => {
                return fail(
                    &format!("lift(encode(x)) = {lifted} differs from x"),
                    Some(x),
                    None,
                )
            }
            // With `null_means_absent`, `x` without its `null` members can break a rule the
            // nulls kept (`uniqueItems` over `[{"a": null}, {}]`): a caller that reads both
            // alike sees the same value, and local validation of the lifted value decides. The
            // lift itself must still be `x` without nulls (docs/subset.md, null_means_absent).
            Err(_)
                if null_means_absent
                    && has_null_member(x)
                    && lowering.lift(&e).is_ok_and(|l| {
                        same_but_null_members(x, &l) && !schema_accepts(lowering, &l)
                    }) =>
            {
                checked.values += 1;
                encoded.push(e);
                continue;
            }
            Err(err) => {
                return fail(
                    &format!("accept refuses a valid value: {err}"),
                    Some(x),
                    None,
                )
            }
        }
        // Through text, as a provider's answer arrives; numbers may change representation,
        // so the expectation goes through text too.
        let text = e.to_string();
        let reparsed: Value = serde_json::from_str(&x.to_string()).unwrap_or(Value::Null);
        match lowering.accept(text.as_str()) {
            Ok(lifted) if lifts_to(&reparsed, &lifted) => {}
            other => {
                return fail(
                    &format!("accept of the answer text {text:?} gives {other:?}"),
                    Some(x),
                    None,
                )
            }
        }
        checked.values += 1;
        encoded.push(e);
    }
    if let Err(e) = engines::judge(source, target, wire, &encoded) {
        return fail(&e, None, None);
    }
    for y in invalid {
        if lowering.accept(y).is_ok() && !lowering.is_reshaped() {
            return fail(
                "accept lets through a value the source rejects",
                Some(y),
                None,
            );
        }
        // An invalid value may not encode (the lens follows the source's shape), and may
        // encode like a valid one (an optional `null` reads as absent): what matters is that
        // whatever `accept` lets through is valid, and that an exact `T(wire)` admits nothing
        // that `accept` then refuses.
        let ey = encode(lowering, y).unwrap_or_else(|_| y.clone());
        if let Ok(lifted) = lowering.accept(&ey) {
            if lowering.schema().is_some_and(|s| !s.is_valid(&lifted)) {
                return fail(
                    "accept lets through a value the source rejects",
                    Some(y),
                    None,
                );
            }
            checked.negatives += 1;
            continue;
        }
        if lowering.mode() == Mode::Exact && lang.accepts(&ey) {
            return fail(
                "exact mode, but T(wire) accepts a value the source rejects (the lowering should list a loss)",
                Some(y),
                Some(&lang.schema),
            );
        }
        checked.negatives += 1;
    }
    Ok(checked)
}

/// True when the lowering's source schema accepts `value`.
fn schema_accepts(lowering: &Lowering, value: &Value) -> bool {
    lowering.schema().is_none_or(|s| s.is_valid(value))
}
