//! A Qwen Code recording as the model's and the user's messages, replayed as the CLI rebuilds
//! the history it sends on resume: each record of the active branch with a `message` is added;
//! a `system`/`chat_compression` record replaces the history with its `compressedHistory` (the
//! exact `Content[]` the model got next: the summary, the model's thanks, the tail it kept).
//! The kept tail is the longest run of the old history's last entries that the new history
//! ends with; the entries before it were brought by the compression (the summary first). A
//! record off the active branch was rewound away: neither the model nor the user sees it. A
//! sub-agent's records (a side chain in the same file) are a child session of their own.
//!
//! Which records there are and which branch is active is `records`'s; a `Content`'s parts are
//! read as Gemini CLI's (`gemini::expand::parts`).

use std::path::Path;

use serde_json::{Value, json};

use super::content;
use super::records::Recording;
use crate::model::{
    CompactionRecord, Message, MessageKind, Part, Role, SessionMeta, SourceFormat, Trigger,
    UsageSplit,
};
use crate::sources::gemini::expand::parts;

/// Separates a sub-agent's id from its session's in the child session's id.
pub const CHILD_SEP: &str = ":";

/// What the model answers to the compression's summary (`COMPRESSION_SUMMARY_MODEL_ACK`).
const THANKS: &str = "Got it. Thanks for the additional context!";

/// One entry of the history the model holds: the message that stands for it, and the
/// fingerprint of its `Content` as the CLI keeps it (what a compression's new history is
/// matched against).
type Entry = (usize, u64);

/// A record, or a line that did not parse.
enum Item {
    Record(usize),
    Bad(usize),
}

/// The messages and cuts of a recording.
pub struct Built {
    pub messages: Vec<Message>,
    pub compactions: Vec<CompactionRecord>,
}

/// A `Content` as one message: `model` is the assistant; a user content of function
/// responses only is the results the model got (a tool message).
fn from_content(model: bool, ps: Vec<Part>) -> Message {
    let role = if model {
        Role::Assistant
    } else if !ps.is_empty() && ps.iter().all(|p| matches!(p, Part::ToolResult { .. })) {
        Role::Tool
    } else {
        Role::User
    };
    let mut m = Message::new(0, role, ps);
    // Seen by the model only while the history holds it: set at the end of the replay.
    m.agent_visible = false;
    m
}

/// The usage of an answer: the prompt count includes what was read from the cache; thoughts
/// are output.
fn usage(u: &Value) -> Option<UsageSplit> {
    let n = |k: &str| u[k].as_u64().unwrap_or(0);
    u.is_object().then(|| UsageSplit {
        input: n("promptTokenCount").saturating_sub(n("cachedContentTokenCount")),
        output: n("candidatesTokenCount") + n("thoughtsTokenCount"),
        cache_read: n("cachedContentTokenCount"),
        cache_write: 0,
        cache_write_1h: 0,
    })
}

fn notice(text: String) -> Message {
    let mut m = Message::new(0, Role::System, vec![Part::Text { text }]);
    m.kind = MessageKind::Notification;
    m.agent_visible = false;
    m
}

/// Replay the records of `agent` (none: the session's own) in `rec` into messages and cuts;
/// the messages take those records' parts, so each agent is built once per reading.
pub fn build(rec: &mut Recording, agent: Option<&str>) -> Built {
    let mut active = vec![false; rec.records.len()];
    for k in rec.branch(agent) {
        active[k] = true;
    }
    let mut out: Vec<Message> = Vec::new();
    let mut history: Vec<Entry> = Vec::new();
    let mut compactions = Vec::new();
    let mut last_command: Option<String> = None;
    // Records and unreadable lines, in file order.
    let mut order: Vec<(usize, Item)> = rec
        .records
        .iter()
        .enumerate()
        .filter(|(_, r)| r.agent() == agent)
        .map(|(k, r)| (r.line, Item::Record(k)))
        // Lines that did not parse are the session's rows, not a sub-agent's.
        .chain(
            rec.bad
                .iter()
                .enumerate()
                .filter(|_| agent.is_none())
                .map(|(b, (line, ..))| (*line, Item::Bad(b))),
        )
        .collect();
    order.sort_by_key(|(line, _)| *line);
    for (_, item) in order {
        let k = match item {
            Item::Record(k) => k,
            Item::Bad(b) => {
                let (line, raw, why) = &rec.bad[b];
                let mut m = Message::unreadable(0, "line", raw.clone(), why.clone());
                m.set_detail("line", json!(line));
                out.push(m);
                continue;
            }
        };
        let content = rec.records[k]
            .content
            .as_mut()
            .map(|c| (c.model, std::mem::take(&mut c.parts), c.print));
        let r = &rec.records[k];
        let v = &r.value;
        let on = active[k];
        let stamp = |m: &mut Message| {
            m.id = Some(r.uuid().to_owned());
            m.created = r.at;
            m.set_detail("line", json!(r.line));
            m.set_detail("record", json!(k));
        };
        match (r.kind(), r.subtype(), content) {
            ("system", Some("chat_compression"), _) => {
                let info = &v["systemPayload"]["info"];
                let count = |k: &str| info[k].as_u64();
                let mut n = notice(format!(
                    "Chat history compressed from {} to {} tokens.",
                    count("originalTokenCount").map_or("?".into(), |c| c.to_string()),
                    count("newTokenCount").map_or("?".into(), |c| c.to_string()),
                ));
                n.user_visible = on;
                stamp(&mut n);
                let Some(new) = v["systemPayload"]["compressedHistory"]
                    .as_array()
                    .filter(|_| on)
                else {
                    out.push(n);
                    continue;
                };
                let prints: Vec<u64> = new.iter().map(content::print).collect();
                // The summary and the model's thanks open the new history; the thanks is the
                // same text at every compression, never a kept entry.
                let thanks = new.get(1).is_some_and(|c| {
                    c["role"] == "model" && c["parts"][0]["text"].as_str() == Some(THANKS)
                });
                let room = new.len() - if thanks { 2 } else { 0 };
                let mut tail = 0;
                while tail < room
                    && tail < history.len()
                    && prints[new.len() - 1 - tail] == history[history.len() - 1 - tail].1
                {
                    tail += 1;
                }
                let kept: Vec<Entry> = history.split_off(history.len() - tail);
                history.clear();
                let first = out.len();
                for (i, c) in new[..new.len() - tail].iter().enumerate() {
                    let mut m = from_content(c["role"] == "model", parts(&c["parts"]));
                    stamp(&mut m);
                    m.id = Some(format!("{}#{i}", r.uuid()));
                    m.kind = if i == 0 {
                        MessageKind::Summary
                    } else {
                        MessageKind::Continuation
                    };
                    m.user_visible = false;
                    history.push((out.len(), prints[i]));
                    out.push(m);
                }
                let brought = out.len() > first;
                let at = out.len();
                out.push(n);
                let manual = last_command
                    .take()
                    .is_some_and(|c| c.starts_with("/compress"));
                compactions.push(CompactionRecord {
                    cut_index: if brought { first } else { at },
                    trigger: Some(if manual {
                        Trigger::Manual
                    } else {
                        Trigger::Auto
                    }),
                    pre_tokens: count("originalTokenCount"),
                    post_tokens: count("newTokenCount"),
                    post_tokens_from_usage: false,
                    summary_index: brought.then_some(first),
                    kept: kept.iter().map(|(i, _)| *i).collect(),
                    raw: Some(v["systemPayload"]["info"].clone()),
                    applied_index: None,
                    archived: None,
                });
                history.extend(kept);
            }
            ("system", Some("rewind"), _) => {
                let count = v["systemPayload"]["truncatedCount"].as_u64().unwrap_or(0);
                let mut n = notice(format!("Rewound: {count} items taken back."));
                n.user_visible = on;
                stamp(&mut n);
                out.push(n);
            }
            ("system", Some("slash_command"), None) => {
                let p = &v["systemPayload"];
                if p["phase"] == "invocation" {
                    let cmd = p["rawCommand"].as_str().unwrap_or_default().to_owned();
                    let mut n = notice(cmd.clone());
                    n.user_visible = on;
                    stamp(&mut n);
                    out.push(n);
                    last_command = Some(cmd);
                }
            }
            (_, sub, Some((model, ps, print))) if sub != Some("realtime_message") => {
                let mut m = from_content(model, ps);
                if r.kind() == "tool_result" {
                    m.role = Role::Tool;
                    let failed = v["toolCallResult"]["status"] == "error"
                        || v["toolCallResult"]["error"].is_string();
                    for p in &mut m.parts {
                        if let Part::ToolResult { is_error, .. } = p {
                            *is_error |= failed;
                        }
                    }
                }
                stamp(&mut m);
                m.usage.extend(usage(&v["usageMetadata"]));
                if let Some(model) = v.get("model").filter(|x| x.is_string()) {
                    m.set_detail("model", model.clone());
                }
                m.user_visible = on;
                if !on {
                    // Marked as Claude Code's rewound branches are.
                    m.set_detail("branch", json!("inactive"));
                }
                if on {
                    history.push((out.len(), print));
                    last_command = None;
                }
                out.push(m);
            }
            // Telemetry, snapshots, titles, settings: the harness's state, no message.
            _ => {}
        }
    }
    for (i, _) in &history {
        out[*i].agent_visible = true;
    }
    for (i, m) in out.iter_mut().enumerate() {
        m.index = i;
    }
    Built {
        messages: out,
        compactions,
    }
}

/// The listing entry of the session (`agent` none) or of a sub-agent's side chain, a child
/// session `<session id>:<agent id>`, in `rec` read from `file`.
pub fn meta(rec: &Recording, file: &Path, built: &Built, agent: Option<&str>) -> SessionMeta {
    let first = rec.records.first().map(|r| &r.value);
    let session = first
        .and_then(|v| v["sessionId"].as_str())
        .map(str::to_owned)
        .unwrap_or_else(|| {
            file.file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default()
        });
    let id = match agent {
        Some(a) => format!("{session}{CHILD_SEP}{a}"),
        None => session.clone(),
    };
    let own = |r: &&super::records::Record| r.agent() == agent;
    let system = |sub: &str, key: &str| {
        rec.records
            .iter()
            .rev()
            .filter(own)
            .filter(|r| r.kind() == "system" && r.subtype() == Some(sub))
            .find_map(|r| r.value["systemPayload"][key].as_str().map(str::to_owned))
    };
    let first_user = built
        .messages
        .iter()
        .find(|m| m.role == Role::User && m.kind == MessageKind::Ordinary && m.user_visible)
        .map(|m| {
            m.parts
                .iter()
                .filter_map(|p| match p {
                    Part::Text { text } => Some(text.as_str()),
                    _ => None,
                })
                .collect::<Vec<_>>()
                .join(" ")
                .chars()
                .take(60)
                .collect::<String>()
        });
    let last_answer = rec
        .records
        .iter()
        .rev()
        .filter(own)
        .find(|r| r.kind() == "assistant");
    let stamps: Vec<i64> = rec
        .records
        .iter()
        .filter(own)
        .filter_map(|r| r.at)
        .collect();
    SessionMeta {
        name: system("custom_title", "customTitle")
            .or(first_user)
            .unwrap_or_else(|| id.clone()),
        id,
        format: SourceFormat::QwenCode,
        path: file.display().to_string(),
        working_dir: first.and_then(|v| v["cwd"].as_str()).map(str::to_owned),
        created: stamps.iter().min().copied(),
        updated: stamps.iter().max().copied(),
        model: last_answer
            .and_then(|r| r.value["model"].as_str())
            .map(str::to_owned),
        context_limit: last_answer.and_then(|r| r.value["contextWindowSize"].as_u64()),
        usage: None,
        message_count: built.messages.len(),
        compaction_count: built.compactions.len(),
        parent_id: match agent {
            Some(_) => Some(session),
            None => system("parent_session", "parentSessionId"),
        },
    }
}
