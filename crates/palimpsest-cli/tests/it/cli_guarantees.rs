//! What Palimpsest guarantees about its inputs (issue 46), through the command line on the
//! shapes that broke it: a goose file beside other agents' files hides nothing, a first line
//! over 64 KiB is still read, the goose temp folder cannot open the disk, and no FIFO hangs a
//! command. Every command that lists or reads is run with a deadline.
#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Run the CLI with a private HOME, cache and TMPDIR, killed after `limit`; the output and how
/// long it ran.
fn run_limited(tmp: &Path, args: &[&str], limit: Duration) -> (std::process::Output, Duration) {
    let home = tmp.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let started = Instant::now();
    let out = Command::new("timeout")
        .arg("--signal=KILL")
        .arg(format!("{}", limit.as_secs()))
        .arg(assert_cmd::cargo::cargo_bin("palimpsest"))
        .args(args)
        .env("HOME", &home)
        .env("XDG_CACHE_HOME", tmp.join("cache"))
        .env("TMPDIR", tmp.join("tmp"))
        .output()
        .unwrap();
    (out, started.elapsed())
}

fn run_json(tmp: &Path, args: &[&str]) -> Value {
    let (out, _) = run_limited(tmp, args, Duration::from_secs(60));
    assert!(
        out.status.success(),
        "palimpsest {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
}

fn ids(listing: &Value) -> Vec<String> {
    let mut v: Vec<String> = listing
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            format!(
                "{} {}",
                s["format"].as_str().unwrap(),
                s["id"].as_str().unwrap()
            )
        })
        .collect();
    v.sort();
    v
}

const SHORT: &str = "55604662-cf2a-4331-851a-ec234028f8ca";
const ROLLOUT: &str = "rollout-2026-02-24T10-51-00-019c8f0a-0000-7000-8000-00000000a001.jsonl";

/// A folder of a Claude transcript, a Codex rollout and a message log, side by side.
fn mixed(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::copy(
        repo().join("fixtures/real/claude-code/short.jsonl"),
        dir.join(format!("{SHORT}.jsonl")),
    )
    .unwrap();
    std::fs::copy(
        repo()
            .join("fixtures/codex/sessions/2026/02/24")
            .join(ROLLOUT),
        dir.join(ROLLOUT),
    )
    .unwrap();
    std::fs::copy(
        repo().join("fixtures/message-log/harness-compaction.jsonl"),
        dir.join("harness-compaction.jsonl"),
    )
    .unwrap();
}

#[test]
fn a_goose_file_hides_nothing_beside_or_below_it() {
    // See: issue 46. A goose legacy file among a folder's first files, or a sessions.db, made
    // goose claim the whole folder: 3 sessions became 1, with no problem reported.
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("backup");
    mixed(&dir);
    let three = ids(&run_json(
        t.path(),
        &["sessions", dir.to_str().unwrap(), "--json"],
    ));
    assert_eq!(
        three,
        [
            format!("claude-code {SHORT}"),
            "codex 019c8f0a-0000-7000-8000-00000000a001".to_owned(),
            "message-log harness-compaction".to_owned(),
        ],
        "three agents' sessions"
    );
    std::fs::copy(
        repo().join("fixtures/goose/legacy/seed-five.jsonl"),
        dir.join("20250901_101500.jsonl"),
    )
    .unwrap();
    let four = ids(&run_json(
        t.path(),
        &["sessions", dir.to_str().unwrap(), "--json"],
    ));
    let mut want = three;
    want.push("goose-legacy 20250901_101500".to_owned());
    want.sort();
    assert_eq!(
        four, want,
        "a goose legacy file adds its session, hides none"
    );

    // A goose database in the folder, and another agent's folder below it.
    std::fs::copy(
        repo().join("fixtures/goose-stuck/sessions.db"),
        dir.join("sessions.db"),
    )
    .unwrap();
    mixed(&dir.join("older"));
    let d = dir.to_str().unwrap();
    let all = run_json(t.path(), &["sessions", d, "--json"]);
    let formats = |v: &Value| {
        let mut n: std::collections::BTreeMap<String, usize> = Default::default();
        for s in v.as_array().unwrap() {
            *n.entry(s["format"].as_str().unwrap().to_owned())
                .or_default() += 1;
        }
        n
    };
    let got = formats(&all);
    let stuck = run_json(
        t.path(),
        &[
            "sessions",
            repo()
                .join("fixtures/goose-stuck/sessions.db")
                .to_str()
                .unwrap(),
            "--json",
        ],
    );
    let goose = stuck.as_array().unwrap().len();
    assert_eq!(
        got,
        [
            ("claude-code".to_owned(), 2),
            ("codex".to_owned(), 2),
            ("goose".to_owned(), goose),
            ("goose-legacy".to_owned(), 1),
            ("message-log".to_owned(), 2),
        ]
        .into_iter()
        .collect(),
        "the database's sessions beside both copies of the other three"
    );
    let total = all.as_array().unwrap().len();
    let indexed = run_json(t.path(), &["index", d, "--json"]);
    assert_eq!(
        (
            indexed["sessions"].as_u64(),
            indexed["problems"].as_array().map(Vec::len)
        ),
        (Some(total as u64), Some(0)),
        "the index holds every one of them: {indexed}"
    );
    let fleet = run_json(t.path(), &["diagnose", d, "--json"]);
    assert_eq!(
        fleet["sessions"].as_array().unwrap().len(),
        total,
        "and so does the fleet"
    );
}

#[test]
fn a_first_line_over_64_kib_does_not_lose_the_file() {
    // See: issue 46. A message log whose first line is 66 594 bytes, a goose legacy file whose
    // metadata line holds a 108 KB todo list, a Codex rollout whose id comes after 64 KiB.
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("long");
    std::fs::create_dir_all(&dir).unwrap();
    let log_first = json!({"role": "user", "content": "x".repeat(66_566)}).to_string();
    assert_eq!(log_first.len(), 66_594, "the first line of the real case");
    std::fs::write(
        dir.join("long-log.jsonl"),
        format!(
            "{log_first}\n{}\n",
            json!({"role": "assistant", "content": "ok"})
        ),
    )
    .unwrap();
    let todo: Vec<Value> = (0..1_500)
        .map(|i| json!({"id": i, "content": format!("step {i}: check the retry path"), "status": "pending"}))
        .collect();
    let meta = json!({"working_dir": "/w", "description": "long metadata", "message_count": 1,
        "extension_data": {"todo.v0": {"todos": todo}}})
    .to_string();
    assert!(
        meta.len() > 100_000,
        "a metadata line of {} bytes",
        meta.len()
    );
    std::fs::write(
        dir.join("20250901_120000.jsonl"),
        format!(
            "{meta}\n{}\n",
            json!({"id": null, "role": "user", "created": 1_700_000_000,
                   "content": [{"type": "text", "text": "hi"}]})
        ),
    )
    .unwrap();
    let rollout = dir.join("rollout-2026-03-01T09-00-00-long.jsonl");
    let meta = json!({"timestamp": "2026-03-01T09:00:00.000Z", "type": "session_meta",
        "payload": {"instructions": "i".repeat(70_000), "id": "019c9000-0000-7000-8000-0000000000aa",
                    "cwd": "/w", "timestamp": "2026-03-01T09:00:00.000Z"}});
    let msg = json!({"timestamp": "2026-03-01T09:00:01.000Z", "type": "response_item",
        "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hello"}]}});
    std::fs::write(&rollout, format!("{meta}\n{msg}\n")).unwrap();
    let got = ids(&run_json(
        t.path(),
        &["sessions", dir.to_str().unwrap(), "--json"],
    ));
    assert_eq!(
        got,
        [
            "codex 019c9000-0000-7000-8000-0000000000aa",
            "goose-legacy 20250901_120000",
            "message-log long-log",
        ],
        "all three are read"
    );
    for f in ["long-log.jsonl", "20250901_120000.jsonl"] {
        let v = run_json(t.path(), &["show", dir.join(f).to_str().unwrap(), "--json"]);
        assert_eq!(
            v["messages"].as_array().unwrap().len(),
            if f == "long-log.jsonl" { 2 } else { 1 },
            "{f} loads whole"
        );
    }
}

#[test]
fn the_goose_temp_folder_is_not_a_door_to_the_disk() {
    // See: issue 46. Any local user can create $TMPDIR/goose_mcp_responses -> / before goose
    // does; a crafted goose session then named /etc/passwd through it.
    let t = tempfile::tempdir().unwrap();
    let tmp = t.path().join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    std::os::unix::fs::symlink("/", tmp.join("goose_mcp_responses")).unwrap();
    let session = t.path().join("sessions/20250902_080000.jsonl");
    std::fs::create_dir_all(session.parent().unwrap()).unwrap();
    let notice = |p: &str| {
        format!(
            "The response returned from the tool call was larger (90000 characters) and is \
             stored in the file: {}",
            tmp.join("goose_mcp_responses").join(p).display()
        )
    };
    let lines = [
        json!({"working_dir": "/w", "description": "crafted", "message_count": 3}),
        json!({"id": "m0", "role": "user", "created": 1_700_000_000,
               "content": [{"type": "text", "text": "read it"}]}),
        json!({"id": "m1", "role": "assistant", "created": 1_700_000_001, "content": [
            {"type": "toolRequest", "id": "c1", "toolCall": {"status": "success",
             "value": {"name": "fetch", "arguments": {"url": "x"}}}}]}),
        json!({"id": "m2", "role": "user", "created": 1_700_000_002, "content": [
            {"type": "toolResponse", "id": "c1", "toolResult": {"status": "success",
             "value": [{"type": "text", "text": notice("etc/passwd")}]}}]}),
    ];
    std::fs::write(
        &session,
        lines.iter().map(|l| format!("{l}\n")).collect::<String>(),
    )
    .unwrap();
    let (out, _) = run_limited(
        t.path(),
        &[
            "spills",
            session.to_str().unwrap(),
            "--json",
            "--text",
            "5000",
        ],
        Duration::from_secs(60),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        !stdout.contains("root:x:0:0"),
        "no byte of /etc/passwd is printed: {stdout}"
    );
    let v: Value = serde_json::from_str(&stdout).unwrap();
    let problems = v["problems"].to_string();
    assert!(
        problems.contains("goose_mcp_responses is a symlink (to /)"),
        "the review says why the folder is not searched: {problems}"
    );
    let status = v["spills"][0]["status"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert_ne!(status, "read", "the spill is not read: {}", v["spills"]);
}

fn fifo(at: &Path) {
    std::fs::create_dir_all(at.parent().unwrap()).unwrap();
    let ok = Command::new("mkfifo").arg(at).status().unwrap();
    assert!(ok.success(), "mkfifo {}", at.display());
}

#[test]
fn no_fifo_hangs_a_command() {
    // See: issue 46. A FIFO named like a subagent run blocked every command that listed its
    // transcript; one named like a spill file blocked `spills --text`.
    let t = tempfile::tempdir().unwrap();
    let project = t.path().join("projects/-home-dev-x");
    std::fs::create_dir_all(&project).unwrap();
    let main = project.join(format!("{SHORT}.jsonl"));
    std::fs::copy(repo().join("fixtures/real/claude-code/short.jsonl"), &main).unwrap();
    fifo(&project.join(SHORT).join("subagents/agent-a0fifo.jsonl"));
    fifo(&project.join(SHORT).join("tool-results/toolu_fifo.txt"));
    let limit = Duration::from_secs(20);
    let p = project.to_str().unwrap();
    let m = main.to_str().unwrap();
    for args in [
        vec!["sessions", p, "--json"],
        vec!["show", m, "--json"],
        vec!["diagnose", p, "--json"],
        vec!["index", p, "--json"],
        vec!["search", "zzz-none", p, "--json"],
        vec!["spills", m, "--json", "--text", "1000"],
        vec!["tokens", m, "--json"],
        vec!["compactions", m, "--json"],
    ] {
        let (out, took) = run_limited(t.path(), &args, limit);
        assert!(
            took < limit,
            "palimpsest {args:?} ended ({took:?}): {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            out.status.code().is_some_and(|c| c <= 1),
            "palimpsest {args:?} answered (exit {:?}): {}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let listed = run_json(t.path(), &["sessions", p, "--json"]);
    assert_eq!(
        ids(&listed),
        [format!("claude-code {SHORT}")],
        "the transcript is listed; the FIFO is not a run"
    );
}

/// Ways an index file gets damaged: each must end in a rebuilt index and a note, never in
/// every later run failing until the user finds the file.
fn damage(index: &Path, kind: &str) {
    let n = std::fs::metadata(index).unwrap().len();
    match kind {
        "truncated" => std::fs::OpenOptions::new()
            .write(true)
            .open(index)
            .unwrap()
            .set_len(n / 2)
            .unwrap(),
        "header" => {
            let mut b = std::fs::read(index).unwrap();
            b[..100].fill(0);
            std::fs::write(index, b).unwrap();
        }
        // Every page's first byte flipped from page 3 on (the b-tree page headers): bit flips
        // SQLite meets on its first read of them.
        "bit flips" => {
            let mut b = std::fs::read(index).unwrap();
            for page in 2..(b.len() / 4096) {
                b[page * 4096] ^= 0xff;
            }
            std::fs::write(index, b).unwrap();
        }
        "dropped table" => {
            let c = rusqlite::Connection::open(index).unwrap();
            c.execute_batch("DROP TABLE diagnoses").unwrap();
        }
        other => unreachable!("{other}"),
    }
}

#[test]
fn a_damaged_index_is_set_aside_and_built_again() {
    // See: issue 46. Every later `index`, `search`, `show --index`, `diagnose DIR` and `export`
    // failed with "database disk image is malformed".
    let stuck = repo().join("fixtures/goose-stuck");
    let s = stuck.to_str().unwrap();
    let db = stuck.join("sessions.db");
    for kind in ["truncated", "header", "bit flips", "dropped table"] {
        for (name, args) in [
            ("index", vec!["index", s, "--json"]),
            ("search", vec!["search", "store.py", s, "--json"]),
            (
                "show --index",
                vec![
                    "show",
                    db.to_str().unwrap(),
                    "--session",
                    "20260301_1",
                    "--rows",
                    "--index",
                    "--json",
                ],
            ),
            ("diagnose", vec!["diagnose", s, "--json"]),
            ("export", vec!["export", "--parquet", "OUT", s, "--json"]),
        ] {
            let t = tempfile::tempdir().unwrap();
            let index = t.path().join("cache/palimpsest/index.db");
            run_json(t.path(), &["index", s, "--json"]);
            damage(&index, kind);
            let out_dir = t.path().join("parquet");
            let args: Vec<&str> = args
                .iter()
                .map(|a| {
                    if *a == "OUT" {
                        out_dir.to_str().unwrap()
                    } else {
                        a
                    }
                })
                .collect();
            let (out, _) = run_limited(t.path(), &args, Duration::from_secs(60));
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(
                out.status.success(),
                "{kind} / {name}: the command answers: {err}"
            );
            assert!(
                err.contains("damaged") && err.contains("index.db.damaged"),
                "{kind} / {name}: and says the index was set aside: {err}"
            );
            assert!(
                index.with_extension("db.damaged").is_file(),
                "{kind} / {name}: the damaged file is kept aside"
            );
            let again = run_json(t.path(), &["index", s, "--json"]);
            assert_eq!(
                (
                    again["sessions"].as_u64(),
                    again["problems"].as_array().map(Vec::len)
                ),
                (Some(1), Some(0)),
                "{kind} / {name}: the next run finds a sound index: {again}"
            );
        }
    }
}

#[test]
fn a_cache_that_cannot_be_written_is_done_without() {
    // See: issue 46. `tokens FILE` failed on a read-only or missing cache folder, and a cache
    // owned by another user broke even `search`. Here the cache folder cannot be made (a file
    // stands where it should be), which fails for root too.
    let t = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(t.path().join("cache")).unwrap();
    std::fs::write(t.path().join("cache/palimpsest"), "not a folder").unwrap();
    let short = repo().join("fixtures/real/claude-code/short.jsonl");
    let stuck = repo().join("fixtures/goose-stuck");
    let (tokens, _) = run_limited(
        t.path(),
        &["tokens", short.to_str().unwrap(), "--json"],
        Duration::from_secs(60),
    );
    assert!(
        tokens.status.success(),
        "{}",
        String::from_utf8_lossy(&tokens.stderr)
    );
    let report: Value = serde_json::from_slice(&tokens.stdout).unwrap();
    assert_eq!(
        report["final_context"]["total"].as_u64(),
        Some(211),
        "counted in full without the cache"
    );
    let err = String::from_utf8_lossy(&tokens.stderr);
    assert_eq!(
        err.matches("without the token cache").count(),
        1,
        "and said once: {err}"
    );
    let (search, _) = run_limited(
        t.path(),
        &["search", "fetch_rows", stuck.to_str().unwrap(), "--json"],
        Duration::from_secs(60),
    );
    assert!(
        search.status.success(),
        "{}",
        String::from_utf8_lossy(&search.stderr)
    );
    let hits: Value = serde_json::from_slice(&search.stdout).unwrap();
    let fresh = tempfile::tempdir().unwrap();
    let with_index = run_json(
        fresh.path(),
        &["search", "fetch_rows", stuck.to_str().unwrap(), "--json"],
    );
    assert_eq!(hits, with_index, "the same hits as through the index");
    assert!(
        String::from_utf8_lossy(&search.stderr).contains("searched without the index"),
        "and it says so"
    );
    let (diag, _) = run_limited(
        t.path(),
        &["diagnose", stuck.to_str().unwrap(), "--json"],
        Duration::from_secs(60),
    );
    assert!(
        diag.status.success(),
        "{}",
        String::from_utf8_lossy(&diag.stderr)
    );
}

#[test]
fn a_full_disk_is_named_and_the_cache_done_without() {
    // See: issue 46. A full disk said "disk I/O error". The cache folder is a 160 KiB file
    // system with 40 KiB left, mounted in a mount namespace of the test's own (no root needed
    // where user namespaces are allowed).
    let t = tempfile::tempdir().unwrap();
    let cache = t.path().join("full");
    std::fs::create_dir_all(&cache).unwrap();
    let bin = assert_cmd::cargo::cargo_bin("palimpsest");
    let short = repo().join("fixtures/real/claude-code/short.jsonl");
    let stuck = repo().join("fixtures/goose-stuck");
    let script = format!(
        "mount -t tmpfs -o size=160k tmpfs {c} && head -c 122880 /dev/zero > {c}/fill && \
         export XDG_CACHE_HOME={c} HOME={c}; \
         echo '== index'; {b} index {s} 2>&1; \
         echo '== tokens'; {b} tokens {f} --json 2>&1 >/dev/null; echo \"exit $?\"; \
         echo '== search'; {b} search fetch_rows {s} --json 2>&1 >/dev/null; echo \"exit $?\"",
        c = cache.display(),
        b = bin.display(),
        s = stuck.display(),
        f = short.display()
    );
    let out = Command::new("unshare")
        .args(["--user", "--map-root-user", "--mount", "sh", "-c", &script])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && said.contains("== search"),
        "the script ran in its own mount namespace: {said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let full = format!("the disk holding {}/palimpsest is full", cache.display());
    let section = |name: &str| {
        said.split(&format!("== {name}\n"))
            .nth(1)
            .and_then(|s| s.split("\n== ").next())
            .unwrap_or_default()
            .to_owned()
    };
    assert!(
        section("index").contains(&full),
        "`index`, which is the cache, names the full disk: {said}"
    );
    for name in ["tokens", "search"] {
        let s = section(name);
        assert!(
            s.contains(&full) && s.trim_end().ends_with("exit 0"),
            "`{name}` answers without the cache and names the full disk: {s}"
        );
    }
}
