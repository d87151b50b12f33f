//! The command line, declared with clap's derive API. `docs/cli.md` documents every flag here.

use crate::findings::{Level, CODE_SCANNING_MAX_RESULTS, DEFAULT_MAX_RESULTS};
use crate::glob::Glob;
use crate::input::{Kind, DEFAULT_MAX_FILE_SIZE};
use clap::{Args, Parser, Subcommand, ValueEnum};
use schemalect::{Draft, Limits, LowerOptions, Mode, ParseOptions, Profile, Subset, Target};
use std::num::NonZeroUsize;
use std::path::PathBuf;

/// Lint, lower and check JSON Schemas of the ADR-126 subset for LLM structured output.
#[derive(Debug, Parser)]
#[command(name = "schemalect", version, about, long_about = None)]
#[command(after_help = "Exit status: 0 clean, 1 findings, 2 usage or I/O error.")]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
    /// The configuration file; the default is `schemalect.toml` in the working directory or
    /// the nearest folder above it, up to the repository root.
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Read no configuration file.
    #[arg(long, global = true, conflicts_with = "config")]
    pub no_config: bool,
}

/// The command-line parser, with the target names in the help of `--target`.
pub fn command() -> clap::Command {
    use clap::CommandFactory;
    let names: Vec<&str> = Target::ALL.iter().map(|t| t.name()).collect();
    let help = format!(
        "Targets, comma-separated or repeated: {}, or `all` (the default, except for `lower` in text format, which needs exactly one)",
        names.join(", ")
    );
    let mut cmd = Cli::command();
    for sub in ["lint", "lower", "suite"] {
        let help = help.clone();
        cmd = cmd.mut_subcommand(sub, |c| c.mut_arg("target", |a| a.help(help)));
    }
    cmd
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Per schema: in the subset or every violation; per target: mode and losses.
    Lint(LintArgs),
    /// Prints the request fragment (the wire) of each schema for a target.
    Lower(LowerArgs),
    /// Validates instance files against a schema and prints every error.
    Check(CheckArgs),
    /// Runs test-suite and benchmark-style files: verdicts per test, lowering per target.
    Suite(SuiteArgs),
}

/// How to read input files (every command).
#[derive(Clone, Debug, Args)]
pub struct InputArgs {
    /// Treat every file as this kind instead of detecting it.
    #[arg(long, value_enum)]
    pub kind: Option<Kind>,
    /// Refuse files larger than this (bytes, or with a K/M/G/KiB/MiB/GiB suffix).
    #[arg(long, value_name = "SIZE", default_value = "64MiB", value_parser = parse_size)]
    pub max_file_size: u64,
    /// Files read, parsed, lowered and validated at once; the default is one per core. The
    /// output is the same whatever the number.
    #[arg(long, short = 'j', value_name = "N")]
    pub jobs: Option<NonZeroUsize>,
}

impl InputArgs {
    /// The number of worker threads: `--jobs`, else every core.
    pub fn threads(&self) -> usize {
        self.jobs
            .or_else(|| std::thread::available_parallelism().ok())
            .map_or(1, NonZeroUsize::get)
    }
}

impl Default for InputArgs {
    fn default() -> Self {
        InputArgs {
            kind: None,
            max_file_size: DEFAULT_MAX_FILE_SIZE,
            jobs: None,
        }
    }
}

/// How schemas are parsed: the subset and the limits (every command).
#[derive(Clone, Debug, Args)]
pub struct ParseArgs {
    /// The subset to accept.
    #[arg(long, value_enum, default_value_t = SubsetArg::Adr126)]
    pub subset: SubsetArg,
    /// `full` subset: the draft of a schema without a known `$schema` (draft4, draft6, draft7,
    /// draft2019-09, draft2020-12; 2020-12 by default).
    #[arg(long, value_name = "DRAFT", value_parser = parse_draft)]
    pub default_draft: Option<Draft>,
    /// `full` subset: a document references may point into, as URI=FILE (repeatable). Nothing
    /// is fetched over the network.
    #[arg(long, value_name = "URI=FILE")]
    pub resource: Vec<String>,
    /// `full` subset: every JSON file under DIR, at URI plus its path relative to DIR, as
    /// URI=DIR (repeatable).
    #[arg(long, value_name = "URI=DIR")]
    pub resource_dir: Vec<String>,
    /// `full` subset: assert `format` (an annotation otherwise).
    #[arg(long)]
    pub assert_format: bool,
    /// `full` subset: unknown keywords are errors, not warnings.
    #[arg(long)]
    pub deny_unknown: bool,
    /// Deepest nesting of subschemas and of JSON values inside `enum`, `const`, `default`.
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_depth)]
    pub max_depth: usize,
    /// Most schema nodes in one schema.
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_nodes)]
    pub max_nodes: usize,
    /// Most values in one `enum`.
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_enum_values)]
    pub max_enum_values: usize,
    /// Longest `pattern`, in characters.
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_pattern_len)]
    pub max_pattern_len: usize,
    /// Work budget of every operation, in steps per byte of its input (schema, answer).
    #[arg(long, value_name = "N", default_value_t = Limits::default().work_per_byte)]
    pub work_per_byte: u64,
    /// Steps every operation may take whatever the size of its input.
    #[arg(long, value_name = "N", default_value_t = Limits::default().work_floor)]
    pub work_floor: u64,
}

impl ParseArgs {
    /// The parse options these flags describe.
    pub fn parse_options(&self) -> ParseOptions {
        let mut options = ParseOptions::default()
            .with_assert_format(self.assert_format)
            .with_deny_unknown(self.deny_unknown);
        if let Some(d) = self.default_draft {
            options = options.with_default_draft(d);
        }
        match crate::resources::load(&self.resource, &self.resource_dir) {
            Ok(docs) => {
                for (uri, value) in docs {
                    options = options.with_resource(uri, value);
                }
            }
            Err(message) => {
                eprintln!("schemalect: {message}");
                std::process::exit(2);
            }
        }
        options.with_subset(self.subset.subset()).with_limits(
            Limits::default()
                .with_max_depth(self.max_depth)
                .with_max_nodes(self.max_nodes)
                .with_max_enum_values(self.max_enum_values)
                .with_max_pattern_len(self.max_pattern_len)
                .with_work_per_byte(self.work_per_byte)
                .with_work_floor(self.work_floor),
        )
    }
}

/// `--subset`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SubsetArg {
    /// The ADR-126 subset: no references; fail-closed on everything else.
    Adr126,
    /// ADR-126 plus local references (`$ref` to `#…`), `$defs`/`definitions`, `$comment` and
    /// vendor `x-…` keys; fail-closed on everything else.
    Extended,
    /// JSON Schema as specified, drafts 4 to 2020-12 by `$schema`; unknown keywords are
    /// annotations (warnings).
    Full,
}

/// `--default-draft`.
fn parse_draft(s: &str) -> Result<Draft, String> {
    Draft::from_name(s).ok_or_else(|| {
        format!("unknown draft `{s}`: use draft4, draft6, draft7, draft2019-09 or draft2020-12")
    })
}

impl SubsetArg {
    /// The library's subset.
    pub fn subset(self) -> Subset {
        match self {
            SubsetArg::Adr126 => Subset::Adr126,
            SubsetArg::Extended => Subset::Extended,
            SubsetArg::Full => Subset::Full,
        }
    }
}

/// Which targets and how to lower (`lint`, `lower`, `suite`).
#[derive(Clone, Debug, Args)]
pub struct TargetArgs {
    /// Targets, comma-separated or repeated; `all` for every target (the default, except for
    /// `lower` in text format, which needs exactly one).
    #[arg(long, value_name = "TARGET", value_delimiter = ',', value_parser = parse_target)]
    pub target: Vec<TargetSel>,
    /// Which rewrites a lowering may use.
    #[arg(long, value_enum, default_value_t = ProfileArg::Conservative)]
    pub profile: ProfileArg,
    /// The Groq model supports strict structured outputs (only some do): `groq` may then get a
    /// strict schema instead of JSON mode.
    #[arg(long)]
    pub groq_strict: bool,
    /// Claude runs with extended thinking, which cannot be combined with a forced tool: the
    /// `claude` target then sends no tool.
    #[arg(long)]
    pub claude_thinking: bool,
    /// Do not ask OpenRouter to route only to providers that support every request parameter.
    #[arg(long)]
    pub no_require_parameters: bool,
    /// With `--profile reshaping`: read `null` and a missing member alike (as serde does for
    /// `Option<T>`), so an optional nullable property is sent as a required nullable one,
    /// without the `{"value": …}` wrapper that keeps the two apart.
    #[arg(long)]
    pub null_means_absent: bool,
    /// The schema or tool name sent to the provider (`[A-Za-z0-9_-]{1,64}`); the default is
    /// the schema's title reduced to those characters, else `response`.
    #[arg(long, value_name = "NAME", value_parser = parse_name)]
    pub name: Option<String>,
}

impl TargetArgs {
    /// The lowering options these flags select.
    pub fn lower_options(&self) -> LowerOptions {
        let mut options = LowerOptions::default()
            .with_profile(self.profile.profile())
            .with_groq_strict(self.groq_strict)
            .with_claude_thinking(self.claude_thinking)
            .with_openrouter_require_parameters(!self.no_require_parameters);
        if let Some(name) = &self.name {
            options = options.with_name(name.clone());
        }
        if self.null_means_absent {
            options = options.with_null_means_absent(true);
        }
        options
    }
}

/// `--name`: refused here rather than replaced silently by the library's default.
fn parse_name(s: &str) -> Result<String, String> {
    if schemalect::dialect::is_portable_name(s) {
        Ok(s.to_owned())
    } else {
        Err(format!(
            "`{s}` is not a name providers accept: use 1 to 64 of A-Z, a-z, 0-9, `_` and `-`"
        ))
    }
}

/// A `--target` value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TargetSel {
    /// `all`
    All,
    /// One target.
    One(Target),
}

fn parse_target(s: &str) -> Result<TargetSel, String> {
    if s == "all" {
        return Ok(TargetSel::All);
    }
    Target::from_name(s).map(TargetSel::One).ok_or_else(|| {
        let names: Vec<&str> = Target::ALL.iter().map(|t| t.name()).collect();
        format!(
            "unknown target `{s}`; expected `all` or one of: {}",
            names.join(", ")
        )
    })
}

/// The selected targets, in report order (`Target::ALL` order), without repeats. No selection
/// means every target.
pub fn targets(selection: &[TargetSel]) -> Vec<Target> {
    if selection.is_empty() || selection.contains(&TargetSel::All) {
        return Target::ALL.to_vec();
    }
    Target::ALL
        .into_iter()
        .filter(|t| selection.contains(&TargetSel::One(*t)))
        .collect()
}

/// `--profile`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ProfileArg {
    /// Send the source as it is, dropping or relaxing only.
    Conservative,
    /// Reshape values so strict decoders can enforce more; undone on the answer.
    Reshaping,
}

impl ProfileArg {
    /// The library's profile.
    pub fn profile(self) -> Profile {
        match self {
            ProfileArg::Conservative => Profile::Conservative,
            ProfileArg::Reshaping => Profile::Reshaping,
        }
    }
}

/// `lint --format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LintFormat {
    /// Human-readable, with a summary table.
    Text,
    /// One JSON object per schema, one per line.
    Json,
    /// One SARIF 2.1.0 document, for code scanning.
    Sarif,
    /// A GitLab code-quality report (`artifacts:reports:codequality`).
    Gitlab,
}

/// `--format` of `lower` and `suite`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Human-readable.
    Text,
    /// One JSON object per line.
    Json,
}

/// `lint --deny`: the weakest mode that still passes is the one above it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum DenyArg {
    /// Fail when a target is widened, json or prompt.
    Widened,
    /// Fail when a target is json or prompt.
    Json,
    /// Fail when a target is prompt.
    Prompt,
}

impl DenyArg {
    /// The mode named.
    pub fn mode(self) -> Mode {
        match self {
            DenyArg::Widened => Mode::Widened,
            DenyArg::Json => Mode::Json,
            DenyArg::Prompt => Mode::Prompt,
        }
    }
}

/// `schemalect lint`.
#[derive(Debug, Args)]
pub struct LintArgs {
    /// Schema, test-suite or benchmark-style files, or directories (searched for `*.json`);
    /// none: the paths of the configuration file (`schemalect.toml`).
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = LintFormat::Text)]
    pub format: LintFormat,
    /// Fail the run when any target reaches this mode or a weaker one.
    #[arg(long, value_enum, value_name = "MODE")]
    pub deny: Option<DenyArg>,
    /// The weakest findings SARIF, GitLab reports and baselines include: `note` (every loss),
    /// `warning` (losses on targets that fall back to JSON mode or a prompt), `error`.
    #[arg(long, value_enum, value_name = "LEVEL", default_value_t = Level::Warning)]
    pub min_level: Level,
    /// Most results in a SARIF run or GitLab report, the last saying how many were left out
    /// (errors are kept first). Code scanning rejects runs over 25,000 and shows 5,000.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_RESULTS,
          value_parser = parse_max_results)]
    pub max_results: usize,
    /// Report and fail only on findings not in this baseline; list those that are gone.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Record this run's findings (at `--min-level` and above) as a baseline.
    #[arg(long, value_name = "FILE")]
    pub write_baseline: Option<PathBuf>,
    /// Lint only the files under the directories given that match one of these globs
    /// (`schemas/**/*.json`); files named on the command line are always linted.
    #[arg(long, value_name = "GLOB", value_parser = parse_glob)]
    pub include: Vec<Glob>,
    /// Leave out the files under the directories given that match one of these globs.
    #[arg(long, value_name = "GLOB", value_parser = parse_glob)]
    pub exclude: Vec<Glob>,
    #[command(flatten)]
    pub targets: TargetArgs,
    #[command(flatten)]
    pub parse: ParseArgs,
    #[command(flatten)]
    pub input: InputArgs,
}

/// `schemalect lower`.
#[derive(Debug, Args)]
pub struct LowerArgs {
    /// Schema files (each group of a test-suite or benchmark-style file is lowered), or
    /// directories.
    #[arg(required = true, value_name = "SCHEMA")]
    pub paths: Vec<PathBuf>,
    /// Output format. Text prints the wire of one target on stdout and the losses on stderr.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    #[command(flatten)]
    pub targets: TargetArgs,
    #[command(flatten)]
    pub parse: ParseArgs,
    #[command(flatten)]
    pub input: InputArgs,
}

/// `schemalect check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The schema (a plain schema, or a test-suite or benchmark-style file with one group).
    #[arg(value_name = "SCHEMA")]
    pub schema: PathBuf,
    /// Instance files (one JSON value each; `-` reads standard input), or directories.
    #[arg(required = true, value_name = "INSTANCE")]
    pub instances: Vec<PathBuf>,
    /// Output format: text, or one JSON object per instance.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    #[command(flatten)]
    pub parse: ParseArgs,
    #[command(flatten)]
    pub input: InputArgs,
}

/// `schemalect suite`.
#[derive(Debug, Args)]
pub struct SuiteArgs {
    /// Test-suite or benchmark-style files, or directories.
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    #[command(flatten)]
    pub targets: TargetArgs,
    #[command(flatten)]
    pub parse: ParseArgs,
    #[command(flatten)]
    pub input: InputArgs,
}

fn parse_glob(s: &str) -> Result<Glob, String> {
    Glob::new(s)
}

/// `--max-results`: at least 1, at most code scanning's limit.
fn parse_max_results(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if (1..=CODE_SCANNING_MAX_RESULTS).contains(&n) => Ok(n),
        _ => Err(format!(
            "`{s}` is not a result count from 1 to {CODE_SCANNING_MAX_RESULTS} (code scanning rejects larger runs)"
        )),
    }
}

/// Parses a size: a byte count, or a number with a K, M or G suffix (powers of 1024; `KiB`,
/// `KB`, `k` all mean the same).
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, unit) = t.split_at(split);
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("`{s}` is not a size; write e.g. 1048576, 512K or 64MiB"))?;
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        other => return Err(format!("unknown size unit `{other}`; use K, M or G")),
    };
    n.checked_mul(1u64 << shift)
        .ok_or_else(|| format!("`{s}` is too large"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("100"), Ok(100));
        assert_eq!(parse_size("64MiB"), Ok(64 << 20));
        assert_eq!(parse_size("512k"), Ok(512 << 10));
        assert_eq!(parse_size("1G"), Ok(1 << 30));
        assert!(parse_size("MiB").is_err());
        assert!(parse_size("12 parsecs").is_err());
        assert!(parse_size("99999999999999999999G").is_err());
    }

    #[test]
    fn target_selection_follows_report_order() {
        let sel = [
            TargetSel::One(Target::Ollama),
            TargetSel::One(Target::OpenAi),
            TargetSel::One(Target::Ollama),
        ];
        assert_eq!(targets(&sel), vec![Target::OpenAi, Target::Ollama]);
        assert_eq!(targets(&[]), Target::ALL.to_vec());
        assert_eq!(
            targets(&[TargetSel::One(Target::Gemini), TargetSel::All]),
            Target::ALL.to_vec()
        );
        assert!(parse_target("gpt").is_err());
    }

    #[test]
    fn subset_names_match_the_library() {
        for s in [SubsetArg::Adr126, SubsetArg::Extended] {
            let name = s.to_possible_value().map(|v| v.get_name().to_owned());
            assert_eq!(name.as_deref(), Some(s.subset().name()));
        }
    }

    #[test]
    fn cli_is_consistent() {
        command().debug_assert();
    }

    #[test]
    fn help_lists_every_target() {
        for sub in ["lint", "lower", "suite"] {
            let mut cmd = command();
            let help = cmd
                .find_subcommand_mut(sub)
                .unwrap()
                .render_help()
                .to_string();
            for t in Target::ALL {
                assert!(help.contains(t.name()), "{sub} --help lacks {}", t.name());
            }
        }
    }
}
