//! A session opened from the fleet index: on real transcripts (`fixtures/real`) the rows the
//! index gives are those loading the file gives, with each message's BPE tokens; a changed file
//! is not answered from the index until it is indexed again, and a compaction appended to an
//! indexed transcript changes what the index says the model sees of the earlier messages.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use palimpsest_core::api::{self, DiagnoseOptions};
use palimpsest_core::index::{AsOf, Index};
use palimpsest_core::tokens::{Encoding, count_session};
use palimpsest_core::views::timeline::Timeline;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn claude_data() -> PathBuf {
    repo().join("fixtures/real/claude-code")
}

/// The timeline with its rows' token counts taken off (a file's rows carry none).
fn without_tokens(mut t: Timeline) -> Timeline {
    for r in &mut t.rows {
        r.tokens = None;
    }
    t.from_index = false;
    t
}

fn update(ix: &mut Index, root: &Path) -> palimpsest_core::index::IndexReport {
    ix.update(
        &[root.to_owned()],
        &DiagnoseOptions::default(),
        &mut |_, _| {},
    )
    .unwrap()
}

#[test]
fn every_transcript_opens_from_the_index_as_its_file_reads() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("home");
    palimpsest_fixtures::copy_tree(&repo().join("fixtures/real"), &root, &[]).unwrap();
    palimpsest_fixtures::copy_tree(
        &repo().join("fixtures/goose-stuck"),
        &root.join("goose"),
        &[],
    )
    .unwrap();
    let root = root.canonicalize().unwrap();
    let mut ix = Index::open(&t.path().join("cache/index.db")).unwrap();
    update(&mut ix, &root);
    let catalog = palimpsest_core::sources::open(&root).unwrap();
    let (metas, _) = catalog.list();
    let (mut from_index, mut from_db) = (0, 0);
    for m in &metas {
        let session = catalog.load(&root, Some(&m.id)).unwrap();
        let Some(indexed) =
            palimpsest_core::service::cache::timeline_indexed(&ix, &root, Some(&m.id)).unwrap()
        else {
            // A database holds many sessions: its sessions are loaded, never answered here.
            assert!(
                palimpsest_core::index::fingerprint::is_sqlite(Path::new(&session.meta.path)),
                "{}: only database sessions are not answered from the index",
                m.id
            );
            from_db += 1;
            continue;
        };
        from_index += 1;
        assert!(
            indexed.from_index,
            "{}: the answer says where it came from",
            m.id
        );
        let encoding = Encoding::for_model(session.meta.model.as_deref());
        let counts = count_session(
            &session,
            encoding,
            None,
            &mut |_| {},
            &AtomicBool::new(false),
        )
        .unwrap()
        .per_message(&session);
        let tokens: Vec<u64> = indexed.rows.iter().map(|r| r.tokens.unwrap()).collect();
        assert_eq!(
            tokens, counts,
            "{}: each row carries its message's BPE tokens",
            m.id
        );
        // The window's first page: the first rows alone, counted among all of them.
        for limit in [1, 200, indexed.rows.len() + 5] {
            let head = palimpsest_core::service::cache::timeline_indexed_head(
                &ix,
                &root,
                Some(&m.id),
                AsOf::Same,
                limit,
            )
            .unwrap()
            .expect("a session the index answers for has a head");
            let n = limit.min(indexed.rows.len());
            assert_eq!(
                (head.total_rows, head.first_row, &head.rows[..], &head.meta),
                (indexed.rows.len(), 0, &indexed.rows[..n], &indexed.meta),
                "{}: the first {limit} rows are the timeline's first {n}, and all are counted",
                m.id
            );
        }
        assert_eq!(
            without_tokens(indexed),
            api::timeline(&session, None),
            "{}: the index's rows, meta and cuts are those the file gives",
            m.id
        );
    }
    assert_eq!(
        (from_index, from_db),
        (10, 1),
        "the ten Claude Code and Codex sessions open from the index; the goose database one does not"
    );
}

/// The real transcript written in a project folder under `dir` up to its compaction boundary
/// (line 1256): its file, the folder, what was written and the lines still to append.
fn before_its_cut(dir: &Path) -> (PathBuf, PathBuf, String, String) {
    let folder = dir.join("p");
    std::fs::create_dir_all(&folder).unwrap();
    let name = "258c7280-ae70-4798-800f-63464d01a85d.jsonl";
    let whole = std::fs::read_to_string(claude_data().join(name)).unwrap();
    let lines: Vec<&str> = whole.lines().collect();
    let before = lines[..1255].join("\n") + "\n";
    let rest = lines[1255..].join("\n") + "\n";
    let file = folder.join(name);
    std::fs::write(&file, &before).unwrap();
    (file, folder.canonicalize().unwrap(), before, rest)
}

#[test]
fn a_changed_transcript_is_read_again_until_it_is_indexed_and_a_late_cut_hides_earlier_rows() {
    let t = tempfile::tempdir().unwrap();
    let (file, root, _, rest) = before_its_cut(t.path());
    let mut ix = Index::open(&t.path().join("cache/index.db")).unwrap();
    update(&mut ix, &root);
    let id = "258c7280-ae70-4798-800f-63464d01a85d";
    let first = palimpsest_core::service::cache::timeline_indexed(&ix, &root, Some(id))
        .unwrap()
        .unwrap();
    let seen_before = first.rows.iter().filter(|r| r.agent_visible).count();
    assert_eq!(
        (first.rows.len(), first.compactions.len(), seen_before),
        (229, 0, 229),
        "before its compaction the model sees every stored message"
    );

    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&file)
        .unwrap();
    f.write_all(rest.as_bytes()).unwrap();
    drop(f);
    assert_eq!(
        palimpsest_core::service::cache::timeline_indexed(&ix, &root, Some(id)).unwrap(),
        None,
        "an appended file is not answered from the index: its rows there are old"
    );
    assert!(
        ix.listing(&file).unwrap().is_none(),
        "nor listed from it: its count there is old"
    );

    let report = update(&mut ix, &root);
    assert_eq!(
        (report.updated, report.appended),
        (1, 1),
        "the appended transcript is updated as an append"
    );
    let after = palimpsest_core::service::cache::timeline_indexed(&ix, &root, Some(id))
        .unwrap()
        .unwrap();
    let session = api::load_session(&file, Some(id)).unwrap();
    assert_eq!(
        without_tokens(after.clone()),
        api::timeline(&session, None),
        "after the update the index gives what the whole file gives"
    );
    let hidden = first
        .rows
        .iter()
        .zip(&after.rows)
        .filter(|(a, b)| a.agent_visible && !b.agent_visible)
        .count();
    assert_eq!(
        (after.compactions.len(), hidden),
        (1, 229),
        "the appended cut hides every earlier message from the model, and the index says so"
    );
}

#[test]
fn a_transcript_that_grew_shows_the_rows_indexed_until_it_is_read_and_a_rewritten_one_does_not() {
    let t = tempfile::tempdir().unwrap();
    let (file, root, before, rest) = before_its_cut(t.path());
    let id = "258c7280-ae70-4798-800f-63464d01a85d";
    let mut ix = Index::open(&t.path().join("cache/index.db")).unwrap();
    update(&mut ix, &root);
    let indexed = palimpsest_core::service::cache::timeline_indexed(&ix, &root, Some(id))
        .unwrap()
        .unwrap();
    let message = palimpsest_core::service::cache::message_indexed(&ix, &root, Some(id), 40)
        .unwrap()
        .unwrap();
    assert_eq!(
        palimpsest_core::service::cache::timeline_indexed_grown(&ix, &root, Some(id)).unwrap(),
        Some(indexed.clone()),
        "a file as it was indexed: the same rows, grown by nothing"
    );

    // An agent writes on: the compaction and everything after it.
    std::fs::OpenOptions::new()
        .append(true)
        .open(&file)
        .unwrap()
        .write_all(rest.as_bytes())
        .unwrap();
    let grown = palimpsest_core::service::cache::timeline_indexed_grown(&ix, &root, Some(id))
        .unwrap()
        .expect("a file that only grew is answered with the rows indexed");
    assert_eq!(
        (grown.grown_bytes, grown.rows.len()),
        (rest.len() as u64, 229),
        "the 229 rows indexed, and by how many bytes the file grew since"
    );
    let head = palimpsest_core::service::cache::timeline_indexed_head(
        &ix,
        &root,
        Some(id),
        AsOf::Grown,
        100,
    )
    .unwrap()
    .expect("a file that only grew has a head of the rows indexed");
    assert_eq!(
        (head.grown_bytes, head.total_rows, &head.rows[..]),
        (grown.grown_bytes, 229, &grown.rows[..100]),
        "the first page of a grown file: its first 100 indexed rows of 229, and by how much it grew"
    );
    assert_eq!(
        palimpsest_core::service::cache::timeline_indexed_head(
            &ix,
            &root,
            Some(id),
            AsOf::Same,
            100
        )
        .unwrap(),
        None,
        "a grown file has no head as indexed: that would be the file as it is"
    );
    assert_eq!(
        Timeline {
            grown_bytes: 0,
            unread_bytes: 0,
            ..grown
        },
        indexed,
        "otherwise the rows, listing and cuts are those indexed"
    );
    let json = |m: Option<palimpsest_core::views::MessageDetail>| serde_json::to_value(m).unwrap();
    assert_eq!(
        json(
            palimpsest_core::service::cache::message_indexed_grown(&ix, &root, Some(id), 40)
                .unwrap()
        ),
        json(Some(message)),
        "an indexed message is read back by its offsets, which the append left in place"
    );
    let (metas, _) = ix
        .listing_as_of(&file, palimpsest_core::index::AsOf::Grown)
        .unwrap()
        .expect("listed as indexed");
    assert_eq!(
        metas.iter().map(|m| m.message_count).collect::<Vec<_>>(),
        [229],
        "the listing as indexed: the window counts the session again once it is read"
    );
    assert!(
        palimpsest_core::service::cache::message_indexed_grown(&ix, &root, Some(id), 229)
            .unwrap()
            .is_none(),
        "a message written since is not in the index: it waits for the session"
    );

    // The same bytes with one character of the indexed part changed: not an append.
    let mut rewritten = std::fs::read(&file).unwrap();
    let at = before.len() - 10;
    rewritten[at] = if rewritten[at] == b'x' { b'y' } else { b'x' };
    std::fs::write(&file, &rewritten).unwrap();
    assert_eq!(
        (
            palimpsest_core::service::cache::timeline_indexed_grown(&ix, &root, Some(id)).unwrap(),
            ix.listing_as_of(&file, palimpsest_core::index::AsOf::Grown)
                .unwrap(),
        ),
        (None, None),
        "a file whose indexed bytes changed is read afresh, never shown from the index"
    );
    // Shorter than indexed: read afresh too.
    std::fs::write(&file, &before[..before.len() / 2]).unwrap();
    assert_eq!(
        palimpsest_core::service::cache::timeline_indexed_grown(&ix, &root, Some(id)).unwrap(),
        None,
        "a file shorter than indexed is read afresh"
    );
}
