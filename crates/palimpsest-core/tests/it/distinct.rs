//! The generated big transcript the performance figures use beside the repeated real one
//! (`palimpsest-big --distinct`) reads as the session it was written to be: each turn's
//! streamed response merged into one message, every kind of cut it writes recorded, and its
//! files distinct.

use palimpsest_core::api;
use palimpsest_core::model::{Part, Role, Trigger};

#[test]
fn the_generated_transcript_reads_as_written() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir
        .path()
        .join("d1571c70-0000-4000-8000-000000000001.jsonl");
    let turns = palimpsest_fixtures::distinct::generate(
        &file,
        "d1571c70-0000-4000-8000-000000000001",
        3 << 20,
        0x5eed,
    )
    .unwrap();
    let session = api::load_session(&file, None).unwrap();
    let streamed = session
        .messages
        .iter()
        .filter(|m| {
            m.role == Role::Assistant
                && m.parts.iter().any(|p| matches!(p, Part::Thinking { .. }))
                && m.parts.iter().any(|p| matches!(p, Part::Text { .. }))
        })
        .count();
    assert_eq!(
        streamed, turns,
        "each turn's response, streamed over lines, is one message"
    );
    let of = |t: Trigger| {
        session
            .compactions
            .iter()
            .filter(|c| c.trigger == Some(t))
            .count()
    };
    assert!(
        of(Trigger::Auto) >= 1,
        "an auto compaction: {:?}",
        session.compactions.len()
    );
    assert!(of(Trigger::Manual) >= 1, "a manual compaction");
    assert!(of(Trigger::Micro) >= 2, "microcompacts");
    for c in session
        .compactions
        .iter()
        .filter(|c| c.trigger == Some(Trigger::Micro))
    {
        assert_eq!(
            c.cleared_calls().len(),
            30,
            "each microcompact clears 30 results"
        );
    }
    let reads: std::collections::BTreeSet<String> = session
        .messages
        .iter()
        .flat_map(|m| &m.parts)
        .filter_map(|p| match p {
            Part::ToolCall {
                name, arguments, ..
            } if name == "Read" => arguments.value()["file_path"].as_str().map(str::to_owned),
            _ => None,
        })
        .collect();
    assert!(
        reads.len() > 2 * turns,
        "{} distinct files read over {turns} turns: the shape is many distinct files",
        reads.len()
    );
}
