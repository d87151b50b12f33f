//! JSON read for the subset parser without a `serde_json::Value`: a [`Tree`], which
//! [`crate::Schema::from_json_str`] reads its text into and [`crate::Schema::parse_tree`]
//! parses. The parser reads a `serde_json::Value` or a [`Tree`]'s value alike.
//!
//! Why two: a caller holding a `Value` (most library users) has paid for it already, but one
//! holding text (a gateway's request body, a file) would pay for a `Value` only to walk it
//! once and drop it, and building one costs more than the parse itself: every object an
//! `IndexMap` with its hashing, every string and member name an allocation
//! (docs/benchmarks.md, "What a reader without `Value`s would save"). [`Tree`] keeps the nodes
//! in two lists and borrows every string without an escape from the text. The parser is
//! written once over a crate-private trait (`Json`), which both implement; only literals
//! (`enum`, `const`, `default`, `examples`) become `Value`s, as the IR keeps them.

use serde_json::{Number, Value};
use std::borrow::Cow;

mod tree;
pub use tree::{Id, Seed, Tree};

/// One JSON value, as the parser matches on it.
pub(crate) enum View<'v, J: Json<'v>> {
    Null,
    Bool(bool),
    Number(&'v Number),
    String(&'v str),
    Array(J::Items),
    Object(J::Members),
}

/// A JSON value borrowed for `'v`, wherever it is stored.
///
/// An object's members are seen as serde_json's `Map` keeps them (`preserve_order`): in the
/// order of their first occurrence, each name once, with its last value.
pub(crate) trait Json<'v>: Copy {
    /// A list's items, in order.
    type Items: ExactSizeIterator<Item = Self>;
    /// An object's members, in order.
    type Members: ExactSizeIterator<Item = (&'v str, Self)>;

    /// What the value is.
    fn view(self) -> View<'v, Self>;

    /// The value as a `serde_json::Value`: borrowed when it is one, built otherwise.
    fn as_value(self) -> Cow<'v, Value>;

    /// The text of a string.
    fn as_str(self) -> Option<&'v str> {
        match self.view() {
            View::String(s) => Some(s),
            _ => None,
        }
    }

    /// A number.
    fn as_number(self) -> Option<&'v Number> {
        match self.view() {
            View::Number(n) => Some(n),
            _ => None,
        }
    }

    /// A boolean.
    fn as_bool(self) -> Option<bool> {
        match self.view() {
            View::Bool(b) => Some(b),
            _ => None,
        }
    }

    /// A list's items.
    fn items(self) -> Option<Self::Items> {
        match self.view() {
            View::Array(items) => Some(items),
            _ => None,
        }
    }

    /// An object's members.
    fn members(self) -> Option<Self::Members> {
        match self.view() {
            View::Object(members) => Some(members),
            _ => None,
        }
    }

    /// The value of an object's member.
    fn get(self, name: &str) -> Option<Self> {
        self.members()?.find(|(n, _)| *n == name).map(|(_, v)| v)
    }

    /// True for a list or an object.
    fn nests(self) -> bool {
        matches!(self.view(), View::Array(_) | View::Object(_))
    }

    /// What the value is, in words, for a message.
    fn kind(self) -> &'static str {
        match self.view() {
            View::Null => "null",
            View::Bool(_) => "a boolean",
            View::Number(_) => "a number",
            View::String(_) => "a string",
            View::Array(_) => "a list",
            View::Object(_) => "an object",
        }
    }
}

/// An object's members in a `serde_json::Map`, with their names as `&str`.
pub(crate) type MapMembers<'v> =
    std::iter::Map<serde_json::map::Iter<'v>, fn((&'v String, &'v Value)) -> (&'v str, &'v Value)>;

fn name_as_str<'v>((name, value): (&'v String, &'v Value)) -> (&'v str, &'v Value) {
    (name, value)
}

impl<'v> Json<'v> for &'v Value {
    type Items = std::slice::Iter<'v, Value>;
    type Members = MapMembers<'v>;

    fn view(self) -> View<'v, Self> {
        match self {
            Value::Null => View::Null,
            Value::Bool(b) => View::Bool(*b),
            Value::Number(n) => View::Number(n),
            Value::String(s) => View::String(s),
            Value::Array(a) => View::Array(a.iter()),
            Value::Object(o) => View::Object(o.iter().map(name_as_str as _)),
        }
    }

    fn as_value(self) -> Cow<'v, Value> {
        Cow::Borrowed(self)
    }

    fn get(self, name: &str) -> Option<Self> {
        self.as_object()?.get(name)
    }

    fn nests(self) -> bool {
        matches!(self, Value::Array(_) | Value::Object(_))
    }
}
