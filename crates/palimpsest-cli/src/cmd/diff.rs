//! `palimpsest diff A B [--session-a ID] [--session-b ID] [--json]`: two recorded runs of the
//! same task aligned by user turn and by call — per turn what each did, where each compacted
//! and what it kept, tokens and cost, re-reads — and the first place they part. The alignment
//! is `palimpsest_core::compare`'s; this prints it side by side. `--rows` gives what the
//! window's Compare tab draws: both runs in timeline rows, message by message.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use palimpsest_core::compare::{self, TurnSide};

/// Arguments of `diff`.
#[derive(clap::Args)]
pub struct Args {
    /// Run A: a session file, a database or a folder.
    a: PathBuf,
    /// Run B.
    b: PathBuf,
    /// Run A's session id, when A holds several.
    #[arg(long)]
    session_a: Option<String>,
    /// Run B's session id, when B holds several.
    #[arg(long)]
    session_b: Option<String>,
    /// A price table (LiteLLM's JSON shape) instead of the shipped snapshot.
    #[arg(long)]
    prices: Option<PathBuf>,
    /// Print JSON: {"a", "b", "turns": [{a, b, same}], "first_divergence"}.
    #[arg(long)]
    json: bool,
    /// Message by message in timeline rows, as the window's Compare tab shows them; with
    /// --json: {"diff", "lines": [{turn, head, a, b, same}], "first_line"}.
    #[arg(long)]
    rows: bool,
}

fn side(t: Option<&TurnSide>) -> String {
    t.map_or_else(
        || "—".to_owned(),
        |t| {
            let cuts = if t.compactions.is_empty() {
                String::new()
            } else {
                format!(
                    ", compacted at {}",
                    t.compactions
                        .iter()
                        .map(|c| format!("#{} (kept {})", c.0, c.2))
                        .collect::<Vec<_>>()
                        .join(" ")
                )
            };
            format!(
                "#{}–#{}: {} calls, {} re-reads, {} tokens{cuts}",
                t.start,
                t.end.saturating_sub(1),
                t.calls.len(),
                t.rereads,
                t.tokens_sent
            )
        },
    )
}

/// Run `diff`.
pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let load = |path: &PathBuf, id: &Option<String>| {
        super::Target {
            path: path.clone(),
            session: id.clone(),
        }
        .load("compare")
    };
    let (sa, sb) = (load(&a.a, &a.session_a)?, load(&a.b, &a.session_b)?);
    let table = palimpsest_core::cost::PriceTable::load(a.prices.as_deref())?;
    if a.rows {
        return rows(&compare::side_by_side(&sa, &sb, &table), a.json);
    }
    let d = compare::diff(&sa, &sb, &table);
    if a.json {
        crate::output::json(&d)?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = crate::output::stdout();
    let usd = |c: Option<f64>| c.map_or("unpriced".to_owned(), |c| format!("${c:.2}"));
    for (name, t) in [("A", &d.a), ("B", &d.b)] {
        writeln!(
            out,
            "{name}: {} ({}): {} turns, {} calls, {} compactions, {} re-reads, {} tokens sent, {} — {}",
            t.session_id,
            t.path,
            t.turns,
            t.calls,
            t.compactions,
            t.rereads,
            t.tokens_sent,
            usd(t.cost_usd),
            t.verdict
        )?;
    }
    for (k, t) in d.turns.iter().enumerate() {
        let ask: String =
            t.a.as_ref()
                .or(t.b.as_ref())
                .map(|s| {
                    s.ask
                        .chars()
                        .take(60)
                        .map(|c| if c.is_control() { ' ' } else { c })
                        .collect()
                })
                .unwrap_or_default();
        writeln!(
            out,
            "{} turn {:>3} «{ask}»\n      A {}\n      B {}",
            if t.same { " " } else { "≠" },
            k + 1,
            side(t.a.as_ref()),
            side(t.b.as_ref())
        )?;
    }
    match &d.first_divergence {
        Some(v) => writeln!(out, "first divergence: turn {}, {}", v.turn + 1, v.what)?,
        None => writeln!(out, "the runs did the same throughout")?,
    }
    Ok(ExitCode::SUCCESS)
}

/// One row as a cell: index, role and its first part, cut to `w` characters.
fn cell(r: Option<&palimpsest_core::views::timeline::TimelineRow>, w: usize) -> String {
    let text = r.map_or_else(String::new, |r| {
        let part = r.parts.first().map_or(String::new(), |p| {
            let label = p.label.as_deref().unwrap_or("");
            format!("{label} {}", p.preview)
        });
        format!("#{} {:?} {}", r.index, r.role, part.trim())
    });
    let mut out: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(w)
        .collect();
    let n = out.chars().count();
    out.extend(std::iter::repeat_n(' ', w - n));
    out
}

/// `--rows`: the two runs line by line.
fn rows(v: &compare::CompareView, json: bool) -> anyhow::Result<ExitCode> {
    if json {
        crate::output::json(v)?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = crate::output::stdout();
    for (i, l) in v.lines.iter().enumerate() {
        if l.head {
            writeln!(out, "— turn {}", l.turn + 1)?;
        }
        let mark = match (Some(i) == v.first_line, l.same) {
            (true, _) => "»",
            (false, true) => " ",
            (false, false) => "≠",
        };
        writeln!(
            out,
            "{mark} {} │ {}",
            cell(l.a.as_ref(), 58),
            cell(l.b.as_ref(), 58)
        )?;
    }
    Ok(ExitCode::SUCCESS)
}
