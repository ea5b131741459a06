//! Post-mortem of a session: why a worker got stuck, with every finding pointing at the
//! messages that prove it (message indices).
//!
//! - `reads`: file reads and writes recognised across tools; `rereads`: re-reads, and whether a
//!   compaction had dropped the earlier read (the seeds' case) or it was still in view (waste).
//! - `exploration`: share of calls that only look, and time per call.
//! - `loops`: repeated calls, error streaks, stretches without a write, timeouts.
//! - `spills`: truncation markers and spill loops; `confine` + `review` open spill files safely.
//! - `losses`: what a summary lost from the span it replaced; the usable-summary gate.
//! - `edits` (+ `patch`): what an edit call changes, as line diffs, for the inspector.
//! - `verdict`: the one-line verdict; `fleet`: the same across many sessions.
//!
//! Everything here works on [`Session`] alone. Token counts come from a counting function the
//! caller passes (BPE from `tokens` when wired in; [`chars_div_4`] by default).

pub mod alerts;
pub mod asked;
pub mod calls;
pub mod classified;
pub mod confine;
pub mod cuts;
pub mod edits;
pub mod exploration;
pub mod fleet;
pub mod kept;
pub mod loops;
pub mod losses;
pub mod markers;
pub mod paths;
pub mod polls;
pub mod ranges;
pub mod reads;
pub mod rereads;
pub mod review;
pub mod shell;
pub mod spill_refs;
pub mod spill_roots;
pub mod spill_text;
pub mod spills;
pub mod thrash;
pub mod verdict;

use regex::Regex;
use serde::{Deserialize, Serialize};

use crate::model::Session;

pub use exploration::Exploration;
pub use fleet::{Fleet, FleetRow, FleetTotals};
pub use loops::{Loop, LoopKind};
pub use losses::{LossKind, SummaryLoss};
pub use rereads::{FileReads, Reread};
pub use review::{SpillEntry, SpillReview, SpillStatus, review_refs, review_spills};
pub use spills::{SpillKind, SpillLoop, SpillStep};
pub use thrash::Thrash;
pub use verdict::Severity;

/// Rough token count: characters / 4, rounded up. The default until a BPE counter is passed.
pub fn chars_div_4(text: &str) -> usize {
    crate::tokens::counter::estimate(text.chars().count()) as usize
}

/// How to diagnose.
pub struct Options<'a> {
    /// Counts the tokens of a text (re-read cost).
    pub count_tokens: &'a dyn Fn(&str) -> usize,
    /// A user pattern for spill markers (named group `path`), beside the built-in ones.
    pub spill_pattern: Option<&'a Regex>,
}

impl Default for Options<'_> {
    fn default() -> Self {
        Options {
            count_tokens: &chars_div_4,
            spill_pattern: None,
        }
    }
}

/// One compaction as the post-mortem sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct CompactionInfo {
    /// 1-based number.
    pub number: usize,
    /// First message after the cut.
    pub cut_index: usize,
    /// The summary message, when there is one.
    pub summary_index: Option<usize>,
    /// Characters of the summary.
    pub summary_chars: usize,
    /// The summary passes the gate (non-empty, at least 400 characters, not a trim).
    pub usable: bool,
    /// Why it does not, when it does not.
    pub problem: Option<String>,
    /// Messages this compaction dropped from the model's view.
    pub dropped: usize,
    /// A microcompact: it cleared old tool results and wrote no summary, so the summary gate
    /// does not apply (`usable` false, `problem` null) and it drops no message.
    #[serde(default)]
    pub micro: bool,
    /// Messages whose tool results a microcompact cleared.
    #[serde(default)]
    pub cleared: usize,
}

/// The post-mortem of one session: the `diagnose` JSON contract.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Diagnosis {
    /// One line: the most telling finding.
    pub verdict: String,
    /// `stuck` | `watch` | `ok`: the worst finding's.
    pub severity: Severity,
    /// Compactions that did not free the context.
    pub thrash: Vec<Thrash>,
    /// The worker was expected to write (it wrote, or it is a main session whose task asks
    /// for a change); "mostly exploring" applies only then.
    pub expects_writes: bool,
    /// Per file: reads, re-reads, re-reads after compaction, tokens.
    pub rereads: Vec<FileReads>,
    /// Share of calls that only look (0–1).
    pub exploration_share: f64,
    /// Repeated calls, error streaks, stretches without a write, timeouts.
    pub loops: Vec<Loop>,
    /// Reads of spill files that spilled again, repeated.
    pub spill_loops: Vec<SpillLoop>,
    /// Items in a dropped span that neither the summary nor the kept tail carries.
    pub summary_losses: Vec<SummaryLoss>,
    /// The session.
    pub session_id: String,
    /// Every finding as a clause, most telling first (the verdict shows the first three).
    pub findings: Vec<String>,
    /// Each re-read, with the read it repeats.
    pub reread_events: Vec<Reread>,
    /// Exploration in detail (counts, time per call).
    pub exploration: Exploration,
    /// The compactions, with the usable-summary gate.
    pub compactions: Vec<CompactionInfo>,
    /// Calls the session ended on with no output recorded (the worker stopped, or was
    /// stopped, while they ran). Not a pairing error: nothing was sent after them.
    pub ended_while_running: Vec<RunningCall>,
}

/// A tool call still running when the session ends.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct RunningCall {
    /// The tool as stored.
    pub name: String,
    /// The call's id.
    pub id: String,
    /// The message holding the call.
    pub message_index: usize,
}

/// The unanswered calls of the session's last message, when nothing came after them.
fn ended_while_running(session: &Session, calls: &[calls::Call]) -> Vec<RunningCall> {
    // Error rows and kept-unknown records are not the conversation going on.
    let last = session
        .messages
        .iter()
        .rev()
        .find(|m| {
            m.error.is_none()
                && !m
                    .parts
                    .iter()
                    .all(|p| matches!(p, crate::model::Part::Other { .. }))
        })
        .map(|m| m.index);
    // Cline's and Roo Code's ways of handing the turn back: the answer comes from the user,
    // if ever, so nothing was running.
    const HAND_BACK: [&str; 3] = [
        "attempt_completion",
        "ask_followup_question",
        "plan_mode_respond",
    ];
    calls
        .iter()
        .filter(|c| Some(c.call_index) == last && c.result_index.is_none())
        .filter(|c| !HAND_BACK.contains(&c.name))
        .map(|c| RunningCall {
            name: c.name.to_owned(),
            id: c.id.to_owned(),
            message_index: c.call_index,
        })
        .collect()
}

/// Compile every pattern a diagnosis uses (about 7 ms on first use), so a caller with a core
/// to spare does it while the session is still being read.
pub fn warm_up() {
    losses::warm_up();
    markers::warm_up();
    classified::warm_up();
}

/// Diagnose one session.
pub fn diagnose(session: &Session, opts: &Options) -> Diagnosis {
    diagnose_known(session, opts, None, &classified::Classified::of(session)).0
}

/// [`diagnose`] a session whose first `known_before` messages a previous diagnosis saw as they
/// are (an appended transcript read on from its last offset), with the summary losses of only
/// the compactions that may have changed since: those numbered from the returned number on
/// (`losses::first_changed`). The caller keeps the others' losses (the index, in its rows);
/// with `None` every compaction's losses are made and the number is 1. Finding the losses is
/// the one part of a diagnosis whose work grows with every compaction's dropped span: on a
/// transcript of hundreds of cuts it was a third of an update after one appended line. The
/// session's calls come `classified`.
pub fn diagnose_known(
    session: &Session,
    opts: &Options,
    known_before: Option<usize>,
    classified: &classified::Classified<'_>,
) -> (Diagnosis, usize) {
    let (calls, classes) = (&classified.calls, &classified.classes);
    let cuts = cuts::cuts(session);
    let (rereads, reread_events) = rereads::rereads(calls, classes, &cuts, opts.count_tokens);
    let exploration = exploration::exploration(calls, classes);
    let compactions = cuts
        .iter()
        .enumerate()
        .map(|(k, c)| {
            // A collapse summarises one span in a line or two: not judged as a compaction
            // summary (a microcompact writes none).
            let problem = (!c.partial())
                .then(|| losses::summary_problem(&c.summary_text, c.trimmed))
                .flatten();
            CompactionInfo {
                number: c.number,
                cut_index: c.cut_index,
                summary_index: c.summary_index,
                summary_chars: c.summary_text.trim().chars().count(),
                usable: !c.micro && problem.is_none(),
                problem,
                dropped: cuts::dropped_span(session, &cuts, k).len(),
                micro: c.micro,
                cleared: c.cleared.len(),
            }
        })
        .collect();
    let expects_writes = exploration.write_calls > 0 || expected_to_write(session);
    let losses_from = known_before.map_or(0, |k| losses::first_changed(session, &cuts, k));
    let first_number = cuts
        .get(losses_from)
        .map_or_else(|| cuts.last().map_or(1, |c| c.number + 1), |c| c.number);
    let mut d = Diagnosis {
        verdict: String::new(),
        severity: Severity::Ok,
        thrash: thrash::thrash(session, &cuts, Some(classified)),
        expects_writes,
        exploration_share: exploration.share,
        rereads,
        loops: loops::loops(classified),
        spill_loops: spills::spill_loops(classified, opts.spill_pattern),
        summary_losses: losses::losses_from(session, &cuts, losses_from),
        session_id: session.meta.id.clone(),
        findings: Vec::new(),
        reread_events,
        exploration,
        compactions,
        ended_while_running: ended_while_running(session, calls),
    };
    let found = verdict::findings(&d);
    d.severity = verdict::severity(&found);
    d.verdict = verdict::verdict(&d, &found);
    d.findings = found.into_iter().map(|(_, f)| f).collect();
    (d, first_number)
}

/// A main session is a worker offered write tools; a subagent that never wrote is one only
/// when its task asks for a change (an Explore or search run is meant to look).
fn expected_to_write(session: &Session) -> bool {
    static CHANGE: std::sync::LazyLock<Regex> = std::sync::LazyLock::new(|| {
        Regex::new(r"(?i)\b(fix|implement|edit|modify|change|refactor|update|add|create|write|remove|delete|rename|patch|migrate)\b")
            .expect("static regex")
    });
    if session.meta.parent_id.is_none() {
        return true;
    }
    session
        .messages
        .iter()
        .find(|m| m.role == crate::model::Role::User && !m.has_tool_result())
        .is_some_and(|m| CHANGE.is_match(&m.text()))
}
