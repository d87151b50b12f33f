//! `schemalect lint PATH...`: per schema, in the subset or every violation; per target, the
//! mode and the losses. Exit 1 when a schema is out of the subset or `--deny` is hit.

use super::{groups, load, run_ordered, FileError, Settings, Status};
use crate::args::{targets, DenyArg, LintArgs, LintFormat};
use crate::input::{self, Item, Place};
use crate::locate::Locator;
use crate::progress::Console;
use crate::report::json::{self, LintLine, LintTarget};
use crate::report::sarif::{self, Finding};
use crate::report::text::{self, plural, Summary};
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
            parse: args.limits.parse_options(),
            lower: args.targets.profile.lower_options(),
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
            summary.head(&mut buf);
            summary.mode_table(&mut buf, &job.settings.targets);
            summary.keyword_table(&mut buf);
            buf.push('\n');
            text::exit_line(&mut buf, status, &reasons(&summary, job.deny));
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

fn reasons(s: &Summary, deny: Option<Mode>) -> Vec<String> {
    let mut r = Vec::new();
    if s.file_errors > 0 {
        r.push(format!(
            "{} file{} could not be read",
            s.file_errors,
            plural(s.file_errors)
        ));
    }
    let out = s.schemas - s.in_subset;
    if out > 0 {
        r.push(format!("{out} schema{} out of subset", plural(out)));
    }
    if let (Some(m), true) = (deny, s.denied > 0) {
        r.push(format!(
            "{} lowering{} at or below --deny {m}",
            s.denied,
            plural(s.denied)
        ));
    }
    r
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
            let prefix = g.place.tokens();
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
                LintFormat::Text => {
                    let name = label(&file, g);
                    match &a.parsed {
                        Ok(_) => {
                            let _ = writeln!(text, "{name}  in subset");
                            let width = if self.deny.is_some() { 16 } else { 7 };
                            for (l, d) in a.lowerings.iter().zip(&denied) {
                                text::target(&mut text, l, *d, width);
                            }
                        }
                        Err(e) => {
                            let n = e.violations.len();
                            let _ = writeln!(
                                text,
                                "{name}  out of subset ({n} violation{})",
                                plural(n)
                            );
                            for v in &e.violations {
                                let region =
                                    locator.region(&prefix, v.pointer.as_str(), &v.keyword);
                                text::violation(&mut text, region, v);
                            }
                        }
                    }
                }
                LintFormat::Sarif => {
                    let at =
                        |pointer: &str, keyword: &str| locator.region(&prefix, pointer, keyword);
                    let name = match g.place {
                        Place::Suite(i) => format!("group {i}: "),
                        Place::Root | Place::Bench => String::new(),
                    };
                    match &a.parsed {
                        Err(e) => {
                            for v in &e.violations {
                                r.findings.push(Finding {
                                    rule: sarif::violation_rule(v),
                                    message: format!("{name}{v}"),
                                    uri: uri.clone(),
                                    region: at(v.pointer.as_str(), &v.keyword),
                                });
                            }
                        }
                        Ok(_) => {
                            for (l, d) in a.lowerings.iter().zip(&denied) {
                                if let (true, Some(deny)) = (*d, self.deny) {
                                    r.findings.push(Finding {
                                        rule: sarif::deny_rule(l.mode()),
                                        message: format!(
                                            "{name}{} reaches only {} mode (--deny {deny})",
                                            l.target(),
                                            l.mode()
                                        ),
                                        uri: uri.clone(),
                                        region: at("", ""),
                                    });
                                }
                                for loss in l.losses() {
                                    r.findings.push(Finding {
                                        rule: sarif::loss_rule(&loss.keyword),
                                        message: format!("{name}{}: {loss}", l.target()),
                                        uri: uri.clone(),
                                        region: at(loss.pointer.as_str(), &loss.keyword),
                                    });
                                }
                            }
                        }
                    }
                }
            }
        }
        r.out.extend_from_slice(text.as_bytes());
        r
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
