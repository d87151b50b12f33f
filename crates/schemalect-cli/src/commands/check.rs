//! `schemalect check SCHEMA INSTANCE...`: validates each instance and prints every error with
//! its instance and schema pointers. Exit 0 all valid, 1 invalid or out of the subset, 2 usage
//! or I/O error.

use super::{groups, load, run_ordered, FileError, Status};
use crate::args::{CheckArgs, Format};
use crate::input::{self, Item};
use crate::locate::Locator;
use crate::progress::Console;
use crate::report::json::{self, CheckError, CheckLine, CheckSchemaLine};
use crate::report::text::{self, count};
use crate::report::Out;
use schemalect::Schema;
use std::fmt::Write as _;

/// Runs `check`.
pub fn run(args: CheckArgs) -> Status {
    let mut console = Console::new(0);
    let mut out = Out::new();
    let mut status = Status::Clean;
    let schema = match schema(&args) {
        Ok(Ok(s)) => Some(s),
        Ok(Err(report)) => {
            out.write(report.as_bytes());
            status.raise(Status::Findings);
            None
        }
        Err(message) => {
            console.message(&message);
            status.raise(Status::Error);
            None
        }
    };
    let items = input::discover(&args.instances);
    let mut console = Console::new(items.len());
    run_ordered(
        &items,
        args.input.threads(),
        |item| instance(item, schema.as_ref(), args.input.max_file_size, args.format),
        |(report, error, st)| {
            console.step();
            if let Some(e) = error {
                console.message(&e.message());
            }
            status.raise(st);
            out.write(report.as_bytes())
        },
    );
    console.finish();
    out.finish(&mut console, &mut status);
    status
}

/// The schema; `Ok(Err(report))` when it is out of the subset, `Err(message)` when it cannot be
/// read or is not one schema.
fn schema(args: &CheckArgs) -> Result<Result<Schema, String>, String> {
    if args.schema.is_dir() {
        return Err(format!(
            "{}: is a directory; `check` takes one schema file",
            input::display_path(&args.schema)
        ));
    }
    let item = Item::File(args.schema.clone());
    let name = item.display();
    let doc = load(&item, args.input.max_file_size).map_err(|e| e.message())?;
    let groups = groups(&name, &doc, args.input.kind).map_err(|e| e.message())?;
    let [group] = groups.as_slice() else {
        return Err(format!(
            "{name}: a test-suite file with {} groups; `check` takes one schema (run `schemalect suite` on test files)",
            groups.len()
        ));
    };
    Ok(group
        .schema
        .parse(&args.parse.parse_options())
        .map_err(|e| {
            let n = count(e.violations.len(), "violation", "violations");
            let mut report = format!("{name}: out of subset ({n})\n");
            let locator = Locator::new(&doc.text);
            if args.format == Format::Json {
                let mut buf = Vec::new();
                json::push_line(
                    &mut buf,
                    &CheckSchemaLine {
                        schema: &name,
                        in_subset: false,
                        errors: json::violations(&Err::<(), _>(e), &locator, group.place),
                    },
                );
                return String::from_utf8(buf).unwrap_or_default();
            }
            text::violations(&mut report, &locator, group.place, &e);
            report
        }))
}

fn instance(
    item: &Item,
    schema: Option<&Schema>,
    max: u64,
    format: Format,
) -> (String, Option<FileError>, Status) {
    let doc = match load(item, max) {
        Ok(d) => d,
        Err(e) => {
            let mut buf = Vec::new();
            if format == Format::Json {
                json::push_line(&mut buf, &json::ErrorLine::of(&e));
            }
            return (
                String::from_utf8(buf).unwrap_or_default(),
                Some(e),
                Status::Error,
            );
        }
    };
    let Some(schema) = schema else {
        return (String::new(), None, Status::Clean);
    };
    let name = item.display();
    if format == Format::Json {
        let locator = Locator::new(&doc.text);
        let result = schema.validate(&doc.value);
        let errors = match &result {
            Ok(()) => Vec::new(),
            Err(errors) => errors
                .errors
                .iter()
                .map(|e| {
                    let region = locator.region(&[], e.instance_path.as_str(), "");
                    CheckError {
                        instance_pointer: e.instance_path.as_str(),
                        schema_pointer: e.schema_path.as_str(),
                        keyword: e.keyword,
                        message: &e.message,
                        line: region.map(|r| r.start_line),
                        column: region.map(|r| r.start_column),
                    }
                })
                .collect(),
        };
        let mut buf = Vec::new();
        json::push_line(
            &mut buf,
            &CheckLine {
                file: &name,
                valid: Some(result.is_ok()),
                errors,
            },
        );
        let status = if result.is_ok() {
            Status::Clean
        } else {
            Status::Findings
        };
        return (String::from_utf8(buf).unwrap_or_default(), None, status);
    }
    match schema.validate(&doc.value) {
        Ok(()) => (format!("{name}: valid\n"), None, Status::Clean),
        Err(errors) => {
            let n = count(errors.errors.len(), "error", "errors");
            let mut report = format!("{name}: invalid ({n})\n");
            let locator = Locator::new(&doc.text);
            for e in &errors.errors {
                report.push_str("  ");
                if let Some(r) = locator.region(&[], e.instance_path.as_str(), "") {
                    let _ = write!(report, "{}:{}  ", r.start_line, r.start_column);
                }
                let _ = writeln!(report, "{e}");
            }
            (report, None, Status::Findings)
        }
    }
}
