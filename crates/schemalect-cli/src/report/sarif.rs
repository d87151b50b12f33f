//! SARIF 2.1.0, for code scanning: one run, a rule per kind of finding, one result per finding
//! with the file (relative URI), line and column of the offending keyword.
//!
//! Levels: out-of-subset violations, `--deny` hits and unreadable files are `error`; losses are
//! `note` (the provider will not enforce a constraint, local validation still does).

use crate::locate::Region;
use schemalect::{Mode, Violation, ViolationKind};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::path::{Component, Path};

/// The schema of SARIF 2.1.0 documents.
pub const SCHEMA_URI: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

/// A result level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// Fails the run.
    Error,
    /// Informational.
    Note,
}

impl Level {
    fn name(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Note => "note",
        }
    }
}

/// A rule: an id and what it means.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    /// e.g. `subset/outside/$ref`, `loss/pattern`, `deny/prompt`, `input/unreadable`.
    pub id: String,
    /// One sentence.
    pub description: String,
    /// The level of its results.
    pub level: Level,
}

/// One result.
#[derive(Clone, Debug)]
pub struct Finding {
    /// Its rule.
    pub rule: Rule,
    /// The message.
    pub message: String,
    /// The file, as a URI reference relative to the working directory.
    pub uri: String,
    /// Where in the file, when known.
    pub region: Option<Region>,
}

/// The rule of a subset violation: one per kind, and one per keyword the subset leaves out.
pub fn violation_rule(v: &Violation) -> Rule {
    let (id, description) = match &v.kind {
        ViolationKind::Outside(_) => (
            format!("subset/outside/{}", v.keyword),
            format!("`{}` is outside the ADR-126 subset", v.keyword),
        ),
        ViolationKind::Unknown => (
            "subset/unknown-keyword".to_owned(),
            "Unknown keyword: the subset accepts no other keywords (fail-closed)".to_owned(),
        ),
        ViolationKind::Shape { .. } => (
            "subset/shape".to_owned(),
            "A subset keyword whose value has the wrong shape".to_owned(),
        ),
        ViolationKind::BooleanSchema(_) => (
            "subset/boolean-schema".to_owned(),
            "A boolean schema, which the subset does not accept".to_owned(),
        ),
        ViolationKind::NotASchema(_) => (
            "subset/not-a-schema".to_owned(),
            "A schema that is not a JSON object".to_owned(),
        ),
        ViolationKind::AssertsNothing => (
            "subset/asserts-nothing".to_owned(),
            "A schema that asserts nothing (empty or annotations only)".to_owned(),
        ),
        ViolationKind::Pattern(_) => (
            "subset/pattern".to_owned(),
            "A `pattern` the linear-time engine cannot run, or that does not parse".to_owned(),
        ),
        ViolationKind::Limit { .. } => (
            "subset/limit".to_owned(),
            "A parse limit (depth, nodes, enum values, pattern length) was exceeded".to_owned(),
        ),
        _ => (
            "subset/other".to_owned(),
            "Outside the ADR-126 subset".to_owned(),
        ),
    };
    Rule {
        id,
        description,
        level: Level::Error,
    }
}

/// The rule of a loss: one per keyword (`loss/schema` for a whole-schema degradation).
pub fn loss_rule(keyword: &str) -> Rule {
    if keyword.is_empty() {
        Rule {
            id: "loss/schema".to_owned(),
            description: "A provider does not enforce the schema natively".to_owned(),
            level: Level::Note,
        }
    } else {
        Rule {
            id: format!("loss/{keyword}"),
            description: format!("A provider does not enforce `{keyword}`"),
            level: Level::Note,
        }
    }
}

/// The rule of a `--deny` hit.
pub fn deny_rule(mode: Mode) -> Rule {
    Rule {
        id: format!("deny/{mode}"),
        description: format!("A target reaches only `{mode}` mode, which `--deny` rejects"),
        level: Level::Error,
    }
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

/// The SARIF document for `findings` (in order), with rules sorted by id.
pub fn document(findings: &[Finding], execution_successful: bool) -> Value {
    let mut rules: BTreeMap<&str, &Rule> = BTreeMap::new();
    for f in findings {
        rules.entry(&f.rule.id).or_insert(&f.rule);
    }
    let index: BTreeMap<&str, usize> = rules.keys().enumerate().map(|(i, k)| (*k, i)).collect();
    let rules_json: Vec<Value> = rules
        .values()
        .map(|r| {
            json!({
                "id": r.id,
                "shortDescription": {"text": r.description},
                "defaultConfiguration": {"level": r.level.name()},
            })
        })
        .collect();
    let results: Vec<Value> = findings
        .iter()
        .map(|f| {
            let mut physical = Map::new();
            physical.insert("artifactLocation".into(), json!({"uri": f.uri}));
            if let Some(r) = f.region {
                physical.insert(
                    "region".into(),
                    json!({
                        "startLine": r.start_line,
                        "startColumn": r.start_column,
                        "endLine": r.end_line,
                        "endColumn": r.end_column,
                    }),
                );
            }
            json!({
                "ruleId": f.rule.id,
                "ruleIndex": index.get(f.rule.id.as_str()).copied().unwrap_or(0),
                "level": f.rule.level.name(),
                "message": {"text": f.message},
                "locations": [{"physicalLocation": physical}],
            })
        })
        .collect();
    json!({
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "schemalect",
                "version": env!("CARGO_PKG_VERSION"),
                "semanticVersion": env!("CARGO_PKG_VERSION"),
                "informationUri": env!("CARGO_PKG_HOMEPAGE"),
                "rules": rules_json,
            }},
            "columnKind": "unicodeCodePoints",
            "invocations": [{"executionSuccessful": execution_successful}],
            "results": results,
        }],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_are_relative_and_encoded() {
        assert_eq!(uri(Path::new("./schemas/a b.json")), "schemas/a%20b.json");
        assert_eq!(uri(Path::new("x/ü.json")), "x/%C3%BC.json");
        let cwd = std::env::current_dir().unwrap();
        assert_eq!(uri(&cwd.join("s").join("a.json")), "s/a.json");
    }

    #[test]
    fn rules_are_listed_once_and_indexed() {
        let f = |rule: Rule| Finding {
            rule,
            message: "m".into(),
            uri: "a.json".into(),
            region: None,
        };
        let doc = document(
            &[
                f(loss_rule("pattern")),
                f(input_rule()),
                f(loss_rule("pattern")),
            ],
            false,
        );
        let run = &doc["runs"][0];
        assert_eq!(run["tool"]["driver"]["rules"].as_array().unwrap().len(), 2);
        assert_eq!(run["results"][0]["ruleIndex"], 1);
        assert_eq!(run["results"][1]["ruleIndex"], 0);
        assert_eq!(run["results"][0]["level"], "note");
        assert_eq!(run["invocations"][0]["executionSuccessful"], false);
    }
}
