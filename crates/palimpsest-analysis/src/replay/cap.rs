//! coworker's tool-result cap (`coworker/toolresult.py`, v2 rules), applied on arrival during a
//! replay: a result over `max_bytes` UTF-8 bytes keeps its head and tail around the exact marker.
//! Strings are cut to `max_bytes − 400`; a JSON object has its largest string field bounded, up
//! to four rounds, so the rest stays valid JSON; each cut shrinks until the whole result fits
//! (`_fit`). Replays write no spill files, so the marker says
//! `full text not saved`. Parsing markers that sessions already carry is the reader's
//! (`sources::coworker::cap`).

use serde_json::Value;

use super::pyjson;

/// Bytes reserved for the marker.
pub const MARKER_RESERVE: usize = 400;
/// The least a bounded text keeps (`_MIN_KEEP`, v2).
pub const MIN_KEEP: usize = 1_000;
/// coworker's default cap.
pub const DEFAULT_MAX_BYTES: usize = super::defaults::DEFAULTS.coworker_tool_result_cap;

/// `head_tail(text, keep_bytes)`: the first and last halves of `keep` bytes (at least
/// [`MIN_KEEP`]) around the marker; characters split by the cut are dropped, as Python's
/// `errors="ignore"` does. As upstream, a text shorter than `keep` gets its halves overlapping
/// and `0 bytes omitted`.
pub fn head_tail(text: &str, keep_bytes: usize) -> String {
    HeadTail::of(text, keep_bytes).render(text)
}

/// Where [`head_tail`] cuts a text: `text[..head]`, the marker, `text[tail..]` (kept apart so
/// the cut can be counted from the whole text's pieces, `tokens::cut`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeadTail {
    /// Bytes kept from the start.
    pub head: usize,
    /// Where the kept end starts.
    pub tail: usize,
    /// The marker between them.
    pub marker: String,
}

impl HeadTail {
    /// [`head_tail`]'s cut of `text` keeping `keep_bytes`.
    pub fn of(text: &str, keep_bytes: usize) -> HeadTail {
        let total = text.len();
        let half = keep_bytes.max(MIN_KEEP) / 2;
        let mut h = half.min(total);
        while !text.is_char_boundary(h) {
            h -= 1;
        }
        let mut t = total.saturating_sub(half);
        while !text.is_char_boundary(t) {
            t += 1;
        }
        let omitted = total.saturating_sub(h + (total - t));
        HeadTail {
            head: h,
            tail: t,
            marker: format!(
                "\n[... {omitted} bytes omitted here; this result was {total} bytes; full text not saved ...]\n"
            ),
        }
    }

    /// The cut text.
    pub fn render(&self, text: &str) -> String {
        [&text[..self.head], &self.marker, &text[self.tail..]].concat()
    }

    /// Its length in bytes.
    pub fn len(&self, text: &str) -> usize {
        self.head + self.marker.len() + (text.len() - self.tail)
    }
}

/// What a cap stores of a result: a text cut to head and tail, or a JSON object with its
/// largest strings bounded (written out).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Bound {
    /// The text, cut.
    Cut(HeadTail),
    /// The object, bounded and written as `json.dumps` writes it.
    Json(String),
}

impl Bound {
    /// The stored text.
    pub fn render(self, text: &str) -> String {
        match self {
            Bound::Cut(c) => c.render(text),
            Bound::Json(s) => s,
        }
    }
}

/// `_fit`: `cut(keep)`, then up to 8 times shrink `keep` by the overshoot (at least 2) and cut
/// again, until `over(result) <= 0`. A byte cut can save fewer bytes than it drops, and JSON
/// escaping grows what was kept, so one retry is not enough.
fn fit<T>(cut: impl Fn(i64) -> T, mut keep: i64, over: impl Fn(&T) -> i64) -> T {
    let mut bounded = cut(keep);
    for _ in 0..8 {
        let o = over(&bounded);
        if o <= 0 {
            break;
        }
        keep -= o.max(2);
        bounded = cut(keep);
    }
    bounded
}

fn size(v: &serde_json::Map<String, Value>) -> i64 {
    i64::try_from(pyjson::dumps_len(&Value::Object(v.clone()))).unwrap_or(i64::MAX)
}

/// The text a result of `text` is stored as under a cap of `max_bytes` (0 = off). `None` when
/// it fits and is stored unchanged. A JSON object is measured as `json.dumps` writes it
/// (`\uXXXX` for every non-ASCII character, `\n` for a newline) and ends within the cap.
pub fn bound(text: &str, max_bytes: usize) -> Option<String> {
    bound_cut(text, max_bytes).map(|b| b.render(text))
}

/// [`bound`], with a plain text's cut kept apart from the text ([`Bound::Cut`]).
pub fn bound_cut(text: &str, max_bytes: usize) -> Option<Bound> {
    if !may_exceed(text.len(), max_bytes) {
        return None;
    }
    let max = i64::try_from(max_bytes).unwrap_or(i64::MAX);
    let keep_from = |n: i64| usize::try_from(n).unwrap_or(0);
    if let Ok(Value::Object(orig)) = serde_json::from_str::<Value>(text) {
        if size(&orig) <= max {
            return None;
        }
        let mut out = orig;
        for _ in 0..4 {
            // Python's `max` over the string fields by UTF-8 size keeps the first of equal
            // sizes (Rust's `max_by_key` the last).
            let Some((key, len)) = out
                .iter()
                .filter_map(|(k, v)| v.as_str().map(|s| (k.clone(), s.len())))
                .fold(None, |best: Option<(String, usize)>, (k, l)| match best {
                    Some((_, b)) if b >= l => best,
                    _ => Some((k, l)),
                })
            else {
                break;
            };
            if len < MIN_KEEP {
                break;
            }
            let mut others = out.clone();
            others.remove(&key);
            let budget = max - size(&others) - MARKER_RESERVE as i64;
            let original = out[&key].as_str().unwrap_or_default().to_owned();
            let bounded = fit(
                |keep| head_tail(&original, keep_from(keep)),
                budget,
                |b: &String| {
                    let mut trial = out.clone();
                    trial.insert(key.clone(), Value::String(b.clone()));
                    size(&trial) - max
                },
            );
            out.insert(key, Value::String(bounded));
            if size(&out) <= max {
                break;
            }
        }
        return Some(Bound::Json(pyjson::dumps(&Value::Object(out))));
    }
    if text.len() <= max_bytes {
        return None;
    }
    Some(Bound::Cut(fit(
        |keep| HeadTail::of(text, keep_from(keep)),
        max - MARKER_RESERVE as i64,
        |c| i64::try_from(c.len(text)).unwrap_or(i64::MAX) - max,
    )))
}

/// False when a text of `len` bytes fits a cap of `max_bytes` (0 = off) whatever it holds, so
/// it need not be read: `json.dumps` writes at most six bytes for each byte of an object
/// (`\uXXXX` for a one-byte character; a separator's added space follows a byte of its own).
pub fn may_exceed(len: usize, max_bytes: usize) -> bool {
    max_bytes != 0 && len.saturating_mul(6) > max_bytes
}

/// [`bound`] of a tool result's text, unpacked (`model::Body`) only when it may exceed the cap:
/// a sweep asks this of every result at every cap.
pub fn bound_body(text: &crate::model::Body, max_bytes: usize) -> Option<String> {
    may_exceed(text.len(), max_bytes)
        .then(|| bound(&text.text(), max_bytes))
        .flatten()
}

/// One tool result a cap changed.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Capped {
    /// The message holding it (stored index).
    pub index: usize,
    /// The call it answers.
    pub call_id: String,
    /// Its size before, in UTF-8 bytes as the harness measures it (`json.dumps` for an object).
    pub bytes_before: usize,
    /// Its size as stored under the cap.
    pub bytes_after: usize,
    /// The text it is stored as.
    pub text: String,
}

/// Every tool result of `session` that a cap of `max_bytes` changes, with the text it becomes.
pub fn capped(session: &crate::model::Session, max_bytes: usize) -> Vec<Capped> {
    let mut out = Vec::new();
    for m in &session.messages {
        for p in &m.parts {
            let crate::model::Part::ToolResult { call_id, text, .. } = p else {
                continue;
            };
            if let Some(after) = bound_body(text, max_bytes) {
                let text = &*text.text();
                let before = match serde_json::from_str::<Value>(text) {
                    Ok(v @ Value::Object(_)) => pyjson::dumps_len(&v),
                    _ => text.len(),
                };
                out.push(Capped {
                    index: m.index,
                    call_id: call_id.clone(),
                    bytes_before: before,
                    bytes_after: after.len(),
                    text: after,
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_keeps_head_and_tail_around_the_marker() {
        let text = "a".repeat(30_000);
        let out = bound(&text, 10_000).expect("over the cap");
        assert_eq!(
            out,
            format!(
                "{}\n[... 20400 bytes omitted here; this result was 30000 bytes; full text not saved ...]\n{}",
                "a".repeat(4_800),
                "a".repeat(4_800)
            ),
            "keep = 10000 - 400 = 9600, halves of 4800"
        );
        assert!(bound(&text, 0).is_none(), "0 turns the cap off");
        assert!(bound("short", 10_000).is_none(), "under the cap: unchanged");
    }

    #[test]
    fn a_text_is_skipped_unread_only_when_it_fits_whatever_it_holds() {
        // Objects that `json.dumps` writes longest against their stored bytes: two-byte
        // characters as `\uXXXX`, compact separators spaced, emoji as surrogate pairs.
        for text in [
            format!(r#"{{"a":"{}"}}"#, "é".repeat(1_000)),
            format!(
                "{{{}}}",
                (0..300)
                    .map(|i| format!(r#""{i}":1"#))
                    .collect::<Vec<_>>()
                    .join(",")
            ),
            format!(r#"{{"e":"{}"}}"#, "😀".repeat(500)),
        ] {
            let v: Value = serde_json::from_str(&text).unwrap();
            let dumped = pyjson::dumps_len(&v);
            assert!(
                dumped <= 6 * text.len() && !may_exceed(text.len(), 6 * text.len()),
                "{dumped} bytes dumped fit six times the {} stored, where it is skipped",
                text.len()
            );
            assert!(
                bound(&text, dumped - 1).is_some(),
                "a cap a byte under the dumped size still cuts it"
            );
            assert!(
                bound(&text, dumped).is_none(),
                "a cap at the dumped size leaves it whole"
            );
        }
        assert!(!may_exceed(10_000, 0), "a cap of 0 is off");
        assert!(may_exceed(1_000, 5_999), "1 000 bytes may dump to 6 000");
    }

    #[test]
    fn split_characters_are_dropped() {
        let text = "é".repeat(2_000); // 4000 bytes
        let out = head_tail(&text, 1_001);
        assert!(
            out.starts_with(&"é".repeat(250)) && !out.starts_with(&"é".repeat(251)),
            "500 bytes of head is exactly 250 two-byte characters"
        );
        assert!(
            out.contains("[... 3000 bytes omitted"),
            "omitted counts the bytes cut: {out:.80}"
        );
    }

    /// `(bytes, markers, omitted, total)` of a bounded result: its size, how many markers it
    /// holds, and what the first says.
    fn measured(out: &str) -> (usize, usize, usize, usize) {
        let re =
            regex::Regex::new(r"\[\.\.\. (\d+) bytes omitted here; this result was (\d+) bytes")
                .unwrap();
        let caps: Vec<_> = re.captures_iter(out).collect();
        let n = |i: usize| caps[0][i].parse::<usize>().unwrap();
        (out.len(), caps.len(), n(1), n(2))
    }

    #[test]
    fn results_end_within_the_cap_byte_for_byte_as_upstream() {
        // Expected: coworker's `bound_tool_result` (toolresult.py at UP-4d50, no spill dir) on
        // the same values under CPython 3.12: serialised bytes, markers, omitted and total bytes.
        let dict = |v: Value| pyjson::dumps(&v);
        for (what, text, want) in [
            (
                "newlines, escaped as \\n in JSON",
                dict(serde_json::json!({"output": "x\n".repeat(6000)})),
                (7751, 1, 6900, 12000),
            ),
            (
                "3 000 CJK characters, 6 bytes each as JSON",
                dict(serde_json::json!({"output": "中".repeat(3000)})),
                (2092, 1, 8004, 9000),
            ),
            (
                "two fields, one with quotes",
                dict(
                    serde_json::json!({"a": "p".repeat(7000), "b": "q\"x".repeat(2000), "code": 0}),
                ),
                (9695, 1, 5420, 7000),
            ),
            (
                "a plain string of 2-byte characters",
                "é".repeat(8000),
                (9685, 1, 6400, 16000),
            ),
        ] {
            let out = bound(&text, 10_000).expect("over the cap");
            assert_eq!(measured(&out), want, "{what}: as upstream bounds it");
        }
    }

    #[test]
    fn of_two_fields_of_equal_size_the_first_is_cut() {
        let text = pyjson::dumps(
            &serde_json::json!({"stdout": "a".repeat(8_000), "stderr": "b".repeat(8_000)}),
        );
        let out: Value = serde_json::from_str(&bound(&text, 10_000).unwrap()).unwrap();
        assert!(
            out["stdout"]
                .as_str()
                .unwrap()
                .contains("bytes omitted here"),
            "the first in key order is cut, as Python's max picks it"
        );
        assert_eq!(
            out["stderr"].as_str().unwrap().len(),
            8_000,
            "the second stays whole once the result fits"
        );
    }

    #[test]
    fn dict_bounds_its_largest_field_and_stays_json() {
        let big = "x".repeat(20_000);
        let text = pyjson::dumps(
            &serde_json::json!({"command": "cat big", "exit_code": 0, "output": big}),
        );
        let out = bound(&text, 10_000).expect("over the cap");
        let v: Value = serde_json::from_str(&out).expect("still JSON");
        assert_eq!(v["command"], "cat big", "small fields untouched");
        assert!(out.len() <= 10_000, "fits after bounding: {}", out.len());
        assert!(
            v["output"]
                .as_str()
                .unwrap()
                .contains("bytes omitted here; this result was 20000 bytes"),
            "the output field carries the marker"
        );
    }
}
