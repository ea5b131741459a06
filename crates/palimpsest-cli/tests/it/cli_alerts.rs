//! `palimpsest watch DIR --alerts`: a fleet of workers written side by side while the command
//! runs gets one JSON alert per worker and reason, at the message that tipped it, `--rows` each
//! worker's fleet row as it is now, and `--exec` hands each alert to a command on its standard
//! input, run without a shell. Bad flags are refused with what is wrong.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use palimpsest_fixtures::alerting;
use serde_json::Value;

use super::common::{cache_home, run};

fn bin() -> std::path::PathBuf {
    assert_cmd::cargo::cargo_bin("palimpsest")
}

#[test]
fn a_fleet_written_while_watching_raises_each_alert_once_and_hands_it_to_exec() {
    let dir = tempfile::tempdir().unwrap();
    let hook = tempfile::tempdir().unwrap();
    let received = hook.path().join("alerts.jsonl");
    let mut child = Command::new(bin())
        .env("XDG_CACHE_HOME", cache_home())
        .arg("watch")
        .arg(dir.path())
        .args([
            "--alerts",
            "--rows",
            "--json",
            "--budget",
            "10",
            "--idle-minutes",
            "0.05",
        ])
        // The hook gets its file as an argument of its own: `$0` inside the quoted script.
        .args([
            "--exec",
            &format!("sh -c 'cat >> \"$0\"' {}", received.display()),
        ])
        .args(["--duration", "120"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, rx) = mpsc::channel::<Value>();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx
                .send(serde_json::from_str(&line).expect("each line is JSON"))
                .is_err()
            {
                break;
            }
        }
    });
    let ready = rx.recv_timeout(Duration::from_secs(60)).unwrap();
    assert_eq!(ready, serde_json::json!({"event": "ready"}));

    // Nine workers, a line each in turn, about 50 lines a second in all.
    let fleet = alerting::transcripts();
    let longest = fleet.iter().map(|(_, l)| l.len()).max().unwrap();
    for k in 0..longest {
        for (id, lines) in &fleet {
            if let Some(line) = lines.get(k) {
                let mut f = std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(alerting::path(dir.path(), id))
                    .unwrap();
                writeln!(f, "{line}").unwrap();
                std::thread::sleep(Duration::from_millis(20));
            }
        }
    }
    let mut events = Vec::new();
    let alerts_in = |e: &[Value]| e.iter().filter(|v| v["event"] == "alert").count();
    let until = Instant::now() + Duration::from_secs(60);
    while alerts_in(&events) < 8 && Instant::now() < until {
        if let Ok(a) = rx.recv_timeout(Duration::from_millis(200)) {
            events.push(a);
        }
    }
    // Anything more would come within a few looks.
    while let Ok(a) = rx.recv_timeout(Duration::from_secs(4)) {
        events.push(a);
    }
    child.kill().unwrap();
    child.wait().unwrap();

    // --rows: each session's fleet row as it changed; the last of each is the session now.
    let mut last_rows = std::collections::BTreeMap::new();
    for r in events.iter().filter(|v| v["event"] == "fleet_row") {
        assert_eq!(r["source"], dir.path().to_str().unwrap());
        last_rows.insert(
            r["row"]["session_id"].as_str().unwrap().to_owned(),
            r["row"]["severity"].as_str().unwrap().to_owned(),
        );
    }
    let stuck: Vec<&str> = last_rows
        .iter()
        .filter(|(_, s)| *s == "stuck")
        .map(|(id, _)| id.as_str())
        .collect();
    assert_eq!(last_rows.len(), 9, "a row for each worker: {last_rows:?}");
    assert_eq!(
        stuck,
        vec![
            alerting::REREAD,
            alerting::STORM,
            alerting::FREED,
            alerting::TOO_LONG,
            alerting::FAILING,
            alerting::REPEATED,
        ]
    );
    let alerts: Vec<Value> = events
        .into_iter()
        .filter(|v| v["event"] == "alert")
        .collect();

    let mut got: Vec<(String, String, u64)> = alerts
        .iter()
        .map(|a| {
            assert_eq!(a["event"], "alert", "{a}");
            (
                a["session_id"].as_str().unwrap().to_owned(),
                a["kind"].as_str().unwrap().to_owned(),
                a["message_index"].as_u64().unwrap(),
            )
        })
        .collect();
    got.sort();
    let want = |id: &str, kind: &str, at: u64| (id.to_owned(), kind.to_owned(), at);
    assert_eq!(
        got,
        vec![
            want(alerting::REREAD, "rereads_after_compaction", 12),
            want(alerting::STORM, "compaction_storm", 9),
            want(alerting::FREED, "compaction_freed_little", 7),
            want(alerting::TOO_LONG, "prompt_too_long", 8),
            want(alerting::FAILING, "failing_loop", 9),
            want(alerting::REPEATED, "repeated_call", 9),
            want(alerting::IDLE, "idle_after_compaction", 6),
            want(alerting::COSTLY, "over_budget", 10),
        ]
    );
    let reread = alerts
        .iter()
        .find(|a| a["kind"] == "rereads_after_compaction")
        .unwrap();
    assert_eq!(
        reread["words"],
        "re-reading /w/shop/app.py after compaction 1: 3 re-reads"
    );
    assert_eq!(reread["severity"], "stuck");
    assert_eq!(
        reread["path"].as_str().unwrap(),
        alerting::path(dir.path(), alerting::REREAD)
            .to_str()
            .unwrap()
    );

    // The hook got every alert, as printed without the event tag (each run by its own
    // process: wait for the last to finish writing).
    let until = Instant::now() + Duration::from_secs(20);
    let mut hooked: Vec<Value> = Vec::new();
    while Instant::now() < until {
        let text = std::fs::read_to_string(&received).unwrap_or_default();
        hooked = text
            .lines()
            .map(|l| serde_json::from_str(l).expect("the hook got JSON"))
            .collect();
        if hooked.len() >= alerts.len() {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let mut printed: Vec<Value> = alerts
        .into_iter()
        .map(|mut a| {
            a.as_object_mut().unwrap().remove("event");
            a
        })
        .collect();
    let key = |v: &Value| format!("{}{}", v["session_id"], v["kind"]);
    printed.sort_by_key(key);
    hooked.sort_by_key(key);
    assert_eq!(hooked, printed);
}

#[test]
fn bad_alert_flags_are_refused_with_what_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let out = run(&["watch", d, "--alerts", "--off", "rereads,spill_loop"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--off rereads: not a kind of alert (one of rereads_after_compaction,"),
        "{err}"
    );
    let out = run(&["watch", d, "--alerts", "--exec", "notify 'unbalanced"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not a command (unbalanced quotes?)"), "{err}");
    // The thresholds belong to --alerts.
    let out = run(&["watch", d, "--budget", "5"]);
    assert_eq!(out.status.code(), Some(2), "a usage error");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--alerts"), "{err}");
}
