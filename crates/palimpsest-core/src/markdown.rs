//! A message, a summary or a whole compaction cut as Markdown, for pasting into a post-mortem:
//! the window's "Copy as Markdown" and `show --message N --markdown` / `compactions --cut N
//! --markdown` print the same text. Transcript text is put in fences longer than any backtick
//! run it holds, so nothing it contains can close them; assistant text, already Markdown, is
//! kept as written. Which messages a cut dropped and kept is [`crate::views::cuts`]'s.

use std::fmt::Write;

use serde_json::Value;

use crate::analysis::edits::{self, EditDiff, EditOp, LineOp};
use crate::model::{Message, MessageKind, Part, Role, Session};
use crate::views::cuts::CutDetail;

/// A dropped message's one-line preview is cut to this many characters.
const PREVIEW: usize = 100;

/// Message `m` whole: a heading with its index, role, kind, time and visibility, then each part.
pub fn message(m: &Message) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "### {}\n", heading(m));
    let _ = writeln!(out, "_{}_\n", visibility(m));
    if let Some(e) = &m.error {
        out.push_str(&fenced("text", &format!("error: {e}")));
    }
    let diffs = edits::of_message(m);
    for (i, p) in m.parts.iter().enumerate() {
        part(&mut out, m.role, p, diffs.iter().filter(|d| d.part == i));
    }
    out.trim_end().to_owned() + "\n"
}

/// A compaction's summary as the model receives it, under a heading naming the cut.
pub fn summary(c: &CutDetail) -> String {
    format!("## {} · summary\n\n{}", cut_title(c), summary_body(c))
}

fn summary_body(c: &CutDetail) -> String {
    match &c.summary_text {
        Some(s) => format!("{}\n", s.trim_end()),
        None => "_No summary message._\n".into(),
    }
}

/// A whole cut: what it dropped (one line per message), the summary, and what the model kept
/// verbatim (each message whole).
pub fn cut(session: &Session, c: &CutDetail) -> String {
    let a = &c.anatomy;
    let by_index = |i: usize| session.messages.iter().find(|m| m.index == i);
    let mut out = format!("## {}\n\n", cut_title(c));
    let tokens = |rec: Option<u64>, counted: u64| match rec {
        Some(t) => format!("{t} (recorded)"),
        None => format!("≈{counted}"),
    };
    let _ = writeln!(
        out,
        "Context {} → {} tokens, {} → {} messages.\n",
        tokens(a.pre_tokens, a.pre_tokens_counted),
        tokens(a.post_tokens, a.post_tokens_counted),
        a.context_before,
        a.context_after
    );
    let _ = writeln!(out, "### Dropped ({} messages)\n", c.dropped.len());
    for m in c.dropped.iter().filter_map(|&i| by_index(i)) {
        let _ = writeln!(out, "- #{} {}: {}", m.index, role(m.role), preview(m));
    }
    if !c.cleared.is_empty() {
        let _ = writeln!(out, "\n### Cleared tool results ({})\n", c.cleared.len());
        for r in &c.cleared {
            let tool = r.tool.as_deref().unwrap_or("tool");
            let paths = r.paths.join(", ");
            let _ = writeln!(
                out,
                "- #{} `{tool}` {paths} ≈{} tokens ({})",
                r.index, r.tokens_counted, r.call_id
            );
        }
        if let Some(t) = c.tokens_saved_recorded {
            let _ = writeln!(
                out,
                "\nTokens saved: {t} (recorded), ≈{} (counted).",
                c.tokens_saved_counted
            );
        }
    }
    out.push('\n');
    if c.cleared.is_empty() {
        out.push_str("### Summary\n\n");
        out.push_str(&summary_body(c));
        out.push('\n');
    }
    let _ = writeln!(out, "### Kept verbatim ({} messages)\n", c.kept.len());
    for m in c.kept.iter().filter_map(|&i| by_index(i)) {
        out.push_str(&message(m).replacen("### ", "#### ", 1));
        out.push('\n');
    }
    out.trim_end().to_owned() + "\n"
}

fn cut_title(c: &CutDetail) -> String {
    let a = &c.anatomy;
    let kind = if a.trigger == Some(crate::model::Trigger::Replacement) {
        "content replacement".into()
    } else if c.cleared.is_empty() {
        a.trigger
            .and_then(|t| serde_json::to_value(t).ok())
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_else(|| "compaction".into())
    } else {
        "microcompact".into()
    };
    format!("Cut {} · {kind} · at #{}", a.ordinal + 1, a.cut_index)
}

fn heading(m: &Message) -> String {
    let mut h = format!("#{} · {}", m.index, role(m.role));
    if m.kind != MessageKind::Ordinary {
        let kind = serde_json::to_value(m.kind).ok();
        let kind = kind.as_ref().and_then(Value::as_str).unwrap_or("other");
        let _ = write!(h, " · {}", kind.replace('_', " "));
    }
    if let Some(t) = m.created.and_then(chrono::DateTime::from_timestamp_millis) {
        let _ = write!(h, " · {}", t.format("%Y-%m-%d %H:%M:%S UTC"));
    }
    h
}

fn role(r: Role) -> &'static str {
    match r {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
    }
}

fn visibility(m: &Message) -> &'static str {
    match (m.agent_visible, m.user_visible) {
        (true, true) => "the model and the user see it",
        (true, false) => "the model sees it; hidden from the user",
        (false, true) => "hidden from the model; the user sees it",
        (false, false) => "hidden from the model and the user",
    }
}

fn part<'d>(out: &mut String, r: Role, p: &Part, diffs: impl Iterator<Item = &'d EditDiff>) {
    match p {
        // The model writes Markdown; everyone else's text is shown as written.
        Part::Text { text } if r == Role::Assistant => {
            out.push_str(text.trim_end());
            out.push_str("\n\n");
        }
        Part::Text { text } => out.push_str(&fenced("text", text)),
        Part::Thinking { text, redacted } => {
            out.push_str(if *redacted {
                "**Thinking** (redacted)\n\n"
            } else {
                "**Thinking**\n\n"
            });
            for line in text.trim_end().lines() {
                let _ = writeln!(out, "> {line}");
            }
            out.push('\n');
        }
        Part::ToolCall {
            id,
            name,
            arguments,
        } => {
            let _ = writeln!(out, "**Tool call** `{name}` ({id})\n");
            let diffs: Vec<&EditDiff> = diffs.collect();
            if diffs.is_empty() {
                let args = serde_json::to_string_pretty(arguments).unwrap_or_default();
                out.push_str(&fenced("json", &args));
            }
            for d in diffs {
                out.push_str(&fenced("diff", &unified(d)));
            }
        }
        Part::ToolResult {
            call_id,
            text,
            is_error,
            ..
        } => {
            let what = if *is_error {
                "Tool error"
            } else {
                "Tool result"
            };
            let _ = writeln!(out, "**{what}** ({call_id})\n");
            out.push_str(&fenced("text", &text.text()));
        }
        Part::Image { mime, size } => {
            let _ = writeln!(out, "_[image: {mime}, {size} bytes]_\n");
        }
        Part::Other { original_type, raw } => {
            let _ = writeln!(out, "**{original_type}**\n");
            let raw = serde_json::to_string_pretty(raw).unwrap_or_default();
            out.push_str(&fenced("json", &raw));
        }
    }
}

/// An edit as a unified diff (hunk headers are the edit's own, not file line numbers).
fn unified(d: &EditDiff) -> String {
    let (from, to) = match d.op {
        EditOp::Write => ("/dev/null".to_owned(), d.path.clone()),
        EditOp::Delete => (d.path.clone(), "/dev/null".to_owned()),
        EditOp::Edit => (d.path.clone(), d.moved_to.clone().unwrap_or(d.path.clone())),
    };
    let mut s = format!("--- {from}\n+++ {to}\n");
    for h in &d.hunks {
        match &h.header {
            Some(head) => {
                let _ = writeln!(s, "@@ {head} @@");
            }
            None => s.push_str("@@\n"),
        }
        for l in &h.lines {
            let sign = match l.op {
                LineOp::Add => '+',
                LineOp::Remove => '-',
                LineOp::Context => ' ',
            };
            let _ = writeln!(s, "{sign}{}", l.text);
        }
    }
    s
}

/// `text` in a fence of backticks one longer than its longest run (at least three).
fn fenced(lang: &str, text: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat((longest + 1).max(3));
    format!(
        "{fence}{lang}\n{}\n{fence}\n\n",
        text.trim_end_matches('\n')
    )
}

/// The first line of a message's first readable part, cut to [`PREVIEW`] characters.
fn preview(m: &Message) -> String {
    let text = m.parts.iter().find_map(|p| match p {
        Part::Text { text } | Part::Thinking { text, .. } if !text.trim().is_empty() => {
            Some(text.clone())
        }
        Part::ToolCall { name, .. } => Some(format!("[{name}]")),
        Part::ToolResult { text, .. } if text.text().trim().is_empty() => {
            Some("[empty result]".into())
        }
        Part::ToolResult { text, .. } => Some(format!("[result] {text}")),
        _ => None,
    });
    let line = text.unwrap_or_default();
    let line = line.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let mut s: String = line.chars().take(PREVIEW).collect();
    if line.chars().count() > PREVIEW {
        s.push('…');
    }
    s.replace('`', "'")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fence_outlasts_every_backtick_run_inside() {
        let f = fenced("text", "a ```` b");
        assert!(
            f.starts_with("`````text\n") && f.ends_with("\n`````\n\n"),
            "five backticks around a run of four: {f}"
        );
        assert_eq!(fenced("", "x"), "```\nx\n```\n\n", "three at least");
    }
}
