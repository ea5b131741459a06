//! One session as one trace in the OpenTelemetry GenAI conventions: an `invoke_agent` span for
//! the session, carrying an event per compaction (`events`); under it a `chat` span per request,
//! with the model's view at that request (the Agent view's context,
//! `compaction::context::Eras`), its answer, its recorded usage and price (`usage`), and
//! `gen_ai.conversation.compacted` once a compaction is in force; under each request an
//! `execute_tool` span per tool call it made. A request billed outside the conversation's turns
//! (a compactor's summary call) is a `chat` span of its own, so the spans' prices add up to the
//! session's. The message shape is `messages`'; the wire format and where it goes are `mod`'s.

use opentelemetry_proto::tonic::trace::v1::{Span, Status, span as otel, status};
use serde_json::Value;

use super::usage::Usage;
use super::wire::{Ids, kv, model_attrs, span};
use super::{events, messages};
use crate::analysis::calls::Call;
use crate::compaction::context::Eras;
use crate::cost::{RequestCost, SessionCost};
use crate::model::{Message, Part, Role, Session};

/// What [`trace`] made of one session.
pub(super) struct Trace {
    pub spans: Vec<Span>,
    pub requests: usize,
    pub tool_calls: usize,
    pub compactions: usize,
}

/// The session's spans; `bodies` puts message texts, tool arguments and results and summaries
/// in them (without it, only counts, names, usage and times).
pub(super) fn trace(session: &Session, cost: Option<&SessionCost>, bodies: bool) -> Trace {
    let mut b = Builder {
        session,
        ids: Ids::of(session),
        times: times(session),
        eras: Eras::new(session),
        billed: cost.map_or(&[][..], |c| c.per_request.as_slice()),
        calls: crate::analysis::calls::calls(session),
        bodies,
        spans: Vec::new(),
        total: Usage::default(),
        tool_calls: 0,
    };
    let root = b.ids.span(0, 0);
    // Each request's answer: its messages `t..end` (consecutive assistant messages).
    let mut answered = Vec::new();
    let answers = b.eras.answers().to_vec();
    for (n, &t) in answers.iter().enumerate() {
        let end = (t..session.messages.len())
            .find(|&i| session.messages[i].role != Role::Assistant)
            .unwrap_or(session.messages.len());
        b.request(root, n, t, end);
        answered.push(t..end);
    }
    b.billed_outside(root, &answered);
    let root_span = b.root(root);
    let tool_calls = b.tool_calls;
    let mut spans = b.spans;
    spans.insert(0, root_span);
    Trace {
        spans,
        requests: answers.len(),
        tool_calls,
        compactions: session.compactions.len(),
    }
}

/// What the spans of one session are made from, and the spans made so far.
struct Builder<'a> {
    session: &'a Session,
    ids: Ids,
    times: Vec<u64>,
    eras: Eras,
    /// Every billed request, in message order.
    billed: &'a [RequestCost],
    /// Every tool call paired with its result, in stored order.
    calls: Vec<Call<'a>>,
    bodies: bool,
    spans: Vec<Span>,
    total: Usage,
    tool_calls: usize,
}

impl<'a> Builder<'a> {
    /// The billed requests recorded on messages `from..to`.
    fn billed_in(&self, from: usize, to: usize) -> &'a [RequestCost] {
        let lo = self.billed.partition_point(|r| r.message_index < from);
        let hi = self.billed.partition_point(|r| r.message_index < to);
        &self.billed[lo..hi.max(lo)]
    }

    /// Request `n` (0-based), answered by messages `t..end`, and its tool calls.
    fn request(&mut self, root: u64, n: usize, t: usize, end: usize) {
        let s = self.session;
        let context = self.eras.context_at(t);
        let usage = Usage::of(self.billed_in(t, end).iter());
        self.total.add(&usage);
        let answer: Vec<&Message> = s.messages[t..end].iter().map(|m| &**m).collect();
        let asked = usage.model.clone().or_else(|| s.meta.model.clone());
        let mut a = vec![
            kv("gen_ai.operation.name", "chat"),
            kv("gen_ai.conversation.id", s.meta.id.as_str()),
            kv(
                "gen_ai.conversation.compacted",
                self.eras.compactions_before(t) > 0,
            ),
            kv("palimpsest.request.number", (n + 1) as i64),
            kv("palimpsest.request.answer_index", t as i64),
            kv("palimpsest.request.answer_end", end as i64),
            kv("palimpsest.request.context_messages", context.len() as i64),
        ];
        if let Some(cut) = self.eras.cut_before(t) {
            a.push(kv("palimpsest.request.after_cut", cut as i64));
        }
        a.extend(model_attrs(asked.as_deref()));
        usage.attrs(&mut a);
        let finish = match answer.last().and_then(|m| m.parts.last()) {
            Some(Part::ToolCall { .. }) => "tool_call",
            _ => "stop",
        };
        a.push(kv("gen_ai.response.finish_reasons", vec![finish]));
        if self.bodies {
            let view: Vec<Value> = context
                .iter()
                .map(|&p| messages::input(&s.messages[p]))
                .collect();
            a.push(kv("gen_ai.input.messages", Value::Array(view).to_string()));
            let out = messages::output(&answer, finish);
            a.push(kv("gen_ai.output.messages", out.to_string()));
        }
        // From the message it answers to its last block.
        let start = context.last().map_or(self.times[t], |&p| self.times[p]);
        let id = self.ids.span(1, n as u64);
        let name = format!("chat {}", asked.as_deref().unwrap_or("unknown"));
        let kind = otel::SpanKind::Client;
        let span = span(
            &self.ids,
            id,
            root,
            name,
            kind,
            start,
            self.times[end - 1],
            a,
        );
        self.spans.push(span);
        self.tools(id, t, end);
    }

    /// The tool calls of messages `from..to`, under request span `request`: each from its
    /// call to its result.
    fn tools(&mut self, request: u64, from: usize, to: usize) {
        let s = self.session;
        let lo = self.calls.partition_point(|c| c.call_index < from);
        let hi = self.calls.partition_point(|c| c.call_index < to);
        for c in &self.calls[lo..hi.max(lo)] {
            let mut a = vec![
                kv("gen_ai.operation.name", "execute_tool"),
                kv("gen_ai.tool.name", c.name),
                kv("gen_ai.tool.call.id", c.id),
                kv("gen_ai.conversation.id", s.meta.id.as_str()),
            ];
            if self.bodies {
                a.push(kv(
                    "gen_ai.tool.call.arguments",
                    c.arguments.value().to_string(),
                ));
                if let Some(text) = c.result {
                    a.push(kv("gen_ai.tool.call.result", text.text().into_owned()));
                }
            }
            let at = self.times[c.call_index];
            let until = c.result_index.map_or(at, |r| self.times[r]);
            let (name, kind) = (format!("execute_tool {}", c.name), otel::SpanKind::Internal);
            let sid = self.ids.span(2, c.seq as u64);
            let mut span = span(&self.ids, sid, request, name, kind, at, until, a);
            if c.is_error {
                span.status = Some(Status {
                    message: "the tool reported a failure".into(),
                    code: status::StatusCode::Error as i32,
                });
            }
            self.spans.push(span);
            self.tool_calls += 1;
        }
    }

    /// A span for each message that recorded billed requests outside every answer in
    /// `answered` (sorted).
    fn billed_outside(&mut self, root: u64, answered: &[std::ops::Range<usize>]) {
        let s = self.session;
        let billed = self.billed;
        for (k, group) in billed
            .chunk_by(|a, b| a.message_index == b.message_index)
            .filter(|g| {
                let i = g[0].message_index;
                let after = answered.partition_point(|r| r.start <= i);
                i < s.messages.len() && !(after > 0 && answered[after - 1].contains(&i))
            })
            .enumerate()
        {
            let i = group[0].message_index;
            let usage = Usage::of(group.iter());
            self.total.add(&usage);
            let asked = usage.model.clone().or_else(|| s.meta.model.clone());
            let kind = serde_json::to_value(s.messages[i].kind)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default();
            let mut a = vec![
                kv("gen_ai.operation.name", "chat"),
                kv("gen_ai.conversation.id", s.meta.id.as_str()),
                kv("palimpsest.request.message_index", i as i64),
                kv("palimpsest.request.message_kind", kind),
            ];
            a.extend(model_attrs(asked.as_deref()));
            usage.attrs(&mut a);
            if self.bodies {
                let out = messages::output(&[&*s.messages[i]], "stop");
                a.push(kv("gen_ai.output.messages", out.to_string()));
            }
            let name = format!("chat {}", asked.as_deref().unwrap_or("unknown"));
            let (id, at) = (self.ids.span(3, k as u64), self.times[i]);
            let span = span(&self.ids, id, root, name, otel::SpanKind::Client, at, at, a);
            self.spans.push(span);
        }
    }

    /// The session's span, with its totals and an event per compaction.
    fn root(&self, root: u64) -> Span {
        let s = self.session;
        let agent = s.meta.format.family().as_str();
        let mut a = vec![
            kv("gen_ai.operation.name", "invoke_agent"),
            kv("gen_ai.agent.name", agent),
            kv("gen_ai.conversation.id", s.meta.id.as_str()),
            kv("palimpsest.session.path", s.meta.path.as_str()),
            kv("palimpsest.session.format", s.meta.format.as_str()),
            kv("palimpsest.session.messages", s.messages.len() as i64),
            kv(
                "palimpsest.session.requests",
                self.eras.answers().len() as i64,
            ),
            kv("palimpsest.session.compactions", s.compactions.len() as i64),
        ];
        // The title is most often the session's first words.
        if self.bodies {
            a.push(kv("palimpsest.session.name", s.meta.name.as_str()));
        }
        if let Some(parent) = &s.meta.parent_id {
            a.push(kv("palimpsest.session.parent_id", parent.as_str()));
        }
        a.extend(model_attrs(s.meta.model.as_deref()));
        self.total.attrs(&mut a);
        let (first, last) = (
            self.times.first().copied().unwrap_or(0),
            self.times.last().copied().unwrap_or(0),
        );
        let name = format!("invoke_agent {agent}");
        let mut span = span(
            &self.ids,
            root,
            0,
            name,
            otel::SpanKind::Internal,
            first,
            last,
            a,
        );
        span.events = self
            .eras
            .cuts()
            .iter()
            .map(|&(_, ci)| events::compaction(s, &self.eras, ci, &self.times, self.bodies))
            .collect();
        span
    }
}

/// Every message's time in Unix nanoseconds: its own, else the last one before it, else the
/// first one after it, else the session's last update (a source that dates nothing).
fn times(session: &Session) -> Vec<u64> {
    let known: Vec<Option<i64>> = session.messages.iter().map(|m| m.created).collect();
    let first = known.iter().flatten().next().copied();
    let fallback = first
        .or(session.meta.updated)
        .or(session.meta.created)
        .unwrap_or(0);
    let mut last = fallback;
    known
        .iter()
        .map(|t| {
            last = t.unwrap_or(last);
            (last.max(0) as u64).saturating_mul(1_000_000)
        })
        .collect()
}
