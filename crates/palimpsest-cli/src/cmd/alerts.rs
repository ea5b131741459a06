//! `palimpsest watch PATH --alerts [--json] [--exec CMD] [--rows] [thresholds…]`: one line (or
//! one [`Alert`] as JSON) per alert as it happens, and CMD run per alert with the alert as JSON on
//! its standard input; `--rows` also prints each changed session's fleet row, diagnosed as it is
//! now (the window's live fleet table, [`FleetUpdate`]). CMD is split into a program and its arguments as a POSIX shell would,
//! then run without a shell: nothing a session says ever reaches a command line.
//! Raising alerts is `palimpsest_core::watch::AlertWatch`'s; this loop prints and runs.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use palimpsest_core::analysis::alerts::{AlertKind, AlertRules};
use palimpsest_core::watch::{
    Alert, AlertWatch, Alerter, FleetUpdate, FsWatch, PACE_ABOVE, Tracker,
};

use super::watch::Next;

/// The alert flags of `watch`.
#[derive(clap::Args)]
pub struct Flags {
    /// Print an alert when a followed session turns stuck or bad, instead of every change:
    /// one line each, or one JSON object with --json (see the thresholds below)
    #[arg(long)]
    pub alerts: bool,
    /// With --alerts: run CMD per alert, the alert as JSON on its standard input (split into
    /// words as a shell would, run without one)
    #[arg(long, value_name = "CMD", requires = "alerts")]
    exec: Option<String>,
    /// With --alerts: also print each changed session's fleet row as it is now (severity,
    /// verdict, cost, compactions), the window's live fleet table
    #[arg(long, requires = "alerts")]
    rows: bool,
    /// Re-reads of one file, one of them after a compaction
    #[arg(long, value_name = "N", default_value_t = AlertRules::default().rereads, requires = "alerts")]
    rereads: usize,
    /// A compaction freeing less than this percentage of its context
    #[arg(long, value_name = "PERCENT", default_value_t = AlertRules::default().freed_below * 100.0, requires = "alerts")]
    freed_below: f64,
    /// Two compactions this many requests apart or fewer: a storm
    #[arg(long, value_name = "N", default_value_t = AlertRules::default().storm_requests, requires = "alerts")]
    storm_requests: usize,
    /// The same call failing unchanged this many times in a row (3 at least)
    #[arg(long, value_name = "N", default_value_t = AlertRules::default().failing_calls, requires = "alerts")]
    failing_calls: usize,
    /// The same call with the same answer this many times (3 at least)
    #[arg(long, value_name = "N", default_value_t = AlertRules::default().repeated_calls, requires = "alerts")]
    repeated_calls: usize,
    /// Spill files read and spilled again in one chain (2 at least)
    #[arg(long, value_name = "N", default_value_t = AlertRules::default().spill_rereads, requires = "alerts")]
    spill_rereads: usize,
    /// Minutes without a request after a compaction
    #[arg(long, value_name = "MINUTES", default_value_t = AlertRules::default().idle_minutes, requires = "alerts")]
    idle_minutes: f64,
    /// A session costing more than this many dollars (no budget alert without it)
    #[arg(long, value_name = "USD", requires = "alerts")]
    budget: Option<f64>,
    /// Kinds never raised, comma-separated: rereads_after_compaction, compaction_freed_little,
    /// compaction_storm, prompt_too_long, failing_loop, repeated_call, spill_loop,
    /// idle_after_compaction, over_budget
    #[arg(long, value_name = "KINDS", value_delimiter = ',', requires = "alerts")]
    off: Vec<String>,
    /// A price table laid over the shipped one, for the budget (ours or LiteLLM's JSON shape)
    #[arg(long, value_name = "FILE", requires = "alerts")]
    prices: Option<PathBuf>,
}

impl Flags {
    fn rules(&self) -> anyhow::Result<AlertRules> {
        let off = self
            .off
            .iter()
            .map(|k| {
                AlertKind::parse(k.trim()).with_context(|| {
                    format!(
                        "--off {k}: not a kind of alert (one of {})",
                        AlertKind::ALL.map(AlertKind::as_str).join(", ")
                    )
                })
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        if !(0.0..=100.0).contains(&self.freed_below) {
            bail!("--freed-below {}: a percentage, 0 to 100", self.freed_below);
        }
        Ok(AlertRules {
            rereads: self.rereads,
            freed_below: self.freed_below / 100.0,
            storm_requests: self.storm_requests,
            failing_calls: self.failing_calls,
            repeated_calls: self.repeated_calls,
            spill_rereads: self.spill_rereads,
            idle_minutes: self.idle_minutes.max(0.0),
            budget_usd: self.budget,
            off,
        })
    }
}

/// Run `watch --alerts` on `tracker` until `duration` seconds pass (or forever).
pub fn run(
    path: &Path,
    tracker: Tracker,
    a: &Flags,
    json: bool,
    duration: Option<f64>,
) -> anyhow::Result<ExitCode> {
    let prices = palimpsest_core::cost::PriceTable::load(a.prices.as_deref())?;
    let exec = match &a.exec {
        Some(cmd) => Some(
            shlex::split(cmd)
                .filter(|w| !w.is_empty())
                .with_context(|| format!("--exec {cmd:?}: not a command (unbalanced quotes?)"))?,
        ),
        None => None,
    };
    let mut alerter = Alerter::new(a.rules()?, Some(prices)).with_pacing(PACE_ABOVE);
    if a.rows {
        alerter = alerter.with_rows();
    }
    let mut watch = AlertWatch::new(tracker, alerter);
    let source = path.display().to_string();
    let fs = FsWatch::new(&[path.to_owned()])?;
    let deadline = duration.map(|s| Instant::now() + Duration::from_secs_f64(s.max(0.0)));
    let mut out = crate::output::stdout();
    writeln!(
        out,
        "{}",
        if json {
            r#"{"event":"ready"}"#
        } else {
            "watching for alerts…"
        }
    )?;
    out.flush()?;
    let mut last = Instant::now();
    loop {
        let alerts = match super::watch::next(&fs, deadline, &mut last) {
            Next::Stop => return Ok(ExitCode::SUCCESS),
            Next::Wait => watch.tick(Instant::now()),
            Next::Look => {
                let (changes, alerts) = watch.refresh(Instant::now());
                for c in changes {
                    if let palimpsest_core::watch::Change::Problem { problem } = c {
                        eprintln!("palimpsest: {}", problem.message);
                    }
                }
                for row in watch.take_rows() {
                    let update = FleetUpdate {
                        source: source.clone(),
                        row,
                    };
                    if json {
                        serde_json::to_writer(
                            &mut out,
                            &Line {
                                event: "fleet_row",
                                item: &update,
                            },
                        )?;
                        writeln!(out)?;
                    } else {
                        let r = &update.row;
                        writeln!(
                            out,
                            "row {} {}: {}",
                            r.severity.as_str(),
                            r.session_id,
                            r.verdict
                        )?;
                    }
                }
                alerts
            }
        };
        for alert in &alerts {
            if json {
                serde_json::to_writer(
                    &mut out,
                    &Line {
                        event: "alert",
                        item: alert,
                    },
                )?;
                writeln!(out)?;
            } else {
                writeln!(out, "{}", describe(alert))?;
            }
            if let Some(argv) = &exec {
                run_exec(argv, alert);
            }
        }
        out.flush()?;
    }
}

/// An alert (or a fleet row) as `--json` prints it: the window's [`Alert`] ([`FleetUpdate`])
/// with `"event": "alert"` (`"fleet_row"`), as `watch --json` tags its changes.
#[derive(serde::Serialize)]
struct Line<'a, T: serde::Serialize> {
    event: &'static str,
    #[serde(flatten)]
    item: &'a T,
}

fn describe(a: &Alert) -> String {
    format!(
        "{} {} {}: {} (message {}) — {} · {}",
        a.severity.as_str(),
        a.kind.as_str(),
        a.session_id,
        a.words,
        a.message_index,
        a.name,
        a.path
    )
}

/// Start `argv` with the alert on its standard input; a thread waits for it, so a slow hook
/// never holds the next alert back. A command that cannot start is said, not fatal.
fn run_exec(argv: &[String], alert: &Alert) {
    let child = Command::new(&argv[0])
        .args(&argv[1..])
        .stdin(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => {
            eprintln!("palimpsest: --exec {}: {e}", argv[0]);
            return;
        }
    };
    let body = serde_json::to_vec(alert).unwrap_or_default();
    let mut stdin = child.stdin.take();
    std::thread::spawn(move || {
        if let Some(s) = stdin.as_mut() {
            // A command that does not read its input is its own business.
            let _ = s.write_all(&body).and_then(|()| s.write_all(b"\n"));
        }
        drop(stdin);
        let _ = child.wait();
    });
}
