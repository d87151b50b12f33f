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
    let Some(corpus) = support::shared_corpus() else {
        return;
    };
    let dir = corpus.join("jsonschemabench");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
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
