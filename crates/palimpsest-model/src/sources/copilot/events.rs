//! A Copilot CLI events file, read: its lines, the session's id and listing entry, its
//! sub-agents (`agentId`) as child sessions, and the line behind a message for the raw view.
//! Making the events into messages is `build`'s.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::CHILD_SEP;
use super::build::{Builder, timestamp};
use crate::error::Result;
use crate::model::{
    CompactionRecord, Link, LinkKind, Message, Part, RecordedUsage, Session, SessionMeta,
    SourceFormat,
};

/// One line of the file.
struct Line {
    number: usize,
    event: std::result::Result<Value, (String, String)>,
}

/// Every line of one events file.
pub struct Events {
    file: PathBuf,
    lines: Vec<Line>,
}

impl Events {
    /// Read `file` (a line still being written at its end is left out).
    pub fn read(file: &Path) -> Result<Self> {
        let mut lines = Vec::new();
        crate::sources::jsonl::for_each_line(file, |l| {
            lines.push(Line {
                number: l.number,
                event: l.value.map_err(|b| (b.raw, b.error.to_string())),
            });
            true
        })?;
        Ok(Events {
            file: file.to_owned(),
            lines,
        })
    }

    fn events(&self) -> impl Iterator<Item = &Value> {
        self.lines.iter().filter_map(|l| l.event.as_ref().ok())
    }

    fn of_type<'a>(&'a self, kind: &'a str) -> impl Iterator<Item = &'a Value> + 'a {
        self.events().filter(move |e| e["type"] == kind)
    }

    /// The session id: `session.start`'s, else the folder's name.
    fn id(&self) -> String {
        self.of_type("session.start")
            .find_map(|e| e["data"]["sessionId"].as_str().map(str::to_owned))
            .or_else(|| {
                self.file
                    .parent()
                    .and_then(Path::file_name)
                    .map(|n| n.to_string_lossy().into_owned())
            })
            .unwrap_or_default()
    }

    /// The sub-agents, in the order their first event appears.
    pub fn agents(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for a in self.events().filter_map(|e| e["agentId"].as_str()) {
            if !out.iter().any(|x| x == a) {
                out.push(a.to_owned());
            }
        }
        out
    }

    /// `subagent.started`'s data for each sub-agent, by order.
    fn started(&self, agent: &str) -> Option<&Value> {
        let k = self.agents().iter().position(|a| a == agent)?;
        self.of_type("subagent.started").nth(k).map(|e| &e["data"])
    }

    fn child_id(&self, agent: &str) -> String {
        format!("{}{CHILD_SEP}{agent}", self.id())
    }

    /// The listing entry of the main session (`agent` none) or of a sub-agent's.
    pub fn meta(&self, agent: Option<&str>) -> SessionMeta {
        let (messages, compactions) = self.session_parts(agent);
        self.meta_of(agent, messages.len(), compactions.len())
    }

    /// The listing entry of `agent`'s session, whose counts are already known.
    fn meta_of(&self, agent: Option<&str>, messages: usize, compactions: usize) -> SessionMeta {
        let mine = |e: &&Value| e["agentId"].as_str() == agent;
        let times: Vec<i64> = self.events().filter(mine).filter_map(timestamp).collect();
        let start = self.of_type("session.start").next().map(|e| &e["data"]);
        let first_user = self
            .of_type("user.message")
            .find(mine)
            .and_then(|e| e["data"]["content"].as_str())
            .map(|t| t.chars().take(60).collect::<String>());
        let name = match agent {
            Some(a) => format!(
                "{} (sub-agent)",
                self.started(a)
                    .and_then(|d| d["agentName"].as_str())
                    .unwrap_or(a)
            ),
            None => first_user.unwrap_or_else(|| self.id()),
        };
        let model = self
            .of_type("assistant.message")
            .filter(mine)
            .filter_map(|e| e["data"]["model"].as_str())
            .last()
            .or_else(|| start.and_then(|s| s["selectedModel"].as_str()))
            .map(str::to_owned);
        SessionMeta {
            id: agent.map_or_else(|| self.id(), |a| self.child_id(a)),
            format: SourceFormat::CopilotCli,
            path: self.file.display().to_string(),
            name,
            working_dir: start
                .and_then(|s| s["context"]["cwd"].as_str())
                .map(str::to_owned),
            created: times.first().copied(),
            updated: times.last().copied(),
            model,
            context_limit: None,
            usage: agent.is_none().then(|| self.shutdown_usage()).flatten(),
            message_count: messages,
            compaction_count: compactions,
            parent_id: agent.map(|_| self.id()),
        }
    }

    /// The shutdown's usage over every model, when the session ended cleanly.
    fn shutdown_usage(&self) -> Option<RecordedUsage> {
        let metrics = self
            .of_type("session.shutdown")
            .last()?
            .get("data")?
            .get("modelMetrics")?
            .as_object()?;
        let sum = |k: &str| {
            metrics
                .values()
                .filter_map(|m| m["usage"][k].as_u64())
                .sum::<u64>()
        };
        Some(RecordedUsage {
            accumulated_total_tokens: Some(sum("inputTokens") + sum("outputTokens")),
            ..RecordedUsage::default()
        })
    }

    /// The line `number` as stored (re-serialised), for the raw view.
    pub fn raw_line(&self, number: usize) -> Option<String> {
        let l = self.lines.iter().find(|l| l.number == number)?;
        Some(match &l.event {
            Ok(v) => serde_json::to_string_pretty(v).unwrap_or_default(),
            Err((raw, _)) => raw.clone(),
        })
    }

    /// The session of `agent` (none: the main agent's), built once (its listing entry counts
    /// what was built). Each line's JSON is let go as soon as it is made into messages: freeing
    /// a whole file's at the end cost a load a tenth of its time.
    pub fn session(self, agent: Option<&str>) -> Session {
        let mut meta = self.meta_of(agent, 0, 0);
        let children = if agent.is_none() {
            self.children()
        } else {
            Vec::new()
        };
        let mut b = Builder::default();
        for l in self.lines {
            feed(&mut b, &l, agent);
        }
        link(&mut b.messages, &children);
        let (messages, compactions) = b.finish();
        meta.message_count = messages.len();
        meta.compaction_count = compactions.len();
        Session {
            meta,
            messages: crate::model::shared(messages),
            compactions,
        }
    }

    fn session_parts(&self, agent: Option<&str>) -> (Vec<Message>, Vec<CompactionRecord>) {
        let mut b = Builder::default();
        for l in &self.lines {
            feed(&mut b, l, agent);
        }
        if agent.is_none() {
            link(&mut b.messages, &self.children());
        }
        b.finish()
    }

    /// Each sub-agent's `task` call and the link to its session.
    fn children(&self) -> Vec<(String, Link)> {
        self.agents()
            .into_iter()
            .filter_map(|a| {
                let call = self.started(&a)?["toolCallId"].as_str()?.to_owned();
                let link = Link {
                    kind: LinkKind::Subagent,
                    path: self.file.display().to_string(),
                    session: Some(self.child_id(&a)),
                };
                Some((call, link))
            })
            .collect()
    }
}

/// One line into `agent`'s session (none: the main agent's, which holds the unreadable lines).
fn feed(b: &mut Builder, l: &Line, agent: Option<&str>) {
    match &l.event {
        Err((raw, why)) if agent.is_none() => {
            b.push(
                Message::unreadable(0, "line", raw.clone(), why.clone()),
                l.number,
                false,
            );
        }
        Err(_) => {}
        Ok(e) if e["agentId"].as_str() == agent => b.event(e, l.number),
        Ok(_) => {}
    }
}

/// The assistant message whose `task` call a sub-agent ran links that sub-agent's session.
fn link(messages: &mut [Message], children: &[(String, Link)]) {
    for (call, link) in children {
        let holder = messages.iter_mut().find(|m| {
            m.parts
                .iter()
                .any(|p| matches!(p, Part::ToolCall { id, .. } if id == call))
        });
        if let Some(m) = holder {
            m.links.push(link.clone());
        }
    }
}
