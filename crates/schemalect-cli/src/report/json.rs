//! The JSON-lines contract (`docs/cli.md` documents every field). One object per line; fields
//! in the order declared here. Changing a name or a meaning here breaks other tools.

use crate::commands::FileError;
use crate::input::Place;
use crate::locate::Locator;
use crate::report::compact;
use schemalect::{Assessment, SubsetError};
use serde::Serialize;
use serde_json::Value;

/// A subset violation: `{pointer, keyword, reason, line, column}`.
#[derive(Debug, Serialize)]
pub struct Violation<'a> {
    /// The schema node (JSON Pointer into the schema; `""` is its root).
    pub pointer: &'a str,
    /// The keyword (`""` when the node itself is the problem at the root).
    pub keyword: &'a str,
    /// Why, and what to do.
    pub reason: String,
    /// 1-based line of the keyword in the file (of the node when it is the problem); `null`
    /// when it cannot be located.
    pub line: Option<usize>,
    /// 1-based column (Unicode code points) of the same place.
    pub column: Option<usize>,
}

impl Violation<'_> {
    /// Appends the violation as its `Serialize` derive writes it, for
    /// [`LowerLine::write_line`].
    fn write(&self, out: &mut Vec<u8>) {
        write_place(out, self.pointer, self.keyword, &self.reason);
        out.extend_from_slice(b",\"line\":");
        compact::write_number(out, &self.line);
        out.extend_from_slice(b",\"column\":");
        compact::write_number(out, &self.column);
        out.push(b'}');
    }
}

/// Appends the opening of a violation or a loss, the three fields they start with, and leaves
/// the object open.
fn write_place(out: &mut Vec<u8>, pointer: &str, keyword: &str, reason: &str) {
    out.extend_from_slice(b"{\"pointer\":");
    compact::write_str(out, pointer);
    out.extend_from_slice(b",\"keyword\":");
    compact::write_str(out, keyword);
    out.extend_from_slice(b",\"reason\":");
    compact::write_str(out, reason);
}

/// Appends `items` as a JSON list, each written by `write`.
fn write_list<T>(out: &mut Vec<u8>, items: &[T], write: impl Fn(&T, &mut Vec<u8>)) {
    out.push(b'[');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write(item, out);
    }
    out.push(b']');
}

/// Every violation of a parse result (none when in the subset), located in the file whose
/// text `locator` reads, the schema being at `place`.
pub fn violations<'a, T>(
    parsed: &'a Result<T, SubsetError>,
    locator: &Locator<'_>,
    place: Place,
) -> Vec<Violation<'a>> {
    match parsed {
        Ok(_) => Vec::new(),
        Err(e) => located(&e.violations, locator, place),
    }
}

/// The warnings of a schema inside the subset (the `full` subset's unknown keywords, which
/// are annotations), located as [`violations`] are; none when out of the subset.
pub fn warnings<'a>(
    parsed: &'a Result<schemalect::Schema, SubsetError>,
    locator: &Locator<'_>,
    place: Place,
) -> Vec<Violation<'a>> {
    match parsed {
        Ok(schema) => located(schema.warnings(), locator, place),
        Err(_) => Vec::new(),
    }
}

/// `list`, each with its line and column in the file.
fn located<'a>(
    list: &'a [schemalect::Violation],
    locator: &Locator<'_>,
    place: Place,
) -> Vec<Violation<'a>> {
    let prefix = place.tokens();
    list.iter()
        .map(|v| {
            let region = locator.region(&prefix, v.pointer.as_str(), &v.keyword);
            Violation {
                pointer: v.pointer.as_str(),
                keyword: &v.keyword,
                reason: v.reason(),
                line: region.map(|r| r.start_line),
                column: region.map(|r| r.start_column),
            }
        })
        .collect()
}

/// A loss: `{pointer, keyword, reason}`.
#[derive(Debug, Serialize)]
pub struct Loss<'a> {
    /// The schema node.
    pub pointer: &'a str,
    /// The keyword dropped or relaxed (`""` for a whole node or the whole schema).
    pub keyword: &'a str,
    /// What happened and why.
    pub reason: &'a str,
}

impl Loss<'_> {
    /// Appends the loss as its `Serialize` derive writes it, for [`LowerLine::write_line`].
    fn write(&self, out: &mut Vec<u8>) {
        write_place(out, self.pointer, self.keyword, self.reason);
        out.push(b'}');
    }
}

/// The losses of a lowering.
pub fn losses(l: &Assessment) -> Vec<Loss<'_>> {
    l.losses()
        .iter()
        .map(|x| Loss {
            pointer: x.pointer.as_str(),
            keyword: &x.keyword,
            reason: &x.reason,
        })
        .collect()
}

/// `lint --format json`: one line per schema.
#[derive(Debug, Serialize)]
pub struct LintLine<'a> {
    /// The file.
    pub file: &'a str,
    /// 0-based group index (0 for plain and benchmark-style files).
    pub group: usize,
    /// Whether the schema is inside the subset.
    pub in_subset: bool,
    /// Every violation (empty when in the subset).
    pub errors: Vec<Violation<'a>>,
    /// Every warning of a schema in the subset: the `full` subset's unknown keywords, which
    /// assert nothing (with `--deny-unknown` they are `errors` instead).
    pub warnings: Vec<Violation<'a>>,
    /// One per selected target (empty when out of the subset).
    pub targets: Vec<LintTarget<'a>>,
}

/// A target of a `lint` line.
#[derive(Debug, Serialize)]
pub struct LintTarget<'a> {
    /// The target name.
    pub target: &'static str,
    /// `exact`, `widened`, `json` or `prompt`.
    pub mode: &'static str,
    /// Every loss.
    pub losses: Vec<Loss<'a>>,
}

/// `lower --format json`: one line per schema and target.
#[derive(Debug, Serialize)]
pub struct LowerLine<'a> {
    /// The file.
    pub file: &'a str,
    /// 0-based group index.
    pub group: usize,
    /// The target name.
    pub target: &'static str,
    /// Whether the schema is inside the subset.
    pub in_subset: bool,
    /// Every violation (empty when in the subset).
    pub errors: &'a [Violation<'a>],
    /// The mode reached; `null` when out of the subset.
    pub mode: Option<&'static str>,
    /// The request fragment; `null` when out of the subset.
    pub wire: Option<&'a Value>,
    /// Every loss.
    pub losses: Vec<Loss<'a>>,
}

impl LowerLine<'_> {
    /// Appends the line and its newline, exactly as [`push_line`] does, through the
    /// [`compact`] writer: `lower` writes a line per schema and target, megabytes of them,
    /// and serde_json's escaping one byte at a time and its dispatch for every node of the
    /// wire cost more than the line is worth. The `Serialize` derive stays the contract (and
    /// the tests' oracle); this writes the same fields in the same order.
    pub fn write_line(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(b"{\"file\":");
        compact::write_str(out, self.file);
        out.extend_from_slice(b",\"group\":");
        compact::write_number(out, &self.group);
        out.extend_from_slice(b",\"target\":");
        compact::write_str(out, self.target);
        out.extend_from_slice(if self.in_subset {
            b",\"in_subset\":true,\"errors\":"
        } else {
            b",\"in_subset\":false,\"errors\":"
        });
        write_list(out, self.errors, Violation::write);
        out.extend_from_slice(b",\"mode\":");
        match self.mode {
            Some(mode) => compact::write_str(out, mode),
            None => out.extend_from_slice(b"null"),
        }
        out.extend_from_slice(b",\"wire\":");
        match self.wire {
            Some(wire) => compact::write_value(out, wire),
            None => out.extend_from_slice(b"null"),
        }
        out.extend_from_slice(b",\"losses\":");
        write_list(out, &self.losses, Loss::write);
        out.extend_from_slice(b"}\n");
    }
}

/// `suite --format json`: one line per group.
#[derive(Debug, Serialize)]
pub struct SuiteLine<'a> {
    /// The file.
    pub file: &'a str,
    /// 0-based group index.
    pub group: usize,
    /// Whether the schema is inside the subset.
    pub in_subset: bool,
    /// Every violation (empty when in the subset).
    pub errors: Vec<Violation<'a>>,
    /// One per test, in file order.
    pub tests: Vec<TestVerdict>,
    /// One per selected target (empty when out of the subset).
    pub targets: Vec<SuiteTarget<'a>>,
}

/// A test of a `suite` line.
#[derive(Debug, Serialize)]
pub struct TestVerdict {
    /// 0-based index in the group's `tests`.
    pub index: usize,
    /// The label (`valid`); `null` when the test has none.
    pub expected: Option<bool>,
    /// Our verdict; `null` when out of the subset or the test has no `data`.
    pub actual: Option<bool>,
}

/// A target of a `suite` line.
#[derive(Debug, Serialize)]
pub struct SuiteTarget<'a> {
    /// The target name.
    pub target: &'static str,
    /// The mode reached.
    pub mode: &'static str,
    /// The request fragment.
    pub wire: &'a Value,
    /// Every loss.
    pub losses: Vec<Loss<'a>>,
    /// With a reshaping profile: each test's value as sent to the provider, aligned with
    /// `tests` (`null` where not applicable). Absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub encoded: Option<Vec<Option<Value>>>,
    /// With a reshaping profile: each encoded value lifted back, aligned with `tests`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lifted: Option<Vec<Option<Value>>>,
}

/// A file that could not be used: `{file, error, line, column}`.
#[derive(Debug, Serialize)]
pub struct ErrorLine<'a> {
    /// The file.
    pub file: &'a str,
    /// What went wrong.
    pub error: &'a str,
    /// 1-based line, when known.
    pub line: Option<usize>,
    /// 1-based column (characters), when known.
    pub column: Option<usize>,
}

impl<'a> ErrorLine<'a> {
    /// The line for a file error.
    pub fn of(e: &'a FileError) -> Self {
        ErrorLine {
            file: &e.file,
            error: &e.what,
            line: e.position.map(|p| p.0),
            column: e.position.map(|p| p.1),
        }
    }
}

/// Appends `value` as one line of JSON.
pub fn push_line(buf: &mut Vec<u8>, value: &impl Serialize) {
    let start = buf.len();
    match serde_json::to_writer(&mut *buf, value) {
        Ok(()) => buf.push(b'\n'),
        // Our types always serialise; never leave half a line behind if one did not.
        Err(_) => buf.truncate(start),
    }
}

/// `check --format json`: one line per instance.
#[derive(Debug, Serialize)]
pub struct CheckLine<'a> {
    /// The instance file.
    pub file: &'a str,
    /// Whether the instance is valid; `null` when the schema is out of the subset.
    pub valid: Option<bool>,
    /// Every error (empty when valid).
    pub errors: Vec<CheckError<'a>>,
}

/// An error of a `check` line.
#[derive(Debug, Serialize)]
pub struct CheckError<'a> {
    /// The failing part of the instance (JSON Pointer).
    pub instance_pointer: &'a str,
    /// The failing keyword in the schema (JSON Pointer to the keyword).
    pub schema_pointer: &'a str,
    /// The keyword.
    pub keyword: &'a str,
    /// What is wrong.
    pub message: &'a str,
    /// 1-based line of the failing value in the instance file, when located.
    pub line: Option<usize>,
    /// 1-based column (Unicode code points) of the same place.
    pub column: Option<usize>,
}

/// `check --format json` when the schema cannot be used: `{schema, in_subset, errors}`.
#[derive(Debug, Serialize)]
pub struct CheckSchemaLine<'a> {
    /// The schema file.
    pub schema: &'a str,
    /// Whether it is inside the subset.
    pub in_subset: bool,
    /// Every violation.
    pub errors: Vec<Violation<'a>>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn both(line: &LowerLine<'_>) {
        let mut oracle = Vec::new();
        push_line(&mut oracle, line);
        let mut ours = Vec::new();
        line.write_line(&mut ours);
        assert_eq!(
            String::from_utf8_lossy(&ours),
            String::from_utf8_lossy(&oracle)
        );
        assert_eq!(ours, oracle);
    }

    #[test]
    fn lower_line_as_push_line() {
        let wire = json!({
            "type": "json_schema",
            "json_schema": {"name": "a\"b", "strict": true, "schema": {
                "type": "object",
                "properties": {"x\ty": {"type": ["string", "null"], "maxLength": 3}},
                "required": [],
                "additionalProperties": false
            }}
        });
        let errors = [
            Violation {
                pointer: "/properties/a~1b",
                keyword: "pattern",
                reason: "a \"quoted\" reason\nover two lines \u{1}".to_owned(),
                line: Some(12),
                column: None,
            },
            Violation {
                pointer: "",
                keyword: "",
                reason: "é€😀".to_owned(),
                line: None,
                column: Some(usize::MAX),
            },
        ];
        let losses = || {
            vec![
                Loss {
                    pointer: "/properties/x\\y",
                    keyword: "maxLength",
                    reason: "dropped: \t",
                },
                Loss {
                    pointer: "",
                    keyword: "",
                    reason: "",
                },
            ]
        };
        for in_subset in [true, false] {
            both(&LowerLine {
                file: "dir/a \"b\".json",
                group: 7,
                target: "openai",
                in_subset,
                errors: &errors,
                mode: Some("widened"),
                wire: Some(&wire),
                losses: losses(),
            });
        }
        both(&LowerLine {
            file: "x.json",
            group: 0,
            target: "gemini",
            in_subset: false,
            errors: &errors[..1],
            mode: None,
            wire: None,
            losses: Vec::new(),
        });
        both(&LowerLine {
            file: "",
            group: 123_456,
            target: "anthropic",
            in_subset: true,
            errors: &[],
            mode: Some("exact"),
            wire: Some(&json!({})),
            losses: losses(),
        });
    }
}
