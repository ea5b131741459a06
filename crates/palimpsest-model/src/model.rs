//! The session model every format maps into: sessions, messages, parts and visibility.
//!
//! Readers in `sources/` build these types; everything downstream (`compaction`, `replay`,
//! `tokens`, `analysis`, the CLI and the app) works on them alone. Nothing here knows which
//! format a message came from beyond [`SessionMeta::format`]: a format quirk that leaks past
//! its reader is a bug in that reader.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

mod args;
mod body;
mod compact;
mod current;
mod cut;
mod meta;
mod recorded;
pub mod snap;
mod usage;
pub use args::Arguments;
pub use body::Body;
pub use compact::CompactJson;
pub use current::Current;
pub use cut::{CompactionRecord, ResultHolders, Trigger};
pub use meta::{Family, RecordedUsage, SessionMeta, SourceFormat};
pub use recorded::{Item, RecordedRequest};
pub use usage::UsageSplit;

/// Who wrote a message, as the provider API would see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// System or developer instructions.
    System,
    /// The user (in goose and Anthropic shapes, tool results ride in user messages too).
    User,
    /// The model.
    Assistant,
    /// OpenAI's `tool` role: one tool result per message.
    Tool,
}

/// What a message is for, beyond its role. Compaction machinery writes the non-ordinary kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "snake_case")]
pub enum MessageKind {
    /// A turn of the conversation.
    #[default]
    Ordinary,
    /// A compaction summary standing in for the dropped span.
    Summary,
    /// The note after a summary telling the model to carry on (goose's continuation text).
    Continuation,
    /// A copy of a user message re-appended after a compaction.
    PreservedCopy,
    /// UI-only notices: "Compaction complete", `/compact` echoes, harness notices.
    Notification,
    /// A summary of one tool call and its result (goose tool-pair summarization).
    ToolSummary,
}

/// One piece of a message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Part {
    /// Plain text.
    Text {
        /// The text as stored.
        text: String,
    },
    /// Model reasoning. `redacted` parts carry no readable text (only its length is known).
    Thinking {
        /// The reasoning text; empty when redacted.
        text: String,
        /// True for redacted / encrypted reasoning.
        #[serde(default)]
        redacted: bool,
    },
    /// A tool call made by the model.
    ToolCall {
        /// The call id the result pairs with.
        id: String,
        /// Tool name as the model used it (goose's `ext__tool` prefix kept).
        name: String,
        /// Arguments as JSON (strings that hold JSON are parsed by the reader), packed in
        /// memory when long ([`Arguments`]).
        #[cfg_attr(feature = "ts", ts(as = "Value"))]
        arguments: Arguments,
    },
    /// The result of a tool call.
    ToolResult {
        /// The id of the call this answers.
        call_id: String,
        /// The text the model received (text items joined with newlines), packed in memory
        /// when long ([`Body`]).
        #[cfg_attr(feature = "ts", ts(as = "String"))]
        text: Body,
        /// True when the tool or the harness reported a failure.
        is_error: bool,
        /// The stored value, untouched, for the raw view.
        #[cfg_attr(feature = "ts", ts(as = "Value"))]
        raw: CompactJson,
    },
    /// An image; the bytes are never kept, only what views need.
    Image {
        /// MIME type, e.g. `image/png`.
        mime: String,
        /// Size of the stored data in bytes (base64 length for inline data).
        size: usize,
    },
    /// Anything the reader does not model: kept with its original tag, never dropped.
    Other {
        /// The original type tag (`summarizationRequested`, `systemNotification`, ...).
        original_type: String,
        /// The stored JSON.
        raw: Value,
    },
}

impl Part {
    /// The `type` tag this part serialises with.
    pub fn type_name(&self) -> &'static str {
        match self {
            Part::Text { .. } => "text",
            Part::Thinking { .. } => "thinking",
            Part::ToolCall { .. } => "tool_call",
            Part::ToolResult { .. } => "tool_result",
            Part::Image { .. } => "image",
            Part::Other { .. } => "other",
        }
    }
}

/// A path a message refers to: a spill file, a transcript of compacted turns, a child session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Link {
    /// What the path is.
    pub kind: LinkKind,
    /// The path exactly as the source wrote it (untrusted text).
    pub path: String,
    /// The linked session's id, when `path` holds many sessions (a goose database).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub session: Option<String>,
}

/// The kinds of [`Link`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "snake_case")]
pub enum LinkKind {
    /// Full text of a capped tool result.
    SpillFile,
    /// Verbatim transcript of the turns a compaction replaced.
    Transcript,
    /// A child session (subagent, compactor run).
    Subagent,
}

/// One stored message, in stored order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Message {
    /// 0-based position in stored order (the order the agent would reload it in).
    pub index: usize,
    /// The source's message id, when it has one.
    pub id: Option<String>,
    /// Provider role.
    pub role: Role,
    /// What the message is for.
    pub kind: MessageKind,
    /// Creation time, Unix milliseconds, when known.
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub created: Option<i64>,
    /// The content.
    pub parts: Vec<Part>,
    /// Sent to the model on the next request.
    pub agent_visible: bool,
    /// Shown to the user by the agent's own UI.
    pub user_visible: bool,
    /// Set when the stored row could not be read: says why, naming file and row or line.
    /// The row's raw text is then kept as an `other` part.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Paths the message refers to (spill files, transcripts, child sessions).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub links: Vec<Link>,
    /// Format-specific details that are not content the model saw (sidecar keys, usage).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(as = "Option<Value>"))]
    pub details: Option<CompactJson>,
    /// What the provider billed for the request this message answers, as the source recorded
    /// it (its reader reads its own keys): the first entry is that request; Codex adds counts
    /// billed with no answer of their own to its latest answer. Empty: nothing recorded.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub usage: Vec<UsageSplit>,
}

impl Message {
    /// The recorded context (input + cache reads + cache writes) of the request this message
    /// answers, as its reader recorded it ([`Message::usage`]: the shapes are the readers').
    pub fn recorded_prompt(&self) -> Option<u64> {
        self.usage.first().map(UsageSplit::prompt)
    }

    /// A visible, ordinary message with the given parts (used by readers and tests).
    pub fn new(index: usize, role: Role, parts: Vec<Part>) -> Self {
        Self {
            index,
            id: None,
            role,
            kind: MessageKind::Ordinary,
            created: None,
            parts,
            agent_visible: true,
            user_visible: true,
            error: None,
            links: Vec::new(),
            details: None,
            usage: Vec::new(),
        }
    }

    /// A stored row or line the reader could not read: its raw text kept as an `other` part
    /// tagged `original_type`, hidden from the model and the user, `error` saying why (naming
    /// file and line or row).
    pub fn unreadable(index: usize, original_type: &str, raw: String, error: String) -> Self {
        let mut m = Message::new(
            index,
            Role::System,
            vec![Part::Other {
                original_type: original_type.to_owned(),
                raw: Value::String(raw),
            }],
        );
        m.agent_visible = false;
        m.user_visible = false;
        m.error = Some(error);
        m
    }

    /// The value of one key of [`Message::details`], when it has it.
    pub fn detail(&self, key: &str) -> Option<Value> {
        self.details.as_ref()?.get(key)
    }

    /// Set one key of [`Message::details`] (made an object when there were none).
    pub fn set_detail(&mut self, key: &str, value: Value) {
        match &mut self.details {
            Some(d) => d.set(key, value),
            None => self.details = Some(CompactJson::new(&serde_json::json!({ key: value }))),
        }
    }

    /// True when any part is a tool result.
    pub fn has_tool_result(&self) -> bool {
        self.parts
            .iter()
            .any(|p| matches!(p, Part::ToolResult { .. }))
    }

    /// True when any part is a tool call.
    pub fn has_tool_call(&self) -> bool {
        self.parts
            .iter()
            .any(|p| matches!(p, Part::ToolCall { .. }))
    }

    /// goose's `has_text_only`: at least one text part and no tool call or result.
    pub fn has_text_only(&self) -> bool {
        self.parts.iter().any(|p| matches!(p, Part::Text { .. }))
            && !self.has_tool_call()
            && !self.has_tool_result()
    }

    /// The text parts joined with newlines.
    pub fn text(&self) -> String {
        let texts: Vec<&str> = self
            .parts
            .iter()
            .filter_map(|p| match p {
                Part::Text { text } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        texts.join("\n")
    }
}

/// Which view of a session to show.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "snake_case")]
pub enum View {
    /// Every stored message, visible or not.
    #[default]
    All,
    /// Exactly what the model receives on the next request.
    Agent,
    /// What the agent's own UI shows the user.
    User,
}

impl View {
    /// True when `m` belongs in this view.
    pub fn includes(self, m: &Message) -> bool {
        match self {
            View::All => true,
            View::Agent => m.agent_visible,
            View::User => m.user_visible,
        }
    }
}

/// A message held by value (a reader building its own) or shared (a session's): read as it is,
/// or changed, a shared one copied first when another holder still has it.
pub trait Held {
    /// The message.
    fn get(&self) -> &Message;
    /// The message to change.
    fn edit(&mut self) -> &mut Message;
}

impl Held for Message {
    fn get(&self) -> &Message {
        self
    }
    fn edit(&mut self) -> &mut Message {
        self
    }
}

impl Held for Arc<Message> {
    fn get(&self) -> &Message {
        self
    }
    fn edit(&mut self) -> &mut Message {
        Arc::make_mut(self)
    }
}

/// Messages built in order, as a session holds them (each shared: see [`Session::messages`]).
pub fn shared(messages: Vec<Message>) -> Vec<Arc<Message>> {
    messages.into_iter().map(Arc::new).collect()
}

/// A whole session: its listing data, its messages and the compactions its source recorded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Session {
    /// Listing data (message_count here equals `messages.len()`).
    pub meta: SessionMeta,
    /// Every stored message, in stored order, visible or not. Each is shared: a copy of the
    /// session (a live follower changing it while a command still reads the old one) costs a
    /// pointer per message, and a change copies only the messages it changes
    /// (`Arc::make_mut`).
    pub messages: Vec<Arc<Message>>,
    /// Compactions the source recorded explicitly.
    #[serde(default)]
    pub compactions: Vec<CompactionRecord>,
}

impl Session {
    /// The session as it was when only its first `n` messages were written: those messages
    /// (shared) and the compactions that cut among them. What a watcher saw before a change.
    pub fn prefix(&self, n: usize) -> Session {
        let n = n.min(self.messages.len());
        Session {
            meta: self.meta.clone(),
            messages: self.messages[..n].to_vec(),
            compactions: self
                .compactions
                .iter()
                .filter(|c| c.cut_index < n)
                .cloned()
                .collect(),
        }
    }

    /// Each message's position in [`Session::messages`], by its stored index.
    pub fn positions(&self) -> std::collections::HashMap<usize, usize> {
        self.messages
            .iter()
            .enumerate()
            .map(|(p, m)| (m.index, p))
            .collect()
    }

    /// A session made in memory (tests, benches, generated loops): `id` doubles as name and
    /// path, and the listing data says only what the messages and records tell.
    pub fn in_memory(
        id: &str,
        format: SourceFormat,
        messages: Vec<Message>,
        compactions: Vec<CompactionRecord>,
    ) -> Self {
        Session {
            meta: SessionMeta {
                id: id.to_owned(),
                format,
                path: id.to_owned(),
                name: id.to_owned(),
                working_dir: None,
                created: None,
                updated: None,
                model: None,
                context_limit: None,
                usage: None,
                message_count: messages.len(),
                compaction_count: compactions.len(),
                parent_id: None,
            },
            messages: shared(messages),
            compactions,
        }
    }

    /// The messages of one view, in order.
    pub fn view(&self, view: View) -> impl Iterator<Item = &Message> {
        self.iter().filter(move |m| view.includes(m))
    }

    /// Each message, in stored order, as a plain reference (the session shares them, so a
    /// copy of it costs a pointer per message; see [`Session::messages`]).
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &Message> + ExactSizeIterator {
        self.messages.iter().map(|m| &**m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn part_serialises_with_the_contract_tags() {
        let call = Part::ToolCall {
            id: "c1".into(),
            name: "shell".into(),
            arguments: serde_json::json!({"cmd": "ls"}).into(),
        };
        let v = serde_json::to_value(&call).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"type": "tool_call", "id": "c1", "name": "shell", "arguments": {"cmd": "ls"}}),
            "the CLI JSON contract names tool calls `tool_call` with id, name, arguments"
        );
        assert_eq!(
            call.type_name(),
            "tool_call",
            "type_name must match the serde tag"
        );
    }

    #[test]
    fn has_text_only_excludes_tool_traffic() {
        let text = Message::new(0, Role::User, vec![Part::Text { text: "hi".into() }]);
        let mut mixed = text.clone();
        mixed.parts.push(Part::ToolResult {
            call_id: "c".into(),
            text: String::new().into(),
            is_error: false,
            raw: Value::Null.into(),
        });
        assert!(
            text.has_text_only(),
            "a text-only user message qualifies for preservation"
        );
        assert!(
            !mixed.has_text_only(),
            "any tool result disqualifies it (goose's predicate)"
        );
    }
}
