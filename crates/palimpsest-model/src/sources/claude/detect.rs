//! Whether a `.jsonl` file is a Claude Code transcript, decided by parsing its first records.
//!
//! Real transcripts do not open with a message: the first record may be an 80 KB
//! `queue-operation` or `file-history-snapshot`, the file may hold nothing but a
//! `teleported-from` record, and a re-serialised file writes `"key": "value"`. So records are
//! parsed, not matched as bytes: the known records that are not messages are skipped whatever
//! their size, a bad line is skipped, and the first message record decides. Where the file sits
//! is a hint: `projects/<project>/<uuid>.jsonl` (or a subagent's `subagents/agent-*.jsonl`) is
//! Claude's when its records are Claude's kinds even if none is a message. Reading stops at the
//! first message record, after `MAX_LINES` lines or `MAX_BYTES` bytes.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use serde_json::Value;

/// Lines looked at before giving up.
const MAX_LINES: usize = 64;
/// Bytes read before giving up (a few huge snapshot records fit).
const MAX_BYTES: u64 = 32 << 20;

/// Record types Claude Code writes that are not conversation messages.
pub const NON_MESSAGE_TYPES: &[&str] = &[
    "queue-operation",
    "file-history-snapshot",
    "summary",
    "custom-title",
    "ai-title",
    "progress",
    "teleported-from",
    "last-prompt",
    "tag",
    "agent-name",
    "pr-link",
    "mode",
    "worktree-state",
    // Harness state of newer Claude Code releases: counted, never messages.
    "file-history-delta",
    "cost-state",
    "bridge-session",
    "fork-context-ref",
    "continued-in",
    // Context collapses staged, not committed: they change nothing the model sees.
    "marble-origami-snapshot",
];

/// Record types that carry a conversation message.
const MESSAGE_TYPES: &[&str] = &["user", "assistant", "system", "attachment"];

/// What the first records say.
#[derive(Debug, PartialEq, Eq)]
enum Verdict {
    /// A message record with Claude's keys.
    Claude,
    /// Only Claude's non-message records so far.
    OnlyClaudeKinds,
    /// A record that is not Claude's (a Codex `payload`, a message log line…), or nothing.
    Not,
}

fn judge(v: &Value) -> Option<Verdict> {
    let o = v.as_object()?;
    // Codex rollouts carry `payload`; a message log line carries `role` at the top.
    if o.contains_key("payload") {
        return Some(Verdict::Not);
    }
    // Qwen Code links its records as Claude does, but stores a Gemini `Content` (`parts`) and
    // its own `systemPayload`.
    if o.contains_key("systemPayload") || v["message"]["parts"].is_array() {
        return Some(Verdict::Not);
    }
    let typ = o.get("type").and_then(Value::as_str)?;
    if NON_MESSAGE_TYPES.contains(&typ) {
        return Some(Verdict::OnlyClaudeKinds);
    }
    let claude_keys = (o.contains_key("parentUuid") || o.contains_key("sessionId"))
        && (o.contains_key("uuid") || o.contains_key("message") || o.contains_key("subtype"));
    if MESSAGE_TYPES.contains(&typ) && claude_keys {
        return Some(Verdict::Claude);
    }
    if MESSAGE_TYPES.contains(&typ) {
        return Some(Verdict::Not);
    }
    // A type nobody knows yet (Claude Code adds record types often): undecided.
    None
}

/// True when `path`'s place says Claude Code: `projects/<project>/<uuid>.jsonl`, or
/// `subagents/agent-*.jsonl`.
fn claude_place(path: &Path) -> bool {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let parent = path.parent();
    let subagent = parent
        .and_then(Path::file_name)
        .is_some_and(|n| n == "subagents")
        && stem.starts_with("agent-");
    let in_projects = parent
        .and_then(Path::parent)
        .and_then(Path::file_name)
        .is_some_and(|n| n == "projects");
    subagent || in_projects && is_uuid(&stem)
}

fn is_uuid(s: &str) -> bool {
    s.len() == 36
        && s.char_indices().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => c == '-',
            _ => c.is_ascii_hexdigit(),
        })
}

/// True when the file at `path` reads as a Claude Code transcript.
pub fn is_transcript(path: &Path) -> bool {
    let Ok(f) = std::fs::File::open(path) else {
        return false;
    };
    let mut r = BufReader::new(f.take(MAX_BYTES));
    let mut line = Vec::new();
    let mut only_kinds = false;
    for _ in 0..MAX_LINES {
        line.clear();
        match r.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let t = line.trim_ascii();
        if t.is_empty() {
            continue;
        }
        // A bad line (torn write, a stray byte) says nothing either way.
        let Ok(v) = serde_json::from_slice::<Value>(t) else {
            continue;
        };
        match judge(&v) {
            Some(Verdict::Claude) => return true,
            Some(Verdict::OnlyClaudeKinds) => only_kinds = true,
            Some(Verdict::Not) => return false,
            None => {}
        }
    }
    only_kinds && claude_place(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn records_decide() {
        let user = json!({"type": "user", "parentUuid": null, "sessionId": "s", "uuid": "u"});
        assert_eq!(judge(&user), Some(Verdict::Claude), "a message record");
        let snap = json!({"type": "file-history-snapshot", "snapshot": {}});
        assert_eq!(
            judge(&snap),
            Some(Verdict::OnlyClaudeKinds),
            "not a message, but Claude's"
        );
        let future = json!({"type": "x-record-from-the-future", "data": {}});
        assert_eq!(
            judge(&future),
            None,
            "an unknown record type decides nothing"
        );
        let codex = json!({"type": "session_meta", "payload": {"id": "x"}});
        assert_eq!(judge(&codex), Some(Verdict::Not), "Codex carries payload");
        let log = json!({"role": "user", "content": "hi"});
        assert_eq!(judge(&log), None, "no type: undecided");
    }

    #[test]
    fn place_hint() {
        assert!(
            claude_place(Path::new(
                "/h/.claude/projects/-w/0b6cdd3a-1b2c-4d5e-8f90-123456789abc.jsonl"
            )),
            "a uuid file in a project folder"
        );
        assert!(
            !claude_place(Path::new(
                "/h/logs/0b6cdd3a-1b2c-4d5e-8f90-123456789abc.jsonl"
            )),
            "a uuid file elsewhere"
        );
        assert!(
            claude_place(Path::new("/p/x/subagents/agent-a1.jsonl")),
            "a subagent run"
        );
    }
}
