//! How a list of messages becomes a provider request array, so a finding can quote the index
//! the provider would put in its error (transcript-formats.md §3). The mapping, per API:
//!
//! **OpenAI Chat Completions** (`messages.[N].role`, N counts every array entry):
//! - `system_prompt: true` puts the agent's system prompt at `messages[0]` (every agent we read
//!   sends one and stores it outside the message list), unless the list already opens on a
//!   system message. A stored summary keeps its own role and place: goose's and coworker's are
//!   `user` messages right after it, so a summary is `messages[1]`.
//! - A stored system message is one `system` entry, in place.
//! - Consecutive assistant messages are one `assistant` entry holding all their `tool_calls`
//!   (Claude Code writes one content block per line; a client sends one message).
//! - A user or tool message becomes one `tool` entry per tool result, in order, then one `user`
//!   entry for whatever else it holds (text, images), if anything.
//!
//! **Anthropic Messages** (`messages.N` / `messages.N.content.J`):
//! - System messages go to the top-level `system` parameter and take no index.
//! - Consecutive messages of the same side (user and tool results are the `user` side) are one
//!   entry, as the API merges them; `J` counts content blocks across the merged entry.
//!
//! Parts that carry no content a provider would receive still count as blocks: the readers only
//! keep what the agent stored, and guessing which parts a client strips would make indices lie
//! in the other direction.

use serde::{Deserialize, Serialize};

use crate::model::{Message, Part, Role};

/// The provider whose validation rules and error texts a lint applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "snake_case")]
pub enum Api {
    /// OpenAI Chat Completions (and strict compatible servers).
    Openai,
    /// Anthropic Messages API.
    Anthropic,
}

impl Api {
    /// The stable name used on the command line and in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Api::Openai => "openai",
            Api::Anthropic => "anthropic",
        }
    }
}

/// How a request is laid out beyond the messages themselves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestShape {
    /// Which API.
    pub api: Api,
    /// The client sends a system prompt that is not in the message list (OpenAI index shifts by
    /// one; Anthropic puts it in `system`).
    pub system_prompt: bool,
}

/// What one content block is, for pairing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Block<'a> {
    Call(&'a str),
    Result(&'a str),
    Other,
}

/// One entry of the request array.
#[derive(Debug, Clone)]
pub(crate) struct Entry<'a> {
    /// OpenAI role name or the Anthropic side (`user`/`assistant`/`system`).
    pub role: &'static str,
    /// `(block, position in the input slice)`; for an OpenAI `tool` entry exactly one result.
    pub blocks: Vec<(Block<'a>, usize)>,
}

impl Entry<'_> {
    pub fn calls(&self) -> impl Iterator<Item = (&str, usize, usize)> + '_ {
        self.blocks
            .iter()
            .enumerate()
            .filter_map(|(j, (b, pos))| match b {
                Block::Call(id) => Some((*id, j, *pos)),
                _ => None,
            })
    }
}

fn block(p: &Part) -> Block<'_> {
    match p {
        Part::ToolCall { id, .. } => Block::Call(id),
        Part::ToolResult { call_id, .. } => Block::Result(call_id),
        _ => Block::Other,
    }
}

/// Build the request array for `msgs` (already the context, in order).
pub(crate) fn build<'a>(msgs: &[&'a Message], shape: RequestShape) -> Vec<Entry<'a>> {
    match shape.api {
        Api::Openai => openai(msgs, shape.system_prompt),
        Api::Anthropic => anthropic(msgs),
    }
}

fn openai<'a>(msgs: &[&'a Message], system_prompt: bool) -> Vec<Entry<'a>> {
    let mut out: Vec<Entry<'a>> = Vec::with_capacity(msgs.len() + 1);
    if system_prompt && msgs.first().is_none_or(|m| m.role != Role::System) {
        out.push(Entry {
            role: "system",
            blocks: Vec::new(),
        });
    }
    let mut prev_assistant = false;
    for (pos, m) in msgs.iter().enumerate() {
        match m.role {
            Role::System => out.push(Entry {
                role: "system",
                blocks: m.parts.iter().map(|p| (block(p), pos)).collect(),
            }),
            Role::Assistant => {
                let blocks = m.parts.iter().map(|p| (block(p), pos));
                match out.last_mut() {
                    Some(last) if prev_assistant => last.blocks.extend(blocks),
                    _ => out.push(Entry {
                        role: "assistant",
                        blocks: blocks.collect(),
                    }),
                }
            }
            Role::User | Role::Tool => {
                let mut rest = Vec::new();
                for p in &m.parts {
                    match block(p) {
                        b @ Block::Result(_) => out.push(Entry {
                            role: "tool",
                            blocks: vec![(b, pos)],
                        }),
                        b => rest.push((b, pos)),
                    }
                }
                if !rest.is_empty() || !m.has_tool_result() {
                    out.push(Entry {
                        role: "user",
                        blocks: rest,
                    });
                }
            }
        }
        prev_assistant = m.role == Role::Assistant;
    }
    out
}

fn anthropic<'a>(msgs: &[&'a Message]) -> Vec<Entry<'a>> {
    let mut out: Vec<Entry<'a>> = Vec::with_capacity(msgs.len());
    for (pos, m) in msgs.iter().enumerate() {
        let side = match m.role {
            Role::System => continue,
            Role::Assistant => "assistant",
            Role::User | Role::Tool => "user",
        };
        let blocks = m.parts.iter().map(|p| (block(p), pos));
        match out.last_mut() {
            Some(last) if last.role == side => last.blocks.extend(blocks),
            _ => out.push(Entry {
                role: side,
                blocks: blocks.collect(),
            }),
        }
    }
    out
}
