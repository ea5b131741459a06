//! The fleet index beside the no-index path, in one run, on a home shaped like a real one:
//! copies of the real Claude Code transcripts (with their subagent runs) and Codex rollout in
//! `fixtures/real`, one project folder per copy, until the home holds about 250 sessions.
//!
//! Times (wall clock, each the best of a few runs where it is cheap):
//! - `no index`: the fleet table diagnosing every session afresh (`api::diagnose_fleet`);
//! - `cold index`: building the index from nothing (`Index::update`);
//! - `unchanged`: the same update again, nothing changed;
//! - `append`: one message appended to one transcript, then the update of the whole home, and
//!   of that file alone (what `palimpsest index FILE` and a follower do);
//! - `listing`: the home listed after one file was written on since the update (the sidebar of
//!   a home where one worker writes), with the index and read whole;
//! - `warm fleet`: the fleet table from an up-to-date index (`api::fleet_indexed`);
//! - `search`: one literal across every session, warm;
//! - `cold index, half the home`: for the linearity ratio.
//!
//! Run: `cargo bench -p palimpsest-core --bench fleet` (`PALIMPSEST_BENCH_COPIES=N` for
//! another size; the default 28 copies make 252 sessions, 175 MB).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use palimpsest_core::api::{self, DiagnoseOptions};
use palimpsest_core::index::Index;
use palimpsest_core::index::search::Query;

fn copy_dir(from: &Path, to: &Path) {
    palimpsest_fixtures::copy_tree(from, to, &["LICENSE", "README.md"]).unwrap();
}

/// `copies` project folders, each a copy of the shared data.
fn home(root: &Path, copies: usize) -> PathBuf {
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/real");
    for k in 0..copies {
        copy_dir(
            &shared.join("claude-code"),
            &root.join(format!("claude/projects/-home-dev-copy{k:03}")),
        );
        copy_dir(
            &shared.join("codex"),
            &root.join(format!("codex/2026/03/{k:03}")),
        );
    }
    root.to_owned()
}

fn size_of(dir: &Path) -> u64 {
    let mut n = 0;
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        let m = e.metadata().unwrap();
        n += if m.is_dir() {
            size_of(&e.path())
        } else {
            m.len()
        };
    }
    n
}

fn time<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let t = Instant::now();
    let r = f();
    (r, t.elapsed())
}

fn secs(d: Duration) -> String {
    format!("{:.3} s", d.as_secs_f64())
}

fn main() {
    let copies: usize = std::env::var("PALIMPSEST_BENCH_COPIES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(28);
    let tmp = tempfile::tempdir().unwrap();
    let root = home(&tmp.path().join("home"), copies);
    let half = home(&tmp.path().join("half"), copies / 2);
    let opts = DiagnoseOptions::default();
    let mb = size_of(&root) as f64 / 1e6;

    let (fresh, no_index) = time(|| api::diagnose_fleet(&root, &opts).unwrap());
    let sessions = fresh.sessions.len();
    println!("home: {sessions} sessions, {mb:.0} MB ({copies} copies of fixtures/real)");
    println!("no index (fleet diagnosed afresh): {}", secs(no_index));

    let mut ix = Index::open(&tmp.path().join("cache/index.db")).unwrap();
    let (r, cold) = time(|| {
        ix.update(std::slice::from_ref(&root), &opts, &mut |_, _| {})
            .unwrap()
    });
    assert_eq!(r.added, sessions, "the cold index adds every session");
    println!(
        "cold index: {}  ({:.2} × the no-index time; goal ≤ 0.33)",
        secs(cold),
        cold.as_secs_f64() / no_index.as_secs_f64()
    );

    let unchanged = (0..3)
        .map(|_| {
            let (r, d) = time(|| {
                ix.update(std::slice::from_ref(&root), &opts, &mut |_, _| {})
                    .unwrap()
            });
            assert_eq!(r.unchanged, sessions, "nothing changed");
            d
        })
        .min()
        .unwrap();
    println!("unchanged re-index: {}  (goal ≤ 0.5 s)", secs(unchanged));

    let target = root.join("claude/projects/-home-dev-copy000/short.jsonl");
    let line = r#"{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/marco/projects/spotter","sessionId":"55604662-cf2a-4331-851a-ec234028f8ca","version":"2.1.39","type":"user","message":{"role":"user","content":"one more message"},"uuid":"99999999-0000-4000-8000-00000000000N","timestamp":"2026-02-10T21:20:00.000Z"}"#;
    // One more message in `target`, then an update of `roots`: the best of three.
    let mut n = 0;
    let mut append_then = |ix: &mut Index, roots: &[PathBuf]| {
        (0..3)
            .map(|_| {
                n += 1;
                let mut text = std::fs::read_to_string(&target).unwrap();
                text.push_str(&line.replace('N', &n.to_string()));
                text.push('\n');
                std::fs::write(&target, text).unwrap();
                let (r, d) = time(|| ix.update(roots, &opts, &mut |_, _| {}).unwrap());
                assert_eq!((r.updated, r.appended), (1, 1), "one appended transcript");
                d
            })
            .min()
            .unwrap()
    };
    let append = append_then(&mut ix, std::slice::from_ref(&root));
    println!(
        "one appended message, the whole home brought up to date: {}",
        secs(append)
    );
    // What `palimpsest index FILE` and a follower do: only the file that grew.
    let one = append_then(&mut ix, std::slice::from_ref(&target));
    println!(
        "one appended message, that file re-indexed: {}  (goal < 50 ms)",
        secs(one)
    );

    // The sidebar of a home where one worker writes: the folder's listing changed since the
    // update, so it is listed again; with the index, only the file that grew is read.
    let mut text = std::fs::read_to_string(&target).unwrap();
    text.push_str(&line.replace('N', "listing"));
    text.push('\n');
    std::fs::write(&target, text).unwrap();
    let best = |f: &dyn Fn() -> api::SessionList| (0..3).map(|_| time(f).1).min().unwrap();
    let whole = best(&|| api::list_sessions(&root).unwrap());
    let known = best(&|| api::list_sessions_with(&ix, &root).unwrap());
    println!(
        "listing the home, one file written on since the update: {} with the index, {} read whole ({:.2} ×)",
        secs(known),
        secs(whole),
        known.as_secs_f64() / whole.as_secs_f64()
    );

    let warm = (0..3)
        .map(|_| time(|| api::fleet_indexed(&mut ix, &root, &opts).unwrap()).1)
        .min()
        .unwrap();
    println!(
        "warm fleet from the index: {}  ({:.3} × no index; goal ≤ 1 s)",
        secs(warm),
        warm.as_secs_f64() / no_index.as_secs_f64()
    );

    let q = Query {
        text: "mix test".into(),
        limit: 100,
        ..Default::default()
    };
    let (hits, search) = time(|| ix.search(std::slice::from_ref(&root), &q).unwrap());
    let search = (0..4)
        .map(|_| time(|| ix.search(std::slice::from_ref(&root), &q).unwrap()).1)
        .min()
        .unwrap_or(search);
    println!(
        "search \"mix test\" (first {} hits), warm: {}  (goal < 100 ms)",
        hits.len(),
        secs(search)
    );

    let mut ix_half = Index::open(&tmp.path().join("cache/half.db")).unwrap();
    let (rh, cold_half) = time(|| {
        ix_half
            .update(std::slice::from_ref(&half), &opts, &mut |_, _| {})
            .unwrap()
    });
    println!(
        "cold index of half the home ({} sessions): {}  (full / half = {:.2}; linear is {:.2})",
        rh.added,
        secs(cold_half),
        cold.as_secs_f64() / cold_half.as_secs_f64(),
        sessions as f64 / rh.added as f64
    );
}
