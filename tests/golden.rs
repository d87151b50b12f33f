//! The golden corpus (`corpus/golden/`, see its README): every case's lowering on every target
//! and profile is compared with the expectation files, with a readable line diff.
//!
//! The files are rewritten only with `SCHEMALECT_BLESS=1`:
//!
//! ```sh
//! SCHEMALECT_BLESS=1 cargo test --test golden   # then review `git diff corpus/golden`
//! ```
//!
//! Without it, a missing expectation file, a differing one and a stale one (no case, or a
//! target/profile that no longer has one) all fail. Every case's instances also go through the
//! independent widening oracle (`support::contract::check_lowering`) on every target and
//! profile, so a golden file cannot record a narrowing.

use pretty_assertions::StrComparison;
use schemalect::{keywords, Mode, Profile, Subset, Target};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;
use support::declared::declared;
use support::golden::{self, Case};
use support::{contract, extended, oracle};

/// Diffs shown in full; past that, differing files are only named.
const MAX_DIFFS: usize = 12;

const BLESS_HINT: &str = "run `SCHEMALECT_BLESS=1 cargo test --test golden` and review the diff";

fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    let mut problems = Vec::new();
    for dir in golden::case_dirs() {
        if !dir.join("schema.json").exists() {
            continue; // a stale directory: reported by `golden_files_match`
        }
        match golden::load_case(&dir) {
            Ok(c) => out.push(c),
            Err(e) => problems.push(e),
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    out
}

fn rel(path: &Path) -> String {
    path.strip_prefix(support::workspace_root())
        .unwrap_or(path)
        .display()
        .to_string()
}

/// Removes an expectation file (bless only) or reports it as stale.
fn stale(path: &Path, why: &str, bless: bool, failures: &mut Vec<String>) {
    if bless {
        fs::remove_file(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        println!("removed stale {}", rel(path));
    } else {
        failures.push(format!(
            "{}: stale expectation ({why}); {BLESS_HINT}",
            rel(path)
        ));
    }
}

#[test]
fn golden_files_match() {
    let bless = golden::bless();
    let known = golden::all_expectation_files();
    let mut failures: Vec<String> = Vec::new();
    let mut written = 0usize;
    let mut compared = 0usize;
    let mut diffs = 0usize;

    // Anything at the top level besides case directories and the README is stray.
    for entry in fs::read_dir(golden::golden_dir()).unwrap_or_else(|e| panic!("{e}")) {
        let path = entry.unwrap_or_else(|e| panic!("{e}")).path();
        if path.is_file() && path.file_name().is_some_and(|n| n != "README.md") {
            failures.push(format!("{}: stray file; cases are directories", rel(&path)));
        }
    }

    for dir in golden::case_dirs() {
        let files: BTreeSet<String> = fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .collect();
        if !dir.join("schema.json").exists() {
            // A case that was removed or renamed left its expectations behind.
            for f in &files {
                if known.contains(f) {
                    stale(
                        &dir.join(f),
                        "no schema.json: no such case",
                        bless,
                        &mut failures,
                    );
                } else {
                    failures.push(format!(
                        "{}: unexpected file in a directory without schema.json",
                        rel(&dir.join(f))
                    ));
                }
            }
            if bless && fs::read_dir(&dir).is_ok_and(|mut d| d.next().is_none()) {
                fs::remove_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
            }
            continue;
        }
        let case = match golden::load_case(&dir) {
            Ok(c) => c,
            Err(e) => {
                failures.push(e);
                continue;
            }
        };
        let expected = match golden::expectations(&case) {
            Ok(e) => e,
            Err(e) => {
                failures.push(e);
                continue;
            }
        };
        for (target, conservative, reshaping) in &expected.mismatched {
            failures.push(format!(
                "{}: {target}: the reshaping profile does not reshape, yet lowers differently from the conservative profile (a library bug, not a golden to bless):\n{}",
                case.name,
                StrComparison::new(conservative, reshaping)
            ));
        }
        for (file, text) in &expected.files {
            let path = dir.join(file);
            let on_disk = fs::read_to_string(&path).ok();
            let matches = on_disk
                .as_deref()
                .is_some_and(|d| golden::normalised(d) == *text);
            compared += 1;
            if matches {
                continue;
            }
            if bless {
                fs::write(&path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                written += 1;
                println!("wrote {}", rel(&path));
                continue;
            }
            match on_disk {
                None => failures.push(format!("{}: missing expectation; {BLESS_HINT}", rel(&path))),
                Some(d) => {
                    diffs += 1;
                    failures.push(if diffs <= MAX_DIFFS {
                        format!(
                            "{}: the lowering differs from the expectation (left: expected, right: actual); if the change is intended, {BLESS_HINT}\n{}",
                            rel(&path),
                            StrComparison::new(&golden::normalised(&d), text)
                        )
                    } else {
                        format!(
                            "{}: the lowering differs from the expectation (diff not shown: more than {MAX_DIFFS} files differ)",
                            rel(&path)
                        )
                    });
                }
            }
        }
        for f in &files {
            if golden::INPUT_FILES.contains(&f.as_str()) || expected.files.contains_key(f) {
                continue;
            }
            if known.contains(f) {
                stale(
                    &dir.join(f),
                    "this target and profile need no such file (the reshaping profile does not reshape here)",
                    bless,
                    &mut failures,
                );
            } else {
                failures.push(format!(
                    "{}: unexpected file; a case holds {} and <target>[.reshaping].json",
                    rel(&dir.join(f)),
                    golden::INPUT_FILES.join(", ")
                ));
            }
        }
    }
    println!("golden: {compared} expectations compared, {written} written");
    assert!(
        failures.is_empty(),
        "{} golden failures:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn golden_instances_keep_the_widening_contract() {
    let mut failures: Vec<String> = Vec::new();
    let (mut checks, mut negatives, mut lowerings) = (0usize, 0usize, 0usize);
    for case in cases() {
        let schema = match case.parse() {
            Ok(s) => s,
            Err(e) => {
                failures.push(e);
                continue;
            }
        };
        if case.valid.is_empty() {
            failures.push(format!(
                "{}: valid.json must list at least one instance",
                case.name
            ));
        }
        // The extended subset's draft-04 spellings, as the `jsonschema` crate reads them.
        // The full subset follows the draft a document declares, and so does the crate then.
        let compiled = match case.subset {
            Subset::Adr126 => oracle::compile(&case.oracle_source),
            Subset::Full => oracle::compile_as_declared(&case.oracle_source),
            _ => oracle::compile(&extended::for_oracle(&case.oracle_source)),
        };
        let theirs = match compiled {
            Ok(v) => v,
            Err(e) => {
                failures.push(format!(
                    "{}: jsonschema cannot compile the schema: {e}",
                    case.name
                ));
                continue;
            }
        };
        // The instances must say what they claim, by both validators, and lie in the declared
        // fragment the contract speaks about.
        for (list, want) in [(&case.valid, true), (&case.invalid, false)] {
            for x in list.iter() {
                let (ours, other) = (schema.is_valid(x), theirs.is_valid(x));
                if ours != want || other != want {
                    failures.push(format!(
                        "{}: instance {x} is listed as {}, but schemalect says {ours} and the jsonschema crate {other}",
                        case.name,
                        if want { "valid" } else { "invalid" }
                    ));
                }
                if !declared(&case.source, x) {
                    failures.push(format!(
                        "{}: instance {x} uses a property name the schema does not declare where it declares some (outside the declared fragment)",
                        case.name
                    ));
                }
            }
        }
        for target in Target::ALL {
            for profile in Profile::ALL {
                let lowering = schema.lower(target, &case.options_for(profile));
                lowerings += 1;
                match contract::check_lowering(
                    &case.source,
                    &lowering,
                    profile,
                    &case.valid,
                    &case.invalid,
                ) {
                    Ok(c) => {
                        checks += c.values;
                        negatives += c.negatives;
                    }
                    Err(e) => failures.push(format!("{}: {e}", case.name)),
                }
            }
        }
    }
    println!(
        "golden contract: {lowerings} lowerings, {checks} (value, target, profile) checks, {negatives} negative checks"
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    assert!(checks > 0);
}

/// Every keyword in a schema position of `s` (walking `$defs` and `definitions` too), with the
/// schema nodes themselves.
fn keywords_of(s: &Value) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (_, n) in oracle::nodes_of(s) {
        out.extend(n.node.keys().cloned());
    }
    out
}

/// A hard case of issue 3, by what the schema contains.
fn hard_cases(s: &Value) -> Vec<&'static str> {
    let nodes = oracle::nodes_of(s);
    let mut found = Vec::new();
    let has =
        |p: &dyn Fn(&serde_json::Map<String, Value>) -> bool| nodes.iter().any(|(_, n)| p(n.node));
    if has(&|n| {
        n.get("properties")
            .is_some_and(|p| p.as_object().is_some_and(|m| m.is_empty()))
    }) {
        found.push("empty properties");
    }
    if has(&|n| {
        n.get("additionalProperties").is_some_and(Value::is_object) && !n.contains_key("properties")
    }) {
        found.push("map");
    }
    let null_union = |n: &serde_json::Map<String, Value>| {
        n.get("type")
            .and_then(Value::as_array)
            .is_some_and(|t| t.len() > 1 && t.contains(&Value::from("null")))
            || ["anyOf", "oneOf"].iter().any(|k| {
                n.get(*k).and_then(Value::as_array).is_some_and(|b| {
                    b.iter()
                        .any(|x| x.get("type") == Some(&Value::from("null")))
                })
            })
    };
    if has(&null_union) {
        found.push("union with null");
    }
    if has(&|n| {
        n.get("enum")
            .and_then(Value::as_array)
            .is_some_and(|e| e.iter().any(|v| !v.is_string()))
    }) {
        found.push("non-string enum");
    }
    if s.get("type") != Some(&Value::from("object")) {
        found.push("non-object root");
    }
    if has(&|n| n.contains_key("allOf")) {
        found.push("allOf merge");
    }
    if nodes.iter().map(|(_, n)| n.depth).max().unwrap_or(0) >= 10 {
        found.push("nesting near limits");
    }
    found
}

#[test]
fn golden_corpus_covers_every_keyword_and_hard_case() {
    let cases = cases();
    assert!(
        cases.len() >= 40,
        "only {} golden cases; issue 3 asks for at least 40",
        cases.len()
    );
    let mut adr = BTreeSet::new();
    let mut ext = BTreeSet::new();
    let mut full = BTreeSet::new();
    let mut hard: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for c in &cases {
        let kws = keywords_of(&c.source);
        match c.subset {
            Subset::Adr126 => adr.extend(kws),
            Subset::Full => full.extend(kws),
            _ => ext.extend(kws),
        }
        for h in hard_cases(&c.source) {
            hard.entry(h).or_default().push(c.name.clone());
        }
    }
    let missing: Vec<&str> = keywords::SUBSET
        .iter()
        .map(|k| k.name)
        .filter(|k| !adr.contains(*k))
        .collect();
    assert!(
        missing.is_empty(),
        "no ADR-126 golden case uses {missing:?}"
    );
    let missing: Vec<&str> = keywords::EXTENDED
        .iter()
        .map(|k| k.name)
        .filter(|k| !ext.contains(*k))
        .collect();
    assert!(
        missing.is_empty(),
        "no extended golden case uses {missing:?}"
    );
    assert!(
        ext.iter().any(|k| keywords::is_vendor_key(k)),
        "no extended golden case has a vendor `x-` key"
    );
    // The full subset's own applicators and assertions, and one case per draft.
    let missing: Vec<&str> = [
        "patternProperties",
        "propertyNames",
        "minProperties",
        "maxProperties",
        "dependencies",
        "if",
        "then",
        "else",
        "contains",
        "maxContains",
        "unevaluatedProperties",
        "$recursiveRef",
    ]
    .into_iter()
    .filter(|k| !full.contains(*k))
    .collect();
    assert!(missing.is_empty(), "no full golden case uses {missing:?}");
    for draft in ["draft-04", "draft-06", "draft-07", "2019-09"] {
        assert!(
            cases.iter().any(|c| c.subset == Subset::Full
                && c.source["$schema"]
                    .as_str()
                    .is_some_and(|s| s.contains(draft))),
            "no full golden case declares {draft}"
        );
    }
    for h in [
        "empty properties",
        "map",
        "union with null",
        "non-string enum",
        "non-object root",
        "allOf merge",
        "nesting near limits",
    ] {
        assert!(hard.contains_key(h), "no golden case covers {h}");
    }
    // Every target reaches both a native mode and a fallback somewhere in the corpus, so the
    // goldens show each dialect's emission and its way out.
    for target in Target::ALL {
        let modes: BTreeSet<Mode> = cases
            .iter()
            .filter_map(|c| {
                Some(
                    c.parse()
                        .ok()?
                        .lower(target, &c.options_for(Profile::Conservative))
                        .mode(),
                )
            })
            .collect();
        assert!(
            modes.iter().any(|m| *m <= Mode::Widened) && modes.iter().any(|m| *m >= Mode::Json),
            "{target}: the golden corpus reaches only {modes:?}"
        );
    }
}

const README_BEGIN: &str =
    "<!-- BEGIN GENERATED: cases (tests/golden.rs; SCHEMALECT_BLESS=1 rewrites) -->";
const README_END: &str = "<!-- END GENERATED: cases -->";

fn mode_letter(m: Mode) -> &'static str {
    match m {
        Mode::Exact => "E",
        Mode::Widened => "W",
        Mode::Json => "J",
        Mode::Prompt => "P",
    }
}

/// The generated part of the README: the case list and the modes each case reaches.
fn readme_section(cases: &[Case]) -> String {
    let mut s = String::new();
    let count = |subset| cases.iter().filter(|c| c.subset == subset).count();
    let (ext, full) = (count(Subset::Extended), count(Subset::Full));
    s.push_str(&format!(
        "{} cases: {} in the ADR-126 subset, {} in the extended subset, {} in the full subset.\n\n",
        cases.len(),
        cases.len() - ext - full,
        ext,
        full
    ));
    s.push_str("| case | subset | what it covers |\n|---|---|---|\n");
    for c in cases {
        s.push_str(&format!(
            "| [`{}`]({}/) | {} | {} |\n",
            c.name,
            c.name,
            c.subset.name(),
            c.about.replace('|', "\\|")
        ));
    }
    s.push_str("\nModes reached (conservative profile / reshaping profile where it differs): E exact, W widened, J json, P prompt.\n\n| case |");
    for t in Target::ALL {
        s.push_str(&format!(" {t} |"));
    }
    s.push_str("\n|---|");
    for _ in Target::ALL {
        s.push_str("---|");
    }
    s.push('\n');
    for c in cases {
        let Ok(schema) = c.parse() else { continue };
        s.push_str(&format!("| `{}` |", c.name));
        for t in Target::ALL {
            let m = schema
                .lower(t, &c.options_for(Profile::Conservative))
                .mode();
            let r = schema.lower(t, &c.options_for(Profile::Reshaping)).mode();
            if r == m {
                s.push_str(&format!(" {} |", mode_letter(m)));
            } else {
                s.push_str(&format!(" {}/{} |", mode_letter(m), mode_letter(r)));
            }
        }
        s.push('\n');
    }
    s
}

#[test]
fn golden_readme_lists_every_case() {
    let path = golden::golden_dir().join("README.md");
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let (Some(b), Some(e)) = (text.find(README_BEGIN), text.find(README_END)) else {
        panic!(
            "{}: the markers {README_BEGIN:?} … {README_END:?} are missing",
            rel(&path)
        );
    };
    let head = &text[..b + README_BEGIN.len()];
    let current = &text[b + README_BEGIN.len()..e];
    let want = format!("\n{}", readme_section(&cases()));
    if current == want {
        return;
    }
    if golden::bless() {
        fs::write(&path, format!("{head}{want}{}", &text[e..]))
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        println!("wrote {}", rel(&path));
        return;
    }
    panic!(
        "{}: the case list differs from the corpus (left: README, right: corpus); {BLESS_HINT}\n{}",
        rel(&path),
        StrComparison::new(current, &want)
    );
}
