//! What the index keeps of one loaded session: its fleet row (diagnosis, severity, cost), its
//! recorded compactions, one row per message (role, kind, visibility, size, BPE tokens, tools,
//! paths, error flag, record line, and the timeline row the window draws, so a session opens
//! from the index without reading its file) and one searchable text per part. Built in worker threads from a [`Session`]; written by
//! `store`. The same flattening feeds [`super::search::scan`], the plain scan search is checked
//! against.

use std::borrow::Cow;
use std::collections::HashMap;

use serde_json::Value;

use crate::analysis::FleetRow;
use crate::model::{MessageKind, Part, Role, Session, SessionMeta};
use crate::sources::claude::build::CLEARED;

/// One searchable part.
#[derive(Debug, Clone, PartialEq)]
pub struct PartText<'a> {
    /// The message's index.
    pub index: usize,
    /// `text` | `thinking` | `tool_call` | `tool_result` | `summary`.
    pub part: &'static str,
    /// `user` | `assistant` | `tool` | `system` (a tool result is `tool`, whatever carried it).
    pub role: &'static str,
    /// The tool, for calls and results.
    pub tool: Option<&'a str>,
    /// The text searched: a call's argument values one per line, a result's text, a
    /// message's text. Borrowed from the session where it is one of its texts: a copy of
    /// every text of a 2 GB transcript doubled what indexing it held.
    pub text: Cow<'a, str>,
    /// A tool result a microcompact cleared: `text` is the result as stored, which the model
    /// no longer receives.
    pub cleared: bool,
}

/// One message as the index keeps it.
#[derive(Debug, Clone, PartialEq)]
pub struct MessageRow {
    /// Stored position.
    pub index: usize,
    /// Provider role.
    pub role: &'static str,
    /// Message kind (`ordinary`, `summary`, …).
    pub kind: String,
    /// Sent to the model.
    pub agent_visible: bool,
    /// Shown to the user.
    pub user_visible: bool,
    /// Characters of its parts' text.
    pub chars: usize,
    /// Tools called or answered, comma-separated.
    pub tools: String,
    /// A tool result in it failed, or the row could not be read.
    pub is_error: bool,
    /// File paths its tool calls name, newline-separated.
    pub paths: String,
    /// The first line of the record it came from, when the reader says.
    pub line: Option<u64>,
    /// Byte offset of that record's first byte, when the reader says.
    pub offset: Option<u64>,
    /// Every record it was built from as `[[line, offset], …]` (JSON), when the reader records
    /// offsets: `super::body` reads the message back from these alone. Empty otherwise.
    pub records: String,
    /// The whole message as JSON when what its records say is not all of it (reading the whole
    /// file linked it to a subagent run, marked its branch or boundary, or cleared its results):
    /// then `super::body` takes this instead of the records.
    pub body_json: Option<String>,
    /// BPE tokens of its parts (`tokens::message_tokens`), when counted.
    pub tokens: Option<u64>,
    /// Its [`crate::views::timeline::TimelineRow`] as JSON: what the window's timeline draws.
    pub row_json: String,
    /// When it was in the model's context: for the requests answered at positions `t` with
    /// `from < t <= until` (no `until` while it still is); `None` when it never was
    /// ([`crate::compaction::context::Eras::visible_span`]). The context of any request is
    /// read back from these (`super::request`).
    pub seen: Option<(usize, Option<usize>)>,
    /// Its BPE piece counts (`super::pieces`), when counted.
    pub pieces: Option<String>,
}

/// Everything the index stores for one session.
#[derive(Debug, Clone)]
pub struct Prepared {
    /// Listing data as loading found it.
    pub meta: SessionMeta,
    /// The fleet row.
    pub row: FleetRow,
    /// Per message from [`Prepared::rows_from`] on, made as they are written.
    pub messages: MessageRows,
    /// The first message with a row in `messages`: those before it are as the index has them
    /// (an appended transcript read from its last offset, whose reader says so).
    pub rows_from: usize,
    /// The session read, whose searchable parts ([`part_texts`]) are written from it as they
    /// are, not from a copy.
    pub session: std::sync::Arc<Session>,
    /// Recorded usage by model and tier, priced when asked (under any table).
    pub buckets: Vec<crate::cost::Bucket>,
    /// The compactions the source recorded (the timeline's cut marks).
    pub compactions: Vec<crate::model::CompactionRecord>,
    /// Per request with recorded usage (`facts`).
    pub requests: Vec<super::facts::RequestRow>,
    /// Per compaction as the diagnosis sees it.
    pub cuts: Vec<super::facts::CutRow>,
    /// Per finding, with its messages.
    pub findings: Vec<super::facts::FindingRow>,
    /// The whole diagnosis (made with the default options), what `diagnose` and the
    /// Post-mortem show of one session, but for its summary losses ([`Prepared::losses`]).
    pub diagnosis: crate::analysis::Diagnosis,
    /// The summary losses of the compactions numbered [`Prepared::losses_from`] on: those of
    /// the earlier ones are as the index has them (`facts::write_losses`).
    pub losses: Vec<crate::analysis::losses::SummaryLoss>,
    /// The first compaction whose losses [`Prepared::losses`] holds (1: all of them).
    pub losses_from: usize,
    /// The token report in the session model's vocabulary, costed with the shipped price
    /// table: what the Tokens view shows first.
    pub token_report: crate::views::tokens::TokenReport,
    /// The cut view (every cut's anatomy, every request, the pairing lint) counted in BPE:
    /// what the window's ribbon, cut marks and Requests tab start from.
    pub cut_view: crate::views::cuts::SessionCuts,
    /// The spill files its messages name (the built-in markers): the Spills tab's review
    /// starts from these and looks at the disk as it is then.
    pub spill_refs: Vec<crate::analysis::spill_refs::SpillRef>,
}

fn role_name(r: Role) -> &'static str {
    match r {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
    }
}

/// A call's argument values, one per line: what a person searching for `store.py` or a
/// command means, without JSON quoting and escapes in the way.
pub fn argument_text(v: &Value) -> String {
    fn walk(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::String(s) => out.push(s.clone()),
            Value::Number(n) => out.push(n.to_string()),
            Value::Bool(b) => out.push(b.to_string()),
            Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
            Value::Object(m) => m.values().for_each(|x| walk(x, out)),
            Value::Null => {}
        }
    }
    let mut out = Vec::new();
    walk(v, &mut out);
    out.join("\n")
}

/// The text a cleared tool result was stored with: its raw block's `content`, a string or
/// a list of text blocks.
fn cleared_text(raw: &crate::model::CompactJson) -> Option<String> {
    match raw.get("content")? {
        Value::String(s) => Some(s),
        Value::Array(blocks) => {
            let texts: Vec<&str> = blocks
                .iter()
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect();
            (!texts.is_empty()).then(|| texts.join("\n"))
        }
        _ => None,
    }
}

/// The searchable parts of a session's messages from `from` on, in order, made one message at
/// a time as they are asked for: made all at once (every result unpacked, every call's
/// arguments as text), they were the largest thing indexing a 210 MB transcript held, 38 MB.
/// Earlier messages give only their calls' tool names (a later result names its call's tool).
pub fn part_texts(session: &Session, from: usize) -> impl Iterator<Item = PartText<'_>> {
    let mut tool_of: HashMap<&str, &str> = HashMap::new();
    session.messages.iter().flat_map(move |m| {
        let mut out = Vec::new();
        if m.index < from {
            for p in &m.parts {
                if let Part::ToolCall { id, name, .. } = p {
                    tool_of.insert(id.as_str(), name.as_str());
                }
            }
            return out;
        }
        let summary = m.kind == MessageKind::Summary;
        for p in &m.parts {
            let mut cleared = false;
            let (part, role, tool, text) = match p {
                Part::Text { text } => (
                    if summary { "summary" } else { "text" },
                    role_name(m.role),
                    None,
                    Cow::Borrowed(text.as_str()),
                ),
                Part::Thinking { text, .. } if !text.is_empty() => (
                    "thinking",
                    role_name(m.role),
                    None,
                    Cow::Borrowed(text.as_str()),
                ),
                Part::ToolCall {
                    id,
                    name,
                    arguments,
                } => {
                    tool_of.insert(id.as_str(), name.as_str());
                    (
                        "tool_call",
                        role_name(m.role),
                        Some(name.as_str()),
                        Cow::Owned(argument_text(&arguments.value())),
                    )
                }
                Part::ToolResult {
                    call_id, text, raw, ..
                } => {
                    // A cleared result is searched by the text it was stored with, which its
                    // raw record keeps (`sources::claude::visibility`).
                    let stored = (text.len() == CLEARED.len() && text.text() == CLEARED)
                        .then(|| cleared_text(raw))
                        .flatten();
                    cleared = stored.is_some();
                    (
                        "tool_result",
                        "tool",
                        tool_of.get(call_id.as_str()).copied(),
                        stored.map_or_else(|| text.text(), Cow::Owned),
                    )
                }
                _ => continue,
            };
            if text.is_empty() {
                continue;
            }
            out.push(PartText {
                index: m.index,
                part,
                role,
                tool,
                text,
                cleared,
            });
        }
        out
    })
}

/// The rows of a session's messages, made one at a time as they are written
/// ([`MessageRows::row`]): all held at once, they were the largest thing the first index of a
/// long transcript kept (a message a microcompact cleared keeps its whole body, stored text
/// and all), more than the session itself.
#[derive(Debug, Clone)]
pub struct MessageRows {
    /// The first message with a row to write: those before it are as the index has them.
    pub from: usize,
    eras: crate::compaction::context::Eras,
    /// File paths the calls of each message from `from` on name, by message index.
    paths_of: HashMap<usize, Vec<String>>,
    /// BPE tokens per message of the session, in stored order (none when not counted).
    tokens: Vec<u64>,
    /// Piece counts per message, as `super::pieces::encode` made them.
    pieces: Vec<String>,
}

/// The rows of a session's messages from `from` on, with each message's BPE tokens and piece
/// counts (`tokens`, `pieces`: one entry per message of the session, in stored order; none
/// when it was not counted) and the paths its calls name (from the session's calls
/// `classified`).
pub fn message_rows(
    session: &Session,
    tokens: &[u64],
    pieces: Vec<String>,
    from: usize,
    classified: &crate::analysis::classified::Classified<'_>,
) -> MessageRows {
    // The paths each call names, from its class as the analyses made it (classifying again
    // unpacked every read's result a second time on a first index).
    let mut paths_of: HashMap<usize, Vec<String>> = HashMap::new();
    let calls = classified.calls.iter().zip(&classified.classes);
    for (c, class) in calls.filter(|(c, _)| c.call_index >= from) {
        let e = paths_of.entry(c.call_index).or_default();
        for a in &class.accesses {
            if !e.contains(&a.path) {
                e.push(a.path.clone());
            }
        }
    }
    MessageRows {
        from,
        eras: crate::compaction::context::Eras::new(session),
        paths_of,
        tokens: tokens.to_vec(),
        pieces,
    }
}

impl MessageRows {
    /// The row of the message at position `pos` of `session` (the session these rows were
    /// made for).
    pub fn row(&self, session: &Session, pos: usize) -> MessageRow {
        let m = &session.messages[pos];
        let mut chars = 0;
        let mut tools: Vec<&str> = Vec::new();
        let mut is_error = m.error.is_some();
        for p in &m.parts {
            match p {
                Part::Text { text } | Part::Thinking { text, .. } => chars += text.len(),
                Part::ToolCall {
                    name, arguments, ..
                } => {
                    chars += arguments.text_len();
                    if !tools.contains(&name.as_str()) {
                        tools.push(name);
                    }
                }
                Part::ToolResult {
                    text, is_error: e, ..
                } => {
                    chars += text.len();
                    is_error |= *e;
                }
                _ => {}
            }
        }
        let line = m
            .detail("lines")
            .and_then(|l| l.get(0).and_then(Value::as_u64))
            .or_else(|| m.detail("line").and_then(|l| l.as_u64()));
        let records = records_of(m);
        MessageRow {
            index: m.index,
            role: role_name(m.role),
            kind: serde_json::to_value(m.kind)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default(),
            agent_visible: m.agent_visible,
            user_visible: m.user_visible,
            chars,
            tools: tools.join(","),
            is_error,
            paths: self
                .paths_of
                .get(&m.index)
                .map(|p| p.join("\n"))
                .unwrap_or_default(),
            line,
            offset: records.first().map(|r| r[1]),
            body_json: (!records.is_empty() && needs_body(m))
                .then(|| serde_json::to_string(m).unwrap_or_default()),
            records: if records.is_empty() {
                String::new()
            } else {
                serde_json::to_string(&records).unwrap_or_default()
            },
            tokens: self.tokens.get(pos).copied(),
            row_json: serde_json::to_string(&crate::views::timeline::row(m)).unwrap_or_default(),
            seen: self
                .eras
                .visible_span(pos)
                .map(|(from, until)| (from, (until != usize::MAX).then_some(until))),
            pieces: self.pieces.get(pos).cloned(),
        }
    }
}

/// The `[line, offset]` of every record a message came from (`details.lines` beside
/// `details.offsets`, as the Claude Code reader writes them); empty when the reader gives no
/// offsets.
fn records_of(m: &crate::model::Message) -> Vec<[u64; 2]> {
    let get = |k: &str| -> Vec<u64> {
        m.detail(k)
            .and_then(|v| {
                v.as_array()
                    .map(|a| a.iter().filter_map(Value::as_u64).collect())
            })
            .unwrap_or_default()
    };
    let (lines, offsets) = (get("lines"), get("offsets"));
    if lines.len() != offsets.len() {
        return Vec::new();
    }
    lines
        .into_iter()
        .zip(offsets)
        .map(|(l, o)| [l, o])
        .collect()
}

/// Detail keys only reading the whole file sets (`sources::claude::visibility`).
const WHOLE_FILE_KEYS: [&str; 7] = [
    "branch",
    "sidechain",
    "logical_parent",
    "microcompacted",
    "replaced",
    "collapsed",
    "collapse_reset",
];

/// True when reading its records again would not give the message back as the whole file does.
fn needs_body(m: &crate::model::Message) -> bool {
    !m.links.is_empty()
        || m.details
            .as_ref()
            .is_some_and(|d| WHOLE_FILE_KEYS.iter().any(|k| d.has(k)))
}
