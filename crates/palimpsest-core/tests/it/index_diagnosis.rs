//! One session's diagnosis, token report and cut view from the fleet index: on the real
//! transcripts (`fixtures/real`) and the six-cut fixture, what the index answers is the
//! diagnosis, the Tokens view and the cut view of the loaded session, field for field; a file that changed since it was indexed, a database (whose stamp is its
//! source's) and options the index does not diagnose with are not answered from it.

use std::io::Write;
use std::path::{Path, PathBuf};

use palimpsest_core::api::{self, DiagnoseOptions};
use palimpsest_core::index::Index;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn a_sessions_diagnosis_from_the_index_is_the_fresh_one() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("home");
    palimpsest_fixtures::copy_tree(&repo().join("fixtures/real"), &root, &[]).unwrap();
    palimpsest_fixtures::copy_tree(&repo().join("fixtures/claude"), &root.join("six"), &[])
        .unwrap();
    palimpsest_fixtures::copy_tree(
        &repo().join("fixtures/goose-stuck"),
        &root.join("goose"),
        &[],
    )
    .unwrap();
    let root = root.canonicalize().unwrap();
    let mut ix = Index::open(&t.path().join("cache/index.db")).unwrap();
    let opts = DiagnoseOptions::default();
    ix.update(std::slice::from_ref(&root), &opts, &mut |_, _| {})
        .unwrap();
    let catalog = palimpsest_core::sources::open(&root).unwrap();
    let (metas, _) = catalog.list();
    let (mut answered, mut databases) = (0, 0);
    for m in &metas {
        let session = catalog.load(&root, Some(&m.id)).unwrap();
        let fresh = api::diagnose(&session, &opts).unwrap();
        match palimpsest_core::service::cache::diagnosis_indexed(&ix, &root, Some(&m.id), &opts)
            .unwrap()
        {
            Some(d) => {
                assert_eq!(d, fresh, "{}: the index's diagnosis is the fresh one", m.id);
                let never = std::sync::atomic::AtomicBool::new(false);
                let counted =
                    api::token_report(&session, &api::TokenOptions::default(), &mut |_| {}, &never)
                        .unwrap();
                let mut kept = palimpsest_core::service::cache::token_report_indexed(
                    &ix,
                    &root,
                    Some(&m.id),
                    None,
                )
                .unwrap()
                .expect("a fresh transcript's token report is in the index");
                // How the counting went (cache hits) is the index's run's, not the report's.
                kept.stats = counted.stats;
                assert_eq!(
                    kept, counted,
                    "{}: the index's token report is the one counting gives",
                    m.id
                );
                // The app's cut view: the loaded session with its counts read back from the
                // token cache the index filled.
                let counts = api::session_counts(&session, ix.token_cache().as_ref());
                assert!(counts.is_some(), "{}: indexing counted the session", m.id);
                let cuts =
                    palimpsest_core::service::cache::cut_view_indexed(&ix, &root, Some(&m.id))
                        .unwrap()
                        .expect("a fresh transcript's cut view is in the index");
                assert_eq!(
                    cuts,
                    api::session_cuts(&session, counts.as_ref()),
                    "{}: the index's cut view is the one the loaded session gives",
                    m.id
                );
                answered += 1;
            }
            None => {
                assert!(
                    m.path.ends_with(".db"),
                    "{}: only a database's sessions are not answered ({})",
                    m.id,
                    m.path
                );
                databases += 1;
            }
        }
    }
    assert!(answered >= 10, "every transcript is answered: {answered}");
    assert!(
        databases > 0,
        "the goose database's sessions are read afresh"
    );

    let stuck = metas
        .iter()
        .find(|m| m.path.ends_with(".jsonl") && m.compaction_count > 0)
        .expect("a transcript with a compaction");
    let other_vocabulary = match palimpsest_core::service::cache::token_report_indexed(
        &ix,
        &root,
        Some(&stuck.id),
        None,
    )
    .unwrap()
    .map(|r| r.encoding)
    .as_deref()
    {
        Some("o200k_base") => palimpsest_core::tokens::Encoding::Cl100kBase,
        _ => palimpsest_core::tokens::Encoding::O200kBase,
    };
    assert!(
        palimpsest_core::service::cache::token_report_indexed(
            &ix,
            &root,
            Some(&stuck.id),
            Some(other_vocabulary)
        )
        .unwrap()
        .is_none(),
        "another vocabulary than the one the index counted in is counted afresh"
    );
    let other = DiagnoseOptions {
        estimate_tokens: true,
        ..DiagnoseOptions::default()
    };
    assert!(
        palimpsest_core::service::cache::diagnosis_indexed(&ix, &root, Some(&stuck.id), &other)
            .unwrap()
            .is_none(),
        "other options than the index's are diagnosed afresh"
    );
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&stuck.path)
        .unwrap();
    writeln!(
        f,
        "{{\"type\":\"user\",\"message\":{{\"role\":\"user\",\"content\":\"one more\"}}}}"
    )
    .unwrap();
    drop(f);
    assert!(
        palimpsest_core::service::cache::diagnosis_indexed(&ix, &root, Some(&stuck.id), &opts)
            .unwrap()
            .is_none(),
        "a transcript that grew since it was indexed is not answered from the index"
    );
    assert!(
        palimpsest_core::service::cache::cut_view_indexed(&ix, &root, Some(&stuck.id))
            .unwrap()
            .is_none(),
        "nor is its cut view"
    );
}
