//! A Codex rollout read from where the last read stopped (`sources::codex::resume`), by a
//! reader restored from a snapshot as a later process restores it: every fixture rollout (both
//! compaction styles, an unanswered call, a damaged line) cut after each of its lines and the
//! rest appended, and the real rollout in `fixtures/real` grown 20 lines at a time, read as
//! the whole file reads; and the first changed message each read reports is one before which
//! nothing changed.

use std::io::Write;
use std::path::{Path, PathBuf};

use palimpsest_core::api;
use palimpsest_core::model::Session;
use palimpsest_core::sources;
use palimpsest_core::sources::codex::resume::Resumable;

/// The lines of `path`, each with its line end.
pub(crate) fn lines_of(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| format!("{l}\n"))
        .collect()
}

fn whole(path: &Path) -> Session {
    api::load_session(path, None).unwrap()
}

fn append(path: &Path, text: &str) {
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    f.write_all(text.as_bytes()).unwrap();
}

/// Read back what `r` keeps, as a later process does.
fn again(r: &Resumable, path: &Path, id: &str) -> Resumable {
    let mut bytes = Vec::new();
    r.save(&mut bytes).expect("a reader is written");
    match sources::Resumable::restore(&mut &bytes[..], Path::new("/cache/snap"), path, id)
        .expect("its own snapshot is read back")
    {
        sources::Resumable::Codex(r) => *r,
        sources::Resumable::Claude(_) => panic!("a Codex reader was written"),
    }
}

/// `lines` written up to `cut`, the rest appended in `steps`-line steps, each read by a reader
/// restored from the last one's snapshot: after each step, the whole file's session, and no
/// message before the first one the read reports changed differs from before the step.
fn grow(lines: &[String], cut: usize, steps: usize, name: &str) {
    let t = tempfile::tempdir().unwrap();
    let path = t
        .path()
        .join(format!("rollout-2026-02-24T10-00-00-{name}.jsonl"));
    std::fs::write(&path, lines[..cut].concat()).unwrap();
    let mut before = whole(&path);
    let id = before.meta.id.clone();
    let mut r = Resumable::open(&path, &id).unwrap();
    assert_eq!(
        *r.session(),
        before,
        "{name}, {cut} lines: the first read is the whole read"
    );
    let mut at = cut;
    while at < lines.len() {
        let next = (at + steps).min(lines.len());
        append(&path, &lines[at..next].concat());
        r = again(&r, &path, &id);
        let from = r.extend().unwrap().expect("an appended rollout is resumed");
        let now = whole(&path);
        assert_eq!(
            *r.session(),
            now,
            "{name}, lines {at}..{next}: as the whole file reads"
        );
        let k = from.min(before.messages.len());
        assert_eq!(
            now.messages[..k],
            before.messages[..k],
            "{name}, lines {at}..{next}: the messages before {from}, reported unchanged, are"
        );
        (before, at) = (now, next);
    }
}

fn fixtures() -> Vec<PathBuf> {
    let day =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/codex/sessions/2026/02/24");
    let mut v: Vec<PathBuf> = std::fs::read_dir(day)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    v.sort();
    v
}

#[test]
fn every_fixture_rollout_cut_after_any_line_reads_on_as_the_whole_file() {
    let files = fixtures();
    assert_eq!(files.len(), 4, "the four fixture rollouts");
    let mut cuts = 0;
    for f in &files {
        let lines = lines_of(f);
        let name = f.file_stem().unwrap().to_string_lossy().into_owned();
        for cut in 1..lines.len() {
            grow(&lines, cut, lines.len(), &name);
            cuts += 1;
        }
    }
    assert_eq!(
        cuts, 55,
        "after every one of the 59 lines but each file's last"
    );
}

#[test]
fn the_real_rollout_grown_twenty_lines_at_a_time_reads_as_the_whole_file() {
    let real = Path::new(env!("CARGO_MANIFEST_DIR")).join(
        "../../fixtures/real/codex/rollout-2025-10-23T11-40-21-019a0e82-73d6-7592-88a6-48d49534d91b.jsonl",
    );
    let lines = lines_of(&real);
    assert_eq!(lines.len(), 274, "the real rollout's lines");
    grow(&lines, 20, 20, "019a0e82-73d6-7592-88a6-48d49534d91b");
}

#[test]
fn a_rollout_rewritten_in_place_is_not_resumed() {
    let lines = lines_of(&fixtures()[0]);
    let t = tempfile::tempdir().unwrap();
    let path = t.path().join("rollout-2026-02-24T10-00-00-x.jsonl");
    std::fs::write(&path, lines[..10].concat()).unwrap();
    let id = whole(&path).meta.id;
    let mut r = Resumable::open(&path, &id).unwrap();
    std::fs::write(&path, lines[..5].concat()).unwrap();
    assert_eq!(
        r.extend().unwrap(),
        None,
        "a shorter file is read again, not resumed"
    );
}
