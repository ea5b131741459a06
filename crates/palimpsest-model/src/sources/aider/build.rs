//! One Aider session as messages and cuts: its chat-log blocks (`history`) and, when Aider
//! logged them, the requests it sent (`llm`), which say what the model really held.
//!
//! Typed lines are the user's messages; a command (`/add`, `/run`, `/undo` …) is a notice,
//! shown and never sent, but `/ask`, `/code`, `/architect` and `/context` send the words after them;
//! `/clear` and `/reset` end the conversation (`history::split_at_clears` starts the next part
//! as a session of its own). Quoted lines are
//! Aider's notices; its `Tokens: … sent, … received` line is the usage of the reply before it
//! and its `Model:` line names the model. Aider summarises old messages in the background
//! (`ChatSummary`): a request whose history opens with "I spoke to you previously about a
//! number of things." carries a summary. Each new one is a cut, placed before the user message
//! of the turn whose request first carried it; the messages it kept are the earlier ones the
//! request still holds word for word. Requests are matched to replies by their text, in order.

use std::collections::HashSet;
use std::path::Path;

use serde_json::json;

use super::history::{ChatSession, Kind};
use super::llm::Request;
use crate::model::{
    CompactionRecord, Message, MessageKind, Part, Role, SessionMeta, SourceFormat, Trigger,
    UsageSplit,
};

/// How Aider's summary of earlier messages opens (`prompts.summary_prefix`).
pub const SUMMARY_PREFIX: &str = "I spoke to you previously about a number of things.";

/// Commands whose words are sent to the model as the user's message.
const SENDING: [&str; 4] = ["/ask", "/code", "/architect", "/context"];

/// A session built.
pub struct Built {
    /// The messages, summaries in place.
    pub messages: Vec<Message>,
    /// The summaries' cuts.
    pub compactions: Vec<CompactionRecord>,
    /// The last model named.
    pub model: Option<String>,
    /// When the requests matched to its replies were sent, in order.
    pub sent: Vec<String>,
}

/// What a message is, for the model's view.
#[derive(Clone, Copy, PartialEq)]
enum Sends {
    /// Held by the model from now on.
    Yes,
    /// Never sent (a notice, a command).
    No,
}

/// Build `s`; `requests` are the logged requests of its time span, `model` the one named
/// before it (in the part of its session before a `/clear`).
pub fn build(s: &ChatSession, requests: &[Request], model: Option<String>) -> Built {
    let mut items: Vec<(Message, Sends)> = Vec::new();
    let mut model = model;
    for b in &s.blocks {
        let text = |t: &str| vec![Part::Text { text: t.to_owned() }];
        match b.kind {
            Kind::Notice => {
                for l in b.text.lines() {
                    if let Some(m) = model_of(l) {
                        model = Some(m);
                    }
                    if let Some(u) = usage_of(l)
                        && let Some((m, _)) = items
                            .iter_mut()
                            .rev()
                            .find(|(m, _)| m.role == Role::Assistant && m.usage.is_empty())
                    {
                        m.usage.push(u);
                    }
                }
                let mut m = Message::new(0, Role::System, text(&b.text));
                m.kind = MessageKind::Notification;
                m.set_detail("line", json!(b.line));
                items.push((m, Sends::No));
            }
            Kind::User => {
                let word = b.text.split_whitespace().next().unwrap_or_default();
                // `/clear` ends its part of the session (`history::split_at_clears`): a
                // notice like any other command.
                let (sent, sends) = if !b.text.starts_with('/') {
                    (b.text.as_str(), Sends::Yes)
                } else if SENDING.contains(&word) {
                    (b.text[word.len()..].trim_start(), Sends::Yes)
                } else {
                    (b.text.as_str(), Sends::No)
                };
                // A command that sends nothing is a notice of what the user did, as the
                // other readers show slash commands: never part of what a cut drops.
                let mut m = if sends == Sends::Yes {
                    Message::new(0, Role::User, text(sent))
                } else {
                    let mut n = Message::new(0, Role::System, text(sent));
                    n.kind = MessageKind::Notification;
                    n
                };
                if sent != b.text {
                    m.set_detail("typed", json!(b.text));
                }
                if b.text.starts_with('/') {
                    m.set_detail("command", json!(word));
                }
                m.set_detail("line", json!(b.line));
                items.push((m, sends));
            }
            Kind::Assistant => {
                let mut m = Message::new(0, Role::Assistant, text(&b.text));
                if let Some(name) = &model {
                    m.set_detail("model", json!(name));
                }
                m.set_detail("line", json!(b.line));
                items.push((m, Sends::Yes));
            }
        }
    }
    let (summaries, sent) = summaries(&items, requests);
    // The summaries go in before the user message of their turn, the latest position first so
    // the earlier positions stay right.
    let mut at_summary: Vec<Option<usize>> = vec![None; items.len()];
    for (k, s) in summaries.iter().enumerate().rev() {
        let mut m = Message::new(
            0,
            Role::User,
            vec![Part::Text {
                text: s.text.clone(),
            }],
        );
        m.kind = MessageKind::Summary;
        m.user_visible = false;
        items.insert(s.before, (m, Sends::Yes));
        at_summary.insert(s.before, Some(k));
    }
    let mut held: Vec<usize> = Vec::new();
    let mut compactions = Vec::new();
    let mut messages: Vec<Message> = Vec::with_capacity(items.len());
    for (i, ((mut m, sends), summary)) in items.into_iter().zip(at_summary).enumerate() {
        m.index = i;
        match (sends, summary) {
            (_, Some(k)) => {
                let keep = &summaries[k].kept;
                let kept: Vec<usize> = held
                    .iter()
                    .copied()
                    .filter(|&h| keep.contains(messages[h].text().trim()))
                    .collect();
                compactions.push(CompactionRecord {
                    cut_index: i,
                    trigger: Some(Trigger::Auto),
                    pre_tokens: None,
                    post_tokens: None,
                    post_tokens_from_usage: false,
                    summary_index: Some(i),
                    kept: kept.clone(),
                    // The summary replaced the chat history alone: the files and map sent
                    // with every request stay, so it frees only part of the context.
                    raw: Some(json!({
                        "request_line": summaries[k].request_line,
                        "history_only": true,
                    })),
                    applied_index: None,
                    archived: None,
                });
                held = kept;
                held.push(i);
            }
            (Sends::Yes, None) => held.push(i),
            (Sends::No, None) => {}
        }
        messages.push(m);
    }
    let held: HashSet<usize> = held.into_iter().collect();
    for m in &mut messages {
        m.agent_visible = held.contains(&m.index);
    }
    Built {
        messages,
        compactions,
        model,
        sent,
    }
}

/// A summary the requests carry first at some turn.
struct Summary {
    /// Where it goes: the position of its turn's user message.
    before: usize,
    text: String,
    /// The texts the request holds after it, word for word.
    kept: HashSet<String>,
    request_line: usize,
}

/// The new summaries of `requests`, each placed at the turn of the first request carrying it,
/// and when each request matched to a reply was sent.
fn summaries(items: &[(Message, Sends)], requests: &[Request]) -> (Vec<Summary>, Vec<String>) {
    let replies: Vec<(usize, String)> = items
        .iter()
        .enumerate()
        .filter(|(_, (m, _))| m.role == Role::Assistant)
        .map(|(k, (m, _))| (k, m.text().trim().to_owned()))
        .collect();
    let mut next = 0;
    let mut last: Option<&str> = None;
    let mut out = Vec::new();
    let mut sent = Vec::new();
    for r in requests {
        // The reply this request got, matched in order.
        let reply = r.reply.as_deref().map(str::trim);
        let found = reply.and_then(|t| replies[next..].iter().position(|(_, x)| x == t));
        let Some(p) = found else { continue };
        let at = replies[next + p].0;
        next += p + 1;
        sent.push(r.time.clone());
        let Some(s) = r
            .messages
            .iter()
            .position(|m| m.role == "user" && m.text.starts_with(SUMMARY_PREFIX))
        else {
            continue;
        };
        let text = r.messages[s].text.as_str();
        if last == Some(text) {
            continue;
        }
        last = Some(text);
        let before = items[..at]
            .iter()
            .rposition(|(m, sends)| m.role == Role::User && *sends == Sends::Yes)
            .unwrap_or(at);
        out.push(Summary {
            before,
            text: text.to_owned(),
            kept: r.messages[s + 1..]
                .iter()
                .filter(|m| m.role != "system")
                .map(|m| m.text.trim().to_owned())
                .collect(),
            request_line: r.line,
        });
    }
    (out, sent)
}

/// The last model `s` names.
pub fn last_model(s: &ChatSession) -> Option<String> {
    s.blocks
        .iter()
        .rev()
        .filter(|b| b.kind == Kind::Notice)
        .find_map(|b| b.text.lines().rev().find_map(model_of))
}

/// The model a `Model:` or `Main model:` notice names.
fn model_of(line: &str) -> Option<String> {
    let rest = line
        .strip_prefix("Main model: ")
        .or_else(|| line.strip_prefix("Model: "))?;
    rest.split(" with ").next().map(|m| m.trim().to_owned())
}

/// The usage a `Tokens: 3,052 sent, 1.2k cache hit, 502 received. Cost: …` notice gives. The
/// tokens sent count the cache's too.
pub fn usage_of(line: &str) -> Option<UsageSplit> {
    let counts = line.strip_prefix("Tokens: ")?.split(". Cost").next()?;
    let (mut sent, mut received, mut hit, mut write) = (None, 0, 0, 0);
    for item in counts.split(", ") {
        let (n, what) = item.split_once(' ')?;
        let n = number(n)?;
        match what.trim_end_matches('.') {
            "sent" => sent = Some(n),
            "received" => received = n,
            "cache hit" => hit = n,
            "cache write" => write = n,
            _ => {}
        }
    }
    Some(UsageSplit {
        input: sent?.saturating_sub(hit + write),
        output: received,
        cache_read: hit,
        cache_write: write,
        cache_write_1h: 0,
    })
}

/// `3,052`, `1.2k`, `12k` as a count.
fn number(t: &str) -> Option<u64> {
    let t = t.replace(',', "");
    match t.strip_suffix('k') {
        Some(k) => k.parse::<f64>().ok().map(|v| (v * 1000.0).round() as u64),
        None => t.parse().ok(),
    }
}

/// The listing entry of session `s` of the log at `file`, built as `b`: it starts at its header
/// (a part after a `/clear` at its first request) and ends at its last request.
pub fn meta(file: &Path, s: &ChatSession, id: String, b: &Built, first_part: bool) -> SessionMeta {
    let first_sent = b.sent.first().and_then(|t| started_ms(t));
    let created = if first_part {
        started_ms(&s.started).or(first_sent)
    } else {
        first_sent.or_else(|| started_ms(&s.started))
    };
    let ended = b.sent.last().and_then(|t| started_ms(t));
    let first = b
        .messages
        .iter()
        .find(|m| m.role == Role::User && m.detail("command").is_none())
        .map(|m| m.text().chars().take(60).collect::<String>());
    SessionMeta {
        name: first.unwrap_or_else(|| id.clone()),
        id,
        format: SourceFormat::Aider,
        path: file.display().to_string(),
        working_dir: file.parent().map(|p| p.display().to_string()),
        created,
        updated: ended.or(created),
        model: b.model.clone(),
        context_limit: None,
        usage: None,
        message_count: b.messages.len(),
        compaction_count: b.compactions.len(),
        parent_id: None,
    }
}

/// A local `YYYY-MM-DD HH:MM:SS` (or with a `T`) as Unix ms, the clock taken as UTC: Aider
/// writes no zone.
pub fn started_ms(t: &str) -> Option<i64> {
    chrono::NaiveDateTime::parse_from_str(&t.replace('T', " "), "%Y-%m-%d %H:%M:%S")
        .ok()
        .map(|d| d.and_utc().timestamp_millis())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tokens_line_is_the_replys_usage() {
        assert_eq!(
            usage_of("Tokens: 3,052 sent, 502 received. Cost: $0.02 message, $0.02 session."),
            Some(UsageSplit {
                input: 3052,
                output: 502,
                cache_read: 0,
                cache_write: 0,
                cache_write_1h: 0
            })
        );
        assert_eq!(
            usage_of("Tokens: 12k sent, 1.2k cache write, 8.5k cache hit, 1.1k received."),
            Some(UsageSplit {
                input: 2300,
                output: 1100,
                cache_read: 8500,
                cache_write: 1200,
                cache_write_1h: 0
            })
        );
        assert_eq!(usage_of("Tokens: many sent"), None);
    }

    #[test]
    fn the_model_line_names_the_model() {
        assert_eq!(
            model_of(
                "Main model: anthropic/claude-sonnet-4-5 with diff edit format, infinite output"
            ),
            Some("anthropic/claude-sonnet-4-5".to_owned())
        );
        assert_eq!(
            model_of("Model: gpt-4.1 with diff edit format"),
            Some("gpt-4.1".to_owned())
        );
        assert_eq!(model_of("Applied edit to store.py"), None);
    }
}
