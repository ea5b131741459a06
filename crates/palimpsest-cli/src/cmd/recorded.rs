//! `palimpsest context PATH --recorded [--request N] [--logs DIR|FILE] [--json]`: the requests
//! the agent recorded it sent (goose's request logs, Aider's `.aider.llm.history`), each beside
//! the request rebuilt from the session, every differing item marked (`+` sent but not rebuilt, `-` rebuilt but not sent, `~` the same call or result
//! with other content). Placing and diffing are `palimpsest_core::compaction::recorded`'s.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::bail;
use palimpsest_core::api;
use palimpsest_core::compaction::recorded::{ItemOp, RecordedComparison};
use palimpsest_core::model::{Item, Session};

/// goose's state folder base, as `main` read the environment (`env::Machine::state_home`).
fn state_home() -> Option<PathBuf> {
    palimpsest_core::env::machine().state_home()
}

fn preview(i: &Item) -> String {
    let text: String = i
        .text
        .chars()
        .take(90)
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    format!("{:<9} {:<11} {text}", i.role, i.kind)
}

fn print_one(c: &RecordedComparison) -> anyhow::Result<()> {
    let mut out = crate::output::stdout();
    writeln!(
        out,
        "request {} ({}) recorded in {}: {} items sent, {} rebuilt, {} differences (system prompt: {} items, never stored)",
        c.request,
        c.answer_index.map_or_else(
            || "next request".to_owned(),
            |i| format!("answered by [{i}]")
        ),
        c.log.file,
        c.log.items.len(),
        c.rebuilt.len(),
        c.differences,
        c.system_items
    )?;
    for d in &c.diff {
        let (mark, item, from) = match d.op {
            ItemOp::Same => (' ', d.rebuilt.map(|b| &c.rebuilt[b]), d.rebuilt),
            ItemOp::RecordedOnly => ('+', d.recorded.map(|r| &c.log.items[r]), None),
            ItemOp::RebuiltOnly => ('-', d.rebuilt.map(|b| &c.rebuilt[b]), d.rebuilt),
            ItemOp::Changed => ('~', d.recorded.map(|r| &c.log.items[r]), d.rebuilt),
        };
        let at = from.map_or_else(
            || "     ".to_owned(),
            |b| format!("{:>5}", c.rebuilt_from[b]),
        );
        if let Some(i) = item {
            writeln!(out, "{mark} [{at}] {}", preview(i))?;
        }
        if d.op == ItemOp::Changed
            && let Some(b) = d.rebuilt
        {
            writeln!(out, "  rebuilt  {}", preview(&c.rebuilt[b]))?;
        }
    }
    Ok(())
}

/// Run `context --recorded`.
pub fn run(
    session: &Session,
    number: Option<usize>,
    logs: Option<PathBuf>,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let dirs = logs.map_or_else(
        || api::recorded_dirs(session, state_home().as_deref()),
        |d| vec![d],
    );
    let set = api::recorded(session, &dirs);
    for p in &set.problems {
        eprintln!("warning: {}", p.message);
    }
    let Some(n) = number else {
        if json {
            crate::output::json(&set)?;
        } else {
            let mut out = crate::output::stdout();
            match &set.dir {
                None => writeln!(
                    out,
                    "no request logs found (looked in {})",
                    dirs.iter()
                        .map(|d| d.display().to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                )?,
                // Aider logs every request in one file; goose one request per file.
                Some(d) if std::path::Path::new(d).is_file() => writeln!(
                    out,
                    "{}: {} requests logged in the session's time, {} of them its own",
                    d,
                    set.logs,
                    set.matched.len()
                )?,
                Some(d) => writeln!(
                    out,
                    "{}: {} logs, {} of them requests of this session",
                    d,
                    set.logs,
                    set.matched.len()
                )?,
            }
            for c in &set.matched {
                writeln!(
                    out,
                    "request {:>4}  {} differences  {}",
                    c.request, c.differences, c.log.file
                )?;
            }
        }
        return Ok(if set.matched.is_empty() {
            ExitCode::from(1)
        } else {
            ExitCode::SUCCESS
        });
    };
    let Some(c) = set.matched.iter().find(|c| c.request == n) else {
        let have: Vec<String> = set.matched.iter().map(|c| c.request.to_string()).collect();
        let kept = match session.meta.format {
            palimpsest_core::model::SourceFormat::Goose => ": goose keeps the last 10",
            _ => "",
        };
        bail!(
            "no recorded request is request {n} of session `{}` ({}{kept}; recorded here: {})",
            session.meta.id,
            set.dir.as_deref().unwrap_or("no request logs found"),
            if have.is_empty() {
                "none".to_owned()
            } else {
                have.join(", ")
            }
        );
    };
    if json {
        crate::output::json(c)?;
    } else {
        print_one(c)?;
    }
    Ok(ExitCode::SUCCESS)
}
