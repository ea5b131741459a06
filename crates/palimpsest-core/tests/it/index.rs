//! The fleet index on real sessions (`fixtures/real`: Claude Code transcripts with
//! compactions and subagents, a Codex rollout) and the fixtures (goose databases, coworker):
//! what an update adds, leaves, re-reads and removes; that its fleet table is the one a fresh
//! diagnosis gives; and that search finds exactly what a plain scan of the same files finds.

use std::path::{Path, PathBuf};

use palimpsest_core::api::{self, DiagnoseOptions};
use palimpsest_core::index::Index;
use palimpsest_core::index::search::{Query, scan};
use palimpsest_core::model::Session;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn copy_dir(from: &Path, to: &Path) {
    palimpsest_fixtures::copy_tree(from, to, &[]).unwrap();
}

/// A home of real sessions in a temp folder: the shared Claude Code and Codex data and the
/// goose and coworker fixtures.
fn home() -> tempfile::TempDir {
    let t = tempfile::tempdir().unwrap();
    let shared = repo().join("fixtures/real");
    copy_dir(&shared.join("claude-code"), &t.path().join("claude"));
    copy_dir(&shared.join("codex"), &t.path().join("codex"));
    copy_dir(
        &repo().join("fixtures/goose-stuck"),
        &t.path().join("goose"),
    );
    copy_dir(
        &repo().join("fixtures/coworker"),
        &t.path().join("coworker"),
    );
    t
}

fn opts() -> DiagnoseOptions {
    DiagnoseOptions::default()
}

fn all_sessions(root: &Path) -> Vec<Session> {
    let catalog = palimpsest_core::sources::open(root).unwrap();
    let (metas, _) = catalog.list();
    metas
        .iter()
        .map(|m| catalog.load(root, Some(&m.id)).unwrap())
        .collect()
}

#[test]
fn an_update_reads_only_what_changed() {
    let h = home();
    let root = h.path().canonicalize().unwrap();
    let db = h.path().join("cache/index.db");
    let mut ix = Index::open(&db).unwrap();
    let first = ix
        .update(std::slice::from_ref(&root), &opts(), &mut |_, _| {})
        .unwrap();
    let n = all_sessions(&root).len();
    assert_eq!(
        (
            first.added,
            first.updated,
            first.unchanged,
            first.removed,
            first.sessions
        ),
        (n, 0, 0, 0, n),
        "a new index adds every session under the root"
    );
    let again = ix
        .update(std::slice::from_ref(&root), &opts(), &mut |_, _| {})
        .unwrap();
    assert_eq!(
        (again.added, again.updated, again.unchanged),
        (0, 0, n),
        "nothing changed: nothing is read"
    );

    // One message appended to a real transcript.
    let short = root.join("claude/short.jsonl");
    let before = api::load_session(&short, None).unwrap().messages.len();
    let line = r#"{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/marco/projects/spotter","sessionId":"55604662-cf2a-4331-851a-ec234028f8ca","version":"2.1.39","type":"user","message":{"role":"user","content":"zanzibar-appended-marker"},"uuid":"99999999-0000-4000-8000-000000000001","timestamp":"2026-02-10T21:20:00.000Z"}"#;
    let mut text = std::fs::read_to_string(&short).unwrap();
    text.push_str(line);
    text.push('\n');
    std::fs::write(&short, text).unwrap();
    let appended = ix
        .update(std::slice::from_ref(&root), &opts(), &mut |_, _| {})
        .unwrap();
    assert_eq!(
        (appended.updated, appended.appended, appended.unchanged),
        (1, 1, n - 1),
        "the appended transcript is re-indexed from its last message on; the rest untouched"
    );
    let hits = ix
        .search(
            std::slice::from_ref(&root),
            &Query {
                text: "zanzibar-appended".into(),
                limit: 10,
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(
        hits.iter().map(|h| h.index).collect::<Vec<_>>(),
        vec![before],
        "the appended message is searchable at its index"
    );
    let fleet = ix
        .fleet(
            std::slice::from_ref(&short),
            Vec::new(),
            api::DiagnoseOptions::default().price_table(),
        )
        .unwrap();
    assert_eq!(
        fleet.sessions[0].messages,
        before + 1,
        "the fleet row counts the appended message"
    );

    // A rewritten file (a line removed from the middle) is re-read whole.
    let tool_heavy = root.join("claude/tool_heavy.jsonl");
    let text = std::fs::read_to_string(&tool_heavy).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines.remove(lines.len() / 2);
    std::fs::write(&tool_heavy, lines.join("\n") + "\n").unwrap();
    let rewritten = ix
        .update(std::slice::from_ref(&root), &opts(), &mut |_, _| {})
        .unwrap();
    assert_eq!(
        (rewritten.updated, rewritten.appended),
        (1, 0),
        "a file changed in the middle is re-indexed whole, not as an append"
    );

    // A session removed from disk leaves the index.
    std::fs::remove_file(&tool_heavy).unwrap();
    let removed = ix
        .update(std::slice::from_ref(&root), &opts(), &mut |_, _| {})
        .unwrap();
    assert_eq!(
        (removed.removed, removed.sessions),
        (1, n - 1),
        "the deleted transcript is removed"
    );
}

#[test]
fn the_fleet_from_the_index_is_the_fresh_diagnosis() {
    let h = home();
    let root = h.path().canonicalize().unwrap();
    let mut ix = Index::open(&h.path().join("cache/index.db")).unwrap();
    let indexed = api::fleet_indexed(&mut ix, &root, &opts()).unwrap();
    let fresh = api::diagnose_fleet(&root, &opts()).unwrap();
    assert_eq!(
        serde_json::to_value(&indexed.sessions).unwrap(),
        serde_json::to_value(&fresh.sessions).unwrap(),
        "every row, in the same order (stuck first), is what diagnosing afresh gives"
    );
    assert_eq!(indexed.totals, fresh.totals, "and so are the totals");
    let warm = api::fleet_indexed(&mut ix, &root, &opts()).unwrap();
    assert_eq!(
        warm.sessions, indexed.sessions,
        "a warm run answers the same from the index"
    );
}

#[test]
fn search_finds_exactly_what_a_plain_scan_finds() {
    let h = home();
    let root = h.path().canonicalize().unwrap();
    let mut ix = Index::open(&h.path().join("cache/index.db")).unwrap();
    ix.update(std::slice::from_ref(&root), &opts(), &mut |_, _| {})
        .unwrap();
    let sessions = all_sessions(&root);
    let q = |text: &str| Query {
        text: text.into(),
        limit: 100_000,
        ..Default::default()
    };
    let queries = vec![
        q("store.py"),
        q("mix test"),
        q("ERROR"),
        q("phx"),
        q("ab"),
        q("行业最佳实践"),
        Query {
            regex: true,
            ..q(r"def \w+_retry|fetch_\w+")
        },
        Query {
            regex: true,
            ..q(r"\d{4}-\d{2}-\d{2}")
        },
        Query {
            role: Some("tool".into()),
            ..q("elixir")
        },
        Query {
            part: Some("tool_call".into()),
            tool: Some("Bash".into()),
            ..q("git")
        },
        Query {
            part: Some("summary".into()),
            ..q("the")
        },
        Query {
            limit: 3,
            ..q("the")
        },
    ];
    for query in &queries {
        let indexed = ix.search(std::slice::from_ref(&root), query).unwrap();
        let scanned = scan(&sessions, query).unwrap();
        assert_eq!(
            indexed, scanned,
            "the index finds what a scan finds for {:?} (regex {}, role {:?}, part {:?}, tool {:?})",
            query.text, query.regex, query.role, query.part, query.tool
        );
    }
    assert!(
        !ix.search(std::slice::from_ref(&root), &q("store.py"))
            .unwrap()
            .is_empty()
            && !ix
                .search(std::slice::from_ref(&root), &q("行业最佳实践"))
                .unwrap()
                .is_empty(),
        "the comparisons are not all empty: store.py (goose) and the Codex prompt are found"
    );
    let phx = ix
        .search(std::slice::from_ref(&root), &q("PHX.SERVER"))
        .unwrap();
    let h0 = &phx[0];
    let marked: String = h0
        .snippet
        .chars()
        .skip(h0.match_start)
        .take(h0.match_end - h0.match_start)
        .collect();
    assert_eq!(
        marked.to_lowercase(),
        "phx.server",
        "the match is marked in the snippet"
    );
}

#[test]
fn an_unchanged_folder_is_not_opened_and_its_problems_are_said_again() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("home");
    copy_dir(&repo().join("fixtures/goose-stuck"), &root.join("goose"));
    std::fs::create_dir_all(root.join("other")).unwrap();
    std::fs::write(root.join("other/notes.jsonl"), "this is not a session\n").unwrap();
    let mut ix = Index::open(&dir.path().join("index.db")).unwrap();
    let first = ix
        .update(std::slice::from_ref(&root), &opts(), &mut |_, _| {})
        .unwrap();
    let named: Vec<&str> = first
        .problems
        .iter()
        .map(|p| p.message.as_str())
        .filter(|m| m.contains("notes.jsonl"))
        .collect();
    assert_eq!(
        named.len(),
        1,
        "the stray file is a problem naming it: {:?}",
        first.problems
    );
    let again = ix
        .update(std::slice::from_ref(&root), &opts(), &mut |_, _| {})
        .unwrap();
    assert_eq!(
        (again.unchanged, again.added, again.updated),
        (first.added, 0, 0),
        "nothing changed under the folder: every session unchanged"
    );
    assert_eq!(
        again.problems, first.problems,
        "the problems are said again, word for word"
    );
    // Proof that nothing was opened: the database's bytes replaced by zeros, its size and
    // mtime kept, still reads as unchanged (a reader opening it would fail).
    let db = root.join("goose/sessions.db");
    let meta = std::fs::metadata(&db).unwrap();
    std::fs::write(&db, vec![0u8; meta.len() as usize]).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&db)
        .unwrap()
        .set_modified(meta.modified().unwrap())
        .unwrap();
    let blind = ix
        .update(std::slice::from_ref(&root), &opts(), &mut |_, _| {})
        .unwrap();
    assert_eq!(
        (blind.unchanged, blind.problems.len()),
        (first.added, first.problems.len()),
        "the listing is the same, so no file was read: {:?}",
        blind.problems
    );
    // A new file under the folder changes its listing: the full update runs and finds it.
    std::fs::write(root.join("other/more.jsonl"), "not one either\n").unwrap();
    let third = ix
        .update(std::slice::from_ref(&root), &opts(), &mut |_, _| {})
        .unwrap();
    assert!(
        third
            .problems
            .iter()
            .any(|p| p.message.contains("more.jsonl")),
        "the new file is seen: {:?}",
        third.problems
    );
}

#[test]
fn a_locked_database_keeps_its_sessions_and_is_looked_at_again() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("home");
    copy_dir(&repo().join("fixtures/coworker"), &root.join("coworker"));
    let mut ix = Index::open(&dir.path().join("index.db")).unwrap();
    let first = ix
        .update(std::slice::from_ref(&root), &opts(), &mut |_, _| {})
        .unwrap();
    assert!(
        first.added > 0,
        "the coworker sessions are indexed: {first:?}"
    );
    let db = root.join("coworker/state/coworker.db");
    let lock = rusqlite::Connection::open(&db).unwrap();
    lock.execute_batch("BEGIN EXCLUSIVE;").unwrap();
    // Something else under the folder changed, so the update is a full one and meets the lock.
    std::fs::write(root.join("notes.txt"), "changed").unwrap();
    let locked = ix
        .update(std::slice::from_ref(&root), &opts(), &mut |_, _| {})
        .unwrap();
    assert!(
        locked
            .problems
            .iter()
            .any(|p| p.code == palimpsest_core::error::ErrorCode::Sqlite
                && p.message.contains("coworker.db")),
        "the lock is said, naming the database: {:?}",
        locked.problems
    );
    assert_eq!(
        locked.removed, 0,
        "a source that could not say what it holds keeps its sessions in the index"
    );
    lock.execute_batch("ROLLBACK;").unwrap();
    drop(lock);
    let after = ix
        .update(std::slice::from_ref(&root), &opts(), &mut |_, _| {})
        .unwrap();
    assert!(
        !after
            .problems
            .iter()
            .any(|p| p.code == palimpsest_core::error::ErrorCode::Sqlite),
        "once the lock is gone the folder is read again, not answered from the last update: {:?}",
        after.problems
    );
    assert_eq!(
        after.sessions, first.sessions,
        "every session is back in the count"
    );
}

#[test]
fn an_indexed_folder_lists_from_the_index_until_it_changes() {
    let h = home();
    let root = h.path().join("claude").canonicalize().unwrap();
    let mut ix = Index::open(&h.path().join("cache/index.db")).unwrap();
    assert!(
        ix.listing(&root).unwrap().is_none(),
        "a folder the index never saw is listed from disk"
    );
    ix.update(std::slice::from_ref(&root), &opts(), &mut |_, _| {})
        .unwrap();
    let (metas, problems) = ix.listing(&root).unwrap().expect("fresh after the update");
    let listed = api::list_sessions(&root).unwrap();
    let ids = |m: &[palimpsest_core::model::SessionMeta]| {
        m.iter()
            .map(|s| (s.id.clone(), s.name.clone(), s.parent_id.clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        ids(&metas),
        ids(&listed.sessions),
        "the same sessions, titles and parents, in the listing's order (newest first)"
    );
    assert_eq!(problems, listed.problems, "and the same problems");
    std::fs::write(root.join("short.jsonl"), "").unwrap();
    assert!(
        ix.listing(&root).unwrap().is_none(),
        "a changed file under the folder sends the listing back to disk"
    );
}

#[test]
fn a_database_indexed_on_its_own_is_not_listed_as_its_folders() {
    // A folder whose walk lists its own `sessions.db` only; a second database in a hidden
    // subfolder (not walked), opened on its own, is indexed under the folder's path but is
    // not its session.
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("goose");
    copy_dir(&repo().join("fixtures/goose-stuck"), &root);
    copy_dir(
        &repo().join("fixtures/goose/v17"),
        &root.join("archive/.v17"),
    );
    let root = root.canonicalize().unwrap();
    let mut ix = Index::open(&t.path().join("index.db")).unwrap();
    ix.update(std::slice::from_ref(&root), &opts(), &mut |_, _| {})
        .unwrap();
    let before = ix.listing(&root).unwrap().expect("fresh after its update");
    ix.update(
        &[root.join("archive/.v17/sessions.db")],
        &opts(),
        &mut |_, _| {},
    )
    .unwrap();
    let listed = match ix.listing(&root).unwrap() {
        Some((metas, _)) => metas,
        None => api::list_sessions(&root).unwrap().sessions,
    };
    let ids = |m: &[palimpsest_core::model::SessionMeta]| {
        m.iter().map(|s| s.id.clone()).collect::<Vec<_>>()
    };
    assert_eq!(
        ids(&listed),
        ids(&before.0),
        "the folder still lists what its sources hold, not the database indexed on its own"
    );
    assert!(
        !ids(&listed).contains(&"20261120_1".to_owned()),
        "the schema-17 worker is not the folder's"
    );
}
