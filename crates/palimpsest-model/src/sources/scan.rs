//! Cheap byte-level scanning of line-oriented session files, for listing and the raw view.
//!
//! Listing must not parse whole files, and a 100 MB line must not be held in memory just to be
//! counted. [`for_each_sketch`] streams a file in fixed chunks and hands each line over as a
//! *sketch*: its first and last [`SKETCH`] bytes and its length. Readers classify lines from
//! those ends (the keys they need sit near one end or the other). [`read_lines`] fetches the
//! exact text of chosen lines for the raw view. What a line means is left to each reader.

use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::Path;

use crate::error::{Error, Result};

/// How many bytes of each end of a line a sketch keeps.
pub const SKETCH: usize = 2048;

/// The two ends of one line. For lines up to `2 * SKETCH` bytes, `head` is the whole line and
/// `tail` is empty.
#[derive(Debug)]
pub struct Sketch<'a> {
    /// 1-based line number.
    pub number: usize,
    /// The first bytes of the line (without the newline).
    pub head: &'a [u8],
    /// The last bytes of the line when it is long; empty otherwise.
    pub tail: &'a [u8],
    /// The full length of the line in bytes.
    pub len: usize,
    /// False for a last line without a newline (possibly still being written).
    pub complete: bool,
}

impl Sketch<'_> {
    /// True when the sketch holds the whole line.
    pub fn is_whole(&self) -> bool {
        self.tail.is_empty()
    }

    /// True when `needle` occurs in the head or the tail.
    pub fn contains(&self, needle: &[u8]) -> bool {
        find(self.head, needle).is_some() || find(self.tail, needle).is_some()
    }
}

/// Position of `needle` in `hay`.
pub fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(hay, needle)
}

/// Position of the last `needle` in `hay`.
pub fn rfind(hay: &[u8], needle: &[u8]) -> Option<usize> {
    memchr::memmem::rfind(hay, needle)
}

/// Stream `path` and call `f` with a sketch of every line, blank ones included.
pub fn for_each_sketch(path: &Path, f: impl FnMut(&Sketch)) -> Result<()> {
    sketch_from(path, Resume::default(), f).map(|_| ())
}

/// Where a scan of a plain file stopped: just after its last line end, and that line's number.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Resume {
    /// Byte offset after the last `\n` read.
    pub offset: u64,
    /// How many whole lines lie before `offset`.
    pub lines: usize,
}

/// [`for_each_sketch`] from `at` on (a plain file only: a compressed stream cannot be entered
/// midway, so it is read from its start whatever `at` says). Returns where the last whole line
/// ended, to go on from there once the file has grown.
pub fn sketch_from(path: &Path, at: Resume, mut f: impl FnMut(&Sketch)) -> Result<Resume> {
    let (mut file, at): (Box<dyn Read + Send>, Resume) = if super::compressed::is_zst(path) {
        (super::compressed::open(path)?, Resume::default())
    } else {
        let mut plain = crate::sources::open_file(path)?;
        plain
            .seek(SeekFrom::Start(at.offset))
            .map_err(|e| Error::io(path, e))?;
        (Box::new(plain), at)
    };
    let mut end = at;
    let mut chunk = vec![0u8; 1 << 20];
    let mut head: Vec<u8> = Vec::with_capacity(2 * SKETCH);
    // The last SKETCH bytes of a long line, trimmed from the front as the line grows.
    let mut tail: Vec<u8> = Vec::with_capacity(2 * SKETCH);
    let mut len = 0usize;
    let mut long = false;
    let mut number = at.lines;
    let mut read = at.offset;
    loop {
        let n = file.read(&mut chunk).map_err(|e| Error::io(path, e))?;
        if n == 0 {
            break;
        }
        let mut rest = &chunk[..n];
        let base = read;
        read += n as u64;
        while !rest.is_empty() {
            let (piece, ended) = match memchr::memchr(b'\n', rest) {
                Some(i) => (&rest[..i], Some(i + 1)),
                None => (rest, None),
            };
            push_piece(&mut head, &mut tail, &mut long, piece);
            len += piece.len();
            match ended {
                Some(skip) => {
                    number += 1;
                    emit(&mut f, number, &mut head, &mut tail, len, true);
                    len = 0;
                    long = false;
                    rest = &rest[skip..];
                    end = Resume {
                        offset: base + (n - rest.len()) as u64,
                        lines: number,
                    };
                }
                None => rest = &[],
            }
        }
    }
    if len > 0 {
        emit(&mut f, number + 1, &mut head, &mut tail, len, false);
    }
    Ok(end)
}

fn push_piece(head: &mut Vec<u8>, tail: &mut Vec<u8>, long: &mut bool, mut piece: &[u8]) {
    if !*long && head.len() + piece.len() <= 2 * SKETCH {
        head.extend_from_slice(piece);
        return;
    }
    // The line is long: keep SKETCH bytes of head; the tail keeps the last SKETCH bytes.
    if !*long {
        *long = true;
        if head.len() > SKETCH {
            tail.extend_from_slice(&head[SKETCH..]);
            head.truncate(SKETCH);
        }
    }
    if head.len() < SKETCH {
        let take = (SKETCH - head.len()).min(piece.len());
        head.extend_from_slice(&piece[..take]);
        piece = &piece[take..];
    }
    let keep = piece.len().min(SKETCH);
    tail.extend_from_slice(&piece[piece.len() - keep..]);
    trim_front(tail);
}

fn trim_front(tail: &mut Vec<u8>) {
    if tail.len() > SKETCH {
        tail.drain(..tail.len() - SKETCH);
    }
}

fn emit(
    f: &mut impl FnMut(&Sketch),
    number: usize,
    head: &mut Vec<u8>,
    tail: &mut Vec<u8>,
    len: usize,
    complete: bool,
) {
    let strip = |b: &[u8]| -> usize { usize::from(b.last() == Some(&b'\r')) };
    let (h, t) = if tail.is_empty() {
        let cut = head.len() - strip(head);
        (&head[..cut], &tail[..0])
    } else {
        let cut = tail.len() - strip(tail);
        (&head[..], &tail[..cut])
    };
    f(&Sketch {
        number,
        head: h,
        tail: t,
        len,
        complete,
    });
    head.clear();
    tail.clear();
}

/// Up to `len` bytes of an open plain file from byte `at`: fewer when the file ends first, so a
/// caller comparing them with bytes it kept sees a shrunk file as a change, not an error.
pub fn read_at(f: &mut std::fs::File, at: u64, len: u64) -> std::io::Result<Vec<u8>> {
    f.seek(SeekFrom::Start(at))?;
    let mut buf = Vec::with_capacity(len.min(1 << 20) as usize);
    f.take(len).read_to_end(&mut buf)?;
    Ok(buf)
}

/// What `find` reads in the whole lines of a file's first `max` bytes, else what `otherwise`
/// reads further. A line cut at the end of that read is not given to `find` (a reader of more
/// would see it whole), and `otherwise` is asked only when the read was cut: a file that ends
/// within it has said all it has. Naming a session this way reads its first line, where its
/// listing reads a 256 KiB head.
pub fn first_lines_or<T>(
    path: &Path,
    max: usize,
    find: impl FnOnce(&[u8]) -> Option<T>,
    otherwise: impl FnOnce() -> Result<Option<T>>,
) -> Result<Option<T>> {
    let bytes = read_head(path, max)?;
    let cut = bytes.len() == max;
    let whole = match memchr::memrchr(b'\n', &bytes) {
        Some(end) if cut => &bytes[..end],
        None if cut => &bytes[..0],
        _ => &bytes[..],
    };
    match find(whole) {
        None if cut => otherwise(),
        found => Ok(found),
    }
}

/// The bytes a reader needs to tell whose a file is: its first `min` bytes, and on until its
/// first line is whole when that line is longer (a goose metadata line holding a 108 KB todo
/// list, a Codex `session_meta` carrying its instructions), up to [`FIRST_LINE_MAX`].
pub fn read_head_line(path: &Path, min: usize) -> Result<Vec<u8>> {
    let mut file = super::compressed::open(path)?;
    let mut buf = Vec::with_capacity(min);
    (&mut file)
        .take(min as u64)
        .read_to_end(&mut buf)
        .map_err(|e| Error::io(path, e))?;
    let mut looked = 0;
    while buf.len() < FIRST_LINE_MAX && memchr::memchr(b'\n', &buf[looked..]).is_none() {
        looked = buf.len();
        let step = looked.min(FIRST_LINE_MAX - looked) as u64;
        let n = (&mut file)
            .take(step)
            .read_to_end(&mut buf)
            .map_err(|e| Error::io(path, e))?;
        if n == 0 {
            break;
        }
    }
    Ok(buf)
}

/// The longest first line [`read_head_line`] reads to the end.
pub const FIRST_LINE_MAX: usize = 16 << 20;

/// The first `max` bytes of a file.
pub fn read_head(path: &Path, max: usize) -> Result<Vec<u8>> {
    let file = super::compressed::open(path)?;
    let mut buf = Vec::with_capacity(max.min(1 << 20));
    file.take(max as u64)
        .read_to_end(&mut buf)
        .map_err(|e| Error::io(path, e))?;
    Ok(buf)
}

/// The last `max` bytes of a file, starting at a line start when the cut falls mid-line.
pub fn read_tail(path: &Path, max: usize) -> Result<Vec<u8>> {
    if super::compressed::is_zst(path) {
        // A compressed stream cannot be entered at its end: read through, keep the last bytes.
        let mut all = Vec::new();
        super::compressed::open(path)?
            .read_to_end(&mut all)
            .map_err(|e| Error::io(path, e))?;
        let start = all.len().saturating_sub(max);
        let mut buf = all.split_off(start);
        if start > 0 {
            let cut = memchr::memchr(b'\n', &buf).map_or(buf.len(), |i| i + 1);
            buf.drain(..cut);
        }
        return Ok(buf);
    }
    let mut file = crate::sources::open_file(path)?;
    let size = file.metadata().map_err(|e| Error::io(path, e))?.len();
    let start = size.saturating_sub(max as u64);
    file.seek(SeekFrom::Start(start))
        .map_err(|e| Error::io(path, e))?;
    let mut buf = Vec::with_capacity(max.min(1 << 20));
    file.read_to_end(&mut buf).map_err(|e| Error::io(path, e))?;
    if start > 0 {
        let cut = memchr::memchr(b'\n', &buf).map_or(buf.len(), |i| i + 1);
        buf.drain(..cut);
    }
    Ok(buf)
}

/// The complete lines of `bytes` that parse as JSON, in order (a cut-off last line is skipped).
pub fn json_lines(bytes: &[u8]) -> impl DoubleEndedIterator<Item = serde_json::Value> + '_ {
    lines(bytes).filter_map(|l| serde_json::from_slice(l).ok())
}

/// The lines of `bytes` that hold something, trimmed, in order.
pub fn lines(bytes: &[u8]) -> impl DoubleEndedIterator<Item = &[u8]> + '_ {
    bytes
        .split(|&b| b == b'\n')
        .map(<[u8]>::trim_ascii)
        .filter(|l| !l.is_empty())
}

/// The text of the given 1-based lines of `path` (sorted ascending), joined with newlines.
/// Lines not asked for are skipped without being kept in memory.
pub fn read_lines(path: &Path, numbers: &[usize]) -> Result<String> {
    let file = super::compressed::open(path)?;
    let mut reader = BufReader::with_capacity(1 << 16, file);
    let mut out = String::new();
    let mut buf = Vec::new();
    let mut current = 0usize;
    for &want in numbers {
        while current + 1 < want {
            let n = reader.skip_until(b'\n').map_err(|e| Error::io(path, e))?;
            if n == 0 {
                return Ok(out);
            }
            current += 1;
        }
        buf.clear();
        let n = reader
            .read_until(b'\n', &mut buf)
            .map_err(|e| Error::io(path, e))?;
        if n == 0 {
            return Ok(out);
        }
        current += 1;
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(String::from_utf8_lossy(buf.trim_ascii_end()).as_ref());
    }
    Ok(out)
}

/// Unix milliseconds of an RFC 3339 timestamp.
pub fn millis(ts: &str) -> Option<i64> {
    chrono::DateTime::parse_from_rfc3339(ts)
        .ok()
        .map(|d| d.timestamp_millis())
}

/// The string value after the last `"key":"` in `hay`, when it is a plain (unescaped) string.
pub fn last_string_field(hay: &[u8], key: &str) -> Option<String> {
    let at = value_starts(hay, key)
        .filter(|&at| hay[at] == b'"')
        .last()?;
    string_at(hay, at + 1)
}

/// The string value after the first `"key":"` in `hay`, when it is a plain string.
pub fn first_string_field(hay: &[u8], key: &str) -> Option<String> {
    let at = value_starts(hay, key).find(|&at| hay[at] == b'"')?;
    string_at(hay, at + 1)
}

/// Where the value of each `"key":` in `hay` starts, in order. Whitespace around the colon is
/// allowed, as in files re-serialised with `": "`.
pub fn value_starts<'a>(hay: &'a [u8], key: &str) -> impl Iterator<Item = usize> + 'a {
    let pat = format!("\"{key}\"");
    let n = pat.len();
    memchr::memmem::find_iter(hay, pat.as_bytes())
        .map(|i| i + n)
        .collect::<Vec<_>>()
        .into_iter()
        .filter_map(move |mut at| {
            while at < hay.len() && hay[at].is_ascii_whitespace() {
                at += 1;
            }
            if hay.get(at) != Some(&b':') {
                return None;
            }
            at += 1;
            while at < hay.len() && hay[at].is_ascii_whitespace() {
                at += 1;
            }
            (at < hay.len()).then_some(at)
        })
}

/// Position of the first `"key":"value"` in `hay` (whitespace around the colon allowed).
pub fn find_kv(hay: &[u8], key: &str, value: &str) -> Option<usize> {
    let want = format!("\"{value}\"");
    value_starts(hay, key).find(|&at| hay[at..].starts_with(want.as_bytes()))
}

fn string_at(hay: &[u8], at: usize) -> Option<String> {
    let end = memchr::memchr2(b'"', b'\\', &hay[at..])?;
    if hay[at + end] != b'"' {
        return None;
    }
    std::str::from_utf8(&hay[at..at + end])
        .ok()
        .map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn sketches_keep_both_ends_of_long_lines_and_whole_short_ones() {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        let long = format!("START{}END", "x".repeat(3 << 20));
        write!(f, "short\n{long}\n\nlast").unwrap();
        let mut seen = Vec::new();
        for_each_sketch(f.path(), |s| {
            seen.push((
                s.number,
                s.len,
                s.head.starts_with(b"START") || s.head == b"short" || s.head == b"last",
                s.tail.ends_with(b"END"),
                s.complete,
            ));
        })
        .unwrap();
        assert_eq!(
            seen,
            vec![
                (1, 5, true, false, true),
                (2, long.len(), true, true, true),
                (3, 0, false, false, true),
                (4, 4, true, false, false)
            ],
            "every line is sketched with its length; a long line keeps its head and tail ends"
        );
    }

    #[test]
    fn read_lines_returns_exactly_the_lines_asked_for() {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        write!(f, "a\nbb\nccc\ndddd\n").unwrap();
        assert_eq!(
            read_lines(f.path(), &[2, 4]).unwrap(),
            "bb\ndddd",
            "lines 2 and 4 joined by a newline, others skipped"
        );
    }

    #[test]
    fn string_fields_are_found_from_either_end() {
        let hay = br#"{"timestamp":"t1","x":{"timestamp":"t2"}}"#;
        assert_eq!(first_string_field(hay, "timestamp").as_deref(), Some("t1"));
        assert_eq!(last_string_field(hay, "timestamp").as_deref(), Some("t2"));
        assert_eq!(
            first_string_field(br#"{"a":"q\"x"}"#, "a"),
            None,
            "escaped strings are not guessed at"
        );
    }
}
