//! JSON text read into a borrowed tree: nodes in one list, every container's children in one
//! span of another, strings and member names borrowed from the text unless they hold an escape.
//!
//! serde_json reads the text (through serde's traits, as it reads a `Value`), so what is
//! accepted, every error and its position, the numbers and the nesting limit are serde_json's
//! own. What differs is only what is built: no `IndexMap`, no hashing of names, no allocation
//! for a clean string. A repeated member name keeps its first place and takes its last value,
//! as a `serde_json::Map` does, so [`Json`] sees the same object either way.

use super::{Json, View};
use serde_core::de::{Deserialize, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;

/// An object with more members than this finds repeated names by hashing them, so that a
/// hostile object costs linear time; a smaller one compares its names in turn.
const SCAN_MEMBERS: usize = 16;

/// A JSON document read from text that outlives it.
#[derive(Debug, Default)]
pub(crate) struct Tree<'a> {
    nodes: Vec<Node<'a>>,
    /// The children of every container, each container's in one span: (member name, node);
    /// the name is empty for a list's item.
    children: Vec<(Cow<'a, str>, usize)>,
    root: usize,
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
    /// Reads `text` as one JSON value, as `serde_json::from_str::<Value>` does.
    pub(crate) fn parse(text: &'a str) -> serde_json::Result<Self> {
        let mut builder = Builder::default();
        let mut de = serde_json::Deserializer::from_str(text);
        let root = Into(&mut builder).deserialize(&mut de)?;
        de.end()?;
        Ok(Tree {
            nodes: builder.nodes,
            children: builder.children,
            root,
        })
    }

    /// The document's value.
    pub(crate) fn root(&self) -> Ref<'_> {
        Ref {
            tree: self,
            index: self.root,
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
    fn span(&self, first: usize, len: usize) -> std::slice::Iter<'v, (Cow<'v, str>, usize)> {
        let tree: &'v Tree<'v> = self.tree;
        tree.children
            .get(first..first.saturating_add(len))
            .unwrap_or_default()
            .iter()
    }
}

/// A list's items in a [`Tree`].
pub(crate) struct Items<'v> {
    tree: &'v Tree<'v>,
    span: std::slice::Iter<'v, (Cow<'v, str>, usize)>,
}

impl<'v> Iterator for Items<'v> {
    type Item = Ref<'v>;

    fn next(&mut self) -> Option<Ref<'v>> {
        let (_, index) = self.span.next()?;
        Some(Ref {
            tree: self.tree,
            index: *index,
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.span.size_hint()
    }
}

impl ExactSizeIterator for Items<'_> {}

/// An object's members in a [`Tree`].
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

    fn view(self) -> View<'v, Self> {
        let tree: &'v Tree<'v> = self.tree;
        match tree.nodes.get(self.index) {
            None | Some(Node::Null) => View::Null,
            Some(Node::Bool(b)) => View::Bool(*b),
            Some(Node::Number(n)) => View::Number(n),
            Some(Node::String(s)) => View::String(s),
            Some(Node::Array { first, len }) => View::Array(Items {
                tree,
                span: self.span(*first, *len),
            }),
            Some(Node::Object { first, len }) => View::Object(Members {
                tree,
                span: self.span(*first, *len),
            }),
        }
    }

    /// Built recursively: a tree is only ever read by serde_json, whose nesting limit (128
    /// levels) bounds the recursion.
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

/// The lists being filled while serde_json reads.
#[derive(Default)]
struct Builder<'a> {
    nodes: Vec<Node<'a>>,
    children: Vec<(Cow<'a, str>, usize)>,
    /// The children of the containers still open, innermost last: each container's are moved
    /// into `children` in one span when it closes.
    open: Vec<(Cow<'a, str>, usize)>,
}

impl<'a> Builder<'a> {
    fn push(&mut self, node: Node<'a>) -> usize {
        self.nodes.push(node);
        self.nodes.len() - 1
    }

    /// Moves the open children from `start` on into one span: `(first, len)`.
    fn close(&mut self, start: usize) -> (usize, usize) {
        let first = self.children.len();
        let open = self.open.len();
        self.children.extend(self.open.drain(start.min(open)..));
        (first, self.children.len() - first)
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
            Some(slot) => slot.1 = value,
            None => self.open.push((name, value)),
        }
    }
}

/// Reads one value into the builder: its node's index.
struct Into<'b, 'a>(&'b mut Builder<'a>);

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
        Ok(self.0.push(Node::Null))
    }

    fn visit_bool<E>(self, v: bool) -> Result<usize, E> {
        Ok(self.0.push(Node::Bool(v)))
    }

    fn visit_u64<E>(self, v: u64) -> Result<usize, E> {
        Ok(self.0.push(Node::Number(v.into())))
    }

    fn visit_i64<E>(self, v: i64) -> Result<usize, E> {
        Ok(self.0.push(Node::Number(v.into())))
    }

    /// A float without a JSON number (never read from text) is `null`, as in a `Value`.
    fn visit_f64<E>(self, v: f64) -> Result<usize, E> {
        Ok(self
            .0
            .push(Number::from_f64(v).map_or(Node::Null, Node::Number)))
    }

    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<usize, E> {
        Ok(self.0.push(Node::String(Cow::Borrowed(v))))
    }

    fn visit_str<E>(self, v: &str) -> Result<usize, E> {
        Ok(self.0.push(Node::String(Cow::Owned(v.to_owned()))))
    }

    fn visit_string<E>(self, v: String) -> Result<usize, E> {
        Ok(self.0.push(Node::String(Cow::Owned(v))))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<usize, A::Error> {
        let start = self.0.open.len();
        while let Some(item) = seq.next_element_seed(Into(&mut *self.0))? {
            self.0.open.push((Cow::Borrowed(""), item));
        }
        let (first, len) = self.0.close(start);
        Ok(self.0.push(Node::Array { first, len }))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<usize, A::Error> {
        let start = self.0.open.len();
        let mut index = None;
        while let Some(Name(name)) = map.next_key::<Name<'de>>()? {
            let value = map.next_value_seed(Into(&mut *self.0))?;
            self.0.member(start, name, value, &mut index);
        }
        let (first, len) = self.0.close(start);
        Ok(self.0.push(Node::Object { first, len }))
    }
}

#[cfg(test)]
mod tests;
