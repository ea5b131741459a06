//! Helpers the CLI test files share: run the built `palimpsest` binary and read its JSON.
//! Each test file uses some of them, so unused ones are not an error here.
#![allow(dead_code)]

use assert_cmd::Command;
use serde_json::Value;

/// The repository's root.
pub fn repo() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The real Claude Code transcripts in `fixtures/real` (the folder, and each `.jsonl` in it).
pub fn real_transcripts() -> (std::path::PathBuf, Vec<String>) {
    let dir = repo().join("fixtures/real/claude-code");
    let files = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .map(|p| p.to_str().unwrap().to_owned())
        .collect();
    (dir, files)
}

/// Run `palimpsest` with `args` and its cache (index and token counts) in `home`: stdout,
/// stderr and exit code.
pub fn run_in(home: &std::path::Path, args: &[&str]) -> (Vec<u8>, Vec<u8>, Option<i32>) {
    let out = run_env(args, &[("XDG_CACHE_HOME", home.to_str().unwrap())]);
    (out.stdout, out.stderr, out.status.code())
}

/// Run `palimpsest` with `args`, whatever its exit status.
pub fn run(args: &[&str]) -> std::process::Output {
    run_env(args, &[])
}

/// A cache folder for this test binary: the index and token cache of the runs land there,
/// not in the user's `~/.cache`.
pub fn cache_home() -> &'static std::path::Path {
    static DIR: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    DIR.get_or_init(|| tempfile::tempdir().unwrap()).path()
}

/// [`run`] with extra environment variables (`XDG_CACHE_HOME` is [`cache_home`] unless given).
pub fn run_env(args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    Command::cargo_bin("palimpsest")
        .unwrap()
        .env("XDG_CACHE_HOME", cache_home())
        .envs(env.iter().copied())
        .args(args)
        .output()
        .unwrap()
}

/// Run `palimpsest` with `args`, require success and parse stdout as JSON.
pub fn run_json(args: &[&str]) -> Value {
    json_of(run(args), args)
}

/// The JSON stdout of a run that must have succeeded.
pub fn json_of(out: std::process::Output, args: &[&str]) -> Value {
    assert!(
        out.status.success(),
        "palimpsest {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("stdout is JSON")
}

/// `fixtures/real/REL`, the real sessions (`palimpsest_fixtures::real_data`).
pub use palimpsest_fixtures::real_data;
