//! The fleet commands as scripts use them: `index` (what changed, JSON keys, the index in the
//! cache dir and nothing written beside the sessions), `search` (hits, filters, exit 1 on no
//! match, a bad regex), `diagnose DIR` from the index (severity, stuck first, cost) beside
//! `--no-index`, and `tokens --json`'s cost with `--prices`.

use crate::common;

use std::path::{Path, PathBuf};

use common::{json_of, run_env};
use serde_json::Value;

fn shared() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/real")
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

/// A listing of every file under `dir` with its size and mtime.
fn snapshot(dir: &Path) -> Vec<(PathBuf, u64, std::time::SystemTime)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let m = e.metadata().unwrap();
            if m.is_dir() {
                stack.push(e.path());
            } else {
                out.push((e.path(), m.len(), m.modified().unwrap()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn index_says_what_changed_and_writes_only_its_cache() {
    let cache = tempfile::tempdir().unwrap();
    let env = [("XDG_CACHE_HOME", cache.path().to_str().unwrap())];
    let data = shared().join("claude-code");
    let before = snapshot(&data);
    let d = data.to_str().unwrap();
    let first = json_of(run_env(&["index", d, "--json"], &env), &["index"]);
    assert_eq!(
        (&first["added"], &first["unchanged"], &first["removed"]),
        (&Value::from(9), &Value::from(0), &Value::from(0)),
        "nine sessions (five transcripts, four subagent runs) are new: {first}"
    );
    assert_eq!(
        first["index"].as_str().unwrap(),
        cache.path().join("palimpsest/index.db").to_str().unwrap(),
        "the index lives in the user's cache dir"
    );
    let again = json_of(run_env(&["index", d, "--json"], &env), &["index"]);
    assert_eq!(
        (&again["added"], &again["updated"], &again["unchanged"]),
        (&Value::from(0), &Value::from(0), &Value::from(9)),
        "a second run reads nothing"
    );
    assert_eq!(
        snapshot(&data),
        before,
        "no file beside the sessions was created or touched"
    );
    let text = run_env(&["index", d], &env);
    assert_eq!(
        String::from_utf8_lossy(&text.stdout)
            .lines()
            .next()
            .unwrap_or(""),
        format!(
            "9 sessions: 0 added, 0 updated (0 appended, 0 read from their last offset), 9 unchanged, 0 removed  ({})",
            cache.path().join("palimpsest/index.db").display()
        ),
        "the text form says the same in one line"
    );
}

#[test]
fn search_finds_parts_and_exits_1_on_nothing() {
    let cache = tempfile::tempdir().unwrap();
    let env = [("XDG_CACHE_HOME", cache.path().to_str().unwrap())];
    let f = fixtures();
    let goose = f.join("goose-stuck");
    let g = goose.to_str().unwrap();
    let hits = json_of(
        run_env(
            &["search", "store.py", g, "--part", "tool_call", "--json"],
            &env,
        ),
        &["search"],
    );
    let hits = hits.as_array().unwrap();
    assert!(!hits.is_empty(), "the stuck worker's calls name store.py");
    for h in hits {
        assert_eq!(h["part"], "tool_call", "--part keeps tool calls only: {h}");
        let snippet: Vec<char> = h["snippet"].as_str().unwrap().chars().collect();
        let (s, e) = (
            h["match_start"].as_u64().unwrap() as usize,
            h["match_end"].as_u64().unwrap() as usize,
        );
        assert_eq!(
            snippet[s..e].iter().collect::<String>(),
            "store.py",
            "match_start..match_end marks the match in the snippet"
        );
        for key in ["session_id", "path", "format", "index", "role"] {
            assert!(h.get(key).is_some(), "a hit has `{key}`: {h}");
        }
    }
    let tool = json_of(
        run_env(
            &[
                "search",
                "FAILED",
                g,
                "--tool",
                "developer__shell",
                "--role",
                "tool",
                "--json",
            ],
            &env,
        ),
        &["search"],
    );
    assert!(
        tool.as_array()
            .unwrap()
            .iter()
            .all(|h| h["tool"] == "developer__shell" && h["role"] == "tool"),
        "--tool and --role narrow to the shell's results: {tool}"
    );
    let none = run_env(&["search", "no-such-text-anywhere-42", g, "--json"], &env);
    assert_eq!(none.status.code(), Some(1), "nothing matched: exit 1");
    assert_eq!(
        String::from_utf8_lossy(&none.stdout).trim(),
        "[]",
        "and an empty array"
    );
    let bad = run_env(&["search", "(unclosed", g, "--regex"], &env);
    assert_eq!(bad.status.code(), Some(2), "a bad regex is a usage error");
    assert!(
        String::from_utf8_lossy(&bad.stderr).contains("bad regex"),
        "which says so: {}",
        String::from_utf8_lossy(&bad.stderr)
    );
}

#[test]
fn diagnose_a_folder_from_the_index_matches_a_fresh_run() {
    let cache = tempfile::tempdir().unwrap();
    let env = [("XDG_CACHE_HOME", cache.path().to_str().unwrap())];
    // Canonical, as the index keys files: the two runs then name the same paths.
    let data = shared().join("claude-code").canonicalize().unwrap();
    let d = data.to_str().unwrap();
    let indexed = json_of(run_env(&["diagnose", d, "--json"], &env), &["diagnose"]);
    let fresh = json_of(
        run_env(&["diagnose", d, "--no-index", "--json"], &env),
        &["diagnose", "--no-index"],
    );
    assert_eq!(
        indexed, fresh,
        "the index gives what diagnosing afresh gives"
    );
    let rows = indexed["sessions"].as_array().unwrap();
    let severities: Vec<&str> = rows
        .iter()
        .map(|r| r["severity"].as_str().unwrap())
        .collect();
    let mut sorted = severities.clone();
    sorted.sort_by_key(|s| ["stuck", "watch", "ok"].iter().position(|x| x == s));
    assert_eq!(severities, sorted, "stuck rows first, then watch, then ok");
    assert!(
        rows.iter()
            .all(|r| r["stuck"] == (r["severity"] == "stuck")),
        "`stuck` is severity == stuck"
    );
    let main = rows
        .iter()
        .find(|r| r["session_id"] == "55604662-cf2a-4331-851a-ec234028f8ca")
        .unwrap();
    assert_eq!(
        main["cost_usd"], 0.1444475,
        "the row is priced from recorded usage"
    );
    assert_eq!(
        main["title"], "mix phx.server doesnt seem to start",
        "titled by its prompt"
    );
}

#[test]
fn tokens_json_prices_the_session_and_takes_a_price_file() {
    let short = shared().join("claude-code/short.jsonl");
    let s = short.to_str().unwrap();
    let r = json_of(
        run_env(&["tokens", s, "--no-cache", "--json"], &[]),
        &["tokens"],
    );
    assert_eq!(
        r["cost"]["total_usd"], 0.1444475,
        "the snapshot's opus prices"
    );
    assert_eq!(
        r["cost"]["table_date"], "2026-12-01",
        "with the table's date"
    );
    let dir = tempfile::tempdir().unwrap();
    let prices = dir.path().join("p.json");
    std::fs::write(
        &prices,
        r#"{"claude-opus-4-6": {"input_cost_per_token": 0.0, "output_cost_per_token": 0.0}}"#,
    )
    .unwrap();
    let r = json_of(
        run_env(
            &[
                "tokens",
                s,
                "--no-cache",
                "--json",
                "--prices",
                prices.to_str().unwrap(),
            ],
            &[],
        ),
        &["tokens", "--prices"],
    );
    assert_eq!(
        r["cost"]["total_usd"], 0.0,
        "a free model in the user's table (cache priced as input) costs nothing"
    );
}
