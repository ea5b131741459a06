//! Listing a Claude Code transcript without parsing it: the first lines give id, cwd, model and
//! the first prompt; a byte scan of the rest (line sketches, see `sources::scan`) counts message
//! lines, distinct API responses and compaction boundaries; the file's tail gives the last
//! timestamp and usage. A 2 GB file is read once, in chunks, and never held in memory.

use std::path::Path;

use serde_json::Value;

use super::head_line::HeadLine;
use crate::error::Result;
use crate::model::{RecordedUsage, SessionMeta, SourceFormat};
use crate::sources::scan::{self, json_lines};

/// What the first lines of a file say.
#[derive(Debug, Default, Clone)]
pub struct Head {
    /// `sessionId` of the first line that has one.
    pub session_id: Option<String>,
    /// `cwd`.
    pub cwd: Option<String>,
    /// First timestamp, Unix ms.
    pub created: Option<i64>,
    /// First assistant model.
    pub model: Option<String>,
    /// First real prompt, shortened.
    pub prompt: Option<String>,
    /// `slug` (three random words).
    pub slug: Option<String>,
}

/// How much of a file [`head`] reads.
pub const HEAD_BYTES: usize = 256 * 1024;

/// Read the head of `path` ([`HEAD_BYTES`] at most).
pub fn head(path: &Path) -> Result<Head> {
    let bytes = scan::read_head(path, HEAD_BYTES)?;
    let mut h = Head::default();
    for v in scan::lines(&bytes).filter_map(HeadLine::parse) {
        h.session_id = h.session_id.or(v.session_id);
        h.cwd = h.cwd.or(v.cwd);
        h.slug = h.slug.or(v.slug);
        if h.created.is_none() {
            h.created = v.timestamp.as_deref().and_then(scan::millis);
        }
        match v.kind.as_deref() {
            Some("assistant") if h.model.is_none() => {
                h.model = v.model.filter(|m| m != "<synthetic>");
            }
            Some("user") if h.prompt.is_none() => {
                let meta = v.is_meta == Some(true);
                if let Some(t) = v.content.filter(|t| !meta && !t.starts_with('<')) {
                    h.prompt = Some(shorten(&t, 80));
                }
            }
            _ => {}
        }
        // Every field is the first line's that has it: once all are found, the rest (up to
        // 256 KiB of a long first exchange) cannot change them.
        if h.session_id.is_some()
            && h.cwd.is_some()
            && h.slug.is_some()
            && h.created.is_some()
            && h.model.is_some()
            && h.prompt.is_some()
        {
            break;
        }
    }
    Ok(h)
}

fn shorten(t: &str, max: usize) -> String {
    let flat: String = t.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= max {
        flat
    } else {
        format!("{}…", flat.chars().take(max).collect::<String>())
    }
}

/// The last recorded usage and its model, from the file's tail.
fn tail_usage(path: &Path) -> Result<(Option<RecordedUsage>, Option<String>)> {
    let tail = scan::read_tail(path, 256 * 1024)?;
    for v in json_lines(&tail).rev() {
        if v.get("type").and_then(Value::as_str) != Some("assistant") {
            continue;
        }
        let msg = v.get("message");
        let model = msg
            .and_then(|m| m.get("model"))
            .and_then(Value::as_str)
            .filter(|m| *m != "<synthetic>")
            .map(str::to_owned);
        if let Some(u) = msg.and_then(|m| m.get("usage")) {
            return Ok((Some(usage(u)), model));
        }
    }
    Ok((None, None))
}

/// Claude usage as [`RecordedUsage`]: `input_tokens` is the whole prompt (fresh input plus
/// cache reads and writes), since that is the context the request carried.
pub fn usage(u: &Value) -> RecordedUsage {
    let n = |k: &str| u.get(k).and_then(Value::as_u64);
    let fresh = n("input_tokens");
    let read = n("cache_read_input_tokens");
    let write = n("cache_creation_input_tokens");
    let input = fresh.map(|f| f + read.unwrap_or(0) + write.unwrap_or(0));
    let output = n("output_tokens");
    RecordedUsage {
        input_tokens: input,
        output_tokens: output,
        total_tokens: input.map(|i| i + output.unwrap_or(0)),
        cache_read_tokens: read,
        cache_write_tokens: write,
        accumulated_total_tokens: None,
        context_tokens: input,
    }
}

/// The title of a subagent or compactor run (the same when listed and when loaded):
/// `subagent agent-…: <its prompt>`, `compactor run agent-acompact-…`.
pub(super) fn child_name(path: &Path, head: &Head) -> String {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    if stem.starts_with("agent-acompact") {
        format!("compactor run {stem}")
    } else {
        format!(
            "subagent {stem}: {}",
            head.prompt.clone().unwrap_or_default()
        )
    }
}

/// The listing entry of one file. `id` and `parent_id` are given for subagent files.
pub fn meta(
    path: &Path,
    head: &Head,
    id: String,
    parent_id: Option<String>,
) -> Result<SessionMeta> {
    let t = super::tally::of(path)?;
    let (usage, last_model) = tail_usage(path)?;
    let name = if parent_id.is_some() {
        child_name(path, head)
    } else {
        t.custom_title
            .or(t.ai_title)
            .or(t.summary_title)
            .or_else(|| head.prompt.clone())
            .or_else(|| head.slug.clone())
            .unwrap_or_else(|| id.clone())
    };
    Ok(SessionMeta {
        id,
        format: SourceFormat::ClaudeCode,
        path: path.display().to_string(),
        name,
        working_dir: head.cwd.clone(),
        created: head.created,
        updated: t.last_timestamp.as_deref().and_then(scan::millis),
        model: last_model.or_else(|| head.model.clone()),
        context_limit: None,
        usage,
        message_count: t.messages,
        compaction_count: t.compactions,
        parent_id,
    })
}
