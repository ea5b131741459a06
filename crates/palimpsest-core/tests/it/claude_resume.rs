//! A Claude Code transcript followed live and read only from where the last read stopped
//! (`sources::claude::resume`): the real 258c7280 transcript written out in steps — a first
//! part, one line, a line torn in two, then the rest with its compaction — gives after every
//! step exactly the session a whole read of the file gives; a file rewritten in place is not
//! resumed.

use std::io::Write;
use std::path::{Path, PathBuf};

use palimpsest_core::api;
use palimpsest_core::model::Session;
use palimpsest_core::sources::claude::resume::{Extended, Resumable};

pub(crate) const ID: &str = "258c7280-ae70-4798-800f-63464d01a85d";

/// The real transcript's lines, each with its line end.
pub(crate) fn real() -> Vec<String> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/real/claude-code")
        .join(format!("{ID}.jsonl"));
    std::fs::read_to_string(p)
        .unwrap()
        .lines()
        .map(|l| format!("{l}\n"))
        .collect()
}

pub(crate) fn append(path: &Path, text: &str) {
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    f.write_all(text.as_bytes()).unwrap();
}

/// The real transcript's first 200 lines in a project folder: the folder's owner, the folder,
/// the file and all the lines.
pub(crate) fn started() -> (tempfile::TempDir, PathBuf, PathBuf, Vec<String>) {
    let lines = real();
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("-home-u-proj");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{ID}.jsonl"));
    std::fs::write(&path, lines[..200].concat()).unwrap();
    (t, dir, path, lines)
}

/// What reading the file whole gives now.
fn whole(path: &Path) -> Session {
    api::load_session(path, Some(ID)).unwrap()
}

#[test]
fn each_step_of_a_growing_transcript_reads_as_the_whole_file() {
    let lines = real();
    let boundary = lines
        .iter()
        .position(|l| l.contains("\"compact_boundary\""))
        .expect("the transcript has a compact boundary");
    let t = tempfile::tempdir().unwrap();
    let path = t.path().join(format!("{ID}.jsonl"));
    std::fs::write(&path, lines[..100].concat()).unwrap();
    let mut r = Resumable::open(&path, ID, None).unwrap();
    assert_eq!(
        *r.session(),
        whole(&path),
        "the first read is the whole read"
    );
    let after_first = r.offset();

    assert_eq!(r.session().messages.len(), 22, "100 lines make 22 messages");
    append(&path, &lines[100]);
    let ext = r.extend().unwrap().expect("an appended file is resumed");
    assert_eq!(
        (ext, r.session().messages.len()),
        (Extended::From(22), 23),
        "line 101 adds message 22: only it is finished"
    );
    assert_eq!(
        *r.session(),
        whole(&path),
        "one line more: as the whole file reads"
    );
    assert!(r.offset() > after_first, "the read moved on");

    // A line still being written: its first half now, the rest later.
    let (a, b) = lines[101].split_at(lines[101].len() / 2);
    append(&path, a);
    r.extend().unwrap().expect("resumed");
    assert_eq!(
        *r.session(),
        whole(&path),
        "a torn last line is left out, as the whole read leaves it"
    );
    append(&path, b);
    r.extend().unwrap().expect("resumed");
    assert_eq!(*r.session(), whole(&path), "once whole, it is read");

    append(&path, &lines[102..].concat());
    let ext = r.extend().unwrap().expect("resumed");
    assert_eq!(
        ext,
        Extended::Whole,
        "lines holding a compaction are read whole again: they change earlier messages"
    );
    let s = Session::clone(&r.session());
    let full = whole(&path);
    assert_eq!(
        s, full,
        "the rest, compaction included: as the whole file reads"
    );
    assert_eq!(
        (
            s.messages.len(),
            s.compactions.len(),
            s.compactions[0].cut_index
        ),
        (349, 1, 229),
        "all 349 messages and the cut at 229 (line {})",
        boundary + 1
    );
    assert_eq!(
        s.messages.iter().filter(|m| m.agent_visible).count(),
        115,
        "the compaction appended last hid the messages before it from the model"
    );
}

#[test]
fn a_file_rewritten_in_place_is_not_resumed() {
    let lines = real();
    let t = tempfile::tempdir().unwrap();
    let path = t.path().join(format!("{ID}.jsonl"));
    std::fs::write(&path, lines[..50].concat()).unwrap();
    let mut r = Resumable::open(&path, ID, None).unwrap();
    std::fs::write(&path, lines[..40].concat()).unwrap();
    assert!(
        r.extend().unwrap().is_none(),
        "a shorter file is read again, not resumed"
    );
    let mut other = lines[..60].concat();
    other.replace_range(0..1, " ");
    std::fs::write(&path, other).unwrap();
    assert!(
        r.extend().unwrap().is_none(),
        "a longer file whose first bytes changed is read again, not resumed"
    );
}

#[test]
fn a_tracker_reports_each_append_once_and_its_patches_keep_a_copy_as_the_file_reads() {
    use palimpsest_core::watch::{Change, Tracker};
    let (_t, dir, path, lines) = started();
    let mut tracker = Tracker::new(&dir, None).unwrap();
    tracker.keep_patches();
    // A copy of the session kept as the app keeps it, patched after every change.
    let before_copy = whole(&path);
    let mut kept: Option<Session> = None;
    // Three appends: one line (a progress record: no message), then to line 301, then the
    // rest (microcompact, compaction). What the tracker says of each, as reading the whole file
    // before and after gives it; a message merged into an earlier one shows as a rewrite there.
    let expected: [(usize, &[&str]); 3] = [
        (201, &[]),
        (301, &["rewritten 38"]),
        (
            lines.len(),
            &["visibility 44", "rewritten 44", "compaction 229"],
        ),
    ];
    for (step, want) in expected {
        let before = std::fs::read_to_string(&path).unwrap().lines().count();
        append(&path, &lines[before..step].concat());
        let changes = tracker.refresh();
        let now = whole(&path);
        let kinds: Vec<String> = changes
            .iter()
            .map(|c| match c {
                Change::Appended { messages, .. } => format!("appended {}", messages[0].index),
                Change::Rewritten {
                    from_index,
                    messages,
                    ..
                } => {
                    assert_eq!(
                        messages[..],
                        now.iter().skip(*from_index).cloned().collect::<Vec<_>>(),
                        "up to line {step}: the rewritten messages are the file's from there"
                    );
                    format!("rewritten {from_index}")
                }
                Change::VisibilityChanged { messages, .. } => {
                    format!("visibility {}", messages.len())
                }
                Change::Compaction { record, .. } => format!("compaction {}", record.cut_index),
                other => format!("{other:?}"),
            })
            .collect();
        assert_eq!(
            kinds, want,
            "up to line {step}: what changed, once, in order"
        );
        let patches = tracker.take_patches();
        assert_eq!(
            patches.len(),
            1,
            "what changed in the one session, handed over"
        );
        let mut copy = kept.take().unwrap_or_else(|| before_copy.clone());
        assert!(
            patches[0].apply(&mut copy),
            "the patch fits the copy it follows"
        );
        assert_eq!(
            copy, now,
            "up to line {step}: the copy patched is what reading the whole file gives"
        );
        kept = Some(copy);
    }
    assert!(tracker.take_patches().is_empty(), "taken once");
}

#[test]
fn a_followed_transcripts_node_per_message_stays_small() {
    // The reader keeps one node per message for as long as a transcript is followed live:
    // 264 000 of them for a 2 GB one. 208 bytes when the compaction metadata was held inline.
    assert_eq!(
        std::mem::size_of::<palimpsest_core::sources::claude::build::Node>(),
        120,
        "a node holds its rare parts (compaction metadata, subtype, logical parent) boxed"
    );
}
