//! `palimpsest watch PATH [--session ID] [--json]`: print new sessions, messages and
//! compactions as agents write them. `--json` prints one JSON object per line (a
//! [`palimpsest_core::watch::Change`]), flushed as it happens, for harness CI to consume.
//! `--alerts` prints instead one line (or [`palimpsest_core::watch::Alert`]) per alert, and
//! `--exec CMD` runs CMD per alert with the alert as JSON on its standard input (`alerts`).
//! Noticing changes and raising alerts are `palimpsest_core::watch`'s; this loop only prints
//! what it reports.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::Context;
use palimpsest_core::follow::SAFETY_POLL;
use palimpsest_core::watch::{Change, FsWatch, Tracker};

/// Arguments of `watch`.
#[derive(clap::Args)]
pub struct Args {
    /// A session file, a database or a folder.
    path: PathBuf,
    /// Follow one session only.
    #[arg(long)]
    session: Option<String>,
    /// Print JSON lines.
    #[arg(long)]
    json: bool,
    /// Stop after this many seconds (for scripts and tests); runs until interrupted otherwise.
    #[arg(long)]
    duration: Option<f64>,
    #[command(flatten)]
    alerts: super::alerts::Flags,
}

/// How long to wait for a notification before checking the deadline (and the idle alerts'
/// clock) again.
const POLL: Duration = Duration::from_millis(500);

/// When `watch` looks next.
pub(super) enum Next {
    /// Look at the files again.
    Look,
    /// Nothing to look at yet (the clock may still raise an idle alert).
    Wait,
    /// The deadline passed.
    Stop,
}

/// Wait for a notification, at most [`POLL`] and never past `deadline`. A notification means a
/// look, else only the safety net once [`SAFETY_POLL`] passed since `last` (listing a big
/// database on every wake-up would cost more than the watching); `last` is then now.
pub(super) fn next(fs: &FsWatch, deadline: Option<Instant>, last: &mut Instant) -> Next {
    let wait = match deadline {
        Some(d) => match d.checked_duration_since(Instant::now()) {
            Some(left) => left.min(POLL),
            None => return Next::Stop,
        },
        None => POLL,
    };
    if !fs.wait(wait) && last.elapsed() < SAFETY_POLL {
        return Next::Wait;
    }
    *last = Instant::now();
    Next::Look
}

/// Run `watch`.
pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let tracker = Tracker::new(&a.path, a.session.as_deref())
        .with_context(|| format!("cannot watch {}", a.path.display()))?;
    if a.alerts.alerts {
        return super::alerts::run(&a.path, tracker, &a.alerts, a.json, a.duration);
    }
    let mut tracker = tracker;
    let fs = FsWatch::new(std::slice::from_ref(&a.path))?;
    let deadline = a
        .duration
        .map(|s| Instant::now() + Duration::from_secs_f64(s.max(0.0)));
    let mut out = crate::output::stdout();
    let mut last = Instant::now();
    writeln!(
        out,
        "{}",
        if a.json {
            r#"{"event":"ready"}"#
        } else {
            "watching…"
        }
    )?;
    out.flush()?;
    loop {
        match next(&fs, deadline, &mut last) {
            Next::Stop => return Ok(ExitCode::SUCCESS),
            Next::Wait => continue,
            Next::Look => {}
        }
        for change in tracker.refresh() {
            if a.json {
                serde_json::to_writer(&mut out, &change)?;
                writeln!(out)?;
            } else {
                writeln!(out, "{}", describe(&change))?;
            }
        }
        out.flush()?;
    }
}

fn describe(c: &Change) -> String {
    match c {
        Change::SessionAdded { session } => format!("+ session {} ({})", session.id, session.name),
        Change::Appended {
            session_id,
            messages,
        } => messages
            .iter()
            .map(|m| {
                format!(
                    "{session_id} [{}] {:?} {:?}: {}",
                    m.index,
                    m.role,
                    m.kind,
                    first_line(&m.text())
                )
            })
            .collect::<Vec<_>>()
            .join("\n"),
        Change::Rewritten {
            session_id,
            from_index,
            messages,
        } => {
            format!(
                "{session_id}: rewritten from [{from_index}] ({} messages now follow)",
                messages.len()
            )
        }
        Change::VisibilityChanged {
            session_id,
            messages,
        } => {
            format!(
                "{session_id}: visibility changed on {} messages",
                messages.len()
            )
        }
        Change::Compaction { session_id, record } => format!(
            "{session_id}: ── cut at [{}] ({}) ──",
            record.cut_index,
            record
                .trigger
                .map(|t| format!("{t:?}").to_lowercase())
                .unwrap_or_else(|| "unknown".into())
        ),
        Change::Problem { problem } => format!("! {}", problem.message),
    }
}

fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or("").chars().take(100).collect()
}
