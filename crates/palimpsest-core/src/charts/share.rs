//! Horizontal bar chart of a token total split by category: one row per non-empty category,
//! largest first, each bar labelled with its share and token count. Used for the final
//! context and for everything processed over the run.
//! The totals are `tokens::report`'s; the theme and colours are `charts`'.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{Theme, ThemeName, WIDTH, draw_err, thousands, to_svg};
use crate::error::Result;
use crate::tokens::Category;
use palimpsest_analysis::views::tokens::CategoryTotals;

const ROW: u32 = 30;
const TOP: u32 = 64;
const BOTTOM: u32 = 24;
const LABEL_W: i32 = 210;
const VALUE_W: i32 = 190;

fn rows(totals: &CategoryTotals) -> Vec<(Category, u64, f64)> {
    let mut rows: Vec<(Category, u64, f64)> = Category::ALL
        .iter()
        .map(|&c| {
            let s = totals.categories.iter().find(|s| s.name == c.as_str());
            (c, s.map_or(0, |s| s.tokens), s.map_or(0.0, |s| s.share))
        })
        .filter(|r| r.1 > 0)
        .collect();
    rows.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    rows
}

/// Pixel height the chart needs for `totals`.
pub fn height(totals: &CategoryTotals) -> u32 {
    TOP + BOTTOM + ROW * rows(totals).len().max(1) as u32
}

/// Draw the chart onto `area` (which should be [`height`] tall).
pub fn draw<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    t: &Theme,
    title: &str,
    totals: &CategoryTotals,
) -> Result<()> {
    let (w, _) = area.dim_in_pixel();
    let w = w as i32;
    area.draw(&Text::new(title.to_owned(), (16, 14), t.title()))
        .map_err(draw_err)?;
    area.draw(&Text::new(
        format!("total {} tokens", thousands(totals.total)),
        (16, 40),
        t.muted_text(14),
    ))
    .map_err(draw_err)?;
    let rows = rows(totals);
    if rows.is_empty() {
        area.draw(&Text::new(
            "no tokens",
            (LABEL_W, TOP as i32 + 6),
            t.muted_text(14),
        ))
        .map_err(draw_err)?;
        return Ok(());
    }
    let max = rows.iter().map(|r| r.1).max().unwrap_or(1).max(1) as f64;
    let bar_w = (w - LABEL_W - VALUE_W - 16) as f64;
    for (i, &(c, tokens, share)) in rows.iter().enumerate() {
        let y = TOP as i32 + i as i32 * ROW as i32;
        let mid = y + ROW as i32 / 2;
        area.draw(&Text::new(
            c.label(),
            (LABEL_W - 10, mid),
            t.text(14).pos(Pos::new(HPos::Right, VPos::Center)),
        ))
        .map_err(draw_err)?;
        let len = ((tokens as f64 / max) * bar_w).round().max(1.0) as i32;
        area.draw(&Rectangle::new(
            [(LABEL_W, y + 5), (LABEL_W + len, y + ROW as i32 - 5)],
            t.category(c).filled(),
        ))
        .map_err(draw_err)?;
        area.draw(&Text::new(
            format!("{:.1}%  ·  {}", share * 100.0, thousands(tokens)),
            (LABEL_W + len + 8, mid),
            t.text(13).pos(Pos::new(HPos::Left, VPos::Center)),
        ))
        .map_err(draw_err)?;
    }
    // The zero line anchors the bars.
    area.draw(&PathElement::new(
        vec![
            (LABEL_W, TOP as i32),
            (LABEL_W, TOP as i32 + rows.len() as i32 * ROW as i32),
        ],
        t.muted.stroke_width(1),
    ))
    .map_err(draw_err)?;
    Ok(())
}

/// The chart alone, as SVG.
pub fn svg(title: &str, totals: &CategoryTotals, theme: ThemeName) -> Result<String> {
    let t = Theme::named(theme);
    to_svg((WIDTH, height(totals)), |root| {
        root.fill(&t.background).map_err(draw_err)?;
        draw(root, &t, title, totals)
    })
}
