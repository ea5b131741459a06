//! Replays of a loaded session as the CLI and the app ask for them: once, run forward, swept
//! over settings, as the Replay panel's rows and totals, and coworker's records re-derived.
//! The policies are `crate::replay`'s; the counter they count with is chosen here, so every
//! replay counts as the Tokens view does. A sweep from the index is `api/sweep.rs`'s.

use crate::error::Result;
use crate::model::Session;
use crate::tokens::TokenCache;

/// The counter replays use: real BPE in the session model's encoding.
/// `cache` is the token cache the caller opened (the CLI and the app: the user's), or `None`.
pub(crate) fn replay_counter(
    session: &Session,
    cache: Option<&TokenCache>,
) -> crate::tokens::known::Known {
    let enc = crate::tokens::bpe::Encoding::for_model(session.meta.model.as_deref());
    // Texts the Tokens view or the index counted before come from the token cache.
    crate::tokens::known::Known::of(session, enc, cache)
}

/// Compact a loaded session's history once under a replay policy, as it stands. No raw lines
/// are passed: coworker sizes use the rebuilt chat shape (why: `replay::coworker`'s doc).
pub fn replay(
    session: &Session,
    opts: &crate::replay::options::ReplayOptions,
    cache: Option<&TokenCache>,
) -> crate::replay::options::ReplayView {
    crate::replay::options::replay_once(session, opts, None, &replay_counter(session, cache))
}

/// Run a loaded session forward under a replay policy.
pub fn replay_simulate(
    session: &Session,
    opts: &crate::replay::options::ReplayOptions,
    cache: Option<&TokenCache>,
) -> crate::replay::simulate::Simulation {
    let counter = replay_counter(session, cache);
    let mut sim = crate::replay::options::simulation(session, opts, None, &counter);
    sim.cost = crate::cost::setting::estimate(
        session,
        &counter,
        sim.totals.tokens_processed,
        sim.totals.requests,
        crate::cost::PriceTable::bundled(),
    );
    sim
}

/// Sweep a loaded session over `rows × cols` settings; `svg` also draws the heatmap.
pub fn replay_sweep(
    session: &Session,
    opts: &crate::replay::options::ReplayOptions,
    rows: crate::replay::sweep::Axis,
    cols: crate::replay::sweep::Axis,
    metric: crate::replay::sweep::Metric,
    cache: Option<&TokenCache>,
) -> crate::replay::sweep::SweepGrid {
    let counter = replay_counter(session, cache);
    crate::replay::options::sweep_session(session, opts, rows, cols, metric, None, &counter)
}

/// The sweep heatmap as SVG.
pub fn replay_sweep_svg(grid: &crate::replay::sweep::SweepGrid, title: &str) -> Result<String> {
    crate::charts::heatmap::heatmap_svg(grid, title, crate::charts::ThemeName::Light)
}

/// The Replay tab's sweep view: the `grid` swept of the session named `name`, and its
/// heatmap of the grid's metric in `theme`.
pub fn sweep_view(
    grid: crate::replay::sweep::SweepGrid,
    name: &str,
    theme: crate::charts::ThemeName,
) -> Result<crate::views::panels::SweepView> {
    let title = crate::views::panels::sweep_title(name, grid.metric);
    let svg = crate::charts::heatmap::heatmap_svg(&grid, &title, theme)?;
    Ok(crate::views::panels::SweepView { grid, svg })
}

/// A loaded session's history compacted once, as timeline rows with tokens and orphans marked.
pub fn replay_panel(
    session: &Session,
    opts: &crate::replay::options::ReplayOptions,
    cache: Option<&TokenCache>,
) -> crate::views::panels::ReplayPanel {
    let counter = replay_counter(session, cache);
    let view = crate::replay::options::replay_once(session, opts, None, &counter);
    crate::views::panels::replay_panel(session, opts, view, &counter)
}

/// One replay both ways: the replayed messages whole, and the Replay panel the window draws of
/// them (`replay --json` prints the two together, so the CLI has every key the window gets).
pub fn replay_with_panel(
    session: &Session,
    opts: &crate::replay::options::ReplayOptions,
    cache: Option<&TokenCache>,
) -> (
    crate::replay::options::ReplayView,
    crate::views::panels::ReplayPanel,
) {
    let counter = replay_counter(session, cache);
    let view = crate::replay::options::replay_once(session, opts, None, &counter);
    let panel = crate::views::panels::replay_panel(session, opts, view.clone(), &counter);
    (view, panel)
}

/// The totals and compactions of a loaded session run forward under a replay policy.
pub fn replay_summary(
    session: &Session,
    opts: &crate::replay::options::ReplayOptions,
    cache: Option<&TokenCache>,
) -> crate::views::panels::SimulationSummary {
    let sim = replay_simulate(session, opts, cache);
    crate::views::panels::SimulationSummary {
        totals: sim.totals,
        compactions: sim.compactions,
        cost: sim.cost,
    }
}

/// Re-derive each recorded coworker compaction of a loaded session with coworker's own rules
/// (working state, preserved user messages, omitted count, block) and compare with the record.
pub fn replay_verify(
    session: &Session,
    opts: &crate::replay::options::ReplayOptions,
) -> crate::replay::verify::VerifyReport {
    crate::replay::verify::verify(session, opts)
}
