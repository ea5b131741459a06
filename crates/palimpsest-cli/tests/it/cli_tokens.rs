//! `palimpsest tokens`: the JSON contract, the encoding flag, the cache and the SVG output, on a
//! real Claude Code transcript and the goose fixture database.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn short() -> PathBuf {
    repo().join("fixtures/real/claude-code/short.jsonl")
}

/// A transcript with tool results of at least `CACHE_MIN_BYTES` (256): short.jsonl's longest
/// piece is 225 bytes, so nothing of it is ever cached.
fn tool_heavy() -> PathBuf {
    repo().join("fixtures/real/claude-code/tool_heavy.jsonl")
}

fn tokens(args: &[&str], cache: &Path) -> Value {
    let out = Command::cargo_bin("palimpsest")
        .unwrap()
        .arg("tokens")
        .args(args)
        .arg("--cache-dir")
        .arg(cache)
        .arg("--json")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    serde_json::from_slice(&out).expect("stdout is JSON")
}

#[test]
fn json_contract_on_a_claude_transcript() {
    if !short().exists() {
        return;
    }
    let cache = tempfile::tempdir().unwrap();
    let v = tokens(&[short().to_str().unwrap()], cache.path());
    assert_eq!(
        v["encoding"], "o200k_base",
        "Claude models are estimated with o200k_base"
    );
    let fc = &v["final_context"];
    // Checked against tiktoken-rs on the transcript's own texts: user 8 + 9, assistant text
    // 1 + 16, thinking 28, tool calls (name + JSON input) 2 + 21 and 1 + 19, results 53 + 53.
    assert_eq!(
        fc["total"], 211,
        "short.jsonl's final context is 211 o200k tokens"
    );
    let cats = fc["categories"].as_array().expect("categories is a list");
    assert_eq!(
        cats.len(),
        10,
        "every category is listed, empty ones with 0"
    );
    for c in cats {
        for key in ["name", "tokens", "share"] {
            assert!(c.get(key).is_some(), "category entries carry `{key}`: {c}");
        }
    }
    let results = cats.iter().find(|c| c["name"] == "tool_results").unwrap();
    assert_eq!(
        results["tokens"], 106,
        "Bash and Glob results: 53 + 53 tokens"
    );
    assert!(
        v["processed"]["total"].is_u64(),
        "processed has the same shape"
    );
    assert_eq!(
        // The last usage: input 3 + cache creation 13 835 + cache read 11 515.
        v["recorded_usage"]["recorded_context"],
        25_353,
        "the transcript's own usage (input + cache) is shown beside our estimate"
    );
    for key in ["top_tools", "top_parts", "per_request"] {
        assert!(v[key].is_array(), "`{key}` is part of the output");
    }
}

#[test]
fn encoding_flag_cache_and_svg() {
    if !tool_heavy().exists() {
        return;
    }
    let cache = tempfile::tempdir().unwrap();
    let svg = cache.path().join("t.svg");
    let path = tool_heavy();
    let p = path.to_str().unwrap();
    let first = tokens(
        &[
            p,
            "--encoding",
            "cl100k_base",
            "--svg",
            svg.to_str().unwrap(),
        ],
        cache.path(),
    );
    assert_eq!(
        first["encoding"], "cl100k_base",
        "the flag overrides the model's choice"
    );
    let text = std::fs::read_to_string(&svg).expect("--svg writes the file");
    assert!(
        text.starts_with("<svg") && text.contains("Final agent-visible context"),
        "the SVG holds the charts with their titles"
    );
    assert!(
        cache.path().join("token-counts.sqlite3").exists(),
        "counts are cached in the given cache dir"
    );
    let again = tokens(&[p, "--encoding", "cl100k_base"], cache.path());
    assert_eq!(
        again["final_context"], first["final_context"],
        "cached counts give the same totals"
    );
    assert!(
        again["stats"]["cache_hits"].as_u64().unwrap() > 0,
        "the second run reads the cache"
    );
}

#[test]
fn goose_fixture_and_bad_encoding() {
    let cache = tempfile::tempdir().unwrap();
    Command::cargo_bin("palimpsest")
        .unwrap()
        .args(["tokens", "x.jsonl", "--encoding", "p50k_base"])
        .assert()
        .code(2);
    let db = repo().join("fixtures/goose/sessions.db");
    if !db.exists() {
        return;
    }
    let out = Command::cargo_bin("palimpsest")
        .unwrap()
        .args(["sessions", db.to_str().unwrap(), "--json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    // `sessions --json` prints the list itself (an array of session metadata).
    let list: Value = serde_json::from_slice(&out).unwrap();
    let id = list[0]["id"]
        .as_str()
        .expect("the fixture holds sessions")
        .to_owned();
    let v = tokens(&[db.to_str().unwrap(), "--session", &id], cache.path());
    let total = v["final_context"]["total"].as_u64().unwrap();
    let sum: u64 = v["final_context"]["categories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["tokens"].as_u64().unwrap())
        .sum();
    assert_eq!(total, sum, "the categories add up to the total");
}

/// `tokens` of a transcript the index holds as it is answers from the index: the same report a
/// count gives (its lists cut to `--top`, priced at `--prices`), with the counting statistics
/// of the indexing run that made it.
#[test]
fn an_indexed_transcript_is_reported_from_the_index() {
    let six = repo()
        .join("fixtures/claude/projects/-home-dev-shop/6c075000-0000-4000-8000-00000000c006.jsonl");
    let six = six.to_str().unwrap();
    let home = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| -> Value {
        let out = Command::cargo_bin("palimpsest")
            .unwrap()
            .env("XDG_CACHE_HOME", home.path())
            .env("XDG_CONFIG_HOME", home.path())
            .args(args)
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        serde_json::from_slice(&out).expect("stdout is JSON")
    };
    let indexed = run(&["index", six, "--json"]);
    assert_eq!(
        indexed["added"], 2,
        "the transcript and its subagent's run are indexed: {indexed}"
    );
    let without_stats = |mut v: Value| {
        v.as_object_mut().unwrap().remove("stats");
        v
    };
    let prices = home.path().join("p.json");
    std::fs::write(
        &prices,
        r#"{"claude-opus-4-6": {"input_cost_per_token": 1e-6, "output_cost_per_token": 1e-6,
            "cache_read_input_token_cost": 1e-6, "cache_creation_input_token_cost": 1e-6}}"#,
    )
    .unwrap();
    let p = prices.to_str().unwrap();
    for args in [vec![], vec!["--top", "3"], vec!["--prices", p]] {
        let mut kept = vec!["tokens", six, "--json"];
        kept.extend(&args);
        let from_index = run(&kept);
        kept.push("--no-cache");
        let counted = run(&kept);
        assert!(
            from_index["stats"]["counted"].as_u64() > Some(0)
                && counted["stats"]["counted"] == from_index["stats"]["counted"],
            "{args:?}: the report is the indexing run's (a count with the warm cache would \
             count nothing): {} vs {}",
            from_index["stats"],
            counted["stats"]
        );
        assert_eq!(
            without_stats(from_index),
            without_stats(counted),
            "{args:?}: the index's report is the one counting gives"
        );
    }
    let warm = run(&["tokens", six, "--json", "--top", "30"]);
    assert!(
        warm["stats"]["cache_hits"].as_u64() > Some(0),
        "a longer list than the index keeps is counted again, the long texts from the warm \
         cache: {}",
        warm["stats"]
    );
}
