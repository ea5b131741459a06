//! One message read back from its own records, by byte offset, without the rest of the file:
//! what the window shows of a message of a 200 MB transcript while the whole file is still
//! being read. The index keeps each message's `[line, offset]` records
//! (`crate::index::rows`); this seeks to each, parses the lines with the same
//! [`Builder`](super::build::Builder) the whole-file read uses and returns the message they
//! make. What only the whole file knows (kind and visibility after cuts, links, branches) is
//! the caller's to lay over it.

use std::io::{BufRead, BufReader, Seek, SeekFrom};
use std::path::Path;

use crate::error::{Error, Result};
use crate::model::Message;
use crate::sources::jsonl::{self, Line};

/// The stored lines at `records` (`[line, offset]`), each without its line end.
pub fn read_records(path: &Path, records: &[[u64; 2]]) -> Result<Vec<(u64, u64, Vec<u8>)>> {
    read_records_from(&mut open(path)?, path, records)
}

/// `path` opened for reading records from.
pub fn open(path: &Path) -> Result<BufReader<std::fs::File>> {
    let file = crate::sources::open_file(path)?;
    Ok(BufReader::with_capacity(1 << 16, file))
}

/// [`read_records`] through a reader of `path` already open (one for a whole session).
pub fn read_records_from(
    r: &mut BufReader<std::fs::File>,
    path: &Path,
    records: &[[u64; 2]],
) -> Result<Vec<(u64, u64, Vec<u8>)>> {
    let mut out = Vec::with_capacity(records.len());
    for &[line, offset] in records {
        r.seek(SeekFrom::Start(offset))
            .map_err(|e| Error::io(path, e))?;
        let mut buf = Vec::new();
        r.read_until(b'\n', &mut buf)
            .map_err(|e| Error::io(path, e))?;
        let text = buf.trim_ascii_end().to_vec();
        out.push((line, offset, text));
    }
    Ok(out)
}

/// The message the records at `records` make, as the whole-file read builds it from them.
pub fn message_from(path: &Path, records: &[[u64; 2]]) -> Result<Option<Message>> {
    message_from_lines(path, read_records(path, records)?)
}

/// The message the lines read at its records make.
pub fn message_from_lines(path: &Path, lines: Vec<(u64, u64, Vec<u8>)>) -> Result<Option<Message>> {
    let mut b = super::build::Builder::default();
    for (line, offset, text) in lines {
        let number = usize::try_from(line).unwrap_or(usize::MAX);
        b.push(Line {
            number,
            offset,
            value: jsonl::parse(path, number, &text),
        });
    }
    // What the answer was billed, as the whole-file read records it.
    crate::sources::usage::fill(&mut b.messages, "usage", crate::sources::usage::anthropic);
    Ok(b.messages
        .into_iter()
        .next()
        .map(std::sync::Arc::unwrap_or_clone))
}
