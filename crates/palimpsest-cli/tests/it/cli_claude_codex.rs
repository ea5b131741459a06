//! `palimpsest sources`, `sessions` and `show` on Claude Code transcripts and Codex rollouts.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::{Value, json};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn claude_data() -> PathBuf {
    repo().join("fixtures/real/claude-code")
}

fn run_json(cmd: &mut Command) -> Value {
    let out = cmd.assert().success().get_output().stdout.clone();
    serde_json::from_slice(&out).expect("stdout is JSON")
}

#[test]
fn sources_lists_every_family_and_added_folders_with_counts() {
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join(".claude/projects/-home-u-proj");
    std::fs::create_dir_all(&project).unwrap();
    for f in ["short.jsonl", "tool_heavy.jsonl"] {
        std::fs::copy(claude_data().join(f), project.join(f)).unwrap();
    }
    let codex = repo().join("fixtures/codex");
    let goose_root = home.path().join("goose-root");
    // OpenCode's data folder as the harness lays it out (a log folder beside the database).
    let opencode = home.path().join(".local/share/opencode");
    std::fs::create_dir_all(opencode.join("log")).unwrap();
    std::fs::copy(
        repo().join("fixtures/opencode/opencode.db"),
        opencode.join("opencode.db"),
    )
    .unwrap();
    let v = run_json(
        Command::cargo_bin("palimpsest")
            .unwrap()
            .env_clear()
            .env("HOME", home.path())
            .env("CODEX_HOME", &codex)
            .env("GOOSE_PATH_ROOT", &goose_root)
            .args(["sources", "--json", "--add"])
            .arg(claude_data()),
    );
    let p = |x: &Path| x.display().to_string();
    assert_eq!(
        v,
        json!([
            {"family": "goose", "path": p(&goose_root.join("data/sessions")), "exists": false, "session_count": 0},
            {"family": "claude-code", "path": p(&home.path().join(".claude/projects")), "exists": true, "session_count": 2},
            {"family": "codex", "path": p(&codex.join("sessions")), "exists": true, "session_count": 4},
            {"family": "codex", "path": p(&codex.join("archived_sessions")), "exists": false, "session_count": 0},
            {"family": "coworker", "path": p(&home.path().join(".config/coworker")), "exists": false, "session_count": 0},
            {"family": "opencode", "path": p(&opencode), "exists": true, "session_count": 3},
            {"family": "kilo", "path": p(&home.path().join(".local/share/kilo")), "exists": false, "session_count": 0},
            {"family": "copilot-cli", "path": p(&home.path().join(".copilot/session-state")), "exists": false, "session_count": 0},
            {"family": "copilot-cli", "path": p(&home.path().join(".copilot/history-session-state")), "exists": false, "session_count": 0},
            {"family": "gemini-cli", "path": p(&home.path().join(".gemini/tmp")), "exists": false, "session_count": 0},
            {"family": "cline", "path": p(&home.path().join(".config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks")), "exists": false, "session_count": 0},
            {"family": "cline", "path": p(&home.path().join(".config/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks")), "exists": false, "session_count": 0},
            {"family": "cline", "path": p(&home.path().join(".cline/data/tasks")), "exists": false, "session_count": 0},
            {"family": "qwen-code", "path": p(&home.path().join(".qwen/projects")), "exists": false, "session_count": 0},
            {"family": "claude-code", "path": p(&claude_data()), "exists": true, "session_count": 9},
        ]),
        "the fourteen default folders (env overrides honoured, missing ones flagged; Codex's archive \
         beside its sessions; OpenCode's data folder under HOME; no Crush registry, so no Crush \
         project) then the added one (5 transcripts + 4 subagent runs)"
    );
}

#[test]
fn sessions_lists_claude_folder_with_children() {
    let v = run_json(
        Command::cargo_bin("palimpsest")
            .unwrap()
            .arg("sessions")
            .arg(claude_data())
            .arg("--json"),
    );
    let arr = v.as_array().unwrap();
    assert_eq!(arr.len(), 9, "5 sessions and 4 subagent runs");
    let auto = arr
        .iter()
        .find(|s| s["id"] == "258c7280-ae70-4798-800f-63464d01a85d")
        .unwrap();
    assert_eq!(
        (
            &auto["format"],
            &auto["message_count"],
            &auto["compaction_count"]
        ),
        (&json!("claude-code"), &json!(349), &json!(1)),
        "the auto-compacted transcript lists with its counts"
    );
}

#[test]
fn show_agent_view_of_compacted_claude_session_starts_at_summary() {
    let v = run_json(
        Command::cargo_bin("palimpsest")
            .unwrap()
            .arg("show")
            .arg(claude_data().join("ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl"))
            .args([
                "--session",
                "ae4a77f8-aedd-4bc1-888f-c94edc91af04",
                "--view",
                "agent",
                "--json",
            ]),
    );
    let msgs = v["messages"].as_array().unwrap();
    assert_eq!(
        msgs[0]["kind"], "summary",
        "the model's context opens with the summary"
    );
    assert_eq!(msgs[0]["index"], 291, "right after the boundary (290)");
    assert_eq!(
        msgs.len(),
        178,
        "what follows the manual compaction, minus system notices"
    );
}

#[test]
fn show_codex_rollout_by_folder_and_id() {
    let v = run_json(
        Command::cargo_bin("palimpsest")
            .unwrap()
            .arg("show")
            .arg(repo().join("fixtures/codex"))
            .args([
                "--session",
                "019c8f0a-0000-7000-8000-00000000a001",
                "--json",
            ]),
    );
    assert_eq!(v["session"]["format"], "codex", "read as Codex");
    let kinds: Vec<&str> = v["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds[8..],
        [
            "preserved_copy",
            "preserved_copy",
            "preserved_copy",
            "summary",
            "ordinary"
        ],
        "replacement copies, the opaque summary, then the next turn"
    );
}

#[test]
fn compactions_json_names_replacements_and_collapses() {
    let file = repo()
        .join("fixtures/claude/projects/-home-dev-docs/c0117a95-0000-4000-8000-00000000c011.jsonl");
    let v = run_json(
        Command::cargo_bin("palimpsest")
            .unwrap()
            .env("XDG_CACHE_HOME", tempfile::tempdir().unwrap().path())
            .arg("compactions")
            .arg(&file)
            .arg("--json"),
    );
    let cuts: Vec<(u64, &str, Value)> = v["compactions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["cut_index"].as_u64().unwrap(),
                c["trigger"].as_str().unwrap(),
                c["dropped"].clone(),
            )
        })
        .collect();
    assert_eq!(
        cuts,
        vec![
            (5, "replacement", Value::Null),
            (12, "collapse", json!([7, 11])),
            (17, "replacement", Value::Null),
            (26, "collapse", json!([20, 25])),
            (28, "auto", json!([0, 27])),
            (36, "collapse", json!([32, 35])),
        ],
        "fixtures/README.md (views): each replacement drops nothing, each collapse its span, the \
         compaction everything before it"
    );
}

/// `palimpsest context PATH --session ID --recorded EXTRA…`, run from the repository (so a
/// relative PATH prints as given).
fn context_recorded(path: &Path, session: &str, extra: &[&str]) -> Command {
    let mut c = Command::cargo_bin("palimpsest").unwrap();
    c.env("XDG_CACHE_HOME", tempfile::tempdir().unwrap().path())
        .current_dir(repo())
        .arg("context")
        .arg(path)
        .args(["--session", session, "--recorded"])
        .args(extra);
    c
}

/// The standard error of a command that must fail.
fn failure(mut c: Command) -> String {
    String::from_utf8_lossy(&c.assert().failure().get_output().stderr).into_owned()
}

#[test]
fn context_recorded_sets_aider_s_logged_requests_beside_the_chat_log() {
    let log = Path::new("fixtures/aider/shop/.aider.chat.history.md");
    let run = |extra: &[&str]| -> String {
        let out = context_recorded(log, "2026-11-03T10:00:00", extra)
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        String::from_utf8_lossy(&out).into_owned()
    };
    assert_eq!(
        run(&[]),
        "fixtures/aider/shop/.aider.llm.history: 5 requests logged in the session's time, 4 of them its own\n\
         request    1  4 differences  fixtures/aider/shop/.aider.llm.history:1\n\
         request    2  4 differences  fixtures/aider/shop/.aider.llm.history:46\n\
         request    3  5 differences  fixtures/aider/shop/.aider.llm.history:105\n\
         request    4  6 differences  fixtures/aider/shop/.aider.llm.history:163\n"
    );
    let text = run(&["--request", "1"]);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "request 1 (answered by [4]) recorded in fixtures/aider/shop/.aider.llm.history:1: 6 items sent, 1 rebuilt, 4 differences (system prompt: 1 items, never stored)"
    );
    assert_eq!(lines.len(), 7, "{text}");
    assert!(lines[1].starts_with("+ [     ] system    text        Act as an expert"));
    assert!(lines[4].starts_with("+ [     ] user      text        I have *added these files"));
    assert_eq!(
        lines[6],
        "  [    3] user      text        add a retry to fetch_rows"
    );
    // The request log named by hand, and a request it does not hold.
    let by_hand = log.with_file_name(".aider.llm.history");
    let err = failure(context_recorded(
        log,
        "2026-11-03T10:00:00",
        &["--logs", by_hand.to_str().unwrap(), "--request", "7"],
    ));
    assert!(
        err.contains("no recorded request is request 7")
            && err.contains("recorded here: 1, 2, 3, 4")
            && !err.contains("goose"),
        "got {err}"
    );
}

#[test]
fn context_recorded_lists_and_compares_the_requests_goose_logged() {
    let db = repo().join("fixtures/goose/v17/sessions.db");
    let run = |extra: &[&str]| {
        let mut args = vec!["--json"];
        args.extend_from_slice(extra);
        context_recorded(&db, "20261120_1", &args)
    };
    let set = run_json(&mut run(&[]));
    let requests: Vec<u64> = set["matched"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["request"].as_u64().unwrap())
        .collect();
    assert_eq!(
        requests,
        vec![15, 13, 7],
        "fixtures/README.md (goose/v17): the three logs, newest first, placed at their requests"
    );
    let one = run_json(&mut run(&["--request", "15"]));
    assert_eq!(
        (one["differences"].as_u64(), one["system_items"].as_u64()),
        (Some(1), Some(1)),
        "request 15 differs by the one item goose added; its system prompt is counted apart"
    );
    let err = failure(run(&["--request", "3"]));
    assert!(
        err.contains("no recorded request is request 3")
            && err.contains("recorded here: 15, 13, 7"),
        "a request with no log says which ones have one; got {err}"
    );
}
