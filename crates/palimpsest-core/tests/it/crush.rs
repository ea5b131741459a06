//! Crush (fixtures/README.md, `crush/`): its database is never taken for goose's though its
//! migration table is `goose_db_version`; a summarised session shows the model the summary (as
//! a user message) and what follows it, the rest dropped with no kept tail; a sub-agent's
//! session is a child; Crush's registry of projects names the folders to open.

use std::path::{Path, PathBuf};

use palimpsest_core::model::{Family, MessageKind, Role, SourceFormat};
use palimpsest_core::{api, sources};
use palimpsest_fixtures::crush::{TASK, WORKER};

fn db() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/crush/.crush/crush.db")
}

#[test]
fn a_crush_database_is_crushs_never_gooses() {
    assert!(
        sources::goose::GooseSource::open_db(&db()).is_err(),
        "goose's reader refuses it: it has goose_db_version, not goose's tables"
    );
    let catalog = sources::open(&db()).unwrap();
    let formats: Vec<SourceFormat> = catalog.sources.iter().map(|s| s.format()).collect();
    assert_eq!(formats, [SourceFormat::Crush], "the Crush reader claims it");
    let (metas, problems) = catalog.list();
    assert!(problems.is_empty());
    let got: Vec<String> = metas
        .into_iter()
        .map(|m| {
            format!(
                "{} parent={:?} messages={} cuts={} project={:?}",
                m.id, m.parent_id, m.message_count, m.compaction_count, m.working_dir
            )
        })
        .collect();
    let project = db()
        .parent()
        .and_then(Path::parent)
        .unwrap()
        .display()
        .to_string();
    assert_eq!(
        got,
        [
            format!("{WORKER} parent=None messages=13 cuts=1 project=Some({project:?})"),
            format!("{TASK} parent=Some({WORKER:?}) messages=4 cuts=0 project=Some({project:?})"),
        ],
        "most recently updated first; the sub-agent's session under its parent; the project \
         is the folder holding .crush"
    );
}

#[test]
fn the_model_sees_the_summary_and_what_follows() {
    let s = api::load_session(&db(), Some(WORKER)).unwrap();
    let seen: Vec<usize> = s
        .iter()
        .filter(|m| m.agent_visible)
        .map(|m| m.index)
        .collect();
    assert_eq!(
        seen,
        (8..13).collect::<Vec<_>>(),
        "from the summary the session points at"
    );
    let summary = &s.messages[8];
    assert_eq!(
        (summary.role, summary.kind, summary.detail("stored_role")),
        (
            Role::User,
            MessageKind::Summary,
            Some(serde_json::json!("assistant"))
        ),
        "stored as the assistant's, sent as a user message"
    );
    let c = &s.compactions[0];
    assert_eq!(
        (
            s.compactions.len(),
            c.cut_index,
            c.summary_index,
            c.kept.len()
        ),
        (1, 8, Some(8), 0),
        "one cut at the summary, no tail kept"
    );
    assert_eq!(
        s.messages[1].parts.len(),
        3,
        "reasoning, text and the call; the finish part is bookkeeping"
    );
}

#[test]
fn crushs_registry_names_each_projects_data_folder() {
    let home = tempfile::tempdir().unwrap();
    let share = home.path().join(".local/share/crush");
    std::fs::create_dir_all(&share).unwrap();
    std::fs::write(
        share.join("projects.json"),
        r#"{"projects": [{"path": "/work/shop", "data_dir": "/work/shop/.crush", "last_accessed": "2026-10-01T10:00:00Z"},
                         {"path": "/work/site"}]}"#,
    )
    .unwrap();
    let got: Vec<(Family, PathBuf)> =
        sources::discovery::default_locations(Some(home.path()), &|_| None)
            .into_iter()
            .filter(|(f, _)| *f == Family::Crush)
            .collect();
    assert_eq!(
        got,
        vec![
            (Family::Crush, PathBuf::from("/work/shop/.crush")),
            (Family::Crush, PathBuf::from("/work/site/.crush")),
        ],
        "each project's data_dir, else its .crush folder"
    );
}
