//! Check a recorded coworker session against coworker's own rules (coworker-format §2, §4, §7):
//! for each recorded compaction, re-derive from the canonical message list and the recorded
//! summary what the harness computes mechanically (the working state, the preserved user
//! messages, the omitted count, for a trim its summary, and the compacted block) and compare
//! field by field with the record. A harness that behaved as documented gives no difference.
//!
//! The rules are [`super::coworker`]'s (`span_user_texts`, `fit_user_messages`,
//! `working_state`) and the block is the reader's renderer, so a replay and a check can never
//! disagree about them. What an LLM or the environment wrote (`summary_text` of a real
//! summary, `created_at`, `model_used`, `transcript_path`) is taken from the record, not checked.
//! Reading the records is the coworker reader's; printing the report is the front ends'.
//!
//! **The span.** A record's span is the canonical list (the stored messages, without the blocks
//! the reader inserts) from the previous state's boundary to its own; the previous state also
//! gives the user messages carried over and the omitted count so far.
//!
//! **Unrecorded states.** The older harness (MAIN-0821) writes `compacted` notices without a
//! record and keeps only the latest state, in `sessions.compaction`. That state was built on
//! the earlier ones (its span starts at the previous boundary, its user messages and omitted
//! count carry over, a trim prepends the earlier summary). Those earlier states are re-derived
//! by coworker's own rules at their notices ([`super::unrecorded`]), so the record is checked
//! over its own span. When the rules give no boundary at a notice (at this window), the record
//! is reported as "earlier states were not recorded: cannot verify", never as a difference:
//! the harness may well have run with another window.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::coworker as cw;
use super::options::ReplayOptions;
use super::unrecorded::{self, Derived};
use crate::model::{Message, MessageKind, Session};
use crate::sources::coworker::block::{BlockStyle, CompactionState, TRIM_NOTE};

/// The check of every recorded coworker compaction of a session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct VerifyReport {
    /// The session checked.
    pub session_id: String,
    /// The preserved-user-message budget the rules were applied with, in tokens
    /// (`max(2000, min(20000, int(0.08 × trigger)))` at the options' or session's window).
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub user_budget: u64,
    /// The context window that budget comes from, in tokens.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub window: u64,
    /// Where the window came from: `given` (`--context-window`), `session` (recorded) or
    /// `default` (128 000). Only a given one is sure to be what the harness ran with, so a
    /// `user_messages` difference under another may come from the window, not the rules.
    pub window_from: String,
    /// Which numbering each index uses: `cut_index` is the session's stored message index (as
    /// `show` prints it), `boundary_index` and `span_start` are positions in coworker's own
    /// canonical list (its stored messages without the rebuilt blocks), as the record has them.
    pub index_space: String,
    /// One check per record, in boundary order.
    pub compactions: Vec<CompactionCheck>,
    /// True when no record differs from what the rules give (also when there is no record).
    pub all_equal: bool,
}

/// One recorded compaction, re-derived and compared.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct CompactionCheck {
    /// Index in the session (the reader's timeline) of the record's block.
    pub cut_index: usize,
    /// The record's `boundary_index` (canonical list).
    pub boundary_index: usize,
    /// Where its span starts (the previous state's boundary, recorded or re-derived, else 0).
    pub span_start: usize,
    /// A trim (no summary: its summary is the prior one plus the trim note, so it is checked).
    pub trimmed: bool,
    /// Rendered and derived with the MAIN-0821 rules (the record has no `transcript_path`).
    pub legacy: bool,
    /// The compared fields, in a fixed order.
    pub fields: Vec<FieldCheck>,
    /// Whether the block rendered from the record equals the one rendered from the derivation.
    pub block_equal: bool,
    /// The first line where the two blocks part, when they do.
    pub first_difference: Option<LineDifference>,
    /// Why this record cannot be checked, when it cannot: earlier compactions left no state
    /// and coworker's rules give none at this window. Its fields are then not compared.
    #[serde(default)]
    pub unverifiable: Option<String>,
    /// How many earlier compactions left only a notice and were re-derived (boundary, user
    /// messages, working state) by coworker's rules to find this record's span.
    #[serde(default)]
    pub derived_earlier: usize,
}

impl CompactionCheck {
    /// True when every field and the block agree.
    pub fn equal(&self) -> bool {
        self.block_equal && self.fields.iter().all(|f| f.equal)
    }

    /// True when the check found a difference (an unverifiable record has none).
    pub fn differs(&self) -> bool {
        self.unverifiable.is_none() && !self.equal()
    }
}

/// Where the session's `compacted` notices without a record sit (MAIN-0821 writes no record).
fn notices(s: &Session) -> Vec<usize> {
    s.messages
        .iter()
        .filter(|m| {
            m.kind == MessageKind::Notification
                && m.details.as_ref().is_some_and(|d| {
                    d.get("kind").as_ref().and_then(Value::as_str) == Some("compacted")
                        && !d.has("compaction")
                })
        })
        .map(|m| m.index)
        .collect()
}

/// Where a record's compaction happened in the timeline, and whether it was read from
/// `sessions.compaction` (then its own notice is the latest record-less one before that point).
fn record_position(s: &Session, cut_index: usize) -> (bool, usize) {
    let rec = s.compactions.iter().find(|c| c.cut_index == cut_index);
    let column = s
        .messages
        .get(cut_index)
        .and_then(|m| m.detail("rebuilt_from"))
        .as_ref()
        .and_then(Value::as_str)
        == Some("sessions.compaction");
    let at = if column {
        s.messages.len()
    } else {
        rec.map_or(cut_index, crate::model::CompactionRecord::effective_index)
    };
    (column, at)
}

/// One field of a record next to its re-derivation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct FieldCheck {
    /// The record's key (`working_state`, `user_messages`, `user_messages_dropped`,
    /// `summary_text` for trims).
    pub name: String,
    /// As recorded (as read back: a missing key reads as coworker's default).
    pub recorded: Value,
    /// As the rules give it.
    pub derived: Value,
    /// `recorded == derived`.
    pub equal: bool,
}

/// Where two block texts first differ. Lines and columns count from 1, columns in characters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct LineDifference {
    /// The line number.
    pub line: usize,
    /// The first differing character (one past the shorter line when one is a prefix).
    pub column: usize,
    /// That line of the recorded block (`None` when the block ends before it).
    pub recorded: Option<String>,
    /// That line of the derived block (`None` when the block ends before it).
    pub derived: Option<String>,
}

/// Check every coworker compaction record of `s`. Records that are not coworker states (other
/// formats' compactions) are skipped; the knobs that matter are the window and threshold
/// (they set the user-message budget).
pub fn verify(s: &Session, o: &ReplayOptions) -> VerifyReport {
    let settings = o.settings(s);
    let canonical: Vec<&Message> = s.iter().filter(|m| !cw::is_rebuilt_block(m)).collect();
    let mut records: Vec<(usize, CompactionState)> = s
        .compactions
        .iter()
        .filter_map(|c| {
            let st = CompactionState::from_value(c.raw.as_ref()?).ok()??;
            Some((c.cut_index, st))
        })
        .collect();
    records.sort_by(|a, b| {
        (a.1.boundary_index, a.1.created_at.unwrap_or(0.0))
            .partial_cmp(&(b.1.boundary_index, b.1.created_at.unwrap_or(0.0)))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    let mut compactions = Vec::new();
    // The state before the next record: the previous record, or one re-derived at a notice.
    let mut prior: Option<Derived> = None;
    let unrecorded = notices(s);
    let canon_at = cw::canonical_indices(&s.messages);
    // Record-less notices come from the older harness: its rules re-derive their states.
    let older = cw::Settings {
        legacy: true,
        ..settings
    };
    let mut from = 0;
    for (cut_index, rec) in &records {
        let (column, at) = record_position(s, *cut_index);
        let mut pending: Vec<usize> = unrecorded
            .iter()
            .copied()
            .filter(|&p| p >= from && p < at)
            .collect();
        if column {
            pending.pop();
        }
        from = at;
        let mut underivable = None;
        for (k, &p) in pending.iter().enumerate() {
            let trim = unrecorded::is_trim_notice(&s.messages[p]);
            match unrecorded::derive_at(&canonical, canon_at[p], trim, prior.as_ref(), &older) {
                Some(d) if d.state.boundary_index < rec.boundary_index => prior = Some(d),
                _ => {
                    underivable = Some(k);
                    break;
                }
            }
        }
        let legacy = rec.style() == BlockStyle::Legacy;
        let rules = cw::Settings { legacy, ..settings };
        let end = rec.boundary_index.min(canonical.len());
        let start = prior
            .as_ref()
            .map_or(0, |p| p.state.boundary_index)
            .min(end);
        let span = &canonical[start..end];
        let derived = derive(rec, prior.as_ref(), span.iter().copied(), &rules);
        let mut check = compare(*cut_index, start, rec, &derived);
        check.derived_earlier = pending.len();
        check.unverifiable = underivable.map(|k| {
            let n = pending.len();
            format!(
                "earlier states were not recorded: cannot verify ({n} earlier compaction{} left \
                 only a notice, and this state was built on {}; coworker's rules give no boundary \
                 at the {} at a {}-token window)",
                if n == 1 { "" } else { "s" },
                if n == 1 { "it" } else { "them" },
                ordinal(k + 1),
                settings.window,
            )
        });
        compactions.push(check);
        prior = Some(Derived {
            state: rec.clone(),
            summary_known: true,
        });
    }
    let window_from = if o.context_window.is_some() {
        "given"
    } else if s.meta.context_limit.is_some() {
        "session"
    } else {
        "default"
    };
    VerifyReport {
        session_id: s.meta.id.clone(),
        user_budget: settings.user_budget(),
        window: settings.window,
        window_from: window_from.into(),
        index_space: "cut_index: stored message index; boundary_index, span_start: coworker's \
                      canonical list (its messages without rebuilt blocks)"
            .into(),
        all_equal: !compactions.iter().any(CompactionCheck::differs),
        compactions,
    }
}

/// The state the harness builds for `rec`'s span: `build_state` / `trim_state` with the
/// recorded summary (a trim's is derived too, from the prior summary when it is known: a trim
/// chaining a summary nobody recorded keeps the recorded one if it ends with the trim note)
/// and the recorded environment.
fn derive<'a>(
    rec: &CompactionState,
    prior: Option<&Derived>,
    span: impl IntoIterator<Item = &'a Message> + Clone,
    rules: &cw::Settings,
) -> CompactionState {
    let prior_state = prior.map(|p| &p.state);
    let built = cw::build_state(prior_state, span, rec.boundary_index, String::new(), rules);
    let summary_text = if rec.trimmed {
        match prior {
            Some(p) if !p.summary_known && rec.summary_text.ends_with(TRIM_NOTE) => {
                rec.summary_text.clone()
            }
            Some(p) if !p.state.summary_text.is_empty() => {
                format!("{}\n\n{TRIM_NOTE}", p.state.summary_text)
            }
            _ => TRIM_NOTE.to_owned(),
        }
    } else {
        rec.summary_text.clone()
    };
    // What the harness derives mechanically; everything else is taken as recorded.
    CompactionState {
        summary_text,
        working_state: built.working_state,
        user_messages: built.user_messages,
        user_messages_dropped: built.user_messages_dropped,
        ..rec.clone()
    }
}

/// "first", "second", … for the few notices a session has.
fn ordinal(n: usize) -> String {
    match n {
        1 => "first".into(),
        2 => "second".into(),
        3 => "third".into(),
        n => format!("{n}th"),
    }
}

fn compare(
    cut_index: usize,
    span_start: usize,
    rec: &CompactionState,
    derived: &CompactionState,
) -> CompactionCheck {
    let field = |name: &str, recorded: Value, derived: Value| FieldCheck {
        name: name.to_owned(),
        equal: recorded == derived,
        recorded,
        derived,
    };
    let mut fields = vec![
        field(
            "working_state",
            json!(rec.working_state),
            json!(derived.working_state),
        ),
        field(
            "user_messages",
            json!(rec.user_messages),
            json!(derived.user_messages),
        ),
        field(
            "user_messages_dropped",
            json!(rec.user_messages_dropped),
            json!(derived.user_messages_dropped),
        ),
    ];
    if rec.trimmed {
        fields.push(field(
            "summary_text",
            json!(rec.summary_text),
            json!(derived.summary_text),
        ));
    }
    let (recorded_block, derived_block) = (rec.block(), derived.block());
    CompactionCheck {
        cut_index,
        boundary_index: rec.boundary_index,
        span_start,
        trimmed: rec.trimmed,
        legacy: rec.style() == BlockStyle::Legacy,
        fields,
        block_equal: recorded_block == derived_block,
        first_difference: first_difference(&recorded_block, &derived_block),
        unverifiable: None,
        derived_earlier: 0,
    }
}

/// The first line where `recorded` and `derived` differ, `None` when they are equal.
pub fn first_difference(recorded: &str, derived: &str) -> Option<LineDifference> {
    if recorded == derived {
        return None;
    }
    let (a, b): (Vec<&str>, Vec<&str>) = (
        recorded.split('\n').collect(),
        derived.split('\n').collect(),
    );
    let n = a.len().max(b.len());
    (0..n).find_map(|i| {
        let (x, y) = (a.get(i).copied(), b.get(i).copied());
        if x == y {
            return None;
        }
        let (xs, ys) = (x.unwrap_or_default(), y.unwrap_or_default());
        let same = xs
            .chars()
            .zip(ys.chars())
            .take_while(|(p, q)| p == q)
            .count();
        Some(LineDifference {
            line: i + 1,
            column: same + 1,
            recorded: x.map(str::to_owned),
            derived: y.map(str::to_owned),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_difference_names_line_and_column() {
        assert_eq!(first_difference("a\nb\nc", "a\nb\nc"), None, "equal texts");
        assert_eq!(
            first_difference("a\n- (1 older)\nc", "a\n- (2 older)\nc"),
            Some(LineDifference {
                line: 2,
                column: 4,
                recorded: Some("- (1 older)".into()),
                derived: Some("- (2 older)".into()),
            }),
            "second line, fourth character"
        );
        assert_eq!(
            first_difference("a\nb", "a\nb\nc"),
            Some(LineDifference {
                line: 3,
                column: 1,
                recorded: None,
                derived: Some("c".into()),
            }),
            "the recorded block ends first"
        );
        assert_eq!(
            first_difference("a\nbc", "a\nb"),
            Some(LineDifference {
                line: 2,
                column: 2,
                recorded: Some("bc".into()),
                derived: Some("b".into()),
            }),
            "one line is a prefix of the other: one past the shorter"
        );
    }
}
