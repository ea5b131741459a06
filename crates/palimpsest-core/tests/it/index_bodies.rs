//! A message read back from the index by its records' byte offsets, as the window shows it
//! while a big session is still being read: on every real Claude Code transcript of
//! `fixtures/real` and the six-cut fixture (cuts of three kinds, microcompacts, a subagent
//! link, an overflow spill) every message equals, whole, what loading the file gives, and so
//! does its stored text. Formats whose reader records no offsets are not answered; a changed
//! file is not answered.

use std::path::PathBuf;

use palimpsest_core::api;
use palimpsest_core::index::Index;
use palimpsest_core::model::SourceFormat;

/// `fixtures/real` and the Claude fixture, copied, indexed.
fn indexed_home() -> (tempfile::TempDir, PathBuf, Index) {
    crate::indexed_home::indexed_home(&[("claude", "fixture")])
}

#[test]
fn every_message_reads_back_by_offset_as_the_file_gives_it() {
    let (_t, root, ix) = indexed_home();
    let catalog = palimpsest_core::sources::open(&root).unwrap();
    let (metas, _) = catalog.list();
    let (mut sessions, mut messages, mut stored_whole) = (0, 0, 0);
    for meta in &metas {
        let session = catalog.load(&root, Some(&meta.id)).unwrap();
        let file = PathBuf::from(&session.meta.path);
        if session.meta.format != SourceFormat::ClaudeCode {
            assert!(
                palimpsest_core::service::cache::message_indexed(&ix, &root, Some(&meta.id), 0)
                    .unwrap()
                    .is_none(),
                "{}: a {:?} session records no offsets: not answered",
                meta.id,
                session.meta.format
            );
            continue;
        }
        sessions += 1;
        for m in &session.messages {
            let got = palimpsest_core::service::cache::message_indexed(
                &ix,
                &root,
                Some(&meta.id),
                m.index,
            )
            .unwrap()
            .unwrap_or_else(|| panic!("{} #{}: answered from the index", meta.id, m.index));
            let want = api::message_detail(&file, &session, m.index, false).unwrap();
            // The stored text as the reader's raw view gives it: the message's lines, by number.
            let lines: Vec<usize> = m.details.as_ref().unwrap().value()["lines"]
                .as_array()
                .unwrap()
                .iter()
                .map(|l| l.as_u64().unwrap() as usize)
                .collect();
            let raw = palimpsest_core::sources::scan::read_lines(&file, &lines).unwrap();
            assert_eq!(
                got.message, want.message,
                "{} #{}: the message read by offset is the one the file gives",
                meta.id, m.index
            );
            assert_eq!(
                got.raw.as_deref(),
                Some(raw.as_str()),
                "{} #{}: its stored text too",
                meta.id,
                m.index
            );
            assert_eq!(
                got.edits, want.edits,
                "{} #{}: and its edits",
                meta.id, m.index
            );
            messages += 1;
            stored_whole += usize::from(!m.links.is_empty());
        }
    }
    assert_eq!(
        sessions, 12,
        "the real main, subagent and compactor transcripts and the fixture's three (six-cuts, \
         its subagent, views)"
    );
    assert_eq!(
        (messages, stored_whole),
        (1030, 5),
        "every message compared (views' 38 with its replaced results and collapse summaries), the five linked ones (Task calls, a compaction's compactor run) among them"
    );
}

#[test]
fn a_changed_file_is_not_answered_by_offset() {
    let (_t, root, ix) = indexed_home();
    let file = root.join("claude-code/short.jsonl");
    let id = palimpsest_core::api::load_session(&file, None)
        .unwrap()
        .meta
        .id;
    assert!(
        palimpsest_core::service::cache::message_indexed(&ix, &file, Some(&id), 0)
            .unwrap()
            .is_some(),
        "the unchanged file is answered"
    );
    let mut text = std::fs::read_to_string(&file).unwrap();
    text.insert(0, '\n');
    std::fs::write(&file, text).unwrap();
    assert!(
        palimpsest_core::service::cache::message_indexed(&ix, &file, Some(&id), 0)
            .unwrap()
            .is_none(),
        "offsets of a changed file are not trusted"
    );
}
