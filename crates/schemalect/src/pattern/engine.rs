//! The matcher under a compiled pattern, with its cost counted: a lazy DFA that says when it
//! gives up, and an NFA simulation behind it that is run only when the work budget can pay
//! for it.
//!
//! The `regex` crate runs the same two engines (and more), but falls back from the lazy DFA
//! to the NFA silently, and the fallback costs up to a nanosecond per byte of string per byte
//! of compiled program: a 15-character pattern (`a(?:a|b){5000}c`) matched 157 µs per byte of
//! string (docs/security.md, finding 9). Driving the engines here lets each match charge what
//! it costs: the DFA's bytes, the states it had to build, and the NFA's worst case before it
//! runs, so that a match the budget cannot pay for is refused instead of run.

use super::{PatternError, ENGINE_BYTES_PER_STEP, ENGINE_DFA_CACHE};
use regex_automata::hybrid::dfa::{self as lazy, DFA};
use regex_automata::nfa::thompson::{self, pikevm::PikeVM, WhichCaptures};
use regex_automata::util::pool::Pool;
use regex_automata::util::syntax;
use regex_automata::Input;
use std::panic::{RefUnwindSafe, UnwindSafe};
use std::sync::{Arc, Mutex, PoisonError};

type MakeCache<T> = Box<dyn Fn() -> T + Send + Sync + UnwindSafe + RefUnwindSafe>;

/// Bytes of lazy DFA states built that one work step covers: building a state costs in
/// proportion to its size (its NFA state set and transitions), measured at 5 to 10 ns per byte
/// on the thrashing patterns of the adversarial suite (`(?:a|b)*a(?:a|b){20}c`).
const BUILT_BYTES_PER_STEP: u64 = 4;

/// A Thompson compiler kept for the next compile. A new one allocates its state for compiling
/// classes to UTF-8 automata on its first class (a map of 10,000 entries, about 400 KB, filled
/// with empty entries), a fifth of the samples of compiling a short pattern such as
/// `^[a-z][a-z0-9-]{0,30}$` (a third with the page faults on it); a kept one empties that
/// state by bumping a version number, as `regex-automata` does between the classes of one
/// compile. The compiler's output is a
/// function of its configuration, set in full before each compile, and the pattern (the test
/// `a_kept_compiler_builds_what_a_new_one_builds` holds it to that). Taken out while in use,
/// so that a compile on another thread at the same moment builds its own, as before; one is
/// kept per process, and only after a compile whose program is at most
/// [`KEPT_COMPILER_MAX_PROGRAM`] bytes (the compiler keeps the storage its largest program
/// needed).
static COMPILER: Mutex<Option<thompson::Compiler>> = Mutex::new(None);

/// The largest program after which the compiler is kept ([`COMPILER`]): what a kept compiler
/// holds is then about 400 KB of class state and storage of this order (`docs/security.md`,
/// fixed bounds). A pattern such as `\p{L}+` compiles to about 16 KB.
const KEPT_COMPILER_MAX_PROGRAM: usize = 1 << 20;

/// Compiles `translated` with the settings of the `regex` crate's `Regex` (UTF-8 strings,
/// implicit captures only) under the two limits, on the kept compiler when it is free; past
/// `size_limit`, [`PatternError::TooComplex`].
fn compile(
    translated: &str,
    nest_limit: u32,
    size_limit: usize,
) -> Result<thompson::NFA, PatternError> {
    let lock = || COMPILER.lock().unwrap_or_else(PoisonError::into_inner);
    let mut compiler = lock().take().unwrap_or_else(thompson::Compiler::new);
    let nfa = compile_on(&mut compiler, translated, nest_limit, size_limit);
    if nfa
        .as_ref()
        .is_ok_and(|nfa| nfa.memory_usage() <= KEPT_COMPILER_MAX_PROGRAM)
    {
        *lock() = Some(compiler);
    }
    nfa
}

/// [`compile`] on `compiler`, its whole configuration set first.
fn compile_on(
    compiler: &mut thompson::Compiler,
    translated: &str,
    nest_limit: u32,
    size_limit: usize,
) -> Result<thompson::NFA, PatternError> {
    compiler
        .syntax(syntax::Config::new().utf8(true).nest_limit(nest_limit))
        .configure(
            thompson::Config::new()
                .utf8(true)
                .nfa_size_limit(Some(size_limit))
                .which_captures(WhichCaptures::Implicit),
        )
        .build(translated)
        .map_err(|e| match e.size_limit() {
            Some(size_limit) => PatternError::TooComplex { size_limit },
            None => PatternError::Engine {
                message: e.to_string(),
            },
        })
}

/// One compiled pattern's engines and their per-thread caches.
#[derive(Clone)]
pub(super) struct Engine(Arc<Inner>);

struct Inner {
    /// `None` when the pattern's states cannot fit the cache at all: every match is then an
    /// NFA simulation, charged as such.
    dfa: Option<(DFA, Pool<LazyCache, MakeCache<LazyCache>>)>,
    pikevm: PikeVM,
    pike_caches: Pool<thompson::pikevm::Cache, MakeCache<thompson::pikevm::Cache>>,
    /// Heap bytes of the compiled program (the NFA).
    compiled: usize,
}

/// A lazy DFA's cache with its size after its last search: what a search built is its size
/// after the search less this, so a match measures the cache once instead of before and
/// after (the measurement is a sum over eight of its tables, a tenth of a short match).
/// Only [`Engine::is_match`] searches with the cache, and it updates `seen` after every
/// search, so `seen` is the size before the next one.
struct LazyCache {
    cache: lazy::Cache,
    seen: usize,
}

impl Engine {
    /// Compiles `translated` (the `regex` syntax the translation wrote) with the settings of
    /// the `regex` crate's `Regex` (UTF-8 strings, leftmost-first) and the size limits of this
    /// module; past `size_limit` bytes of program, [`PatternError::TooComplex`]. The program
    /// may be one kept from an earlier compile of the same text ([`super::programs`]); the
    /// matchers and their caches are this engine's own.
    pub(super) fn build(
        translated: &str,
        nest_limit: u32,
        size_limit: usize,
    ) -> Result<Engine, PatternError> {
        let nfa = super::programs::get_or_compile(translated, nest_limit, size_limit, || {
            compile(translated, nest_limit, size_limit)
        })?;
        let compiled = nfa.memory_usage();
        let dfa = DFA::builder()
            .configure(
                DFA::config()
                    .unicode_word_boundary(true)
                    .cache_capacity(ENGINE_DFA_CACHE)
                    // As the `regex` crate configures it: give up once the cache was cleared
                    // three times while each state served fewer than ten bytes of string.
                    .minimum_cache_clear_count(Some(3))
                    .minimum_bytes_per_state(Some(10)),
            )
            .build_from_nfa(nfa.clone())
            .ok()
            .map(|dfa| {
                let d = dfa.clone();
                let make: MakeCache<LazyCache> = Box::new(move || {
                    let cache = d.create_cache();
                    let seen = cache.memory_usage();
                    LazyCache { cache, seen }
                });
                (dfa, Pool::new(make))
            });
        let pikevm = PikeVM::new_from_nfa(nfa).map_err(|e| PatternError::Engine {
            message: e.to_string(),
        })?;
        let p = pikevm.clone();
        let make: MakeCache<thompson::pikevm::Cache> = Box::new(move || p.create_cache());
        Ok(Engine(Arc::new(Inner {
            dfa,
            pikevm,
            pike_caches: Pool::new(make),
            compiled,
        })))
    }

    /// Heap bytes of the compiled program.
    pub(super) fn compiled_size(&self) -> usize {
        self.0.compiled
    }

    /// True when the pattern matches somewhere in `haystack`. The lazy DFA's pass over the
    /// string is the caller's to charge (one step per [`crate::budget::STRING_BYTES_PER_STEP`]
    /// bytes); the states it builds and any NFA simulation are charged here, to `charge`
    /// (the operation's budget, [`crate::budget::charge`], or a validation walk's meter, which
    /// settles with it), which answers false once they cannot be paid. An NFA simulation
    /// that cannot be paid for is not run: the answer is then "no match" and the budget is
    /// spent, so the operation reports that it ran out.
    #[inline(never)]
    pub(super) fn is_match(&self, haystack: &str, mut charge: impl FnMut(u64) -> bool) -> bool {
        let inner = &*self.0;
        if let Some((dfa, caches)) = &inner.dfa {
            let mut guard = caches.get();
            let lazy = &mut *guard;
            let clears = lazy.cache.clear_count();
            let found = dfa.try_search_fwd(&mut lazy.cache, &Input::new(haystack).earliest(true));
            let (clears_now, now) = (lazy.cache.clear_count(), lazy.cache.memory_usage());
            let before = std::mem::replace(&mut lazy.seen, now);
            drop(guard);
            let built = if clears_now == clears {
                now.saturating_sub(before)
            } else {
                // Each clear threw away up to a cache's worth of states.
                clears_now
                    .saturating_sub(clears)
                    .max(1)
                    .saturating_mul(ENGINE_DFA_CACHE)
                    .saturating_add(now)
            };
            if built > 0 && !charge(built as u64 / BUILT_BYTES_PER_STEP) {
                return false;
            }
            if let Ok(found) = found {
                return found.is_some();
            }
            // The DFA gave up (too many states for its cache) or met a Unicode word boundary
            // next to a non-ASCII byte: the NFA decides.
        }
        let worst = (haystack.len() as u64)
            .saturating_add(1)
            .saturating_mul(inner.compiled as u64)
            / ENGINE_BYTES_PER_STEP;
        if !charge(worst) {
            return false;
        }
        let mut cache = inner.pike_caches.get();
        inner.pikevm.is_match(&mut cache, Input::new(haystack))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A compiler kept from earlier compiles builds the NFA a new one builds, whatever came
    /// before: ASCII, negated and Unicode classes (the state a kept compiler reuses), a
    /// program over its size limit, and each pattern after each other one.
    #[test]
    fn a_kept_compiler_builds_what_a_new_one_builds() {
        let patterns: [(&str, usize); 11] = [
            ("^[a-z][a-z0-9-]{0,30}$", 1 << 20),
            (r"\p{L}+", 1 << 20),
            ("[^a]", 1 << 20),
            ("(?:[0-9A-Za-z]|é)*x", 1 << 20),
            (r"[\x{80}-\x{10FFFF}]{2}", 1 << 20),
            ("a|b|c", 1 << 20),
            (r"\p{Greek}[^\p{Greek}]", 1 << 20),
            ("^[^@]+@[^@]+$", 1 << 20),
            ("[^\n\r\u{2028}\u{2029}]{8,}", 1 << 20),
            // Over its limit: the same error, and the compiler is still good afterwards.
            (r"\p{L}{100}", 4096),
            ("[a-c]+[x-z]+", 1 << 20),
        ];
        let mut kept = thompson::Compiler::new();
        // Forwards, then backwards: each pattern after a different one.
        for (p, limit) in patterns.iter().chain(patterns.iter().rev()) {
            let fresh = compile_on(&mut thompson::Compiler::new(), p, 64, *limit);
            let again = compile_on(&mut kept, p, 64, *limit);
            assert_eq!(format!("{fresh:?}"), format!("{again:?}"), "{p}");
        }
        assert!(compile_on(&mut kept, r"\p{L}{100}", 64, 4096).is_err());
        // The figure `KEPT_COMPILER_MAX_PROGRAM`'s doc gives.
        let letters = compile_on(&mut kept, r"\p{L}+", 64, 1 << 20).map(|n| n.memory_usage());
        assert!(
            letters
                .as_ref()
                .is_ok_and(|b| (10_000..KEPT_COMPILER_MAX_PROGRAM).contains(b)),
            "{letters:?}"
        );
        // The shared one gives the same as well.
        assert_eq!(
            format!("{:?}", compile("[^a]", 64, 1 << 20)),
            format!(
                "{:?}",
                compile_on(&mut thompson::Compiler::new(), "[^a]", 64, 1 << 20)
            )
        );
    }
}
