//! Regenerating the other harnesses' fixtures into a temp dir gives the committed ones: the
//! OpenCode, Kilo Code and Crush databases row for row (and OpenCode's saved tool output), the
//! OpenCode `storage/` tree, the Copilot CLI event logs, checkpoint and older session file, the
//! Gemini CLI recordings, the Cline task files, the Qwen Code recordings and the Aider logs byte
//! for byte.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Every file under `dir`, by its path below it, with its bytes.
fn files(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut todo = vec![dir.to_owned()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                todo.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().to_owned();
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

#[test]
fn regenerated_harness_fixtures_match_the_committed_ones() {
    let out = tempfile::tempdir().unwrap();
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_palimpsest-fixtures"))
        .arg(out.path())
        .status()
        .unwrap();
    assert!(status.success(), "the generator runs");
    let committed = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures"));
    for (db, parts) in [("opencode/opencode.db", 92), ("kilo/kilo.db", 7)] {
        let fresh = super::goose_regenerate::rows(&out.path().join(db));
        let n = fresh
            .iter()
            .find(|(t, _)| t == "part")
            .map(|(_, r)| r.len());
        assert_eq!(n, Some(parts), "{db}: every part regenerated");
        assert!(
            fresh == super::goose_regenerate::rows(&committed.join(db)),
            "{db}: committed rows differ from the generator's; rerun `cargo run -p palimpsest-fixtures -- fixtures/`"
        );
    }
    for id in [
        palimpsest_fixtures::copilot::WORKER,
        palimpsest_fixtures::copilot::TRUNCATED,
    ] {
        let log = format!("copilot/session-state/{id}/events.jsonl");
        assert_eq!(
            std::fs::read_to_string(out.path().join(&log)).unwrap(),
            std::fs::read_to_string(committed.join(&log)).unwrap_or_default(),
            "{log}: committed events differ from the generator's"
        );
    }
    for tree in ["opencode-storage", "copilot/history-session-state"] {
        let fresh = files(&out.path().join(tree));
        assert!(
            fresh.len() > 1 || tree.starts_with("copilot"),
            "{tree}: written"
        );
        assert!(
            fresh == files(&committed.join(tree)),
            "{tree}: committed files differ from the generator's"
        );
    }
    let saved = "opencode/tool-output/tool_9a1c0e2f4002Gq7ZfXk2Lm";
    assert_eq!(
        std::fs::read_to_string(out.path().join(saved)).unwrap(),
        std::fs::read_to_string(committed.join(saved)).unwrap_or_default(),
        "{saved}: committed tool output differs from the generator's"
    );
    let checkpoint = format!(
        "copilot/session-state/{}/checkpoints/001-retry.md",
        palimpsest_fixtures::copilot::WORKER
    );
    assert_eq!(
        std::fs::read_to_string(out.path().join(&checkpoint)).unwrap(),
        std::fs::read_to_string(committed.join(&checkpoint)).unwrap_or_default(),
        "{checkpoint}: committed checkpoint differs from the generator's"
    );
    let chats = format!("gemini/tmp/{}/chats", palimpsest_fixtures::gemini::PROJECT);
    for rel in [
        "session-2026-10-06T09-00-3c7e9a1b.jsonl",
        "session-2026-10-05T17-30-3c7e9a1b.json",
        "3c7e9a1b-0d42-4e55-9a3b-6f1d2e000001/3c7e9a1b-0d42-4e55-9a3b-6f1d2e000002.jsonl",
    ] {
        let file = format!("{chats}/{rel}");
        assert_eq!(
            std::fs::read_to_string(out.path().join(&file)).unwrap(),
            std::fs::read_to_string(committed.join(&file)).unwrap_or_default(),
            "{file}: committed recording differs from the generator's"
        );
    }
    for id in [
        palimpsest_fixtures::qwen::WORKER,
        palimpsest_fixtures::qwen::CHILD,
    ] {
        let file = format!(
            "qwen/projects/{}/chats/{id}.jsonl",
            palimpsest_fixtures::qwen::PROJECT
        );
        assert_eq!(
            std::fs::read_to_string(out.path().join(&file)).unwrap(),
            std::fs::read_to_string(committed.join(&file)).unwrap_or_default(),
            "{file}: committed recording differs from the generator's"
        );
    }
    for file in [
        "aider/shop/.aider.chat.history.md",
        "aider/shop/.aider.llm.history",
    ] {
        assert_eq!(
            std::fs::read_to_string(out.path().join(file)).unwrap(),
            std::fs::read_to_string(committed.join(file)).unwrap_or_default(),
            "{file}: committed log differs from the generator's"
        );
    }
    let crush = "crush/.crush/crush.db";
    let fresh = super::goose_regenerate::rows(&out.path().join(crush));
    assert_eq!(
        fresh
            .iter()
            .find(|(t, _)| t == "messages")
            .map(|(_, r)| r.len()),
        Some(17),
        "{crush}: every message regenerated"
    );
    assert!(
        fresh == super::goose_regenerate::rows(&committed.join(crush)),
        "{crush}: committed rows differ from the generator's"
    );
    for id in [
        palimpsest_fixtures::cline::TASK,
        palimpsest_fixtures::cline::ROO,
        palimpsest_fixtures::cline::XML,
    ] {
        for f in [
            "api_conversation_history.json",
            "ui_messages.json",
            "task_metadata.json",
        ] {
            let file = format!("cline/tasks/{id}/{f}");
            assert_eq!(
                std::fs::read_to_string(out.path().join(&file)).unwrap(),
                std::fs::read_to_string(committed.join(&file)).unwrap_or_default(),
                "{file}: committed task file differs from the generator's"
            );
        }
    }
}
