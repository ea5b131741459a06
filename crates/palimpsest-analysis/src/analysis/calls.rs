//! Tool calls paired with their results, in call order: the unit every diagnosis counts.
//!
//! Formats differ in where results live (goose: a `user` message with `toolResponse` parts;
//! OpenAI shapes: one `tool` message each; Claude: `tool_result` blocks). After reading they
//! are all [`Part::ToolCall`] / [`Part::ToolResult`] pairs joined by id, which is all this
//! module relies on. Classifying what a call did to files is `reads`'s job.

use std::collections::HashMap;

use serde_json::Value;

use crate::model::{Part, Session};

/// One tool call and, when it came back, its result.
#[derive(Debug, Clone)]
pub struct Call<'a> {
    /// Position among the session's calls (0-based).
    pub seq: usize,
    /// Index of the message holding the call.
    pub call_index: usize,
    /// The call's id as stored.
    pub id: &'a str,
    /// Index of the message holding the result.
    pub result_index: Option<usize>,
    /// Tool name as stored (`developer__shell`, `Read`, `exec_command`).
    pub name: &'a str,
    /// Tool name normalised: extension prefix (`ext__`) removed, lower-cased.
    pub tool: String,
    /// Arguments as stored (`Arguments::value` makes them a value where one is needed).
    pub arguments: &'a crate::model::Arguments,
    /// The result text the model received (`Body::text` unpacks it).
    pub result: Option<&'a crate::model::Body>,
    /// The result was a failure.
    pub is_error: bool,
    /// When the call was made (Unix ms).
    pub call_created: Option<i64>,
    /// When the result was recorded (Unix ms).
    pub result_created: Option<i64>,
}

impl Call<'_> {
    /// Milliseconds between the call and its result, when both are timestamped and ordered.
    pub fn duration_ms(&self) -> Option<i64> {
        match (self.call_created, self.result_created) {
            (Some(a), Some(b)) if b >= a => Some(b - a),
            _ => None,
        }
    }
}

/// Normalise a tool name: `developer__text_editor` → `text_editor`, `Read` → `read`.
pub fn normalise_tool(name: &str) -> String {
    let base = name.rsplit("__").next().unwrap_or(name);
    base.to_ascii_lowercase()
}

/// Every tool call of the session, in stored order, each paired with the first later result
/// carrying its id.
pub fn calls(session: &Session) -> Vec<Call<'_>> {
    let mut out: Vec<Call> = Vec::new();
    let mut open: HashMap<&str, Vec<usize>> = HashMap::new();
    for m in &session.messages {
        for p in &m.parts {
            match p {
                Part::ToolCall {
                    id,
                    name,
                    arguments,
                } => {
                    open.entry(id.as_str()).or_default().push(out.len());
                    out.push(Call {
                        seq: out.len(),
                        call_index: m.index,
                        id,
                        result_index: None,
                        name,
                        tool: normalise_tool(name),
                        arguments,
                        result: None,
                        is_error: false,
                        call_created: m.created,
                        result_created: None,
                    });
                }
                Part::ToolResult {
                    call_id,
                    text,
                    is_error,
                    ..
                } => {
                    let Some(pending) = open.get_mut(call_id.as_str()) else {
                        continue;
                    };
                    if pending.is_empty() {
                        continue;
                    }
                    let c = &mut out[pending.remove(0)];
                    c.result_index = Some(m.index);
                    c.result = Some(text);
                    c.is_error = *is_error;
                    c.result_created = m.created;
                }
                _ => {}
            }
        }
    }
    out
}

/// A string argument under the first of `keys` that holds one.
pub fn arg_str<'v>(args: &'v Value, keys: &[&str]) -> Option<&'v str> {
    keys.iter()
        .find_map(|k| args.get(k).and_then(Value::as_str))
        .filter(|s| !s.is_empty())
}

/// The shell command line of a shell-like call, and the folder it ran in when the call says.
///
/// Accepts a string (`{"command": "cat x"}`, `{"cmd": …}`) or an argv array; an array of the
/// form `["bash", "-lc", "cat x"]` yields its script.
pub fn shell_command(args: &Value) -> Option<(String, Option<String>)> {
    let workdir = arg_str(args, &["workdir", "working_directory", "cwd", "dir"]).map(str::to_owned);
    let raw = ["command", "cmd", "script", "commandLine", "input"]
        .iter()
        .find_map(|k| args.get(k))
        .or(match args {
            Value::String(_) | Value::Array(_) => Some(args),
            _ => None,
        })?;
    let line = match raw {
        Value::String(s) => s.clone(),
        Value::Array(items) => {
            let argv: Vec<&str> = items.iter().filter_map(Value::as_str).collect();
            let is_shell = argv.first().is_some_and(|p| {
                matches!(
                    p.rsplit('/').next().unwrap_or(p),
                    "bash" | "sh" | "zsh" | "dash"
                )
            });
            let script_flag = argv
                .get(1)
                .is_some_and(|f| f.starts_with('-') && f.contains('c'));
            if is_shell && script_flag && argv.len() >= 3 {
                argv[2].to_owned()
            } else {
                argv.iter().map(|a| quote(a)).collect::<Vec<_>>().join(" ")
            }
        }
        _ => return None,
    };
    Some((line, workdir))
}

fn quote(a: &str) -> String {
    if !a.is_empty()
        && a.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c))
    {
        a.to_owned()
    } else {
        format!("'{}'", a.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn codex_argv_yields_its_script() {
        let (line, wd) =
            shell_command(&json!({"command": ["bash", "-lc", "cat src/a.rs"], "workdir": "/w"}))
                .unwrap();
        assert_eq!(line, "cat src/a.rs", "bash -lc SCRIPT runs SCRIPT");
        assert_eq!(wd.as_deref(), Some("/w"), "the call's workdir is kept");
        let (plain, _) = shell_command(&json!({"command": ["cat", "a b.txt"]})).unwrap();
        assert_eq!(
            plain, "cat 'a b.txt'",
            "a plain argv is re-quoted so splitting round-trips"
        );
    }

    #[test]
    fn tool_names_lose_extension_prefix() {
        assert_eq!(
            normalise_tool("developer__text_editor"),
            "text_editor",
            "goose ext__tool"
        );
        assert_eq!(
            normalise_tool("Read"),
            "read",
            "Claude names are capitalised"
        );
    }
}
