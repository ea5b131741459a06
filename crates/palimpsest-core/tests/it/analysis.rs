//! Post-mortem and spill review on the committed fixtures (`fixtures/goose-stuck`,
//! `fixtures/coworker`) and on sessions built in code for recognition across tools, plus the
//! confinement of spill paths (`../..`, absolute paths, symlinks).

use std::path::{Path, PathBuf};

use palimpsest_core::analysis::confine::{Confinement, Resolution, read_confined};
use palimpsest_core::analysis::review::ReviewOptions;
use palimpsest_core::analysis::{
    self, LoopKind, LossKind, Options, SpillKind, SpillStatus, chars_div_4,
};
use palimpsest_core::api;
use palimpsest_core::model::{Message, Part, Role, Session, SessionMeta, SourceFormat};
use serde_json::{Value, json};

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures")
        .join(rel)
}

fn stuck() -> analysis::Diagnosis {
    let s = api::load_session(&fixture("goose-stuck/sessions.db"), None).expect("fixture loads");
    analysis::diagnose(&s, &Options::default())
}

#[test]
fn stuck_worker_rereads_store_py_after_both_compactions() {
    let d = stuck();
    assert_eq!(
        d.verdict,
        "stuck re-reading store.py after compactions 1 and 2: 6 re-reads, 708 tokens; \
         spill loop on test_store.py: 2 spill files re-read and capped again, ended in a timeout; \
         mostly exploring: 88% of 16 calls only look",
        "the verdict names the file, both compactions, the spill loop and the exploration share"
    );
    let f = &d.rereads[0];
    assert_eq!(
        f.path, "store.py",
        "cat store.py, ./store.py and the absolute view are one file"
    );
    assert_eq!(
        (f.reads, f.rereads, f.after_compaction, f.while_visible),
        (8, 6, 2, 4),
        "8 reads; the read after the edit (message 9) is fresh, not a re-read"
    );
    assert_eq!(
        f.read_messages,
        vec![1, 5, 9, 14, 18, 31, 33, 35],
        "every read call"
    );
    assert_eq!(
        f.reread_messages,
        vec![5, 14, 18, 31, 33, 35],
        "every re-read call"
    );
    assert_eq!(
        f.compactions,
        vec![1, 2],
        "compaction 1 dropped the read at 9, compaction 2 the one at 18"
    );
    // 432 chars of store.py once, then 479 chars of the edited file five times, chars/4.
    assert_eq!(
        f.tokens,
        432 / 4 + 5 * 479_usize.div_ceil(4),
        "tokens of the re-read results"
    );
    let after: Vec<(usize, Option<usize>, usize)> = d
        .reread_events
        .iter()
        .map(|r| (r.call_index, r.after_compaction, r.previous_index))
        .collect();
    assert_eq!(
        after,
        vec![
            (5, None, 1),
            (14, Some(1), 9),
            (18, None, 14),
            (31, Some(2), 18),
            (33, None, 31),
            (35, None, 33)
        ],
        "each re-read points at the read it repeats and the compaction that dropped it"
    );
}

#[test]
fn stuck_worker_spill_loop_loops_and_exploration() {
    let d = stuck();
    assert_eq!(d.spill_loops.len(), 1, "one spill loop");
    let s = &d.spill_loops[0];
    assert_eq!(
        s.origin, "test_store.py",
        "started by cat test_store.py (8,600 chars, cap 8,000)"
    );
    assert_eq!(
        s.messages,
        vec![20, 22, 24, 26],
        "the original read, then three reads of spill files"
    );
    assert_eq!(s.respilled, 2, "two spill-file reads spilled again");
    assert!(s.ended_in_timeout, "the third spill read timed out");
    assert_eq!(
        s.steps[0].total_bytes,
        Some(8600),
        "the notice's size is kept"
    );

    let kinds: Vec<(LoopKind, Vec<usize>)> = d
        .loops
        .iter()
        .map(|l| (l.kind, l.messages.clone()))
        .collect();
    assert_eq!(
        kinds,
        vec![
            (LoopKind::RepeatedCall, vec![14, 31, 35]),
            (LoopKind::Timeout, vec![26])
        ],
        "cat store.py three times with the same answer and no write between (the read at 1 came \
         before the edit at 7, so it is not part of the loop); one timeout; no error streak (one \
         failure) or long no-write stretch"
    );
    assert_eq!(
        (
            d.exploration.calls,
            d.exploration.look_calls,
            d.exploration.write_calls
        ),
        (16, 14, 1),
        "pytest and the edit are the only non-looking calls"
    );
    assert!(
        (d.exploration_share - 14.0 / 16.0).abs() < 1e-9,
        "share = 14/16"
    );
    assert_eq!(
        d.exploration.seconds_per_call,
        Some(10.0),
        "goose rows are 10 s apart in the fixture"
    );
}

#[test]
fn stuck_worker_summary_losses_and_usable_gate() {
    let d = stuck();
    let usable: Vec<(usize, usize, bool)> = d
        .compactions
        .iter()
        .map(|c| (c.cut_index, c.dropped, c.usable))
        .collect();
    assert_eq!(
        usable,
        vec![(11, 11, false), (28, 15, true)],
        "summary 1 is 153 chars (unusable), summary 2 passes"
    );
    assert_eq!(
        d.compactions[0].problem.as_deref(),
        Some("too short (153 chars, minimum 400)"),
        "the gate says why"
    );
    let losses: Vec<(usize, LossKind, &str, Vec<usize>)> = d
        .summary_losses
        .iter()
        .map(|l| (l.compaction, l.kind, l.value.as_str(), l.messages.clone()))
        .collect();
    let spill = |n: usize| {
        format!(
            "/home/dev/.local/share/goose/mcp_responses/mcp_response_20260301_101500.00000{n}_a{n}.txt"
        )
    };
    let (s1, s2, s3) = (spill(1), spill(2), spill(3));
    assert_eq!(
        losses,
        vec![
            (1, LossKind::Identifier, "open_conn", vec![2, 5, 6, 10]),
            (1, LossKind::Identifier, "RowCache", vec![2, 6, 10]),
            (
                1,
                LossKind::OpenTask,
                "TODO: catch OperationalError around cur.execute and sleep between attempts",
                vec![5]
            ),
            (
                1,
                LossKind::OpenTask,
                "next: check that open_conn() passes the timeout through",
                vec![5]
            ),
            (2, LossKind::Path, s1.as_str(), vec![22]),
            (2, LossKind::Path, s2.as_str(), vec![24]),
            (2, LossKind::Path, s3.as_str(), vec![26]),
            (2, LossKind::Identifier, "open_conn", vec![15, 19]),
            (2, LossKind::Identifier, "RowCache", vec![15, 19]),
        ],
        "store.py, fetch_rows and test_retry survive (summary or preserved ask); the plan, the helper names and the spill paths do not"
    );
}

fn meta(wd: &str, path: &str, format: SourceFormat) -> SessionMeta {
    SessionMeta {
        id: "t".into(),
        format,
        path: path.into(),
        name: "t".into(),
        working_dir: Some(wd.into()),
        created: None,
        updated: None,
        model: None,
        context_limit: None,
        usage: None,
        message_count: 0,
        compaction_count: 0,
        parent_id: None,
    }
}

/// A session of alternating call / result messages.
fn session(calls: &[(&str, Value, &str)]) -> Session {
    let mut messages = Vec::new();
    for (i, (name, args, out)) in calls.iter().enumerate() {
        let id = format!("c{i}");
        messages.push(Message::new(
            messages.len(),
            Role::Assistant,
            vec![Part::ToolCall {
                id: id.clone(),
                name: (*name).into(),
                arguments: args.clone().into(),
            }],
        ));
        messages.push(Message::new(
            messages.len(),
            Role::Tool,
            vec![Part::ToolResult {
                call_id: id,
                text: (*out).into(),
                is_error: false,
                raw: Value::Null.into(),
            }],
        ));
    }
    Session {
        meta: meta("/w", "/nonexistent/t.jsonl", SourceFormat::MessageLog),
        messages: palimpsest_core::model::shared(messages),
        compactions: Vec::new(),
    }
}

#[test]
fn reads_are_recognised_across_tools_and_writes_reset_them() {
    let s = session(&[
        ("Read", json!({"file_path": "/w/src/a.py"}), "A"),
        (
            "shell",
            json!({"command": ["bash", "-lc", "cat src/a.py"]}),
            "A",
        ),
        ("read_file", json!({"path": "./src/a.py"}), "A"),
        (
            "run_shell",
            json!({"command": "cd src && sed -n '1,20p' a.py"}),
            "A",
        ),
        ("Bash", json!({"command": "sed -i 's/x/y/' src/a.py"}), ""),
        (
            "developer__shell",
            json!({"command": "head -n 5 src/a.py | wc -l"}),
            "5",
        ),
        ("exec_command", json!({"cmd": "echo hi > src/a.py"}), ""),
        (
            "developer__text_editor",
            json!({"command": "view", "path": "/w/src/a.py"}),
            "hi",
        ),
        (
            "Write",
            json!({"file_path": "src/b.py", "content": "x"}),
            "ok",
        ),
        (
            "apply_patch",
            json!({"input": "*** Begin Patch\n*** Update File: src/a.py\n@@\n-hi\n+ho\n*** End Patch"}),
            "ok",
        ),
        ("tail", json!({}), ""),
        ("Read", json!({"file_path": "src/a.py"}), "ho"),
    ]);
    let d = analysis::diagnose(&s, &Options::default());
    let f = d
        .rereads
        .iter()
        .find(|f| f.path == "src/a.py")
        .expect("src/a.py was read");
    assert_eq!(
        f.read_messages,
        vec![0, 2, 4, 6, 10, 14, 22],
        "Read, bash -lc cat, read_file, cd+sed -n, head | wc, text_editor view, Read: one file"
    );
    assert_eq!(
        f.reread_messages,
        vec![2, 4, 6],
        "reads 2-4 repeat the first; after sed -i the head read is fresh"
    );
    assert_eq!(
        f.while_visible, 3,
        "no compaction: every re-read is pure waste"
    );
    assert_eq!(
        d.exploration.write_calls, 4,
        "sed -i, > redirect, Write and apply_patch write"
    );
}

#[test]
fn coworker_spill_files_present_missing_and_not_saved() {
    let s = api::load_session(&fixture("coworker/state"), Some("a1b2c3d4e5f6"))
        .expect("coworker fixture loads");
    let r = analysis::review_spills(
        &s,
        &ReviewOptions {
            extra_roots: vec![fixture("coworker/scratch")],
            max_text_bytes: 1 << 20,
            ..Default::default()
        },
    );
    let got: Vec<(Option<usize>, SpillKind, SpillStatus, Option<&str>)> = r
        .spills
        .iter()
        .map(|e| {
            (
                e.message_index,
                e.kind,
                e.status,
                e.path.as_deref().map(|p| p.rsplit('/').next().unwrap_or(p)),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (
                Some(3),
                SpillKind::CapMarker,
                SpillStatus::Present,
                Some("0001-read_file.txt")
            ),
            (
                Some(5),
                SpillKind::CapMarker,
                SpillStatus::Missing,
                Some("0002-run_shell-output.txt")
            ),
            (
                Some(7),
                SpillKind::CompactionTranscript,
                SpillStatus::Present,
                Some("compacted-transcript-upto-0007.md")
            ),
            (
                Some(11),
                SpillKind::CompactionTranscript,
                SpillStatus::Present,
                Some("compacted-transcript-upto-0010.md")
            ),
            (Some(15), SpillKind::CapMarker, SpillStatus::NotSaved, None),
        ],
        "paths recorded on another machine are found by their <sid>/tool-output suffix under the added root"
    );
    let first = &r.spills[0];
    assert_eq!(
        (first.omitted_bytes, first.total_bytes, first.size_bytes),
        (Some(10133), Some(19733), Some(19733)),
        "marker sizes beside the file size"
    );
    assert_eq!(
        first.head_tail_match,
        Some(true),
        "the spill file holds exactly the head, the elided middle and the tail"
    );
    assert_eq!(first.head.len(), 4800, "the head the model saw");
    assert_eq!(
        r.spills[1].omitted_bytes,
        Some(5000),
        "the dict result's marker is found inside its JSON field"
    );
    assert_eq!(
        (r.present, r.missing, r.not_saved, r.needs_confirmation),
        (3, 1, 1, 0),
        "counts"
    );

    let without = analysis::review_spills(
        &s,
        &ReviewOptions {
            scratch_base: Some(PathBuf::from("/nonexistent")),
            ..Default::default()
        },
    );
    assert_eq!(
        without.spills[0].status,
        SpillStatus::Missing,
        "without the root, a path that is nowhere on this machine is missing, not offered for \
         confirmation (issue 45)"
    );
    assert_eq!(
        without.spills[0].resolved.as_deref(),
        Some("/home/dev/OpenWorker/a1b2c3d4e5f6/tool-output/0001-read_file.txt"),
        "with its full path"
    );
}

#[test]
fn goose_spills_recorded_elsewhere_are_missing_and_list_their_readers() {
    let s = api::load_session(&fixture("goose-stuck/sessions.db"), None).unwrap();
    let r = analysis::review_spills(&s, &ReviewOptions::default());
    let got: Vec<(Option<usize>, SpillStatus, Vec<usize>)> = r
        .spills
        .iter()
        .map(|e| (e.message_index, e.status, e.read_by.clone()))
        .collect();
    assert_eq!(
        got,
        vec![
            (Some(21), SpillStatus::Missing, vec![22]),
            (Some(23), SpillStatus::Missing, vec![24]),
            (Some(25), SpillStatus::Missing, vec![26]),
        ],
        "goose's data dir is not a session folder, and not on this machine (the session was \
         recorded elsewhere); each spill was read by the next call"
    );
    assert!(
        r.spills
            .iter()
            .all(|e| e.kind == SpillKind::GooseLargeResponse && e.spill_text.is_none()),
        "nothing outside was opened"
    );
}

#[cfg(unix)]
#[test]
fn confinement_refuses_climbs_absolute_paths_and_symlink_escapes() {
    let root = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "secret").unwrap();
    std::fs::create_dir(root.path().join("tool-output")).unwrap();
    std::fs::write(root.path().join("tool-output/ok.txt"), "fine").unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("secret.txt"),
        root.path().join("tool-output/link.txt"),
    )
    .unwrap();
    std::os::unix::fs::symlink(outside.path(), root.path().join("escape")).unwrap();
    let conf = Confinement::new([root.path().to_owned()]);
    let bases = [root.path().join("tool-output")];

    let ok = conf.resolve("ok.txt", &bases);
    assert!(
        matches!(ok, Resolution::Inside(_)),
        "a file in the root is opened: {ok:?}"
    );
    assert_eq!(read_confined(&ok, 100).unwrap().0, "fine", "and read");
    for raw in [
        "../../etc/passwd",
        "/etc/passwd",
        "link.txt",
        "../escape/secret.txt",
        "../escape/new.txt",
    ] {
        let r = conf.resolve(raw, &bases);
        assert!(
            matches!(r, Resolution::Outside(_)),
            "{raw} must need confirmation, got {r:?}"
        );
        assert!(read_confined(&r, 100).is_err(), "{raw} is never opened");
    }
    assert!(
        matches!(conf.resolve("gone.txt", &bases), Resolution::Missing(_)),
        "a missing file inside is flagged missing"
    );
}

#[test]
fn fleet_over_a_folder_of_sessions() {
    let f = api::diagnose_fleet(
        &fixture("coworker/state"),
        &api::DiagnoseOptions {
            estimate_tokens: true,
            ..Default::default()
        },
    )
    .unwrap();
    let ids: Vec<&str> = f.sessions.iter().map(|r| r.session_id.as_str()).collect();
    assert_eq!(
        ids,
        vec![
            "a1b2c3d4e5f6",
            "0ld5e55i0n01",
            "c0ffee000002",
            "e7e7e7e7e7e7"
        ],
        "one row per session, the stuck one first, then by id"
    );
    assert_eq!(
        (
            f.totals.sessions,
            f.totals.compactions,
            f.totals.usable_summaries
        ),
        (4, 4, 3),
        "the trim has no usable summary"
    );
    assert_eq!(
        (
            f.totals.stuck_sessions,
            f.totals.watch_sessions,
            f.totals.ok_sessions
        ),
        (1, 0, 3),
        "a1b2c3d4e5f6 compacts three times within four requests; the others have no finding"
    );
    assert_eq!(
        f.sessions[0].verdict, "compaction thrash: compactions 1–3 within 1 request",
        "the thrash is named with its numbers"
    );
    assert_eq!(chars_div_4("abcde"), 2, "estimates round up");
}
