//! `palimpsest replay PATH [--session ID] --policy goose|coworker [--keep-tail K] [--naive]
//! [--manual] [--skip-summaries] [--context-window N] [--threshold F] [--trigger-cap N] [--tool-result-cap BYTES]
//! [--summary-tokens N] [--legacy] [--simulate | --verify] [--json]`: compact the history once as
//! it stands, or (`--simulate`) run the whole session forward under the policy, or (`--verify`,
//! coworker) re-derive each recorded compaction and show where it differs from the record (exit 1
//! when one does). The policies, the simulation and the check are `palimpsest_core::replay`'s;
//! this parses and prints.

use std::io::Write;
use std::process::ExitCode;

use palimpsest_core::api;
use palimpsest_core::model::Part;
use palimpsest_core::replay::defaults::DEFAULTS;
use palimpsest_core::replay::options::{PolicyName, ReplayOptions};

/// The replay's JSON: the view's keys, and `note` (which policy, why this preserved ask).
#[derive(serde::Serialize)]
struct Explained<'a> {
    #[serde(flatten)]
    view: &'a palimpsest_core::replay::options::ReplayView,
    note: &'a palimpsest_core::replay::explain::PolicyNote,
    /// Which numbering the indices use, said once.
    index_space: &'static str,
    /// The agent view as the Replay tab draws it (`ReplayPanel.rows`).
    rows: &'a [palimpsest_core::views::panels::ReplayRow],
    /// Tokens of the whole replayed context (`ReplayPanel.tokens`).
    tokens: u64,
}

/// Every index of `replay --json` (`cut_index`, `requested_cut_index`, `kept_tail`, each
/// visible row's `index`) is a stored message index, as `show` numbers messages.
const INDEX_SPACE: &str = "message: every index is the stored message index `show` prints";

/// Arguments of `replay`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    target: super::Target,
    #[command(flatten)]
    policy: PolicyArgs,
    /// goose: keep the last K messages verbatim (a floor: the walk may keep more).
    #[arg(long, default_value_t = 0)]
    keep_tail: usize,
    /// goose: slice the last K without the backward walk (shows the orphans it prevents).
    #[arg(long)]
    naive: bool,
    /// goose: a manual `/compact` (no user message preserved).
    #[arg(long)]
    manual: bool,
    /// goose variant, not goose's rule: the preserved ask skips earlier compactions' summaries
    /// (user-role text goose would preserve) and is the last real ask the model still sees.
    #[arg(long)]
    skip_summaries: bool,
    /// Run the whole session forward instead of compacting once.
    #[arg(long)]
    simulate: bool,
    /// coworker: re-derive each recorded compaction (working state, user messages, omitted
    /// count, block) from the messages and the recorded summary, and show any difference from
    /// the record; exits 1 when one differs.
    #[arg(long, conflicts_with = "simulate")]
    verify: bool,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

/// Settings shared by `replay` and `sweep`.
#[derive(clap::Args)]
pub struct PolicyArgs {
    /// Which compaction policy.
    #[arg(long, value_enum)]
    pub policy: PolicyArg,
    #[arg(long, help = format!(
        "Context window / limit in tokens (default: the session's, else {})",
        DEFAULTS.context_window
    ))]
    pub context_window: Option<u64>,
    #[arg(long, help = format!(
        "Compaction threshold as a fraction of the window (default {})",
        DEFAULTS.threshold
    ))]
    pub threshold: Option<f64>,
    #[arg(long, help = format!("coworker: trigger cap in tokens (default {})", DEFAULTS.trigger_cap))]
    pub trigger_cap: Option<u64>,
    #[arg(long, help = format!(
        "Cap tool results on arrival at this many bytes, 0 = off (coworker default {}; goose off)",
        DEFAULTS.coworker_tool_result_cap
    ))]
    pub tool_result_cap: Option<usize>,
    #[arg(long, help = format!(
        "Size of placeholder summaries in tokens (default {}; legacy {})",
        DEFAULTS.summary_tokens, DEFAULTS.legacy_summary_tokens
    ))]
    pub summary_tokens: Option<u64>,
    /// coworker: legacy rules (600-char user messages, newest 40, no transcript line).
    #[arg(long)]
    pub legacy: bool,
    /// OpenCode: user turns kept verbatim (`tail_turns`, default 2; 0 keeps none).
    #[arg(long)]
    pub tail_turns: Option<usize>,
    /// OpenCode: the kept tail's budget in tokens (`preserve_recent_tokens`; default a quarter
    /// of the usable window, 2 000–8 000).
    #[arg(long)]
    pub preserve_tokens: Option<u64>,
    /// gemini: the fraction of the history kept verbatim (default 0.3).
    #[arg(long)]
    pub preserve_fraction: Option<f64>,
    /// gemini: function-response tokens kept whole when compressing, 0 = no budget (default
    /// 50 000; none on a Qwen Code session).
    #[arg(long)]
    pub response_budget: Option<u64>,
    /// goose, opencode, gemini, with --simulate: also compact where the session recorded a
    /// compaction (as `tune` replays by default).
    #[arg(long)]
    pub at_recorded: bool,
}

/// `--policy`.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum PolicyArg {
    /// goose.
    Goose,
    /// OpenWorker's coworker.
    Coworker,
    /// OpenCode (and Kilo Code).
    #[value(name = "opencode")]
    OpenCode,
    /// Gemini CLI (and Qwen Code while it kept a tail).
    Gemini,
}

impl PolicyArg {
    /// The policy in core's words.
    pub fn name(self) -> PolicyName {
        match self {
            PolicyArg::Goose => PolicyName::Goose,
            PolicyArg::Coworker => PolicyName::Coworker,
            PolicyArg::OpenCode => PolicyName::OpenCode,
            PolicyArg::Gemini => PolicyName::Gemini,
        }
    }
}

impl PolicyArgs {
    /// The core options these flags describe.
    pub fn options(&self) -> ReplayOptions {
        ReplayOptions {
            policy: self.policy.name(),
            context_window: self.context_window,
            threshold: self.threshold,
            trigger_cap: self.trigger_cap,
            tool_result_cap: self.tool_result_cap,
            summary_tokens: self.summary_tokens,
            legacy: self.legacy,
            tail_turns: self.tail_turns,
            preserve_tokens: self.preserve_tokens,
            preserve_fraction: self.preserve_fraction,
            response_budget: self.response_budget,
            at_recorded: self.at_recorded,
            ..ReplayOptions::default()
        }
    }
}

/// Run `replay`.
pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let session = a.target.load("replay")?;
    let opts = ReplayOptions {
        keep_tail: a.keep_tail,
        naive: a.naive,
        manual: a.manual,
        skip_summaries: a.skip_summaries,
        ..a.policy.options()
    };
    if a.verify {
        return verify(&session, &opts, a.json);
    }
    let mut out = crate::output::stdout();
    if a.simulate {
        let sim = api::replay_simulate(&session, &opts, super::token_cache().as_ref());
        if a.json {
            crate::output::json(&sim)?;
            return Ok(ExitCode::SUCCESS);
        }
        let t = &sim.totals;
        writeln!(
            out,
            "{} requests, {} compactions, {} tokens processed, peak {}, mean after cut {}, {} orphans",
            t.requests,
            t.compactions,
            t.tokens_processed,
            t.peak_context,
            t.mean_tokens_after,
            t.orphans
        )?;
        let in_loop = sim.compactions.iter().filter(|c| c.recovery).count();
        if in_loop > 0 {
            writeln!(
                out,
                "{in_loop} of the compactions fired inside a tool loop: a request would not fit the context limit"
            )?;
        }
        if t.gave_up > 0 {
            writeln!(
                out,
                "{} requests still over the context limit after compacting: goose stops the session at the first",
                t.gave_up
            )?;
        }
        writeln!(
            out,
            "latest read of the last file kept verbatim after {}/{} cuts",
            t.last_read_kept, t.last_read_cuts
        )?;
        if let Some(c) = &sim.cost {
            writeln!(
                out,
                "cost: ≈ ${:.2} at this setting, beside ${:.2} recorded (answers as recorded; {} prompt tokens at the session's ${:.2} per million, {} of them per request not in the transcript; prices of {})",
                c.setting_usd,
                c.recorded_usd,
                c.setting_prompt_tokens,
                c.usd_per_prompt_token * 1e6,
                c.overhead_per_request,
                c.table_date
            )?;
        }
        for c in &sim.compactions {
            let lost: Vec<&str> = c
                .files
                .iter()
                .filter(|f| !f.verbatim)
                .map(|f| f.path.as_str())
                .collect();
            writeln!(
                out,
                "cut at #{}{} before request {}: {} → {} tokens, kept {} from #{}, {} orphans, summary-only: {}",
                c.at_index,
                if c.recovery {
                    " (in the tool loop)"
                } else {
                    ""
                },
                c.request + 1,
                c.tokens_before,
                c.tokens_after,
                c.kept_tail.len(),
                c.cut_index.map_or("-".into(), |i| i.to_string()),
                c.orphans,
                if lost.is_empty() {
                    "none".into()
                } else {
                    lost.join(", ")
                }
            )?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    let (view, panel) = if a.json {
        let (view, panel) = api::replay_with_panel(&session, &opts, super::token_cache().as_ref());
        (view, Some(panel))
    } else {
        (
            api::replay(&session, &opts, super::token_cache().as_ref()),
            None,
        )
    };
    let note = palimpsest_core::replay::explain::policy_note(&session, &opts);
    if let Some(panel) = panel {
        crate::output::json(&Explained {
            view: &view,
            note: &note,
            index_space: INDEX_SPACE,
            rows: &panel.rows,
            tokens: panel.tokens,
        })?;
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(out, "{}", note.text)?;
    for (n, m) in view.visible.iter().enumerate() {
        let from = m.source_index.map_or("new".into(), |i| format!("#{i}"));
        writeln!(
            out,
            "[{}] {:<9} {:<14} {:<6} {}",
            n + 1,
            name(&m.role),
            name(&m.kind),
            from,
            preview(&m.parts)
        )?;
    }
    writeln!(
        out,
        "-> {} agent-visible messages; cut at #{} (asked #{}), kept {:?}, preserved copy {}, {} orphans",
        view.visible.len(),
        view.cut_index,
        view.requested_cut_index,
        view.kept_tail,
        if view.preserved_appended {
            "appended"
        } else {
            "not appended"
        },
        view.orphans
    )?;
    Ok(ExitCode::SUCCESS)
}

/// `--verify`: the check of every recorded coworker compaction; exit 1 when one differs.
fn verify(
    session: &palimpsest_core::model::Session,
    opts: &ReplayOptions,
    json: bool,
) -> anyhow::Result<ExitCode> {
    if opts.policy != PolicyName::Coworker {
        anyhow::bail!("--verify checks coworker compaction records: use --policy coworker");
    }
    if opts.legacy {
        anyhow::bail!(
            "--verify takes each record's rules from the record itself (a legacy record is checked \
             under the legacy rules): drop --legacy"
        );
    }
    let r = api::replay_verify(session, opts);
    let code = if r.all_equal {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    };
    if json {
        crate::output::json(&r)?;
        return Ok(code);
    }
    let mut out = crate::output::stdout();
    if r.compactions.is_empty() {
        writeln!(
            out,
            "{}: no recorded coworker compaction to verify",
            r.session_id
        )?;
        return Ok(code);
    }
    if r.window_from != "given" {
        writeln!(
            out,
            "user-message budget {} tokens, from a {}-token window ({}): pass --context-window if \
             the harness ran with another; a user_messages difference may come from it",
            r.user_budget,
            r.window,
            if r.window_from == "session" {
                "the session's"
            } else {
                "the default"
            }
        )?;
    }
    for c in &r.compactions {
        let mut what = format!("span {}..{}", c.span_start, c.boundary_index);
        if c.trimmed {
            what.push_str(", trim");
        }
        if c.legacy {
            what.push_str(", legacy rules");
        }
        if c.derived_earlier > 0 && c.unverifiable.is_none() {
            let n = c.derived_earlier;
            let s = if n == 1 { "" } else { "s" };
            what.push_str(&format!(", {n} earlier unrecorded state{s} re-derived"));
        }
        writeln!(
            out,
            "#{} boundary {} ({what}): {}",
            c.cut_index,
            c.boundary_index,
            match (&c.unverifiable, c.equal()) {
                (Some(why), _) => why.as_str(),
                (None, true) => "as derived",
                (None, false) => "DIFFERS",
            }
        )?;
        if c.unverifiable.is_some() {
            continue;
        }
        for f in c.fields.iter().filter(|f| !f.equal) {
            writeln!(out, "  {}: recorded {}", f.name, clipped(&f.recorded))?;
            writeln!(out, "  {}: derived  {}", f.name, clipped(&f.derived))?;
        }
        if let Some(d) = &c.first_difference {
            writeln!(
                out,
                "  block differs at line {}, column {}:",
                d.line, d.column
            )?;
            let line = |l: &Option<String>| l.as_deref().map_or("(no line)".into(), clip);
            writeln!(out, "    recorded: {}", line(&d.recorded))?;
            writeln!(out, "    derived:  {}", line(&d.derived))?;
        }
    }
    let differ = r.compactions.iter().filter(|c| c.differs()).count();
    writeln!(
        out,
        "-> {} of {} recorded compactions differ from coworker's rules (user-message budget {} tokens)",
        differ,
        r.compactions.len(),
        r.user_budget
    )?;
    Ok(code)
}

/// A value on one line (strings quoted, so their line breaks show as `\n`), cut to 160 chars.
fn clipped(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => clip(&format!("{s:?}")),
        other => clip(&other.to_string()),
    }
}

fn clip(s: &str) -> String {
    if s.chars().count() > 160 {
        format!("{}…", s.chars().take(160).collect::<String>())
    } else {
        s.to_owned()
    }
}

fn name<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

fn preview(parts: &[Part]) -> String {
    let s: Vec<String> = parts
        .iter()
        .map(|p| match p {
            Part::Text { text } => text.clone(),
            Part::ToolCall {
                name, arguments, ..
            } => format!("{name} {arguments}"),
            Part::ToolResult { text, .. } => format!("→ {text}"),
            other => format!("[{}]", other.type_name()),
        })
        .collect();
    let flat: String = s
        .join(" | ")
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if flat.chars().count() > 90 {
        format!("{}…", flat.chars().take(90).collect::<String>())
    } else {
        flat
    }
}
