//! The session service without a window: each view answers from the file the first time (the
//! session loaded once and shared by every view), and from the index once the source is
//! indexed and the file unchanged, with the same answer; a file changed since it was indexed
//! is read again.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use palimpsest_core::api;
use palimpsest_core::env::{self, Machine};
use palimpsest_core::service::SessionService;

const ID: &str = "258c7280-ae70-4798-800f-63464d01a85d";

/// A project folder holding the real transcript (with its licence in `fixtures/real`).
fn project(t: &tempfile::TempDir) -> (PathBuf, String) {
    let real = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(format!("../../fixtures/real/claude-code/{ID}.jsonl"));
    let dir = t.path().join("-home-u-proj");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(real, dir.join(format!("{ID}.jsonl"))).unwrap();
    let path = dir.to_string_lossy().into_owned();
    (dir, path)
}

#[test]
fn every_view_answers_the_same_from_the_file_and_from_the_index() {
    let t = tempfile::tempdir().unwrap();
    let machine = Machine::new(None, Some(t.path().join("cache")), None, []);
    env::with(machine, || {
        let (dir, path) = project(&t);
        let service = SessionService::default();
        // Nothing indexed: the views read the file once and share the loaded session.
        let d1 = service.diagnosis(&path, ID, &Default::default()).unwrap();
        let loaded = service
            .loaded_now(&path, ID)
            .expect("loaded by the first view");
        let cuts1 = service.cut_view(&path, ID).unwrap();
        let req1 = service.request_view(&path, ID, 3).unwrap();
        let m1 = service.message(&path, ID, 10, false).unwrap();
        let cancel = AtomicBool::new(false);
        let opts = api::TokenOptions {
            encoding: None,
            cache_dir: palimpsest_core::tokens::TokenCache::default_dir(),
            report: Default::default(),
            prices: None,
        };
        let r1 = service
            .token_report(&path, ID, &opts, &mut |_| {}, &cancel)
            .unwrap();
        assert!(
            Arc::ptr_eq(&loaded, &service.loaded_now(&path, ID).unwrap()),
            "one loaded copy for every view"
        );
        assert_eq!(cuts1.cuts.len(), 1, "the transcript's one compaction");
        let again = service.diagnosis(&path, ID, &Default::default()).unwrap();
        assert_eq!(again, d1, "kept for the loaded copy");

        // Indexed and unchanged: a fresh service answers from the index without loading.
        let mut ix = api::open_index(None).unwrap();
        api::index_update(
            &mut ix,
            std::slice::from_ref(&dir),
            &Default::default(),
            &mut |_, _| {},
        )
        .unwrap();
        let fresh = SessionService::default();
        let d2 = fresh.diagnosis(&path, ID, &Default::default()).unwrap();
        let cuts2 = fresh.cut_view(&path, ID).unwrap();
        let req2 = fresh.request_view(&path, ID, 3).unwrap();
        let m2 = fresh.message(&path, ID, 10, false).unwrap();
        assert!(
            fresh.loaded_now(&path, ID).is_none(),
            "the index answered: nothing was read whole"
        );
        assert_eq!(d2, d1, "the index keeps the diagnosis the file gives");
        assert_eq!(cuts2.cuts.len(), cuts1.cuts.len());
        assert_eq!(req2.rows.len(), req1.rows.len());
        assert_eq!(m2.message.index, m1.message.index);
        let r2 = fresh
            .token_report(&path, ID, &opts, &mut |_| {}, &cancel)
            .unwrap();
        assert!(
            fresh.loaded_now(&path, ID).is_none(),
            "the token report too"
        );
        assert_eq!(
            (&r2.final_context, r2.per_request.len()),
            (&r1.final_context, r1.per_request.len()),
            "the same counts"
        );

        // The file changed since: the index no longer answers for it, the file is read.
        let file = dir.join(format!("{ID}.jsonl"));
        let text = std::fs::read_to_string(&file).unwrap();
        let first_line_end = text.find('\n').unwrap() + 1;
        std::fs::write(&file, &text[first_line_end..]).unwrap();
        let changed = SessionService::default();
        changed.diagnosis(&path, ID, &Default::default()).unwrap();
        assert!(
            changed.loaded_now(&path, ID).is_some(),
            "a rewritten file is read again"
        );
    });
}
