//! OpenWorker's `coworker` compaction as a policy over the session model (coworker-format
//! §2–§4): the trigger, `pick_boundary`, the preserved user messages, the mechanical working
//! state, and the compacted block (rendered by the reader's `sources::coworker::block`, so the
//! text is built in one place). The tool-result cap lives in [`super::cap`].
//!
//! Sizes follow the harness: estimates are `len(json.dumps(msg)) // 4` ([`super::pyjson`]) over
//! each message as coworker's engine holds it, sidecar keys and notices included. The reader
//! measures every stored dict once (`sources::coworker::stored`, `details.stored_len`), so the
//! app and CLI size exactly without passing the stored lines; the OpenAI chat shape rebuilt
//! from the model ([`stored_value`]) sizes only what the reader did not measure (a copy capped
//! by the replay, a block the reader rebuilt). Clips count code points.

use serde_json::{Map, Value, json};

use crate::model::{Held, Message, MessageKind, Part, Role};
use crate::sources::coworker::block::{BlockStyle, CompactionState, compacted_block};
pub use crate::sources::coworker::stored::outbound_value;

/// coworker's knobs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    /// `compaction_threshold_pct` (0.8).
    pub threshold: f64,
    /// The model's context window (128 000 when unknown).
    pub window: u64,
    /// `compaction_cap_tokens` (250 000).
    pub cap: u64,
    /// MAIN-0821 rules: 600-char clips, newest 40 user messages, no transcript line.
    pub legacy: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            threshold: super::defaults::DEFAULTS.threshold,
            window: super::defaults::DEFAULTS.context_window,
            cap: super::defaults::DEFAULTS.trigger_cap,
            legacy: false,
        }
    }
}

impl Settings {
    /// `min(int(threshold × window), cap)`.
    pub fn trigger(&self) -> u64 {
        ((self.threshold * self.window as f64) as u64).min(self.cap)
    }
    /// Tokens kept verbatim after the boundary: `int(0.25 × trigger)`.
    pub fn keep_tokens(&self) -> u64 {
        (0.25 * self.trigger() as f64) as u64
    }
    /// The preserved-user-message budget: `max(2000, min(20000, int(0.08 × trigger)))`.
    pub fn user_budget(&self) -> u64 {
        ((0.08 * self.trigger() as f64) as u64).clamp(2_000, 20_000)
    }
}

/// A message as coworker stores it: the raw line when known, else the chat shape rebuilt.
pub fn stored_value(m: &Message, raw: Option<&Value>) -> Value {
    if let Some(r) = raw {
        return r.clone();
    }
    let role = match (m.role, m.kind) {
        (_, MessageKind::Notification) => "notice",
        (Role::System, _) => "system",
        (Role::User, _) if m.has_tool_result() => "tool",
        (Role::User, _) => "user",
        (Role::Assistant, _) => "assistant",
        (Role::Tool, _) => "tool",
    };
    let mut o = Map::new();
    o.insert("role".into(), json!(role));
    if role == "tool" {
        let (id, text) = m
            .parts
            .iter()
            .find_map(|p| match p {
                Part::ToolResult { call_id, text, .. } => Some((call_id.clone(), text.clone())),
                _ => None,
            })
            .unwrap_or_default();
        o.insert("tool_call_id".into(), json!(id));
        o.insert("content".into(), json!(text));
        return Value::Object(o);
    }
    o.insert("content".into(), json!(m.text()));
    let calls: Vec<Value> = m
        .parts
        .iter()
        .filter_map(|p| match p {
            Part::ToolCall {
                id,
                name,
                arguments,
            } => Some(json!({"id": id, "type": "function", "function": {
                "name": name, "arguments": super::pyjson::dumps(&arguments.value())}})),
            _ => None,
        })
        .collect();
    if !calls.is_empty() {
        o.insert("tool_calls".into(), Value::Array(calls));
    }
    Value::Object(o)
}

/// A compacted block the coworker reader inserted into the timeline (not a stored message).
pub fn is_rebuilt_block(m: &Message) -> bool {
    m.kind == MessageKind::Summary && m.detail("synthetic").and_then(|v| v.as_bool()) == Some(true)
}

/// For each message of a session, its index in coworker's canonical list (the stored lines,
/// without the blocks the reader inserts): what `boundary_index` and transcript names count.
/// A rebuilt block gets the index of the stored message after it.
pub fn canonical_indices(messages: &[impl Held]) -> Vec<usize> {
    let mut n = 0;
    messages
        .iter()
        .map(|m| {
            let m = m.get();
            let at = n;
            if !is_rebuilt_block(m) {
                n += 1;
            }
            at
        })
        .collect()
}

/// Which role `pick_boundary` sees at an index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    /// A user message (not a tool result).
    User,
    /// An assistant message.
    Assistant,
    /// System, tool results, notices.
    Other,
}

/// How coworker's `_turn_starts` sees a message: users (not tool results) and assistants are
/// candidate boundaries; system messages, tool results and notices are not.
pub fn slot_of(m: &Message) -> Slot {
    match m.role {
        _ if m.kind == MessageKind::Notification => Slot::Other,
        Role::User if !m.has_tool_result() => Slot::User,
        Role::Assistant => Slot::Assistant,
        _ => Slot::Other,
    }
}

/// coworker's `pick_boundary` over `slots[..end]`, with `prefix[i]` = sum of the stored JSON
/// lengths of `[0, i)`. Returns the boundary, or `None` when it would not move past `start` (the
/// first index after a system message) or past `prior`.
pub fn pick_boundary(
    slots: &[Slot],
    prefix: &[u64],
    start: usize,
    end: usize,
    prior: usize,
    keep_tokens: u64,
) -> Option<usize> {
    let fits = |i: usize| (prefix[end] - prefix[i]) / 4 <= keep_tokens;
    // Suffix estimates shrink as i grows: the first fitting index, by bisection.
    let (mut lo, mut hi) = (start, end);
    while lo < hi {
        let mid = (lo + hi) / 2;
        if fits(mid) { hi = mid } else { lo = mid + 1 }
    }
    let first_fit = lo;
    let pick = if let Some(u) = (first_fit..end).find(|&i| slots[i] == Slot::User) {
        Some(u)
    } else if let Some(newest) = (start..end).rev().find(|&i| slots[i] == Slot::User) {
        let turn = newest + 1..end;
        turn.clone()
            .find(|&i| i >= first_fit && slots[i] == Slot::Assistant)
            .or_else(|| turn.rev().find(|&i| slots[i] == Slot::Assistant))
            .or(Some(newest))
    } else {
        // No user message: an assistant that fits, else the last one (`_fit(assistants) or
        // assistants[-1]`).
        (first_fit.max(start)..end)
            .find(|&i| slots[i] == Slot::Assistant)
            .or_else(|| (start..end).rev().find(|&i| slots[i] == Slot::Assistant))
    };
    pick.filter(|&b| b > start && b > prior)
}

/// Whitespace-normalise like Python's `" ".join(s.split())`.
pub fn normalise(s: &str) -> String {
    s.split(py_isspace)
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Python's `str.isspace` for one character: Unicode White_Space (Rust's `is_whitespace`)
/// plus the four information separators U+001C–U+001F, which Python's `str.split()` also
/// splits on.
pub fn py_isspace(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// A message's content as coworker flattens it (`content_to_text`): text parts joined by a
/// space, an image as `[image]`, a file as `[pdf]`.
pub fn content_text(m: &Message) -> String {
    let parts: Vec<&str> = m
        .parts
        .iter()
        .filter_map(|p| match p {
            Part::Text { text } => Some(text.as_str()),
            Part::Image { .. } => Some("[image]"),
            Part::Other { original_type, .. } if original_type == "file" => Some("[pdf]"),
            _ => None,
        })
        .collect();
    parts.join(" ").trim().to_owned()
}

fn clip(s: &str, max_chars: usize) -> String {
    if s.chars().count() > max_chars {
        let mut c: String = s.chars().take(max_chars.saturating_sub(1)).collect();
        c.push('…');
        c
    } else {
        s.to_owned()
    }
}

/// `fit_user_messages`: the prior list plus the span's messages → (kept, newly dropped).
pub fn fit_user_messages(all: &[String], settings: &Settings) -> (Vec<String>, u64) {
    let all: Vec<&String> = all.iter().filter(|s| !s.is_empty()).collect();
    if settings.legacy {
        let keep_from = all.len().saturating_sub(40);
        let kept = all[keep_from..].iter().map(|s| clip(s, 600)).collect();
        return (kept, keep_from as u64);
    }
    let Some((first, rest)) = all.split_first() else {
        return (Vec::new(), 0);
    };
    let budget = settings.user_budget();
    let mut kept_rev: Vec<String> = Vec::new();
    let mut used = 0u64;
    for (n, u) in rest.iter().rev().enumerate() {
        let cost = (u.chars().count() as u64 / 4).max(1);
        if n == 0 {
            used += cost.min(budget);
            kept_rev.push(clip(u, budget as usize * 4));
            continue;
        }
        if used + cost > budget {
            break;
        }
        used += cost;
        kept_rev.push((*u).clone());
    }
    let dropped = (rest.len() - kept_rev.len()) as u64;
    let mut kept = vec![clip(first, 16_000)];
    kept.extend(kept_rev.into_iter().rev());
    (kept, dropped)
}

/// The state coworker builds for the span before `boundary_index` (`build_state`): the prior
/// state's preserved user messages and the span's, fitted to the budget; the span's working
/// state; the omitted count carried on; the transcript line the current rules write. The one
/// builder the one-shot replay, the run forward and `--verify` share.
pub fn build_state<'a>(
    prior: Option<&CompactionState>,
    span: impl IntoIterator<Item = &'a Message> + Clone,
    boundary_index: usize,
    summary_text: String,
    settings: &Settings,
) -> CompactionState {
    let mut users = prior.map(|p| p.user_messages.clone()).unwrap_or_default();
    users.extend(span_user_texts(span.clone(), settings.legacy));
    let (kept, newly) = fit_user_messages(&users, settings);
    CompactionState {
        boundary_index,
        summary_text,
        working_state: working_state(span),
        user_messages: kept,
        user_messages_dropped: prior.map_or(0, |p| p.user_messages_dropped) + newly,
        transcript_path: if settings.legacy {
            String::new()
        } else {
            format!(
                "tool-output/{}",
                crate::sources::coworker::block::transcript_file_name(boundary_index)
            )
        },
        has_transcript_key: !settings.legacy,
        ..CompactionState::default()
    }
}

/// The user messages of a span, normalised, empty ones skipped. The output-limit continuation
/// nudges (`_display.kind == "continuation"`, the harness speaking, not the user) are left out
/// under the current rules, as the copy that introduced them does, and kept under the `legacy`
/// rules, as upstream `main` keeps them.
pub fn span_user_texts<'a>(
    span: impl IntoIterator<Item = &'a Message>,
    legacy: bool,
) -> Vec<String> {
    span.into_iter()
        .filter(|m| m.role == Role::User && m.kind == MessageKind::Ordinary && !m.has_tool_result())
        .filter(|m| legacy || !is_continuation_nudge(m))
        .map(|m| normalise(&content_text(m)))
        .filter(|t| !t.is_empty())
        .collect()
}

fn is_continuation_nudge(m: &Message) -> bool {
    m.detail("_display")
        .is_some_and(|d| d.get("kind").and_then(Value::as_str) == Some("continuation"))
}

#[path = "coworker_working.rs"]
mod working;
#[cfg(test)]
use working::shell_status;
pub use working::working_state;

/// The compacted block for a new state, rendered by the reader's renderer.
pub fn block(state: &CompactionState, legacy: bool) -> String {
    compacted_block(
        state,
        if legacy {
            BlockStyle::Legacy
        } else {
            BlockStyle::Current
        },
    )
}

#[cfg(test)]
#[path = "coworker_tests.rs"]
mod tests;
