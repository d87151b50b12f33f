//! Schema text into every target × profile; each lowering keeps its documented contract, and
//! accepts (in the shape it asked for) the schema's own examples that the schema accepts.
#![no_main]
use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(doc) = serde_json::from_str::<serde_json::Value>(text) else {
        return;
    };
    // Instances worth trying: the schema's own literals, and a few plain values.
    let mut instances = vec![
        serde_json::Value::Null,
        serde_json::json!({}),
        serde_json::json!([]),
        serde_json::json!(""),
        serde_json::json!(0),
    ];
    for key in ["const", "default", "examples", "enum"] {
        match doc.get(key) {
            Some(serde_json::Value::Array(list)) if key != "const" && key != "default" => {
                instances.extend(list.iter().take(8).cloned())
            }
            Some(v) => instances.push(v.clone()),
            None => {}
        }
    }
    for schema in common::parse_all(text) {
        for l in common::lowerings(&schema) {
            for x in &instances {
                common::check_widening(&l, &schema, x);
                common::check_round_trip(&l, &schema, x);
            }
        }
    }
});
