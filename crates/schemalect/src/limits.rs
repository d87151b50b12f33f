//! Limits on untrusted input, in one place.
//!
//! Schemas come from users, tool registries and MCP servers; each limit turns what would be a
//! stack overflow, a hang or an out-of-memory into an error that says which limit was hit and how
//! to raise it. Defaults are set well above every schema of the shared real-world corpus
//! (7,616 schemas: at most 1,613 nodes, 22 levels of JSON nesting, 1,554 enum values, a
//! 1,327-character pattern) and well below what could hurt a gateway.

/// Parse limits. `Limits::default()` is what the library and the CLI use unless told otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// Deepest nesting of subschemas, and of JSON values inside `enum`, `const`, `default` and
    /// `examples`. Default 64.
    pub max_depth: usize,
    /// Most schema nodes in one document. Default 50,000.
    pub max_nodes: usize,
    /// Most values in one `enum`. Default 10,000.
    pub max_enum_values: usize,
    /// Longest `pattern`, in characters. Default 4,096 (the seed used 1,000; the corpus has a
    /// real 1,327-character pattern).
    pub max_pattern_len: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_depth: 64,
            max_nodes: 50_000,
            max_enum_values: 10_000,
            max_pattern_len: 4_096,
        }
    }
}

impl Limits {
    /// Same limits with another depth.
    #[must_use]
    pub fn with_max_depth(mut self, n: usize) -> Self {
        self.max_depth = n;
        self
    }

    /// Same limits with another node budget.
    #[must_use]
    pub fn with_max_nodes(mut self, n: usize) -> Self {
        self.max_nodes = n;
        self
    }

    /// Same limits with another enum size.
    #[must_use]
    pub fn with_max_enum_values(mut self, n: usize) -> Self {
        self.max_enum_values = n;
        self
    }

    /// Same limits with another pattern length.
    #[must_use]
    pub fn with_max_pattern_len(mut self, n: usize) -> Self {
        self.max_pattern_len = n;
        self
    }
}

/// Which limit was hit, for error messages that say how to raise it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// [`Limits::max_depth`]
    Depth,
    /// [`Limits::max_nodes`]
    Nodes,
    /// [`Limits::max_enum_values`]
    EnumValues,
    /// [`Limits::max_pattern_len`]
    PatternLength,
}

impl Limit {
    /// What the limit counts, for messages.
    pub fn what(self) -> &'static str {
        match self {
            Limit::Depth => "nesting depth",
            Limit::Nodes => "number of schema nodes",
            Limit::EnumValues => "number of enum values",
            Limit::PatternLength => "pattern length in characters",
        }
    }

    /// The `Limits` field and the CLI flag that raise it.
    pub fn knob(self) -> (&'static str, &'static str) {
        match self {
            Limit::Depth => ("Limits::max_depth", "--max-depth"),
            Limit::Nodes => ("Limits::max_nodes", "--max-nodes"),
            Limit::EnumValues => ("Limits::max_enum_values", "--max-enum-values"),
            Limit::PatternLength => ("Limits::max_pattern_len", "--max-pattern-len"),
        }
    }
}
