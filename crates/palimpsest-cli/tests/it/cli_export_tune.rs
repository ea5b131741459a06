//! `export --parquet` after `tune`: the `tune` table holds one row per session and setting the
//! index kept, with the very figures `tune --json` printed, and drops a session's rows once its
//! file changed (tune would make them again).

use std::path::Path;

use arrow_array::RecordBatch;
use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use serde_json::Value;

use crate::cli_export::read;
use crate::common::{json_of, run_env};

/// (session id, keep_tail, tokens_carried, compactions) of every row, sorted.
fn rows(b: &RecordBatch) -> Vec<(String, i64, i64, i64)> {
    let ids = b.column_by_name("session_id").unwrap().as_string::<i32>();
    let int = |c: &str| {
        b.column_by_name(c)
            .unwrap()
            .as_primitive::<Int64Type>()
            .clone()
    };
    let (k, carried, compactions) = (int("keep_tail"), int("tokens_carried"), int("compactions"));
    let mut out: Vec<_> = (0..b.num_rows())
        .map(|i| {
            (
                ids.value(i).to_owned(),
                k.value(i),
                carried.value(i),
                compactions.value(i),
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn the_cells_tune_kept_are_exported_as_tune_printed_them() {
    let home = tempfile::tempdir().unwrap();
    let cache = home.path().join("cache");
    let env = [("XDG_CACHE_HOME", cache.to_str().unwrap())];
    let fleet = home.path().join("claude-code");
    palimpsest_fixtures::copy_tree(
        &palimpsest_fixtures::real_data("claude-code"),
        &fleet,
        &["LICENSE", "README.md"],
    )
    .unwrap();
    let dir = fleet.to_str().unwrap();
    let args = ["tune", dir, "--grid", "K=0,3", "--json"];
    let tuned: Value = json_of(run_env(&args, &env), &args);
    let mut printed: Vec<(String, i64, i64, i64)> = Vec::new();
    for s in tuned["tune"]["sessions"].as_array().unwrap() {
        for (k, c) in [0, 3].iter().zip(s["cells"].as_array().unwrap()) {
            printed.push((
                s["session_id"].as_str().unwrap().to_owned(),
                *k,
                c["tokens_carried"].as_i64().unwrap(),
                c["compactions"].as_i64().unwrap(),
            ));
        }
    }
    printed.sort();
    assert_eq!(printed.len(), 18, "nine sessions at two settings");

    let out = home.path().join("out");
    let export = |out: &Path| {
        let args = ["export", "--parquet", out.to_str().unwrap(), dir, "--json"];
        json_of(run_env(&args, &env), &args)
    };
    export(&out);
    let b = read(&out, "tune");
    assert_eq!(rows(&b), printed);
    let policies = b.column_by_name("policy").unwrap().as_string::<i32>();
    assert!((0..b.num_rows()).all(|i| policies.value(i) == "goose"));

    // A session that grew since: its rows go, the others stay.
    let short = fleet.join("short.jsonl");
    let text = std::fs::read_to_string(&short).unwrap();
    let last = text.lines().last().unwrap().to_owned();
    std::fs::write(&short, format!("{text}{last}\n")).unwrap();
    let again = home.path().join("again");
    export(&again);
    let left = rows(&read(&again, "tune"));
    let short_id = "55604662-cf2a-4331-851a-ec234028f8ca";
    let expected: Vec<_> = printed.into_iter().filter(|r| r.0 != short_id).collect();
    assert_eq!(left, expected);
}
