//! Bench: reading speed of the line-oriented harness readers per MB, beside Claude Code's.
//!
//! `cargo bench -p palimpsest-core --bench harness_read` (size of each file in MB via
//! `PALIMPSEST_BENCH_MB`, default 40). For each of two shapes — every tool result the same text
//! (one file read again and again), and every result distinct (many files and outputs) — it
//! writes the same conversation in Claude Code's, Gemini CLI's, Qwen Code's, Copilot CLI's,
//! OpenCode's and Crush's (SQLite rows), Cline's (one JSON array) and Aider's (a Markdown chat log) own
//! record shapes (a prompt; an answer with a thought and a read call, which Gemini CLI
//! writes twice, as it does while the call runs; the call's result),
//! then times a whole load through `sources::open`, as `show` does, and prints MB/s and each
//! reader's ratio to Claude Code's (above 1: faster per MB). `PALIMPSEST_BENCH_ONLY=NAME` times
//! one of them beside Claude Code's; `PALIMPSEST_BENCH_KEEP=DIR` keeps the files written, as
//! `DIR/<repeated|distinct>/<reader>/…`, to time whole commands on them.

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use palimpsest_core::sources;

/// A tool result's text for turn `t`: the same for every turn, or distinct.
fn body(t: usize, distinct: bool) -> String {
    let seed = if distinct { t } else { 0 };
    (0..40)
        .map(|l| format!("line {l} of file {seed}: let v{l} = compute({seed}, {l}); // note"))
        .collect::<Vec<_>>()
        .join("\\n")
}

const TS: &str = "2026-11-02T14:00:00.000Z";

fn claude(out: &mut impl Write, t: usize, b: &str) -> std::io::Result<()> {
    let env = r#""isSidechain":false,"userType":"external","cwd":"/w","sessionId":"bench-claude","version":"2.1.39","gitBranch":"main""#;
    let prev = if t == 0 {
        "null".to_owned()
    } else {
        format!("\"r{}\"", t - 1)
    };
    writeln!(
        out,
        r#"{{"parentUuid":{prev},{env},"type":"user","message":{{"role":"user","content":"Please look at item {t}"}},"uuid":"u{t}","timestamp":"{TS}"}}"#
    )?;
    writeln!(
        out,
        r#"{{"parentUuid":"u{t}",{env},"message":{{"model":"claude-opus-4-6","id":"msg_{t}","type":"message","role":"assistant","content":[{{"type":"thinking","thinking":"Look at item {t} first.","signature":"s"}},{{"type":"tool_use","id":"toolu_{t}","name":"Read","input":{{"file_path":"/w/f{t}.rs"}}}}],"usage":{{"input_tokens":3,"cache_read_input_tokens":1000,"output_tokens":50}}}},"type":"assistant","uuid":"a{t}","timestamp":"{TS}"}}"#
    )?;
    writeln!(
        out,
        r#"{{"parentUuid":"a{t}",{env},"type":"user","message":{{"role":"user","content":[{{"tool_use_id":"toolu_{t}","type":"tool_result","content":"{b}"}}]}},"uuid":"r{t}","timestamp":"{TS}"}}"#
    )
}

fn gemini(out: &mut impl Write, t: usize, b: &str) -> std::io::Result<()> {
    if t == 0 {
        writeln!(
            out,
            r#"{{"sessionId":"bench-gemini","projectHash":"h","startTime":"{TS}","lastUpdated":"{TS}","kind":"main"}}"#
        )?;
    }
    writeln!(
        out,
        r#"{{"id":"u{t}","timestamp":"{TS}","type":"user","content":[{{"text":"Please look at item {t}"}}]}}"#
    )?;
    // The CLI writes an answer again as its calls run (here: once scheduled, once with the
    // result); the reader keeps the latest version of each id.
    writeln!(
        out,
        r#"{{"id":"g{t}","timestamp":"{TS}","type":"gemini","content":"","model":"gemini-2.5-pro","thoughts":[{{"subject":"Plan","description":"Look at item {t} first.","timestamp":"{TS}"}}],"toolCalls":[{{"id":"c{t}","name":"read_file","args":{{"absolute_path":"/w/f{t}.rs"}},"status":"executing","timestamp":"{TS}"}}],"tokens":{{"input":1003,"output":50,"cached":1000,"thoughts":0,"tool":0,"total":1053}}}}"#
    )?;
    writeln!(
        out,
        r#"{{"id":"g{t}","timestamp":"{TS}","type":"gemini","content":"","model":"gemini-2.5-pro","thoughts":[{{"subject":"Plan","description":"Look at item {t} first.","timestamp":"{TS}"}}],"toolCalls":[{{"id":"c{t}","name":"read_file","args":{{"absolute_path":"/w/f{t}.rs"}},"status":"success","timestamp":"{TS}","result":[{{"functionResponse":{{"id":"c{t}","name":"read_file","response":{{"output":"{b}"}}}}}}]}}],"tokens":{{"input":1003,"output":50,"cached":1000,"thoughts":0,"tool":0,"total":1053}}}}"#
    )
}

fn qwen(out: &mut impl Write, t: usize, b: &str) -> std::io::Result<()> {
    let env = r#""sessionId":"bench-qwen","cwd":"/w","version":"0.18.2""#;
    let prev = if t == 0 {
        "null".to_owned()
    } else {
        format!("\"r{}\"", t - 1)
    };
    writeln!(
        out,
        r#"{{"uuid":"u{t}","parentUuid":{prev},{env},"timestamp":"{TS}","type":"user","message":{{"role":"user","parts":[{{"text":"Please look at item {t}"}}]}}}}"#
    )?;
    writeln!(
        out,
        r#"{{"uuid":"a{t}","parentUuid":"u{t}",{env},"timestamp":"{TS}","type":"assistant","model":"qwen3-coder-plus","message":{{"role":"model","parts":[{{"text":"Look at item {t} first.","thought":true}},{{"functionCall":{{"id":"c{t}","name":"read_file","args":{{"absolute_path":"/w/f{t}.rs"}}}}}}]}},"usageMetadata":{{"promptTokenCount":1003,"candidatesTokenCount":50,"cachedContentTokenCount":1000}}}}"#
    )?;
    writeln!(
        out,
        r#"{{"uuid":"r{t}","parentUuid":"a{t}",{env},"timestamp":"{TS}","type":"tool_result","message":{{"role":"user","parts":[{{"functionResponse":{{"id":"c{t}","name":"read_file","response":{{"output":"{b}"}}}}}}]}},"toolCallResult":{{"callId":"c{t}","status":"success"}}}}"#
    )
}

fn copilot(out: &mut impl Write, t: usize, b: &str) -> std::io::Result<()> {
    if t == 0 {
        writeln!(
            out,
            r#"{{"type":"session.start","data":{{"sessionId":"bench-copilot","startTime":"{TS}","selectedModel":"claude-sonnet-4.5","context":{{"cwd":"/w"}}}},"id":"s0","timestamp":"{TS}","parentId":null}}"#
        )?;
    }
    writeln!(
        out,
        r#"{{"type":"user.message","data":{{"content":"Please look at item {t}"}},"id":"u{t}","timestamp":"{TS}","parentId":null}}"#
    )?;
    writeln!(
        out,
        r#"{{"type":"assistant.message","data":{{"messageId":"m{t}","content":"","reasoningText":"Look at item {t} first.","toolRequests":[{{"toolCallId":"c{t}","name":"view","arguments":{{"path":"/w/f{t}.rs"}},"type":"function"}}],"model":"claude-sonnet-4.5","outputTokens":50}},"id":"a{t}","timestamp":"{TS}","parentId":"u{t}"}}"#
    )?;
    writeln!(
        out,
        r#"{{"type":"tool.execution_complete","data":{{"toolCallId":"c{t}","success":true,"result":{{"content":"{b}"}}}},"id":"r{t}","timestamp":"{TS}","parentId":"a{t}"}}"#
    )
}

/// Cline's `api_conversation_history.json`: one JSON array of Anthropic messages (closed by
/// [`Shape::Lines`]'s tail).
fn cline(out: &mut impl Write, t: usize, b: &str) -> std::io::Result<()> {
    let open = if t == 0 { "[" } else { "," };
    write!(
        out,
        r#"{open}{{"role":"user","content":[{{"type":"text","text":"Please look at item {t}"}}],"ts":1790200000000}},{{"role":"assistant","content":[{{"type":"text","text":"Look at item {t} first."}},{{"type":"tool_use","id":"toolu_{t}","name":"read_file","input":{{"path":"/w/f{t}.rs"}}}}],"ts":1790200000000}},{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"toolu_{t}","content":"{b}"}}],"ts":1790200000000}}"#
    )
}

/// Aider's `.aider.chat.history.md`: a typed line, the reply with the file in a fence, the
/// usage notice.
fn aider(out: &mut impl Write, t: usize, b: &str) -> std::io::Result<()> {
    if t == 0 {
        writeln!(out, "\n# aider chat started at 2026-11-02 14:00:00\n")?;
    }
    let code = b.replace("\\n", "\n");
    writeln!(
        out,
        "#### Please look at item {t}\n\nLook at item {t} first.\n\nf{t}.rs\n```\n{code}\n```\n\n> Tokens: 1.0k sent, 50 received.\n"
    )
}

/// OpenCode's `opencode.db`: a user message and its text part, an answer of one step whose
/// tool part holds the result, each a JSON `data` row, written until the file holds `bytes`.
fn opencode(path: &Path, bytes: u64, distinct: bool) -> u64 {
    use rusqlite::{Connection, params};
    let conn = Connection::open(path).expect("create the bench database");
    conn.execute_batch(palimpsest_fixtures::opencode::DDL)
        .expect("OpenCode's tables");
    conn.execute_batch(
        "INSERT INTO project VALUES ('prj_w', '/w', 'git', 'w', 1790000000000, 1790000000000);
         INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated)
           VALUES ('ses_bench', 'prj_w', 'bench', '/w', 'bench', '1.14.29', 1790000000000, 1790000000000);",
    )
    .expect("the session row");
    let mut t = 0usize;
    while std::fs::metadata(path).map_or(0, |m| m.len()) < bytes {
        let tx = conn.unchecked_transaction().expect("a transaction");
        for _ in 0..100 {
            let at = 1_790_000_000_000 + t as i64 * 10_000;
            let (u, a) = (format!("msg_{t:08}u"), format!("msg_{t:08}a"));
            let output = body(t, distinct).replace("\\n", "\n");
            let rows: [(&str, serde_json::Value, Vec<serde_json::Value>); 2] = [
                (
                    &u,
                    serde_json::json!({"role": "user", "time": {"created": at}, "agent": "build",
                        "model": {"providerID": "anthropic", "modelID": "claude-sonnet-4-5"}}),
                    vec![
                        serde_json::json!({"type": "text", "text": format!("Please look at item {t}")}),
                    ],
                ),
                (
                    &a,
                    serde_json::json!({"role": "assistant", "time": {"created": at, "completed": at + 9000},
                        "parentID": u, "modelID": "claude-sonnet-4-5", "providerID": "anthropic",
                        "mode": "build", "agent": "build", "path": {"cwd": "/w", "root": "/w"}, "cost": 0.01,
                        "tokens": {"input": 3, "output": 50, "reasoning": 0, "cache": {"read": 1000, "write": 0}},
                        "finish": "tool-calls"}),
                    vec![
                        serde_json::json!({"type": "step-start"}),
                        serde_json::json!({"type": "reasoning", "text": format!("Look at item {t} first.")}),
                        serde_json::json!({"type": "tool", "callID": format!("call_{t}"), "tool": "read",
                            "state": {"status": "completed", "input": {"filePath": format!("/w/f{t}.rs")},
                            "output": output, "title": "read", "metadata": {}, "time": {"start": at, "end": at + 700}}}),
                        serde_json::json!({"type": "step-finish", "reason": "tool-calls", "cost": 0.01,
                            "tokens": {"input": 3, "output": 50, "reasoning": 0, "cache": {"read": 1000, "write": 0}}}),
                    ],
                ),
            ];
            for (id, data, parts) in rows {
                tx.execute(
                    "INSERT INTO message VALUES (?1, 'ses_bench', ?2, ?2, ?3)",
                    params![id, at, data.to_string()],
                )
                .expect("a message row");
                for (k, p) in parts.iter().enumerate() {
                    tx.execute(
                        "INSERT INTO part VALUES (?1, ?2, 'ses_bench', ?3, ?3, ?4)",
                        params![format!("prt_{id}_{k}"), id, at, p.to_string()],
                    )
                    .expect("a part row");
                }
            }
            t += 1;
        }
        tx.commit().expect("commit");
    }
    std::fs::metadata(path).map_or(0, |m| m.len())
}

/// Crush's `crush.db`: per turn a user message, an answer (reasoning, text, call, finish) and
/// the tool message holding the result, each a row whose `parts` are JSON.
fn crush(path: &Path, bytes: u64, distinct: bool) -> u64 {
    use rusqlite::{Connection, params};
    let conn = Connection::open(path).expect("create the bench database");
    conn.execute_batch(palimpsest_fixtures::crush::DDL)
        .expect("Crush's tables");
    conn.execute_batch(
        "INSERT INTO goose_db_version (version_id, is_applied) VALUES (20251120000000, 1);
         INSERT INTO sessions (id, title, message_count, updated_at, created_at)
           VALUES ('bench', 'bench', 0, 1790100000, 1790100000);",
    )
    .expect("the session row");
    let mut t = 0usize;
    while std::fs::metadata(path).map_or(0, |m| m.len()) < bytes {
        let tx = conn.unchecked_transaction().expect("a transaction");
        for _ in 0..100 {
            let at = 1_790_100_000 + t as i64;
            let output = body(t, distinct).replace("\\n", "\n");
            let rows = [
                (
                    "u",
                    "user",
                    serde_json::json!([{"type": "text", "data": {"text": format!("Please look at item {t}")}}]),
                ),
                (
                    "a",
                    "assistant",
                    serde_json::json!([
                    {"type": "reasoning", "data": {"thinking": format!("Look at item {t} first.")}},
                    {"type": "tool_call", "data": {"id": format!("call_{t}"), "name": "view",
                        "input": format!("{{\"file_path\":\"/w/f{t}.rs\"}}"), "type": "function", "finished": true}},
                    {"type": "finish", "data": {"reason": "tool_use", "time": at}}]),
                ),
                (
                    "r",
                    "tool",
                    serde_json::json!([{"type": "tool_result", "data": {"tool_call_id": format!("call_{t}"),
                    "name": "view", "content": output, "metadata": "", "is_error": false}}]),
                ),
            ];
            for (suffix, role, parts) in rows {
                tx.execute(
                    "INSERT INTO messages (id, session_id, role, parts, model, created_at, updated_at,
                       finished_at, provider) VALUES (?1, 'bench', ?2, ?3, 'claude-sonnet-4-5', ?4, ?4, ?4, 'anthropic')",
                    params![format!("m{t:08}{suffix}"), role, parts.to_string(), at],
                )
                .expect("a message row");
            }
            t += 1;
        }
        tx.commit().expect("commit");
    }
    std::fs::metadata(path).map_or(0, |m| m.len())
}

type Writer = fn(&mut std::io::BufWriter<std::fs::File>, usize, &str) -> std::io::Result<()>;

/// How a reader's file is made: lines (or array items) written turn by turn, then `tail`; or a
/// database filled by its own writer.
#[derive(Clone, Copy)]
enum Shape {
    Lines(Writer, &'static str),
    Db(fn(&Path, u64, bool) -> u64),
}

/// Write turns with `w` until the file holds `bytes`, then `tail`.
fn write(path: &Path, bytes: u64, distinct: bool, w: Writer, tail: &str) -> u64 {
    let f = std::fs::File::create(path).expect("create the bench file");
    let mut out = std::io::BufWriter::new(f);
    let mut t = 0;
    while out.get_ref().metadata().map_or(0, |m| m.len()) < bytes {
        for _ in 0..100 {
            w(&mut out, t, &body(t, distinct)).expect("write a turn");
            t += 1;
        }
        out.flush().expect("flush");
    }
    out.write_all(tail.as_bytes()).expect("close the file");
    out.flush().expect("flush");
    std::fs::metadata(path).map_or(0, |m| m.len())
}

/// Seconds to load the one session of `path` (a file, or Cline's task folder) whole, the best
/// of three (a 2-core machine's runs spread by a fifth).
fn load(path: &Path) -> (f64, usize) {
    let mut best = f64::MAX;
    let mut n = 0;
    for _ in 0..3 {
        let t = Instant::now();
        let src = sources::open(path).expect("the bench file is claimed");
        assert!(
            src.problems.is_empty(),
            "{}: {:?}",
            path.display(),
            src.problems
        );
        let s = src.load(path, None).expect("the session loads");
        n = s.messages.len();
        best = best.min(t.elapsed().as_secs_f64());
    }
    (best, n)
}

fn main() {
    let mb: u64 = std::env::var("PALIMPSEST_BENCH_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(40);
    // One reader beside Claude Code's (for a profile): `PALIMPSEST_BENCH_ONLY=qwen-code`.
    let only = std::env::var("PALIMPSEST_BENCH_ONLY").ok();
    let dir = tempfile::tempdir().expect("temp dir");
    let keep = std::env::var_os("PALIMPSEST_BENCH_KEEP").map(std::path::PathBuf::from);
    // (name, file, shape, what is opened: the file, or its folder for Cline's task).
    let readers: [(&str, &str, Shape, bool); 8] = [
        (
            "claude-code",
            "claude.jsonl",
            Shape::Lines(claude, ""),
            false,
        ),
        (
            "gemini-cli",
            "session-bench.jsonl",
            Shape::Lines(gemini, ""),
            false,
        ),
        ("qwen-code", "qwen.jsonl", Shape::Lines(qwen, ""), false),
        (
            "copilot-cli",
            "events.jsonl",
            Shape::Lines(copilot, ""),
            false,
        ),
        ("opencode", "opencode.db", Shape::Db(opencode), false),
        ("crush", "crush.db", Shape::Db(crush), false),
        (
            "cline",
            "api_conversation_history.json",
            Shape::Lines(cline, "]"),
            true,
        ),
        (
            "aider",
            ".aider.chat.history.md",
            Shape::Lines(aider, ""),
            false,
        ),
    ];
    for distinct in [false, true] {
        let shape = if distinct {
            "distinct results"
        } else {
            "one result repeated"
        };
        println!("{mb} MB per file, {shape}:");
        let mut claude_rate = f64::NAN;
        for (name, file, how, folder) in readers {
            if only
                .as_deref()
                .is_some_and(|o| o != name && name != "claude-code")
            {
                continue;
            }
            let root = keep.as_deref().unwrap_or(dir.path());
            let kind = if distinct { "distinct" } else { "repeated" };
            let sub = root.join(kind).join(name).join("1790200000000");
            std::fs::create_dir_all(&sub).expect("bench folder");
            let path = sub.join(file);
            let size = match how {
                Shape::Lines(w, tail) => write(&path, mb << 20, distinct, w, tail),
                Shape::Db(w) => w(&path, mb << 20, distinct),
            };
            let opened = if folder { sub.clone() } else { path.clone() };
            let (secs, messages) = load(&opened);
            let rate = size as f64 / 1_048_576.0 / secs;
            if name == "claude-code" {
                claude_rate = rate;
            }
            println!(
                "  {name:<12} {:>7.1} MB  {messages:>7} messages  {secs:>6.2} s  {rate:>6.1} MB/s  {:>5.2}x Claude Code's",
                size as f64 / 1_048_576.0,
                rate / claude_rate
            );
            if keep.is_none() {
                std::fs::remove_dir_all(&sub).ok();
            }
        }
    }
}
