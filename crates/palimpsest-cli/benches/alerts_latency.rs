//! Latency of `palimpsest watch --alerts`: from the write that makes a worker stuck to its alert
//! on stdout, with 20 workers writing at once.
//!
//! `cargo bench -p palimpsest-cli --bench alerts_latency` starts `palimpsest watch DIR --alerts
//! --json --budget 10` as a child, then 20 workers write side by side, each a line or commit
//! every 300–500 ms: 12 Claude Code transcripts (`palimpsest_fixtures::alerting`, the seven
//! that turn stuck by their lines, each several times under its own id, and healthy ones), 4
//! goose sessions committed by their own connections into one WAL `sessions.db`
//! (`alerting::goose`) and 4 Codex rollouts (`alerting::codex`), three of each re-reading after
//! a compaction. Both sides are stamped with the wall clock; it prints the median, p95 and
//! worst latency over every alert, per format too, and fails when an alert is missing or comes
//! twice. The goal is a median of at most 1 s.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use palimpsest_fixtures::alerting::{self, codex, goose};

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

/// How many workers write at once: Claude Code, goose, Codex.
const WORKERS: [usize; 3] = [12, 4, 4];

/// What a worker writes to.
enum Target {
    /// Lines appended to a JSONL file (Claude Code, Codex).
    Jsonl(PathBuf, Vec<String>),
    /// Commits to the goose database as session `id`.
    Goose(String, Vec<goose::Write>),
}

/// One worker: its session, its format, what it writes, and the kind and write that tip it.
struct Worker {
    id: String,
    format: &'static str,
    target: Target,
    expect: Option<(&'static str, usize)>,
}

fn workers(dir: &Path) -> Vec<Worker> {
    let fleet = alerting::transcripts();
    let lines_of = |id: &str| {
        fleet
            .iter()
            .find(|(i, _)| *i == id)
            .expect("a worker")
            .1
            .clone()
    };
    let mut out = Vec::new();
    // Claude Code worker w: a stuck one (in turn) or, one in four, a healthy one; each under
    // its own id.
    for w in 0..WORKERS[0] {
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
        let path = alerting::path(dir, &id);
        out.push(Worker {
            id,
            format: "claude",
            target: Target::Jsonl(path, lines),
            expect,
        });
    }
    // goose and Codex: three re-reading, one healthy.
    for w in 0..WORKERS[1] {
        let rereads = w != 3;
        out.push(Worker {
            id: format!("20261207_{}", 10 + w),
            format: "goose",
            target: Target::Goose(format!("20261207_{}", 10 + w), goose::writes(rereads)),
            expect: rereads.then_some(("rereads_after_compaction", goose::REREAD_TIP)),
        });
    }
    for w in 0..WORKERS[2] {
        let rereads = w != 3;
        let id = format!("019d0a1e-0000-7000-8000-0000000{w:05}");
        let lines = codex::lines(&id, rereads)
            .iter()
            .map(|l| l.to_string())
            .collect();
        out.push(Worker {
            target: Target::Jsonl(codex::path(dir, &id), lines),
            id,
            format: "codex",
            expect: rereads.then_some(("rereads_after_compaction", codex::REREAD_TIP)),
        });
    }
    out
}

fn main() {
    let dir = tempfile::tempdir().expect("temp dir");
    let db = goose::db(dir.path());
    palimpsest_fixtures::live::create_db(&db).expect("the goose database");
    let workers = workers(dir.path());
    let expected: Vec<(String, &str)> = workers
        .iter()
        .filter_map(|w| w.expect.map(|(kind, _)| (w.id.clone(), kind)))
        .collect();
    let formats: Vec<(String, &'static str)> =
        workers.iter().map(|w| (w.id.clone(), w.format)).collect();

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

    // Each worker in its own thread, a write every 300–500 ms (the gap varies per worker).
    let tipped: Arc<Mutex<Vec<(String, f64)>>> = Arc::default();
    let writers: Vec<_> = workers
        .into_iter()
        .enumerate()
        .map(|(w, worker)| {
            let tipped = Arc::clone(&tipped);
            let db = db.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(37 * w as u64));
                let gap = Duration::from_millis(300 + 13 * (w as u64 % 16));
                let tip = |k: usize| {
                    if worker.expect.is_some_and(|(_, at)| at == k) {
                        tipped.lock().unwrap().push((worker.id.clone(), now_ms()));
                    }
                };
                match &worker.target {
                    Target::Jsonl(path, lines) => {
                        std::fs::create_dir_all(path.parent().expect("a folder"))
                            .expect("its folder");
                        for (k, line) in lines.iter().enumerate() {
                            let mut f = std::fs::OpenOptions::new()
                                .create(true)
                                .append(true)
                                .open(path)
                                .expect("the worker's file");
                            writeln!(f, "{line}").expect("a line written");
                            drop(f);
                            tip(k);
                            std::thread::sleep(gap);
                        }
                    }
                    Target::Goose(id, writes) => {
                        let mut g = goose::Worker::open(&db, id).expect("a goose session");
                        for (k, write) in writes.iter().enumerate() {
                            g.write(k, write).expect("a commit");
                            tip(k);
                            std::thread::sleep(gap);
                        }
                    }
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
    let latency = |(id, _, t): &(String, String, f64)| {
        let (_, at) = tipped
            .iter()
            .find(|(i, _)| i == id)
            .expect("its write was timed");
        t - at
    };
    let format_of = |id: &str| {
        formats
            .iter()
            .find(|(i, _)| i == id)
            .map_or("?", |(_, f)| *f)
    };
    let total = WORKERS.iter().sum::<usize>();
    report(
        &format!("{total} workers writing at once"),
        arrivals.iter().map(latency).collect(),
    );
    for f in ["claude", "goose", "codex"] {
        report(
            &format!("  {f} workers"),
            arrivals
                .iter()
                .filter(|a| format_of(&a.0) == f)
                .map(latency)
                .collect(),
        );
    }
}

fn report(what: &str, mut ms: Vec<f64>) {
    ms.sort_by(f64::total_cmp);
    let median = ms[ms.len() / 2];
    let p95 = ms[((ms.len() - 1) as f64 * 0.95).round() as usize];
    println!(
        "alerts_latency: {what}, {} alerts: write -> alert median {median:.0} ms, p95 {p95:.0} ms, max {:.0} ms",
        ms.len(),
        ms[ms.len() - 1]
    );
}
