//! Compact timeline rows: what the app's timeline draws for each message, and nothing more.
//!
//! A session can hold 100k messages whose tool results run to megabytes; sending them whole
//! over IPC would freeze the window. A [`TimelineRow`] keeps the role, kind, visibility and a
//! short single-line preview of each part with its full size, so the UI can draw any row and
//! fetch the whole message only when the user opens it (`api::get_message`). Rendering, view
//! filtering and selection are the UI's business; the whole message and its raw text are
//! `api`'s.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use crate::model::{CompactionRecord, Message, MessageKind, Part, Role, Session, SessionMeta};

/// How many characters of a part a preview keeps.
pub const PREVIEW_CHARS: usize = 160;

/// How many parts a row previews: a row is one line, and a Claude message merged from hundreds
/// of records (730 parts in one real-shaped session) would otherwise send 150 kB for one row.
pub const ROW_PARTS: usize = 8;

/// One part, as the timeline shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct PartPreview {
    /// The part's type tag ([`Part::type_name`]: `text`, `tool_call`, `tool_result`...).
    pub part_type: String,
    /// The tool name for calls, the original type for `other` parts, the MIME type of images.
    pub label: Option<String>,
    /// The start of the content on one line (whitespace collapsed), at most
    /// [`PREVIEW_CHARS`] characters plus an ellipsis when cut.
    pub preview: String,
    /// Size of the whole content in bytes (arguments as JSON, result text, image data).
    pub size: usize,
    /// True for a tool result the tool or harness marked as failed.
    pub is_error: bool,
}

/// One message, as the timeline shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct TimelineRow {
    /// [`Message::index`]: the key to fetch the whole message.
    pub index: usize,
    /// Provider role.
    pub role: Role,
    /// What the message is for.
    pub kind: MessageKind,
    /// Creation time, Unix milliseconds.
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub created: Option<i64>,
    /// Sent to the model on the next request.
    pub agent_visible: bool,
    /// Shown to the user by the agent's UI.
    pub user_visible: bool,
    /// One preview per part, in order, for the first [`ROW_PARTS`] parts.
    pub parts: Vec<PartPreview>,
    /// Parts after those, not previewed (their sizes are in `size`).
    #[serde(default)]
    pub more_parts: usize,
    /// Set when the stored row could not be read (names file and row or line).
    pub error: Option<String>,
    /// Sum of every part's size in bytes.
    pub size: usize,
    /// BPE tokens of its parts (the session's model's vocabulary), when counted: rows from
    /// the index carry them; rows read from the file do not (`null`: estimate from `size`).
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub tokens: Option<u64>,
}

/// A session as the timeline needs it: listing data, one row per message, recorded cuts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Timeline {
    /// Listing data.
    pub meta: SessionMeta,
    /// Every stored message, in stored order, visible or not.
    pub rows: Vec<TimelineRow>,
    /// Compactions the source recorded.
    pub compactions: Vec<CompactionRecord>,
    /// True when the rows came from the fleet index (the file unchanged since it was indexed)
    /// and the session itself is still being read; false when read from the file.
    #[serde(default)]
    pub from_index: bool,
    /// Rows the session has in all (`rows` may be one page of them: [`Timeline::page`]).
    #[serde(default)]
    pub total_rows: usize,
    /// Stored position of `rows[0]` among them.
    #[serde(default)]
    pub first_row: usize,
    /// Bytes the file grew by since the index made these rows (0: the rows are the file's as it
    /// is). The messages written since are not among them yet; the window shows these while it
    /// reads the session whole.
    /// Left out when 0 (always, for what the command line prints).
    #[serde(default, skip_serializing_if = "is_zero")]
    #[cfg_attr(feature = "ts", ts(optional, type = "number"))]
    pub grown_bytes: u64,
    /// Bytes of the file after the lines these rows were made from (0: the rows are of the
    /// whole file). A big transcript not indexed yet shows the rows of its first lines at once
    /// while it is read whole; the rest of its messages are not among them, and what those
    /// lines do to earlier messages (a compaction hides them from the model) is not applied.
    /// Left out when 0 (always, for what the command line prints).
    #[serde(default, skip_serializing_if = "is_zero")]
    #[cfg_attr(feature = "ts", ts(optional, type = "number"))]
    pub unread_bytes: u64,
}

impl Timeline {
    /// Rows `from..from + limit` (to the end without a limit), with the listing data and cuts.
    pub fn page(&self, from: usize, limit: Option<usize>) -> Timeline {
        let from = from.min(self.rows.len());
        let to = limit.map_or(self.rows.len(), |l| {
            from.saturating_add(l).min(self.rows.len())
        });
        Timeline {
            meta: self.meta.clone(),
            rows: self.rows[from..to].to_vec(),
            compactions: self.compactions.clone(),
            from_index: self.from_index,
            total_rows: self.rows.len(),
            first_row: from,
            grown_bytes: self.grown_bytes,
            unread_bytes: self.unread_bytes,
        }
    }
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// The timeline of a loaded session.
pub fn timeline(session: &Session) -> Timeline {
    Timeline {
        meta: session.meta.clone(),
        rows: session.iter().map(row).collect(),
        compactions: session.compactions.clone(),
        from_index: false,
        total_rows: session.messages.len(),
        first_row: 0,
        grown_bytes: 0,
        unread_bytes: 0,
    }
}

/// The row of one message.
pub fn row(m: &Message) -> TimelineRow {
    let parts: Vec<PartPreview> = m.parts.iter().take(ROW_PARTS).map(part_preview).collect();
    let shown: usize = parts.iter().map(|p| p.size).sum();
    let rest: usize = m.parts.iter().skip(ROW_PARTS).map(part_size).sum();
    TimelineRow {
        index: m.index,
        role: m.role,
        kind: m.kind,
        created: m.created,
        agent_visible: m.agent_visible,
        user_visible: m.user_visible,
        size: shown + rest,
        more_parts: m.parts.len().saturating_sub(ROW_PARTS),
        parts,
        error: m.error.clone(),
        tokens: None,
    }
}

/// A part's size as its preview states it, without making the preview.
fn part_size(p: &Part) -> usize {
    match p {
        Part::Text { text } | Part::Thinking { text, .. } => text.len(),
        Part::ToolCall { arguments, .. } => arguments.text_len(),
        Part::ToolResult { text, .. } => text.len(),
        Part::Image { size, .. } => *size,
        Part::Other { raw, .. } => raw.to_string().len(),
    }
}

/// The preview of one part.
pub fn part_preview(p: &Part) -> PartPreview {
    // Borrowed where the part holds the text: only its first line is kept.
    let (label, text, size, is_error): (_, Cow<str>, _, _) = match p {
        Part::Text { text } => (None, text.into(), text.len(), false),
        Part::Thinking { text, redacted } => {
            let shown = if *redacted { "(redacted)" } else { text };
            (None, shown.into(), text.len(), false)
        }
        Part::ToolCall {
            name, arguments, ..
        } => {
            let args = arguments.to_string();
            let len = args.len();
            (Some(name.clone()), args.into(), len, false)
        }
        Part::ToolResult { text, is_error, .. } => (None, text.text(), text.len(), *is_error),
        Part::Image { mime, size } => (Some(mime.clone()), "".into(), *size, false),
        Part::Other { original_type, raw } => {
            let json = raw.to_string();
            let len = json.len();
            (Some(original_type.clone()), json.into(), len, false)
        }
    };
    PartPreview {
        part_type: p.type_name().to_owned(),
        label,
        preview: one_line(&text, PREVIEW_CHARS),
        size,
        is_error,
    }
}

/// `text` on one line (runs of whitespace become one space), cut to `max` characters with an
/// ellipsis when longer. Cuts on character boundaries, never inside a UTF-8 sequence.
pub fn one_line(text: &str, max: usize) -> String {
    let mut out = String::with_capacity(max.min(text.len()) + 3);
    let mut count = 0;
    let mut pending_space = false;
    for c in text.chars() {
        if c.is_whitespace() {
            pending_space = count > 0;
            continue;
        }
        if pending_space {
            if count == max {
                out.push('…');
                return out;
            }
            out.push(' ');
            count += 1;
            pending_space = false;
        }
        if count == max {
            out.push('…');
            return out;
        }
        out.push(c);
        count += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn one_line_collapses_whitespace_and_cuts_on_char_boundaries() {
        assert_eq!(
            one_line("  a\n\n b\tc  ", 10),
            "a b c",
            "leading/trailing whitespace goes, inner runs become one space"
        );
        assert_eq!(
            one_line("héllo wörld", 5),
            "héllo…",
            "cut after 5 characters (not bytes) and mark the cut"
        );
        assert_eq!(
            one_line("abc", 3),
            "abc",
            "text exactly at the limit is not marked as cut"
        );
    }

    #[test]
    fn row_previews_each_part_with_its_full_size() {
        let big = "x".repeat(10_000);
        let mut m = Message::new(
            7,
            Role::User,
            vec![
                Part::ToolCall {
                    id: "c1".into(),
                    name: "developer__shell".into(),
                    arguments: json!({"command": "ls -la"}).into(),
                },
                Part::ToolResult {
                    call_id: "c1".into(),
                    text: big.into(),
                    is_error: true,
                    raw: json!(null).into(),
                },
            ],
        );
        m.agent_visible = false;
        let r = row(&m);
        assert_eq!(
            r.index, 7,
            "the row keeps the message index to fetch it later"
        );
        assert!(!r.agent_visible, "visibility flags are copied as stored");
        assert_eq!(r.parts.len(), 2, "one preview per part");
        assert_eq!(
            r.parts[0].label.as_deref(),
            Some("developer__shell"),
            "tool calls are labelled with the tool name"
        );
        assert_eq!(
            r.parts[0].preview, r#"{"command":"ls -la"}"#,
            "a call previews its arguments as compact JSON"
        );
        assert_eq!(
            r.parts[1].size, 10_000,
            "a result reports its whole size, not the preview's"
        );
        assert_eq!(
            r.parts[1].preview.chars().count(),
            PREVIEW_CHARS + 1,
            "the preview is cut to PREVIEW_CHARS plus the ellipsis"
        );
        assert!(r.parts[1].is_error, "failed results stay marked");
        assert_eq!(
            r.size,
            20 + 10_000,
            "the row size sums the arguments JSON and the result text"
        );
    }

    #[test]
    fn a_row_previews_its_first_parts_and_counts_the_rest_in_its_size() {
        let parts: Vec<Part> = (0..730)
            .map(|k| Part::Text {
                text: format!("part {k:03}"),
            })
            .collect();
        let r = row(&Message::new(3, Role::Assistant, parts));
        assert_eq!(
            (r.parts.len(), r.more_parts),
            (ROW_PARTS, 730 - ROW_PARTS),
            "a message merged from 730 records previews 8 parts and says how many more"
        );
        assert_eq!(
            r.parts.last().map(|p| p.preview.as_str()),
            Some("part 007"),
            "the previews are the first parts, in order"
        );
        assert_eq!(
            r.size,
            730 * 8,
            "the size is every part's, previewed or not"
        );
    }
}
