//! The Requests tab's view of every request from the fleet index: on the real transcripts
//! (`fixtures/real`), the six-cut Claude Code fixture and the Codex and coworker fixtures, what
//! the index answers for each request is what the loaded session gives with its BPE counts,
//! row for row; a request that does not exist, and a file written on since it was indexed,
//! are not answered from it.

use std::io::Write;

use palimpsest_core::api;

use crate::indexed_home::indexed_home;

#[test]
fn every_requests_view_from_the_index_is_the_loaded_sessions() {
    let (_t, root, ix) = indexed_home(&[
        ("claude", "six"),
        ("codex", "codex"),
        ("coworker", "coworker"),
    ]);
    let catalog = palimpsest_core::sources::open(&root).unwrap();
    let (metas, _) = catalog.list();
    let (mut sessions, mut requests, mut hidden) = (0, 0, 0);
    for m in &metas {
        let session = catalog.load(&root, Some(&m.id)).unwrap();
        let counts = api::session_counts(&session, ix.token_cache().as_ref());
        let Some(cuts) =
            palimpsest_core::service::cache::cut_view_indexed(&ix, &root, Some(&m.id)).unwrap()
        else {
            continue;
        };
        sessions += 1;
        let dirs = api::recorded_dirs_of(m, None);
        assert_eq!(
            api::nothing_recorded(&dirs),
            Some(api::recorded(&session, &dirs)),
            "{}: no agent here logs its requests, and saying so needs nothing of the session",
            m.id
        );
        for n in 1..=cuts.requests.len() {
            let loaded = api::request_view(&session, n, counts.as_ref()).unwrap();
            let kept =
                palimpsest_core::service::cache::request_view_indexed(&ix, &root, Some(&m.id), n)
                    .unwrap()
                    .unwrap_or_else(|| panic!("{}: request {n} is answered from the index", m.id));
            assert_eq!(
                kept, loaded,
                "{}: request {n} from the index is the loaded session's",
                m.id
            );
            requests += 1;
            // Messages a later cut took from the model are in the earlier requests' context.
            hidden += loaded.rows.iter().filter(|r| !r.agent_visible).count();
        }
        assert_eq!(
            palimpsest_core::service::cache::request_view_indexed(
                &ix,
                &root,
                Some(&m.id),
                cuts.requests.len() + 1
            )
            .unwrap(),
            None,
            "{}: a request past the next one is not answered (the session says why)",
            m.id
        );
        assert_eq!(
            palimpsest_core::service::cache::request_view_indexed(&ix, &root, Some(&m.id), 0)
                .unwrap(),
            None,
            "{}: requests are numbered from 1",
            m.id
        );
    }
    assert!(
        (sessions, requests) == (17, 510),
        "every transcript's requests are compared: {sessions} sessions, {requests} requests"
    );
    assert!(
        hidden > 0,
        "some request's context holds messages a later compaction dropped (before its cut, the \
         model still saw them)"
    );

    let cut = metas
        .iter()
        .find(|m| m.path.ends_with(".jsonl") && m.compaction_count > 0)
        .expect("a transcript with a compaction");
    std::fs::OpenOptions::new()
        .append(true)
        .open(&cut.path)
        .unwrap()
        .write_all(
            b"{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"one more\"}}\n",
        )
        .unwrap();
    assert_eq!(
        palimpsest_core::service::cache::request_view_indexed(&ix, &root, Some(&cut.id), 1)
            .unwrap(),
        None,
        "a transcript written on since it was indexed is not answered from the index"
    );
}
