//! The shared corpora as conformance suites for the validator.
//!
//! - The official JSON-Schema-Test-Suite (draft 2020-12): every test of every group whose schema
//!   is inside the subset must pass, unless listed in `tests/expectations/official-suite.json`
//!   with a reason.
//! - JSONSchemaBench: for every in-subset schema our verdict on each instance must equal its
//!   `valid` label, unless listed in `tests/expectations/jsonschemabench.json` with a reason
//!   (labels came from each schema's own draft).
//! - The `full` subset: the official suite per draft (drafts 4, 6, 7, 2019-09, 2020-12; the
//!   required tests always, `optional/` with `SCHEMALECT_FULL_SUITE=1`) with the suite's
//!   `remotes/` as provided documents, and JSONSchemaBench; every group's schema must parse.
//!   Expected failures: `tests/expectations/*-full*.json`.
//! - The two validation walks (the subsets' and the `full` subset's) against each other on
//!   every JSONSchemaBench schema both subsets take: same verdicts and errors.
//! - The two readers of a schema: every schema of JSONSchemaBench and of the official suite
//!   (draft 2020-12), read into a `json::Tree` from its text, parses as its `Value` does in
//!   the ADR-126 and extended subsets: the same schema or the same violations, work budget
//!   included.
//!
//! A listed deviation that no longer happens fails the test too, so the lists stay true.
//! The suites skip with a notice when `../shared/corpus` is absent.

use schemalect::{ParseOptions, Schema, Subset};
use serde_json::Value;
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// `(file, group, test)` → reason.
type Expected = BTreeMap<(String, usize, usize), String>;

fn expectations(name: &str) -> Expected {
    let path = support::workspace_root()
        .join("tests/expectations")
        .join(name);
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let list: Vec<Value> = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
    list.into_iter()
        .map(|e| {
            let s = |k: &str| {
                e[k].as_str()
                    .unwrap_or_else(|| panic!("{name}: {k}"))
                    .to_owned()
            };
            let n = |k: &str| e[k].as_u64().unwrap_or_else(|| panic!("{name}: {k}")) as usize;
            ((s("file"), n("group"), n("test")), s("reason"))
        })
        .collect()
}

struct Tally {
    groups_in: usize,
    groups_out: usize,
    passed: usize,
    deviations: usize,
    failures: Vec<String>,
    seen: Vec<(String, usize, usize)>,
}

/// Suite files with the names their expectations use (the path below the suite's folder).
type Files = Vec<(String, PathBuf)>;

impl Tally {
    /// Adds the counts of another run of the same suite.
    fn absorb(&mut self, other: Tally) {
        self.groups_in += other.groups_in;
        self.groups_out += other.groups_out;
        self.passed += other.passed;
        self.deviations += other.deviations;
        self.failures.extend(other.failures);
        self.seen.extend(other.seen);
    }
}

fn run(files: &Files, expected: &Expected, label: &str) -> Tally {
    run_with(files, expected, label, &ParseOptions::default())
}

fn run_with(files: &Files, expected: &Expected, label: &str, options: &ParseOptions) -> Tally {
    let mut t = Tally {
        groups_in: 0,
        groups_out: 0,
        passed: 0,
        deviations: 0,
        failures: Vec::new(),
        seen: Vec::new(),
    };
    for (name, path) in files {
        let name = name.clone();
        let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let doc: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let groups = match doc {
            Value::Array(groups) => groups,
            other => vec![other],
        };
        for (gi, group) in groups.iter().enumerate() {
            let schema = match Schema::parse_with(&group["schema"], options) {
                Ok(schema) => schema,
                // The `full` subset is JSON Schema itself: a group it refuses fails every test
                // of the group, unless listed.
                Err(e) if options.subset == Subset::Full && !is_bench(path) => {
                    t.groups_out += 1;
                    let tests = group["tests"].as_array().map_or(0, Vec::len);
                    for ti in 0..tests {
                        let key = (name.clone(), gi, ti);
                        if expected.contains_key(&key) {
                            t.deviations += 1;
                            t.seen.push(key);
                        } else {
                            t.failures.push(format!(
                                "{name} group {gi} ({}) test {ti}: schema refused: {e}",
                                group["description"].as_str().unwrap_or("")
                            ));
                        }
                    }
                    continue;
                }
                Err(_) => {
                    t.groups_out += 1;
                    continue;
                }
            };
            t.groups_in += 1;
            let tests = group["tests"].as_array().cloned().unwrap_or_default();
            for (ti, test) in tests.iter().enumerate() {
                let want = test["valid"]
                    .as_bool()
                    .unwrap_or_else(|| panic!("{name} {gi} {ti}"));
                let got = schema.is_valid(&test["data"]);
                assert_eq!(
                    got,
                    schema.validate(&test["data"]).is_ok(),
                    "{label} {name} group {gi} test {ti}: is_valid and validate disagree"
                );
                let key = (name.clone(), gi, ti);
                if got == want {
                    t.passed += 1;
                } else if expected.contains_key(&key) {
                    t.deviations += 1;
                    t.seen.push(key);
                } else {
                    t.failures.push(format!(
                        "{name} group {gi} ({}) test {ti} ({}): expected {want}, got {got}",
                        group["description"].as_str().unwrap_or(""),
                        test["description"].as_str().unwrap_or(""),
                    ));
                }
            }
        }
    }
    t
}

/// True for a JSONSchemaBench file (real-world schemas, some of them broken documents: a
/// refusal there is a measured share, not a failure).
fn is_bench(path: &Path) -> bool {
    path.components()
        .any(|c| c.as_os_str() == "jsonschemabench")
}

/// The `*.json` files directly in `dir`, named by their file name.
fn json_files(dir: &Path) -> Files {
    json_files_as(dir, "")
}

/// The `*.json` files directly in `dir`, named `prefix` + their file name.
fn json_files_as(dir: &Path, prefix: &str) -> Files {
    let mut files: Vec<_> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            (format!("{prefix}{name}"), p.clone())
        })
        .collect();
    files.sort();
    files
}

fn check(t: &Tally, expected: &Expected, label: &str) {
    println!(
        "{label}: {} groups in subset, {} outside; {} tests passed, {} listed deviations, {} failures",
        t.groups_in,
        t.groups_out,
        t.passed,
        t.deviations,
        t.failures.len()
    );
    let stale: Vec<_> = expected.keys().filter(|k| !t.seen.contains(k)).collect();
    assert!(
        stale.is_empty(),
        "{label}: listed deviations that no longer happen (remove them): {stale:?}"
    );
    assert!(
        t.failures.is_empty(),
        "{label}: {} failures:\n{}",
        t.failures.len(),
        t.failures.join("\n")
    );
}

#[test]
fn official_suite_draft2020_12() {
    let Some(corpus) = support::shared_corpus() else {
        return;
    };
    let dir = corpus.join("json-schema-test-suite/tests/draft2020-12");
    let expected = expectations("official-suite.json");
    let t = run(&json_files(&dir), &expected, "official suite");
    check(&t, &expected, "official suite");
    assert!(t.groups_in > 50, "suspiciously few in-subset groups");
}

#[test]
fn jsonschemabench_labels() {
    let Some(corpus) = support::shared_corpus() else {
        return;
    };
    let expected = expectations("jsonschemabench.json");
    let t = run(
        &json_files(&corpus.join("jsonschemabench")),
        &expected,
        "jsonschemabench",
    );
    check(&t, &expected, "jsonschemabench");
    assert!(t.groups_in > 3000, "suspiciously few in-subset schemas");
}

#[test]
fn jsonschemabench_labels_extended_subset() {
    let Some(corpus) = support::shared_corpus() else {
        return;
    };
    let expected = expectations("jsonschemabench-extended.json");
    let options = ParseOptions::default().with_subset(Subset::Extended);
    let files = json_files(&corpus.join("jsonschemabench"));
    let t = run_with(&files, &expected, "jsonschemabench (extended)", &options);
    check(&t, &expected, "jsonschemabench (extended)");
    let share = t.groups_in as f64 / (t.groups_in + t.groups_out) as f64;
    println!(
        "extended subset: {:.1}% of the corpus in subset",
        share * 100.0
    );
    assert!(
        t.groups_in > 4439,
        "the extended subset must accept more than ADR-126"
    );
}

#[test]
fn official_suite_extended_subset() {
    let Some(corpus) = support::shared_corpus() else {
        return;
    };
    let dir = corpus.join("json-schema-test-suite/tests/draft2020-12");
    let expected = expectations("official-suite-extended.json");
    let options = ParseOptions::default().with_subset(Subset::Extended);
    let t = run_with(
        &json_files(&dir),
        &expected,
        "official suite (extended)",
        &options,
    );
    check(&t, &expected, "official suite (extended)");
}

/// The official suite's `remotes/`, as the suite's README maps them: every file at
/// `http://localhost:1234/` plus its path under the folder.
fn suite_remotes(options: ParseOptions, dir: &Path) -> ParseOptions {
    fn walk(dir: &Path, prefix: &str, out: &mut Vec<(String, Value)>) {
        let mut entries: Vec<_> = fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .filter_map(|e| e.ok().map(|e| e.path()))
            .collect();
        entries.sort();
        for p in entries {
            let name = p
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or("")
                .to_owned();
            if p.is_dir() {
                walk(&p, &format!("{prefix}{name}/"), out);
            } else if p.extension().is_some_and(|x| x == "json") {
                let text =
                    fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
                let v = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
                out.push((format!("{prefix}{name}"), v));
            }
        }
    }
    let mut docs = Vec::new();
    walk(dir, "http://localhost:1234/", &mut docs);
    docs.into_iter()
        .fold(options, |o, (uri, v)| o.with_resource(uri, v))
}

/// Which tests of a draft's folder of the official suite.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    /// The files directly in the folder: the specification's requirements.
    Required,
    /// `optional/` (big numbers, regex dialect, cross-draft references, ...) and
    /// `optional/format/`, the latter with `format` asserted.
    Optional,
}

/// The `full` subset on one draft's folder of the official suite: every group's schema must
/// parse and every test pass, but the exceptions listed with their reasons in
/// `tests/expectations/official-suite-full-<draft>[-optional].json`. A listed exception that
/// passes fails the test as well, so the lists stay true.
///
/// The required tests of all five drafts take a few seconds, so they always run; the optional
/// folders run on request (`SCHEMALECT_FULL_SUITE=1`).
fn official_suite_full(draft: schemalect::Draft, part: Part) {
    if part == Part::Optional && std::env::var_os("SCHEMALECT_FULL_SUITE").is_none() {
        println!("official suite (full, optional): skipped; set SCHEMALECT_FULL_SUITE=1 to run it");
        return;
    }
    let Some(corpus) = support::shared_corpus() else {
        return;
    };
    let suite = corpus.join("json-schema-test-suite");
    let dir = suite.join("tests").join(draft.name());
    let (list, label) = match part {
        Part::Required => (
            format!("official-suite-full-{}.json", draft.name()),
            format!("official suite (full, {})", draft.name()),
        ),
        Part::Optional => (
            format!("official-suite-full-{}-optional.json", draft.name()),
            format!("official suite (full, {}, optional)", draft.name()),
        ),
    };
    let expected = expectations(&list);
    let options = suite_remotes(
        ParseOptions::default()
            .with_subset(Subset::Full)
            .with_default_draft(draft),
        &suite.join("remotes"),
    );
    let t = match part {
        Part::Required => run_with(&json_files(&dir), &expected, &label, &options),
        Part::Optional => {
            let optional = dir.join("optional");
            let mut t = run_with(
                &json_files_as(&optional, "optional/"),
                &expected,
                &label,
                &options,
            );
            let formats = run_with(
                &json_files_as(&optional.join("format"), "optional/format/"),
                &expected,
                &label,
                &options.clone().with_assert_format(true),
            );
            t.absorb(formats);
            t
        }
    };
    let total = t.passed + t.deviations + t.failures.len();
    println!(
        "{label}: {} of {total} tests pass ({:.2}%); {} groups refused",
        t.passed,
        100.0 * t.passed as f64 / total.max(1) as f64,
        t.groups_out
    );
    check(&t, &expected, &label);
    assert!(total > 0, "{label}: no tests found");
}

#[test]
fn official_suite_full_draft4() {
    official_suite_full(schemalect::Draft::Draft4, Part::Required);
}

#[test]
fn official_suite_full_draft6() {
    official_suite_full(schemalect::Draft::Draft6, Part::Required);
}

#[test]
fn official_suite_full_draft7() {
    official_suite_full(schemalect::Draft::Draft7, Part::Required);
}

#[test]
fn official_suite_full_draft2019_09() {
    official_suite_full(schemalect::Draft::Draft2019_09, Part::Required);
}

#[test]
fn official_suite_full_draft2020_12() {
    official_suite_full(schemalect::Draft::Draft2020_12, Part::Required);
}

#[test]
fn official_suite_full_draft4_optional() {
    official_suite_full(schemalect::Draft::Draft4, Part::Optional);
}

#[test]
fn official_suite_full_draft6_optional() {
    official_suite_full(schemalect::Draft::Draft6, Part::Optional);
}

#[test]
fn official_suite_full_draft7_optional() {
    official_suite_full(schemalect::Draft::Draft7, Part::Optional);
}

#[test]
fn official_suite_full_draft2019_09_optional() {
    official_suite_full(schemalect::Draft::Draft2019_09, Part::Optional);
}

#[test]
fn official_suite_full_draft2020_12_optional() {
    official_suite_full(schemalect::Draft::Draft2020_12, Part::Optional);
}

/// JSONSchemaBench in the `full` subset, with `format` asserted: the labels assert it (their
/// generator's own errors name the formats), so asserting it here checks our format checkers
/// against an independent validator too. The default, `format` as an annotation, differs from
/// this only in the formats. A few seconds: it always runs.
#[test]
fn jsonschemabench_labels_full_subset() {
    let Some(corpus) = support::shared_corpus() else {
        return;
    };
    let expected = expectations("jsonschemabench-full.json");
    let options = ParseOptions::default()
        .with_subset(Subset::Full)
        .with_assert_format(true);
    let files = json_files(&corpus.join("jsonschemabench"));
    let t = run_with(&files, &expected, "jsonschemabench (full)", &options);
    let share = t.groups_in as f64 / (t.groups_in + t.groups_out) as f64;
    println!("full subset: {:.1}% of the corpus in subset", share * 100.0);
    check(&t, &expected, "jsonschemabench (full)");
    assert!(
        t.groups_in > 7_500,
        "the full subset must accept nearly every schema of the corpus"
    );
}

/// The two validation walks, the subsets' (over the validation plan) and the `full` subset's,
/// give the same verdict and the same errors on every schema of the corpus both subsets take,
/// for each of its instances: two implementations of one semantics, each the other's oracle.
/// Left out by design: draft-4 schemas (the `full` walk reads their integers as draft 4 does:
/// `1.0` is not one), and the reasons of a failed `anyOf`/`oneOf`, which the subsets' walk
/// gives only for the alternatives a tagged union's tag leaves (the count must agree).
#[test]
fn the_two_walks_agree_on_jsonschemabench() {
    let Some(corpus) = support::shared_corpus() else {
        return;
    };
    let mut walks = TwoWalks::default();
    for (name, path) in json_files(&corpus.join("jsonschemabench")) {
        let Ok(doc) = serde_json::from_str::<Value>(&fs::read_to_string(&path).unwrap_or_default())
        else {
            continue;
        };
        let data = doc
            .get("tests")
            .and_then(Value::as_array)
            .into_iter()
            .flatten();
        if let Some(source) = doc.get("schema") {
            walks.compare(&name, source, data.filter_map(|t| t.get("data")));
        }
    }
    walks.finish("jsonschemabench", 3000);
}

/// [`the_two_walks_agree_on_jsonschemabench`] on the official suite's draft 2020-12 groups.
/// (Earlier drafts' tuple `items` reach the subsets' walk rewritten as `prefixItems` and a
/// `maxItems`, so the same failure is reported at another keyword.)
#[test]
fn the_two_walks_agree_on_the_official_suite() {
    let Some(corpus) = support::shared_corpus() else {
        return;
    };
    let mut walks = TwoWalks::default();
    let dir = corpus.join("json-schema-test-suite/tests/draft2020-12");
    for (name, path) in json_files(&dir) {
        let text = fs::read_to_string(&path).unwrap_or_default();
        let groups: Vec<Value> = serde_json::from_str(&text).unwrap_or_default();
        for (g, group) in groups.iter().enumerate() {
            let tests = group
                .get("tests")
                .and_then(Value::as_array)
                .into_iter()
                .flatten();
            walks.compare(
                &format!("{name}, group {g}"),
                &group["schema"],
                tests.filter_map(|t| t.get("data")),
            );
        }
    }
    walks.finish("the official suite (2020-12)", 100);
}

/// The tally of a comparison of the two walks.
#[derive(Default)]
struct TwoWalks {
    schemas: usize,
    instances: usize,
    draft4: usize,
    differences: Vec<String>,
}

impl TwoWalks {
    /// Compares the walks on `source` and each of `data`, when both subsets take `source`.
    fn compare<'v>(&mut self, name: &str, source: &Value, data: impl Iterator<Item = &'v Value>) {
        let subsets = ParseOptions::default().with_subset(Subset::Extended);
        let full = ParseOptions::default().with_subset(Subset::Full);
        let (Ok(a), Ok(b)) = (
            Schema::parse_with(source, &subsets),
            Schema::parse_with(source, &full),
        ) else {
            return;
        };
        if b.draft() == Some(schemalect::Draft::Draft4) {
            self.draft4 += 1;
            return;
        }
        self.schemas += 1;
        for (i, data) in data.enumerate() {
            self.instances += 1;
            if let Some(d) = support::walks::difference(&a, &b, data) {
                self.differences.push(format!("{name}, test {i}: {d}"));
            }
        }
    }

    fn finish(self, label: &str, at_least: usize) {
        println!(
            "the two walks on {label}: {} schemas, {} instances compared ({} draft-4 schemas left out)",
            self.schemas, self.instances, self.draft4
        );
        assert!(
            self.schemas >= at_least,
            "suspiciously few schemas in both subsets: {}",
            self.schemas
        );
        assert!(
            self.differences.is_empty(),
            "{} instances where the walks differ:\n{}",
            self.differences.len(),
            self.differences
                .iter()
                .take(10)
                .cloned()
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
}

/// `Schema::parse_tree` of a schema's text against `Schema::parse_with` of its `Value`, for
/// every group of every file: the same result (the schema's IR, its size for the work budget,
/// or every violation), compared by their `Debug` text. The text is the schema written back
/// by serde_json, compact and pretty-printed (the tree's own tests cover escapes and repeated
/// names, which a `Value` no longer has).
#[test]
fn the_tree_reads_every_schema_as_the_value_does() {
    let Some(corpus) = support::shared_corpus() else {
        return;
    };
    let mut files = json_files(&corpus.join("jsonschemabench"));
    files.extend(json_files(
        &corpus.join("json-schema-test-suite/tests/draft2020-12"),
    ));
    let options = [
        ParseOptions::default(),
        ParseOptions::default().with_subset(Subset::Extended),
    ];
    let (mut schemas, mut accepted) = (0usize, 0usize);
    for (name, path) in &files {
        let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let Ok(doc) = serde_json::from_str::<Value>(&text) else {
            continue;
        };
        let groups = match doc {
            Value::Array(groups) => groups,
            other => vec![other],
        };
        for (gi, group) in groups.iter().enumerate() {
            let value = &group["schema"];
            schemas += 1;
            for written in [
                serde_json::to_string(value).expect("a Value writes"),
                serde_json::to_string_pretty(value).expect("a Value writes"),
            ] {
                let (tree, id) = schemalect::json::Tree::parse(&written)
                    .unwrap_or_else(|e| panic!("{name} group {gi}: {e}"));
                for o in &options {
                    let from_value = Schema::parse_with(value, o);
                    accepted += usize::from(from_value.is_ok());
                    assert_eq!(
                        format!("{:?}", Schema::parse_tree(&tree, id, o)),
                        format!("{from_value:?}"),
                        "{name} group {gi}, {:?}",
                        o.subset
                    );
                }
            }
        }
    }
    println!(
        "the tree against the Value: {schemas} schemas, {accepted} parses of the 4 per schema accepted"
    );
    assert!(schemas > 1_000, "the corpus has its schemas: {schemas}");
}
