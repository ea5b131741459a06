//! Tool calls written as XML in the answer's text, as Cline and Roo Code asked models to write
//! them before native tool calling (`<read_file>\n<path>store.py</path>\n</read_file>`), and
//! their results as text in the next user message: a header block
//! (`[read_file for 'store.py'] Result:`) followed by the tool's output blocks. Both are made
//! into the call and result parts a native call has, so re-reads, loops and writes are found
//! the same way; the text around a call stays text. The harness ran one tool per answer (it
//! refused the rest), so a header answers the previous answer's call of that name.

use serde_json::{Map, Value, json};

use crate::model::{Message, Part, Role};

/// The tools Cline's and Roo Code's prompts offered as XML.
const TOOLS: &[&str] = &[
    "execute_command",
    "read_file",
    "write_to_file",
    "replace_in_file",
    "apply_diff",
    "insert_content",
    "search_and_replace",
    "search_files",
    "list_files",
    "list_code_definition_names",
    "codebase_search",
    "browser_action",
    "use_mcp_tool",
    "access_mcp_resource",
    "ask_followup_question",
    "attempt_completion",
    "plan_mode_respond",
    "load_mcp_documentation",
    "new_task",
    "switch_mode",
    "fetch_instructions",
    "update_todo_list",
    "web_fetch",
    "condense",
    "summarize_task",
    "new_rule",
    "report_bug",
];

/// Parameters whose value may hold tags of its own (a file's content, a diff): closed by the
/// last closing tag, as the harness parsed them.
const GREEDY: &[&str] = &["content", "diff"];

/// Where the first tool block of `text` opens: its start, its name, and where its body starts.
fn open(text: &str) -> Option<(usize, &'static str, usize)> {
    let mut from = 0;
    while let Some(lt) = text[from..].find('<').map(|i| from + i) {
        let rest = &text[lt + 1..];
        if let Some(name) = TOOLS
            .iter()
            .find(|t| rest.starts_with(**t) && rest[t.len()..].starts_with('>'))
        {
            return Some((lt, name, lt + name.len() + 2));
        }
        from = lt + 1;
    }
    None
}

/// The parameters in a tool block's body: each `<name>value</name>`, one newline trimmed from
/// each end of the value.
fn params(body: &str) -> Map<String, Value> {
    let mut out = Map::new();
    let mut at = 0;
    while let Some(lt) = body[at..].find('<').map(|i| at + i) {
        let rest = &body[lt + 1..];
        let name_len = rest
            .find(|c: char| !(c.is_ascii_lowercase() || c == '_'))
            .unwrap_or(rest.len());
        if name_len == 0 || !rest[name_len..].starts_with('>') {
            at = lt + 1;
            continue;
        }
        let name = &rest[..name_len];
        let start = lt + name_len + 2;
        let close = format!("</{name}>");
        let end = if GREEDY.contains(&name) {
            body[start..].rfind(&close)
        } else {
            body[start..].find(&close)
        };
        let Some(end) = end.map(|e| start + e) else {
            break;
        };
        let v = body[start..end]
            .strip_prefix('\n')
            .unwrap_or(&body[start..end]);
        let v = v.strip_suffix('\n').unwrap_or(v);
        out.insert(name.to_owned(), Value::String(v.to_owned()));
        at = end + close.len();
    }
    out
}

/// An answer's text split into text and tool calls, ids `<prefix>-<n>`; `None` when it holds
/// no tool block.
fn calls_in(text: &str, prefix: &str) -> Option<Vec<Part>> {
    let mut parts = Vec::new();
    let mut rest = text;
    let mut n = 0;
    while let Some((lt, name, body)) = open(rest) {
        let close = format!("</{name}>");
        let greedy = matches!(name, "write_to_file" | "replace_in_file" | "apply_diff");
        let end = if greedy {
            rest[body..].rfind(&close)
        } else {
            rest[body..].find(&close)
        };
        // A block cut short (the answer was interrupted) is left as text.
        let Some(end) = end.map(|e| body + e) else {
            break;
        };
        let before = rest[..lt].trim();
        if !before.is_empty() {
            parts.push(Part::Text {
                text: before.to_owned(),
            });
        }
        n += 1;
        parts.push(Part::ToolCall {
            id: format!("{prefix}-{n}"),
            name: name.to_owned(),
            arguments: Value::Object(params(&rest[body..end])).into(),
        });
        rest = &rest[end + close.len()..];
    }
    if n == 0 {
        return None;
    }
    if !rest.trim().is_empty() {
        parts.push(Part::Text {
            text: rest.trim().to_owned(),
        });
    }
    Some(parts)
}

/// The tool a result header names (`[read_file for 'x'] Result:` is `read_file`).
fn header(text: &str) -> Option<&'static str> {
    let t = text.trim();
    let inner = t.strip_prefix('[')?;
    let t_end = t.strip_suffix("Result:")?.trim_end();
    t_end.ends_with(']').then_some(())?;
    TOOLS.iter().copied().find(|n| {
        inner.starts_with(n) && matches!(inner.as_bytes().get(n.len()), Some(b' ' | b']'))
    })
}

/// True when a result's text is the harness's word that the tool failed or was refused.
fn failed(text: &str) -> bool {
    text.starts_with("The tool execution failed")
        || text.starts_with("The user denied this operation")
        || text.starts_with("Error ")
}

/// Make the XML calls of `messages` (in order) call parts, and each result header and the
/// blocks after it a result part answering the call before it of that tool.
pub fn lift(messages: &mut [Message]) {
    // Calls of the last answer not yet answered: (tool, id).
    let mut open_calls: Vec<(String, String)> = Vec::new();
    for m in messages.iter_mut() {
        match m.role {
            Role::Assistant if !m.has_tool_call() => {
                let text: String = m.text();
                let prefix = format!("xml-{}", m.index);
                if let Some(parts) = calls_in(&text, &prefix) {
                    let thinking = m
                        .parts
                        .iter()
                        .filter(|p| matches!(p, Part::Thinking { .. }))
                        .cloned();
                    let mut next: Vec<Part> = thinking.collect();
                    next.extend(parts);
                    open_calls = next
                        .iter()
                        .filter_map(|p| match p {
                            Part::ToolCall { id, name, .. } => Some((name.clone(), id.clone())),
                            _ => None,
                        })
                        .collect();
                    m.parts = next;
                }
            }
            Role::User if !open_calls.is_empty() && !m.has_tool_result() => {
                results(m, &mut open_calls);
            }
            _ => {}
        }
    }
}

/// A user message's result headers and the text blocks after each, as result parts.
fn results(m: &mut Message, open_calls: &mut Vec<(String, String)>) {
    let mut out: Vec<Part> = Vec::new();
    // The result being gathered: (call id, header, texts).
    let mut current: Option<(String, String, Vec<String>)> = None;
    let finish = |c: Option<(String, String, Vec<String>)>, out: &mut Vec<Part>| {
        if let Some((id, head, texts)) = c {
            let text = texts.join("\n");
            out.push(Part::ToolResult {
                call_id: id,
                is_error: failed(&text),
                raw: json!({"header": head, "text": texts}).into(),
                text: text.into(),
            });
        }
    };
    for p in std::mem::take(&mut m.parts) {
        // An image a tool returned (a screenshot) stays beside its result.
        let Part::Text { text } = &p else {
            out.push(p);
            continue;
        };
        if let Some(tool) = header(text) {
            finish(current.take(), &mut out);
            let at = open_calls.iter().position(|(n, _)| n == tool);
            match at {
                Some(i) => {
                    let (_, id) = open_calls.remove(i);
                    current = Some((id, text.clone(), Vec::new()));
                }
                None => out.push(p),
            }
            continue;
        }
        // The harness's own context after the results is the user's turn, not a result.
        if text.trim_start().starts_with("<environment_details>") {
            finish(current.take(), &mut out);
            out.push(p);
            continue;
        }
        match current.as_mut() {
            Some((_, _, texts)) => texts.push(text.clone()),
            None => out.push(p),
        }
    }
    finish(current.take(), &mut out);
    m.parts = out;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_is_a_call_with_its_parameters_and_the_text_around_it_stays() {
        let text = "I will look.\n\n<read_file>\n<path>src/store.py</path>\n</read_file>";
        let parts = calls_in(text, "xml-3").unwrap();
        assert_eq!(parts.len(), 2);
        assert!(matches!(&parts[0], Part::Text { text } if text == "I will look."));
        let Part::ToolCall {
            id,
            name,
            arguments,
        } = &parts[1]
        else {
            panic!("a call: {parts:?}")
        };
        assert_eq!((id.as_str(), name.as_str()), ("xml-3-1", "read_file"));
        assert_eq!(arguments.value(), json!({"path": "src/store.py"}));
    }

    #[test]
    fn a_files_content_may_hold_tags_and_a_cut_block_stays_text() {
        let text = "<write_to_file>\n<path>a.html</path>\n<content>\n<p>x</p>\n</content>\n</write_to_file>";
        let parts = calls_in(text, "p").unwrap();
        let Part::ToolCall { arguments, .. } = &parts[0] else {
            panic!()
        };
        assert_eq!(
            arguments.value(),
            json!({"path": "a.html", "content": "<p>x</p>"})
        );
        assert!(calls_in("<read_file>\n<path>a", "p").is_none());
        assert!(calls_in("a <b>bold</b> answer", "p").is_none());
    }

    #[test]
    fn headers_name_their_tool() {
        assert_eq!(header("[read_file for 'a.py'] Result:"), Some("read_file"));
        assert_eq!(
            header("[attempt_completion] Result:"),
            Some("attempt_completion")
        );
        assert_eq!(header("[read_file_x for 'a'] Result:"), None);
        assert_eq!(header("[read_file for 'a.py']"), None);
    }
}
