//! `palimpsest tokens PATH [--session ID] [--encoding o200k_base|cl100k_base] [--json] [--svg FILE]`:
//! real BPE token counts by category for one session — the final context, everything processed
//! over the run, top tools and parts, and recorded usage beside the estimate. Counts are cached
//! in the user's cache dir; a progress bar shows on a terminal while counting.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;

use anyhow::Context;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use palimpsest_core::api::{self, TokenOptions};
use palimpsest_core::charts::{ThemeName, thousands};
use palimpsest_core::service::IndexUse;
use palimpsest_core::tokens::{Category, Encoding, Progress, TokenCache};
use palimpsest_core::views::tokens::{CategoryTotals, ReportOptions, TokenReport};

/// Arguments of `tokens`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    target: super::Target,
    /// The vocabulary; by default chosen from the session's model (GPT-4/3.5: cl100k_base).
    #[arg(long, value_parser = ["o200k_base", "cl100k_base"])]
    encoding: Option<String>,
    /// Print JSON: {"encoding", "final_context", "processed", "recorded_usage", "cost", ...,
    /// "requests", "priced_requests"}: the whole report, with the keys the window's view adds.
    #[arg(long)]
    json: bool,
    /// Also write the charts (final share, processed share, context per request, top tools) as SVG.
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,
    /// Also write the four charts the window's Tokens tab draws, one SVG each, into DIR:
    /// final_context.svg, processed.svg, per_request.svg, top_tools.svg.
    #[arg(long, value_name = "DIR")]
    charts: Option<PathBuf>,
    /// Chart theme.
    #[arg(long, value_enum, default_value = "light")]
    theme: ThemeArg,
    /// How many top tools and parts to list.
    #[arg(long, default_value_t = 10)]
    top: usize,
    /// Compaction trigger (tokens) to draw; default 80% of the context window when known.
    #[arg(long)]
    trigger: Option<u64>,
    /// Where the count cache lives (default: the user's cache dir, `palimpsest/`).
    #[arg(long, value_name = "DIR")]
    cache_dir: Option<PathBuf>,
    /// Count without reading or writing the cache.
    #[arg(long)]
    no_cache: bool,
    /// A price table laid over the shipped one (ours or LiteLLM's JSON shape); without it a
    /// `prices.json` in the config dir is, when there is one.
    #[arg(long, value_name = "FILE")]
    prices: Option<PathBuf>,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum ThemeArg {
    Light,
    Dark,
}

/// Run `tokens`.
pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let report_opts = ReportOptions {
        top: a.top,
        trigger_tokens: a.trigger,
    };
    let prices = palimpsest_core::cost::PriceTable::load(a.prices.as_deref())?;
    // A session the index holds as its file is now: its report is the index's (counted when it
    // was indexed, through the same cache), so nothing is read or counted. Only an index that
    // exists is asked, and not when the count is to bypass the cache or use another one.
    let encoding = a.encoding.as_deref().and_then(Encoding::from_name);
    let report = count(&a, encoding, report_opts, prices)?;
    crate::output::notices(report.cache_note.as_slice());
    let theme = match a.theme {
        ThemeArg::Light => ThemeName::Light,
        ThemeArg::Dark => ThemeName::Dark,
    };
    if let Some(file) = &a.svg {
        let svg = api::token_charts_svg(&report, theme)?;
        std::fs::write(file, svg).with_context(|| format!("cannot write {}", file.display()))?;
    }
    if let Some(dir) = &a.charts {
        write_charts(dir, &api::token_charts(&report, theme)?)?;
    }
    if a.json {
        crate::output::json(&Out {
            requests: palimpsest_core::views::tokens::shown::lines(&report),
            priced_requests: palimpsest_core::views::tokens::shown::priced(&report),
            report: &report,
        })?;
    } else {
        print_text(&report)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `tokens --json`: the whole report, and the two keys the window's `TokenView` adds to it.
#[derive(serde::Serialize)]
struct Out<'a> {
    #[serde(flatten)]
    report: &'a TokenReport,
    /// Every request's line, as the window lists them.
    requests: Vec<palimpsest_core::views::tokens::shown::RequestLine>,
    /// How many requests the cost priced.
    priced_requests: usize,
}

/// The window's four charts, one file each in `dir`.
fn write_charts(
    dir: &std::path::Path,
    c: &palimpsest_core::views::panels::TokenCharts,
) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    for (name, svg) in [
        ("final_context.svg", &c.final_context),
        ("processed.svg", &c.processed),
        ("per_request.svg", &c.per_request),
        ("top_tools.svg", &c.top_tools),
    ] {
        let file = dir.join(name);
        std::fs::write(&file, svg).with_context(|| format!("cannot write {}", file.display()))?;
    }
    Ok(())
}

/// The report of a session: the index's when it holds the file as it is and the count would
/// go through the user's cache, else loaded and counted now (the cache reused and filled).
fn count(
    a: &Args,
    encoding: Option<Encoding>,
    report: ReportOptions,
    prices: palimpsest_core::cost::PriceTable,
) -> anyhow::Result<TokenReport> {
    let s = a
        .target
        .serve(IndexUse::Existing(None), "count tokens of")?;
    let cache_dir = if a.no_cache {
        None
    } else {
        a.cache_dir.clone().or_else(TokenCache::default_dir)
    };
    let opts = TokenOptions {
        encoding,
        cache_dir,
        report,
        prices: Some(prices),
    };
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template(
            "counting tokens {wide_bar} {bytes}/{total_bytes} ({bytes_per_sec}, {eta})",
        )
        .expect("static template"),
    );
    let cancel = AtomicBool::new(false);
    let mut on_progress = |p: Progress| {
        bar.set_length(p.total_bytes);
        bar.set_position(p.done_bytes);
    };
    let report = s
        .svc
        .token_report(&s.path, &s.id, &opts, &mut on_progress, &cancel);
    bar.finish_and_clear();
    Ok((*s.answer(report)?).clone())
}

fn print_text(r: &TokenReport) -> anyhow::Result<()> {
    let mut out = crate::output::stdout();
    writeln!(out, "session {} — encoding {}", r.session_id, r.encoding)?;
    table(&mut out, "final agent-visible context", &r.final_context)?;
    table(
        &mut out,
        "processed over the run (sum of request contexts)",
        &r.processed,
    )?;
    if let Some(u) = &r.recorded_usage {
        match (u.recorded_context, u.difference, u.difference_share) {
            (Some(rec), Some(d), Some(share)) => writeln!(
                out,
                "\nrecorded context of the last request: {}  estimate: {}  difference: {:+} ({:+.1}%)",
                thousands(rec),
                thousands(u.estimated_context),
                d,
                share * 100.0
            )?,
            _ => writeln!(
                out,
                "\nno recorded usage to compare with: the source recorded no input tokens for its requests"
            )?,
        }
        if let Some(p) = u.recorded_processed {
            writeln!(
                out,
                "recorded over {} requests: {} (estimate {})",
                u.requests_with_usage,
                thousands(p),
                thousands(r.processed.total)
            )?;
        }
    }
    if let Some(c) = &r.cost {
        writeln!(
            out,
            "\ncost: {} over {} requests (prices of {})",
            match c.total_usd {
                Some(t) => format!("${t:.4}"),
                None => format!(
                    "${:.4} priced; no price for {}",
                    c.priced_usd,
                    c.unpriced_models.join(", ")
                ),
            },
            c.per_request.len(),
            c.table_date
        )?;
        for m in &c.per_model {
            writeln!(
                out,
                "  {:<32} {:>5} requests  {:>10}  (input {}, output {}, cache read {}, cache write {})",
                m.model,
                m.requests,
                m.usd
                    .map_or_else(|| "no price".to_owned(), |u| format!("${u:.4}")),
                thousands(m.usage.input),
                thousands(m.usage.output),
                thousands(m.usage.cache_read),
                thousands(m.usage.cache_write + m.usage.cache_write_1h)
            )?;
        }
    }
    if !r.top_tools.is_empty() {
        writeln!(
            out,
            "\ntop tools                         tokens   calls  args     bodies   results  largest"
        )?;
        for t in &r.top_tools {
            writeln!(
                out,
                "  {:<30} {:>9} {:>6}  {:>8} {:>8} {:>9}  #{}",
                t.name,
                thousands(t.total),
                t.calls,
                thousands(t.arguments),
                thousands(t.bodies),
                thousands(t.results),
                t.largest_message_index
            )?;
        }
    }
    if !r.top_parts.is_empty() {
        writeln!(out, "\ntop parts (message #index.part)")?;
        for p in &r.top_parts {
            writeln!(
                out,
                "  #{:<7} {:>9}  {:<20} {}{}",
                format!("{}.{}", p.message_index, p.part_index),
                thousands(p.tokens),
                p.category,
                p.tool.as_deref().unwrap_or(""),
                if p.agent_visible {
                    ""
                } else {
                    "  (no longer visible)"
                }
            )?;
        }
    }
    writeln!(
        out,
        "\n{} pieces from cache, {} counted ({} bytes)",
        r.stats.cache_hits,
        r.stats.counted,
        thousands(r.stats.counted_bytes)
    )?;
    Ok(())
}

fn table(out: &mut impl Write, title: &str, t: &CategoryTotals) -> anyhow::Result<()> {
    writeln!(out, "\n{title}: {} tokens", thousands(t.total))?;
    for c in Category::ALL {
        let Some(s) = t.categories.iter().find(|s| s.name == c.as_str()) else {
            continue;
        };
        if s.tokens > 0 {
            writeln!(
                out,
                "  {:<24} {:>12} {:>6.1}%",
                c.label(),
                thousands(s.tokens),
                s.share * 100.0
            )?;
        }
    }
    Ok(())
}
