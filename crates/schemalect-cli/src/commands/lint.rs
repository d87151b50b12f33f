//! `schemalect lint PATH...`: per schema, in the subset or every violation; per target, the
//! mode and the losses. Exit 1 when a schema is out of the subset or `--deny` is hit.

use super::{groups, load, run_ordered, Analysis, FileError, Settings, Status};
use crate::args::{targets, DenyArg, LintArgs, LintFormat};
use crate::input::{self, Group, Item, Place};
use crate::locate::Locator;
use crate::progress::Console;
use crate::report::json::{self, LintLine, LintTarget};
use crate::report::sarif::{self, Finding};
use crate::report::text::{self, count, Summary};
use crate::report::{label, Out};
use schemalect::Mode;
use std::fmt::Write as _;

/// What one file contributes to the run.
struct FileReport {
    out: Vec<u8>,
    error: Option<FileError>,
    status: Status,
    summary: Summary,
    findings: Vec<Finding>,
}

struct Job {
    settings: Settings,
    format: LintFormat,
    deny: Option<Mode>,
    input: crate::args::InputArgs,
}

/// Runs `lint`.
pub fn run(args: LintArgs) -> Status {
    let job = Job {
        settings: Settings {
            parse: args.parse.parse_options(),
            lower: args.targets.lower_options(),
            targets: targets(&args.targets.target),
        },
        format: args.format,
        deny: args.deny.map(DenyArg::mode),
        input: args.input,
    };
    let items = input::discover(&args.paths);
    let mut console = Console::new(items.len());
    let mut out = Out::new();
    let mut status = Status::Clean;
    let mut summary = Summary::new(job.settings.targets.len());
    let mut sarif = sarif::Writer::default();
    if job.format == LintFormat::Sarif {
        let mut buf = Vec::new();
        sarif.begin(&mut buf);
        out.write(&buf);
    }
    run_ordered(
        &items,
        |item| job.file(item),
        |mut r| {
            console.step();
            if let Some(e) = &r.error {
                console.message(&e.message());
            }
            status.raise(r.status);
            summary.merge(r.summary);
            for f in &r.findings {
                sarif.result(&mut r.out, f);
            }
            out.write(&r.out)
        },
    );
    console.finish();
    match job.format {
        LintFormat::Json => {}
        LintFormat::Text => {
            let mut buf = String::new();
            summary.write(&mut buf, &job.settings.targets, false);
            text::exit_line(&mut buf, status, &summary.reasons(true, job.deny));
            out.write(buf.as_bytes());
        }
        LintFormat::Sarif => {
            let mut buf = Vec::new();
            sarif.end(&mut buf, status < Status::Error);
            out.write(&buf);
        }
    }
    out.finish(&mut console, &mut status);
    status
}

impl Job {
    fn file(&self, item: &Item) -> FileReport {
        let mut r = FileReport {
            out: Vec::new(),
            error: None,
            status: Status::Clean,
            summary: Summary::new(self.settings.targets.len()),
            findings: Vec::new(),
        };
        r.summary.files = 1;
        let file = item.display();
        let uri = match self.format {
            LintFormat::Sarif => sarif::uri(item.path()),
            _ => String::new(),
        };
        let doc = match load(item, self.input.max_file_size) {
            Ok(d) => d,
            Err(e) => return self.failed(r, e, uri),
        };
        let groups = match groups(&file, &doc, self.input.kind) {
            Ok(g) => g,
            Err(e) => return self.failed(r, e, uri),
        };
        let locator = Locator::new(&doc.text);
        let mut text = String::new();
        for g in &groups {
            let a = self.settings.analyse(g.schema);
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
                        errors: json::violations(&a.parsed),
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
                    Ok(_) => {
                        let _ = writeln!(text, "{}  in subset", label(&file, g));
                        for (l, d) in a.lowerings.iter().zip(&denied) {
                            text::target(&mut text, l, *d, self.deny.is_some());
                        }
                    }
                    Err(e) => {
                        let n = count(e.violations.len(), "violation", "violations");
                        let _ = writeln!(text, "{}  out of subset ({n})", label(&file, g));
                        text::violations(&mut text, &locator, g.place, e);
                    }
                },
                LintFormat::Sarif => {
                    self.findings(&mut r.findings, &uri, &locator, g, &a, &denied);
                }
            }
        }
        r.out.extend_from_slice(text.as_bytes());
        r
    }

    /// The SARIF findings of one group: its violations, or its `--deny` hits and losses.
    fn findings(
        &self,
        out: &mut Vec<Finding>,
        uri: &str,
        locator: &Locator<'_>,
        g: &Group<'_>,
        a: &Analysis,
        denied: &[bool],
    ) {
        let prefix = g.place.tokens();
        let at = |pointer: &str, keyword: &str| locator.region(&prefix, pointer, keyword);
        let group = match g.place {
            Place::Suite(i) => format!("group {i}: "),
            Place::Root | Place::Bench => String::new(),
        };
        let mut push = |rule, message, region| {
            out.push(Finding {
                rule,
                message,
                uri: uri.to_owned(),
                region,
            });
        };
        if let Err(e) = &a.parsed {
            for v in &e.violations {
                push(
                    sarif::violation_rule(v),
                    format!("{group}{v}"),
                    at(v.pointer.as_str(), &v.keyword),
                );
            }
        }
        for (l, d) in a.lowerings.iter().zip(denied) {
            if let (true, Some(deny)) = (*d, self.deny) {
                push(
                    sarif::deny_rule(l.mode()),
                    format!(
                        "{group}{} reaches only {} mode (--deny {deny})",
                        l.target(),
                        l.mode()
                    ),
                    at("", ""),
                );
            }
            for loss in l.losses() {
                push(
                    sarif::loss_rule(&loss.keyword),
                    format!("{group}{}: {loss}", l.target()),
                    at(loss.pointer.as_str(), &loss.keyword),
                );
            }
        }
    }

    fn failed(&self, mut r: FileReport, e: FileError, uri: String) -> FileReport {
        r.status = Status::Error;
        r.summary.file_errors = 1;
        match self.format {
            LintFormat::Json => json::push_line(&mut r.out, &json::ErrorLine::of(&e)),
            LintFormat::Sarif => r.findings.push(Finding {
                rule: sarif::input_rule(),
                message: e.message(),
                uri,
                region: e.position.map(|(line, column)| crate::locate::Region {
                    start_line: line,
                    start_column: column,
                    end_line: line,
                    end_column: column + 1,
                }),
            }),
            LintFormat::Text => {}
        }
        r.error = Some(e);
        r
    }
}
