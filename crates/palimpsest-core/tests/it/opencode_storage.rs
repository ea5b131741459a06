//! OpenCode's `storage/` JSON tree, from builds before its database (fixtures/README.md,
//! `opencode-storage/`): the data folder is found and claimed as the database's is, its sessions
//! list with the same counts, and each session reads exactly as the same session does from the
//! database — messages, visibility, cuts — with a record cut short named by its file.

use std::path::PathBuf;

use palimpsest_core::model::Session;
use palimpsest_core::{api, sources};
use palimpsest_fixtures::opencode::{CHILD, OLD, WORKER};
use palimpsest_fixtures::opencode_storage::renamed;

fn fixture(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures")
        .join(rel)
}

fn load(path: &std::path::Path, id: &str) -> Session {
    api::load_session(path, Some(id)).expect("the fixture session loads")
}

/// `v` without the ids a record in a file holds of itself and its owners (a database row
/// holds them in columns): a stored record is the object that names its `sessionID`.
fn scrub(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(o) => {
            if o.contains_key("sessionID") {
                for k in ["id", "sessionID", "messageID"] {
                    o.remove(k);
                }
            }
            o.values_mut().for_each(scrub);
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(scrub),
        _ => {}
    }
}

/// The session's messages and compactions as JSON text, with `from` (where it was read)
/// written `to`, the ids as the tree names them, and each message's error left out (it says
/// where the record is stored, which differs by design), as are the ids a stored record holds
/// of itself ([`scrub`]).
fn comparable(s: &Session, from: &str, to: &str) -> String {
    let messages: Vec<serde_json::Value> = s
        .messages
        .iter()
        .map(|m| {
            let mut v = serde_json::to_value(m.as_ref()).unwrap();
            v["error"] = serde_json::Value::Null;
            if m.error.is_some() {
                // A row's time is its column's; a file that does not read is dated by the
                // file (`a_record_cut_short_is_named_by_its_file`).
                v["created"] = serde_json::Value::Null;
            }
            scrub(&mut v);
            v
        })
        .collect();
    let mut v = serde_json::json!({"messages": messages, "compactions": s.compactions});
    scrub(&mut v);
    renamed(&v.to_string().replace(from, to))
}

#[test]
fn the_storage_tree_lists_the_sessions_the_database_would() {
    let (metas, problems) = sources::open(&fixture("opencode-storage")).unwrap().list();
    assert!(problems.is_empty(), "lists without problems: {problems:?}");
    let root = fixture("opencode-storage/storage");
    let got: Vec<String> = metas
        .iter()
        .map(|m| {
            format!(
                "{} path_is_storage={}",
                super::listing::line(m),
                std::path::Path::new(&m.path) == root
            )
        })
        .collect();
    let (w, o, c) = (renamed(WORKER), renamed(OLD), renamed(CHILD));
    assert_eq!(
        got,
        [
            format!(
                "{w} opencode \"Add a retry to fetch_rows\" parent=None messages=16 cuts=2 model=Some(\"claude-sonnet-4-5\") path_is_storage=true"
            ),
            format!(
                "{o} opencode \"Fix the import\" parent=None messages=9 cuts=1 model=Some(\"claude-sonnet-4-5\") path_is_storage=true"
            ),
            format!(
                "{c} opencode \"find callers (@explore subagent)\" parent=Some(\"{w}\") messages=2 cuts=0 model=Some(\"claude-sonnet-4-5\") path_is_storage=true"
            ),
        ],
        "the database fixture's listing, session for session"
    );
    let (direct, _) = sources::open(&root).unwrap().list();
    assert_eq!(
        direct.len(),
        3,
        "the `storage` folder given alone is the same tree"
    );
}

#[test]
fn each_session_reads_as_it_does_from_the_database() {
    let db = fixture("opencode/opencode.db").display().to_string();
    let root = fixture("opencode-storage/storage").display().to_string();
    for id in [WORKER, CHILD, OLD] {
        let from_db = load(&fixture("opencode"), id);
        let from_tree = load(&fixture("opencode-storage"), &renamed(id));
        assert_eq!(
            comparable(&from_tree, &root, &root),
            comparable(&from_db, &db, &root),
            "{id}: the same messages, visibility and cuts"
        );
        assert!(
            !from_tree.messages.is_empty() && from_tree.messages.len() == from_db.messages.len()
        );
    }
}

#[test]
fn a_record_cut_short_is_named_by_its_file() {
    let s = load(&fixture("opencode-storage"), &renamed(OLD));
    let file = fixture(&format!(
        "opencode-storage/storage/message/{}/msg_6b0d1f3e40030009.json",
        renamed(OLD)
    ));
    assert_eq!(
        s.messages[13].error.as_deref(),
        Some(
            format!(
                "{}: message msg_6b0d1f3e40030009: EOF while parsing a value at line 1 column 38",
                file.display()
            )
            .as_str()
        ),
    );
    let written = std::fs::metadata(&file).unwrap().modified().unwrap();
    let ms = written
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    assert_eq!(
        s.messages[13].created,
        Some(ms),
        "a record that does not read is dated by its file"
    );
}

#[test]
fn a_session_file_that_does_not_read_is_named_while_the_others_list() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("opencode");
    palimpsest_fixtures::copy_tree(&fixture("opencode-storage"), &data, &[]).unwrap();
    let bad = data.join("storage/session/prj_shop/ses_broken.json");
    std::fs::write(&bad, "{\"id\": ").unwrap();
    let catalog = sources::open(&data).unwrap();
    let (metas, problems) = catalog.list();
    assert_eq!(metas.len(), 3, "the readable sessions still list");
    let said: Vec<String> = catalog
        .problems
        .iter()
        .chain(problems.iter())
        .map(|e| e.to_string())
        .collect();
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(
        said[0].starts_with(&format!("{}: ", bad.display())),
        "the problem names the file: {said:?}"
    );
}
