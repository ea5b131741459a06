//! Turning Claude Code lines into API messages, one line at a time.
//!
//! Assistant lines that share `message.id` are one API response and become one message (usage
//! counted once); user lines become user messages (tool results included); `system` lines become
//! notifications; content replacements and context-collapse commits and resets become rows
//! (`replace`). Everything else (`progress`, `file-history-snapshot`, `queue-operation`, titles,
//! unknown types) is counted, not turned into messages. Visibility (branches, compaction) is
//! decided afterwards by `visibility`, from the per-message [`Node`]s kept here.

mod kept;
mod parents;
pub mod replace;

pub use parents::{Parents, Uid};

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::model::{CompactJson, Message, MessageKind, Part, Role};
use crate::sources::claude::blocks::{
    RESULT_DETAIL_BUDGET, assistant_block, lazy, lazy_within, str_of, user_block,
};
use crate::sources::claude::detect::NON_MESSAGE_TYPES;
use crate::sources::jsonl::Line;
use crate::sources::scan::millis;

/// Record types that are read (counted) without becoming messages, beyond
/// [`NON_MESSAGE_TYPES`].
const KNOWN_OTHER: &[&str] = &["attachment"];

/// What the text of a microcompacted tool result becomes in the model's view.
pub const CLEARED: &str = "[Old tool result content cleared]";

/// How many lines of each kind a file holds, messages or not.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct LineCounts {
    /// Lines per top-level `type` (`system` lines as `system:<subtype>`), bad lines as `invalid`.
    pub by_type: BTreeMap<String, usize>,
    /// Assistant lines merged into an earlier message because they share its `message.id`.
    pub merged_assistant_lines: usize,
}

/// Per-message facts the visibility pass needs, parallel to the message list.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Node {
    /// The `uuid`s of the lines the message was built from, by number ([`Parents::number`]).
    pub uuids: Vec<Uid>,
    /// 1-based line numbers, for the raw view.
    pub lines: Vec<usize>,
    /// `isSidechain` of the first line.
    pub sidechain: bool,
    /// `system` subtype, when a system line.
    pub subtype: Option<Box<str>>,
    /// `parentUuid` of the first line, by number.
    pub parent: Option<Uid>,
    /// `logicalParentUuid` (compact boundaries).
    pub logical_parent: Option<Box<str>>,
    /// The line's `compactMetadata` / `microcompactMetadata`: boxed, as a handful of lines
    /// have one and an inline `Value` made every node 72 bytes longer (19 MB on a 2 GB
    /// transcript followed live).
    #[serde(with = "kept::meta_text")]
    pub compact_meta: Option<Box<Value>>,
    /// `isCompactSummary`.
    pub compact_summary: bool,
    /// Timestamp of the first line, Unix ms.
    pub created: Option<i64>,
}

/// What the lines fed since the last [`Builder::take_marks`] did besides adding messages at
/// the end, for a reader that finishes only what changed (`resume`).
#[derive(Debug, Clone, Default)]
pub struct Marks {
    /// The first earlier message a line was merged into (another block of its API response).
    pub merged_from: Option<usize>,
    /// Tool calls whose subagent became known (their message gains a link).
    pub calls: Vec<String>,
    /// A line that changes what earlier messages are to the model: a compact or microcompact
    /// boundary, a compaction summary, a content replacement or a context-collapse record.
    pub structural: bool,
}

/// The state of a file being read. Serialized (a snapshot, `super::saved`) between reads,
/// when its messages are the session's and no marks are pending: neither is written.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Builder {
    /// Messages in stored order, shared as the session shares them (`model::Session`): a
    /// transcript followed live changes only the messages its new lines reach.
    #[serde(skip)]
    pub messages: Vec<std::sync::Arc<Message>>,
    /// Facts per message.
    pub nodes: Vec<Node>,
    /// `parentUuid` of every line with a `uuid` (progress lines included: they are in the chain).
    pub parents: Parents,
    /// Line counts.
    pub counts: LineCounts,
    /// Tool call id → subagent id, from `toolUseResult.agentId` and `agent_progress` lines.
    pub agent_of_call: HashMap<String, String>,
    /// Titles seen (`custom-title`, `ai-title`, `summary`), by kind.
    #[serde(with = "kept::title_kinds")]
    pub titles: HashMap<&'static str, String>,
    /// First `sessionId`, `cwd`, `slug`, model.
    pub session_id: Option<String>,
    /// The working directory.
    pub cwd: Option<String>,
    /// The three-word session name.
    pub slug: Option<String>,
    /// The last model seen.
    pub model: Option<String>,
    by_api_id: HashMap<String, usize>,
    /// Byte offset of the line being read, recorded beside its number (`details.offsets`).
    at: u64,
    #[serde(skip)]
    marks: Marks,
}

impl Builder {
    /// What the lines fed since the last call did besides adding messages (see [`Marks`]).
    pub fn take_marks(&mut self) -> Marks {
        std::mem::take(&mut self.marks)
    }

    /// Pack the details of the last message, left plain for the blocks that may follow (see
    /// `add`). Called before another message comes and when a read stops, so that a session
    /// handed out shares that message with the next read's instead of getting it copied.
    pub fn settle(&mut self) {
        if let Some(last) = self.messages.last_mut()
            && last.details.as_ref().is_some_and(|d| !d.is_packed())
            && let Some(d) = &mut std::sync::Arc::make_mut(last).details
        {
            d.pack();
        }
    }

    /// Feed one line.
    pub fn push(&mut self, line: Line) {
        self.at = line.offset;
        let v = match line.value {
            Ok(v) => v,
            Err(bad) => {
                *self.counts.by_type.entry("invalid".into()).or_default() += 1;
                let m = Message::unreadable(
                    self.messages.len(),
                    "unparsed_line",
                    bad.raw,
                    bad.error.to_string(),
                );
                self.add(m, None, Node::default(), line.number);
                return;
            }
        };
        let typ = v
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        let key = match (typ.as_str(), v.get("subtype").and_then(Value::as_str)) {
            ("system", Some(st)) => format!("system:{st}"),
            _ => typ.clone(),
        };
        *self.counts.by_type.entry(key).or_default() += 1;
        if let Some(u) = str_of(&v, "uuid") {
            let parent = str_of(&v, "parentUuid");
            // A line read again under another parent moves a part of the chain walked already.
            if self.parents.insert(u, parent).1 {
                self.marks.structural = true;
            }
        }
        if self.session_id.is_none() {
            self.session_id = str_of(&v, "sessionId").map(str::to_owned);
        }
        if self.cwd.is_none() {
            self.cwd = str_of(&v, "cwd").map(str::to_owned);
        }
        if self.slug.is_none() {
            self.slug = str_of(&v, "slug").map(str::to_owned);
        }
        match typ.as_str() {
            "user" => self.user(&v, line.number),
            "assistant" => self.assistant(&v, line.number),
            "system" => self.system(&v, line.number),
            "progress" => self.progress(&v),
            "custom-title" => self.title("custom", &v, "customTitle"),
            "ai-title" => self.title("ai", &v, "aiTitle"),
            "summary" => self.title("summary", &v, "summary"),
            t if replace::TYPES.contains(&t) => {
                self.marks.structural = true;
                let (m, details, node) = replace::row(&v, t, line.number);
                self.add(m, Some(details), node, line.number);
            }
            t if KNOWN_OTHER.contains(&t) || NON_MESSAGE_TYPES.contains(&t) => {}
            // A record type this reader does not know: kept, seen by neither, so nothing the
            // file holds vanishes.
            _ => {
                let mut m = Message::new(
                    self.messages.len(),
                    Role::System,
                    vec![Part::Other {
                        original_type: if typ.is_empty() {
                            "untyped".into()
                        } else {
                            typ.clone()
                        },
                        raw: v.clone(),
                    }],
                );
                m.agent_visible = false;
                m.user_visible = false;
                self.add(m, None, Node::default(), line.number);
            }
        }
    }

    fn title(&mut self, kind: &'static str, v: &Value, key: &str) {
        let text = str_of(v, key).or_else(|| str_of(v, "title"));
        if let Some(t) = text {
            self.titles.insert(kind, t.to_owned());
        }
    }

    fn progress(&mut self, v: &Value) {
        let data = v.get("data");
        if data.and_then(|d| d.get("type")).and_then(Value::as_str) == Some("agent_progress")
            && let (Some(agent), Some(call)) = (
                data.and_then(|d| d.get("agentId")).and_then(Value::as_str),
                str_of(v, "parentToolUseID"),
            )
            && !self.agent_of_call.contains_key(call)
        {
            self.agent_of_call.insert(call.to_owned(), agent.to_owned());
            self.marks.calls.push(call.to_owned());
        }
    }

    fn node(&mut self, v: &Value, number: usize) -> Node {
        Node {
            uuids: str_of(v, "uuid")
                .map(|u| self.parents.number(u))
                .into_iter()
                .collect(),
            lines: vec![number],
            sidechain: v.get("isSidechain").and_then(Value::as_bool) == Some(true),
            subtype: str_of(v, "subtype").map(Box::from),
            parent: str_of(v, "parentUuid").map(|u| self.parents.number(u)),
            logical_parent: str_of(v, "logicalParentUuid").map(Box::from),
            compact_meta: v
                .get("compactMetadata")
                .or_else(|| v.get("microcompactMetadata"))
                .map(|m| Box::new(m.clone())),
            compact_summary: v.get("isCompactSummary").and_then(Value::as_bool) == Some(true),
            created: str_of(v, "timestamp").and_then(millis),
        }
    }

    /// Add a message with its `details` (`lines` holding its line number).
    fn add(
        &mut self,
        mut m: Message,
        details: Option<Map<String, Value>>,
        node: Node,
        number: usize,
    ) {
        m.index = self.messages.len();
        if let Some(mut d) = details {
            // Where its record starts, so one message can be read again without the whole file.
            d.insert("offsets".into(), json!([self.at]));
            // Plain while the next lines may add to it (another block of a response), packed
            // once another message comes: packing again at each block made the read 5 % slower.
            m.details = Some(CompactJson::plain(&Value::Object(d)));
        }
        self.settle();
        let mut node = node;
        if node.lines.is_empty() {
            node.lines.push(number);
        }
        m.created = node.created;
        m.id = node.uuids.first().map(|&u| self.parents.name(u));
        self.messages.push(std::sync::Arc::new(m));
        self.nodes.push(node);
    }

    fn user(&mut self, v: &Value, number: usize) {
        let content = v.get("message").and_then(|m| m.get("content"));
        let parts = match content {
            Some(Value::String(s)) => vec![Part::Text { text: s.clone() }],
            Some(Value::Array(blocks)) => blocks.iter().map(user_block).collect(),
            _ => Vec::new(),
        };
        let mut m = Message::new(0, Role::User, parts);
        let node = self.node(v, number);
        let meta = v.get("isMeta").and_then(Value::as_bool) == Some(true);
        let transcript_only =
            v.get("isVisibleInTranscriptOnly").and_then(Value::as_bool) == Some(true);
        m.user_visible = !meta && !transcript_only;
        let text = content.and_then(Value::as_str).unwrap_or("");
        if node.compact_summary {
            self.marks.structural = true;
            m.kind = MessageKind::Summary;
        } else if is_compact_echo(text) {
            m.kind = MessageKind::Notification;
        }
        let mut details = Map::new();
        details.insert("lines".into(), json!([number]));
        for key in ["isMeta", "sourceToolAssistantUUID", "permissionMode"] {
            if let Some(x) = v.get(key) {
                details.insert(key.into(), x.clone());
            }
        }
        if let Some(r) = v.get("toolUseResult") {
            if let Some(agent) = r.get("agentId").and_then(Value::as_str) {
                for p in &m.parts {
                    if let Part::ToolResult { call_id, .. } = p {
                        self.agent_of_call.insert(call_id.clone(), agent.to_owned());
                        self.marks.calls.push(call_id.clone());
                    }
                }
            }
            details.insert("toolUseResult".into(), lazy_within(r, RESULT_DETAIL_BUDGET));
        }
        self.add(m, Some(details), node, number);
    }

    fn assistant(&mut self, v: &Value, number: usize) {
        let msg = v.get("message");
        let api_id = msg.and_then(|m| m.get("id")).and_then(Value::as_str);
        let blocks: Vec<Part> = msg
            .and_then(|m| m.get("content"))
            .map(|c| match c {
                Value::Array(a) => a.iter().map(assistant_block).collect(),
                Value::String(s) => vec![Part::Text { text: s.clone() }],
                _ => Vec::new(),
            })
            .unwrap_or_default();
        if let Some(model) = msg.and_then(|m| m.get("model")).and_then(Value::as_str)
            && model != "<synthetic>"
        {
            self.model = Some(model.to_owned());
        }
        if let Some(&at) = api_id.and_then(|id| self.by_api_id.get(id)) {
            // Another content block of the same API response: one message. Claude Code 2.1
            // writes each block as its own line and only the last carries the final
            // `output_tokens` (4, 4, 4, then 613); older versions repeat the final figures on
            // every line. Each figure is the largest the response's lines carry.
            self.counts.merged_assistant_lines += 1;
            let usage = msg.and_then(|m| m.get("usage"));
            self.marks.merged_from = Some(self.marks.merged_from.map_or(at, |m| m.min(at)));
            let uid = str_of(v, "uuid").map(|u| self.parents.number(u));
            let m = std::sync::Arc::make_mut(&mut self.messages[at]);
            // Grown exactly, not doubled: a message is kept for as long as its session is, and
            // a response has a few blocks (doubling left a quarter of every part list empty).
            m.parts.reserve_exact(blocks.len());
            m.parts.extend(blocks);
            let node = &mut self.nodes[at];
            node.lines.reserve_exact(1);
            node.lines.push(number);
            node.uuids.reserve_exact(uid.iter().len());
            node.uuids.extend(uid);
            let at = self.at;
            if let Some(d) = &mut m.details {
                d.edit(|d| {
                    if let Some(Value::Array(lines)) = d.get_mut("lines") {
                        lines.push(json!(number));
                    }
                    if let (Some(u), Value::Object(d)) = (usage, &mut *d) {
                        match d.get_mut("usage") {
                            Some(held) => largest(held, u),
                            None => {
                                d.insert("usage".into(), u.clone());
                            }
                        }
                    }
                    if let Some(Value::Array(offsets)) = d.get_mut("offsets") {
                        offsets.push(json!(at));
                    }
                });
            }
            return;
        }
        let m = Message::new(0, Role::Assistant, blocks);
        let mut details = Map::new();
        details.insert("lines".into(), json!([number]));
        if let Some(id) = api_id {
            details.insert("message_id".into(), json!(id));
            self.by_api_id.insert(id.to_owned(), self.messages.len());
        }
        for (key, from) in [("model", msg), ("usage", msg), ("requestId", Some(v))] {
            if let Some(x) = from.and_then(|o| o.get(key)) {
                details.insert(key.into(), x.clone());
            }
        }
        for key in ["isApiErrorMessage", "error"] {
            if let Some(x) = v.get(key) {
                details.insert(key.into(), x.clone());
            }
        }
        let node = self.node(v, number);
        self.add(m, Some(details), node, number);
    }

    fn system(&mut self, v: &Value, number: usize) {
        let subtype = str_of(v, "subtype").unwrap_or("").to_owned();
        if matches!(
            subtype.as_str(),
            "compact_boundary" | "microcompact_boundary"
        ) {
            self.marks.structural = true;
        }
        let mut parts = Vec::new();
        if let Some(text) = str_of(v, "content") {
            parts.push(Part::Text {
                text: text.to_owned(),
            });
        }
        let mut raw = v.clone();
        if let Value::Object(o) = &mut raw {
            for k in [
                "content",
                "parentUuid",
                "isSidechain",
                "userType",
                "cwd",
                "sessionId",
            ] {
                o.remove(k);
            }
            for k in ["version", "gitBranch", "slug", "uuid", "timestamp", "type"] {
                o.remove(k);
            }
        }
        parts.push(Part::Other {
            original_type: if subtype.is_empty() {
                "system".into()
            } else {
                subtype.clone()
            },
            raw: lazy(&raw),
        });
        let mut m = Message::new(0, Role::System, parts);
        m.kind = MessageKind::Notification;
        // System lines are the harness talking to the user; the model never receives them.
        m.agent_visible = false;
        m.user_visible = !matches!(
            subtype.as_str(),
            "turn_duration" | "stop_hook_summary" | "bridge_status"
        ) && v.get("isMeta").and_then(Value::as_bool) != Some(true);
        let mut details = Map::new();
        details.insert("lines".into(), json!([number]));
        let node = self.node(v, number);
        self.add(m, Some(details), node, number);
    }
}

/// Raise every number in `held` to the one `seen` has at the same key, and take keys it lacks:
/// the usage of one API response from all its lines, whichever of them carries the final count.
fn largest(held: &mut Value, seen: &Value) {
    match (held, seen) {
        (Value::Object(h), Value::Object(s)) => {
            for (k, v) in s {
                match h.get_mut(k) {
                    Some(x) => largest(x, v),
                    None => {
                        h.insert(k.clone(), v.clone());
                    }
                }
            }
        }
        (h @ Value::Number(_), Value::Number(n)) if n.as_f64() > h.as_f64() => {
            *h = Value::Number(n.clone());
        }
        _ => {}
    }
}

/// The `/compact` command echo and its output, which Claude Code writes as user lines.
fn is_compact_echo(text: &str) -> bool {
    text.contains("<command-name>/compact</command-name>")
        || (text.starts_with("<local-command-stdout>") && text.contains("Compacted"))
}

/// A user or assistant message that was read (not an unreadable line).
pub(in crate::sources::claude) fn is_conversation(m: &Message) -> bool {
    matches!(
        m.role,
        crate::model::Role::User | crate::model::Role::Assistant
    ) && m.error.is_none()
}
