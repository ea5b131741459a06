//! Who sees what in a Claude Code session: active branch, compaction cuts, microcompaction;
//! and, for a compaction whose record has no context size after it, the next request's usage.
//!
//! Runs once all lines are read (`build` made the messages). The rules:
//! - **Branches.** A rewound sibling branch or an inline sidechain line is off the active
//!   chain (`chain` says which): seen by neither.
//! - **Compaction.** Everything before the last `compact_boundary` is invisible to the model,
//!   except a `preservedSegment` (kept verbatim); the summary and what follows are visible.
//! - **Microcompaction.** The message stays; each listed tool result keeps its stored value in
//!   `raw` while its `text` becomes [`CLEARED`], which is what the model receives, and
//!   `details.microcompacted` lists the cleared call ids.
//! - **Content replacement, context collapse.** `replace`'s rules, applied before the above.

use std::collections::HashSet;
use std::sync::Arc;

use serde_json::{Value, json};

use super::build::{Builder, CLEARED, is_conversation};
use crate::model::{CompactionRecord, Part, ResultHolders, Trigger};

/// Apply the rules above to the messages; returns the compactions recorded in the file.
/// `main` is false for a subagent file, whose lines are all sidechain lines.
pub fn apply(b: &mut Builder, main: bool) -> Vec<CompactionRecord> {
    // Subagent files have no rewinds, and their first lines point into the main file (the
    // compactor's copies), so a chain walk there would misread them as abandoned branches.
    if main {
        mark_branches(b);
    }
    // Replacements and collapses first: a compaction's preserved segment keeps only what was
    // still in view.
    let mut records = super::build::replace::apply(b);
    let boundaries: Vec<usize> = b
        .nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| n.subtype.as_deref() == Some("compact_boundary"))
        .map(|(i, _)| i)
        .collect();
    for &at in &boundaries {
        records.push(full_record(b, at));
    }
    if let Some(&last) = boundaries.last() {
        let kept: HashSet<usize> = records
            .last()
            .map(|r| r.kept.iter().copied().collect())
            .unwrap_or_default();
        for m in &mut b.messages[..last] {
            if !kept.contains(&m.index) && m.agent_visible {
                Arc::make_mut(m).agent_visible = false;
            }
        }
    }
    let micro: Vec<usize> = b
        .nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| n.subtype.as_deref() == Some("microcompact_boundary"))
        .map(|(i, _)| i)
        .collect();
    // The messages each microcompact clears, found before any is changed.
    let ids: Vec<HashSet<String>> = micro.iter().map(|&at| compacted_ids(b, at)).collect();
    let holders: Vec<Vec<usize>> = if micro.is_empty() {
        Vec::new()
    } else {
        let results = ResultHolders::of(&b.messages);
        micro
            .iter()
            .zip(&ids)
            .map(|(&at, ids)| results.of_calls(ids.iter().map(String::as_str), at))
            .collect()
    };
    for ((at, ids), holders) in micro.into_iter().zip(ids).zip(holders) {
        records.push(micro_record(b, at, &ids, holders));
    }
    records.sort_by_key(|r| r.cut_index);
    records
}

fn mark_branches(b: &mut Builder) {
    let off = super::chain::branches(b);
    for (m, why) in b.messages.iter_mut().zip(off) {
        if let Some(why) = why {
            super::chain::mark_off(Arc::make_mut(m), why);
        }
    }
}

fn meta_u64(meta: Option<&Value>, key: &str) -> Option<u64> {
    meta.and_then(|m| m.get(key)).and_then(Value::as_u64)
}

fn trigger(meta: Option<&Value>) -> Option<Trigger> {
    match meta.and_then(|m| m.get("trigger")).and_then(Value::as_str) {
        Some("auto" | "automatic") => Some(Trigger::Auto),
        Some("manual") => Some(Trigger::Manual),
        _ => None,
    }
}

fn full_record(b: &mut Builder, at: usize) -> CompactionRecord {
    let node = &b.nodes[at];
    let meta = node.compact_meta.as_deref().cloned();
    let uuid = node.uuids.first().copied();
    let logical = node.logical_parent.clone();
    let summary_index = (at + 1..b.messages.len())
        .find(|&i| b.nodes[i].compact_summary && b.nodes[i].parent == uuid)
        .or_else(|| (at + 1..b.messages.len()).find(|&i| b.nodes[i].compact_summary));
    let mut kept = Vec::new();
    if let Some(seg) = meta.as_ref().and_then(|m| m.get("preservedSegment")) {
        let pos = |key: &str| {
            let u = b.parents.find(seg.get(key).and_then(Value::as_str)?)?;
            b.nodes[..at].iter().position(|n| n.uuids.contains(&u))
        };
        if let (Some(head), Some(tail)) = (pos("headUuid"), pos("tailUuid")) {
            kept = (head.min(tail)..=head.max(tail))
                .filter(|&i| is_conversation(&b.messages[i]) && b.messages[i].agent_visible)
                .collect();
        }
    }
    let found = logical.as_ref().is_some_and(|l| b.parents.contains_key(l));
    Arc::make_mut(&mut b.messages[at])
        .set_detail("logical_parent", json!({ "uuid": logical, "found": found }));
    CompactionRecord {
        cut_index: at,
        trigger: trigger(meta.as_ref()),
        pre_tokens: meta_u64(meta.as_ref(), "preTokens"),
        post_tokens: meta_u64(meta.as_ref(), "postTokens"),
        post_tokens_from_usage: false,
        summary_index,
        kept,
        raw: meta,
        applied_index: None,
        archived: None,
    }
}

/// The call ids the microcompact at `at` lists as cleared.
fn compacted_ids(b: &Builder, at: usize) -> HashSet<String> {
    b.nodes[at]
        .compact_meta
        .as_deref()
        .and_then(|m| m.get("compactedToolIds"))
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// The record of the microcompact at `at`, clearing the results of `ids` in the earlier
/// messages at `holders`.
fn micro_record(
    b: &mut Builder,
    at: usize,
    ids: &HashSet<String>,
    holders: Vec<usize>,
) -> CompactionRecord {
    let meta = b.nodes[at].compact_meta.as_deref().cloned();
    for i in holders {
        let m = Arc::make_mut(&mut b.messages[i]);
        let mut cleared = Vec::new();
        for p in &mut m.parts {
            if let Part::ToolResult {
                call_id, text, raw, ..
            } = p
                && ids.contains(call_id.as_str())
            {
                // `raw` dropped a plain-string content as a duplicate of `text`: put it back.
                let stored = std::mem::replace(text, CLEARED.into()).into_string();
                raw.edit(|raw| {
                    if let Value::Object(o) = raw
                        && !o.contains_key("content")
                    {
                        o.insert("content".into(), Value::String(stored));
                    }
                });
                cleared.push(json!(call_id));
            }
        }
        if !cleared.is_empty() {
            m.set_detail("microcompacted", Value::Array(cleared));
        }
    }
    let pre = meta_u64(meta.as_ref(), "preTokens");
    let saved = meta_u64(meta.as_ref(), "tokensSaved");
    CompactionRecord {
        cut_index: at,
        trigger: Some(Trigger::Micro),
        pre_tokens: pre,
        post_tokens: pre.zip(saved).map(|(p, s)| p.saturating_sub(s)),
        post_tokens_from_usage: false,
        summary_index: None,
        kept: Vec::new(),
        raw: meta,
        applied_index: None,
        archived: None,
    }
}
/// A compaction whose record has no `postTokens` gets the context of the first request after
/// it, as the provider recorded it (input + cache reads + cache writes), marked as such.
pub(super) fn post_from_usage(
    compactions: &mut [crate::model::CompactionRecord],
    messages: &[std::sync::Arc<crate::model::Message>],
) {
    let next_cut: Vec<usize> = compactions
        .iter()
        .skip(1)
        .map(|c| c.cut_index)
        .chain(std::iter::once(usize::MAX))
        .collect();
    for (c, end) in compactions.iter_mut().zip(next_cut) {
        if c.post_tokens.is_some()
            || matches!(
                c.trigger,
                Some(
                    crate::model::Trigger::Micro
                        | crate::model::Trigger::Replacement
                        // No recorded size before it either: one estimate beside another.
                        | crate::model::Trigger::Collapse
                )
            )
        {
            continue;
        }
        let start = c.effective_index();
        let used = messages
            .iter()
            .skip(start)
            .take_while(|m| m.index < end)
            .filter(|m| m.role == crate::model::Role::Assistant)
            .find_map(|m| m.recorded_prompt().filter(|&u| u > 0));
        if let Some(u) = used {
            c.post_tokens = Some(u);
            c.post_tokens_from_usage = true;
        }
    }
}
