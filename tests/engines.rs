//! Real engines over the shared corpus (issue 18), behind `SCHEMALECT_ENGINE_SURVEY=1` (it
//! compiles every native wire of every schema in llguidance, a few minutes on two cores):
//!
//! - Ollama: how many `format`s fail the check of llama.cpp's converter and GBNF parser
//!   (`support::gbnf`), against the same check on the verbatim schema and on the patterns as
//!   the portable rendering (what was sent before the grammar rendering);
//! - llguidance: wires that do not compile, and valid instances its matcher rejects, per target.
//!
//! Run: `SCHEMALECT_ENGINE_SURVEY=1 cargo test --test engines -- --nocapture`. The golden
//! corpus, the property tests and the corpus replay judge every wire with the same checks
//! (`support::contract`); this survey only counts.

use schemalect::pattern::Pattern;
use schemalect::{LowerOptions, Schema, Target};
use serde_json::Value;
use std::collections::BTreeMap;
use support::{engines, gbnf, oracle};

/// Every `pattern` of a schema, rewritten by `f` (`None`: left out).
fn map_patterns(s: &Value, f: &dyn Fn(&str) -> Option<String>) -> Value {
    match s {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter_map(|(k, v)| match (k.as_str(), v) {
                    ("pattern", Value::String(p)) => f(p).map(|p| (k.clone(), Value::from(p))),
                    _ => Some((k.clone(), map_patterns(v, f))),
                })
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(|v| map_patterns(v, f)).collect()),
        other => other.clone(),
    }
}

#[test]
fn engines_over_the_shared_corpus() {
    if std::env::var_os("SCHEMALECT_ENGINE_SURVEY").is_none() {
        println!("set SCHEMALECT_ENGINE_SURVEY=1 to run the engine survey of the shared corpus");
        return;
    }
    let Some(files) = support::jsonschemabench_files() else {
        return;
    };
    let (mut in_subset, mut ollama_native) = (0usize, 0usize);
    let (mut verbatim_bad, mut portable_bad, mut after_bad) = (0usize, 0usize, 0usize);
    let mut examples: Vec<String> = Vec::new();
    // target -> (native wires, compile failures, instances, rejected instances)
    let mut llg: BTreeMap<Target, (usize, usize, usize, usize)> = BTreeMap::new();
    let mut llg_examples: Vec<String> = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let Ok(doc) = serde_json::from_str::<Value>(&text) else {
            continue;
        };
        let s = &doc["schema"];
        let Ok(schema) = Schema::parse(s) else {
            continue;
        };
        in_subset += 1;
        let valid: Vec<Value> = doc["tests"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|t| t["data"].clone())
            .filter(|x| schema.is_valid(x) && support::declared::declared(s, x))
            .collect();
        // The verbatim schema as Ollama's converter would get it, and with the portable
        // rendering of anchored patterns (the rendering sent before).
        if s.is_object() {
            verbatim_bad += usize::from(!gbnf::problems(s).is_empty());
            let portable = map_patterns(s, &|p| {
                let c = Pattern::compile(p, 4096).ok()?;
                let f = c.features();
                (f.anchored_start && f.anchored_end && !f.anchors_inside).then(|| c.portable())
            });
            portable_bad += usize::from(!gbnf::problems(&portable).is_empty());
        }
        for target in Target::ALL {
            let lowering = schema.lower(target, &LowerOptions::default());
            let wire = lowering.wire();
            if target == Target::Ollama {
                if let Some(f @ Value::Object(_)) = wire.get("format") {
                    ollama_native += 1;
                    let p = gbnf::problems(f);
                    if !p.is_empty() {
                        after_bad += 1;
                        if examples.len() < 10 {
                            examples.push(format!("{}: {}", path.display(), p.join("; ")));
                        }
                    }
                }
            }
            let Some(native) = engines::native_schema(target, wire) else {
                continue;
            };
            let tally = llg.entry(target).or_default();
            tally.0 += 1;
            let compiled = engines::compiled(native);
            let engine = match compiled.as_ref() {
                Ok(e) => e,
                Err(e) => {
                    tally.1 += 1;
                    if llg_examples.len() < 10 {
                        llg_examples.push(format!("{} [{target}]: {e}", path.display()));
                    }
                    continue;
                }
            };
            for x in &valid {
                let Ok(e) = lowering.encode(x) else {
                    continue;
                };
                if !oracle::language(target, wire).is_ok_and(|l| l.accepts(&e)) {
                    continue;
                }
                tally.2 += 1;
                if let Err(err) = engine.writes(&e) {
                    tally.3 += 1;
                    if llg_examples.len() < 10 {
                        llg_examples.push(format!("{} [{target}]: {err}", path.display()));
                    }
                }
            }
        }
    }
    println!(
        "engine survey: {in_subset} in-subset schemas of {}",
        files.len()
    );
    println!(
        "ollama: {ollama_native} native formats; failing the llama.cpp GBNF check: {after_bad} now, {portable_bad} with the portable pattern rendering, {verbatim_bad} sent verbatim"
    );
    for e in &examples {
        println!("  {e}");
    }
    for (t, (n, bad, inst, rej)) in &llg {
        println!(
            "llguidance {t}: {n} native wires, {bad} do not compile, {inst} valid instances, {rej} rejected"
        );
    }
    for e in &llg_examples {
        println!("  {e}");
    }
}

/// The same counts over the output of `schemalect suite --format json` (one JSON line per
/// schema, its wires per target), behind `SCHEMALECT_ENGINE_SUITE=FILE`: so that the wires of
/// any build of the command-line tool, an older one included, are judged by today's checks.
/// The valid instances are the tests the report marks valid (`actual: true`) that lie in the
/// declared fragment, read from the files the report names; with the conservative profile
/// (the default) they are what the provider is asked for, and with the reshaping profile their
/// encodings, which the report gives per target (`encoded`). Fails on any wire refused, valid
/// value rejected or Ollama format failing the GBNF check.
///
/// Run: `schemalect suite ../shared/corpus/jsonschemabench --format json > suite.jsonl`, then
/// `SCHEMALECT_ENGINE_SUITE=suite.jsonl cargo test --test engines -- --nocapture`.
#[test]
fn engines_over_a_suite_report() {
    let Some(report) = std::env::var_os("SCHEMALECT_ENGINE_SUITE") else {
        println!("set SCHEMALECT_ENGINE_SUITE=FILE to judge the wires of a `suite` report");
        return;
    };
    let text = std::fs::read_to_string(&report).unwrap_or_else(|e| panic!("{report:?}: {e}"));
    let (mut lines, mut in_subset, mut ollama_native, mut ollama_bad) = (0usize, 0, 0, 0);
    let mut slowest_gbnf = (std::time::Duration::ZERO, String::new());
    let mut slowest_llg = (std::time::Duration::ZERO, String::new());
    let mut examples: Vec<String> = Vec::new();
    // target -> (native wires, refused, instances, rejected)
    let mut llg: BTreeMap<String, (usize, usize, usize, usize)> = BTreeMap::new();
    let mut llg_examples: Vec<String> = Vec::new();
    let mut docs: BTreeMap<String, Value> = BTreeMap::new();
    for line in text.lines().filter(|l| l.starts_with('{')) {
        lines += 1;
        let Ok(entry) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        if entry["in_subset"] != Value::Bool(true) {
            continue;
        }
        in_subset += 1;
        let file = entry["file"].as_str().unwrap_or_default().to_owned();
        let doc = docs
            .entry(file.clone())
            .or_insert_with(|| {
                let text = std::fs::read_to_string(&file).unwrap_or_default();
                serde_json::from_str(&text).unwrap_or(Value::Null)
            })
            .clone();
        let group = match &doc {
            Value::Array(groups) => entry["group"]
                .as_u64()
                .and_then(|g| groups.get(g as usize))
                .cloned()
                .unwrap_or(Value::Null),
            other => other.clone(),
        };
        let s = &group["schema"];
        let tests = group["tests"].as_array().cloned().unwrap_or_default();
        // (index of the test, its value)
        let valid: Vec<(usize, Value)> = entry["tests"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|t| t["actual"] == Value::Bool(true))
            .filter_map(|t| {
                let i = t["index"].as_u64()? as usize;
                Some((i, tests.get(i)?["data"].clone()))
            })
            .filter(|(_, x)| support::declared::declared(s, x))
            .collect();
        for t in entry["targets"].as_array().into_iter().flatten() {
            let name = t["target"].as_str().unwrap_or_default();
            let Some(target) = Target::from_name(name) else {
                continue;
            };
            let wire = &t["wire"];
            if target == Target::Ollama {
                if let Some(f @ Value::Object(_)) = wire.get("format") {
                    ollama_native += 1;
                    let started = std::time::Instant::now();
                    let p = gbnf::problems(f);
                    let took = started.elapsed();
                    if took > slowest_gbnf.0 {
                        slowest_gbnf = (took, file.clone());
                    }
                    if !p.is_empty() {
                        ollama_bad += 1;
                        if examples.len() < 10 {
                            examples.push(format!("{file}: {}", p.join("; ")));
                        }
                    }
                }
            }
            let Some(native) = engines::native_schema(target, wire) else {
                continue;
            };
            let tally = llg.entry(name.to_owned()).or_default();
            tally.0 += 1;
            let started = std::time::Instant::now();
            let compiled = engines::compiled(native);
            let note = |what: String, examples: &mut Vec<String>| {
                if examples.len() < 10 {
                    examples.push(format!("{file} [{name}]: {what}"));
                }
            };
            match compiled.as_ref() {
                Err(e) => {
                    tally.1 += 1;
                    note(e.clone(), &mut llg_examples);
                }
                Ok(engine) => {
                    // With the reshaping profile the wire speaks the encoded shape: the report
                    // gives each test's encoding (null where the lens found none, a rejection).
                    let encoded = t["encoded"].as_array();
                    for (i, x) in &valid {
                        tally.2 += 1;
                        let x = match encoded {
                            Some(list) => match list.get(*i) {
                                Some(v) if !v.is_null() => v,
                                _ => {
                                    tally.3 += 1;
                                    note(format!("test {i} not encoded"), &mut llg_examples);
                                    continue;
                                }
                            },
                            None => x,
                        };
                        if let Err(e) = engine.writes(x) {
                            tally.3 += 1;
                            note(e, &mut llg_examples);
                        }
                    }
                }
            }
            let took = started.elapsed();
            if target == Target::Ollama && took > slowest_llg.0 {
                slowest_llg = (took, file.clone());
            }
        }
    }
    println!("suite report: {lines} lines, {in_subset} in the subset");
    println!(
        "ollama: {ollama_native} native formats, {ollama_bad} failing the llama.cpp GBNF check; slowest check {:?} ({})",
        slowest_gbnf.0, slowest_gbnf.1
    );
    for e in &examples {
        println!("  {e}");
    }
    for (t, (n, bad, inst, rej)) in &llg {
        println!(
            "llguidance {t}: {n} native wires, {bad} refused, {inst} valid instances, {rej} rejected"
        );
    }
    println!(
        "slowest llguidance judgement of an Ollama wire (compile and every instance): {:?} ({})",
        slowest_llg.0, slowest_llg.1
    );
    for e in &llg_examples {
        println!("  {e}");
    }
    let (refused, rejected) = llg
        .values()
        .fold((0, 0), |(a, b), (_, bad, _, rej)| (a + bad, b + rej));
    assert!(
        refused == 0 && rejected == 0 && ollama_bad == 0,
        "{refused} wires refused, {rejected} valid values rejected, {ollama_bad} Ollama formats failing the GBNF check (examples above)"
    );
}
