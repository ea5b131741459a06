//! What a tool call did to files (read, wrote, only looked), across tools and formats, and the
//! re-reads that follow: a read of a file already read with no write to it since.
//!
//! Recognised reads: shell `cat`/`head`/`tail`/`sed`/`less`/`nl`/`bat` (goose `shell`, Claude
//! `Bash`, coworker `run_shell`, Codex `shell`/`exec_command` argv arrays), goose `text_editor`
//! `view`, `read_file`, Claude `Read`. Writes: `text_editor` write/create/str_replace/insert,
//! `write_file`, `replace_in_file`, `apply_patch`, Claude `Write`/`Edit`, shell redirects,
//! `sed -i`, `tee`, `cp`/`mv` targets. Whether an earlier read was still in the model's view is
//! decided with the compactions (`cuts`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::calls::{Call, arg_str, shell_command};
use super::cuts::Cut;
use super::paths::{join, normalise};
use super::shell::split;

/// What a call did to one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AccessKind {
    /// Its content came back to the model.
    Read,
    /// It was created, edited or deleted.
    Write,
}

/// One file a call touched, by its session key (see [`super::paths::normalise`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileAccess {
    /// Read or write.
    pub kind: AccessKind,
    /// Normalised path.
    pub path: String,
}

/// The classification of one call.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CallClass {
    /// Files read and written, in command order.
    pub accesses: Vec<FileAccess>,
    /// The call only looks (cat/ls/find/grep/rg/read/glob/head/tail/tree/wc and kin).
    pub look_only: bool,
}

impl CallClass {
    /// True when the call wrote any file.
    pub fn writes(&self) -> bool {
        self.accesses.iter().any(|a| a.kind == AccessKind::Write)
    }
}

/// Tools whose arguments hold a shell command line.
const SHELL_TOOLS: &[&str] = &[
    "shell",
    "bash",
    "run_shell",
    "exec_command",
    "shell_command",
    "local_shell",
    "exec",
    "execute",
    "run_command",
    "run_terminal_cmd",
    "terminal",
    "execute_command",
];
/// Tools that read one file named by a path argument.
const READ_TOOLS: &[&str] = &[
    "read",
    "read_file",
    "view_file",
    "open_file",
    "readfile",
    "cat",
];
/// Tools that write one file named by a path argument.
const WRITE_TOOLS: &[&str] = &[
    "write",
    "write_file",
    "create_file",
    "edit",
    "multiedit",
    "edit_file",
    "replace_in_file",
    "str_replace",
    "notebookedit",
    "apply_unified_diff",
    "append_file",
    "append_to_file",
    "insert",
    "delete_file",
];
/// Tools that only look around without naming a file whose content comes back.
const LOOK_TOOLS: &[&str] = &[
    "glob",
    "grep",
    "ls",
    "list_dir",
    "list_directory",
    "list_files",
    "find",
    "search",
    "rg",
    "tree",
    "search_files",
    "file_search",
    "codebase_search",
    "find_files",
];
/// Shell programs that only look.
const LOOK_PROGRAMS: &[&str] = &[
    "cat", "ls", "find", "grep", "egrep", "fgrep", "rg", "ag", "head", "tail", "tree", "wc", "sed",
    "less", "more", "nl", "bat", "batcat", "fd", "pwd", "cd", "file", "stat", "du", "sort", "uniq",
    "cut", "column", "tr", "tac",
];
/// Shell programs that print the files they are given.
const READ_PROGRAMS: &[&str] = &[
    "cat", "head", "tail", "sed", "less", "more", "nl", "bat", "batcat", "tac",
];
const PATH_KEYS: &[&str] = &[
    "path",
    "file_path",
    "filePath",
    "filename",
    "file",
    "target_file",
    "notebook_path",
];

/// Classify one call. `working_dir` is the session's.
pub fn classify(call: &Call, working_dir: Option<&str>) -> CallClass {
    let tool = call.tool.as_str();
    let args = call.arguments;
    let key = |p: &str, cwd: &str| normalise(p, cwd, working_dir);
    let mut class = CallClass::default();
    if SHELL_TOOLS.contains(&tool) {
        if let Some((line, workdir)) = shell_command(args) {
            let cwd = workdir.map(|w| key(&w, ".")).unwrap_or_else(|| ".".into());
            classify_shell(&line, &cwd, working_dir, &mut class);
        }
    } else if matches!(
        tool,
        "text_editor" | "str_replace_editor" | "str_replace_based_edit_tool"
    ) {
        let command = arg_str(args, &["command"]).unwrap_or("");
        if let Some(p) = arg_str(args, PATH_KEYS) {
            let kind = if command == "view" {
                AccessKind::Read
            } else {
                AccessKind::Write
            };
            class.accesses.push(FileAccess {
                kind,
                path: key(p, "."),
            });
            class.look_only = command == "view";
        }
    } else if tool == "apply_patch" || tool == "patch" {
        let text = arg_str(args, &["input", "patch", "diff"])
            .or(args.as_str())
            .unwrap_or("");
        for p in patch_paths(text) {
            class.accesses.push(FileAccess {
                kind: AccessKind::Write,
                path: key(&p, "."),
            });
        }
    } else if READ_TOOLS.contains(&tool) {
        if let Some(p) = arg_str(args, PATH_KEYS) {
            class.accesses.push(FileAccess {
                kind: AccessKind::Read,
                path: key(p, "."),
            });
        }
        class.look_only = true;
    } else if WRITE_TOOLS.contains(&tool) {
        if let Some(p) = arg_str(args, PATH_KEYS) {
            class.accesses.push(FileAccess {
                kind: AccessKind::Write,
                path: key(p, "."),
            });
        }
        if let Some(edits) = args.get("edits").and_then(Value::as_array) {
            for e in edits {
                if let Some(p) = arg_str(e, PATH_KEYS) {
                    class.accesses.push(FileAccess {
                        kind: AccessKind::Write,
                        path: key(p, "."),
                    });
                }
            }
        }
    } else if LOOK_TOOLS.contains(&tool) {
        class.look_only = true;
    }
    class
}

fn classify_shell(line: &str, start_cwd: &str, working_dir: Option<&str>, class: &mut CallClass) {
    let cmds = split(line);
    let mut cwd = start_cwd.to_owned();
    let mut look_only = !cmds.is_empty();
    for c in &cmds {
        let prog = c.program();
        let key = |p: &str, cwd: &str| normalise(p, cwd, working_dir);
        let (prog, words) = strip_wrappers(prog, &c.words);
        if prog == "cd" {
            let target = words.get(1).map(String::as_str).unwrap_or("~");
            cwd = join(&cwd, target);
            continue;
        }
        let in_place = prog == "sed"
            && words
                .iter()
                .any(|w| w.starts_with("-i") || w == "--in-place");
        if !LOOK_PROGRAMS.contains(&prog) || in_place || !c.writes_to.is_empty() {
            look_only = false;
        }
        for w in &c.writes_to {
            class.accesses.push(FileAccess {
                kind: AccessKind::Write,
                path: key(w, &cwd),
            });
        }
        let files = operands(prog, words);
        let kind = if in_place || prog == "tee" || prog == "touch" || prog == "rm" {
            Some(AccessKind::Write)
        } else if READ_PROGRAMS.contains(&prog) {
            Some(AccessKind::Read)
        } else if matches!(prog, "cp" | "mv") {
            if let Some(dst) = files.last() {
                class.accesses.push(FileAccess {
                    kind: AccessKind::Write,
                    path: key(dst, &cwd),
                });
            }
            None
        } else {
            None
        };
        if let Some(kind) = kind {
            for f in files {
                class.accesses.push(FileAccess {
                    kind,
                    path: key(f, &cwd),
                });
            }
        }
    }
    class.look_only = look_only;
}

/// Drop command prefixes that run the rest (`sudo cat x` is `cat x`).
fn strip_wrappers<'w>(prog: &'w str, words: &'w [String]) -> (&'w str, &'w [String]) {
    let mut words = words;
    let mut prog = prog;
    while matches!(prog, "sudo" | "env" | "time" | "command" | "nohup" | "exec") && words.len() > 1
    {
        words = &words[1..];
        prog = words[0].rsplit('/').next().unwrap_or(&words[0]);
    }
    (prog, words)
}

/// The file operands of a read/write program: its words minus options and option values.
fn operands<'w>(prog: &str, words: &'w [String]) -> Vec<&'w str> {
    let mut out = Vec::new();
    let mut script_seen = prog != "sed";
    let mut i = 1;
    while i < words.len() {
        let w = words[i].as_str();
        i += 1;
        if w == "--" {
            out.extend(words[i..].iter().map(String::as_str));
            break;
        }
        if w.starts_with('-') && w.len() > 1 {
            let takes_value = match prog {
                "head" | "tail" => matches!(w, "-n" | "-c" | "--lines" | "--bytes"),
                "sed" => matches!(w, "-e" | "-f" | "--expression" | "--file"),
                "cp" | "mv" => matches!(w, "-t" | "-S"),
                _ => false,
            };
            if prog == "sed" && matches!(w, "-e" | "-f") {
                script_seen = true;
            }
            if takes_value {
                i += 1;
            }
            continue;
        }
        if prog == "sed" && !script_seen {
            script_seen = true;
            continue;
        }
        if prog == "tail" && w.starts_with('+') {
            continue;
        }
        out.push(w);
    }
    out.retain(|w| !w.is_empty() && *w != "-" && !w.starts_with("/dev/"));
    out
}

/// Paths named by a patch: `*** Update File: x` (apply_patch) or `+++ b/x` (unified diff).
fn patch_paths(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in text.lines() {
        let p = [
            "*** Update File: ",
            "*** Add File: ",
            "*** Delete File: ",
            "*** Move to: ",
        ]
        .iter()
        .find_map(|pre| line.strip_prefix(pre))
        .or_else(|| {
            line.strip_prefix("+++ ")
                .map(|p| p.split('\t').next().unwrap_or(p))
                .filter(|p| *p != "/dev/null")
                .map(|p| p.strip_prefix("b/").unwrap_or(p))
        });
        if let Some(p) = p.map(str::trim).filter(|p| !p.is_empty())
            && !out.iter().any(|o| o == p)
        {
            out.push(p.to_owned());
        }
    }
    out
}

/// Reads of one file over the session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct FileReads {
    /// The file, relative to the working dir when inside it.
    pub path: String,
    /// Successful reads.
    pub reads: usize,
    /// Reads of it already read with no write since.
    pub rereads: usize,
    /// Re-reads whose earlier read a compaction had dropped from the model's view.
    pub after_compaction: usize,
    /// Re-reads while the earlier read was still visible: pure waste.
    pub while_visible: usize,
    /// Tokens of the re-reads' results.
    pub tokens: usize,
    /// Message indices of the calls that read it.
    pub read_messages: Vec<usize>,
    /// Message indices of the calls that re-read it.
    pub reread_messages: Vec<usize>,
    /// 1-based numbers of the compactions that dropped an earlier read of it.
    pub compactions: Vec<usize>,
}

/// One re-read, with the read it repeats.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Reread {
    /// The file.
    pub path: String,
    /// Message index of the re-reading call.
    pub call_index: usize,
    /// Message index of its result.
    pub result_index: Option<usize>,
    /// Message index of the earlier read's call.
    pub previous_index: usize,
    /// The compaction (1-based) that dropped the earlier read, when one did.
    pub after_compaction: Option<usize>,
    /// Tokens of the result.
    pub tokens: usize,
}

/// Find re-reads. `classes[i]` classifies `calls[i]`.
pub(crate) fn rereads(
    calls: &[Call],
    classes: &[CallClass],
    cuts: &[Cut],
    count: &dyn Fn(&str) -> usize,
) -> (Vec<FileReads>, Vec<Reread>) {
    // path → (last successful read: call idx, message idx of its content)
    let mut last_read: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut files: BTreeMap<String, FileReads> = BTreeMap::new();
    let mut events = Vec::new();
    for (call, class) in calls.iter().zip(classes) {
        for a in &class.accesses {
            if a.kind == AccessKind::Write {
                last_read.remove(&a.path);
                continue;
            }
            // A failed read (missing file, denied) gave the model nothing to remember.
            if call.is_error || call.result.is_none() {
                continue;
            }
            let f = files.entry(a.path.clone()).or_insert_with(|| FileReads {
                path: a.path.clone(),
                reads: 0,
                rereads: 0,
                after_compaction: 0,
                while_visible: 0,
                tokens: 0,
                read_messages: Vec::new(),
                reread_messages: Vec::new(),
                compactions: Vec::new(),
            });
            f.reads += 1;
            f.read_messages.push(call.call_index);
            let content_at = call.result_index.unwrap_or(call.call_index);
            if let Some(&(prev_call, prev_content)) = last_read.get(&a.path) {
                let dropped = super::cuts::dropped_between(cuts, prev_content, call.call_index);
                let tokens = count(call.result.unwrap_or(""));
                f.rereads += 1;
                f.tokens += tokens;
                f.reread_messages.push(call.call_index);
                match dropped {
                    Some(n) => {
                        f.after_compaction += 1;
                        if !f.compactions.contains(&n) {
                            f.compactions.push(n);
                        }
                    }
                    None => f.while_visible += 1,
                }
                events.push(Reread {
                    path: a.path.clone(),
                    call_index: call.call_index,
                    result_index: call.result_index,
                    previous_index: prev_call,
                    after_compaction: dropped,
                    tokens,
                });
            }
            last_read.insert(a.path.clone(), (call.call_index, content_at));
        }
    }
    let mut files: Vec<FileReads> = files.into_values().collect();
    files.sort_by(|a, b| {
        b.rereads
            .cmp(&a.rereads)
            .then(b.tokens.cmp(&a.tokens))
            .then(a.path.cmp(&b.path))
    });
    (files, events)
}
