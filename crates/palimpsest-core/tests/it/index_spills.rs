//! The Spills tab's review from the fleet index: on the real transcripts (`fixtures/real`) and
//! the fixtures, the review made from the spill files the index found in a session, with the
//! disk looked at now, is the one the loaded session gives, with and without the files' text;
//! a file removed since indexing reads as missing in both; a marker pattern of the user's, and
//! a transcript written on since it was indexed, are not answered from the index.

use std::io::Write;

use palimpsest_core::analysis::SpillStatus;
use palimpsest_core::api::{self, DiagnoseOptions};
use palimpsest_core::index::Index;

use crate::indexed_home::indexed_home;

#[test]
fn every_spill_review_from_the_index_is_the_loaded_sessions() {
    let (_t, root, ix) = indexed_home(&[
        ("claude", "six"),
        ("codex", "codex"),
        ("coworker", "coworker"),
    ]);
    let catalog = palimpsest_core::sources::open(&root).unwrap();
    let (metas, _) = catalog.list();
    let with_text = DiagnoseOptions {
        max_text_bytes: 4096,
        ..DiagnoseOptions::default()
    };
    let compare = |ix: &Index| {
        let (mut sessions, mut spills, mut present) = (0, 0, Vec::new());
        for m in &metas {
            let session = catalog.load(&root, Some(&m.id)).unwrap();
            for opts in [&DiagnoseOptions::default(), &with_text] {
                let Some(kept) =
                    palimpsest_core::service::cache::spills_indexed(ix, &root, Some(&m.id), opts)
                        .unwrap()
                else {
                    continue;
                };
                assert_eq!(
                    kept,
                    api::spills(&session, opts).unwrap(),
                    "{}: the review from the index is the loaded session's",
                    m.id
                );
                if opts.max_text_bytes == 0 {
                    sessions += 1;
                    spills += kept.spills.len();
                    present.extend(
                        kept.spills
                            .iter()
                            .filter(|s| s.status == SpillStatus::Present)
                            .filter_map(|s| s.resolved.clone()),
                    );
                }
            }
        }
        (sessions, spills, present)
    };
    let (sessions, spills, present) = compare(&ix);
    assert_eq!(
        (sessions, spills, present.len()),
        (17, 3, 3),
        "every indexed transcript is compared: {sessions} sessions, {spills} spill files"
    );
    // The disk is looked at when the review is asked for, not when the session was indexed.
    std::fs::remove_file(&present[0]).unwrap();
    let (_, spills, still) = compare(&ix);
    assert_eq!(
        (spills, still.len()),
        (3, 2),
        "a spill file removed since indexing is missing from both reviews"
    );

    let pattern = DiagnoseOptions {
        spill_pattern: Some(r"saved to (?P<path>\S+)".into()),
        ..DiagnoseOptions::default()
    };
    let some = &metas[0];
    assert_eq!(
        palimpsest_core::service::cache::spills_indexed(&ix, &root, Some(&some.id), &pattern)
            .unwrap(),
        None,
        "a marker pattern of the user's is looked for in the session itself"
    );
    let file = metas
        .iter()
        .find(|m| m.path.ends_with(".jsonl"))
        .expect("a transcript");
    std::fs::OpenOptions::new()
        .append(true)
        .open(&file.path)
        .unwrap()
        .write_all(
            b"{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"one more\"}}\n",
        )
        .unwrap();
    assert_eq!(
        palimpsest_core::service::cache::spills_indexed(
            &ix,
            &root,
            Some(&file.id),
            &DiagnoseOptions::default()
        )
        .unwrap(),
        None,
        "a transcript written on since it was indexed is not answered from the index"
    );
}
