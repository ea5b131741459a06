//! Context composition per request over time: a stacked area by category, with each
//! compaction cut as a dashed vertical line and the compaction trigger (and the context window,
//! when known) as horizontal lines.
//! The per-request numbers are `tokens::report`'s; the theme and colours are `charts`'.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::{Theme, ThemeName, WIDTH, draw_err, short, to_svg};
use crate::error::Result;
use crate::tokens::Category;
use crate::tokens::report::TokenReport;

/// Pixel height of the chart.
pub const HEIGHT: u32 = 460;

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
    let mut cumulative = vec![[0f64; 10]; reqs.len()];
    for (r, row) in reqs.iter().zip(cumulative.iter_mut()) {
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
                    .enumerate()
                    .map(|(i, row)| (i as f64, row[c.index()])),
                0.0,
                colour.filled(),
            ))
            .map_err(draw_err)?
            .label(c.label())
            .legend(move |(x, y)| Rectangle::new([(x, y - 6), (x + 12, y + 6)], colour.filled()));
    }

    for cut in &report.compactions {
        let Some(r) = cut.request else { continue };
        chart
            .draw_series(DashedLineSeries::new(
                [(r as f64, 0.0), (r as f64, y_max)],
                6,
                4,
                t.accent.stroke_width(2),
            ))
            .map_err(draw_err)?;
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
