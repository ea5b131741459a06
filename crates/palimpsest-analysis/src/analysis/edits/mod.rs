//! What an edit call changes, as line diffs per file, for the inspector and `show --message`:
//! Claude `Edit`/`MultiEdit`/`Write`, goose and Anthropic `text_editor` (`str_replace`,
//! `insert`, `write`/`create`), Cline `replace_in_file` (SEARCH/REPLACE blocks), and patches in
//! Codex's `*** Begin Patch` format or unified diffs wherever a call carries one (`apply_patch`,
//! Codex `shell` given `["apply_patch", PATCH]`, a heredoc). Patches are parsed here; the
//! diff of an old and a new string is `similar`'s.
//!
//! A transcript holds the replaced text, not the file, so hunks are numbered within the edit,
//! never as file line numbers. Which calls read or write which file is [`super::reads`].

mod patch;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use similar::{ChangeTag, TextDiff};

use super::calls::{arg_str, normalise_tool};
use crate::model::{Message, Part};

/// Lines of context kept around each change of a string diff (as `diff -U3`).
const CONTEXT: usize = 3;

/// What an edit does to its file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "snake_case")]
pub enum EditOp {
    /// Replaces or inserts text in an existing file.
    Edit,
    /// Writes the whole file (created or overwritten).
    Write,
    /// Deletes the file.
    Delete,
}

/// One line of a hunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "snake_case")]
pub enum LineOp {
    /// Unchanged, shown for context.
    Context,
    /// Added by the edit.
    Add,
    /// Removed by the edit.
    Remove,
}

/// One line of a diff, without its `+`/`-`/` ` sign or line end.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct DiffLine {
    /// Context, added or removed.
    pub op: LineOp,
    /// The line's text.
    pub text: String,
}

/// A run of changed lines with their context.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Hunk {
    /// What the edit says of this hunk: a patch's `@@` context, "edit 2 of 3", "block 1".
    pub header: Option<String>,
    /// Its lines, in order.
    pub lines: Vec<DiffLine>,
}

/// The change one tool call makes to one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct EditDiff {
    /// The tool call's part index in its message.
    pub part: usize,
    /// The tool's name as called.
    pub tool: String,
    /// The file, as the call names it.
    pub path: String,
    /// Where a patch moves the file to (`*** Move to:`).
    pub moved_to: Option<String>,
    /// Edit, whole-file write or delete.
    pub op: EditOp,
    /// The changes, in order.
    pub hunks: Vec<Hunk>,
    /// Lines added over every hunk.
    pub added: u32,
    /// Lines removed over every hunk.
    pub removed: u32,
}

/// Every edit the message's tool calls make, in part order.
pub fn of_message(m: &Message) -> Vec<EditDiff> {
    let mut out = Vec::new();
    for (i, p) in m.parts.iter().enumerate() {
        if let Part::ToolCall {
            name, arguments, ..
        } = p
        {
            out.extend(of_call(name, &arguments.value()).into_iter().map(|mut d| {
                d.part = i;
                d
            }));
        }
    }
    out
}

/// The edits one call makes (`part` left 0 for the caller to set).
pub fn of_call(name: &str, args: &Value) -> Vec<EditDiff> {
    let tool = normalise_tool(name);
    let path = arg_str(
        args,
        &[
            "file_path",
            "filePath",
            "path",
            "filepath",
            "target_file",
            "notebook_path",
        ],
    )
    .unwrap_or("")
    .to_owned();
    let one = |op, hunks: Vec<Hunk>| vec![diff(name, path.clone(), op, hunks)];
    match tool.as_str() {
        "edit" | "str_replace" => match old_new(args, &["old_string", "old_str", "oldString"]) {
            Some((old, new)) => one(EditOp::Edit, string_hunks(old, new, None)),
            None => patch_in(name, args),
        },
        "multiedit" | "multi_edit" => {
            let edits = args.get("edits").and_then(Value::as_array);
            let n = edits.map_or(0, Vec::len);
            let hunks = edits
                .into_iter()
                .flatten()
                .enumerate()
                .filter_map(|(i, e)| {
                    let (old, new) = old_new(e, &["old_string", "old_str", "oldString"])?;
                    Some(string_hunks(
                        old,
                        new,
                        Some(format!("edit {} of {n}", i + 1)),
                    ))
                })
                .flatten()
                .collect();
            one(EditOp::Edit, hunks)
        }
        "write" | "write_file" | "create_file" => match arg_str(args, &["content", "file_text"]) {
            Some(text) => one(EditOp::Write, string_hunks("", text, None)),
            None => Vec::new(),
        },
        "text_editor" | "str_replace_editor" | "str_replace_based_edit_tool" => {
            match arg_str(args, &["command"]).unwrap_or("") {
                "str_replace" => match old_new(args, &["old_str"]) {
                    Some((old, new)) => one(EditOp::Edit, string_hunks(old, new, None)),
                    None => Vec::new(),
                },
                "insert" => {
                    let new = arg_str(args, &["new_str", "insert_text"]).unwrap_or("");
                    let at = args.get("insert_line").and_then(Value::as_u64);
                    let header = at.map(|l| format!("after line {l}"));
                    one(EditOp::Edit, string_hunks("", new, header))
                }
                "write" | "create" => match arg_str(args, &["file_text"]) {
                    Some(text) => one(EditOp::Write, string_hunks("", text, None)),
                    None => Vec::new(),
                },
                _ => Vec::new(),
            }
        }
        "replace_in_file" => match arg_str(args, &["diff"]) {
            Some(text) => one(EditOp::Edit, search_replace(text)),
            None => Vec::new(),
        },
        _ => patch_in(name, args),
    }
}

fn diff(tool: &str, path: String, op: EditOp, hunks: Vec<Hunk>) -> EditDiff {
    let count = |want| {
        let n = hunks
            .iter()
            .flat_map(|h| &h.lines)
            .filter(|l| l.op == want)
            .count();
        u32::try_from(n).unwrap_or(u32::MAX)
    };
    EditDiff {
        part: 0,
        tool: tool.to_owned(),
        path,
        moved_to: None,
        op,
        added: count(LineOp::Add),
        removed: count(LineOp::Remove),
        hunks,
    }
}

/// `old` and `new` under the first of `old_keys` and its `new_` twin; `new` may be empty.
fn old_new<'v>(args: &'v Value, old_keys: &[&str]) -> Option<(&'v str, &'v str)> {
    old_keys.iter().find_map(|k| {
        let old = args.get(*k)?.as_str()?;
        let new_key = k.replacen("old", "new", 1);
        let new = args
            .get(new_key.as_str())
            .and_then(Value::as_str)
            .unwrap_or("");
        Some((old, new))
    })
}

/// The line diff of `old` → `new`, in hunks with [`CONTEXT`] lines around each change. The
/// first hunk carries `header`.
fn string_hunks(old: &str, new: &str, header: Option<String>) -> Vec<Hunk> {
    let d = TextDiff::from_lines(old, new);
    let mut hunks: Vec<Hunk> = d
        .grouped_ops(CONTEXT)
        .iter()
        .map(|group| Hunk {
            header: None,
            lines: group
                .iter()
                .flat_map(|op| d.iter_changes(op))
                .map(|c| DiffLine {
                    op: match c.tag() {
                        ChangeTag::Equal => LineOp::Context,
                        ChangeTag::Insert => LineOp::Add,
                        ChangeTag::Delete => LineOp::Remove,
                    },
                    text: strip_eol(c.value()).to_owned(),
                })
                .collect(),
        })
        .collect();
    if hunks.is_empty() && header.is_some() {
        // An edit that changes nothing still shows that it was made.
        hunks.push(Hunk {
            header: None,
            lines: Vec::new(),
        });
    }
    if let Some(h) = hunks.first_mut() {
        h.header = header;
    }
    hunks
}

fn strip_eol(s: &str) -> &str {
    let s = s.strip_suffix('\n').unwrap_or(s);
    s.strip_suffix('\r').unwrap_or(s)
}

/// Cline's SEARCH/REPLACE blocks (`------- SEARCH` / `=======` / `+++++++ REPLACE`, or the
/// older `<<<<<<< SEARCH` / `>>>>>>> REPLACE`), each diffed as old → new.
fn search_replace(text: &str) -> Vec<Hunk> {
    #[derive(PartialEq)]
    enum At {
        Outside,
        Search,
        Replace,
    }
    let mut at = At::Outside;
    let (mut old, mut new) = (String::new(), String::new());
    let mut hunks = Vec::new();
    let mut block = 0;
    for line in text.lines() {
        let t = line.trim_end();
        let marker = |c: char, word: &str| {
            t.ends_with(word) && t.trim_end_matches(word).trim_end().chars().all(|x| x == c)
        };
        if at == At::Outside && (marker('-', "SEARCH") || marker('<', "SEARCH")) {
            at = At::Search;
        } else if at == At::Search && !t.is_empty() && t.chars().all(|c| c == '=') {
            at = At::Replace;
        } else if at == At::Replace && (marker('+', "REPLACE") || marker('>', "REPLACE")) {
            block += 1;
            hunks.extend(string_hunks(&old, &new, Some(format!("block {block}"))));
            old.clear();
            new.clear();
            at = At::Outside;
        } else if at == At::Search {
            old.push_str(line);
            old.push('\n');
        } else if at == At::Replace {
            new.push_str(line);
            new.push('\n');
        }
    }
    hunks
}

/// The patch a call carries anywhere in its arguments: a string holding `*** Begin Patch`, or a
/// unified diff (`--- `/`+++ ` then `@@`), one diff per file it names.
fn patch_in(tool: &str, args: &Value) -> Vec<EditDiff> {
    let mut found = None;
    strings(args, &mut |s| {
        if found.is_none()
            && (s.contains("*** Begin Patch") || (s.contains("\n+++ ") && s.contains("\n@@")))
        {
            found = Some(s);
        }
    });
    found.map_or_else(Vec::new, |p| patch::parse(tool, p))
}

/// Every string in `v`, depth first.
fn strings<'v>(v: &'v Value, f: &mut impl FnMut(&'v str)) {
    match v {
        Value::String(s) => f(s),
        Value::Array(a) => a.iter().for_each(|x| strings(x, f)),
        Value::Object(o) => o.values().for_each(|x| strings(x, f)),
        _ => {}
    }
}

/// Builds a diff for [`super::patch`], which knows only lines.
pub(super) fn patch_diff(
    tool: &str,
    path: String,
    moved_to: Option<String>,
    op: EditOp,
    hunks: Vec<Hunk>,
) -> EditDiff {
    let mut d = diff(tool, path, op, hunks);
    d.moved_to = moved_to;
    d
}

#[cfg(test)]
mod tests;
