//! Provider capabilities as data: one table per target, one row per subset keyword, each row
//! with its source. The generic emitter reads these rows to decide what to send, so a provider
//! change is a one-line edit here, and `docs/targets.md` is checked against these tables by a
//! test so the documentation cannot drift from the code.

use crate::target::Target;

/// What a target does with one keyword.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Support {
    /// Sent and enforced (for annotations: sent).
    Kept,
    /// Sent, but the provider does not enforce it: a loss, though the model still sees it.
    Hint(&'static str),
    /// Not sent (the provider would reject it or it would mislead): a loss for assertions.
    Dropped(&'static str),
    /// Sent in a weaker form the provider accepts.
    Rewritten(Rewrite),
    /// Enforced for some values; the rule says which, the rest are handled as described.
    Partial(Partial),
    /// The keyword cannot be sent or dropped without narrowing: the lowering falls back.
    Degrades(&'static str),
}

/// The widening rewrites the emitter implements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rewrite {
    /// `oneOf` sent as `anyOf` (exclusivity not enforced).
    OneOfAsAnyOf,
    /// `exclusiveMinimum`/`exclusiveMaximum` sent as the inclusive bound.
    ExclusiveAsInclusive,
    /// `minItems` above 1 sent as 1.
    MinItemsAtMostOne,
    /// `const` sent as a one-value `enum`.
    ConstAsEnum,
    /// `prefixItems` folded into `items` as an `anyOf` of every position and the tail.
    PrefixItemsAsItems,
    /// The value is written into `description` as a hint instead of being sent as a keyword.
    IntoDescription,
    /// `allOf` merged into its parent where the merge keeps the contract.
    MergedIntoParent,
    /// A list of types sent as one type plus `nullable`, or as `anyOf` of single-type branches
    /// each carrying the keywords of its type (dialects whose `type` is a single value).
    TypeUnionSplit,
}

impl Rewrite {
    /// How the rewrite reads in the target matrix.
    pub fn describe(self) -> &'static str {
        match self {
            Rewrite::OneOfAsAnyOf => "sent as `anyOf` (exclusivity not enforced)",
            Rewrite::ExclusiveAsInclusive => "sent as the inclusive bound",
            Rewrite::MinItemsAtMostOne => "values above 1 sent as 1",
            Rewrite::ConstAsEnum => "sent as a one-value `enum`",
            Rewrite::PrefixItemsAsItems => "folded into `items` as `anyOf` of every position",
            Rewrite::IntoDescription => "written into `description` as a hint",
            Rewrite::MergedIntoParent => "merged into the parent schema where the merge keeps the contract, else the lowering falls back",
            Rewrite::TypeUnionSplit => "one type sent as is, `null` as `nullable`, several types as `anyOf` of single-type branches, each with the keywords of its type",
        }
    }
}

/// Value-dependent support.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Partial {
    /// `enum` whose values are all of the listed kinds is kept; otherwise dropped whole (never
    /// filtered: filtering narrows).
    EnumValues(ValueKinds),
    /// `pattern` kept when the provider's engine runs it as ECMA-262 would; otherwise dropped.
    Patterns(PatternRule),
    /// `enum`/`const` values split by type (dialects that split type unions): strings become
    /// the string branch's `enum`, numbers the tightest bounds, booleans and null their type.
    /// Every value stays admitted (never filtered); what the split cannot say is a loss.
    LiteralsByType,
    /// Numeric bounds sent always, enforced only on nodes that admit integers alone; elsewhere
    /// a loss with the reason given.
    IntegersOnly(&'static str),
    /// String lengths sent on nodes that carry no pattern, enforced there only when the node
    /// admits strings alone (elsewhere a loss with the reason given); beside a pattern, which
    /// the converter reads instead, not sent (a loss): a grammar engine that intersects a
    /// length with a large pattern can exhaust its lexer and block valid text (llguidance,
    /// issue 18).
    PlainStrings(&'static str),
    /// Numeric bounds sent only on nodes that admit no fraction and only when the bound is an
    /// integer of at most 2^53 (the converter builds an integer range there, and refuses or
    /// may misread anything else); elsewhere not sent, a loss with the reason given.
    IntegerNodesOnly(&'static str),
    /// `additionalProperties` not sent because every object is closed to its declared
    /// properties (exact on the declared fragment); an object declaring none degrades.
    ClosedToDeclared,
}

impl Partial {
    /// How the rule reads in the target matrix.
    pub fn describe(self) -> &'static str {
        match self {
            Partial::Patterns(PatternRule::AnchoredSimple) => {
                "kept when anchored `^…$` as a whole and written in the simple syntax engines agree on; else dropped"
            }
            Partial::EnumValues(ValueKinds::Scalars) => {
                "kept when every value is a string, number, boolean or null; else dropped whole"
            }
            Partial::EnumValues(ValueKinds::StringsAndNumbers) => {
                "kept when every value is a string or number; else dropped whole"
            }
            Partial::EnumValues(ValueKinds::Strings) => {
                "kept when every value is a string; else dropped whole"
            }
            Partial::Patterns(PatternRule::Anchored) => {
                "kept when anchored `^…$` without `\\d \\w \\s` shorthands (rewritten to classes when possible); else dropped"
            }
            Partial::Patterns(PatternRule::ClaudeSimple) => {
                "kept when it uses only the simple regex features Claude documents; else dropped"
            }
            Partial::Patterns(PatternRule::Ecma) => "kept (ECMA-262 patterns)",
            Partial::Patterns(PatternRule::FullMatchSafe) => {
                "kept, in the portable spelling (`\\d \\w \\s`, `.` and named groups written as explicit classes and plain groups); an unanchored pattern is sent as `^[\\s\\S]*(?:…)[\\s\\S]*$`, which means the same whether the engine searches or matches the whole string"
            }
            Partial::IntegersOnly(_) => {
                "sent; enforced on nodes that admit integers only, a loss elsewhere"
            }
            Partial::PlainStrings(_) => {
                "sent on nodes without a pattern (enforced where the node admits strings only, a loss elsewhere); not sent beside a pattern, which the converter reads instead (a loss)"
            }
            Partial::LiteralsByType => {
                "string values become the STRING branch's `enum`, numbers the tightest `minimum`/`maximum` (exact for one value or a run of consecutive integers), booleans and null their type; never filtered, so every value stays admitted"
            }
            Partial::IntegerNodesOnly(_) => {
                "sent on nodes that admit integers only, when the bound is an integer up to 2^53; else not sent (a loss)"
            }
            Partial::Patterns(PatternRule::RawCharacters) => {
                "kept when anchored `^…$` as a whole, in the simple syntax, and every character it can match is one JSON writes unescaped (no `\\`, `\"`, control characters, `.` or negated classes); else dropped"
            }
            Partial::ClosedToDeclared => {
                "not sent: every object is closed to its declared properties (exact on the declared fragment); an object that declares none (a map, `{\"type\": \"object\"}`) cannot be sent and the lowering falls back"
            }
        }
    }
}

/// Which JSON values an `enum` may hold for a provider.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueKinds {
    /// Strings, numbers, booleans and null.
    Scalars,
    /// Strings and numbers.
    StringsAndNumbers,
    /// Strings only.
    Strings,
}

/// Which patterns a provider's engine runs faithfully.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PatternRule {
    /// Simple syntax (see `dialect::simple_regex`) anchored `^…$` as a whole, so the pattern
    /// means the same whether an undocumented engine searches or matches the whole string.
    AnchoredSimple,
    /// Any ECMA-262 pattern of the subset.
    Ecma,
    /// llama.cpp: must be `^…$`; shorthand classes break its grammar.
    Anchored,
    /// Claude's documented simple regexes.
    ClaudeSimple,
    /// Any ECMA-262 pattern, sent in a form whose meaning does not depend on whether the
    /// engine searches (JSON Schema) or matches the whole string (many grammar compilers).
    FullMatchSafe,
    /// xgrammar: the simple syntax anchored `^…$` as a whole, matched against the raw
    /// characters between the string's quotes, so only patterns whose every match is written
    /// without a JSON escape (see `dialect::simple_regex::raw_characters_only`).
    RawCharacters,
}

/// One row of a capability table.
#[derive(Clone, Copy, Debug)]
pub struct Row {
    /// The subset keyword.
    pub keyword: &'static str,
    /// What the target does with it.
    pub support: Support,
    /// Where this is documented (a URL, or a key of `design/providers.md` with its URL).
    pub source: &'static str,
}

/// A target's table.
#[derive(Debug)]
pub struct Capabilities {
    /// The target.
    pub target: Target,
    /// The request field the schema travels in.
    pub field: &'static str,
    /// Where the route's wire shape is documented: the request fields and the mode they select
    /// (the rows source what the schema in `field` may say).
    pub route: &'static str,
    /// The rows, one per subset keyword.
    pub rows: &'static [Row],
}

impl Capabilities {
    /// The row for a keyword. Every subset keyword has one (a test checks it).
    pub fn support(&self, keyword: &str) -> Support {
        self.rows
            .iter()
            .find(|r| r.keyword == keyword)
            .map_or(Support::Degrades("no capability row"), |r| r.support)
    }
}

/// Shorthand for table rows.
pub(crate) const fn row(keyword: &'static str, support: Support, source: &'static str) -> Row {
    Row {
        keyword,
        support,
        source,
    }
}
