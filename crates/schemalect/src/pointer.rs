//! JSON Pointers (RFC 6901) for schema and instance locations.
//!
//! Every error and every loss names where it happened. Pointers are built while walking, one
//! segment at a time, so the walk never has to re-derive a location after the fact.

use std::fmt;

/// A JSON Pointer such as `/properties/a~1b/items`. The empty pointer is the document root.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Pointer(String);

impl Pointer {
    /// The document root, as a constant.
    pub const EMPTY: Pointer = Pointer(String::new());

    /// The pointer to the document root (`""`).
    pub fn root() -> Self {
        Pointer(String::new())
    }

    /// This pointer extended by one reference token, escaped per RFC 6901.
    pub fn join(&self, token: &str) -> Self {
        let mut s = String::with_capacity(self.0.len() + token.len() + 1);
        s.push_str(&self.0);
        push_token(&mut s, token);
        Pointer(s)
    }

    /// This pointer extended by an array index.
    pub fn index(&self, i: usize) -> Self {
        let mut s = self.0.clone();
        s.push('/');
        s.push_str(&i.to_string());
        Pointer(s)
    }

    /// The pointer text; `""` for the root.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// True for the document root.
    pub fn is_root(&self) -> bool {
        self.0.is_empty()
    }

    /// The unescaped reference tokens of this pointer.
    pub fn tokens(&self) -> impl Iterator<Item = String> + '_ {
        self.0
            .split('/')
            .skip(1)
            .map(|t| t.replace("~1", "/").replace("~0", "~"))
    }

    /// Parses pointer text; `None` unless it is empty or starts with `/`.
    pub fn parse(text: &str) -> Option<Self> {
        if text.is_empty() || text.starts_with('/') {
            Some(Pointer(text.to_owned()))
        } else {
            None
        }
    }

    /// Consumes the pointer into its text.
    pub fn into_string(self) -> String {
        self.0
    }
}

/// Appends `/token` to `s`, escaping `~` and `/`.
pub(crate) fn push_token(s: &mut String, token: &str) {
    s.push('/');
    for c in token.chars() {
        match c {
            '~' => s.push_str("~0"),
            '/' => s.push_str("~1"),
            c => s.push(c),
        }
    }
}

impl fmt::Display for Pointer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            f.write_str("/")
        } else {
            f.write_str(&self.0)
        }
    }
}

impl AsRef<str> for Pointer {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl From<Pointer> for String {
    fn from(p: Pointer) -> String {
        p.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_tilde_and_slash() {
        let p = Pointer::root().join("properties").join("a/b~c");
        assert_eq!(p.as_str(), "/properties/a~1b~0c");
        assert_eq!(p.tokens().collect::<Vec<_>>(), vec!["properties", "a/b~c"]);
    }

    #[test]
    fn root_displays_as_slash_but_is_empty() {
        assert_eq!(Pointer::root().as_str(), "");
        assert_eq!(Pointer::root().to_string(), "/");
        assert_eq!(Pointer::root().index(3).as_str(), "/3");
    }

    #[test]
    fn parse_requires_leading_slash() {
        assert!(Pointer::parse("a").is_none());
        assert_eq!(
            Pointer::parse("/a").map(|p| p.into_string()),
            Some("/a".into())
        );
    }
}
