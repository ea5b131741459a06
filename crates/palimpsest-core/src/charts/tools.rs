//! Top tools by tokens: one stacked horizontal bar per tool (call arguments, write/edit
//! bodies, results), with the call count and the message holding the tool's largest part.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{Theme, ThemeName, WIDTH, draw_err, thousands, to_svg};
use crate::error::Result;
use crate::tokens::Category;
use palimpsest_analysis::views::tokens::ToolTokens;

const ROW: u32 = 30;
const TOP: u32 = 70;
const BOTTOM: u32 = 24;
const LABEL_W: i32 = 230;
const VALUE_W: i32 = 250;
/// At most this many tools are drawn.
pub const MAX_ROWS: usize = 15;

/// Pixel height the chart needs.
pub fn height(tools: &[ToolTokens]) -> u32 {
    TOP + BOTTOM + ROW * tools.len().clamp(1, MAX_ROWS) as u32
}

/// Draw the chart onto `area` (which should be [`height`] tall).
pub fn draw<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    t: &Theme,
    tools: &[ToolTokens],
) -> Result<()> {
    let (w, _) = area.dim_in_pixel();
    let w = w as i32;
    area.draw(&Text::new(
        "Top tools by tokens (every stored part counted once)",
        (16, 14),
        t.title(),
    ))
    .map_err(draw_err)?;
    let segments = [
        ("call arguments", t.category(Category::ToolCallArguments)),
        ("write / edit bodies", t.category(Category::Edits)),
        ("results", t.category(Category::ToolResults)),
    ];
    let mut x = 16;
    for (name, colour) in segments {
        area.draw(&Rectangle::new([(x, 42), (x + 14, 56)], colour.filled()))
            .map_err(draw_err)?;
        area.draw(&Text::new(
            name,
            (x + 20, 49),
            t.text(13).pos(Pos::new(HPos::Left, VPos::Center)),
        ))
        .map_err(draw_err)?;
        x += 30 + 8 * name.len() as i32;
    }
    if tools.is_empty() {
        area.draw(&Text::new(
            "no tool traffic",
            (LABEL_W, TOP as i32 + 6),
            t.muted_text(14),
        ))
        .map_err(draw_err)?;
        return Ok(());
    }
    let shown = &tools[..tools.len().min(MAX_ROWS)];
    let max = shown.iter().map(|r| r.total).max().unwrap_or(1).max(1) as f64;
    let bar_w = (w - LABEL_W - VALUE_W - 16) as f64;
    for (i, tool) in shown.iter().enumerate() {
        let y = TOP as i32 + i as i32 * ROW as i32;
        let mid = y + ROW as i32 / 2;
        let mut name = tool.name.clone();
        if name.chars().count() > 28 {
            name = format!("{}…", name.chars().take(27).collect::<String>());
        }
        area.draw(&Text::new(
            name,
            (LABEL_W - 10, mid),
            t.text(14).pos(Pos::new(HPos::Right, VPos::Center)),
        ))
        .map_err(draw_err)?;
        let mut x = LABEL_W;
        for (value, (_, colour)) in [tool.arguments, tool.bodies, tool.results]
            .iter()
            .zip(segments)
        {
            let len = ((*value as f64 / max) * bar_w).round() as i32;
            if len > 0 {
                area.draw(&Rectangle::new(
                    [(x, y + 5), (x + len, y + ROW as i32 - 5)],
                    colour.filled(),
                ))
                .map_err(draw_err)?;
                x += len;
            }
        }
        area.draw(&Text::new(
            format!(
                "{}  ·  {} call{}  ·  largest #{}",
                thousands(tool.total),
                tool.calls,
                if tool.calls == 1 { "" } else { "s" },
                tool.largest_message_index
            ),
            (x.max(LABEL_W + 1) + 8, mid),
            t.text(13).pos(Pos::new(HPos::Left, VPos::Center)),
        ))
        .map_err(draw_err)?;
    }
    Ok(())
}

/// The chart alone, as SVG.
pub fn svg(tools: &[ToolTokens], theme: ThemeName) -> Result<String> {
    let t = Theme::named(theme);
    to_svg((WIDTH, height(tools)), |root| {
        root.fill(&t.background).map_err(draw_err)?;
        draw(root, &t, tools)
    })
}
