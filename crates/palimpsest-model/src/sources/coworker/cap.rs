//! The marker coworker's tool-result cap (`coworker/toolresult.py`) leaves in a bounded result,
//! and the JSON shapes of the later and parallel cap schemes that name a spill file.
//!
//! Parsing only: whether the spill file still exists, and where, is the reader's business.

use std::ops::Range;

use serde_json::Value;

/// What one cap marker says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CapMarker {
    /// Bytes cut out of the middle of the result.
    pub omitted_bytes: u64,
    /// UTF-8 size of the whole result before the cut.
    pub total_bytes: u64,
    /// The spill file holding the full text; `None` for "full text not saved".
    pub spill_path: Option<String>,
    /// Byte range of the marker in the text it was found in (without the surrounding newlines).
    pub span: Range<usize>,
}

const OPEN: &str = "[... ";
const OMITTED: &str = " bytes omitted here; this result was ";
const WAS: &str = " bytes; ";
const NOT_SAVED: &str = "full text not saved ...]";
const SAVED: &str = "full text saved to ";
const READ_IT: &str = " (read it with read_file, or run_shell: sed -n '1,200p' \"";
const CLOSE: &str = "\") ...]";

/// The first cap marker in `text`, e.g.
/// `[... 10240 bytes omitted here; this result was 19840 bytes; full text not saved ...]`.
pub fn parse_cap_marker(text: &str) -> Option<CapMarker> {
    find_cap_markers(text).into_iter().next()
}

/// Every cap marker in `text`, in order (a dict result bounded field by field has several).
pub fn find_cap_markers(text: &str) -> Vec<CapMarker> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(rel) = text[from..].find(OPEN) {
        let start = from + rel;
        match marker_at(text, start) {
            Some(m) => {
                from = m.span.end;
                found.push(m);
            }
            None => from = start + OPEN.len(),
        }
    }
    found
}

fn marker_at(text: &str, start: usize) -> Option<CapMarker> {
    let rest = &text[start + OPEN.len()..];
    let (omitted, rest) = number(rest)?;
    let rest = rest.strip_prefix(OMITTED)?;
    let (total, rest) = number(rest)?;
    let rest = rest.strip_prefix(WAS)?;
    let consumed_before = text.len() - rest.len();
    if rest.starts_with(NOT_SAVED) {
        return Some(CapMarker {
            omitted_bytes: omitted,
            total_bytes: total,
            spill_path: None,
            span: start..consumed_before + NOT_SAVED.len(),
        });
    }
    let after = rest.strip_prefix(SAVED)?;
    // The path is written twice; the first copy ends at the read hint, the second must match.
    let cut = after.find(READ_IT)?;
    let path = &after[..cut];
    let tail = after[cut + READ_IT.len()..].strip_prefix(path)?;
    let tail = tail.strip_prefix(CLOSE)?;
    Some(CapMarker {
        omitted_bytes: omitted,
        total_bytes: total,
        spill_path: Some(path.to_owned()),
        span: start..text.len() - tail.len(),
    })
}

fn number(s: &str) -> Option<(u64, &str)> {
    let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    Some((s[..end].parse().ok()?, &s[end..]))
}

/// Spill paths named by a structured result: v3's `{"truncated":true,"full_result_path":…}` and
/// the `openworker_large_result` scheme's `result_ref`, plus markers inside any string field
/// (a dict result is bounded field by field, so its markers sit in the field values).
pub fn spill_markers_in_value(v: &Value, out: &mut Vec<CapMarker>, paths: &mut Vec<String>) {
    match v {
        Value::String(s) => out.extend(find_cap_markers(s)),
        Value::Array(items) => items
            .iter()
            .for_each(|i| spill_markers_in_value(i, out, paths)),
        Value::Object(map) => {
            let large = map.get("openworker_large_result") == Some(&Value::Bool(true));
            for (k, val) in map {
                match (k.as_str(), val) {
                    ("full_result_path", Value::String(p)) => paths.push(p.clone()),
                    ("result_ref", Value::String(p)) if large => paths.push(p.clone()),
                    _ => spill_markers_in_value(val, out, paths),
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saved_marker_yields_sizes_and_path() {
        let p = "/home/u/OpenWorker/ab12/tool-output/0007-run_shell.txt";
        let text = format!(
            "head\n[... 9000 bytes omitted here; this result was 18600 bytes; full text saved to {p} (read it with read_file, or run_shell: sed -n '1,200p' \"{p}\") ...]\ntail"
        );
        let m = parse_cap_marker(&text).expect("marker present");
        assert_eq!(
            (m.omitted_bytes, m.total_bytes, m.spill_path.as_deref()),
            (9000, 18600, Some(p)),
            "sizes and absolute spill path are read from the marker"
        );
        assert_eq!(
            &text[m.span.clone()][..5],
            "[... ",
            "span starts at the bracket"
        );
        assert!(
            text[m.span].ends_with("...]"),
            "span ends at the closing bracket"
        );
    }

    #[test]
    fn unsaved_marker_and_paths_with_spaces() {
        let m = parse_cap_marker(
            "x\n[... 1 bytes omitted here; this result was 10001 bytes; full text not saved ...]\ny",
        )
        .expect("unsaved marker");
        assert_eq!(m.spill_path, None, "`full text not saved` has no path");
        let p = "/tmp/my dir/0001-a.txt";
        let t = format!(
            "[... 5 bytes omitted here; this result was 6 bytes; full text saved to {p} (read it with read_file, or run_shell: sed -n '1,200p' \"{p}\") ...]"
        );
        assert_eq!(
            parse_cap_marker(&t).and_then(|m| m.spill_path).as_deref(),
            Some(p),
            "a path with a space is read whole"
        );
    }

    #[test]
    fn lookalike_text_is_not_a_marker() {
        assert_eq!(
            parse_cap_marker("[... 12 bytes omitted here; and more]"),
            None,
            "a partial marker must not match"
        );
        assert!(
            find_cap_markers("no marker here").is_empty(),
            "plain text has none"
        );
    }
}
