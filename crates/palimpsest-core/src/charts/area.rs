//! Context composition per request over time: a stacked area by category, with each
//! compaction cut as a dashed vertical line (a thin solid one when there are many) and the compaction trigger (and the context window,
//! when known) as horizontal lines.
//! A long session is drawn at the chart's resolution: at most [`MAX_POINTS`] requests, each the
//! largest of its run of neighbours, so no peak is lost and the picture stays small.
//! The per-request numbers are `tokens::report`'s; the theme and colours are `charts`'.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::{Theme, ThemeName, WIDTH, draw_err, short, to_svg};
use crate::error::Result;
use crate::tokens::Category;
use palimpsest_analysis::views::tokens::{RequestTokens, TokenReport};

/// Pixel height of the chart.
pub const HEIGHT: u32 = 460;

/// Requests drawn at most: about two per pixel of the plot. Every request drawn made a 26 000-
/// request session's chart a 1.1 MB SVG that the window took over 100 ms to show.
pub const MAX_POINTS: usize = 1_800;

/// Cuts drawn dashed at most (see `draw`).
pub const SOLID_CUTS: usize = 24;

/// The requests drawn, with their position: all of them when they fit, else the largest of
/// each run of `ceil(n / MAX_POINTS)` neighbours (so every peak, the one a compaction cut, is
/// drawn), and the last request, so the chart ends where the session does.
pub fn drawn(reqs: &[RequestTokens]) -> Vec<(usize, &RequestTokens)> {
    if reqs.len() <= MAX_POINTS {
        return reqs.iter().enumerate().collect();
    }
    let step = reqs.len().div_ceil(MAX_POINTS);
    let mut out: Vec<(usize, &RequestTokens)> = reqs
        .chunks(step)
        .enumerate()
        .filter_map(|(k, run)| {
            // The first largest, so a flat run keeps its first request.
            let (i, r) = run.iter().enumerate().rev().max_by_key(|(_, r)| r.total)?;
            Some((k * step + i, r))
        })
        .collect();
    let last = reqs.len() - 1;
    if out.last().map(|(i, _)| *i) != Some(last) {
        out.push((last, &reqs[last]));
    }
    out
}

/// Draw the chart onto `area`.
pub fn draw<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    t: &Theme,
    report: &TokenReport,
) -> Result<()> {
    let reqs = &report.per_request;
    let peak = reqs.iter().map(|r| r.total).max().unwrap_or(0);
    let y_max = [Some(peak), report.trigger_tokens]
        .into_iter()
        .flatten()
        .max()
        .unwrap_or(1)
        .max(1) as f64
        * 1.08;
    let x_max = reqs.len().max(2) as f64 - 1.0;
    let title = format!(
        "Context per request by category — {} requests, {} compaction{}",
        reqs.len(),
        report.compactions.len(),
        if report.compactions.len() == 1 {
            ""
        } else {
            "s"
        }
    );
    let mut chart = ChartBuilder::on(area)
        .caption(title, t.title())
        .margin(14)
        .margin_right(24)
        .x_label_area_size(44)
        .y_label_area_size(70)
        .build_cartesian_2d(0f64..x_max, 0f64..y_max)
        .map_err(draw_err)?;
    chart
        .configure_mesh()
        .light_line_style(t.muted.mix(0.06))
        .bold_line_style(t.muted.mix(0.25))
        .axis_style(t.muted)
        .label_style(t.text(13))
        .axis_desc_style(t.text(14))
        .x_desc("request (assistant turn)")
        .y_desc("context tokens (estimate)")
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| short(*y))
        .draw()
        .map_err(draw_err)?;

    // Stack bottom-up; draw the tallest cumulative layer first so each lower one covers it.
    let points = drawn(reqs);
    let mut cumulative = vec![[0f64; 10]; points.len()];
    for ((_, r), row) in points.iter().zip(cumulative.iter_mut()) {
        let mut acc = 0f64;
        for c in Category::ALL {
            acc += r.categories.get(c) as f64;
            row[c.index()] = acc;
        }
    }
    let present: Vec<Category> = Category::ALL
        .into_iter()
        .filter(|c| reqs.iter().any(|r| r.categories.get(*c) > 0))
        .collect();
    for &c in present.iter().rev() {
        let colour = t.category(c);
        chart
            .draw_series(AreaSeries::new(
                cumulative
                    .iter()
                    .zip(&points)
                    .map(|(row, (i, _))| (*i as f64, row[c.index()])),
                0.0,
                colour.filled(),
            ))
            .map_err(draw_err)?
            .label(c.label())
            .legend(move |(x, y)| Rectangle::new([(x, y - 6), (x + 12, y + 6)], colour.filled()));
    }

    // Dashed while there are few cuts; past [`SOLID_CUTS`] each dash is an SVG element of its
    // own (76 cuts made 2 800 of them) and the dashes are noise at that density: a thin line.
    let solid = report.compactions.len() > SOLID_CUTS;
    for cut in &report.compactions {
        let Some(r) = cut.request else { continue };
        let line = [(r as f64, 0.0), (r as f64, y_max)];
        if solid {
            chart
                .draw_series(LineSeries::new(line, t.accent.mix(0.7).stroke_width(1)))
                .map_err(draw_err)?;
        } else {
            chart
                .draw_series(DashedLineSeries::new(line, 6, 4, t.accent.stroke_width(2)))
                .map_err(draw_err)?;
        }
    }
    if !report.compactions.is_empty() {
        let accent = t.accent;
        chart
            .draw_series(std::iter::empty::<PathElement<(f64, f64)>>())
            .map_err(draw_err)?
            .label("compaction cut")
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 12, y)], accent.stroke_width(2)));
    }
    if let Some(trigger) = report.trigger_tokens {
        let accent = t.accent;
        chart
            .draw_series(LineSeries::new(
                [(0.0, trigger as f64), (x_max, trigger as f64)],
                accent.stroke_width(2),
            ))
            .map_err(draw_err)?
            .label(format!("compaction trigger {}", short(trigger as f64)))
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 12, y)], accent.stroke_width(2)));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(t.background.mix(0.85))
        .border_style(t.muted)
        .label_font(t.text(12))
        .draw()
        .map_err(draw_err)?;
    Ok(())
}

/// The chart alone, as SVG.
pub fn svg(report: &TokenReport, theme: ThemeName) -> Result<String> {
    let t = Theme::named(theme);
    to_svg((WIDTH, HEIGHT), |root| {
        root.fill(&t.background).map_err(draw_err)?;
        draw(root, &t, report)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokens::totals::CategoryCounts;

    fn req(request: usize, total: u64) -> RequestTokens {
        RequestTokens {
            request,
            message_index: request,
            total,
            categories: CategoryCounts::default(),
            recorded: None,
        }
    }

    #[test]
    fn a_long_session_keeps_every_peak_and_its_end() {
        // 10 000 requests climbing to a cut every 1 000: each peak (999, 1 999, …) must be drawn.
        let reqs: Vec<RequestTokens> = (0..10_000).map(|i| req(i, (i % 1000) as u64)).collect();
        let d = drawn(&reqs);
        assert!(
            d.len() <= MAX_POINTS + 1,
            "at most a point per bucket and the end: {}",
            d.len()
        );
        for peak in (999..10_000).step_by(1000) {
            assert!(d.iter().any(|(i, _)| *i == peak), "peak {peak} is drawn");
        }
        assert_eq!(
            d.last().map(|(i, _)| *i),
            Some(9_999),
            "the chart ends at the last request"
        );
        assert!(d.windows(2).all(|w| w[0].0 < w[1].0), "in request order");
        let short: Vec<RequestTokens> = (0..50).map(|i| req(i, 7)).collect();
        assert_eq!(drawn(&short).len(), 50, "a short session is drawn whole");
    }
}
