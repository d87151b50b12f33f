//! JSON text read into a borrowed tree: nodes in one list, every container's children in one
//! span of another, strings and member names borrowed from the text unless they hold an escape.
//!
//! serde_json reads the text (through serde's traits, as it reads a `Value`), so what is
//! accepted, every error and its position, the numbers and the nesting limit are serde_json's
//! own. What differs is only what is built: no `IndexMap`, no hashing of names, no allocation
//! for a clean string. A repeated member name keeps its first place and takes its last value,
//! as a `serde_json::Map` does, so the parser sees the same object either way.

use super::{Json, View};
use serde_core::de::{Deserialize, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

/// The trees made so far: each has its own number, which its ids carry.
static TREES: AtomicU64 = AtomicU64::new(0);

/// An object with more members than this finds repeated names by hashing them, so that a
/// hostile object costs linear time; a smaller one compares its names in turn.
const SCAN_MEMBERS: usize = 16;

/// JSON values read from text that outlives them, for [`crate::Schema::parse_tree`]: what
/// [`crate::Schema::from_json_str`] reads its text into instead of a `serde_json::Value`
/// (the module `json` says why).
///
/// A tree holds any number of values: [`Tree::seed`] reads one more from a serde_json
/// deserializer, such as a member of a larger document being read with serde.
///
/// ```
/// use schemalect::json::Tree;
/// use schemalect::{subset::ParseOptions, Schema};
///
/// let (tree, root) = Tree::parse(r#"{"type": "string", "maxLength": 3}"#)?;
/// let schema = Schema::parse_tree(&tree, root, &ParseOptions::default()).unwrap();
/// assert!(schema.is_valid(&serde_json::json!("abc")));
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug)]
pub struct Tree<'a> {
    /// This tree's number: an [`Id`] of another tree reads as `null` here.
    serial: u64,
    nodes: Vec<Node<'a>>,
    /// The children of every container, each container's in one span: (member name, node);
    /// the name is empty for a list's item.
    children: Vec<(Cow<'a, str>, usize)>,
    /// The children of the containers still open while a value is read, innermost last: each
    /// container's move into `children` in one span when it closes. Empty between reads.
    open: Vec<(Cow<'a, str>, usize)>,
    /// The size of what has been read, counted as `budget::value_bytes` counts a value.
    bytes: u64,
    /// A repeated member name replaced a value since the last read began: the replaced
    /// value's bytes were counted, so the read's size is not known.
    replaced: bool,
    /// Per value read by [`Tree::seed`], in the order read (so by node): its node and its
    /// size, when known. The parse's work budget is per byte of the value's compact text; a
    /// walk of the value to measure it was a tenth of the parse.
    sizes: Vec<(usize, Option<u64>)>,
}

/// A value read into a [`Tree`]: its node, in the tree of that number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Id {
    tree: u64,
    node: usize,
}

impl Default for Tree<'_> {
    fn default() -> Self {
        Tree {
            serial: TREES.fetch_add(1, Ordering::Relaxed),
            nodes: Vec::new(),
            children: Vec::new(),
            open: Vec::new(),
            bytes: 0,
            replaced: false,
            sizes: Vec::new(),
        }
    }
}

#[derive(Debug)]
enum Node<'a> {
    Null,
    Bool(bool),
    Number(Number),
    String(Cow<'a, str>),
    Array { first: usize, len: usize },
    Object { first: usize, len: usize },
}

impl<'a> Tree<'a> {
    /// An empty tree.
    pub fn new() -> Self {
        Tree::default()
    }

    /// An empty tree with room for the values read from a JSON text of `bytes` bytes, so that
    /// reading them rarely grows the tree's lists: one value per 32 bytes, up to 16,384 (about
    /// a megabyte). A JSONSchemaBench schema holds one value per 19 bytes written compact, 32
    /// indented; its file, four fifths tests, one per 100. Lists grown from empty by doubling
    /// were about 1 % of a `lower` run over those files.
    pub fn for_text(bytes: usize) -> Self {
        let values = (bytes / 32).min(1 << 14);
        let mut tree = Tree::default();
        tree.nodes.reserve(values);
        tree.children.reserve(values);
        tree
    }

    /// Reads `text` as one JSON value, as `serde_json::from_str::<Value>` does: the tree and
    /// the value's id.
    pub fn parse(text: &'a str) -> serde_json::Result<(Self, Id)> {
        let mut tree = Tree::for_text(text.len());
        let mut de = serde_json::Deserializer::from_str(text);
        let root = tree.seed().deserialize(&mut de)?;
        de.end()?;
        Ok((tree, root))
    }

    /// Reads one value into the tree from a deserializer of JSON text that outlives the tree
    /// (serde_json's), giving its id. After an error the tree may hold part of the value,
    /// which no id reaches.
    pub fn seed(&mut self) -> Seed<'_, 'a> {
        Seed(self)
    }

    /// The size of the value `id` as [`crate::budget::value_bytes`] counts it, when `id` was
    /// read by [`Tree::seed`] without a repeated member name.
    pub(crate) fn size(&self, id: Id) -> Option<u64> {
        if id.tree != self.serial {
            return None;
        }
        let at = self
            .sizes
            .binary_search_by_key(&id.node, |(node, _)| *node)
            .ok()?;
        self.sizes.get(at).and_then(|(_, size)| *size)
    }

    /// The value `id` as a `serde_json::Value` (built recursively: serde_json, which fills
    /// trees, nests at most 128 levels). An id of another tree reads as `null`.
    pub fn to_value(&self, id: Id) -> Value {
        self.get(id).as_value().into_owned()
    }

    /// The value `id`, to read. An id of another tree reads as `null`.
    pub(crate) fn get(&self, id: Id) -> Ref<'_> {
        Ref {
            tree: self,
            // No node has this index.
            index: if id.tree == self.serial {
                id.node
            } else {
                usize::MAX
            },
        }
    }
}

/// A value of a [`Tree`].
#[derive(Clone, Copy)]
pub(crate) struct Ref<'v> {
    tree: &'v Tree<'v>,
    index: usize,
}

impl<'v> Ref<'v> {
    /// The node, read without building a [`View`] (the parser asks most values only this).
    fn node(self) -> Option<&'v Node<'v>> {
        let tree: &'v Tree<'v> = self.tree;
        tree.nodes.get(self.index)
    }

    /// The children of a container: the span `first..first + len` of the tree's list.
    fn children(self, first: usize, len: usize) -> Members<'v> {
        let tree: &'v Tree<'v> = self.tree;
        let span = tree.children.get(first..first.saturating_add(len));
        Members {
            tree,
            span: span.unwrap_or_default().iter(),
        }
    }
}

/// A list's items in a [`Tree`]: its children, whose names are empty.
pub(crate) type Items<'v> = std::iter::Map<Members<'v>, fn((&'v str, Ref<'v>)) -> Ref<'v>>;

fn unnamed<'v>((_, item): (&'v str, Ref<'v>)) -> Ref<'v> {
    item
}

/// An object's members in a [`Tree`] (or a list's children, named with the empty string).
pub(crate) struct Members<'v> {
    tree: &'v Tree<'v>,
    span: std::slice::Iter<'v, (Cow<'v, str>, usize)>,
}

impl<'v> Iterator for Members<'v> {
    type Item = (&'v str, Ref<'v>);

    fn next(&mut self) -> Option<(&'v str, Ref<'v>)> {
        let (name, index) = self.span.next()?;
        Some((
            name.as_ref(),
            Ref {
                tree: self.tree,
                index: *index,
            },
        ))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.span.size_hint()
    }
}

impl ExactSizeIterator for Members<'_> {}

impl<'v> Json<'v> for Ref<'v> {
    type Items = Items<'v>;
    type Members = Members<'v>;

    fn as_str(self) -> Option<&'v str> {
        match self.node() {
            Some(Node::String(s)) => Some(s),
            _ => None,
        }
    }

    fn as_number(self) -> Option<&'v Number> {
        match self.node() {
            Some(Node::Number(n)) => Some(n),
            _ => None,
        }
    }

    fn as_bool(self) -> Option<bool> {
        match self.node() {
            Some(Node::Bool(b)) => Some(*b),
            _ => None,
        }
    }

    fn nests(self) -> bool {
        matches!(self.node(), Some(Node::Array { .. } | Node::Object { .. }))
    }

    fn view(self) -> View<'v, Self> {
        match self.node() {
            None | Some(Node::Null) => View::Null,
            Some(Node::Bool(b)) => View::Bool(*b),
            Some(Node::Number(n)) => View::Number(n),
            Some(Node::String(s)) => View::String(s),
            Some(Node::Array { first, len }) => {
                View::Array(self.children(*first, *len).map(unnamed as _))
            }
            Some(Node::Object { first, len }) => View::Object(self.children(*first, *len)),
        }
    }

    /// Built recursively, as deep as the value: the parser checks a literal's depth against
    /// its limit before it builds it, and serde_json, which fills trees, nests at most 128
    /// levels.
    fn as_value(self) -> Cow<'v, Value> {
        Cow::Owned(match self.view() {
            View::Null => Value::Null,
            View::Bool(b) => Value::Bool(b),
            View::Number(n) => Value::Number(n.clone()),
            View::String(s) => Value::String(s.to_owned()),
            View::Array(items) => Value::Array(items.map(|i| i.as_value().into_owned()).collect()),
            View::Object(members) => {
                let mut map = Map::with_capacity(members.len());
                for (name, v) in members {
                    map.insert(name.to_owned(), v.as_value().into_owned());
                }
                Value::Object(map)
            }
        })
    }
}

impl<'a> Tree<'a> {
    /// Adds a node of `bytes` (its own share of the compact text: a scalar, or a container's
    /// brackets, commas and member names).
    fn push(&mut self, node: Node<'a>, bytes: u64) -> usize {
        self.bytes = self.bytes.saturating_add(bytes);
        self.nodes.push(node);
        self.nodes.len() - 1
    }

    /// Moves the open children from `start` on into one span: `(first, len)`, and the
    /// container's brackets and commas in bytes (an object's names are counted as added).
    fn close(&mut self, start: usize) -> (usize, usize, u64) {
        let first = self.children.len();
        let open = self.open.len();
        self.children.extend(self.open.drain(start.min(open)..));
        let len = self.children.len() - first;
        (first, len, 2 + len.saturating_sub(1) as u64)
    }

    /// Adds a member to the object whose open children start at `start`; a name it already
    /// has keeps its place and takes the new value (`index`: the names of a large object).
    fn member(
        &mut self,
        start: usize,
        name: Cow<'a, str>,
        value: usize,
        index: &mut Option<HashMap<Cow<'a, str>, usize>>,
    ) {
        let count = self.open.len().saturating_sub(start);
        let earlier = if count < SCAN_MEMBERS {
            self.open
                .get(start..)
                .unwrap_or_default()
                .iter()
                .position(|(n, _)| *n == name)
        } else {
            let names = index.get_or_insert_with(|| {
                let open = self.open.get(start..).unwrap_or_default().iter();
                open.enumerate().map(|(k, (n, _))| (n.clone(), k)).collect()
            });
            match names.get(&name) {
                Some(k) => Some(*k),
                None => {
                    names.insert(name.clone(), count);
                    None
                }
            }
        };
        match earlier.and_then(|k| self.open.get_mut(start + k)) {
            Some(slot) => {
                slot.1 = value;
                self.replaced = true;
            }
            None => {
                // Its quoted name and colon.
                self.bytes = self.bytes.saturating_add(name.len() as u64 + 3);
                self.open.push((name, value));
            }
        }
    }
}

/// Reads one value into a [`Tree`] ([`Tree::seed`]): serde's seed for `next_value_seed` and
/// the like.
#[derive(Debug)]
pub struct Seed<'t, 'a>(&'t mut Tree<'a>);

impl<'de> DeserializeSeed<'de> for Seed<'_, 'de> {
    type Value = Id;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Id, D::Error> {
        let tree = self.0;
        let (open, bytes) = (tree.open.len(), tree.bytes);
        tree.replaced = false;
        let read = d.deserialize_any(Into(&mut *tree));
        // A value cut short by an error leaves its open children: not part of any span.
        tree.open.truncate(open);
        let node = read?;
        let size = (!tree.replaced).then(|| tree.bytes.saturating_sub(bytes));
        tree.sizes.push((node, size));
        Ok(Id {
            tree: tree.serial,
            node,
        })
    }
}

/// Reads one value into the tree: its node's index.
struct Into<'t, 'a>(&'t mut Tree<'a>);

impl<'de> DeserializeSeed<'de> for Into<'_, 'de> {
    type Value = usize;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<usize, D::Error> {
        d.deserialize_any(self)
    }
}

/// A member name, borrowed when it has no escape.
struct Name<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for Name<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Name<'de>, D::Error> {
        d.deserialize_str(NameVisitor)
    }
}

struct NameVisitor;

impl<'de> Visitor<'de> for NameVisitor {
    type Value = Name<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a member name")
    }

    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Name<'de>, E> {
        Ok(Name(Cow::Borrowed(v)))
    }

    fn visit_str<E>(self, v: &str) -> Result<Name<'de>, E> {
        Ok(Name(Cow::Owned(v.to_owned())))
    }

    fn visit_string<E>(self, v: String) -> Result<Name<'de>, E> {
        Ok(Name(Cow::Owned(v)))
    }
}

impl<'de> Visitor<'de> for Into<'_, 'de> {
    type Value = usize;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any valid JSON value")
    }

    fn visit_unit<E>(self) -> Result<usize, E> {
        Ok(self.0.push(Node::Null, 4))
    }

    fn visit_bool<E>(self, v: bool) -> Result<usize, E> {
        Ok(self.0.push(Node::Bool(v), if v { 4 } else { 5 }))
    }

    fn visit_u64<E>(self, v: u64) -> Result<usize, E> {
        Ok(self.0.push(Node::Number(v.into()), 1))
    }

    fn visit_i64<E>(self, v: i64) -> Result<usize, E> {
        Ok(self.0.push(Node::Number(v.into()), 1))
    }

    /// A float without a JSON number (never read from text) is `null`, as in a `Value`.
    fn visit_f64<E>(self, v: f64) -> Result<usize, E> {
        Ok(match Number::from_f64(v) {
            Some(n) => self.0.push(Node::Number(n), 1),
            None => self.0.push(Node::Null, 4),
        })
    }

    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<usize, E> {
        Ok(self
            .0
            .push(Node::String(Cow::Borrowed(v)), v.len() as u64 + 2))
    }

    fn visit_str<E>(self, v: &str) -> Result<usize, E> {
        Ok(self
            .0
            .push(Node::String(Cow::Owned(v.to_owned())), v.len() as u64 + 2))
    }

    fn visit_string<E>(self, v: String) -> Result<usize, E> {
        let bytes = v.len() as u64 + 2;
        Ok(self.0.push(Node::String(Cow::Owned(v)), bytes))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<usize, A::Error> {
        let start = self.0.open.len();
        while let Some(item) = seq.next_element_seed(Into(&mut *self.0))? {
            self.0.open.push((Cow::Borrowed(""), item));
        }
        let (first, len, bytes) = self.0.close(start);
        Ok(self.0.push(Node::Array { first, len }, bytes))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<usize, A::Error> {
        let start = self.0.open.len();
        let mut index = None;
        while let Some(Name(name)) = map.next_key::<Name<'de>>()? {
            let value = map.next_value_seed(Into(&mut *self.0))?;
            self.0.member(start, name, value, &mut index);
        }
        let (first, len, bytes) = self.0.close(start);
        Ok(self.0.push(Node::Object { first, len }, bytes))
    }
}

#[cfg(test)]
mod tests;
