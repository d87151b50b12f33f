//! `schemalect lint PATH...`: per schema, in the subset or every violation; per target, the
//! mode and the losses. Exit 1 when a schema is out of the subset or `--deny` is hit.

use super::{
    load_schemas, read_text, run_ordered, schema_groups, Analysis, FileError, Settings, Status,
};
use crate::args::{targets, DenyArg, LintArgs, LintFormat};
use crate::baseline::{self, Baseline, Entry};
use crate::config;
use crate::findings::{self, CapWatch, FileFindings, Finding, Level};
use crate::glob::Glob;
use crate::input::{self, Group, Item, Place};
use crate::locate::Locator;
use crate::progress::Console;
use crate::report::json::{self, LintLine, LintTarget};
use crate::report::text::{self, count, Summary};
use crate::report::{gitlab, label, sarif, Out};
use schemalect::{Assessment, Mode, ViolationKind};
use std::fmt::Write as _;
use std::path::Path;

/// What one file contributes to the run.
struct FileReport {
    out: Vec<u8>,
    error: Option<FileError>,
    status: Status,
    summary: Summary,
    /// Its findings (when the run needs them: SARIF, GitLab, baselines), one per rule and
    /// pointer.
    findings: Vec<Finding>,
}

struct Job {
    settings: Settings,
    format: LintFormat,
    deny: Option<Mode>,
    input: crate::args::InputArgs,
    /// Whether findings are collected.
    findings: bool,
    /// Findings below this level are left out (and so never located).
    min_level: Level,
}

/// The findings of the run, after `--min-level` and the baseline, in file order.
#[derive(Default)]
struct Collected {
    findings: Vec<Finding>,
    /// Every finding at `--min-level` and above, for `--write-baseline` (when it is given).
    recorded: Vec<Entry>,
    record: bool,
    new_errors: usize,
    new: usize,
    known: usize,
}

impl Job {
    fn of(args: &LintArgs) -> Self {
        Job {
            settings: Settings {
                parse: args.parse.parse_options(),
                lower: args.targets.lower_options(),
                targets: targets(&args.targets.target),
                hints: args.format == LintFormat::Text,
                extended_count: args.format == LintFormat::Text,
            },
            format: args.format,
            deny: args.deny.map(DenyArg::mode),
            findings: matches!(args.format, LintFormat::Sarif | LintFormat::Gitlab)
                || args.baseline.is_some()
                || args.write_baseline.is_some(),
            input: args.input.clone(),
            min_level: args.min_level,
        }
    }
}

/// Runs `lint`. `overrides` are the settings of the configuration file's `[[override]]`
/// tables with their globs (relative to `base`): a file takes the last one that matches it.
pub fn run(args: LintArgs, overrides: Vec<(Vec<Glob>, LintArgs)>, base: &Path) -> Status {
    let job = Job::of(&args);
    let overrides: Vec<(Vec<Glob>, Job)> = overrides
        .iter()
        .map(|(g, a)| (g.clone(), Job::of(a)))
        .collect();
    let pick = |item: &Item| -> &Job {
        if overrides.is_empty() {
            return &job;
        }
        let rel = config::relative(item.path(), base);
        overrides
            .iter()
            .rev()
            .find(|(globs, _)| globs.iter().any(|g| g.matches(&rel)))
            .map_or(&job, |(_, j)| j)
    };
    let mut console = Console::new(0);
    let mut baseline = match &args.baseline {
        Some(p) => match Baseline::read(p) {
            Ok(b) => Some(b),
            Err(e) => {
                console.message(&format!("schemalect lint: {e}"));
                return Status::Error;
            }
        },
        None => None,
    };
    if args.paths.is_empty() {
        console.message(
            "schemalect lint: no PATH given and no `paths` in a configuration file; name the schemas to lint (e.g. `schemalect lint schemas/`) or add `paths = [\"schemas\"]` to schemalect.toml",
        );
        return Status::Error;
    }
    let items = input::discover(&args.paths);
    let items = config::filter(items, &args.paths, &args.include, &args.exclude, base);
    let mut console = Console::new(items.len());
    let mut out = Out::new();
    let mut status = Status::Clean;
    let mut summary = Summary::new(job.settings.targets.len());
    let mut collected = Collected {
        record: args.write_baseline.is_some(),
        ..Collected::default()
    };
    // Without a baseline to read or write, a file's findings need nothing from the others: the
    // workers filter and aggregate them, so that the thread that collects them in order (one
    // for the whole run) only appends.
    let in_workers = args.baseline.is_none() && args.write_baseline.is_none();
    let streams = !matches!(job.format, LintFormat::Sarif | LintFormat::Gitlab);
    // The capped formats locate only the findings the cap may still keep.
    let watch = (!streams).then(|| CapWatch::new(args.max_results));
    run_ordered(
        &items,
        args.input.threads(),
        |item| {
            let mut r = pick(item).file(item, watch.as_ref());
            if in_workers && !r.findings.is_empty() {
                r.findings = Collected::filtered(std::mem::take(&mut r.findings), args.min_level);
            }
            r
        },
        |r| {
            console.step();
            if let Some(e) = &r.error {
                console.message(&e.message());
            }
            status.raise(r.status);
            summary.merge(r.summary);
            let before = collected.findings.len();
            if in_workers {
                collected.findings.extend(r.findings);
            } else {
                collected.add(r.findings, args.min_level, baseline.as_mut());
            }
            if let (Some(w), Some(new)) = (&watch, collected.findings.get(before..)) {
                w.collected(new);
            }
            !streams || out.write(&r.out)
        },
    );
    console.finish();
    if let Some(b) = &baseline {
        // Only the new findings fail the run; unreadable files still do (exit 2).
        status = if status == Status::Error {
            Status::Error
        } else if collected.new_errors > 0 {
            Status::Findings
        } else {
            Status::Clean
        };
        let gone = b.gone();
        let mut report = format!(
            "baseline: {} new, {} known, {} gone",
            collected.new,
            collected.known,
            gone.len()
        );
        for e in &gone {
            let _ = write!(report, "\n  gone: {}", e.describe());
        }
        if job.format == LintFormat::Text {
            for f in &collected.findings {
                let _ = write!(report, "\n  new: {}", describe(f));
            }
            report.push('\n');
            out.write(report.as_bytes());
        } else {
            console.message(&report);
        }
    }
    if let Some(path) = &args.write_baseline {
        let text = baseline::render(std::mem::take(&mut collected.recorded));
        if let Err(e) = std::fs::write(path, text) {
            console.message(&format!(
                "schemalect lint: cannot write the baseline {}: {e}",
                path.display()
            ));
            status.raise(Status::Error);
        }
    }
    match job.format {
        LintFormat::Json => {}
        LintFormat::Text => {
            let mut buf = String::new();
            summary.write(&mut buf, &job.settings.targets, false);
            let mut reasons = summary.reasons(true, job.deny);
            if baseline.is_some() {
                reasons = match collected.new_errors {
                    0 => Vec::new(),
                    n => vec![format!(
                        "{} not in the baseline",
                        count(n, "error", "errors")
                    )],
                };
                if status == Status::Error {
                    reasons.insert(
                        0,
                        format!(
                            "{} could not be read",
                            count(summary.file_errors, "file", "files")
                        ),
                    );
                }
            }
            text::exit_line(&mut buf, status, &reasons);
            out.write(buf.as_bytes());
        }
        LintFormat::Sarif => {
            let results = findings::cap(collected.findings, args.max_results);
            let mut buf = Vec::new();
            let mut sarif = sarif::Writer::default();
            sarif.begin(&mut buf);
            for f in &results {
                sarif.result(&mut buf, f);
            }
            sarif.end(&mut buf, status < Status::Error);
            out.write(&buf);
        }
        LintFormat::Gitlab => {
            let results = findings::cap(collected.findings, args.max_results);
            let mut buf = Vec::new();
            gitlab::write(&mut buf, &results);
            out.write(&buf);
        }
    }
    out.finish(&mut console, &mut status);
    status
}

/// `file:LINE:COL: level rule: message`
fn describe(f: &Finding) -> String {
    let at = match f.region {
        Some(r) => format!("{}:{}:{}", f.uri, r.start_line, r.start_column),
        None => f.uri.clone(),
    };
    format!("{at}: {} {}: {}", f.level.name(), f.rule.id, f.message)
}

impl Collected {
    /// One file's findings at `min` and above, the repeated notes aggregated (what
    /// [`Collected::add`] keeps when there is no baseline).
    fn filtered(file: Vec<Finding>, min: Level) -> Vec<Finding> {
        findings::aggregate(file.into_iter().filter(|f| f.level >= min).collect())
    }

    /// One file's findings: those at `min` and above, recorded for `--write-baseline`, the
    /// known ones left out when there is a baseline, the repeated notes aggregated.
    fn add(&mut self, file: Vec<Finding>, min: Level, mut baseline: Option<&mut Baseline>) {
        let mut kept = Vec::with_capacity(file.len());
        for f in file.into_iter().filter(|f| f.level >= min) {
            if self.record {
                self.recorded.push(Entry::of(&f));
            }
            if let Some(b) = baseline.as_deref_mut() {
                if b.known(&f) {
                    self.known += 1;
                    continue;
                }
                self.new += 1;
                if f.level == Level::Error {
                    self.new_errors += 1;
                }
            }
            kept.push(f);
        }
        self.findings.extend(findings::aggregate(kept));
    }
}

impl Job {
    /// One file's report; `watch`, for a capped format, tells which findings to locate.
    fn file(&self, item: &Item, watch: Option<&CapWatch>) -> FileReport {
        let mut r = FileReport {
            out: Vec::new(),
            error: None,
            status: Status::Clean,
            summary: Summary::new(self.settings.targets.len()),
            findings: Vec::new(),
        };
        r.summary.files = 1;
        let file = item.display();
        let uri = if self.findings {
            sarif::uri(item.path())
        } else {
            String::new()
        };
        let text = match read_text(item, self.input.max_file_size) {
            Ok(t) => t,
            Err(e) => return self.failed(r, e, uri),
        };
        let doc = match load_schemas(&file, &text, self.input.kind) {
            Ok(d) => d,
            Err(e) => return self.failed(r, e, uri),
        };
        let groups = match schema_groups(&file, &doc, self.input.kind) {
            Ok(g) => g,
            Err(e) => return self.failed(r, e, uri),
        };
        let locator = Locator::new(&text).unique_root_keys(doc.root_keys_unique);
        let mut text = String::new();
        for g in &groups {
            let a = self.settings.assess(g.schema);
            r.summary.schema(&a);
            let denied: Vec<bool> = a
                .lowerings
                .iter()
                .map(|l| self.deny.is_some_and(|d| l.mode() >= d))
                .collect();
            let hits = denied.iter().filter(|d| **d).count();
            r.summary.denied += hits;
            if a.parsed.is_err() || hits > 0 {
                r.status.raise(Status::Findings);
            }
            match self.format {
                LintFormat::Json => json::push_line(
                    &mut r.out,
                    &LintLine {
                        file: &file,
                        group: g.index,
                        in_subset: a.parsed.is_ok(),
                        errors: json::violations(&a.parsed, &locator, g.place),
                        warnings: json::warnings(&a.parsed, &locator, g.place),
                        targets: a
                            .lowerings
                            .iter()
                            .map(|l| LintTarget {
                                target: l.target().name(),
                                mode: l.mode().name(),
                                losses: json::losses(l),
                            })
                            .collect(),
                    },
                ),
                LintFormat::Text => match &a.parsed {
                    Ok(s) => {
                        let w = s.warnings();
                        let note = match w.len() {
                            0 => String::new(),
                            n => format!(" ({})", count(n, "warning", "warnings")),
                        };
                        let _ = writeln!(text, "{}  in subset{note}", label(&file, g));
                        text::warnings(&mut text, &locator, g.place, w);
                        let width = text::target_width(&self.settings.targets);
                        for (i, (l, d)) in a.lowerings.iter().zip(&denied).enumerate() {
                            let hint = a.hints.get(i).copied().flatten();
                            text::target(&mut text, l, width, (*d, self.deny.is_some()), hint);
                        }
                    }
                    Err(e) => {
                        let n = count(e.violations.len(), "violation", "violations");
                        let _ = writeln!(text, "{}  out of subset ({n})", label(&file, g));
                        text::violations(&mut text, &locator, g.place, e);
                    }
                },
                LintFormat::Sarif | LintFormat::Gitlab => {}
            }
            if self.findings {
                self.findings(&mut r.findings, &uri, (&locator, watch), g, &a, &denied);
            }
        }
        r.out.extend_from_slice(text.as_bytes());
        r
    }

    /// The findings of one group: its violations, or its `--deny` hits and losses; one per
    /// rule and pointer (a loss on several targets is one finding naming them). Each is
    /// located in the file's text by the locator, unless the watch (a capped format) says the
    /// cap can no longer keep it.
    fn findings(
        &self,
        out: &mut Vec<Finding>,
        uri: &str,
        (locator, watch): (&Locator<'_>, Option<&CapWatch>),
        g: &Group<'_>,
        a: &Analysis<Assessment>,
        denied: &[bool],
    ) {
        let prefix = g.place.tokens();
        let head = document_prefix(&prefix);
        let group = match g.place {
            Place::Suite(i) => format!("group {i}: "),
            Place::Root | Place::Bench => String::new(),
        };
        let pushed = |what| Pushed {
            what,
            head: &head,
            uri,
        };
        let mut ff = FileFindings::default();
        match &a.parsed {
            Err(e) => {
                for v in &e.violations {
                    let place = (v.pointer.as_str(), v.keyword.as_str());
                    ff.push(pushed(What::Violation(v)), Level::Error, place, None);
                }
            }
            Ok(s) => {
                for v in s.warnings() {
                    let place = (v.pointer.as_str(), v.keyword.as_str());
                    ff.push(pushed(What::Violation(v)), Level::Warning, place, None);
                }
            }
        }
        for (l, d) in a.lowerings.iter().zip(denied) {
            let target = l.target().name();
            if let (true, Some(deny)) = (*d, self.deny) {
                let what = What::Deny {
                    mode: l.mode(),
                    deny,
                };
                ff.push(pushed(what), Level::Error, ("", ""), Some(target));
            }
            // Nothing is enforced on a target that sends no schema: a warning; a widened
            // target enforces all but this constraint: a note.
            let level = if l.mode() >= Mode::Json {
                Level::Warning
            } else {
                Level::Note
            };
            for loss in l.losses() {
                let place = (loss.pointer.as_str(), &*loss.keyword);
                ff.push(pushed(What::Loss(loss)), level, place, Some(target));
            }
        }
        out.extend(
            ff.finish(&group, self.min_level, watch, |(pointer, keyword)| {
                locator.region(&prefix, pointer, keyword)
            }),
        );
    }

    fn failed(&self, mut r: FileReport, e: FileError, uri: String) -> FileReport {
        r.status = Status::Error;
        r.summary.file_errors = 1;
        match self.format {
            LintFormat::Json => json::push_line(&mut r.out, &json::ErrorLine::of(&e)),
            LintFormat::Sarif | LintFormat::Gitlab | LintFormat::Text => {}
        }
        if self.findings {
            r.findings.push(Finding {
                rule: sarif::input_rule(),
                level: Level::Error,
                message: e.message(),
                uri,
                pointer: String::new(),
                region: e.position.map(|(line, column)| crate::locate::Region {
                    start_line: line,
                    start_column: column,
                    end_line: line,
                    end_column: column + 1,
                }),
            });
        }
        r.error = Some(e);
        r
    }
}

/// A finding of `lint` as pushed ([`findings::Source`]): what it is, the group's place in the
/// document (escaped, [`document_prefix`]) and the file's URI. The rule, pointer, URI and
/// message strings are made only for the findings kept.
#[derive(Debug)]
struct Pushed<'a> {
    what: What<'a>,
    head: &'a str,
    uri: &'a str,
}

#[derive(Debug)]
enum What<'a> {
    /// Out of the subset (an error), or a `full` subset warning.
    Violation(&'a schemalect::Violation),
    /// A target that reaches only `mode`, which `--deny` rejects.
    Deny { mode: Mode, deny: Mode },
    /// A constraint a target does not enforce.
    Loss(&'a schemalect::Loss),
}

impl Pushed<'_> {
    /// The pointer in the schema. An unknown keyword of the `full` subset is a finding of its
    /// own, at the keyword's pointer: two misspellings in one node are two results, and its
    /// fingerprint is the same as a warning and as an error (`--deny-unknown`).
    fn pointer(&self) -> std::borrow::Cow<'_, str> {
        match self.what {
            What::Violation(v) if matches!(v.kind, ViolationKind::UnknownKeyword { .. }) => {
                v.pointer.join(&v.keyword).into_string().into()
            }
            What::Violation(v) => v.pointer.as_str().into(),
            What::Loss(l) => l.pointer.as_str().into(),
            What::Deny { .. } => "".into(),
        }
    }
}

impl findings::Source for Pushed<'_> {
    fn key(&self, out: &mut String) {
        findings::key_part(out, &self.pointer());
        match self.what {
            What::Violation(v) => sarif::violation_rule_id(v, out),
            What::Loss(l) => sarif::loss_rule_id(&l.keyword, out),
            What::Deny { mode, .. } => sarif::deny_rule_id(mode, out),
        }
    }

    fn finding(&self) -> Finding {
        let rule = match self.what {
            What::Violation(v) => sarif::violation_rule(v),
            What::Loss(l) => sarif::loss_rule(&l.keyword),
            What::Deny { mode, .. } => sarif::deny_rule(mode),
        };
        Finding {
            level: rule.level,
            rule,
            region: None,
            pointer: document_pointer(self.head, &self.pointer()),
            message: String::new(),
            uri: self.uri.to_owned(),
        }
    }

    fn detail(&self) -> String {
        match self.what {
            What::Violation(v) => v.to_string(),
            What::Loss(l) => l.to_string(),
            What::Deny { mode, deny } => format!("reaches only {mode} mode (--deny {deny})"),
        }
    }

    /// Equal values print the same. Two losses with the same pointer and keyword and no hint
    /// print the same exactly when their reasons are the same (`{pointer}: `{keyword}`
    /// {reason}`); other values that differ may still print the same, so their text decides.
    fn same_detail(&self, other: &Self) -> bool {
        match (&self.what, &other.what) {
            (What::Loss(a), What::Loss(b))
                if a.pointer == b.pointer
                    && a.keyword == b.keyword
                    && a.hint.is_none()
                    && b.hint.is_none() =>
            {
                a.reason == b.reason
            }
            (What::Loss(a), What::Loss(b)) if a == b => true,
            (What::Violation(a), What::Violation(b)) if a == b => true,
            (What::Deny { mode: a, deny: x }, What::Deny { mode: b, deny: y })
                if a == b && x == y =>
            {
                true
            }
            _ => self.detail() == other.detail(),
        }
    }
}

/// The pointer of the schema's place in the document (`/3/schema` for a suite's fourth group),
/// escaped once per group rather than once per finding.
fn document_prefix(prefix: &[String]) -> String {
    let mut out = String::new();
    for t in prefix {
        out.push('/');
        out.push_str(&t.replace('~', "~0").replace('/', "~1"));
    }
    out
}

/// The pointer from the document root: the schema's place ([`document_prefix`]), then the
/// pointer in the schema.
fn document_pointer(head: &str, pointer: &str) -> String {
    let mut out = String::with_capacity(head.len() + pointer.len());
    out.push_str(head);
    out.push_str(pointer);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use findings::Source;
    use schemalect::{Hint, Loss, Pointer};

    /// Whether two pushed findings have the same message is what their messages say, however
    /// `same_detail` finds it out: losses that differ in reason, hint, keyword or pointer,
    /// and `--deny` hits.
    #[test]
    fn same_detail_is_the_same_message() {
        let at = |p: &str| Pointer::root().join(p);
        let hint = |t: &str| {
            Some(Hint::DenyUnknownFields {
                rust_type: t.to_owned(),
            })
        };
        let loss = |p: &str, k: &'static str, r: &'static str, h: Option<Hint>| {
            let mut l = Loss::new(&at(p), k, r);
            l.hint = h;
            l
        };
        let losses = [
            loss("a", "pattern", "dropped", None),
            loss("a", "pattern", "dropped", None),
            loss("a", "pattern", "not sent", None),
            loss("a", "pattern", "dropped", hint("T")),
            loss("a", "pattern", "dropped", hint("U")),
            loss("a", "pattern", "dropped (DenyUnknownFields)", None),
            loss("a", "format", "dropped", None),
            loss("b", "pattern", "dropped", None),
            loss("a", "", "dropped", None),
        ];
        let pushed = |what| Pushed {
            what,
            head: "",
            uri: "a.json",
        };
        for a in &losses {
            for b in &losses {
                let (x, y) = (pushed(What::Loss(a)), pushed(What::Loss(b)));
                assert_eq!(x.same_detail(&y), x.detail() == y.detail(), "{a} / {b}");
            }
        }
        let deny = |mode| {
            pushed(What::Deny {
                mode,
                deny: Mode::Json,
            })
        };
        assert!(deny(Mode::Json).same_detail(&deny(Mode::Json)));
        assert!(!deny(Mode::Json).same_detail(&deny(Mode::Prompt)));
    }

    #[test]
    fn pointers_start_at_the_document_root() {
        assert_eq!(document_pointer(&document_prefix(&[]), ""), "");
        assert_eq!(
            document_pointer(&document_prefix(&[]), "/properties/a~1b"),
            "/properties/a~1b"
        );
        let suite = document_prefix(&Place::Suite(3).tokens());
        assert_eq!(document_pointer(&suite, "/items"), "/3/schema/items");
        let odd = document_prefix(&["a/b".to_owned(), "c~d".to_owned()]);
        assert_eq!(document_pointer(&odd, "/x"), "/a~1b/c~0d/x");
    }
}
