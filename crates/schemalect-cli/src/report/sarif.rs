//! SARIF 2.1.0, for code scanning: one run, a rule per kind of finding, one result per finding
//! with the file (relative URI), line and column of the offending keyword.
//!
//! Levels: out-of-subset violations, `--deny` hits and unreadable files are `error`; losses are
//! `warning` on a target that falls back to JSON mode or a prompt (the provider enforces no
//! schema there) and `note` otherwise (the provider will not enforce one constraint, local
//! validation still does). Each result carries its fingerprint in `partialFingerprints`.

use schemalect::{Mode, Violation, ViolationKind};
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::{Component, Path};

/// The schema of SARIF 2.1.0 documents.
pub const SCHEMA_URI: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

pub use crate::findings::{Finding, Level, Rule};

/// The rule of a subset violation: one per kind, and one per keyword the subset leaves out.
pub fn violation_rule(v: &Violation) -> Rule {
    let (id, keyword, description, level) = violation_kind(&v.kind);
    let (id, description) = if keyword {
        (
            format!("{id}{}", v.keyword),
            format!("`{}` {description}", v.keyword),
        )
    } else {
        (id.to_owned(), description.to_owned())
    };
    Rule {
        id,
        description,
        level,
    }
}

/// Writes the id of [`violation_rule`] to `out`.
pub fn violation_rule_id(v: &Violation, out: &mut String) {
    let (id, keyword, _, _) = violation_kind(&v.kind);
    out.push_str(id);
    if keyword {
        out.push_str(&v.keyword);
    }
}

/// A violation kind's rule: its id, whether the keyword follows the id (and starts the
/// description), the description, the level.
fn violation_kind(kind: &ViolationKind) -> (&'static str, bool, &'static str, Level) {
    match kind {
        ViolationKind::Outside(_) => (
            "subset/outside/",
            true,
            "is outside the ADR-126 subset",
            Level::Error,
        ),
        ViolationKind::Unknown => (
            "subset/unknown-keyword",
            false,
            "Unknown keyword: the subset accepts no other keywords (fail-closed)",
            Level::Error,
        ),
        ViolationKind::Shape { .. } => (
            "subset/shape",
            false,
            "A subset keyword whose value has the wrong shape",
            Level::Error,
        ),
        ViolationKind::BooleanSchema(_) => (
            "subset/boolean-schema",
            false,
            "A boolean schema, which the subset does not accept",
            Level::Error,
        ),
        ViolationKind::NotASchema(_) => (
            "subset/not-a-schema",
            false,
            "A schema that is not a JSON object",
            Level::Error,
        ),
        ViolationKind::AssertsNothing => (
            "subset/asserts-nothing",
            false,
            "A schema that asserts nothing (empty or annotations only)",
            Level::Error,
        ),
        ViolationKind::Pattern(_) => (
            "subset/pattern",
            false,
            "A `pattern` the linear-time engine cannot run, or that does not parse",
            Level::Error,
        ),
        // A warning in the `full` subset (an annotation); an error with `--deny-unknown`.
        ViolationKind::UnknownKeyword { .. } => (
            "full/unknown-keyword",
            false,
            "Unknown keyword: an annotation under JSON Schema, asserting nothing (full subset); often a misspelt keyword",
            Level::Warning,
        ),
        ViolationKind::Unresolved(_) => (
            "full/unresolved-reference",
            false,
            "A reference that resolves to no schema of the document or of the documents provided",
            Level::Error,
        ),
        ViolationKind::Limit { .. } => (
            "subset/limit",
            false,
            "A parse limit (depth, nodes, enum values, pattern length) was exceeded",
            Level::Error,
        ),
        _ => (
            "subset/other",
            false,
            "Outside the ADR-126 subset",
            Level::Error,
        ),
    }
}

/// The rule of a loss: one per keyword (`loss/schema` for a whole-schema degradation).
pub fn loss_rule(keyword: &str) -> Rule {
    let mut id = String::new();
    loss_rule_id(keyword, &mut id);
    let description = if keyword.is_empty() {
        "A provider does not enforce the schema natively".to_owned()
    } else {
        format!("A provider does not enforce `{keyword}`")
    };
    Rule {
        id,
        description,
        level: Level::Note,
    }
}

/// Writes the id of [`loss_rule`] to `out`.
pub fn loss_rule_id(keyword: &str, out: &mut String) {
    if keyword.is_empty() {
        out.push_str("loss/schema");
    } else {
        out.push_str("loss/");
        out.push_str(keyword);
    }
}

/// The rule of a `--deny` hit.
pub fn deny_rule(mode: Mode) -> Rule {
    let mut id = String::new();
    deny_rule_id(mode, &mut id);
    Rule {
        id,
        description: format!("A target reaches only `{mode}` mode, which `--deny` rejects"),
        level: Level::Error,
    }
}

/// Writes the id of [`deny_rule`] to `out`.
pub fn deny_rule_id(mode: Mode, out: &mut String) {
    out.push_str("deny/");
    out.push_str(mode.name());
}

/// The rule of a file that could not be used.
pub fn input_rule() -> Rule {
    Rule {
        id: "input/unreadable".to_owned(),
        description: "A file that could not be read as JSON of the expected kind".to_owned(),
        level: Level::Error,
    }
}

/// `path` as a URI reference: relative to the working directory when it can be, with `/`
/// separators and percent-encoding.
pub fn uri(path: &Path) -> String {
    let cwd = std::env::current_dir().ok();
    let rel = match (path.is_absolute(), &cwd) {
        (true, Some(cwd)) => path.strip_prefix(cwd).ok(),
        (false, _) => Some(path),
        (true, None) => None,
    };
    match rel {
        Some(rel) => {
            let parts: Vec<String> = rel
                .components()
                .filter(|c| !matches!(c, Component::CurDir))
                .map(|c| encode(&c.as_os_str().to_string_lossy()))
                .collect();
            parts.join("/")
        }
        None => {
            let parts: Vec<String> = path
                .components()
                .filter_map(|c| match c {
                    Component::Normal(s) => Some(encode(&s.to_string_lossy())),
                    Component::ParentDir => Some("..".to_owned()),
                    _ => None,
                })
                .collect();
            format!("file:///{}", parts.join("/"))
        }
    }
}

fn encode(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len());
    for b in segment.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Writes the SARIF document as findings come, so memory stays flat: the results first, then
/// the invocation and the tool with its rules (each rule listed once, in order of first use,
/// which `ruleIndex` refers to). Key order inside a JSON object carries no meaning in SARIF.
#[derive(Debug, Default)]
pub struct Writer {
    rules: Vec<Rule>,
    index: HashMap<String, usize>,
    results: usize,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ResultOut<'a> {
    rule_id: &'a str,
    rule_index: usize,
    level: &'static str,
    message: Text<'a>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    locations: Vec<Location<'a>>,
    #[serde(serialize_with = "one_entry_map")]
    partial_fingerprints: (&'static str, String),
}

fn one_entry_map<S: serde::Serializer>(
    entry: &(&'static str, String),
    s: S,
) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut m = s.serialize_map(Some(1))?;
    m.serialize_entry(entry.0, &entry.1)?;
    m.end()
}

/// The key of our fingerprint in `partialFingerprints` (the same value as in baselines).
pub const FINGERPRINT_KEY: &str = "schemalect/v1";

#[derive(Serialize)]
struct Text<'a> {
    text: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Location<'a> {
    physical_location: Physical<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Physical<'a> {
    artifact_location: Artifact<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    region: Option<RegionOut>,
}

#[derive(Serialize)]
struct Artifact<'a> {
    uri: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RegionOut {
    start_line: usize,
    start_column: usize,
    end_line: usize,
    end_column: usize,
}

impl Writer {
    /// The opening of the document, up to the first result.
    pub fn begin(&self, buf: &mut Vec<u8>) {
        let head = json!({"$schema": SCHEMA_URI, "version": "2.1.0"}).to_string();
        // `{"$schema":…,"version":"2.1.0"` then the run.
        buf.extend_from_slice(head.trim_end_matches('}').as_bytes());
        buf.extend_from_slice(b",\"runs\":[{\"columnKind\":\"unicodeCodePoints\",\"results\":[");
    }

    /// One result.
    pub fn result(&mut self, buf: &mut Vec<u8>, f: &Finding) {
        let rule_index = match self.index.get(&f.rule.id) {
            Some(i) => *i,
            None => {
                let i = self.rules.len();
                self.index.insert(f.rule.id.clone(), i);
                self.rules.push(f.rule.clone());
                i
            }
        };
        let out = ResultOut {
            rule_id: &f.rule.id,
            rule_index,
            level: f.level.name(),
            message: Text { text: &f.message },
            locations: if f.uri.is_empty() {
                Vec::new()
            } else {
                vec![Location {
                    physical_location: Physical {
                        artifact_location: Artifact { uri: &f.uri },
                        region: f.region.map(|r| RegionOut {
                            start_line: r.start_line,
                            start_column: r.start_column,
                            end_line: r.end_line,
                            end_column: r.end_column,
                        }),
                    },
                }]
            },
            partial_fingerprints: (FINGERPRINT_KEY, f.fingerprint()),
        };
        buf.extend_from_slice(if self.results == 0 { b"\n" } else { b",\n" });
        if serde_json::to_writer(&mut *buf, &out).is_ok() {
            self.results += 1;
        }
    }

    /// The rest of the document: the invocation, the tool and its rules.
    pub fn end(&self, buf: &mut Vec<u8>, execution_successful: bool) {
        let rules: Vec<Value> = self
            .rules
            .iter()
            .map(|r| {
                json!({
                    "id": r.id,
                    "shortDescription": {"text": r.description},
                    "defaultConfiguration": {"level": r.level.name()},
                })
            })
            .collect();
        let tail = json!({
            "invocations": [{"executionSuccessful": execution_successful}],
            "tool": {"driver": {
                "name": "schemalect",
                "version": env!("CARGO_PKG_VERSION"),
                "semanticVersion": env!("CARGO_PKG_VERSION"),
                "informationUri": env!("CARGO_PKG_HOMEPAGE"),
                "rules": rules,
            }},
        })
        .to_string();
        buf.extend_from_slice(b"\n],");
        // The members of `tail`, without its braces, close the run.
        buf.extend_from_slice(tail.trim_start_matches('{').as_bytes());
        buf.extend_from_slice(b"]}\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::locate::Region;

    #[test]
    fn uris_are_relative_and_encoded() {
        assert_eq!(uri(Path::new("./schemas/a b.json")), "schemas/a%20b.json");
        assert_eq!(uri(Path::new("x/ü.json")), "x/%C3%BC.json");
        let cwd = std::env::current_dir().unwrap();
        assert_eq!(uri(&cwd.join("s").join("a.json")), "s/a.json");
    }

    #[test]
    fn rules_are_listed_once_and_indexed() {
        let f = |rule: Rule, region: Option<Region>| Finding {
            level: rule.level,
            rule,
            message: "m".into(),
            uri: "a.json".into(),
            pointer: "/p".into(),
            region,
        };
        let region = Region {
            start_line: 2,
            start_column: 3,
            end_line: 2,
            end_column: 9,
        };
        let mut w = Writer::default();
        let mut buf = Vec::new();
        w.begin(&mut buf);
        for x in [
            f(loss_rule("pattern"), Some(region)),
            f(input_rule(), None),
            f(loss_rule("pattern"), None),
        ] {
            w.result(&mut buf, &x);
        }
        w.end(&mut buf, false);
        let doc: Value = serde_json::from_slice(&buf).unwrap();
        assert_eq!(doc["version"], "2.1.0");
        let run = &doc["runs"][0];
        let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
        assert_eq!(rules.len(), 2);
        assert_eq!(rules[0]["id"], "loss/pattern");
        assert_eq!(run["results"][1]["ruleIndex"], 1);
        assert_eq!(run["results"][2]["ruleIndex"], 0);
        assert_eq!(run["results"][0]["level"], "note");
        assert_eq!(
            run["results"][0]["locations"][0]["physicalLocation"]["region"],
            json!({"startLine": 2, "startColumn": 3, "endLine": 2, "endColumn": 9})
        );
        assert!(run["results"][1]["locations"][0]["physicalLocation"]
            .get("region")
            .is_none());
        assert_eq!(run["invocations"][0]["executionSuccessful"], false);
        assert_eq!(
            run["results"][0]["partialFingerprints"][FINGERPRINT_KEY],
            crate::findings::fingerprint("loss/pattern", "a.json", "/p")
        );
    }

    #[test]
    fn an_empty_run_is_a_document_too() {
        let w = Writer::default();
        let mut buf = Vec::new();
        w.begin(&mut buf);
        w.end(&mut buf, true);
        let doc: Value = serde_json::from_slice(&buf).unwrap();
        assert_eq!(doc["runs"][0]["results"], json!([]));
        assert_eq!(doc["runs"][0]["tool"]["driver"]["rules"], json!([]));
    }
}
