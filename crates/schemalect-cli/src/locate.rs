//! JSON Pointer → line and column in the original text.
//!
//! A violation or a loss names a schema node (a pointer) and a keyword. Code scanning and editors
//! want the line and column of that keyword: the key inside the object at the pointer. This
//! module walks the text itself (already known to be valid JSON) following the pointer's tokens,
//! decoding escaped keys, and returns the span of the key; when the node is not an object or has
//! no such key (a subschema that is `true`, say), the span of the node's value. Like the parser,
//! it takes the last of duplicate keys (of a root object known to repeat none, the first, read
//! no further). It never panics and never recurses.

use crate::wordscan::{equal, first_where};
use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;

/// A byte span in the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
}

/// Line starts of a text, to turn byte offsets into 1-based lines and character columns. The
/// text is searched for line breaks only as far as the offsets asked for: a finding is in a
/// file's schema, which in a benchmark-style file comes before its tests, four fifths of the
/// bytes (indexing whole files was a fifth of a SARIF `lint` of the corpus).
#[derive(Debug)]
pub struct LineIndex<'a> {
    text: &'a str,
    /// The starts of the lines found so far, in order.
    starts: Vec<usize>,
    /// The bytes before this offset have been searched.
    scanned: usize,
}

impl<'a> LineIndex<'a> {
    /// Indexes `text` (lazily).
    pub fn new(text: &'a str) -> Self {
        LineIndex {
            text,
            starts: vec![0],
            scanned: 0,
        }
    }

    /// Finds the line starts at or before `offset`: the line breaks before it.
    fn scan_to(&mut self, offset: usize) {
        let b = self.text.as_bytes();
        let end = offset.min(b.len());
        let mut i = self.scanned;
        while i < end {
            match b.get(..end).and_then(|head| first_newline(head, i)) {
                Some(n) => {
                    self.starts.push(n + 1);
                    i = n + 1;
                }
                None => i = end,
            }
        }
        self.scanned = self.scanned.max(end);
    }

    /// 1-based line and column (in Unicode code points) of byte `offset`.
    pub fn position(&mut self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        self.scan_to(offset);
        let line = self.starts.partition_point(|s| *s <= offset).max(1);
        let start = self.starts.get(line - 1).copied().unwrap_or(0);
        let column = self
            .text
            .get(start..offset)
            .map_or(offset - start, |s| s.chars().count());
        (line, column + 1)
    }

    /// Converts a 1-based line and byte column (as serde_json counts) to a character column.
    pub fn char_column(&mut self, line: usize, byte_column: usize) -> (usize, usize) {
        self.scan_to(self.text.len());
        match self.starts.get(line.saturating_sub(1)).copied() {
            Some(start) => {
                let (l, c) = self.position(start + byte_column.saturating_sub(1));
                // Past the end (an error at end of input): keep the reader's column.
                if l == line {
                    (l, c)
                } else {
                    (line, byte_column)
                }
            }
            None => (line, byte_column),
        }
    }
}

/// A place in a file: 1-based lines, columns in Unicode code points.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Region {
    /// Line of the first character.
    pub start_line: usize,
    /// Column of the first character.
    pub start_column: usize,
    /// Line of the character after the last.
    pub end_line: usize,
    /// Column of the character after the last.
    pub end_column: usize,
}

/// Locates schema pointers in one document's text. The line index and the members of each
/// object (elements of each list) walked through are built on first use and kept, so many
/// lookups in one file cost one pass over the parts they visit, not one pass each.
#[derive(Debug)]
pub struct Locator<'a> {
    index: RefCell<LineIndex<'a>>,
    walker: RefCell<Walker<'a>>,
}

impl<'a> Locator<'a> {
    /// A locator over `text`.
    pub fn new(text: &'a str) -> Self {
        Locator {
            index: RefCell::new(LineIndex::new(text)),
            walker: RefCell::new(Walker::new(text)),
        }
    }

    /// Says whether the root is an object that repeats none of its keys (as the document's
    /// parse found, [`crate::skim::Skimmed::root_keys_unique`]): then a root member is the
    /// first of its name, and the members after it are not read.
    pub fn unique_root_keys(self, unique: bool) -> Self {
        if let Ok(mut w) = self.walker.try_borrow_mut() {
            w.unique_root = unique;
        }
        self
    }

    /// The region of `keyword` in the schema node at `pointer`, the schema itself being at
    /// `prefix` in the document.
    pub fn region(&self, prefix: &[String], pointer: &str, keyword: &str) -> Option<Region> {
        let toks = prefix
            .iter()
            .map(|t| Cow::Borrowed(t.as_str()))
            .chain(tokens(pointer));
        let span = self.walker.try_borrow_mut().ok()?.find(toks, keyword)?;
        let mut index = self.index.try_borrow_mut().ok()?;
        let (start_line, start_column) = index.position(span.start);
        let (end_line, end_column) = index.position(span.end);
        Some(Region {
            start_line,
            start_column,
            end_line,
            end_column,
        })
    }
}

/// The tokens of pointer text (`/a~1b/0` → `["a/b", "0"]`), borrowed where nothing is escaped.
pub fn tokens(pointer: &str) -> impl Iterator<Item = Cow<'_, str>> + '_ {
    pointer.split('/').skip(1).map(|t| {
        if t.contains('~') {
            Cow::Owned(t.replace("~1", "/").replace("~0", "~"))
        } else {
            Cow::Borrowed(t)
        }
    })
}

#[derive(Clone, Copy, Debug)]
struct Member {
    key: Span,
    value: usize,
}

/// An object's members or a list's element starts, as far as they could be read.
#[derive(Debug)]
enum Container {
    Object(Vec<Member>),
    List(Vec<usize>),
}

/// Walks the text, keeping each container it reads by its start offset.
#[derive(Debug)]
struct Walker<'a> {
    b: &'a [u8],
    seen: HashMap<usize, Container>,
    ends: Ends,
    /// The root is an object none of whose keys is repeated: the first member of a name is
    /// the one, and the members after it need not be read (in a benchmark-style file, the
    /// `tests` after the `schema`, most of the bytes).
    unique_root: bool,
}

impl<'a> Walker<'a> {
    fn new(text: &'a str) -> Self {
        Walker {
            b: text.as_bytes(),
            seen: HashMap::new(),
            ends: Ends::default(),
            unique_root: false,
        }
    }

    /// Finds `keyword` in the object at `tokens` (the unescaped pointer tokens), or the value
    /// at `tokens` when there is no such key. `None` only when the pointer leads nowhere.
    fn find<S: AsRef<str>>(
        &mut self,
        tokens: impl IntoIterator<Item = S>,
        keyword: &str,
    ) -> Option<Span> {
        let b = self.b;
        let mut at = skip_ws(b, 0);
        for token in tokens {
            let token = token.as_ref();
            at = match self.member_or_list(at, token)? {
                Step::Member(m) => m.value,
                Step::List(items) => *items.get(token.parse::<usize>().ok()?)?,
            };
        }
        if !keyword.is_empty() {
            if let Some(Step::Member(m)) = self.member_or_list(at, keyword) {
                return Some(m.key);
            }
        }
        // An object or a list: its opening bracket; a scalar: the whole token.
        let end = match b.get(at) {
            Some(b'{' | b'[') | None => at + 1,
            Some(_) => value_end(b, &mut self.ends, at).unwrap_or(at + 1),
        };
        Some(Span { start: at, end })
    }

    /// The member called `name` of the object at `at` (the last of that name), or the
    /// elements of the list at `at`: one look-up of the container either way. `None` when
    /// `at` is an object without such a member, or a scalar.
    fn member_or_list(&mut self, at: usize, name: &str) -> Option<Step<'_>> {
        let b = self.b;
        if self.unique_root && at == skip_ws(b, 0) && b.get(at) == Some(&b'{') {
            return first_named(b, &mut self.ends, at, name).map(Step::Member);
        }
        match self.container(at)? {
            Container::Object(members) => last_named(b, members, name).copied().map(Step::Member),
            Container::List(items) => Some(Step::List(items)),
        }
    }

    /// The container starting at `at`, read once.
    fn container(&mut self, at: usize) -> Option<&Container> {
        let b = self.b;
        let kind = *b.get(at)?;
        if kind != b'{' && kind != b'[' {
            return None;
        }
        let ends = &mut self.ends;
        Some(self.seen.entry(at).or_insert_with(|| {
            if kind == b'{' {
                Container::Object(members(b, ends, at))
            } else {
                Container::List(elements(b, ends, at))
            }
        }))
    }
}

/// One step down a pointer: the member found in an object, or a list's elements.
enum Step<'c> {
    Member(Member),
    List(&'c [usize]),
}

/// The last member called `name` (the parser keeps the last of duplicate keys).
fn last_named<'m>(b: &[u8], members: &'m [Member], name: &str) -> Option<&'m Member> {
    members.iter().rev().find(|m| is_named(b, m, name))
}

/// Whether the member's key decodes to `name`.
fn is_named(b: &[u8], m: &Member, name: &str) -> bool {
    b.get(m.key.start + 1..m.key.end - 1)
        .is_some_and(|raw| key_equals(raw, name))
}

/// The first member called `name` of the object starting at `at`, reading its members only
/// as far as that one.
fn first_named(b: &[u8], ends: &mut Ends, at: usize, name: &str) -> Option<Member> {
    Members::new(b, ends, at).find(|m| is_named(b, m, name))
}

/// The members of the object starting at `at`, up to the first thing that is not one.
fn members(b: &[u8], ends: &mut Ends, at: usize) -> Vec<Member> {
    Members::new(b, ends, at).collect()
}

/// The members of an object in order, each one's value stepped over only when the next is
/// asked for; it ends at the first thing that is not a member.
struct Members<'b, 'e> {
    b: &'b [u8],
    ends: &'e mut Ends,
    /// Where the next member starts, before the first; `None` once ended.
    at: Option<usize>,
    /// The value of the member last read, to step over first.
    pending: Option<usize>,
}

impl<'b, 'e> Members<'b, 'e> {
    fn new(b: &'b [u8], ends: &'e mut Ends, object: usize) -> Self {
        Members {
            b,
            ends,
            at: Some(skip_ws(b, object + 1)),
            pending: None,
        }
    }

    fn read(&mut self) -> Option<Member> {
        let b = self.b;
        let mut i = self.at?;
        if let Some(value) = self.pending.take() {
            i = skip_ws(b, value_end(b, self.ends, value)?);
            if b.get(i) != Some(&b',') {
                return None;
            }
            i = skip_ws(b, i + 1);
        }
        if b.get(i) != Some(&b'"') {
            return None;
        }
        let key_end = string_end(b, i)?;
        let colon = skip_ws(b, key_end);
        if b.get(colon) != Some(&b':') {
            return None;
        }
        let value = skip_ws(b, colon + 1);
        self.pending = Some(value);
        Some(Member {
            key: Span {
                start: i,
                end: key_end,
            },
            value,
        })
    }
}

impl Iterator for Members<'_, '_> {
    type Item = Member;

    fn next(&mut self) -> Option<Member> {
        let m = self.read();
        if m.is_none() {
            self.at = None;
        }
        m
    }
}

/// The element starts of the list starting at `at`, up to the first thing that is not one.
fn elements(b: &[u8], ends: &mut Ends, at: usize) -> Vec<usize> {
    let mut out = Vec::new();
    let mut i = skip_ws(b, at + 1);
    while !matches!(b.get(i), None | Some(b']')) {
        out.push(i);
        let Some(end) = value_end(b, ends, i) else {
            break;
        };
        i = skip_ws(b, end);
        if b.get(i) != Some(&b',') {
            break;
        }
        i = skip_ws(b, i + 1);
    }
    out
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while matches!(b.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    i
}

/// One past the closing quote of the string starting at `i`.
fn string_end(b: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 1;
    loop {
        j = quote_or_backslash(b, j)?;
        match b.get(j)? {
            b'"' => return Some(j + 1),
            _ => j += 2,
        }
    }
}

/// The first `"` or `\` at or after `from`. Most of a document's bytes are inside strings.
fn quote_or_backslash(b: &[u8], from: usize) -> Option<usize> {
    first_where(
        b,
        from,
        |w| equal(w, b'"') | equal(w, b'\\'),
        |c| c == b'"' || c == b'\\',
    )
}

/// The first line break at or after `from`.
fn first_newline(b: &[u8], from: usize) -> Option<usize> {
    first_where(b, from, |w| equal(w, b'\n'), |c| c == b'\n')
}

/// The first byte at or after `from` that opens or closes a string, an object or a list.
fn structural(b: &[u8], from: usize) -> Option<usize> {
    first_where(
        b,
        from,
        |w| equal(w, b'"') | equal(w, b'{') | equal(w, b'[') | equal(w, b'}') | equal(w, b']'),
        |c| matches!(c, b'"' | b'{' | b'[' | b'}' | b']'),
    )
}

/// Where containers of a text end: `(start, one past the end)`, sorted by start. Locating a
/// finding walks down from the root, reading the members of each object on the way, and each
/// member's value has to be stepped over: scanning it to its end each time read a node's bytes
/// once for every object above it (a node eight levels down, eight times). Stepping over a
/// container not met before scans it once and records the end of every container inside it,
/// so what is below is stepped over by a binary search.
#[derive(Debug, Default)]
struct Ends(Vec<(usize, usize)>);

impl Ends {
    /// One past the end of the container starting at `start`; `None` when it is not closed.
    fn end(&mut self, b: &[u8], start: usize) -> Option<usize> {
        let pos = match self.0.binary_search_by_key(&start, |s| s.0) {
            Ok(i) => return self.0.get(i).map(|s| s.1).filter(|&end| end != usize::MAX),
            Err(pos) => pos,
        };
        let batch = Ends::scan(b, start);
        let end = batch.first().map_or(usize::MAX, |s| s.1);
        // Containers inside this one that were recorded before (a scan of a member's value
        // before the object holding it) are in the batch too: replaced, so each start is once.
        let inside = self
            .0
            .get(pos..)
            .map_or(0, |rest| rest.partition_point(|s| s.0 < end));
        self.0.splice(pos..pos + inside, batch);
        (end != usize::MAX).then_some(end)
    }

    /// The containers from the one starting at `start` to where it closes, in the order they
    /// open (`usize::MAX` for an end not found).
    fn scan(b: &[u8], start: usize) -> Vec<(usize, usize)> {
        let mut spans: Vec<(usize, usize)> = Vec::new();
        // Indices in `spans` of the containers open at `j`.
        let mut open = Vec::new();
        let mut j = start;
        while let Some(k) = structural(b, j) {
            match b.get(k) {
                Some(b'"') => {
                    let Some(end) = string_end(b, k) else {
                        break;
                    };
                    j = end;
                    continue;
                }
                Some(b'{' | b'[') => {
                    open.push(spans.len());
                    spans.push((k, usize::MAX));
                }
                _ => {
                    if let Some(span) = open.pop().and_then(|o| spans.get_mut(o)) {
                        span.1 = k + 1;
                    }
                    if open.is_empty() {
                        break;
                    }
                }
            }
            j = k + 1;
        }
        spans
    }
}

/// One past the end of the value starting at `i`.
fn value_end(b: &[u8], ends: &mut Ends, i: usize) -> Option<usize> {
    match b.get(i)? {
        b'"' => string_end(b, i),
        b'{' | b'[' => ends.end(b, i),
        _ => Some(scalar_end(b, i)),
    }
}

/// One past the end of the number or literal starting at `i`.
fn scalar_end(b: &[u8], i: usize) -> usize {
    let mut j = i;
    while !matches!(
        b.get(j),
        None | Some(b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
    ) {
        j += 1;
    }
    j
}

/// True when the raw (still escaped) key text decodes to `name`.
fn key_equals(raw: &[u8], name: &str) -> bool {
    if !raw.contains(&b'\\') {
        return raw == name.as_bytes();
    }
    decode(raw).is_some_and(|k| k == name)
}

/// Decodes the escapes of a JSON string's contents.
fn decode(raw: &[u8]) -> Option<String> {
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while let Some(&c) = raw.get(i) {
        if c != b'\\' {
            out.push(c);
            i += 1;
            continue;
        }
        let e = *raw.get(i + 1)?;
        i += 2;
        let simple = match e {
            b'"' => Some(b'"'),
            b'\\' => Some(b'\\'),
            b'/' => Some(b'/'),
            b'b' => Some(0x08),
            b'f' => Some(0x0c),
            b'n' => Some(b'\n'),
            b'r' => Some(b'\r'),
            b't' => Some(b'\t'),
            b'u' => None,
            _ => return None,
        };
        if let Some(s) = simple {
            out.push(s);
            continue;
        }
        let hi = hex4(raw.get(i..i + 4)?)?;
        i += 4;
        let code = if (0xD800..0xDC00).contains(&hi) && raw.get(i..i + 2) == Some(b"\\u") {
            let lo = hex4(raw.get(i + 2..i + 6)?)?;
            if (0xDC00..0xE000).contains(&lo) {
                i += 6;
                0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
            } else {
                hi
            }
        } else {
            hi
        };
        // A lone surrogate decodes to U+FFFD, as serde_json does not accept it at all.
        let ch = char::from_u32(code).unwrap_or('\u{fffd}');
        let mut buf = [0u8; 4];
        out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
    }
    String::from_utf8(out).ok()
}

fn hex4(h: &[u8]) -> Option<u32> {
    std::str::from_utf8(h)
        .ok()
        .and_then(|s| u32::from_str_radix(s, 16).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn find<S: AsRef<str>>(text: &str, tokens: &[S], keyword: &str) -> Option<Span> {
        Walker::new(text).find(tokens, keyword)
    }

    fn at(text: &str, pointer: &str, keyword: &str) -> (usize, usize, String) {
        let toks: Vec<String> = tokens(pointer).map(Cow::into_owned).collect();
        let span = find(text, &toks, keyword).expect("located");
        let (l, c) = LineIndex::new(text).position(span.start);
        (l, c, text[span.start..span.end].to_owned())
    }

    const DOC: &str = r##"{
  "type": "object",
  "properties": {
    "a/b": {"$ref": "#/x"},
    "t~n": {"items": [true, {"pattern": "\\d"}]},
    "\u00e9t\u00E9": { "type": "string", "type": "integer" },
    "é2": {"not": {"type": "null"}}
  }
}"##;

    /// The word-at-a-time scan finds the first `"` or `\` wherever it is in the word, past
    /// bytes that differ from them by one bit (`#`, `]`), non-ASCII and control bytes.
    #[test]
    fn quotes_and_backslashes_are_found_in_every_position() {
        for special in [b'"', b'\\'] {
            for filler in [b'a', b'#', b']', b'!', 0x00, 0xff, 0x80] {
                for len in 0..20 {
                    for at in 0..=len {
                        let mut bytes = vec![filler; len];
                        if let Some(x) = bytes.get_mut(at) {
                            *x = special;
                        }
                        for from in 0..=at.min(len) {
                            let want = (at < len).then_some(at);
                            assert_eq!(quote_or_backslash(&bytes, from), want, "{len} {at} {from}");
                        }
                    }
                }
            }
        }
        // A string's end, past escaped quotes and backslashes in any position.
        for pre in 0..10 {
            // `"é…a\"b\\"` then `c, "x"`: an escaped quote, an escaped backslash, the end.
            let text = format!(r#""{}a\"b\\"c, "x""#, "é".repeat(pre));
            let end = text.find("c,").unwrap_or(0);
            assert_eq!(string_end(text.as_bytes(), 0), Some(end), "{text}");
        }
    }

    #[test]
    fn finds_keywords_through_escaped_keys() {
        assert_eq!(
            at(DOC, "/properties/a~1b", "$ref"),
            (4, 13, "\"$ref\"".into())
        );
        assert_eq!(
            at(DOC, "/properties/t~0n/items/1", "pattern"),
            (5, 30, "\"pattern\"".into())
        );
        // Escaped key (\u00e9 = é), and the last of duplicate keys.
        assert_eq!(
            at(DOC, "/properties/ét\u{e9}", "type"),
            (6, 42, "\"type\"".into())
        );
        // Columns count characters, not bytes.
        assert_eq!(
            at(DOC, "/properties/é2/not", "type"),
            (7, 20, "\"type\"".into())
        );
    }

    #[test]
    fn falls_back_to_the_value() {
        // A boolean subschema: the value itself.
        assert_eq!(
            at(DOC, "/properties/t~0n/items/0", "items"),
            (5, 23, "true".into())
        );
        // A missing keyword: the object's opening brace.
        assert_eq!(at(DOC, "/properties/a~1b", "minimum"), (4, 12, "{".into()));
        // The root.
        assert_eq!(at(DOC, "", ""), (1, 1, "{".into()));
        assert_eq!(at(DOC, "", "type"), (2, 3, "\"type\"".into()));
    }

    #[test]
    fn prefixes_reach_groups() {
        let text = r#"[{"schema": {"a": 1}}, {"description": "x", "schema": {"type": 1}}]"#;
        let span = find(text, &["1", "schema"], "type").unwrap();
        assert_eq!(&text[span.start..span.end], "\"type\"");
        assert!(find(text, &["2", "schema"], "type").is_none());
        assert!(find(text, &["x"], "type").is_none());
        assert!(find("[]", &["0"], "").is_none());
    }

    /// Every container's end is where serde_json's parse of the value starting there ends:
    /// through brackets and escaped quotes inside strings, and nesting; asked for outermost
    /// first, innermost first, or in text order.
    #[test]
    fn container_ends_are_where_the_values_end() {
        let texts = [
            DOC,
            r#"[[], {}, [[{"a": "]}", "b\"[": [1, {"c": "\\"}]}]], {"d": {"e": {"f": []}}}]"#,
            r#"{"schema": {"items": [true, {"pattern": "[{"}]}, "tests": [{"data": [[[]]]}]}"#,
        ];
        for text in texts {
            let b = text.as_bytes();
            let mut want = Vec::new();
            for (start, c) in text.char_indices() {
                if c != '{' && c != '[' || !in_structure(text, start) {
                    continue;
                }
                let mut values = serde_json::Deserializer::from_str(&text[start..])
                    .into_iter::<serde_json::Value>();
                assert!(
                    values.next().is_some_and(|v| v.is_ok()),
                    "{text} at {start}"
                );
                want.push((start, start + values.byte_offset()));
            }
            for order in [want.clone(), want.iter().rev().copied().collect()] {
                let mut ends = Ends::default();
                for &(start, end) in &order {
                    assert_eq!(ends.end(b, start), Some(end), "{text} at {start}");
                    assert_eq!(
                        value_end(b, &mut ends, start),
                        Some(end),
                        "{text} at {start}"
                    );
                }
                // Each container recorded once, in order, whatever the order of the scans.
                assert_eq!(ends.0, want, "{text}");
            }
        }
        // An unclosed container has no end.
        assert_eq!(Ends::default().end(b"{\"a\": [1", 0), None);
    }

    /// With keys known not to repeat at the root, a root member is found without reading the
    /// members after it, and the answers are the same.
    #[test]
    fn a_unique_root_is_read_only_as_far_as_needed() {
        let text = r#"{"description": "d", "schema": {"type": "object", "properties": {"a": {"minimum": 1}}}, "tests": [{"data": [1, {"x": "]"}], "valid": true}]}"#;
        let prefix = vec!["schema".to_owned()];
        let full = Locator::new(text);
        let lazy = Locator::new(text).unique_root_keys(true);
        for (pointer, keyword) in [
            ("/properties/a", "minimum"),
            ("", "type"),
            ("/properties", ""),
        ] {
            let (a, b) = (
                full.region(&prefix, pointer, keyword),
                lazy.region(&prefix, pointer, keyword),
            );
            assert!(a.is_some(), "{pointer} {keyword}");
            assert_eq!(
                a.map(|r| (r.start_line, r.start_column, r.end_column)),
                b.map(|r| (r.start_line, r.start_column, r.end_column))
            );
        }
        // The tests (after the schema) were never scanned.
        let tests = text.find("[{\"data").unwrap_or(0);
        let walker = lazy.walker.borrow();
        assert!(
            walker.ends.0.iter().all(|&(start, _)| start < tests),
            "{:?}",
            walker.ends.0
        );
        // With a repeated key, the last one counts, so the whole root is read.
        let text = r#"{"schema": {"type": "string"}, "schema": {"type": "integer"}}"#;
        let r = Locator::new(text).region(&["schema".to_owned()], "", "type");
        // The second `type` (column 43), not the first (column 13).
        assert_eq!(r.map(|r| r.start_column), Some(43));
    }

    /// Whether the byte at `at` is outside every string (by counting unescaped quotes).
    fn in_structure(text: &str, at: usize) -> bool {
        let mut inside = false;
        let mut escaped = false;
        for &c in &text.as_bytes()[..at] {
            match (inside, escaped, c) {
                (true, true, _) => escaped = false,
                (true, false, b'\\') => escaped = true,
                (_, _, b'"') => inside = !inside,
                _ => {}
            }
        }
        !inside
    }

    #[test]
    fn never_panics_on_garbage() {
        for text in [
            "",
            "{",
            "[",
            "\"",
            "{\"a",
            "{\"a\":",
            "[1,",
            "{\"\\u12\":1}",
            "}}}",
            "\\",
        ] {
            for p in ["", "/a", "/0", "/a/0"] {
                let toks: Vec<String> = tokens(p).map(Cow::into_owned).collect();
                let _ = find(text, &toks, "a");
            }
        }
    }

    #[test]
    fn a_locator_answers_many_lookups_from_one_walk() {
        let loc = Locator::new(DOC);
        let prefix: Vec<String> = Vec::new();
        for _ in 0..3 {
            let r = loc.region(&prefix, "/properties/a~1b", "$ref").unwrap();
            assert_eq!((r.start_line, r.start_column, r.end_column), (4, 13, 19));
            let r = loc
                .region(&prefix, "/properties/t~0n/items/1", "pattern")
                .unwrap();
            assert_eq!((r.start_line, r.start_column), (5, 30));
        }
        assert!(loc
            .region(&prefix, "/properties/t~0n/items/2", "")
            .is_none());
        assert!(loc.region(&prefix, "/nope", "type").is_none());
    }

    #[test]
    fn positions() {
        let mut idx = LineIndex::new("ab\ncé\n\nx");
        assert_eq!(idx.position(0), (1, 1));
        assert_eq!(idx.position(3), (2, 1));
        assert_eq!(idx.position(6), (2, 3));
        assert_eq!(idx.position(8), (4, 1));
        assert_eq!(idx.position(100), (4, 2));
        assert_eq!(idx.char_column(2, 4), (2, 3));
        assert_eq!(idx.char_column(9, 4), (9, 4));
    }

    /// The index searches only as far as asked, and answers the same in any order of
    /// questions as an index of the whole text (lines of every length around the word size).
    #[test]
    fn lazy_positions_agree_with_the_whole_text() {
        let text: String = (0..60)
            .map(|i| format!("{}é\n", "x".repeat(i % 19)))
            .collect::<String>()
            + "end";
        let whole = |offset: usize| {
            let before = &text.as_bytes()[..offset];
            let line = before.iter().filter(|b| **b == b'\n').count() + 1;
            let start = before
                .iter()
                .rposition(|b| *b == b'\n')
                .map_or(0, |i| i + 1);
            let column = text
                .get(start..offset)
                .map_or(offset - start, |s| s.chars().count());
            (line, column + 1)
        };
        let offsets: Vec<usize> = (0..=text.len())
            .filter(|i| text.is_char_boundary(*i))
            .collect();
        let mut forward = LineIndex::new(&text);
        let mut backward = LineIndex::new(&text);
        let mut scattered = LineIndex::new(&text);
        for (k, &o) in offsets.iter().enumerate() {
            assert_eq!(forward.position(o), whole(o), "{o}");
            let r = offsets[offsets.len() - 1 - k];
            assert_eq!(backward.position(r), whole(r), "{r}");
            let s = offsets[(k * 7919) % offsets.len()];
            assert_eq!(scattered.position(s), whole(s), "{s}");
        }
        // Lines of 3, 4 and 5 bytes: offset 9 is on the third, and nothing past it is read.
        let mut lazy = LineIndex::new(&text);
        assert_eq!(lazy.position(9), (3, 3));
        assert_eq!((lazy.starts.len(), lazy.scanned), (3, 9));
    }
}
