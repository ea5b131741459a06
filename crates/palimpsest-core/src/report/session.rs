//! One session of a report, section by section (verdict and findings, cuts, tokens, pairing,
//! spills, timeline), and the fleet table. Every message is anchored `<session>-m<index>` in
//! the timeline, so each finding links to the messages that prove it.

use std::fmt::Write;

use super::ReportOptions;
use super::html::{esc, msg_link, msg_links, preview, session_anchor, svg_img};
use crate::analysis::{Fleet, Severity};
use crate::error::Result;
use crate::model::Session;
use crate::views::cuts::SessionCuts;

fn severity(s: Severity) -> (&'static str, &'static str) {
    match s {
        Severity::Stuck => ("stuck", "sev-stuck"),
        Severity::Watch => ("watch", "sev-watch"),
        Severity::Ok => ("ok", "sev-ok"),
    }
}

fn name<T: serde::Serialize>(v: T) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
        .replace('_', " ")
}

/// The fleet table, stuck first, each row linking to its session's section.
pub fn fleet_table(f: &Fleet) -> String {
    let mut out = String::from(
        "<table class=\"fleet\"><tr><th>severity</th><th>session</th><th>format</th>\
         <th>compactions</th><th>re-read rate</th><th>cost</th><th>verdict</th></tr>",
    );
    for (k, r) in f.sessions.iter().enumerate() {
        let (label, class) = severity(r.severity);
        let _ = write!(
            out,
            "<tr><td><span class=\"sev {class}\">{label}</span></td><td><a href=\"#{}\">{}</a><br>\
             <span class=\"muted small\">{}</span></td><td>{}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{:.0} %</td><td class=\"num\">{}</td><td>{}</td></tr>",
            row_anchor(k, &r.session_id),
            esc(&r.title),
            esc(&r.session_id),
            esc(&r.format),
            r.compactions,
            r.reread_rate * 100.0,
            r.cost_usd.map_or("–".into(), |c| format!("${c:.2}")),
            esc(&r.verdict)
        );
    }
    out.push_str("</table>");
    out
}

/// The anchor of row `k` of a fleet table (ids repeat across sources: the row number tells
/// them apart).
pub fn row_anchor(k: usize, id: &str) -> String {
    session_anchor(&format!("{}-{id}", k + 1))
}

/// The stand-in for a session a fleet report has no room for: its row's facts and the command
/// that reports it on its own.
pub fn left_out(r: &crate::analysis::FleetRow, at: &str) -> String {
    format!(
        "<section id=\"{at}\"><h2>{}</h2><p class=\"muted\">Left out of this page for its size; \
         its own report: <code>palimpsest report {} --session {} -o report.html</code></p></section>",
        esc(&r.title),
        esc(&shell_word(&r.path)),
        esc(&shell_word(&r.session_id))
    )
}

/// `s` as one shell word: quoted when it holds anything but plain path characters.
fn shell_word(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+:@".contains(c))
    {
        s.to_owned()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// One session's section, anchored `at`; `whole` when it is the report's only one (an `h1`).
pub fn section(s: &Session, o: &ReportOptions, at: &str, whole: bool) -> Result<String> {
    let d = crate::api::diagnose(s, &o.diagnose)?;
    let mut out = String::new();
    let (label, class) = severity(d.severity);
    let h = if whole { "h1" } else { "h2" };
    let _ = write!(
        out,
        "<section id=\"{at}\"><{h}>{}</{h}><p class=\"muted\">{} · {} · {} messages · {} \
         compactions · <code>{}</code></p><p><span class=\"sev {class}\">{label}</span> {}</p>",
        esc(&s.meta.name),
        esc(&s.meta.id),
        esc(s.meta.format.as_str()),
        s.messages.len(),
        s.compactions.len(),
        esc(&s.meta.path),
        esc(&d.verdict)
    );
    findings(&mut out, at, &d);
    // One cut view for the cuts and the pairing sections (anatomy and lint are not cheap).
    let cache = o
        .token_cache
        .as_deref()
        .and_then(crate::tokens::TokenCache::existing);
    let counts = crate::api::session_counts(s, cache.as_ref());
    let view = crate::api::session_cuts(s, counts.as_ref());
    cuts(&mut out, at, s, &view);
    tokens(&mut out, s, o);
    pairing(&mut out, at, &view);
    spills(&mut out, at, s, o);
    timeline(&mut out, at, s, o.bodies);
    out.push_str("</section>");
    Ok(out)
}

fn findings(out: &mut String, at: &str, d: &crate::analysis::Diagnosis) {
    out.push_str("<h3>Findings</h3>");
    if d.findings.is_empty() {
        out.push_str("<p class=\"muted\">No sign of a stuck worker.</p>");
    } else {
        out.push_str("<ul>");
        for f in &d.findings {
            let _ = write!(out, "<li>{}</li>", esc(f));
        }
        out.push_str("</ul>");
    }
    let rows: Vec<(String, String)> = d
        .rereads
        .iter()
        .filter(|f| f.rereads > 0)
        .map(|f| {
            (
                format!(
                    "re-read <code>{}</code>: {} of {} reads, {} after a compaction",
                    esc(&f.path),
                    f.rereads,
                    f.reads,
                    f.after_compaction
                ),
                msg_links(at, &f.reread_messages, 12),
            )
        })
        .chain(
            d.loops
                .iter()
                .map(|l| (esc(&l.description), msg_links(at, &l.messages, 12))),
        )
        .chain(d.spill_loops.iter().map(|l| {
            (
                format!(
                    "spill loop on <code>{}</code>: {} re-spilled",
                    esc(&l.origin),
                    l.respilled
                ),
                msg_links(at, &l.messages, 12),
            )
        }))
        .chain(
            d.thrash
                .iter()
                .map(|t| (esc(&t.description), msg_links(at, &t.error_messages, 12))),
        )
        .collect();
    evidence(out, "Evidence", &rows, false);
    let lost: Vec<(String, String)> = d
        .summary_losses
        .iter()
        .map(|l| {
            (
                format!(
                    "compaction {} lost {} <code>{}</code>",
                    l.compaction,
                    name(l.kind),
                    esc(&l.value)
                ),
                msg_links(at, &l.messages, 6),
            )
        })
        .collect();
    evidence(
        out,
        &format!("What the summaries lost ({})", lost.len()),
        &lost,
        true,
    );
}

/// A table of (what, message links); folded under its title when `fold`.
fn evidence(out: &mut String, title: &str, rows: &[(String, String)], fold: bool) {
    if rows.is_empty() {
        return;
    }
    if fold {
        let _ = write!(out, "<details><summary>{}</summary>", esc(title));
    }
    out.push_str("<table><tr><th>evidence</th><th>messages</th></tr>");
    for (what, links) in rows {
        let _ = write!(out, "<tr><td>{what}</td><td>{links}</td></tr>");
    }
    out.push_str("</table>");
    if fold {
        out.push_str("</details>");
    }
}

fn cuts(out: &mut String, at: &str, s: &Session, view: &SessionCuts) {
    if view.cuts.is_empty() {
        return;
    }
    out.push_str("<h3>Compactions</h3>");
    let line = |i: usize| {
        s.messages.get(i).map_or(String::new(), |m| {
            format!("{} {}", msg_link(at, i), content(m, 80))
        })
    };
    for (k, c) in view.cuts.iter().enumerate() {
        let a = &c.anatomy;
        let tokens = match (a.pre_tokens, a.post_tokens) {
            (Some(p), Some(q)) => format!("{p} → {q} tokens"),
            _ => format!(
                "≈{} → ≈{} tokens",
                a.pre_tokens_counted, a.post_tokens_counted
            ),
        };
        let _ = write!(
            out,
            "<h4 id=\"{at}-cut{}\">Cut {} · {} · {tokens} · at {}</h4><div class=\"cut\">",
            k + 1,
            k + 1,
            a.trigger.map_or("trigger not recorded".into(), name),
            msg_link(at, a.cut_index)
        );
        let list = |title: &str, items: &[usize]| {
            let mut h = format!("<div><h4>{title} ({})</h4><ul>", items.len());
            for &i in items.iter().take(40) {
                let _ = write!(h, "<li>{}</li>", line(i));
            }
            if items.len() > 40 {
                let _ = write!(h, "<li class=\"muted\">… {} more</li>", items.len() - 40);
            }
            h.push_str("</ul></div>");
            h
        };
        let dropped: Vec<usize> = if c.cleared.is_empty() {
            c.dropped.clone()
        } else {
            c.cleared.iter().map(|r| r.index).collect()
        };
        let title = if c.cleared.is_empty() {
            "Dropped"
        } else {
            "Cleared"
        };
        out.push_str(&list(title, &dropped));
        let _ = write!(
            out,
            "<div><h4>Summary</h4><pre>{}</pre></div>",
            c.summary_text.as_deref().map_or("(no summary)".into(), esc)
        );
        out.push_str(&list("Kept verbatim", &c.kept));
        out.push_str("</div>");
        if !c.files.is_empty() {
            out.push_str("<ul class=\"small\">");
            for f in &c.files {
                let _ = write!(out, "<li>{}</li>", esc(&f.sentence));
            }
            out.push_str("</ul>");
        }
    }
}

fn tokens(out: &mut String, s: &Session, o: &ReportOptions) {
    let opts = crate::api::TokenOptions {
        cache_dir: o.token_cache.clone(),
        ..Default::default()
    };
    let never = std::sync::atomic::AtomicBool::new(false);
    let Ok(report) = crate::api::token_report(s, &opts, &mut |_| {}, &never) else {
        return;
    };
    let Ok(c) = crate::api::token_charts(&report, crate::charts::ThemeName::Light) else {
        return;
    };
    let _ = write!(
        out,
        "<h3>Tokens ({})</h3><div class=\"charts\">{}{}{}{}</div>",
        esc(&report.encoding),
        svg_img(&c.final_context, "Share of the final context by category"),
        svg_img(&c.processed, "Share of everything processed by category"),
        svg_img(
            &c.per_request,
            "Context per request, compaction cuts dashed"
        ),
        svg_img(&c.top_tools, "Top tools by tokens")
    );
}

fn pairing(out: &mut String, at: &str, view: &SessionCuts) {
    let findings: Vec<&crate::compaction::Finding> =
        view.lint.iter().flat_map(|l| l.findings.iter()).collect();
    if findings.is_empty() {
        return;
    }
    out.push_str(
        "<h3>Requests where pairing broke</h3><table><tr><th>finding</th><th>message</th>\
         <th>requests</th><th>provider</th><th>error</th></tr>",
    );
    for f in findings {
        let _ = write!(
            out,
            "<tr><td>{} <code>{}</code></td><td>{}</td><td>{}–{}</td><td>{}</td><td><pre>{}</pre></td></tr>",
            name(f.kind),
            esc(&f.call_id),
            msg_link(at, f.message_index),
            f.first_request.map_or("?".into(), |n| n.to_string()),
            f.last_request.map_or("?".into(), |n| n.to_string()),
            f.api.as_str(),
            f.error_text
                .as_deref()
                .map_or("(no documented error text)".into(), esc)
        );
    }
    out.push_str("</table>");
}

fn spills(out: &mut String, at: &str, s: &Session, o: &ReportOptions) {
    let Ok(review) = crate::api::spills(s, &o.diagnose) else {
        return;
    };
    if review.spills.is_empty() {
        return;
    }
    out.push_str(
        "<h3>Spill files</h3><table><tr><th>file</th><th>status</th><th>size</th><th>named by</th></tr>",
    );
    for e in &review.spills {
        let _ = write!(
            out,
            "<tr><td><code>{}</code></td><td>{}</td><td class=\"num\">{}</td><td>{}</td></tr>",
            esc(e.path.as_deref().unwrap_or("(not saved)")),
            name(e.status),
            e.size_bytes.map_or("–".into(), |b| format!("{b} B")),
            e.message_index.map_or(String::new(), |i| msg_link(at, i))
        );
    }
    out.push_str("</table>");
}

fn timeline(out: &mut String, at: &str, s: &Session, bodies: bool) {
    out.push_str(
        "<h3>Timeline</h3><p class=\"muted small\">model: the message is in what the model \
         receives next; user: the agent's own UI shows it.</p><table><tr><th>#</th><th>role</th>\
         <th>kind</th><th>model</th><th>user</th><th>content</th></tr>",
    );
    for m in &s.messages {
        let text = m.text();
        let summary = content(m, 160);
        let content = if bodies && text.chars().count() > 160 {
            format!(
                "<details><summary>{summary}</summary><pre>{}</pre></details>",
                esc(&text)
            )
        } else {
            summary
        };
        let _ = write!(
            out,
            "<tr id=\"{at}-m{}\"{}><td class=\"num\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{content}</td></tr>",
            m.index,
            if m.agent_visible {
                ""
            } else {
                " class=\"hidden-model\""
            },
            m.index,
            name(m.role),
            name(m.kind),
            if m.agent_visible { "✓" } else { "–" },
            if m.user_visible { "✓" } else { "–" },
        );
    }
    out.push_str("</table>");
}

/// A message in one line: its text, else what it holds (a call and its tool, a result).
fn content(m: &crate::model::Message, n: usize) -> String {
    use crate::model::Part;
    let text = m.text();
    if !text.is_empty() {
        return preview(&text, n);
    }
    let parts: Vec<String> = m
        .parts
        .iter()
        .map(|p| match p {
            Part::ToolCall {
                name, arguments, ..
            } => format!("{name} {arguments}"),
            Part::ToolResult { text, .. } => format!("→ {text}"),
            other => other.type_name().to_owned(),
        })
        .collect();
    preview(&parts.join(" · "), n)
}
