//! Every integration test of `palimpsest-fixtures`, linked into one binary: one link of rusqlite, bpe,
//! plotters and notify instead of one per file. Each module is what a test file was; run
//! one with `cargo test -p palimpsest-fixtures --test it MODULE::`.

mod big;
mod claude_regenerate;
mod codex_regenerate;
mod coworker_logs_regenerate;
mod goose_regenerate;
mod harnesses_regenerate;
mod stuck_regenerate;
