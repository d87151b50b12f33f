//! The real `schemalect` binary on the fixtures under `corpus/cli/`: stdout, stderr and exit
//! codes of every command, the JSON-lines contract, the SARIF 2.1.0 shape, and bad input.
//!
//! Assertions about modes and losses are derived from the binary's own JSON output where they
//! depend on which provider dialects exist, so they hold as dialects land.

use pretty_assertions::assert_eq;
use serde_json::{json, Value};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const TARGETS: [&str; 15] = [
    "openai",
    "groq",
    "mistral",
    "openrouter",
    "gemini",
    "gemini-json",
    "ollama",
    "claude",
    "claude-native",
    "openai-responses",
    "bedrock-claude",
    "gemini-interactions",
    "vertex-gemini",
    "ollama-mlx",
    "llama-server",
];

const MODES: [&str; 4] = ["exact", "widened", "json", "prompt"];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Run {
    fn lines(&self) -> Vec<Value> {
        self.stdout
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
            .collect()
    }
}

fn run_with(args: &[&str], stdin: Option<&[u8]>) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_schemalect"))
        .args(args)
        .current_dir(root())
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    if let Some(input) = stdin {
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(input)
            .expect("write stdin");
    }
    let out = child.wait_with_output().expect("the binary runs");
    Run {
        code: out.status.code().expect("exited, not killed by a signal"),
        stdout: String::from_utf8(out.stdout).expect("UTF-8 stdout"),
        stderr: String::from_utf8(out.stderr).expect("UTF-8 stderr"),
    }
}

fn run(args: &[&str]) -> Run {
    run_with(args, None)
}

fn keys(v: &Value) -> Vec<&str> {
    v.as_object()
        .expect("an object")
        .keys()
        .map(String::as_str)
        .collect()
}

fn tmp(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

const INVOICE: &str = "corpus/cli/schemas/invoice.json";
const ORDER: &str = "corpus/cli/schemas/order.json";
const GROUPS: &str = "corpus/cli/suite/groups.json";
const BENCH: &str = "corpus/cli/bench/bench.json";

// ---------- lint ----------

#[test]
fn lint_text_in_subset() {
    let r = run(&["lint", INVOICE]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stderr, "");
    let mut lines = r.stdout.lines();
    assert_eq!(
        lines.next(),
        Some("corpus/cli/schemas/invoice.json  in subset")
    );
    // One line per target, then one more (indented further) per loss after the first.
    let target_lines: Vec<&str> = lines
        .take_while(|l| !l.is_empty())
        .filter(|l| !l.starts_with("   "))
        .collect();
    assert_eq!(target_lines.len(), TARGETS.len());
    for (t, line) in TARGETS.iter().zip(target_lines) {
        assert!(line.starts_with(&format!("  {t:<19} ")), "{line}");
    }
    assert!(r
        .stdout
        .contains("summary: 1 file, 1 schema: 1 in subset (adr126), 0 out of subset"));
    assert!(r
        .stdout
        .contains("target                 exact  widened     json   prompt"));
    assert!(r.stdout.ends_with("\nexit 0\n"), "{}", r.stdout);
}

#[test]
fn lint_text_out_of_subset_gives_every_violation_with_line_and_column() {
    let r = run(&["lint", ORDER]);
    assert_eq!(r.code, 1);
    assert_eq!(r.stderr, "");
    let expected = "\
corpus/cli/schemas/order.json  out of subset (5 violations)
  7:17  /properties/lines/items: `$ref` — references are outside the ADR-126 subset; inline the definition
  7:16  /properties/lines/items: this schema asserts nothing (it is empty or has annotations only), which the subset does not accept; give it a `type` or another assertion
  9:33  /properties/a~1b~0c: `x-vendor` — unknown keyword; the subset accepts no other keywords (fail-closed): remove it or move it into `description`
  10:37  /properties/kéy: `minimum` — must be a number
  12:3  /: `$defs` — definitions are outside the ADR-126 subset; inline them where they are used
";
    assert!(r.stdout.starts_with(expected), "{}", r.stdout);
    assert!(r.stdout.contains("out of subset, schemas per keyword:\n"));
    assert!(r.stdout.contains("  x-vendor (unknown)"));
    assert!(r.stdout.contains("  (asserts nothing)"));
    assert!(r.stdout.ends_with("\nexit 1: 1 schema out of subset\n"));
}

#[test]
fn lint_json_lines_follow_the_contract() {
    let r = run(&["lint", "--format", "json", INVOICE, ORDER, GROUPS]);
    assert_eq!(r.code, 1);
    let lines = r.lines();
    assert_eq!(lines.len(), 5);
    for l in &lines {
        assert_eq!(
            keys(l),
            [
                "file",
                "group",
                "in_subset",
                "errors",
                "warnings",
                "targets"
            ]
        );
        assert_eq!(
            l["warnings"],
            json!([]),
            "no warnings outside the full subset"
        );
    }
    assert_eq!(lines[0]["file"], INVOICE);
    assert_eq!(lines[0]["group"], 0);
    assert_eq!(lines[0]["in_subset"], true);
    assert_eq!(lines[0]["errors"], json!([]));
    let targets = lines[0]["targets"].as_array().unwrap();
    let names: Vec<&str> = targets
        .iter()
        .map(|t| t["target"].as_str().unwrap())
        .collect();
    assert_eq!(names, TARGETS);
    for t in targets {
        assert_eq!(keys(t), ["target", "mode", "losses"]);
        assert!(MODES.contains(&t["mode"].as_str().unwrap()));
        for loss in t["losses"].as_array().unwrap() {
            assert_eq!(keys(loss), ["pointer", "keyword", "reason"]);
        }
    }
    assert_eq!(lines[1]["in_subset"], false);
    assert_eq!(lines[1]["targets"], json!([]));
    assert_eq!(
        lines[1]["errors"][0],
        json!({"pointer": "/properties/lines/items", "keyword": "$ref",
               "reason": "references are outside the ADR-126 subset; inline the definition",
               "line": 7, "column": 17})
    );
    assert_eq!(lines[1]["errors"][4]["pointer"], "");
    assert_eq!(lines[1]["errors"][4]["keyword"], "$defs");
    // A test-suite file: one line per group, numbered from 0.
    let groups: Vec<(&Value, &Value)> = lines[2..]
        .iter()
        .map(|l| (&l["group"], &l["in_subset"]))
        .collect();
    assert_eq!(
        groups,
        [
            (&json!(0), &json!(true)),
            (&json!(1), &json!(false)),
            (&json!(2), &json!(true))
        ]
    );
}

/// A `full` subset schema with three unknown keywords (two near misses) and a vendor key.
const UNKNOWN_KEYWORDS: &str = r#"{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "properties": {
    "name": {"type": "string", "readonly": true, "decription": "x"},
    "age": {"type": "integer", "javaType": "int", "x-vendor": 1}
  }
}
"#;

/// The unknown keywords as `(pointer, keyword, did-you-mean, line, column)`.
const UNKNOWN_FOUND: [(&str, &str, Option<&str>, u64, u64); 3] = [
    ("/properties/name", "readonly", Some("readOnly"), 5, 32),
    ("/properties/name", "decription", Some("description"), 5, 50),
    ("/properties/age", "javaType", None, 6, 32),
];

/// `lint --subset full --target openai --format FORMAT` (and `--deny-unknown`) on the
/// [`UNKNOWN_KEYWORDS`] schema, written to a folder of its own per test (tests run at once).
fn lint_unknown(test: &str, deny: bool, format: &str) -> (String, Run) {
    let path = tmp(test).join("schema.json");
    std::fs::write(&path, UNKNOWN_KEYWORDS).expect("write the schema");
    let file = path.to_str().expect("a UTF-8 path").to_owned();
    let mut args = vec![
        "lint",
        "--no-config",
        "--subset",
        "full",
        "--target",
        "openai",
    ];
    if deny {
        args.push("--deny-unknown");
    }
    args.extend(["--format", format, &file]);
    let r = run(&args);
    (file, r)
}

#[test]
fn lint_full_subset_warns_of_unknown_keywords_in_text() {
    let (file, r) = lint_unknown("unknown-keywords-text", false, "text");
    assert_eq!(r.code, 0, "warnings do not fail the run: {}", r.stdout);
    assert!(
        r.stdout
            .starts_with(&format!("{file}  in subset (3 warnings)\n")),
        "{}",
        r.stdout
    );
    for (pointer, keyword, meant, line, column) in UNKNOWN_FOUND {
        let mut expected = format!(
            "  {line}:{column}  {pointer}: `{keyword}` — warning: unknown keyword, kept as an annotation (it asserts nothing)"
        );
        if let Some(m) = meant {
            expected.push_str(&format!("; did you mean `{m}`?"));
        }
        assert!(
            r.stdout.lines().any(|l| l == expected),
            "missing {expected:?} in\n{}",
            r.stdout
        );
    }
    assert!(
        !r.stdout.contains("x-vendor"),
        "vendor keys are not reported"
    );
    assert!(r
        .stdout
        .contains("; 3 warnings (unknown keywords, kept as annotations)\n"));
    // `--deny-unknown`: the same three, as errors that fail the run.
    let (file, r) = lint_unknown("unknown-keywords-text-deny", true, "text");
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert!(r
        .stdout
        .starts_with(&format!("{file}  out of subset (3 violations)\n")));
    assert!(r.stdout.contains(
        "  5:32  /properties/name: `readonly` — unknown keyword, kept as an annotation (it asserts nothing); did you mean `readOnly`?\n"
    ));
    assert!(!r.stdout.contains("warning:"));
}

#[test]
fn lint_full_subset_warns_of_unknown_keywords_in_json() {
    let (_, r) = lint_unknown("unknown-keywords-json", false, "json");
    assert_eq!(r.code, 0);
    let line = &r.lines()[0];
    assert_eq!(line["in_subset"], true);
    assert_eq!(line["errors"], json!([]));
    let expected: Vec<Value> = UNKNOWN_FOUND
        .iter()
        .map(|(pointer, keyword, meant, line, column)| {
            let mut reason =
                "unknown keyword, kept as an annotation (it asserts nothing)".to_owned();
            if let Some(m) = meant {
                reason.push_str(&format!("; did you mean `{m}`?"));
            }
            json!({"pointer": pointer, "keyword": keyword, "reason": reason,
                   "line": line, "column": column})
        })
        .collect();
    assert_eq!(line["warnings"], Value::Array(expected.clone()));
    let (_, r) = lint_unknown("unknown-keywords-json-deny", true, "json");
    assert_eq!(r.code, 1);
    let line = &r.lines()[0];
    assert_eq!(line["in_subset"], false);
    assert_eq!(line["warnings"], json!([]));
    assert_eq!(line["errors"], Value::Array(expected));
}

#[test]
fn lint_full_subset_warns_of_unknown_keywords_in_sarif() {
    // One file for both runs (fingerprints include its URI); the runs are sequential.
    let sarif = |deny: bool| {
        let (_, r) = lint_unknown("unknown-keywords-sarif", deny, "sarif");
        assert_eq!(r.code, i32::from(deny), "{}", r.stderr);
        let doc: Value = serde_json::from_str(&r.stdout).expect("one JSON document");
        check_sarif_shape(&doc);
        doc
    };
    for (deny, level) in [(false, "warning"), (true, "error")] {
        let doc = sarif(deny);
        let run = &doc["runs"][0];
        let rule = run["tool"]["driver"]["rules"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == "full/unknown-keyword")
            .expect("the unknown-keyword rule");
        assert_eq!(rule["defaultConfiguration"]["level"], "warning");
        let found: Vec<(&str, &str, u64, u64)> = run["results"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|x| x["ruleId"] == "full/unknown-keyword")
            .map(|x| {
                let region = &x["locations"][0]["physicalLocation"]["region"];
                (
                    x["level"].as_str().unwrap(),
                    x["message"]["text"].as_str().unwrap(),
                    region["startLine"].as_u64().unwrap(),
                    region["startColumn"].as_u64().unwrap(),
                )
            })
            .collect();
        assert_eq!(found.len(), 3, "one result per keyword: {found:?}");
        for ((lvl, message, line, column), (pointer, keyword, meant, l, c)) in
            found.iter().zip(UNKNOWN_FOUND)
        {
            assert_eq!((*lvl, *line, *column), (level, l, c));
            assert!(message.starts_with(&format!("`{keyword}` at {pointer}: unknown keyword")));
            assert_eq!(
                message.ends_with(&format!("did you mean `{}`?", meant.unwrap_or("-"))),
                meant.is_some(),
                "{message}"
            );
        }
    }
    // The same fingerprints as a warning and as an error, so a baseline survives the switch.
    let prints = |doc: &Value| -> Vec<Value> {
        doc["runs"][0]["results"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|x| x["ruleId"] == "full/unknown-keyword")
            .map(|x| x["partialFingerprints"].clone())
            .collect()
    };
    assert_eq!(prints(&sarif(false)), prints(&sarif(true)));
}

#[test]
fn lint_extended_subset_accepts_local_references_and_vendor_keys() {
    let r = run(&["lint", "--format", "json", "--subset", "extended", ORDER]);
    assert_eq!(r.code, 1);
    assert_eq!(
        r.lines()[0]["errors"],
        json!([{"pointer": "/properties/kéy", "keyword": "minimum", "reason": "must be a number",
                "line": 10, "column": 37}])
    );
    let r = run(&["lint", "--subset", "draft-7", ORDER]);
    assert_eq!(r.code, 2);
}

/// The text summary counts the schemas out of the ADR-126 subset that the extended one takes
/// (a local reference, here), for which the schema is parsed a second time; the other formats
/// print no summary and do not parse again.
#[test]
fn lint_text_summary_counts_schemas_the_extended_subset_takes() {
    let dir = tmp("extended-count");
    let with_ref = dir.join("ref.json");
    std::fs::write(
        &with_ref,
        r##"{"type": "object", "properties": {"a": {"$ref": "#/$defs/a"}},
  "$defs": {"a": {"type": "string"}}}"##,
    )
    .unwrap();
    let path = with_ref.to_str().unwrap();
    let r = run(&["lint", path]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stdout.contains(
            "0 in subset (adr126), 1 out of subset (1 of them in the extended subset: --subset extended)"
        ),
        "{}",
        r.stdout
    );
    let r = run(&["lint", "--subset", "extended", path]);
    assert!(
        r.stdout.contains("1 in subset (extended), 0 out of subset"),
        "{}",
        r.stdout
    );
}

#[test]
fn lint_target_selection() {
    let r = run(&[
        "lint",
        "--format",
        "json",
        "--target",
        "ollama",
        "--target",
        "openai,ollama",
        INVOICE,
    ]);
    assert_eq!(r.code, 0);
    let names: Vec<Value> = r.lines()[0]["targets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["target"].clone())
        .collect();
    assert_eq!(names, [json!("openai"), json!("ollama")]);
    let r = run(&["lint", "--target", "gpt-9", INVOICE]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("unknown target `gpt-9`"), "{}", r.stderr);
}

#[test]
fn lint_deny_fails_exactly_when_a_target_is_that_weak() {
    let all = run(&["lint", "--format", "json", INVOICE, BENCH, GROUPS]);
    let rank = |m: &str| MODES.iter().position(|x| *x == m).unwrap();
    let weakest = all
        .lines()
        .iter()
        .flat_map(|l| l["targets"].as_array().unwrap().clone())
        .map(|t| rank(t["mode"].as_str().unwrap()))
        .max()
        .unwrap();
    for deny in ["widened", "json", "prompt"] {
        // Out-of-subset group 1 of the suite file would fail any run: lint the rest.
        let r = run(&["lint", "--deny", deny, INVOICE, BENCH]);
        let files_weakest = run(&["lint", "--format", "json", INVOICE, BENCH])
            .lines()
            .iter()
            .flat_map(|l| l["targets"].as_array().unwrap().clone())
            .map(|t| rank(t["mode"].as_str().unwrap()))
            .max()
            .unwrap();
        let expect = if files_weakest >= rank(deny) { 1 } else { 0 };
        assert_eq!(r.code, expect, "--deny {deny}:\n{}", r.stdout);
        if expect == 1 {
            assert!(r.stdout.contains("(denied)"));
            assert!(r.stdout.contains(&format!("at or below --deny {deny}")));
        }
        assert!(weakest >= files_weakest);
    }
    let r = run(&["lint", "--deny", "exact", INVOICE]);
    assert_eq!(r.code, 2, "exact is not a mode one can deny");
}

// ---------- SARIF ----------

fn check_sarif_shape(doc: &Value) {
    assert_eq!(doc["version"], "2.1.0");
    assert!(doc["$schema"]
        .as_str()
        .unwrap()
        .contains("sarif-schema-2.1.0"));
    let runs = doc["runs"].as_array().expect("runs");
    assert_eq!(runs.len(), 1);
    let run = &runs[0];
    let driver = &run["tool"]["driver"];
    assert_eq!(driver["name"], "schemalect");
    assert!(driver["version"].is_string());
    assert!(driver["informationUri"]
        .as_str()
        .unwrap()
        .starts_with("https://"));
    let rules = driver["rules"].as_array().expect("rules");
    let ids: Vec<&str> = rules.iter().map(|r| r["id"].as_str().unwrap()).collect();
    let mut unique = ids.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(ids.len(), unique.len(), "rule ids are unique");
    for r in rules {
        assert!(r["shortDescription"]["text"].is_string());
        assert!(["error", "warning", "note"]
            .contains(&r["defaultConfiguration"]["level"].as_str().unwrap()));
    }
    for res in run["results"].as_array().expect("results") {
        let id = res["ruleId"].as_str().expect("ruleId");
        let index = res["ruleIndex"].as_u64().expect("ruleIndex") as usize;
        assert_eq!(ids[index], id);
        assert!(["error", "warning", "note"].contains(&res["level"].as_str().unwrap()));
        assert!(!res["message"]["text"].as_str().unwrap().is_empty());
        let loc = &res["locations"][0]["physicalLocation"];
        let uri = loc["artifactLocation"]["uri"].as_str().expect("uri");
        assert!(!uri.starts_with('/') && !uri.contains('\\'), "{uri}");
        if let Some(region) = loc.get("region") {
            assert!(region["startLine"].as_u64().unwrap() >= 1);
            assert!(region["startColumn"].as_u64().unwrap() >= 1);
        }
    }
}

#[test]
fn lint_sarif_has_the_2_1_0_shape_and_points_at_the_keyword() {
    let r = run(&["lint", "--format", "sarif", INVOICE, ORDER, GROUPS]);
    assert_eq!(r.code, 1);
    let doc: Value = serde_json::from_str(&r.stdout).expect("one JSON document");
    check_sarif_shape(&doc);
    let results = doc["runs"][0]["results"].as_array().unwrap();
    let find = |rule: &str, uri: &str| {
        results
            .iter()
            .find(|x| {
                x["ruleId"] == rule
                    && x["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == uri
            })
            .unwrap_or_else(|| panic!("no {rule} in {uri}"))
    };
    let r#ref = find("subset/outside/$ref", ORDER);
    assert_eq!(r#ref["level"], "error");
    assert_eq!(
        r#ref["locations"][0]["physicalLocation"]["region"],
        json!({"startLine": 7, "startColumn": 17, "endLine": 7, "endColumn": 23})
    );
    let unknown = find("subset/unknown-keyword", ORDER);
    assert_eq!(
        unknown["locations"][0]["physicalLocation"]["region"]["startLine"],
        9
    );
    // The out-of-subset group of the suite file, located inside the group.
    let in_suite = find("subset/outside/$ref", GROUPS);
    assert_eq!(
        in_suite["locations"][0]["physicalLocation"]["region"]["startLine"],
        13
    );
    assert!(in_suite["message"]["text"]
        .as_str()
        .unwrap()
        .starts_with("group 1: "));
    // By default (`--min-level warning`) losses are warnings: those of targets that send no
    // schema. With `--min-level note` the widened targets' losses come too, as notes.
    let losses = |results: &[Value], level: &str| {
        results
            .iter()
            .filter(|x| x["ruleId"].as_str().unwrap().starts_with("loss/") && x["level"] == level)
            .count()
    };
    assert!(losses(results, "warning") > 0);
    assert_eq!(losses(results, "note"), 0);
    let all = run(&[
        "lint",
        "--format",
        "sarif",
        "--min-level",
        "note",
        INVOICE,
        ORDER,
        GROUPS,
    ]);
    let all: Value = serde_json::from_str(&all.stdout).unwrap();
    check_sarif_shape(&all);
    let all_results = all["runs"][0]["results"].as_array().unwrap();
    assert!(losses(all_results, "note") > 0);
    assert_eq!(losses(all_results, "warning"), losses(results, "warning"));
    let errors = run(&[
        "lint",
        "--format",
        "sarif",
        "--min-level",
        "error",
        INVOICE,
        ORDER,
    ]);
    let errors: Value = serde_json::from_str(&errors.stdout).unwrap();
    for x in errors["runs"][0]["results"].as_array().unwrap() {
        assert_eq!(x["level"], "error");
    }
    assert_eq!(
        doc["runs"][0]["invocations"][0]["executionSuccessful"],
        true
    );
}

#[test]
fn lint_sarif_reports_unreadable_files_and_deny_hits() {
    let r = run(&[
        "lint",
        "--format",
        "sarif",
        "--deny",
        "widened",
        "corpus/cli/bad/invalid.json",
        INVOICE,
    ]);
    assert_eq!(r.code, 2);
    let doc: Value = serde_json::from_str(&r.stdout).unwrap();
    check_sarif_shape(&doc);
    let results = doc["runs"][0]["results"].as_array().unwrap();
    let bad = &results[0];
    assert_eq!(bad["ruleId"], "input/unreadable");
    assert_eq!(bad["level"], "error");
    assert_eq!(
        bad["locations"][0]["physicalLocation"]["region"]["startLine"],
        4
    );
    assert_eq!(
        doc["runs"][0]["invocations"][0]["executionSuccessful"],
        false
    );
    // Every target below `exact` of the invoice is a deny hit, at the schema's root: one
    // result per mode reached (`deny/json`), naming its targets.
    let modes = run(&["lint", "--format", "json", INVOICE]).lines()[0]["targets"].clone();
    let mut weak: Vec<String> = modes
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["mode"] != "exact")
        .map(|t| format!("deny/{}", t["mode"].as_str().unwrap()))
        .collect();
    let denies: Vec<&Value> = results
        .iter()
        .filter(|x| x["ruleId"].as_str().unwrap().starts_with("deny/"))
        .collect();
    let named: usize = denies
        .iter()
        .map(|d| {
            let text = d["message"]["text"].as_str().unwrap();
            let targets = text.split(": ").next().unwrap();
            targets.split(", ").count()
        })
        .sum();
    assert_eq!(named, weak.len());
    weak.sort();
    weak.dedup();
    assert_eq!(denies.len(), weak.len());
    for d in denies {
        assert_eq!(d["level"], "error");
        assert_eq!(
            d["locations"][0]["physicalLocation"]["region"]["startLine"],
            1
        );
    }
}

// ---------- lower ----------

#[test]
fn lower_text_prints_the_wire_and_json_agrees() {
    let r = run(&["lower", "--target", "ollama", INVOICE]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let wire: Value = serde_json::from_str(&r.stdout).expect("the wire is JSON");
    let j = run(&["lower", "--format", "json", "--target", "ollama", INVOICE]);
    let lines = j.lines();
    assert_eq!(lines.len(), 1);
    assert_eq!(
        keys(&lines[0]),
        [
            "file",
            "group",
            "target",
            "in_subset",
            "errors",
            "mode",
            "wire",
            "losses"
        ]
    );
    assert_eq!(lines[0]["wire"], wire);
    assert_eq!(lines[0]["target"], "ollama");
    // Losses go to stderr in text mode, one per line, after a line naming the mode.
    let losses = lines[0]["losses"].as_array().unwrap();
    if losses.is_empty() && lines[0]["mode"] == "exact" {
        assert_eq!(r.stderr, "");
    } else {
        assert!(r.stderr.starts_with(&format!(
            "{INVOICE}: ollama {} mode, {} loss",
            lines[0]["mode"].as_str().unwrap(),
            losses.len()
        )));
        assert_eq!(r.stderr.lines().count(), 1 + losses.len());
    }
}

#[test]
fn lower_json_all_targets_and_out_of_subset() {
    let r = run(&[
        "lower", "--format", "json", "--target", "all", INVOICE, ORDER,
    ]);
    assert_eq!(r.code, 1);
    let lines = r.lines();
    assert_eq!(lines.len(), 2 * TARGETS.len());
    for (l, t) in lines[..TARGETS.len()].iter().zip(TARGETS) {
        assert_eq!(l["target"], t);
        assert_eq!(l["in_subset"], true);
        assert!(l["wire"].is_object());
        assert!(MODES.contains(&l["mode"].as_str().unwrap()));
    }
    for l in &lines[TARGETS.len()..] {
        assert_eq!(l["in_subset"], false);
        assert_eq!(l["mode"], Value::Null);
        assert_eq!(l["wire"], Value::Null);
        assert_eq!(l["losses"], json!([]));
        assert_eq!(l["errors"].as_array().unwrap().len(), 5);
    }
    // Text output is one wire: one target only.
    let r = run(&["lower", "--target", "all", INVOICE]);
    assert_eq!(r.code, 2);
    assert_eq!(r.stdout, "");
    assert!(r.stderr.contains("pass a single --target"));
    let r = run(&["lower", INVOICE]);
    assert_eq!(r.code, 2, "text output needs --target");
    // JSON output defaults to every target.
    let r = run(&["lower", "--format", "json", INVOICE]);
    assert_eq!(r.code, 0);
    assert_eq!(r.lines().len(), TARGETS.len());
}

#[test]
fn lower_text_out_of_subset_explains_on_stderr() {
    let r = run(&["lower", "--target", "ollama", ORDER]);
    assert_eq!(r.code, 1);
    assert_eq!(r.stdout, "");
    assert!(r
        .stderr
        .starts_with("corpus/cli/schemas/order.json: out of subset (5 violations), nothing to lower\n  7:17  /properties/lines/items: `$ref`"));
}

// ---------- check ----------

#[test]
fn check_valid_and_invalid_instances() {
    let r = run(&["check", INVOICE, "corpus/cli/instances/valid.json"]);
    assert_eq!(
        (r.code, r.stdout.as_str()),
        (0, "corpus/cli/instances/valid.json: valid\n")
    );
    let r = run(&[
        "check",
        INVOICE,
        "corpus/cli/instances/invalid.json",
        "corpus/cli/instances/valid.json",
    ]);
    assert_eq!(r.code, 1);
    let mut lines = r.stdout.lines();
    assert_eq!(
        lines.next(),
        Some("corpus/cli/instances/invalid.json: invalid (3 errors)")
    );
    let errors: Vec<&str> = lines.by_ref().take(3).collect();
    assert!(errors[0].starts_with("  2:13  /number: "), "{errors:?}");
    assert!(
        errors[0].ends_with("(schema /properties/number/pattern)"),
        "{errors:?}"
    );
    assert!(errors[1].starts_with("  3:12  /total: "), "{errors:?}");
    assert!(errors[2].starts_with("  1:1  /: "), "{errors:?}");
    assert!(errors[2].contains("`extra`"), "{errors:?}");
    assert_eq!(lines.next(), Some("corpus/cli/instances/valid.json: valid"));
}

#[test]
fn check_reads_stdin_and_directories() {
    let r = run_with(
        &["check", INVOICE, "-"],
        Some(br#"{"number": "INV-0001", "total": 0}"#),
    );
    assert_eq!((r.code, r.stdout.as_str()), (0, "<stdin>: valid\n"));
    let r = run(&["check", INVOICE, "corpus/cli/instances"]);
    assert_eq!(r.code, 1);
    assert!(r
        .stdout
        .contains("corpus/cli/instances/invalid.json: invalid"));
    assert!(r.stdout.contains("corpus/cli/instances/valid.json: valid"));
}

#[test]
fn check_out_of_subset_schema_and_bad_files() {
    let r = run(&["check", ORDER, "corpus/cli/instances/valid.json"]);
    assert_eq!(r.code, 1);
    assert!(r
        .stdout
        .starts_with("corpus/cli/schemas/order.json: out of subset (5 violations)\n  7:17  "));
    let r = run(&[
        "check",
        INVOICE,
        "corpus/cli/bad/invalid.json",
        "corpus/cli/instances/valid.json",
    ]);
    assert_eq!(r.code, 2);
    assert_eq!(r.stdout, "corpus/cli/instances/valid.json: valid\n");
    assert!(
        r.stderr.starts_with("corpus/cli/bad/invalid.json:4:"),
        "{}",
        r.stderr
    );
    let r = run(&[
        "check",
        "corpus/cli/nope.json",
        "corpus/cli/instances/valid.json",
    ]);
    assert_eq!(r.code, 2);
    assert_eq!(
        r.stderr,
        "corpus/cli/nope.json: no such file or directory\n"
    );
    let r = run(&[
        "check",
        "corpus/cli/schemas",
        "corpus/cli/instances/valid.json",
    ]);
    assert_eq!(r.code, 2);
    assert_eq!(
        r.stderr,
        "corpus/cli/schemas: is a directory; `check` takes one schema file\n"
    );
    let r = run(&["check", GROUPS, "corpus/cli/instances/valid.json"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("a test-suite file with 3 groups"),
        "{}",
        r.stderr
    );
    // A benchmark-style file holds one schema: check uses it.
    let r = run_with(&["check", BENCH, "-"], Some(br#"{"city": "Oslo"}"#));
    assert_eq!((r.code, r.stdout.as_str()), (0, "<stdin>: valid\n"));
}

// ---------- suite ----------

#[test]
fn suite_json_lines_follow_the_contract() {
    let r = run(&["suite", "--format", "json", GROUPS, BENCH]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let lines = r.lines();
    assert_eq!(lines.len(), 4);
    for l in &lines {
        assert_eq!(
            keys(l),
            ["file", "group", "in_subset", "errors", "tests", "targets"]
        );
    }
    let g0 = &lines[0];
    assert_eq!((&g0["file"], &g0["group"]), (&json!(GROUPS), &json!(0)));
    assert_eq!(
        g0["tests"],
        json!([
            {"index": 0, "expected": true, "actual": true},
            {"index": 1, "expected": false, "actual": false},
            {"index": 2, "expected": false, "actual": false}
        ])
    );
    let targets = g0["targets"].as_array().unwrap();
    assert_eq!(targets.len(), TARGETS.len());
    for t in targets {
        assert_eq!(keys(t), ["target", "mode", "wire", "losses"]);
    }
    let g1 = &lines[1];
    assert_eq!(g1["in_subset"], false);
    assert_eq!(g1["errors"][0]["keyword"], "$ref");
    assert_eq!(
        g1["tests"],
        json!([{"index": 0, "expected": true, "actual": Value::Null}])
    );
    assert_eq!(g1["targets"], json!([]));
    assert_eq!(lines[2]["group"], 2);
    assert_eq!(
        (&lines[3]["file"], &lines[3]["group"]),
        (&json!(BENCH), &json!(0))
    );
    assert_eq!(
        lines[3]["tests"],
        json!([
            {"index": 0, "expected": true, "actual": true},
            {"index": 1, "expected": false, "actual": false}
        ])
    );
}

#[test]
fn suite_reshaping_adds_encoded_and_lifted_aligned_with_tests() {
    let r = run(&[
        "suite",
        "--format",
        "json",
        "--profile",
        "reshaping",
        "--target",
        "ollama,openai",
        GROUPS,
    ]);
    assert_eq!(r.code, 0);
    let lines = r.lines();
    let source: Value =
        serde_json::from_str(&std::fs::read_to_string(root().join(GROUPS)).unwrap()).unwrap();
    for l in lines.iter().filter(|l| l["in_subset"] == true) {
        let g = l["group"].as_u64().unwrap() as usize;
        let tests = source[g]["tests"].as_array().unwrap();
        for t in l["targets"].as_array().unwrap() {
            assert_eq!(
                keys(t),
                ["target", "mode", "wire", "losses", "encoded", "lifted"]
            );
            let (enc, lif) = (
                t["encoded"].as_array().unwrap(),
                t["lifted"].as_array().unwrap(),
            );
            assert_eq!((enc.len(), lif.len()), (tests.len(), tests.len()));
            for (i, test) in tests.iter().enumerate() {
                if test["valid"] == true {
                    assert!(!enc[i].is_null(), "group {g} test {i}");
                    assert_eq!(
                        lif[i], test["data"],
                        "group {g} test {i}: lift undoes encode"
                    );
                } else {
                    assert!(enc[i].is_null() && lif[i].is_null());
                }
            }
        }
    }
    // Conservative (the default): the fields are absent.
    let r = run(&["suite", "--format", "json", GROUPS]);
    assert!(!r.stdout.contains("\"encoded\""));
}

#[test]
fn suite_text_and_a_wrong_label() {
    let r = run(&["suite", GROUPS]);
    assert_eq!(r.code, 0);
    assert!(r.stdout.starts_with(
        "corpus/cli/suite/groups.json#0  in subset  \"integers\"\n  tests: 3 of 3 as labelled\n"
    ));
    assert!(r.stdout.contains(
        "corpus/cli/suite/groups.json#1  out of subset (3 violations)  \"references\"\n"
    ));
    assert!(r.stdout.contains("tests: 6 passed, 0 failed, 1 not run"));
    let r = run(&["suite", "corpus/cli/suite/mislabelled.json"]);
    assert_eq!(r.code, 1);
    assert!(r
        .stdout
        .contains("    test 1 \"long, labelled valid\": expected valid, got invalid\n"));
    assert!(
        r.stdout.ends_with("exit 1: 1 test failed\n"),
        "{}",
        r.stdout
    );
    let r = run(&[
        "suite",
        "--format",
        "json",
        "corpus/cli/suite/mislabelled.json",
    ]);
    assert_eq!(r.code, 1);
    assert_eq!(
        r.lines()[0]["tests"],
        json!([
            {"index": 0, "expected": true, "actual": true},
            {"index": 1, "expected": true, "actual": false},
            {"index": 2, "expected": false, "actual": Value::Null}
        ])
    );
}

// ---------- input ----------

#[test]
fn directories_are_searched_in_order_skipping_hidden_and_non_json() {
    let r = run(&["lint", "--format", "json", "corpus/cli/tree"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let files: Vec<Value> = r.lines().iter().map(|l| l["file"].clone()).collect();
    assert_eq!(
        files,
        [
            json!("corpus/cli/tree/a.json"),
            json!("corpus/cli/tree/sub/b.json")
        ]
    );
}

#[test]
fn kind_override() {
    let r = run(&["lint", "--format", "json", "--kind", "schema", BENCH]);
    assert_eq!(r.code, 1);
    let l = &r.lines()[0];
    assert_eq!(l["in_subset"], false);
    let unknown: Vec<&str> = l["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["keyword"].as_str().unwrap())
        .collect();
    assert!(
        unknown.contains(&"tests") && unknown.contains(&"schema"),
        "{unknown:?}"
    );
    let r = run(&["lint", "--kind", "suite", INVOICE, GROUPS]);
    assert_eq!(r.code, 2);
    assert_eq!(
        r.stderr,
        "corpus/cli/schemas/invoice.json: not a test-suite file: expected a list of `{description, schema, tests}` groups\n"
    );
    assert!(
        r.stdout.contains("corpus/cli/suite/groups.json#2"),
        "the next file still runs"
    );
    let r = run(&["lint", "--kind", "bench", "--format", "json", BENCH]);
    assert_eq!(r.code, 0);
    let r = run(&["lint", "--kind", "yaml", BENCH]);
    assert_eq!(r.code, 2);
}

#[test]
fn bad_input_gets_a_message_per_file_and_the_rest_still_runs() {
    let empty = tmp("empty-dir");
    let empty = empty.to_str().unwrap();
    let r = run(&[
        "lint",
        "--format",
        "json",
        "corpus/cli/bad/not-json.txt",
        "corpus/cli/bad/invalid.json",
        "corpus/cli/bad/not-utf8.json",
        "corpus/cli/missing.json",
        empty,
        INVOICE,
    ]);
    assert_eq!(r.code, 2);
    let stderr: Vec<&str> = r.stderr.lines().collect();
    assert_eq!(
        stderr,
        [
            "corpus/cli/bad/not-json.txt:1:2: invalid JSON: expected ident",
            "corpus/cli/bad/invalid.json:4:28: invalid JSON: trailing comma",
            "corpus/cli/bad/not-utf8.json:1:39: not UTF-8 text: invalid byte at byte offset 38; JSON files must be UTF-8",
            "corpus/cli/missing.json: no such file or directory",
            &format!("{empty}: no *.json files in this directory"),
        ]
    );
    let lines = r.lines();
    assert_eq!(lines.len(), 6);
    assert_eq!(
        lines[1],
        json!({"file": "corpus/cli/bad/invalid.json", "error": "invalid JSON: trailing comma", "line": 4, "column": 28})
    );
    assert_eq!(lines[3]["line"], Value::Null);
    assert_eq!(lines[5]["file"], INVOICE);
    assert_eq!(lines[5]["in_subset"], true);
    let dir = tmp("empty-file");
    let empty_file = dir.join("empty.json");
    std::fs::write(&empty_file, "").unwrap();
    let r = run(&["suite", empty_file.to_str().unwrap()]);
    assert_eq!(r.code, 2);
    assert_eq!(
        r.stderr,
        format!(
            "{}:1:1: invalid JSON: the file is empty; a JSON value was expected\n",
            empty_file.display()
        )
    );
    // Text format: the messages on stderr, the count in the summary.
    let r = run(&["lint", "corpus/cli/bad/invalid.json", INVOICE]);
    assert_eq!(r.code, 2);
    assert!(r.stdout.contains("; 1 file could not be read"));
    assert!(r.stdout.ends_with("exit 2: 1 file could not be read\n"));
}

#[test]
fn huge_files_are_refused_with_the_flag_to_raise() {
    let r = run(&["lint", "--max-file-size", "100", INVOICE, BENCH]);
    assert_eq!(r.code, 2);
    let first = r.stderr.lines().next().unwrap();
    assert!(
        first.starts_with("corpus/cli/schemas/invoice.json: file is ")
            && first.contains("over --max-file-size 100B")
            && first.contains("e.g. --max-file-size 512B"),
        "{first}"
    );
    // Standard input has no size up front: it is cut at the limit.
    let big = format!(
        "{{\"type\": \"string\", \"description\": \"{}\"}}",
        "x".repeat(5000)
    );
    let r = run_with(
        &["lint", "--max-file-size", "1K", "-"],
        Some(big.as_bytes()),
    );
    assert_eq!(r.code, 2);
    assert!(r
        .stderr
        .starts_with("<stdin>: input is longer than 1KiB, over --max-file-size 1KiB"));
    let r = run(&["lint", "--max-file-size", "lots", INVOICE]);
    assert_eq!(r.code, 2);
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let dir = tmp("deep");
    // 100,000 levels of JSON nesting.
    let n = 100_000;
    let text = format!("{}{{}}{}", "{\"not\":".repeat(n), "}".repeat(n));
    let deep = dir.join("deep.json");
    std::fs::write(&deep, text).unwrap();
    for cmd in [&["lint"][..], &["suite"], &["lower", "--target", "ollama"]] {
        let mut args = cmd.to_vec();
        args.push(deep.to_str().unwrap());
        let r = run(&args);
        assert_eq!(r.code, 2, "{cmd:?}");
        assert!(
            r.stderr.contains("nested deeper than 128 levels"),
            "{}",
            r.stderr
        );
    }
    let r = run(&["check", INVOICE, deep.to_str().unwrap()]);
    assert_eq!(r.code, 2);
    // Deep enough for the schema limit but within what JSON reading takes: a violation.
    let items = 100;
    let text = format!(
        "{}{{\"type\": \"string\"}}{}",
        "{\"type\": \"array\", \"items\": ".repeat(items),
        "}".repeat(items)
    );
    let deep = dir.join("deep-items.json");
    std::fs::write(&deep, text).unwrap();
    let r = run(&["lint", "--format", "json", deep.to_str().unwrap()]);
    assert_eq!(r.code, 1);
    let reason = r.lines()[0]["errors"][0]["reason"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(reason.contains("--max-depth"), "{reason}");
    let r = run(&["lint", "--max-depth", "200", deep.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stdout);
}

#[test]
fn no_progress_bar_when_stderr_is_not_a_terminal() {
    let mut args = vec!["lint", "--format", "json"];
    args.extend(std::iter::repeat_n(INVOICE, 120));
    let r = run(&args);
    assert_eq!(r.code, 0);
    assert_eq!(r.stderr, "");
    assert_eq!(r.lines().len(), 120);
}

#[test]
fn version_and_help() {
    let r = run(&["--version"]);
    assert_eq!(r.code, 0);
    assert_eq!(
        r.stdout,
        format!("schemalect {}\n", env!("CARGO_PKG_VERSION"))
    );
    let r = run(&["lint", "--help"]);
    assert_eq!(r.code, 0);
    for flag in [
        "--format",
        "--deny",
        "--target",
        "--profile",
        "--max-depth",
        "--max-nodes",
        "--max-enum-values",
        "--max-pattern-len",
        "--kind",
        "--max-file-size",
    ] {
        assert!(r.stdout.contains(flag), "{flag}");
    }
    let r = run(&[]);
    assert_eq!(r.code, 2);
}

// ---------- the shared corpus (skipped when absent) ----------

#[test]
fn suite_json_over_the_official_suite_keys_groups_as_the_harness_does() {
    let dir = root().join("../shared/corpus/json-schema-test-suite/tests/draft2020-12");
    if !dir.is_dir() {
        eprintln!("notice: {} is absent; skipping", dir.display());
        return;
    }
    let path = dir.join("type.json");
    let r = run(&[
        "suite",
        "--format",
        "json",
        "--target",
        "ollama",
        path.to_str().unwrap(),
    ]);
    let source: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let lines = r.lines();
    assert_eq!(lines.len(), source.as_array().unwrap().len());
    for (i, l) in lines.iter().enumerate() {
        assert_eq!(l["group"], i);
        let tests = source[i]["tests"].as_array().unwrap();
        assert_eq!(l["tests"].as_array().unwrap().len(), tests.len());
        if l["in_subset"] == true {
            for (t, s) in l["tests"].as_array().unwrap().iter().zip(tests) {
                assert_eq!(t["expected"], s["valid"]);
                assert_eq!(t["actual"], s["valid"], "group {i}");
            }
        }
    }
}

#[test]
fn lowering_options_reach_the_wire() {
    let groq = |extra: &[&str]| {
        let mut args = vec!["lower", "--format", "json", "--target", "groq"];
        args.extend_from_slice(extra);
        // Strict-ready as written: closed, every property required.
        args.push("corpus/examples/invoice.schema.json");
        let r = run(&args);
        assert_eq!(r.code, 0, "{}", r.stderr);
        r.lines().remove(0)
    };
    assert_eq!(groq(&[])["wire"]["response_format"]["type"], "json_object");
    let strict = groq(&["--groq-strict", "--name", "invoice_v2"]);
    assert_eq!(strict["wire"]["response_format"]["type"], "json_schema");
    assert_eq!(
        strict["wire"]["response_format"]["json_schema"]["name"],
        "invoice_v2"
    );
    let r = run(&[
        "lower",
        "--target",
        "openrouter",
        "--no-require-parameters",
        INVOICE,
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(!r.stdout.contains("require_parameters"), "{}", r.stdout);
    let r = run(&["lower", "--target", "claude", "--claude-thinking", INVOICE]);
    assert!(!r.stdout.contains("tool_choice"), "{}", r.stdout);
    let r = run(&[
        "lower",
        "--target",
        "openai",
        "--name",
        "two words",
        INVOICE,
    ]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("is not a name providers accept"),
        "{}",
        r.stderr
    );
}

#[test]
fn null_means_absent_sends_optional_nullables_without_the_wrapper() {
    let dir = tmp("null-means-absent");
    let schema = dir.join("profile.json");
    std::fs::write(
        &schema,
        r#"{"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": ["integer", "null"]}}, "required": ["name"], "additionalProperties": false}"#,
    )
    .expect("write schema");
    let age = |extra: &[&str]| {
        let path = schema.to_string_lossy().into_owned();
        let mut args = vec![
            "lower",
            "--format",
            "json",
            "--target",
            "openai",
            "--profile",
            "reshaping",
        ];
        args.extend_from_slice(extra);
        args.push(&path);
        let r = run(&args);
        assert_eq!(r.code, 0, "{}", r.stderr);
        let line = r.lines().remove(0);
        let sent = &line["wire"]["response_format"]["json_schema"]["schema"];
        assert_eq!(sent["required"], json!(["name", "age"]), "{line}");
        sent["properties"]["age"].clone()
    };
    // Without the switch, `null` and absent stay apart: the optional is wrapped.
    let wrapped = age(&[]);
    assert!(wrapped.to_string().contains("\"value\""), "{wrapped}");
    // With it, the property goes as it is, required and nullable.
    let plain = age(&["--null-means-absent"]);
    assert_eq!(plain, json!({"type": ["null", "integer"]}));
}
