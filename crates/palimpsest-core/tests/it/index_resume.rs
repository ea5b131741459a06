//! An appended transcript indexed from its last offset by a later update (`index::snapshots`):
//! the real 258c7280 transcript grown in steps in a project folder, indexed after each step by
//! one index that keeps its readers, gives after every step what a fresh index of the file as
//! it is then gives (timeline, diagnosis, cut view, token report, fleet row, search), and says
//! which updates were read from the offset; a damaged snapshot costs a whole read, not a
//! wrong answer, and a session gone takes its snapshot with it; a transcript written lately
//! keeps its reader from its first index. The real Codex rollout grown
//! the same way is read from its last offset too, and answered as a fresh index.

use std::path::{Path, PathBuf};

use palimpsest_core::api::DiagnoseOptions;
use palimpsest_core::cost::PriceTable;
use palimpsest_core::index::search::Query;
use palimpsest_core::index::{Index, IndexReport};

use super::claude_resume::{ID, append, started};

pub(crate) fn update(ix: &mut Index, root: &Path) -> IndexReport {
    ix.update(
        &[root.to_owned()],
        &DiagnoseOptions::default(),
        &mut |_, _| {},
    )
    .unwrap()
}

/// Make `path` look last written two days ago: a finished session's file.
fn aged(path: &Path) {
    let two_days = std::time::Duration::from_secs(2 * 24 * 3600);
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(std::time::SystemTime::now() - two_days)
        .unwrap();
}

fn snapshots(cache: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(cache.join("readers"))
        .map(|rd| rd.flatten().map(|e| e.path()).collect())
        .unwrap_or_default()
}

/// Everything the index answers about the session, as JSON to compare.
fn answers(ix: &Index, root: &Path, file: &Path, id: &str) -> serde_json::Value {
    let fleet = ix
        .fleet(&[root.to_owned()], Vec::new(), PriceTable::bundled())
        .unwrap();
    // A word in most parts, and the compaction's.
    let hits: Vec<_> = ["the", "compact"]
        .iter()
        .map(|w| {
            let q = Query {
                text: (*w).into(),
                limit: 100_000,
                ..Default::default()
            };
            ix.search(&[root.to_owned()], &q).unwrap()
        })
        .collect();
    let mut tokens = ix.token_report(file, Some(id)).unwrap().expect("kept");
    // How many counts the token cache gave: a grown index counted the older messages before.
    tokens.stats = Default::default();
    serde_json::json!({
        "timeline": ix.timeline(file, Some(id)).unwrap().expect("answered from the index"),
        "diagnosis": ix.diagnosis(file, Some(id)).unwrap(),
        "cut_view": ix.cut_view(file, Some(id)).unwrap(),
        "token_report": tokens,
        "fleet": fleet,
        "hits": hits,
    })
}

/// Where `a` and `b` first differ, as a JSON pointer with both values (short enough to read).
fn diff(a: &serde_json::Value, b: &serde_json::Value, at: &str) -> Option<String> {
    use serde_json::Value::{Array, Object};
    match (a, b) {
        (Object(x), Object(y)) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            keys.into_iter().find_map(|k| {
                let none = serde_json::Value::Null;
                diff(
                    x.get(k).unwrap_or(&none),
                    y.get(k).unwrap_or(&none),
                    &format!("{at}/{k}"),
                )
            })
        }
        (Array(x), Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (p, q))| diff(p, q, &format!("{at}/{i}"))),
        _ if a == b => None,
        _ => Some(format!(
            "{at}: {:.300} against {:.300}",
            a.to_string(),
            b.to_string()
        )),
    }
}

/// What a fresh index of the folder as it is now answers.
fn fresh(root: &Path, file: &Path, id: &str) -> serde_json::Value {
    let t = tempfile::tempdir().unwrap();
    let mut ix = Index::open(&t.path().join("index.db")).unwrap();
    update(&mut ix, root);
    answers(&ix, root, file, id)
}

#[test]
fn a_growing_transcript_is_indexed_from_its_last_offset_as_a_fresh_index_reads_it() {
    let (t, dir, path, lines) = started();
    aged(&path);
    let (root, file) = (dir.canonicalize().unwrap(), path.canonicalize().unwrap());
    let cache = t.path().join("cache");
    let mut ix = Index::open(&cache.join("index.db")).unwrap();
    let first = update(&mut ix, &root);
    assert_eq!(first.added, 1, "the first 200 lines are a new session");
    assert!(
        snapshots(&cache).is_empty(),
        "a session last written days ago keeps no reader: a home of finished ones costs nothing"
    );

    let mut expect = Vec::new();
    for (step, resumed) in [(200..201, 0), (201..211, 1), (211..212, 1)] {
        append(&path, &lines[step.clone()].concat());
        let r = update(&mut ix, &root);
        expect.push((r.updated, r.appended, r.resumed));
        assert_eq!(
            (r.updated, r.appended, r.resumed),
            (1, 1, resumed),
            "lines {step:?}: an append; read from the last offset once a reader was kept"
        );
        assert_eq!(
            snapshots(&cache).len(),
            1,
            "one reader kept, for the one growing session"
        );
        let now = answers(&ix, &root, &file, ID);
        let hits = now["hits"][0].as_array().map_or(0, Vec::len);
        assert!(
            hits >= 20,
            "the search compared reaches parts old and new: {hits} hits of \"the\""
        );
        assert_eq!(
            diff(&now, &fresh(&root, &file, ID), ""),
            None,
            "after lines {step:?} the index answers as a fresh index of the file"
        );
    }

    // The rest holds the compaction: the kept reader reads the file whole, and the answers
    // (the cut, what the model still sees) are still a fresh index's.
    append(&path, &lines[212..].concat());
    let r = update(&mut ix, &root);
    assert_eq!(
        (r.appended, r.resumed),
        (1, 0),
        "a compaction changes earlier messages: read whole, not from the offset"
    );
    let now = answers(&ix, &root, &file, ID);
    assert_eq!(
        diff(&now, &fresh(&root, &file, ID), ""),
        None,
        "with the compaction: as a fresh index"
    );
    assert_eq!(
        now["cut_view"]["cuts"].as_array().map(Vec::len),
        Some(1),
        "the transcript's one compaction is in the cut view"
    );

    // A damaged snapshot: the next append is read whole, and answered right.
    let snap = &snapshots(&cache)[0];
    let mut bytes = std::fs::read(snap).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x55;
    std::fs::write(snap, bytes).unwrap();
    append(&path, &lines[lines.len() - 1]);
    let r = update(&mut ix, &root);
    assert_eq!(
        (r.appended, r.resumed, r.problems.len()),
        (1, 0, 0),
        "a damaged reader is not used, and is no problem of the session's"
    );
    assert_eq!(
        diff(
            &answers(&ix, &root, &file, ID),
            &fresh(&root, &file, ID),
            ""
        ),
        None,
        "read whole: as a fresh index"
    );

    std::fs::remove_file(&path).unwrap();
    let r = update(&mut ix, &root);
    assert_eq!(r.removed, 1, "the session is gone from disk");
    assert!(snapshots(&cache).is_empty(), "and its reader with it");
}

#[test]
fn a_growing_codex_rollout_is_indexed_from_its_last_offset_as_a_fresh_index_reads_it() {
    let name = "rollout-2025-10-23T11-40-21-019a0e82-73d6-7592-88a6-48d49534d91b.jsonl";
    let real = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/real/codex")
        .join(name);
    let lines = super::codex_resume::lines_of(&real);
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("sessions/2025/10/23");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, lines[..100].concat()).unwrap();
    aged(&path);
    let (root, file) = (
        t.path().join("sessions").canonicalize().unwrap(),
        path.canonicalize().unwrap(),
    );
    let cache = t.path().join("cache");
    let mut ix = Index::open(&cache.join("index.db")).unwrap();
    assert_eq!(
        update(&mut ix, &root).added,
        1,
        "the first 100 lines are a new session"
    );
    let id = "019a0e82-73d6-7592-88a6-48d49534d91b";
    for (step, resumed) in [(100..101, 0), (101..150, 1), (150..274, 1)] {
        append(&path, &lines[step.clone()].concat());
        let r = update(&mut ix, &root);
        assert_eq!(
            (r.updated, r.appended, r.resumed),
            (1, 1, resumed),
            "lines {step:?}: an append; read from the last offset once a reader was kept"
        );
        assert_eq!(
            diff(
                &answers(&ix, &root, &file, id),
                &fresh(&root, &file, id),
                ""
            ),
            None,
            "after lines {step:?} the index answers as a fresh index of the rollout"
        );
    }
    assert_eq!(
        snapshots(&cache).len(),
        1,
        "one reader kept, for the one growing rollout"
    );
}

#[test]
fn a_transcript_written_lately_keeps_its_reader_from_its_first_index() {
    // Just written, as an agent writes it: its first index keeps the reader, so the first line
    // appended is read on from there, and the answers are a fresh index's.
    let (t, dir, path, lines) = started();
    let (root, file) = (dir.canonicalize().unwrap(), path.canonicalize().unwrap());
    let cache = t.path().join("cache");
    let mut ix = Index::open(&cache.join("index.db")).unwrap();
    assert_eq!(update(&mut ix, &root).added, 1);
    assert_eq!(
        snapshots(&cache).len(),
        1,
        "a session written lately keeps its reader"
    );
    append(&path, &lines[200]);
    let r = update(&mut ix, &root);
    assert_eq!(
        (r.appended, r.resumed),
        (1, 1),
        "the first appended line is read on from the reader its first index kept"
    );
    assert_eq!(
        diff(
            &answers(&ix, &root, &file, ID),
            &fresh(&root, &file, ID),
            ""
        ),
        None,
        "and answered as a fresh index"
    );
}
