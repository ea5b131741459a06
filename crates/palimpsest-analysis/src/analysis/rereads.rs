//! Re-reads: a successful read of lines of a file already read with no write to it since (pages
//! of one file, disjoint ranges, are not re-reads: `ranges`), per file and per event, and whether a compaction had dropped the earlier read from the model's view
//! (then the re-read was the price of the cut) or not (pure waste).
//!
//! What counts as a read or a write is [`super::reads::classify`]'s call; when a compaction
//! took effect is [`super::cuts`]'. This module only walks the classified calls in order.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::calls::Call;
use super::cuts::Cut;
use super::ranges::{LineRange, overlaps};
use super::reads::{AccessKind, CallClass};

/// Reads of one file over the session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct FileReads {
    /// The file, relative to the working dir when inside it.
    pub path: String,
    /// Successful reads.
    pub reads: usize,
    /// Reads of it already read with no write since.
    pub rereads: usize,
    /// Re-reads whose earlier read a compaction had dropped from the model's view.
    pub after_compaction: usize,
    /// Re-reads while the earlier read was still visible: pure waste.
    pub while_visible: usize,
    /// Tokens of the re-reads' results.
    pub tokens: usize,
    /// Message indices of the calls that read it.
    pub read_messages: Vec<usize>,
    /// Message indices of the calls that re-read it.
    pub reread_messages: Vec<usize>,
    /// 1-based numbers of the compactions that dropped an earlier read of it.
    pub compactions: Vec<usize>,
}

/// One re-read, with the read it repeats.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Reread {
    /// The file.
    pub path: String,
    /// Message index of the re-reading call.
    pub call_index: usize,
    /// Message index of its result.
    pub result_index: Option<usize>,
    /// Message index of the earlier read's call.
    pub previous_index: usize,
    /// The compaction (1-based) that dropped the earlier read, when one did.
    pub after_compaction: Option<usize>,
    /// Tokens of the result.
    pub tokens: usize,
}

/// Find re-reads. `classes[i]` classifies `calls[i]`.
pub(crate) fn rereads(
    calls: &[Call],
    classes: &[CallClass],
    cuts: &[Cut],
    count: &dyn Fn(&str) -> usize,
) -> (Vec<FileReads>, Vec<Reread>) {
    // path → the reads since its last write: (lines, position in `calls`, message idx of its
    // content). A read re-reads only lines an earlier one returned: pages of one file are not
    // re-reads.
    let mut last_read: BTreeMap<String, Vec<(LineRange, usize, usize)>> = BTreeMap::new();
    let mut files: BTreeMap<String, FileReads> = BTreeMap::new();
    let mut events = Vec::new();
    for (at, (call, class)) in calls.iter().zip(classes).enumerate() {
        // A read that waits for the world (`sleep 10 && tail -20 server.log`) looks at a file
        // another process writes: seeing it again is the point.
        let polls = class.poll;
        for a in &class.accesses {
            if a.kind == AccessKind::Write {
                last_read.remove(&a.path);
                continue;
            }
            // A failed read (missing file, denied) gave the model nothing to remember.
            if call.is_error || call.result.is_none() {
                continue;
            }
            let f = files.entry(a.path.clone()).or_insert_with(|| FileReads {
                path: a.path.clone(),
                reads: 0,
                rereads: 0,
                after_compaction: 0,
                while_visible: 0,
                tokens: 0,
                read_messages: Vec::new(),
                reread_messages: Vec::new(),
                compactions: Vec::new(),
            });
            f.reads += 1;
            f.read_messages.push(call.call_index);
            let content_at = call.result_index.unwrap_or(call.call_index);
            let earlier = last_read.get(&a.path).and_then(|reads| {
                reads
                    .iter()
                    .rev()
                    .find(|(r, _, _)| overlaps(*r, a.range))
                    .copied()
            });
            // The same read answered differently: the file changed under it (a log a server
            // writes, a file a script rewrote), so the model had not seen this yet. Reads of
            // other tools or lines are not compared: their texts differ in form, not content.
            let changed = earlier.is_some_and(|(r, p, _)| {
                let prev = &calls[p];
                r == a.range && prev.name == call.name && prev.result != call.result
            });
            if changed {
                last_read.remove(&a.path);
            }
            let earlier = earlier.filter(|_| !changed && !polls);
            if let Some((_, prev_at, prev_content)) = earlier {
                let prev_call = calls[prev_at].call_index;
                let dropped = super::cuts::dropped_between(cuts, prev_content, call.call_index);
                let tokens = count(&call.result.map(|b| b.text()).unwrap_or_default());
                f.rereads += 1;
                f.tokens += tokens;
                f.reread_messages.push(call.call_index);
                match dropped {
                    Some(n) => {
                        f.after_compaction += 1;
                        if !f.compactions.contains(&n) {
                            f.compactions.push(n);
                        }
                    }
                    None => f.while_visible += 1,
                }
                events.push(Reread {
                    path: a.path.clone(),
                    call_index: call.call_index,
                    result_index: call.result_index,
                    previous_index: prev_call,
                    after_compaction: dropped,
                    tokens,
                });
            }
            last_read
                .entry(a.path.clone())
                .or_default()
                .push((a.range, at, content_at));
        }
    }
    let mut files: Vec<FileReads> = files.into_values().collect();
    files.sort_by(|a, b| {
        b.rereads
            .cmp(&a.rereads)
            .then(b.tokens.cmp(&a.tokens))
            .then(a.path.cmp(&b.path))
    });
    (files, events)
}
