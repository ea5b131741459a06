//! What the app's Tokens and Replay panels receive, composed from the concern modules: the four
//! token charts as separate SVGs (so each gets its table), a replayed context as timeline rows
//! (so a replay reads like the timeline), a simulation's summary, and a sweep with its heatmap.
//!
//! Counting is `tokens`', compaction policies are `replay`'s, drawing is `charts`'; this module
//! only reshapes their results for the window. The wrappers the app calls are in `api`.

use serde::{Deserialize, Serialize};

use crate::charts::{self, ThemeName};
use crate::error::Result;
use crate::model::{Message, MessageKind, Session};
use crate::replay::options::{PolicyName, ReplayOptions, ReplayView};
use crate::replay::simulate::{SimCompaction, Totals};
use crate::replay::sweep::{Axis, Metric, SweepGrid};
use crate::replay::{Counter, ReplayedMessage, SummarySource};
use crate::views::timeline::TimelineRow;
use crate::views::tokens::TokenReport;

/// The Tokens panel's charts, one SVG each, drawn in one theme.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct TokenCharts {
    /// Share of the final agent-visible context by category.
    pub final_context: String,
    /// Share of everything processed over the run (the cost view).
    pub processed: String,
    /// Context per request, stacked by category, with cuts and the trigger.
    pub per_request: String,
    /// Top tools by tokens.
    pub top_tools: String,
}

/// Draw the four token charts of `report`.
pub fn token_charts(report: &TokenReport, theme: ThemeName) -> Result<TokenCharts> {
    Ok(TokenCharts {
        final_context: charts::share::svg(
            &format!(
                "Final agent-visible context by category ({})",
                report.encoding
            ),
            &report.final_context,
            theme,
        )?,
        processed: charts::share::svg(
            "All tokens processed over the run (sum of each request's context)",
            &report.processed,
            theme,
        )?,
        per_request: charts::area::svg(report, theme)?,
        top_tools: charts::tools::svg(&report.top_tools, theme)?,
    })
}

/// One message of a replayed context, in the timeline's row format.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct ReplayRow {
    /// Position in the replayed context (0-based).
    pub position: usize,
    /// The stored message this is or copies (a preserved copy links to the ask it repeats);
    /// `None` for messages the policy wrote.
    pub source_index: Option<usize>,
    /// The row as the timeline draws it (`index` = `source_index`, else `position`).
    pub row: TimelineRow,
    /// Tokens of the message (BPE; a placeholder summary counts as its chosen size).
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub tokens: u64,
    /// A stored message kept verbatim after the cut.
    pub kept_tail: bool,
    /// Holds a tool result whose call is not in the context before it.
    pub orphan: bool,
}

/// A history compacted once, as the Replay panel shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct ReplayPanel {
    /// The agent view after compaction, in order.
    pub rows: Vec<ReplayRow>,
    /// Tokens of the whole replayed context.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub tokens: u64,
    /// Stored index of the first message after the cut.
    pub cut_index: usize,
    /// Where the cut was asked for, before goose's backward walk.
    pub requested_cut_index: usize,
    /// Stored indices kept verbatim.
    pub kept_tail: Vec<usize>,
    /// goose: a preserved copy of the user's ask was appended.
    pub preserved_appended: bool,
    /// Tool results left without their call.
    pub orphans: usize,
    /// Which policy is applied and why its preserved ask is the one it is.
    pub note: crate::replay::explain::PolicyNote,
}

/// Reshape a replay into timeline rows, counting each message with `counter`.
pub fn replay_panel(
    session: &Session,
    opts: &ReplayOptions,
    view: ReplayView,
    counter: Counter<'_>,
) -> ReplayPanel {
    // What the replay knows, taken as it says: the ask a preserved copy repeats, and which
    // messages hold orphaned results (by `replay::pairing`'s rule, the one that counts them).
    let rows: Vec<ReplayRow> = view
        .visible
        .iter()
        .enumerate()
        .map(|(position, r)| {
            let source_index = r.source_index.or(match r.kind {
                MessageKind::PreservedCopy => view.preserved_index,
                _ => None,
            });
            let message = as_message(session, r, source_index, position);
            ReplayRow {
                position,
                source_index,
                row: crate::views::timeline::row(&message),
                tokens: tokens(&message, opts, counter),
                kept_tail: r.kind != MessageKind::PreservedCopy
                    && source_index.is_some_and(|i| view.kept_tail.contains(&i)),
                orphan: view.orphaned.contains(&position),
            }
        })
        .collect();
    ReplayPanel {
        tokens: rows.iter().map(|r| r.tokens).sum(),
        rows,
        cut_index: view.cut_index,
        requested_cut_index: view.requested_cut_index,
        kept_tail: view.kept_tail,
        preserved_appended: view.preserved_appended,
        orphans: view.orphans,
        note: crate::replay::explain::policy_note(session, opts),
    }
}

/// The replayed message as a stored one: every row is seen by the model; the user saw the
/// stored original (and the preserved copy, which repeats their ask), never what the policy
/// wrote for the model alone (summary, continuation).
fn as_message(
    session: &Session,
    r: &ReplayedMessage,
    source_index: Option<usize>,
    position: usize,
) -> Message {
    let original = source_index.and_then(|i| session.messages.iter().find(|m| m.index == i));
    let mut m = Message::new(source_index.unwrap_or(position), r.role, r.parts.clone());
    m.kind = r.kind;
    m.agent_visible = true;
    m.user_visible = match r.kind {
        MessageKind::Summary | MessageKind::Continuation => false,
        MessageKind::PreservedCopy => true,
        _ => original.is_none_or(|o| o.user_visible),
    };
    m.created = original.and_then(|o| o.created);
    m
}

/// The size a replay takes its placeholder summaries to have (as `ReplayOptions` decides it).
fn summary_tokens(o: &ReplayOptions) -> u64 {
    use crate::replay::options::{DEFAULT_SUMMARY_TOKENS, LEGACY_SUMMARY_TOKENS};
    o.summary_tokens.unwrap_or(if o.legacy {
        LEGACY_SUMMARY_TOKENS
    } else {
        DEFAULT_SUMMARY_TOKENS
    })
}

/// Tokens of one replayed message. A summary the policy wrote stands for a summary of the
/// chosen size: goose's is the placeholder alone; coworker's block embeds it among the carried
/// user messages and working state, which are counted as they are.
fn tokens(m: &Message, o: &ReplayOptions, counter: Counter<'_>) -> u64 {
    if m.kind != MessageKind::Summary {
        return counter.count(m);
    }
    let placeholder = SummarySource::Placeholder {
        tokens: summary_tokens(o),
    }
    .text();
    if m.text() == placeholder {
        summary_tokens(o)
    } else {
        counter.count(m) + summary_tokens(o)
    }
}

/// A simulation's totals and its compactions, without the per-request list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct SimulationSummary {
    /// Totals over the run.
    pub totals: Totals,
    /// Every simulated compaction.
    pub compactions: Vec<SimCompaction>,
    /// ≈ what the setting would have cost beside what the session did cost.
    pub cost: Option<crate::cost::setting::SettingCost>,
}

/// A sweep and its heatmap.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct SweepView {
    /// The grid: axes, the metric per cell and every cell's totals.
    pub grid: SweepGrid,
    /// The heatmap of `grid`.
    pub svg: String,
}

/// The grid the Replay panel sweeps by default: goose keep-tail 0–8 (OpenCode: tail turns) ×
/// tool-result caps; Gemini's kept 10–70 % × tool-result caps;
/// coworker trigger caps (a quarter of the window up to the whole) × tool-result caps.
pub fn default_axes(context_limit: Option<u64>, opts: &ReplayOptions) -> (Axis, Axis) {
    let caps = Axis::ToolResultCap(vec![0, 2_000, 10_000, 30_000]);
    match opts.policy {
        // OpenCode's rows are the user turns kept (its `tail_turns`).
        PolicyName::Goose | PolicyName::OpenCode => (Axis::KeepTail((0..=8).collect()), caps),
        PolicyName::Gemini => (Axis::PreservePercent(GEMINI_PRESERVE.to_vec()), caps),
        PolicyName::Coworker => {
            let window = opts
                .context_window
                .or(context_limit)
                .unwrap_or(crate::replay::options::DEFAULT_CONTEXT);
            let caps_tokens = [4, 3, 2, 1].map(|d| window / d).to_vec();
            (Axis::TriggerCap(caps_tokens), caps)
        }
    }
}

/// The kept percentages Gemini's sweep tries (its default, 30, among them).
pub const GEMINI_PRESERVE: [usize; 7] = [10, 20, 30, 40, 50, 60, 70];

/// The heatmap title of a sweep of the session named `name`.
pub fn sweep_title(name: &str, metric: Metric) -> String {
    format!("{name} — {}", metric.name())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::options::replay_once;

    fn seed_five() -> Session {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../fixtures/goose/sessions.db"
        );
        crate::api::load_session(std::path::Path::new(path), Some("seed-five")).unwrap()
    }

    #[test]
    fn seed_five_at_k3_reads_as_seven_rows_with_the_tail_and_copy_marked() {
        let s = seed_five();
        let o = ReplayOptions {
            keep_tail: 3,
            ..ReplayOptions::default()
        };
        let p = replay_panel(
            &s,
            &o,
            replay_once(&s, &o, None, &crate::tokens::counter::CharEstimate),
            &crate::tokens::counter::CharEstimate,
        );
        let got: Vec<(Option<usize>, MessageKind)> = p
            .rows
            .iter()
            .map(|r| (r.source_index, r.row.kind))
            .collect();
        assert_eq!(
            got,
            vec![
                (None, MessageKind::Summary),
                (None, MessageKind::Continuation),
                (Some(1), MessageKind::Ordinary),
                (Some(2), MessageKind::Ordinary),
                (Some(3), MessageKind::Ordinary),
                (Some(4), MessageKind::Ordinary),
                (Some(0), MessageKind::PreservedCopy),
            ],
            "K=3 walks back to the cat call: summary, continuation, 1-4, the preserved ask"
        );
        let kept: Vec<bool> = p.rows.iter().map(|r| r.kept_tail).collect();
        assert_eq!(
            kept,
            [false, false, true, true, true, true, false],
            "only 1-4 are the kept tail; the copy is not"
        );
        let seen_by_user: Vec<bool> = p.rows.iter().map(|r| r.row.user_visible).collect();
        assert_eq!(
            seen_by_user,
            [false, false, true, true, true, true, true],
            "summary and continuation are model-only"
        );
        assert_eq!(p.orphans, 0, "the walk keeps every call with its result");
        assert!(p.rows.iter().all(|r| !r.orphan), "no row is an orphan");
        assert_eq!(
            p.rows[0].tokens,
            crate::replay::options::DEFAULT_SUMMARY_TOKENS,
            "the placeholder summary counts as its chosen size"
        );
    }

    #[test]
    fn naive_k3_leaves_the_cat_result_orphaned() {
        let s = seed_five();
        let o = ReplayOptions {
            keep_tail: 3,
            naive: true,
            ..ReplayOptions::default()
        };
        let p = replay_panel(
            &s,
            &o,
            replay_once(&s, &o, None, &crate::tokens::counter::CharEstimate),
            &crate::tokens::counter::CharEstimate,
        );
        assert_eq!(p.orphans, 1, "a naive tail of 3 opens on the cat result");
        let orphans: Vec<Option<usize>> = p
            .rows
            .iter()
            .filter(|r| r.orphan)
            .map(|r| r.source_index)
            .collect();
        assert_eq!(
            orphans,
            vec![Some(2)],
            "the orphan row is message 2, the file"
        );
    }
}
