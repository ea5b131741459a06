//! Codex rollout fixtures under `fixtures/codex/sessions/YYYY/MM/DD/`, shaped like CLI 0.77 /
//! 0.104 rollouts (transcript-formats.md §2): a remote compaction (`compacted` with
//! `replacement_history` and an encrypted `compaction` item), a local compaction (`compacted`
//! with only `message`), an unanswered `function_call` followed by a resume, and a damaged file
//! (a malformed middle line and an unfinished last line). The folder works as `$CODEX_HOME`.

use std::path::Path;

use anyhow::{Context, Result};
use serde_json::{Value, json};

/// Write everything under `<out>/codex/`, replacing what is there.
pub fn generate(out: &Path) -> Result<()> {
    let root = out.join("codex");
    if root.exists() {
        std::fs::remove_dir_all(&root).with_context(|| format!("remove {}", root.display()))?;
    }
    let day = root.join("sessions/2026/02/24");
    std::fs::create_dir_all(&day).with_context(|| format!("create {}", day.display()))?;
    let files: [(&str, Vec<Value>, &str); 4] = [
        (
            "rollout-2026-02-24T10-51-00-019c8f0a-0000-7000-8000-00000000a001.jsonl",
            remote(),
            "",
        ),
        // Named after another id on purpose: the session id comes from session_meta.
        (
            "rollout-2026-02-24T11-05-00-renamed-copy.jsonl",
            local(),
            "",
        ),
        (
            "rollout-2026-02-24T12-00-00-019c8f0a-0000-7000-8000-00000000a003.jsonl",
            unanswered(),
            "",
        ),
        (
            "rollout-2026-02-24T13-00-00-019c8f0a-0000-7000-8000-00000000a004.jsonl",
            damaged(),
            r#"{"timestamp":"2026-02-24T13:00:09.000Z","type":"response_item","payload":{"type":"mess"#,
        ),
    ];
    for (name, lines, tail) in files {
        let mut text = String::new();
        for l in &lines {
            // A Value::String is a raw line written as is (the damaged file's bad line).
            match l {
                Value::String(raw) => text.push_str(raw),
                v => text.push_str(&serde_json::to_string(v)?),
            }
            text.push('\n');
        }
        text.push_str(tail);
        let path = day.join(name);
        std::fs::write(&path, text).with_context(|| format!("write {}", path.display()))?;
    }
    Ok(())
}

pub(crate) fn ts(h: u32, m: u32, s: u32) -> String {
    format!("2026-02-24T{h:02}:{m:02}:{s:02}.000Z")
}

pub(crate) fn line(t: &str, kind: &str, payload: Value) -> Value {
    json!({ "timestamp": t, "type": kind, "payload": payload })
}

pub(crate) fn meta(t: &str, id: &str) -> Value {
    line(
        t,
        "session_meta",
        json!({
            "id": id, "timestamp": t, "cwd": "/home/u/proj", "originator": "codex_cli_rs",
            "cli_version": "0.104.0", "instructions": null, "source": "cli", "model_provider": "openai",
            "git": { "commit_hash": "abc123", "branch": "main", "repository_url": "git@example.com:u/proj.git" }
        }),
    )
}

pub(crate) fn turn(t: &str) -> Value {
    line(
        t,
        "turn_context",
        json!({ "cwd": "/home/u/proj", "approval_policy": "on-request",
                "sandbox_policy": { "type": "workspace-write", "network_access": false },
                "model": "gpt-5.3-codex", "effort": "medium", "summary": "auto" }),
    )
}

pub(crate) fn msg(t: &str, role: &str, text: &str) -> Value {
    let kind = if role == "assistant" {
        "output_text"
    } else {
        "input_text"
    };
    line(
        t,
        "response_item",
        json!({ "type": "message", "role": role, "content": [{ "type": kind, "text": text }] }),
    )
}

pub(crate) fn user_event(t: &str, text: &str) -> Value {
    line(
        t,
        "event_msg",
        json!({ "type": "user_message", "message": text, "images": [] }),
    )
}

pub(crate) fn call(t: &str, id: &str, cmd: &str) -> Value {
    let args = json!({ "cmd": cmd, "workdir": "/home/u/proj" }).to_string();
    line(
        t,
        "response_item",
        json!({ "type": "function_call", "name": "exec_command", "arguments": args, "call_id": id }),
    )
}

pub(crate) fn output(t: &str, id: &str, out: &str) -> Value {
    line(
        t,
        "response_item",
        json!({ "type": "function_call_output", "call_id": id, "output": out }),
    )
}

pub(crate) fn tokens(t: &str, last_total: u64, total: u64) -> Value {
    let usage = |n: u64| {
        json!({ "input_tokens": n - 1000, "cached_input_tokens": n / 2,
        "output_tokens": 1000, "reasoning_output_tokens": 200, "total_tokens": n })
    };
    line(
        t,
        "event_msg",
        json!({ "type": "token_count", "info": { "total_token_usage": usage(total),
            "last_token_usage": usage(last_total), "model_context_window": 258_400 },
            "rate_limits": null }),
    )
}

pub(crate) fn head(id: &str, h: u32) -> Vec<Value> {
    vec![
        meta(&ts(h, 0, 0), id),
        msg(
            &ts(h, 0, 0),
            "developer",
            "<permissions instructions>workspace-write</permissions instructions>",
        ),
        msg(
            &ts(h, 0, 0),
            "user",
            "<environment_context>\n  <cwd>/home/u/proj</cwd>\n</environment_context>",
        ),
        turn(&ts(h, 0, 1)),
    ]
}

/// A rollout that switches model between turns (`turn_context.model` gpt-5, then gpt-5-mini,
/// then gpt-5 again), with a count reported before its answer, a count whose input is 0 (its
/// total the session's), and a remote compaction answered by one more request: what per-model
/// pricing and a cut's sizes before and after are tested on. Written by the tests, not kept in
/// `fixtures/` (its session would change every listing of the folder).
pub fn switching_models() -> Vec<Value> {
    let id = "019c8f0a-0000-7000-8000-00000000a005";
    let turn_of = |t: &str, model: &str| {
        line(
            t,
            "turn_context",
            json!({ "cwd": "/home/u/proj", "approval_policy": "on-request",
                    "sandbox_policy": { "type": "workspace-write" }, "model": model }),
        )
    };
    let count = |t: &str, input: u64, cached: u64, output: u64, total: u64| {
        let last = json!({ "input_tokens": input, "cached_input_tokens": cached,
            "output_tokens": output, "reasoning_output_tokens": 0, "total_tokens": input + output });
        line(
            t,
            "event_msg",
            json!({ "type": "token_count", "info": { "total_token_usage": { "total_tokens": total },
                "last_token_usage": last, "model_context_window": 258_400 } }),
        )
    };
    let mut v = vec![meta(&ts(14, 0, 0), id)];
    v.extend([
        turn_of(&ts(14, 0, 1), "gpt-5"),
        user_event(&ts(14, 0, 2), "Profile the parser."),
        msg(&ts(14, 0, 2), "user", "Profile the parser."),
        msg(&ts(14, 0, 5), "assistant", "The tokenizer takes 80% of the time."),
        count(&ts(14, 0, 5), 100_000, 60_000, 2_000, 102_000),
        turn_of(&ts(14, 1, 0), "gpt-5-mini"),
        user_event(&ts(14, 1, 1), "Summarise that in one line."),
        msg(&ts(14, 1, 1), "user", "Summarise that in one line."),
        msg(&ts(14, 1, 3), "assistant", "Tokenizer: 80%."),
        count(&ts(14, 1, 3), 50_000, 40_000, 500, 152_500),
        // Billed, but reported before its answer: it rides on the gpt-5-mini answer.
        count(&ts(14, 1, 4), 52_000, 50_000, 300, 152_800),
        turn_of(&ts(14, 2, 0), "gpt-5"),
        user_event(&ts(14, 2, 1), "Now speed it up."),
        msg(&ts(14, 2, 1), "user", "Now speed it up."),
        msg(&ts(14, 2, 9), "assistant", "Rewrote the tokenizer loop."),
        count(&ts(14, 2, 9), 240_000, 200_000, 4_000, 396_800),
        // A count with no input whose last total is the session's (as a real rollout wrote
        // one): it is not one request's context.
        line(
            &ts(14, 2, 10),
            "event_msg",
            json!({ "type": "token_count", "info": { "total_token_usage": { "total_tokens": 940_499 },
                "last_token_usage": { "input_tokens": 0, "cached_input_tokens": 0, "output_tokens": 0,
                    "reasoning_output_tokens": 0, "total_tokens": 940_499 },
                "model_context_window": 258_400 } }),
        ),
        line(
            &ts(14, 3, 0),
            "compacted",
            json!({ "message": "", "replacement_history": [
                { "type": "message", "role": "user", "content": [{ "type": "input_text", "text": "Now speed it up." }] },
                { "type": "compaction", "encrypted_content": "gAAAAopaque" }
            ]}),
        ),
        line(&ts(14, 3, 0), "event_msg", json!({ "type": "context_compacted" })),
        turn_of(&ts(14, 3, 1), "gpt-5"),
        msg(&ts(14, 3, 5), "assistant", "Benchmarks: 2.1x faster."),
        count(&ts(14, 3, 5), 31_000, 20_000, 1_000, 428_800),
    ]);
    v
}

/// Remote compaction: 2 prompts, a tool pair, then `compacted` with a replacement history of
/// 4 items (2 user, 1 assistant, 1 compaction), then one more turn.
fn remote() -> Vec<Value> {
    let mut v = head("019c8f0a-0000-7000-8000-00000000a001", 10);
    v.extend([
        user_event(&ts(10, 0, 2), "Port the parser to streaming."),
        msg(&ts(10, 0, 2), "user", "Port the parser to streaming."),
        line(
            &ts(10, 0, 3),
            "response_item",
            json!({ "type": "reasoning", "summary": [{ "type": "summary_text", "text": "Looking at the parser" }],
                    "content": null, "encrypted_content": "gAAAAenc1" }),
        ),
        call(&ts(10, 0, 4), "call_r1", "rg -n parse src"),
        output(&ts(10, 0, 5), "call_r1", "src/parse.rs:1:fn parse()"),
        msg(&ts(10, 0, 6), "assistant", "The parser reads whole files."),
        tokens(&ts(10, 0, 6), 240_000, 480_000),
        user_event(&ts(10, 0, 7), "Keep going."),
        msg(&ts(10, 0, 7), "user", "Keep going."),
        tokens(&ts(10, 0, 8), 251_000, 731_000),
        line(
            &ts(10, 51, 48),
            "compacted",
            json!({ "message": "", "replacement_history": [
                { "type": "message", "role": "user", "content": [{ "type": "input_text", "text": "Port the parser to streaming." }] },
                { "type": "message", "role": "user", "content": [{ "type": "input_text", "text": "Keep going." }] },
                { "type": "message", "role": "assistant", "content": [{ "type": "output_text", "text": "The parser reads whole files." }], "phase": "final_answer" },
                { "type": "compaction", "encrypted_content": "gAAAAcompacted-summary-opaque" }
            ]}),
        ),
        line(
            &ts(10, 51, 48),
            "event_msg",
            json!({ "type": "context_compacted" }),
        ),
        turn(&ts(10, 51, 49)),
        msg(&ts(10, 52, 0), "assistant", "Streaming version written."),
        tokens(&ts(10, 52, 0), 30_000, 761_000),
    ]);
    v
}

/// Local compaction: a prompt, a tool pair, then `compacted{message}` (no replacement history).
fn local() -> Vec<Value> {
    let mut v = head("019c8f0a-0000-7000-8000-00000000a002", 11);
    v.extend([
        user_event(&ts(11, 5, 2), "Add a CHANGELOG entry."),
        msg(&ts(11, 5, 2), "user", "Add a CHANGELOG entry."),
        call(&ts(11, 5, 3), "call_l1", "cat CHANGELOG.md"),
        output(
            &ts(11, 5, 4),
            "call_l1",
            r##"{"output":"# Changelog\n","metadata":{"exit_code":0,"duration_seconds":0.1}}"##,
        ),
        line(
            &ts(11, 5, 5),
            "response_item",
            json!({ "type": "custom_tool_call", "status": "completed", "call_id": "call_l2", "name": "apply_patch",
                    "input": "*** Begin Patch\n*** Update File: CHANGELOG.md\n+- streaming parser\n*** End Patch" }),
        ),
        line(
            &ts(11, 5, 6),
            "response_item",
            json!({ "type": "custom_tool_call_output", "call_id": "call_l2", "output": "Done!" }),
        ),
        tokens(&ts(11, 5, 6), 200_000, 200_000),
        turn(&ts(11, 6, 0)),
        line(
            &ts(11, 6, 30),
            "compacted",
            json!({ "message": "Another language model started to solve this problem and produced a summary of its thinking process.\nThe CHANGELOG entry was added.", "replacement_history": null }),
        ),
        line(
            &ts(11, 6, 30),
            "event_msg",
            json!({ "type": "context_compacted" }),
        ),
        user_event(&ts(11, 7, 0), "Thanks. Now tag a release."),
        msg(&ts(11, 7, 0), "user", "Thanks. Now tag a release."),
        msg(&ts(11, 7, 5), "assistant", "Tagged v0.2.0."),
    ]);
    v
}

/// An interrupted call: `call_u1` never gets an output; after the abort the session resumes
/// with a developer note and a new prompt, and `call_u2` is answered.
fn unanswered() -> Vec<Value> {
    let mut v = head("019c8f0a-0000-7000-8000-00000000a003", 12);
    v.extend([
        user_event(&ts(12, 0, 2), "Run the full test suite."),
        msg(&ts(12, 0, 2), "user", "Run the full test suite."),
        call(&ts(12, 0, 3), "call_u1", "cargo test --workspace"),
        line(
            &ts(12, 0, 40),
            "event_msg",
            json!({ "type": "turn_aborted", "reason": "interrupted" }),
        ),
        turn(&ts(12, 1, 0)),
        msg(
            &ts(12, 1, 0),
            "developer",
            "The previous turn was interrupted by the user.",
        ),
        user_event(&ts(12, 1, 0), "Only the core crate, please."),
        msg(&ts(12, 1, 0), "user", "Only the core crate, please."),
        call(&ts(12, 1, 1), "call_u2", "cargo test -p core"),
        output(
            &ts(12, 1, 9),
            "call_u2",
            "Exit code: 0\ntest result: ok. 12 passed",
        ),
        msg(&ts(12, 1, 10), "assistant", "All 12 core tests pass."),
    ]);
    v
}

/// A rollout with a malformed middle line; its unfinished last line is added by `generate`.
fn damaged() -> Vec<Value> {
    let mut v = head("019c8f0a-0000-7000-8000-00000000a004", 13);
    v.extend([
        msg(&ts(13, 0, 2), "user", "Hello"),
        Value::String(r#"{"timestamp":"2026-02-24T13:00:03.000Z","type":"response_item","payload":{"type":"message",,}}"#.into()),
        msg(&ts(13, 0, 4), "assistant", "Hi there."),
    ]);
    v
}
