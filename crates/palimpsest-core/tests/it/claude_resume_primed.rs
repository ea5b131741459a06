//! A transcript read ahead for a tracker (`watch::Primed`, as the app does for the session it
//! shows): the tracker's first change is read on from there, not whole, and reports exactly what
//! a tracker that read it itself reports (a merge into a message read before included, which a
//! tracker that only listed the file cannot see). A read ahead of a later state than the tracker's
//! baseline is refused, so the changes in between are still reported.

use std::path::Path;

use palimpsest_core::api;
use palimpsest_core::watch::{Patch, Primed, Tracker};

use crate::claude_resume::{ID, append, started};

fn primed(path: &Path) -> Primed {
    let meta = api::list_sessions(path)
        .unwrap()
        .sessions
        .into_iter()
        .find(|m| m.id == ID)
        .expect("the transcript lists its session");
    Primed::read(&meta)
        .unwrap()
        .expect("a Claude Code transcript that holds still is read ahead")
}

#[test]
fn a_primed_tracker_reads_its_first_change_on_and_reports_it_as_one_that_read_it() {
    let (_t, dir, path, lines) = started();
    let mut ahead = Tracker::new(&dir, None).unwrap();
    // The twin remembers the session from its baseline (it follows this session only, so it
    // reads it up front): both know what each message held, so both see a merge into one.
    let mut plain = Tracker::new(&dir, Some(ID)).unwrap();
    ahead.keep_patches();
    plain.keep_patches();
    let read_ahead = primed(&path);
    let mut copy = api::load_session(&path, Some(ID)).unwrap();
    // The app's window takes its copy from the read ahead instead of loading the file again.
    assert_eq!(
        *read_ahead.session(),
        copy,
        "the session read ahead is the one loading it gives"
    );
    assert!(
        ahead.adopt(read_ahead),
        "nothing changed since the baseline: the read ahead is taken"
    );
    // Up to line 301, then the rest with its microcompact and compaction.
    for step in [301, lines.len()] {
        let before = std::fs::read_to_string(&path).unwrap().lines().count();
        append(&path, &lines[before..step].concat());
        let changes = ahead.refresh();
        assert_eq!(
            changes,
            plain.refresh(),
            "up to line {step}: the same changes as a tracker that read the file itself, a \
             response merged into message 38 included"
        );
        assert!(!changes.is_empty(), "up to line {step}: a change is seen");
        let patches = ahead.take_patches();
        if step == 301 {
            assert!(
                matches!(patches[..], [Patch::Tail(_)]),
                "the first change is read on from the read ahead: a tail, not the whole session"
            );
            assert!(
                matches!(plain.take_patches()[..], [Patch::Shared { .. }]),
                "without it the first change reads the file whole"
            );
        }
        assert!(patches[0].apply(&mut copy), "the patch fits the copy");
        assert_eq!(
            copy,
            api::load_session(&path, Some(ID)).unwrap(),
            "up to line {step}: the copy patched is the file read whole"
        );
    }
}

#[test]
fn a_read_ahead_of_a_later_state_than_the_baseline_is_refused() {
    let (_t, dir, path, lines) = started();
    let mut tracker = Tracker::new(&dir, None).unwrap();
    append(&path, &lines[200..301].concat());
    assert!(
        !tracker.adopt(primed(&path)),
        "the file grew after the baseline: taking the read ahead would skip that growth"
    );
    let changes = tracker.refresh();
    assert!(
        !changes.is_empty(),
        "the growth since the baseline is still reported"
    );
    assert!(
        !tracker.adopt(primed(&path)),
        "once the tracker read the session itself it keeps its own reader"
    );
}

/// The first index of the messages a batch of changes reports appended.
fn first_appended(changes: &[palimpsest_core::watch::Change]) -> Option<usize> {
    changes.iter().find_map(|c| match c {
        palimpsest_core::watch::Change::Appended { messages, .. } => {
            messages.first().map(|m| m.index)
        }
        _ => None,
    })
}

#[test]
fn a_tracker_started_from_the_index_waits_for_the_read_ahead_and_then_goes_on_from_it() {
    let (t, dir, path, lines) = started();
    let machine = palimpsest_core::env::Machine::new(None, Some(t.path().join("cache")), None, []);
    palimpsest_core::env::with(machine, || {
        let mut ix = palimpsest_core::index::Index::open_default().unwrap();
        ix.update(
            std::slice::from_ref(&dir),
            &api::DiagnoseOptions::default(),
            &mut |_, _| {},
        )
        .unwrap();
        let indexed = api::list_sessions_indexed(&path).unwrap().sessions[0].message_count;
        // The agent writes on after the index was made.
        append(&path, &lines[200..301].concat());
        let now = api::list_sessions(&path).unwrap().sessions[0].message_count;
        assert!(now > indexed, "the lines appended hold new messages");
        assert_eq!(
            api::list_grown_file(&path).map(|l| l.sessions[0].message_count),
            Some(indexed),
            "the index lists the grown file as it was indexed"
        );
        let long = std::time::Duration::from_secs(600);

        // While its read ahead is on its way, the session is not reloaded (it would be read
        // twice); handed over, the read ahead is taken though it is later than the baseline,
        // and the tracker goes on from it as one whose baseline was that read.
        let mut following = Tracker::following(&path, None, long).unwrap();
        assert_eq!(
            following.refresh(),
            [],
            "a refresh before the read ahead lands reports nothing and reads nothing"
        );
        let mut twin = Tracker::new(&path, None).unwrap();
        assert!(
            following.adopt(primed(&path)) && twin.adopt(primed(&path)),
            "a baseline from the index is replaced by the read ahead the window shows"
        );
        append(&path, &lines[301..340].concat());
        let changes = following.refresh();
        assert!(!changes.is_empty(), "the next lines are seen");
        assert_eq!(
            changes,
            twin.refresh(),
            "from the read ahead on, the same changes as a tracker whose baseline was that read"
        );

        // No read ahead within the wait: what was written since the index counts as new.
        let seen = api::list_sessions(&path).unwrap().sessions[0].message_count;
        let mut alone = Tracker::following(&path, None, std::time::Duration::ZERO).unwrap();
        let mut exact = Tracker::new(&path, None).unwrap();
        append(&path, &lines[340..400].concat());
        let (from_index, from_listing) = (alone.refresh(), exact.refresh());
        assert_eq!(
            (first_appended(&from_index), first_appended(&from_listing)),
            (Some(indexed), Some(seen)),
            "started from the index, every message after the indexed ones is reported; started \
             from a listing, those after the listing"
        );
    });
}
