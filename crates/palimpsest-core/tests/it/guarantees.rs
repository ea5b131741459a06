//! The smaller promises of issue 46, each on the input that broke it: a JSON message log with
//! one bad element, search across the case pairs lower-casing alone does not unite, a tool
//! name holding a control character in the charts, and a fleet report too big to open.

use std::path::Path;

use palimpsest_core::api;
use palimpsest_core::index::Index;
use palimpsest_core::index::search::Query;
use palimpsest_core::report::{ReportOptions, fleet_report};
use serde_json::json;

#[test]
fn a_json_message_log_with_one_bad_element_keeps_the_others() {
    // See: issue 46. The whole document failed to parse, and the log was lost.
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("chat.json");
    std::fs::write(
        &f,
        r#"[{"role":"user","content":"Fix the import."}, {"role":"assistant",, "content":"x"}, {"role":"assistant","content":"Done: the import is fixed."}]"#,
    )
    .unwrap();
    let s = api::load_session(&f, None).unwrap();
    let rows: Vec<(String, Option<String>)> = s
        .messages
        .iter()
        .map(|m| (m.text(), m.error.clone()))
        .collect();
    assert_eq!(rows.len(), 3, "three elements, three rows: {rows:?}");
    assert_eq!(rows[0].0, "Fix the import.");
    assert_eq!(rows[2].0, "Done: the import is fixed.");
    let why = rows[1]
        .1
        .as_deref()
        .expect("the bad element is an error row");
    assert!(
        why.starts_with(&format!("{}:2: element 2", f.display())),
        "it names the file and the element: {why}"
    );
}

#[test]
fn search_unites_greek_final_sigma_and_turkish_dotted_i() {
    // See: issue 46. `ΟΔΟΣ` lower-cases to `οδος` as a word but `οδοσ` letter by letter, and
    // `İ` to `i̇`: each side was folded its own way, and the FTS trigrams missed them too.
    let dir = tempfile::tempdir().unwrap();
    let logs = dir.path().join("logs");
    std::fs::create_dir_all(&logs).unwrap();
    std::fs::write(
        logs.join("trip.jsonl"),
        format!(
            "{}\n{}\n",
            json!({"role": "user", "content": "Ο ΔΡΟΜΟΣ είναι μακρύς"}),
            json!({"role": "assistant", "content": "İSTANBUL and the IRMAK bridge"})
        ),
    )
    .unwrap();
    let mut ix = Index::open(&dir.path().join("index.db")).unwrap();
    let find = |ix: &mut Index, text: &str| {
        let q = Query {
            text: text.into(),
            limit: 10,
            ..Default::default()
        };
        let (hits, _) =
            api::search(ix, std::slice::from_ref(&logs), &q, &Default::default()).unwrap();
        hits.iter().map(|h| h.index).collect::<Vec<_>>()
    };
    for (q, want) in [
        ("δρόμος", vec![]),
        ("δρομος", vec![0]),
        ("ΔΡΟΜΟΣ", vec![0]),
        ("δρομοσ", vec![0]),
        ("istanbul", vec![1]),
        ("İstanbul", vec![1]),
        ("ırmak", vec![1]),
        ("irmak", vec![1]),
    ] {
        assert_eq!(find(&mut ix, q), want, "{q:?}");
    }
}

#[test]
fn a_control_character_in_a_tool_name_leaves_the_charts_readable() {
    // See: issue 46. XML allows no C0 control but tab, newline and return: one in a tool name
    // made the report's chart an image no browser shows.
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("tools.jsonl");
    let lines = [
        json!({"role": "user", "content": "Run it."}),
        json!({"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function",
            "function": {"name": "run\u{1}\u{7}tool", "arguments": "{\"cmd\": \"ls\"}"}}]}),
        json!({"role": "tool", "tool_call_id": "c1", "content": "a.txt b.txt"}),
    ];
    std::fs::write(
        &f,
        lines.iter().map(|l| format!("{l}\n")).collect::<String>(),
    )
    .unwrap();
    let s = api::load_session(&f, None).unwrap();
    let report = api::token_report(
        &s,
        &Default::default(),
        &mut |_| {},
        &std::sync::atomic::AtomicBool::new(false),
    )
    .unwrap();
    assert_eq!(
        report.top_tools[0].name, "run\u{1}\u{7}tool",
        "the name as stored"
    );
    let svg = api::token_charts_svg(&report, palimpsest_core::charts::ThemeName::Light).unwrap();
    assert!(
        !svg.chars()
            .any(|c| c < ' ' && !matches!(c, '\t' | '\n' | '\r')),
        "no character XML forbids"
    );
    assert!(
        svg.contains("run\u{FFFD}\u{FFFD}tool"),
        "each shown as U+FFFD"
    );
}

#[test]
fn a_fleet_report_past_its_size_lists_the_rest() {
    // See: issue 46. 5 000 sessions laid out in full made a 407 MB page.
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/goose-stuck");
    let whole = fleet_report(&fixtures, &ReportOptions::default()).unwrap();
    assert!(
        !whole.contains("Left out of this page"),
        "a small fleet is whole"
    );
    let capped = fleet_report(
        &fixtures,
        &ReportOptions {
            fleet_bytes: Some(0),
            ..Default::default()
        },
    )
    .unwrap();
    let fleet = api::diagnose_fleet(&fixtures, &Default::default()).unwrap();
    let n = fleet.sessions.len();
    assert_eq!(
        capped.matches("Left out of this page").count(),
        n,
        "past the size every session is a line with its own command"
    );
    assert!(
        capped.contains(&format!(
            "palimpsest report {} --session {} -o report.html",
            fleet.sessions[0].path, fleet.sessions[0].session_id
        )),
        "which names the file and the session"
    );
    assert!(
        capped.contains(&format!("{n} of {n} sessions are listed, not laid out")),
        "and the page says how many"
    );
    assert!(capped.len() * 2 < whole.len(), "a fraction of the page");
}
