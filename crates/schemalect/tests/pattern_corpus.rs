//! Every `pattern` of the shared JSONSchemaBench corpus against the engine settings.
//!
//! The pattern engine's budgets (compiled size, lazy DFA cache: docs/security.md, finding 9)
//! must not refuse a real pattern nor change a verdict. This check compiles every pattern of
//! `../shared/corpus/jsonschemabench` (schemas and `patternProperties` keys) and matches each
//! against every string of the corpus's labelled instances and its own schema, once with
//! schemalect's settings and once with the `regex` crate's defaults on the same translation.
//! It reads about 7,600 files, so it runs only with `SCHEMALECT_PATTERN_CORPUS=1`:
//!
//! ```sh
//! SCHEMALECT_PATTERN_CORPUS=1 cargo test -p schemalect --test pattern_corpus -- --nocapture
//! ```

use schemalect::pattern::{Pattern, PatternError};
use serde_json::Value;
use std::path::Path;

/// Strings and patterns found in one value, walked with an explicit stack.
fn gather(root: &Value, patterns: &mut Vec<String>, strings: &mut Vec<String>) {
    let mut stack = vec![root];
    while let Some(v) = stack.pop() {
        match v {
            Value::String(s) => strings.push(s.clone()),
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => {
                if let Some(Value::String(p)) = map.get("pattern") {
                    patterns.push(p.clone());
                }
                if let Some(Value::Object(pp)) = map.get("patternProperties") {
                    patterns.extend(pp.keys().cloned());
                }
                for (k, v) in map {
                    strings.push(k.clone());
                    stack.push(v);
                }
            }
            _ => {}
        }
    }
}

#[test]
fn every_corpus_pattern_compiles_and_matches_as_with_the_engine_defaults() {
    if std::env::var_os("SCHEMALECT_PATTERN_CORPUS").is_none() {
        eprintln!("set SCHEMALECT_PATTERN_CORPUS=1 to check the shared corpus's patterns");
        return;
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/jsonschemabench");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("{} is absent; nothing to check", dir.display());
        return;
    };
    let (mut files, mut patterns, mut accepted, mut matches) = (0, 0, 0, 0u64);
    let mut refused = Vec::new();
    for entry in entries.flatten() {
        let Ok(text) = std::fs::read_to_string(entry.path()) else {
            continue;
        };
        let Ok(doc) = serde_json::from_str::<Value>(&text) else {
            continue;
        };
        files += 1;
        let (mut found, mut strings) = (Vec::new(), Vec::new());
        gather(&doc, &mut found, &mut strings);
        for source in found {
            patterns += 1;
            let ours = match Pattern::compile(&source, 4096) {
                Ok(p) => p,
                // A budget refusal is a regression; other refusals (syntax, look-around) are
                // the subset's and do not depend on the engine's settings.
                Err(e @ (PatternError::TooComplex { .. } | PatternError::TooLong { .. })) => {
                    refused.push(format!("{source}: {e}"));
                    continue;
                }
                Err(_) => continue,
            };
            accepted += 1;
            // The engine's defaults (before finding 9's budgets) on the same translation.
            let reference = regex::RegexBuilder::new(ours.engine_pattern())
                .size_limit(10 << 20)
                .build()
                .unwrap_or_else(|e| panic!("{source}: the engine defaults refuse it: {e}"));
            for s in &strings {
                matches += 1;
                assert_eq!(ours.is_match(s), reference.is_match(s), "{source} on {s:?}");
            }
        }
    }
    println!(
        "{files} files, {patterns} patterns, {accepted} accepted, {matches} matches compared, {} refused as too complex",
        refused.len()
    );
    assert!(refused.is_empty(), "refused: {refused:#?}");
}
