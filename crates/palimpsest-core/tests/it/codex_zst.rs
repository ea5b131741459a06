//! Codex rollouts stored compressed (`rollout-….jsonl.zst`): the real rollout of
//! `fixtures/real`, compressed here, lists, loads and shows its stored lines exactly as the
//! plain file does; beside its plain twin only the plain one is read; a damaged one is a
//! problem naming it while the others still load; the start-up count sees it.

use std::path::{Path, PathBuf};

use palimpsest_core::api;

fn real() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/real/codex");
    std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .expect("the real Codex rollout")
}

/// `~/.codex/sessions/2025/10/23/` holding the rollout compressed (and, with `plain`, also as
/// it is).
fn home(plain: bool) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let t = tempfile::tempdir().unwrap();
    let day = t.path().join("sessions/2025/10/23");
    std::fs::create_dir_all(&day).unwrap();
    let src = real();
    let name = src.file_name().unwrap().to_string_lossy().into_owned();
    let text = std::fs::read(&src).unwrap();
    let zst = day.join(format!("{name}.zst"));
    std::fs::write(&zst, zstd::encode_all(&text[..], 3).unwrap()).unwrap();
    if plain {
        std::fs::write(day.join(&name), &text).unwrap();
    }
    (t, t_sessions(&day), zst)
}

fn t_sessions(day: &Path) -> PathBuf {
    day.ancestors().nth(3).unwrap().to_owned()
}

#[test]
fn a_compressed_rollout_reads_as_the_plain_one() {
    let (_t, root, zst) = home(false);
    let want = api::load_session(&real(), None).unwrap();
    let listed = api::list_sessions(&root).unwrap();
    assert!(
        listed.problems.is_empty(),
        "no problem: {:?}",
        listed.problems
    );
    assert_eq!(
        listed.sessions.len(),
        1,
        "the compressed rollout is one session"
    );
    let meta = &listed.sessions[0];
    assert_eq!(
        (meta.id.as_str(), meta.message_count, meta.compaction_count),
        (
            want.meta.id.as_str(),
            want.messages.len(),
            want.compactions.len()
        ),
        "listed with the plain file's id and counts"
    );
    assert_eq!(meta.path, zst.display().to_string(), "read from the .zst");
    let got = api::load_session(&root, Some(&meta.id)).unwrap();
    assert_eq!(
        got.messages, want.messages,
        "every message as the plain file gives it"
    );
    assert_eq!(got.compactions, want.compactions, "and its cuts");
    let last = want.messages.len() - 1;
    assert_eq!(
        api::raw_message(&root, &meta.id, last).unwrap(),
        api::raw_message(&real(), &want.meta.id, last).unwrap(),
        "the stored line of a message, decompressed"
    );
}

#[test]
fn beside_its_plain_twin_only_the_plain_file_is_read() {
    let (_t, root, _zst) = home(true);
    let listed = api::list_sessions(&root).unwrap();
    assert!(listed.problems.is_empty(), "the twin is no problem");
    assert_eq!(listed.sessions.len(), 1, "one session, not two");
    assert!(
        listed.sessions[0].path.ends_with(".jsonl"),
        "the plain file wins: {}",
        listed.sessions[0].path
    );
}

#[test]
fn a_damaged_compressed_rollout_is_a_problem_naming_it() {
    let (_t, root, zst) = home(false);
    let broken = zst.with_file_name(
        "rollout-2025-10-23T12-00-00-019a0e82-0000-7000-8000-000000000bad.jsonl.zst",
    );
    std::fs::write(&broken, b"not zstd at all\n").unwrap();
    let listed = api::list_sessions(&root).unwrap();
    assert_eq!(listed.sessions.len(), 1, "the good one still lists");
    assert_eq!(listed.problems.len(), 1, "one problem");
    assert!(
        listed.problems[0]
            .message
            .contains(&broken.display().to_string()),
        "it names the damaged file: {}",
        listed.problems[0].message
    );
}
