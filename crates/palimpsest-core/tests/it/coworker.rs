//! The coworker reader on the generated fixtures (fixtures/coworker, see fixtures/README.md):
//! exact timelines with compaction blocks rebuilt from notice and column records, spill and
//! transcript links, tolerance of damaged files, listing, raw text and read-only access.

use std::path::{Path, PathBuf};

use palimpsest_core::model::{LinkKind, MessageKind, Role, Session, Trigger};
use palimpsest_core::sources::coworker::{CoworkerSource, default_locations};
use palimpsest_core::sources::{self, SessionSource};
use serde_json::Value;

const MAIN: &str = "a1b2c3d4e5f6";
const OLD: &str = "0ld5e55i0n01";
const DAMAGED: &str = "c0ffee000002";
const INLINE: &str = "e7e7e7e7e7e7";
const SPILLS: &str = "/home/dev/OpenWorker/a1b2c3d4e5f6/tool-output";

fn root() -> PathBuf {
    Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/coworker"
    ))
    .to_owned()
}

fn source() -> CoworkerSource {
    CoworkerSource::with_scratch(&root().join("state"), vec![root().join("scratch")])
}

fn load(id: &str) -> Session {
    source()
        .load(id)
        .unwrap_or_else(|e| panic!("{id} loads: {e}"))
}

/// (role, kind, agent_visible, user_visible) per message, compactly: e.g. "user/summary/M-".
fn shape(s: &Session) -> Vec<String> {
    s.messages
        .iter()
        .map(|m| {
            let role = serde_json::to_value(m.role).unwrap();
            let kind = serde_json::to_value(m.kind).unwrap();
            format!(
                "{}/{}/{}{}",
                role.as_str().unwrap(),
                kind.as_str().unwrap(),
                if m.agent_visible { "M" } else { "-" },
                if m.user_visible { "U" } else { "-" }
            )
        })
        .collect()
}

fn contract() -> &'static str {
    "Continue where you left off: pick up the current work and next step exactly as described. Do not re-ask answered questions, do not recap, do not mention that the context was compacted. If you need the contents of a file noted above, re-read it.\n</compacted-history>"
}

#[test]
fn main_session_timeline_has_three_blocks_and_only_the_latest_is_sent() {
    let s = load(MAIN);
    let want = [
        "system/ordinary/M-",
        "user/ordinary/-U",
        "assistant/ordinary/-U",
        "tool/ordinary/-U",
        "assistant/ordinary/-U",
        "tool/ordinary/-U",
        "assistant/ordinary/-U",
        "user/summary/--", // block of compaction 1, before stored message 7
        "user/ordinary/-U",
        "assistant/ordinary/-U",
        "system/notification/-U",
        "user/summary/--", // block of compaction 2, before stored message 10
        "user/ordinary/-U",
        "user/summary/M-", // the trim's block, before stored message 11: what the model gets
        "assistant/ordinary/MU",
        "tool/ordinary/MU",
        "assistant/ordinary/MU",
        "system/notification/-U",
        "user/ordinary/MU",
        "assistant/ordinary/MU",
        "system/notification/-U",
        "user/ordinary/MU",
        "assistant/ordinary/MU",
    ];
    assert_eq!(
        shape(&s),
        want,
        "20 stored messages plus 3 rebuilt blocks, in model order"
    );
    let cuts: Vec<(usize, Option<usize>, Option<Trigger>)> = s
        .compactions
        .iter()
        .map(|c| (c.cut_index, c.summary_index, c.trigger))
        .collect();
    assert_eq!(
        cuts,
        vec![
            (7, Some(7), None),
            (11, Some(11), None),
            (13, None, Some(Trigger::Micro))
        ],
        "two summary compactions and a trim (a compaction without summary)"
    );
    let boundaries: Vec<u64> = s
        .compactions
        .iter()
        .map(|c| c.raw.as_ref().unwrap()["boundary_index"].as_u64().unwrap())
        .collect();
    assert_eq!(
        boundaries,
        vec![7, 10, 11],
        "records keep the stored boundary indexes"
    );
    assert_eq!(
        s.meta.name, "Monthly sales report",
        "auto_title wins when not renamed"
    );
    assert_eq!(
        s.meta.message_count, 23,
        "message_count equals messages.len()"
    );
    assert_eq!(
        s.meta.compaction_count, 3,
        "the column duplicates the last notice: not counted twice"
    );
    assert_eq!(
        s.meta.model.as_deref(),
        Some("openai:gpt-5"),
        "model column"
    );
    let usage = s.meta.usage.expect("usage recorded");
    assert_eq!(
        (
            usage.input_tokens,
            usage.output_tokens,
            usage.cache_read_tokens,
            usage.total_tokens
        ),
        (Some(5000), Some(120), Some(2000), Some(7120)),
        "last request's usage sidecar"
    );
    assert_eq!(
        usage.accumulated_total_tokens,
        Some(82607),
        "the `usage` column's fold"
    );
}

#[test]
fn first_block_is_rebuilt_exactly_from_its_notice_record() {
    let s = load(MAIN);
    let rec = s.compactions[0].raw.as_ref().unwrap();
    let want = format!(
        "<compacted-history>\nEarlier turns of this session were compacted. The summary below is your memory of them.\n\n{}\n\n{}\n\n## User messages in the compacted span (verbatim, chronological)\n- Build the report generator: read data/sales.csv and write out/report.md with monthly totals.\n\nThe verbatim transcript of the compacted turns (every message, tool call and tool result, without your private reasoning) is saved at {SPILLS}/compacted-transcript-upto-0007.md. If a detail you need is missing from the summary, read that file (read_file, or run_shell with grep / sed -n) instead of guessing.\n\n{}",
        rec["summary_text"].as_str().unwrap(),
        rec["working_state"].as_str().unwrap(),
        contract()
    );
    assert_eq!(s.messages[7].text(), want, "block 1 byte for byte");
    assert_eq!(
        s.messages[7].details.as_ref().unwrap().value()["rebuilt_from"],
        "notice",
        "source of the rebuild"
    );
}

#[test]
fn trim_block_keeps_every_user_message_and_no_transcript() {
    let s = load(MAIN);
    let rec = s.compactions[2].raw.as_ref().unwrap();
    let summary = rec["summary_text"].as_str().unwrap();
    assert!(
        summary.ends_with("(Older turns were trimmed to fit the context window; no summary is available for them. Re-read files and re-run commands if earlier results are needed.)"),
        "the trim's summary is the prior one plus the trim note"
    );
    let want = format!(
        "<compacted-history>\nEarlier turns of this session were compacted. The summary below is your memory of them.\n\n{summary}\n\n## User messages in the compacted span (verbatim, chronological)\n- Build the report generator: read data/sales.csv and write out/report.md with monthly totals.\n- Use ISO week numbers, not calendar weeks.\n- Also add a chart of the monthly totals.\n\n{}",
        contract()
    );
    assert_eq!(
        s.messages[13].text(),
        want,
        "empty working state and transcript leave no lines"
    );
    assert!(
        s.messages[13].links.is_empty(),
        "a trim writes no transcript"
    );
}

#[test]
fn capped_results_link_their_spill_files_present_or_missing() {
    let s = load(MAIN);
    let cap = |i: usize| s.messages[i].details.as_ref().unwrap().value()["cap"][0].clone();
    assert_eq!(
        s.messages[3].links[0].kind,
        LinkKind::SpillFile,
        "string result's marker"
    );
    assert_eq!(
        s.messages[3].links[0].path,
        format!("{SPILLS}/0001-read_file.txt"),
        "path as written"
    );
    assert_eq!(cap(3)["spill_exists"], true, "found under the scratch base");
    assert_eq!(
        (
            cap(3)["omitted_bytes"].as_u64(),
            cap(3)["total_bytes"].as_u64()
        ),
        (Some(10133), Some(19733)),
        "sizes from the marker"
    );
    let full = std::fs::read_to_string(cap(3)["resolved_path"].as_str().unwrap()).unwrap();
    assert_eq!(
        full.len(),
        19733,
        "the spill holds the whole result the marker sizes"
    );
    assert_eq!(
        s.messages[5].links[0].path,
        format!("{SPILLS}/0002-run_shell-output.txt"),
        "a dict result's marker sits in its `output` field"
    );
    assert_eq!(cap(5)["spill_exists"], false, "that spill file is missing");
    assert!(
        s.messages[15].links.is_empty(),
        "`full text not saved` links nothing"
    );
    assert_eq!(
        cap(15)["spill_path"],
        Value::Null,
        "but the cut is still reported"
    );
}

#[test]
fn blocks_and_notices_link_their_transcripts() {
    let s = load(MAIN);
    for (i, file) in [(7, "0007"), (10, "0007"), (11, "0010"), (17, "0010")] {
        assert_eq!(
            s.messages[i]
                .links
                .iter()
                .map(|l| (l.kind, l.path.clone()))
                .collect::<Vec<_>>(),
            vec![(
                LinkKind::Transcript,
                format!("{SPILLS}/compacted-transcript-upto-{file}.md")
            )],
            "message {i} links the transcript of its compaction"
        );
    }
}

#[test]
fn old_session_shows_its_compaction_from_the_column_in_the_legacy_layout() {
    let s = load(OLD);
    assert_eq!(
        shape(&s),
        [
            "system/ordinary/M-",
            "user/ordinary/-U",
            "assistant/ordinary/-U",
            "user/summary/M-",
            "user/ordinary/MU",
            "assistant/ordinary/MU",
            "system/notification/-U",
            "user/ordinary/MU",
            "assistant/ordinary/MU",
        ],
        "the record-less notice stays a notice; the column's block sits at boundary 3"
    );
    assert_eq!(s.compactions.len(), 1, "one compaction, from the column");
    assert_eq!(
        (s.compactions[0].cut_index, s.compactions[0].summary_index),
        (3, Some(3)),
        "cut at the block"
    );
    let want = format!(
        "<compacted-history>\nEarlier turns of this session were compacted. The summary below is your memory of them.\n\nMigrating the test suite to pytest; conftest.py started.\n\n## User messages in the compacted span (verbatim, chronological)\n- Migrate the test suite to pytest.\n\n{}",
        contract()
    );
    assert_eq!(
        s.messages[3].text(),
        want,
        "legacy record: no transcript line"
    );
    assert_eq!(
        s.messages[3].details.as_ref().unwrap().value()["rebuilt_from"],
        "sessions.compaction",
        "provenance"
    );
    assert_eq!(
        s.meta.name, "Migrate the test suite to pytest.",
        "no title: first-line snapshot"
    );
}

#[test]
fn damaged_file_keeps_loading_past_a_bad_line_and_waits_for_the_last() {
    let s = load(DAMAGED);
    assert_eq!(
        shape(&s),
        [
            "system/ordinary/M-",
            "user/ordinary/MU",
            "system/ordinary/--",
            "assistant/ordinary/MU"
        ],
        "bad line 3 is an error row; unfinished line 5 is left out"
    );
    let err = s.messages[2].error.as_deref().unwrap();
    let file = root().join("state/conversations/c0ffee000002.jsonl");
    assert!(
        err.starts_with(&format!("{}:3: not valid JSON", file.display())),
        "error names file and line: {err}"
    );
    assert!(
        matches!(&s.messages[2].parts[0], palimpsest_core::model::Part::Other { raw: Value::String(t), .. } if t.starts_with("{\"role\": \"assistant\"")),
        "raw text kept as an other part"
    );
}

#[test]
fn inline_messages_column_and_renamed_title() {
    let s = load(INLINE);
    assert_eq!(
        shape(&s),
        ["user/ordinary/MU", "assistant/ordinary/MU"],
        "legacy inline JSON"
    );
    assert_eq!(s.meta.name, "Pinned: scratch", "renamed title wins");
}

#[test]
fn listing_agrees_with_loading_without_loading() {
    let src = source();
    let metas = src.list().unwrap();
    let ids: Vec<&str> = metas.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(
        ids,
        [MAIN, OLD, INLINE, DAMAGED],
        "database rows first, then loose files"
    );
    for m in &metas {
        let s = src.load(&m.id).unwrap();
        assert_eq!(
            (m.message_count, m.compaction_count, &m.name),
            (s.meta.message_count, s.meta.compaction_count, &s.meta.name),
            "listing of {} matches its load",
            m.id
        );
    }
}

#[test]
fn raw_gives_the_stored_line_or_the_record() {
    let src = source();
    let line4 = std::fs::read_to_string(root().join("state/conversations/a1b2c3d4e5f6.jsonl"))
        .unwrap()
        .lines()
        .nth(3)
        .unwrap()
        .to_owned();
    assert_eq!(
        src.raw(MAIN, 3).unwrap(),
        Some(line4),
        "message 3 is stored line 4, verbatim"
    );
    let rec: Value = serde_json::from_str(&src.raw(MAIN, 7).unwrap().unwrap()).unwrap();
    assert_eq!(
        rec["boundary_index"], 7,
        "a rebuilt block's raw view is its record"
    );
    assert_eq!(src.raw(MAIN, 99).unwrap(), None, "out of range");
}

#[test]
fn headless_out_folder_is_one_session_with_local_spills() {
    let cat = sources::open(&root().join("headless")).unwrap();
    assert_eq!(cat.sources.len(), 1, "the out folder is claimed whole");
    let metas = cat.sources[0].list().unwrap();
    assert_eq!(metas[0].id, "run-7", "id from summary.json");
    let s = cat.sources[0].load("run-7").unwrap();
    assert_eq!(s.messages.len(), 5, "messages.json holds five");
    let cap = &s.messages[3].details.as_ref().unwrap().value()["cap"][0];
    assert_eq!(cap["spill_exists"], true, "found in out/tool-output");
}

#[test]
fn whole_folder_and_single_file_entry_points() {
    let all = palimpsest_core::api::list_sessions(&root()).unwrap();
    assert_eq!(
        all.sessions.len(),
        5,
        "state folder (4) and headless run (1)"
    );
    assert!(all.problems.is_empty(), "no problems: {:?}", all.problems);
    let one =
        palimpsest_core::api::list_sessions(&root().join("state/conversations/0ld5e55i0n01.jsonl"))
            .unwrap();
    assert_eq!(
        one.sessions
            .iter()
            .map(|m| m.id.as_str())
            .collect::<Vec<_>>(),
        [OLD],
        "one conversation file"
    );
}

#[test]
fn database_is_opened_read_only() {
    let db = root().join("state/coworker.db");
    let before = std::fs::read(&db).unwrap();
    let _ = load(MAIN);
    let _ = source().list().unwrap();
    assert_eq!(std::fs::read(&db).unwrap(), before, "coworker.db unchanged");
    for side in ["coworker.db-wal", "coworker.db-journal", "coworker.db-shm"] {
        assert!(
            !root().join("state").join(side).exists(),
            "{side} never created"
        );
    }
}

#[test]
fn default_locations_follow_coworker() {
    let env = |k: &str| match k {
        "COWORKER_STATE_DIR" => Some("/state".into()),
        "HOME" => Some("/home/u".into()),
        "APPDATA" => Some("C:\\Users\\u\\AppData\\Roaming".into()),
        _ => None,
    };
    let got = default_locations(env, Some(Path::new("/ws")));
    let platform = if cfg!(windows) {
        PathBuf::from("C:\\Users\\u\\AppData\\Roaming").join("coworker")
    } else {
        PathBuf::from("/home/u/.config/coworker")
    };
    assert_eq!(
        got,
        vec![
            PathBuf::from("/state"),
            platform,
            PathBuf::from("/ws/.coworker")
        ],
        "env override, platform default, workspace folder"
    );
    assert_eq!(
        default_locations(|_| None, None),
        Vec::<PathBuf>::new(),
        "nothing known, nothing guessed"
    );
    let _ = (Role::User, MessageKind::Summary);
}

#[test]
fn a_conversation_file_copied_out_of_its_folder_is_still_coworker_with_its_compactions() {
    // Attached to a bug report, the file has no coworker.db beside it: its notices' records
    // still give its three compactions, and its timeline is the one read in its folder.
    let t = tempfile::tempdir().unwrap();
    let copy = t.path().join(format!("{MAIN}.jsonl"));
    std::fs::copy(
        root().join(format!("state/conversations/{MAIN}.jsonl")),
        &copy,
    )
    .unwrap();
    let listed = palimpsest_core::api::list_sessions(&copy).unwrap();
    let meta = &listed.sessions[0];
    assert_eq!(
        (
            listed.sessions.len(),
            meta.id.as_str(),
            meta.format.as_str()
        ),
        (1, MAIN, "coworker"),
        "one coworker session, named by the file"
    );
    let alone = palimpsest_core::api::load_session(&copy, None).unwrap();
    assert_eq!(alone.compactions.len(), 3, "the three recorded compactions");
    assert_eq!(
        shape(&alone),
        shape(&load(MAIN)),
        "the same timeline as in its folder"
    );

    // A provider log with neither a notice nor coworker's usage sidecar stays a message log.
    let plain = t.path().join("plain.jsonl");
    std::fs::write(
        &plain,
        "{\"role\": \"user\", \"content\": \"hi\"}\n{\"role\": \"assistant\", \"content\": \"hello\"}\n",
    )
    .unwrap();
    let log = palimpsest_core::api::list_sessions(&plain).unwrap();
    assert_eq!(log.sessions[0].format.as_str(), "message-log");
}
