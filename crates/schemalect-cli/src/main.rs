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

mod args;
mod commands;
mod input;
mod locate;
mod progress;
mod report;
mod resources;

use args::{Cli, Command};
use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let status = match cli.command {
        Command::Lint(a) => commands::lint::run(a),
        Command::Lower(a) => commands::lower::run(a),
        Command::Check(a) => commands::check::run(a),
        Command::Suite(a) => commands::suite::run(a),
    };
    ExitCode::from(status.code())
}
