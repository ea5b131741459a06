//! Sweep a policy over a grid of settings: rows are keep-tail values (goose) or trigger caps
//! (coworker), columns are tool-result caps (or trigger caps when the tool-result cap is held
//! fixed). Each cell is a full simulation's totals; the chosen metric is what the table and the
//! heatmap (`charts::heatmap`) show. Each column's session is prepared once (counting only the
//! capped results again), so a cell costs one linear pass.

use std::sync::atomic::{AtomicUsize, Ordering};

use serde::{Deserialize, Serialize};

use super::Counter;
use super::simulate::{Policy, Prepared, SimParams, Totals, simulate};

/// What a sweep cell shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "kebab-case")]
pub enum Metric {
    /// Mean context right after a compaction.
    #[default]
    TokensAfter,
    /// Number of compactions.
    Compactions,
    /// Sum of context tokens over all requests.
    TokensProcessed,
    /// Share of cuts after which the most recently read file was still there verbatim.
    LastReadKept,
    /// Tool results left without their call.
    Orphans,
}

impl Metric {
    /// Every metric, in CLI order.
    pub const ALL: [Metric; 5] = [
        Metric::TokensAfter,
        Metric::Compactions,
        Metric::TokensProcessed,
        Metric::LastReadKept,
        Metric::Orphans,
    ];

    /// The CLI / JSON name.
    pub fn name(self) -> &'static str {
        match self {
            Metric::TokensAfter => "tokens-after",
            Metric::Compactions => "compactions",
            Metric::TokensProcessed => "tokens-processed",
            Metric::LastReadKept => "last-read-kept",
            Metric::Orphans => "orphans",
        }
    }

    /// The metric's value for one simulation (`None` when undefined: no cut ever saw a read).
    pub fn value(self, t: &Totals) -> Option<f64> {
        Some(match self {
            Metric::TokensAfter => t.mean_tokens_after as f64,
            Metric::Compactions => t.compactions as f64,
            Metric::TokensProcessed => t.tokens_processed as f64,
            Metric::LastReadKept => {
                if t.last_read_cuts == 0 {
                    return None;
                }
                t.last_read_kept as f64 / t.last_read_cuts as f64
            }
            Metric::Orphans => t.orphans as f64,
        })
    }
}

/// One axis of the grid.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "kebab-case", tag = "axis", content = "values")]
pub enum Axis {
    /// goose keep-tail K (OpenCode: the user turns kept, `tail_turns`).
    KeepTail(Vec<usize>),
    /// coworker trigger cap, tokens.
    // On the field: ts-rs does not apply `type` given on the variant.
    TriggerCap(#[cfg_attr(feature = "ts", ts(type = "Array<number>"))] Vec<u64>),
    /// Tool-result cap on arrival, bytes (0 = off).
    ToolResultCap(Vec<usize>),
    /// Gemini: the percentage of the history kept verbatim.
    PreservePercent(Vec<usize>),
}

impl Axis {
    /// The axis name, as the CLI flag.
    pub fn name(&self) -> &'static str {
        match self {
            Axis::KeepTail(_) => "keep-tail",
            Axis::TriggerCap(_) => "trigger-cap",
            Axis::ToolResultCap(_) => "tool-result-cap",
            Axis::PreservePercent(_) => "preserve-percent",
        }
    }

    /// The values, as numbers.
    pub fn values(&self) -> Vec<u64> {
        match self {
            Axis::KeepTail(v) | Axis::ToolResultCap(v) | Axis::PreservePercent(v) => {
                v.iter().map(|&x| x as u64).collect()
            }
            Axis::TriggerCap(v) => v.clone(),
        }
    }

    fn len(&self) -> usize {
        self.values().len()
    }

    /// Set this axis's `k`-th value on `params`; returns the tool-result cap if this axis is it.
    fn apply(&self, k: usize, params: &mut SimParams) -> Option<usize> {
        match (self, &mut params.policy) {
            (Axis::KeepTail(v), Policy::Goose { rule, .. }) => rule.keep_tail = v[k],
            (Axis::KeepTail(v), Policy::OpenCode(s)) => s.tail_turns = v[k],
            (Axis::TriggerCap(v), Policy::Coworker(s)) => s.cap = v[k],
            (Axis::PreservePercent(v), Policy::Gemini(s)) => {
                s.preserve = (v[k] as f64 / 100.0).clamp(0.01, 0.99);
            }
            (Axis::ToolResultCap(v), _) => return Some(v[k]),
            _ => {}
        }
        None
    }
}

/// A finished sweep.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct SweepGrid {
    /// The metric shown.
    pub metric: Metric,
    /// Row axis.
    pub rows: Axis,
    /// Column axis.
    pub cols: Axis,
    /// `values[r][c]`: the metric (`null` when undefined).
    pub values: Vec<Vec<Option<f64>>>,
    /// `totals[r][c]`: everything the cell's simulation measured.
    pub totals: Vec<Vec<Totals>>,
}

impl SweepGrid {
    /// Rebuild `values` for another metric (the totals hold them all).
    pub fn with_metric(mut self, metric: Metric) -> Self {
        self.metric = metric;
        self.values = self
            .totals
            .iter()
            .map(|row| row.iter().map(|t| metric.value(t)).collect())
            .collect();
        self
    }
}

/// Run every cell of `rows × cols` from `base` (whose `detail` is ignored). `prep` is the
/// uncapped session; a tool-result-cap axis prepares each cap once. Columns run on as many
/// threads as there are cores, each taking the next column: it recounts its capped results,
/// then simulates every row. (A thread per column held every column's capped session at once,
/// on two cores as on sixteen: a fifth of the sweep's peak on a 210 MB transcript.)
pub fn sweep(
    prep: &Prepared<'_>,
    base: &SimParams,
    rows: Axis,
    cols: Axis,
    metric: Metric,
    counter: Counter<'_>,
) -> SweepGrid {
    let next = AtomicUsize::new(0);
    let workers = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(cols.len())
        .max(1);
    let mut done: Vec<(usize, Vec<Totals>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                let (rows, cols, next) = (&rows, &cols, &next);
                scope.spawn(move || {
                    let mut out = Vec::new();
                    loop {
                        let c = next.fetch_add(1, Ordering::Relaxed);
                        if c >= cols.len() {
                            return out;
                        }
                        let mut col_params = base.clone();
                        let capped = cols
                            .apply(c, &mut col_params)
                            .filter(|&bytes| bytes != prep.cap_bytes)
                            .map(|bytes| prep.with_cap(bytes, counter));
                        let totals =
                            column(capped.as_ref().unwrap_or(prep), &col_params, rows, counter);
                        out.push((c, totals));
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a sweep column panicked"))
            .collect()
    });
    done.sort_by_key(|(c, _)| *c);
    let columns = done.into_iter().map(|(_, totals)| totals).collect();
    grid(columns, rows, cols, metric)
}

/// The same sweep when every column's session is already prepared (`preps[c]` for column
/// `c`, its cap applied): what a sweep costs once token counts exist.
pub fn sweep_prepared(
    preps: &[Prepared<'_>],
    base: &SimParams,
    rows: Axis,
    cols: Axis,
    metric: Metric,
    counter: Counter<'_>,
) -> SweepGrid {
    let columns = (0..cols.len())
        .map(|c| {
            let mut col_params = base.clone();
            cols.apply(c, &mut col_params);
            column(&preps[c], &col_params, &rows, counter)
        })
        .collect();
    grid(columns, rows, cols, metric)
}

fn column(
    prep: &Prepared<'_>,
    col_params: &SimParams,
    rows: &Axis,
    counter: Counter<'_>,
) -> Vec<Totals> {
    (0..rows.len())
        .map(|r| {
            let mut params = col_params.clone();
            params.detail = false;
            match rows.apply(r, &mut params) {
                Some(bytes) if bytes != prep.cap_bytes => {
                    simulate(&prep.with_cap(bytes, counter), &params, counter).totals
                }
                _ => simulate(prep, &params, counter).totals,
            }
        })
        .collect()
}

fn grid(columns: Vec<Vec<Totals>>, rows: Axis, cols: Axis, metric: Metric) -> SweepGrid {
    let totals = (0..rows.len())
        .map(|r| columns.iter().map(|col| col[r].clone()).collect())
        .collect();
    SweepGrid {
        metric,
        rows,
        cols,
        values: Vec::new(),
        totals,
    }
    .with_metric(metric)
}
