//! An index update takes a session its caller read already (the app's copy of a 2 GB
//! transcript) instead of reading the file again, when the file is still as it was before that
//! read; once the file changed, the file is read. Proven with a copy that differs from the file
//! on purpose: only the copy can give its message count. A transcript the live follower read on
//! from its last offset is offered the same way, with the file's fingerprint after that read.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use palimpsest_core::api::{self, DiagnoseOptions};
use palimpsest_core::index::fingerprint::Fingerprint;
use palimpsest_core::index::{Given, Index};
use palimpsest_core::model::Session;
use palimpsest_core::watch::{Patch, Tracker};

const ID: &str = "258c7280-ae70-4798-800f-63464d01a85d";

/// The real transcript copied into a folder of its own, as the file the app was given.
fn transcript() -> (tempfile::TempDir, PathBuf) {
    let t = tempfile::tempdir().unwrap();
    let file = t.path().join(format!("{ID}.jsonl"));
    let real = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/real/claude-code")
        .join(format!("{ID}.jsonl"));
    std::fs::copy(real, &file).unwrap();
    (t, file.canonicalize().unwrap())
}

/// The rows the index at `db` holds for the transcript after an update given `copy`.
fn indexed_rows(db: &Path, file: &Path, given: Vec<Given>) -> (usize, String) {
    let mut ix = Index::open(db).unwrap();
    let report = api::index_update_given(
        &mut ix,
        &[file.to_owned()],
        &DiagnoseOptions::default(),
        &given,
    )
    .unwrap();
    assert_eq!(
        report.added, 1,
        "the transcript is new to this index: {report:?}"
    );
    let t = palimpsest_core::service::cache::timeline_indexed(&ix, file, Some(ID))
        .unwrap()
        .expect("the index answers for the file as it is");
    (t.total_rows, t.meta.path)
}

#[test]
fn an_update_takes_the_callers_copy_while_the_file_is_as_read() {
    let (dir, file) = transcript();
    let (whole, print) = api::load_session_printed(&file, Some(ID)).unwrap();
    let print = print.expect("a file is fingerprinted before it is read");
    let count = whole.messages.len();
    assert!(
        count > 40,
        "the real transcript has more than 40 messages ({count})"
    );
    // A copy no read of the file can give: its first 40 messages.
    let mut copy = whole;
    copy.messages.truncate(40);
    // Given by another spelling of the same path: the index keys files canonically.
    let spelled = dir.path().join(".").join(format!("{ID}.jsonl"));
    let given = |print| Given {
        file: spelled.clone(),
        id: ID.to_owned(),
        print,
        session: Arc::new(copy.clone()),
    };
    let (rows, path) = indexed_rows(
        &dir.path().join("a/index.db"),
        &file,
        vec![given(print.clone())],
    );
    assert_eq!(
        rows, 40,
        "the file unchanged since the read: the index holds the copy it was given"
    );
    assert_eq!(
        path,
        file.display().to_string(),
        "the copy is named by the file as the index's own read names it"
    );

    // A line appended after the read: the copy is stale, and the file is read again.
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&file)
        .unwrap();
    writeln!(f, "{{\"type\":\"user\",\"uuid\":\"u-after\",\"parentUuid\":null,\"sessionId\":\"{ID}\",\"message\":{{\"role\":\"user\",\"content\":\"appended after the read\"}},\"timestamp\":\"2026-02-11T22:00:00.000Z\"}}").unwrap();
    drop(f);
    let (rows, _) = indexed_rows(&dir.path().join("b/index.db"), &file, vec![given(print)]);
    assert_eq!(
        rows,
        count + 1,
        "the file changed since the read: the index reads it, the appended message included"
    );
}

/// Append `text` to `file`, let `tracker` look, and return the one patch it makes.
fn grow(tracker: &mut Tracker, file: &Path, text: &str) -> Patch {
    let mut f = std::fs::OpenOptions::new().append(true).open(file).unwrap();
    f.write_all(text.as_bytes()).unwrap();
    drop(f);
    tracker.refresh();
    let mut patches = tracker.take_patches();
    assert_eq!(patches.len(), 1, "one session changed: one patch");
    patches.remove(0)
}

#[test]
fn a_transcript_followed_live_is_offered_to_the_index_as_read_on_from_its_last_offset() {
    let (dir, file) = transcript();
    let lines: Vec<String> = std::fs::read_to_string(&file)
        .unwrap()
        .lines()
        .map(|l| format!("{l}\n"))
        .collect();
    // The follower starts on the first 1 100 lines (those after 1 255 reach back to earlier
    // messages, and the file is read whole there).
    std::fs::write(&file, lines[..1100].concat()).unwrap();
    let mut tracker = Tracker::new(dir.path(), None).unwrap();
    tracker.keep_patches();
    grow(&mut tracker, &file, &lines[1100..1110].concat());
    let patch = grow(&mut tracker, &file, &lines[1110..1130].concat());
    assert!(
        matches!(patch, Patch::Tail(_)),
        "the second change is read on from the last offset, not read whole"
    );
    let printed = patch
        .printed()
        .expect("the read reached the file's end: the file as read is fingerprinted")
        .clone();
    assert_eq!(
        Some(&printed.print),
        Fingerprint::of(&file).ok().as_ref(),
        "the fingerprint is the file's as it is now, the 30 appended lines included"
    );
    // A copy no read of the file gives (the follower's, cut to 40 messages): held by the index
    // only if the follower's fingerprint lets the index take the copy instead of the file.
    let mut copy = Session::clone(&patch.current().unwrap().now());
    copy.messages.truncate(40);
    let given = Given {
        file: PathBuf::from(&printed.file),
        id: ID.to_owned(),
        print: printed.print,
        session: Arc::new(copy),
    };
    let (rows, _) = indexed_rows(&dir.path().join("a/index.db"), &file, vec![given]);
    assert_eq!(
        rows, 40,
        "the index takes the follower's copy: the file is not read again"
    );

    // A whole line and half of the next: the read stops at the last line end, short of the
    // file's end, so what was read is not the file and nothing is offered.
    let half = &lines[1131][..lines[1131].len() / 2];
    let patch = grow(&mut tracker, &file, &format!("{}{half}", lines[1130]));
    assert!(
        patch.printed().is_none(),
        "a line still being written leaves the read short of the file: no fingerprint"
    );
}
