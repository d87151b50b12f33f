//! `schemalect lower --target T SCHEMA...`: the wire fragment on stdout, the losses on stderr;
//! or, with `--format json`, one line per schema and target.

use super::{load_schemas, read_text, run_ordered, schema_groups, FileError, Settings, Status};
use crate::args::{targets, Format, LowerArgs};
use crate::input::{self, Item};
use crate::locate::Locator;
use crate::progress::Console;
use crate::report::json::{self, LowerLine};
use crate::report::text::{self, count};
use crate::report::{label, Out};
use schemalect::Mode;

struct FileReport {
    out: Vec<u8>,
    messages: Vec<String>,
    status: Status,
}

/// Runs `lower`.
pub fn run(args: LowerArgs) -> Status {
    let settings = Settings {
        parse: args.parse.parse_options(),
        lower: args.targets.lower_options(),
        targets: targets(&args.targets.target),
        hints: false,
        extended_count: false,
    };
    let mut console = Console::new(0);
    let one_target = !args.targets.target.is_empty() && settings.targets.len() == 1;
    if args.format == Format::Text && !one_target {
        console.message(
            "schemalect lower: text output is the wire of one target; pass a single --target, or --format json for several",
        );
        return Status::Error;
    }
    let items = input::discover(&args.paths);
    if args.format == Format::Text && items.len() > 1 {
        console.message(&format!(
            "schemalect lower: {} files; text output is the wire of one schema, with no room for names: lower one file, or use --format json (one line per schema, with its file and group)",
            items.len()
        ));
        return Status::Error;
    }
    let mut console = Console::new(items.len());
    let mut out = Out::new();
    let mut status = Status::Clean;
    run_ordered(
        &items,
        args.input.threads(),
        |item| file(item, &settings, &args),
        |r| {
            console.step();
            for m in &r.messages {
                console.message(m);
            }
            status.raise(r.status);
            out.write(&r.out)
        },
    );
    console.finish();
    out.finish(&mut console, &mut status);
    status
}

fn file(item: &Item, settings: &Settings, args: &LowerArgs) -> FileReport {
    let mut r = FileReport {
        out: Vec::new(),
        messages: Vec::new(),
        status: Status::Clean,
    };
    let name = item.display();
    let text = match read_text(item, args.input.max_file_size) {
        Ok(t) => t,
        Err(e) => return failed(r, &e, args.format),
    };
    let doc = match load_schemas(&name, &text, args.input.kind) {
        Ok(d) => d,
        Err(e) => return failed(r, &e, args.format),
    };
    let groups = match schema_groups(&name, &doc, args.input.kind) {
        Ok(g) => g,
        Err(e) => return failed(r, &e, args.format),
    };
    // The file's lines go into one buffer, sized from its text: an eighth of it per target is
    // about what a benchmark-style file's lines take (the corpus: 6.3 MB of lines for two
    // targets from 24 MB of files), so the buffer grows once or not at all instead of doubling
    // from empty (28,000 reallocations in a `lower` of the corpus).
    r.out.reserve(text.len() / 8 * settings.targets.len());
    let locator = Locator::new(&text).unique_root_keys(doc.root_keys_unique);
    if args.format == Format::Text && groups.len() > 1 {
        r.status = Status::Error;
        r.messages.push(format!(
            "{name}: {} schemas in this file; text output is the wire of one schema: use --format json (one line per schema, with its group)",
            groups.len()
        ));
        return r;
    }
    for g in &groups {
        let a = settings.analyse(g.schema);
        if a.parsed.is_err() {
            r.status.raise(Status::Findings);
        }
        match args.format {
            Format::Json => {
                let errors = json::violations(&a.parsed, &locator, g.place);
                for (i, target) in settings.targets.iter().enumerate() {
                    let lowering = a.lowerings.get(i);
                    LowerLine {
                        file: &name,
                        group: g.index,
                        target: target.name(),
                        in_subset: a.parsed.is_ok(),
                        errors: &errors,
                        mode: lowering.map(|l| l.mode().name()),
                        wire: lowering.map(|l| l.wire()),
                        losses: lowering
                            .map(|l| json::losses(l.assessment()))
                            .unwrap_or_default(),
                    }
                    .write_line(&mut r.out);
                }
            }
            Format::Text => match &a.parsed {
                Err(e) => {
                    let mut msg = format!(
                        "{}: out of subset ({}), nothing to lower\n",
                        label(&name, g),
                        count(e.violations.len(), "violation", "violations")
                    );
                    text::violations(&mut msg, &locator, g.place, e);
                    r.messages.push(msg.trim_end().to_owned());
                }
                Ok(_) => {
                    for l in &a.lowerings {
                        let mut wire = serde_json::to_vec_pretty(l.wire()).unwrap_or_default();
                        wire.push(b'\n');
                        r.out.extend_from_slice(&wire);
                        if l.mode() != Mode::Exact || !l.losses().is_empty() {
                            let mut msg = format!(
                                "{}: {} {} mode, {}",
                                label(&name, g),
                                l.target(),
                                l.mode(),
                                count(l.losses().len(), "loss", "losses")
                            );
                            for loss in l.losses() {
                                msg.push_str(&format!("\n  {loss}"));
                            }
                            r.messages.push(msg);
                        }
                    }
                }
            },
        }
    }
    r
}

fn failed(mut r: FileReport, e: &FileError, format: Format) -> FileReport {
    r.status = Status::Error;
    if format == Format::Json {
        json::push_line(&mut r.out, &json::ErrorLine::of(e));
    }
    r.messages.push(e.message());
    r
}
