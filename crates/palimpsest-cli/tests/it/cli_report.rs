//! `palimpsest report`: one self-contained HTML file. On the hostile-HTML fixture no markup of
//! the transcript survives as markup; on a real transcript the report holds the verdict and the
//! cut anatomy the CLI prints; on a folder the fleet table links every session's section.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn run(args: &[&str], path: &Path) -> String {
    let cache = tempfile::tempdir().unwrap();
    let out = Command::cargo_bin("palimpsest")
        .unwrap()
        .env("XDG_CACHE_HOME", cache.path())
        .arg(args[0])
        .arg(path)
        .args(&args[1..])
        .assert()
        .get_output()
        .stdout
        .clone();
    String::from_utf8(out).unwrap()
}

/// Every tag of the page, lower-cased: each `<` the page holds opens one (transcript text has
/// none left unescaped).
fn tags(html: &str) -> Vec<String> {
    html.match_indices('<')
        .map(|(i, _)| {
            let end = html[i..].find('>').map_or(html.len(), |e| i + e + 1);
            html[i..end].to_lowercase()
        })
        .collect()
}

/// A tag with an attribute named `on…=` (an event handler).
fn has_handler(tag: &str) -> bool {
    tag.split_whitespace().skip(1).any(|a| {
        a.strip_prefix("on")
            .is_some_and(|rest| rest.chars().next().is_some_and(|c| c.is_ascii_alphabetic()))
            && a.contains('=')
    })
}

fn anchor(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

#[test]
fn hostile_transcript_text_is_never_markup() {
    let db = repo().join("fixtures/goose/sessions.db");
    let html = run(&["report", "--session", "hostile-html", "--bodies"], &db);
    assert!(
        html.contains(&format!(
            "<meta http-equiv=\"Content-Security-Policy\" content=\"{}\">",
            palimpsest_core::report::CSP
        )),
        "the page carries the strict policy"
    );
    let tags = tags(&html);
    assert!(
        tags.iter().all(|t| !t.starts_with("<script")),
        "no script element at all"
    );
    let bad: Vec<&String> = tags
        .iter()
        .filter(|t| has_handler(t) || t.contains("javascript:"))
        .collect();
    assert!(
        bad.is_empty(),
        "no event handler or javascript: URL in any tag: {bad:?}"
    );
    assert!(
        tags.iter()
            .all(|t| !t.contains("src=\"http") && !t.contains("href=\"http")),
        "nothing is fetched"
    );
    assert!(
        html.contains("&lt;script&gt;alert(&#39;name&#39;)&lt;/script&gt;"),
        "the session name's script reads as text"
    );
}

#[test]
fn a_real_transcript_report_holds_the_cli_verdict_and_cuts() {
    let id = "258c7280-ae70-4798-800f-63464d01a85d";
    let f = repo().join(format!("fixtures/real/claude-code/{id}.jsonl"));
    let html = run(&["report"], &f);
    // A transcript file holds its subagent runs too: `diagnose` answers with a fleet.
    let d: Value = serde_json::from_str(&run(&["diagnose", "--json"], &f)).unwrap();
    let row = d["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["session_id"] == id)
        .unwrap();
    let verdict = palimpsest_core::report::esc(row["verdict"].as_str().unwrap());
    assert!(
        html.contains(&verdict),
        "the verdict `diagnose` gives: {verdict}"
    );
    let c: Value = serde_json::from_str(&run(&["compactions", "--json"], &f)).unwrap();
    let cut = &c["compactions"][0];
    let want = format!(
        "Cut 1 · {} · {} → {} tokens · at <a href=\"#s-{}-m{}\">",
        cut["trigger"].as_str().unwrap(),
        cut["pre_tokens"],
        cut["post_tokens"],
        anchor(id),
        cut["cut_index"]
    );
    assert!(
        html.contains(&want),
        "the cut as `compactions` has it: {want}"
    );
    assert!(
        html.contains(&format!("<h4>Dropped ({})</h4>", cut["dropped_count"])),
        "the dropped count `compactions` gives ({})",
        cut["dropped_count"]
    );
    assert!(
        html.contains(
            "<img class=\"chart\" alt=\"Context per request, compaction cuts dashed\" \
             src=\"data:image/svg+xml;base64,"
        ),
        "the token charts are images inside the file"
    );
}

#[test]
fn a_folder_report_opens_on_the_fleet_table() {
    let dir = repo().join("fixtures/claude");
    let html = run(&["report"], &dir);
    let fleet: Value =
        serde_json::from_str(&run(&["diagnose", "--json", "--no-index"], &dir)).unwrap();
    let rows = fleet["sessions"].as_array().unwrap();
    assert_eq!(rows.len(), 3, "six-cuts, its subagent run and views");
    for (k, s) in rows.iter().enumerate() {
        let id = s["session_id"].as_str().unwrap();
        let a = anchor(&format!("{}-{id}", k + 1));
        assert!(
            html.contains(&format!("<a href=\"#s-{a}\">"))
                && html.contains(&format!("<section id=\"s-{a}\">")),
            "row {} ({id}) links to its section",
            k + 1
        );
    }
    assert!(
        html.find("<table class=\"fleet\">").unwrap() < html.find("<section").unwrap(),
        "the fleet table comes first"
    );
}
