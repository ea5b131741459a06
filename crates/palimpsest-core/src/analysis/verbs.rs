//! What a tool without a known name does, from the verb its name starts with.
//!
//! MCP servers name their tools `<verb>_<object>` (`update_issue`, `createPage`, `list-projects`),
//! and agents prefix them with the server (`mcp__linear__update_issue`, goose's
//! `linear__update_issue`). A session that made a hundred `update_*` calls changed things, even
//! though no file was written; one that only called `get_*` and `list_*` looked. A verb on
//! neither list leaves the call unknown — neither a look nor a change. The named shell, file
//! and search tools are `reads`'.

/// What the verb says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verb {
    /// Reads, lists or searches: changes nothing.
    Look,
    /// Creates, updates, deletes, sends or runs something.
    Change,
    /// Nothing can be told from the name.
    Unknown,
}

const LOOK: &[&str] = &[
    "get", "list", "search", "read", "fetch", "find", "query", "describe", "view", "show",
    "lookup", "inspect", "browse", "count", "retrieve", "check", "status", "explain", "preview",
];

const CHANGE: &[&str] = &[
    "create", "update", "delete", "remove", "write", "set", "add", "insert", "edit", "modify",
    "patch", "put", "post", "send", "run", "execute", "exec", "apply", "merge", "move", "rename",
    "upload", "publish", "deploy", "archive", "close", "comment", "assign", "upsert", "push",
    "commit", "start", "stop", "cancel", "replace", "save", "submit", "invoke", "trigger",
];

/// `mcp__linear__update_issue` → (`Some("linear")`, `update_issue`); `linear__get_issue` →
/// (`Some("linear")`, `get_issue`); `Read` → (`None`, `Read`).
pub fn split_name(name: &str) -> (Option<&str>, &str) {
    let mut parts = name.split("__");
    match (parts.next(), parts.next(), parts.next()) {
        (Some("mcp"), Some(server), Some(_)) => {
            (Some(server), name.rsplit("__").next().unwrap_or(name))
        }
        (Some(server), Some(tool), None) => (Some(server), tool),
        _ => (None, name),
    }
}

/// The first word of a tool name: up to `_`, `-`, `.` or a lower-to-upper case change.
fn first_word(tool: &str) -> String {
    let mut out = String::new();
    let mut prev_lower = false;
    for c in tool.chars() {
        if matches!(c, '_' | '-' | '.' | ' ') || (c.is_uppercase() && prev_lower) {
            break;
        }
        prev_lower = c.is_lowercase();
        out.extend(c.to_lowercase());
    }
    out
}

/// What a tool does by its name's verb.
pub fn verb(name: &str) -> Verb {
    let (_, tool) = split_name(name);
    let w = first_word(tool);
    if LOOK.contains(&w.as_str()) {
        Verb::Look
    } else if CHANGE.contains(&w.as_str()) {
        Verb::Change
    } else {
        Verb::Unknown
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verbs_of_mcp_tools() {
        for (name, want) in [
            ("mcp__linear__update_issue", Verb::Change),
            ("mcp__notion__createPage", Verb::Change),
            ("mcp__github__delete-branch", Verb::Change),
            ("mcp__linear__list_issues", Verb::Look),
            ("mcp__notion__getPage", Verb::Look),
            ("linear__search_issues", Verb::Look),
            ("mcp__x__frobnicate_widget", Verb::Unknown),
            ("mcp__x__settings", Verb::Unknown),
        ] {
            assert_eq!(verb(name), want, "{name}");
        }
        assert_eq!(
            split_name("mcp__linear__update_issue"),
            (Some("linear"), "update_issue"),
            "the server is named"
        );
    }
}
