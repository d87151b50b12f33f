//! JSON Pointers (RFC 6901) for schema and instance locations.
//!
//! Every error and every loss names where it happened. Pointers are built while walking, one
//! segment at a time, so the walk never has to re-derive a location after the fact.

use std::fmt;
use std::sync::Arc;

/// A JSON Pointer such as `/properties/a~1b/items`. The empty pointer is the document root.
///
/// The text is shared: every node of the IR carries its pointer, every loss and error copies
/// one, and rewritten copies of the IR copy all of them, so a copy is a reference count.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Pointer(
    /// `None` for the root, so the root needs no allocation and there is one way to spell it.
    Option<Arc<str>>,
);

impl Pointer {
    /// The document root, as a constant.
    pub const EMPTY: Pointer = Pointer(None);

    /// The pointer to the document root (`""`).
    pub fn root() -> Self {
        Pointer(None)
    }

    fn from_text(text: String) -> Self {
        if text.is_empty() {
            Pointer(None)
        } else {
            Pointer(Some(Arc::from(text)))
        }
    }

    /// This pointer extended by one reference token, escaped per RFC 6901.
    pub fn join(&self, token: &str) -> Self {
        let mut s = String::with_capacity(self.as_str().len() + token.len() + 1);
        s.push_str(self.as_str());
        push_token(&mut s, token);
        Pointer::from_text(s)
    }

    /// This pointer extended by an array index.
    pub fn index(&self, i: usize) -> Self {
        let mut s = self.as_str().to_owned();
        s.push('/');
        s.push_str(&i.to_string());
        Pointer::from_text(s)
    }

    /// The pointer text; `""` for the root.
    pub fn as_str(&self) -> &str {
        self.0.as_deref().unwrap_or("")
    }

    /// True for the document root.
    pub fn is_root(&self) -> bool {
        self.0.is_none()
    }

    /// The unescaped reference tokens of this pointer.
    pub fn tokens(&self) -> impl Iterator<Item = String> + '_ {
        self.as_str()
            .split('/')
            .skip(1)
            .map(|t| t.replace("~1", "/").replace("~0", "~"))
    }

    /// Parses pointer text; `None` unless it is empty or starts with `/`.
    pub fn parse(text: &str) -> Option<Self> {
        if text.is_empty() || text.starts_with('/') {
            Some(Pointer::from_text(text.to_owned()))
        } else {
            None
        }
    }

    /// Consumes the pointer into its text.
    pub fn into_string(self) -> String {
        self.as_str().to_owned()
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
        if self.is_root() {
            f.write_str("/")
        } else {
            f.write_str(self.as_str())
        }
    }
}

impl AsRef<str> for Pointer {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl From<Pointer> for String {
    fn from(p: Pointer) -> String {
        p.into_string()
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
