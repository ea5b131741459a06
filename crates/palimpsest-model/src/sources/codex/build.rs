//! Turning Codex rollout lines into messages.
//!
//! `response_item`s are what the model saw: each becomes one message (reasoning, a function
//! call, its output...; converted by `items`). Calls and outputs pair only by `call_id`; nothing is invented for an
//! unanswered call. `compacted` items cut the history: with `replacement_history` everything
//! before becomes invisible to the model and the replacement items are appended as the new
//! visible context (the encrypted `compaction` item as an opaque summary; newer rollouts write
//! `replacement_history_entries`, whose references name an earlier item by id and are resolved
//! here, an unresolvable one an error row naming it); with only `message`
//! (local compaction) the summary becomes a user message and the recent user messages that
//! Codex carries over stay visible. `event_msg`s are UI echoes: `token_count` gives recorded
//! usage (the session's last, each answer's `last_token_usage` in its details, and the billed
//! counts no answer carries as the last answer's `more_token_usage`), the rest is only counted.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::model::{CompactionRecord, Message, MessageKind, Part, RecordedUsage, Role};
use crate::sources::jsonl::Line;
use crate::sources::scan::millis;

use super::items::is_injected;
pub use super::items::item;

/// Codex carries at most this many tokens of recent user messages across a local compaction.
const LOCAL_KEEP_TOKENS: usize = 20_000;

/// The state of a rollout being read. Serialized (a snapshot, `super::resume`) between reads;
/// the values and records whose serde reads any shape go as JSON text.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Builder {
    /// Messages in stored order.
    #[serde(with = "crate::model::snap::owned")]
    pub messages: Vec<Message>,
    /// The name the user last gave the thread (`thread_name_updated`), the session's title.
    pub thread_name: Option<String>,
    /// For each message, the 1-based line it came from.
    pub lines: Vec<usize>,
    /// Compactions recorded.
    #[serde(with = "crate::sources::kept::json")]
    pub compactions: Vec<CompactionRecord>,
    /// Lines per `type` (`event_msg:<type>` and `response_item:<type>` for payloads).
    pub counts: BTreeMap<String, usize>,
    /// `session_meta.payload`.
    #[serde(with = "crate::sources::kept::json")]
    pub session_meta: Option<Value>,
    /// Last `turn_context.model`.
    pub model: Option<String>,
    /// Last `cwd` (session_meta or turn_context).
    pub cwd: Option<String>,
    /// Context window from `token_count` / `task_started`.
    pub context_window: Option<u64>,
    /// Last recorded usage.
    #[serde(with = "crate::sources::kept::json")]
    pub usage: Option<RecordedUsage>,
    /// `last_token_usage.total_tokens` of the latest `token_count`, for a compaction's pre-tokens.
    last_total: Option<u64>,
    /// The latest model message stored since the previous `token_count`: the answer the next
    /// `token_count` reports on.
    unreported_answer: Option<usize>,
    /// Each distinct count (by `total_token_usage.total_tokens`; Codex repeats counts), with
    /// whether it was put on an answer (the ones that were not are billed all the same) and
    /// the model of the turn it was reported in.
    #[serde(with = "crate::sources::kept::json")]
    billed: Vec<Billed>,
    /// The rollout, for error rows that name it.
    pub path: std::path::PathBuf,
    /// Response items seen so far by their `id`, for `replacement_history_entries` that refer to
    /// an earlier item instead of repeating it.
    #[serde(with = "crate::sources::kept::json")]
    known_items: std::collections::HashMap<String, Value>,
    /// The first earlier message a line changed since [`Builder::take_touched`] (a count that
    /// reports on it, a compaction that hid it), for a reader that goes on (`super::resume`).
    #[serde(skip)]
    touched: Option<usize>,
}

/// One distinct `token_count`: its running total (the key Codex repeats counts under), the
/// request's `last_token_usage`, whether an answer carries it, and the turn's model.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Billed {
    key: Option<u64>,
    usage: Value,
    placed: bool,
    model: Option<String>,
}

fn s<'a>(v: &'a Value, k: &str) -> Option<&'a str> {
    v.get(k).and_then(Value::as_str)
}

impl Builder {
    /// Put the counts no answer carries (billed, but reported before their answer or for a
    /// request a compaction replaced) on the last answer of `messages` (this builder's, or a
    /// copy of them) of the model they were billed under, as `more_token_usage`: cost reads
    /// them there at that model's price, the context views do not.
    pub fn finish_billing(&self, messages: &mut [Message]) {
        for (i, usages) in self.billing(messages) {
            messages[i].set_detail("more_token_usage", Value::Array(usages));
        }
    }

    /// The first message [`Builder::finish_billing`] puts counts on, if any: a reader that goes
    /// on reports it changed when the counts move away from it or onto it.
    pub fn billed_from(&self, messages: &[Message]) -> Option<usize> {
        self.billing(messages).into_keys().next()
    }

    /// Which answer of `messages` carries which unplaced counts.
    fn billing(&self, messages: &[Message]) -> BTreeMap<usize, Vec<Value>> {
        let mut left: BTreeMap<Option<&str>, Vec<Value>> = BTreeMap::new();
        for b in self.billed.iter().filter(|b| !b.placed) {
            left.entry(b.model.as_deref())
                .or_default()
                .push(b.usage.clone());
        }
        let answers = |model: Option<&str>| {
            messages.iter().rposition(|m| {
                m.role == Role::Assistant
                    && model.is_none_or(|want| {
                        m.detail("model").as_ref().and_then(Value::as_str) == Some(want)
                    })
            })
        };
        let mut put: BTreeMap<usize, Vec<Value>> = BTreeMap::new();
        for (model, usages) in left {
            if let Some(i) = answers(model).or_else(|| answers(None)) {
                put.entry(i).or_default().extend(usages);
            }
        }
        put
    }

    /// The first earlier message the lines fed since the last call changed (see `touched`).
    pub fn take_touched(&mut self) -> Option<usize> {
        self.touched.take()
    }

    fn touch(&mut self, i: usize) {
        self.touched = Some(self.touched.map_or(i, |t| t.min(i)));
    }

    /// Feed one line.
    pub fn push(&mut self, line: Line) {
        let v = match line.value {
            Ok(v) => v,
            Err(bad) => {
                *self.counts.entry("invalid".into()).or_default() += 1;
                let m = Message::unreadable(0, "unparsed_line", bad.raw, bad.error.to_string());
                self.add(m, line.number);
                return;
            }
        };
        let created = s(&v, "timestamp").and_then(millis);
        let (typ, payload) = match (s(&v, "type"), v.get("payload")) {
            (Some(t), Some(p)) => (t.to_owned(), p.clone()),
            // Legacy rollouts: a bare metadata line, then bare response items.
            (Some(_), None) => ("response_item".to_owned(), v.clone()),
            (None, _) if v.get("id").is_some() => ("session_meta".to_owned(), v.clone()),
            _ => ("unknown".to_owned(), v.clone()),
        };
        let sub = s(&payload, "type").unwrap_or("");
        let key = match typ.as_str() {
            "event_msg" | "response_item" => format!("{typ}:{sub}"),
            _ => typ.clone(),
        };
        *self.counts.entry(key).or_default() += 1;
        match typ.as_str() {
            "session_meta" => {
                self.cwd = s(&payload, "cwd").map(str::to_owned).or(self.cwd.take());
                self.session_meta.get_or_insert(payload);
            }
            "turn_context" => {
                if let Some(m) = s(&payload, "model") {
                    self.model = Some(m.to_owned());
                }
                if let Some(c) = s(&payload, "cwd") {
                    self.cwd = Some(c.to_owned());
                }
            }
            "event_msg" => {
                if let Some(n) = super::thread_name_of(&v) {
                    self.thread_name = Some(n);
                }
                self.event(&payload);
            }
            "response_item" => {
                self.know(&payload);
                if let Some(mut m) = item(&payload) {
                    m.created = created;
                    self.add(m, line.number);
                }
            }
            "compacted" => self.compacted(&payload, created, line.number),
            // A record type this reader does not know: kept as an invisible `other` row.
            other => {
                let mut m = Message::new(
                    0,
                    Role::System,
                    vec![crate::model::Part::Other {
                        original_type: other.to_owned(),
                        raw: v,
                    }],
                );
                m.agent_visible = false;
                m.user_visible = false;
                m.created = created;
                self.add(m, line.number);
            }
        }
    }

    fn add(&mut self, mut m: Message, number: usize) {
        m.index = self.messages.len();
        if m.role == Role::Assistant && m.kind == MessageKind::Ordinary {
            self.unreported_answer = Some(m.index);
            // The turn's model (`turn_context`), so a rollout that switches model is priced
            // request by request at the model that answered.
            if let Some(model) = &self.model {
                m.set_detail("model", json!(model));
            }
        }
        self.messages.push(m);
        self.lines.push(number);
    }

    fn event(&mut self, p: &Value) {
        match s(p, "type") {
            Some("token_count") => {
                let info = p.get("info");
                if let Some(w) = info
                    .and_then(|i| i.get("model_context_window"))
                    .and_then(Value::as_u64)
                {
                    self.context_window = Some(w);
                }
                let last = info.and_then(|i| i.get("last_token_usage"));
                let total = info.and_then(|i| i.get("total_token_usage"));
                if let Some(last) = last {
                    let key = total
                        .and_then(|t| t.get("total_tokens"))
                        .and_then(Value::as_u64);
                    if self
                        .billed
                        .last()
                        .is_none_or(|b| key.is_none() || b.key != key)
                    {
                        self.billed.push(Billed {
                            key,
                            usage: last.clone(),
                            placed: false,
                            model: self.model.clone(),
                        });
                    }
                    // Per-request usage rides on the answer it reports on (the token report reads
                    // it there); a count with no answer since the previous one (the request a
                    // compaction replaced) stays session-level only.
                    let answer = self.unreported_answer.take();
                    if let Some(i) = answer {
                        self.touch(i);
                        self.messages[i].set_detail("last_token_usage", last.clone());
                        if let Some(b) = self.billed.last_mut() {
                            b.placed = true;
                        }
                    }
                    let n = |k: &str| last.get(k).and_then(Value::as_u64);
                    // A count with no input (Codex writes some, their total the session's) says
                    // nothing of the context: it is neither a cut's size before nor after.
                    let input = n("input_tokens").filter(|&i| i > 0);
                    if input.is_some() {
                        self.last_total = n("total_tokens");
                    }
                    // The first request answered after a cut is the context the cut left.
                    if let (Some(input), Some(i), Some(c)) =
                        (input, answer, self.compactions.last_mut())
                        && c.post_tokens.is_none()
                        && i >= c.cut_index
                    {
                        c.post_tokens = Some(input);
                        c.post_tokens_from_usage = true;
                    }
                    self.usage = Some(RecordedUsage {
                        input_tokens: n("input_tokens"),
                        output_tokens: n("output_tokens"),
                        total_tokens: n("total_tokens"),
                        cache_read_tokens: n("cached_input_tokens"),
                        cache_write_tokens: None,
                        accumulated_total_tokens: total
                            .and_then(|t| t.get("total_tokens"))
                            .and_then(Value::as_u64),
                        // OpenAI's input_tokens already includes cached_input_tokens.
                        context_tokens: n("input_tokens"),
                    });
                }
            }
            Some("task_started") => {
                if let Some(w) = p.get("model_context_window").and_then(Value::as_u64) {
                    self.context_window = Some(w);
                }
            }
            _ => {}
        }
    }

    /// Remember a response item by its id (the key `replacement_history_entries` refer by).
    fn know(&mut self, item: &Value) {
        if let Some(id) = s(item, "id") {
            self.known_items
                .entry(id.to_owned())
                .or_insert_with(|| item.clone());
        }
    }

    /// `replacement_history_entries` as items: `inline` entries carry theirs, `reference` and
    /// `reference_v2` name an earlier item by id (the digest of v2 is not checked here). Returns
    /// the items and the ids no earlier item has.
    fn entries(&self, entries: &[Value]) -> (Vec<Value>, Vec<String>) {
        let (mut items, mut missing) = (Vec::new(), Vec::new());
        for e in entries {
            match s(e, "type") {
                Some("inline") => items.extend(e.get("item").cloned()),
                Some("reference" | "reference_v2") => {
                    let id = s(e, "item_id").unwrap_or("");
                    match self.known_items.get(id) {
                        Some(it) => items.push(it.clone()),
                        None => missing.push(id.to_owned()),
                    }
                }
                other => missing.push(format!("(an entry of type {})", other.unwrap_or("none"))),
            }
        }
        (items, missing)
    }

    fn compacted(&mut self, p: &Value, created: Option<i64>, number: usize) {
        let mut cut = self.messages.len();
        let pre_tokens = self.last_total;
        let mut raw = p.clone();
        match p.get("replacement_history") {
            None | Some(Value::Null) | Some(Value::Array(_)) => {}
            // Not a list: nothing can be taken as the new context. Kept as an error row
            // naming the line rather than dropped.
            Some(other) => {
                let kind = if other.is_object() {
                    "an object"
                } else {
                    "not a list"
                };
                let error = crate::error::Error::Line {
                    path: self.path.clone(),
                    line: number,
                    message: format!(
                        "compacted.replacement_history is {kind}: this compaction cannot be applied"
                    ),
                };
                let m = Message::unreadable(0, "compacted", p.to_string(), error.to_string());
                self.add(m, number);
                return;
            }
        }
        let from_entries = match (
            p.get("replacement_history"),
            p.get("replacement_history_entries"),
        ) {
            (None | Some(Value::Null), Some(Value::Array(entries))) => Some(self.entries(entries)),
            _ => None,
        };
        if let Some((_, missing)) = &from_entries
            && !missing.is_empty()
        {
            // Applied with what resolves; the row names what did not.
            let error = crate::error::Error::Line {
                path: self.path.clone(),
                line: number,
                message: format!(
                    "compacted.replacement_history_entries refers to {} no earlier item of this rollout has: {}",
                    if missing.len() == 1 {
                        "an item"
                    } else {
                        "items"
                    },
                    missing.join(", ")
                ),
            };
            let m = Message::unreadable(0, "compacted", p.to_string(), error.to_string());
            self.add(m, number);
            // The row belongs to what the cut leaves behind: the new context starts after it.
            cut = self.messages.len();
        }
        let listed = p
            .get("replacement_history")
            .and_then(Value::as_array)
            .cloned();
        let entry_count = from_entries.as_ref().map(|(i, m)| (i.len(), m.len()));
        if let Some(items) = listed.or(from_entries.map(|(i, _)| i)) {
            for it in &items {
                self.know(it);
            }
            self.touch(0);
            for m in &mut self.messages {
                m.agent_visible = false;
            }
            let mut kept = Vec::new();
            let mut summary_index = None;
            for it in &items {
                let Some(mut m) = item(it) else { continue };
                m.created = created;
                m.set_detail("replacement_history", json!(true));
                if m.kind == MessageKind::Summary {
                    summary_index = Some(self.messages.len());
                } else {
                    m.kind = MessageKind::PreservedCopy;
                    kept.push(self.messages.len());
                }
                self.add(m, number);
            }
            // The items are messages now; the record keeps the rest of the payload.
            if let Value::Object(o) = &mut raw {
                match entry_count {
                    Some((resolved, missing)) => {
                        o.insert(
                            "replacement_history_entries".into(),
                            json!({ "items": resolved, "unresolved": missing }),
                        );
                    }
                    None => {
                        o.insert(
                            "replacement_history".into(),
                            json!({ "items": items.len() }),
                        );
                    }
                }
            }
            self.compactions.push(CompactionRecord {
                cut_index: cut,
                trigger: None,
                pre_tokens,
                post_tokens: None,
                post_tokens_from_usage: false,
                summary_index,
                kept,
                raw: Some(raw),
                applied_index: None,
                archived: None,
            });
            return;
        }
        let text = s(p, "message").unwrap_or("").to_owned();
        let kept = self.local_kept();
        self.touch(0);
        for m in &mut self.messages {
            m.agent_visible = kept.contains(&m.index);
        }
        let mut m = Message::new(0, Role::User, vec![Part::Text { text }]);
        m.kind = MessageKind::Summary;
        m.created = created;
        m.user_visible = false;
        self.add(m, number);
        if let Value::Object(o) = &mut raw {
            o.remove("message");
        }
        self.compactions.push(CompactionRecord {
            cut_index: cut,
            trigger: None,
            pre_tokens,
            post_tokens: None,
            post_tokens_from_usage: false,
            summary_index: Some(cut),
            kept,
            raw: Some(raw),
            applied_index: None,
            archived: None,
        });
    }

    /// The user messages Codex's local compaction carries over: the most recent real prompts
    /// (not injected context, not earlier summaries), newest first, up to the token budget
    /// (≈ 4 bytes a token), returned in stored order.
    fn local_kept(&self) -> Vec<usize> {
        let mut budget = LOCAL_KEEP_TOKENS;
        let mut kept = Vec::new();
        for m in self.messages.iter().rev() {
            if m.role != Role::User || m.kind != MessageKind::Ordinary || !m.agent_visible {
                continue;
            }
            let text = m.text();
            if text.is_empty() || is_injected(&text) {
                continue;
            }
            let tokens = text.len().div_ceil(4);
            if tokens > budget {
                break;
            }
            budget -= tokens;
            kept.push(m.index);
        }
        kept.reverse();
        kept
    }
}
