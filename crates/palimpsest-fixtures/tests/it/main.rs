//! Every integration test of `palimpsest-fixtures`, linked into one binary: one link of rusqlite, bpe,
//! plotters and notify instead of one per file. Each module is what a test file was; run
//! one with `cargo test -p palimpsest-fixtures --test it MODULE::`.

/// `../shared/data/REL` beside the repository, or `None` (with a note on stderr) when that
/// folder is absent: the real transcripts are not part of the repository, so a checkout
/// without them skips what needs them instead of failing.
pub fn shared_data(rel: &str) -> Option<std::path::PathBuf> {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data")
        .join(rel);
    if p.exists() {
        Some(p)
    } else {
        eprintln!("skipped: {} is absent", p.display());
        None
    }
}

/// Return from the calling test when `../shared/data` is absent (see [`shared_data`]).
macro_rules! require_shared {
    () => {
        if crate::shared_data("").is_none() {
            return;
        }
    };
}

mod big;
mod claude_regenerate;
mod codex_regenerate;
mod coworker_logs_regenerate;
mod goose_regenerate;
mod stuck_regenerate;
