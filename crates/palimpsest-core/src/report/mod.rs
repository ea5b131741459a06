//! Post-mortem reports to share: one self-contained HTML file (no network, no script, a strict
//! Content-Security-Policy, every piece of transcript text escaped) holding what the window
//! shows of a session — verdict and findings linked to the messages that prove them, each cut
//! as dropped | summary | kept verbatim with the files' fates, the token charts, the requests
//! where pairing broke with the providers' errors, the spill list and the timeline with both
//! visibility marks. On a folder, the fleet table first, each row linking to its session, and
//! when asked the fleet tuned (`tune`), its recommendation linking to the sessions that gain.
//!
//! The facts come from `api` (diagnosis, cut views, tokens, spills); `html` is the page, and
//! `session` lays one session out. Writing the file is the front end's.

mod html;
mod session;
mod tune;

use std::path::Path;

use crate::api::DiagnoseOptions;
use crate::error::Result;
use crate::model::Session;

pub use html::{CSP, esc};

/// What a report holds beyond the defaults.
#[derive(Debug, Clone, Default)]
pub struct ReportOptions {
    /// Every message's whole text (folded), not only a preview.
    pub bodies: bool,
    /// How sessions are diagnosed (spill roots and patterns, prices).
    pub diagnose: DiagnoseOptions,
    /// The token count cache, when there is one (the charts count every message).
    pub token_cache: Option<std::path::PathBuf>,
    /// Bytes of whole sessions a fleet report holds; `None`: [`FLEET_SECTIONS_BYTES`].
    pub fleet_bytes: Option<usize>,
    /// The fleet tuned (`api::tune`), laid out after a fleet report's table.
    pub tune: Option<crate::api::TuneView>,
}

/// Write `html` to `to`, which must be an `.html` file: a report never lands anywhere else
/// (never over a session file). Returns the path written.
pub fn write(to: &Path, html: &str) -> Result<String> {
    let ext = to
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    if !matches!(ext.as_deref(), Some("html" | "htm")) {
        return Err(crate::error::Error::format(
            to,
            "a report is written to an .html file only",
        ));
    }
    std::fs::write(to, html).map_err(|e| crate::error::Error::io(to, e))?;
    Ok(to.display().to_string())
}

/// A report of one loaded session.
pub fn session_report(s: &Session, o: &ReportOptions) -> Result<String> {
    let body = session::section(s, o, &html::session_anchor(&s.meta.id), true)?;
    Ok(html::page(
        &format!("{} — Palimpsest post-mortem", s.meta.name),
        &body,
    ))
}

/// How much of a fleet report is whole sessions: past this many bytes of page, the rest of the
/// sessions (the least severe: the table is stuck first) get a line saying how to report each
/// on its own. A 5 000-session fleet in full was a 407 MB page no browser opens.
pub const FLEET_SECTIONS_BYTES: usize = 32 << 20;

/// A report of every session under `path`: the fleet table, then each session's section (as
/// many as [`FLEET_SECTIONS_BYTES`] holds, most severe first; a line for each of the rest).
pub fn fleet_report(path: &Path, o: &ReportOptions) -> Result<String> {
    use std::fmt::Write;
    let fleet = crate::api::diagnose_fleet(path, &o.diagnose)?;
    let mut body = String::new();
    let t = &fleet.totals;
    let _ = write!(
        body,
        "<h1>Fleet post-mortem: {}</h1><p>{} sessions: <span class=\"sev sev-stuck\">{} stuck</span> \
         <span class=\"sev sev-watch\">{} to watch</span> <span class=\"sev sev-ok\">{} ok</span></p>",
        html::esc(&path.display().to_string()),
        fleet.sessions.len(),
        t.stuck_sessions,
        t.watch_sessions,
        t.ok_sessions
    );
    body.push_str(&session::fleet_table(&fleet));
    if let Some(v) = &o.tune {
        let same = |a: &str, b: &str| {
            a == b || Path::new(a).canonicalize().ok() == Path::new(b).canonicalize().ok()
        };
        let anchor = |path: &str, id: &str| {
            fleet
                .sessions
                .iter()
                .position(|r| r.session_id == id && same(&r.path, path))
                .map(|k| session::row_anchor(k, id))
        };
        body.push_str(&tune::section(v, &anchor));
    }
    for p in &fleet.problems {
        let _ = write!(body, "<p class=\"muted\">{}</p>", html::esc(&p.message));
    }
    let budget = o.fleet_bytes.unwrap_or(FLEET_SECTIONS_BYTES);
    let mut left_out = 0;
    for (k, row) in fleet.sessions.iter().enumerate() {
        let at = session::row_anchor(k, &row.session_id);
        if body.len() > budget {
            left_out += 1;
            body.push_str(&session::left_out(row, &at));
            continue;
        }
        match crate::api::load_session(Path::new(&row.path), Some(&row.session_id)) {
            Ok(s) => body.push_str(&session::section(&s, o, &at, false)?),
            Err(e) => {
                let _ = write!(body, "<p class=\"muted\">{}</p>", html::esc(&e.to_string()));
            }
        }
    }
    if left_out > 0 {
        let _ = write!(
            body,
            "<p class=\"muted\">{left_out} of {} sessions are listed, not laid out: the page \
             holds about {} MiB of sessions, the most severe first.</p>",
            fleet.sessions.len(),
            budget >> 20
        );
    }
    Ok(html::page(
        &format!("{} — Palimpsest fleet post-mortem", path.display()),
        &body,
    ))
}
