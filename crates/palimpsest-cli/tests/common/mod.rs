//! Helpers the CLI test files share: run the built `palimpsest` binary and read its JSON.
//! Each test file uses some of them, so unused ones are not an error here.
#![allow(dead_code)]

use assert_cmd::Command;
use serde_json::Value;

/// Run `palimpsest` with `args`, whatever its exit status.
pub fn run(args: &[&str]) -> std::process::Output {
    run_env(args, &[])
}

/// [`run`] with extra environment variables.
pub fn run_env(args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    Command::cargo_bin("palimpsest")
        .unwrap()
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
