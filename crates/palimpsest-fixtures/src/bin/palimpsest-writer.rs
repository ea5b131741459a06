//! `palimpsest-writer`: a stand-in agent for live tests and latency benchmarks (see
//! `palimpsest_fixtures::live`). Prints one JSON line per commit: `{"file", "seq" | "event",
//! "t_ms"}`, the wall-clock time the write became visible, for latency measurement.
//! What is written, and when, is `live`'s; this binary parses flags and prints timings.

use std::io::Write;
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result, bail};
use palimpsest_fixtures::live::{self, Opts, Written};
use serde_json::json;

fn parse() -> Result<Opts> {
    let mut o = Opts {
        goose: None,
        claude: None,
        rate: 10.0,
        turns: 3,
        compact_after: 2,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = || args.next().with_context(|| format!("{a} needs a value"));
        match a.as_str() {
            "--goose" => o.goose = Some(val()?.into()),
            "--claude" => o.claude = Some(val()?.into()),
            "--rate" => o.rate = val()?.parse()?,
            "--turns" => o.turns = val()?.parse()?,
            "--compact-after" => o.compact_after = val()?.parse()?,
            _ => bail!(
                "usage: palimpsest-writer [--goose DB] [--claude FILE] [--rate MSGS_PER_SEC] [--turns N] [--compact-after TURNS]"
            ),
        }
    }
    if o.goose.is_none() && o.claude.is_none() {
        bail!("nothing to write: give --goose DB and/or --claude FILE");
    }
    Ok(o)
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

fn main() -> Result<()> {
    let o = parse()?;
    let mut out = std::io::stdout().lock();
    live::run(&o, |w| {
        let line = match w {
            Written::Message { file, seq } => json!({"file": file, "seq": seq, "t_ms": now_ms()}),
            Written::Compaction { file } => {
                json!({"file": file, "event": "compaction", "t_ms": now_ms()})
            }
        };
        let _ = writeln!(out, "{line}");
        let _ = out.flush();
    })
}
