//! coworker's mechanical working-state block (`extract_working_state`, coworker-format §2): files
//! written, recent shell commands with their status, artifacts, tools used, read from a span's
//! tool calls and results the way the harness reads them. Part of [`super`] (re-exported there);
//! where the block goes is the compacted block's business.

use serde_json::Value;

use super::normalise;
use crate::model::{Message, Part};

/// The mechanical working-state block of a span (empty when nothing matched).
pub fn working_state<'a>(span: impl IntoIterator<Item = &'a Message> + Clone) -> String {
    let results: std::collections::HashMap<&str, std::borrow::Cow<str>> = span
        .clone()
        .into_iter()
        .flat_map(|m| &m.parts)
        .filter_map(|p| match p {
            Part::ToolResult { call_id, text, .. } => Some((call_id.as_str(), text.text())),
            _ => None,
        })
        .collect();
    let (mut written, mut shells, mut artifacts, mut tools) = (vec![], vec![], vec![], vec![]);
    for p in span.into_iter().flat_map(|m| &m.parts) {
        let Part::ToolCall {
            id,
            name,
            arguments,
        } = p
        else {
            continue;
        };
        let arguments = &arguments.value();
        // Python's `str(args.get(k) or …)`: a falsy value (an empty string, 0, [], None)
        // counts as absent, and a value that is not a string is written as `str()` writes it
        // (`{"path": 7}` is `7`, `["ls", "-la"]` is `['ls', '-la']`).
        let arg = |k: &str| {
            arguments
                .get(k)
                .filter(|v| py_truthy(v))
                .map(crate::replay::pyjson::py_str)
        };
        let lower = name.to_lowercase();
        if !name.is_empty() && !tools.contains(name) {
            tools.push(name.clone());
        }
        if ["write", "edit", "append", "save", "create", "patch"]
            .iter()
            .any(|w| lower.contains(w))
            && let Some(path) = arg("path").or_else(|| arg("file_path"))
        {
            written.push(path);
        }
        if lower == "run_shell"
            && let Some(cmd) = arg("command")
        {
            let status = results
                .get(id.as_str())
                .map_or(String::new(), |r| shell_status(r));
            shells.push(format!("{}{status}", clip_plain(&normalise(&cmd), 160)));
        }
        if ["artifact", "publish", "deploy"]
            .iter()
            .any(|w| lower.contains(w))
            && let Some(a) = arg("url").or_else(|| arg("path")).or_else(|| arg("title"))
        {
            artifacts.push(a);
        }
    }
    let mut sections = Vec::new();
    let mut list = |title: &str, items: Vec<String>, n: usize| {
        let mut seen: Vec<String> = Vec::new();
        for i in items.into_iter().rev() {
            if !seen.contains(&i) && seen.len() < n {
                seen.push(i);
            }
        }
        if !seen.is_empty() {
            let lines: Vec<String> = seen.iter().map(|s| format!("- {s}")).collect();
            sections.push(format!("{title}\n{}", lines.join("\n")));
        }
    };
    list("Files written/edited (most recent first):", written, 20);
    let recent = shells.split_off(shells.len().saturating_sub(10));
    if !recent.is_empty() {
        let lines: Vec<String> = recent.iter().map(|s| format!("- {s}")).collect();
        sections.push(format!("Recent shell commands:\n{}", lines.join("\n")));
    }
    let mut list2 = |title: &str, items: Vec<String>| {
        let mut seen: Vec<String> = Vec::new();
        for i in items.into_iter().rev() {
            if !seen.contains(&i) && seen.len() < 10 {
                seen.push(i);
            }
        }
        if !seen.is_empty() {
            let lines: Vec<String> = seen.iter().map(|s| format!("- {s}")).collect();
            sections.push(format!("{title}\n{}", lines.join("\n")));
        }
    };
    list2("Artifacts produced:", artifacts);
    if sections.is_empty() && tools.is_empty() {
        return String::new();
    }
    tools.sort();
    sections.push(format!(
        "Tools used in the summarized span: {}",
        tools.join(", ")
    ));
    format!(
        "## Working state (extracted mechanically from tool records)\n{}",
        sections.join("\n")
    )
}

fn clip_plain(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

/// `_result_status`: only a JSON object says anything; a truthy `error` wins, then an
/// `exit_code` key (0 or "0" is ok, anything else is printed as Python would). A result with
/// neither (or not JSON, as a capped text is) gets no status at all.
pub(super) fn shell_status(result: &str) -> String {
    let Ok(Value::Object(o)) = serde_json::from_str::<Value>(result) else {
        return String::new();
    };
    if o.get("error").is_some_and(py_truthy) {
        return "  [error]".into();
    }
    match o.get("exit_code") {
        None => String::new(),
        // Python's `code in (0, "0")`: 0.0 and False compare equal to 0.
        Some(Value::Number(n)) if n.as_f64() == Some(0.0) => "  [ok]".into(),
        Some(Value::String(s)) if s == "0" => "  [ok]".into(),
        Some(Value::Bool(false)) => "  [ok]".into(),
        Some(Value::Bool(true)) => "  [exit True]".into(),
        Some(Value::Null) => "  [exit None]".into(),
        Some(Value::String(s)) => format!("  [exit {s}]"),
        Some(v) => format!("  [exit {}]", crate::replay::pyjson::dumps(v)),
    }
}

/// Python truthiness of a JSON value.
fn py_truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64() != Some(0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}
