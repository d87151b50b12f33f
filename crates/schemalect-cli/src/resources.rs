//! `--resource URI=FILE` and `--resource-dir URI=DIR`: the documents `full` subset references
//! may point into, read from disk (nothing is fetched).

use serde_json::Value;
use std::fs;
use std::path::Path;

/// Every document the flags name, with its URI, or the first problem found.
pub fn load(files: &[String], dirs: &[String]) -> Result<Vec<(String, Value)>, String> {
    let mut out = Vec::new();
    for spec in files {
        let (uri, path) = split(spec, "--resource")?;
        out.push((uri.to_owned(), read(Path::new(path))?));
    }
    for spec in dirs {
        let (uri, dir) = split(spec, "--resource-dir")?;
        let base = if uri.ends_with('/') {
            uri.to_owned()
        } else {
            format!("{uri}/")
        };
        walk(Path::new(dir), &base, &mut out)?;
    }
    Ok(out)
}

fn split<'a>(spec: &'a str, flag: &str) -> Result<(&'a str, &'a str), String> {
    spec.split_once('=')
        .filter(|(u, p)| !u.is_empty() && !p.is_empty())
        .ok_or_else(|| format!("{flag} wants URI=PATH, found `{spec}`"))
}

fn read(path: &Path) -> Result<Value, String> {
    let text = fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

fn walk(dir: &Path, base: &str, out: &mut Vec<(String, Value)>) -> Result<(), String> {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for path in entries {
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        if path.is_dir() {
            walk(&path, &format!("{base}{name}/"), out)?;
        } else if path.extension().is_some_and(|x| x == "json") {
            out.push((format!("{base}{name}"), read(&path)?));
        }
    }
    Ok(())
}
