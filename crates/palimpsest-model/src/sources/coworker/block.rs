//! coworker's `CompactionState` as persisted, and the compacted-history block the model receives
//! in place of the compacted span, rebuilt exactly from it (coworker `compaction.compacted_block`).
//!
//! Pure functions of the record: the reader uses them to show the block, the replay engine to
//! rebuild blocks under other settings. Where the block sits and who sees it is the reader's call.

use serde_json::Value;

/// The opening lines of every block.
pub const BLOCK_OPEN: &str = "<compacted-history>\nEarlier turns of this session were compacted. The summary below is your memory of them.";

/// The heading over the preserved user messages.
pub const USER_MESSAGES_HEADING: &str =
    "## User messages in the compacted span (verbatim, chronological)";

/// The continuation contract closing every block (before `</compacted-history>`).
pub const CONTRACT: &str = "Continue where you left off: pick up the current work and next step exactly as described. Do not re-ask answered questions, do not recap, do not mention that the context was compacted. If you need the contents of a file noted above, re-read it.";

/// The note `trim_state` appends to the prior summary when no summary could be made.
pub const TRIM_NOTE: &str = "(Older turns were trimmed to fit the context window; no summary is available for them. Re-read files and re-run commands if earlier results are needed.)";

const TRANSCRIPT_LEAD: &str = "The verbatim transcript of the compacted turns (every message, tool call and tool result, without your private reasoning) is saved at ";
const TRANSCRIPT_TAIL: &str = ". If a detail you need is missing from the summary, read that file (read_file, or run_shell with grep / sed -n) instead of guessing.";

/// `CompactionState.as_dict()`: the `sessions.compaction` column and a `compacted` notice's
/// `compaction` key. Only `boundary_index` is required, as in coworker's `from_dict`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CompactionState {
    /// Messages before this index were summarised (index into the stored list).
    pub boundary_index: usize,
    /// The summary (or, for a trim, the prior summary plus [`TRIM_NOTE`]).
    pub summary_text: String,
    /// The mechanically extracted working-state block.
    pub working_state: String,
    /// Preserved user messages, first (pinned) to newest.
    pub user_messages: Vec<String>,
    /// User messages left out of the block, accumulated across compactions.
    pub user_messages_dropped: u64,
    /// Unix seconds.
    pub created_at: Option<f64>,
    /// The summariser model; empty for a trim.
    pub model_used: String,
    /// A trim without summary.
    pub trimmed: bool,
    /// The transcript of the compacted turns; empty when none was written.
    pub transcript_path: String,
    /// Whether the record has a `transcript_path` key at all: records written before the
    /// transcript existed (MAIN-0821) lack it, and their block has the legacy layout.
    pub has_transcript_key: bool,
}

/// Which version of the block layout a record was rendered with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockStyle {
    /// DS-compaction: omitted note as a bullet after the pinned message, transcript line.
    Current,
    /// MAIN-0821: omitted note before the bullets, no transcript line.
    Legacy,
}

impl CompactionState {
    /// Read a record; `Err` says what is missing. An empty object (`'{}'`, the column of a
    /// session never compacted) is `Ok(None)`.
    pub fn from_value(v: &Value) -> Result<Option<Self>, String> {
        let obj = v.as_object().ok_or("compaction record is not an object")?;
        if obj.is_empty() {
            return Ok(None);
        }
        let boundary = obj
            .get("boundary_index")
            .and_then(Value::as_u64)
            .ok_or("compaction record has no boundary_index")?;
        let s = |k: &str| {
            obj.get(k)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        Ok(Some(Self {
            boundary_index: boundary as usize,
            summary_text: s("summary_text"),
            working_state: s("working_state"),
            user_messages: obj
                .get("user_messages")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default(),
            user_messages_dropped: obj
                .get("user_messages_dropped")
                .and_then(Value::as_u64)
                .unwrap_or(0),
            created_at: obj.get("created_at").and_then(Value::as_f64),
            model_used: s("model_used"),
            trimmed: obj.get("trimmed").and_then(Value::as_bool).unwrap_or(false),
            transcript_path: s("transcript_path"),
            has_transcript_key: obj.contains_key("transcript_path"),
        }))
    }

    /// The layout this record was rendered with (see [`CompactionState::has_transcript_key`]).
    pub fn style(&self) -> BlockStyle {
        if self.has_transcript_key {
            BlockStyle::Current
        } else {
            BlockStyle::Legacy
        }
    }

    /// The block exactly as the model received it.
    pub fn block(&self) -> String {
        compacted_block(self, self.style())
    }
}

/// The compacted-history block for `state`, lines joined with `\n` (coworker-format.md §2).
pub fn compacted_block(state: &CompactionState, style: BlockStyle) -> String {
    let mut lines: Vec<String> = vec![BLOCK_OPEN.to_owned(), String::new()];
    lines.push(state.summary_text.clone());
    if !state.working_state.is_empty() {
        lines.push(String::new());
        lines.push(state.working_state.clone());
    }
    if let Some((first, rest)) = state.user_messages.split_first() {
        lines.push(String::new());
        lines.push(USER_MESSAGES_HEADING.to_owned());
        let n = state.user_messages_dropped;
        match style {
            BlockStyle::Current => {
                lines.push(format!("- {first}"));
                if n > 0 {
                    lines.push(format!(
                        "- ({n} older user messages omitted here — their intent is covered by the summary above)"
                    ));
                }
            }
            BlockStyle::Legacy => {
                if n > 0 {
                    lines.push(format!(
                        "({n} earlier user messages omitted — their intent is covered by the summary above)"
                    ));
                }
                lines.push(format!("- {first}"));
            }
        }
        lines.extend(rest.iter().map(|u| format!("- {u}")));
    }
    if style == BlockStyle::Current && !state.transcript_path.is_empty() {
        lines.push(String::new());
        lines.push(format!(
            "{TRANSCRIPT_LEAD}{}{TRANSCRIPT_TAIL}",
            state.transcript_path
        ));
    }
    lines.push(String::new());
    lines.push(CONTRACT.to_owned());
    lines.push("</compacted-history>".to_owned());
    lines.join("\n")
}

/// The transcript file name coworker writes for a boundary: `compacted-transcript-upto-0057.md`.
pub fn transcript_file_name(boundary_index: usize) -> String {
    format!("compacted-transcript-upto-{boundary_index:04}.md")
}

/// The transcript path a compacted block names, if any: coworker's sentence first, else any
/// whitespace-delimited word naming a `compacted-transcript-upto-NNNN.md` file.
pub fn parse_transcript_path(text: &str) -> Option<String> {
    if let Some(i) = text.find(TRANSCRIPT_LEAD) {
        let rest = &text[i + TRANSCRIPT_LEAD.len()..];
        if let Some(j) = rest.find(TRANSCRIPT_TAIL) {
            return Some(rest[..j].to_owned());
        }
    }
    text.split_whitespace()
        .map(|w| w.trim_matches(|c: char| "\"'`()<>,;".contains(c)))
        .map(|w| w.strip_suffix('.').unwrap_or(w))
        .find(|w| {
            w.rsplit(['/', '\\'])
                .next()
                .is_some_and(|f| f.starts_with("compacted-transcript-upto-") && f.ends_with(".md"))
        })
        .map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn current_block_matches_the_documented_layout() {
        let s = CompactionState::from_value(&json!({
            "boundary_index": 9, "summary_text": "S", "working_state": "W",
            "user_messages": ["first", "newest"], "user_messages_dropped": 2,
            "transcript_path": "/t/compacted-transcript-upto-0009.md"}))
        .unwrap()
        .unwrap();
        let want = format!(
            "<compacted-history>\nEarlier turns of this session were compacted. The summary below is your memory of them.\n\nS\n\nW\n\n{USER_MESSAGES_HEADING}\n- first\n- (2 older user messages omitted here — their intent is covered by the summary above)\n- newest\n\n{TRANSCRIPT_LEAD}/t/compacted-transcript-upto-0009.md{TRANSCRIPT_TAIL}\n\n{CONTRACT}\n</compacted-history>"
        );
        assert_eq!(
            s.block(),
            want,
            "block must be byte-identical to coworker's"
        );
        assert_eq!(
            parse_transcript_path(&want).as_deref(),
            Some("/t/compacted-transcript-upto-0009.md"),
            "the transcript sentence gives the path back"
        );
    }

    #[test]
    fn legacy_record_puts_the_note_first_and_has_no_transcript() {
        let s = CompactionState::from_value(&json!({
            "boundary_index": 4, "summary_text": "S",
            "user_messages": ["a", "b"], "user_messages_dropped": 1}))
        .unwrap()
        .unwrap();
        assert_eq!(
            s.style(),
            BlockStyle::Legacy,
            "no transcript_path key: legacy"
        );
        assert!(
            s.block().contains(&format!(
                "{USER_MESSAGES_HEADING}\n(1 earlier user messages omitted — their intent is covered by the summary above)\n- a\n- b\n"
            )),
            "legacy note precedes the bullets: {}",
            s.block()
        );
    }

    #[test]
    fn empty_and_bad_records() {
        assert_eq!(
            CompactionState::from_value(&json!({})),
            Ok(None),
            "'{{}}' means never compacted"
        );
        assert_eq!(
            CompactionState::from_value(&json!({"summary_text": "x"})),
            Err("compaction record has no boundary_index".into()),
            "boundary_index is required"
        );
        assert_eq!(
            transcript_file_name(57),
            "compacted-transcript-upto-0057.md",
            "4-digit pad"
        );
    }
}
