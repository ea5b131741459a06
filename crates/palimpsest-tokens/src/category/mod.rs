//! The one rule that splits a session into counted pieces and puts each in a category.
//!
//! Every part of every message becomes one or more [`Piece`]s: a text to count, the category it
//! falls in and, for tool traffic, the tool it belongs to. A tool call is split so that a
//! whole-file write body (`file_text`, `content`, apply_patch `*** Add File` sections) counts as
//! a file write, an edit body (old/new strings, patches, diffs) as an edit, and the rest of the
//! arguments as tool-call arguments. A tool result finds its tool through its call id. Counting,
//! caching and the views built on these pieces live in the sibling modules.

use std::borrow::Cow;
use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::model::{Arguments, MessageKind, Part, Role, Session};

mod text;
pub use text::PieceText;

use super::cache::Key;

/// Where a counted piece of context belongs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "snake_case")]
pub enum Category {
    /// System and developer instructions.
    System,
    /// What the user typed (and preserved copies of it).
    UserText,
    /// The model's visible replies.
    AssistantText,
    /// Model reasoning.
    Thinking,
    /// Tool-call arguments other than write and edit bodies (and the tool's name).
    ToolCallArguments,
    /// Whole-file write bodies: goose `text_editor` write, `write_file`, Claude `Write`,
    /// apply_patch added files.
    FileWrites,
    /// Edit bodies: str_replace / `Edit` / `MultiEdit` strings, patches and diffs.
    Edits,
    /// Tool results.
    ToolResults,
    /// Compaction summaries, continuation notes and tool-pair summaries.
    Summaries,
    /// Anything else (notices, unmodelled parts, images).
    Other,
}

impl Category {
    /// Every category, in the order views list them.
    pub const ALL: [Category; 10] = [
        Category::System,
        Category::UserText,
        Category::AssistantText,
        Category::Thinking,
        Category::ToolCallArguments,
        Category::FileWrites,
        Category::Edits,
        Category::ToolResults,
        Category::Summaries,
        Category::Other,
    ];

    /// Position in [`Category::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// The stable JSON name.
    pub fn as_str(self) -> &'static str {
        match self {
            Category::System => "system",
            Category::UserText => "user_text",
            Category::AssistantText => "assistant_text",
            Category::Thinking => "thinking",
            Category::ToolCallArguments => "tool_call_arguments",
            Category::FileWrites => "file_writes",
            Category::Edits => "edits",
            Category::ToolResults => "tool_results",
            Category::Summaries => "summaries",
            Category::Other => "other",
        }
    }

    /// The label charts and tables show.
    pub fn label(self) -> &'static str {
        match self {
            Category::System => "System / instructions",
            Category::UserText => "User text",
            Category::AssistantText => "Assistant text",
            Category::Thinking => "Thinking",
            Category::ToolCallArguments => "Tool-call arguments",
            Category::FileWrites => "Whole-file writes",
            Category::Edits => "Edit bodies",
            Category::ToolResults => "Tool results",
            Category::Summaries => "Summaries / compaction",
            Category::Other => "Other",
        }
    }
}

/// What a tool does, as far as its name (and goose `text_editor`'s command) tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "snake_case")]
pub enum ToolKind {
    /// Runs commands.
    Shell,
    /// Reads a file.
    FileRead,
    /// Writes a whole file.
    FileWrite,
    /// Edits part of a file.
    Edit,
    /// Searches or lists files.
    Search,
    /// Fetches or searches the web.
    Web,
    /// Starts a sub-agent.
    Agent,
    /// An MCP or extension tool whose verb reads (`mcp__linear__list_issues`).
    McpLook,
    /// An MCP or extension tool whose verb changes something (`mcp__linear__update_issue`).
    McpChange,
    /// Anything else.
    Other,
}

/// Classify a tool by name; goose's `ext__` prefix is ignored and `text_editor` is decided by
/// its `command` argument.
pub fn tool_kind(name: &str, arguments: &Arguments) -> ToolKind {
    let base = name
        .rsplit("__")
        .next()
        .unwrap_or(name)
        .to_ascii_lowercase();
    match base.as_str() {
        "text_editor" | "str_replace_editor" | "str_replace_based_edit_tool" => {
            match arguments.str_of("command").as_deref() {
                Some("write" | "create") => ToolKind::FileWrite,
                Some("view") => ToolKind::FileRead,
                Some(_) => ToolKind::Edit,
                None => ToolKind::Other,
            }
        }
        "shell" | "bash" | "exec_command" | "shell_command" | "local_shell" | "run_shell"
        | "run_command" | "write_stdin" | "bashoutput" | "killshell" => ToolKind::Shell,
        "read" | "read_file" | "view" | "notebookread" | "read_many_files" => ToolKind::FileRead,
        "write" | "write_file" | "create_file" => ToolKind::FileWrite,
        "edit" | "multiedit" | "replace_in_file" | "apply_patch" | "apply_unified_diff"
        | "notebookedit" | "str_replace" | "edit_file" => ToolKind::Edit,
        "grep" | "glob" | "search" | "rg" | "find" | "ls" | "list_files" | "list_directory"
        | "search_files" | "file_search" | "tree" => ToolKind::Search,
        "webfetch" | "websearch" | "web_search" | "web_fetch" | "fetch" | "browse" => ToolKind::Web,
        "task" | "agent" | "subagent" | "spawn_agent" | "delegate" => ToolKind::Agent,
        // A server's tool: its verb says which ([`crate::analysis::verbs`]).
        _ if crate::tool::split_name(name).0.is_some() => match crate::tool::verb(name) {
            crate::tool::Verb::Look => ToolKind::McpLook,
            crate::tool::Verb::Change => ToolKind::McpChange,
            crate::tool::Verb::Unknown => ToolKind::Other,
        },
        _ => ToolKind::Other,
    }
}

/// Argument keys holding a whole file's text in write tools.
const WRITE_BODY_KEYS: &[&str] = &["file_text", "content", "contents"];
/// Argument keys holding the replaced/inserted text, patch or diff in edit tools.
const EDIT_BODY_KEYS: &[&str] = &[
    "old_str",
    "new_str",
    "old_string",
    "new_string",
    "old_text",
    "new_text",
    "insert_text",
    "edits",
    "patch",
    "input",
    "diff",
    "unified_diff",
    "search",
    "replace",
    "replacement",
    "new_source",
];

/// One piece of a message to count.
#[derive(Debug, Clone, PartialEq)]
pub struct Piece<'a> {
    /// The message's index.
    pub message_index: usize,
    /// The part's position in the message.
    pub part_index: usize,
    /// Where it belongs.
    pub category: Category,
    /// The tool, for tool calls, bodies and results (None when a result's call is unknown).
    pub tool: Option<&'a str>,
    /// What the tool does.
    pub tool_kind: Option<ToolKind>,
    /// The text counted: as the model saw or wrote it (arguments as JSON).
    pub text: PieceText<'a>,
}

/// Split every message of `session` into categorised pieces, in stored order.
pub fn pieces(session: &Session) -> Vec<Piece<'_>> {
    pieces_from(session, 0)
}

/// The pieces of the messages from position `from` on. A result is attributed to its call
/// wherever that call is; only the calls answered among these messages are looked at (a
/// tool's kind may need its arguments unpacked).
pub fn pieces_from(session: &Session, from: usize) -> Vec<Piece<'_>> {
    let later = session.messages.get(from..).unwrap_or_default();
    let answered: std::collections::HashSet<&str> = later
        .iter()
        .flat_map(|m| &m.parts)
        .filter_map(|p| match p {
            Part::ToolResult { call_id, .. } => Some(call_id.as_str()),
            _ => None,
        })
        .collect();
    let mut calls: HashMap<&str, (&str, ToolKind)> = HashMap::new();
    for m in &session.messages {
        for p in &m.parts {
            if let Part::ToolCall {
                id,
                name,
                arguments,
            } = p
                && answered.contains(id.as_str())
            {
                calls.insert(id, (name, tool_kind(name, arguments)));
            }
        }
    }
    let mut out = Vec::new();
    for m in later {
        let summary = matches!(
            m.kind,
            MessageKind::Summary | MessageKind::Continuation | MessageKind::ToolSummary
        );
        for (pi, p) in m.parts.iter().enumerate() {
            for (category, tool, tool_kind, text) in part_pieces(m.kind, m.role, p, &calls) {
                out.push(Piece {
                    message_index: m.index,
                    part_index: pi,
                    category: if summary {
                        Category::Summaries
                    } else {
                        category
                    },
                    tool,
                    tool_kind,
                    text,
                });
            }
        }
    }
    out
}

type RawPiece<'a> = (Category, Option<&'a str>, Option<ToolKind>, PieceText<'a>);

/// The pieces of one part, before the message kind overrides the category.
fn part_pieces<'a>(
    kind: MessageKind,
    role: Role,
    part: &'a Part,
    calls: &HashMap<&'a str, (&'a str, ToolKind)>,
) -> Vec<RawPiece<'a>> {
    match part {
        Part::Text { text } => {
            let category = match (kind, role) {
                (MessageKind::Notification, _) => Category::Other,
                (_, Role::System) => Category::System,
                (_, Role::User) => Category::UserText,
                (_, Role::Assistant) => Category::AssistantText,
                (_, Role::Tool) => Category::ToolResults,
            };
            vec![(category, None, None, PieceText::Text(Cow::Borrowed(text)))]
        }
        Part::Thinking { text, .. } => {
            vec![(
                Category::Thinking,
                None,
                None,
                PieceText::Text(Cow::Borrowed(text)),
            )]
        }
        Part::ToolCall {
            name, arguments, ..
        } => {
            let tk = tool_kind(name, arguments);
            split_arguments(name, tk, arguments)
                .into_iter()
                .enumerate()
                .map(|(which, (c, t))| {
                    let text = match t {
                        Cow::Owned(made) if made.len() > text::MADE_KEPT => PieceText::Call {
                            name,
                            kind: tk,
                            arguments,
                            which,
                            key: Key::of(&made),
                        },
                        t => PieceText::Text(t),
                    };
                    (c, Some(name.as_str()), Some(tk), text)
                })
                .collect()
        }
        Part::ToolResult { call_id, text, .. } => {
            let (tool, tk) = match calls.get(call_id.as_str()) {
                Some(&(name, tk)) => (Some(name), Some(tk)),
                None => (None, None),
            };
            vec![(Category::ToolResults, tool, tk, PieceText::Body(text))]
        }
        // Image tokens depend on pixel sizes the transcript does not keep: counted as 0.
        Part::Image { .. } => vec![(
            Category::Other,
            None,
            None,
            PieceText::Text(Cow::Borrowed("")),
        )],
        Part::Other { raw, .. } => vec![(
            Category::Other,
            None,
            None,
            match raw.to_string() {
                made if made.len() > text::MADE_KEPT => PieceText::Json(raw, Key::of(&made)),
                made => PieceText::Text(Cow::Owned(made)),
            },
        )],
    }
}

/// [`split_call`] of arguments as held: they are made a value for it, so every piece is owned.
pub fn split_arguments<'a>(
    name: &'a str,
    kind: ToolKind,
    arguments: &Arguments,
) -> Vec<(Category, Cow<'a, str>)> {
    split_call(name, kind, &arguments.value())
        .into_iter()
        .map(|(c, t)| (c, Cow::Owned(t.into_owned())))
        .collect()
}

/// The pieces of one tool call: the name plus the remaining arguments as JSON, then the write
/// or edit bodies. Free-text arguments (Codex custom tools) are the body as written.
pub fn split_call<'a>(
    name: &'a str,
    kind: ToolKind,
    arguments: &'a Value,
) -> Vec<(Category, Cow<'a, str>)> {
    let body_keys: &[&str] = match kind {
        ToolKind::FileWrite => WRITE_BODY_KEYS,
        ToolKind::Edit => EDIT_BODY_KEYS,
        _ => &[],
    };
    let patch_tool = name.rsplit("__").next().unwrap_or(name) == "apply_patch";
    let mut out = Vec::new();
    match arguments {
        Value::String(s) if kind == ToolKind::Edit || kind == ToolKind::FileWrite => {
            out.push((Category::ToolCallArguments, Cow::Borrowed(name)));
            push_body(&mut out, kind, patch_tool, s, Cow::Borrowed(s.as_str()));
        }
        Value::Object(map) if !body_keys.is_empty() => {
            let mut rest = map.clone();
            let mut bodies = Vec::new();
            for key in body_keys {
                if let Some(v) = rest.remove(*key) {
                    bodies.push(v);
                }
            }
            out.push((
                Category::ToolCallArguments,
                Cow::Owned(format!("{name}{}", Value::Object(rest))),
            ));
            for v in bodies {
                let json = v.to_string();
                match v {
                    Value::String(raw) => {
                        push_body(&mut out, kind, patch_tool, &raw, Cow::Owned(json))
                    }
                    _ => push_body(&mut out, kind, false, "", Cow::Owned(json)),
                }
            }
        }
        _ => out.push((
            Category::ToolCallArguments,
            Cow::Owned(format!("{name}{arguments}")),
        )),
    }
    out
}

/// Push a body; an apply_patch body is split so `*** Add File` sections count as writes.
fn push_body<'a>(
    out: &mut Vec<(Category, Cow<'a, str>)>,
    kind: ToolKind,
    patch_tool: bool,
    raw: &str,
    counted: Cow<'a, str>,
) {
    let own = if kind == ToolKind::FileWrite {
        Category::FileWrites
    } else {
        Category::Edits
    };
    if !patch_tool || !raw.contains("*** Add File:") {
        out.push((own, counted));
        return;
    }
    // Count the patch as written (raw); only the JSON quoting differs and it is tiny.
    let (added, edited) = split_patch(raw);
    if !added.is_empty() {
        out.push((Category::FileWrites, Cow::Owned(added)));
    }
    if !edited.is_empty() {
        out.push((Category::Edits, Cow::Owned(edited)));
    }
}

/// Split an apply_patch envelope into the lines of added files and everything else.
pub fn split_patch(patch: &str) -> (String, String) {
    let mut added = String::new();
    let mut edited = String::new();
    let mut in_add = false;
    for line in patch.split_inclusive('\n') {
        if line.starts_with("*** ") {
            in_add = line.starts_with("*** Add File:");
        }
        if in_add {
            added.push_str(line);
        } else {
            edited.push_str(line);
        }
    }
    (added, edited)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn goose_text_editor_is_decided_by_command() {
        let cases = [
            (
                "developer__text_editor",
                json!({"command": "write"}),
                ToolKind::FileWrite,
            ),
            (
                "text_editor",
                json!({"command": "str_replace"}),
                ToolKind::Edit,
            ),
            (
                "text_editor",
                json!({"command": "view"}),
                ToolKind::FileRead,
            ),
            (
                "developer__shell",
                json!({"command": "ls"}),
                ToolKind::Shell,
            ),
            ("Write", json!({}), ToolKind::FileWrite),
            ("MultiEdit", json!({}), ToolKind::Edit),
            ("Grep", json!({}), ToolKind::Search),
            ("exec_command", json!({}), ToolKind::Shell),
            ("apply_unified_diff", json!({}), ToolKind::Edit),
            ("read_file", json!({}), ToolKind::FileRead),
            ("mcp__linear__update_issue", json!({}), ToolKind::McpChange),
            ("mcp__linear__list_issues", json!({}), ToolKind::McpLook),
            ("mcp__linear__frobnicate", json!({}), ToolKind::Other),
        ];
        for (name, args, want) in cases {
            assert_eq!(tool_kind(name, &args.clone().into()), want, "{name} {args}");
        }
    }

    #[test]
    fn write_body_is_split_from_the_other_arguments() {
        let args = json!({"path": "a.py", "content": "print(1)\n"});
        let pieces = split_call("write_file", ToolKind::FileWrite, &args);
        assert_eq!(
            pieces,
            vec![
                (
                    Category::ToolCallArguments,
                    Cow::Borrowed("write_file{\"path\":\"a.py\"}")
                ),
                (Category::FileWrites, Cow::Borrowed("\"print(1)\\n\"")),
            ],
            "content goes to writes (as JSON, the way the model wrote it), the path stays an argument"
        );
    }

    #[test]
    fn apply_patch_added_files_are_writes() {
        let patch = "*** Begin Patch\n*** Add File: n.txt\n+hello\n*** Update File: o.txt\n@@\n-a\n+b\n*** End Patch\n";
        let (added, edited) = split_patch(patch);
        assert_eq!(
            added, "*** Add File: n.txt\n+hello\n",
            "the added file's section"
        );
        assert_eq!(
            edited, "*** Begin Patch\n*** Update File: o.txt\n@@\n-a\n+b\n*** End Patch\n",
            "everything else is an edit"
        );
    }
}
