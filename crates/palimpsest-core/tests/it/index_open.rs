//! Opening the fleet index: a file of another version is emptied and built again, and any
//! number of openers at once (the window's threads, a CLI run beside the app) share one index.

use std::path::{Path, PathBuf};

use palimpsest_core::api::DiagnoseOptions;
use palimpsest_core::index::Index;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn opts() -> DiagnoseOptions {
    DiagnoseOptions::default()
}

#[test]
fn an_index_of_another_version_is_rebuilt() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("index.db");
    {
        let c = rusqlite::Connection::open(&db).unwrap();
        c.execute_batch(
            "CREATE TABLE sessions(x); CREATE INDEX old_ix ON sessions(x);
             CREATE VIRTUAL TABLE parts USING fts5(text);
             INSERT INTO parts VALUES ('an old row'); PRAGMA user_version = 0;",
        )
        .unwrap();
    }
    let mut ix = Index::open(&db).unwrap();
    let r = ix
        .update(
            &[repo().join("fixtures/goose-stuck")],
            &opts(),
            &mut |_, _| {},
        )
        .unwrap();
    assert!(
        r.added > 0 && r.unchanged == 0,
        "an old-version file is dropped and built again: {r:?}"
    );
    drop(ix);
    let c = rusqlite::Connection::open(&db).unwrap();
    let count = |sql: &str| c.query_row(sql, [], |r| r.get::<_, i64>(0)).unwrap();
    assert_eq!(
        (
            count("SELECT count(*) FROM sqlite_master WHERE name = 'old_ix'"),
            count("SELECT count(*) FROM parts WHERE text = 'an old row'")
        ),
        (0, 0),
        "the old file's index and full-text rows went with it"
    );
}

/// The window's threads (and a CLI run beside the app) open the index at once, the first time
/// on a fresh cache dir too: each gets the same working index, and none empties another's.
#[test]
fn many_first_opens_at_once_share_one_index() {
    for round in 0..10 {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("cache/index.db");
        let barrier = std::sync::Barrier::new(6);
        let added: Vec<usize> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..6)
                .map(|i| {
                    let (db, barrier) = (&db, &barrier);
                    s.spawn(move || {
                        barrier.wait();
                        let mut ix = Index::open(db)?;
                        if i == 0 {
                            let goose = repo().join("fixtures/goose-stuck");
                            Ok(ix.update(&[goose], &opts(), &mut |_, _| {})?.added)
                        } else {
                            Ok(0)
                        }
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    let got: palimpsest_core::Result<usize> = h.join().unwrap();
                    got.unwrap_or_else(|e| panic!("round {round}: every opener succeeds: {e}"))
                })
                .collect()
        });
        let again = Index::open(&db)
            .unwrap()
            .update(
                &[repo().join("fixtures/goose-stuck")],
                &opts(),
                &mut |_, _| {},
            )
            .unwrap();
        assert_eq!(
            (again.added, again.unchanged),
            (0, added[0]),
            "round {round}: what the first opener indexed stayed in the file the others opened"
        );
    }
}

/// The window opens the index for each answer while an update may hold its write lock for
/// seconds: an index of this version opens with reads alone and answers at once.
#[test]
fn an_index_opens_while_an_update_holds_its_write_lock() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("index.db");
    let goose = repo().join("fixtures/goose-stuck");
    Index::open(&db)
        .unwrap()
        .update(std::slice::from_ref(&goose), &opts(), &mut |_, _| {})
        .unwrap();
    let cache = dir.path().join("tokens");
    drop(palimpsest_core::tokens::TokenCache::open(&cache).unwrap());
    let writers: Vec<rusqlite::Connection> = [
        db.clone(),
        cache.join(palimpsest_core::tokens::cache::FILE_NAME),
    ]
    .iter()
    .map(|f| {
        let w = rusqlite::Connection::open(f).unwrap();
        w.execute_batch("BEGIN IMMEDIATE").unwrap();
        w
    })
    .collect();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let prices = palimpsest_core::cost::PriceTable::bundled();
        let ix = Index::open(&db).map(|ix| {
            ix.fleet(&[goose], Vec::new(), prices)
                .map(|f| f.sessions.len())
        });
        let counts = palimpsest_core::tokens::TokenCache::open(&cache).map(|c| c.len());
        let _ = tx.send((ix.map(|r| r.ok()).ok(), counts.ok()));
    });
    // A reader that waited for the lock would wait out its busy timeout (60 s, 5 s) first.
    let got = rx.recv_timeout(std::time::Duration::from_secs(4));
    drop(writers);
    let (fleet, counts) = got.expect("both open while the writers hold their locks");
    assert!(
        matches!(fleet, Some(Some(n)) if n > 0),
        "the index answers from what it holds: {fleet:?}"
    );
    assert!(
        matches!(counts, Some(Ok(_))),
        "the token cache opens: {counts:?}"
    );
}
