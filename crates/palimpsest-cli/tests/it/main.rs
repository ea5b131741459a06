//! Every integration test of `palimpsest-cli`, linked into one binary: one link of rusqlite, bpe,
//! plotters and notify instead of one per file. Each module is what a test file was; run
//! one with `cargo test -p palimpsest-cli --test it MODULE::`.

mod common;

mod cli_alerts;
mod cli_cap;
mod cli_claude_codex;
mod cli_compaction;
mod cli_context_index;
mod cli_coworker_logs;
mod cli_cuts_index;
mod cli_defaults;
mod cli_diagnose;
mod cli_diff;
mod cli_dto;
mod cli_export;
mod cli_export_tune;
mod cli_fleet;
mod cli_goose;
mod cli_guarantees;
mod cli_markdown;
mod cli_numbers;
mod cli_otlp;
mod cli_readonly;
mod cli_real_gaps;
mod cli_replay;
mod cli_replay_coworker;
mod cli_replay_gemini;
mod cli_replay_policy;
mod cli_report;
mod cli_show_index;
mod cli_snapshots;
mod cli_sweep;
mod cli_tokens;
mod cli_trust;
mod cli_tune;
mod malformed;
