//! Latency of `palimpsest watch`: from the writer's commit to the JSON line on stdout.
//!
//! `cargo bench -p palimpsest-cli --bench watch_latency` runs the live writer (goose WAL DB,
//! one message per 200 ms, with a compaction) in this process and `palimpsest watch --json` as
//! a child, stamps both sides with the wall clock, and prints the median and p95 over every
//! message. The goal is a median under 0.5 s.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use palimpsest_fixtures::live::{self, Opts, Written};

fn now_ms() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64() * 1000.0)
        .unwrap_or(0.0)
}

fn main() {
    let dir = tempfile::tempdir().expect("temp dir");
    let goose_dir = dir.path().join("goose");
    std::fs::create_dir_all(&goose_dir).expect("goose dir");
    let turns = 10;
    let compact_after = 5;
    let mut child = Command::new(env!("CARGO_BIN_EXE_palimpsest"))
        .args(["watch", "--json"])
        .arg(dir.path())
        .stdout(Stdio::piped())
        .spawn()
        .expect("palimpsest watch starts");
    let arrivals: Arc<Mutex<Vec<(usize, f64)>>> = Arc::default();
    let reader = {
        let arrivals = Arc::clone(&arrivals);
        let stdout = child.stdout.take().expect("piped stdout");
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let t = now_ms();
                let v: serde_json::Value = serde_json::from_str(&line).unwrap_or_default();
                if v["event"] == "appended" {
                    for m in v["messages"].as_array().into_iter().flatten() {
                        arrivals
                            .lock()
                            .unwrap()
                            .push((m["index"].as_u64().unwrap_or(0) as usize, t));
                    }
                }
            }
        })
    };
    std::thread::sleep(Duration::from_millis(500));
    let mut commits: Vec<f64> = Vec::new();
    let opts = Opts {
        goose: Some(goose_dir.join("sessions.db")),
        claude: None,
        rate: 5.0,
        turns,
        compact_after,
    };
    live::run(&opts, |w| {
        if let Written::Message { .. } = w {
            commits.push(now_ms());
        }
    })
    .expect("writer runs");
    std::thread::sleep(Duration::from_millis(1500));
    let _ = child.kill();
    // Reap the child so no zombie outlives the bench.
    let _ = child.wait();
    let _ = reader.join();
    // Script message `seq` sits at index `seq`, or `seq + 3` once the compaction added summary,
    // continuation and preserved copy before it.
    let before_cut = compact_after * 5;
    let arrivals = arrivals.lock().unwrap().clone();
    let mut lat: Vec<f64> = commits
        .iter()
        .enumerate()
        .filter_map(|(seq, &t)| {
            let index = if seq < before_cut { seq } else { seq + 3 };
            arrivals
                .iter()
                .find(|(i, _)| *i == index)
                .map(|(_, a)| a - t)
        })
        .collect();
    assert_eq!(
        lat.len(),
        commits.len(),
        "every committed message must arrive"
    );
    lat.sort_by(f64::total_cmp);
    let median = lat[lat.len() / 2];
    let p95 = lat[(lat.len() * 95 / 100).min(lat.len() - 1)];
    println!(
        "watch latency over {} messages: median {median:.0} ms, p95 {p95:.0} ms (goal: median < 500 ms)",
        lat.len()
    );
}
