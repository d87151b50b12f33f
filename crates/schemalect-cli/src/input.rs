//! Input files: discovery (files and directories, deterministic order), reading (size limit,
//! UTF-8, JSON with line and column), and the kind of each file (plain schema, test-suite file,
//! benchmark-style object) with its groups.

use crate::locate::LineIndex;
use crate::skim::Skimmed;
use schemalect::json::{Id, Tree};
use schemalect::{subset::ParseOptions, Schema, SubsetError};
use serde_json::Value;
use std::collections::HashSet;
use std::fmt;
use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// The default of `--max-file-size`: 64 MiB.
pub const DEFAULT_MAX_FILE_SIZE: u64 = 64 << 20;

/// Nesting deeper than this is refused by the JSON reader (serde_json's recursion limit).
const JSON_NESTING_LIMIT: usize = 128;

/// What a file holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Kind {
    /// A JSON Schema.
    Schema,
    /// A test-suite file: a list of `{description, schema, tests}` groups.
    Suite,
    /// A benchmark-style object `{schema, tests}`.
    Bench,
}

/// One path to process, or why a command-line path yields nothing to process.
#[derive(Debug)]
pub enum Item {
    /// A file (or `-` for standard input).
    File(PathBuf),
    /// A path that could not be used.
    Problem(PathBuf, InputError),
}

impl Item {
    /// The path.
    pub fn path(&self) -> &Path {
        match self {
            Item::File(p) | Item::Problem(p, _) => p,
        }
    }

    /// The path as it is shown in reports.
    pub fn display(&self) -> String {
        match self {
            Item::File(p) | Item::Problem(p, _) => display_path(p),
        }
    }
}

/// A path as reports show it: as given (joined under its directory argument); `-` is `<stdin>`.
pub fn display_path(p: &Path) -> String {
    if is_stdin(p) {
        "<stdin>".to_owned()
    } else {
        p.to_string_lossy().into_owned()
    }
}

fn is_stdin(p: &Path) -> bool {
    p.as_os_str() == "-"
}

/// Why a file could not be used. Each is reported against its file; the others go on.
#[derive(Debug)]
pub enum InputError {
    /// The path could not be opened, read or listed.
    Io(io::Error),
    /// A directory without any `*.json` file under it.
    EmptyDir,
    /// Larger than `--max-file-size`.
    TooLarge {
        /// The size, when known (a stream is only known to be longer than the limit).
        size: Option<u64>,
        /// The limit, in bytes.
        max: u64,
    },
    /// Not UTF-8.
    NotUtf8 {
        /// Byte offset of the first invalid byte.
        offset: usize,
        /// 1-based line of that byte.
        line: usize,
        /// 1-based column (characters) of that byte.
        column: usize,
    },
    /// Not JSON.
    Json {
        /// 1-based line.
        line: usize,
        /// 1-based column (characters).
        column: usize,
        /// The reader's message.
        message: String,
    },
    /// The file does not have the shape of its (given or detected) kind.
    Shape(String),
}

impl InputError {
    /// Line and column, when the error has a place in the file.
    pub fn position(&self) -> Option<(usize, usize)> {
        match self {
            InputError::NotUtf8 { line, column, .. } | InputError::Json { line, column, .. } => {
                Some((*line, *column))
            }
            _ => None,
        }
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputError::Io(e) if e.kind() == io::ErrorKind::NotFound => {
                f.write_str("no such file or directory")
            }
            InputError::Io(e) => write!(f, "cannot read: {e}"),
            InputError::EmptyDir => f.write_str("no *.json files in this directory"),
            InputError::TooLarge { size, max } => {
                let suggest = size_hint(size.unwrap_or(*max));
                let size = match size {
                    Some(n) => format!("file is {}", human_size(*n)),
                    None => format!("input is longer than {}", human_size(*max)),
                };
                write!(
                    f,
                    "{size}, over --max-file-size {}; if the file is trusted, raise the limit (e.g. --max-file-size {suggest})",
                    human_size(*max)
                )
            }
            InputError::NotUtf8 { offset, .. } => write!(
                f,
                "not UTF-8 text: invalid byte at byte offset {offset}; JSON files must be UTF-8"
            ),
            InputError::Json { message, .. } => write!(f, "invalid JSON: {message}"),
            InputError::Shape(m) => f.write_str(m),
        }
    }
}

/// A limit to suggest: the next power of two above `n` (the file size, or the current limit).
fn size_hint(n: u64) -> String {
    human_size(
        n.saturating_add(1)
            .checked_next_power_of_two()
            .unwrap_or(u64::MAX),
    )
}

/// Sizes as people read them: `64MiB`, `1.5MiB`, `800B`.
pub fn human_size(n: u64) -> String {
    const UNITS: [(&str, u64); 3] = [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)];
    for (unit, size) in UNITS {
        if n >= size {
            return if n % size == 0 {
                format!("{}{unit}", n / size)
            } else {
                format!("{:.1}{unit}", n as f64 / size as f64)
            };
        }
    }
    format!("{n}B")
}

/// Expands the command-line paths: files as given; directories searched recursively for
/// `*.json` (names sorted, hidden entries skipped, symlink loops cut). Problems keep their place.
pub fn discover(paths: &[PathBuf]) -> Vec<Item> {
    let mut out = Vec::new();
    for p in paths {
        if is_stdin(p) {
            out.push(Item::File(p.clone()));
            continue;
        }
        match fs::metadata(p) {
            Err(e) => out.push(Item::Problem(p.clone(), InputError::Io(e))),
            Ok(m) if m.is_dir() => {
                let before = out.len();
                let mut seen = HashSet::new();
                walk(p, &mut out, &mut seen);
                if out.len() == before {
                    out.push(Item::Problem(p.clone(), InputError::EmptyDir));
                }
            }
            Ok(_) => out.push(Item::File(p.clone())),
        }
    }
    out
}

fn walk(dir: &Path, out: &mut Vec<Item>, seen: &mut HashSet<PathBuf>) {
    if let Ok(real) = fs::canonicalize(dir) {
        if !seen.insert(real) {
            return;
        }
    }
    let entries = match fs::read_dir(dir) {
        Ok(rd) => rd.collect::<Result<Vec<_>, _>>(),
        Err(e) => Err(e),
    };
    let entries = match entries {
        Ok(e) => e,
        Err(e) => {
            out.push(Item::Problem(dir.to_path_buf(), InputError::Io(e)));
            return;
        }
    };
    // Each name is taken once: `DirEntry::file_name` allocates, and a sort by it called it
    // twice per comparison (14 M instructions for a folder of 4,439 files, before any work).
    let mut entries: Vec<_> = entries.into_iter().map(|e| (e.file_name(), e)).collect();
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    for (name, entry) in entries {
        let name = name.as_encoded_bytes();
        if name.first() == Some(&b'.') {
            continue;
        }
        let path = entry.path();
        // The entry's type as the directory listing gives it costs no call; a link (or an
        // entry whose type the listing leaves open) is followed, as before.
        let kind = match entry.file_type() {
            Ok(t) if t.is_dir() => Ok(true),
            Ok(t) if t.is_file() => Ok(false),
            _ => fs::metadata(&path).map(|m| m.is_dir()),
        };
        match kind {
            Ok(true) => walk(&path, out, seen),
            Ok(false) if is_json_name(name) => out.push(Item::File(path)),
            Ok(false) => {}
            // A dangling link named *.json is worth a message; other names are not ours.
            Err(e) if is_json_name(name) => out.push(Item::Problem(path, InputError::Io(e))),
            Err(_) => {}
        }
    }
}

/// Whether a file name (not starting with a dot) has the extension `json`, in any case: read
/// off its bytes, where `Path::extension` would parse the whole path for each of thousands
/// of names.
fn is_json_name(name: &[u8]) -> bool {
    name.len() > ".json".len()
        && name
            .get(name.len() - ".json".len()..)
            .is_some_and(|end| end.eq_ignore_ascii_case(b".json"))
}

/// A file read and parsed as JSON, with its text kept for locating keywords.
#[derive(Debug)]
pub struct Document {
    /// The text (without a leading byte-order mark).
    pub text: String,
    /// The parsed value.
    pub value: Value,
}

/// Reads `path` (`-`: standard input) as UTF-8 text of at most `max` bytes.
pub fn read_text(path: &Path, max: u64) -> Result<String, InputError> {
    let mut bytes = Vec::new();
    // One byte past the limit, to tell a file at the limit from a larger one.
    let mut limit = max.saturating_add(1);
    if is_stdin(path) {
        io::stdin()
            .lock()
            .take(limit)
            .read_to_end(&mut bytes)
            .map_err(InputError::Io)?;
    } else {
        let file = fs::File::open(path).map_err(InputError::Io)?;
        if let Ok(m) = file.metadata() {
            if m.is_dir() {
                return Err(InputError::Io(io::Error::other("is a directory")));
            }
            if m.len() > max {
                return Err(InputError::TooLarge {
                    size: Some(m.len()),
                    max,
                });
            }
            // The whole file in one read into a buffer of its size (one byte more, so that
            // the buffer need not grow to see the end).
            bytes.reserve_exact(usize::try_from(m.len()).unwrap_or(0).saturating_add(1));
            if m.is_file() && m.len() > 0 {
                // A regular file is read up to the size its metadata gave, and no further:
                // the read that would only find the end is left out (a `lower` of 4,439
                // files made 9,262 reads, half of them finding the end). A file that grew
                // after that look is read as it was then; one that shrank ends where its
                // read finds the end.
                limit = m.len();
            }
        }
        file.take(limit)
            .read_to_end(&mut bytes)
            .map_err(InputError::Io)?;
    }
    if bytes.len() as u64 > max {
        return Err(InputError::TooLarge { size: None, max });
    }
    let mut text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let offset = e.utf8_error().valid_up_to();
            let valid = e.as_bytes().get(..offset).unwrap_or_default();
            // The prefix is valid UTF-8 by construction.
            let prefix = std::str::from_utf8(valid).unwrap_or_default();
            let (line, column) = LineIndex::new(prefix).position(offset);
            return Err(InputError::NotUtf8 {
                offset,
                line,
                column,
            });
        }
    };
    if text.starts_with('\u{feff}') {
        text.drain(..'\u{feff}'.len_utf8());
    }
    Ok(text)
}

/// Reads and parses `path`.
pub fn load(path: &Path, max: u64) -> Result<Document, InputError> {
    let text = read_text(path, max)?;
    let value = parse_json(&text)?;
    Ok(Document { text, value })
}

/// [`load`] for the commands that read only the schemas of a file (`lint`, `lower`), from its
/// text ([`read_text`]): the contents of each group's `tests` and `meta` are checked as JSON
/// but not kept, and its `schema` is read into a tree ([`crate::skim`]), unless the document
/// is read as one plain schema (of `kind`, or of the shape detected when `None`), which is
/// then parsed whole. Its groups are [`schema_groups`].
pub fn load_schemas(text: &str, kind: Option<Kind>) -> Result<Skimmed<'_>, InputError> {
    let skimmed = crate::skim::from_str(text).map_err(|e| json_error(text, e))?;
    // A plain schema with a `tests`, `meta` or `schema` member is parsed again whole. Its
    // root keys are the ones the skim saw, but its root is the schema itself, which the
    // locator walks into for finding after finding: the root's members read once and kept
    // serve that better than reading them again up to each name (`root_keys_unique` false:
    // passing the skim's flag through cost 0.6 % more instructions in a SARIF lint of the
    // shared corpus).
    if skimmed.skipped && kind.unwrap_or_else(|| detect(&skimmed.value)) == Kind::Schema {
        return Ok(Skimmed {
            value: parse_json(text)?,
            skipped: false,
            root_keys_unique: false,
            tree: Tree::new(),
            schemas: Vec::new(),
        });
    }
    Ok(skimmed)
}

/// Parses JSON text, with the error's line and column in characters.
pub fn parse_json(text: &str) -> Result<Value, InputError> {
    serde_json::from_str(text).map_err(|e| json_error(text, e))
}

/// A parse error of `text`, with its line and column in characters.
fn json_error(text: &str, e: serde_json::Error) -> InputError {
    let full = e.to_string();
    let mut message = match full.rfind(" at line ") {
        Some(i) => full.get(..i).unwrap_or(&full).to_owned(),
        None => full,
    };
    if text.trim().is_empty() {
        message = "the file is empty; a JSON value was expected".to_owned();
    } else if message == "recursion limit exceeded" {
        message = format!(
            "nested deeper than {JSON_NESTING_LIMIT} levels; such documents are refused before any schema limit applies"
        );
    }
    let (line, column) = if e.line() == 0 {
        (1, 1)
    } else {
        LineIndex::new(text).char_column(e.line(), e.column())
    };
    InputError::Json {
        line,
        column,
        message,
    }
}

/// Where a group's schema sits in its document.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// The whole document is the schema.
    Root,
    /// `/schema` of a benchmark-style object.
    Bench,
    /// `/N/schema` of a test-suite file.
    Suite(usize),
}

impl Place {
    /// The pointer tokens from the document root to the schema.
    pub fn tokens(self) -> Vec<String> {
        match self {
            Place::Root => Vec::new(),
            Place::Bench => vec!["schema".to_owned()],
            Place::Suite(i) => vec![i.to_string(), "schema".to_owned()],
        }
    }
}

/// A group's schema: a value of the document, or one read into a tree ([`crate::skim`]).
#[derive(Clone, Copy, Debug)]
pub enum Source<'a> {
    /// A value of the document.
    Value(&'a Value),
    /// A value of the document's tree.
    Tree(&'a Tree<'a>, Id),
}

impl Source<'_> {
    /// Parses the schema: [`Schema::parse_with`] of it, wherever it is.
    pub fn parse(self, options: &ParseOptions) -> Result<Schema, SubsetError> {
        match self {
            Source::Value(v) => Schema::parse_with(v, options),
            Source::Tree(tree, id) => Schema::parse_tree(tree, id, options),
        }
    }

    /// The schema as a `Value`.
    #[cfg(test)]
    pub fn to_value(self) -> Value {
        match self {
            Source::Value(v) => v.clone(),
            Source::Tree(tree, id) => tree.to_value(id),
        }
    }
}

/// One schema of a file, with its tests.
#[derive(Debug)]
pub struct Group<'a> {
    /// 0-based index in the file (0 for plain and benchmark-style files).
    pub index: usize,
    /// The group's `description`, when it has one.
    pub description: Option<&'a str>,
    /// The schema.
    pub schema: Source<'a>,
    /// The tests (none for a plain schema).
    pub tests: &'a [Value],
    /// Where the schema is in the document.
    pub place: Place,
}

/// One test of a group.
#[derive(Debug)]
pub struct TestCase<'a> {
    /// The instance, when the test has one.
    pub data: Option<&'a Value>,
    /// The label, when it is a boolean.
    pub valid: Option<bool>,
    /// The test's `description`.
    pub description: Option<&'a str>,
}

impl<'a> TestCase<'a> {
    /// Reads a test object; anything else has no data and no label.
    pub fn of(v: &'a Value) -> Self {
        TestCase {
            data: v.get("data"),
            valid: v.get("valid").and_then(Value::as_bool),
            description: v.get("description").and_then(Value::as_str),
        }
    }
}

fn is_group(v: &Value) -> bool {
    v.get("schema").is_some() && v.get("tests").is_some_and(Value::is_array)
}

/// The kind of a document by its shape.
pub fn detect(value: &Value) -> Kind {
    match value {
        Value::Array(items) if !items.is_empty() && items.iter().all(is_group) => Kind::Suite,
        Value::Object(_) if is_group(value) => Kind::Bench,
        _ => Kind::Schema,
    }
}

fn group_of(v: &Value, index: usize, place: Place) -> Result<Group<'_>, InputError> {
    let Some(obj) = v.as_object() else {
        return Err(InputError::Shape(format!(
            "group {index} is not an object with `schema` and `tests`"
        )));
    };
    let Some(schema) = obj.get("schema") else {
        return Err(InputError::Shape(format!("group {index} has no `schema`")));
    };
    let tests = match obj.get("tests") {
        None | Some(Value::Null) => &[][..],
        Some(Value::Array(t)) => t.as_slice(),
        Some(_) => {
            return Err(InputError::Shape(format!(
                "group {index}: `tests` must be a list"
            )))
        }
    };
    Ok(Group {
        index,
        description: obj.get("description").and_then(Value::as_str),
        schema: Source::Value(schema),
        tests,
        place,
    })
}

/// The groups of a document loaded by [`load_schemas`], their schemas read from its tree.
pub fn schema_groups<'d>(
    doc: &'d Skimmed<'_>,
    kind: Option<Kind>,
) -> Result<Vec<Group<'d>>, InputError> {
    let mut groups = groups(&doc.value, kind)?;
    for g in &mut groups {
        let item = match g.place {
            Place::Root => continue,
            Place::Bench => None,
            Place::Suite(i) => Some(i),
        };
        if let Some(id) = doc.schema(item) {
            g.schema = Source::Tree(&doc.tree, id);
        }
    }
    Ok(groups)
}

/// The groups of a document of the given kind (detected when `None`).
pub fn groups(value: &Value, kind: Option<Kind>) -> Result<Vec<Group<'_>>, InputError> {
    match kind.unwrap_or_else(|| detect(value)) {
        Kind::Schema => Ok(vec![Group {
            index: 0,
            description: None,
            schema: Source::Value(value),
            tests: &[],
            place: Place::Root,
        }]),
        Kind::Bench => {
            if !value.is_object() {
                return Err(InputError::Shape(
                    "not a benchmark-style file: expected an object `{schema, tests}`".to_owned(),
                ));
            }
            Ok(vec![group_of(value, 0, Place::Bench)?])
        }
        Kind::Suite => match value {
            Value::Array(items) => items
                .iter()
                .enumerate()
                .map(|(i, g)| group_of(g, i, Place::Suite(i)))
                .collect(),
            _ => Err(InputError::Shape(
                "not a test-suite file: expected a list of `{description, schema, tests}` groups"
                    .to_owned(),
            )),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A regular file is read whole from one look at its size, up to the limit and not past
    /// it; a file whose metadata gives no size (a named pipe) is read to its end.
    #[cfg(unix)]
    #[test]
    fn files_are_read_whole_up_to_the_limit() {
        let dir = std::env::temp_dir().join(format!("schemalect-read-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("temp dir");
        for len in [1usize, 7, 8191, 8192, 8193, 70_000] {
            let p = dir.join(format!("{len}.json"));
            let text: String = (0..len)
                .map(|i| char::from(b'a' + (i % 26) as u8))
                .collect();
            fs::write(&p, &text).expect("written");
            assert_eq!(read_text(&p, len as u64).expect("at the limit"), text);
            assert!(matches!(
                read_text(&p, len as u64 - 1),
                Err(InputError::TooLarge { size: Some(s), .. }) if s == len as u64
            ));
        }
        let empty = dir.join("empty.json");
        fs::write(&empty, "").expect("written");
        assert_eq!(read_text(&empty, 10).expect("empty"), "");
        let fifo = dir.join("pipe.json");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            let writer = {
                let fifo = fifo.clone();
                std::thread::spawn(move || fs::write(fifo, "[1, 2]").expect("written"))
            };
            assert_eq!(read_text(&fifo, 100).expect("pipe"), "[1, 2]");
            writer.join().expect("writer");
        }
        let _ = fs::remove_dir_all(&dir);
    }

    /// `root_keys_unique` is the skim's answer (no root key repeated), except for a plain
    /// schema that happens to have a `tests` member: it is parsed again whole, and the locator
    /// reads its root whole and keeps it, which serves finding after finding in the schema
    /// better than reading up to each name again.
    #[test]
    fn a_root_repeating_no_key_is_read_up_to_a_member_unless_parsed_again() {
        use Kind::{Bench, Schema, Suite};
        let cases = [
            (r#"{"schema": {}, "tests": [{"data": 1}]}"#, Bench, true),
            (r#"{"type": "object", "tests": [1, 2]}"#, Schema, false),
            (r#"{"type": "a", "tests": [1], "type": "b"}"#, Schema, false),
            (r#"{"schema": {}, "tests": [], "schema": 1}"#, Bench, false),
            (r#"{"type": "object", "title": "t"}"#, Schema, true),
            (r#"[{"schema": {}, "tests": []}]"#, Suite, false),
        ];
        for (text, kind, unique) in cases {
            let doc = load_schemas(text, None).expect("loads");
            assert_eq!(detect(&doc.value), kind, "{text}");
            assert_eq!(doc.root_keys_unique, unique, "{text}");
            let full = parse_json(text).expect("valid");
            if kind == Schema {
                assert_eq!(doc.value, full, "{text}");
                assert!(doc.schemas.is_empty(), "{text}");
            }
            // Every group's schema is the document's, wherever it was read.
            let (a, b) = (schema_groups(&doc, None), groups(&full, None));
            let schemas =
                |g: Vec<Group<'_>>| g.iter().map(|g| g.schema.to_value()).collect::<Vec<_>>();
            assert_eq!(a.map(schemas).ok(), b.map(schemas).ok(), "{text}");
        }
    }

    /// Directories are searched by the types their listings give, and links are followed:
    /// a link to a file or to a folder counts as what it points to, a dangling `*.json` link
    /// is a problem, a loop is cut, hidden entries and other names are skipped.
    #[cfg(unix)]
    #[test]
    fn discovery_follows_links_and_skips_what_is_not_ours() {
        use std::os::unix::fs::symlink;
        let dir = std::env::temp_dir().join(format!("schemalect-discover-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let sub = dir.join("sub");
        fs::create_dir_all(&sub).expect("temp dir");
        for f in [
            dir.join("a.json"),
            sub.join("b.JSON"),
            dir.join(".hidden.json"),
        ] {
            fs::write(f, "{}").expect("write");
        }
        fs::write(dir.join("notes.txt"), "").expect("write");
        symlink(dir.join("a.json"), dir.join("c.json")).expect("link");
        symlink(dir.join("missing.json"), dir.join("d.json")).expect("link");
        symlink(&dir, sub.join("loop")).expect("link");
        let found: Vec<String> = discover(std::slice::from_ref(&dir))
            .iter()
            .map(|item| match item {
                Item::File(p) => format!("file {}", p.strip_prefix(&dir).unwrap_or(p).display()),
                Item::Problem(p, _) => {
                    format!("problem {}", p.strip_prefix(&dir).unwrap_or(p).display())
                }
            })
            .collect();
        let _ = fs::remove_dir_all(&dir);
        assert_eq!(
            found,
            [
                "file a.json",
                "file c.json",
                "problem d.json",
                "file sub/b.JSON"
            ]
        );
    }

    #[test]
    fn detects_kinds() {
        assert_eq!(detect(&json!({"type": "string"})), Kind::Schema);
        assert_eq!(detect(&json!({"schema": {}, "tests": []})), Kind::Bench);
        assert_eq!(detect(&json!({"schema": {}, "tests": 3})), Kind::Schema);
        assert_eq!(
            detect(&json!([{"description": "d", "schema": {}, "tests": []}])),
            Kind::Suite
        );
        assert_eq!(detect(&json!([])), Kind::Schema);
        assert_eq!(
            detect(&json!([{"schema": {}, "tests": []}, 1])),
            Kind::Schema
        );
    }

    #[test]
    fn forced_kinds_check_the_shape() {
        let v = json!({"type": "string"});
        assert!(groups(&v, Some(Kind::Suite)).is_err());
        assert!(groups(&v, Some(Kind::Bench)).is_err());
        let v = json!([{"schema": true}, {"tests": []}]);
        let e = groups(&v, Some(Kind::Suite)).unwrap_err().to_string();
        assert_eq!(e, "group 1 has no `schema`");
        let v = json!([{"schema": true}]);
        let g = groups(&v, Some(Kind::Suite)).unwrap();
        assert_eq!(g[0].tests.len(), 0);
        assert_eq!(g[0].place, Place::Suite(0));
    }

    #[test]
    fn json_names_are_told_from_their_bytes_as_by_their_extension() {
        for name in [
            "a.json",
            "A.JSON",
            "b.Json",
            "..json",
            "é.json",
            "json",
            "a.jsonx",
            "a.json.bak",
            "ajson",
            "a.js",
            "a.json ",
            "x.schema.json",
        ] {
            assert_eq!(
                is_json_name(name.as_bytes()),
                Path::new(name)
                    .extension()
                    .is_some_and(|e| e.eq_ignore_ascii_case("json")),
                "{name}"
            );
        }
        // A dot file is skipped before its name is asked about; its bytes alone say no.
        assert!(!is_json_name(b".json"));
    }

    #[test]
    fn json_errors_have_character_columns() {
        let e = parse_json("{\"é\": tru}").unwrap_err();
        assert_eq!(e.position(), Some((1, 10)));
        let e = parse_json("{\n  \"a\": 1,\n}").unwrap_err();
        assert_eq!(e.position(), Some((3, 1)));
        let e = parse_json(" \n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid JSON: the file is empty; a JSON value was expected"
        );
        let deep = "[".repeat(1000);
        let e = parse_json(&deep).unwrap_err();
        assert!(
            e.to_string().contains("nested deeper than 128 levels"),
            "{e}"
        );
    }

    #[test]
    fn sizes_read_well() {
        assert_eq!(human_size(64 << 20), "64MiB");
        assert_eq!(human_size(1536 << 10), "1.5MiB");
        assert_eq!(human_size(10), "10B");
    }
}
