//! The app's live feed (`follow`): while the writer appends to a goose database and compacts it,
//! a `Follower` over the folder reports the session once, every row once and in order as
//! timeline rows, the cut once, and no problem; every event names the source it came from.

use std::sync::mpsc;
use std::time::Duration;

use palimpsest_core::follow::{Follower, LiveEvent};
use palimpsest_fixtures::live::{self, Opts};

#[test]
fn follower_reports_the_writers_rows_once_in_order_with_the_cut() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("goose")).unwrap();
    let root = dir.path().to_string_lossy().into_owned();
    let mut f = Follower::new();
    f.add(&root).expect("an empty folder can be followed");
    f.add(&root).expect("adding it again is a no-op");
    assert_eq!(f.paths(), vec![root.as_str()], "a source is followed once");

    let o = Opts {
        goose: Some(dir.path().join("goose/sessions.db")),
        claude: None,
        rate: 40.0,
        turns: 3,
        compact_after: 2,
    };
    let (tx, rx) = mpsc::channel();
    let writer = std::thread::spawn(move || {
        live::run(&o, |_| {}).expect("the writer runs");
        tx.send(()).unwrap();
    });
    let mut events: Vec<LiveEvent> = Vec::new();
    loop {
        events.extend(f.poll(Duration::from_millis(200)));
        if rx.try_recv().is_ok() {
            events.extend(f.refresh());
            break;
        }
    }
    writer.join().unwrap();

    assert!(
        events.iter().all(|e| e.path() == root),
        "every event names the followed source"
    );
    let problems: Vec<_> = events
        .iter()
        .filter(|e| matches!(e, LiveEvent::Problem { .. }))
        .collect();
    assert!(
        problems.is_empty(),
        "no problem while following: {problems:?}"
    );
    let added: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            LiveEvent::SessionAdded { session, .. } => Some(session.id.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(added, ["live-1"], "the new session is announced once");
    let rows = appended_indices(&events);
    assert_eq!(
        rows,
        (0..18).collect::<Vec<_>>(),
        "18 rows (10 originals, summary, continuation, copy, 5 more), once each, in order"
    );
    let cuts: Vec<usize> = events
        .iter()
        .filter_map(|e| match e {
            LiveEvent::Compaction { record, .. } => Some(record.cut_index),
            _ => None,
        })
        .collect();
    assert_eq!(cuts, [10], "one cut, at the summary");
    // Applied in order, the events leave the 10 originals hidden from the model (a row written
    // and compacted between two looks arrives already hidden, so this is checked on the result).
    let mut seen_by_model = std::collections::BTreeMap::new();
    for e in &events {
        match e {
            LiveEvent::Appended { rows, .. } => {
                for r in rows {
                    seen_by_model.insert(r.index, r.agent_visible);
                }
            }
            LiveEvent::VisibilityChanged { rows, .. } => {
                for &(i, agent, _) in rows {
                    seen_by_model.insert(i, agent);
                }
            }
            _ => {}
        }
    }
    let hidden: Vec<usize> = seen_by_model
        .iter()
        .filter(|(_, v)| !**v)
        .map(|(i, _)| *i)
        .collect();
    assert_eq!(
        hidden,
        (0..10).collect::<Vec<_>>(),
        "after the compaction the model no longer sees the 10 originals, and sees the rest"
    );
}

/// The window lists a source and the watcher thread picks it up a moment later; a session
/// written in between must still be reported, so the baseline is taken before the listing
/// (`add_tracker`), not when the thread gets to it (`add`).
#[test]
fn a_baseline_taken_before_the_write_reports_what_was_written_before_following_began() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("goose")).unwrap();
    let root = dir.path().to_string_lossy().into_owned();
    let baseline = palimpsest_core::watch::Tracker::new(dir.path(), None).unwrap();
    let o = Opts {
        goose: Some(dir.path().join("goose/sessions.db")),
        claude: None,
        rate: 1000.0,
        turns: 3,
        compact_after: 2,
    };
    live::run(&o, |_| {}).expect("the writer runs");

    let mut late = Follower::new();
    late.add(&root).unwrap();
    assert!(
        late.refresh().is_empty(),
        "a baseline taken after the write sees nothing new"
    );

    let mut early = Follower::new();
    early.add_tracker(&root, baseline).unwrap();
    let events = early.refresh();
    let added = events
        .iter()
        .filter(|e| matches!(e, LiveEvent::SessionAdded { .. }))
        .count();
    let rows = appended_indices(&events);
    assert_eq!(
        added, 1,
        "the session written before following began is reported: {events:?}"
    );
    assert_eq!(
        rows,
        (0..18).collect::<Vec<_>>(),
        "with every one of its rows, once, in order"
    );
}

/// The message indices of every appended row, in the order they were reported.
fn appended_indices(events: &[LiveEvent]) -> Vec<usize> {
    events
        .iter()
        .filter_map(|e| match e {
            LiveEvent::Appended { rows, .. } => Some(rows.iter().map(|r| r.index)),
            _ => None,
        })
        .flatten()
        .collect()
}
