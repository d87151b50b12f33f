//! The golden corpus (`corpus/golden/`): project-written schemas, each with the lowering it is
//! expected to get on every target, written out as files that a reviewer reads in a diff.
//!
//! A case is a directory `corpus/golden/<case>/` holding:
//!
//! - `schema.json`: the schema;
//! - `case.json`: `{"about": "...", "subset": "adr126"|"extended", "options": {...}}` (`subset`
//!   defaults to `adr126`; `options` sets [`LowerOptions`] fields: `name`, `description`,
//!   `groq_strict`, `openrouter_require_parameters`, `claude_thinking`), and `oracle_source`: the
//!   same schema spelt by hand for the `jsonschema` crate, where it cannot read `schema.json`
//!   (an ECMA-262 Annex B pattern such as `[\w-.]`, which its regex engines reject);
//! - `valid.json`, `invalid.json` (optional): lists of instances the schema accepts / rejects;
//! - `<target>.json`: the conservative lowering, `{"mode", "wire", "losses"}`;
//! - `<target>.reshaping.json`: the reshaping-profile lowering, for the targets where the
//!   reshaping profile reshapes (`Lowering::is_reshaped`), with `encoded`: what the provider is
//!   asked for, for each valid instance. Where it does not reshape, the reshaping profile must
//!   give exactly the conservative lowering, and there is no such file.
//!
//! The expected files are only ever written when `SCHEMALECT_BLESS=1` is set (see [`bless`]).

use schemalect::{LowerOptions, Lowering, ParseOptions, Profile, Schema, Subset, Target};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// The environment switch that rewrites expectation files instead of comparing them.
pub const BLESS_VAR: &str = "SCHEMALECT_BLESS";

/// True when `SCHEMALECT_BLESS=1`. Unset (or `0`) compares; any other value is a mistake and
/// panics, so that a typo never blesses or compares silently.
pub fn bless() -> bool {
    match std::env::var(BLESS_VAR) {
        Err(_) => false,
        Ok(v) if v == "1" => true,
        Ok(v) if v.is_empty() || v == "0" => false,
        Ok(v) => {
            panic!("{BLESS_VAR}={v:?}: set it to 1 to rewrite the expected files, or unset it")
        }
    }
}

/// `corpus/golden` in the workspace.
pub fn golden_dir() -> PathBuf {
    crate::workspace_root().join("corpus").join("golden")
}

/// The files a case directory may hold besides the expectations.
pub const INPUT_FILES: &[&str] = &["schema.json", "case.json", "valid.json", "invalid.json"];

/// One golden case.
#[derive(Debug)]
pub struct Case {
    /// The directory name.
    pub name: String,
    /// The directory.
    pub dir: PathBuf,
    /// What the case is about (one sentence, from `case.json`).
    pub about: String,
    /// The schema as written.
    pub source: Value,
    /// The subset it is parsed under.
    pub subset: Subset,
    /// The lowering options.
    pub options: LowerOptions,
    /// The schema as the `jsonschema` crate is given it: `schema.json`, or the hand-written
    /// `oracle_source` of `case.json` with the same meaning where the crate cannot read it.
    pub oracle_source: Value,
    /// Instances the schema accepts.
    pub valid: Vec<Value>,
    /// Instances the schema rejects.
    pub invalid: Vec<Value>,
}

impl Case {
    /// The schema, parsed under the case's subset.
    pub fn parse(&self) -> Result<Schema, String> {
        Schema::parse_with(
            &self.source,
            &ParseOptions::default().with_subset(self.subset),
        )
        .map_err(|e| {
            format!(
                "{}: the schema is outside the {} subset: {e}",
                self.name,
                self.subset.name()
            )
        })
    }

    /// The options for a profile.
    pub fn options_for(&self, profile: Profile) -> LowerOptions {
        self.options.clone().with_profile(profile)
    }
}

fn read_json(path: &Path) -> Result<Value, String> {
    let text = fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

fn read_list(path: &Path) -> Result<Vec<Value>, String> {
    if !path.exists() {
        return Ok(Vec::new());
    }
    match read_json(path)? {
        Value::Array(list) => Ok(list),
        _ => Err(format!("{}: must be a list of instances", path.display())),
    }
}

fn options_of(name: &str, v: Option<&Value>) -> Result<LowerOptions, String> {
    let mut o = LowerOptions::default();
    let Some(v) = v else { return Ok(o) };
    let Value::Object(m) = v else {
        return Err(format!("{name}: case.json `options` must be an object"));
    };
    for (k, v) in m {
        let bad = || format!("{name}: case.json option `{k}` has the wrong type: {v}");
        o = match (k.as_str(), v) {
            ("name", Value::String(s)) => o.with_name(s.clone()),
            ("description", Value::String(s)) => o.with_description(s.clone()),
            ("groq_strict", Value::Bool(b)) => o.with_groq_strict(*b),
            ("openrouter_require_parameters", Value::Bool(b)) => {
                o.with_openrouter_require_parameters(*b)
            }
            ("claude_thinking", Value::Bool(b)) => o.with_claude_thinking(*b),
            (
                "name"
                | "description"
                | "groq_strict"
                | "openrouter_require_parameters"
                | "claude_thinking",
                _,
            ) => return Err(bad()),
            _ => return Err(format!("{name}: unknown case.json option `{k}`")),
        };
    }
    Ok(o)
}

/// Loads one case directory.
pub fn load_case(dir: &Path) -> Result<Case, String> {
    let name = dir
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| format!("{}: not a UTF-8 name", dir.display()))?
        .to_owned();
    let meta = read_json(&dir.join("case.json"))?;
    let Value::Object(meta) = meta else {
        return Err(format!("{name}: case.json must be an object"));
    };
    for k in meta.keys() {
        if !["about", "subset", "options", "oracle_source"].contains(&k.as_str()) {
            return Err(format!("{name}: unknown case.json member `{k}`"));
        }
    }
    let about = meta
        .get("about")
        .and_then(Value::as_str)
        .filter(|s| !s.trim().is_empty())
        .ok_or_else(|| format!("{name}: case.json needs a non-empty `about`"))?
        .to_owned();
    let subset = match meta.get("subset") {
        None => Subset::Adr126,
        Some(Value::String(s)) => Subset::from_name(s).ok_or_else(|| {
            format!("{name}: case.json `subset` must be adr126, extended or full")
        })?,
        Some(other) => {
            return Err(format!(
                "{name}: case.json `subset` is not a string: {other}"
            ))
        }
    };
    let source = read_json(&dir.join("schema.json"))?;
    Ok(Case {
        about,
        oracle_source: meta.get("oracle_source").unwrap_or(&source).clone(),
        source,
        subset,
        options: options_of(&name, meta.get("options"))?,
        valid: read_list(&dir.join("valid.json"))?,
        invalid: read_list(&dir.join("invalid.json"))?,
        dir: dir.to_owned(),
        name,
    })
}

/// Every case directory under `corpus/golden`, by name.
pub fn case_dirs() -> Vec<PathBuf> {
    let root = golden_dir();
    let mut dirs: Vec<PathBuf> = fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

/// The file name of an expectation.
pub fn expectation_file(target: Target, profile: Profile) -> String {
    match profile {
        Profile::Conservative => format!("{}.json", target.name()),
        _ => format!("{}.{}.json", target.name(), profile.name()),
    }
}

/// Every file name an expectation could have (whether or not the case needs it).
pub fn all_expectation_files() -> Vec<String> {
    let mut out = Vec::new();
    for t in Target::ALL {
        for p in Profile::ALL {
            out.push(expectation_file(t, p));
        }
    }
    out
}

/// A lowering as a golden file records it: mode, wire, losses (and, when reshaped, the value
/// asked of the provider for each valid instance).
pub fn record(lowering: &Lowering, valid: &[Value]) -> Result<Value, String> {
    let losses: Vec<Value> = lowering
        .losses()
        .iter()
        .map(|l| {
            json!({
                "pointer": l.pointer.as_str(),
                "keyword": &*l.keyword,
                "reason": &*l.reason,
            })
        })
        .collect();
    let mut out = Map::new();
    out.insert("mode".into(), Value::from(lowering.mode().name()));
    out.insert("wire".into(), lowering.wire().clone());
    out.insert("losses".into(), Value::Array(losses));
    if lowering.is_reshaped() {
        let encoded = valid
            .iter()
            .map(|x| lowering.encode(x).map_err(|e| format!("encode {x}: {e}")))
            .collect::<Result<Vec<_>, _>>()?;
        out.insert("encoded".into(), Value::Array(encoded));
    }
    Ok(Value::Object(out))
}

/// The canonical text of an expectation: pretty JSON with a final newline.
pub fn render(v: &Value) -> String {
    let mut s = serde_json::to_string_pretty(v).unwrap_or_else(|e| panic!("{e}"));
    s.push('\n');
    s
}

/// The expectation files a case needs, by file name, with their text.
///
/// Conservative: one per target. Reshaping: one per target whose reshaping lowering reshapes.
/// For the other targets the reshaping profile must give exactly the conservative lowering;
/// where it does not, the target and both texts are in `mismatched`.
#[derive(Debug, Default)]
pub struct Expectations {
    /// File name → text.
    pub files: BTreeMap<String, String>,
    /// `(target, conservative text, reshaping text)` where the reshaping profile does not
    /// reshape yet lowers differently.
    pub mismatched: Vec<(Target, String, String)>,
}

/// The expectations of a case, computed from the library.
pub fn expectations(case: &Case) -> Result<Expectations, String> {
    let schema = case.parse()?;
    let mut out = Expectations::default();
    for target in Target::ALL {
        let conservative = schema.lower(target, &case.options_for(Profile::Conservative));
        let reshaping = schema.lower(target, &case.options_for(Profile::Reshaping));
        let c = render(&record(&conservative, &case.valid)?);
        let r = render(&record(&reshaping, &case.valid)?);
        if reshaping.is_reshaped() {
            out.files
                .insert(expectation_file(target, Profile::Reshaping), r);
        } else if r != c {
            out.mismatched.push((target, c.clone(), r));
        }
        out.files
            .insert(expectation_file(target, Profile::Conservative), c);
    }
    Ok(out)
}

/// The text a file holds, normalised as [`render`] writes it when it is JSON (so only
/// whitespace may differ from a blessed file without failing); as it is otherwise.
pub fn normalised(text: &str) -> String {
    match serde_json::from_str::<Value>(text) {
        Ok(v) => render(&v),
        Err(_) => text.to_owned(),
    }
}
