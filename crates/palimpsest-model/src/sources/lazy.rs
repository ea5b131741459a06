//! Size caps on the stored JSON a reader keeps beside a message (details, a part's `raw`).
//!
//! A loaded session keeps each record's structured leftovers for the details pane and the
//! export, but the big ones repeat what the message already holds (a tool result's text) or
//! what nobody reads without asking (an Edit's whole original file). They are replaced by a
//! size note; every reader's raw view (`SessionSource::raw`) re-reads the record when someone
//! wants it whole. Which values a reader keeps is the reader's business.

use serde_json::{Value, json};

/// Details bigger than this (summed string bytes) are replaced by a size note.
pub const DETAIL_BUDGET: usize = 16 * 1024;

/// Strings at least this long that repeat a result's text are noted, not kept twice.
const REPEAT_FROM: usize = 256;

/// `v` itself when small; otherwise a note of its size (the raw view still has it whole).
pub fn lazy(v: &Value) -> Value {
    lazy_within(v, DETAIL_BUDGET)
}

/// [`lazy`] with another budget (summed string bytes).
pub fn lazy_within(v: &Value, budget: usize) -> Value {
    let size = weight(v, budget + 1);
    if size <= budget {
        v.clone()
    } else {
        json!({ "omitted": "too large to keep in the session; see the raw line", "approx_bytes": weight(v, usize::MAX) })
    }
}

/// A tool result's stored record without the copies of its `text`: each string equal to it
/// (a response's `output`, a result's `content`) becomes a size note, then the rest is capped
/// as [`lazy`] caps it. Without this, a harness that stores the result's text inside its
/// structured result (Gemini CLI, Qwen Code, Copilot CLI) kept every output twice.
pub fn result_raw(v: &Value, text: &str) -> Value {
    if text.len() < REPEAT_FROM {
        return lazy(v);
    }
    // Built without the copies rather than cloned and then mended: the clone would copy the
    // very text it drops, which was a tenth of a Gemini CLI or Qwen Code load.
    let out = without_copies(v, text);
    if weight(&out, DETAIL_BUDGET + 1) <= DETAIL_BUDGET {
        out
    } else {
        lazy(&out)
    }
}

fn without_copies(v: &Value, text: &str) -> Value {
    match v {
        Value::String(s) if s.as_str() == text => {
            json!({ "omitted": "the result's text; see the raw line", "approx_bytes": text.len() })
        }
        Value::Array(a) => Value::Array(a.iter().map(|x| without_copies(x, text)).collect()),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, x)| (k.clone(), without_copies(x, text)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Approximate serialised size of `v`, stopping early past `cap`.
fn weight(v: &Value, cap: usize) -> usize {
    match v {
        Value::String(s) => s.len() + 2,
        Value::Array(a) => {
            let mut n = 2;
            for x in a {
                n += weight(x, cap) + 1;
                if n > cap {
                    break;
                }
            }
            n
        }
        Value::Object(o) => {
            let mut n = 2;
            for (k, x) in o {
                n += k.len() + 4 + weight(x, cap);
                if n > cap {
                    break;
                }
            }
            n
        }
        _ => 8,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_record_keeps_its_fields_but_not_a_second_copy_of_its_text() {
        let text = "x".repeat(300);
        let v = json!({"id": "c1", "response": {"output": text}, "status": "success"});
        assert_eq!(
            result_raw(&v, &text),
            json!({"id": "c1", "response": {"output": {"omitted": "the result's text; see the raw line", "approx_bytes": 300}}, "status": "success"})
        );
        // A short text costs nothing to keep twice.
        let v = json!({"output": "ok"});
        assert_eq!(result_raw(&v, "ok"), v);
    }

    #[test]
    fn a_large_value_becomes_a_size_note() {
        let v = json!({"file": "y".repeat(DETAIL_BUDGET)});
        assert_eq!(
            lazy(&v),
            json!({"omitted": "too large to keep in the session; see the raw line", "approx_bytes": DETAIL_BUDGET + 2 + 4 + 4 + 2})
        );
    }
}
