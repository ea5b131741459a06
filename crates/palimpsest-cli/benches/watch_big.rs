//! `palimpsest watch --json` following a big Claude Code transcript while lines are appended to
//! it, as a whole process: from each line's write to the JSON event that reports it. The
//! in-process twin is `cargo bench -p palimpsest-core --bench live_append` (the tracker's
//! refresh alone). The transcript is made by `palimpsest-big` from the real one in
//! `fixtures/real` (`PALIMPSEST_BENCH_MB`, default 200 MB); its last lines are held back and
//! appended one message at a time. The first change reads the transcript whole (nothing read
//! yet to go on from) and is reported apart.
//!
//! Run: `cargo bench -p palimpsest-cli --bench watch_big`.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

fn main() -> anyhow::Result<()> {
    let mb: u64 = std::env::var("PALIMPSEST_BENCH_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let real = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/real/claude-code/258c7280-ae70-4798-800f-63464d01a85d.jsonl");
    let t = tempfile::tempdir()?;
    // The last lines are held back, to append one message per round.
    let (file, lines) =
        palimpsest_fixtures::big::followed(&real, &t.path().join("-home-u-proj"), mb << 20, 80)?;
    let dir = file.parent().expect("a project folder").to_path_buf();
    let size = std::fs::metadata(&file)?.len();
    let mut child = Command::new(env!("CARGO_BIN_EXE_palimpsest"))
        .args(["watch", "--json"])
        .arg(&dir)
        .env("XDG_CACHE_HOME", t.path().join("cache"))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()?;
    let (tx, rx) = mpsc::channel::<Instant>();
    let stdout = child.stdout.take().expect("piped stdout");
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let v: serde_json::Value = serde_json::from_str(&line).unwrap_or_default();
            if matches!(v["event"].as_str(), Some("appended" | "rewritten")) {
                let _ = tx.send(Instant::now());
            }
        }
    });
    // The watcher's baseline (a listing of the folder) before the first write.
    std::thread::sleep(Duration::from_secs(8));
    let mut first = None;
    let mut rounds = Vec::new();
    let mut pending = String::new();
    for line in &lines {
        pending.push_str(line);
        pending.push('\n');
        // A line that makes no message (progress, snapshots) goes with the next one.
        if !(line.contains("\"type\":\"user\"") || line.contains("\"type\":\"assistant\"")) {
            continue;
        }
        while rx.try_recv().is_ok() {}
        let mut f = std::fs::OpenOptions::new().append(true).open(&file)?;
        f.write_all(std::mem::take(&mut pending).as_bytes())?;
        drop(f);
        let wrote = Instant::now();
        let Ok(seen) = rx.recv_timeout(Duration::from_secs(60)) else {
            anyhow::bail!("no event within 60 s of an appended message");
        };
        let took = seen - wrote;
        if first.is_none() {
            first = Some(took);
        } else {
            rounds.push(took);
        }
        std::thread::sleep(Duration::from_millis(300));
    }
    let _ = child.kill();
    let _ = child.wait();
    let _ = reader.join();
    rounds.sort();
    let median = rounds[rounds.len() / 2];
    let worst = rounds[rounds.len() - 1];
    println!(
        "watch --json on a {:.0} MB transcript: a message appended reaches stdout in {median:.0?} \
         (median of {}, worst {worst:.0?}); the first change, read whole, {:.1?} \
         (goal: under 200 ms on 200 MB)",
        size as f64 / 1e6,
        rounds.len(),
        first.unwrap_or_default()
    );
    Ok(())
}
