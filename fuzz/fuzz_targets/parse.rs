//! Schema text (any bytes) into both subsets, with default and tight limits.
#![no_main]
use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for schema in common::parse_all(text) {
        // A parsed schema is usable: its own error-free walk over `null` terminates.
        common::check_validation(&schema, &serde_json::Value::Null);
    }
});
