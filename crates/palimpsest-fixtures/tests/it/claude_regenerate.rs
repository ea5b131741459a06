//! Regenerating the Claude Code fixture into a temp dir gives byte-identical files: the
//! committed `fixtures/claude` is exactly what `src/claude.rs` writes.

use std::path::{Path, PathBuf};

use palimpsest_fixtures::claude::{PROJECT, SIX_CUTS_ID};
use palimpsest_fixtures::claude_views::{VIEWS_ID, VIEWS_PROJECT};

fn files(root: &Path) -> Vec<(String, Vec<u8>)> {
    let projects = root.join("claude/projects");
    [
        format!("{PROJECT}/{SIX_CUTS_ID}.jsonl"),
        format!("{PROJECT}/{SIX_CUTS_ID}/subagents/agent-a6c0e01.jsonl"),
        format!("{VIEWS_PROJECT}/{VIEWS_ID}.jsonl"),
        format!("{VIEWS_PROJECT}/{VIEWS_ID}/tool-results/toolu_0003.txt"),
        format!("{VIEWS_PROJECT}/{VIEWS_ID}/tool-results/grep-automodule.txt"),
    ]
    .into_iter()
    .map(|rel| {
        let bytes = std::fs::read(projects.join(&rel)).unwrap_or_default();
        (rel, bytes)
    })
    .collect()
}

#[test]
fn regenerated_claude_fixture_matches_the_committed_one() {
    let out = tempfile::tempdir().unwrap();
    palimpsest_fixtures::claude::generate(out.path()).unwrap();
    let fresh = files(out.path());
    assert!(
        fresh.iter().all(|(_, b)| !b.is_empty()),
        "the transcripts, the subagent run and the stubbed results are generated"
    );
    let committed = files(&PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures"
    )));
    assert_eq!(
        fresh, committed,
        "fixtures/claude is out of date: run `cargo run -p palimpsest-fixtures -- fixtures/`"
    );
}
