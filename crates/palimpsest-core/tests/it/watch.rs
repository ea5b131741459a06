//! Watching sessions while a writer process appends, loops and compacts: every message is
//! reported exactly once and in order, the cut appears, no problem is reported, and the watched
//! files are byte for byte what the writer alone produces (the watcher writes nothing).

use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use palimpsest_core::model::{Message, Trigger};
use palimpsest_core::watch::{Change, FsWatch, Tracker};
use palimpsest_fixtures::live::{self, Opts};

fn opts(dir: &Path) -> Opts {
    std::fs::create_dir_all(dir.join("goose")).unwrap();
    std::fs::create_dir_all(dir.join("claude")).unwrap();
    Opts {
        goose: Some(dir.join("goose/sessions.db")),
        claude: Some(dir.join("claude/live.jsonl")),
        rate: 40.0,
        turns: 3,
        compact_after: 2,
    }
}

/// Run the writer in a thread while watching `dir`; return every change seen, in order.
fn watch_while_writing(dir: &Path) -> Vec<Change> {
    let o = opts(dir);
    let mut tracker = Tracker::new(dir, None).expect("an empty folder is watchable");
    let fs = FsWatch::new(&[dir.to_owned()]).expect("inotify is available");
    let (done_tx, done_rx) = mpsc::channel();
    let writer = std::thread::spawn(move || {
        live::run(&o, |_| {}).expect("the writer runs");
        done_tx.send(()).unwrap();
    });
    let mut changes = Vec::new();
    loop {
        fs.wait(Duration::from_millis(200));
        changes.extend(tracker.refresh());
        if done_rx.try_recv().is_ok() {
            changes.extend(tracker.refresh());
            break;
        }
    }
    writer.join().unwrap();
    changes
}

fn appended_for<'a>(changes: &'a [Change], id: &str) -> Vec<&'a Message> {
    changes
        .iter()
        .filter_map(|c| match c {
            Change::Appended {
                session_id,
                messages,
            } if session_id == id => Some(messages.iter()),
            _ => None,
        })
        .flatten()
        .collect()
}

#[test]
fn live_goose_and_claude_are_followed_exactly_once_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let changes = watch_while_writing(dir.path());

    let problems: Vec<_> = changes
        .iter()
        .filter(|c| matches!(c, Change::Problem { .. }))
        .collect();
    assert!(
        problems.is_empty(),
        "a line being written must be waited for, not reported: {problems:?}"
    );
    let rewrites: Vec<_> = changes
        .iter()
        .filter(|c| matches!(c, Change::Rewritten { .. }))
        .collect();
    assert!(
        rewrites.is_empty(),
        "goose's delete-and-reinsert compaction must not look like a rewrite: {rewrites:?}"
    );

    let goose = appended_for(&changes, "live-1");
    let indices: Vec<usize> = goose.iter().map(|m| m.index).collect();
    assert_eq!(
        indices,
        (0..18).collect::<Vec<_>>(),
        "10 originals, summary, continuation, copy, 5 more: once each, in order"
    );
    let texts: Vec<String> = goose.iter().map(|m| m.text()).collect();
    assert!(
        texts[10].starts_with("summary 2:"),
        "the summary follows the originals, got {:?}",
        texts[10]
    );
    assert_eq!(
        texts[12], "turn 1: add a retry to fetch_rows in store.py",
        "the preserved ask is re-appended"
    );
    assert_eq!(
        texts[13], "turn 2: add a retry to fetch_rows in store.py",
        "the next turn continues after the cut"
    );

    let cuts: Vec<_> = changes
        .iter()
        .filter_map(|c| match c {
            Change::Compaction { session_id, record } => {
                Some((session_id.as_str(), record.cut_index, record.trigger))
            }
            _ => None,
        })
        .collect();
    assert_eq!(cuts.len(), 2, "one cut per file: {cuts:?}");
    assert!(
        cuts.contains(&("live-1", 10, Some(Trigger::Auto))),
        "the goose cut lands on the summary: {cuts:?}"
    );

    let claude_id = "11111111-2222-4333-8444-555555555555";
    let claude = appended_for(&changes, claude_id);
    let final_claude =
        palimpsest_core::api::load_session(&dir.path().join("claude/live.jsonl"), None).unwrap();
    let want: Vec<usize> = final_claude.messages.iter().map(|m| m.index).collect();
    let got: Vec<usize> = claude.iter().map(|m| m.index).collect();
    assert_eq!(
        got, want,
        "every Claude message arrives once, in order, half-written lines waited for"
    );
    assert!(
        cuts.iter().any(|c| c.0 == claude_id),
        "the Claude boundary shows up as a cut: {cuts:?}"
    );
}

#[test]
fn watching_writes_nothing_to_the_agent_files() {
    let watched = tempfile::tempdir().unwrap();
    watch_while_writing(watched.path());
    let alone = tempfile::tempdir().unwrap();
    live::run(&opts(alone.path()), |_| {}).unwrap();
    for f in ["goose/sessions.db", "claude/live.jsonl"] {
        let a = std::fs::read(watched.path().join(f)).unwrap();
        let b = std::fs::read(alone.path().join(f)).unwrap();
        assert!(
            a == b,
            "{f} must be byte for byte what the writer alone produces ({} vs {} bytes)",
            a.len(),
            b.len()
        );
    }
}

#[test]
fn a_file_nobody_writes_is_not_announced_again_when_its_listing_comes_from_elsewhere() {
    // See: issue 45. About 11 s after a cold launch the window marked files nobody was writing
    // live and announced their cuts again (6/8/4/4 where there were 3/4/2/2): the tracker's
    // baseline was a listing read from the files, its next look a listing from the index just
    // built, and a session never loaded was reloaded and all its compactions reported anew.
    // A Codex rollout's listing counts its response items (9), its load the items a compaction
    // put back too (13): the two listings differ while the file does not.
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("sessions");
    palimpsest_fixtures::copy_tree(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/codex/sessions"),
        &dir,
        &[],
    )
    .unwrap();
    let machine = palimpsest_core::env::Machine::new(None, Some(t.path().join("cache")), None, []);
    palimpsest_core::env::with(machine, || {
        let mut tracker = Tracker::new(&dir, None).expect("watchable");
        let mut ix = palimpsest_core::index::Index::open_default().unwrap();
        ix.update(
            std::slice::from_ref(&dir),
            &palimpsest_core::api::DiagnoseOptions::default(),
            &mut |_, _| {},
        )
        .unwrap();
        assert_eq!(
            tracker.refresh(),
            [],
            "nothing was written: nothing is reported"
        );

        // Touched, not written: reloaded, and still nothing new.
        let remote = dir.join(
            "2026/02/24/rollout-2026-02-24T10-51-00-019c8f0a-0000-7000-8000-00000000a001.jsonl",
        );
        let text = std::fs::read(&remote).unwrap();
        std::thread::sleep(Duration::from_millis(20));
        std::fs::write(&remote, &text).unwrap();
        assert_eq!(
            tracker.refresh(),
            [],
            "the same messages and cuts are not new ones"
        );
    });
}

/// A goose database being written changes its `-wal` alone until a checkpoint: each committed
/// message is reported at the next refresh after its commit, not when the writer stops. (The
/// file's own size and time stay as they were, and a tracker that went by them alone reported
/// nothing until the end: the window showed a live worker's rows seconds late.)
#[test]
fn each_goose_commit_is_reported_at_the_next_refresh() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("goose")).unwrap();
    let o = Opts {
        goose: Some(dir.path().join("goose/sessions.db")),
        claude: None,
        rate: 1000.0,
        turns: 2,
        compact_after: 0,
    };
    let mut tracker = Tracker::new(dir.path(), None).expect("an empty folder is watchable");
    let mut per_commit: Vec<Vec<usize>> = Vec::new();
    live::run(&o, |w| {
        if let live::Written::Message { seq, .. } = w {
            let changes = tracker.refresh();
            let got: Vec<usize> = appended_for(&changes, "live-1")
                .iter()
                .map(|m| m.index)
                .collect();
            assert_eq!(
                got,
                vec![seq],
                "commit {seq} is reported at the refresh after it"
            );
            per_commit.push(got);
        }
    })
    .expect("the writer runs");
    assert_eq!(
        per_commit.len(),
        10,
        "two turns of five messages, each seen as it came"
    );
}
