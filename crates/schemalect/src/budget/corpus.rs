//! The defaults against the shared corpus: every schema of `../shared/corpus/jsonschemabench`
//! is parsed in each subset that takes it, validated against its labelled instances, lowered
//! for every target and profile, and every instance is accepted back; each operation runs
//! inside a measuring budget of its own, which counts its steps. Asserted: no operation
//! needs more than the default budget of its input (the defaults refuse nothing real).
//! Printed: the most steps per byte and the most steps any operation took, from which the
//! defaults in `limits.rs` were chosen. It reads about 7,600 files and lowers each 18 times,
//! so it runs only with `SCHEMALECT_BUDGET_CORPUS=1` (release: a few minutes):
//!
//! ```sh
//! SCHEMALECT_BUDGET_CORPUS=1 cargo test -p schemalect --release --lib budget::corpus -- --nocapture
//! ```

use super::{run, value_bytes};
use crate::limits::{Limits, Operation};
use crate::options::{LowerOptions, Profile};
use crate::target::Target;
use crate::{ParseOptions, Schema, Subset};
use serde_json::Value;
use std::path::Path;

/// The most any one operation of a kind needed.
#[derive(Default)]
struct Worst {
    /// Operations measured.
    count: u64,
    /// Most steps per input byte (and where).
    per_byte: (f64, String),
    /// Most steps (and where).
    steps: (u64, String),
    /// Operations the default budget would have refused.
    over: Vec<String>,
    /// Steps and nanoseconds in all (for the time per step, printed only).
    total_steps: u64,
    total_ns: u128,
    /// The most nanoseconds per step of one operation of at least 1,000 steps (and where).
    ns_per_step: (f64, String),
}

impl Worst {
    fn add(&mut self, (steps, ns): (u64, u128), bytes: u64, what: impl Fn() -> String) {
        self.count += 1;
        self.total_steps += steps;
        self.total_ns += ns;
        let per_step = ns as f64 / steps.max(1) as f64;
        if steps >= 1_000 && per_step > self.ns_per_step.0 {
            self.ns_per_step = (per_step, what());
        }
        let ratio = steps as f64 / bytes.max(1) as f64;
        if ratio > self.per_byte.0 {
            self.per_byte = (ratio, what());
        }
        if steps > self.steps.0 {
            self.steps = (steps, what());
        }
        if steps > Limits::default().work_budget(bytes) {
            self.over.push(what());
        }
    }
}

/// The steps `f` takes, counted by a budget that cannot run out (the operation nests in it),
/// and its time in nanoseconds.
fn steps(f: impl FnOnce()) -> (u64, u128) {
    let t = std::time::Instant::now();
    let n = count(f);
    (n, t.elapsed().as_nanos())
}

fn count(f: impl FnOnce()) -> u64 {
    let unbounded = Limits::default()
        .with_work_floor(u64::MAX)
        .with_work_per_byte(0);
    let mut f = Some(f);
    run(Operation::Validate, &unbounded, 0, None, |b| {
        if let Some(f) = f.take() {
            f();
        }
        b.spent()
    })
}

#[test]
fn the_default_budgets_refuse_nothing_in_the_shared_corpus() {
    if std::env::var_os("SCHEMALECT_BUDGET_CORPUS").is_none() {
        eprintln!(
            "set SCHEMALECT_BUDGET_CORPUS=1 to measure the work budgets on the shared corpus"
        );
        return;
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/jsonschemabench");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("{} is absent; nothing to measure", dir.display());
        return;
    };
    let mut paths: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    let (mut parse, mut validate, mut lower, mut accept) = (
        Worst::default(),
        Worst::default(),
        Worst::default(),
        Worst::default(),
    );
    let (mut files, mut schemas) = (0, 0);
    for path in &paths {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        let Ok(doc) = serde_json::from_str::<Value>(&text) else {
            continue;
        };
        files += 1;
        let name = path
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        let schema_value = &doc["schema"];
        let schema_text = schema_value.to_string();
        let schema_bytes = schema_text.len() as u64;
        let instances: Vec<(String, Value)> = doc["tests"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|t| (t["data"].to_string(), t["data"].clone()))
            .collect();
        for subset in [Subset::Adr126, Subset::Extended, Subset::Full] {
            let options = ParseOptions::default().with_subset(subset);
            let mut parsed = None;
            let n = steps(|| parsed = Schema::from_json_str(&schema_text, &options).ok());
            let Some(schema) = parsed else {
                continue;
            };
            schemas += 1;
            parse.add(n, schema_bytes, || format!("{name} ({subset:?})"));
            for (i, (text, instance)) in instances.iter().enumerate() {
                let n = steps(|| {
                    let _ = schema.validate(instance);
                });
                let bytes = schema_bytes + value_bytes(instance);
                validate.add(n, bytes, || format!("{name} ({subset:?}) instance {i}"));
                let n = steps(|| {
                    let _ = schema.is_valid(instance);
                });
                validate.add(n, bytes, || {
                    format!("{name} ({subset:?}) instance {i}, is_valid")
                });
                let _ = text;
            }
            for profile in Profile::ALL {
                for target in Target::ALL {
                    let options = LowerOptions::default().with_profile(profile);
                    let mut lowering = None;
                    let n = steps(|| lowering = Some(schema.lower(target, &options)));
                    lower.add(n, schema_bytes, || {
                        format!("{name} ({subset:?}) {target} {profile:?}")
                    });
                    let Some(l) = lowering else {
                        continue;
                    };
                    for (i, (text, instance)) in instances.iter().enumerate() {
                        let sent = match l.encode(instance) {
                            Ok(w) if l.is_reshaped() => w.to_string(),
                            _ => text.clone(),
                        };
                        let n = steps(|| {
                            let _ = l.accept(sent.as_str());
                        });
                        accept.add(n, schema_bytes + sent.len() as u64, || {
                            format!("{name} ({subset:?}) {target} {profile:?} instance {i}")
                        });
                    }
                }
            }
        }
    }
    println!("{files} files, {schemas} parsed schemas (counted once per subset that takes them)");
    let defaults = Limits::default();
    println!(
        "defaults: {} steps per byte + {} steps",
        defaults.work_per_byte, defaults.work_floor
    );
    for (what, w) in [
        ("parse", &parse),
        ("validate", &validate),
        ("lower", &lower),
        ("accept", &accept),
    ] {
        println!(
            "{what}: {} operations; most steps per byte {:.2} ({}); most steps {} ({}); over the default budget: {}; {:.1} ns per step on average, at most {:.1} ({})",
            w.count,
            w.per_byte.0,
            w.per_byte.1,
            w.steps.0,
            w.steps.1,
            w.over.len(),
            w.total_ns as f64 / w.total_steps.max(1) as f64,
            w.ns_per_step.0,
            w.ns_per_step.1
        );
    }
    for (what, w) in [
        ("parse", &parse),
        ("validate", &validate),
        ("lower", &lower),
        ("accept", &accept),
    ] {
        assert!(
            w.over.is_empty(),
            "{what} over the default budget: {:?}",
            w.over
        );
    }
}
