//! The replay sweep as a heatmap: one cell per (row setting, column setting), coloured on a
//! sequential scale from the background to Okabe–Ito blue by the chosen metric, with the value
//! printed in the cell. Undefined cells (no cut ever saw a read) are grey with a dash. The grid
//! itself is `replay::sweep`'s; colours and text styles are the shared theme's.

use plotters::prelude::*;

use super::{OKABE_ITO, Theme, ThemeName, draw_err, short, to_svg};
use crate::error::Result;
use crate::replay::sweep::{Metric, SweepGrid};

const LEFT: i32 = 120;
const TOP: i32 = 70;
const CELL_H: i32 = 34;
const MAX_CELL_W: i32 = 96;

/// The SVG of a sweep, titled `title`.
pub fn heatmap_svg(grid: &SweepGrid, title: &str, theme: ThemeName) -> Result<String> {
    let t = Theme::named(theme);
    let rows = grid.rows.values();
    let cols = grid.cols.values();
    let cell_w = ((super::WIDTH as i32 - LEFT - 30) / cols.len().max(1) as i32).min(MAX_CELL_W);
    let width = (LEFT + cell_w * cols.len() as i32 + 30).max(480) as u32;
    let height = (TOP + CELL_H * rows.len() as i32 + 50) as u32;
    let defined: Vec<f64> = grid.values.iter().flatten().flatten().copied().collect();
    let lo = defined.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = defined.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    to_svg((width, height), |root| {
        root.fill(&t.background).map_err(draw_err)?;
        root.draw(&Text::new(title.to_owned(), (16, 14), t.title()))
            .map_err(draw_err)?;
        let axes = format!(
            "{} (rows) × {} (columns) — {}",
            grid.rows.name(),
            grid.cols.name(),
            grid.metric.name()
        );
        root.draw(&Text::new(axes, (16, 40), t.muted_text(13)))
            .map_err(draw_err)?;
        for (c, v) in cols.iter().enumerate() {
            let x = LEFT + c as i32 * cell_w + 6;
            root.draw(&Text::new(short(*v as f64), (x, TOP - 16), t.text(12)))
                .map_err(draw_err)?;
        }
        for (r, rv) in rows.iter().enumerate() {
            let y = TOP + r as i32 * CELL_H;
            root.draw(&Text::new(
                short(*rv as f64),
                (LEFT - 60, y + 10),
                t.text(12),
            ))
            .map_err(draw_err)?;
            for c in 0..cols.len() {
                let x = LEFT + c as i32 * cell_w;
                let value = grid
                    .values
                    .get(r)
                    .and_then(|row| row.get(c))
                    .copied()
                    .flatten();
                let (fill, label, dark) = match value {
                    Some(v) => {
                        let k = if hi > lo { (v - lo) / (hi - lo) } else { 0.5 };
                        (
                            mix(t.background, OKABE_ITO[4], 0.08 + 0.92 * k),
                            label(grid.metric, v),
                            k > 0.55,
                        )
                    }
                    None => (t.muted, "–".to_owned(), false),
                };
                root.draw(&Rectangle::new(
                    [(x, y), (x + cell_w - 2, y + CELL_H - 2)],
                    fill.filled(),
                ))
                .map_err(draw_err)?;
                let style = if dark {
                    ("sans-serif", 12).into_font().color(&WHITE)
                } else {
                    t.text(12)
                };
                root.draw(&Text::new(label, (x + 6, y + 10), style))
                    .map_err(draw_err)?;
            }
        }
        Ok(())
    })
}

/// A cell's printed value.
pub fn label(metric: Metric, v: f64) -> String {
    match metric {
        Metric::LastReadKept => format!("{:.0}%", v * 100.0),
        _ => short(v),
    }
}

fn mix(a: RGBColor, b: RGBColor, k: f64) -> RGBColor {
    let m = |x: u8, y: u8| (x as f64 + (y as f64 - x as f64) * k).round() as u8;
    RGBColor(m(a.0, b.0), m(a.1, b.1), m(a.2, b.2))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::simulate::Totals;
    use crate::replay::sweep::Axis;

    #[test]
    fn draws_one_cell_per_setting_with_its_value() {
        let totals = |n| Totals {
            compactions: n,
            ..Totals::default()
        };
        let grid = SweepGrid {
            metric: Metric::Compactions,
            rows: Axis::KeepTail(vec![0, 3]),
            cols: Axis::ToolResultCap(vec![0, 10_000, 30_000]),
            values: Vec::new(),
            totals: vec![
                vec![totals(7), totals(5), totals(6)],
                vec![totals(9), totals(8), totals(4)],
            ],
        }
        .with_metric(Metric::Compactions);
        let svg = heatmap_svg(&grid, "seed sweep", ThemeName::Light).unwrap();
        assert_eq!(
            svg.matches("<rect").count(),
            1 + 6,
            "background plus six cells"
        );
        for v in ["7", "5", "6", "9", "8", "4", "10k", "30k"] {
            assert!(
                svg.contains(&format!(">\n{v}\n<")),
                "cell or axis label {v} is printed"
            );
        }
    }
}
