//! ECMA-262 `pattern`s on a linear-time engine. (Interim: compiles with the `regex` crate
//! directly; replaced by the nom-based ECMA-262 front end.)

use std::fmt;

/// A compiled `pattern`.
#[derive(Clone)]
pub struct Pattern {
    source: Box<str>,
    regex: regex::Regex,
    features: Features,
}

impl fmt::Debug for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Pattern").field(&self.source).finish()
    }
}

/// Which syntax a pattern uses; providers differ in what they accept.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Features {
    /// Starts with `^`.
    pub anchored_start: bool,
    /// Ends with `$`.
    pub anchored_end: bool,
}

/// Why a pattern cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PatternError {
    /// Longer than the limit.
    #[error("pattern is {len} characters long, over the limit of {max}; raise `Limits::max_pattern_len` (CLI: `--max-pattern-len`) if the schema is trusted")]
    TooLong {
        /// Its length.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// Not a valid ECMA-262 regular expression.
    #[error("invalid regular expression at offset {offset}: {message}")]
    Syntax {
        /// Byte offset in the pattern.
        offset: usize,
        /// What is wrong.
        message: String,
    },
}

impl Pattern {
    /// Compiles an ECMA-262 pattern.
    pub fn compile(source: &str, max_len: usize) -> Result<Pattern, PatternError> {
        let len = source.chars().count();
        if len > max_len {
            return Err(PatternError::TooLong { len, max: max_len });
        }
        let regex = regex::Regex::new(source).map_err(|e| PatternError::Syntax {
            offset: 0,
            message: e.to_string(),
        })?;
        Ok(Pattern {
            features: Features {
                anchored_start: source.starts_with('^'),
                anchored_end: source.ends_with('$'),
            },
            source: source.into(),
            regex,
        })
    }

    /// The source text.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// True when the pattern matches somewhere in `haystack` (JSON Schema patterns are not
    /// implicitly anchored).
    pub fn is_match(&self, haystack: &str) -> bool {
        self.regex.is_match(haystack)
    }

    /// The syntax features the pattern uses.
    pub fn features(&self) -> &Features {
        &self.features
    }
}
