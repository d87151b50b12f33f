//! Compiled programs kept for the next parse of the same pattern.
//!
//! Compiling a pattern for the engine (the `regex` syntax parse, its translation to the
//! engine's IR, the Thompson construction) costs about 190,000 instructions for one like
//! `[A-Za-z0-9_-]*`, and the same patterns come back: a gateway that gets its schema with every
//! request parses it every time, and a schema folder repeats them (the 4,439 in-subset files
//! of JSONSchemaBench compile 205 patterns, 116 of them distinct). The program is a function
//! of its key alone (the translated text and the two limits), so a kept one is the one a new
//! compile would give: the same verdict (too complex or not), the same size charged to the
//! work budget, the same matches.
//!
//! Only the program is kept. Each [`super::Pattern`] builds its own matchers around it, with
//! their caches (the lazy DFA's, up to [`super::ENGINE_DFA_CACHE`] per thread), so the memory
//! that grows with matching still goes when the schema goes. What is kept is bounded by
//! [`MAX_PROGRAMS`] and [`MAX_PROGRAM_BYTES`], the oldest out first; [`clear`] empties it.

use super::PatternError;
use regex_automata::nfa::thompson::NFA;
use std::collections::{HashMap, VecDeque};
use std::sync::{LazyLock, Mutex, MutexGuard, PoisonError};

/// Programs kept at most.
pub const MAX_PROGRAMS: usize = 256;

/// Heap bytes of kept programs at most (with their keys). A program larger than this is not
/// kept.
pub const MAX_PROGRAM_BYTES: usize = 16 << 20;

#[derive(Clone, PartialEq, Eq, Hash)]
struct Key {
    translated: Box<str>,
    nest_limit: u32,
    size_limit: usize,
}

type Program = Result<NFA, PatternError>;

/// Kept programs, at most `max_programs` of them and `max_bytes` in all.
struct Programs {
    kept: HashMap<Key, (Program, usize)>,
    /// Keys in the order they were kept, for eviction.
    order: VecDeque<Key>,
    bytes: usize,
    max_programs: usize,
    max_bytes: usize,
}

impl Programs {
    fn new(max_programs: usize, max_bytes: usize) -> Self {
        Programs {
            kept: HashMap::new(),
            order: VecDeque::new(),
            bytes: 0,
            max_programs,
            max_bytes,
        }
    }

    /// Keeps `program` (of `bytes` with its key), first dropping the oldest ones it would not
    /// fit beside. One larger than the whole bound is not kept.
    fn keep(&mut self, key: Key, program: &Program, bytes: usize) {
        if bytes > self.max_bytes || self.max_programs == 0 || self.kept.contains_key(&key) {
            return;
        }
        while self.kept.len() >= self.max_programs || self.bytes + bytes > self.max_bytes {
            let Some(oldest) = self.order.pop_front() else {
                break;
            };
            if let Some((_, b)) = self.kept.remove(&oldest) {
                self.bytes -= b;
            }
        }
        self.order.push_back(key.clone());
        self.kept.insert(key, (program.clone(), bytes));
        self.bytes += bytes;
    }

    /// Drops every kept program and the storage that held them.
    fn clear(&mut self) {
        *self = Programs::new(self.max_programs, self.max_bytes);
    }
}

static PROGRAMS: LazyLock<Mutex<Programs>> =
    LazyLock::new(|| Mutex::new(Programs::new(MAX_PROGRAMS, MAX_PROGRAM_BYTES)));

/// The kept programs. Every change to them is complete before anything that could panic, so a
/// poisoned lock (a thread panicked elsewhere while holding it) is used as it is.
fn programs() -> MutexGuard<'static, Programs> {
    PROGRAMS.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The program for `translated` under the two limits: a kept one, or `compile`'s, then kept.
/// The lock is not held while compiling; two threads that compile the same key at once keep
/// the first result (both are the same).
pub(super) fn get_or_compile(
    translated: &str,
    nest_limit: u32,
    size_limit: usize,
    compile: impl FnOnce() -> Program,
) -> Program {
    get_or_compile_in(&PROGRAMS, translated, nest_limit, size_limit, compile)
}

fn get_or_compile_in(
    programs: &Mutex<Programs>,
    translated: &str,
    nest_limit: u32,
    size_limit: usize,
    compile: impl FnOnce() -> Program,
) -> Program {
    let lock = || programs.lock().unwrap_or_else(PoisonError::into_inner);
    let key = Key {
        translated: translated.into(),
        nest_limit,
        size_limit,
    };
    if let Some((kept, _)) = lock().kept.get(&key) {
        return kept.clone();
    }
    let compiled = compile();
    let bytes = translated.len()
        + match &compiled {
            Ok(nfa) => nfa.memory_usage(),
            Err(_) => 0,
        };
    lock().keep(key, &compiled, bytes);
    compiled
}

/// Drops every kept program and the storage that held them (a pattern parsed afterwards is
/// compiled again). Patterns already parsed keep theirs.
pub fn clear() {
    programs().clear();
}

/// How many programs are kept, and their bytes with their keys.
pub fn kept() -> (usize, usize) {
    let p = programs();
    (p.kept.len(), p.bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compile(text: &str) -> Program {
        NFA::new(text).map_err(|e| PatternError::Engine {
            message: e.to_string(),
        })
    }

    #[test]
    fn a_program_is_compiled_once_per_key() {
        let programs = Mutex::new(Programs::new(8, 1 << 20));
        let mut compiles = 0;
        let mut get = |text: &str, size_limit| {
            get_or_compile_in(&programs, text, 7, size_limit, || {
                compiles += 1;
                compile(text)
            })
            .map(|nfa| nfa.memory_usage())
        };
        let first = get("a+b", 1 << 20);
        assert!(first.is_ok());
        assert_eq!(get("a+b", 1 << 20), first);
        assert_eq!(get("a+b", 1 << 20), first);
        // Another limit is another key.
        assert_eq!(get("a+b", 1 << 21), first);
        assert_eq!(compiles, 2);
    }

    #[test]
    fn failures_are_kept_too() {
        let programs = Mutex::new(Programs::new(8, 1 << 20));
        let refused = PatternError::TooComplex { size_limit: 10 };
        let first = get_or_compile_in(&programs, "x{1000}", 7, 10, || Err(refused.clone()));
        assert_eq!(first.err(), Some(refused.clone()));
        let again = get_or_compile_in(&programs, "x{1000}", 7, 10, || compile("x"));
        assert_eq!(again.err(), Some(refused));
    }

    #[test]
    fn the_kept_programs_stay_within_their_bounds() {
        let one = compile("k0").map(|n| n.memory_usage()).unwrap_or(0) + 2;
        // Room for three programs by count, two by bytes.
        let programs = Mutex::new(Programs::new(3, 2 * one + 1));
        for i in 0..10 {
            let text = format!("k{i}");
            let _ = get_or_compile_in(&programs, &text, 7, 1 << 20, || compile(&text));
            let p = programs.lock().unwrap();
            assert!(
                p.kept.len() <= 3 && p.bytes <= 2 * one + 1,
                "{} {}",
                p.kept.len(),
                p.bytes
            );
            assert_eq!(p.kept.len(), p.order.len());
        }
        let p = programs.lock().unwrap();
        let kept: Vec<&str> = p.order.iter().map(|k| &*k.translated).collect();
        assert_eq!(kept, ["k8", "k9"]);
        drop(p);
        // One larger than the whole bound is not kept.
        let tiny = Mutex::new(Programs::new(3, 4));
        let _ = get_or_compile_in(&tiny, "k0", 7, 1 << 20, || compile("k0"));
        assert!(tiny.lock().unwrap().kept.is_empty());
    }
}
