//! Every benchmark docs/PERFORMANCE.md names, twice: the inner function its bench times, and the
//! command a user runs for the same answer, as a whole process on the same input. Printed side
//! by side with the ratio, so a gap like "31 ms in process, 13.7 s as a command" cannot hide.
//!
//! `cargo bench -p palimpsest-cli --bench twins` (sizes: `PALIMPSEST_TWIN_MB`, default 40, for
//! the Claude transcript grown from the real one in `fixtures/real`; `PALIMPSEST_TWIN_GOOSE_MB`,
//! default 100, for the goose database). Inputs are made here by the fixtures crate, never
//! committed. Each figure is the median of 3 runs after one warm-up (token caches and the index
//! filled once, as a user's second run finds them). The live-append twin is `watch_latency`;
//! `big append` is the index of a big transcript being written, from its last offset beside
//! read whole.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use palimpsest_core::api;
use palimpsest_core::replay::options::{PolicyName, ReplayOptions};
use palimpsest_core::replay::sweep::{Axis, Metric};

const RUNS: usize = 3;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// One warm-up, then the median of [`RUNS`].
fn time(mut f: impl FnMut()) -> Duration {
    f();
    median(
        (0..RUNS)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed()
            })
            .collect(),
    )
}

/// The command `args` as a process, its output discarded, with the bench's own cache folder.
fn command(cache: &Path, args: &[&str]) -> impl FnMut() {
    let args: Vec<String> = args.iter().map(|s| (*s).to_owned()).collect();
    let cache = cache.to_owned();
    move || {
        let status = Command::new(env!("CARGO_BIN_EXE_palimpsest"))
            .args(&args)
            .env("XDG_CACHE_HOME", &cache)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .expect("palimpsest runs");
        assert!(
            status.success() || status.code() == Some(1),
            "{args:?} failed"
        );
    }
}

fn row(name: &str, inner: Duration, whole: Duration) {
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "{name:<34} {:>10.1} ms {:>10.1} ms {:>8.1}×",
        ms(inner),
        ms(whole),
        ms(whole) / ms(inner).max(0.001)
    );
}

fn shared() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/real/claude-code")
}

fn main() -> anyhow::Result<()> {
    let mb: u64 = std::env::var("PALIMPSEST_TWIN_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(40);
    let goose_mb: u64 = std::env::var("PALIMPSEST_TWIN_GOOSE_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100);
    let dir = tempfile::tempdir()?;
    let cache = dir.path().join("cache");
    let real = shared().join("258c7280-ae70-4798-800f-63464d01a85d.jsonl");
    let big = dir
        .path()
        .join("258c7280-ae70-4798-800f-63464d01a85d.jsonl");
    palimpsest_fixtures::big::grow(&real, &big, mb << 20)?;
    let f = big.to_str().unwrap_or_default().to_owned();
    let db = dir.path().join("sessions.db");
    palimpsest_fixtures::goose::large_db(&db, goose_mb << 20, 700)?;
    let db_s = db.to_str().unwrap_or_default().to_owned();
    let fleet = dir.path().join("fleet");
    palimpsest_fixtures::copy_tree(&shared(), &fleet, &["LICENSE", "README.md"])?;
    let fleet_s = fleet.to_str().unwrap_or_default().to_owned();

    println!(
        "inputs: Claude transcript {mb} MB (grown from the real 258c7280), goose database {goose_mb} MB (700 sessions), the real transcripts of fixtures/real"
    );
    println!(
        "{:<34} {:>13} {:>13} {:>9}",
        "benchmark", "inner", "command", "ratio"
    );

    // claude_parse: the reader's load beside `show --json`.
    let load = || api::load_session(&big, None).expect("the transcript loads");
    row(
        "claude_parse: load | show --json",
        time(|| drop(load())),
        time(command(&cache, &["show", &f, "--json"])),
    );
    let session = load();

    // tokens: the report from a warm count cache beside `tokens --json`.
    let opts = api::TokenOptions {
        cache_dir: Some(cache.join("palimpsest/tokens")),
        ..Default::default()
    };
    let never = std::sync::atomic::AtomicBool::new(false);
    row(
        "tokens: token_report | tokens",
        time(|| {
            api::token_report(&session, &opts, &mut |_| {}, &never).expect("counted");
        }),
        time(command(&cache, &["tokens", &f, "--json"])),
    );

    // The token cache the commands use (theirs is `$XDG_CACHE_HOME/palimpsest`), so the inner
    // functions count as the commands do.
    let counts = palimpsest_core::tokens::TokenCache::existing(&cache.join("palimpsest"));

    // sweep: keep-tail 0..8 × six caps beside the command.
    let ro = ReplayOptions {
        policy: PolicyName::Goose,
        ..ReplayOptions::default()
    };
    let caps = vec![2_000, 5_000, 10_000, 20_000, 50_000, 0];
    row(
        "sweep: replay_sweep | sweep",
        time(|| {
            api::replay_sweep(
                &session,
                &ro,
                Axis::KeepTail((0..=8).collect()),
                Axis::ToolResultCap(caps.clone()),
                Metric::default(),
                counts.as_ref(),
            );
        }),
        time(command(
            &cache,
            &[
                "sweep",
                &f,
                "--policy",
                "goose",
                "--keep-tail",
                "0..8",
                "--tool-result-cap",
                "2000,5000,10000,20000,50000,0",
                "--json",
            ],
        )),
    );

    // lint: both APIs beside `lint --json`.
    row(
        "lint: lint | lint --json",
        time(|| {
            api::lint(&session, palimpsest_core::compaction::Api::Openai);
        }),
        time(command(&cache, &["lint", &f, "--json"])),
    );

    // cutview: the cut views beside `compactions --json`.
    row(
        "cutview: session_cuts | compactions",
        time(|| {
            let c = api::session_counts(&session, counts.as_ref());
            api::session_cuts(&session, c.as_ref());
        }),
        time(command(&cache, &["compactions", &f, "--json"])),
    );

    // fleet: the diagnosis of every real transcript beside `diagnose DIR` (indexed, warm).
    let dopts = api::DiagnoseOptions::default();
    row(
        "fleet: no index | diagnose DIR (index)",
        time(|| {
            api::diagnose_fleet(&fleet, &dopts).expect("diagnosed");
        }),
        time(command(&cache, &["diagnose", &fleet_s, "--json"])),
    );

    // fleet append: one message appended to a real transcript, then that file re-indexed, in
    // the process (`Index::update`, the index the command keeps) and as `index FILE`.
    let short = fleet.join("short.jsonl");
    let short_s = short.to_str().unwrap_or_default().to_owned();
    let count = std::cell::Cell::new(0);
    let append = || {
        let n = count.get() + 1;
        count.set(n);
        let line = format!(
            r#"{{"parentUuid":null,"isSidechain":false,"type":"user","sessionId":"55604662-cf2a-4331-851a-ec234028f8ca","message":{{"role":"user","content":"one more message {n}"}},"uuid":"99999999-0000-4000-8000-{n:012}","timestamp":"2026-02-10T21:20:00.000Z"}}"#
        );
        let mut text = std::fs::read_to_string(&short).expect("the copy is readable");
        text.push_str(&line);
        text.push('\n');
        std::fs::write(&short, text).expect("the copy is writable");
    };
    let mut ix = palimpsest_core::index::Index::open(&cache.join("palimpsest/index.db"))?;
    let one = std::slice::from_ref(&fleet);
    let args = ["index", short_s.as_str()];
    let mut whole = command(&cache, &args);
    row(
        "fleet append: update | index FILE",
        time(|| {
            append();
            let r = ix.update(one, &dopts, &mut |_, _| {}).expect("updated");
            assert_eq!(r.appended, 1, "one appended transcript");
        }),
        time(|| {
            append();
            whole();
        }),
    );

    // big append: a line appended to the big transcript while an agent writes it, then that
    // file re-indexed. Its reader was kept by the update before (`index::snapshots`), so the
    // file is read from where that read stopped; the reference removes the kept reader first,
    // so the file is read whole, as every append was before.
    let growing = dir.path().join("growing/-home-u-proj");
    let (grown, lines) = palimpsest_fixtures::big::followed(&real, &growing, mb << 20, 40)?;
    let grown_s = grown.to_str().unwrap_or_default().to_owned();
    let readers = cache.join("palimpsest/readers");
    let next = std::cell::Cell::new(0);
    let append_line = || {
        use std::io::Write;
        let i = next.get();
        next.set(i + 1);
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&grown)
            .expect("the transcript is writable");
        f.write_all(lines[i].as_bytes())
            .expect("the line is written");
    };
    let grown_one = std::slice::from_ref(&grown);
    let mut update = |forget: bool| {
        if forget {
            let _ = std::fs::remove_dir_all(&readers);
        }
        append_line();
        ix.update(grown_one, &dopts, &mut |_, _| {})
            .expect("updated")
    };
    // Indexed, then seen growing once: from now on its reader is kept.
    update(false);
    update(false);
    let grown_args = ["index", grown_s.as_str()];
    let mut index_grown = command(&cache, &grown_args);
    let resumed_inner = time(|| {
        let r = update(false);
        assert_eq!(r.resumed, 1, "read from the kept reader's offset");
    });
    let resumed_cmd = time(|| {
        append_line();
        index_grown();
    });
    row(
        "big append: update | index FILE",
        resumed_inner,
        resumed_cmd,
    );
    let whole_inner = time(|| {
        let r = update(true);
        assert_eq!((r.appended, r.resumed), (1, 0), "read whole");
    });
    let whole_cmd = time(|| {
        let _ = std::fs::remove_dir_all(&readers);
        append_line();
        index_grown();
    });
    row("  the same read whole (reference)", whole_inner, whole_cmd);
    println!(
        "  from the last offset / read whole: {:.2}× in process, {:.2}× as a command",
        resumed_inner.as_secs_f64() / whole_inner.as_secs_f64(),
        resumed_cmd.as_secs_f64() / whole_cmd.as_secs_f64()
    );

    // goose_list: listing the database beside `sessions DB --json`, and one session.
    row(
        "goose_list: list | sessions --json",
        time(|| {
            api::list_sessions(&db).expect("listed");
        }),
        time(command(&cache, &["sessions", &db_s, "--json"])),
    );
    row(
        "goose one session: load | show",
        time(|| {
            api::load_session(&db, Some("20260801_350")).expect("loaded");
        }),
        time(command(
            &cache,
            &["show", &db_s, "--session", "20260801_350", "--json"],
        )),
    );
    Ok(())
}
