//! `palimpsest sweep` from the index's goose digests: a second sweep of an unchanged real
//! transcript reads no transcript (`from_index`) and gives the grid the first gave, cell for
//! cell, which is the grid of a sweep that keeps nothing (`--no-index`); a transcript that
//! grew is swept from its file again.

use std::io::Write;

use crate::common::{self, json_of, run_env};
use serde_json::Value;

const CAPS: &str = "0,2000,10000";
const REAL: &str = "claude-code/258c7280-ae70-4798-800f-63464d01a85d.jsonl";

fn sweep(file: &str, cache: &str, caps: &str, extra: &[&str]) -> Value {
    let mut args = vec![
        "sweep",
        file,
        "--policy",
        "goose",
        "--keep-tail",
        "0..4",
        "--tool-result-cap",
        caps,
        "--context-window",
        "30000",
        "--metric",
        "tokens-after",
        "--json",
    ];
    args.extend_from_slice(extra);
    json_of(run_env(&args, &[("XDG_CACHE_HOME", cache)]), &args)
}

fn without_flag(mut v: Value) -> Value {
    v.as_object_mut().unwrap().remove("from_index");
    v
}

#[test]
fn a_second_sweep_of_an_unchanged_transcript_comes_from_the_index_and_agrees() {
    let real = common::real_data(REAL);
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("session.jsonl");
    std::fs::copy(&real, &file).unwrap();
    let (file, c) = (file.to_str().unwrap(), cache.path().to_str().unwrap());

    let first = sweep(file, c, CAPS, &[]);
    assert_eq!(
        first["from_index"], false,
        "nothing is kept before the first sweep"
    );
    let second = sweep(file, c, CAPS, &[]);
    assert_eq!(
        second["from_index"], true,
        "the unchanged file is swept from its digests"
    );
    let plain = sweep(file, c, CAPS, &["--no-index"]);
    assert_eq!(plain["from_index"], false, "--no-index reads the file");
    assert_eq!(
        without_flag(second),
        without_flag(plain.clone()),
        "the digests give every cell and total the session gives"
    );
    assert_eq!(
        without_flag(first),
        without_flag(plain.clone()),
        "the first sweep, which made the digests, agrees too"
    );
    let compactions: u64 = plain["totals"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r.as_array().unwrap())
        .map(|t| t["compactions"].as_u64().unwrap())
        .sum();
    assert!(
        compactions > 0,
        "a 30 000-token window compacts this transcript, so the cells measure something"
    );

    // Another cap is not kept yet: read from the file.
    let other = sweep(file, c, "0,5000", &[]);
    assert_eq!(
        other["from_index"], false,
        "a cap never swept has no digest"
    );

    // The transcript grows: its digests no longer name it.
    let line = std::fs::read_to_string(&real)
        .unwrap()
        .lines()
        .find(|l| l.contains("\"type\":\"user\""))
        .unwrap()
        .to_owned();
    let mut f = std::fs::OpenOptions::new().append(true).open(file).unwrap();
    writeln!(f, "{line}").unwrap();
    drop(f);
    let grown = sweep(file, c, CAPS, &[]);
    assert_eq!(grown["from_index"], false, "an appended file is read again");
    assert_eq!(
        without_flag(grown),
        without_flag(sweep(file, c, CAPS, &["--no-index"])),
        "and swept as the grown session"
    );
}
