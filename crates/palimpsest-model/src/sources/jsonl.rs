//! Streaming JSON-lines reading shared by the line-oriented readers.
//!
//! Reads one line at a time (a 2 GB file never sits in memory whole), numbers lines from 1, and
//! applies the tolerance rules every reader wants: blank lines are skipped; a final line without
//! a newline that does not parse is a line still being written and is silently left out; any
//! other line that does not parse is handed to the caller as an error naming file and line.
//! What a line *means* is left to each reader.

use std::io::{BufRead, BufReader};
use std::path::Path;

use serde_json::Value;

use crate::error::{Error, Result};

/// One non-blank line of a JSONL file.
#[derive(Debug)]
pub struct Line {
    /// 1-based line number.
    pub number: usize,
    /// Byte offset of the line's first byte in the file (where a reader can seek back to it).
    pub offset: u64,
    /// The parsed value, or the error (naming file and line) with the raw text kept.
    pub value: std::result::Result<Value, BadLine>,
}

/// A line that did not parse.
#[derive(Debug)]
pub struct BadLine {
    /// The error, naming file and line.
    pub error: Error,
    /// The raw text, lossily decoded, cut at 64 KiB so an error row stays small.
    pub raw: String,
}

/// Call `f` for every non-blank line of `path`, in order. Stops early when `f` returns false.
pub fn for_each_line(path: &Path, f: impl FnMut(Line) -> bool) -> Result<()> {
    read_from(path, Resume::default(), false, f).map(|_| ())
}

/// Where a read stopped: the byte offset after the last line it read whole, and that line's
/// number. A later [`read_from`] there reads only what was appended since.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Resume {
    /// Bytes read, up to and including the last line end.
    pub offset: u64,
    /// Lines read (the number of the last one).
    pub number: usize,
}

/// A file being written, read so far: where the read stopped ([`Resume`]) and the file's first
/// bytes then, by which a later read tells the same file with lines appended from one
/// rewritten (shorter, or its first bytes changed), which it must read again from the start.
/// The readers that go on (`claude::resume`, `codex::resume`) keep one, in their snapshots too.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Growing {
    /// Where the last read stopped.
    pub at: Resume,
    /// The file's first bytes, up to [`Growing::HEAD`].
    #[serde(with = "serde_bytes")]
    head: Vec<u8>,
}

impl Growing {
    /// How many first bytes must be unchanged for a file to count as appended.
    pub const HEAD: usize = 4096;

    /// Whether `path` is the file read so far with lines appended (or nothing).
    pub fn appended(&self, path: &Path) -> Result<bool> {
        let len = std::fs::metadata(path)
            .map_err(|e| Error::io(path, e))?
            .len();
        Ok(len >= self.at.offset && super::scan::read_head(path, self.head.len())? == self.head)
    }

    /// Feed the whole lines of `path` from where the last read stopped to `f`, and keep the
    /// file's first bytes while it is shorter than [`Growing::HEAD`].
    pub fn read(&mut self, path: &Path, f: impl FnMut(Line) -> bool) -> Result<()> {
        self.at = read_from(path, self.at, true, f)?;
        if self.head.len() < Self::HEAD {
            let want = Self::HEAD.min(usize::try_from(self.at.offset).unwrap_or(Self::HEAD));
            self.head = super::scan::read_head(path, want)?;
        }
        Ok(())
    }
}

/// [`for_each_line`] from `at` on; returns where it stopped. With `whole_lines`, a last line
/// without its line end is left for the next read (a file being written), even when it parses.
pub fn read_from(
    path: &Path,
    at: Resume,
    whole_lines: bool,
    mut f: impl FnMut(Line) -> bool,
) -> Result<Resume> {
    use std::io::{Read, Seek, SeekFrom};
    let file: Box<dyn Read + Send> = if super::compressed::is_zst(path) {
        // Offsets count decompressed bytes: a compressed stream is read through to them.
        let mut text = super::compressed::open(path)?;
        std::io::copy(&mut (&mut text).take(at.offset), &mut std::io::sink())
            .map_err(|e| Error::io(path, e))?;
        text
    } else {
        let mut file = crate::sources::open_file(path)?;
        if at.offset > 0 {
            file.seek(SeekFrom::Start(at.offset))
                .map_err(|e| Error::io(path, e))?;
        }
        Box::new(file)
    };
    let mut reader = BufReader::with_capacity(1 << 16, file);
    let mut buf = Vec::new();
    let mut number = at.number;
    let mut next: u64 = at.offset;
    let mut done = at;
    loop {
        buf.clear();
        let n = reader
            .read_until(b'\n', &mut buf)
            .map_err(|e| Error::io(path, e))?;
        if n == 0 {
            return Ok(done);
        }
        let complete = buf.last() == Some(&b'\n');
        if whole_lines && !complete {
            return Ok(done);
        }
        number += 1;
        let offset = next;
        next += n as u64;
        if complete {
            done = Resume {
                offset: next,
                number,
            };
        }
        // A byte-order mark some editors write before the first line is not part of the JSON.
        let text = match buf.strip_prefix(b"\xEF\xBB\xBF") {
            Some(rest) if number == 1 => rest.trim_ascii(),
            _ => buf.trim_ascii(),
        };
        if text.is_empty() {
            continue;
        }
        let value = match serde_json::from_slice::<Value>(text) {
            // A file being written ends mid-line: wait for the rest rather than report it.
            Err(_) if !complete => return Ok(done),
            parsed => judge(path, number, text, parsed),
        };
        if !f(Line {
            number,
            offset,
            value,
        }) {
            return Ok(done);
        }
    }
}

/// The value of one line's text (`number` is 1-based), or the bad line naming file and line:
/// what every reader of a stored line applies, whether it streams the file or seeks to the line.
pub fn parse(path: &Path, number: usize, text: &[u8]) -> std::result::Result<Value, BadLine> {
    // A byte-order mark some editors write before the first line is not part of the JSON.
    let text = match text.strip_prefix(b"\xEF\xBB\xBF") {
        Some(rest) if number == 1 => rest.trim_ascii(),
        _ => text.trim_ascii(),
    };
    judge(path, number, text, serde_json::from_slice::<Value>(text))
}

fn judge(
    path: &Path,
    number: usize,
    text: &[u8],
    parsed: serde_json::Result<Value>,
) -> std::result::Result<Value, BadLine> {
    let bad = |message: String| BadLine {
        error: Error::Line {
            path: path.to_owned(),
            line: number,
            message,
        },
        raw: String::from_utf8_lossy(&text[..text.len().min(64 * 1024)]).into_owned(),
    };
    match parsed {
        Ok(v) if v.is_object() => Ok(v),
        // Every line of every JSONL format is an object: a scalar or an array is a bad line
        // too, kept as an error row rather than dropped by a reader that looks for keys.
        Ok(v) => Err(bad(format!("not a JSON object (a {})", kind_of(&v)))),
        Err(e) => Err(bad(format!("not valid JSON: {e}"))),
    }
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn truncated_last_line_is_waited_for_and_bad_middle_line_reported() {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        write!(f, "{{\"a\":1}}\n\nnot json\n{{\"b\":2}}\n{{\"c\":").unwrap();
        let mut seen = Vec::new();
        for_each_line(f.path(), |l| {
            seen.push((l.number, l.offset, l.value.is_ok()));
            true
        })
        .unwrap();
        assert_eq!(
            seen,
            vec![(1, 0, true), (3, 9, false), (4, 18, true)],
            "blank line 2 skipped, line 3 reported bad, the unfinished line 5 left out; each \
             line's byte offset is where it starts"
        );
    }

    #[test]
    fn bad_line_error_names_file_and_line() {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        writeln!(f, "{{oops").unwrap();
        let mut msg = String::new();
        for_each_line(f.path(), |l| {
            msg = l.value.unwrap_err().error.to_string();
            true
        })
        .unwrap();
        let want = format!("{}:1: not valid JSON", f.path().display());
        assert!(
            msg.starts_with(&want),
            "error must name file and line, got {msg}"
        );
    }
}
