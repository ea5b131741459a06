//! The fleet report's tuning section (`report DIR --tune`): the table `tune` prints — each
//! setting's re-reads spared, tokens carried and price, compactions, storms, requests past the
//! window and orphans, the Pareto front and its knee marked — then the recommendation with the
//! sessions that gain most, each linked to its section of the page and naming the re-read it
//! would be spared. Tuning is `api::tune`'s; the page, `html`'s.

use std::fmt::Write;

use super::html::esc;
use crate::api::TuneView;

/// The section; `anchor` gives the page anchor of a session (by file and id) when it has one.
pub(super) fn section(v: &TuneView, anchor: &dyn Fn(&str, &str) -> Option<String>) -> String {
    let t = &v.tune;
    let mut out = String::new();
    let _ = write!(
        out,
        "<section id=\"tuning\"><h2>Tuning</h2><p>{} sessions replayed under {} settings of \
         {}; {} re-reads after a compaction recorded. <b>◆</b> marks the knee of the Pareto \
         front (<b>*</b>) of re-reads spared against tokens carried; a setting that orphans a \
         tool result is never on it.</p>",
        t.sessions.len(),
        t.settings.len(),
        t.policy.as_str(),
        t.recorded
    );
    out.push_str(
        "<table class=\"fleet\"><tr><th></th><th>setting</th><th>spared</th>\
         <th>tokens carried</th><th>≈ $</th><th>compactions</th><th>storms</th>\
         <th>over window</th><th>orphans</th></tr>",
    );
    for (k, s) in t.settings.iter().enumerate() {
        let mark = if t.knee == Some(k) {
            "◆"
        } else if t.front.contains(&k) {
            "*"
        } else {
            ""
        };
        let usd = s.usd.map_or_else(|| "-".to_owned(), |u| format!("{u:.2}"));
        let _ = write!(
            out,
            "<tr><td>{mark}</td><td>{}</td><td>{}</td><td>{}</td><td>{usd}</td><td>{}</td>\
             <td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(&s.label),
            s.avoided,
            s.tokens_carried,
            s.compactions,
            s.storms,
            s.over_window,
            s.orphans
        );
    }
    out.push_str("</table>");
    match t.knee.map(|k| &t.settings[k]) {
        _ if t.recorded == 0 => out.push_str(
            "<p>No re-read after a compaction recorded: no setting has one to spare.</p>",
        ),
        None => out.push_str(
            "<p>No recommendation: every setting leaves a tool result without its call.</p>",
        ),
        Some(s) => {
            let _ = write!(
                out,
                "<p>Recommended: <b>{}</b> — spares {} of {} re-reads after a compaction \
                 ({} tokens re-read).</p><ul>",
                esc(&s.label),
                s.avoided,
                t.recorded,
                s.avoided_tokens
            );
            for g in &s.gaining {
                let name = esc(&g.name);
                let name = match anchor(&g.path, &g.session_id) {
                    Some(a) => format!("<a href=\"#{a}\">{name}</a>"),
                    None => name,
                };
                let _ = write!(
                    out,
                    "<li>{name}: {} re-read{} spared, the first of <code>{}</code> at message \
                     {} (read at {})</li>",
                    g.avoided,
                    if g.avoided == 1 { "" } else { "s" },
                    esc(&g.first.path),
                    g.first.call_index,
                    g.first.previous_index
                );
            }
            out.push_str("</ul>");
        }
    }
    for p in &v.problems {
        let _ = write!(out, "<p class=\"muted\">{}</p>", esc(&p.message));
    }
    out.push_str("</section>");
    out
}
