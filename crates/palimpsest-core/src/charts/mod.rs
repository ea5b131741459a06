//! Charts as SVG (plotters), one renderer for the app, the CLI and reports.
//!
//! This module holds what every chart shares: the light and dark [`Theme`]s, the colour-blind
//! safe Okabe–Ito palette and the colour of each token [`Category`], number formatting, and the
//! error mapping. Each chart lives in its own module and draws onto any plotters drawing area,
//! so one function serves a single SVG and a composed report ([`tokens_svg`]).
//! What the numbers are is `tokens` and `replay`'s; charts only draw them.

use plotters::coord::Shift;
use plotters::prelude::*;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::tokens::Category;
use palimpsest_analysis::views::tokens::TokenReport;

pub mod area;
pub mod heatmap;
pub mod share;
pub mod tools;

/// The Okabe–Ito palette (Okabe & Ito 2008), distinguishable under the common colour-vision
/// deficiencies: orange, sky blue, bluish green, yellow, blue, vermillion, reddish purple, grey.
pub const OKABE_ITO: [RGBColor; 8] = [
    RGBColor(0xE6, 0x9F, 0x00),
    RGBColor(0x56, 0xB4, 0xE9),
    RGBColor(0x00, 0x9E, 0x73),
    RGBColor(0xF0, 0xE4, 0x42),
    RGBColor(0x00, 0x72, 0xB2),
    RGBColor(0xD5, 0x5E, 0x00),
    RGBColor(0xCC, 0x79, 0xA7),
    RGBColor(0x99, 0x99, 0x99),
];

/// Light or dark.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "snake_case")]
pub enum ThemeName {
    /// Dark text on white.
    #[default]
    Light,
    /// Light text on near-black.
    Dark,
}

/// The colours of one theme.
#[derive(Debug, Clone, Copy)]
pub struct Theme {
    /// Background.
    pub background: RGBColor,
    /// Titles, labels, axes.
    pub foreground: RGBColor,
    /// Secondary text and grid lines.
    pub muted: RGBColor,
    /// Reference lines (compaction cuts, trigger).
    pub accent: RGBColor,
    /// Which one.
    pub name: ThemeName,
}

impl Theme {
    /// The theme called `name`.
    pub fn named(name: ThemeName) -> Theme {
        match name {
            ThemeName::Light => Theme {
                background: RGBColor(0xFF, 0xFF, 0xFF),
                foreground: RGBColor(0x1A, 0x1A, 0x1A),
                muted: RGBColor(0x8A, 0x8A, 0x8A),
                accent: RGBColor(0xB0, 0x00, 0x20),
                name,
            },
            ThemeName::Dark => Theme {
                background: RGBColor(0x1E, 0x1E, 0x22),
                foreground: RGBColor(0xEC, 0xEC, 0xEC),
                muted: RGBColor(0x80, 0x80, 0x88),
                accent: RGBColor(0xFF, 0x6B, 0x6B),
                name,
            },
        }
    }

    /// The colour of a token category: Okabe–Ito hues, with the two neutral categories in
    /// greys that stay visible on either background.
    pub fn category(&self, c: Category) -> RGBColor {
        let dark = self.name == ThemeName::Dark;
        match c {
            Category::System => OKABE_ITO[7],
            Category::UserText => OKABE_ITO[4],
            Category::AssistantText => OKABE_ITO[1],
            Category::Thinking => OKABE_ITO[6],
            Category::ToolCallArguments => OKABE_ITO[3],
            Category::FileWrites => OKABE_ITO[5],
            Category::Edits => OKABE_ITO[0],
            Category::ToolResults => OKABE_ITO[2],
            Category::Summaries if dark => RGBColor(0xF2, 0xF2, 0xF2),
            Category::Summaries => RGBColor(0x00, 0x00, 0x00),
            Category::Other if dark => RGBColor(0x55, 0x55, 0x5C),
            Category::Other => RGBColor(0xD6, 0xD6, 0xD6),
        }
    }

    /// A text style in this theme's foreground.
    pub fn text(&self, size: u32) -> TextStyle<'static> {
        ("sans-serif", size).into_font().color(&self.foreground)
    }

    /// The bold title style.
    pub fn title(&self) -> TextStyle<'static> {
        ("sans-serif", 19)
            .into_font()
            .style(FontStyle::Bold)
            .color(&self.foreground)
    }

    /// A text style in this theme's muted colour.
    pub fn muted_text(&self, size: u32) -> TextStyle<'static> {
        ("sans-serif", size).into_font().color(&self.muted)
    }
}

/// `12345` → `12,345`.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// `12345` → `12.3k`, `2500000` → `2.5M`.
pub fn short(n: f64) -> String {
    let a = n.abs();
    if a >= 1e9 {
        format!("{:.1}G", n / 1e9)
    } else if a >= 1e6 {
        format!("{:.1}M", n / 1e6)
    } else if a >= 1e4 {
        format!("{:.0}k", n / 1e3)
    } else if a >= 1e3 {
        format!("{:.1}k", n / 1e3)
    } else {
        format!("{n:.0}")
    }
}

/// Turn a plotters error into ours.
pub(crate) fn draw_err<E: std::error::Error + Send + Sync>(e: DrawingAreaErrorKind<E>) -> Error {
    Error::Chart(e.to_string())
}

/// Render one chart function to an SVG string of the given size.
pub(crate) fn to_svg(
    size: (u32, u32),
    draw: impl FnOnce(&DrawingArea<SVGBackend<'_>, Shift>) -> Result<()>,
) -> Result<String> {
    let mut buf = String::new();
    {
        let root = SVGBackend::with_string(&mut buf, size).into_drawing_area();
        draw(&root)?;
        root.present().map_err(draw_err)?;
    }
    Ok(xml_safe(buf))
}

/// `svg` with the characters XML 1.0 does not allow anywhere (C0 controls but tab, newline and
/// carriage return) shown as U+FFFD: a tool name holding one made the whole chart unreadable
/// to a browser.
fn xml_safe(svg: String) -> String {
    let bad = |c: char| c < ' ' && !matches!(c, '\t' | '\n' | '\r');
    if !svg.contains(bad) {
        return svg;
    }
    svg.chars()
        .map(|c| if bad(c) { '\u{FFFD}' } else { c })
        .collect()
}

/// Width of every token chart.
pub const WIDTH: u32 = 960;

/// The whole Tokens report as one SVG: final-context share, processed share, context per
/// request over time and top tools, stacked vertically.
pub fn tokens_svg(report: &TokenReport, theme: ThemeName) -> Result<String> {
    let t = Theme::named(theme);
    let h1 = share::height(&report.final_context);
    let h2 = share::height(&report.processed);
    let h3 = area::HEIGHT;
    let h4 = tools::height(&report.top_tools);
    to_svg((WIDTH, h1 + h2 + h3 + h4), |root| {
        root.fill(&t.background).map_err(draw_err)?;
        let (a, rest) = root.split_vertically(h1);
        let (b, rest) = rest.split_vertically(h2);
        let (c, d) = rest.split_vertically(h3);
        share::draw(
            &a,
            &t,
            &format!(
                "Final agent-visible context by category ({})",
                report.encoding
            ),
            &report.final_context,
        )?;
        share::draw(
            &b,
            &t,
            "All tokens processed over the run (sum of each request's context)",
            &report.processed,
        )?;
        area::draw(&c, &t, report)?;
        tools::draw(&d, &t, &report.top_tools)
    })
}
