//! Damage to line-oriented files (JSONL): bad lines inserted at every early position and in
//! every shape (torn JSON, scalars, invalid UTF-8, NUL bytes, deep nesting, a 5 MB line, an
//! unknown record type), lines replaced, files cut short, other encodings and line endings,
//! duplicated lines, empty files, and fields of the wrong type. 50 cases per base.

use std::path::Path;

use anyhow::Result;
use serde_json::Value;

use super::{Base, Case, Expect};

/// A line no JSON parser accepts.
const TORN: &[u8] = br#"{"type":"user","message":{"role":"#;

fn split(bytes: &[u8]) -> Vec<Vec<u8>> {
    bytes
        .split(|&b| b == b'\n')
        .filter(|l| !l.trim_ascii().is_empty())
        .map(<[u8]>::to_vec)
        .collect()
}

/// The lines joined with newlines; the last one unfinished (no newline) when the good file's
/// is, since a reader leaves an unfinished last line out.
fn join(lines: &[Vec<u8>], good: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    for l in lines {
        out.extend_from_slice(l);
        out.push(b'\n');
    }
    if !good.ends_with(b"\n") {
        out.pop();
    }
    out
}

fn insert(lines: &[Vec<u8>], good: &[u8], at: usize, bad: &[u8]) -> Vec<u8> {
    let mut v = lines.to_vec();
    // Never after an unfinished last line: the bad line would finish it.
    let end = if good.ends_with(b"\n") {
        v.len()
    } else {
        v.len() - 1
    };
    v.insert(at.min(end), bad.to_vec());
    join(&v, good)
}

fn deep(n: usize) -> Vec<u8> {
    let mut v = vec![b'['; n];
    v.extend(std::iter::repeat_n(b']', n));
    v
}

/// Every line case of `base`, written under `out`.
pub fn cases(base: &Base, out: &Path) -> Result<Vec<Case>> {
    let good = base.main_bytes().to_vec();
    let lines = split(&good);
    let mut made: Vec<(String, Vec<u8>, Expect)> = Vec::new();
    let all_good = |extra| Expect::AllGood { extra_rows: extra };
    // coworker's records index stored lines: an inserted line shifts what follows.
    let inserted = |extra| {
        if base.format == "coworker" {
            Expect::AllGoodAnyOrder { extra_rows: extra }
        } else {
            all_good(extra)
        }
    };

    // A torn line before each of the first ten lines (and after the last): one error row each.
    for at in 0..10 {
        made.push((
            format!("bad-line-at-{}", at + 1),
            insert(&lines, &good, at, TORN),
            inserted(1),
        ));
    }
    // Every shape of bad line, as line 2.
    let huge = {
        let mut v = b"{\"type\":\"user\",\"text\":\"".to_vec();
        v.extend(std::iter::repeat_n(b'a', 5 << 20));
        v
    };
    let shapes: Vec<(&str, Vec<u8>)> = vec![
        ("garbage", b"this is not json at all".to_vec()),
        ("scalar-number", b"42".to_vec()),
        ("scalar-string", b"\"just a string\"".to_vec()),
        ("scalar-null", b"null".to_vec()),
        ("array", b"[1, 2, 3]".to_vec()),
        (
            "invalid-utf8",
            b"{\"type\":\"user\",\"x\":\"\xff\xfe\xfd\"}".to_vec(),
        ),
        ("nul-bytes", b"{\"type\":\0\0\"user\"}".to_vec()),
        ("deep-nesting", deep(100_000)),
        ("huge-torn-line", huge),
        (
            "unknown-record",
            br#"{"type":"x-record-from-the-future","data":{"a":1}}"#.to_vec(),
        ),
    ];
    for (name, bad) in shapes {
        made.push((
            format!("line-2-{name}"),
            insert(&lines, &good, 1, &bad),
            inserted(1),
        ));
    }
    // A line replaced: its message is lost, the rest load.
    for k in 0..5.min(lines.len()) {
        let mut v = lines.clone();
        v[k] = TORN.to_vec();
        made.push((
            format!("line-{}-replaced", k + 1),
            join(&v, &good),
            Expect::Either,
        ));
    }
    // Cut short anywhere, as a crash or a copy mid-write leaves it.
    for pct in [5, 20, 40, 60, 80, 99] {
        let cut = good.len() * pct / 100;
        made.push((
            format!("cut-at-{pct}pct"),
            good[..cut].to_vec(),
            Expect::Either,
        ));
    }
    // Other encodings and line endings of the same content.
    let mut bom = b"\xEF\xBB\xBF".to_vec();
    bom.extend_from_slice(&good);
    made.push(("bom".into(), bom, all_good(0)));
    let ends = |sep: &[u8]| -> Vec<u8> {
        let mut v: Vec<u8> = lines
            .iter()
            .flat_map(|l| [l.as_slice(), sep].concat())
            .collect();
        if !good.ends_with(b"\n") {
            v.truncate(v.len() - sep.len());
        }
        v
    };
    made.push(("crlf".into(), ends(b"\r\n"), all_good(0)));
    made.push(("blank-lines".into(), ends(b"\n\n  \n"), all_good(0)));
    made.push(("trailing-spaces".into(), ends(b" \t \n"), all_good(0)));
    if good.ends_with(b"\n") {
        let mut no_newline = join(&lines, &good);
        no_newline.pop();
        made.push(("no-final-newline".into(), no_newline, all_good(0)));
    } else {
        let mut finished = join(&lines, &good);
        finished.push(b'\n');
        made.push(("last-line-finished".into(), finished, Expect::Loads));
    }
    // Duplicates.
    if lines.len() > 2 {
        let mut v = lines.clone();
        v.insert(3, lines[2].clone());
        made.push(("duplicate-line-3".into(), join(&v, &good), Expect::Either));
    }
    // Nothing to read. A session whose file is one of several (coworker's conversation beside
    // its database row) may still list, empty.
    let nothing = if base.target == base.main {
        Expect::Refused
    } else {
        Expect::Either
    };
    made.push(("empty".into(), Vec::new(), nothing.clone()));
    made.push((
        "whitespace-only".into(),
        b"\n \n\t\n".to_vec(),
        nothing.clone(),
    ));
    made.push((
        "only-bad-lines".into(),
        [TORN, b"\n", TORN, b"\n"].concat(),
        nothing,
    ));
    // Fields of the wrong type in each of the first three lines that are objects.
    let objects: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| serde_json::from_slice::<Value>(l).is_ok_and(|v| v.is_object()))
        .map(|(i, _)| i)
        .take(3)
        .collect();
    for &k in &objects {
        for (how, to) in [
            ("null", Value::Null),
            ("number", Value::from(7)),
            ("array", Value::Array(vec![Value::from(true)])),
        ] {
            let mut v = lines.clone();
            v[k] = retyped(&lines[k], &to);
            made.push((
                format!("line-{}-fields-{how}", k + 1),
                join(&v, &good),
                Expect::Either,
            ));
        }
    }
    let mut out_cases = Vec::new();
    for (name, bytes, expect) in made {
        let case = base.case(out, &name, expect);
        base.write(&case.dir, Some(&bytes))?;
        out_cases.push(case);
    }
    Ok(out_cases)
}

/// `line` with every field (at the top and one level down) set to `to`, keeping `type`, so the
/// reader still takes it for its own kind of record.
fn retyped(line: &[u8], to: &Value) -> Vec<u8> {
    let Ok(Value::Object(mut o)) = serde_json::from_slice::<Value>(line) else {
        return line.to_vec();
    };
    for (k, v) in o.iter_mut() {
        if k == "type" {
            continue;
        }
        match v {
            Value::Object(inner) => {
                for (ik, iv) in inner.iter_mut() {
                    if ik != "type" {
                        *iv = to.clone();
                    }
                }
            }
            other => *other = to.clone(),
        }
    }
    serde_json::to_vec(&Value::Object(o)).unwrap_or_else(|_| line.to_vec())
}
