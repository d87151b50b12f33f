//! JSON Pointers (RFC 6901) for schema and instance locations.
//!
//! Every error and every loss names where it happened. Pointers are built while walking, one
//! segment at a time, so the walk never has to re-derive a location after the fact.
//!
//! A pointer is a chain of segments, each holding one reference token and a shared link to its
//! parent, so a node's pointer costs one short token, not its whole path: one long property
//! name above many nodes is stored once (docs/security.md, finding 6). A token of up to 22
//! bytes is kept in its segment, so a step costs one allocation. The text is built only
//! when asked ([`Pointer::as_str`] caches it; [`fmt::Display`], [`Pointer::write_to`] and the
//! comparisons stream it without building it). Each segment also keeps the hash of the whole
//! pointer, computed once from its parent's and its own token when the pointer is first
//! hashed, so hashing a pointer (the parsers' and lowerings' tables key on pointers) costs
//! nothing the second time however long its names are: hashing the tokens each time made one
//! 1 MiB name above 2,000 nodes cost gigabytes of hashing (docs/security.md, finding 6).
//! Pointers that are never hashed (error and loss locations) never pay for it.

use std::cmp::Ordering;
use std::fmt;
use std::hash::{BuildHasher, Hash, Hasher, RandomState};
use std::sync::atomic::{AtomicU64, Ordering as Atomic};
use std::sync::{Arc, OnceLock};

/// A JSON Pointer such as `/properties/a~1b/items`. The empty pointer is the document root.
///
/// Cloning is a reference count. Equality, ordering and hashing follow the pointer text (two
/// pointers are equal when their texts are), without building it.
#[derive(Clone, Default)]
pub struct Pointer(
    /// `None` for the root, so the root needs no allocation and there is one way to spell it.
    Option<Arc<Segment>>,
);

/// One reference token and the pointer it extends.
struct Segment {
    parent: Option<Arc<Segment>>,
    /// The unescaped reference token.
    token: Token,
    /// Segments from the root to this one, this one included.
    depth: usize,
    /// The hash of the token sequence from the root to this one, 0 until first asked: equal
    /// pointers have equal hashes (the chain is hashed with one key per process).
    hash: AtomicU64,
    /// The escaped text of the whole pointer, once someone asked for it as a `&str`.
    text: OnceLock<Box<str>>,
}

/// Bytes of a reference token kept in its segment rather than in an allocation of its own.
const INLINE: usize = 22;

/// A reference token: a short one (every keyword, an index, most property names) in the
/// segment itself, so that a step of a pointer costs one allocation, not two (the parser
/// makes one per subschema); a longer one on the heap.
enum Token {
    Inline { len: u8, bytes: [u8; INLINE] },
    Heap(Box<str>),
}

impl Token {
    fn new(token: &str) -> Token {
        let mut bytes = [0; INLINE];
        match bytes.get_mut(..token.len()) {
            Some(head) => {
                head.copy_from_slice(token.as_bytes());
                Token::Inline {
                    len: token.len() as u8,
                    bytes,
                }
            }
            None => Token::Heap(token.into()),
        }
    }

    /// An array index, written without a `String` in between.
    fn index(i: usize) -> Token {
        use std::io::Write;
        let mut bytes = [0; INLINE];
        let mut rest = &mut bytes[..];
        // 20 digits at most: always fits.
        let _ = write!(rest, "{i}");
        let len = INLINE - rest.len();
        Token::Inline {
            len: len as u8,
            bytes,
        }
    }

    fn as_str(&self) -> &str {
        match self {
            // Always the bytes of a whole `&str` (`Token::new`) or of digits (`Token::index`).
            Token::Inline { len, bytes } => bytes
                .get(..usize::from(*len))
                .and_then(|b| std::str::from_utf8(b).ok())
                .unwrap_or_default(),
            Token::Heap(t) => t,
        }
    }
}

impl std::ops::Deref for Token {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl Drop for Segment {
    /// Dismantles a chain iteratively: a pointer as deep as an answer can nest must not
    /// overflow the stack when its last owner goes.
    fn drop(&mut self) {
        let mut next = self.parent.take();
        while let Some(seg) = next {
            match Arc::try_unwrap(seg) {
                Ok(mut owned) => next = owned.parent.take(),
                Err(_) => break,
            }
        }
    }
}

impl Pointer {
    /// The document root, as a constant.
    pub const EMPTY: Pointer = Pointer(None);

    /// The pointer to the document root (`""`).
    pub fn root() -> Self {
        Pointer(None)
    }

    fn push(&self, token: Token) -> Self {
        let depth = self.0.as_ref().map_or(0, |s| s.depth) + 1;
        Pointer(Some(Arc::new(Segment {
            parent: self.0.clone(),
            token,
            depth,
            hash: AtomicU64::new(0),
            text: OnceLock::new(),
        })))
    }

    /// The hash of the whole token sequence (0 for the root), computed on the way down from
    /// the nearest segment that has it, and kept. Iterative: a pointer can be as deep as an
    /// answer nests.
    fn chain_hash(&self) -> u64 {
        let Some(leaf) = self.0.as_deref() else {
            return 0;
        };
        let known = leaf.hash.load(Atomic::Relaxed);
        if known != 0 {
            return known;
        }
        let mut missing = Vec::new();
        let mut base = 0;
        let mut at = Some(leaf);
        while let Some(seg) = at {
            let h = seg.hash.load(Atomic::Relaxed);
            if h != 0 {
                base = h;
                break;
            }
            missing.push(seg);
            at = seg.parent.as_deref();
        }
        for seg in missing.into_iter().rev() {
            // 0 means "not computed yet".
            base = chain_hasher().hash_one((base, &*seg.token)).max(1);
            seg.hash.store(base, Atomic::Relaxed);
        }
        base
    }

    /// This pointer extended by one reference token (given unescaped; escaped per RFC 6901 in
    /// the text).
    pub fn join(&self, token: &str) -> Self {
        self.push(Token::new(token))
    }

    /// This pointer extended by an array index.
    pub fn index(&self, i: usize) -> Self {
        self.push(Token::index(i))
    }

    /// The segments from the root down, in order.
    fn segments(&self) -> Vec<&Segment> {
        let mut out = Vec::with_capacity(self.0.as_ref().map_or(0, |s| s.depth));
        let mut at = self.0.as_deref();
        while let Some(seg) = at {
            out.push(seg);
            at = seg.parent.as_deref();
        }
        out.reverse();
        out
    }

    /// Writes the escaped pointer text (`""` for the root) without building it.
    pub fn write_to(&self, out: &mut impl fmt::Write) -> fmt::Result {
        for seg in self.segments() {
            out.write_char('/')?;
            write_escaped(out, &seg.token)?;
        }
        Ok(())
    }

    /// The length of the pointer text in bytes, without building it.
    pub fn text_len(&self) -> usize {
        let mut n = 0;
        let mut at = self.0.as_deref();
        while let Some(seg) = at {
            n += 1 + seg.token.len() + seg.token.matches(['~', '/']).count();
            at = seg.parent.as_deref();
        }
        n
    }

    /// The pointer text; `""` for the root. Built on the first call and kept with the pointer:
    /// for error and loss reports. Walks that handle many pointers compare, hash or display
    /// them instead, which never builds the text.
    pub fn as_str(&self) -> &str {
        match &self.0 {
            None => "",
            Some(seg) => seg.text.get_or_init(|| self.build().into_boxed_str()),
        }
    }

    fn build(&self) -> String {
        let mut s = String::with_capacity(self.text_len());
        let _ = self.write_to(&mut s);
        s
    }

    /// True for the document root.
    pub fn is_root(&self) -> bool {
        self.0.is_none()
    }

    /// The number of reference tokens.
    pub fn len(&self) -> usize {
        self.0.as_ref().map_or(0, |s| s.depth)
    }

    /// True for the document root (no reference token).
    pub fn is_empty(&self) -> bool {
        self.is_root()
    }

    /// The unescaped reference tokens of this pointer.
    pub fn tokens(&self) -> impl Iterator<Item = String> + '_ {
        self.segments().into_iter().map(|s| s.token.to_string())
    }

    /// Parses pointer text; `None` unless it is empty or starts with `/`.
    pub fn parse(text: &str) -> Option<Self> {
        if text.is_empty() {
            return Some(Pointer::root());
        }
        let rest = text.strip_prefix('/')?;
        let mut p = Pointer::root();
        for t in rest.split('/') {
            p = p.join(&t.replace("~1", "/").replace("~0", "~"));
        }
        Some(p)
    }

    /// Consumes the pointer into its text.
    pub fn into_string(self) -> String {
        match &self.0 {
            None => String::new(),
            Some(seg) => match seg.text.get() {
                Some(t) => t.to_string(),
                None => self.build(),
            },
        }
    }

    /// The escaped text as bytes, in order, without building it.
    fn bytes(&self) -> impl Iterator<Item = u8> + '_ {
        self.segments().into_iter().flat_map(|seg| {
            std::iter::once(b'/').chain(seg.token.bytes().flat_map(|b| {
                let (first, second) = match b {
                    b'~' => (b'~', Some(b'0')),
                    b'/' => (b'~', Some(b'1')),
                    b => (b, None),
                };
                std::iter::once(first).chain(second)
            }))
        })
    }
}

/// The key segments hash their chains with, drawn once per process: an input cannot aim at
/// collisions it cannot compute.
fn chain_hasher() -> &'static RandomState {
    static KEY: OnceLock<RandomState> = OnceLock::new();
    KEY.get_or_init(RandomState::new)
}

fn write_escaped(out: &mut impl fmt::Write, token: &str) -> fmt::Result {
    let mut rest = token;
    while let Some(i) = rest.find(['~', '/']) {
        let (plain, tail) = rest.split_at(i);
        out.write_str(plain)?;
        let mut chars = tail.chars();
        out.write_str(if chars.next() == Some('~') {
            "~0"
        } else {
            "~1"
        })?;
        rest = chars.as_str();
    }
    out.write_str(rest)
}

/// Appends `/token` to `s`, escaping `~` and `/`.
pub(crate) fn push_token(s: &mut String, token: &str) {
    s.push('/');
    let _ = write_escaped(s, token);
}

impl PartialEq for Pointer {
    fn eq(&self, other: &Self) -> bool {
        let (mut a, mut b) = (self.0.as_deref(), other.0.as_deref());
        loop {
            match (a, b) {
                (None, None) => return true,
                (Some(x), Some(y)) => {
                    if std::ptr::eq(x, y) {
                        return true;
                    }
                    let (hx, hy) = (x.hash.load(Atomic::Relaxed), y.hash.load(Atomic::Relaxed));
                    let differ = hx != 0 && hy != 0 && hx != hy;
                    if differ || x.depth != y.depth || *x.token != *y.token {
                        return false;
                    }
                    a = x.parent.as_deref();
                    b = y.parent.as_deref();
                }
                _ => return false,
            }
        }
    }
}

impl Eq for Pointer {}

impl Hash for Pointer {
    fn hash<H: Hasher>(&self, state: &mut H) {
        // Equal pointers have equal token sequences (escaping is one-to-one), hence equal
        // chain hashes, computed once when each segment was made.
        state.write_u64(self.chain_hash());
    }
}

impl PartialOrd for Pointer {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Pointer {
    /// The order of the pointer texts.
    fn cmp(&self, other: &Self) -> Ordering {
        if self == other {
            return Ordering::Equal;
        }
        self.bytes().cmp(other.bytes())
    }
}

impl fmt::Debug for Pointer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Pointer(\"")?;
        self.write_to(f)?;
        f.write_str("\")")
    }
}

impl fmt::Display for Pointer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            None => f.write_str("/"),
            // The text, when a report already asked for it (`as_str`); else token by token,
            // without building it (a walk displays pointers it does not keep). Reports take
            // a loss's pointer text and then display the loss: the text in one piece is a
            // tenth of the cost of the tokens.
            Some(seg) => match seg.text.get() {
                Some(text) => f.write_str(text),
                None => self.write_to(f),
            },
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
    fn display_is_the_same_before_and_after_the_text_is_kept() {
        for p in [
            Pointer::root(),
            Pointer::root().join("properties").join("a/b~c").index(7),
            Pointer::root().join("é").join(""),
        ] {
            let before = p.to_string();
            let text = p.as_str().to_owned();
            assert_eq!(p.to_string(), before);
            assert_eq!(before, if p.is_root() { "/".to_owned() } else { text });
        }
    }

    #[test]
    fn parse_requires_leading_slash() {
        assert!(Pointer::parse("a").is_none());
        assert_eq!(
            Pointer::parse("/a").map(|p| p.into_string()),
            Some("/a".into())
        );
    }

    #[test]
    fn text_order_and_equality_follow_the_text() {
        use std::collections::HashSet;
        let texts = [
            "", "/a", "/a/b", "/a-b", "/a~0", "/a~1b", "/a/b~1c", "/ab", "/0", "/10", "/9", "/é",
        ];
        let pointers: Vec<Pointer> = texts.iter().filter_map(|t| Pointer::parse(t)).collect();
        assert_eq!(pointers.len(), texts.len());
        for (p, t) in pointers.iter().zip(texts) {
            assert_eq!(p.as_str(), t);
            assert_eq!(p.text_len(), t.len());
            assert_eq!(p.clone().into_string(), t);
        }
        for (p, a) in pointers.iter().zip(texts) {
            for (q, b) in pointers.iter().zip(texts) {
                assert_eq!(p.cmp(q), a.cmp(b), "{a} vs {b}");
                assert_eq!(p == q, a == b, "{a} vs {b}");
            }
        }
        // Built by joining or parsed from text: one pointer, one hash.
        let built = Pointer::root().join("a").join("b/c");
        let parsed = Pointer::parse("/a/b~1c").unwrap_or_default();
        assert_eq!(built, parsed);
        let set: HashSet<Pointer> = [built, parsed, Pointer::root().index(0)].into();
        assert_eq!(set.len(), 2);
        assert!(set.contains(&Pointer::parse("/0").unwrap_or_default()));
        assert_eq!(
            format!("{:?}", Pointer::root().join("x")),
            "Pointer(\"/x\")"
        );
    }

    #[test]
    fn tokens_inline_and_on_the_heap_read_back_alike() {
        // Either side of the inline size, in bytes of UTF-8 (a two-byte character across it).
        let tokens = [
            String::new(),
            "a".repeat(INLINE),
            "a".repeat(INLINE + 1),
            format!("{}é", "a".repeat(INLINE - 1)),
            "é~/".repeat(8),
        ];
        for t in &tokens {
            let p = Pointer::root().join(t);
            assert_eq!(p.tokens().collect::<Vec<_>>(), vec![t.clone()]);
            assert_eq!(Pointer::parse(p.as_str()), Some(p.clone()));
            assert_eq!(
                matches!(Token::new(t), Token::Inline { .. }),
                t.len() <= INLINE
            );
        }
        for i in [0, 7, 10, 12_345, usize::MAX] {
            let p = Pointer::root().index(i);
            assert_eq!(p.as_str(), format!("/{i}"));
            assert_eq!(p, Pointer::root().join(&i.to_string()));
        }
    }

    #[test]
    fn a_long_token_is_stored_once_below_many_children() {
        let key = "k".repeat(1 << 16);
        let parent = Pointer::root().join(&key);
        let children: Vec<Pointer> = (0..100).map(|i| parent.index(i)).collect();
        for c in &children {
            let seg = c.0.as_ref().and_then(|s| s.parent.as_ref());
            let shared = parent.0.as_ref();
            assert!(matches!((seg, shared), (Some(a), Some(b)) if Arc::ptr_eq(a, b)));
            assert_eq!(
                c.text_len(),
                key.len() + 1 + c.tokens().last().map_or(0, |t| t.len() + 1)
            );
        }
    }

    #[test]
    fn deep_chains_drop_without_recursion() {
        let mut p = Pointer::root();
        for i in 0..200_000 {
            p = p.index(i % 7);
        }
        assert_eq!(p.len(), 200_000);
        drop(p);
    }
}
