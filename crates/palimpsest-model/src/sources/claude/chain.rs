//! The active chain of a Claude Code session: which messages a rewind or an inline subagent
//! took off it. `visibility` applies the marks; a transcript followed live (`resume`) keeps the
//! walk ([`Chain`]) and goes on from it when lines are only appended.
//!
//! The rules: the chain is walked back through `parentUuid` (progress lines included, they sit
//! in the chain) from the last non-sidechain user/assistant line of each segment between
//! compact boundaries; an earlier segment starts from the boundary's `logicalParentUuid` when
//! that line exists (it may dangle: a soft link). Parallel tool calls put their results off the
//! walked chain, so a tool result also counts as active when every call it answers is on it.
//! Other messages are a rewound sibling branch: `agent_visible` and `user_visible` false,
//! `details.branch = "inactive"`. Inline sidechain lines (old CLIs) in a main file are a
//! subagent's, not the model's.

use std::collections::{HashMap, HashSet};

use serde_json::json;
use xxhash_rust::xxh3::xxh3_64;

use super::build::{Builder, Node, Uid, is_conversation};
use crate::model::{Held, Message, Part};

/// Why a message is off the active chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(super) enum Off {
    /// An inline subagent line.
    Sidechain,
    /// A rewound sibling branch.
    Branch,
}

/// A message off the active chain: neither the model nor the user sees it.
pub(super) fn mark_off(m: &mut Message, why: Off) {
    m.agent_visible = false;
    m.user_visible = false;
    match why {
        Off::Sidechain => m.set_detail("sidechain", json!(true)),
        Off::Branch => m.set_detail("branch", json!("inactive")),
    }
}

/// Per message, whether the rules above take it off the active chain, and why.
pub(super) fn branches(b: &Builder) -> Vec<Option<Off>> {
    walk(b).marks
}

/// A walk of the whole chain, kept to go on from: what [`branches`] works out, with the sets it
/// worked it out from. Uuids are kept by number ([`Uid`]) and call ids as 64-bit hashes: a few
/// bytes each on a session of a million lines. Serialized in a reader's snapshot (`saved`).
#[derive(serde::Serialize, serde::Deserialize)]
pub(super) struct Chain {
    /// Every uuid on the walked chain.
    on: HashSet<Uid>,
    /// Those the last segment's walk put there (the rest were on an earlier segment's).
    last_on: HashSet<Uid>,
    /// The message each uuid of a message belongs to.
    node_of: HashMap<Uid, usize>,
    /// The tool calls of the messages on the chain.
    calls_on: HashSet<u64>,
    /// The calls answered by results marked as a branch: a call joining the chain may bring
    /// such a result back on.
    answered_off: HashSet<u64>,
    /// Where the last segment's walk began.
    leaf: Option<Uid>,
    /// The first message of the last segment (after the last boundary).
    last_start: usize,
    /// Per message, the marks.
    pub marks: Vec<Option<Off>>,
}

fn key(s: &str) -> u64 {
    xxh3_64(s.as_bytes())
}

/// How far back a walk may leave the chain it replaces before the whole chain is walked again.
const DROP_LIMIT: usize = 4096;

impl Chain {
    /// Walk the whole chain of the messages `b` holds.
    pub fn new(b: &Builder) -> Chain {
        let w = walk(b);
        let mut c = Chain {
            last_on: w.last_on.iter().copied().collect(),
            on: w.on,
            node_of: HashMap::new(),
            calls_on: w.calls_on.iter().map(|u| key(u)).collect(),
            answered_off: HashSet::new(),
            leaf: w.leaf,
            last_start: w.last_start,
            marks: Vec::new(),
        };
        c.note(b, 0, &w.marks);
        c.marks = w.marks;
        c
    }

    /// Go on after lines were appended that added or changed messages from `from` on, made no
    /// boundary and moved no line already read (the builder's marks say none reached back).
    /// Returns false when a message marked already would be marked otherwise, or the change is
    /// one this does not follow: the walk is then unusable, and the whole chain must be walked.
    pub fn extend(&mut self, b: &Builder, from: usize) -> bool {
        let leaf = leaf_of(b, self.last_start, b.messages.len());
        let parent = |u: Uid| b.parents.parent(u);
        // The new part of the chain: from the new leaf back to where the last walk went.
        let mut added: HashSet<Uid> = HashSet::new();
        let mut cur = leaf;
        while let Some(u) = cur {
            if self.on.contains(&u) || !added.insert(u) {
                break;
            }
            cur = parent(u);
        }
        // Joining the old chain below its leaf leaves what was walked after the join (a
        // rewind, or results of parallel calls, which stay on when their calls are).
        let mut dropped: HashSet<Uid> = HashSet::new();
        if let Some(old) = self.leaf
            && cur != Some(old)
        {
            let Some(join) = cur.filter(|u| self.on.contains(u)) else {
                return false;
            };
            let mut at = Some(old);
            while let Some(u) = at.filter(|&u| u != join) {
                if !self.last_on.contains(&u) || dropped.len() >= DROP_LIMIT || !dropped.insert(u) {
                    return false;
                }
                at = parent(u);
            }
            if at.is_none() {
                return false;
            }
        }
        let on_now = |u: Uid| (self.on.contains(&u) && !dropped.contains(&u)) || added.contains(&u);
        let node_on = |n: &Node| n.uuids.iter().any(|&u| on_now(u));
        // Messages read before whose lines joined or left the chain.
        let mut touched: Vec<usize> = added
            .iter()
            .chain(&dropped)
            .filter_map(|u| self.node_of.get(u).copied())
            .filter(|&i| i < from)
            .collect();
        touched.sort_unstable();
        touched.dedup();
        let mut joined = Vec::new();
        for &i in &touched {
            let (m, n) = (&b.messages[i], &b.nodes[i]);
            let was = n.uuids.iter().any(|u| self.on.contains(u));
            match (was, node_on(n)) {
                // A call leaving the chain may take results off it: not followed.
                (true, false) if calls([m].into_iter()).next().is_some() => return false,
                (false, true) => joined.push(i),
                _ => {}
            }
        }
        let new_calls: HashSet<u64> = calls(
            joined.iter().map(|&i| &b.messages[i]).chain(
                b.messages[from..]
                    .iter()
                    .zip(&b.nodes[from..])
                    .filter(|(_, n)| node_on(n))
                    .map(|(m, _)| m),
            ),
        )
        .map(key)
        .filter(|c| !self.calls_on.contains(c))
        .collect();
        if new_calls.iter().any(|c| self.answered_off.contains(c)) {
            return false;
        }
        let call_on = |c: &str| {
            let c = key(c);
            self.calls_on.contains(&c) || new_calls.contains(&c)
        };
        let remark = |i: usize| mark(&b.messages[i], &b.nodes[i], node_on(&b.nodes[i]), call_on);
        if touched.iter().any(|&i| remark(i) != self.marks[i]) {
            return false;
        }
        let marks: Vec<Option<Off>> = (from..b.messages.len()).map(remark).collect();
        // A message read before (merged into since) keeps the flags its mark set.
        let before = self.marks.len().max(from);
        if marks[..before - from] != self.marks[from..before] {
            return false;
        }
        // Removed one by one: a pass over the whole set would cost what this walk saves.
        for u in &dropped {
            self.on.remove(u);
            self.last_on.remove(u);
        }
        self.on.extend(&added);
        self.last_on.extend(added);
        self.calls_on.extend(new_calls);
        self.note(b, from, &marks);
        self.marks.truncate(from);
        self.marks.extend(marks);
        if leaf.is_some() {
            self.leaf = leaf;
        }
        true
    }

    /// Remember the messages from `from` on, marked `marks`: where their uuids are, and the
    /// calls their results answer when they are a branch.
    fn note(&mut self, b: &Builder, from: usize, marks: &[Option<Off>]) {
        for (i, ((m, n), mark)) in b.messages[from..]
            .iter()
            .zip(&b.nodes[from..])
            .zip(marks)
            .enumerate()
        {
            self.node_of.extend(n.uuids.iter().map(|&u| (u, from + i)));
            if *mark == Some(Off::Branch) {
                self.answered_off
                    .extend(m.parts.iter().filter_map(|p| match p {
                        Part::ToolResult { call_id, .. } => Some(key(call_id)),
                        _ => None,
                    }));
            }
        }
    }
}

/// The borrowed state of one walk.
struct Walk<'a> {
    on: HashSet<Uid>,
    last_on: Vec<Uid>,
    calls_on: HashSet<&'a str>,
    leaf: Option<Uid>,
    last_start: usize,
    marks: Vec<Option<Off>>,
}

fn walk(b: &Builder) -> Walk<'_> {
    let mut on: HashSet<Uid> = HashSet::new();
    // Segments end at each boundary and at the end of the file.
    let mut ends: Vec<(usize, Option<&str>)> = b
        .nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| n.subtype.as_deref() == Some("compact_boundary"))
        .map(|(i, n)| (i, n.logical_parent.as_deref()))
        .collect();
    ends.push((b.messages.len(), None));
    let (mut start, mut last_leaf, mut last_on) = (0, None, Vec::new());
    for (end, logical) in ends {
        let leaf = logical
            .and_then(|l| b.parents.find(l))
            .filter(|&l| b.parents.is_line(l))
            .or_else(|| leaf_of(b, start, end));
        let mut cur = leaf;
        last_on.clear();
        while let Some(u) = cur {
            if !on.insert(u) {
                break;
            }
            last_on.push(u);
            cur = b.parents.parent(u);
        }
        last_leaf = leaf;
        if end < b.messages.len() {
            start = end;
        }
    }
    // Each node looked up once: on a long session this pass is most of what it costs.
    let is_on: Vec<bool> = b
        .nodes
        .iter()
        .map(|n| n.uuids.iter().any(|u| on.contains(u)))
        .collect();
    let calls_on: HashSet<&str> = calls(
        b.messages
            .iter()
            .zip(&is_on)
            .filter(|(_, on)| **on)
            .map(|(m, _)| m),
    )
    .collect();
    let marks = b
        .messages
        .iter()
        .zip(&b.nodes)
        .zip(is_on)
        .map(|((m, n), on)| mark(m, n, on, |c| calls_on.contains(c)))
        .collect();
    Walk {
        on,
        last_on,
        calls_on,
        leaf: last_leaf,
        last_start: start,
        marks,
    }
}

/// The last uuid of the last conversation line on the main chain among messages `start..end`.
fn leaf_of(b: &Builder, start: usize, end: usize) -> Option<Uid> {
    (start..end)
        .rev()
        // Rows without a uuid (a collapse's summary) are not in the chain.
        .find(|&i| {
            is_conversation(&b.messages[i]) && !b.nodes[i].sidechain && !b.nodes[i].uuids.is_empty()
        })
        .and_then(|i| b.nodes[i].uuids.last().copied())
}

/// The mark of one message, `on` when one of its lines is on the walked chain.
fn mark(m: &Message, n: &Node, on: bool, call_on: impl Fn(&str) -> bool) -> Option<Off> {
    if !is_conversation(m) || on || n.uuids.is_empty() {
        return None;
    }
    if n.sidechain {
        return Some(Off::Sidechain);
    }
    let answers_active = m.has_tool_result()
        && m.parts.iter().all(|p| match p {
            Part::ToolResult { call_id, .. } => call_on(call_id),
            _ => true,
        });
    (!answers_active).then_some(Off::Branch)
}

/// The tool calls the messages make.
fn calls<'a, M: Held + 'a>(messages: impl Iterator<Item = &'a M>) -> impl Iterator<Item = &'a str> {
    messages.flat_map(|m| {
        m.get().parts.iter().filter_map(|p| match p {
            Part::ToolCall { id, .. } => Some(id.as_str()),
            _ => None,
        })
    })
}
