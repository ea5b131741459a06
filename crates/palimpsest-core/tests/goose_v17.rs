//! goose schema 17 (fixtures/README.md, `goose/v17`): delegated sessions are children of the
//! message that delegated them, a compaction persisted in place reads exactly as one persisted
//! by delete-and-reinsert and is followed live as a visibility change, and the usage ledger's
//! compaction call gives the cut its recorded sizes.

use std::path::{Path, PathBuf};

use palimpsest_core::model::{LinkKind, Session, Trigger};
use palimpsest_core::watch::{Change, Tracker};
use palimpsest_core::{api, sources};
use palimpsest_fixtures::goose::v17::{
    self, BACKGROUND_CHILD, Compaction, DELEGATE_BACKGROUND, DELEGATE_SYNC, SYNC_CHILD, WORKER,
};

fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/goose/v17/sessions.db")
}

fn load(db: &Path, id: &str) -> Session {
    api::load_session(db, Some(id)).expect("the schema-17 database loads")
}

fn seen(s: &Session) -> Vec<usize> {
    s.messages
        .iter()
        .filter(|m| m.agent_visible)
        .map(|m| m.index)
        .collect()
}

#[test]
fn delegated_sessions_are_children_of_the_delegating_message() {
    let (metas, problems) = sources::open(&fixture()).unwrap().list();
    assert!(problems.is_empty(), "the database lists without problems");
    let mut parents: Vec<(&str, Option<&str>)> = metas
        .iter()
        .map(|m| (m.id.as_str(), m.parent_id.as_deref()))
        .collect();
    parents.sort();
    assert_eq!(
        parents,
        vec![
            (WORKER, None),
            (SYNC_CHILD, Some(WORKER)),
            (BACKGROUND_CHILD, Some(WORKER)),
        ],
        "the sync child by parent_session_id, the background one by the session its \
         parent_delegate_message_id names"
    );
    let s = load(&fixture(), WORKER);
    let links: Vec<(usize, Option<&str>, LinkKind, Option<&str>)> = s
        .messages
        .iter()
        .flat_map(|m| {
            m.links
                .iter()
                .map(move |l| (m.index, m.id.as_deref(), l.kind, l.session.as_deref()))
        })
        .collect();
    assert_eq!(
        links,
        vec![
            (
                21,
                Some(DELEGATE_SYNC),
                LinkKind::Subagent,
                Some(SYNC_CHILD)
            ),
            (
                23,
                Some(DELEGATE_BACKGROUND),
                LinkKind::Subagent,
                Some(BACKGROUND_CHILD)
            ),
        ],
        "each delegate call links the child session it started"
    );
    let d = &s.messages[23].details.as_ref().unwrap()["delegations"][0]["delegation"];
    assert_eq!(
        (
            d["execution_mode"].as_str(),
            d["result_delivered_to_parent"].as_bool()
        ),
        (Some("background"), Some(false)),
        "the message keeps the delegation as goose stored it"
    );
}

#[test]
fn an_in_place_compaction_reads_as_the_old_delete_and_reinsert() {
    let s = load(&fixture(), WORKER);
    let cuts: Vec<(usize, Option<Trigger>, Option<usize>)> = s
        .compactions
        .iter()
        .map(|c| (c.cut_index, c.trigger, c.summary_index))
        .collect();
    assert_eq!(
        cuts,
        vec![(25, Some(Trigger::Auto), Some(25))],
        "one compaction in a tool loop: summary at 25, continuation 26"
    );
    assert_eq!(
        seen(&s),
        vec![25, 26, 27, 28, 29, 30, 31],
        "the model sees the summary, the continuation and the five rows after them"
    );
    let dir = tempfile::tempdir().unwrap();
    let old = dir.path().join("sessions.db");
    v17::write(&old, Compaction::Replace).unwrap();
    let r = load(&old, WORKER);
    assert_eq!(
        (
            &r.compactions[0].cut_index,
            &r.compactions[0].kept,
            seen(&r)
        ),
        (&25, &Vec::new(), seen(&s)),
        "the same cut, kept tail and model view as when every row was deleted and inserted again"
    );
    let parts = |s: &Session| -> Vec<String> {
        s.messages
            .iter()
            .map(|m| format!("{:?} {:?} {}", m.role, m.kind, m.text()))
            .collect()
    };
    assert_eq!(
        parts(&s),
        parts(&r),
        "message by message the same roles, kinds and texts"
    );
}

#[test]
fn the_ledger_gives_the_compaction_its_recorded_sizes() {
    let s = load(&fixture(), WORKER);
    let c = &s.compactions[0];
    assert_eq!(
        (c.pre_tokens, c.post_tokens, c.post_tokens_from_usage),
        (Some(72_000), Some(9_000), true),
        "before: the compaction call's input; after: the first ordinary call's input, from usage"
    );
    assert_eq!(
        c.raw.as_ref().unwrap()["usage_ledger"]["is_compaction"],
        true,
        "the cut carries the ledger row it was sized from"
    );
}

#[test]
fn a_live_in_place_compaction_is_a_visibility_change_not_a_rewrite() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("sessions.db");
    let mut conn = v17::begin(&db).unwrap();
    let mut tracker = Tracker::new(dir.path(), Some(WORKER)).expect("the folder is watchable");
    assert!(
        tracker.refresh().is_empty(),
        "nothing changed yet: the baseline is not reported"
    );
    v17::compact(&mut conn, Compaction::InPlace).unwrap();
    let changes = tracker.refresh();
    let kinds: Vec<&str> = changes
        .iter()
        .map(|c| match c {
            Change::VisibilityChanged { .. } => "visibility",
            Change::Appended { .. } => "appended",
            Change::Rewritten { .. } => "rewritten",
            Change::Compaction { .. } => "compaction",
            Change::SessionAdded { .. } => "added",
            Change::Problem { .. } => "problem",
        })
        .collect();
    assert_eq!(
        kinds,
        vec!["visibility", "appended", "compaction"],
        "the 25 originals hidden, summary and continuation appended, the cut reported; no rewrite"
    );
    if let Change::VisibilityChanged { messages, .. } = &changes[0] {
        assert_eq!(messages.len(), 25, "every original left the model's view");
        assert!(
            messages.iter().all(|&(_, agent, user)| !agent && user),
            "hidden from the model, still shown to the user"
        );
    }
    if let Change::Appended { messages, .. } = &changes[1] {
        assert_eq!(
            messages.iter().map(|m| m.index).collect::<Vec<_>>(),
            vec![25, 26],
            "the summary and the continuation"
        );
    }
}
