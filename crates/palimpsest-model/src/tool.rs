//! What a tool without a known name does, from the verb its name starts with: part of the
//! session model's vocabulary, which the post-mortem (`analysis`) and the token categories
//! (`tokens`) both read. What a named shell, file or search tool does is `analysis::reads`'.
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

/// The words of a tool name, lower-cased: split at `_`, `-`, `.`, spaces and lower-to-upper
/// case changes.
fn words(tool: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut word = String::new();
    let mut prev_lower = false;
    for c in tool.chars() {
        let separator = matches!(c, '_' | '-' | '.' | ' ');
        if (separator || (c.is_uppercase() && prev_lower)) && !word.is_empty() {
            out.push(std::mem::take(&mut word));
        }
        prev_lower = c.is_lowercase();
        if !separator {
            word.extend(c.to_lowercase());
        }
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

/// What a tool does by its name's verb: its first word, or the first after words that only
/// repeat the server's name (`mcp__n8n-mcp__n8n_update_full_workflow` updates).
pub fn verb(name: &str) -> Verb {
    let (server, tool) = split_name(name);
    let server_words = server.map(words).unwrap_or_default();
    for w in words(tool) {
        if LOOK.contains(&w.as_str()) {
            return Verb::Look;
        }
        if CHANGE.contains(&w.as_str()) {
            return Verb::Change;
        }
        if !server_words.contains(&w) {
            break;
        }
    }
    Verb::Unknown
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
            // See: issue 45. The tool repeats its server's name before the verb.
            ("mcp__n8n-mcp__n8n_update_full_workflow", Verb::Change),
            ("mcp__n8n-mcp__n8n_get_workflow", Verb::Look),
            ("mcp__github__github_create_issue", Verb::Change),
            ("n8n__n8n_list_workflows", Verb::Look),
            // A verb that is also the server's name is still the verb once the name is passed.
            ("mcp__search__search_docs", Verb::Look),
            ("mcp__n8n-mcp__n8n_frobnicate", Verb::Unknown),
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
