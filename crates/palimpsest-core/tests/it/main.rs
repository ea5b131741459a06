//! Every integration test of `palimpsest-core`, linked into one binary: one link of rusqlite, bpe,
//! plotters and notify instead of one per file. Each module is what a test file was; run
//! one with `cargo test -p palimpsest-core --test it MODULE::`.

// `require_shared!()`: a test that reads ../shared/data returns early without it.
#[macro_use]
extern crate palimpsest_fixtures;

mod analysis;
mod app_api;
mod claude;
mod claude_cuts;
mod claude_first_lines;
mod claude_newer;
mod claude_resume;
mod claude_resume_chain;
mod claude_resume_primed;
mod claude_resume_saved;
mod claude_resume_steps;
mod claude_spills;
mod claude_views;
mod codex;
mod codex_entries;
mod codex_ids;
mod codex_newer;
mod codex_resume;
mod codex_zst;
mod compaction;
mod cost;
mod coworker;
mod coworker_sizes;
mod coworker_trim;
mod cutview;
mod cutview_brief;
mod edits;
mod follow;
mod goose;
mod goose_input;
mod goose_readonly;
mod goose_v17;
mod index;
mod index_bodies;
mod index_diagnosis;
mod index_given;
mod index_listing;
mod index_open;
mod index_requests;
mod index_resume;
mod index_spills;
mod index_timeline;
mod indexed_home;
mod known_counts;
mod layout;
mod message_log;
mod properties;
mod replay;
mod replay_verify;
mod sweep_digests;
mod tokens;
mod tokens_engine;
mod tokens_shown;
mod verdicts;
mod watch;
