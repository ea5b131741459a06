//! Message-log fixtures under `fixtures/message-log/`: an OpenAI Chat Completions array, an
//! Anthropic Messages document, a harness JSONL using the interchange (hints, a compaction
//! record, a summary naming its transcript, a bad line, an unfinished last line), and under
//! `foreign/` files of other agents that the message-log reader must not claim.
//! Reading them is `palimpsest-core`'s message-log reader; this only writes them.

use std::path::Path;

use anyhow::{Context, Result};
use serde_json::{Value, json};

use crate::coworker::content::marker;

/// Write everything under `<out>/message-log/`, replacing what is there.
pub fn generate(out: &Path) -> Result<()> {
    let root = out.join("message-log");
    if root.exists() {
        std::fs::remove_dir_all(&root).with_context(|| format!("remove {}", root.display()))?;
    }
    std::fs::create_dir_all(root.join("foreign"))
        .with_context(|| format!("create {}", root.display()))?;
    write(
        &root.join("openai-chat.json"),
        &pretty(&Value::Array(openai())),
    )?;
    write(&root.join("anthropic-messages.json"), &pretty(&anthropic()))?;
    write(&root.join("harness-compaction.jsonl"), &harness())?;
    let f = root.join("foreign");
    write(
        &f.join("claude-like.jsonl"),
        &lines(&[
            json!({"parentUuid": null, "sessionId": "5e1f", "type": "user", "message": {"role": "user", "content": "hi"}}),
        ]),
    )?;
    write(
        &f.join("codex-like.jsonl"),
        &lines(&[
            json!({"timestamp": "2026-08-01T10:00:00Z", "type": "response_item", "payload": {"type": "message", "role": "user", "content": []}}),
        ]),
    )?;
    write(
        &f.join("goose-legacy-like.jsonl"),
        &lines(&[
            json!({"working_dir": "/w", "description": "legacy", "message_count": 1, "total_tokens": null}),
            json!({"role": "user", "created": 1788116000, "content": [{"type": "text", "text": "hi"}]}),
        ]),
    )?;
    Ok(())
}

fn write(p: &Path, text: &str) -> Result<()> {
    std::fs::write(p, text).with_context(|| format!("write {}", p.display()))
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).expect("a Value always serialises") + "\n"
}

fn lines(vs: &[Value]) -> String {
    vs.iter().map(|v| v.to_string() + "\n").collect()
}

fn call(id: &str, name: &str, args: &str) -> Value {
    json!({"id": id, "type": "function", "function": {"name": name, "arguments": args}})
}

/// OpenAI Chat Completions: image part, two tool calls, one denied, one capped unsaved.
pub fn openai() -> Vec<Value> {
    let log = "line of build output\n".repeat(800);
    let capped = format!(
        "{}{}{}",
        &log[..4800],
        marker(log.len() as u64 - 9600, log.len() as u64, None),
        &log[log.len() - 4800..]
    );
    vec![
        json!({"role": "system", "content": "You are a helpful assistant with tools."}),
        json!({"role": "user", "content": [{"type": "text", "text": "What's the weather in Paris? Here is the map."},
                                           {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}]}),
        json!({"role": "assistant", "content": null, "tool_calls": [call("call_abc", "get_weather", "{\"city\":\"Paris\"}")]}),
        json!({"role": "tool", "tool_call_id": "call_abc", "content": "18C, cloudy"}),
        json!({"role": "assistant", "content": null, "tool_calls": [call("call_def", "run_shell", "{\"command\":\"make\"}"), call("call_ghi", "delete_repo", "{}")]}),
        json!({"role": "tool", "tool_call_id": "call_def", "content": capped}),
        json!({"role": "tool", "tool_call_id": "call_ghi", "content": "{\"error\": \"tool call not executed\", \"reason\": \"denied by the user\"}"}),
        json!({"role": "assistant", "content": "It is 18C and cloudy in Paris; the build log was long."}),
    ]
}

/// Anthropic Messages: top-level `system` and `model`, thinking, tool_use, tool_result.
pub fn anthropic() -> Value {
    json!({"model": "claude-sonnet-4-5", "system": "You are terse.", "messages": [
        {"role": "user", "content": "What's the weather in Paris?"},
        {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "I need the weather tool.", "signature": "c2ln"},
            {"type": "text", "text": "Checking."},
            {"type": "tool_use", "id": "toolu_01A", "name": "get_weather", "input": {"city": "Paris"}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_01A", "content": [{"type": "text", "text": "18C, cloudy"}], "is_error": false},
            {"type": "text", "text": "thanks"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "18C and cloudy."}]}
    ]})
}

/// The transcript path the harness's summary names.
pub const TRANSCRIPT: &str = "/srv/agent/transcripts/compacted-transcript-upto-0006.md";
/// The spill file the harness's capped result names.
pub const SPILL: &str = "/srv/agent/spill/0001-read_file.txt";

/// A harness log using the interchange.
pub fn harness() -> String {
    let src = "def parse(line):\n    return line.split(',')\n".repeat(400);
    let capped = format!(
        "{}{}{}",
        &src[..4800],
        marker(src.len() as u64 - 9600, src.len() as u64, Some(SPILL)),
        &src[src.len() - 4800..]
    );
    let block = format!(
        "<compacted-history>\nEarlier turns of this session were compacted. The summary below is your memory of them.\n\n## 1. Primary request and intent\nPort utils.py to Rust.\n\nThe verbatim transcript of the compacted turns (every message, tool call and tool result, without your private reasoning) is saved at {TRANSCRIPT}. If a detail you need is missing from the summary, read that file (read_file, or run_shell with grep / sed -n) instead of guessing.\n\nContinue where you left off.\n</compacted-history>"
    );
    let mut out = lines(&[
        json!({"role": "system", "content": "You are a coding agent."}),
        json!({"role": "user", "content": "Port utils.py to Rust.", "agent_visible": true, "timestamp": "2026-08-31T10:00:00Z"}),
        json!({"role": "assistant", "content": null, "tool_calls": [call("call_a", "read_file", "{\"path\": \"utils.py\"}")]}),
        json!({"role": "tool", "tool_call_id": "call_a", "content": capped}),
        json!({"role": "assistant", "content": "utils.py has one function, parse."}),
        json!({"role": "user", "content": "<reminder>Keep the tests green.</reminder>", "user_visible": false}),
        json!({"compaction": {"trigger": "auto", "pre_tokens": 150000, "post_tokens": 12000}}),
        json!({"role": "user", "kind": "summary", "content": block, "timestamp": "2026-08-31T10:05:00Z"}),
        json!({"role": "assistant", "content": "Context compacted.", "kind": "notification", "agent_visible": false}),
    ]);
    out.push_str("{\"role\": \"assistant\", \"content\": oops}\n");
    out.push_str(&lines(&[json!({"role": "assistant", "content": "Ported parse(); cargo test passes.", "timestamp": "2026-08-31T10:09:00Z"})]));
    out.push_str("{\"role\": \"user\", \"content\": \"next");
    out
}
