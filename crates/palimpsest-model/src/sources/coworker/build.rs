//! From stored coworker messages to the session's timeline: notices hidden from the model, the
//! compacted blocks rebuilt and inserted where the model received them, the span before the
//! latest boundary hidden from the model, and cap markers linked to their spill files.
//!
//! **Where a block goes.** coworker sends `[system] + block(latest) + messages[boundary:]`, so
//! each compaction's block is inserted as a synthetic `Summary` message (role user, shown by
//! coworker's UI as the notice instead, so not user-visible) right before the stored message at
//! its `boundary_index`. The agent view is then exactly what the model receives. Only the latest
//! block is agent-visible. A trim is a compaction without summary: its record has no
//! `summary_index`, but its block (the prior summary plus the trim note) is inserted all the same.
//!
//! **When it applies.** The block sits at the boundary, but coworker compacts when it writes the
//! `compacted` notice, later: the messages between the boundary and the notice were answered
//! with the old context. The record's `applied_index` is the notice's position, so
//! `compaction::Eras` dates the block and the drop from there (it does the dating, not this).

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::block::CompactionState;
use super::cap::{CapMarker, spill_markers_in_value};
use crate::model::{CompactionRecord, LinkKind, Message, MessageKind, Part, Role, Trigger};
use crate::sources::message_log::convert::{convert, push_link};

/// One stored message: its value, or why it could not be read (with its raw text).
#[derive(Debug)]
pub struct Entry {
    /// 1-based line (JSONL) or element number (JSON array).
    pub line: usize,
    /// The value, or (error naming file and line, raw text).
    pub value: Result<Value, (String, String)>,
}

/// What the builder needs besides the messages.
#[derive(Debug, Default)]
pub struct Context<'a> {
    /// The file the entries came from, for error messages.
    pub file: PathBuf,
    /// Folders a spill file may be found in when its recorded path is gone (the session's
    /// `tool-output/` under each known scratch base, or a headless run's `out/tool-output`).
    pub spill_dirs: Vec<PathBuf>,
    /// The `sessions.compaction` column, when there is one.
    pub column: Option<&'a Value>,
}

/// The built timeline.
#[derive(Debug, Default)]
pub struct Built {
    /// Every message, synthetic blocks included, indexed in order.
    pub messages: Vec<Message>,
    /// One record per compaction.
    pub compactions: Vec<CompactionRecord>,
    /// For each message, the entry it came from (`None` for a synthetic block).
    pub origin: Vec<Option<usize>>,
    /// For each synthetic block, the raw record it was rebuilt from.
    pub block_raw: Vec<(usize, Value)>,
}

/// A compaction found in the stored data.
struct Found {
    state: CompactionState,
    raw: Value,
    notice: Option<usize>,
}

/// Build the timeline from the stored entries.
pub fn build(entries: &[Entry], ctx: &Context) -> Built {
    let mut stored: Vec<Message> = entries
        .iter()
        .enumerate()
        .map(|(i, e)| message(i, e, ctx))
        .collect();
    let n = stored.len();
    let mut found: Vec<Found> = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        let Ok(v) = &e.value else { continue };
        if v.get("role").and_then(Value::as_str) != Some("notice")
            || v.get("kind").and_then(Value::as_str) != Some("compacted")
        {
            continue;
        }
        let Some(raw) = v.get("compaction") else {
            continue;
        };
        match CompactionState::from_value(raw) {
            Ok(Some(state)) => found.push(Found {
                state,
                raw: raw.clone(),
                notice: Some(i),
            }),
            Ok(None) => {}
            Err(why) => stored[i].error = Some(line_error(ctx, e.line, why)),
        }
    }
    if let Some(col) = ctx.column
        && let Ok(Some(state)) = CompactionState::from_value(col)
        && !found.iter().any(|f| same(&f.state, &state))
    {
        found.push(Found {
            state,
            raw: col.clone(),
            notice: None,
        });
    }
    // The latest compaction is the last one applied; coworker's outbound view skips a
    // boundary outside (0, len).
    let applies = |s: &CompactionState| s.boundary_index > 0 && s.boundary_index < n;
    let latest = found.iter().rposition(|f| applies(&f.state));
    let cut = latest.map_or(0, |l| found[l].state.boundary_index);

    let mut out = Built::default();
    // For each record pushed while building, the compaction it came from.
    let mut record_of: Vec<usize> = Vec::new();
    for (j, mut m) in stored.into_iter().enumerate() {
        for (k, f) in found.iter().enumerate() {
            if f.state.boundary_index == j && applies(&f.state) {
                let idx = out.messages.len();
                out.messages.push(block_message(idx, f, Some(k) == latest));
                out.origin.push(None);
                out.block_raw.push((idx, f.raw.clone()));
                out.compactions.push(record(idx, f));
                record_of.push(k);
            }
        }
        let leading_system = j == 0 && m.role == Role::System && m.kind == MessageKind::Ordinary;
        if j < cut && !leading_system {
            m.agent_visible = false;
        }
        if m.role == Role::System && m.kind == MessageKind::Ordinary {
            // coworker's UI never shows its instructions.
            m.user_visible = false;
        }
        m.index = out.messages.len();
        out.messages.push(m);
        out.origin.push(Some(j));
    }
    // An applied compaction took effect at its notice. A record known only from the
    // `sessions.compaction` column has no notice to date it, so it counts from its cut.
    for (r, &k) in out.compactions.iter_mut().zip(&record_of) {
        r.applied_index = found[k]
            .notice
            .and_then(|ni| out.origin.iter().position(|o| *o == Some(ni)))
            .filter(|&p| p > r.cut_index);
    }
    // Records whose block was never applied still count as compactions; they cut nowhere.
    for f in found.iter().filter(|f| !applies(&f.state)) {
        let mut r = record(f.state.boundary_index.min(out.messages.len()), f);
        r.summary_index = None;
        out.compactions.push(r);
    }
    // Notices carrying a record link to its transcript, like the block does.
    for f in &found {
        if let Some(ni) = f.notice
            && !f.state.transcript_path.is_empty()
            && let Some(pos) = out.origin.iter().position(|o| *o == Some(ni))
        {
            push_link(
                &mut out.messages[pos],
                LinkKind::Transcript,
                &f.state.transcript_path,
            );
        }
    }
    out.compactions.sort_by_key(|r| r.cut_index);
    out
}

fn same(a: &CompactionState, b: &CompactionState) -> bool {
    a.boundary_index == b.boundary_index && a.created_at == b.created_at
}

fn record(idx: usize, f: &Found) -> CompactionRecord {
    CompactionRecord {
        cut_index: idx,
        trigger: f.state.trimmed.then_some(Trigger::Micro),
        pre_tokens: None,
        post_tokens: None,
        post_tokens_from_usage: false,
        summary_index: (!f.state.trimmed).then_some(idx),
        kept: Vec::new(),
        raw: Some(f.raw.clone()),
        applied_index: None,
        archived: None,
    }
}

fn block_message(idx: usize, f: &Found, visible: bool) -> Message {
    let mut m = Message::new(
        idx,
        Role::User,
        vec![Part::Text {
            text: f.state.block(),
        }],
    );
    m.kind = MessageKind::Summary;
    m.agent_visible = visible;
    m.user_visible = false;
    m.created = f.state.created_at.map(|s| (s * 1000.0).round() as i64);
    if !f.state.transcript_path.is_empty() {
        push_link(&mut m, LinkKind::Transcript, &f.state.transcript_path);
    }
    m.details = Some(crate::model::CompactJson::new(&json!({
        "synthetic": true,
        "rebuilt_from": if f.notice.is_some() { "notice" } else { "sessions.compaction" },
        "boundary_index": f.state.boundary_index,
        "trimmed": f.state.trimmed,
        "model_used": f.state.model_used,
    })));
    m
}

fn line_error(ctx: &Context, line: usize, message: impl Into<String>) -> String {
    crate::error::Error::Line {
        path: ctx.file.clone(),
        line,
        message: message.into(),
    }
    .to_string()
}

/// One stored entry as a message (an unreadable one as an error row).
fn message(i: usize, e: &Entry, ctx: &Context) -> Message {
    let converted = match &e.value {
        Ok(v) => convert(v, i, false).map_err(|why| (why, v.to_string())),
        Err((why, raw)) => Err((why.clone(), raw.clone())),
    };
    match converted {
        Ok(c) => {
            let mut m = c.message;
            link_spills(&mut m, ctx);
            // Sized as the engine holds it (sidecars, a notice's record), for the replays.
            if let Ok(v) = &e.value {
                m.set_detail("stored_len", json!(super::stored::lengths(v)));
            }
            m
        }
        Err((why, raw)) => {
            // A line that failed to parse already names file and line; one that parsed but
            // could not be converted gets them here.
            let error = if e.value.is_err() {
                why
            } else {
                line_error(ctx, e.line, why)
            };
            Message::unreadable(i, "unparsed", raw, error)
        }
    }
}

/// Link every spill file a tool result's markers name, and note in the details whether each
/// still exists (the recorded path, else the same file name in a known spill folder).
fn link_spills(m: &mut Message, ctx: &Context) {
    let mut markers: Vec<CapMarker> = Vec::new();
    let mut paths: Vec<String> = Vec::new();
    for p in &m.parts {
        if let Part::ToolResult { raw, text, .. } = p {
            let text = text.text();
            match serde_json::from_str::<Value>(&text) {
                Ok(v @ (Value::Object(_) | Value::Array(_))) => {
                    spill_markers_in_value(&v, &mut markers, &mut paths)
                }
                _ => {
                    // The stored result notes its text rather than keep it twice
                    // (`lazy::result_raw`): the text's markers, then what else it holds.
                    spill_markers_in_value(
                        &Value::String(text.into_owned()),
                        &mut markers,
                        &mut paths,
                    );
                    let (mut more, mut more_paths) = (Vec::new(), Vec::new());
                    spill_markers_in_value(&raw.value(), &mut more, &mut more_paths);
                    for mk in more {
                        if !markers.contains(&mk) {
                            markers.push(mk);
                        }
                    }
                    for p in more_paths {
                        if !paths.contains(&p) {
                            paths.push(p);
                        }
                    }
                }
            }
        }
    }
    if markers.is_empty() && paths.is_empty() {
        return;
    }
    let mut cap = Vec::new();
    for mk in &markers {
        let resolved = mk
            .spill_path
            .as_deref()
            .and_then(|p| resolve(p, &ctx.spill_dirs));
        if let Some(p) = &mk.spill_path {
            push_link(m, LinkKind::SpillFile, p);
        }
        cap.push(json!({
            "omitted_bytes": mk.omitted_bytes,
            "total_bytes": mk.total_bytes,
            "spill_path": mk.spill_path,
            "spill_exists": resolved.is_some(),
            "resolved_path": resolved.map(|p| p.to_string_lossy().into_owned()),
        }));
    }
    for p in &paths {
        push_link(m, LinkKind::SpillFile, p);
        let resolved = resolve(p, &ctx.spill_dirs);
        cap.push(json!({"spill_path": p, "spill_exists": resolved.is_some(),
            "resolved_path": resolved.map(|p| p.to_string_lossy().into_owned())}));
    }
    m.set_detail("cap", Value::Array(cap));
}

/// Where a recorded spill path can be read now, if anywhere.
pub fn resolve(recorded: &str, dirs: &[PathBuf]) -> Option<PathBuf> {
    let p = Path::new(recorded);
    if p.is_absolute() && p.is_file() {
        return Some(p.to_owned());
    }
    let name = recorded.rsplit(['/', '\\']).next()?;
    dirs.iter().map(|d| d.join(name)).find(|c| c.is_file())
}
