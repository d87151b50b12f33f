//! Findings as CI reads them: one per rule, file and JSON Pointer, with a stable fingerprint,
//! a level, and the volume controls code scanning needs (minimum level, aggregation of repeated
//! notes, a hard cap with a closing result that says what was left out).
//!
//! GitHub code scanning rejects a run with more than 25,000 results and shows only the top
//! 5,000 by severity; it rejects files over 10 MB gzip-compressed, more than 20 runs per file,
//! more than 25,000 rules per run and more than 1,000 locations per result
//! (<https://docs.github.com/en/code-security/code-scanning/troubleshooting-sarif-uploads/results-exceed-limit>,
//! <https://docs.github.com/en/code-security/code-scanning/troubleshooting-sarif-uploads/file-too-large>).
//! The default cap ([`DEFAULT_MAX_RESULTS`]) keeps every result a run writes displayable.

use crate::locate::Region;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Code scanning's hard limit of results per run: a larger run is rejected.
pub const CODE_SCANNING_MAX_RESULTS: usize = 25_000;

/// Code scanning's display limit (the top results by severity); the default `--max-results`.
pub const DEFAULT_MAX_RESULTS: usize = 5_000;

/// More notes of one rule in one file than this are reported as one result.
pub const AGGREGATE_OVER: usize = 3;

/// How many pointers an aggregated result lists in its message.
const POINTERS_LISTED: usize = 10;

/// A finding's level, weakest first (`--min-level`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, clap::ValueEnum)]
pub enum Level {
    /// A loss on a target that still sends a schema (widened): local validation catches it.
    Note,
    /// A loss on a target that falls back to JSON mode or a prompt: nothing is enforced there.
    Warning,
    /// Out of the subset, a `--deny` hit, a file that cannot be read: the run fails.
    Error,
}

impl Level {
    /// The SARIF name.
    pub fn name(self) -> &'static str {
        match self {
            Level::Note => "note",
            Level::Warning => "warning",
            Level::Error => "error",
        }
    }
}

/// A rule: an id and what it means.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    /// e.g. `subset/outside/$ref`, `loss/pattern`, `deny/prompt`, `input/unreadable`.
    pub id: String,
    /// One sentence.
    pub description: String,
    /// The level its results have unless a result says otherwise.
    pub level: Level,
}

/// One finding.
#[derive(Clone, Debug)]
pub struct Finding {
    /// Its rule.
    pub rule: Rule,
    /// Its level.
    pub level: Level,
    /// The message.
    pub message: String,
    /// The file, as a URI reference relative to the working directory.
    pub uri: String,
    /// The node in the document (JSON Pointer from the document root; `*` for an aggregate).
    pub pointer: String,
    /// Where in the file, when known.
    pub region: Option<Region>,
}

impl Finding {
    /// The stable fingerprint: rule, file and pointer (never a line number, so edits elsewhere
    /// in the file leave it alone).
    pub fn fingerprint(&self) -> String {
        fingerprint(&self.rule.id, &self.uri, &self.pointer)
    }
}

/// 64-bit FNV-1a of `rule`, `uri` and `pointer` (separated by NUL), as 16 hex digits. FNV is
/// fixed by its definition, so fingerprints are the same on every machine and release.
pub fn fingerprint(rule: &str, uri: &str, pointer: &str) -> String {
    let mut bytes = Vec::with_capacity(rule.len() + uri.len() + pointer.len() + 3);
    for part in [rule, uri, pointer] {
        bytes.extend_from_slice(part.as_bytes());
        bytes.push(0);
    }
    format!("{:016x}", fnv1a(&bytes))
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// What a finding is pushed as: enough to tell which finding it belongs to and whether its
/// message repeats one already there, cheaply; the finding itself and its message are made
/// only for the findings [`FileFindings::finish`] keeps.
pub trait Source {
    /// Writes what names the finding in its file, its rule id and pointer, to `out`: two
    /// sources with the same key are one finding.
    fn key(&self, out: &mut String);
    /// The finding, without its region and message (its level is set from the sources).
    fn finding(&self) -> Finding;
    /// The message, without the targets.
    fn detail(&self) -> String;
    /// Whether the two messages are the same text: [`Source::detail`] of both, unless a
    /// cheaper test knows.
    fn same_detail(&self, other: &Self) -> bool {
        self.detail() == other.detail()
    }
}

/// Writes `part` of a key to `out` so that what follows cannot run into it: a NUL in it is
/// doubled, and it ends with NUL and U+0001. A key of a pointer and then a rule id, each of
/// any text, is then one key for one pair.
pub fn key_part(out: &mut String, part: &str) {
    if part.contains('\0') {
        for c in part.chars() {
            if c == '\0' {
                out.push('\0');
            }
            out.push(c);
        }
    } else {
        out.push_str(part);
    }
    out.push_str("\0\u{1}");
}

/// The targets that share one message, and the source of the message.
type Part<S> = (Vec<&'static str>, S);

/// Where a finding is in its schema, to be located in the text: a JSON Pointer in the schema
/// and the keyword at it (empty for the node itself).
pub type Place<'a> = (&'a str, &'a str);

/// A finding of a file, as pushed: its level so far, where it is, its message parts.
#[derive(Debug)]
struct Pending<'a, S> {
    level: Level,
    parts: Vec<Part<S>>,
    places: Vec<Place<'a>>,
}

/// Joins findings of one file that share rule and pointer (the same loss on several targets)
/// into one, keeping first-seen order: `openai, groq: reason; gemini: other reason`. Each part
/// is `(target, detail)`; a finding without a target has an empty one.
///
/// Findings are made, and located in the text (a line and column), only when
/// [`FileFindings::finish`] keeps them: a loss on nine targets is one finding located once,
/// and the notes that `--min-level warning` (SARIF's default) leaves out are neither written
/// nor located. Locating every pushed finding was a fifth of a SARIF `lint` of the shared
/// corpus, and making every pushed finding's strings (rule, pointer, file, message) rather
/// than the kept ones' 3.7 % more (docs/benchmarks.md).
#[derive(Debug)]
pub struct FileFindings<'a, S> {
    items: Vec<Pending<'a, S>>,
    index: HashMap<String, usize>,
    /// The key of the source being pushed, written here rather than in a new string.
    key: String,
}

impl<S> Default for FileFindings<'_, S> {
    fn default() -> Self {
        FileFindings {
            items: Vec::new(),
            index: HashMap::new(),
            key: String::new(),
        }
    }
}

impl<'a, S: Source> FileFindings<'a, S> {
    /// Adds a finding of `level` found at `place`; `target` is the target it concerns, if any.
    pub fn push(
        &mut self,
        source: S,
        level: Level,
        place: Place<'a>,
        target: Option<&'static str>,
    ) {
        self.key.clear();
        source.key(&mut self.key);
        match self.index.get(self.key.as_str()) {
            Some(&i) => {
                if let Some(p) = self.items.get_mut(i) {
                    p.level = p.level.max(level);
                    if !p.places.contains(&place) {
                        p.places.push(place);
                    }
                    match p.parts.iter_mut().find(|(_, d)| d.same_detail(&source)) {
                        Some((targets, _)) => targets.extend(target),
                        None => p.parts.push((target.into_iter().collect(), source)),
                    }
                }
            }
            None => {
                self.index.insert(self.key.clone(), self.items.len());
                self.items.push(Pending {
                    level,
                    parts: vec![(target.into_iter().collect(), source)],
                    places: vec![place],
                });
            }
        }
    }

    /// The findings at `min` and above, made from their first source, messages written, each
    /// located by `locate` at the first of its places that it finds (in the order pushed);
    /// not located when `watch` says that the cap can no longer keep a finding of its level.
    pub fn finish(
        self,
        prefix: &str,
        min: Level,
        watch: Option<&CapWatch>,
        locate: impl Fn(Place<'a>) -> Option<Region>,
    ) -> Vec<Finding> {
        self.items
            .into_iter()
            .filter(|p| p.level >= min)
            .filter_map(|p| {
                let mut f = p.parts.first()?.1.finding();
                f.level = p.level;
                if watch.is_none_or(|w| w.may_keep(p.level)) {
                    f.region = p.places.into_iter().find_map(&locate);
                }
                let text: Vec<String> = p
                    .parts
                    .iter()
                    .map(|(targets, source)| {
                        if targets.is_empty() {
                            source.detail()
                        } else {
                            format!("{}: {}", targets.join(", "), source.detail())
                        }
                    })
                    .collect();
                f.message = format!("{prefix}{}", text.join("; "));
                Some(f)
            })
            .collect()
    }
}

/// Replaces the notes of one rule in one file, when there are more than [`AGGREGATE_OVER`],
/// by one result at the first of them that counts them and lists their pointers. Other
/// findings are kept as they are, in order. `findings` are one file's.
pub fn aggregate(findings: Vec<Finding>) -> Vec<Finding> {
    let mut per_rule: HashMap<&str, usize> = HashMap::new();
    for f in findings.iter().filter(|f| f.level == Level::Note) {
        *per_rule.entry(f.rule.id.as_str()).or_default() += 1;
    }
    let many: HashMap<String, usize> = per_rule
        .into_iter()
        .filter(|(_, n)| *n > AGGREGATE_OVER)
        .map(|(r, n)| (r.to_owned(), n))
        .collect();
    if many.is_empty() {
        return findings;
    }
    let mut pointers: HashMap<String, Vec<String>> = HashMap::new();
    for f in findings.iter().filter(|f| f.level == Level::Note) {
        if many.contains_key(&f.rule.id) {
            pointers
                .entry(f.rule.id.clone())
                .or_default()
                .push(display_pointer(&f.pointer));
        }
    }
    let mut out = Vec::new();
    for f in findings {
        let Some(n) = (f.level == Level::Note)
            .then(|| many.get(&f.rule.id))
            .flatten()
        else {
            out.push(f);
            continue;
        };
        let Some(list) = pointers.remove(&f.rule.id) else {
            // Already folded into the aggregate at its first occurrence.
            continue;
        };
        let shown: Vec<&str> = list
            .iter()
            .take(POINTERS_LISTED)
            .map(String::as_str)
            .collect();
        let more = list.len().saturating_sub(POINTERS_LISTED);
        let tail = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        out.push(Finding {
            message: format!(
                "{n} `{}` notes in this file, at {}{tail}; the first: {}",
                f.rule.id,
                shown.join(", "),
                f.message
            ),
            pointer: "*".to_owned(),
            ..f
        });
    }
    out
}

fn display_pointer(p: &str) -> String {
    if p.is_empty() {
        "/".to_owned()
    } else {
        p.to_owned()
    }
}

/// The rule of the closing result of a capped run.
pub fn truncated_rule() -> Rule {
    Rule {
        id: "run/truncated".to_owned(),
        description: "Results were left out of this run to stay under --max-results".to_owned(),
        level: Level::Warning,
    }
}

/// What [`cap`] can still keep of the findings not yet collected, told from those that were.
///
/// Locating findings (their lines and columns) was 13 % of the instructions of a SARIF `lint`
/// of the shared corpus, for 28,960 findings of which the default cap keeps 4,999. [`cap`]
/// keeps a finding only when fewer than `max - 1` findings rank above it: every finding of a
/// higher level, and the earlier ones of its own. The run collects its files' findings in
/// file order ([`CapWatch::collected`]), so when `max` of the findings collected so far are
/// of a level `L` or above, no finding of level `L` from a later file can be kept (the run
/// then has more than `max`, and at least `max` rank above it): the workers leave those
/// unlocated ([`FileFindings::finish`]). A worker reads the counts while the run goes on, so
/// it may locate a finding that turns out to be left out, never the other way round; what is
/// written does not depend on it.
#[derive(Debug)]
pub struct CapWatch {
    max: usize,
    /// The findings collected so far, per level (note, warning, error).
    collected: [AtomicUsize; 3],
}

impl CapWatch {
    /// A watch for `cap(findings, max)`.
    pub fn new(max: usize) -> Self {
        CapWatch {
            max,
            collected: Default::default(),
        }
    }

    /// Counts findings as [`cap`] will see them (after `--min-level`, the baseline and the
    /// aggregation of notes), in the order it will see them.
    pub fn collected(&self, findings: &[Finding]) {
        for f in findings {
            if let Some(n) = self.collected.get(f.level as usize) {
                n.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    /// Whether a finding of `level` from a file not yet collected may still be kept.
    pub fn may_keep(&self, level: Level) -> bool {
        let above: usize = self
            .collected
            .get(level as usize..)
            .unwrap_or_default()
            .iter()
            .map(|n| n.load(Ordering::Relaxed))
            .sum();
        above < self.max
    }
}

/// Keeps at most `max - 1` findings, the most severe first (ties in input order), in input
/// order, and adds a closing result that says how many were left out and of which levels.
/// Under the cap, the findings are returned as they are.
pub fn cap(findings: Vec<Finding>, max: usize) -> Vec<Finding> {
    if findings.len() <= max {
        return findings;
    }
    let keep = max.saturating_sub(1);
    let mut order: Vec<usize> = (0..findings.len()).collect();
    order.sort_by_key(|&i| (std::cmp::Reverse(findings.get(i).map(|f| f.level)), i));
    let mut kept = vec![false; findings.len()];
    for &i in order.iter().take(keep) {
        if let Some(k) = kept.get_mut(i) {
            *k = true;
        }
    }
    let mut left = [0usize; 3];
    let mut out = Vec::with_capacity(max);
    for (f, k) in findings.into_iter().zip(kept) {
        if k {
            out.push(f);
        } else if let Some(n) = left.get_mut(f.level as usize) {
            *n += 1;
        }
    }
    let total: usize = left.iter().sum();
    let [notes, warnings, errors] = left;
    out.push(Finding {
        rule: truncated_rule(),
        level: Level::Warning,
        message: format!(
            "{total} more results left out to stay under --max-results {max} ({errors} errors, {warnings} warnings, {notes} notes); run `schemalect lint` with --format text for all of them, or raise --min-level"
        ),
        uri: String::new(),
        pointer: String::new(),
        region: None,
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(rule: &str, level: Level, pointer: &str) -> Finding {
        Finding {
            rule: Rule {
                id: rule.to_owned(),
                description: String::new(),
                level,
            },
            level,
            message: format!("m {pointer}"),
            uri: "a.json".to_owned(),
            pointer: pointer.to_owned(),
            region: None,
        }
    }

    #[test]
    fn fingerprints_are_fixed_and_ignore_nothing_else() {
        // The published FNV-1a 64 test vectors.
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(b"foobar"), 0x8594_4171_f739_67e8);
        assert_ne!(
            fingerprint("loss/x", "a.json", "/a"),
            fingerprint("loss/x", "a.json", "/b")
        );
        assert_ne!(
            fingerprint("loss/x", "a.json", ""),
            fingerprint("loss/x", "", "a.json")
        );
        assert_eq!(fingerprint("r", "u", "p").len(), 16);
    }

    /// Findings pushed in order: rule, level, pointer, keyword, target, detail.
    type Row<'a> = (
        &'a str,
        Level,
        &'a str,
        &'a str,
        Option<&'static str>,
        &'a str,
    );

    /// A pushed finding of the tests: rule, level and pointer, and its detail.
    #[derive(Debug)]
    struct Test<'a>(&'a str, Level, &'a str, &'a str);

    impl Source for Test<'_> {
        fn key(&self, out: &mut String) {
            key_part(out, self.2);
            out.push_str(self.0);
        }
        fn finding(&self) -> Finding {
            f(self.0, self.1, self.2)
        }
        fn detail(&self) -> String {
            self.3.to_owned()
        }
    }

    fn pushed<'a>(rows: &[Row<'a>]) -> FileFindings<'a, Test<'a>> {
        let mut ff = FileFindings::default();
        for &(rule, level, pointer, keyword, target, detail) in rows {
            ff.push(
                Test(rule, level, pointer, detail),
                level,
                (pointer, keyword),
                target,
            );
        }
        ff
    }

    /// A key names one pointer and rule id whatever their text: a NUL or U+0001 in either
    /// does not let one pair's key be another's.
    #[test]
    fn keys_name_one_pointer_and_rule() {
        let parts = [
            "",
            "a",
            "\0",
            "\u{1}",
            "a\0",
            "\0\u{1}",
            "\0\0",
            "/x\0\u{1}y",
        ];
        let mut seen = HashMap::new();
        for p in parts {
            for r in parts {
                let mut k = String::new();
                key_part(&mut k, p);
                k.push_str(r);
                assert_eq!(seen.insert(k, (p, r)), None, "{p:?} {r:?}");
            }
        }
    }

    /// `ff.finish`, locating at line 7 the places `found` accepts; and the places it was
    /// asked about, in order.
    fn finish_located(
        ff: FileFindings<'_, Test<'_>>,
        prefix: &str,
        min: Level,
        found: impl Fn(&str, &str) -> bool,
    ) -> (Vec<Finding>, Vec<String>) {
        let asked = std::cell::RefCell::new(Vec::new());
        let out = ff.finish(prefix, min, None, |(p, k)| {
            asked.borrow_mut().push(format!("{p} {k}"));
            found(p, k).then_some(Region {
                start_line: 7,
                start_column: 1,
                end_line: 7,
                end_column: 2,
            })
        });
        (out, asked.into_inner())
    }

    /// Findings below the minimum level are left out before they are located, and a finding
    /// is located at the first of its places that can be found.
    #[test]
    fn only_the_kept_findings_are_located() {
        let ff = pushed(&[
            (
                "loss/pattern",
                Level::Note,
                "/n",
                "pattern",
                Some("openai"),
                "dropped",
            ),
            ("subset/outside/x", Level::Error, "/e", "x", None, "one"),
            ("subset/outside/x", Level::Error, "/e", "y", None, "two"),
        ]);
        let (out, located) = finish_located(ff, "", Level::Warning, |_, k| k == "y");
        assert_eq!(located, ["/e x", "/e y"]);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].message, "one; two");
        assert!(out[0].region.is_some());
    }

    #[test]
    fn same_rule_and_pointer_on_several_targets_is_one_finding() {
        let ff = pushed(&[
            (
                "loss/pattern",
                Level::Note,
                "/p",
                "pattern",
                Some("openai"),
                "dropped",
            ),
            (
                "loss/pattern",
                Level::Warning,
                "/p",
                "pattern",
                Some("groq"),
                "dropped",
            ),
            (
                "loss/pattern",
                Level::Note,
                "/p",
                "pattern",
                Some("gemini"),
                "other",
            ),
            (
                "loss/pattern",
                Level::Note,
                "/q",
                "pattern",
                Some("openai"),
                "dropped",
            ),
        ]);
        let (out, located) = finish_located(ff, "g: ", Level::Note, |p, _| p == "/q");
        // One place per finding is located, once, however many targets share it.
        assert_eq!(located, ["/p pattern", "/q pattern"]);
        assert!(out[0].region.is_none());
        assert!(out[1].region.is_some());
        assert_eq!(out.len(), 2);
        assert_eq!(out[0].message, "g: openai, groq: dropped; gemini: other");
        assert_eq!(out[0].level, Level::Warning);
        assert_eq!(out[1].pointer, "/q");
    }

    #[test]
    fn many_notes_of_one_rule_become_one() {
        let mut v: Vec<Finding> = (0..5)
            .map(|i| f("loss/a", Level::Note, &format!("/{i}")))
            .collect();
        v.insert(1, f("subset/x", Level::Error, "/e"));
        v.push(f("loss/b", Level::Note, "/b"));
        v.push(f("loss/a", Level::Warning, "/w"));
        let out = aggregate(v);
        let ids: Vec<(&str, &str)> = out
            .iter()
            .map(|f| (f.rule.id.as_str(), f.pointer.as_str()))
            .collect();
        assert_eq!(
            ids,
            [
                ("loss/a", "*"),
                ("subset/x", "/e"),
                ("loss/b", "/b"),
                ("loss/a", "/w")
            ]
        );
        assert!(
            out[0].message.starts_with(
                "5 `loss/a` notes in this file, at /0, /1, /2, /3, /4; the first: m /0"
            ),
            "{}",
            out[0].message
        );
        let few: Vec<Finding> = (0..3)
            .map(|i| f("loss/a", Level::Note, &format!("/{i}")))
            .collect();
        assert_eq!(aggregate(few).len(), 3);
    }

    #[test]
    fn the_cap_keeps_the_most_severe_in_order_and_says_what_is_left_out() {
        let v = vec![
            f("n", Level::Note, "/1"),
            f("e", Level::Error, "/2"),
            f("w", Level::Warning, "/3"),
            f("e", Level::Error, "/4"),
            f("n", Level::Note, "/5"),
        ];
        let out = cap(v.clone(), 5);
        assert_eq!(out.len(), 5);
        let out = cap(v, 4);
        let ptrs: Vec<&str> = out.iter().map(|f| f.pointer.as_str()).collect();
        assert_eq!(ptrs, ["/2", "/3", "/4", ""]);
        assert_eq!(out[3].rule.id, "run/truncated");
        assert!(out[3].message.starts_with("2 more results left out to stay under --max-results 4 (0 errors, 0 warnings, 2 notes)"), "{}", out[3].message);
    }

    /// For each finding of `files` (levels, file by file, in order), whether a [`CapWatch`]
    /// fed the files before it has it located; and the indices of those [`cap`] keeps.
    fn watched(files: &[Vec<Level>], max: usize) -> (Vec<bool>, Vec<usize>) {
        let watch = CapWatch::new(max);
        let mut all = Vec::new();
        let mut located = Vec::new();
        for file in files {
            let start = all.len();
            for (i, &level) in file.iter().enumerate() {
                located.push(watch.may_keep(level));
                all.push(f("loss/x", level, &format!("/{}", start + i)));
            }
            watch.collected(all.get(start..).unwrap_or_default());
        }
        let kept = cap(all, max)
            .iter()
            .filter_map(|f| f.pointer.strip_prefix('/')?.parse().ok())
            .collect();
        (located, kept)
    }

    /// The watch leaves unlocated what the cap leaves out, and nothing it keeps: at the
    /// boundary (`max` findings in all are all kept) and past it.
    #[test]
    fn the_watch_locates_what_the_cap_may_keep() {
        use Level::{Error as E, Note as N, Warning as W};
        // Three errors and no more: not capped, all kept, all located.
        assert_eq!(
            watched(&[vec![E, E], vec![E]], 3),
            (vec![true; 3], vec![0, 1, 2])
        );
        // Past the cap: the later files' findings rank below three errors, at every level.
        assert_eq!(
            watched(&[vec![E, E, E], vec![W, N], vec![E]], 3),
            (vec![true, true, true, false, false, false], vec![0, 1])
        );
        // A later error still outranks earlier warnings, so it is located.
        assert_eq!(
            watched(&[vec![W, W, W], vec![N, E]], 3),
            (vec![true, true, true, false, true], vec![0, 4])
        );
    }

    proptest::proptest! {
        /// Every finding the cap keeps was located, whatever the levels, files and cap; the
        /// cap is drawn near the number of findings, where it starts to bite.
        #[test]
        fn every_finding_the_cap_keeps_was_located(
            files in proptest::collection::vec(
                proptest::collection::vec(proptest::sample::select(vec![
                    Level::Note,
                    Level::Warning,
                    Level::Error,
                ]), 0..6),
                0..12,
            ),
            below in 0usize..6,
            above in 0usize..2,
        ) {
            let total: usize = files.iter().map(Vec::len).sum();
            let max = (total + above).saturating_sub(below);
            let (located, kept) = watched(&files, max);
            for k in kept {
                proptest::prop_assert!(
                    located.get(k) == Some(&true),
                    "finding {k} kept, not located"
                );
            }
        }
    }
}
