//! Support shared by the cross-crate tests and the benches.

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
