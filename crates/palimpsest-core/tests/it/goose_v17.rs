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
    let d = &s.messages[23].details.as_ref().unwrap().value()["delegations"][0]["delegation"];
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
fn a_delegating_message_id_set_by_the_caller_still_finds_its_parent() {
    // See: issue 45. goose also stores messages whose id the caller set, not of the shape
    // `msg_<session>_<uuid>`: the parent is the session whose messages hold that id.
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("sessions.db");
    std::fs::copy(fixture(), &db).unwrap();
    {
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.execute(
            "UPDATE messages SET message_id = 'deleg-0007' WHERE message_id = ?1",
            [DELEGATE_BACKGROUND],
        )
        .unwrap();
        conn.execute(
            "UPDATE sessions SET parent_delegation = replace(parent_delegation, ?1, 'deleg-0007') \
             WHERE id = ?2",
            [DELEGATE_BACKGROUND, BACKGROUND_CHILD],
        )
        .unwrap();
    }
    let (metas, problems) = sources::open(&db).unwrap().list();
    assert!(problems.is_empty(), "{problems:?}");
    let child = metas.iter().find(|m| m.id == BACKGROUND_CHILD).unwrap();
    assert_eq!(
        child.parent_id.as_deref(),
        Some(WORKER),
        "the session holding message deleg-0007 is the parent"
    );
    let s = load(&db, WORKER);
    let linked: Vec<(usize, Option<&str>)> = s
        .messages
        .iter()
        .filter(|m| {
            m.links
                .iter()
                .any(|l| l.session.as_deref() == Some(BACKGROUND_CHILD))
        })
        .map(|m| (m.index, m.id.as_deref()))
        .collect();
    assert_eq!(
        linked,
        [(23, Some("deleg-0007"))],
        "and its message links the child"
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

#[test]
fn recorded_requests_are_placed_and_every_difference_is_marked() {
    use palimpsest_core::compaction::recorded::ItemOp;
    let s = load(&fixture(), WORKER);
    let dirs = api::recorded_dirs(&s, None);
    assert_eq!(
        dirs[0],
        fixture().parent().unwrap().join("logs"),
        "a logs folder beside the database is looked at first"
    );
    assert_eq!(
        api::recorded_dirs_of(&s.meta, None),
        dirs,
        "the places are the listing's: a caller that has not loaded the session finds them"
    );
    assert_eq!(
        api::nothing_recorded(&dirs),
        None,
        "logs are there: the session must be read to place them"
    );
    let set = api::recorded(&s, &dirs);
    assert!(set.problems.is_empty(), "the three logs read cleanly");
    let placed: Vec<(Option<usize>, usize, Option<usize>, usize)> = set
        .matched
        .iter()
        .map(|c| (c.log.slot, c.request, c.answer_index, c.differences))
        .collect();
    assert_eq!(
        placed,
        vec![
            (Some(0), 15, Some(31), 1),
            (Some(1), 13, Some(27), 0),
            (Some(2), 7, Some(13), 0),
        ],
        "newest first: the request answered by 31 (one item goose added), the first after the \
         compaction, and the one answered by 13, both exactly as rebuilt"
    );
    let last = &set.matched[0];
    let marked: Vec<(ItemOp, String)> = last
        .diff
        .iter()
        .filter(|d| d.op != ItemOp::Same)
        .map(|d| (d.op, last.log.items[d.recorded.unwrap()].role.clone()))
        .collect();
    assert_eq!(
        marked,
        vec![
            (ItemOp::RecordedOnly, "system".to_owned()),
            (ItemOp::RecordedOnly, "user".to_owned()),
        ],
        "the system prompt (counted apart, never stored) and the turn hint sent after the last \
         result, which the session does not hold"
    );
    assert_eq!(last.system_items, 1, "one system-prompt item");
    assert_eq!(
        last.rebuilt_from,
        vec![25, 26, 27, 28, 29, 30],
        "the rebuilt request is the summary, the continuation and what followed"
    );
    let child = load(&fixture(), SYNC_CHILD);
    assert!(
        api::recorded(&child, &dirs).matched.is_empty(),
        "no log is the child session's: its call ids and texts are not in them"
    );
}
