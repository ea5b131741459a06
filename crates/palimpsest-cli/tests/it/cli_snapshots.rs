//! Snapshots (insta) of what the CLI prints on the committed fixtures: the text views a user
//! reads and the JSON views (the app's DTOs) scripts read. A change to any of them shows as a
//! diff of the `.snap` file under `tests/it/snapshots/` to review with the change; `CI=true`
//! never writes one. The repository's own path is written `[repo]`, so a snapshot taken in one
//! clone holds in another.

use crate::common::run_env;

fn repo() -> String {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
        .display()
        .to_string()
}

/// What `palimpsest args…` printed, run from anywhere, with the repository's path redacted.
/// Each run has a cache of its own: a view counts in BPE once another run counted its session,
/// so a shared cache would make the snapshot depend on the order tests run in.
fn printed(args: &[&str]) -> String {
    let root = repo();
    let args: Vec<String> = args.iter().map(|a| a.replace("[repo]", &root)).collect();
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let cache = tempfile::tempdir().unwrap();
    let out = run_env(&refs, &[("XDG_CACHE_HOME", cache.path().to_str().unwrap())]);
    assert!(
        out.status.success(),
        "palimpsest {refs:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .expect("the CLI prints UTF-8")
        .replace(&root, "[repo]")
}

const SIX_CUTS: &str =
    "[repo]/fixtures/claude/projects/-home-dev-shop/6c075000-0000-4000-8000-00000000c006.jsonl";
const STUCK: &str = "[repo]/fixtures/goose-stuck/sessions.db";
const GOOSE: &str = "[repo]/fixtures/goose/sessions.db";

#[test]
fn compactions_of_six_cuts_of_three_kinds() {
    insta::assert_snapshot!(printed(&["compactions", SIX_CUTS]));
}

#[test]
fn diagnose_of_a_stuck_goose_worker() {
    insta::assert_snapshot!(printed(&["diagnose", STUCK, "--session", "20260301_1"]));
}

#[test]
fn sweep_table_of_a_goose_session() {
    insta::assert_snapshot!(printed(&[
        "sweep",
        GOOSE,
        "--session",
        "seed-dup",
        "--policy",
        "goose",
        "--keep-tail",
        "0..3",
        "--tool-result-cap",
        "0,10000",
        "--context-window",
        "85",
        "--threshold",
        "0.5",
        "--summary-tokens",
        "5",
    ]));
}

#[test]
fn timeline_rows_json_of_a_goose_session() {
    insta::assert_snapshot!(printed(&[
        "show",
        GOOSE,
        "--session",
        "seed-five",
        "--rows",
        "--json"
    ]));
}

#[test]
fn one_cut_view_json_of_six_cuts() {
    insta::assert_snapshot!(printed(&["compactions", SIX_CUTS, "--cut", "3", "--json"]));
}
