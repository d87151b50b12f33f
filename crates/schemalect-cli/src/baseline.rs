//! Baselines: today's findings recorded by fingerprint (`--write-baseline FILE`), so that a
//! later run (`--baseline FILE`) reports and fails only on new ones and lists those that are
//! gone. The file is JSON, one finding per line, sorted, so it diffs well under review.

use crate::findings::Finding;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashSet};
use std::fmt::Write as _;
use std::path::Path;

/// The format version written and read.
const VERSION: u64 = 1;

/// One recorded finding.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Entry {
    /// The file (URI reference relative to the working directory of the run).
    pub file: String,
    /// The node (JSON Pointer from the document root).
    pub pointer: String,
    /// The rule.
    pub rule: String,
    /// `fingerprint(rule, file, pointer)`, also SARIF's `partialFingerprints`.
    pub fingerprint: String,
}

impl Entry {
    /// The entry of a finding.
    pub fn of(f: &Finding) -> Self {
        Entry {
            file: f.uri.clone(),
            pointer: f.pointer.clone(),
            rule: f.rule.id.clone(),
            fingerprint: f.fingerprint(),
        }
    }

    /// `file pointer rule`, for messages.
    pub fn describe(&self) -> String {
        let pointer = if self.pointer.is_empty() {
            "/"
        } else {
            &self.pointer
        };
        format!("{}: {pointer}: {}", self.file, self.rule)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileFormat {
    version: u64,
    findings: Vec<Entry>,
}

/// A baseline read from a file, and which of its fingerprints this run has seen.
#[derive(Debug, Default)]
pub struct Baseline {
    entries: BTreeMap<String, Entry>,
    seen: HashSet<String>,
}

impl Baseline {
    /// Reads `path`.
    pub fn read(path: &Path) -> Result<Self, String> {
        let shown = path.display();
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("{shown}: cannot read the baseline: {e}"))?;
        let file: FileFormat = serde_json::from_str(&text).map_err(|e| {
            format!("{shown}: not a schemalect baseline ({e}); write one with --write-baseline")
        })?;
        if file.version != VERSION {
            return Err(format!(
                "{shown}: baseline version {} is not {VERSION}; write it again with --write-baseline",
                file.version
            ));
        }
        Ok(Baseline {
            entries: file
                .findings
                .into_iter()
                .map(|e| (e.fingerprint.clone(), e))
                .collect(),
            seen: HashSet::new(),
        })
    }

    /// Whether `f` is in the baseline (and marks it seen).
    pub fn known(&mut self, f: &Finding) -> bool {
        let fp = f.fingerprint();
        if self.entries.contains_key(&fp) {
            self.seen.insert(fp);
            true
        } else {
            false
        }
    }

    /// The baseline's findings this run did not see, in file order.
    pub fn gone(&self) -> Vec<&Entry> {
        let mut v: Vec<&Entry> = self
            .entries
            .iter()
            .filter(|(fp, _)| !self.seen.contains(*fp))
            .map(|(_, e)| e)
            .collect();
        v.sort();
        v
    }
}

/// The text of a baseline of `entries`: sorted, without repeats, one per line.
pub fn render(mut entries: Vec<Entry>) -> String {
    entries.sort();
    entries.dedup();
    let mut out = format!("{{\"version\":{VERSION},\"findings\":[");
    for (i, e) in entries.iter().enumerate() {
        out.push_str(if i == 0 { "\n" } else { ",\n" });
        let _ = write!(out, "{}", serde_json::to_string(e).unwrap_or_default());
    }
    out.push_str("\n]}\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::findings::{Level, Rule};

    fn f(rule: &str, pointer: &str, line: usize) -> Finding {
        Finding {
            rule: Rule {
                id: rule.into(),
                description: String::new(),
                level: Level::Error,
            },
            level: Level::Error,
            message: "m".into(),
            uri: "s/a.json".into(),
            pointer: pointer.into(),
            region: Some(crate::locate::Region {
                start_line: line,
                start_column: 1,
                end_line: line,
                end_column: 2,
            }),
        }
    }

    #[test]
    fn round_trip_ignores_lines_and_lists_what_is_gone() {
        let today = [f("subset/x", "/a", 3), f("loss/p", "/b", 9)];
        let text = render(today.iter().map(Entry::of).collect());
        let dir = std::env::temp_dir().join(format!("schemalect-baseline-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("b.json");
        std::fs::write(&path, &text).unwrap();
        let mut b = Baseline::read(&path).unwrap();
        // Same findings on other lines: known.
        assert!(b.known(&f("subset/x", "/a", 30)));
        // A new pointer: new.
        assert!(!b.known(&f("subset/x", "/c", 3)));
        let gone: Vec<String> = b.gone().iter().map(|e| e.describe()).collect();
        assert_eq!(gone, ["s/a.json: /b: loss/p"]);
        std::fs::write(&path, "{\"version\":2,\"findings\":[]}").unwrap();
        assert!(Baseline::read(&path).unwrap_err().contains("version 2"));
        std::fs::write(&path, "[]").unwrap();
        assert!(Baseline::read(&path)
            .unwrap_err()
            .contains("not a schemalect baseline"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
