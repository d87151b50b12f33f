//! Runs one operation of the speed bench over one fixture a given number of times, for an
//! instruction counter. Wall-clock ratios on a shared machine move by ±20 % between runs;
//! instruction counts do not, so speed work is judged by them:
//!
//! ```sh
//! cargo build --release --example icount
//! count() { valgrind --tool=callgrind --toggle-collect='icount::Prepared::run' \
//!     --callgrind-out-file=/dev/null target/release/examples/icount "$@" 2>&1 \
//!     | awk '/Collected/ {print $4}'; }
//! base=$(count lower:all jsb-sample 0); all=$(count lower:all jsb-sample 10)
//! echo $(( (all - base) / 10 ))   # instructions per pass of `jsb-sample`, setup subtracted
//! ```
//!
//! `--toggle-collect` counts only inside `Prepared::run` (the passes, and the two runs of
//! the setup, which the subtraction removes): counting the whole process, the setup's count
//! moved by up to 700,000 instructions between two processes of one binary (hash seeds of the
//! parsers and of `jsonschema`), 700 per pass at 1,000 passes; inside `run` two processes
//! agree within a few tens per pass.
//!
//! Operations: `floor` (serde_json parse + serialise of the schema text), `parse`,
//! `lower:<target>`, `lower:<target>,<target>,…` (those targets in a row: the same work as an
//! older tree's `lower:all` when it had fewer targets) and `lower:all`, `is_valid` and `validate` (this crate), `is_valid:jsonschema`
//! and `validate:jsonschema` (the `jsonschema` crate's `is_valid` and collected `iter_errors`),
//! `accept:<target>` and `accept-value:<target>` (`Lowering::accept` of each instance's text,
//! or of its value as a Claude `tool_use` input is given).
//! Fixtures: the names of `support::bench::fixtures()` (`invoice`, `jsb-sample`, `props-1000`,
//! `nest-10`, `enum-1000`, `anyof-100`). Every schema is parsed, every validator built and
//! every instance validated once before the passes, so the count with 0 passes is the setup.

use schemalect::{LowerOptions, Schema, Target};
use serde_json::Value;
use std::hint::black_box;
use std::process::ExitCode;
use support::bench::{self, Fixture};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [op, fixture, passes] = args.as_slice() else {
        eprintln!("usage: icount <operation> <fixture> <passes>");
        return ExitCode::from(2);
    };
    let Some(op) = Op::from_name(op) else {
        eprintln!("unknown operation {op}");
        return ExitCode::from(2);
    };
    let Ok(passes) = passes.parse::<usize>() else {
        eprintln!("passes: not a number: {passes}");
        return ExitCode::from(2);
    };
    let Some(fixture) = bench::fixtures().into_iter().find(|f| f.name == *fixture) else {
        eprintln!("no fixture {fixture} (is ../shared/corpus present for jsb-sample?)");
        return ExitCode::from(2);
    };
    let prepared = Prepared::new(&fixture, &op);
    for _ in 0..passes {
        prepared.run(&op);
    }
    ExitCode::SUCCESS
}

#[derive(Clone)]
enum Op {
    Floor,
    Parse,
    Lower(Vec<Target>),
    LowerAll,
    IsValid,
    IsValidTheirs,
    Validate,
    ValidateTheirs,
    /// `Lowering::accept` of each instance's text.
    AcceptText(Target),
    /// `Lowering::accept` of each instance's value (a Claude `tool_use` input).
    AcceptValue(Target),
}

impl Op {
    fn from_name(name: &str) -> Option<Op> {
        Some(match name {
            "floor" => Op::Floor,
            "parse" => Op::Parse,
            "lower:all" => Op::LowerAll,
            "is_valid" => Op::IsValid,
            "is_valid:jsonschema" => Op::IsValidTheirs,
            "validate" => Op::Validate,
            "validate:jsonschema" => Op::ValidateTheirs,
            other if other.starts_with("accept:") => {
                Op::AcceptText(Target::from_name(other.strip_prefix("accept:")?)?)
            }
            other if other.starts_with("accept-value:") => {
                Op::AcceptValue(Target::from_name(other.strip_prefix("accept-value:")?)?)
            }
            other => Op::Lower(
                other
                    .strip_prefix("lower:")?
                    .split(',')
                    .map(Target::from_name)
                    .collect::<Option<_>>()?,
            ),
        })
    }
}

/// A fixture with every schema parsed and every validator built; every instance validated
/// once on both sides, so what is built on first use (the validation plan, the `jsonschema`
/// crate's caches) is part of the setup.
struct Prepared<'f> {
    fixture: &'f Fixture,
    schemas: Vec<Schema>,
    theirs: Vec<jsonschema::Validator>,
    options: LowerOptions,
    /// Each schema's lowering for the target of an `accept` operation.
    lowered: Vec<schemalect::Lowering>,
}

impl<'f> Prepared<'f> {
    fn new(fixture: &'f Fixture, op: &Op) -> Self {
        let mut prepared = Prepared {
            fixture,
            schemas: fixture
                .cases
                .iter()
                .map(|c| Schema::parse(&c.value).expect("fixtures are in the subset"))
                .collect(),
            theirs: fixture
                .cases
                .iter()
                .map(|c| support::oracle::compile(&c.value).expect("jsonschema compiles them"))
                .collect(),
            options: LowerOptions::default(),
            lowered: Vec::new(),
        };
        if let Op::AcceptText(target) | Op::AcceptValue(target) = op {
            prepared.lowered = (prepared.schemas.iter())
                .map(|s| s.lower(*target, &prepared.options))
                .collect();
            prepared.run(op);
        }
        prepared.run(&Op::IsValid);
        prepared.run(&Op::IsValidTheirs);
        prepared
    }

    /// One pass of `op`. Never inlined: the instruction count is taken inside it.
    #[inline(never)]
    fn run(&self, op: &Op) {
        let cases = &self.fixture.cases;
        let instances = || {
            cases
                .iter()
                .zip(self.schemas.iter().zip(&self.theirs))
                .flat_map(|(c, pair)| c.instances.iter().map(move |i| (&i.value, pair)))
        };
        match op {
            Op::Floor => {
                for case in cases {
                    let v: Value =
                        serde_json::from_str(black_box(&case.text)).expect("schema text");
                    black_box(serde_json::to_string(&v).expect("serialisable"));
                }
            }
            Op::Parse => {
                for case in cases {
                    black_box(Schema::parse(black_box(&case.value)).expect("in subset"));
                }
            }
            Op::Lower(targets) => {
                for schema in &self.schemas {
                    for target in targets {
                        black_box(schema.lower(*target, &self.options));
                    }
                }
            }
            Op::LowerAll => {
                for schema in &self.schemas {
                    for target in Target::ALL {
                        black_box(schema.lower(target, &self.options));
                    }
                }
            }
            Op::IsValid => {
                for (i, (ours, _)) in instances() {
                    black_box(ours.is_valid(black_box(i)));
                }
            }
            Op::IsValidTheirs => {
                for (i, (_, theirs)) in instances() {
                    black_box(theirs.is_valid(black_box(i)));
                }
            }
            Op::Validate => {
                for (i, (ours, _)) in instances() {
                    black_box(ours.validate(black_box(i)).is_ok());
                }
            }
            Op::AcceptText(_) => {
                for (c, l) in cases.iter().zip(&self.lowered) {
                    for i in &c.instances {
                        black_box(l.accept(black_box(i.text.as_str())).is_ok());
                    }
                }
            }
            Op::AcceptValue(_) => {
                for (c, l) in cases.iter().zip(&self.lowered) {
                    for i in &c.instances {
                        black_box(l.accept(black_box(&i.value)).is_ok());
                    }
                }
            }
            Op::ValidateTheirs => {
                for (i, (_, theirs)) in instances() {
                    let errors: Vec<_> = theirs.iter_errors(black_box(i)).collect();
                    black_box(errors);
                }
            }
        }
    }
}
