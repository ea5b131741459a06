//! What the CLI does when the user leaves things out or points at nothing: a transcript with its
//! subagents' runs beside it means its own session, and a missing path is one clear line.

use crate::common;

use common::{run, run_json};

fn claude(file: &str) -> String {
    format!(
        "{}/../../fixtures/real/claude-code/{file}",
        env!("CARGO_MANIFEST_DIR")
    )
}

#[test]
fn a_transcript_with_subagents_beside_it_needs_no_session_flag() {
    let path = claude("258c7280-ae70-4798-800f-63464d01a85d.jsonl");
    let v = run_json(&["compactions", &path, "--json"]);
    let cuts = v["compactions"].as_array().expect("a compactions array");
    assert_eq!(
        cuts.len(),
        1,
        "the main transcript's one compaction, not an ambiguity error: {v}"
    );
    assert_eq!(
        cuts[0]["pre_tokens"], 167094,
        "the auto compaction of the main session"
    );
    let shown = run_json(&["show", &path, "--json"]);
    assert_eq!(
        shown["session"]["id"], "258c7280-ae70-4798-800f-63464d01a85d",
        "show opens the top-level session, not a subagent run"
    );
}

#[test]
fn a_missing_path_is_one_line_naming_it_once() {
    let out = run(&["sessions", "/nonexistent/palimpsest-test"]);
    assert_eq!(out.status.code(), Some(2), "input errors exit 2");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        err.trim_end(),
        "palimpsest: cannot list sessions in /nonexistent/palimpsest-test: \
         /nonexistent/palimpsest-test: No such file or directory (os error 2)",
        "the OS error is said once, after the file it concerns"
    );
}

#[test]
fn version_names_the_release_and_the_commit_it_was_built_from() {
    let out = run(&["--version"]);
    assert!(out.status.success(), "--version exits 0");
    let head = std::process::Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map_or_else(
            || "unknown".to_string(),
            |o| String::from_utf8_lossy(&o.stdout).trim().to_string(),
        );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("palimpsest {} (commit {head})\n", env!("CARGO_PKG_VERSION"))
    );
}
