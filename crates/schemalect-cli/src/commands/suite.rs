//! `schemalect suite PATH...`: for test-suite and benchmark-style files, per group whether the
//! schema is in the subset, per test the expected and the actual verdict, per target the
//! lowering. Exit 1 when a verdict differs from its label in an in-subset group.

use super::{groups, load, run_ordered, FileError, Settings, Status};
use crate::args::{targets, Format, SuiteArgs};
use crate::input::{self, Item, TestCase};
use crate::locate::Locator;
use crate::progress::Console;
use crate::report::json::{self, SuiteLine, SuiteTarget, TestVerdict};
use crate::report::text::{self, count, Summary};
use crate::report::{label, Out};
use schemalect::{Lowering, Profile};
use serde_json::Value;
use std::fmt::Write as _;

struct FileReport {
    out: Vec<u8>,
    error: Option<FileError>,
    status: Status,
    summary: Summary,
}

/// Runs `suite`.
pub fn run(args: SuiteArgs) -> Status {
    let settings = Settings {
        parse: args.parse.parse_options(),
        lower: args.targets.lower_options(),
        targets: targets(&args.targets.target),
        hints: false,
        extended_count: args.format == Format::Text,
    };
    let items = input::discover(&args.paths);
    let mut console = Console::new(items.len());
    let mut out = Out::new();
    let mut status = Status::Clean;
    let mut summary = Summary::new(settings.targets.len());
    run_ordered(
        &items,
        args.input.threads(),
        |item| file(item, &settings, &args),
        |r| {
            console.step();
            if let Some(e) = &r.error {
                console.message(&e.message());
            }
            status.raise(r.status);
            summary.merge(r.summary);
            out.write(&r.out)
        },
    );
    console.finish();
    if args.format == Format::Text {
        let mut buf = String::new();
        summary.write(&mut buf, &settings.targets, true);
        text::exit_line(&mut buf, status, &summary.reasons(false, None));
        out.write(buf.as_bytes());
    }
    out.finish(&mut console, &mut status);
    status
}

/// Values sent to and got back from the provider under a reshaping profile.
type LensValues = (Vec<Option<Value>>, Vec<Option<Value>>);

/// The one place where `encoded` and `lifted` are filled: only under the reshaping profile,
/// for every lowering (the lens is the identity where nothing was reshaped), aligned with the
/// tests. A test gets values only when it has `data` that the source schema accepts (the lens
/// is defined on source values); elsewhere, and when encoding or lifting fails, `null`.
fn lens_values(
    lowering: &Lowering,
    profile: Profile,
    cases: &[TestCase<'_>],
    verdicts: &[TestVerdict],
) -> Option<LensValues> {
    if profile != Profile::Reshaping {
        return None;
    }
    let mut encoded = Vec::with_capacity(cases.len());
    let mut lifted = Vec::with_capacity(cases.len());
    for (case, verdict) in cases.iter().zip(verdicts) {
        let enc = match (case.data, verdict.actual) {
            (Some(data), Some(true)) => lowering.encode(data).ok(),
            _ => None,
        };
        lifted.push(enc.as_ref().and_then(|e| lowering.lift(e).ok()));
        encoded.push(enc);
    }
    Some((encoded, lifted))
}

fn file(item: &Item, settings: &Settings, args: &SuiteArgs) -> FileReport {
    let mut r = FileReport {
        out: Vec::new(),
        error: None,
        status: Status::Clean,
        summary: Summary::new(settings.targets.len()),
    };
    r.summary.files = 1;
    let name = item.display();
    let doc = match load(item, args.input.max_file_size) {
        Ok(d) => d,
        Err(e) => return failed(r, e, args.format),
    };
    let groups = match groups(&name, &doc, args.input.kind) {
        Ok(g) => g,
        Err(e) => return failed(r, e, args.format),
    };
    let locator = Locator::new(&doc.text);
    let mut buf = String::new();
    for g in &groups {
        let a = settings.analyse(g.schema);
        r.summary.schema(&a);
        let cases: Vec<TestCase<'_>> = g.tests.iter().map(TestCase::of).collect();
        let verdicts: Vec<TestVerdict> = cases
            .iter()
            .enumerate()
            .map(|(index, t)| TestVerdict {
                index,
                expected: t.valid,
                actual: match (&a.parsed, t.data) {
                    (Ok(schema), Some(data)) => Some(schema.is_valid(data)),
                    _ => None,
                },
            })
            .collect();
        let mut failures = Vec::new();
        for (v, t) in verdicts.iter().zip(&cases) {
            match (v.expected, v.actual) {
                (Some(e), Some(a)) if e == a => r.summary.passed += 1,
                (Some(_), Some(_)) => {
                    r.summary.failed += 1;
                    failures.push((v, t));
                }
                _ => r.summary.not_run += 1,
            }
        }
        if !failures.is_empty() {
            r.status.raise(Status::Findings);
        }
        match args.format {
            Format::Json => {
                let targets = a
                    .lowerings
                    .iter()
                    .map(|l| {
                        let lens = lens_values(l, settings.lower.profile, &cases, &verdicts);
                        let (encoded, lifted) = match lens {
                            Some((e, l)) => (Some(e), Some(l)),
                            None => (None, None),
                        };
                        SuiteTarget {
                            target: l.target().name(),
                            mode: l.mode().name(),
                            wire: l.wire(),
                            losses: json::losses(l.assessment()),
                            encoded,
                            lifted,
                        }
                    })
                    .collect();
                json::push_line(
                    &mut r.out,
                    &SuiteLine {
                        file: &name,
                        group: g.index,
                        in_subset: a.parsed.is_ok(),
                        errors: json::violations(&a.parsed, &locator, g.place),
                        tests: verdicts,
                        targets,
                    },
                );
            }
            Format::Text => {
                let description = g
                    .description
                    .map(|d| format!("  \"{d}\""))
                    .unwrap_or_default();
                match &a.parsed {
                    Ok(_) => {
                        let _ = writeln!(buf, "{}  in subset{description}", label(&name, g));
                        let passed = verdicts.len() - failures.len();
                        let _ =
                            writeln!(buf, "  tests: {passed} of {} as labelled", verdicts.len());
                        for (v, t) in &failures {
                            let _ = writeln!(
                                buf,
                                "    test {}{}: expected {}, got {}",
                                v.index,
                                t.description
                                    .map(|d| format!(" \"{d}\""))
                                    .unwrap_or_default(),
                                verdict(v.expected),
                                verdict(v.actual)
                            );
                        }
                        let width = text::target_width(&settings.targets);
                        for l in &a.lowerings {
                            let _ = writeln!(
                                buf,
                                "  {:<width$} {:<7}  {}",
                                l.target().name(),
                                l.mode().name(),
                                count(l.losses().len(), "loss", "losses")
                            );
                        }
                    }
                    Err(e) => {
                        let _ = writeln!(
                            buf,
                            "{}  out of subset ({}){description}",
                            label(&name, g),
                            count(e.violations.len(), "violation", "violations")
                        );
                        text::violations(&mut buf, &locator, g.place, e);
                        let _ = writeln!(buf, "  tests: {} not run", verdicts.len());
                    }
                }
            }
        }
    }
    r.out.extend_from_slice(buf.as_bytes());
    r
}

fn verdict(v: Option<bool>) -> &'static str {
    match v {
        Some(true) => "valid",
        Some(false) => "invalid",
        None => "no verdict",
    }
}

fn failed(mut r: FileReport, e: FileError, format: Format) -> FileReport {
    r.status = Status::Error;
    r.summary.file_errors = 1;
    if format == Format::Json {
        json::push_line(&mut r.out, &json::ErrorLine::of(&e));
    }
    r.error = Some(e);
    r
}
