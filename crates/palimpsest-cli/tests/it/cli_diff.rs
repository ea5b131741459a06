//! `palimpsest diff A B`: two runs of one task, one that compacts and reads its file again, one
//! that does not (`palimpsest_fixtures::runs`), aligned by user turn; the first place they part
//! is the call after the cut, and `--rows` lines them up message by message.

use assert_cmd::Command;
use serde_json::Value;

#[test]
fn two_runs_part_at_the_call_after_the_compaction() {
    let dir = tempfile::tempdir().unwrap();
    let (pa, pb) = palimpsest_fixtures::runs::write(dir.path()).unwrap();
    let (fa, fb) = (pa.display().to_string(), pb.display().to_string());
    let out = Command::cargo_bin("palimpsest")
        .unwrap()
        .env("XDG_CACHE_HOME", dir.path().join("cache"))
        .args(["diff", &fa, &fb, "--json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let d: Value = serde_json::from_slice(&out).unwrap();
    let turns: Vec<(bool, usize, usize)> = d["turns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["same"].as_bool().unwrap(),
                t["a"]["calls"].as_array().map_or(0, Vec::len),
                t["b"]["calls"].as_array().map_or(0, Vec::len),
            )
        })
        .collect();
    assert_eq!(
        turns,
        vec![(true, 2, 2), (false, 3, 2)],
        "the first turn is the same in both; in the second A reads cart.py again before editing"
    );
    assert_eq!(
        (
            d["a"]["compactions"].as_u64(),
            d["b"]["compactions"].as_u64()
        ),
        (Some(1), Some(0)),
        "only A compacted"
    );
    assert_eq!(
        (d["a"]["rereads"].as_u64(), d["b"]["rereads"].as_u64()),
        (Some(1), Some(0)),
        "A read cart.py again after its compaction; B did not need to"
    );
    let v = &d["first_divergence"];
    assert_eq!(
        (v["turn"].as_u64(), v["call"].as_u64()),
        (Some(1), Some(0)),
        "they part at the second turn's first call"
    );
    assert!(
        v["what"]
            .as_str()
            .unwrap()
            .starts_with("call 1 of the turn: A Read {\"file_path\":\"/w/shop/cart.py\"}, B Edit"),
        "and say what each did there: {}",
        v["what"]
    );
    let compacted = &d["turns"][0]["a"]["compactions"];
    assert_eq!(
        compacted.as_array().map(Vec::len),
        Some(1),
        "A's cut falls in its first turn: {compacted}"
    );
    let text = Command::cargo_bin("palimpsest")
        .unwrap()
        .env("XDG_CACHE_HOME", dir.path().join("cache"))
        .args(["diff", &fa, &fb])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(text).unwrap();
    assert!(
        text.contains("≠ turn   2 «Continue with the fix.»")
            && text.contains("first divergence: turn 2, call 1 of the turn"),
        "the text output marks the differing turn and names the divergence:\n{text}"
    );
    let rows = Command::cargo_bin("palimpsest")
        .unwrap()
        .env("XDG_CACHE_HOME", dir.path().join("cache"))
        .args(["diff", &fa, &fb, "--rows", "--json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: Value = serde_json::from_slice(&rows).unwrap();
    let lines = v["lines"].as_array().unwrap();
    let side = |l: &Value, s: &str| l[s]["index"].as_u64();
    let second: Vec<(Option<u64>, Option<u64>, bool)> = lines
        .iter()
        .filter(|l| l["turn"] == 1)
        .map(|l| (side(l, "a"), side(l, "b"), l["same"].as_bool().unwrap()))
        .collect();
    // A's turn 2: ask, Read call, its result, Edit call, result, Bash call, result, answer;
    // B has no Read, so its side has a gap of two rows there and the rest lines up.
    let (ra, rb) = (second[0].0.unwrap(), second[0].1.unwrap());
    assert_eq!(
        second,
        vec![
            (Some(ra), Some(rb), true),
            (Some(ra + 1), None, false),
            (Some(ra + 2), None, false),
            (Some(ra + 3), Some(rb + 1), true),
            (Some(ra + 4), Some(rb + 2), true),
            (Some(ra + 5), Some(rb + 3), true),
            (Some(ra + 6), Some(rb + 4), true),
            (Some(ra + 7), Some(rb + 5), true),
        ],
        "the second turn row by row: A's re-read of cart.py faces a gap, the rest pairs up"
    );
    let first = v["first_line"].as_u64().unwrap() as usize;
    assert_eq!(
        (lines[first]["turn"].as_u64(), side(&lines[first], "a")),
        (Some(1), Some(ra + 1)),
        "the first line where they part is A's Read after the compaction"
    );
    assert!(
        lines.iter().filter(|l| l["head"] == true).count() == 2,
        "one head line per turn"
    );
}
