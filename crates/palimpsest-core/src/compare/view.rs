//! Two recorded runs in the timeline's own rows, for the window's Compare tab: the turns
//! [`super::diff`] aligned, and inside each pair of turns the messages aligned too, so a call
//! one run made and the other did not leaves a gap on the other side instead of shifting
//! everything below it. A line pairs a row of each run (or of one only) and says whether the
//! two did the same. Rows are `timeline::row`'s; the turn alignment is `super`'s.

use serde::{Deserialize, Serialize};

use super::{RunDiff, diff};
use crate::cost::PriceTable;
use crate::model::{Message, Part, Session};
use crate::views::timeline::{TimelineRow, row};

/// One line of the side-by-side view.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct CompareLine {
    /// Position of its turn pair in [`RunDiff::turns`].
    pub turn: usize,
    /// The first line of its turn pair (where the turn's header is drawn).
    pub head: bool,
    /// Run A's row, when A has a message here.
    pub a: Option<TimelineRow>,
    /// Run B's row.
    pub b: Option<TimelineRow>,
    /// Both have a message here and they did the same: same role, the same user text, the same
    /// calls (a model's wording is not compared, a result only by its error flag: outputs
    /// carry times and ids).
    pub same: bool,
}

/// Two runs side by side.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct CompareView {
    /// The turn-by-turn comparison (totals, turns, the first divergence).
    pub diff: RunDiff,
    /// Every line, turn by turn.
    pub lines: Vec<CompareLine>,
    /// The first line where the runs part, when they do: in the turn of
    /// [`RunDiff::first_divergence`], its first line that differs (else the turn's first).
    pub first_line: Option<usize>,
}

/// What a message did, for matching it with the other run's: its role and each part's gist.
/// The user's words count; a model's wording does not (two runs never phrase alike), its calls
/// do, as in [`super::diff`].
fn key(m: &Message) -> String {
    let mut k = format!("{:?}", m.role);
    for p in &m.parts {
        k.push('\u{1f}');
        match p {
            Part::Text { text } if m.role == crate::model::Role::User => {
                k.push_str(&crate::replay::coworker::normalise(text))
            }
            Part::Text { .. } => k.push_str("text"),
            Part::ToolCall {
                name, arguments, ..
            } => k.push_str(&format!("call {name} {arguments}")),
            Part::ToolResult { is_error, .. } => {
                k.push_str(if *is_error { "error" } else { "result" })
            }
            Part::Thinking { .. } => k.push_str("thinking"),
            other => k.push_str(other.type_name()),
        }
    }
    k
}

/// Runs `a` and `b` aligned turn by turn and, inside each turn, message by message.
pub fn side_by_side(a: &Session, b: &Session, table: &PriceTable) -> CompareView {
    let d = diff(a, b, table);
    let mut lines = Vec::new();
    for (t, pair) in d.turns.iter().enumerate() {
        let span = |s: &Session, side: Option<&super::TurnSide>| -> Vec<usize> {
            side.map(|x| (x.start..x.end.min(s.messages.len())).collect())
                .unwrap_or_default()
        };
        let (ia, ib) = (span(a, pair.a.as_ref()), span(b, pair.b.as_ref()));
        let ka: Vec<String> = ia.iter().map(|&i| key(&a.messages[i])).collect();
        let kb: Vec<String> = ib.iter().map(|&i| key(&b.messages[i])).collect();
        let first = lines.len();
        for (x, y) in crate::compaction::recorded::align(&ka, &kb) {
            lines.push(CompareLine {
                turn: t,
                head: lines.len() == first,
                a: x.map(|i| row(&a.messages[ia[i]])),
                b: y.map(|j| row(&b.messages[ib[j]])),
                same: matches!((x, y), (Some(i), Some(j)) if ka[i] == kb[j]),
            });
        }
    }
    let first_line = d.first_divergence.as_ref().and_then(|f| {
        let mut in_turn = lines.iter().enumerate().filter(|(_, l)| l.turn == f.turn);
        let head = in_turn.clone().next().map(|(i, _)| i);
        in_turn.find(|(_, l)| !l.same).map(|(i, _)| i).or(head)
    });
    CompareView {
        diff: d,
        lines,
        first_line,
    }
}
