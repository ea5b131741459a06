//! A compaction as its source recorded it ([`CompactionRecord`]) and how it was started
//! ([`Trigger`]). Readers fill these from boundary lines, notices and `compacted` items; which
//! messages a cut took from the model's view, and the cut view around it, are `compaction`'s.

use std::collections::HashMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Message, Part};

/// How a compaction was started, when the source says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "snake_case")]
pub enum Trigger {
    /// The threshold was crossed.
    Auto,
    /// The user asked (`/compact`).
    Manual,
    /// The provider rejected a request as too long and the agent compacted to recover.
    Recovery,
    /// Old tool results were cleared (Claude microcompact) or a trim without summary.
    Micro,
    /// Tool results were swapped for stubs in place (Claude Code `content-replacement`): no
    /// boundary, no summary, nothing dropped.
    Replacement,
    /// One span of the conversation was replaced by a summary (Claude Code context collapse,
    /// `marble-origami-commit`); what lies outside the span stays.
    Collapse,
}

/// A compaction as the source recorded it (boundary lines, notices, `compacted` items).
/// Formats that leave no record (goose) get theirs from `compaction`'s detection instead.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct CompactionRecord {
    /// Index of the first message after the cut (the boundary marker or the summary).
    pub cut_index: usize,
    /// How it started, when recorded.
    pub trigger: Option<Trigger>,
    /// Context tokens before, when recorded.
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub pre_tokens: Option<u64>,
    /// Context tokens after, when recorded.
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub post_tokens: Option<u64>,
    /// `post_tokens` was taken from the recorded usage of the first request after the cut
    /// (the record itself had none): recorded by the provider, not estimated.
    #[serde(default)]
    pub post_tokens_from_usage: bool,
    /// The message holding the summary, when there is one.
    pub summary_index: Option<usize>,
    /// Indices of messages kept verbatim across the cut, when the record says.
    #[serde(default)]
    pub kept: Vec<usize>,
    /// The record as stored.
    pub raw: Option<Value>,
    /// Index of the message at which the compaction took effect, when later than `cut_index`
    /// (coworker writes its block at the boundary but compacts at its later `compacted`
    /// notice: requests answered in between still saw the pre-compaction context).
    #[serde(default)]
    pub applied_index: Option<usize>,
    /// For a [`Trigger::Collapse`]: the first and last message of the span it archived. Such a
    /// cut drops only that span (none when the span was not found).
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(type = "[number, number] | null"))]
    pub archived: Option<(usize, usize)>,
}

impl CompactionRecord {
    /// The call ids whose results this record cleared: a microcompact's `compactedToolIds`, or a
    /// content replacement's `replacements[].toolUseId`.
    pub fn cleared_calls(&self) -> Vec<String> {
        let raw = self.raw.as_ref();
        if let Some(a) = raw
            .and_then(|m| m.get("compactedToolIds"))
            .and_then(Value::as_array)
        {
            return a
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect();
        }
        raw.and_then(|m| m.get("replacements"))
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|r| r.get("toolUseId").and_then(Value::as_str))
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default()
    }

    /// True when this compaction may have taken message `index` (before its cut) out of the
    /// model's view: not kept, and inside the archived span of a collapse.
    pub fn may_drop(&self, index: usize) -> bool {
        if self.kept.contains(&index) {
            return false;
        }
        match self.trigger {
            Some(Trigger::Collapse) => self.archived.is_some_and(|(a, b)| a <= index && index <= b),
            _ => true,
        }
    }

    /// The position from which the compaction is in force: requests answered at or before it
    /// saw the context before the compaction, later ones the compacted context. That is
    /// `applied_index` when the record has one (never before the cut), else `cut_index`.
    pub fn effective_index(&self) -> usize {
        self.applied_index
            .map_or(self.cut_index, |a| a.max(self.cut_index))
    }
}

/// Where each tool call's results are in a list of messages: the positions of the messages
/// holding a result of it, in order, each once. Microcompacts and content replacements name
/// the calls whose results they cleared; a session can have hundreds of them, so the results
/// are found once for all, not by a scan of the messages for each.
pub struct ResultHolders<'a>(HashMap<&'a str, Vec<usize>>);

impl<'a> ResultHolders<'a> {
    /// Every tool result of `messages`.
    pub fn of(messages: &'a [Arc<Message>]) -> Self {
        let mut by_call: HashMap<&str, Vec<usize>> = HashMap::new();
        for (pos, m) in messages.iter().enumerate() {
            for p in &m.parts {
                if let Part::ToolResult { call_id, .. } = p {
                    let at = by_call.entry(call_id.as_str()).or_default();
                    if at.last() != Some(&pos) {
                        at.push(pos);
                    }
                }
            }
        }
        ResultHolders(by_call)
    }

    /// The positions before `before` holding a result of one of `calls`, in order, each once.
    pub fn of_calls<'c>(
        &self,
        calls: impl IntoIterator<Item = &'c str>,
        before: usize,
    ) -> Vec<usize> {
        let mut out: Vec<usize> = calls
            .into_iter()
            .filter_map(|id| self.0.get(id))
            .flatten()
            .copied()
            .filter(|&p| p < before)
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }
}
