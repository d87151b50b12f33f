//! Human-readable output: violation and target lines, and the closing summary tables.

use crate::commands::{Analysis, Status};
use crate::input::Place;
use crate::locate::{Locator, Region};
use schemalect::{
    Assessment, Mode, Profile, Subset, SubsetError, Target, Violation, ViolationKind,
};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The width of the target column: the longest name among the targets of the run, so the
/// columns line up whatever routes are selected (or added).
pub fn target_width(targets: &[Target]) -> usize {
    targets.iter().map(|t| t.name().len()).max().unwrap_or(0)
}

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

/// Every warning of a schema in the subset (the `full` subset's unknown keywords), one line
/// each, as violations are but marked `warning:`.
pub fn warnings(buf: &mut String, locator: &Locator<'_>, place: Place, warnings: &[Violation]) {
    let prefix = place.tokens();
    for v in warnings {
        buf.push_str("  ");
        if let Some(r) = locator.region(&prefix, v.pointer.as_str(), &v.keyword) {
            let _ = write!(buf, "{}:{}  ", r.start_line, r.start_column);
        }
        let _ = writeln!(buf, "{}: `{}` — warning: {}", v.pointer, v.keyword, v.kind);
    }
}

/// Every violation of `err`, one line each, located in the file (the schema being at `place`).
pub fn violations(buf: &mut String, locator: &Locator<'_>, place: Place, err: &SubsetError) {
    let prefix = place.tokens();
    for v in &err.violations {
        violation(
            buf,
            locator.region(&prefix, v.pointer.as_str(), &v.keyword),
            v,
        );
    }
}

/// `  gemini        widened  /properties/iban: `pattern` …`, one more indented line per loss.
/// `denied` marks a mode that `--deny` rejects; with `deny_on`, the loss column leaves room for
/// that mark on every line.
/// `hint`: the profile that would send natively what this fallback does not
/// ([`Assessment::stronger_profile`]), printed as one more line in the loss column.
pub fn target(
    buf: &mut String,
    l: &Assessment,
    width: usize,
    (denied, deny_on): (bool, bool),
    hint: Option<(Profile, Mode)>,
) {
    let mode_width = if deny_on {
        "widened (denied)".len()
    } else {
        "widened".len()
    };
    let mode = if denied {
        format!("{} (denied)", l.mode())
    } else {
        l.mode().to_string()
    };
    let head = format!("  {:<width$} {mode:<mode_width$}", l.target().name());
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
            if let Some((profile, mode)) = hint {
                let _ = writeln!(
                    buf,
                    "{indent}hint: `--profile {}` would send this natively ({mode})",
                    profile.name()
                );
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
    /// Warnings of the schemas inside the subset (the `full` subset's unknown keywords).
    pub warnings: usize,
    /// The subset schemas were parsed under (set by the first schema counted).
    pub subset: Option<Subset>,
    /// Schemas outside the ADR-126 subset that the extended subset accepts.
    pub extended_only: usize,
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
    pub fn schema<L: AsRef<Assessment>>(&mut self, a: &Analysis<L>) {
        self.schemas += 1;
        self.subset.get_or_insert(a.subset);
        self.extended_only += usize::from(a.extended_only);
        match &a.parsed {
            Ok(s) => {
                self.in_subset += 1;
                self.warnings += s.warnings().len();
                for (row, l) in self.modes.iter_mut().zip(&a.lowerings) {
                    if let Some(i) = Mode::ALL.iter().position(|m| *m == l.as_ref().mode()) {
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
        self.warnings += other.warnings;
        self.subset = self.subset.or(other.subset);
        self.extended_only += other.extended_only;
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

    /// The closing summary: counts, the tests line (`suite`), the mode and keyword tables.
    pub fn write(&self, buf: &mut String, targets: &[Target], tests: bool) {
        self.head(buf);
        if tests {
            let _ = writeln!(
                buf,
                "tests: {} passed, {} failed, {} not run",
                self.passed, self.failed, self.not_run
            );
        }
        self.mode_table(buf, targets);
        self.keyword_table(buf);
        buf.push('\n');
    }

    /// Why the run has findings or errors: unreadable files, schemas out of the subset (when
    /// `subset_findings`), `--deny` hits, failed tests.
    pub fn reasons(&self, subset_findings: bool, deny: Option<Mode>) -> Vec<String> {
        let mut r = Vec::new();
        if self.file_errors > 0 {
            r.push(format!(
                "{} could not be read",
                count(self.file_errors, "file", "files")
            ));
        }
        let out = self.schemas - self.in_subset;
        if subset_findings && out > 0 {
            r.push(format!("{} out of subset", count(out, "schema", "schemas")));
        }
        if let (Some(m), true) = (deny, self.denied > 0) {
            r.push(format!(
                "{} at or below --deny {m}",
                count(self.denied, "lowering", "lowerings")
            ));
        }
        if self.failed > 0 {
            r.push(format!("{} failed", count(self.failed, "test", "tests")));
        }
        r
    }

    /// The first summary line: files, schemas, in and out of the subset, file errors.
    fn head(&self, buf: &mut String) {
        let _ = write!(
            buf,
            "\nsummary: {}, {}: {} in subset ({}), {} out of subset",
            count(self.files, "file", "files"),
            count(self.schemas, "schema", "schemas"),
            self.in_subset,
            self.subset.unwrap_or_default().name(),
            self.schemas - self.in_subset,
        );
        if self.extended_only > 0 {
            let _ = write!(
                buf,
                " ({} of them in the extended subset: --subset extended)",
                self.extended_only
            );
        }
        if self.warnings > 0 {
            let _ = write!(
                buf,
                "; {} (unknown keywords, kept as annotations)",
                count(self.warnings, "warning", "warnings")
            );
        }
        if self.file_errors > 0 {
            let _ = write!(
                buf,
                "; {} could not be read",
                count(self.file_errors, "file", "files")
            );
        }
        buf.push('\n');
    }

    /// Schemas per mode per target.
    fn mode_table(&self, buf: &mut String, targets: &[Target]) {
        if targets.is_empty() || self.in_subset == 0 {
            return;
        }
        let width = target_width(targets).max("target".len());
        let _ = write!(buf, "\n{:<width$}", "target");
        for m in Mode::ALL {
            let _ = write!(buf, " {:>8}", m.name());
        }
        buf.push('\n');
        for (t, row) in targets.iter().zip(&self.modes) {
            let _ = write!(buf, "{:<width$}", t.name());
            for n in row {
                let _ = write!(buf, " {n:>8}");
            }
            buf.push('\n');
        }
    }

    /// Out-of-subset schemas per keyword, most frequent first.
    fn keyword_table(&self, buf: &mut String) {
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
        (ViolationKind::Unknown | ViolationKind::UnknownKeyword { .. }, _) => {
            format!("{} (unknown)", v.keyword)
        }
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

/// `1 loss`, `3 losses`.
pub fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}
