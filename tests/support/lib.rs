//! Support shared by the cross-crate tests and the benches: corpus discovery, and the
//! independent machinery that proves the widening contract (`design/widening.md`):
//!
//! - [`oracle`]: the decoder languages `T(wire)` and the provider-refusal rules, written from
//!   the design documents and the Python harness, never from the dialect code;
//! - [`declared`]: the declared fragment the contract speaks about;
//! - [`gen`]: generators of in-subset schemas and of values aimed at a schema's JSON;
//! - [`contract`]: the check of one lowering against a set of values, shared by the property
//!   test, the corpus replay and the regression tests;
//! - [`extended`]: the same in the extended subset: schemas with references, values for them;
//! - [`gen_full`]: the same in the `full` subset: schemas of the five drafts with every keyword
//!   only `full` reads, values aimed at them;
//! - [`engines`]: a real grammar engine (llguidance) that compiles every native wire and must
//!   accept every valid value; [`gbnf`]: the Ollama wire checked against llama.cpp's converter
//!   and GBNF parser as documented;
//! - [`walks`]: the two validation walks compared, each the other's oracle;
//! - [`golden`]: the golden corpus (`corpus/golden/`): loading cases, recording lowerings;
//! - [`bench`](mod@bench) and [`bench_report`]: the fixtures of the benches and the report
//!   that turns criterion's estimates into the ratio tables of `docs/benchmarks.md`.

pub mod bench;
pub mod bench_report;
pub mod contract;
pub mod declared;
pub mod engines;
pub mod extended;
pub mod gbnf;
pub mod gen;
pub mod gen_full;
pub mod golden;
pub mod oracle;
pub mod walks;

use std::path::PathBuf;

/// The workspace root (where the top-level `Cargo.toml` is).
pub fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `../shared/corpus` beside the workspace, when present. Tests that need it print a notice
/// and skip when it is absent (a fresh clone elsewhere has no `../shared`).
pub fn shared_corpus() -> Option<PathBuf> {
    let dir = workspace_root().join("..").join("shared").join("corpus");
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!(
            "notice: {} is absent; skipping the tests that read the shared corpus",
            dir.display()
        );
        None
    }
}

/// The schema files of the shared corpus's JSONSchemaBench folder (`*.json`), sorted, or
/// `None` (with the notice of [`shared_corpus`]) when the corpus is absent.
pub fn jsonschemabench_files() -> Option<Vec<PathBuf>> {
    let dir = shared_corpus()?.join("jsonschemabench");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    Some(files)
}
