//! Truncation markers: the notices a capped or overflowing tool result leaves, naming the file
//! that holds its full text. Recognised: coworker's cap marker (`[... N bytes omitted here; this
//! result was M bytes; full text saved to PATH …]` and its `full text not saved` form, also
//! inside JSON dict results), its v3 `full_result_path` and `openworker_large_result` shapes,
//! goose's large-response notice, Claude Code's `<persisted-output>` block and its overflow
//! notice (`result (N characters) exceeds maximum allowed tokens. Output has been saved to …`),
//! OpenCode's truncation notice (`Full output saved to: …/tool-output/tool_…`),
//! coworker's compacted block naming the transcript of the compacted turns, and a user pattern
//! (a regex with a named group `path`, optional `total` / `omitted`).
//!
//! Pure text work: spill loops are `spills`', opening the files `confine` / `review`'s.

use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Which mechanism wrote a spill.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "snake_case")]
pub enum SpillKind {
    /// coworker's head+tail cap marker.
    CapMarker,
    /// coworker v3 / large-result JSON shapes (`full_result_path`, `result_ref`).
    CapJson,
    /// goose's "The response returned from the tool call was larger …" notice.
    GooseLargeResponse,
    /// Claude Code's `<persisted-output>` block (`tool-results/` files).
    ClaudeToolResults,
    /// OpenCode's (and Kilo Code's) truncation notice, "Full output saved to: …"
    /// (`tool-output/` files in its data folder).
    #[serde(rename = "opencode_tool_output")]
    OpenCodeToolOutput,
    /// The verbatim transcript of compacted turns a compacted block names.
    CompactionTranscript,
    /// A tool output the harness pruned from the model's view (OpenCode's and Kilo Code's
    /// `state.time.compacted`): kept whole in the session itself, the model got a stub.
    Pruned,
    /// A path the reader attached to the message.
    Link,
    /// Matched the user's pattern.
    Custom,
}

/// One truncation marker found in a message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Marker {
    /// The mechanism.
    pub kind: SpillKind,
    /// The spill path as written; `None` for "full text not saved".
    pub path: Option<String>,
    /// Size of the full result, when the marker says (bytes; characters for goose).
    pub total_bytes: Option<u64>,
    /// Bytes elided from the middle, when the marker says.
    pub omitted_bytes: Option<u64>,
    /// Text kept before the marker.
    pub head: String,
    /// Text kept after the marker.
    pub tail: String,
}

static CAP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"\n?\[\.\.\. (?P<omitted>\d+) bytes omitted here; this result was (?P<total>\d+) bytes; (?:full text saved to (?P<path>[^\n]+?) \(read it with [^\n]*?\)|full text not saved) \.\.\.\]\n?",
    )
    .expect("static regex")
});
static GOOSE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"The response returned from the tool call was larger \((?P<total>\d+) characters\) and is stored in the file:? (?P<path>[^\n]+)")
        .expect("static regex")
});
static CLAUDE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?s)<persisted-output>\s*Output too large \((?P<size>[^)]*)\)\. Full output saved to: (?P<path>[^\n]+)\n(?:\s*Preview \([^)]*\):\n)?(?P<preview>.*?)(?:</persisted-output>|\z)")
        .expect("static regex")
});
/// Claude Code's overflow notice for a result too large to return (MCP tools among them):
/// `Error: result (1,093,765 characters) exceeds maximum allowed tokens. Output has been saved
/// to /…/tool-results/….txt`.
static CLAUDE_OVERFLOW: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"result \((?P<total>[\d,]+) characters\) exceeds maximum allowed tokens\. Output has been saved to (?P<path>\S+)")
        .expect("static regex")
});
/// OpenCode's notice on a tool output cut to its first (or last) 2 000 lines or 50 KB:
/// `…N lines truncated…` then `The tool call succeeded but the output was truncated. Full output
/// saved to: PATH`; a command streamed to a file says `The command output was N bytes and was
/// truncated (inline limit: M bytes).` then the same `Full output saved to: PATH`.
static OPENCODE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?:\.\.\.(?P<removed>\d+) (?P<unit>bytes|lines) truncated\.\.\.\n\n)?(?:The tool call succeeded but the output was truncated\. |The command output was (?P<total>\d+) bytes and was truncated \(inline limit: \d+ bytes\)\.\n)Full output saved to: (?P<path>\S+)")
        .expect("static regex")
});
static TRANSCRIPT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"transcript of the compacted turns[^\n]*? is saved at (?P<path>[^\n]+?)\. If a detail",
    )
    .expect("static regex")
});

/// Compile this module's patterns now (see [`super::warm_up`]).
pub(super) fn warm_up() {
    LazyLock::force(&CAP);
    LazyLock::force(&GOOSE);
    LazyLock::force(&CLAUDE);
    LazyLock::force(&CLAUDE_OVERFLOW);
    LazyLock::force(&OPENCODE);
    LazyLock::force(&TRANSCRIPT);
}

/// Every marker in one tool result or message text.
pub fn markers(text: &str, custom: Option<&Regex>) -> Vec<Marker> {
    let mut out = Vec::new();
    // Dict results are JSON: look inside each string field (the marker's newlines are escaped
    // in the serialised form), and at the v3 / large-result shapes.
    if text.trim_start().starts_with('{')
        && let Ok(v) = serde_json::from_str::<Value>(text)
    {
        json_markers(&v, custom, &mut out);
        if !out.is_empty() {
            return out;
        }
    }
    text_markers(text, custom, &mut out);
    out
}

fn json_markers(v: &Value, custom: Option<&Regex>, out: &mut Vec<Marker>) {
    match v {
        Value::Object(m) => {
            let path = ["full_result_path", "result_ref"]
                .iter()
                .find_map(|k| m.get(*k).and_then(Value::as_str));
            let flagged = m.get("truncated").and_then(Value::as_bool) == Some(true)
                || m.get("openworker_large_result").and_then(Value::as_bool) == Some(true);
            if let (Some(p), true) = (path, flagged) {
                out.push(Marker {
                    kind: SpillKind::CapJson,
                    path: Some(p.to_owned()),
                    total_bytes: m.get("original_chars").and_then(Value::as_u64),
                    omitted_bytes: None,
                    head: m
                        .get("preview")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_owned(),
                    tail: String::new(),
                });
                return;
            }
            for x in m.values() {
                json_markers(x, custom, out);
            }
        }
        Value::Array(a) => a.iter().for_each(|x| json_markers(x, custom, out)),
        Value::String(s) => text_markers(s, custom, out),
        _ => {}
    }
}

fn text_markers(text: &str, custom: Option<&Regex>, out: &mut Vec<Marker>) {
    let num = |c: &regex::Captures, k: &str| c.name(k).and_then(|m| m.as_str().parse::<u64>().ok());
    for c in CAP.captures_iter(text) {
        let whole = c.get(0).expect("match");
        out.push(Marker {
            kind: SpillKind::CapMarker,
            path: c.name("path").map(|m| m.as_str().to_owned()),
            total_bytes: num(&c, "total"),
            omitted_bytes: num(&c, "omitted"),
            head: text[..whole.start()].to_owned(),
            tail: text[whole.end()..].to_owned(),
        });
    }
    for c in GOOSE.captures_iter(text) {
        out.push(Marker {
            kind: SpillKind::GooseLargeResponse,
            path: c.name("path").map(|m| m.as_str().trim().to_owned()),
            total_bytes: num(&c, "total"),
            omitted_bytes: num(&c, "total"),
            head: String::new(),
            tail: String::new(),
        });
    }
    for c in CLAUDE.captures_iter(text) {
        out.push(Marker {
            kind: SpillKind::ClaudeToolResults,
            path: c.name("path").map(|m| m.as_str().trim().to_owned()),
            total_bytes: c.name("size").and_then(|m| parse_size(m.as_str())),
            omitted_bytes: None,
            head: c
                .name("preview")
                .map(|m| m.as_str().to_owned())
                .unwrap_or_default(),
            tail: String::new(),
        });
    }
    for c in CLAUDE_OVERFLOW.captures_iter(text) {
        let path = c.name("path").map(|m| {
            // The sentence may go on after the path: its full stop is not part of it.
            m.as_str().trim_end_matches(['.', ',', ';', ')']).to_owned()
        });
        out.push(Marker {
            kind: SpillKind::ClaudeToolResults,
            path,
            total_bytes: c
                .name("total")
                .and_then(|m| m.as_str().replace(',', "").parse().ok()),
            omitted_bytes: None,
            head: String::new(),
            tail: String::new(),
        });
    }
    for c in OPENCODE.captures_iter(text) {
        let whole = c.get(0).expect("match");
        // Kept the head: the preview is before the notice; kept the tail: after its hint.
        let head = text[..whole.start()].trim_end().to_owned();
        let tail = if head.is_empty() {
            text[whole.end()..]
                .split_once("\n\n")
                .map(|(_, rest)| rest.to_owned())
                .unwrap_or_default()
        } else {
            String::new()
        };
        out.push(Marker {
            kind: SpillKind::OpenCodeToolOutput,
            path: c.name("path").map(|m| m.as_str().to_owned()),
            total_bytes: num(&c, "total"),
            omitted_bytes: (c.name("unit").map(|u| u.as_str()) == Some("bytes"))
                .then(|| num(&c, "removed"))
                .flatten(),
            head,
            tail,
        });
    }
    for c in TRANSCRIPT.captures_iter(text) {
        out.push(Marker {
            kind: SpillKind::CompactionTranscript,
            path: c.name("path").map(|m| m.as_str().trim().to_owned()),
            total_bytes: None,
            omitted_bytes: None,
            head: String::new(),
            tail: String::new(),
        });
    }
    if let Some(re) = custom {
        for c in re.captures_iter(text) {
            let Some(p) = c.name("path") else { continue };
            if out.iter().any(|m| m.path.as_deref() == Some(p.as_str())) {
                continue;
            }
            let whole = c.get(0).expect("match");
            out.push(Marker {
                kind: SpillKind::Custom,
                path: Some(p.as_str().to_owned()),
                total_bytes: num(&c, "total"),
                omitted_bytes: num(&c, "omitted"),
                head: text[..whole.start()].to_owned(),
                tail: text[whole.end()..].to_owned(),
            });
        }
    }
}

/// `4.8MB` → bytes (decimal prefixes as Claude Code prints them; approximate by nature).
fn parse_size(s: &str) -> Option<u64> {
    let s = s.trim();
    let split = s.find(|c: char| !(c.is_ascii_digit() || c == '.'))?;
    let (n, unit) = s.split_at(split);
    let n: f64 = n.parse().ok()?;
    let mult = match unit.trim().to_ascii_uppercase().as_str() {
        "B" => 1.0,
        "KB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        _ => return None,
    };
    Some((n * mult).round() as u64)
}

/// Validate a user pattern: it must compile and have a named group `path`.
pub fn custom_pattern(pattern: &str) -> crate::Result<Regex> {
    let re = Regex::new(pattern)
        .map_err(|e| crate::Error::BadPattern(format!("spill pattern `{pattern}`: {e}")))?;
    if !re.capture_names().any(|n| n == Some("path")) {
        return Err(crate::Error::BadPattern(format!(
            "spill pattern `{pattern}` has no named group `path` (write `(?P<path>…)`)"
        )));
    }
    Ok(re)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cap_marker_splits_head_and_tail() {
        let text = "HEAD\n[... 600 bytes omitted here; this result was 8600 bytes; full text saved to /s/tool-output/0003-read_file.txt (read it with read_file, or run_shell: sed -n '1,200p' \"/s/tool-output/0003-read_file.txt\") ...]\nTAIL";
        let m = markers(text, None);
        assert_eq!(m.len(), 1, "one marker");
        assert_eq!(
            m[0].path.as_deref(),
            Some("/s/tool-output/0003-read_file.txt"),
            "path before the read hint"
        );
        assert_eq!(
            (m[0].omitted_bytes, m[0].total_bytes),
            (Some(600), Some(8600)),
            "both sizes"
        );
        assert_eq!(
            (m[0].head.as_str(), m[0].tail.as_str()),
            ("HEAD", "TAIL"),
            "marker newlines belong to the marker"
        );
        let unsaved = markers(
            "a\n[... 5 bytes omitted here; this result was 9 bytes; full text not saved ...]\nb",
            None,
        );
        assert_eq!(unsaved[0].path, None, "`full text not saved` has no path");
    }

    #[test]
    fn goose_and_claude_notices() {
        let g = markers(
            "The response returned from the tool call was larger (8600 characters) and is stored in the file: /tmp/m_1.txt\nYou can use other tools to examine or search it.",
            None,
        );
        assert_eq!(
            g[0].path.as_deref(),
            Some("/tmp/m_1.txt"),
            "goose path ends at the line"
        );
        let c = markers(
            "<persisted-output>\nOutput too large (4.8MB). Full output saved to: /p/tool-results/t.txt\n\nPreview (first 2KB):\nabc\n</persisted-output>",
            None,
        );
        assert_eq!(
            (c[0].path.as_deref(), c[0].total_bytes),
            (Some("/p/tool-results/t.txt"), Some(4_800_000)),
            "claude size parsed"
        );
        assert_eq!(c[0].head.trim(), "abc", "the preview is the head");
        let o = markers(
            "Error: result (1,093,765 characters) exceeds maximum allowed tokens. Output has been saved to /p/-w/s1/tool-results/mcp-linear-list_issues-1770757801.txt.\nFormat: JSON",
            None,
        );
        assert_eq!(
            (o.len(), o[0].kind, o[0].path.as_deref(), o[0].total_bytes),
            (
                1,
                SpillKind::ClaudeToolResults,
                Some("/p/-w/s1/tool-results/mcp-linear-list_issues-1770757801.txt"),
                Some(1_093_765)
            ),
            "Claude Code's overflow notice: the file, its size in characters, no full stop"
        );
    }

    #[test]
    fn custom_pattern_needs_a_path_group() {
        assert!(
            custom_pattern(r"saved to (\S+)").is_err(),
            "no named group is refused"
        );
        let re = custom_pattern(r"spilled: (?P<path>\S+)").unwrap();
        assert_eq!(
            markers("x spilled: /a/b.txt", Some(&re))[0].path.as_deref(),
            Some("/a/b.txt"),
            "custom path"
        );
    }

    #[test]
    fn opencode_truncation_notices_name_their_file_and_keep_their_preview() {
        let head = "line 1\nline 2\n\n...1998 lines truncated...\n\nThe tool call succeeded but the output was truncated. Full output saved to: /home/dev/.local/share/opencode/tool-output/tool_01JX2\nUse Grep to search the full content or Read with offset/limit to view specific sections.";
        let m = markers(head, None);
        assert_eq!(
            m.iter()
                .map(|m| (
                    m.kind,
                    m.path.clone(),
                    m.omitted_bytes,
                    m.head.clone(),
                    m.tail.clone()
                ))
                .collect::<Vec<_>>(),
            vec![(
                SpillKind::OpenCodeToolOutput,
                Some("/home/dev/.local/share/opencode/tool-output/tool_01JX2".to_owned()),
                None,
                "line 1\nline 2".to_owned(),
                String::new()
            )],
            "a head preview; lines removed are no byte count"
        );
        let tail = "...51200 bytes truncated...\n\nThe tool call succeeded but the output was truncated. Full output saved to: /d/tool-output/tool_2\nUse Grep to search.\n\nlast line";
        let m = &markers(tail, None)[0];
        assert_eq!(
            (m.omitted_bytes, m.head.as_str(), m.tail.as_str()),
            (Some(51200), "", "last line")
        );
        let streamed = "The command output was 90000 bytes and was truncated (inline limit: 51200 bytes).\nFull output saved to: /d/tool-output/tool_3\nUse Grep to search the full content.";
        let m = &markers(streamed, None)[0];
        assert_eq!(
            (m.kind, m.path.as_deref(), m.total_bytes),
            (
                SpillKind::OpenCodeToolOutput,
                Some("/d/tool-output/tool_3"),
                Some(90000)
            )
        );
    }
}
