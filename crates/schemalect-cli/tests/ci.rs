//! The CLI in CI: `--jobs` leaves the output alone, SARIF stays inside code scanning's limits,
//! the baseline round trip, the configuration file, and every command of `docs/ci.md` run as
//! written.

use serde_json::Value;
use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_schemalect")
}

/// Runs the binary in `dir` (never reading a configuration file unless the test writes one).
fn run_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(bin())
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the binary runs")
}

fn code(o: &Output) -> i32 {
    o.status.code().expect("exited")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("UTF-8")
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).expect("UTF-8")
}

fn tmp(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).expect("temp dir");
    // A `.git` folder ends the search for a configuration file here.
    fs::create_dir_all(dir.join(".git")).expect(".git");
    dir
}

fn write(path: &Path, text: &str) {
    if let Some(p) = path.parent() {
        fs::create_dir_all(p).unwrap();
    }
    fs::write(path, text).unwrap();
}

const GOOD: &str = r#"{"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}}, "required": ["n"], "additionalProperties": false}"#;
const BAD: &str = r##"{"type": "object", "properties": {"a": {"$ref": "#/$defs/a"}}, "$defs": {"a": {"type": "string"}}}"##;

fn results(sarif: &str) -> Vec<Value> {
    let doc: Value = serde_json::from_str(sarif).expect("SARIF is JSON");
    doc["runs"][0]["results"].as_array().unwrap().clone()
}

fn fingerprints(sarif: &str) -> BTreeSet<String> {
    results(sarif)
        .iter()
        .map(|r| {
            r["partialFingerprints"]["schemalect/v1"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect()
}

#[test]
fn jobs_do_not_change_a_byte_of_output() {
    let cases: [&[&str]; 7] = [
        &["lint", "corpus/cli"],
        &["lint", "--format", "json", "corpus/cli"],
        &[
            "lint",
            "--format",
            "sarif",
            "--min-level",
            "note",
            "corpus/cli",
        ],
        &["lint", "--format", "gitlab", "corpus/cli"],
        &[
            "lower",
            "--format",
            "json",
            "corpus/cli/schemas",
            "corpus/cli/suite",
        ],
        &[
            "suite",
            "--format",
            "json",
            "corpus/cli/suite",
            "corpus/cli/bench",
        ],
        &[
            "check",
            "--format",
            "json",
            "corpus/cli/schemas/invoice.json",
            "corpus/cli/instances",
        ],
    ];
    for args in cases {
        let one = run_in(
            &root(),
            &[&["--no-config"], args, &["--jobs", "1"]].concat(),
        );
        assert!(!one.stdout.is_empty(), "{args:?}");
        for jobs in ["2", "3", "8"] {
            let many = run_in(
                &root(),
                &[&["--no-config"], args, &["--jobs", jobs]].concat(),
            );
            assert_eq!(code(&one), code(&many), "{args:?} --jobs {jobs}");
            assert!(one.stdout == many.stdout, "{args:?}: --jobs {jobs} differs");
            assert!(
                one.stderr == many.stderr,
                "{args:?}: --jobs {jobs} stderr differs"
            );
        }
    }
}

/// A corpus with many findings: out-of-subset schemas with several violations each, and
/// in-subset ones with many losses of one rule (patterns and formats, which several targets
/// drop).
fn noisy_corpus(dir: &Path, files: usize) {
    for i in 0..files {
        let text = if i % 2 == 0 {
            format!(
                r##"{{"type": "object", "properties": {{"a{i}": {{"$ref": "#/x"}}, "b": {{"not": {{"type": "string"}}}}, "c": {{"if": {{"type": "string"}}}}, "d": {{"type": "string", "x-vendor": 1}}}}}}"##
            )
        } else {
            let props: Vec<String> = (0..12)
                .map(|p| format!(r#""p{p}": {{"type": "string", "pattern": "^[a-z]{{{p},}}$", "format": "email", "minLength": {p}}}"#))
                .collect();
            format!(
                r#"{{"type": "object", "properties": {{{}}}}}"#,
                props.join(", ")
            )
        };
        write(&dir.join(format!("s/{i:05}.json")), &text);
    }
}

#[test]
fn sarif_stays_inside_the_code_scanning_limits() {
    // The documented limits: runs per file 20, results per run 25,000 (5,000 shown), rules per
    // run 25,000, locations per result 1,000; a file of at most 10 MB gzip-compressed
    // (checked here uncompressed, which is stricter).
    let dir = tmp("ci-limits");
    noisy_corpus(&dir, 3000);
    let check = |args: &[&str], cap: usize| -> Vec<Value> {
        let o = run_in(&dir, args);
        assert_eq!(code(&o), 1, "{}", stderr(&o));
        assert!(o.stdout.len() <= 10 << 20, "{} bytes", o.stdout.len());
        let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
        let runs = doc["runs"].as_array().unwrap();
        assert!(!runs.is_empty() && runs.len() <= 20);
        let rules = runs[0]["tool"]["driver"]["rules"].as_array().unwrap();
        assert!(rules.len() <= 25_000);
        let res = runs[0]["results"].as_array().unwrap().clone();
        assert!(
            res.len() <= cap && res.len() <= 25_000,
            "{} results",
            res.len()
        );
        for r in &res {
            assert!(r["locations"].as_array().map_or(0, Vec::len) <= 1_000);
        }
        res
    };
    // Default options: at most 5,000 results, the last one saying how many were left out.
    let capped = check(&["lint", "--format", "sarif", "s"], 5_000);
    let last = capped.last().unwrap();
    assert_eq!(capped.len(), 5_000);
    assert_eq!(last["ruleId"], "run/truncated");
    // Everything under the hard limit: the count the closing result gives is exact.
    let all = check(
        &["lint", "--format", "sarif", "--max-results", "25000", "s"],
        25_000,
    );
    assert!(all.iter().all(|r| r["ruleId"] != "run/truncated"));
    let text = last["message"]["text"].as_str().unwrap();
    let left: usize = text.split(' ').next().unwrap().parse().unwrap();
    assert_eq!(left, all.len() - (capped.len() - 1), "{text}");
    // Errors are kept first: the capped run has only errors when there are more than 4,999.
    let errors = all.iter().filter(|r| r["level"] == "error").count();
    assert!(errors > 4_999);
    assert!(capped[..4_999].iter().all(|r| r["level"] == "error"));
    // What the capped run keeps is located as in the full run, though it locates only what
    // the cap may still keep (`findings::CapWatch`).
    let first_errors: Vec<&Value> = all
        .iter()
        .filter(|r| r["level"] == "error")
        .take(4_999)
        .collect();
    assert!(capped[..4_999].iter().eq(first_errors));
    assert!(capped[..4_999]
        .iter()
        .all(|r| r["locations"][0]["physicalLocation"]["region"]["startLine"].is_u64()));
    // Notes: no more than three results of one loss rule in one file; the rest are folded.
    let notes = check(
        &[
            "lint",
            "--format",
            "sarif",
            "--min-level",
            "note",
            "--max-results",
            "25000",
            "s",
        ],
        25_000,
    );
    let mut per: std::collections::HashMap<(String, String), usize> = Default::default();
    for r in notes.iter().filter(|r| r["level"] == "note") {
        let uri = r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].to_string();
        *per.entry((r["ruleId"].to_string(), uri)).or_default() += 1;
    }
    assert!(!per.is_empty());
    assert!(per.values().all(|n| *n <= 3), "{per:?}");
    assert!(notes.iter().any(|r| r["message"]["text"]
        .as_str()
        .unwrap()
        .contains("notes in this file")));
    // Above the hard limit is refused.
    let o = run_in(
        &dir,
        &["lint", "--format", "sarif", "--max-results", "25001", "s"],
    );
    assert_eq!(code(&o), 2);
}

#[test]
fn baseline_round_trip() {
    let dir = tmp("ci-baseline");
    write(&dir.join("s/good.json"), GOOD);
    write(&dir.join("s/bad.json"), BAD);
    write(&dir.join("s/other.json"), BAD);
    let o = run_in(&dir, &["lint", "--write-baseline", "b.json", "s"]);
    assert_eq!(code(&o), 1);
    let before = run_in(&dir, &["lint", "--format", "sarif", "s"]);
    let before_fp = fingerprints(&stdout(&before));
    let recorded: Value =
        serde_json::from_str(&fs::read_to_string(dir.join("b.json")).unwrap()).unwrap();
    let recorded_fp: BTreeSet<String> = recorded["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["fingerprint"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        recorded_fp, before_fp,
        "SARIF and the baseline share fingerprints"
    );
    // Lint again: nothing new, exit 0.
    let o = run_in(
        &dir,
        &["lint", "--format", "sarif", "--baseline", "b.json", "s"],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(results(&stdout(&o)).is_empty());
    assert!(stderr(&o).contains("baseline: 0 new, "), "{}", stderr(&o));
    // Lines move (a schema reformatted): still nothing new.
    write(
        &dir.join("s/bad.json"),
        &format!("\n\n{}", BAD.replace(", ", ",\n  ")),
    );
    let o = run_in(&dir, &["lint", "--baseline", "b.json", "s"]);
    assert_eq!(code(&o), 0, "{}", stdout(&o));
    // Change one schema: exactly its new findings, and its fixed ones are gone.
    write(
        &dir.join("s/other.json"),
        r#"{"type": "object", "properties": {"a": {"type": "string", "x-new": 1}}}"#,
    );
    let after = run_in(&dir, &["lint", "--format", "sarif", "s"]);
    let after_fp = fingerprints(&stdout(&after));
    let o = run_in(
        &dir,
        &["lint", "--format", "sarif", "--baseline", "b.json", "s"],
    );
    assert_eq!(code(&o), 1);
    let new = fingerprints(&stdout(&o));
    let expected: BTreeSet<String> = after_fp.difference(&before_fp).cloned().collect();
    assert!(!new.is_empty());
    assert_eq!(new, expected);
    for r in results(&stdout(&o)) {
        assert_eq!(
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            "s/other.json"
        );
    }
    let gone = before_fp.difference(&after_fp).count();
    let err = stderr(&o);
    assert!(err.contains(&format!("{gone} gone")), "{err}");
    assert!(
        err.contains("gone: s/other.json: /properties/a: subset/outside/$ref"),
        "{err}"
    );
    // The text report lists them too, and says why it fails.
    let o = run_in(&dir, &["lint", "--baseline", "b.json", "s"]);
    let out = stdout(&o);
    assert!(out.contains("new: s/other.json:"), "{out}");
    assert!(out.contains("not in the baseline"), "{out}");
    // A file that is not a baseline is a usage error.
    write(&dir.join("x.json"), "[]");
    let o = run_in(&dir, &["lint", "--baseline", "x.json", "s"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("not a schemalect baseline"));
}

#[test]
fn the_configuration_file_sets_flags_and_paths() {
    let dir = tmp("ci-config");
    // An optional property: OpenAI gets JSON mode under the conservative profile.
    let optional = r#"{"type": "object", "properties": {"n": {"type": "integer"}}}"#;
    write(&dir.join("schemas/good.json"), optional);
    write(&dir.join("schemas/vendor/bad.json"), BAD);
    write(&dir.join("schemas/legacy/strict.json"), optional);
    write(
        &dir.join("schemalect.toml"),
        r#"
paths = ["schemas"]
target = ["openai"]
exclude = ["schemas/vendor/"]
deny = "json"

[[override]]
paths = ["schemas/legacy/**"]
deny = "prompt"
"#,
    );
    // No arguments: the configured paths, without the excluded folder.
    let o = run_in(&dir, &["lint", "--format", "json"]);
    let lines: Vec<Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let files: Vec<&str> = lines.iter().map(|l| l["file"].as_str().unwrap()).collect();
    assert_eq!(files, ["schemas/good.json", "schemas/legacy/strict.json"]);
    for l in &lines {
        let t: Vec<&str> = l["targets"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["target"].as_str().unwrap())
            .collect();
        assert_eq!(t, ["openai"]);
    }
    // `deny = "json"` fails good.json (openai falls back to JSON mode there); the override
    // lets the legacy file through with `prompt`.
    let o = run_in(&dir, &["lint", "--format", "sarif", "--min-level", "error"]);
    assert_eq!(code(&o), 1);
    let denied: Vec<String> = results(&stdout(&o))
        .iter()
        .filter(|r| r["ruleId"].as_str().unwrap().starts_with("deny/"))
        .map(|r| {
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(denied, ["schemas/good.json"]);
    // The command line wins; a file named on it is linted even when excluded.
    let o = run_in(
        &dir,
        &[
            "lint",
            "--deny",
            "prompt",
            "--target",
            "ollama",
            "schemas/good.json",
            "schemas/vendor/bad.json",
            "--format",
            "json",
        ],
    );
    let out = stdout(&o);
    assert!(
        out.contains("\"ollama\"") && !out.contains("\"openai\""),
        "{out}"
    );
    assert!(out.contains("schemas/vendor/bad.json"));
    // From a folder below, the file is found and its paths are its own.
    let o = run_in(&dir.join("schemas/legacy"), &["lint", "--format", "json"]);
    assert_eq!(stdout(&o).lines().count(), 2, "{}", stderr(&o));
    // --no-config: no paths.
    let o = run_in(&dir, &["--no-config", "lint"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("no PATH given"));
    // Unknown keys: all of them, each with the nearest key; bad values as the flag's.
    write(
        &dir.join("bad.toml"),
        "min_level = \"note\"\nprofil = \"reshaping\"\n[lint]\ndeny = \"json\"\nformt = \"sarif\"\n[[override]]\npaths = [\"x/**\"]\nformat = \"json\"\n",
    );
    let o = run_in(&dir, &["lint", "--config", "bad.toml"]);
    assert_eq!(code(&o), 2);
    let err = stderr(&o);
    assert!(err.contains("4 problems"), "{err}");
    assert!(
        err.contains("unknown key `min_level`; did you mean `min-level`?"),
        "{err}"
    );
    assert!(
        err.contains("unknown key `profil`; did you mean `profile`?"),
        "{err}"
    );
    assert!(
        err.contains("unknown key `[lint] formt`; did you mean `format`?"),
        "{err}"
    );
    assert!(err.contains("`format` applies to the whole run"), "{err}");
    write(&dir.join("bad.toml"), "profile = \"bold\"\n");
    let o = run_in(&dir, &["lint", "--config", "bad.toml", "schemas"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("bold"), "{}", stderr(&o));
}

// ---------- docs/ci.md ----------

/// The fenced code blocks of a Markdown file: (info string, body).
fn code_blocks(md: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut current: Option<(String, String)> = None;
    for line in md.lines() {
        match (&mut current, line.strip_prefix("```")) {
            (None, Some(info)) => current = Some((info.trim().to_owned(), String::new())),
            (Some(_), Some(_)) => out.extend(current.take()),
            (Some((_, body)), None) => {
                body.push_str(line);
                body.push('\n');
            }
            (None, None) => {}
        }
    }
    out
}

/// The shell commands of a YAML block: `run:` values (one line or a `|` block), `script:`
/// items and `entry:` values, in order. Commands that install the tool are left out (the
/// test runs the binary under test instead).
fn yaml_commands(body: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut block: Option<usize> = None;
    for line in body.lines() {
        let indent = line.len() - line.trim_start().len();
        let t = line.trim();
        if let Some(min) = block {
            if indent > min && !t.is_empty() {
                out.push(t.to_owned());
                continue;
            }
            block = None;
        }
        let t = t.strip_prefix("- ").unwrap_or(t);
        if let Some(cmd) = t
            .strip_prefix("run: ")
            .or_else(|| t.strip_prefix("entry: "))
        {
            if cmd == "|" {
                block = Some(indent);
            } else {
                out.push(cmd.to_owned());
            }
        } else if t.starts_with("schemalect ") {
            out.push(t.to_owned());
        }
    }
    out.retain(|c| !c.starts_with("cargo install"));
    out
}

fn sh(dir: &Path, cmd: &str, path_dir: &Path) -> Output {
    let path = format!(
        "{}:{}",
        path_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    Command::new("sh")
        .arg("-c")
        .arg(cmd)
        .current_dir(dir)
        .env("PATH", path)
        .output()
        .expect("sh runs")
}

fn git(dir: &Path, args: &[&str]) {
    let o = Command::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git runs");
    assert!(
        o.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn ci_doc_commands_run_as_written() {
    let md = fs::read_to_string(root().join("docs/ci.md")).unwrap();
    let blocks = code_blocks(&md);
    let bin_dir = Path::new(bin()).parent().unwrap().to_path_buf();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("ci-doc");
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    git(&dir, &["init", "-q"]);
    write(&dir.join("schemas/good.json"), GOOD);
    write(&dir.join("schemas/bad.json"), BAD);
    write(&dir.join("schemas/vendor/ignored.json"), BAD);
    let toml = blocks
        .iter()
        .find(|(info, body)| info == "toml" && body.starts_with("# schemalect.toml"))
        .expect("the doc shows schemalect.toml");
    write(&dir.join("schemalect.toml"), &toml.1);
    // The one-time baseline, committed.
    let setup = blocks
        .iter()
        .find(|(info, body)| info == "sh" && body.contains("--write-baseline"))
        .expect("the doc shows how to make the baseline");
    for cmd in setup.1.lines().filter(|l| !l.trim().is_empty()) {
        let o = sh(&dir, cmd, &bin_dir);
        assert_eq!(
            code(&o),
            1,
            "{cmd}: the baseline holds the bad schema's findings"
        );
    }
    git(&dir, &["add", "-A"]);
    git(&dir, &["commit", "-q", "-m", "baseline"]);
    let baseline = fs::read_to_string(dir.join("schemalect-baseline.json")).unwrap();
    assert!(
        baseline.contains("schemas/bad.json") && !baseline.contains("vendor"),
        "{baseline}"
    );

    let yaml = |name: &str| -> Vec<String> {
        let (_, body) = blocks
            .iter()
            .find(|(info, body)| info == "yaml" && body.starts_with(&format!("# {name}")))
            .unwrap_or_else(|| panic!("the doc shows {name}"));
        yaml_commands(body)
    };

    // GitHub Actions: the lint step passes (nothing new), writes SARIF; the ratchet passes.
    let steps = yaml(".github/workflows/schemas.yml");
    assert_eq!(steps.len(), 3, "{steps:?}");
    for cmd in &steps {
        let o = sh(&dir, cmd, &bin_dir);
        assert_eq!(code(&o), 0, "{cmd}: {}", stderr(&o));
    }
    let sarif = fs::read_to_string(dir.join("schemalect.sarif")).unwrap();
    assert!(results(&sarif).is_empty());
    // A new finding fails the lint step and appears in the SARIF file; after fixing the bad
    // schema, the ratchet fails until the smaller baseline is committed.
    write(&dir.join("schemas/new.json"), BAD);
    let o = sh(&dir, &steps[0], &bin_dir);
    assert_eq!(code(&o), 1);
    let sarif = fs::read_to_string(dir.join("schemalect.sarif")).unwrap();
    assert!(results(&sarif)
        .iter()
        .all(
            |r| r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                == "schemas/new.json"
        ));
    assert!(!results(&sarif).is_empty());
    fs::remove_file(dir.join("schemas/new.json")).unwrap();
    write(&dir.join("schemas/bad.json"), GOOD);
    assert_eq!(code(&sh(&dir, &steps[0], &bin_dir)), 0);
    let ratchet = steps[1..].join("\n");
    assert_eq!(
        code(&sh(&dir, &ratchet, &bin_dir)),
        1,
        "the gone findings must leave the baseline"
    );
    git(&dir, &["commit", "-q", "-am", "fixed"]);
    assert_eq!(code(&sh(&dir, &ratchet, &bin_dir)), 0);
    write(&dir.join("schemas/bad.json"), BAD);

    // GitLab: a code-quality report with the new findings only (none yet: baseline is clean
    // after the commit above, so write the bad schema back and expect its findings).
    let steps = yaml(".gitlab-ci.yml");
    assert_eq!(steps.len(), 1, "{steps:?}");
    let o = sh(&dir, &steps[0], &bin_dir);
    assert_eq!(code(&o), 1);
    let report: Value =
        serde_json::from_str(&fs::read_to_string(dir.join("gl-code-quality.json")).unwrap())
            .unwrap();
    let issues = report.as_array().unwrap();
    assert!(!issues.is_empty());
    for i in issues {
        assert_eq!(i["location"]["path"], "schemas/bad.json");
        assert!(["info", "minor", "major"].contains(&i["severity"].as_str().unwrap()));
        assert!(i["fingerprint"].as_str().unwrap().len() == 16);
    }

    // pre-commit: the entry with the staged file names appended.
    let hooks = yaml(".pre-commit-config.yaml");
    assert_eq!(hooks.len(), 1, "{hooks:?}");
    let o = sh(&dir, &format!("{} schemas/good.json", hooks[0]), &bin_dir);
    assert_eq!(code(&o), 0, "{}", stdout(&o));
    let o = sh(
        &dir,
        &format!("{} schemas/good.json schemas/bad.json", hooks[0]),
        &bin_dir,
    );
    assert_eq!(code(&o), 1);
    let hooks = yaml(".pre-commit-hooks.yaml");
    assert_eq!(hooks.len(), 1, "{hooks:?}");
    let o = sh(&dir, &format!("{} schemas/good.json", hooks[0]), &bin_dir);
    assert_eq!(code(&o), 0, "{}", stdout(&o));
}
