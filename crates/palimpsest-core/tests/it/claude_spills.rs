//! Claude Code's overflow spill in a home copied off the machine that wrote it: the six-cut
//! fixture's segment-6 `mcp__linear__list_issues` result says "exceeds maximum allowed tokens.
//! Output has been saved to /home/dev/.claude/…/<id>/tool-results/<file>", a path that does not
//! exist here. The review finds the file in the session's own `tool-results/` and opens it;
//! a path naming another session's folder is not taken for this one's.

use std::path::{Path, PathBuf};

use palimpsest_core::analysis::review::ReviewOptions;
use palimpsest_core::analysis::{self, SpillKind, SpillStatus};
use palimpsest_core::api;
use palimpsest_fixtures::claude::{OVERFLOW, PROJECT, SIX_CUTS_ID};

/// The fixture's Claude home copied to a temporary folder (its own absolute paths change).
fn copied_home() -> (tempfile::TempDir, PathBuf) {
    let t = tempfile::tempdir().unwrap();
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/claude");
    palimpsest_fixtures::copy_tree(&from, t.path(), &[]).unwrap();
    let file = t
        .path()
        .join("projects")
        .join(PROJECT)
        .join(format!("{SIX_CUTS_ID}.jsonl"));
    (t, file)
}

#[test]
fn an_overflow_spill_named_by_the_old_path_opens_from_the_session_folder() {
    let (_t, file) = copied_home();
    let s = api::load_session(&file, None).unwrap();
    let opts = ReviewOptions {
        max_text_bytes: 1 << 20,
        ..ReviewOptions::default()
    };
    let r = analysis::review_spills(&s, &opts);
    assert_eq!(r.spills.len(), 1, "one spill: the overflowing listing");
    let e = &r.spills[0];
    assert_eq!(
        e.message_index,
        Some(74),
        "the result message that names it"
    );
    assert_eq!(
        e.tool.as_deref(),
        Some("mcp__linear__list_issues"),
        "the call whose result overflowed"
    );
    assert_eq!(
        e.kind,
        SpillKind::ClaudeToolResults,
        "Claude Code's own spill"
    );
    assert_eq!(
        e.status,
        SpillStatus::Present,
        "found in the session's tool-results/ although the recorded path is another machine's"
    );
    let here = file
        .with_extension("")
        .join("tool-results")
        .join(OVERFLOW)
        .canonicalize()
        .unwrap();
    assert_eq!(
        e.resolved.as_deref(),
        Some(here.to_str().unwrap()),
        "resolved to the copy"
    );
    let text = std::fs::read_to_string(&here).unwrap();
    assert_eq!(
        e.spill_text.as_deref(),
        Some(text.as_str()),
        "its text is read, whole"
    );
    assert_eq!(r.present, 1, "counted present");
}

#[test]
fn a_path_under_another_sessions_folder_is_not_taken_for_this_one() {
    let (_t, file) = copied_home();
    let text = std::fs::read_to_string(&file).unwrap();
    let other = text.replace(
        &format!("{SIX_CUTS_ID}/tool-results/{OVERFLOW}"),
        &format!("00000000-0000-4000-8000-000000000bad/tool-results/{OVERFLOW}"),
    );
    assert_ne!(other, text, "the notice's path was rewritten");
    std::fs::write(&file, other).unwrap();
    let s = api::load_session(&file, None).unwrap();
    let r = analysis::review_spills(&s, &ReviewOptions::default());
    let named: Vec<_> = r
        .spills
        .iter()
        .filter(|e| e.message_index == Some(74))
        .collect();
    assert_eq!(named.len(), 1, "the notice is still a spill");
    assert_eq!(
        named[0].status,
        SpillStatus::Missing,
        "another session's tool-results/ is not this session's: the path stays outside, and \
         as no such file exists it is missing"
    );
    assert!(
        named[0]
            .resolved
            .as_deref()
            .is_some_and(|p| p.contains("000000000bad")),
        "it names the other session's folder, not this one's: {:?}",
        named[0].resolved
    );
    assert!(
        r.spills
            .iter()
            .any(|e| e.message_index.is_none() && e.status == SpillStatus::Present),
        "the file in this session's folder is still listed, as a file no message names"
    );
}
