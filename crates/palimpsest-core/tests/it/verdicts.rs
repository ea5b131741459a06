//! The fleet verdict on inputs built the way real sessions showed each problem: Claude Code
//! transcripts written line by line (`palimpsest_fixtures::claude::Transcript`) and read by the
//! real reader. Each test pairs the case that used to be flagged wrongly with the control that
//! must still be flagged.

use std::path::{Path, PathBuf};

use palimpsest_core::analysis::{Diagnosis, LoopKind, Severity};
use palimpsest_core::api::{self, DiagnoseOptions};
use palimpsest_fixtures::claude::Transcript;
use serde_json::json;

const ID: &str = "7e570000-0000-4000-8000-000000000001";

fn diagnose_file(path: &Path, id: Option<&str>) -> Diagnosis {
    let s = api::load_session(path, id).expect("the transcript loads");
    api::diagnose(
        &s,
        &DiagnoseOptions {
            estimate_tokens: true,
            ..Default::default()
        },
    )
    .expect("diagnoses")
}

fn diagnose(t: &Transcript) -> Diagnosis {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join(format!("{ID}.jsonl"));
    t.write(&f).unwrap();
    diagnose_file(&f, None)
}

fn page(n: usize) -> String {
    (n * 500..n * 500 + 500)
        .map(|i| format!("line {i} of store.py\n"))
        .collect()
}

#[test]
fn pages_of_one_file_are_not_rereads() {
    let mut t = Transcript::new(ID);
    t.user("Fix fetch_rows in store.py.");
    for n in 0..4 {
        t.tool(
            "Read",
            json!({"file_path": "/home/dev/shop/store.py", "offset": n * 500 + 1, "limit": 500}),
            &page(n),
            20_000,
        );
    }
    t.tool(
        "Bash",
        json!({"command": "sed -n '1,200p' db.py"}),
        "first",
        21_000,
    );
    t.tool(
        "Bash",
        json!({"command": "sed -n '201,400p' db.py"}),
        "second",
        21_000,
    );
    let d = diagnose(&t);
    let store = d.rereads.iter().find(|f| f.path == "store.py").unwrap();
    assert_eq!(
        (store.reads, store.rereads, store.tokens),
        (4, 0, 0),
        "four disjoint 500-line pages of store.py are four reads and no re-read"
    );
    let db = d.rereads.iter().find(|f| f.path == "db.py").unwrap();
    assert_eq!(db.rereads, 0, "sed -n 1,200p then 201,400p are two ranges");
    assert_eq!(
        d.severity,
        Severity::Ok,
        "paging is work, not a stuck worker"
    );

    // Control: reading the whole file after the pages reads every line again.
    t.tool(
        "Read",
        json!({"file_path": "/home/dev/shop/store.py"}),
        &page(0),
        22_000,
    );
    let d = diagnose(&t);
    let store = d.rereads.iter().find(|f| f.path == "store.py").unwrap();
    assert_eq!(
        (store.reads, store.rereads),
        (5, 1),
        "a whole read after the pages overlaps them: one re-read"
    );
}

#[test]
fn polls_are_not_loops_but_the_same_failing_test_is() {
    let mut t = Transcript::new(ID);
    t.user("Wait for CI, then fix the failing test in shop/cart.py.");
    for _ in 0..4 {
        t.tool(
            "Bash",
            json!({"command": "git status"}),
            "On branch main\nnothing to commit",
            10_000,
        );
    }
    for _ in 0..3 {
        t.tool(
            "Bash",
            json!({"command": "sleep 30 && gh run view 4242"}),
            "in_progress",
            10_500,
        );
    }
    let d = diagnose(&t);
    assert!(
        d.loops.iter().all(|l| l.kind != LoopKind::RepeatedCall),
        "git status and sleep && gh run view are polls: {:?}",
        d.loops
    );
    assert_eq!(
        d.severity,
        Severity::Ok,
        "polling is waiting, not being stuck"
    );

    let failing = "FAILED tests/test_cart.py::test_total - assert 90 == 100";
    for _ in 0..3 {
        t.tool(
            "Bash",
            json!({"command": "pytest -q tests/test_cart.py"}),
            failing,
            11_000,
        );
    }
    let d = diagnose(&t);
    let loops: Vec<(LoopKind, usize)> = d
        .loops
        .iter()
        .filter(|l| l.kind == LoopKind::RepeatedCall)
        .map(|l| (l.kind, l.count))
        .collect();
    assert_eq!(
        loops,
        vec![(LoopKind::RepeatedCall, 3)],
        "the same pytest with the same failure three times, nothing written between, is a loop"
    );
    assert_eq!(d.severity, Severity::Stuck, "that worker is stuck");
    assert!(
        d.verdict.starts_with(
            "repeating Bash pytest -q tests/test_cart.py called 3 times with the same result"
        ),
        "the verdict names the loop: {}",
        d.verdict
    );

    // Control: an edit between the runs makes running the tests again reasonable.
    let mut t = Transcript::new(ID);
    t.user("Fix the failing test in shop/cart.py.");
    for k in 0..3 {
        t.tool(
            "Bash",
            json!({"command": "pytest -q tests/test_cart.py"}),
            failing,
            11_000,
        );
        if k == 1 {
            t.tool(
                "Edit",
                json!({"file_path": "/home/dev/shop/shop/cart.py", "old_string": "a", "new_string": "b"}),
                "The file has been updated.",
                11_500,
            );
        }
    }
    let d = diagnose(&t);
    assert!(
        d.loops.iter().all(|l| l.kind != LoopKind::RepeatedCall),
        "an edit between the second and third run breaks the loop"
    );
}

#[test]
fn failing_calls_in_a_row_are_stuck_only_when_the_same_call_fails_unchanged() {
    let mut t = Transcript::new(ID);
    t.user("Install the dependencies and run the app.");
    for cmd in ["npm ci", "yarn install", "pnpm install"] {
        t.tool_error(
            "Bash",
            json!({"command": cmd}),
            "Exit code 1\nnetwork unreachable",
            9_000,
        );
    }
    let d = diagnose(&t);
    assert_eq!(
        (d.severity, d.verdict.as_str()),
        (Severity::Watch, "3 failing calls in a row"),
        "three different commands failing: a worker trying things, worth a look"
    );

    let mut t = Transcript::new(ID);
    t.user("Install the dependencies and run the app.");
    for _ in 0..3 {
        t.tool_error(
            "Bash",
            json!({"command": "npm ci"}),
            "Exit code 1\nnetwork unreachable",
            9_000,
        );
    }
    let d = diagnose(&t);
    assert_eq!(
        d.severity,
        Severity::Stuck,
        "the same call failing unchanged is stuck"
    );
    assert!(
        d.findings
            .iter()
            .any(|f| f == "3 failing calls in a row, all Bash npm ci"),
        "the streak names the call: {:?}",
        d.findings
    );
}

/// A project folder with a main transcript (whose Task starts a subagent) and the subagent's run.
fn with_subagent(prompt: &str, dir: &Path) -> PathBuf {
    let mut main = Transcript::new(ID);
    main.user("Fix the discount bug in shop/cart.py.");
    main.tool(
        "Task",
        json!({"subagent_type": "Explore", "description": "find discounts", "prompt": prompt}),
        "Discounts are computed in shop/cart.py:apply_discount.",
        9_000,
    );
    main.tool(
        "Edit",
        json!({"file_path": "/home/dev/shop/shop/cart.py", "old_string": "a", "new_string": "b"}),
        "The file has been updated.",
        9_500,
    );
    let f = dir.join(format!("{ID}.jsonl"));
    main.write(&f).unwrap();
    let mut sub = Transcript::new(ID);
    sub.user(prompt);
    for k in 0..12 {
        sub.tool(
            "Grep",
            json!({"pattern": format!("discount_{k}"), "path": "/home/dev/shop"}),
            "shop/cart.py:12: def apply_discount(cart):",
            5_000,
        );
    }
    sub.say(
        "Discounts are computed in shop/cart.py:apply_discount.",
        6_000,
    );
    sub.write(&dir.join(ID).join("subagents").join("agent-e1.jsonl"))
        .unwrap();
    f
}

#[test]
fn an_explore_subagent_is_meant_to_look() {
    let dir = tempfile::tempdir().unwrap();
    with_subagent(
        "Find where discounts are computed in this repository. Report file and function.",
        dir.path(),
    );
    let d = diagnose_file(dir.path(), Some(&format!("{ID}/agent-e1")));
    assert_eq!(d.exploration.calls, 12, "twelve Grep calls");
    assert!(
        !d.expects_writes && d.severity == Severity::Ok,
        "an Explore run that only looks is doing its job: {:?} {}",
        d.severity,
        d.verdict
    );

    // Control: a subagent asked to change something that only looks is "mostly exploring".
    let dir = tempfile::tempdir().unwrap();
    with_subagent(
        "Fix apply_discount in shop/cart.py so that coupons and sales do not stack.",
        dir.path(),
    );
    let d = diagnose_file(dir.path(), Some(&format!("{ID}/agent-e1")));
    assert_eq!(
        (d.severity, d.verdict.as_str()),
        (
            Severity::Watch,
            "mostly exploring: 100% of 12 calls only look"
        ),
        "a worker asked for a change that never writes is worth a look"
    );
}

#[test]
fn what_a_summary_lost_is_concrete_identifiers_only() {
    let mut t = Transcript::new(ID);
    t.user("Fix the discount bug.");
    t.say(
        "First I will `Read` the cart. The totals were `persisted` before; \
         the bug is in `apply_discount` and `couponStack`, see shop/cart.py.",
        30_000,
    );
    t.compact(
        "manual",
        40_000,
        &"Working on the checkout total. ".repeat(20),
    );
    t.say("Continuing.", 8_000);
    let d = diagnose(&t);
    let lost: Vec<&str> = d.summary_losses.iter().map(|l| l.value.as_str()).collect();
    assert_eq!(
        lost,
        vec!["shop/cart.py", "apply_discount", "couponStack"],
        "the path and the two code names are lost; First, Read and persisted are prose"
    );
}

#[test]
fn microcompacts_are_not_compactions_with_empty_summaries() {
    let root =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/claude/projects/-home-dev-shop");
    let id = palimpsest_fixtures::claude::SIX_CUTS_ID;
    let s = api::load_session(&root, Some(id)).unwrap();
    let d = api::diagnose(&s, &DiagnoseOptions::default()).unwrap();
    let view = api::compactions(&s, None);
    assert_eq!(
        d.compactions.len(),
        view.compactions.len(),
        "diagnose numbers the same six cuts as `compactions`"
    );
    let kinds: Vec<(usize, usize, bool, Option<&str>)> = d
        .compactions
        .iter()
        .map(|c| (c.number, c.cut_index, c.micro, c.problem.as_deref()))
        .collect();
    assert_eq!(
        kinds,
        vec![
            (1, 12, false, None),
            (2, 28, true, None),
            (3, 40, false, None),
            (4, 54, true, None),
            (5, 66, false, None),
            (6, 80, false, None)
        ],
        "cuts 2 and 4 are microcompacts: no summary problem, no 'empty' summary"
    );
    assert!(
        d.compactions
            .iter()
            .filter(|c| c.micro)
            .all(|c| c.dropped == 0 && c.cleared == 1),
        "each microcompact dropped no message and cleared one Read result"
    );
}

#[test]
fn compaction_thrash_is_stuck_with_its_numbers() {
    let mut t = Transcript::new(ID);
    t.user("Refactor the billing module.");
    t.say("Reading the module.", 180_000);
    t.compact(
        "auto",
        181_060,
        &"Refactoring billing: done the invoice part. ".repeat(20),
    );
    // 12 input + 171 521 cache reads + 400 cache writes = 171 933 recorded after the cut.
    t.say("Continuing with the refactor.", 171_521);
    t.api_error("Prompt is too long");
    t.api_error("Prompt is too long");
    let d = diagnose(&t);
    assert_eq!(
        d.severity,
        Severity::Stuck,
        "a compaction that freed 5 % is thrash"
    );
    assert_eq!(
        d.verdict,
        "compaction thrash: compaction 1 freed 5 % (181 060 → 171 933), then 2 × Prompt is too long",
        "the verdict gives before, after and the errors"
    );
    let s = {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join(format!("{ID}.jsonl"));
        t.write(&f).unwrap();
        api::load_session(&f, None).unwrap()
    };
    assert_eq!(
        (
            s.compactions[0].post_tokens,
            s.compactions[0].post_tokens_from_usage
        ),
        (Some(171_933), true),
        "compactMetadata has no postTokens: the next request's recorded usage fills it, marked"
    );
}
