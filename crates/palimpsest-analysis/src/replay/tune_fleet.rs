//! A fleet tuned: each setting's cells summed over the sessions, the settings on the Pareto
//! front of re-reads avoided against tokens carried, and the knee of that front — the setting
//! past which each avoided re-read costs the most tokens — each with the sessions that gain
//! most. What one session's cell holds is `tune`'s; drawing and linking are the front ends'.

use serde::{Deserialize, Serialize};

use super::options::PolicyName;
use super::tune::{Avoided, Cell, Setting};
use crate::model::SourceFormat;

/// How many sessions each setting names as gaining most.
pub const GAINING: usize = 5;

/// One session tuned: what the fleet's filters need, and its cell per setting.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct SessionTune {
    /// The session.
    pub session_id: String,
    /// Its name, as the listing gives it.
    pub name: String,
    /// The file or database it is read from.
    pub path: String,
    /// Its harness.
    pub format: SourceFormat,
    /// Its model.
    pub model: Option<String>,
    /// Its working dir (the project).
    pub project: Option<String>,
    /// When it was last written (ms since the epoch).
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub updated: Option<i64>,
    /// Re-reads after a compaction in the recorded run.
    pub recorded: usize,
    /// Its cell under each setting, in the settings' order.
    pub cells: Vec<Cell>,
}

/// A session that gains under a setting, with the first re-read it would have spared (where
/// the front ends open it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Gain {
    /// The session.
    pub session_id: String,
    /// Its name.
    pub name: String,
    /// Its file.
    pub path: String,
    /// Re-reads spared.
    pub avoided: usize,
    /// The first of them.
    pub first: Avoided,
}

/// One setting over the fleet.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct SettingTotals {
    /// The setting.
    pub setting: Setting,
    /// As `tune --grid` names it.
    pub label: String,
    /// Re-reads after a compaction spared.
    pub avoided: usize,
    /// Their tokens.
    pub avoided_tokens: usize,
    /// Context tokens over every replayed request.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub tokens_carried: u64,
    /// ≈ their price, over the sessions with recorded usage (`None` when none has).
    pub usd: Option<f64>,
    /// Compactions that would have fired.
    pub compactions: usize,
    /// Of them, storms.
    pub storms: usize,
    /// Requests past the model's window.
    pub over_window: usize,
    /// Tool results left without their call (zero for a sound policy).
    pub orphans: usize,
    /// The sessions that gain most, most first.
    pub gaining: Vec<Gain>,
}

/// A fleet tuned ([`tune_fleet`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Tune {
    /// The policy replayed.
    pub policy: PolicyName,
    /// Each setting's totals, in the grid's order.
    pub settings: Vec<SettingTotals>,
    /// Indices into `settings` on the Pareto front (no other setting spares as many re-reads
    /// for fewer tokens), fewest tokens first. A setting that orphans a tool result is never
    /// on it: a request a strict API refuses is no saving.
    pub front: Vec<usize>,
    /// The front's knee, the recommendation (an index into `settings`).
    pub knee: Option<usize>,
    /// Re-reads after a compaction in the recorded runs.
    pub recorded: usize,
    /// Every session, its cells in the settings' order.
    pub sessions: Vec<SessionTune>,
}

/// Sum `sessions` (each with a cell per setting of `settings`) into the fleet's answer.
pub fn tune_fleet(policy: PolicyName, settings: &[Setting], sessions: Vec<SessionTune>) -> Tune {
    let totals: Vec<SettingTotals> = settings
        .iter()
        .enumerate()
        .map(|(k, setting)| {
            let mut t = SettingTotals {
                setting: setting.clone(),
                label: setting.label(),
                avoided: 0,
                avoided_tokens: 0,
                tokens_carried: 0,
                usd: None,
                compactions: 0,
                storms: 0,
                over_window: 0,
                orphans: 0,
                gaining: Vec::new(),
            };
            for s in &sessions {
                let Some(c) = s.cells.get(k) else { continue };
                t.avoided += c.avoided.len();
                t.avoided_tokens += c.avoided.iter().map(|a| a.tokens).sum::<usize>();
                t.tokens_carried += c.tokens_carried;
                if let Some(u) = c.usd {
                    *t.usd.get_or_insert(0.0) += u;
                }
                t.compactions += c.compactions;
                t.storms += c.storms;
                t.over_window += c.over_window;
                t.orphans += c.orphans;
                if let Some(first) = c.avoided.first() {
                    t.gaining.push(Gain {
                        session_id: s.session_id.clone(),
                        name: s.name.clone(),
                        path: s.path.clone(),
                        avoided: c.avoided.len(),
                        first: first.clone(),
                    });
                }
            }
            t.gaining.sort_by(|a, b| {
                b.avoided
                    .cmp(&a.avoided)
                    .then_with(|| a.session_id.cmp(&b.session_id))
            });
            t.gaining.truncate(GAINING);
            t
        })
        .collect();
    let points: Vec<(usize, u64)> = totals
        .iter()
        .map(|t| (t.avoided, t.tokens_carried))
        .collect();
    let sound: Vec<bool> = totals.iter().map(|t| t.orphans == 0).collect();
    let front = front(&points, &sound);
    let knee = knee(&points, &front);
    Tune {
        policy,
        recorded: sessions.iter().map(|s| s.recorded).sum(),
        settings: totals,
        front,
        knee,
        sessions,
    }
}

/// Of the `eligible` points, those no other eligible one beats on both (more avoided or as
/// many, fewer tokens or as few, one of them strictly), fewest tokens first; of equal points
/// the first in the grid.
fn front(points: &[(usize, u64)], eligible: &[bool]) -> Vec<usize> {
    let mut out: Vec<usize> = (0..points.len())
        .filter(|&i| {
            let (a, t) = points[i];
            eligible[i]
                && !points.iter().enumerate().any(|(j, &(b, u))| {
                    eligible[j]
                        && ((b >= a && u <= t && (b > a || u < t)) || (j < i && b == a && u == t))
                })
        })
        .collect();
    out.sort_by_key(|&i| (points[i].1, std::cmp::Reverse(points[i].0)));
    out
}

/// The front's point farthest from the line joining its two ends, both axes scaled to their
/// range on the front: where sparing more re-reads starts to cost much more. With two points or
/// fewer, the one that spares most.
fn knee(points: &[(usize, u64)], front: &[usize]) -> Option<usize> {
    if front.len() <= 2 {
        return front
            .iter()
            .copied()
            .max_by_key(|&i| (points[i].0, std::cmp::Reverse(points[i].1)));
    }
    let (first, last) = (points[front[0]], points[front[front.len() - 1]]);
    let span_a = (last.0 as f64 - first.0 as f64).abs().max(1.0);
    let span_t = (last.1 as f64 - first.1 as f64).abs().max(1.0);
    let scaled = |(a, t): (usize, u64)| {
        (
            (a as f64 - first.0 as f64) / span_a,
            (t as f64 - first.1 as f64) / span_t,
        )
    };
    let end = scaled(last);
    let norm = (end.0 * end.0 + end.1 * end.1).sqrt().max(f64::EPSILON);
    front
        .iter()
        .copied()
        .map(|i| {
            let p = scaled(points[i]);
            (i, (p.0 * end.1 - p.1 * end.0).abs() / norm)
        })
        .max_by(|a, b| a.1.total_cmp(&b.1).then_with(|| b.0.cmp(&a.0)))
        .map(|(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_front_drops_what_another_setting_beats_and_the_knee_is_where_the_price_turns() {
        // (avoided, tokens): 0 spares 0 for 100; 1 spares 5 for 110; 2 spares 6 for 200;
        // 3 spares 4 for 150 (beaten by 1); 4 spares 5 for 110 again (a tie: the first kept).
        let p = [(0, 100), (5, 110), (6, 200), (4, 150), (5, 110)];
        let all = [true; 5];
        assert_eq!(front(&p, &all), vec![0, 1, 2]);
        assert_eq!(knee(&p, &front(&p, &all)), Some(1));
        // Setting 1 orphans a tool result: it leaves the front, and 3 (beaten only by 1) and
        // 4 (1's tie) come back.
        let sound = [true, false, true, true, true];
        assert_eq!(front(&p, &sound), vec![0, 4, 2]);
        // Nothing spared anywhere: the cheapest alone.
        let flat = [(0, 300), (0, 200), (0, 250)];
        assert_eq!(front(&flat, &[true; 3]), vec![1]);
        assert_eq!(knee(&flat, &front(&flat, &[true; 3])), Some(1));
        // Two on the front: the one that spares most.
        let two = [(0, 100), (3, 180)];
        assert_eq!(knee(&two, &front(&two, &[true; 2])), Some(1));
        // Every setting orphans: no front, no recommendation.
        assert_eq!(front(&two, &[false; 2]), Vec::<usize>::new());
        assert_eq!(knee(&two, &[]), None);
    }
}
