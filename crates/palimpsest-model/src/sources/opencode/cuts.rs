//! What an OpenCode session's stored messages say about its compactions, once `build` made
//! them into the model's messages: each finished compaction (a request answered by a finished,
//! error-free summary) and the tail its part kept, each prune run, and what the model sees on
//! its next request (OpenCode's `filterCompacted`). Reading the parts is `build`'s.

use std::collections::{BTreeMap, HashMap};

use serde_json::{Value, json};

use crate::model::{CompactionRecord, Message, MessageKind, Role, Trigger};

/// One stored message, read: where its model messages start, and what it is.
pub(super) struct Read {
    pub id: String,
    pub first: usize,
    pub role: Option<String>,
    pub data: Value,
    /// The compaction part of a compaction request.
    pub compaction: Option<Value>,
}

/// The compactions that finished: each request answered by a finished, error-free summary.
pub(super) fn cuts(messages: &[Message], read: &[Read]) -> Vec<CompactionRecord> {
    let at: HashMap<&str, &Read> = read.iter().map(|r| (r.id.as_str(), r)).collect();
    let mut out = Vec::new();
    for s in read {
        let finished = s.role.as_deref() == Some("assistant")
            && s.data["summary"] == json!(true)
            && !s.data["finish"].is_null()
            && s.data.get("error").is_none_or(Value::is_null);
        let Some(request) = s.data["parentID"]
            .as_str()
            .and_then(|p| at.get(p))
            .filter(|_| finished)
        else {
            continue;
        };
        let Some(part) = &request.compaction else {
            continue;
        };
        let cut = request.first;
        let kept: Vec<usize> = part["tail_start_id"]
            .as_str()
            .and_then(|t| at.get(t))
            .map(|t| (t.first..cut).collect())
            .unwrap_or_default();
        let trigger = match (part["auto"].as_bool(), part["overflow"].as_bool()) {
            (Some(true), Some(true)) => Trigger::Recovery,
            (Some(true), _) => Trigger::Auto,
            _ => Trigger::Manual,
        };
        // OpenCode's overflow test counts the last answer's whole usage.
        let pre = messages[..cut]
            .iter()
            .rev()
            .find(|m| m.kind != MessageKind::Summary && !m.usage.is_empty())
            .map(|m| m.usage.iter().map(|u| u.prompt() + u.output).sum::<u64>());
        let post = messages[s.first..]
            .iter()
            .skip(1)
            .find(|m| m.role == Role::Assistant && !m.usage.is_empty())
            .and_then(Message::recorded_prompt);
        out.push(CompactionRecord {
            cut_index: cut,
            trigger: Some(trigger),
            pre_tokens: pre,
            post_tokens: post,
            post_tokens_from_usage: post.is_some(),
            summary_index: Some(s.first),
            kept,
            raw: Some(part.clone()),
            applied_index: None,
            archived: None,
        });
    }
    out
}

/// One microcompact record per prune run (outputs compacted at one time), in force from the
/// first message written after it.
pub(super) fn prunes(messages: &[Message], pruned: &[(i64, String)]) -> Vec<CompactionRecord> {
    let mut runs: BTreeMap<i64, Vec<String>> = BTreeMap::new();
    for (t, call) in pruned {
        runs.entry(*t).or_default().push(call.clone());
    }
    runs.into_iter()
        .filter_map(|(t, calls)| {
            let cut = messages
                .iter()
                .position(|m| m.created.is_some_and(|c| c > t))?;
            Some(CompactionRecord {
                cut_index: cut,
                trigger: Some(Trigger::Micro),
                pre_tokens: None,
                post_tokens: None,
                post_tokens_from_usage: false,
                summary_index: None,
                kept: Vec::new(),
                raw: Some(json!({"compactedToolIds": calls, "compacted": t})),
                applied_index: None,
                archived: None,
            })
        })
        .collect()
}

/// What the model sees on its next request, as OpenCode's `filterCompacted` builds it: from
/// the newest finished compaction's retained tail (or the compaction itself) on.
pub(super) fn see(messages: &mut [Message], read: &[Read]) {
    let mut finished: Vec<&str> = Vec::new();
    let mut from = None;
    for r in read.iter().rev() {
        if r.role.as_deref() == Some("user")
            && finished.contains(&r.id.as_str())
            && let Some(part) = &r.compaction
        {
            from = Some(match part["tail_start_id"].as_str() {
                // A tail that is not in the session (a fork's) retains everything.
                Some(t) => read.iter().find(|x| x.id == t).map_or(0, |x| x.first),
                None => r.first,
            });
            break;
        }
        if r.role.as_deref() == Some("assistant")
            && r.data["summary"] == json!(true)
            && !r.data["finish"].is_null()
            && r.data.get("error").is_none_or(Value::is_null)
            && let Some(p) = r.data["parentID"].as_str()
        {
            finished.push(p);
        }
    }
    for m in messages.iter_mut().take(from.unwrap_or(0)) {
        m.agent_visible = false;
    }
}
