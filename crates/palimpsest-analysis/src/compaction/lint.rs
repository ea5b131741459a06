//! Pairing lint: tool results without their call, calls without results, duplicate ids, and
//! results that are not where the provider wants them, with the exact error each provider would
//! return (transcript-formats.md §3; the index mapping is [`super::request`]'s).
//!
//! [`lint_messages`] checks one list as one request and is pure and linear, for replay to count
//! the orphans of a rebuilt history. [`lint_session`] checks the context of every request a
//! session made (rebuilt by [`super::context::Eras`]), plus the request it would make next, and
//! names the compaction cut that caused each finding when one did.
//!
//! Error texts beyond §3: `'tool_call_id' of '…' not found in 'tool_calls' of previous message`
//! (OpenAI, dapr/dapr-agents#145) and ``messages.N.content.J: `tool_use` ids must be unique``
//! (Anthropic, anthropics/claude-code#20901, #21317). Where no provider text is documented
//! (OpenAI duplicate ids, a second result in the right place) `error_text` is `None`.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::context::Eras;
use super::request::{self, Api, Block, Entry, RequestShape};
use crate::model::{Message, Session};

/// What is wrong with a tool pairing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "snake_case")]
pub enum FindingKind {
    /// A tool result whose call is not in the context before it.
    OrphanResult,
    /// A tool call with no result anywhere after it in the context.
    UnansweredCall,
    /// A second call with the same id, or a second result for one call.
    DuplicateId,
    /// A result whose call is in the context, but not in the message right before it.
    MisplacedResult,
}

/// One pairing problem.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Finding {
    /// What is wrong.
    pub kind: FindingKind,
    /// Stored index ([`Message::index`]) of the message holding the offending part.
    pub message_index: usize,
    /// The tool call id.
    pub call_id: String,
    /// The `cut_index` of the compaction that caused it, when one did.
    pub caused_by_cut: Option<usize>,
    /// The API whose rules and texts apply.
    pub api: Api,
    /// The index in the request array that the error names (`messages.[N]` / `messages.N`).
    pub request_entry: Option<usize>,
    /// The error text the provider returns for this problem (HTTP 400), indices filled in.
    pub error_text: Option<String>,
    /// OpenAI's `param` (`messages.[N].role`); Anthropic puts the index in the text.
    pub error_param: Option<String>,
    /// First request (1-based, see `Eras::requests`) whose context had the problem.
    pub first_request: Option<usize>,
    /// Last request whose context had it (`request_count` = the next request).
    pub last_request: Option<usize>,
}

/// Every pairing finding of a session, for one API.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct LintReport {
    /// The API whose rules were applied.
    pub api: Api,
    /// Requests checked, counting the next one.
    pub requests: usize,
    /// Findings, each reported once, ordered by message.
    pub findings: Vec<Finding>,
}

/// Lint `msgs` as the message array of one request to `api`, exactly as given (no system
/// prompt added). A call at the very end counts as unanswered. Findings carry no cut and no
/// request numbers. Linear in the number of parts.
pub fn lint_messages(msgs: &[&Message], api: Api) -> Vec<Finding> {
    let shape = RequestShape {
        api,
        system_prompt: false,
    };
    lint_request(msgs, shape, false)
        .into_iter()
        .map(|(f, _)| f)
        .collect()
}

fn openai_unanswered(k: usize, missing: &[&str]) -> (String, Option<String>) {
    (
        format!(
            "An assistant message with 'tool_calls' must be followed by tool messages responding \
             to each 'tool_call_id'. The following tool_call_ids did not have response messages: {}",
            missing.join(", ")
        ),
        Some(format!("messages.[{k}].role")),
    )
}

fn anthropic_unanswered(k: usize, missing: &[&str]) -> (String, Option<String>) {
    (
        format!(
            "messages.{k}: `tool_use` ids were found without `tool_result` blocks immediately \
             after: {}. Each `tool_use` block must have a corresponding `tool_result` block in \
             the next message.",
            missing.join(", ")
        ),
        None,
    )
}

/// Lint one request; each finding comes with the position (in `msgs`) of its message.
pub(crate) fn lint_request(
    msgs: &[&Message],
    shape: RequestShape,
    pending_tail_ok: bool,
) -> Vec<(Finding, usize)> {
    let entries = request::build(msgs, shape);
    let api = shape.api;
    let finding = |kind, pos: usize, id: &str, k, text: Option<(String, Option<String>)>| {
        let (error_text, error_param) = match text {
            Some((t, p)) => (Some(t), p),
            None => (None, None),
        };
        (
            Finding {
                kind,
                message_index: msgs[pos].index,
                call_id: id.to_owned(),
                caused_by_cut: None,
                api,
                request_entry: Some(k),
                error_text,
                error_param,
                first_request: None,
                last_request: None,
            },
            pos,
        )
    };
    let mut out = Vec::new();

    // Where every call and result sits: (entry, block).
    let mut first_call: HashMap<&str, usize> = HashMap::new();
    let mut result_count: HashMap<&str, usize> = HashMap::new();
    for (k, e) in entries.iter().enumerate() {
        for (j, (b, pos)) in e.blocks.iter().enumerate() {
            match *b {
                Block::Call(id) => {
                    if first_call.contains_key(id) {
                        let text = (api == Api::Anthropic).then(|| {
                            (
                                format!("messages.{k}.content.{j}: `tool_use` ids must be unique"),
                                None,
                            )
                        });
                        out.push(finding(FindingKind::DuplicateId, *pos, id, k, text));
                    } else {
                        first_call.insert(id, k);
                    }
                }
                Block::Result(id) => *result_count.entry(id).or_default() += 1,
                Block::Other => {}
            }
        }
    }

    // The slot right after each assistant entry, and what it answers.
    let mut consumed: Vec<Vec<bool>> = entries
        .iter()
        .map(|e| vec![false; e.blocks.len()])
        .collect();
    let mut answered: HashMap<&str, bool> = HashMap::new();
    let mut entry_error: HashMap<usize, (String, Option<String>)> = HashMap::new();
    for (k, e) in entries.iter().enumerate() {
        if e.role != "assistant" || e.calls().next().is_none() {
            continue;
        }
        if pending_tail_ok && k + 1 == entries.len() {
            continue;
        }
        let slot = answer_slot(&entries, k, api);
        let mut missing = Vec::new();
        for (id, _, pos) in e.calls() {
            let hit = slot
                .iter()
                .find(|&&(q, j)| !consumed[q][j] && entries[q].blocks[j].0 == Block::Result(id));
            match hit {
                Some(&(q, j)) => {
                    consumed[q][j] = true;
                    answered.insert(id, true);
                }
                None => missing.push((id, pos)),
            }
        }
        if missing.is_empty() {
            continue;
        }
        let ids: Vec<&str> = missing.iter().map(|(id, _)| *id).collect();
        let text = match api {
            Api::Openai => openai_unanswered(k, &ids),
            Api::Anthropic => anthropic_unanswered(k, &ids),
        };
        for (id, pos) in missing {
            // A result elsewhere is reported as misplaced, on the result.
            if result_count.get(id).copied().unwrap_or(0) == 0 {
                out.push(finding(
                    FindingKind::UnansweredCall,
                    pos,
                    id,
                    k,
                    Some(text.clone()),
                ));
            }
        }
        entry_error.insert(k, text);
    }

    // Results that nothing consumed.
    for (q, e) in entries.iter().enumerate() {
        for (j, (b, pos)) in e.blocks.iter().enumerate() {
            let Block::Result(id) = *b else { continue };
            if consumed[q][j] {
                continue;
            }
            let call_entry = first_call.get(id).copied().filter(|&k| k < q);
            let (kind, k, text) = if answered.contains_key(id) {
                (
                    FindingKind::DuplicateId,
                    q,
                    misplaced_text(&entries, q, j, id, api),
                )
            } else if let Some(k) = call_entry {
                (
                    FindingKind::MisplacedResult,
                    k,
                    entry_error.get(&k).cloned(),
                )
            } else {
                (
                    FindingKind::OrphanResult,
                    q,
                    misplaced_text(&entries, q, j, id, api),
                )
            };
            out.push(finding(kind, *pos, id, k, text));
        }
    }
    out.sort_by_key(|(f, pos)| (*pos, f.call_id.clone()));
    out
}

/// The `(entry, block)` results that may answer the calls of assistant entry `k`.
fn answer_slot(entries: &[Entry<'_>], k: usize, api: Api) -> Vec<(usize, usize)> {
    match api {
        Api::Openai => entries[k + 1..]
            .iter()
            .enumerate()
            .take_while(|(_, e)| e.role == "tool")
            .map(|(i, _)| (k + 1 + i, 0))
            .collect(),
        Api::Anthropic => match entries.get(k + 1) {
            Some(e) if e.role == "user" => e
                .blocks
                .iter()
                .enumerate()
                .take_while(|(_, (b, _))| matches!(b, Block::Result(_)))
                .map(|(j, _)| (k + 1, j))
                .collect(),
            _ => Vec::new(),
        },
    }
}

/// The error a result at `(q, j)` gets from its position alone.
fn misplaced_text(
    entries: &[Entry<'_>],
    q: usize,
    j: usize,
    id: &str,
    api: Api,
) -> Option<(String, Option<String>)> {
    match api {
        Api::Openai => {
            let prev = entries[..q].iter().rev().find(|e| e.role != "tool");
            match prev {
                Some(p) if p.role == "assistant" && p.calls().next().is_some() => {
                    if p.calls().any(|(c, _, _)| c == id) {
                        None
                    } else {
                        Some((
                            format!(
                                "Invalid parameter: 'tool_call_id' of '{id}' not found in \
                                 'tool_calls' of previous message."
                            ),
                            Some(format!("messages.[{q}].role")),
                        ))
                    }
                }
                _ => Some((
                    "Invalid parameter: messages with role 'tool' must be a response to a \
                     preceeding message with 'tool_calls'."
                        .to_owned(),
                    Some(format!("messages.[{q}].role")),
                )),
            }
        }
        Api::Anthropic => {
            let prev_has = q > 0
                && entries[q - 1].role == "assistant"
                && entries[q - 1].calls().any(|(c, _, _)| c == id);
            (!prev_has).then(|| {
                (
                    format!(
                        "messages.{q}.content.{j}: unexpected `tool_use_id` found in \
                         `tool_result` blocks: {id}. Each `tool_result` block must have a \
                         corresponding `tool_use` block in the previous message."
                    ),
                    None,
                )
            })
        }
    }
}

/// Lint the context of every request of `session` (and of the next one).
///
/// Within one era (between two cuts) each request's context extends the previous one, so a
/// problem persists until the next cut and its indices do not move: the lint runs once per
/// era, on its last request, and dates each finding by the first request of that era after its
/// message. A call left open by the session's very last message is a tool still running, not a
/// finding.
pub fn lint_session(session: &Session, eras: &Eras, shape: RequestShape) -> LintReport {
    let mut points: Vec<usize> = eras.answers().to_vec();
    points.push(session.messages.len());
    let era_of = |t: usize| eras.compactions_before(t);
    let mut findings: Vec<Finding> = Vec::new();
    let mut seen: HashMap<(FindingKind, usize, String), usize> = HashMap::new();
    let mut start = 0;
    while start < points.len() {
        let era = era_of(points[start]);
        let mut end = start;
        while end + 1 < points.len() && era_of(points[end + 1]) == era {
            end += 1;
        }
        let t = points[end];
        let ctx = eras.context_at(t);
        let msgs: Vec<&Message> = ctx.iter().map(|&p| &*session.messages[p]).collect();
        let last = t == session.messages.len();
        for (mut f, pos) in lint_request(&msgs, shape, last) {
            let stored = ctx[pos];
            let key = (f.kind, f.message_index, f.call_id.clone());
            if let Some(&i) = seen.get(&key) {
                findings[i].last_request = Some(end + 1);
                continue;
            }
            f.first_request = points[start..=end]
                .iter()
                .position(|&p| p > stored)
                .map(|i| start + i + 1);
            f.last_request = Some(end + 1);
            f.caused_by_cut = cause(session, eras, &f, stored, t);
            seen.insert(key, findings.len());
            findings.push(f);
        }
        start = end + 1;
    }
    findings.sort_by_key(|f| (f.message_index, f.call_id.clone()));
    LintReport {
        api: shape.api,
        requests: points.len(),
        findings,
    }
}

/// The cut behind a finding at request point `t`: the compaction that dropped the missing
/// counterpart (the call of an orphan, the result of an unanswered call), or else the one whose
/// post-cut block (cut up to the first answer after it) placed the offending message.
fn cause(session: &Session, eras: &Eras, f: &Finding, pos: usize, t: usize) -> Option<usize> {
    let want_call = !matches!(f.kind, FindingKind::UnansweredCall);
    let dropped = session.messages[..t].iter().enumerate().find_map(|(p, m)| {
        let holds = m.parts.iter().any(|part| match part {
            crate::model::Part::ToolCall { id, .. } => want_call && *id == f.call_id,
            crate::model::Part::ToolResult { call_id, .. } => !want_call && *call_id == f.call_id,
            _ => false,
        });
        if !holds || eras.visible_at(p, t) {
            return None;
        }
        let ci = eras.dropped_by(p)?;
        (eras.effect(ci) < t).then_some(session.compactions[ci].cut_index)
    });
    dropped.or_else(|| {
        let (cut, _) = *eras.cuts().iter().rev().find(|(c, _)| *c <= pos)?;
        let answered_between = eras.answers().iter().any(|&a| a > cut && a < pos);
        (!answered_between).then_some(cut)
    })
}
