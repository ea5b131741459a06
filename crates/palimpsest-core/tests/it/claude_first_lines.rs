//! The first screen of a big transcript no index holds: the rows of its first lines are the
//! rows the whole reader gives of a file cut after those lines (the same messages, kinds,
//! visibility and cuts), a little more than a screen of them, with the bytes left unread said;
//! a small file, or another format, is left to the whole read.

use std::path::Path;

use palimpsest_core::api;

const ID: &str = "258c7280-ae70-4798-800f-63464d01a85d";

#[test]
fn the_first_lines_of_a_big_transcript_are_a_cut_files_rows() {
    let real = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(format!("../../fixtures/real/claude-code/{ID}.jsonl"));
    let t = tempfile::tempdir().unwrap();
    let big = t.path().join(format!("{ID}.jsonl"));
    palimpsest_fixtures::big::grow(&real, &big, api::FIRST_LINES_FROM + (2 << 20)).unwrap();
    let size = std::fs::metadata(&big).unwrap().len();

    let first = api::timeline_first_lines(&big, ID, 200)
        .unwrap()
        .expect("a transcript of 16 MiB or more has its first lines read");
    assert_eq!(
        first.rows.len(),
        201,
        "the first messages past a screen of 200"
    );
    assert_eq!(
        first.total_rows, 201,
        "the rows read are all the window is told of until the whole read"
    );
    let read = size - first.unread_bytes;
    assert!(
        first.unread_bytes > 0 && read < 8 << 20,
        "a few of the file's bytes were read: {read} of {size}"
    );
    let bytes = std::fs::read(&big).unwrap();
    assert_eq!(
        bytes[read as usize - 1],
        b'\n',
        "the read ends at a line's end"
    );

    // Those lines alone, read as a file of their own by the whole reader.
    let cut = t.path().join("cut").join(format!("{ID}.jsonl"));
    std::fs::create_dir_all(cut.parent().unwrap()).unwrap();
    std::fs::write(&cut, &bytes[..read as usize]).unwrap();
    let whole = api::timeline(&api::load_session(&cut, Some(ID)).unwrap(), None);
    assert_eq!(
        first.rows, whole.rows,
        "each row is what the whole reader makes of those lines"
    );
    assert_eq!(first.compactions, whole.compactions, "and so are the cuts");
    assert_eq!(
        (first.meta.id.as_str(), first.meta.name.as_str()),
        (ID, whole.meta.name.as_str()),
        "the session is named as its head names it"
    );

    assert!(
        api::timeline_first_lines(&real, ID, 200).unwrap().is_none(),
        "a file under 16 MiB is read whole"
    );
    let codex = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/real/codex");
    assert!(
        api::timeline_first_lines(&codex, "019a0e82-73d6-7592-88a6-48d49534d91b", 200)
            .unwrap()
            .is_none(),
        "another format is read whole"
    );
}

/// The session a window opens first in a file, named without listing it: a transcript's one
/// conversation (its subagents' runs beside it aside); nothing for a folder or a database of
/// several sessions.
#[test]
fn a_files_one_conversation_is_named_before_it_is_listed() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let real = root.join(format!("fixtures/real/claude-code/{ID}.jsonl"));
    assert!(
        real.with_extension("").join("subagents").is_dir(),
        "the real transcript has subagents' runs beside it"
    );
    assert_eq!(
        api::first_conversation(&real).as_deref(),
        Some(ID),
        "a transcript names its conversation, not its subagents' runs"
    );
    let codex = root.join(
        "fixtures/real/codex/rollout-2025-10-23T11-40-21-019a0e82-73d6-7592-88a6-48d49534d91b.jsonl",
    );
    assert_eq!(
        api::first_conversation(&codex).as_deref(),
        Some("019a0e82-73d6-7592-88a6-48d49534d91b"),
        "a rollout names its session"
    );
    assert_eq!(
        api::first_conversation(&root.join("fixtures/goose-stuck/sessions.db")).as_deref(),
        Some("20260301_1"),
        "a database of one session names it"
    );
    assert_eq!(
        api::first_conversation(&root.join("fixtures/goose/sessions.db")),
        None,
        "a database of several sessions opens none before it is listed (which comes first is \
         the listing's order)"
    );
    assert_eq!(
        api::first_conversation(&root.join("fixtures/real/claude-code")),
        None,
        "nor does a folder"
    );
}
