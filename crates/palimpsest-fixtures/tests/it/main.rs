//! Every integration test of `palimpsest-fixtures`, linked into one binary: one link of rusqlite, bpe,
//! plotters and notify instead of one per file. Each module is what a test file was; run
//! one with `cargo test -p palimpsest-fixtures --test it MODULE::`.

// `require_shared!()`: a test that reads ../shared/data returns early without it.
#[macro_use]
extern crate palimpsest_fixtures;

mod big;
mod claude_regenerate;
mod codex_regenerate;
mod coworker_logs_regenerate;
mod goose_regenerate;
mod stuck_regenerate;
