//! The requests goose really sent: `logs/llm_request.{0..9}.jsonl` in goose's state folder, the
//! last ten provider calls (0 is the newest). Each file opens with `{"model_config", "input"}`,
//! `input` being the provider payload as sent, then one `{"data", "usage"}` line per response
//! (or `{"error"}`). No file names its session: matching one to a session and a request is
//! `compaction::recorded`'s, from what the payload holds.
//!
//! The payload is read in the two shapes goose's providers send: OpenAI chat (`messages` with
//! `system`/`user`/`assistant`/`tool` roles, `tool_calls`, `tool_call_id`) and Anthropic
//! (`system` apart, `messages` of `text`/`tool_use`/`tool_result` blocks). Each message becomes
//! [`Item`]s, one per thing the model receives, so both sides compare item by item whatever
//! the API did to message boundaries.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::error::{Error, Result};
use crate::model::{Item, RecordedRequest};

/// How many request logs goose keeps.
pub const KEPT: usize = 10;

/// True for one of goose's request logs by its name (`llm_request.3.jsonl`): what a session's
/// requests were, never a session of its own.
pub fn is_request_log(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_prefix("llm_request."))
        .and_then(|n| n.strip_suffix(".jsonl"))
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

fn text_of(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// The items of one payload message, OpenAI or Anthropic shaped.
fn items_of(m: &Value, out: &mut Vec<Item>) {
    let role = m.get("role").and_then(Value::as_str).unwrap_or("user");
    let content = m.get("content").unwrap_or(&Value::Null);
    if role == "tool" {
        let id = m.get("tool_call_id").and_then(Value::as_str).unwrap_or("");
        out.push(Item::result(id, &text_of(content)));
        return;
    }
    match content {
        Value::String(s) if !s.is_empty() => out.push(Item::text(role, s)),
        Value::Array(blocks) => {
            for b in blocks {
                match b.get("type").and_then(Value::as_str) {
                    Some("text") => out.push(Item::text(
                        role,
                        b.get("text").and_then(Value::as_str).unwrap_or(""),
                    )),
                    Some("tool_use") => out.push(Item::call(
                        b.get("id").and_then(Value::as_str).unwrap_or(""),
                        b.get("name").and_then(Value::as_str).unwrap_or(""),
                        b.get("input").unwrap_or(&Value::Null),
                    )),
                    Some("tool_result") => out.push(Item::result(
                        b.get("tool_use_id").and_then(Value::as_str).unwrap_or(""),
                        &text_of(b.get("content").unwrap_or(&Value::Null)),
                    )),
                    Some("image" | "image_url") => out.push(Item {
                        role: role.to_owned(),
                        kind: "image".into(),
                        call_id: None,
                        text: String::new(),
                    }),
                    _ => {}
                }
            }
        }
        _ => {}
    }
    for c in m
        .get("tool_calls")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let f = c.get("function").unwrap_or(&Value::Null);
        out.push(Item::call(
            c.get("id").and_then(Value::as_str).unwrap_or(""),
            f.get("name").and_then(Value::as_str).unwrap_or(""),
            f.get("arguments").unwrap_or(&Value::Null),
        ));
    }
}

/// The slot in `llm_request.<slot>.jsonl`.
fn slot_of(path: &Path) -> Option<usize> {
    let name = path.file_name()?.to_str()?;
    name.strip_prefix("llm_request.")?
        .strip_suffix(".jsonl")?
        .parse()
        .ok()
}

/// Read one request log. A first line that is not goose's `{model_config, input}` is an error
/// naming the file and line.
pub fn read(path: &Path) -> Result<RecordedRequest> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    let mut lines = text.lines();
    let head: Value = lines
        .next()
        .and_then(|l| serde_json::from_str(l).ok())
        .filter(|v: &Value| v.get("input").is_some())
        .ok_or_else(|| Error::Line {
            path: path.to_owned(),
            line: 1,
            message: "not a goose request log: the first line is not {\"model_config\", \"input\"}"
                .into(),
        })?;
    let input = &head["input"];
    let mut items = Vec::new();
    match input.get("system") {
        Some(Value::String(s)) => items.push(Item::text("system", s)),
        Some(v @ Value::Array(_)) => items.push(Item::text("system", &text_of(v))),
        _ => {}
    }
    let messages = input
        .get("messages")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for m in &messages {
        items_of(m, &mut items);
    }
    let (mut error, mut usage) = (None, None);
    for l in lines {
        let Ok(v) = serde_json::from_str::<Value>(l) else {
            continue;
        };
        if let Some(e) = v.get("error").and_then(Value::as_str) {
            error = Some(e.to_owned());
        }
        if let Some(u) = v.get("usage").filter(|u| !u.is_null()) {
            usage = Some(u.clone());
        }
    }
    Ok(RecordedRequest {
        file: path.display().to_string(),
        slot: slot_of(path),
        model: input
            .get("model")
            .and_then(Value::as_str)
            .or_else(|| {
                head["model_config"]
                    .get("model_name")
                    .and_then(Value::as_str)
            })
            .map(str::to_owned),
        messages: messages.len() + usize::from(input.get("system").is_some()),
        items,
        error,
        usage,
    })
}

/// The request logs in `dir`, newest first (`llm_request.0.jsonl` … `.9`).
pub fn logs_in(dir: &Path) -> Vec<PathBuf> {
    let mut found: Vec<(usize, PathBuf)> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter_map(|p| slot_of(&p).map(|s| (s, p)))
        .collect();
    found.sort();
    found.into_iter().map(|(_, p)| p).collect()
}

/// Where goose keeps the logs of the database at `db`, most likely first: a `logs` folder
/// beside it (a copy of a worker's files), then the state folder of the layout the database
/// sits in (`<root>/data/sessions/sessions.db` → `<root>/state/logs`, goose's
/// `GOOSE_PATH_ROOT`; `~/.local/share/goose/sessions/sessions.db` → `~/.local/state/goose/logs`),
/// then `state_home`/goose/logs (`$XDG_STATE_HOME`, passed in by the caller).
pub fn log_dirs(db: &Path, state_home: Option<&Path>) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let folder = db.parent().unwrap_or(Path::new("."));
    out.push(folder.join("logs"));
    if let Some(data) = folder.parent() {
        if data.file_name().is_some_and(|n| n == "data")
            && let Some(root) = data.parent()
        {
            out.push(root.join("state/logs"));
        }
        if data.file_name().is_some_and(|n| n == "goose")
            && let Some(share) = data.parent()
            && share.file_name().is_some_and(|n| n == "share")
            && let Some(local) = share.parent()
        {
            out.push(local.join("state/goose/logs"));
        }
    }
    if let Some(s) = state_home {
        out.push(s.join("goose/logs"));
    }
    out.dedup();
    out
}
