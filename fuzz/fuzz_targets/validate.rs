//! Schema text NUL instance text: every parse, then `validate` and `is_valid`, which must agree.
#![no_main]
use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    let Some((schema, instance)) = common::split(data) else {
        return;
    };
    let Ok(instance) = serde_json::from_str::<serde_json::Value>(instance) else {
        return;
    };
    for schema in common::parse_all(schema) {
        common::check_validation(&schema, &instance);
    }
});
