//! An index update takes a session its caller read already (the app's copy of a 2 GB
//! transcript) instead of reading the file again, when the file is still as it was before that
//! read; once the file changed, the file is read. Proven with a copy that differs from the file
//! on purpose: only the copy can give its message count.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use palimpsest_core::api::{self, DiagnoseOptions};
use palimpsest_core::index::{Given, Index};

const ID: &str = "258c7280-ae70-4798-800f-63464d01a85d";

/// The real transcript copied into a folder of its own, as the file the app was given.
fn transcript() -> (tempfile::TempDir, PathBuf) {
    let t = tempfile::tempdir().unwrap();
    let file = t.path().join(format!("{ID}.jsonl"));
    let real = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data/claude-code")
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
    let t = api::timeline_indexed(&ix, file, Some(ID))
        .unwrap()
        .expect("the index answers for the file as it is");
    (t.total_rows, t.meta.path)
}

#[test]
fn an_update_takes_the_callers_copy_while_the_file_is_as_read() {
    require_shared!();
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
