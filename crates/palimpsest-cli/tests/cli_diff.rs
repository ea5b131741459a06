//! `palimpsest diff A B`: two runs of one task, one that compacts and reads its file again, one
//! that does not, aligned by user turn; the first place they part is the call after the cut.

use std::path::Path;

use assert_cmd::Command;
use palimpsest_fixtures::claude::Transcript;
use serde_json::{Value, json};

const ASK: &str = "Fix the double discount in shop/cart.py.";

fn first_turn(t: &mut Transcript) {
    t.user(ASK);
    t.tool(
        "Read",
        json!({"file_path": "/w/shop/cart.py"}),
        "def total(cart):\n    return sum(cart)\n",
        20_000,
    );
    t.tool(
        "Bash",
        json!({"command": "pytest -q"}),
        "1 failed: test_coupon",
        22_000,
    );
    t.say("The coupon is applied twice; fixing.", 23_000);
}

fn second_turn_tail(t: &mut Transcript) {
    t.tool("Edit", json!({"file_path": "/w/shop/cart.py", "old_string": "sum(cart)", "new_string": "sum(cart) - coupon"}), "The file has been updated.", 15_000);
    t.tool("Bash", json!({"command": "pytest -q"}), "3 passed", 16_000);
    t.say("Fixed.", 16_500);
}

fn write(dir: &Path, id: &str, t: &Transcript) -> String {
    let p = dir.join(format!("{id}.jsonl"));
    t.write(&p).unwrap();
    p.display().to_string()
}

#[test]
fn two_runs_part_at_the_call_after_the_compaction() {
    let dir = tempfile::tempdir().unwrap();
    let (ida, idb) = (
        "aaaa0000-0000-4000-8000-00000000000a",
        "bbbb0000-0000-4000-8000-00000000000b",
    );
    let mut a = Transcript::new(ida);
    first_turn(&mut a);
    a.compact(
        "auto",
        160_000,
        "1. Primary Request and Intent: fix the double discount.",
    );
    a.user("Continue with the fix.");
    a.tool(
        "Read",
        json!({"file_path": "/w/shop/cart.py"}),
        "def total(cart):\n    return sum(cart)\n",
        14_000,
    );
    second_turn_tail(&mut a);
    let mut b = Transcript::new(idb);
    first_turn(&mut b);
    b.user("Continue with the fix.");
    second_turn_tail(&mut b);
    let (fa, fb) = (write(dir.path(), ida, &a), write(dir.path(), idb, &b));
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
}
