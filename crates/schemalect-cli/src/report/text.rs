//! Human-readable output: violation and target lines, and the closing summary tables.

use crate::commands::{Analysis, Status};
use crate::locate::Region;
use schemalect::{Lowering, Mode, Target, Violation, ViolationKind};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The widest target name (`claude-native`).
const TARGET_WIDTH: usize = 13;

/// How many out-of-subset keywords the summary lists before summing up the rest.
const KEYWORDS_SHOWN: usize = 25;

/// `  12:7  /properties/a: `$ref` — reason`
pub fn violation(buf: &mut String, region: Option<Region>, v: &Violation) {
    buf.push_str("  ");
    if let Some(r) = region {
        let _ = write!(buf, "{}:{}  ", r.start_line, r.start_column);
    }
    if v.keyword.is_empty() {
        let _ = writeln!(buf, "{}: {}", v.pointer, v.kind);
    } else {
        let _ = writeln!(buf, "{}: `{}` — {}", v.pointer, v.keyword, v.kind);
    }
}

/// `  gemini        widened  /properties/iban: `pattern` …`, one more indented line per loss.
/// `denied` marks a mode that `--deny` rejects; `mode_width` aligns the loss column.
pub fn target(buf: &mut String, l: &Lowering, denied: bool, mode_width: usize) {
    let mode = if denied {
        format!("{} (denied)", l.mode())
    } else {
        l.mode().to_string()
    };
    let head = format!("  {:<TARGET_WIDTH$} {mode:<mode_width$}", l.target().name());
    let mut losses = l.losses().iter();
    match losses.next() {
        None => {
            buf.push_str(head.trim_end());
            buf.push('\n');
        }
        Some(first) => {
            let _ = writeln!(buf, "{head}  {first}");
            let indent = " ".repeat(head.chars().count() + 2);
            for loss in losses {
                let _ = writeln!(buf, "{indent}{loss}");
            }
        }
    }
}

/// Counts over a run, merged file by file.
#[derive(Debug, Default)]
pub struct Summary {
    /// Files processed (including those with errors).
    pub files: usize,
    /// Files that could not be used.
    pub file_errors: usize,
    /// Schemas (groups) seen.
    pub schemas: usize,
    /// Schemas inside the subset.
    pub in_subset: usize,
    /// Per selected target, schemas per mode (in `Mode::ALL` order).
    pub modes: Vec<[usize; 4]>,
    /// Out-of-subset schemas per keyword involved (see `keyword_key`).
    pub keywords: BTreeMap<String, usize>,
    /// Lowerings rejected by `--deny`.
    pub denied: usize,
    /// Tests whose verdict matches the label (suite).
    pub passed: usize,
    /// Tests whose verdict differs from the label (suite).
    pub failed: usize,
    /// Tests not run: out of the subset, or without `data` or a boolean `valid` (suite).
    pub not_run: usize,
}

impl Summary {
    /// An empty summary for `targets` targets.
    pub fn new(targets: usize) -> Self {
        Summary {
            modes: vec![[0; 4]; targets],
            ..Summary::default()
        }
    }

    /// Counts one schema.
    pub fn schema(&mut self, a: &Analysis) {
        self.schemas += 1;
        match &a.parsed {
            Ok(_) => {
                self.in_subset += 1;
                for (row, l) in self.modes.iter_mut().zip(&a.lowerings) {
                    if let Some(i) = Mode::ALL.iter().position(|m| *m == l.mode()) {
                        if let Some(cell) = row.get_mut(i) {
                            *cell += 1;
                        }
                    }
                }
            }
            Err(e) => {
                let mut keys: Vec<String> = e.violations.iter().map(keyword_key).collect();
                keys.sort_unstable();
                keys.dedup();
                for k in keys {
                    *self.keywords.entry(k).or_default() += 1;
                }
            }
        }
    }

    /// Adds another summary (same targets).
    pub fn merge(&mut self, other: Summary) {
        self.files += other.files;
        self.file_errors += other.file_errors;
        self.schemas += other.schemas;
        self.in_subset += other.in_subset;
        for (row, o) in self.modes.iter_mut().zip(other.modes) {
            for (c, n) in row.iter_mut().zip(o) {
                *c += n;
            }
        }
        for (k, n) in other.keywords {
            *self.keywords.entry(k).or_default() += n;
        }
        self.denied += other.denied;
        self.passed += other.passed;
        self.failed += other.failed;
        self.not_run += other.not_run;
    }

    /// The first summary line: files, schemas, in and out of the subset, file errors.
    pub fn head(&self, buf: &mut String) {
        let _ = write!(
            buf,
            "\nsummary: {} file{}, {} schema{}: {} in subset, {} out of subset",
            self.files,
            plural(self.files),
            self.schemas,
            plural(self.schemas),
            self.in_subset,
            self.schemas - self.in_subset,
        );
        if self.file_errors > 0 {
            let _ = write!(
                buf,
                "; {} file{} could not be read",
                self.file_errors,
                plural(self.file_errors)
            );
        }
        buf.push('\n');
    }

    /// Schemas per mode per target.
    pub fn mode_table(&self, buf: &mut String, targets: &[Target]) {
        if targets.is_empty() || self.in_subset == 0 {
            return;
        }
        let _ = write!(buf, "\n{:<TARGET_WIDTH$}", "target");
        for m in Mode::ALL {
            let _ = write!(buf, " {:>8}", m.name());
        }
        buf.push('\n');
        for (t, row) in targets.iter().zip(&self.modes) {
            let _ = write!(buf, "{:<TARGET_WIDTH$}", t.name());
            for n in row {
                let _ = write!(buf, " {n:>8}");
            }
            buf.push('\n');
        }
    }

    /// Out-of-subset schemas per keyword, most frequent first.
    pub fn keyword_table(&self, buf: &mut String) {
        if self.keywords.is_empty() {
            return;
        }
        let mut rows: Vec<(&String, &usize)> = self.keywords.iter().collect();
        rows.sort_by(|a, b| b.1.cmp(a.1).then_with(|| a.0.cmp(b.0)));
        let width = rows
            .iter()
            .take(KEYWORDS_SHOWN)
            .map(|(k, _)| k.chars().count())
            .max()
            .unwrap_or(0)
            .max(7);
        buf.push_str("\nout of subset, schemas per keyword:\n");
        for (k, n) in rows.iter().take(KEYWORDS_SHOWN) {
            let _ = writeln!(buf, "  {k:<width$} {n:>7}");
        }
        if rows.len() > KEYWORDS_SHOWN {
            let rest = rows.get(KEYWORDS_SHOWN..).unwrap_or_default();
            let schemas: usize = rest.iter().map(|(_, n)| **n).sum();
            let _ = writeln!(
                buf,
                "  … {} more keywords ({schemas} keyword-schema pairs)",
                rest.len()
            );
        }
    }
}

/// How a violation is counted in the keyword table: its keyword (marked when unknown), or
/// what is wrong when the node itself is the problem.
fn keyword_key(v: &Violation) -> String {
    match (&v.kind, v.keyword.is_empty()) {
        (ViolationKind::Unknown, _) => format!("{} (unknown)", v.keyword),
        (ViolationKind::BooleanSchema(_), true) => "(boolean schema)".to_owned(),
        (ViolationKind::NotASchema(_), true) => "(not a schema)".to_owned(),
        (ViolationKind::AssertsNothing, _) => "(asserts nothing)".to_owned(),
        (_, true) => "(schema)".to_owned(),
        (_, false) => v.keyword.clone(),
    }
}

/// The closing line: `exit 1 (…why…)`.
pub fn exit_line(buf: &mut String, status: Status, reasons: &[String]) {
    if reasons.is_empty() {
        let _ = writeln!(buf, "exit {}", status.code());
    } else {
        let _ = writeln!(buf, "exit {}: {}", status.code(), reasons.join("; "));
    }
}

/// `"s"` unless `n` is 1.
pub fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}
