//! The coworker sessions the fixtures hold, as the canonical message lists coworker persists
//! (coworker-format.md §1–§3). Every number a test asserts is visible here.
//! Writing them out as coworker stores them is `mod.rs`'s; reading them back is core's.

use serde_json::{Value, json};

/// The main session: two summary compactions and a trim recorded in `compacted` notices, and
/// three capped tool results (spill present, spill missing, "not saved").
pub const MAIN_ID: &str = "a1b2c3d4e5f6";
/// The MAIN-0821-era session whose only compaction record is the `sessions.compaction` column.
pub const OLD_ID: &str = "0ld5e55i0n01";
/// A conversation file with no database row, a malformed middle line and an unfinished last line.
pub const DAMAGED_ID: &str = "c0ffee000002";
/// A row whose messages are the legacy inline `messages` column (no JSONL file).
pub const INLINE_ID: &str = "e7e7e7e7e7e7";

/// Where the sessions' scratch lived on the machine that wrote them.
pub const SCRATCH: &str = "/home/dev/OpenWorker";
/// The headless run's `--out` folder on the machine that wrote it.
pub const HEADLESS_OUT: &str = "/tmp/run-7/out";

const T0: f64 = 1_788_116_000.0;

/// The cap's marker, exactly as `head_tail` writes it.
pub fn marker(omitted: u64, total: u64, spill: Option<&str>) -> String {
    let place = match spill {
        Some(p) => format!(
            "full text saved to {p} (read it with read_file, or run_shell: sed -n '1,200p' \"{p}\")"
        ),
        None => "full text not saved".to_owned(),
    };
    format!("\n[... {omitted} bytes omitted here; this result was {total} bytes; {place} ...]\n")
}

/// The summary the first compaction recorded.
pub const SUMMARY_1: &str = "## 1. Primary request and intent\nBuild the report generator: monthly totals from data/sales.csv into out/report.md.\n## 2. Key concepts and decisions\nTotals per calendar month; amounts in cents.\n## 3. Artifacts and files\ngen.py (report generator).\n## 4. Errors and fixes\ngen.py failed parsing dates (DD/MM vs MM/DD).\n## 5. All user messages\nThe build request.\n## 6. Pending tasks\nFix the date parser.\n## 7. Current work\nDate parsing in gen.py.\n## 8. Next step\nRe-run python gen.py.";

/// The summary the second compaction recorded (folds the first).
pub const SUMMARY_2: &str = "## 1. Primary request and intent\nBuild the report generator: monthly totals from data/sales.csv into out/report.md, by ISO week where asked.\n## 2. Key concepts and decisions\nISO week numbers, not calendar weeks.\n## 3. Artifacts and files\ngen.py, out/report.md.\n## 4. Errors and fixes\nDate parser fixed.\n## 5. All user messages\nThe build request; use ISO weeks.\n## 6. Pending tasks\nNone beyond the request.\n## 7. Current work\nReport regenerated.\n## 8. Next step\nWait for the user.";

/// The working state of the first compaction.
pub const WORKING_1: &str = "## Working state (extracted mechanically from tool records)\nRecent shell commands:\n- python gen.py  [exit 1]\nTools used in the summarized span: read_file, run_shell";

/// The trim fallback's note.
pub const TRIM_NOTE: &str = "(Older turns were trimmed to fit the context window; no summary is available for them. Re-read files and re-run commands if earlier results are needed.)";

/// User messages of the main session.
pub const U1: &str =
    "Build the report generator: read data/sales.csv and write out/report.md with monthly totals.";
/// Second user message.
pub const U2: &str = "Use ISO week numbers, not calendar weeks.";
/// Third user message.
pub const U3: &str = "Also add a chart of the monthly totals.";

fn spill(name: &str) -> String {
    format!("{SCRATCH}/{MAIN_ID}/tool-output/{name}")
}

fn call(id: &str, name: &str, args: Value) -> Value {
    json!({"id": id, "type": "function", "function": {"name": name, "arguments": crate::coworker::pyjson::dumps(&args)}})
}

fn usage(input: u64, output: u64, cache_read: u64) -> Value {
    json!({"model": "openai:gpt-5", "input": input, "output": output, "cache_read": cache_read, "cache_write": 0})
}

/// The full text of the capped `read_file` result (its spill file holds exactly this).
pub fn sales_csv() -> String {
    let mut s = String::from("month,amount_cents\n");
    for i in 0..1500 {
        s.push_str(&format!("2026-{:02},{}\n", i % 12 + 1, 1000 + i * 7));
    }
    s
}

/// The three compaction records of the main session, in order. Each is what coworker's rules
/// give for its span (coworker-format §4): the trim's span (10..11) adds U3 to the carried
/// `[U1, U2]`, and three short messages fit any budget, so nothing is omitted.
pub fn main_records() -> [Value; 3] {
    [
        json!({"boundary_index": 7, "summary_text": SUMMARY_1, "working_state": WORKING_1,
               "user_messages": [U1], "user_messages_dropped": 0, "created_at": T0 + 90.5,
               "model_used": "openai:gpt-5-mini", "trimmed": false,
               "transcript_path": spill("compacted-transcript-upto-0007.md")}),
        json!({"boundary_index": 10, "summary_text": SUMMARY_2, "working_state": "",
               "user_messages": [U1, U2], "user_messages_dropped": 0, "created_at": T0 + 150.25,
               "model_used": "openai:gpt-5-mini", "trimmed": false,
               "transcript_path": spill("compacted-transcript-upto-0010.md")}),
        json!({"boundary_index": 11, "summary_text": format!("{SUMMARY_2}\n\n{TRIM_NOTE}"),
               "working_state": "", "user_messages": [U1, U2, U3], "user_messages_dropped": 0,
               "created_at": T0 + 230.0, "model_used": "", "trimmed": true, "transcript_path": ""}),
    ]
}

/// The main session's 20 stored messages (line index = list index).
pub fn main_session() -> Vec<Value> {
    let csv = sales_csv();
    let total = csv.len() as u64;
    let (head, tail) = (&csv[..4800], &csv[csv.len() - 4800..]);
    let capped_read = format!(
        "{head}{}{tail}",
        marker(total - 9600, total, Some(&spill("0001-read_file.txt")))
    );
    let out_text = "Traceback (most recent call last):\n".repeat(400);
    let shell_output = format!(
        "{}{}{}",
        &out_text[..4500],
        marker(
            out_text.len() as u64 - 9000,
            out_text.len() as u64,
            Some(&spill("0002-run_shell-output.txt"))
        ),
        &out_text[out_text.len() - 4500..]
    );
    let capped_shell = crate::coworker::pyjson::dumps(
        &json!({"command": "python gen.py", "exit_code": 1, "output": shell_output}),
    );
    let chart_log = "plotting month 01..12\n".repeat(700);
    let not_saved = format!(
        "{}{}{}",
        &chart_log[..4800],
        marker(chart_log.len() as u64 - 9600, chart_log.len() as u64, None),
        &chart_log[chart_log.len() - 4800..]
    );
    let [r1, r2, r3] = main_records();
    vec![
        json!({"role": "system", "content": "You are coworker, an AI coworker. Work in /work/sales."}),
        json!({"role": "user", "content": U1, "ts": T0, "source": {"kind": "gui"}}),
        json!({"role": "assistant", "content": "Reading the data first.", "ts": T0 + 5.0, "usage": usage(7168, 259, 0), "finish_reason": "tool_calls", "reasoning": "The CSV decides the parser.", "tool_calls": [call("call_1", "read_file", json!({"path": "data/sales.csv"}))]}),
        json!({"role": "tool", "tool_call_id": "call_1", "content": capped_read, "ts": T0 + 5.1, "timing": {"tool_ms": 12.0}}),
        json!({"role": "assistant", "content": "", "ts": T0 + 20.0, "usage": usage(9500, 80, 7000), "tool_calls": [call("call_2", "run_shell", json!({"command": "python gen.py"}))]}),
        json!({"role": "tool", "tool_call_id": "call_2", "content": capped_shell, "ts": T0 + 21.0}),
        json!({"role": "assistant", "content": "The script failed on the date parser; fixing it.", "ts": T0 + 40.0, "usage": usage(3000, 60, 9000)}),
        json!({"role": "user", "content": U2, "ts": T0 + 60.0}),
        json!({"role": "assistant", "content": "Understood: ISO weeks.", "ts": T0 + 70.0, "usage": usage(2000, 40, 11000)}),
        json!({"role": "notice", "kind": "compacted", "ts": T0 + 90.5, "text": "Context compacted — earlier turns were summarized", "compaction": r1}),
        json!({"role": "user", "content": U3, "ts": T0 + 100.0}),
        json!({"role": "assistant", "content": "", "ts": T0 + 110.0, "usage": usage(2500, 50, 3000), "tool_calls": [call("call_3", "run_shell", json!({"command": "python chart.py"}))]}),
        json!({"role": "tool", "tool_call_id": "call_3", "content": not_saved, "ts": T0 + 112.0}),
        json!({"role": "assistant", "content": "Chart written to out/chart.png.", "ts": T0 + 120.0, "usage": usage(3100, 30, 3000)}),
        json!({"role": "notice", "kind": "compacted", "ts": T0 + 150.25, "text": "Context compacted — earlier turns were summarized", "compaction": r2}),
        json!({"role": "user", "content": "Now write the README.", "ts": T0 + 200.0}),
        json!({"role": "assistant", "content": "README drafted.", "ts": T0 + 210.0, "usage": usage(4000, 900, 2000)}),
        json!({"role": "notice", "kind": "compacted", "ts": T0 + 230.0, "text": "Context trimmed — oldest turns dropped (summary unavailable)", "compaction": r3}),
        json!({"role": "user", "content": "Thanks — ship it.", "ts": T0 + 240.0}),
        json!({"role": "assistant", "content": "Shipped.", "ts": T0 + 250.0, "usage": usage(5000, 120, 2000)}),
    ]
}

/// The old session's column record (MAIN-0821: no `transcript_path` key).
pub fn old_column() -> Value {
    json!({"boundary_index": 3, "summary_text": "Migrating the test suite to pytest; conftest.py started.",
           "working_state": "", "user_messages": ["Migrate the test suite to pytest."],
           "user_messages_dropped": 0, "created_at": T0 - 86_400.0 + 50.0,
           "model_used": "anthropic:claude-sonnet-4-5", "trimmed": false})
}

/// The old session: a MAIN-0821 `compacted` notice carries no record.
pub fn old_session() -> Vec<Value> {
    let t = T0 - 86_400.0;
    vec![
        json!({"role": "system", "content": "You are coworker."}),
        json!({"role": "user", "content": "Migrate the test suite to pytest.", "ts": t}),
        json!({"role": "assistant", "content": "Starting with conftest.py.", "ts": t + 10.0}),
        json!({"role": "user", "content": "Keep the fixtures in one file.", "ts": t + 20.0}),
        json!({"role": "assistant", "content": "Done: fixtures moved to conftest.py.", "ts": t + 30.0}),
        json!({"role": "notice", "kind": "compacted", "ts": t + 50.0, "text": "Context compacted — earlier turns were summarized"}),
        json!({"role": "user", "content": "Run the suite.", "ts": t + 60.0}),
        json!({"role": "assistant", "content": "All 42 tests pass.", "ts": t + 70.0}),
    ]
}

/// The inline-column session (pre-JSONL storage).
pub fn inline_session() -> Vec<Value> {
    vec![
        json!({"role": "user", "content": "Rename the scratch folder.", "ts": T0 - 200_000.0}),
        json!({"role": "assistant", "content": "Renamed to scratch-old.", "ts": T0 - 199_990.0}),
    ]
}

/// The headless run's messages (`messages.json`): one capped result spilled to `out/tool-output`.
pub fn headless_session() -> Vec<Value> {
    let log = "ERROR disk full on /var\nINFO retry\n".repeat(500);
    let p = format!("{HEADLESS_OUT}/tool-output/0001-run_shell.txt");
    let capped = format!(
        "{}{}{}",
        &log[..4800],
        marker(log.len() as u64 - 9600, log.len() as u64, Some(&p)),
        &log[log.len() - 4800..]
    );
    vec![
        json!({"role": "system", "content": "You are coworker, running headless."}),
        json!({"role": "user", "content": "Summarise the errors in logs/.", "ts": T0 + 1000.0}),
        json!({"role": "assistant", "content": "", "ts": T0 + 1005.0, "usage": usage(1200, 40, 0), "tool_calls": [call("call_h1", "run_shell", json!({"command": "cat logs/*.log"}))]}),
        json!({"role": "tool", "tool_call_id": "call_h1", "content": capped, "ts": T0 + 1006.0}),
        json!({"role": "assistant", "content": "One error, repeated: the disk on /var is full.", "ts": T0 + 1010.0, "usage": usage(1500, 30, 1200)}),
    ]
}

/// The headless run's spill: the full log.
pub fn headless_spill() -> String {
    "ERROR disk full on /var\nINFO retry\n".repeat(500)
}
