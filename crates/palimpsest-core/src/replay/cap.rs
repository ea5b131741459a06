//! coworker's tool-result cap (`coworker/toolresult.py`, v2 rules), applied on arrival during a
//! replay: a result over `max_bytes` UTF-8 bytes keeps its head and tail around the exact marker.
//! Strings are cut to `max_bytes − 400`; a JSON object has its largest string field bounded, up
//! to four rounds, so the rest stays valid JSON. Replays write no spill files, so the marker says
//! `full text not saved`. Parsing markers that sessions already carry is the reader's
//! (`sources::coworker::cap`).

use serde_json::Value;

use super::pyjson;

/// Bytes reserved for the marker.
pub const MARKER_RESERVE: usize = 400;
/// The least a bounded text keeps (`_MIN_KEEP`, v2).
pub const MIN_KEEP: usize = 1_000;
/// coworker's default cap.
pub const DEFAULT_MAX_BYTES: usize = 10_000;

/// `head_tail(text, keep_bytes)`: the first and last halves of `keep` bytes around the marker;
/// characters split by the cut are dropped, as Python's `errors="ignore"` does.
pub fn head_tail(text: &str, keep_bytes: usize) -> String {
    let bytes = text.as_bytes();
    let total = bytes.len();
    let half = keep_bytes.max(MIN_KEEP) / 2;
    if total <= 2 * half {
        return text.to_owned();
    }
    let mut h = half;
    while !text.is_char_boundary(h) {
        h -= 1;
    }
    let mut t = total - half;
    while !text.is_char_boundary(t) {
        t += 1;
    }
    let (head, tail) = (&text[..h], &text[t..]);
    let omitted = total - head.len() - tail.len();
    format!(
        "{head}\n[... {omitted} bytes omitted here; this result was {total} bytes; full text not saved ...]\n{tail}"
    )
}

/// The text a result of `text` is stored as under a cap of `max_bytes` (0 = off). `None` when
/// it fits and is stored unchanged.
pub fn bound(text: &str, max_bytes: usize) -> Option<String> {
    if max_bytes == 0 || text.len() <= max_bytes {
        return None;
    }
    if let Ok(Value::Object(mut obj)) = serde_json::from_str::<Value>(text) {
        for _ in 0..4 {
            let whole = pyjson::dumps_len(&Value::Object(obj.clone()));
            if whole <= max_bytes {
                break;
            }
            let Some((key, len)) = obj
                .iter()
                .filter_map(|(k, v)| v.as_str().map(|s| (k.clone(), s.len())))
                .filter(|(_, l)| *l >= MIN_KEEP)
                // Python's `max` keeps the first of equal sizes (Rust's `max_by_key` the last).
                .fold(None, |best: Option<(String, usize)>, (k, l)| match best {
                    Some((_, b)) if b >= l => best,
                    _ => Some((k, l)),
                })
            else {
                break;
            };
            let mut others = obj.clone();
            others.remove(&key);
            let rest = pyjson::dumps_len(&Value::Object(others));
            let budget = max_bytes.saturating_sub(rest + MARKER_RESERVE);
            let cut = head_tail(obj[&key].as_str().unwrap_or_default(), budget);
            if cut.len() >= len {
                break;
            }
            obj.insert(key, Value::String(cut));
        }
        return Some(pyjson::dumps(&Value::Object(obj)));
    }
    Some(head_tail(text, max_bytes.saturating_sub(MARKER_RESERVE)))
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
