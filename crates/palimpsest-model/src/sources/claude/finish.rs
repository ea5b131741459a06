//! What a Claude Code session is once its lines are read (`build` made the messages): usage,
//! visibility and cuts (`visibility`), links to subagent and compactor runs, and the listing
//! entry (title, times, recorded usage). Split in pieces so a transcript followed live
//! (`resume`) can finish only the messages a change added, with the same rules.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::build::Builder;
use super::{Loaded, listing, visibility};
use crate::error::Result;
use crate::model::{
    CompactionRecord, Link, LinkKind, Message, Part, RecordedUsage, Session, SessionMeta,
    SourceFormat, Trigger,
};

/// The session the lines read into `b` make: visibility, cuts, links, title.
pub fn finish(path: &Path, id: &str, parent: Option<String>, mut b: Builder) -> Result<Loaded> {
    let (meta, compactions, _) = finish_in_place(path, id, parent, &mut b, None)?;
    let lines = b.nodes.iter().map(|n| n.lines.clone()).collect();
    Ok(Loaded {
        session: Session {
            meta,
            messages: b.messages,
            compactions,
        },
        counts: b.counts,
        lines,
    })
}

/// [`finish`] on the builder's own messages, leaving them finished there, with the running
/// totals of their usage. `head` is the file's head when the caller has it already.
pub(super) fn finish_in_place(
    path: &Path,
    id: &str,
    parent: Option<String>,
    b: &mut Builder,
    head: Option<&listing::Head>,
) -> Result<(SessionMeta, Vec<CompactionRecord>, UsageSums)> {
    b.settle();
    // What each answer was billed, in Anthropic's shape (compaction after-sizes read it).
    fill_usage(&mut b.messages);
    let mut compactions = visibility::apply(b, parent.is_none());
    visibility::post_from_usage(&mut compactions, &b.messages);
    if parent.is_none() {
        let dir = runs_dir(path);
        let agents = &b.agent_of_call;
        for m in &mut b.messages {
            let links = task_links(&dir, agents, m);
            if !links.is_empty() {
                Arc::make_mut(m).links.extend(links);
            }
        }
        link_compactor_runs(path, b, &compactions);
    }
    let read;
    let head = match head {
        Some(h) => h,
        None => {
            read = listing::head(path)?;
            &read
        }
    };
    let mut sums = UsageSums::default();
    sums.update(&b.messages, 0);
    let usage = sums.usage(&b.messages);
    let meta = meta(path, id, parent, b, usage, compactions.len(), head);
    Ok((meta, compactions, sums))
}

/// Each message's recorded usage, from its `usage` detail.
pub(super) fn fill_usage(messages: &mut [Arc<Message>]) {
    crate::sources::usage::fill(messages, "usage", crate::sources::usage::anthropic);
}

/// Running totals of recorded usage, kept by a transcript followed live so a change sums only
/// the messages it added: entry `i` is the total over messages `..=i` and the last of them
/// that recorded usage.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub(super) struct UsageSums(Vec<(u64, Option<usize>)>);

impl UsageSums {
    /// How many messages the totals run over.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Work the totals out again from message `from` on.
    pub fn update(&mut self, messages: &[Arc<Message>], from: usize) {
        self.0.truncate(from);
        let (mut total, mut last) = self.0.last().copied().unwrap_or((0, None));
        for (i, m) in messages.iter().enumerate().skip(from) {
            if let Some(u) = recorded(m) {
                total += listing::usage(&u).total_tokens.unwrap_or(0);
                last = Some(i);
            }
            self.0.push((total, last));
        }
    }

    /// The session's recorded usage: the last request's, with the total over all of them.
    pub fn usage(&self, messages: &[Arc<Message>]) -> Option<RecordedUsage> {
        let (total, last) = self.0.last().copied()?;
        let mut u = listing::usage(&recorded(&messages[last?])?);
        u.accumulated_total_tokens = Some(total);
        Some(u)
    }
}

fn recorded(m: &Message) -> Option<serde_json::Value> {
    m.detail("usage")
}

/// The listing entry of the session the builder holds, whose recorded usage is `usage`.
pub(super) fn meta(
    path: &Path,
    id: &str,
    parent: Option<String>,
    b: &Builder,
    usage: Option<RecordedUsage>,
    compactions: usize,
    head: &listing::Head,
) -> SessionMeta {
    // A subagent or compactor run is titled as its listing titles it: one title everywhere.
    let name = parent
        .is_some()
        .then(|| listing::child_name(path, head))
        .or_else(|| b.titles.get("custom").cloned())
        .or_else(|| b.titles.get("ai").cloned())
        .or_else(|| b.titles.get("summary").cloned())
        .or_else(|| head.prompt.clone())
        .or_else(|| b.slug.clone())
        .unwrap_or_else(|| id.to_owned());
    SessionMeta {
        id: id.to_owned(),
        format: SourceFormat::ClaudeCode,
        path: path.display().to_string(),
        name,
        working_dir: b.cwd.clone(),
        created: b.messages.iter().find_map(|m| m.created),
        updated: b.messages.iter().rev().find_map(|m| m.created),
        model: b.model.clone(),
        context_limit: None,
        usage,
        message_count: b.messages.len(),
        compaction_count: compactions,
        parent_id: parent,
    }
}

/// Where a main transcript's subagent runs are written.
pub(super) fn runs_dir(path: &Path) -> PathBuf {
    path.with_extension("").join("subagents")
}

/// The links from message `m`'s Task calls to their subagent runs, for the runs on disk.
pub(super) fn task_links(
    dir: &Path,
    agents: &std::collections::HashMap<String, String>,
    m: &Message,
) -> Vec<Link> {
    let mut links = Vec::new();
    for p in &m.parts {
        if let Part::ToolCall { id, .. } = p
            && let Some(agent) = agents.get(id)
        {
            let f = dir.join(format!("agent-{agent}.jsonl"));
            if f.is_file() {
                links.push(Link {
                    kind: LinkKind::Subagent,
                    path: f.display().to_string(),
                    session: None,
                });
            }
        }
    }
    links
}

/// The compactor's runs (`agent-acompact-*`) beside a main transcript, sorted.
pub(super) fn compactor_runs(path: &Path) -> Vec<PathBuf> {
    super::subagent_files(path)
        .into_iter()
        .filter(|f| super::stem_of(f).starts_with("agent-acompact"))
        .collect()
}

/// A compactor run ends before its boundary is written: link each run to the first full
/// compaction at or after the run's last line.
fn link_compactor_runs(path: &Path, b: &mut Builder, compactions: &[CompactionRecord]) {
    let full: Vec<usize> = compactions
        .iter()
        .filter(|c| {
            !matches!(
                c.trigger,
                Some(Trigger::Micro | Trigger::Replacement | Trigger::Collapse)
            )
        })
        .map(|c| c.cut_index)
        .collect();
    for f in compactor_runs(path) {
        let ended = super::scan::read_tail(&f, 64 * 1024)
            .ok()
            .and_then(|t| super::scan::last_string_field(&t, "timestamp"))
            .as_deref()
            .and_then(super::scan::millis);
        let target = full
            .iter()
            .copied()
            .find(|&i| match (ended, b.messages[i].created) {
                (Some(e), Some(c)) => c >= e,
                _ => false,
            })
            .or_else(|| (full.len() == 1).then(|| full[0]));
        if let Some(i) = target {
            Arc::make_mut(&mut b.messages[i]).links.push(Link {
                kind: LinkKind::Subagent,
                path: f.display().to_string(),
                session: None,
            });
        }
    }
}
