//! A message log written as one JSON document that does not parse: its messages array read
//! element by element, so one bad element (a hand edit, a cut write, a stray comma) becomes one
//! error row instead of losing the whole log. Only the array's bounds and its elements' bounds
//! are found here (strings and nesting followed byte by byte); what an element means is
//! `build`'s.

use serde_json::Value;

/// One element: its value, or why it did not parse with its text.
pub type Element = Result<Value, (String, String)>;

/// The elements of the messages array of a document that failed to parse: each element's
/// number (1-based) and either its value or why it did not parse, with its text. `None` when
/// no array of messages can be found (the document opens neither with `[` nor with an object
/// holding `"messages": [`).
pub fn elements(text: &str) -> Option<Vec<(usize, Element)>> {
    let start = array_start(text)?;
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    let mut from = start + 1;
    let push = |from: usize, to: usize, out: &mut Vec<_>| {
        let raw = text[from..to].trim();
        if raw.is_empty() {
            return;
        }
        let n = out.len() + 1;
        out.push((
            n,
            serde_json::from_str::<Value>(raw).map_err(|e| {
                (
                    format!("element {n} is not valid JSON: {e}"),
                    raw.to_owned(),
                )
            }),
        ));
    };
    for (i, &b) in bytes.iter().enumerate().skip(start + 1) {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => depth += 1,
            b']' | b'}' if depth == 0 => {
                // The end of the messages array.
                push(from, i, &mut out);
                return Some(out);
            }
            b']' | b'}' => depth -= 1,
            b',' if depth == 0 => {
                push(from, i, &mut out);
                from = i + 1;
            }
            _ => {}
        }
    }
    // The file ends inside the array (a cut write): what was read is kept.
    push(from, bytes.len(), &mut out);
    Some(out)
}

/// Where the messages array opens: at the top (`[`), or as the value of a top-level
/// `"messages"` key.
fn array_start(text: &str) -> Option<usize> {
    let t = text.trim_start();
    let lead = text.len() - t.len();
    if t.starts_with('[') {
        return Some(lead);
    }
    if !t.starts_with('{') {
        return None;
    }
    let key = text.find("\"messages\"")?;
    let after = &text[key + "\"messages\"".len()..];
    let colon = after.trim_start().strip_prefix(':')?;
    let open = colon.trim_start();
    open.starts_with('[').then(|| text.len() - open.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_bad_element_is_one_error() {
        let got = elements(
            r#"[{"role":"user","content":"a, [b]"}, {"role":"assistant",, "content":"x"}, {"role":"assistant","content":"ok \"]\""}]"#,
        )
        .unwrap();
        assert_eq!(
            got.len(),
            3,
            "three elements, commas and brackets in strings ignored"
        );
        assert_eq!(got[0].1.as_ref().unwrap()["content"], "a, [b]");
        let (why, raw) = got[1].1.as_ref().unwrap_err();
        assert!(why.starts_with("element 2 is not valid JSON"), "{why}");
        assert_eq!(raw, r#"{"role":"assistant",, "content":"x"}"#);
        assert_eq!(got[2].1.as_ref().unwrap()["content"], "ok \"]\"");
    }

    #[test]
    fn a_messages_key_and_a_cut_end() {
        let got =
            elements(r#"{"model":"m","messages":[{"role":"user","content":"hi"}, {"role":"assis"#)
                .unwrap();
        assert_eq!(
            got.len(),
            2,
            "the element cut by the end of the file is the second"
        );
        assert!(got[0].1.is_ok() && got[1].1.is_err());
        assert_eq!(elements("not json"), None, "no array: nothing to split");
    }
}
