//! Tune one session: replay it under every setting of a grid and measure, per setting, what the
//! fleet tuning asks of it — the re-reads after a compaction the replayed view would have
//! spared (the earlier read still in view at the re-read's request), the tokens carried over
//! every request and their price, the compactions that would have fired and their storms, the
//! requests past the window, and the tool results left without their call.
//!
//! The re-reads are the recorded run's, as the post-mortem finds them (`analysis::rereads`):
//! the caller passes them, from a diagnosis or the index. Running a setting is `simulate`'s;
//! summing a fleet, its Pareto front and knee are `tune_fleet`'s.

use serde::{Deserialize, Serialize};

use super::Counter;
use super::options::{PolicyName, ReplayOptions};
use super::simulate::{Prepared, Simulation, simulate};
use crate::analysis::rereads::Reread;
use crate::cost::setting::Basis;
use crate::model::Session;

/// The version of what a cell measures: cells kept by another version are made again.
pub const VERSION: u32 = 1;

/// Two compactions this many requests apart or fewer are a storm (the alerts' default).
pub const STORM_REQUESTS: usize = 3;

/// One setting of the grid: the knobs it sets, each `None` where the base options hold.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Setting {
    /// goose keep-tail K; OpenCode: the user turns kept (`tail_turns`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub keep_tail: Option<usize>,
    /// Tool-result cap on arrival, bytes (0 = off).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub tool_result_cap: Option<usize>,
    /// coworker trigger cap, tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional, type = "number"))]
    pub trigger_cap: Option<u64>,
    /// OpenCode: the kept tail's token budget; Gemini: the function-response budget.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional, type = "number"))]
    pub budget: Option<u64>,
    /// Gemini: the percentage of the history kept verbatim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub preserve_percent: Option<usize>,
}

impl Setting {
    /// `base` with this setting's knobs set, as `policy` names them.
    pub fn apply(&self, base: &ReplayOptions) -> ReplayOptions {
        let mut o = base.clone();
        if let Some(k) = self.keep_tail {
            match o.policy {
                PolicyName::OpenCode => o.tail_turns = Some(k),
                _ => o.keep_tail = k,
            }
        }
        if let Some(c) = self.tool_result_cap {
            o.tool_result_cap = Some(c);
        }
        if let Some(t) = self.trigger_cap {
            o.trigger_cap = Some(t);
        }
        if let Some(b) = self.budget {
            match o.policy {
                PolicyName::Gemini => o.response_budget = Some(b),
                _ => o.preserve_tokens = Some(b),
            }
        }
        if let Some(p) = self.preserve_percent {
            o.preserve_fraction = Some(p as f64 / 100.0);
        }
        o
    }

    /// `K=3 cap=30000`: the knobs set, as `tune --grid` names them.
    pub fn label(&self) -> String {
        let mut out = Vec::new();
        if let Some(k) = self.keep_tail {
            out.push(format!("K={k}"));
        }
        if let Some(c) = self.tool_result_cap {
            out.push(format!("cap={c}"));
        }
        if let Some(t) = self.trigger_cap {
            out.push(format!("trigger={t}"));
        }
        if let Some(b) = self.budget {
            out.push(format!("budget={b}"));
        }
        if let Some(p) = self.preserve_percent {
            out.push(format!("preserve={p}"));
        }
        if out.is_empty() {
            "defaults".to_owned()
        } else {
            out.join(" ")
        }
    }
}

/// A re-read of the recorded run that the replayed view would have spared.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Avoided {
    /// The file.
    pub path: String,
    /// Message index of the re-reading call.
    pub call_index: usize,
    /// Message index of the earlier read's call, still in the replayed view.
    pub previous_index: usize,
    /// Tokens of the re-read's result.
    pub tokens: usize,
}

/// One session under one setting.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Cell {
    /// The recorded re-reads after a compaction this setting's view would have spared.
    pub avoided: Vec<Avoided>,
    /// Context tokens over every request of the replay (BPE, as the Tokens tab counts).
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub tokens_carried: u64,
    /// ≈ their price at the session's recorded prices (`None` without recorded usage).
    pub usd: Option<f64>,
    /// Compactions that would have fired.
    pub compactions: usize,
    /// Of them, those within [`STORM_REQUESTS`] requests of the one before.
    pub storms: usize,
    /// Requests whose context would have exceeded the model's window.
    pub over_window: usize,
    /// Tool results left without their call in a replayed request.
    pub orphans: usize,
    /// Stored index of each compaction that left an orphan (its last message in context).
    pub orphaned_at: Vec<usize>,
}

/// Whether the replayed view at the request that made message `call` still holds message
/// `earlier`: no compaction fired between them, or the last one before the request kept it.
fn held(sim: &Simulation, earlier: usize, call: usize) -> bool {
    let last = sim.compactions.iter().rfind(|c| {
        sim.requests
            .get(c.request)
            .is_some_and(|r| r.source_index <= call)
    });
    match last {
        None => true,
        Some(c) => earlier > c.at_index || c.kept_tail.contains(&earlier),
    }
}

/// Measure one simulation of `session` against the recorded `rereads`, priced from `basis`.
fn cell(
    session: &Session,
    o: &ReplayOptions,
    sim: &Simulation,
    rereads: &[Reread],
    basis: Option<&Basis>,
) -> Cell {
    let avoided = rereads
        .iter()
        .filter(|r| r.after_compaction.is_some() && held(sim, r.previous_index, r.call_index))
        .map(|r| Avoided {
            path: r.path.clone(),
            call_index: r.call_index,
            previous_index: r.previous_index,
            tokens: r.tokens,
        })
        .collect();
    let storms = sim
        .compactions
        .windows(2)
        .filter(|w| w[1].request.saturating_sub(w[0].request) <= STORM_REQUESTS)
        .count();
    let window = o
        .context_window
        .or(session.meta.context_limit)
        .unwrap_or(super::options::DEFAULT_CONTEXT);
    let t = &sim.totals;
    let usd = basis.map(|b| b.at(t.tokens_processed, t.requests).setting_usd);
    Cell {
        avoided,
        tokens_carried: t.tokens_processed,
        usd,
        compactions: t.compactions,
        storms,
        over_window: sim
            .requests
            .iter()
            .filter(|r| r.context_tokens > window)
            .count(),
        orphans: t.orphans,
        orphaned_at: sim
            .compactions
            .iter()
            .filter(|c| c.orphans > 0)
            .map(|c| c.at_index)
            .collect(),
    }
}

/// Replay `session` under `base` with each of `settings` and measure each against its recorded
/// `rereads`; the cells come in the settings' order. Each tool-result cap is prepared once.
pub fn tune_session(
    session: &Session,
    base: &ReplayOptions,
    settings: &[Setting],
    rereads: &[Reread],
    counter: Counter<'_>,
) -> Vec<Cell> {
    let uncapped = match base.policy {
        PolicyName::Coworker => Prepared::new(session, counter, None),
        _ => Prepared::tokens_only(session, counter),
    };
    // The session's own cost and counted requests are the same at every setting.
    let basis = crate::cost::setting::basis(session, counter, crate::cost::PriceTable::bundled());
    // Each cap prepared once, every long result's pieces found once for all of them.
    let mut caps: Vec<usize> = settings.iter().map(|s| s.apply(base).cap_bytes()).collect();
    caps.sort_unstable();
    caps.dedup();
    let prepared: Vec<Prepared<'_>> = uncapped.with_caps(&caps, counter);
    settings
        .iter()
        .map(|s| {
            let o = s.apply(base);
            let at = caps
                .binary_search(&o.cap_bytes())
                .expect("every setting's cap prepared above");
            let sim = simulate(&prepared[at], &o.sim_params(session, true), counter);
            cell(session, &o, &sim, rereads, basis.as_ref())
        })
        .collect()
}
