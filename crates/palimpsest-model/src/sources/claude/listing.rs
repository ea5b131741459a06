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
#[derive(Debug, Default, Clone, serde::Serialize, serde::Deserialize)]
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

/// How much of a file [`session_id`] reads first.
const ID_BYTES: usize = 16 * 1024;

/// The `sessionId` [`head`] would give, read from the file's first lines only: what naming a
/// session needs (the index's and the follower's file lists), where a listing needs the whole
/// head. Only whole lines of the first `ID_BYTES` are looked at; when none of them names the
/// session, the head is read as a listing does, so the answer is always the head's.
pub fn session_id(path: &Path) -> Result<Option<String>> {
    scan::first_lines_or(
        path,
        ID_BYTES,
        |whole| {
            scan::lines(whole)
                .filter_map(HeadLine::parse)
                .find_map(|v| v.session_id)
        },
        || Ok(head(path)?.session_id),
    )
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

#[cfg(test)]
mod tests {
    use super::*;

    fn both(path: &Path) -> (Option<String>, Option<String>) {
        (session_id(path).unwrap(), head(path).unwrap().session_id)
    }

    /// Naming a session reads the first lines only, and must name it as the listing does.
    #[test]
    fn the_session_id_of_the_first_lines_is_the_heads() {
        let dir = tempfile::tempdir().unwrap();
        let line = |id: Option<&str>, pad: usize| {
            let id = id.map_or(String::new(), |i| format!(r#","sessionId":"{i}""#));
            format!(r#"{{"type":"user","pad":"{}"{id}}}"#, "x".repeat(pad)) + "\n"
        };
        let cases: [(&str, String, Option<&str>); 5] = [
            ("later", line(None, 10) + &line(Some("b"), 10), Some("b")),
            // The cut of the first read falls in the line that names the session.
            (
                "cut",
                line(None, 10) + &line(Some("long"), 40_000) + &line(Some("short"), 10),
                Some("long"),
            ),
            ("none-big", line(None, 40_000) + &line(None, 10), None),
            ("none-small", line(None, 10), None),
            (
                "no-newline",
                line(Some("z"), 10).trim_end().to_owned(),
                Some("z"),
            ),
        ];
        for (name, text, want) in cases {
            let f = dir.path().join(format!("{name}.jsonl"));
            std::fs::write(&f, text).unwrap();
            let (id, by_head) = both(&f);
            assert_eq!(id.as_deref(), want, "{name}: the first line naming it wins");
            assert_eq!(id, by_head, "{name}: the head names it the same");
        }
    }

    /// The same on every real transcript and every Claude Code fixture.
    #[test]
    fn names_every_real_and_fixture_transcript_as_its_head() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let mut files = Vec::new();
        let mut stack = vec![
            root.join("fixtures/real/claude-code"),
            root.join("fixtures/claude"),
        ];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                } else if p.extension().is_some_and(|x| x == "jsonl") {
                    files.push(p);
                }
            }
        }
        assert!(files.len() > 10, "transcripts found: {}", files.len());
        for f in &files {
            let (id, by_head) = both(f);
            assert_eq!(id, by_head, "{}: named as its head names it", f.display());
        }
    }
}
