//! `replay::verify` on the coworker fixtures: the sessions written as the harness behaves check
//! out with no difference, and a record tampered with in a copy reports exactly that field.

use std::path::{Path, PathBuf};

use palimpsest_core::api;
use palimpsest_core::replay::options::{PolicyName, ReplayOptions};
use palimpsest_core::replay::pyjson;
use palimpsest_core::replay::verify::{CompactionCheck, LineDifference, VerifyReport};
use serde_json::{Value, json};

const MAIN: &str = "a1b2c3d4e5f6";
const OLD: &str = "0ld5e55i0n01";
const U1: &str =
    "Build the report generator: read data/sales.csv and write out/report.md with monthly totals.";
const U2: &str = "Use ISO week numbers, not calendar weeks.";
const U3: &str = "Also add a chart of the monthly totals.";

fn state() -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/coworker/state"
    ))
}

fn verify(dir: &Path, id: &str) -> VerifyReport {
    verify_with(dir, id, None)
}

/// `replay --verify` of session `id` at `window` tokens (`None`: the session's, else 128 000).
fn verify_with(dir: &Path, id: &str, window: Option<u64>) -> VerifyReport {
    let s = api::load_session(dir, Some(id)).unwrap();
    api::replay_verify(
        &s,
        &ReplayOptions {
            policy: PolicyName::Coworker,
            context_window: window,
            ..ReplayOptions::default()
        },
    )
}

/// A copy of the state folder whose older-harness session holds `lines` and keeps `latest` in
/// its `sessions.compaction` column (the older harness records nothing else).
fn older_state_folder(lines: &[Value], latest: &Value) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let conv = tmp.path().join("conversations");
    std::fs::create_dir_all(&conv).unwrap();
    std::fs::copy(state().join("coworker.db"), tmp.path().join("coworker.db")).unwrap();
    let text: String = lines.iter().map(|l| pyjson::dumps(l) + "\n").collect();
    std::fs::write(conv.join(format!("{OLD}.jsonl")), text).unwrap();
    let db = rusqlite::Connection::open(tmp.path().join("coworker.db")).unwrap();
    db.execute(
        "UPDATE sessions SET compaction = ?1 WHERE session_id = ?2",
        rusqlite::params![pyjson::dumps(latest), OLD],
    )
    .unwrap();
    tmp
}

/// The names of the fields that differ.
fn differing(c: &CompactionCheck) -> Vec<&str> {
    c.fields
        .iter()
        .filter(|f| !f.equal)
        .map(|f| f.name.as_str())
        .collect()
}

/// A copy of the state folder whose main conversation has line `line` (1-based) edited.
fn tampered(line: usize, edit: impl FnOnce(&mut Value)) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let conv = tmp.path().join("conversations");
    std::fs::create_dir_all(&conv).unwrap();
    std::fs::copy(state().join("coworker.db"), tmp.path().join("coworker.db")).unwrap();
    let file = format!("{MAIN}.jsonl");
    let text = std::fs::read_to_string(state().join("conversations").join(&file)).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let mut v: Value = serde_json::from_str(&lines[line - 1]).unwrap();
    edit(&mut v);
    lines[line - 1] = pyjson::dumps(&v);
    std::fs::write(conv.join(&file), lines.join("\n") + "\n").unwrap();
    tmp
}

#[test]
fn main_session_as_the_harness_wrote_it_has_no_difference() {
    let r = verify(&state(), MAIN);
    assert_eq!(
        r.user_budget, 8_192,
        "128k window: 8% of the 102 400 trigger"
    );
    let shape: Vec<(usize, usize, usize, bool, bool)> = r
        .compactions
        .iter()
        .map(|c| {
            (
                c.cut_index,
                c.boundary_index,
                c.span_start,
                c.trimmed,
                c.legacy,
            )
        })
        .collect();
    assert_eq!(
        shape,
        vec![
            (7, 7, 0, false, false),
            (11, 10, 7, false, false),
            (13, 11, 10, true, false)
        ],
        "two summaries and a trim, each span starting at the previous boundary"
    );
    for c in &r.compactions {
        let names: Vec<&str> = c.fields.iter().map(|f| f.name.as_str()).collect();
        let mut want = vec!["working_state", "user_messages", "user_messages_dropped"];
        if c.trimmed {
            want.push("summary_text");
        }
        assert_eq!(names, want, "fields checked at #{}", c.cut_index);
        assert_eq!(
            differing(c),
            Vec::<&str>::new(),
            "no field differs at #{}",
            c.cut_index
        );
        assert!(c.block_equal, "block equal at #{}", c.cut_index);
        assert_eq!(
            c.first_difference, None,
            "no line differs at #{}",
            c.cut_index
        );
    }
    assert_eq!(
        r.compactions[0].fields[0].derived,
        json!(
            "## Working state (extracted mechanically from tool records)\nRecent shell commands:\n- python gen.py  [exit 1]\nTools used in the summarized span: read_file, run_shell"
        ),
        "the first span's shell command with its exit status from the capped dict result"
    );
    assert_eq!(
        r.compactions[2].fields[1].derived,
        json!([U1, U2, U3]),
        "the trim carries [U1, U2] and adds U3: three short messages fit the budget"
    );
    assert!(r.all_equal, "the fixture follows the documented rules");
}

#[test]
fn old_session_column_record_checks_out_with_the_legacy_rules() {
    let r = verify(&state(), OLD);
    assert_eq!(r.compactions.len(), 1, "only the column record");
    let c = &r.compactions[0];
    assert_eq!(
        (c.cut_index, c.boundary_index, c.legacy, c.trimmed),
        (3, 3, true, false),
        "no transcript_path key: MAIN-0821 layout and rules"
    );
    assert_eq!(
        c.fields[1].derived,
        json!(["Migrate the test suite to pytest."]),
        "the one user message before the boundary"
    );
    assert!(r.all_equal, "the old session follows its rules: {r:?}");
}

#[test]
fn tampered_omitted_count_is_reported_as_exactly_that_field() {
    // Line 18 is the trim's notice (boundary 11); the column repeats it but is deduplicated.
    let tmp = tampered(18, |v| v["compaction"]["user_messages_dropped"] = json!(2));
    let r = verify(tmp.path(), MAIN);
    assert!(!r.all_equal, "a difference exists");
    let per: Vec<Vec<&str>> = r.compactions.iter().map(differing).collect();
    assert_eq!(
        per,
        vec![vec![], vec![], vec!["user_messages_dropped"]],
        "only the trim's omitted count differs"
    );
    let f = &r.compactions[2].fields[2];
    assert_eq!(
        (&f.recorded, &f.derived),
        (&json!(2), &json!(0)),
        "2 recorded, 0 derived"
    );
    assert!(!r.compactions[2].block_equal, "the block says so too");
    assert_eq!(
        r.compactions[2].first_difference,
        Some(LineDifference {
            line: 25,
            column: 3,
            recorded: Some(
                "- (2 older user messages omitted here — their intent is covered by the summary above)"
                    .into()
            ),
            derived: Some(format!("- {U2}")),
        }),
        "the omitted note stands where the derived block has U2"
    );
}

#[test]
fn tampered_user_message_is_reported_where_it_was_edited_and_where_it_was_carried() {
    // Line 15 is the second compaction's notice (boundary 10), whose list the trim carries on.
    let tmp = tampered(15, |v| {
        v["compaction"]["user_messages"][1] = json!("Use calendar weeks.")
    });
    let r = verify(tmp.path(), MAIN);
    let per: Vec<Vec<&str>> = r.compactions.iter().map(differing).collect();
    assert_eq!(
        per,
        vec![vec![], vec!["user_messages"], vec!["user_messages"]],
        "the edited record differs, and the trim (which carries it) no longer follows from it"
    );
    assert_eq!(
        r.compactions[1].fields[1].recorded,
        json!([U1, "Use calendar weeks."]),
        "the edit as recorded"
    );
    assert_eq!(
        r.compactions[1].fields[1].derived,
        json!([U1, U2]),
        "what the span gives"
    );
    let d = r.compactions[1].first_difference.clone().unwrap();
    assert_eq!(
        (d.column, d.recorded.as_deref(), d.derived),
        (7, Some("- Use calendar weeks."), Some(format!("- {U2}"))),
        "the bullet of the edited message, from its first differing character"
    );
}

#[test]
fn a_state_built_on_unrecorded_ones_cannot_be_verified_and_is_no_difference() {
    use palimpsest_core::sources::coworker::block::TRIM_NOTE;
    // The older harness compacted three times, wrote three record-less notices, and kept only
    // the last state (a trim, which prepends the earlier summary) in `sessions.compaction`.
    let t = 1_788_000_000.0;
    let notice = |k: f64, text: &str| json!({"role": "notice", "kind": "compacted", "ts": t + k, "text": text});
    let turn = |k: f64, u: &str, a: &str| {
        vec![
            json!({"role": "user", "content": u, "ts": t + k}),
            json!({"role": "assistant", "content": a, "ts": t + k + 5.0}),
        ]
    };
    let mut lines = vec![json!({"role": "system", "content": "You are coworker."})];
    lines.extend(turn(
        0.0,
        "Migrate the test suite to pytest.",
        "Starting with conftest.py.",
    ));
    lines.push(notice(
        10.0,
        "Context compacted — earlier turns were summarized",
    ));
    lines.extend(turn(
        20.0,
        "Keep the fixtures in one file.",
        "Fixtures moved.",
    ));
    lines.push(notice(
        30.0,
        "Context compacted — earlier turns were summarized",
    ));
    lines.extend(turn(40.0, "Run the suite.", "41 of 42 pass."));
    lines.push(notice(
        50.0,
        "Context trimmed — oldest turns dropped (summary unavailable)",
    ));
    lines.extend(turn(60.0, "Fix the last one.", "All 42 tests pass."));
    let earlier = "Migrating the test suite to pytest; conftest.py started.";
    let latest = json!({"boundary_index": 9, "summary_text": format!("{earlier}\n\n{TRIM_NOTE}"),
        "working_state": "", "user_messages": ["Migrate the test suite to pytest.", "Keep the fixtures in one file.", "Run the suite."],
        "user_messages_dropped": 0, "created_at": t + 50.0, "model_used": "", "trimmed": true});
    let tmp = older_state_folder(&lines, &latest);
    let r = verify(tmp.path(), OLD);
    assert_eq!(r.compactions.len(), 1, "one state survives");
    let c = &r.compactions[0];
    assert_eq!(
        c.unverifiable.as_deref(),
        Some(
            "earlier states were not recorded: cannot verify (2 earlier compactions left only a \
             notice, and this state was built on them; coworker's rules give no boundary at the \
             first at a 128000-token window)"
        ),
        "the trim's summary chains an earlier one nobody recorded"
    );
    assert!(
        !c.equal(),
        "derived as if it were the first compaction, the chained summary would not match"
    );
    assert!(
        r.all_equal,
        "so it is reported as unverifiable, never as a difference"
    );
}

/// An older-harness session (record-less notices, the last state in `sessions.compaction`)
/// with two compactions at a 2 000-token window: the first at boundary 5, the second at 10.
/// Built to coworker's stored shape; the boundaries are the ones coworker's `pick_boundary`
/// gives over these lines.
fn older_harness_session(latest: &Value) -> tempfile::TempDir {
    let t = 1_788_000_000.0;
    let conftest: String = std::iter::once("import pytest\n\n".to_owned())
        .chain((0..22).map(|i| format!("@pytest.fixture\ndef fx{i}():\n    return {i}\n\n")))
        .collect();
    let fixtures: String = (0..22)
        .map(|i| format!("def make_{i}():\n    return dict(id={i})\n\n"))
        .collect();
    let output: String = (0..30)
        .map(|i| format!("tests/test_mod{i}.py ....  [{}%]\n", i * 2))
        .chain(std::iter::once("42 passed in 3.1s".to_owned()))
        .collect();
    let call = |i: u32, name: &str, args: Value| {
        json!([{"id": format!("call_{i}"), "type": "function",
                "function": {"name": name, "arguments": pyjson::dumps(&args)}}])
    };
    let ok = pyjson::dumps(&json!({"ok": true}));
    let compacted = "Context compacted — earlier turns were summarized";
    let lines = [
        json!({"role": "system", "content": "You are coworker."}),
        json!({"role": "user", "content": "Migrate the test suite to pytest.", "ts": t}),
        json!({"role": "assistant", "content": "", "tool_calls": call(1, "write_file", json!({"path": "tests/conftest.py", "content": conftest})), "ts": t + 5.0}),
        json!({"role": "tool", "tool_call_id": "call_1", "content": ok, "ts": t + 6.0}),
        json!({"role": "assistant", "content": "conftest.py written.", "ts": t + 8.0}),
        json!({"role": "user", "content": "Keep the fixtures in one file.", "ts": t + 20.0}),
        json!({"role": "assistant", "content": "", "tool_calls": call(2, "write_file", json!({"path": "tests/fixtures.py", "content": fixtures})), "ts": t + 25.0}),
        json!({"role": "tool", "tool_call_id": "call_2", "content": ok, "ts": t + 26.0}),
        json!({"role": "assistant", "content": "Fixtures moved.", "ts": t + 28.0}),
        json!({"role": "notice", "kind": "compacted", "ts": t + 30.0, "text": compacted}),
        json!({"role": "user", "content": "Run the suite.", "ts": t + 40.0}),
        json!({"role": "assistant", "content": "", "tool_calls": call(3, "run_shell", json!({"command": "pytest -q"})), "ts": t + 45.0}),
        json!({"role": "tool", "tool_call_id": "call_3", "content": pyjson::dumps(&json!({"command": "pytest -q", "exit_code": 0, "output": output, "truncated": false})), "ts": t + 50.0}),
        json!({"role": "assistant", "content": "All 42 tests pass.", "ts": t + 52.0}),
        json!({"role": "notice", "kind": "compacted", "ts": t + 60.0, "text": compacted}),
        json!({"role": "user", "content": "Thanks.", "ts": t + 70.0}),
        json!({"role": "assistant", "content": "You are welcome.", "ts": t + 75.0}),
    ];
    older_state_folder(&lines, latest)
}

/// The older harness's last state (boundary 10) with the given working state.
fn older_state(working_state: &str) -> Value {
    json!({"boundary_index": 10, "summary_text": "## 1. Primary request and intent\nMigrate the suite.",
        "working_state": working_state,
        "user_messages": ["Migrate the test suite to pytest.", "Keep the fixtures in one file."],
        "user_messages_dropped": 0, "created_at": 1_788_000_060.0, "model_used": "openai:gpt-5-mini",
        "trimmed": false})
}

#[test]
fn a_legacy_state_is_checked_over_the_span_since_the_compaction_nobody_recorded() {
    // The legacy rules build the working state from the messages since the previous
    // compaction (5..10: the fixtures file), not from the whole history (which also wrote
    // conftest.py). That compaction left only a notice; its boundary is re-derived.
    let since = "## Working state (extracted mechanically from tool records)\n\
                 Files written/edited (most recent first):\n- tests/fixtures.py\n\
                 Tools used in the summarized span: write_file";
    let tmp = older_harness_session(&older_state(since));
    let r = verify_with(tmp.path(), OLD, Some(2_000));
    assert_eq!(r.compactions.len(), 1, "one state survives");
    let c = &r.compactions[0];
    assert_eq!(
        (c.boundary_index, c.span_start, c.derived_earlier, c.legacy),
        (10, 5, 1, true),
        "the span starts at the re-derived boundary 5"
    );
    assert_eq!(c.unverifiable, None);
    assert!(c.equal(), "as the harness built it: {:?}", differing(c));
    assert!(r.all_equal);

    // The same record with the whole history's working state is a difference, named.
    let whole = "## Working state (extracted mechanically from tool records)\n\
                 Files written/edited (most recent first):\n- tests/fixtures.py\n- tests/conftest.py\n\
                 Tools used in the summarized span: write_file";
    let tmp = older_harness_session(&older_state(whole));
    let r = verify_with(tmp.path(), OLD, Some(2_000));
    let c = &r.compactions[0];
    assert_eq!(differing(c), ["working_state"]);
    assert!(c.differs() && !r.all_equal);

    // At the default window coworker's rules give no boundary at the first notice (everything
    // fits the keep budget), so the chain cannot be rebuilt: unverifiable, no difference.
    let tmp = older_harness_session(&older_state(since));
    let r = verify_with(tmp.path(), OLD, Some(128_000));
    let c = &r.compactions[0];
    assert_eq!(
        c.unverifiable.as_deref(),
        Some(
            "earlier states were not recorded: cannot verify (1 earlier compaction left only a \
             notice, and this state was built on it; coworker's rules give no boundary at the \
             first at a 128000-token window)"
        )
    );
    assert!(r.all_equal);
}
