//! Schema text NUL answer text: every target × profile accepts only what the source schema
//! accepts; the Gemini wire helpers take the answer as arguments and as a tool result.
#![no_main]
use libfuzzer_sys::fuzz_target;
use schemalect::gemini_wire;
use serde_json::Value;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    let Some((schema, answer)) = common::split(data) else {
        return;
    };
    let parsed = serde_json::from_str::<Value>(answer).ok();
    let _ = gemini_wire::function_response_part("f", answer);
    let part = gemini_wire::function_call_part("f", &Value::String(answer.to_owned()));
    let _ = gemini_wire::replay_part(&part);
    if let Some(v) = &parsed {
        let _ = gemini_wire::struct_root(v);
        let _ = gemini_wire::replay_part(v);
    }
    for schema in common::parse_all(schema) {
        for l in common::lowerings(&schema) {
            match l.accept(answer) {
                Ok(v) => assert!(
                    schema.is_valid(&v),
                    "{}: accept returned {v}, which the source schema rejects",
                    l.target()
                ),
                Err(e) => {
                    let _ = e.to_string();
                }
            }
            if let Some(v) = &parsed {
                if !l.is_reshaped() {
                    assert_eq!(
                        l.accept(v).is_ok(),
                        schema.is_valid(v),
                        "{}: without reshaping, accept must agree with is_valid",
                        l.target()
                    );
                }
                common::check_widening(&l, &schema, v);
                common::check_round_trip(&l, &schema, v);
            }
        }
    }
});
