//! The spill sandbox through the command line: a transcript's own words (its recorded working
//! directory, its id, its markers) never widen what `palimpsest spills --text` reads. Each
//! hostile session names `/etc/passwd` or a secret file beside the session folder; none may
//! print a byte of either, and each must still offer the recorded folder as a suggestion.
//! A spill inside the session's own folder, or under a `--root`, is read (so the checks can
//! fail).
#![cfg(unix)]

use crate::common;

use std::path::{Path, PathBuf};

use common::run_env;
use serde_json::{Value, json};

/// Bytes of `/etc/passwd` (its first line names root on every Linux).
const PASSWD: &str = "root:x:0:0";
/// The secret file's content.
const SECRET: &str = "TOP-SECRET-BYTES";

fn write_lines(p: &Path, lines: &[Value]) {
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(p, text).unwrap();
}

/// `spills PATH --json --text 5000 [extra…]`, with a private HOME and cache.
fn spills(tmp: &Path, path: &Path, extra: &[&str]) -> (Value, String) {
    let home = tmp.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let p = path.display().to_string();
    let mut args = vec!["spills", p.as_str(), "--json", "--text", "5000"];
    args.extend_from_slice(extra);
    let out = run_env(
        &args,
        &[
            ("HOME", home.to_str().unwrap()),
            ("XDG_CACHE_HOME", tmp.join("cache").to_str().unwrap()),
            (
                "COWORKER_SCRATCH_BASE",
                tmp.join("scratch").to_str().unwrap(),
            ),
        ],
    );
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "spills {p} runs: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (serde_json::from_str(&stdout).expect("JSON"), stdout)
}

/// The promise: nothing from outside is printed, no named spill is read.
fn assert_nothing_leaks(what: &str, review: &Value, stdout: &str) {
    assert!(
        !stdout.contains(PASSWD) && !stdout.contains(SECRET),
        "{what}: no byte of a file outside the session is printed"
    );
    let spills = review["spills"].as_array().expect("spills");
    assert!(!spills.is_empty(), "{what}: the marker is found");
    for s in spills {
        // Outside: offered for confirmation. A relative name may instead resolve to a file
        // missing from the session's own folder. Never read either way.
        assert!(
            s["status"] == "needs_confirmation" || s["status"] == "missing",
            "{what}: {} is offered for confirmation, never read (status {})",
            s["path"],
            s["status"]
        );
        assert!(s["spill_text"].is_null(), "{what}: no text is read");
    }
}

fn cap_marker(path: &str) -> String {
    format!(
        "HEAD\n[... 10 bytes omitted here; this result was 20 bytes; full text saved to {path} (read it with read_file) ...]\nTAIL"
    )
}

fn codex(dir: &Path, cwd: &str, spill: &str) -> PathBuf {
    let p = dir.join("rollout-2026-02-24T10-00-00-019c8f0a-0000-7000-8000-0000000000aa.jsonl");
    let t = "2026-02-24T10:00:00.000Z";
    write_lines(
        &p,
        &[
            json!({"timestamp": t, "type": "session_meta", "payload": {"id": "019c8f0a-0000-7000-8000-0000000000aa", "timestamp": t, "cwd": cwd, "originator": "codex_cli_rs", "cli_version": "0.104.0"}}),
            json!({"timestamp": t, "type": "response_item", "payload": {"type": "function_call", "name": "shell", "arguments": "{\"command\":[\"cat\",\"big.txt\"]}", "call_id": "call_1"}}),
            json!({"timestamp": t, "type": "response_item", "payload": {"type": "function_call_output", "call_id": "call_1", "output": cap_marker(spill)}}),
        ],
    );
    p
}

fn claude(project: &Path, cwd: &str, spill: &str) -> PathBuf {
    let id = "0b6cdd3a-1b2c-4d5e-8f90-123456789abc";
    let p = project.join(format!("{id}.jsonl"));
    let env = |uuid: &str, parent: Option<&str>, typ: &str| {
        json!({"parentUuid": parent, "isSidechain": false, "cwd": cwd, "sessionId": id,
               "type": typ, "timestamp": "2026-02-10T21:11:52.000Z", "uuid": uuid})
    };
    let mut call = env("a1", Some("u1"), "assistant");
    call["message"] = json!({"id": "msg_1", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": [{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "cat big"}}]});
    let mut result = env("u2", Some("a1"), "user");
    result["message"] = json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1",
        "content": format!("<persisted-output>\nOutput too large (4.8MB). Full output saved to: {spill}\n\nPreview (first 2KB):\nabc\n</persisted-output>")}]});
    let mut ask = env("u1", None, "user");
    ask["message"] = json!({"role": "user", "content": "show me big"});
    write_lines(&p, &[ask, call, result]);
    p
}

#[test]
fn a_recorded_working_directory_never_opens_a_file() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let outside = t.join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret.txt"), SECRET).unwrap();
    let secret = outside.join("secret.txt").display().to_string();

    for (cwd, spill) in [
        ("/", "/etc/passwd"),
        ("/etc", "passwd"),
        ("/", secret.as_str()),
    ] {
        let dir = t.join(format!("codex-{}", cwd.len() + spill.len()));
        let f = codex(&dir, cwd, spill);
        let (review, stdout) = spills(t, &f, &[]);
        assert_nothing_leaks(&format!("codex cwd {cwd} marker {spill}"), &review, &stdout);
        assert_eq!(
            review["suggested_roots"],
            json!([cwd]),
            "the recorded cwd is only a suggestion"
        );
        assert!(
            !review["roots"].as_array().unwrap().iter().any(|r| r == cwd),
            "the recorded cwd is not a root"
        );

        let project = t.join(format!("claude-{}/projects/-p", cwd.len() + spill.len()));
        let f = claude(&project, cwd, spill);
        let (review, stdout) = spills(t, &f, &[]);
        assert_nothing_leaks(
            &format!("claude cwd {cwd} marker {spill}"),
            &review,
            &stdout,
        );

        let g = t.join(format!(
            "goose-{}/20250101_120000.jsonl",
            cwd.len() + spill.len()
        ));
        write_lines(
            &g,
            &[
                json!({"working_dir": cwd, "description": "hostile"}),
                json!({"id": "m0", "role": "user", "created": 1771900000, "content": [{"type": "text", "text": "read it"}]}),
                json!({"id": "m1", "role": "assistant", "created": 1771900010, "content": [{"type": "toolRequest", "id": "c1", "toolCall": {"status": "success", "value": {"name": "shell", "arguments": {"cmd": "cat big"}}}}]}),
                json!({"id": "m2", "role": "user", "created": 1771900020, "content": [{"type": "toolResponse", "id": "c1", "toolResult": {"status": "success", "value": [{"type": "text", "text": format!("The response returned from the tool call was larger (300000 characters) and is stored in the file: {spill}\nYou can use other tools to examine or search it.")}]}}]}),
            ],
        );
        let (review, stdout) = spills(t, &g, &[]);
        assert_nothing_leaks(&format!("goose cwd {cwd} marker {spill}"), &review, &stdout);
    }

    // Trusting the folder (`--root`) is what opens it.
    let dir = t.join("codex-trusted");
    let f = codex(&dir, &outside.display().to_string(), "secret.txt");
    let (review, stdout) = spills(t, &f, &["--root", outside.to_str().unwrap()]);
    assert!(
        stdout.contains(SECRET),
        "a folder the user names is read: {review}"
    );
    assert_eq!(
        review["suggested_roots"],
        json!([]),
        "a trusted working directory is no longer suggested"
    );
}

#[test]
fn coworker_workspace_and_id_are_not_trusted() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    std::fs::create_dir_all(t.join("scratch")).unwrap();
    std::fs::write(t.join("secret.txt"), SECRET).unwrap();
    let state = t.join("state");
    std::fs::create_dir_all(state.join("conversations")).unwrap();
    let conn = rusqlite::Connection::open(state.join("coworker.db")).unwrap();
    conn.execute_batch(
        "CREATE TABLE sessions (session_id TEXT PRIMARY KEY, workspace TEXT, model TEXT, title TEXT, messages TEXT);",
    )
    .unwrap();
    let messages = json!([
        {"role": "user", "content": "read it"},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\": \"big.txt\"}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": cap_marker("/etc/passwd")},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "c2", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\": \"x\"}"}}]},
        {"role": "tool", "tool_call_id": "c2", "content": cap_marker("tool-output/../../secret.txt")},
    ])
    .to_string();
    for (id, workspace) in [("wsroot000001", "/"), ("../../..", "/")] {
        conn.execute(
            "INSERT INTO sessions (session_id, workspace, model, title, messages) VALUES (?1, ?2, 'm', 't', ?3)",
            rusqlite::params![id, workspace, messages],
        )
        .unwrap();
    }
    drop(conn);
    for id in ["wsroot000001", "../../.."] {
        let (review, stdout) = spills(t, &state, &["--session", id]);
        assert_nothing_leaks(&format!("coworker {id}"), &review, &stdout);
        assert_eq!(
            review["suggested_roots"],
            json!(["/"]),
            "workspace / is only suggested"
        );
        if id.contains("..") {
            assert!(
                review["problems"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|p| p.as_str().unwrap().contains("not one plain path component")),
                "an id with .. is refused with a problem: {}",
                review["problems"]
            );
        }
    }
}

#[test]
fn symlinks_out_of_the_session_folder_are_not_followed() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let outside = t.join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret.txt"), SECRET).unwrap();
    let project = t.join("projects/-p");
    let id = "0b6cdd3a-1b2c-4d5e-8f90-123456789abc";
    // <id>/tool-results is a link to a folder outside; leak.txt a link to /etc/passwd.
    std::fs::create_dir_all(project.join(id)).unwrap();
    std::os::unix::fs::symlink(&outside, project.join(id).join("tool-results")).unwrap();
    std::os::unix::fs::symlink("/etc/passwd", project.join("leak.txt")).unwrap();
    let f = claude(
        &project,
        "/home/u/p",
        &project
            .join(id)
            .join("tool-results/secret.txt")
            .display()
            .to_string(),
    );
    let (review, stdout) = spills(t, &f, &[]);
    assert_nothing_leaks("a tool-results folder linked outside", &review, &stdout);
    assert!(
        review["problems"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p.as_str().unwrap().contains("leads outside")),
        "the linked folder is named as left out: {}",
        review["problems"]
    );
    let f = claude(
        &project,
        "/home/u/p",
        &project.join("leak.txt").display().to_string(),
    );
    let (review, stdout) = spills(t, &f, &[]);
    assert_nothing_leaks("a file linked to /etc/passwd", &review, &stdout);

    // A real spill file in the session's own folder is read.
    std::fs::remove_file(project.join(id).join("tool-results")).unwrap();
    std::fs::create_dir_all(project.join(id).join("tool-results")).unwrap();
    std::fs::write(
        project.join(id).join("tool-results/own.txt"),
        "OWN-SPILL-TEXT",
    )
    .unwrap();
    let f = claude(
        &project,
        "/home/u/p",
        &project
            .join(id)
            .join("tool-results/own.txt")
            .display()
            .to_string(),
    );
    let (review, stdout) = spills(t, &f, &[]);
    assert!(
        stdout.contains("OWN-SPILL-TEXT"),
        "the session's own spill is read: {review}"
    );
}

#[test]
fn a_bare_relative_session_path_still_has_its_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let project = t.join("projects/-p");
    let id = "0b6cdd3a-1b2c-4d5e-8f90-123456789abc";
    std::fs::create_dir_all(project.join(id).join("tool-results")).unwrap();
    std::fs::write(
        project.join(id).join("tool-results/own.txt"),
        "OWN-SPILL-TEXT",
    )
    .unwrap();
    claude(
        &project,
        "/home/u/p",
        &format!("{}/{id}/tool-results/own.txt", project.display()),
    );
    let out = assert_cmd::Command::cargo_bin("palimpsest")
        .unwrap()
        .current_dir(&project)
        .env("HOME", t)
        .env("XDG_CACHE_HOME", t.join("cache"))
        .args(["spills", &format!("{id}.jsonl"), "--json", "--text", "100"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("OWN-SPILL-TEXT"),
        "a session named by a bare relative path gets its folder as a root: {stdout} {}",
        String::from_utf8_lossy(&out.stderr)
    );
}
