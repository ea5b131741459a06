//! A folder listed with the index's help after something under it changed (a home where one
//! worker still writes): every session file as it was indexed is listed from the index without
//! being read, the changed one from its file, and the result names the same sessions a plain
//! listing does. On the real sessions of `fixtures/real` and the goose and coworker fixtures.

use std::io::Write;
use std::path::{Path, PathBuf};

use palimpsest_core::api::{self, DiagnoseOptions};
use palimpsest_core::index::Index;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn copy_dir(from: &Path, to: &Path) {
    palimpsest_fixtures::copy_tree(from, to, &[]).unwrap();
}

/// What the index says of a session shows in its title, so a listing that took it shows that.
const MARK: &str = "indexed: ";

#[test]
fn a_changed_folder_reads_only_its_changed_files_and_takes_the_rest_from_the_index() {
    let t = tempfile::tempdir().unwrap();
    let shared = repo().join("fixtures/real");
    let home = t.path().join("home");
    copy_dir(&shared.join("claude-code"), &home.join("claude"));
    copy_dir(&shared.join("codex"), &home.join("codex"));
    copy_dir(&repo().join("fixtures/goose-stuck"), &home.join("goose"));
    copy_dir(&repo().join("fixtures/coworker"), &home.join("coworker"));
    let home = home.canonicalize().unwrap();
    let machine = palimpsest_core::env::Machine::new(None, Some(t.path().join("cache")), None, []);
    palimpsest_core::env::with(machine, || {
        let mut ix = Index::open_default().unwrap();
        ix.update(
            std::slice::from_ref(&home),
            &DiagnoseOptions::default(),
            &mut |_, _| {},
        )
        .unwrap();
        let db = Index::default_path().unwrap();
        drop(ix);
        let marked = rusqlite::Connection::open(&db)
            .unwrap()
            .execute(
                "UPDATE sessions SET meta_json = json_set(meta_json, '$.name', ?1 || json_extract(meta_json, '$.name'))",
                [MARK],
            )
            .unwrap();
        assert!(marked > 10, "the index holds the home's sessions: {marked}");

        // One transcript written on: the folder is no longer as indexed.
        let changed = home.join("claude/short.jsonl");
        let last = std::fs::read_to_string(&changed)
            .unwrap()
            .lines()
            .last()
            .unwrap()
            .to_owned();
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&changed)
            .unwrap();
        writeln!(f, "{last}").unwrap();
        drop(f);

        let listed = api::list_sessions_indexed(&home).unwrap();
        let plain = api::list_sessions(&home).unwrap();
        let ids = |l: &api::SessionList| {
            let mut v: Vec<(String, String)> = l
                .sessions
                .iter()
                .map(|s| (s.path.clone(), s.id.clone()))
                .collect();
            v.sort();
            v
        };
        assert_eq!(
            ids(&listed),
            ids(&plain),
            "the same sessions as a plain listing"
        );
        assert_eq!(listed.problems, plain.problems, "and the same problems");

        let changed = changed.display().to_string();
        let fresh = listed
            .sessions
            .iter()
            .find(|s| s.path == changed)
            .expect("the changed file is listed");
        let read = plain.sessions.iter().find(|s| s.path == changed).unwrap();
        assert!(
            !fresh.name.starts_with(MARK),
            "the changed file is read, not taken from the index: {}",
            fresh.name
        );
        assert_eq!(
            fresh.message_count, read.message_count,
            "with the count its file gives now"
        );
        for s in &listed.sessions {
            let per_file = matches!(
                s.format,
                palimpsest_core::model::SourceFormat::ClaudeCode
                    | palimpsest_core::model::SourceFormat::Codex
            );
            if s.path != changed && per_file {
                assert!(
                    s.name.starts_with(MARK),
                    "{} ({}) is as indexed: its entry comes from the index, unread",
                    s.id,
                    s.path
                );
            }
        }
        let from_index = listed
            .sessions
            .iter()
            .filter(|s| s.name.starts_with(MARK))
            .count();
        assert!(
            from_index >= 8,
            "the real transcripts, their subagent runs and the rollout: {from_index}"
        );
    });
}
