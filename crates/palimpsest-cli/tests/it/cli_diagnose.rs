//! `palimpsest diagnose` and `palimpsest spills` on the committed fixtures: the JSON contract
//! keys, the fleet table for a folder of sessions, and spill review with an added root.

use std::path::{Path, PathBuf};

use crate::common;
use assert_cmd::Command;
use common::run_json as json;
use serde_json::Value;

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures")
        .join(rel)
}

#[test]
fn diagnose_json_keeps_the_contract_keys() {
    let db = fixture("goose-stuck/sessions.db");
    let v = json(&[
        "diagnose",
        db.to_str().unwrap(),
        "--json",
        "--estimate-tokens",
    ]);
    for key in [
        "verdict",
        "rereads",
        "exploration_share",
        "loops",
        "spill_loops",
        "summary_losses",
    ] {
        assert!(v.get(key).is_some(), "the JSON contract has `{key}`");
    }
    assert_eq!(
        v["verdict"],
        "stuck re-reading store.py after compactions 1 and 2: 6 re-reads, 708 tokens; spill loop on test_store.py: 2 spill files re-read and capped again, ended in a timeout; mostly exploring: 88% of 16 calls only look",
        "the verdict line"
    );
    let r = &v["rereads"][0];
    for (k, want) in [
        ("path", Value::from("store.py")),
        ("reads", 8.into()),
        ("rereads", 6.into()),
        ("after_compaction", 2.into()),
        ("tokens", 708.into()),
    ] {
        assert_eq!(r[k], want, "rereads[0].{k}");
    }
    assert_eq!(
        v["spill_loops"][0]["messages"],
        serde_json::json!([20, 22, 24, 26]),
        "spill loop calls"
    );
    assert_eq!(v["exploration_share"], 0.875, "14 of 16 calls only look");
}

#[test]
fn diagnose_text_with_bpe_counts_names_the_file() {
    let db = fixture("goose-stuck/sessions.db");
    let out = Command::cargo_bin("palimpsest")
        .unwrap()
        .args(["diagnose", db.to_str().unwrap()])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "diagnose runs");
    assert!(
        text.starts_with(
            "20260301_1 [stuck]: stuck re-reading store.py after compactions 1 and 2: 6 re-reads, "
        ),
        "first line is the severity and the verdict (BPE token count follows): {text}"
    );
    assert!(text.contains("compaction 1 at message 11: dropped 11, summary 153 chars (not usable: too short (153 chars, minimum 400))"), "the usable-summary gate is shown: {text}");
}

#[test]
fn diagnose_a_folder_of_sessions_gives_the_fleet() {
    let dir = fixture("coworker/state");
    let v = json(&[
        "diagnose",
        dir.to_str().unwrap(),
        "--json",
        "--estimate-tokens",
    ]);
    assert_eq!(
        v["sessions"].as_array().map(Vec::len),
        Some(4),
        "one row per session: {v}"
    );
    assert_eq!(
        v["totals"]["compactions"], 4,
        "compactions across the fleet"
    );
    assert_eq!(
        v["totals"]["usable_summaries"], 3,
        "the trim fallback has no usable summary"
    );
    let one = json(&[
        "diagnose",
        dir.to_str().unwrap(),
        "--session",
        "a1b2c3d4e5f6",
        "--json",
    ]);
    assert!(
        one.get("verdict").is_some(),
        "--session picks one session's post-mortem"
    );
}

#[test]
fn spills_lists_present_missing_and_unsaved_files() {
    let dir = fixture("coworker/state");
    let root = fixture("coworker/scratch");
    let v = json(&[
        "spills",
        dir.to_str().unwrap(),
        "--session",
        "a1b2c3d4e5f6",
        "--root",
        root.to_str().unwrap(),
        "--json",
    ]);
    let status: Vec<&str> = v["spills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["status"].as_str().unwrap())
        .collect();
    assert_eq!(
        status,
        vec!["present", "missing", "present", "present", "not_saved"],
        "statuses in message order"
    );
    assert_eq!(
        v["spills"][0]["size_bytes"], 19733,
        "size of the present spill"
    );
    let goose = json(&[
        "spills",
        fixture("goose-stuck/sessions.db").to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(
        (&goose["needs_confirmation"], &goose["missing"]),
        (&serde_json::Value::from(0), &serde_json::Value::from(3)),
        "goose's data dir is outside the session's folders, and not on this machine: missing, \
         nothing to confirm (issue 45)"
    );
}

#[test]
fn a_spill_pattern_without_a_path_group_is_refused() {
    let db = fixture("goose-stuck/sessions.db");
    let out = Command::cargo_bin("palimpsest")
        .unwrap()
        .args([
            "diagnose",
            db.to_str().unwrap(),
            "--spill-pattern",
            "saved to (\\S+)",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "bad input exits 2");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("has no named group `path`"),
        "the error says what is missing"
    );
}

#[test]
fn a_fleet_with_no_price_costs_zero_dollars_not_minus_zero() {
    // No model of the Qwen Code fixtures (two sessions and a sub-agent) has a price: the total
    // is an empty sum.
    let chats = fixture("qwen/projects/-work-shop/chats");
    let out = common::run(&["diagnose", chats.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "diagnose runs: {text}");
    assert_eq!(
        text.lines().last(),
        Some(
            "3 sessions (0 stuck, 0 watch, 3 ok), $0.00 (3 without a price), 2 compactions, \
             usable summaries 50%, re-read rate 0% (0 of 0 reads)"
        ),
        "the fleet line"
    );
}

#[test]
fn spills_lists_a_copilot_compactions_checkpoint_as_present() {
    let dir = fixture("copilot/session-state/3f1b0c9e-5a2d-4c71-9e11-7c0de0000001");
    let v = json(&["spills", dir.to_str().unwrap(), "--json"]);
    let spills: Vec<(String, String, u64, u64)> = v["spills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["kind"].as_str().unwrap().to_owned(),
                s["status"].as_str().unwrap().to_owned(),
                s["size_bytes"].as_u64().unwrap(),
                s["message_index"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        (
            spills,
            v["spills"][0]["resolved"].as_str().map(|p| {
                p.ends_with(
            "copilot/session-state/3f1b0c9e-5a2d-4c71-9e11-7c0de0000001/checkpoints/001-retry.md"
        )
            })
        ),
        (
            vec![("link".to_owned(), "present".to_owned(), 447, 10)],
            Some(true)
        ),
        "the first compaction's checkpoint, named by the recording machine's path and found \
         beside the log, on its summary (#10)"
    );
}
