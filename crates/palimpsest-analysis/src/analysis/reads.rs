//! What a tool call did to files (read, wrote, only looked), across tools and formats, and the
//! re-reads that follow: a read of a file already read with no write to it since.
//! This module classifies calls; finding the re-reads among them is [`super::rereads`].
//!
//! Recognised reads: shell `cat`/`head`/`tail`/`sed`/`less`/`nl`/`bat` (goose `shell`, Claude
//! `Bash`, coworker `run_shell`, Codex `shell`/`exec_command` argv arrays), goose `text_editor`
//! `view`, `read_file`, Claude `Read`. Writes: `text_editor` write/create/str_replace/insert,
//! `write_file`, `replace_in_file`, `apply_patch`, Claude `Write`/`Edit`, shell redirects,
//! `sed -i`, `tee`, `cp`/`mv` targets. Whether an earlier read was still in the model's view is
//! decided with the compactions (`cuts`).

use serde_json::Value;

use super::calls::{Call, arg_str, shell_command};
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
    /// The lines a read returned ([`super::ranges::WHOLE`] for whole reads and for writes).
    pub range: super::ranges::LineRange,
}

/// The classification of one call.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CallClass {
    /// Files read and written, in command order.
    pub accesses: Vec<FileAccess>,
    /// The call only looks (cat/ls/find/grep/rg/read/glob/head/tail/tree/wc and kin).
    pub look_only: bool,
    /// The call changed something that is not a file (an MCP `update_*`, `create_*`, …).
    pub changes: bool,
    /// The call waits for the world to change ([`super::polls::is_poll`]): its answer seen
    /// again is not a re-read nor a loop.
    pub poll: bool,
}

impl CallClass {
    /// True when the call wrote a file or changed something else.
    pub fn writes(&self) -> bool {
        self.changes || self.accesses.iter().any(|a| a.kind == AccessKind::Write)
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
    let args = call.arguments.value();
    classify_with(call, &args, working_dir, &|| call.result.map(|r| r.text()))
}

/// [`classify`], with the call's arguments `args` as read, and its result text from `result`
/// (asked for only when the class depends on it: a read the tool cut short), for a caller that
/// read and unpacked them already.
pub fn classify_with<'t>(
    call: &Call,
    args: &Value,
    working_dir: Option<&str>,
    result: &dyn Fn() -> Option<std::borrow::Cow<'t, str>>,
) -> CallClass {
    let tool = call.tool.as_str();
    let mut class = classify_files(call, tool, args, working_dir, result);
    class.poll = super::polls::is_poll_with(call, args);
    class
}

fn classify_files<'t>(
    call: &Call,
    tool: &str,
    args: &Value,
    working_dir: Option<&str>,
    result: &dyn Fn() -> Option<std::borrow::Cow<'t, str>>,
) -> CallClass {
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
                range: if command == "view" {
                    super::ranges::of_arguments(args)
                } else {
                    super::ranges::WHOLE
                },
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
                range: super::ranges::WHOLE,
            });
        }
    } else if READ_TOOLS.contains(&tool) {
        if let Some(p) = arg_str(args, PATH_KEYS) {
            let asked = super::ranges::of_arguments(args);
            // A read the tool cut short returned only the lines it says it showed.
            let range = result()
                .and_then(|r| super::ranges::shown(&r))
                .and_then(|shown| super::ranges::within(asked, shown))
                .unwrap_or(asked);
            class.accesses.push(FileAccess {
                kind: AccessKind::Read,
                path: key(p, "."),
                range,
            });
        }
        class.look_only = true;
    } else if WRITE_TOOLS.contains(&tool) {
        if let Some(p) = arg_str(args, PATH_KEYS) {
            class.accesses.push(FileAccess {
                kind: AccessKind::Write,
                path: key(p, "."),
                range: super::ranges::WHOLE,
            });
        }
        if let Some(edits) = args.get("edits").and_then(Value::as_array) {
            for e in edits {
                if let Some(p) = arg_str(e, PATH_KEYS) {
                    class.accesses.push(FileAccess {
                        kind: AccessKind::Write,
                        path: key(p, "."),
                        range: super::ranges::WHOLE,
                    });
                }
            }
        }
    } else if LOOK_TOOLS.contains(&tool) {
        class.look_only = true;
    } else {
        // MCP and extension tools: their verb says what they did; unknown stays unknown.
        match crate::tool::verb(call.name) {
            crate::tool::Verb::Look => class.look_only = true,
            crate::tool::Verb::Change => class.changes = true,
            crate::tool::Verb::Unknown => {}
        }
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
                range: super::ranges::WHOLE,
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
                    range: super::ranges::WHOLE,
                });
            }
            None
        } else {
            None
        };
        if let Some(kind) = kind {
            let range = if kind == AccessKind::Read {
                super::ranges::of_shell(prog, words)
            } else {
                super::ranges::WHOLE
            };
            for f in files {
                class.accesses.push(FileAccess {
                    kind,
                    path: key(f, &cwd),
                    range,
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
