//! `palimpsest`: the command-line face of Palimpsest. Thin by design: parse arguments, call
//! `palimpsest_core::api`, print text or the same JSON the app receives. Each subcommand lives in
//! `cmd/<name>.rs`.
//!
//! Exit codes: 0 success, 1 findings (`lint`), 2 usage or input error. A closed pipe exits 0.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod cmd;
mod output;

/// mimalloc, not glibc's malloc: see the workspace manifest.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `palimpsest --version`: the release and the commit built (`build.rs`).
const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("PALIMPSEST_COMMIT"),
    ")"
);

/// Inspect the sessions of LLM coding agents: visibility, compaction cuts, replay, tokens.
#[derive(Parser)]
#[command(name = "palimpsest", version = VERSION, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List the sessions in a file or folder.
    Sessions(cmd::sessions::Args),
    /// Take every compaction cut of a session apart.
    Compactions(cmd::compactions::Args),
    /// Check tool-call pairing at every request; exits 1 on findings.
    Lint(cmd::lint::Args),
    /// Show what the model saw at request N.
    Context(cmd::context::Args),
    /// Show the messages of one session, with visibility.
    Show(cmd::show::Args),
    /// List where sessions live: every agent family's default folder and added ones.
    Sources(cmd::sources::Args),
    /// Follow sessions live: new sessions, messages and compactions as they land.
    Watch(cmd::watch::Args),
    /// Count tokens by category: final context, processed over the run, top tools and parts.
    Tokens(cmd::tokens::Args),
    /// Post-mortem of a stuck worker: re-reads, loops, spill loops, what summaries lost.
    Diagnose(cmd::diagnose::Args),
    /// Bring the fleet index (cache) up to date: sessions added, updated, unchanged, removed.
    Index(cmd::index::Args),
    /// Search every part of every session: text, thinking, tool arguments and results, summaries.
    Search(cmd::search::Args),
    /// The spill files of a session: sizes, missing ones, who read them.
    Spills(cmd::spills::Args),
    /// Replay compaction offline under a policy, once or over the whole session.
    Replay(cmd::replay::Args),
    /// Sweep a compaction policy over a grid of settings: a table and a heatmap.
    Sweep(cmd::sweep::Args),
    /// Tune compaction for a fleet: which K, cap or budget would have spared its re-reads, at
    /// what price.
    Tune(cmd::tune::Args),
    /// What coworker's tool-result cap makes of each result it changes.
    Cap(cmd::cap::Args),
    /// A post-mortem as one self-contained HTML file, for a session or a whole folder.
    Report(cmd::report::Args),
    /// Two recorded runs of the same task side by side, by user turn and call.
    Diff(cmd::diff::Args),
    /// The fleet as Parquet files (sessions, messages, compactions, requests, findings).
    Export(cmd::export::Args),
}

fn main() -> ExitCode {
    // The one place the CLI's core learns the environment.
    palimpsest_core::env::install(palimpsest_core::env::Machine::new(
        dirs::home_dir(),
        dirs::cache_dir(),
        dirs::config_dir(),
        std::env::vars_os(),
    ));
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Sessions(a) => cmd::sessions::run(a),
        Command::Compactions(a) => cmd::compactions::run(a),
        Command::Lint(a) => cmd::lint::run(a),
        Command::Context(a) => cmd::context::run(a),
        Command::Show(a) => cmd::show::run(a),
        Command::Sources(a) => cmd::sources::run(a),
        Command::Watch(a) => cmd::watch::run(a),
        Command::Tokens(a) => cmd::tokens::run(a),
        Command::Diagnose(a) => cmd::diagnose::run(a),
        Command::Index(a) => cmd::index::run(a),
        Command::Search(a) => cmd::search::run(a),
        Command::Spills(a) => cmd::spills::run(a),
        Command::Replay(a) => cmd::replay::run(a),
        Command::Sweep(a) => cmd::sweep::run(a),
        Command::Tune(a) => cmd::tune::run(a),
        Command::Cap(a) => cmd::cap::run(a),
        Command::Report(a) => cmd::report::run(a),
        Command::Diff(a) => cmd::diff::run(a),
        Command::Export(a) => cmd::export::run(a),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            if output::is_broken_pipe(&err) {
                return ExitCode::SUCCESS;
            }
            eprintln!("palimpsest: {}", render(&err));
            ExitCode::from(2)
        }
    }
}

/// The error and its causes on one line, leaving out a cause whose text is already said (core's
/// errors name the file and quote the OS error, which is also their source).
fn render(err: &anyhow::Error) -> String {
    let mut out = String::new();
    for cause in err.chain() {
        let text = cause.to_string();
        if out.contains(&text) {
            continue;
        }
        if !out.is_empty() {
            out.push_str(": ");
        }
        out.push_str(&text);
    }
    out
}
