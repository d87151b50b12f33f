//! GitLab's code-quality report (`artifacts:reports:codequality`): a JSON array of issues
//! `{description, check_name, fingerprint, severity, location: {path, lines: {begin}}}`, the
//! subset of the Code Climate format GitLab reads
//! (<https://docs.gitlab.com/ci/testing/code_quality/#code-quality-report-format>).

use crate::findings::{Finding, Level};
use serde::Serialize;

#[derive(Serialize)]
struct Issue<'a> {
    description: &'a str,
    check_name: &'a str,
    fingerprint: String,
    severity: &'static str,
    location: Location,
}

#[derive(Serialize)]
struct Location {
    path: String,
    lines: Lines,
}

#[derive(Serialize)]
struct Lines {
    begin: usize,
}

/// GitLab's severities are `info`, `minor`, `major`, `critical`, `blocker`.
fn severity(level: Level) -> &'static str {
    match level {
        Level::Note => "info",
        Level::Warning => "minor",
        Level::Error => "major",
    }
}

/// The report of `findings`, one issue per line.
pub fn write(buf: &mut Vec<u8>, findings: &[Finding]) {
    buf.push(b'[');
    for (i, f) in findings.iter().enumerate() {
        buf.extend_from_slice(if i == 0 { b"\n" } else { b",\n" });
        let issue = Issue {
            description: &f.message,
            check_name: &f.rule.id,
            fingerprint: f.fingerprint(),
            severity: severity(f.level),
            location: Location {
                path: if f.uri.is_empty() {
                    ".".to_owned()
                } else {
                    decode(&f.uri)
                },
                lines: Lines {
                    begin: f.region.map_or(1, |r| r.start_line),
                },
            },
        };
        let _ = serde_json::to_writer(&mut *buf, &issue);
    }
    buf.extend_from_slice(b"\n]\n");
}

/// Undoes the percent-encoding of a SARIF URI reference: GitLab wants the plain path.
fn decode(uri: &str) -> String {
    let bytes = uri.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (b, hex) {
            (b'%', Some(v)) => {
                out.push(v);
                i += 3;
            }
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::findings::Rule;
    use serde_json::{json, Value};

    #[test]
    fn issues_have_gitlab_fields() {
        let f = Finding {
            rule: Rule {
                id: "subset/outside/$ref".into(),
                description: String::new(),
                level: Level::Error,
            },
            level: Level::Error,
            message: "m".into(),
            uri: "s/a%20b.json".into(),
            pointer: "/x".into(),
            region: Some(crate::locate::Region {
                start_line: 4,
                start_column: 2,
                end_line: 4,
                end_column: 8,
            }),
        };
        let mut buf = Vec::new();
        write(&mut buf, std::slice::from_ref(&f));
        let v: Value = serde_json::from_slice(&buf).unwrap();
        assert_eq!(
            v,
            json!([{
                "description": "m",
                "check_name": "subset/outside/$ref",
                "fingerprint": f.fingerprint(),
                "severity": "major",
                "location": {"path": "s/a b.json", "lines": {"begin": 4}},
            }])
        );
        let mut buf = Vec::new();
        write(&mut buf, &[]);
        assert_eq!(serde_json::from_slice::<Value>(&buf).unwrap(), json!([]));
    }
}
