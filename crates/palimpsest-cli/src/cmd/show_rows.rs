//! `palimpsest show PATH --rows [--index] [--json]`: the rows the window's timeline draws,
//! read from the file or, with `--index`, from the fleet index when it holds the session
//! unchanged (how the window opens a big session at once). The rows are core's `timeline`;
//! the index's answer is `palimpsest_core::index`'s.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use palimpsest_core::model::View;
use palimpsest_core::views::timeline::{Timeline, TimelineRow};

/// Print the timeline of `target` in `view`; `index`: `Some(file)` to try the index first
/// (`Some(None)` the default one).
pub fn run(
    target: &super::Target,
    view: View,
    json: bool,
    index: Option<Option<&Path>>,
) -> anyhow::Result<ExitCode> {
    let s = target.serve(super::asked(index), "show")?;
    let mut t = (*s.answer(s.svc.timeline(&s.path, &s.id, true, true))?).clone();
    t.rows.retain(|r| in_view(r, view));
    if json {
        crate::output::json(&t)?;
        return Ok(ExitCode::SUCCESS);
    }
    print(&t)?;
    Ok(ExitCode::SUCCESS)
}

fn in_view(r: &TimelineRow, view: View) -> bool {
    match view {
        View::All => true,
        View::Agent => r.agent_visible,
        View::User => r.user_visible,
    }
}

fn print(t: &Timeline) -> anyhow::Result<()> {
    let mut out = crate::output::stdout();
    writeln!(
        out,
        "{} ({}) — {}{}",
        t.meta.name,
        t.meta.id,
        t.meta.format.as_str(),
        if t.from_index {
            " — from the index"
        } else {
            ""
        }
    )?;
    let name = |v: serde_json::Value| v.as_str().map(str::to_owned).unwrap_or_default();
    for r in &t.rows {
        let eyes = format!(
            "{}{}",
            if r.agent_visible { "M" } else { "-" },
            if r.user_visible { "U" } else { "-" }
        );
        let parts: Vec<String> = r
            .parts
            .iter()
            .map(|p| match &p.label {
                Some(l) => format!("{l} {} ({} B)", p.preview, p.size),
                None => format!("{} ({} B)", p.preview, p.size),
            })
            .collect();
        let body = match &r.error {
            Some(e) => format!("ERROR {e}"),
            None => parts.join(" | "),
        };
        writeln!(
            out,
            "[{:>5}] {eyes} {:<9} {:<14} {body}",
            r.index,
            name(serde_json::to_value(r.role)?),
            name(serde_json::to_value(r.kind)?),
        )?;
    }
    Ok(())
}
