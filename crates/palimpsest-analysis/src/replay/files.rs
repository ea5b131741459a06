//! Which file a tool call reads, so a replay can tell whether the latest read of each file
//! survived a cut verbatim or lives on only in the summary (the seed's re-read spiral).
//!
//! Recognised: shell commands `cat FILE`, `head [-n N] FILE`, `sed -n 'A,Bp' FILE` (also after
//! `cd … &&` and before a pipe), goose's `text_editor` with `command: view`, `read_file`, and
//! Claude Code's `Read`. Anything else is not a read.

use serde_json::Value;

use crate::model::Part;

/// The file a tool call reads, if it is a read.
pub fn read_path(part: &Part) -> Option<String> {
    let Part::ToolCall {
        name, arguments, ..
    } = part
    else {
        return None;
    };
    let short = name.rsplit("__").next().unwrap_or(name);
    let arguments = &arguments.value();
    let arg = |k: &str| arguments.get(k).and_then(Value::as_str).map(str::to_owned);
    match short {
        "Read" | "read_file" | "view_file" => arg("file_path").or_else(|| arg("path")),
        "text_editor" | "str_replace_based_edit_tool" => {
            (arg("command").as_deref() == Some("view")).then(|| arg("path"))?
        }
        _ if is_shell(short) => shell_command(arguments).and_then(|c| shell_read(&c)),
        _ => None,
    }
}

fn is_shell(name: &str) -> bool {
    matches!(
        name,
        "shell" | "bash" | "Bash" | "run_shell" | "exec_command" | "local_shell" | "run_command"
    )
}

fn shell_command(arguments: &Value) -> Option<String> {
    for key in ["command", "cmd"] {
        match arguments.get(key) {
            Some(Value::String(s)) => return Some(s.clone()),
            Some(Value::Array(a)) => {
                let words: Vec<&str> = a.iter().filter_map(Value::as_str).collect();
                // `["bash", "-lc", "cat x"]` carries the script last.
                if words.len() >= 3 && words[1].starts_with('-') {
                    return Some(words[words.len() - 1].to_owned());
                }
                return Some(words.join(" "));
            }
            _ => {}
        }
    }
    None
}

/// The file a shell command line reads with cat, head or `sed -n`.
pub fn shell_read(line: &str) -> Option<String> {
    line.split("&&")
        .flat_map(|s| s.split(';'))
        .filter_map(|seg| seg.split('|').next())
        .find_map(segment_read)
}

fn segment_read(seg: &str) -> Option<String> {
    let words: Vec<String> = seg.split_whitespace().map(unquote).collect();
    let (cmd, rest) = words.split_first()?;
    let operands = |skip_values: &[&str]| -> Option<String> {
        let mut it = rest.iter();
        while let Some(w) = it.next() {
            if skip_values.contains(&w.as_str()) {
                it.next();
            } else if !w.starts_with('-') && !w.starts_with('>') && !w.starts_with('<') {
                return Some(w.clone());
            }
        }
        None
    };
    match cmd.as_str() {
        "cat" => operands(&[]),
        "head" => operands(&["-n", "-c"]),
        "sed" if rest.first().is_some_and(|w| w == "-n") => {
            // sed -n SCRIPT FILE: the first operand is the script.
            let ops: Vec<&String> = rest[1..].iter().filter(|w| !w.starts_with('-')).collect();
            ops.get(1).map(|s| (*s).clone())
        }
        _ => None,
    }
}

fn unquote(w: &str) -> String {
    w.trim_matches(|c| c == '\'' || c == '"').to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(name: &str, args: Value) -> Part {
        Part::ToolCall {
            id: "c".into(),
            name: name.into(),
            arguments: args.into(),
        }
    }

    #[test]
    fn recognises_the_read_commands() {
        let cases = [
            (
                call("developer__shell", json!({"command": "cat store.py"})),
                Some("store.py"),
            ),
            (
                call(
                    "shell",
                    json!({"command": "cd src && head -n 40 app.py | tail"}),
                ),
                Some("app.py"),
            ),
            (
                call("Bash", json!({"command": "sed -n '1,200p' \"/tmp/x.txt\""})),
                Some("/tmp/x.txt"),
            ),
            (
                call(
                    "developer__text_editor",
                    json!({"command": "view", "path": "/r/a.rs"}),
                ),
                Some("/r/a.rs"),
            ),
            (
                call(
                    "developer__text_editor",
                    json!({"command": "write", "path": "a"}),
                ),
                None,
            ),
            (
                call("read_file", json!({"path": "notes.md"})),
                Some("notes.md"),
            ),
            (
                call("Read", json!({"file_path": "/r/b.ts"})),
                Some("/r/b.ts"),
            ),
            (call("shell", json!({"command": "pytest -q"})), None),
            (
                call(
                    "exec_command",
                    json!({"cmd": ["bash", "-lc", "cat Cargo.toml"]}),
                ),
                Some("Cargo.toml"),
            ),
        ];
        for (part, want) in cases {
            assert_eq!(
                read_path(&part).as_deref(),
                want,
                "read detection for {part:?}"
            );
        }
    }
}
