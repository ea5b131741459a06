//! `show --message N` and `compactions --cut N` on a real Claude Code transcript: one message
//! whole as Markdown or as the inspector's JSON (with its edit diffs), one cut as Markdown or
//! as the cut view's detail, and the errors for a message or cut the session lacks.

use crate::common;

use common::{run, run_json};

const CLAUDE: &str = "../../fixtures/real/claude-code/258c7280-ae70-4798-800f-63464d01a85d.jsonl";

fn path() -> String {
    format!("{}/{CLAUDE}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn show_message_prints_markdown_or_the_inspector_json() {
    let p = path();
    let v = run_json(&["show", &p, "--message", "23", "--json"]);
    assert_eq!(v["message"]["index"], 23, "the message asked for");
    let edits = v["edits"].as_array().expect("edits is an array");
    let counts: Vec<(u64, u64)> = edits
        .iter()
        .map(|e| (e["added"].as_u64().unwrap(), e["removed"].as_u64().unwrap()))
        .collect();
    assert_eq!(
        counts,
        [(23, 5), (2, 0), (1, 0)],
        "three Edit calls, as difflib counts them"
    );
    assert!(
        v["raw"]
            .as_str()
            .unwrap()
            .contains("toolu_01JPL5vAoTHHbKA7AEixmzrt"),
        "the stored line"
    );

    let out = run(&["show", &p, "--message", "23"]);
    let md = String::from_utf8(out.stdout).unwrap();
    assert!(
        md.starts_with("### #23 · assistant · "),
        "Markdown heading: {}",
        &md[..60]
    );
    assert_eq!(
        md.matches("```diff\n").count(),
        3,
        "one diff block per Edit"
    );

    let out = run(&["show", &p, "--message", "99999"]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "a message the session lacks is an error"
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("has no message 99999 (it holds 349)"),
        "the error says how many it holds: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn compactions_cut_prints_the_cut_or_its_summary() {
    let p = path();
    let out = run(&["compactions", &p, "--cut", "1"]);
    let md = String::from_utf8(out.stdout).unwrap();
    assert!(
        md.starts_with("## Cut 1 · auto · at #229\n"),
        "the cut's heading: {}",
        &md[..60]
    );
    for section in [
        "### Dropped (229 messages)",
        "### Summary",
        "### Kept verbatim (0 messages)",
    ] {
        assert!(md.contains(section), "the cut has its {section:?} section");
    }
    let out = run(&["compactions", &p, "--cut", "1", "--summary"]);
    let s = String::from_utf8(out.stdout).unwrap();
    assert!(
        s.starts_with("## Cut 1 · auto · at #229 · summary\n"),
        "only the summary: {}",
        &s[..60]
    );
    assert!(!s.contains("### Dropped"), "no dropped list with --summary");

    let v = run_json(&["compactions", &p, "--cut", "1", "--json"]);
    assert_eq!(
        v["anatomy"]["cut_index"], 229,
        "the cut view's detail of cut 1"
    );
    assert_eq!(
        v["dropped"].as_array().unwrap().len(),
        229,
        "its dropped messages"
    );

    let out = run(&["compactions", &p, "--cut", "2"]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "a cut the session lacks is an error"
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("has no cut 2 (it holds 1)"),
        "naming how many it holds"
    );
}

#[test]
fn show_message_index_reads_the_message_by_offset_until_the_file_changes() {
    let t = tempfile::tempdir().unwrap();
    let file = t.path().join("s.jsonl");
    std::fs::copy(path(), &file).unwrap();
    let f = file.to_str().unwrap();
    let from_file = run_json(&["show", f, "--message", "23", "--json"]);
    assert_eq!(
        from_file["from_index"], false,
        "without --index the file is read"
    );
    let out = run(&["index", f]);
    assert!(out.status.success(), "the file is indexed");
    let by_offset = run_json(&["show", f, "--message", "23", "--index", "--json"]);
    assert_eq!(
        by_offset["from_index"], true,
        "read through the index by offset"
    );
    assert_eq!(
        (
            &by_offset["message"],
            &by_offset["raw"],
            &by_offset["edits"]
        ),
        (
            &from_file["message"],
            &from_file["raw"],
            &from_file["edits"]
        ),
        "the same message, stored text and edits as the file gives"
    );
    let mut text = std::fs::read_to_string(&file).unwrap();
    text.push('\n');
    std::fs::write(&file, text).unwrap();
    let out = run(&["show", f, "--message", "23", "--index", "--json"]);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("not in the index as it is on disk now"),
        "a changed file is read, and said so"
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["from_index"], false, "read from the file");
}
