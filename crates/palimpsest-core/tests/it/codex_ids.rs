//! Naming a Codex rollout's session (what the index's update and a load need) reads its first
//! lines only, where its listing reads the head: both must give the same id, on rollouts whose
//! `session_meta` line is longer than that first read, comes late, lacks an id or is absent,
//! and on the real rollout.

use std::path::Path;

use palimpsest_core::sources;
use serde_json::json;

fn meta(id: Option<&str>, instructions: usize) -> String {
    let mut payload =
        json!({"cwd": "/work/shop", "base_instructions": {"text": "i".repeat(instructions)}});
    if let Some(id) = id {
        payload["id"] = json!(id);
    }
    json!({"timestamp": "2026-03-01T10:00:00Z", "type": "session_meta", "payload": payload})
        .to_string()
}

const ASK: &str = r#"{"timestamp":"2026-03-01T10:00:01Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"fix the total"}]}}"#;

/// Every session a source names, beside its listing's id, for every source under `root`.
fn named_and_listed(root: &Path) -> Vec<(String, String)> {
    let catalog = sources::open(root).unwrap();
    assert!(catalog.problems.is_empty(), "{:?}", catalog.problems);
    let mut out = Vec::new();
    for s in &catalog.sources {
        let named: Vec<String> = s
            .session_files()
            .unwrap()
            .into_iter()
            .map(|f| f.id)
            .collect();
        let listed: Vec<String> = s.list().unwrap().into_iter().map(|m| m.id).collect();
        assert_eq!(named.len(), listed.len(), "one name per listed session");
        out.extend(named.into_iter().zip(listed));
    }
    out
}

#[test]
fn a_rollout_is_named_as_its_listing_names_it() {
    let t = tempfile::tempdir().unwrap();
    let day = t.path().join("sessions/2026/03/01");
    std::fs::create_dir_all(&day).unwrap();
    let cases = [
        (
            "short",
            vec![meta(Some("id-short"), 100), ASK.into()],
            "id-short",
        ),
        // Longer than the first read: the head is read for it.
        (
            "long",
            vec![meta(Some("id-long"), 200_000), ASK.into()],
            "id-long",
        ),
        (
            "second",
            vec![meta(None, 10), meta(Some("id-second"), 10), ASK.into()],
            "id-second",
        ),
        (
            "absent",
            vec![ASK.into()],
            "rollout-2026-03-01T10-00-00-absent",
        ),
    ];
    for (name, lines, _) in &cases {
        std::fs::write(
            day.join(format!("rollout-2026-03-01T10-00-00-{name}.jsonl")),
            lines.join("\n") + "\n",
        )
        .unwrap();
    }
    let mut got = named_and_listed(&t.path().join("sessions"));
    got.sort();
    let mut want: Vec<(String, String)> = cases
        .iter()
        .map(|(_, _, id)| (id.to_string(), id.to_string()))
        .collect();
    want.sort();
    assert_eq!(
        got, want,
        "each rollout named by its first session_meta with an id, as listed"
    );
}

#[test]
fn the_real_rollout_is_named_as_listed() {
    let codex = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/real/codex");
    let got = named_and_listed(&codex);
    assert_eq!(got.len(), 1, "one rollout: {got:?}");
    assert_eq!(got[0].0, got[0].1, "named as listed");
    assert_eq!(
        got[0].0, "019a0e82-73d6-7592-88a6-48d49534d91b",
        "its session_meta id"
    );
}
