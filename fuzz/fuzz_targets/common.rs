//! Shared by the fuzz targets: input splitting, the option grid and the oracles that hold for
//! every input. Included with `#[path]` (not a target of its own).
#![allow(dead_code)]

use schemalect::{Limits, LowerOptions, Lowering, ParseOptions, Profile, Schema, Subset, Target};
use serde_json::Value;

/// Splits the input at its first NUL byte into two UTF-8 texts (schema, then instance or
/// answer). Inputs that are not UTF-8 are uninteresting to a `&str` API and are skipped.
pub fn split(data: &[u8]) -> Option<(&str, &str)> {
    let cut = data.iter().position(|b| *b == 0).unwrap_or(data.len());
    let (a, b) = data.split_at(cut);
    let b = b.get(1..).unwrap_or_default();
    Some((std::str::from_utf8(a).ok()?, std::str::from_utf8(b).ok()?))
}

/// Both subsets with the default limits.
pub fn subsets() -> [ParseOptions; 2] {
    [
        ParseOptions::default(),
        ParseOptions::default().with_subset(Subset::Extended),
    ]
}

/// Tight limits, so that every limit path is reached by small inputs.
pub fn tight(subset: Subset) -> ParseOptions {
    ParseOptions::default().with_subset(subset).with_limits(
        Limits::default()
            .with_max_depth(4)
            .with_max_nodes(6)
            .with_max_enum_values(4)
            .with_max_pattern_len(12),
    )
}

/// Parses with the default limits and with tight ones. A document that parses within the
/// tight limits must parse within the defaults to the same number of nodes: a limit may only
/// turn a success into an error, never silently drop part of the schema.
pub fn parse_all(text: &str) -> Vec<Schema> {
    let mut out = Vec::new();
    for subset in [Subset::Adr126, Subset::Extended] {
        let full = Schema::from_json_str(text, &ParseOptions::default().with_subset(subset));
        if let Ok(small) = Schema::from_json_str(text, &tight(subset)) {
            let full = full
                .as_ref()
                .unwrap_or_else(|e| panic!("parses under tight limits but not the defaults: {e}"));
            assert_eq!(
                small.len(),
                full.len(),
                "the tight-limit parse kept a different number of nodes than the default parse"
            );
            assert!(small.len() <= 6, "the node limit was not enforced");
        }
        if let Ok(s) = full {
            out.push(s);
        }
    }
    out
}

/// `is_valid` and `validate` agree, and a rejection carries at least one error.
pub fn check_validation(schema: &Schema, instance: &Value) -> bool {
    let quick = schema.is_valid(instance);
    match schema.validate(instance) {
        Ok(()) => assert!(quick, "validate accepted what is_valid rejected"),
        Err(e) => {
            assert!(!quick, "validate rejected what is_valid accepted: {e}");
            assert!(!e.errors.is_empty(), "a rejection without errors");
            for err in &e.errors {
                let _ = err.to_string();
            }
        }
    }
    quick
}

/// Every target × profile.
pub fn lowerings(schema: &Schema) -> Vec<Lowering> {
    let mut out = Vec::new();
    for profile in Profile::ALL {
        let options = LowerOptions::default().with_profile(profile);
        for target in Target::ALL {
            let l = schema.lower(target, &options);
            check_lowering(&l);
            out.push(l);
        }
    }
    out
}

/// The documented contract of a lowering.
pub fn check_lowering(l: &Lowering) {
    use schemalect::Mode;
    if l.mode() != Mode::Exact {
        assert!(
            !l.losses().is_empty(),
            "{} lowered to {} without saying why",
            l.target(),
            l.mode()
        );
    }
    if l.mode() == Mode::Prompt {
        assert_eq!(
            l.wire(),
            &Value::Object(Default::default()),
            "prompt mode sends nothing"
        );
    }
    for loss in l.losses() {
        let _ = loss.to_string();
    }
    let text = serde_json::to_string(l.wire()).expect("the wire fragment serialises");
    let back: Value = serde_json::from_str(&text).expect("the wire fragment is JSON text");
    assert_eq!(
        &back,
        l.wire(),
        "the wire fragment survives a JSON round trip"
    );
}

/// The JSON Schema inside a wire fragment, for the dialects that send JSON Schema.
pub fn wire_schema(l: &Lowering) -> Option<&Value> {
    let w = l.wire();
    let candidates = [
        w.pointer("/format"),
        w.pointer("/response_format/json_schema/schema"),
        w.pointer("/generationConfig/responseJsonSchema"),
        w.pointer("/tools/0/input_schema"),
        w.pointer("/output_config/format/schema"),
    ];
    candidates.into_iter().flatten().find(|v| v.is_object())
}

/// The widening contract: a native schema (exact or widened) accepts every value the source
/// accepts, in the shape the provider is asked for. Checked where schemalect itself can read
/// the native schema.
pub fn check_widening(l: &Lowering, source: &Schema, instance: &Value) {
    use schemalect::Mode;
    if l.mode() > Mode::Widened || !source.is_valid(instance) {
        return;
    }
    let Some(native) = wire_schema(l) else {
        return;
    };
    let Ok(native) = Schema::parse_with(
        native,
        &ParseOptions::default().with_subset(Subset::Extended),
    ) else {
        return;
    };
    let Ok(sent) = l.encode(instance) else {
        return;
    };
    assert!(
        native.is_valid(&sent),
        "{}: the native schema rejects the source-valid value {sent}",
        l.target()
    );
}

/// `lift(encode(x)) == x` for a source-valid `x`, and `accept` takes the encoded value.
pub fn check_round_trip(l: &Lowering, source: &Schema, instance: &Value) {
    if !source.is_valid(instance) {
        return;
    }
    let Ok(sent) = l.encode(instance) else {
        return;
    };
    let back = l
        .lift(&sent)
        .unwrap_or_else(|e| panic!("{}: lift(encode(x)) failed: {e}", l.target()));
    assert!(
        schemalect::value::json_eq(&back, instance),
        "{}: lift(encode(x)) = {back}, not x = {instance}",
        l.target()
    );
    l.accept(&sent)
        .unwrap_or_else(|e| panic!("{}: accept(encode(x)) refused a valid x: {e}", l.target()));
}
