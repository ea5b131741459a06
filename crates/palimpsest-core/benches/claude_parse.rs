//! Bench: Claude Code parse throughput and peak memory on a large generated transcript.
//!
//! `cargo bench -p palimpsest-core --bench claude_parse` (size in MB via `PALIMPSEST_BENCH_MB`,
//! default 500). Writes a Claude-style file to a temp dir (turns of prompt, multi-line
//! assistant responses sharing `message.id`, tool results, progress and snapshot lines, one
//! compact boundary in the middle), then times listing (byte scan) and a full load, printing
//! MB/s and the process's peak resident memory (VmHWM) after each.

use std::io::Write;
use std::time::Instant;

use palimpsest_core::sources::SessionSource;
use palimpsest_core::sources::claude::ClaudeSource;

fn vm_hwm_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

const ENV: &str = r#""isSidechain":false,"userType":"external","cwd":"/home/u/proj","sessionId":"bench-0000","version":"2.1.39","gitBranch":"main","slug":"bench-slug""#;

fn turn(out: &mut impl Write, t: usize, body: &str) -> std::io::Result<()> {
    let ts = "2026-02-12T14:34:19.464Z";
    let p = |k: &str| format!("{k}-{t}");
    writeln!(
        out,
        r#"{{"parentUuid":"{}",{ENV},"type":"user","message":{{"role":"user","content":"Please look at item {t}"}},"uuid":"{}","timestamp":"{ts}"}}"#,
        p("r2"),
        p("u")
    )?;
    writeln!(
        out,
        r#"{{"parentUuid":"{}",{ENV},"message":{{"model":"claude-opus-4-6","id":"msg_{t}","type":"message","role":"assistant","content":[{{"type":"thinking","thinking":"{body}","signature":"sig"}}],"stop_reason":null,"usage":{{"input_tokens":3,"cache_creation_input_tokens":400,"cache_read_input_tokens":140000,"output_tokens":50}}}},"requestId":"req_{t}","type":"assistant","uuid":"{}","timestamp":"{ts}"}}"#,
        p("u"),
        p("a1")
    )?;
    writeln!(
        out,
        r#"{{"parentUuid":"{}",{ENV},"message":{{"model":"claude-opus-4-6","id":"msg_{t}","type":"message","role":"assistant","content":[{{"type":"tool_use","id":"toolu_{t}","name":"Read","input":{{"file_path":"/home/u/proj/src/f{t}.rs"}}}}],"stop_reason":null,"usage":{{"input_tokens":3,"cache_creation_input_tokens":400,"cache_read_input_tokens":140000,"output_tokens":50}}}},"requestId":"req_{t}","type":"assistant","uuid":"{}","timestamp":"{ts}"}}"#,
        p("a1"),
        p("a2")
    )?;
    writeln!(
        out,
        r#"{{"parentUuid":"{}",{ENV},"type":"progress","data":{{"type":"hook_progress","hookEvent":"PostToolUse","hookName":"PostToolUse:Read","command":"true"}},"parentToolUseID":"toolu_{t}","toolUseID":"toolu_{t}","timestamp":"{ts}","uuid":"{}"}}"#,
        p("a2"),
        p("pr")
    )?;
    writeln!(
        out,
        r#"{{"parentUuid":"{}",{ENV},"type":"user","message":{{"role":"user","content":[{{"tool_use_id":"toolu_{t}","type":"tool_result","content":"{body}{body}","is_error":false}}]}},"uuid":"{}","timestamp":"{ts}","toolUseResult":{{"type":"text","file":{{"filePath":"/home/u/proj/src/f{t}.rs","content":"{body}","numLines":40,"startLine":1,"totalLines":40}}}},"sourceToolAssistantUUID":"{}"}}"#,
        p("pr"),
        p("r1"),
        p("a2")
    )?;
    writeln!(
        out,
        r#"{{"parentUuid":"{}",{ENV},"message":{{"model":"claude-opus-4-6","id":"msg_b{t}","type":"message","role":"assistant","content":[{{"type":"text","text":"Item {t} looks fine."}}],"stop_reason":null,"usage":{{"input_tokens":3,"cache_creation_input_tokens":900,"cache_read_input_tokens":140400,"output_tokens":12}}}},"requestId":"req_b{t}","type":"assistant","uuid":"{}","timestamp":"{ts}"}}"#,
        p("r1"),
        p("r2")
    )?;
    writeln!(
        out,
        r#"{{"type":"file-history-snapshot","messageId":"{}","snapshot":{{"messageId":"{}","trackedFileBackups":{{}},"timestamp":"{ts}"}},"isSnapshotUpdate":false}}"#,
        p("u"),
        p("u")
    )
}

fn main() -> std::io::Result<()> {
    let mb: usize = std::env::var("PALIMPSEST_BENCH_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(500);
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("bench-0000.jsonl");
    let body = "fn main() { println!(\\\"hello\\\"); }\\n".repeat(60);
    let started = Instant::now();
    {
        let mut out = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(&path)?);
        let target = mb * 1024 * 1024;
        let mut t = 0;
        let mut written = 0usize;
        let mut boundary_done = false;
        while written < target {
            turn(&mut out, t, &body)?;
            t += 1;
            written = out.get_ref().metadata()?.len() as usize + out.buffer().len();
            if !boundary_done && written > target / 2 {
                boundary_done = true;
                writeln!(
                    out,
                    r#"{{"parentUuid":null,"logicalParentUuid":"r2-{}",{ENV},"type":"system","subtype":"compact_boundary","content":"Conversation compacted","isMeta":false,"timestamp":"2026-02-12T14:48:36.922Z","uuid":"cb","level":"info","compactMetadata":{{"trigger":"auto","preTokens":167094}}}}"#,
                    t - 1
                )?;
            }
        }
        out.flush()?;
    }
    let size = std::fs::metadata(&path)?.len() as f64 / (1024.0 * 1024.0);
    println!(
        "generated {size:.0} MB in {:.1} s; VmHWM {:.0} MB",
        started.elapsed().as_secs_f64(),
        vm_hwm_mb()
    );
    let src = ClaudeSource::new(&path, vec![path.clone()]);
    let t0 = Instant::now();
    let metas = src.list().expect("list");
    let list_s = t0.elapsed().as_secs_f64();
    println!(
        "list: {:.2} s, {:.0} MB/s, {} messages, {} compactions; VmHWM {:.0} MB",
        list_s,
        size / list_s,
        metas[0].message_count,
        metas[0].compaction_count,
        vm_hwm_mb()
    );
    let t1 = Instant::now();
    let session = src.load(&metas[0].id).expect("load");
    let load_s = t1.elapsed().as_secs_f64();
    println!(
        "load: {:.2} s, {:.0} MB/s, {} messages, {} compactions; VmHWM {:.0} MB",
        load_s,
        size / load_s,
        session.messages.len(),
        session.compactions.len(),
        vm_hwm_mb()
    );
    Ok(())
}
