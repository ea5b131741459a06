//! Bench: reading speed of the line-oriented harness readers per MB, beside Claude Code's.
//!
//! `cargo bench -p palimpsest-core --bench harness_read` (size of each file in MB via
//! `PALIMPSEST_BENCH_MB`, default 40). For each of two shapes — every tool result the same text
//! (one file read again and again), and every result distinct (many files and outputs) — it
//! writes the same conversation in Claude Code's, Gemini CLI's, Qwen Code's and Copilot CLI's
//! own record shapes (a prompt; an answer with a thought and a read call, which Gemini CLI
//! writes twice, as it does while the call runs; the call's result),
//! then times a whole load through `sources::open`, as `show` does, and prints MB/s and each
//! reader's ratio to Claude Code's (above 1: faster per MB). `PALIMPSEST_BENCH_ONLY=NAME` times
//! one of them beside Claude Code's.

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

type Writer = fn(&mut std::io::BufWriter<std::fs::File>, usize, &str) -> std::io::Result<()>;

/// Write turns with `w` until the file holds `bytes`.
fn write(path: &Path, bytes: u64, distinct: bool, w: Writer) -> u64 {
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
    out.flush().expect("flush");
    std::fs::metadata(path).map_or(0, |m| m.len())
}

/// Seconds to load the one session of `path` whole (the best of two).
fn load(path: &Path) -> (f64, usize) {
    let mut best = f64::MAX;
    let mut n = 0;
    for _ in 0..2 {
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
    let readers: [(&str, &str, Writer); 4] = [
        ("claude-code", "claude.jsonl", claude),
        ("gemini-cli", "session-bench.jsonl", gemini),
        ("qwen-code", "qwen.jsonl", qwen),
        ("copilot-cli", "events.jsonl", copilot),
    ];
    for distinct in [false, true] {
        let shape = if distinct {
            "distinct results"
        } else {
            "one result repeated"
        };
        println!("{mb} MB per file, {shape}:");
        let mut claude_rate = f64::NAN;
        for (name, file, w) in readers {
            if only
                .as_deref()
                .is_some_and(|o| o != name && name != "claude-code")
            {
                continue;
            }
            let sub = dir.path().join(name);
            std::fs::create_dir_all(&sub).expect("bench folder");
            let path = sub.join(file);
            let size = write(&path, mb << 20, distinct, w);
            let (secs, messages) = load(&path);
            let rate = size as f64 / 1_048_576.0 / secs;
            if name == "claude-code" {
                claude_rate = rate;
            }
            println!(
                "  {name:<12} {:>7.1} MB  {messages:>7} messages  {secs:>6.2} s  {rate:>6.1} MB/s  {:>5.2}x Claude Code's",
                size as f64 / 1_048_576.0,
                rate / claude_rate
            );
            std::fs::remove_file(&path).ok();
        }
    }
}
