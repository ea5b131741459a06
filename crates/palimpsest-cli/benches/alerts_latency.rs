//! Latency of `palimpsest watch --alerts`: from the line that makes a worker stuck to its alert
//! on stdout, with 20 workers writing at once.
//!
//! `cargo bench -p palimpsest-cli --bench alerts_latency` starts `palimpsest watch DIR --alerts
//! --json --budget 10` as a child, then 20 Claude Code workers (`palimpsest_fixtures::alerting`,
//! the seven that turn stuck by their lines, each several times under its own id, and healthy
//! ones) each append a line every 300–500 ms to their transcript, side by side. Both sides are
//! stamped with the wall clock; it prints the median, p95 and worst latency over every alert,
//! and fails when an alert is missing or comes twice. The goal is a median of at most 1 s.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use palimpsest_fixtures::alerting;

fn now_ms() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64() * 1000.0)
        .unwrap_or(0.0)
}

/// The workers that turn stuck by their lines, with the kind and the line (= message) that
/// tips each (`alerting`'s table).
const STUCK: [(&str, &str, usize); 7] = [
    (alerting::REREAD, "rereads_after_compaction", 12),
    (alerting::STORM, "compaction_storm", 9),
    (alerting::FREED, "compaction_freed_little", 7),
    (alerting::TOO_LONG, "prompt_too_long", 8),
    (alerting::FAILING, "failing_loop", 9),
    (alerting::REPEATED, "repeated_call", 9),
    (alerting::COSTLY, "over_budget", 10),
];

/// How many workers write at once.
const WORKERS: usize = 20;

fn main() {
    let dir = tempfile::tempdir().expect("temp dir");
    let fleet = alerting::transcripts();
    let lines_of = |id: &str| {
        fleet
            .iter()
            .find(|(i, _)| *i == id)
            .expect("a worker")
            .1
            .clone()
    };
    // Worker w: a stuck one (in turn) or, one in four, a healthy one; each under its own id.
    let mut workers = Vec::new();
    for w in 0..WORKERS {
        let id = format!("b0b0{w:04}-0000-4000-8000-000000000000");
        let (from, expect) = if w % 4 == 3 {
            (alerting::HEALTHY, None)
        } else {
            let (from, kind, at) = STUCK[(w - w / 4) % STUCK.len()];
            (from, Some((kind, at)))
        };
        let lines: Vec<String> = lines_of(from)
            .iter()
            .map(|l| l.to_string().replace(from, &id))
            .collect();
        workers.push((id, lines, expect));
    }
    let expected: Vec<(String, &str)> = workers
        .iter()
        .filter_map(|(id, _, e)| e.map(|(kind, _)| (id.clone(), kind)))
        .collect();

    let mut child = Command::new(env!("CARGO_BIN_EXE_palimpsest"))
        .args(["watch", "--alerts", "--json", "--budget", "10"])
        .arg(dir.path())
        .stdout(Stdio::piped())
        .spawn()
        .expect("palimpsest watch starts");
    let arrivals: Arc<Mutex<Vec<(String, String, f64)>>> = Arc::default();
    let (ready_tx, ready_rx) = std::sync::mpsc::channel();
    {
        let arrivals = Arc::clone(&arrivals);
        let stdout = child.stdout.take().expect("piped stdout");
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let t = now_ms();
                let v: serde_json::Value = serde_json::from_str(&line).unwrap_or_default();
                if v["event"] == "ready" {
                    let _ = ready_tx.send(());
                } else if v["event"] == "alert" {
                    arrivals.lock().unwrap().push((
                        v["session_id"].as_str().unwrap_or_default().to_owned(),
                        v["kind"].as_str().unwrap_or_default().to_owned(),
                        t,
                    ));
                }
            }
        });
    }
    ready_rx
        .recv_timeout(Duration::from_secs(60))
        .expect("watch is ready");

    // Each worker in its own thread, a line every 300–500 ms (the gap varies per worker).
    let tipped: Arc<Mutex<Vec<(String, f64)>>> = Arc::default();
    let writers: Vec<_> = workers
        .into_iter()
        .enumerate()
        .map(|(w, (id, lines, expect))| {
            let path = alerting::path(dir.path(), &id);
            let tipped = Arc::clone(&tipped);
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(37 * w as u64));
                for (k, line) in lines.iter().enumerate() {
                    let mut f = std::fs::OpenOptions::new()
                        .create(true)
                        .append(true)
                        .open(&path)
                        .expect("the worker's file");
                    writeln!(f, "{line}").expect("a line written");
                    drop(f);
                    if expect.is_some_and(|(_, at)| at == k) {
                        tipped.lock().unwrap().push((id.clone(), now_ms()));
                    }
                    std::thread::sleep(Duration::from_millis(300 + 13 * (w as u64 % 16)));
                }
            })
        })
        .collect();
    for w in writers {
        w.join().expect("a worker wrote");
    }
    std::thread::sleep(Duration::from_secs(3));
    let _ = child.kill();
    let _ = child.wait();

    let arrivals = arrivals.lock().unwrap().clone();
    let tipped = tipped.lock().unwrap().clone();
    let mut got: Vec<(String, &str)> = arrivals
        .iter()
        .map(|(id, kind, _)| {
            let kind = STUCK
                .iter()
                .map(|(_, k, _)| *k)
                .find(|k| k == kind)
                .unwrap_or("unexpected");
            (id.clone(), kind)
        })
        .collect();
    got.sort();
    let mut want = expected.clone();
    want.sort();
    assert_eq!(
        got, want,
        "one alert per stuck worker, of its kind, and no other"
    );
    let mut ms: Vec<f64> = arrivals
        .iter()
        .map(|(id, _, t)| {
            let (_, at) = tipped
                .iter()
                .find(|(i, _)| i == id)
                .expect("its line was timed");
            t - at
        })
        .collect();
    ms.sort_by(f64::total_cmp);
    let median = ms[ms.len() / 2];
    let p95 = ms[((ms.len() - 1) as f64 * 0.95).round() as usize];
    println!(
        "alerts_latency: {WORKERS} workers writing at once, {} alerts: line -> alert median {median:.0} ms, p95 {p95:.0} ms, max {:.0} ms",
        ms.len(),
        ms[ms.len() - 1]
    );
}
