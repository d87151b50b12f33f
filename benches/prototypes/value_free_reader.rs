//! A measurement for issue 21's next structural step: what reading a folder's schemas into
//! `serde_json::Value`s costs, against reading them into a borrowed arena (no `IndexMap`, no
//! SipHash, no allocation for a string without escapes), against only checking them as JSON
//! (docs/benchmarks.md, "What a reader without `Value`s would save").
//!
//!   value_free_reader MODE DIR      MODE: none | skip | value | arena
//!
//! Reads every file of DIR (a JSONSchemaBench-style folder: each file an object with a
//! `schema` member), takes each `schema` member's text, then per MODE: nothing more (`none`,
//! the baseline of the reading itself), checks it (`skip`, serde_json's `IgnoredAny`), builds
//! and drops a `Value` (`value`, as `schemalect` does today), or builds and drops an arena of
//! nodes whose strings borrow the text (`arena`). Run each mode under `valgrind
//! --tool=callgrind` and subtract `none`. Not part of the workspace; built on its own with
//!
//!   [dependencies]
//!   serde = { version = "1", features = ["derive"] }
//!   serde_json = { version = "1", features = ["preserve_order", "raw_value"] }
//!   mimalloc = { version = "0.1.52", default-features = false }
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::fmt;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// A benchmark file: only its schema's text is taken.
#[derive(serde::Deserialize)]
struct File<'a> {
    #[serde(borrow)]
    schema: &'a RawValue,
}

/// A node of the arena. Containers name their children's span in [`Arena::children`].
// The scalars are what a parser would read; this program only builds them.
#[allow(dead_code)]
enum Node<'a> {
    Null,
    Bool(bool),
    Number(serde_json::Number),
    String(Cow<'a, str>),
    List { first: u32, len: u32 },
    Object { first: u32, len: u32 },
}

/// A document as nodes and children, its strings borrowed where they have no escape.
#[derive(Default)]
struct Arena<'a> {
    nodes: Vec<Node<'a>>,
    /// The children of every container, each span contiguous: (name, node); the name is empty
    /// for a list's item.
    children: Vec<(Cow<'a, str>, u32)>,
    /// The children of the containers still open, gathered before their span is written.
    pending: Vec<(Cow<'a, str>, u32)>,
}

impl<'a> Arena<'a> {
    fn push(&mut self, node: Node<'a>) -> u32 {
        self.nodes.push(node);
        u32::try_from(self.nodes.len() - 1).unwrap_or(u32::MAX)
    }

    /// Moves the pending children from `start` into one span: (first, len).
    fn close(&mut self, start: usize) -> (u32, u32) {
        let first = u32::try_from(self.children.len()).unwrap_or(u32::MAX);
        let len = u32::try_from(self.pending.len() - start).unwrap_or(u32::MAX);
        self.children.extend(self.pending.drain(start..));
        (first, len)
    }
}

/// Parses one value into the arena: its node's index.
struct Into<'r, 'a>(&'r mut Arena<'a>);

impl<'de> DeserializeSeed<'de> for Into<'_, 'de> {
    type Value = u32;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<u32, D::Error> {
        d.deserialize_any(self)
    }
}

/// A member name, borrowed when it has no escape.
struct Name<'a>(Cow<'a, str>);

impl<'de> serde::Deserialize<'de> for Name<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Name<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a member name")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Name<'de>, E> {
                Ok(Name(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Name<'de>, E> {
                Ok(Name(Cow::Owned(v.to_owned())))
            }
        }
        d.deserialize_str(V)
    }
}

impl<'de> Visitor<'de> for Into<'_, 'de> {
    type Value = u32;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E>(self) -> Result<u32, E> {
        Ok(self.0.push(Node::Null))
    }
    fn visit_bool<E>(self, v: bool) -> Result<u32, E> {
        Ok(self.0.push(Node::Bool(v)))
    }
    fn visit_u64<E>(self, v: u64) -> Result<u32, E> {
        Ok(self.0.push(Node::Number(v.into())))
    }
    fn visit_i64<E>(self, v: i64) -> Result<u32, E> {
        Ok(self.0.push(Node::Number(v.into())))
    }
    fn visit_f64<E>(self, v: f64) -> Result<u32, E> {
        let n = serde_json::Number::from_f64(v).unwrap_or_else(|| 0.into());
        Ok(self.0.push(Node::Number(n)))
    }
    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<u32, E> {
        Ok(self.0.push(Node::String(Cow::Borrowed(v))))
    }
    fn visit_str<E>(self, v: &str) -> Result<u32, E> {
        Ok(self.0.push(Node::String(Cow::Owned(v.to_owned()))))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<u32, A::Error> {
        let start = self.0.pending.len();
        while let Some(i) = seq.next_element_seed(Into(&mut *self.0))? {
            self.0.pending.push((Cow::Borrowed(""), i));
        }
        let (first, len) = self.0.close(start);
        Ok(self.0.push(Node::List { first, len }))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<u32, A::Error> {
        let start = self.0.pending.len();
        while let Some(Name(name)) = map.next_key()? {
            let i = map.next_value_seed(Into(&mut *self.0))?;
            self.0.pending.push((name, i));
        }
        let (first, len) = self.0.close(start);
        Ok(self.0.push(Node::Object { first, len }))
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(mode), Some(dir)) = (args.next(), args.next()) else {
        eprintln!("usage: value_free_reader none|skip|value|arena DIR");
        std::process::exit(2);
    };
    let mut files: Vec<_> = match std::fs::read_dir(&dir) {
        Ok(entries) => entries.filter_map(|e| e.ok().map(|e| e.path())).collect(),
        Err(e) => {
            eprintln!("{dir}: {e}");
            std::process::exit(2);
        }
    };
    files.sort();
    let texts: Vec<String> = files
        .iter()
        .filter_map(|f| std::fs::read_to_string(f).ok())
        .collect();
    let schemas: Vec<&str> = texts
        .iter()
        .filter_map(|t| serde_json::from_str::<File>(t).ok())
        .map(|f| f.schema.get())
        .collect();
    // Something of each result is counted, so that no mode is optimised away.
    let mut seen = 0usize;
    for s in &schemas {
        seen += match mode.as_str() {
            "none" => s.len(),
            "skip" => usize::from(serde_json::from_str::<IgnoredAny>(s).is_ok()),
            "value" => serde_json::from_str::<serde_json::Value>(s)
                .map_or(0, |v| v.as_object().map_or(1, |o| o.len())),
            "arena" => {
                let mut arena = Arena::default();
                let mut de = serde_json::Deserializer::from_str(s);
                Into(&mut arena)
                    .deserialize(&mut de)
                    .map_or(0, |_| arena.nodes.len())
            }
            other => {
                eprintln!("unknown mode {other}: none, skip, value or arena");
                std::process::exit(2);
            }
        };
    }
    println!("{mode}: {} schemas, {seen}", schemas.len());
}
