//! Every Claude Code transcript we have — the five real ones in `fixtures/real` and the two
//! fixtures with six cuts of three kinds (compactions, microcompacts, content replacements,
//! context collapses) — written out step by step while a [`Tracker`] follows its folder, as an
//! agent writes it: every line that changes earlier messages alone, a few lines at a time
//! between them. After each step:
//! - the copy the app keeps, patched with what the tracker handed over, is the session a whole
//!   read of the file gives;
//! - the listing entry (counted on from where the last count stopped for a large file) is the
//!   one a fresh count of the same bytes gives.
//!
//! And the file is read whole only at the first change and at each line that changes earlier
//! messages.

use std::io::Write;
use std::path::{Path, PathBuf};

use palimpsest_core::api;
use palimpsest_core::model::Session;
use palimpsest_core::watch::{Patch, Tracker};

fn shared(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/real/claude-code")
        .join(name)
}

fn fixture(project: &str, name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/claude/projects")
        .join(project)
        .join(name)
}

/// A record that changes what earlier messages are to the model: a compact or microcompact
/// boundary, a compaction summary, a content replacement, a collapse commit or reset.
fn reaches_back(line: &str) -> bool {
    let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
        return false;
    };
    let s = |k: &str| v.get(k).and_then(|x| x.as_str()).unwrap_or("");
    matches!(
        (s("type"), s("subtype")),
        ("system", "compact_boundary" | "microcompact_boundary")
            | (
                "content-replacement" | "marble-origami-commit" | "marble-origami-reset",
                _
            )
    ) || v.get("isCompactSummary").and_then(|x| x.as_bool()) == Some(true)
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

/// Write `file` out in steps into a folder a tracker follows. Returns how many steps it took,
/// the (1-based) lines after which the session was read whole, and what they should be: the
/// first step (nothing read yet to go on from), then each line that reaches back (each a step
/// of its own).
fn follow(file: &Path, coarse: usize) -> (usize, Vec<usize>, Vec<usize>) {
    let text = std::fs::read_to_string(file).unwrap();
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("-home-u-proj");
    std::fs::create_dir_all(&dir).unwrap();
    let name = file.file_name().unwrap();
    let path = dir.join(name);
    // The session's own folder (subagent runs, spilled results) is there from the start.
    let own = file.with_extension("");
    if own.is_dir() {
        copy_dir(&own, &dir.join(own.file_name().unwrap()));
    }
    // From the first prompt on: before it the file is no session yet.
    let first = 1 + lines
        .iter()
        .position(|l| l.contains("\"type\":\"user\""))
        .unwrap();
    std::fs::write(&path, lines[..first].concat()).unwrap();
    let id = api::list_sessions(&path)
        .unwrap()
        .sessions
        .into_iter()
        .find(|m| m.parent_id.is_none())
        .unwrap()
        .id;
    let mut tracker = Tracker::new(&dir, None).unwrap();
    tracker.keep_patches();
    let mut copy: Session = api::load_session(&path, Some(&id)).unwrap();
    let (mut at, mut steps, mut wholes) = (first, 0, Vec::new());
    while at < lines.len() {
        // Up to the next line that reaches back, then that line alone.
        let next = (at..lines.len())
            .find(|&i| reaches_back(lines[i]))
            .unwrap_or(lines.len());
        let n = if next == at { 1 } else { coarse.min(next - at) };
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        f.write_all(lines[at..at + n].concat().as_bytes()).unwrap();
        drop(f);
        at += n;
        steps += 1;
        let changes = tracker.refresh();
        let now = api::load_session(&path, Some(&id)).unwrap();
        for p in tracker.take_patches() {
            if p.session_id() != id {
                continue;
            }
            // Read whole again: the session as the tracker now keeps it, not a tail.
            if matches!(p, Patch::Shared { .. }) {
                wholes.push(at);
            }
            assert!(
                p.apply(&mut copy),
                "{}: line {at}: the patch fits the copy kept since the last step",
                name.to_string_lossy()
            );
        }
        assert!(
            copy == now,
            "{}: line {at}: the copy patched after each change is what a whole read gives \
             ({} messages against {}; changes {changes:?})",
            name.to_string_lossy(),
            copy.messages.len(),
            now.messages.len()
        );
        // The listing entry, counted on from the last count, is a fresh count's.
        let listed: Vec<_> = api::list_sessions(&path)
            .unwrap()
            .sessions
            .into_iter()
            .filter(|m| m.id == id)
            .collect();
        let fresh_path = t.path().join("fresh").join(name);
        std::fs::create_dir_all(fresh_path.parent().unwrap()).unwrap();
        std::fs::copy(&path, &fresh_path).unwrap();
        let mut fresh = api::list_sessions(&fresh_path).unwrap().sessions;
        fresh[0].path = listed[0].path.clone();
        assert_eq!(
            listed[0],
            fresh[0],
            "{}: line {at}: the listing counted on is a fresh count",
            name.to_string_lossy()
        );
    }
    let first_step = wholes.first().copied().unwrap_or(0);
    let back = std::iter::once(first_step)
        .chain(
            (first..lines.len())
                .filter(|&i| reaches_back(lines[i]) && i + 1 != first_step)
                .map(|i| i + 1),
        )
        .collect();
    (steps, wholes, back)
}

#[test]
fn a_fixture_with_six_cuts_of_three_kinds_followed_line_by_line_reads_as_the_whole_file() {
    let (steps, wholes, back) = follow(
        &fixture(
            "-home-dev-shop",
            "6c075000-0000-4000-8000-00000000c006.jsonl",
        ),
        1,
    );
    assert_eq!(
        wholes, back,
        "read whole again exactly after the lines that reach back (boundaries, summaries)"
    );
    assert_eq!(steps, 82, "every line after the first prompt a step");
}

#[test]
fn a_fixture_with_replacements_and_collapses_followed_line_by_line_reads_as_the_whole_file() {
    let (steps, wholes, back) = follow(
        &fixture(
            "-home-dev-docs",
            "c0117a95-0000-4000-8000-00000000c011.jsonl",
        ),
        1,
    );
    assert_eq!(
        wholes, back,
        "read whole again exactly after the replacement, collapse and compaction records"
    );
    assert_eq!(steps, 38, "every line after the first prompt a step");
}

#[test]
fn the_real_transcripts_followed_in_steps_read_as_the_whole_file() {
    for (name, want) in [
        ("258c7280-ae70-4798-800f-63464d01a85d.jsonl", 112),
        ("ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl", 143),
        ("short.jsonl", 1),
        ("subagent.jsonl", 6),
        ("tool_heavy.jsonl", 3),
    ] {
        let (steps, wholes, back) = follow(&shared(name), 17);
        assert_eq!(
            wholes, back,
            "{name}: read whole again exactly after the lines that reach back"
        );
        assert_eq!(steps, want, "{name}: steps");
    }
}
