//! `palimpsest show PATH [--session ID] [--view all|agent|user] [--json]`: one session's
//! messages with their visibility, as the app's timeline shows them. `--rows` prints the
//! timeline's compact rows instead (`show_rows`), from the index with `--index`; `--message N`
//! prints one message whole, as Markdown, or with `--json` as the inspector gets it (with its
//! edit diffs).

use std::io::Write;
use std::process::ExitCode;

use palimpsest_core::model::{Message, Part, View};
use palimpsest_core::service::Messages;
use serde::Serialize;

/// Arguments of `show`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    target: super::Target,
    /// Which messages: all stored, what the model sees, or what the user sees.
    #[arg(long, value_enum, default_value = "all")]
    view: ViewArg,
    /// Print JSON: {"session": {...}, "messages": [...]}; with --rows the window's timeline:
    /// {"meta", "rows", "compactions", "from_index"}.
    #[arg(long)]
    json: bool,
    /// The compact rows the window's timeline draws (role, kind, visibility, part previews
    /// and sizes), not the whole messages.
    #[arg(long)]
    rows: bool,
    /// With --rows: from the fleet index when it holds the session with its file unchanged
    /// (nothing read but the file's size, time and edges); else from the file, as without it.
    /// With --message: the message read by its records' byte offsets (Claude Code), the rest
    /// of the file untouched.
    #[arg(long)]
    index: bool,
    /// The index file for --index (default `$XDG_CACHE_HOME/palimpsest/index.db`).
    #[arg(long, value_name = "FILE", requires = "index")]
    index_file: Option<std::path::PathBuf>,
    /// Read the file even when the fleet index holds it as it is (by default a transcript the
    /// index holds is printed message by message from it, each read by its byte offsets).
    #[arg(long, conflicts_with = "index")]
    no_index: bool,
    /// One message whole, by its stored index: as Markdown (what the window's "Copy as
    /// Markdown" copies), or with --json as the inspector gets it: {message, raw, edits}.
    #[arg(long, value_name = "N", conflicts_with = "rows")]
    message: Option<usize>,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum ViewArg {
    All,
    Agent,
    User,
}

impl From<ViewArg> for View {
    fn from(v: ViewArg) -> Self {
        match v {
            ViewArg::All => View::All,
            ViewArg::Agent => View::Agent,
            ViewArg::User => View::User,
        }
    }
}

#[derive(Serialize)]
struct Shown<'a> {
    session: &'a palimpsest_core::model::SessionMeta,
    messages: Vec<&'a Message>,
}

/// Run `show`.
pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let view = View::from(a.view);
    if a.rows {
        let index = a.index.then_some(a.index_file.as_deref());
        return super::show_rows::run(&a.target, view, a.json, index);
    }
    if let Some(n) = a.message {
        let index = a.index.then_some(a.index_file.as_deref());
        return super::show_message::run(&a.target, n, a.json, index);
    }
    if a.index {
        anyhow::bail!("--index goes with --rows or --message");
    }
    // A transcript the index holds as it is: printed one message at a time, each read by its
    // offsets, so a 200 MB transcript is not held whole. Only an index that exists is asked.
    let s = a.target.serve(super::existing_unless(a.no_index), "show")?;
    let session = match s.answer(s.svc.messages(&s.path, &s.id))? {
        Messages::Stored(stored) => return super::show_stream::run(*stored, view, a.json),
        Messages::Loaded(session) => session,
    };
    let messages: Vec<&Message> = session.view(view).collect();
    if a.json {
        crate::output::json(&Shown {
            session: &session.meta,
            messages,
        })?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = crate::output::stdout();
    heading(&mut out, &session.meta)?;
    for m in messages {
        line(&mut out, m)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The text view's first line: the session's name, id and format.
pub(super) fn heading(
    out: &mut impl Write,
    meta: &palimpsest_core::model::SessionMeta,
) -> std::io::Result<()> {
    writeln!(
        out,
        "{} ({}) — {}",
        meta.name,
        meta.id,
        meta.format.as_str()
    )
}

/// One message of the text view: index, who sees it, role, kind and a preview.
pub(super) fn line(out: &mut impl Write, m: &Message) -> std::io::Result<()> {
    let eyes = format!(
        "{}{}",
        if m.agent_visible { "M" } else { "-" },
        if m.user_visible { "U" } else { "-" }
    );
    writeln!(
        out,
        "[{:>5}] {eyes} {:<9} {:<14} {}",
        m.index,
        role(m),
        kind(m),
        preview(m)
    )
}

fn role(m: &Message) -> String {
    serde_json::to_value(m.role)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

fn kind(m: &Message) -> String {
    serde_json::to_value(m.kind)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

fn preview(m: &Message) -> String {
    if let Some(e) = &m.error {
        return format!("ERROR {e}");
    }
    let parts: Vec<String> = m
        .parts
        .iter()
        .map(|p| match p {
            Part::Text { text } => one_line(text, 80),
            Part::Thinking { text, redacted } => {
                if *redacted {
                    "(redacted thinking)".into()
                } else {
                    format!("(thinking) {}", one_line(text, 40))
                }
            }
            Part::ToolCall {
                name, arguments, ..
            } => format!("{name} {}", one_line(&arguments.to_string(), 60)),
            Part::ToolResult { text, is_error, .. } => format!(
                "{}→ {} ({} B)",
                if *is_error { "ERR " } else { "" },
                one_line(&text.text(), 50),
                text.len()
            ),
            Part::Image { mime, size } => format!("[image {mime} {size} B]"),
            Part::Other { original_type, .. } => format!("[{original_type}]"),
        })
        .collect();
    parts.join(" | ")
}

fn one_line(s: &str, max: usize) -> String {
    let flat: String = s
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if flat.chars().count() > max {
        let cut: String = flat.chars().take(max).collect();
        format!("{cut}…")
    } else {
        flat
    }
}
