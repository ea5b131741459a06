//! Run a recorded session forward under a policy: compactions fire where the policy's trigger
//! would fire, tool results are capped on arrival, and after each compaction the context goes on
//! from the policy's output.
//!
//! The session's own compaction machinery (summaries, continuations, preserved copies, rebuilt
//! blocks) is dropped and its original messages are replayed in stored order; where a simulated
//! compaction lands exactly where the session really compacted, its recorded summary is used,
//! else a placeholder of the chosen size. A request is counted before each assistant message
//! that follows a non-assistant one. Messages are reduced once to a compact [`Prepared`] form
//! (token counts, roles, pairing, file reads), so a [`super::sweep`] of many settings costs a
//! linear pass each. The parameters and results (the DTOs) are in `types`; the policies' run
//! loops in `run_goose`, `run_coworker`, `run_opencode` and `run_gemini`.

use std::collections::HashMap;

use serde_json::Value;

use super::{Counter, coworker as cw, files};
use crate::model::{Message, MessageKind, Part, Role, Session};
use crate::sources::coworker::stored::recorded_lengths;

mod capping;
mod run_coworker;
mod run_gemini;
mod run_goose;
mod run_opencode;
pub(crate) use run_goose::continuation_tokens;
mod types;

pub use capping::capped_message;
pub use types::{FileFate, Policy, Request, SimCompaction, SimParams, Simulation, Totals};

/// No position (a result whose call is not in the session, a message the policy wrote).
pub(crate) const NONE: u32 = u32::MAX;

pub(crate) const ASSISTANT: u8 = 1;
pub(crate) const USER_TEXT: u8 = 2;
pub(crate) const USER_SLOT: u8 = 4;
pub(crate) const TOOL_RESULT: u8 = 8;
pub(crate) const NOTICE: u8 = 16;
/// A stored summary of an earlier compaction.
pub(crate) const SUMMARY: u8 = 32;

/// One replayed message, reduced to what the policies need.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Entry {
    /// Stored index.
    pub source: u32,
    /// Tokens as the model would receive it (after the cap).
    pub tokens: u64,
    /// `len(json.dumps(stored))`, sidecars and notices included (coworker's boundary).
    pub canon_len: u64,
    /// The same without sidecars, 0 for notices (coworker's estimate of a request).
    pub out_len: u64,
    pub flags: u8,
    /// For results: stream position of the earliest call they answer (`NONE` if absent).
    pub call_pos: u32,
    /// Range into [`Prepared::reads`] of the files this result delivers.
    pub reads: (u32, u32),
}

/// A session reduced for simulation (one per tool-result cap).
#[derive(Debug, Clone)]
pub struct Prepared<'s> {
    /// The session behind the entries; `None` for one read back from a digest (goose only:
    /// its run reads the entries alone).
    pub(crate) session: Option<&'s Session>,
    pub(crate) entries: Vec<Entry>,
    pub(crate) reads: Vec<u32>,
    pub(crate) file_names: Vec<String>,
    pub(crate) system_tokens: u64,
    pub(crate) system_len: u64,
    /// Recorded summaries keyed by the number of stream entries before them: (text, tokens).
    pub(crate) recorded: HashMap<usize, (String, u64)>,
    /// The raw stored values when the caller had them (coworker lines), by stored index.
    raw: Option<&'s [Option<Value>]>,
    /// The cap the entries were prepared with (0 = off).
    pub cap_bytes: usize,
    /// Whether the coworker JSON sizes were computed (goose needs only token counts).
    json_sizes: bool,
    /// goose's continuation texts' tokens, when known without a counter (a digest's).
    pub(crate) continuation: Option<[u64; 3]>,
}

impl<'s> Prepared<'s> {
    /// Reduce a session with no tool-result cap. `raw[i]` is stored message `i` as written,
    /// when known (coworker sizes messages by their stored JSON).
    pub fn new(
        session: &'s Session,
        counter: Counter<'_>,
        raw: Option<&'s [Option<Value>]>,
    ) -> Self {
        Self::build(session, counter, raw, true)
    }

    /// Reduce a session for policies that need token counts only (goose): skips sizing every
    /// message as coworker's JSON, which costs more than the simulation itself.
    pub fn tokens_only(session: &'s Session, counter: Counter<'_>) -> Self {
        Self::build(session, counter, None, false)
    }

    fn build(
        session: &'s Session,
        counter: Counter<'_>,
        raw: Option<&'s [Option<Value>]>,
        json_sizes: bool,
    ) -> Self {
        let mut p = Prepared {
            session: Some(session),
            entries: Vec::new(),
            reads: Vec::new(),
            file_names: Vec::new(),
            system_tokens: 0,
            system_len: 0,
            recorded: HashMap::new(),
            raw,
            cap_bytes: 0,
            json_sizes,
            continuation: None,
        };
        let mut call_at: HashMap<&str, u32> = HashMap::new();
        let mut call_file: HashMap<&str, u32> = HashMap::new();
        let mut file_ids: HashMap<String, u32> = HashMap::new();
        for m in &session.messages {
            if m.kind == MessageKind::Summary {
                let text = summary_text(m);
                let tokens = counter.count(&text_message(&text));
                p.recorded.insert(p.entries.len(), (text, tokens));
            }
            let notice = m.kind == MessageKind::Notification;
            if !(super::is_original(m) || notice) {
                continue;
            }
            // What the reader measured of the stored dict, unless the caller passed the lines.
            let recorded = p
                .raw_of(m.index)
                .is_none()
                .then(|| recorded_lengths(m.details.as_ref()))
                .flatten();
            // A notice is stored with the system role but is no system prompt: the harness
            // sizes it in place (canonical list) and never sends it.
            if m.role == Role::System && !notice {
                p.system_tokens += counter.count(m);
                p.system_len += recorded.map_or_else(
                    || {
                        let stored = cw::stored_value(m, p.raw_of(m.index));
                        cw::outbound_value(&stored)
                            .map_or(0, |v| super::pyjson::dumps_len(&v) as u64)
                    },
                    |[_, out]| out,
                );
                continue;
            }
            let pos = p.entries.len() as u32;
            let mut flags = 0;
            if notice {
                flags |= NOTICE;
            } else if m.role == Role::Assistant {
                flags |= ASSISTANT;
            } else if m.has_tool_result() || m.role == Role::Tool {
                flags |= TOOL_RESULT;
            } else if m.role == Role::User {
                flags |= USER_SLOT;
                if m.has_text_only() {
                    flags |= USER_TEXT;
                }
                if m.kind == crate::model::MessageKind::Summary {
                    flags |= SUMMARY;
                }
            }
            let mut call_pos = NONE;
            let start = p.reads.len() as u32;
            for part in &m.parts {
                match part {
                    Part::ToolCall { id, .. } => {
                        call_at.insert(id, pos);
                        if let Some(path) = files::read_path(part) {
                            let next = file_ids.len() as u32;
                            let fid = *file_ids.entry(path.clone()).or_insert_with(|| {
                                p.file_names.push(path);
                                next
                            });
                            call_file.insert(id, fid);
                        }
                    }
                    Part::ToolResult { call_id, .. } => {
                        let at = call_at.get(call_id.as_str()).copied().unwrap_or(NONE);
                        call_pos = call_pos.min(at);
                        if let Some(f) = call_file.get(call_id.as_str()) {
                            p.reads.push(*f);
                        }
                    }
                    _ => {}
                }
            }
            let (tokens, canon_len, out_len) = match (notice, json_sizes, recorded) {
                (true, true, Some([canon, _])) => (0, canon, 0),
                (true, true, None) => {
                    let stored = cw::stored_value(m, p.raw_of(m.index));
                    (0, super::pyjson::dumps_len(&stored) as u64, 0)
                }
                (true, false, _) => (0, 0, 0),
                (false, true, Some([canon, out])) => (counter.count(m), canon, out),
                (false, true, None) => sizes(m, &cw::stored_value(m, p.raw_of(m.index)), counter),
                (false, false, _) => (counter.count(m), 0, 0),
            };
            p.entries.push(Entry {
                source: m.index as u32,
                tokens,
                canon_len,
                out_len,
                flags,
                call_pos,
                reads: (start, p.reads.len() as u32),
            });
        }
        p
    }

    /// A prepared form read back from a digest (`super::digest`): no session behind it.
    pub(crate) fn from_parts(
        entries: Vec<Entry>,
        reads: Vec<u32>,
        file_names: Vec<String>,
        system_tokens: u64,
        recorded: HashMap<usize, (String, u64)>,
        cap_bytes: usize,
        continuation: [u64; 3],
    ) -> Prepared<'static> {
        Prepared {
            session: None,
            entries,
            reads,
            file_names,
            system_tokens,
            system_len: 0,
            recorded,
            raw: None,
            cap_bytes,
            json_sizes: false,
            continuation: Some(continuation),
        }
    }

    fn raw_of(&self, index: usize) -> Option<&'s Value> {
        self.raw.and_then(|r| r.get(index)).and_then(Option::as_ref)
    }

    /// The stored message behind a stream position.
    pub(crate) fn message(&self, pos: usize) -> &'s Message {
        &self.session().messages[self.entries[pos].source as usize]
    }

    /// The session behind the entries. Only what reads messages calls it (capping, coworker's
    /// boundary), and a digest is made for goose's sweep alone, whose run reads none.
    pub(crate) fn session(&self) -> &'s Session {
        self.session
            .expect("a digest's prepared form is swept as it is, never capped again")
    }

    /// Number of replayed messages.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when nothing is replayed.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

fn sizes(m: &Message, stored: &Value, counter: Counter<'_>) -> (u64, u64, u64) {
    let canon = super::pyjson::dumps_len(stored) as u64;
    let out = cw::outbound_value(stored).map_or(0, |v| super::pyjson::dumps_len(&v) as u64);
    (counter.count(m), canon, out)
}

fn summary_text(m: &Message) -> String {
    // A rebuilt coworker block keeps its record: the summary proper is `summary_text`.
    m.detail("summary_text")
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_else(|| m.text())
}

pub(crate) fn text_message(text: &str) -> Message {
    Message::new(0, Role::User, vec![Part::Text { text: text.into() }])
}

/// Run `prep` forward under `params`.
pub fn simulate(prep: &Prepared<'_>, params: &SimParams, counter: Counter<'_>) -> Simulation {
    match &params.policy {
        Policy::Goose { .. } => run_goose::run(prep, params, counter),
        Policy::Coworker(s) => run_coworker::run(prep, params, s, counter),
        Policy::OpenCode(_) => run_opencode::run(prep, params, counter),
        Policy::Gemini(_) => run_gemini::run(prep, params, counter),
    }
}

/// Bookkeeping both runners share: requests, file reads and orphans.
pub(crate) struct Tally {
    pub sim: Simulation,
    latest_read: Vec<u32>,
    last_file: u32,
    orphaned: Vec<bool>,
    after_sum: u64,
    detail: bool,
}

impl Tally {
    pub fn new(prep: &Prepared<'_>, detail: bool) -> Self {
        Tally {
            sim: Simulation::default(),
            latest_read: vec![NONE; prep.file_names.len()],
            last_file: NONE,
            orphaned: vec![false; prep.len()],
            after_sum: 0,
            detail,
        }
    }

    /// Note entry `pos` entering the context.
    pub fn arrive(&mut self, prep: &Prepared<'_>, pos: usize) {
        let (a, b) = prep.entries[pos].reads;
        for &f in &prep.reads[a as usize..b as usize] {
            self.latest_read[f as usize] = pos as u32;
            self.last_file = f;
        }
    }

    pub fn request(&mut self, prep: &Prepared<'_>, pos: usize, ctx: u64) {
        let t = &mut self.sim.totals;
        t.requests += 1;
        t.tokens_processed += ctx;
        t.peak_context = t.peak_context.max(ctx);
        if self.detail {
            self.sim.requests.push(Request {
                source_index: prep.entries[pos].source as usize,
                context_tokens: ctx,
            });
        }
    }

    /// Account a cut keeping stream positions `floor..=last`; returns (orphans, file fates).
    pub fn cut(
        &mut self,
        prep: &Prepared<'_>,
        floor: usize,
        last: usize,
        after: u64,
    ) -> (usize, Vec<FileFate>) {
        let mut orphans = 0;
        for pos in floor..=last.min(prep.len().saturating_sub(1)) {
            let e = &prep.entries[pos];
            if e.flags & TOOL_RESULT != 0
                && (e.call_pos == NONE || (e.call_pos as usize) < floor)
                && !self.orphaned[pos]
            {
                self.orphaned[pos] = true;
                orphans += 1;
            }
        }
        let t = &mut self.sim.totals;
        t.compactions += 1;
        t.orphans += orphans;
        self.after_sum += after;
        t.mean_tokens_after = self.after_sum / t.compactions as u64;
        if self.last_file != NONE {
            t.last_read_cuts += 1;
            if self.latest_read[self.last_file as usize] as usize >= floor {
                t.last_read_kept += 1;
            }
        }
        let fates = if self.detail {
            self.latest_read
                .iter()
                .enumerate()
                .filter(|(_, r)| **r != NONE)
                .map(|(f, &r)| FileFate {
                    path: prep.file_names[f].clone(),
                    read_index: prep.entries[r as usize].source as usize,
                    verbatim: r as usize >= floor,
                })
                .collect()
        } else {
            Vec::new()
        };
        (orphans, fates)
    }

    /// Account a cut before stream position `next` that keeps the stream positions `kept` (in
    /// order) after the policy's own messages, and note it in detail: the record OpenCode's
    /// and Gemini's runners write. `tokens` = (before, after).
    pub fn kept_tail_cut(
        &mut self,
        prep: &Prepared<'_>,
        next: usize,
        kept: &[usize],
        tokens: (u64, u64),
        recorded_summary: bool,
    ) {
        let last = next.saturating_sub(1);
        let floor = kept.first().copied().unwrap_or(next);
        let (orphans, files) = self.cut(prep, floor, last, tokens.1);
        if self.detail {
            let source = |k: usize| prep.entries[k].source as usize;
            self.sim.compactions.push(SimCompaction {
                request: self.sim.requests.len(),
                at_index: source(last),
                cut_index: kept.first().map(|&k| source(k)),
                kept_tail: kept.iter().map(|&k| source(k)).collect(),
                preserved_index: None,
                preserved_appended: false,
                user_messages: None,
                tokens_before: tokens.0,
                tokens_after: tokens.1,
                recorded_summary,
                orphans,
                files,
                recovery: false,
            });
        }
    }

    pub fn finish(mut self) -> Simulation {
        self.sim.totals.files_read = self.latest_read.iter().filter(|r| **r != NONE).count();
        self.sim
    }
}

#[cfg(test)]
mod tests;
