//! The configuration file, `schemalect.toml`: found by walking up from the working directory
//! (stopping at the repository root, the first folder with `.git`), or named by `--config`.
//!
//! Every key is a command-line flag without its dashes (`min-level = "note"`,
//! `groq-strict = true`, `target = ["openai", "gemini"]`), plus `paths` for the positional
//! paths. Top-level keys apply to every command that has the flag; `[lint]`, `[lower]`,
//! `[check]`, `[suite]` tables to that command only; `[[override]]` tables (`paths` globs and
//! lint keys) to the files they match. The command line wins over the file. The file is turned
//! into command-line arguments and parsed by the same parser as the command line, so a value is
//! checked exactly as the flag is. Unknown keys are errors, each with the nearest known key.

use crate::glob::Glob;
use clap::parser::ValueSource;
use clap::{ArgMatches, Command};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use toml::{Table, Value};

/// The file looked for.
pub const FILE_NAME: &str = "schemalect.toml";

/// The commands that have their own table.
const COMMANDS: [&str; 4] = ["lint", "lower", "check", "suite"];

/// Lint keys that apply to the whole run and so cannot change per path.
const RUN_KEYS: [&str; 11] = [
    "paths",
    "format",
    "target",
    "jobs",
    "baseline",
    "write-baseline",
    "min-level",
    "max-results",
    "include",
    "exclude",
    "config",
];

/// A command line with the configuration applied.
#[derive(Debug, Default)]
pub struct Prepared {
    /// The arguments to parse.
    pub argv: Vec<OsString>,
    /// `lint` only: the arguments for the files each `[[override]]` matches, in file order
    /// (the last matching one applies).
    pub overrides: Vec<(Vec<Glob>, Vec<OsString>)>,
    /// The folder globs are relative to: the configuration file's, else the working directory.
    pub base: PathBuf,
}

/// Walks up from `dir` for [`FILE_NAME`], stopping after the first folder that holds `.git`.
pub fn find(dir: &Path) -> Option<PathBuf> {
    let mut d = Some(dir);
    while let Some(here) = d {
        let candidate = here.join(FILE_NAME);
        if candidate.is_file() {
            return Some(candidate);
        }
        if here.join(".git").exists() {
            return None;
        }
        d = here.parent();
    }
    None
}

/// Applies the configuration to `argv` (the process arguments). `matches` are `argv` parsed
/// once without it, to know the command, `--config`, `--no-config` and which flags the command
/// line gave. Errors list every problem of the file.
pub fn prepare(
    cmd: &Command,
    argv: Vec<OsString>,
    matches: &ArgMatches,
) -> Result<Prepared, String> {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let mut prepared = Prepared {
        argv: argv.clone(),
        overrides: Vec::new(),
        base: cwd.clone(),
    };
    let Some((name, sub)) = matches.subcommand() else {
        return Ok(prepared);
    };
    if matches.get_flag("no_config") {
        return Ok(prepared);
    }
    let path = match matches.get_one::<PathBuf>("config") {
        Some(p) => p.clone(),
        None => match find(&cwd) {
            Some(p) => p,
            None => return Ok(prepared),
        },
    };
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("{shown}: cannot read the configuration: {e}"))?;
    let table: Table = text
        .parse()
        .map_err(|e| format!("{shown}: not TOML: {e}"))?;
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .map_or_else(|| cwd.clone(), Path::to_path_buf);
    let dir = std::fs::canonicalize(&dir).unwrap_or(dir);
    let same_dir = std::fs::canonicalize(&cwd).is_ok_and(|c| c == dir);
    let rebase = |p: &str| -> String {
        if same_dir || Path::new(p).is_absolute() {
            p.to_owned()
        } else {
            dir.join(p).to_string_lossy().into_owned()
        }
    };
    let Some(sub_cmd) = cmd.find_subcommand(name) else {
        return Ok(prepared);
    };
    let mut errors = Vec::new();
    let mut effective = Table::new();
    let mut overrides = Vec::new();
    for (key, value) in &table {
        if COMMANDS.contains(&key.as_str()) {
            match value {
                Value::Table(t) if key == name => {
                    for (k, v) in t {
                        if !is_key(sub_cmd, k) {
                            errors.push(unknown(&format!("[{key}] {k}"), k, &keys(sub_cmd)));
                        } else {
                            effective.insert(k.clone(), v.clone());
                        }
                    }
                }
                Value::Table(t) => {
                    if let Some(c) = cmd.find_subcommand(key) {
                        for k in t.keys().filter(|k| !is_key(c, k)) {
                            errors.push(unknown(&format!("[{key}] {k}"), k, &keys(c)));
                        }
                    }
                }
                _ => errors.push(format!("`{key}` must be a table (`[{key}]`)")),
            }
        } else if key == "override" {
            let Value::Array(list) = value else {
                errors.push("`override` must be a list of tables (`[[override]]`)".to_owned());
                continue;
            };
            for (i, o) in list.iter().enumerate() {
                match override_of(i, o, cmd) {
                    Ok(o) => overrides.push(o),
                    Err(mut e) => errors.append(&mut e),
                }
            }
        } else if is_key(sub_cmd, key) {
            effective
                .entry(key.clone())
                .or_insert_with(|| value.clone());
        } else if !cmd.get_subcommands().any(|c| is_key(c, key)) {
            let all: Vec<String> = cmd.get_subcommands().flat_map(keys).collect();
            errors.push(unknown(key, key, &all));
        }
    }
    // `[lint]` keys are inserted before the top-level ones reach `effective`, so the command's
    // table wins; the command line wins over both (`apply` skips flags it gave).
    let head = argv.iter().take_while(|a| a.to_str() != Some(name)).count() + 1;
    // The file's flags go before the command line's, its paths (only when the command line
    // gives none, so without a `--` of its own) after everything.
    let build = |table: &Table, errors: &mut Vec<String>| -> Vec<OsString> {
        let (flags, paths) = apply(sub_cmd, sub, table, &rebase, errors);
        let mut out: Vec<OsString> = argv.iter().take(head).cloned().collect();
        out.extend(flags);
        out.extend(argv.iter().skip(head).cloned());
        if !paths.is_empty() {
            out.push(OsString::from("--"));
            out.extend(paths);
        }
        out
    };
    prepared.argv = build(&effective, &mut errors);
    if name == "lint" {
        for (globs, t) in overrides {
            let mut merged = effective.clone();
            merged.extend(t);
            prepared
                .overrides
                .push((globs, build(&merged, &mut errors)));
        }
    }
    if !errors.is_empty() {
        let list: Vec<String> = errors.iter().map(|e| format!("  {e}")).collect();
        return Err(format!(
            "{shown}: {}\n{}",
            plural(errors.len()),
            list.join("\n")
        ));
    }
    prepared.base = dir;
    Ok(prepared)
}

fn plural(n: usize) -> String {
    if n == 1 {
        "1 problem:".to_owned()
    } else {
        format!("{n} problems:")
    }
}

/// One `[[override]]`: its globs and its keys (lint flags that may change per file).
fn override_of(i: usize, v: &Value, cmd: &Command) -> Result<(Vec<Glob>, Table), Vec<String>> {
    let at = format!("[[override]] {}", i + 1);
    let Value::Table(t) = v else {
        return Err(vec![format!("{at}: must be a table")]);
    };
    let mut errors = Vec::new();
    let mut globs = Vec::new();
    match t.get("paths") {
        Some(Value::Array(list)) if !list.is_empty() => {
            for g in list {
                match g.as_str().map(Glob::new) {
                    Some(Ok(g)) => globs.push(g),
                    Some(Err(e)) => errors.push(format!("{at}: paths: {e}")),
                    None => errors.push(format!("{at}: paths: each glob is a string")),
                }
            }
        }
        _ => errors.push(format!(
            "{at}: needs `paths`, a list of globs (e.g. paths = [\"schemas/legacy/**\"])"
        )),
    }
    let lint = cmd.find_subcommand("lint");
    let mut keys_out = Table::new();
    for (k, val) in t.iter().filter(|(k, _)| k.as_str() != "paths") {
        if RUN_KEYS.contains(&k.as_str()) {
            errors.push(format!(
                "{at}: `{k}` applies to the whole run and cannot change per path; set it at the top level"
            ));
        } else if lint.is_some_and(|c| is_key(c, k)) {
            keys_out.insert(k.clone(), val.clone());
        } else {
            let allowed: Vec<String> = lint
                .map(keys)
                .unwrap_or_default()
                .into_iter()
                .filter(|k| !RUN_KEYS.contains(&k.as_str()))
                .collect();
            errors.push(unknown(&format!("{at}: {k}"), k, &allowed));
        }
    }
    if errors.is_empty() {
        Ok((globs, keys_out))
    } else {
        Err(errors)
    }
}

/// The configuration keys of a command: its long flags, and `paths` when it has a list of
/// paths (`check` takes its schema and instances on the command line only).
fn keys(cmd: &Command) -> Vec<String> {
    let mut out: Vec<String> = cmd
        .get_arguments()
        .filter(|a| !a.is_hide_set())
        .filter_map(|a| a.get_long().map(str::to_owned))
        .filter(|l| l != "help" && l != "version" && l != "config" && l != "no-config")
        .collect();
    if cmd.get_arguments().any(|a| a.get_id() == "paths") {
        out.push("paths".to_owned());
    }
    out
}

fn is_key(cmd: &Command, key: &str) -> bool {
    keys(cmd).iter().any(|k| k == key)
}

/// The flags and the paths for `table`'s keys that the command line did not give.
fn apply(
    cmd: &Command,
    given: &ArgMatches,
    table: &Table,
    rebase: &dyn Fn(&str) -> String,
    errors: &mut Vec<String>,
) -> (Vec<OsString>, Vec<OsString>) {
    let mut out = Vec::new();
    let mut positional = Vec::new();
    for (key, value) in table {
        let Some(arg) = cmd.get_arguments().find(|a| {
            a.get_long() == Some(key.as_str()) || (key == "paths" && a.get_id() == "paths")
        }) else {
            continue;
        };
        let id = arg.get_id().as_str();
        if given.value_source(id) == Some(ValueSource::CommandLine) {
            continue;
        }
        let takes_path = matches!(key.as_str(), "paths" | "baseline" | "write-baseline");
        let values: Vec<String> = match value {
            Value::Array(list) => list.iter().filter_map(|v| scalar(key, v, errors)).collect(),
            v => scalar(key, v, errors).into_iter().collect(),
        };
        if !arg.get_action().takes_values() {
            match value {
                Value::Boolean(true) => out.push(OsString::from(format!("--{key}"))),
                Value::Boolean(false) => {}
                _ => errors.push(format!(
                    "`{key}` is a switch: write `{key} = true` or false"
                )),
            }
            continue;
        }
        for v in values {
            let v = if takes_path { rebase(&v) } else { v };
            if key == "paths" {
                positional.push(OsString::from(v));
            } else {
                out.push(OsString::from(format!("--{key}={v}")));
            }
        }
    }
    (out, positional)
}

fn scalar(key: &str, v: &Value, errors: &mut Vec<String>) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Integer(n) => Some(n.to_string()),
        Value::Float(f) => Some(f.to_string()),
        Value::Boolean(b) => Some(b.to_string()),
        _ => {
            errors.push(format!(
                "`{key}`: expected a string, a number or a list of them"
            ));
            None
        }
    }
}

/// `unknown key `x`; did you mean `y`?`
fn unknown(shown: &str, key: &str, known: &[String]) -> String {
    let kebab = key.replace('_', "-");
    let best = known
        .iter()
        .map(|k| (distance(&kebab, k), k))
        .filter(|(d, k)| *d <= 2.max(k.len() / 4))
        .min();
    match best {
        Some((_, k)) => format!("unknown key `{shown}`; did you mean `{k}`?"),
        None => format!(
            "unknown key `{shown}`; the keys are the flags of the command (see `schemalect help`)"
        ),
    }
}

/// Levenshtein distance, two rows.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut row = Vec::with_capacity(b.len() + 1);
        row.push(i + 1);
        for (j, cb) in b.iter().enumerate() {
            let sub = prev.get(j).copied().unwrap_or(0) + usize::from(ca != *cb);
            let del = prev.get(j + 1).copied().unwrap_or(0) + 1;
            let ins = row.last().copied().unwrap_or(0) + 1;
            row.push(sub.min(del).min(ins));
        }
        prev = row;
    }
    prev.last().copied().unwrap_or(0)
}

/// Keeps the files that `include` (when not empty) and not `exclude` match, their paths taken
/// relative to `base`; files named on the command line are always kept.
pub fn filter(
    items: Vec<crate::input::Item>,
    named: &[PathBuf],
    include: &[Glob],
    exclude: &[Glob],
    base: &Path,
) -> Vec<crate::input::Item> {
    if include.is_empty() && exclude.is_empty() {
        return items;
    }
    items
        .into_iter()
        .filter(|item| {
            let p = item.path();
            if named.iter().any(|n| n == p) {
                return true;
            }
            let rel = relative(p, base);
            (include.is_empty() || include.iter().any(|g| g.matches(&rel)))
                && !exclude.iter().any(|g| g.matches(&rel))
        })
        .collect()
}

/// `path` relative to `base`, `/`-separated (as given when it is not under `base`).
pub fn relative(path: &Path, base: &Path) -> String {
    let abs = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().map_or_else(|_| path.to_path_buf(), |c| c.join(path))
    };
    let rel = abs.strip_prefix(base).unwrap_or(path);
    let parts: Vec<String> = rel
        .components()
        .filter(|c| !matches!(c, std::path::Component::CurDir))
        .map(|c| match c {
            std::path::Component::RootDir => String::new(),
            c => c.as_os_str().to_string_lossy().into_owned(),
        })
        .collect();
    parts.join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn did_you_mean() {
        let known: Vec<String> = ["min-level", "max-results", "profile", "target"]
            .map(String::from)
            .to_vec();
        assert_eq!(
            unknown("min_level", "min_level", &known),
            "unknown key `min_level`; did you mean `min-level`?"
        );
        assert_eq!(
            unknown("profil", "profil", &known),
            "unknown key `profil`; did you mean `profile`?"
        );
        assert!(unknown("zzz", "zzz", &known).contains("the keys are the flags"));
        assert_eq!(distance("kitten", "sitting"), 3);
    }

    #[test]
    fn relative_paths_use_slashes() {
        let base = Path::new("/r");
        assert_eq!(relative(Path::new("/r/a/b.json"), base), "a/b.json");
        assert_eq!(
            relative(Path::new("/elsewhere/b.json"), base),
            "/elsewhere/b.json"
        );
    }
}
