//! `schemalect`: the command-line tool over the schemalect library, for CI pipelines and people.
//! See `docs/cli.md` for every command, option, exit code and output field.
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing,
        clippy::unreachable
    )
)]

/// A run over a schema folder is mostly small, short-lived allocations; mimalloc serves them
/// with far fewer instructions than the system allocator (docs/benchmarks.md, "Against
/// pydantic-ai's transformers").
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod args;
mod baseline;
mod commands;
mod config;
mod findings;
mod glob;
mod input;
mod locate;
mod progress;
mod report;
mod resources;
mod skim;
mod wordscan;

use args::{Cli, Command};
use clap::FromArgMatches;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cmd = args::command();
    let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    // A first parse finds the command and `--config`; clap reports usage errors itself.
    let first = cmd.clone().get_matches_from(argv.clone());
    let prepared = match config::prepare(&cmd, argv, &first) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("schemalect: {e}");
            return ExitCode::from(commands::Status::Error.code());
        }
    };
    let parse = |argv: &[std::ffi::OsString]| {
        let matches = cmd.clone().get_matches_from(argv);
        Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit())
    };
    let cli = parse(&prepared.argv);
    let status = match cli.command {
        Command::Lint(a) => {
            let overrides = prepared
                .overrides
                .iter()
                .filter_map(|(globs, argv)| match parse(argv).command {
                    Command::Lint(o) => Some((globs.clone(), o)),
                    _ => None,
                })
                .collect();
            commands::lint::run(a, overrides, &prepared.base)
        }
        Command::Lower(a) => commands::lower::run(a),
        Command::Check(a) => commands::check::run(a),
        Command::Suite(a) => commands::suite::run(a),
    };
    ExitCode::from(status.code())
}
