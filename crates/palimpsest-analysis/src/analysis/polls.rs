//! Calls that wait for the world to change: `git status`, `sleep 30 && check`, test watchers,
//! `tail -f`, CI and job status queries, `*_status` / `wait_*` tools. Repeating one with the same
//! answer is a worker waiting, not a worker stuck, so `loops` leaves them out of its loops.
//! Which calls there are is `calls`'; splitting command lines is `shell`'s.

use super::calls::Call;
use super::shell::split;

/// Shell programs whose repetition is a poll whatever follows them.
const POLL_PROGRAMS: &[&str] = &["sleep", "watch", "wait", "ps", "top", "uptime", "jobs"];

/// `git` sub-commands that look at the state of the tree.
const GIT_LOOKS: &[&str] = &["status", "log", "diff", "fetch", "show", "branch", "stash"];

/// True when the call polls: a shell line with a sleep, a watcher or a status query, or a tool
/// named for waiting or status.
pub fn is_poll(call: &Call) -> bool {
    is_poll_with(call, &call.arguments.value())
}

/// [`is_poll`], with the call's arguments `args` as read already.
pub fn is_poll_with(call: &Call, args: &serde_json::Value) -> bool {
    let name = call.tool.as_str();
    let last = name.rsplit("__").next().unwrap_or(name);
    if last.contains("status")
        || last.starts_with("wait")
        || last.starts_with("poll")
        || last.ends_with("_poll")
    {
        return true;
    }
    let Some(line) = command_line(args) else {
        return false;
    };
    if line.contains("--watch") || line.contains("tail -f") || line.contains("tail -F") {
        return true;
    }
    split(&line).iter().any(|c| {
        let words = &c.words;
        let prog = c.program();
        let sub = words.get(1).map(String::as_str).unwrap_or("");
        POLL_PROGRAMS.contains(&prog)
            || prog == "git" && GIT_LOOKS.contains(&sub)
            || matches!(prog, "gh" | "glab")
                && words
                    .iter()
                    .any(|w| w == "status" || w == "watch" || w == "checks")
            || prog == "kubectl" && matches!(sub, "get" | "describe" | "rollout")
            || prog == "docker" && matches!(sub, "ps" | "logs")
            || prog == "systemctl" && sub == "status"
            || prog == "cargo" && sub == "watch"
    })
}

fn command_line(a: &serde_json::Value) -> Option<String> {
    let v = a
        .get("command")
        .or_else(|| a.get("cmd"))
        .or_else(|| a.get("script"))?;
    match v {
        serde_json::Value::String(s) => Some(s.clone()),
        serde_json::Value::Array(parts) => Some(
            parts
                .iter()
                .filter_map(serde_json::Value::as_str)
                .collect::<Vec<_>>()
                .join(" "),
        ),
        _ => None,
    }
}
