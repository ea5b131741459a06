//! Python's `json.dumps` defaults (`ensure_ascii=True`, separators `", "` and `": "`), which is
//! how coworker writes every JSONL line, so the fixtures' raw text reads like the real thing.

use std::io::{self, Write};

use serde_json::Value;
use serde_json::ser::{CharEscape, Formatter, Serializer};

struct Py;

impl Formatter for Py {
    fn begin_array_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        if first { Ok(()) } else { w.write_all(b", ") }
    }

    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        if first { Ok(()) } else { w.write_all(b", ") }
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        w.write_all(b": ")
    }

    fn write_string_fragment<W: ?Sized + Write>(
        &mut self,
        w: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        for c in fragment.chars() {
            if c.is_ascii() {
                w.write_all(&[c as u8])?;
            } else {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    write!(w, "\\u{u:04x}")?;
                }
            }
        }
        Ok(())
    }

    fn write_char_escape<W: ?Sized + Write>(
        &mut self,
        w: &mut W,
        escape: CharEscape,
    ) -> io::Result<()> {
        let s: &[u8] = match escape {
            CharEscape::Quote => b"\\\"",
            CharEscape::ReverseSolidus => b"\\\\",
            CharEscape::Solidus => b"/",
            CharEscape::Backspace => b"\\b",
            CharEscape::FormFeed => b"\\f",
            CharEscape::LineFeed => b"\\n",
            CharEscape::CarriageReturn => b"\\r",
            CharEscape::Tab => b"\\t",
            CharEscape::AsciiControl(b) => return write!(w, "\\u{b:04x}"),
        };
        w.write_all(s)
    }
}

/// `json.dumps(v)` as Python writes it.
pub fn dumps(v: &Value) -> String {
    let mut out = Vec::new();
    let mut ser = Serializer::with_formatter(&mut out, Py);
    serde::Serialize::serialize(v, &mut ser).expect("serialising a Value to memory cannot fail");
    String::from_utf8(out).expect("the formatter writes ASCII only")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_python_defaults() {
        let v = serde_json::json!({"a": [1, "é—\n"], "b": {}});
        assert_eq!(
            dumps(&v),
            r#"{"a": [1, "\u00e9\u2014\n"], "b": {}}"#,
            "separators and ASCII escaping as json.dumps writes them"
        );
    }
}
