//! `palimpsest tune` over a fleet of 200 sessions at 54 settings (K 0–8 × six tool-result
//! caps), as the whole command a user waits for, on two shapes of fleet: the real transcripts of
//! `fixtures/real` copied into 20 project folders, and 200 generated Claude Code sessions with
//! distinct files and results (`palimpsest_fixtures::distinct`). Per shape: the first tune
//! (nothing in the index or the token cache), a second with nothing changed, and one after the
//! fleet grew by a session; beside them the reference, `palimpsest sweep` of the same grid run
//! on each session of the fleet one after another (its index warm), with the ratio.
//!
//! `cargo bench -p palimpsest-cli --bench tune_fleet` (`PALIMPSEST_TUNE_KB`, default 256: the
//! size of each generated session). Inputs are made here, never committed.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const GRID: [&str; 2] = ["K=0..8", "cap=0,2000,8000,10000,30000,50000"];

fn run(cache: &Path, args: &[&str]) -> (Duration, Vec<u8>) {
    let t = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_palimpsest"))
        .args(args)
        .env("XDG_CACHE_HOME", cache)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .output()
        .expect("palimpsest runs");
    assert!(out.status.success(), "{args:?} failed");
    (t.elapsed(), out.stdout)
}

fn palimpsest(cache: &Path, args: &[&str]) -> Duration {
    run(cache, args).0
}

/// The whole `tune` command, and how many sessions it replayed (the rest came from the index).
fn tune(cache: &Path, fleet: &Path) -> (Duration, u64) {
    let mut args = vec!["tune", fleet.to_str().unwrap(), "--json", "--grid"];
    args.extend(GRID);
    let (took, out) = run(cache, &args);
    let v: serde_json::Value = serde_json::from_slice(&out).expect("tune --json prints JSON");
    (took, v["replayed"].as_u64().expect("replayed"))
}

/// `sweep` of the same grid on each session file, one after another.
fn sweeps(cache: &Path, files: &[PathBuf]) -> Duration {
    files
        .iter()
        .map(|f| {
            palimpsest(
                cache,
                &[
                    "sweep",
                    f.to_str().unwrap(),
                    "--policy",
                    "goose",
                    "--keep-tail",
                    "0..8",
                    "--tool-result-cap",
                    "0,2000,8000,10000,30000,50000",
                    "--json",
                ],
            )
        })
        .sum()
}

fn jsonl(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().map(Result::unwrap) {
        let p = e.path();
        if p.is_dir() {
            out.extend(jsonl(&p));
        } else if p.extension().is_some_and(|x| x == "jsonl") {
            out.push(p);
        }
    }
    out.sort();
    out
}

/// The real transcripts copied into 20 project folders: 200 sessions.
fn real_fleet(dir: &Path) -> PathBuf {
    let fleet = dir.join("real");
    for p in 0..20 {
        let project = fleet.join(format!("project-{p:02}"));
        for family in ["claude-code", "codex"] {
            palimpsest_fixtures::copy_tree(
                &palimpsest_fixtures::real_data(family),
                &project.join(family),
                &["LICENSE", "README.md"],
            )
            .unwrap();
        }
    }
    fleet
}

/// 200 generated sessions of `kb` KiB each, every one with its own files and results.
fn generated_fleet(dir: &Path, kb: u64) -> PathBuf {
    let fleet = dir.join("generated");
    for n in 0..200u64 {
        let project = fleet.join(format!("project-{:02}", n / 10));
        std::fs::create_dir_all(&project).unwrap();
        let id = format!("00000000-0000-4000-8000-{n:012}");
        palimpsest_fixtures::distinct::generate(
            &project.join(format!("{id}.jsonl")),
            &id,
            kb * 1024,
            n + 1,
        )
        .unwrap();
    }
    fleet
}

fn secs(d: Duration) -> String {
    format!("{:.2} s", d.as_secs_f64())
}

fn main() {
    let kb: u64 = std::env::var("PALIMPSEST_TUNE_KB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256);
    let dir = tempfile::tempdir().unwrap();
    println!("tune, 200 sessions × 54 settings (K 0–8 × caps 0, 2000, 8000, 10000, 30000, 50000)");
    println!(
        "{:<28}{:>12}{:>12}{:>12}{:>16}{:>9}",
        "fleet", "first", "unchanged", "grown by 1", "sweep each", "ratio"
    );
    for (name, fleet) in [
        ("real ×20", real_fleet(dir.path())),
        ("generated", generated_fleet(dir.path(), kb)),
    ] {
        let cache = dir.path().join(format!("cache-{}", name.len()));
        let files = jsonl(&fleet);
        let label = format!("{name} ({} files)", files.len());
        let (first, all) = tune(&cache, &fleet);
        let (unchanged, none) = tune(&cache, &fleet);
        assert_eq!((all, none), (files.len() as u64, 0));
        // One session joins: a copy of the first file under a project of its own (a new id
        // where the format takes it from the file name).
        let joined = fleet.join("project-new");
        std::fs::create_dir_all(&joined).unwrap();
        std::fs::copy(&files[0], joined.join(files[0].file_name().unwrap())).unwrap();
        let (grown, one) = tune(&cache, &fleet);
        assert_eq!(one, 1, "only the new session is replayed");
        // The reference: the per-session sweep of the same grid, its digests kept (a second
        // pass, as a user who sweeps each session again would find it).
        let sweep_cache = dir.path().join(format!("sweep-{}", name.len()));
        sweeps(&sweep_cache, &files);
        let each = sweeps(&sweep_cache, &files);
        println!(
            "{label:<28}{:>12}{:>12}{:>12}{:>16}{:>8.1}×",
            secs(first),
            secs(unchanged),
            secs(grown),
            secs(each),
            each.as_secs_f64() / unchanged.as_secs_f64()
        );
    }
}
