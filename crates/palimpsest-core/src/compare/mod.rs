//! Two recorded runs of the same task side by side (say one worker at K=0 and one at K=3):
//! aligned by user turn, then call by call inside each turn, with what each run did per turn —
//! its calls, where it compacted and what it kept, the tokens it sent and what that cost, the
//! files it read again — and the first place the runs part.
//!
//! A turn is a user message the user wrote (not a tool result, not a summary, continuation or
//! copy a compaction wrote) and everything until the next one. Turns are aligned by their text
//! (a longest-common-subsequence over both lists), and two aligned turns are the same when
//! their calls (tool and arguments, in order) are. Cuts, re-reads and cost come from
//! `analysis` and `cost`; this only aligns and sums. The window's side-by-side rows are
//! `view`'s.

mod view;
pub use view::{CompareLine, CompareView, side_by_side};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::analysis::{self, Options};
use crate::cost::{self, PriceTable};
use crate::model::{MessageKind, Part, Role, Session};

/// One turn of one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct TurnSide {
    /// The user's message (stored index) and the first message of the next turn.
    pub start: usize,
    /// One past the turn's last message.
    pub end: usize,
    /// What the user asked (first 200 characters).
    pub ask: String,
    /// The turn's calls: `tool {arguments}`.
    pub calls: Vec<String>,
    /// Compactions whose cut falls in the turn: `(cut index, trigger, messages kept verbatim)`.
    pub compactions: Vec<(usize, Option<String>, usize)>,
    /// Reads in the turn that read again what an earlier call read.
    pub rereads: usize,
    /// Prompt tokens the turn's requests sent, as the provider recorded them.
    pub tokens_sent: u64,
    /// Their cost in dollars, when the model is priced.
    pub cost_usd: Option<f64>,
}

/// One aligned step: a turn of each run (or of one only), and whether they did the same.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct TurnPair {
    /// Run A's turn.
    pub a: Option<TurnSide>,
    /// Run B's turn.
    pub b: Option<TurnSide>,
    /// Both ran the turn with the same calls.
    pub same: bool,
}

/// One run's totals.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct RunTotals {
    /// The session.
    pub session_id: String,
    /// Where it is stored.
    pub path: String,
    /// Its turns and calls.
    pub turns: usize,
    /// Its calls.
    pub calls: usize,
    /// Its compactions.
    pub compactions: usize,
    /// Its re-reads.
    pub rereads: usize,
    /// Prompt tokens sent over the run (recorded).
    pub tokens_sent: u64,
    /// What the run cost, when priced.
    pub cost_usd: Option<f64>,
    /// Its verdict.
    pub verdict: String,
}

/// Where the runs part first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Divergence {
    /// Position in [`RunDiff::turns`].
    pub turn: usize,
    /// The first call (0-based, in the turn) that differs, when both ran the turn.
    pub call: Option<usize>,
    /// What each did there, in words.
    pub what: String,
}

/// Two runs, aligned.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct RunDiff {
    /// Run A's totals.
    pub a: RunTotals,
    /// Run B's totals.
    pub b: RunTotals,
    /// The turns, aligned.
    pub turns: Vec<TurnPair>,
    /// Where they part first (`None`: they did the same throughout).
    pub first_divergence: Option<Divergence>,
}

fn call_text(name: &str, arguments: &Value) -> String {
    format!("{name} {arguments}")
}

/// A message the user wrote: a user message with text and no tool result, none a compaction
/// wrote.
fn is_ask(m: &crate::model::Message) -> bool {
    m.role == Role::User
        && m.kind == MessageKind::Ordinary
        && m.error.is_none()
        && !m.has_tool_result()
        && !m.text().trim().is_empty()
}

fn sides(s: &Session, table: &PriceTable) -> (Vec<TurnSide>, RunTotals) {
    let d = analysis::diagnose(s, &Options::default());
    let cuts = analysis::cuts::cuts(s);
    let costs = cost::session_cost(s, table);
    let starts: Vec<usize> = s
        .messages
        .iter()
        .filter(|m| is_ask(m))
        .map(|m| m.index)
        .collect();
    let mut turns = Vec::new();
    for (k, &start) in starts.iter().enumerate() {
        let end = starts.get(k + 1).copied().unwrap_or(s.messages.len());
        let msgs = &s.messages[start..end];
        let calls: Vec<String> = msgs
            .iter()
            .flat_map(|m| m.parts.iter())
            .filter_map(|p| match p {
                Part::ToolCall {
                    name, arguments, ..
                } => Some(call_text(name, &arguments.value())),
                _ => None,
            })
            .collect();
        let in_turn = |i: usize| i >= start && i < end;
        let requests: Vec<&cost::RequestCost> = costs
            .iter()
            .flat_map(|c| c.per_request.iter())
            .filter(|r| in_turn(r.message_index))
            .collect();
        let priced: Vec<f64> = requests.iter().filter_map(|r| r.usd).collect();
        turns.push(TurnSide {
            start,
            end,
            ask: s.messages[start].text().chars().take(200).collect(),
            calls,
            compactions: cuts
                .iter()
                .filter(|c| in_turn(c.cut_index))
                .map(|c| {
                    let trigger = s
                        .compactions
                        .iter()
                        .find(|r| r.cut_index == c.cut_index)
                        .and_then(|r| r.trigger)
                        .and_then(|t| serde_json::to_value(t).ok())
                        .and_then(|v| v.as_str().map(str::to_owned));
                    (c.cut_index, trigger, c.kept.len())
                })
                .collect(),
            rereads: d
                .reread_events
                .iter()
                .filter(|r| in_turn(r.call_index))
                .count(),
            tokens_sent: requests.iter().map(|r| r.usage.prompt()).sum(),
            cost_usd: (!priced.is_empty()).then(|| priced.iter().sum()),
        });
    }
    let totals = RunTotals {
        session_id: s.meta.id.clone(),
        path: s.meta.path.clone(),
        turns: turns.len(),
        calls: turns.iter().map(|t| t.calls.len()).sum(),
        compactions: cuts.len(),
        rereads: d.reread_events.len(),
        tokens_sent: turns.iter().map(|t| t.tokens_sent).sum(),
        cost_usd: costs.and_then(|c| c.total_usd),
        verdict: d.verdict,
    };
    (turns, totals)
}

/// Align run `a` with run `b`.
pub fn diff(a: &Session, b: &Session, table: &PriceTable) -> RunDiff {
    let (ta, totals_a) = sides(a, table);
    let (tb, totals_b) = sides(b, table);
    let key = |t: &TurnSide| crate::replay::coworker::normalise(&t.ask);
    let (ka, kb): (Vec<String>, Vec<String>) =
        (ta.iter().map(key).collect(), tb.iter().map(key).collect());
    let mut turns = Vec::new();
    // Asked otherwise at the same place: side by side, never the same.
    let pairs = crate::compaction::recorded::align(&ka, &kb);
    for (x, y) in pairs {
        let same = match (x, y) {
            (Some(i), Some(j)) => ka[i] == kb[j] && ta[i].calls == tb[j].calls,
            _ => false,
        };
        turns.push(TurnPair {
            a: x.map(|i| ta[i].clone()),
            b: y.map(|j| tb[j].clone()),
            same,
        });
    }
    let first_divergence = turns.iter().position(|t| !t.same).map(|k| {
        let t = &turns[k];
        match (&t.a, &t.b) {
            (Some(x), Some(y)) if x.ask != y.ask => Divergence {
                turn: k,
                call: None,
                what: format!(
                    "asked otherwise: A «{}», B «{}»",
                    x.ask.chars().take(80).collect::<String>(),
                    y.ask.chars().take(80).collect::<String>()
                ),
            },
            (Some(x), Some(y)) => {
                let call = (0..x.calls.len().max(y.calls.len()))
                    .find(|&c| x.calls.get(c) != y.calls.get(c));
                let say = |v: Option<&String>| {
                    v.map_or("nothing more".to_owned(), |c| c.chars().take(120).collect())
                };
                Divergence {
                    turn: k,
                    call,
                    what: match call {
                        Some(c) => format!(
                            "call {} of the turn: A {}, B {}",
                            c + 1,
                            say(x.calls.get(c)),
                            say(y.calls.get(c))
                        ),
                        None => "the same calls".into(),
                    },
                }
            }
            (Some(_), None) => Divergence {
                turn: k,
                call: None,
                what: "a turn only A ran".into(),
            },
            _ => Divergence {
                turn: k,
                call: None,
                what: "a turn only B ran".into(),
            },
        }
    });
    RunDiff {
        a: totals_a,
        b: totals_b,
        turns,
        first_divergence,
    }
}
