//! Python's `json.dumps` with its defaults, byte for byte: `", "` and `": "` separators,
//! `ensure_ascii` (`\uXXXX`, surrogate pairs beyond the BMP), keys in stored order and floats as
//! Python's `repr`. The coworker harness sizes messages and tool results with it, so a replay
//! that estimates differently fires compactions at different points. Also Python's `str()` of a
//! decoded JSON value ([`py_str`]), which the harness writes where a tool argument is not a
//! string.

use std::fmt::Write;

use serde_json::{Number, Value};

/// `json.dumps(value)` as Python writes it.
pub fn dumps(value: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value, Style::Json);
    out
}

/// `len(json.dumps(value))` without building the string twice (ASCII out, so bytes = chars).
pub fn dumps_len(value: &Value) -> usize {
    dumps(value).len()
}

/// How [`write_value`] spells what JSON and Python's `repr` spell differently.
#[derive(Clone, Copy, PartialEq)]
enum Style {
    /// `json.dumps`: `null`, `true`, `"…"` with `ensure_ascii`.
    Json,
    /// `repr` of what `json.loads` gives: `None`, `True`, `'…'`.
    Repr,
}

/// One value as `json.dumps` or `repr` writes it; both use `", "` and `": "` and keep key order.
fn write_value(out: &mut String, v: &Value, style: Style) {
    let text = |out: &mut String, s: &str| match style {
        Style::Json => write_str(out, s),
        Style::Repr => write_str_repr(out, s),
    };
    match (v, style) {
        (Value::Null, Style::Json) => out.push_str("null"),
        (Value::Null, Style::Repr) => out.push_str("None"),
        (Value::Bool(b), Style::Json) => out.push_str(if *b { "true" } else { "false" }),
        (Value::Bool(b), Style::Repr) => out.push_str(if *b { "True" } else { "False" }),
        (Value::Number(n), _) => write_number(out, n),
        (Value::String(s), _) => text(out, s),
        (Value::Array(a), _) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_value(out, x, style);
            }
            out.push(']');
        }
        (Value::Object(o), _) => {
            out.push('{');
            for (i, (k, x)) in o.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                text(out, k);
                out.push_str(": ");
                write_value(out, x, style);
            }
            out.push('}');
        }
    }
}

/// A JSON string literal with Python's `ensure_ascii` escaping.
pub fn write_str(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{08}' => out.push_str("\\b"),
            '\u{0c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 || (c as u32) > 0x7e => {
                let mut buf = [0u16; 2];
                for unit in c.encode_utf16(&mut buf) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

fn write_number(out: &mut String, n: &Number) {
    if let Some(i) = n.as_i64() {
        let _ = write!(out, "{i}");
    } else if let Some(u) = n.as_u64() {
        let _ = write!(out, "{u}");
    } else if let Some(f) = n.as_f64() {
        out.push_str(&float_repr(f));
    }
}

/// Python's `repr(float)`: shortest round-trip digits, fixed notation for exponents in
/// [-4, 16), else `d.ddde+XX`; always a `.0` or an exponent so it reads back as a float.
pub fn float_repr(f: f64) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0.0" } else { "0.0" }.into();
    }
    // Rust's `{:e}` gives the shortest round-trip digits, e.g. `1.788116093894623e9`.
    let sci = format!("{f:e}");
    let (mant, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let neg = mant.starts_with('-');
    let digits: String = mant.chars().filter(char::is_ascii_digit).collect();
    let sign = if neg { "-" } else { "" };
    if (-4..16).contains(&exp) {
        let point = exp + 1; // digits before the decimal point
        let s = if point <= 0 {
            format!("0.{}{digits}", "0".repeat((-point) as usize))
        } else if point as usize >= digits.len() {
            format!("{digits}{}.0", "0".repeat(point as usize - digits.len()))
        } else {
            format!(
                "{}.{}",
                &digits[..point as usize],
                &digits[point as usize..]
            )
        };
        format!("{sign}{s}")
    } else {
        let m = if digits.len() > 1 {
            format!("{}.{}", &digits[..1], &digits[1..])
        } else {
            digits
        };
        let es = if exp < 0 { '-' } else { '+' };
        format!("{sign}{m}e{es}{:02}", exp.abs())
    }
}

/// Python's `str(value)` of what `json.loads` gives: a string as it is, anything else as its
/// `repr` (`7`, `True`, `None`, `['ls', '-la']`, `{'a': 1.5}`).
pub fn py_str(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        v => {
            let mut out = String::new();
            write_value(&mut out, v, Style::Repr);
            out
        }
    }
}

/// `repr(s)`: single quotes unless the text holds one and no double quote; the quote, the
/// backslash, `\n` `\r` `\t` and characters Python does not print (controls, separators other
/// than the space, format characters) escaped as `\xhh`, `\uhhhh` or `\Uhhhhhhhh`.
fn write_str_repr(out: &mut String, s: &str) {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if !py_printable(c) => {
                let n = c as u32;
                let _ = match n {
                    0..=0xff => write!(out, "\\x{n:02x}"),
                    0x100..=0xffff => write!(out, "\\u{n:04x}"),
                    _ => write!(out, "\\U{n:08x}"),
                };
            }
            c => out.push(c),
        }
    }
    out.push(quote);
}

/// Python's `str.isprintable` for the characters transcripts hold: not a control, not a
/// separator other than the space, not a format character.
fn py_printable(c: char) -> bool {
    let n = c as u32;
    !(c.is_control()
        || (c.is_whitespace() && c != ' ')
        || n == 0xad
        || (0x200b..=0x200f).contains(&n)
        || (0x202a..=0x202e).contains(&n)
        || (0x2060..=0x2064).contains(&n)
        || n == 0xfeff)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn str_of_values_reads_like_python() {
        // Expected strings are what CPython 3.12's str() prints for the same decoded JSON.
        for (json, want) in [
            ("7", "7"),
            (r#"["ls", "-la"]"#, "['ls', '-la']"),
            (
                r#"{"a": [1, 2.5, null, true, false]}"#,
                "{'a': [1, 2.5, None, True, False]}",
            ),
            (
                r#"["it's", "say \"hi\"", "both ' \""]"#,
                r#"["it's", 'say "hi"', 'both \' "']"#,
            ),
            ("1e+21", "1e+21"),
            ("-0.0", "-0.0"),
            (
                r#"["\n\t\u0001\u007f\u00a0\u00e9\u2028\u200b\ud83d\ude00\\"]"#,
                "['\\n\\t\\x01\\x7f\\xa0é\\u2028\\u200b😀\\\\']",
            ),
            (r#"{"k": {"n": []}}"#, "{'k': {'n': []}}"),
            (r#""plain text""#, "plain text"),
        ] {
            let v: Value = serde_json::from_str(json).unwrap();
            assert_eq!(py_str(&v), want, "str({json})");
        }
    }

    #[test]
    fn matches_python_dumps() {
        // Expected strings are what CPython 3.12 prints for the same values.
        let v: Value = serde_json::from_str(
            r#"{"role": "tool", "b": [1, 2.5, null, true], "a": "é😀\n\"x\""}"#,
        )
        .unwrap();
        assert_eq!(
            dumps(&v),
            r#"{"role": "tool", "b": [1, 2.5, null, true], "a": "\u00e9\ud83d\ude00\n\"x\""}"#,
            "separators, key order, ensure_ascii with surrogate pairs"
        );
        assert_eq!(dumps(&json!({})), "{}", "empty object");
        assert_eq!(
            dumps(&json!("\u{7f}")),
            r#""\u007f""#,
            "DEL is escaped by ensure_ascii"
        );
    }

    #[test]
    fn floats_read_like_python_repr() {
        for (f, want) in [
            (1788116093.8946235, "1788116093.8946235"),
            (1.0, "1.0"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1e16, "1e+16"),
            (123456789012345.6, "123456789012345.6"),
            (-2.5e-7, "-2.5e-07"),
            (1.5e300, "1.5e+300"),
        ] {
            assert_eq!(float_repr(f), want, "repr({f})");
        }
    }
}
