//! A Claude Code reader written to a snapshot and read back (`resume::saved`), as a later
//! process does: the real 258c7280 transcript grown in steps, each step read by a reader
//! restored from the last step's snapshot, reads as the whole file does, and resumes from
//! where the snapshot stopped; a snapshot cut short, damaged, of another file or written by
//! another build of the reader is refused with an error naming it.

use std::path::Path;

use palimpsest_core::api;
use palimpsest_core::model::Session;
use palimpsest_core::sources;
use palimpsest_core::sources::claude::resume::{Extended, Resumable};

use super::claude_resume::{ID, append, real};

fn save(r: &Resumable) -> Vec<u8> {
    let mut out = Vec::new();
    r.save(&mut out).expect("a reader is written");
    out
}

/// The Claude Code reader in `bytes`, as the index reads one back.
fn restore(bytes: &[u8], path: &Path) -> palimpsest_core::Result<Resumable> {
    read_back(bytes, path, ID)
}

fn read_back(bytes: &[u8], path: &Path, id: &str) -> palimpsest_core::Result<Resumable> {
    match sources::Resumable::restore(&mut &bytes[..], Path::new("/cache/snap"), path, id)? {
        sources::Resumable::Claude(r) => Ok(*r),
        sources::Resumable::Codex(_) => panic!("a Claude Code reader was written"),
    }
}

fn whole(path: &Path) -> Session {
    api::load_session(path, Some(ID)).unwrap()
}

#[test]
fn a_restored_reader_goes_on_from_its_offset_and_reads_as_the_whole_file() {
    let lines = real();
    let t = tempfile::tempdir().unwrap();
    let path = t.path().join(format!("{ID}.jsonl"));
    std::fs::write(&path, lines[..200].concat()).unwrap();
    let first = Resumable::open(&path, ID, None).unwrap();
    let mut snap = save(&first);
    let back = restore(&snap, &path).expect("its own snapshot is read back");
    assert_eq!(
        *back.session(),
        *first.session(),
        "read back, the session is the one written"
    );
    assert_eq!(
        back.offset(),
        first.offset(),
        "and it stops where the read stopped"
    );
    drop(back);

    // One line, then ten, each read by a reader restored from the last snapshot, beside the
    // reader that never left memory.
    let mut kept = first;
    for (step, from) in [(200..201, 38), (201..211, 38)] {
        append(&path, &lines[step.clone()].concat());
        let mut r = restore(&snap, &path).unwrap();
        let ext = r.extend().unwrap().expect("an appended file is resumed");
        assert_eq!(
            ext,
            kept.extend().unwrap().expect("resumed in memory"),
            "after lines {step:?} the restored reader changes what the one in memory does"
        );
        assert_eq!(
            ext,
            Extended::From(from),
            "lines {step:?} change messages from {from} on (a later block of the last \
             response, and new ones): read from there, not from the first line"
        );
        assert_eq!(
            *r.session(),
            whole(&path),
            "after lines {step:?}: as the whole file reads"
        );
        snap = save(&r);
    }

    // The rest holds the compaction: read whole again, then saved and resumed as before.
    append(&path, &lines[211..lines.len() - 5].concat());
    let mut r = restore(&snap, &path).unwrap();
    assert_eq!(
        r.extend().unwrap(),
        Some(Extended::Whole),
        "a compaction changes earlier messages: the restored reader reads the file whole"
    );
    assert_eq!(
        *r.session(),
        whole(&path),
        "the compaction: as the whole file reads"
    );
    let snap = save(&r);
    append(&path, &lines[lines.len() - 5..].concat());
    let mut r = restore(&snap, &path).unwrap();
    r.extend().unwrap().expect("resumed past the compaction");
    let s = r.session();
    assert_eq!(
        *s,
        whole(&path),
        "the last five lines: as the whole file reads"
    );
    assert_eq!(
        (
            s.messages.len(),
            s.compactions.len(),
            s.compactions[0].cut_index
        ),
        (349, 1, 229),
        "all 349 messages and the cut at 229, as the transcript has them"
    );
}

#[test]
fn a_snapshot_that_is_not_whole_or_not_this_files_is_refused() {
    let lines = real();
    let t = tempfile::tempdir().unwrap();
    let path = t.path().join(format!("{ID}.jsonl"));
    std::fs::write(&path, lines[..120].concat()).unwrap();
    let snap = save(&Resumable::open(&path, ID, None).unwrap());
    let refused = |bytes: &[u8], file: &Path, id: &str| -> String {
        match read_back(bytes, file, id) {
            Ok(_) => panic!("a bad snapshot was taken"),
            Err(e) => e.to_string(),
        }
    };
    let short = refused(&snap[..snap.len() - 3], &path, ID);
    assert!(
        short.contains("/cache/snap") && short.contains("cut short"),
        "a snapshot cut short is refused, naming it: {short}"
    );
    let mut damaged = snap.clone();
    let mid = damaged.len() / 2;
    damaged[mid] ^= 0x55;
    let e = refused(&damaged, &path, ID);
    assert!(
        e.contains("/cache/snap") && e.contains("not a usable snapshot"),
        "a damaged snapshot is refused: {e}"
    );
    let other = refused(&snap, &t.path().join("other.jsonl"), ID);
    assert!(
        other.contains(&format!("it is of session {ID} of {}", path.display())),
        "another file's snapshot is refused, saying whose it is: {other}"
    );
    // Another build of the reader (its version, then a hash of its sources, in the header).
    let tag = format!("{}+", env!("CARGO_PKG_VERSION"));
    let at = snap
        .windows(tag.len())
        .position(|w| w == tag.as_bytes())
        .expect("the header names the build");
    let mut other_build = snap.clone();
    other_build[at + tag.len()] ^= 1;
    let e = refused(&other_build, &path, ID);
    assert!(
        e.contains("written by build"),
        "another build's snapshot is refused, whatever it holds: {e}"
    );
    let id = refused(&snap, &path, "another-id");
    assert!(
        id.contains("it is of session"),
        "another session's too: {id}"
    );
}
