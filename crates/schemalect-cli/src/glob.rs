//! The globs of `--include`, `--exclude` and the configuration file's overrides, matched
//! against `/`-separated paths relative to the configuration file's folder (or the working
//! directory). A small matcher rather than a crate: four constructs are all CI configs use.
//!
//! - `*` any characters except `/`; `?` one character except `/`;
//! - `**/` zero or more whole folders; `**` elsewhere any characters, `/` included;
//! - a pattern without `/` matches the file name at any depth (`*.draft.json`);
//! - a trailing `/` matches everything under that folder (`vendor/`).

/// A compiled glob.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Glob {
    tokens: Vec<Token>,
    basename: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Token {
    Char(char),
    Any,
    Star,
    DeepStar,
    Folders,
}

impl Glob {
    /// Compiles `pattern`; an empty pattern is refused.
    pub fn new(pattern: &str) -> Result<Self, String> {
        let text = pattern.trim();
        if text.is_empty() {
            return Err("an empty glob matches nothing; remove it".to_owned());
        }
        let mut body = text.strip_prefix("./").unwrap_or(text).to_owned();
        if body.ends_with('/') {
            body.push_str("**");
        }
        let basename = !body.contains('/');
        let chars: Vec<char> = body.chars().collect();
        let mut tokens = Vec::new();
        let mut i = 0;
        while let Some(&c) = chars.get(i) {
            match c {
                '*' if chars.get(i + 1) == Some(&'*') => {
                    if chars.get(i + 2) == Some(&'/') {
                        tokens.push(Token::Folders);
                        i += 3;
                    } else {
                        tokens.push(Token::DeepStar);
                        i += 2;
                    }
                }
                '*' => {
                    tokens.push(Token::Star);
                    i += 1;
                }
                '?' => {
                    tokens.push(Token::Any);
                    i += 1;
                }
                c => {
                    tokens.push(Token::Char(c));
                    i += 1;
                }
            }
        }
        Ok(Glob { tokens, basename })
    }

    /// Whether `path` (relative, `/`-separated) matches.
    pub fn matches(&self, path: &str) -> bool {
        let path = path.strip_prefix("./").unwrap_or(path);
        let subject = if self.basename {
            path.rsplit('/').next().unwrap_or(path)
        } else {
            path
        };
        let text: Vec<char> = subject.chars().collect();
        matches(&self.tokens, &text)
    }
}

/// Dynamic programming over (token, character): `ok[i]` is whether the tokens from `j` on
/// match the text from `i` on. Quadratic at worst, without recursion.
fn matches(tokens: &[Token], text: &[char]) -> bool {
    let n = text.len();
    // The row for the position after the last token: only the end of text matches.
    let mut next: Vec<bool> = (0..=n).map(|i| i == n).collect();
    for t in tokens.iter().rev() {
        let mut row = vec![false; n + 1];
        for i in (0..=n).rev() {
            let at = |v: &[bool], k: usize| v.get(k).copied().unwrap_or(false);
            let here = text.get(i);
            let value = match t {
                Token::Char(c) => here == Some(c) && at(&next, i + 1),
                Token::Any => here.is_some_and(|c| *c != '/') && at(&next, i + 1),
                // Empty, or one more character (not `/`) and the same token again.
                Token::Star => at(&next, i) || (here.is_some_and(|c| *c != '/') && at(&row, i + 1)),
                Token::DeepStar => at(&next, i) || (here.is_some() && at(&row, i + 1)),
                // Empty, or any characters up to and including a `/`.
                Token::Folders => {
                    at(&next, i) || (i..n).any(|k| text.get(k) == Some(&'/') && at(&next, k + 1))
                }
            };
            if let Some(r) = row.get_mut(i) {
                *r = value;
            }
        }
        next = row;
    }
    next.first().copied().unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(p: &str, path: &str) -> bool {
        Glob::new(p).unwrap().matches(path)
    }

    #[test]
    fn stars_and_folders() {
        assert!(m("schemas/*.json", "schemas/a.json"));
        assert!(!m("schemas/*.json", "schemas/x/a.json"));
        assert!(m("schemas/**/*.json", "schemas/a.json"));
        assert!(m("schemas/**/*.json", "schemas/x/y/a.json"));
        assert!(!m("schemas/**/*.json", "other/a.json"));
        assert!(m("**/vendor/**", "a/vendor/b/c.json"));
        assert!(m("vendor/", "vendor/x/y.json"));
        assert!(!m("vendor/", "src/vendor.json"));
        assert!(m("a?c.json", "abc.json"));
        assert!(!m("a?c.json", "a/c.json"));
        assert!(m("./schemas/**", "schemas/q.json"));
        assert!(m("schemas/**", "./schemas/q.json"));
    }

    #[test]
    fn a_pattern_without_a_slash_is_a_file_name() {
        assert!(m("*.draft.json", "x/y/z.draft.json"));
        assert!(!m("*.draft.json", "x/y/z.json"));
        assert!(m("legacy.json", "deep/legacy.json"));
    }

    #[test]
    fn empty_is_refused() {
        assert!(Glob::new(" ").is_err());
    }
}
