//! Whether a session file changed since it was indexed, without reading it: size, mtime and a
//! hash of its first and last 4 KiB. An appended file (larger, same head, and the bytes that
//! used to end it still there) is told apart from a rewritten one, so only its new messages
//! are re-written. Sessions that share one file (a goose or coworker database) are told apart
//! by their source's own stamp (last update and message count) instead: `super` picks.

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use xxhash_rust::xxh3::xxh3_64;

/// True when `path` starts with SQLite's header (a database: one file, many sessions).
pub fn is_sqlite(path: &Path) -> bool {
    let mut head = [0u8; 16];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok_and(|()| &head == b"SQLite format 3\0")
}

/// Bytes hashed at each end.
const EDGE: u64 = 4096;

/// What a file looked like when indexed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fingerprint {
    /// Size in bytes.
    pub size: u64,
    /// Modification time, nanoseconds since the epoch.
    pub mtime_ns: i128,
    /// Hash of the first [`EDGE`] bytes.
    pub head: u64,
    /// Hash of the last [`EDGE`] bytes.
    pub tail: u64,
}

fn read_at(f: &mut std::fs::File, at: u64, len: u64) -> std::io::Result<Vec<u8>> {
    f.seek(SeekFrom::Start(at))?;
    let mut buf = vec![0u8; len as usize];
    f.read_exact(&mut buf)?;
    Ok(buf)
}

impl Fingerprint {
    /// The fingerprint of `path` now.
    pub fn of(path: &Path) -> std::io::Result<Fingerprint> {
        let meta = std::fs::metadata(path)?;
        let size = meta.len();
        let mtime_ns = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos() as i128);
        let mut f = std::fs::File::open(path)?;
        let head = xxh3_64(&read_at(&mut f, 0, size.min(EDGE))?);
        let tail = xxh3_64(&read_at(&mut f, size.saturating_sub(EDGE), size.min(EDGE))?);
        Ok(Fingerprint {
            size,
            mtime_ns,
            head,
            tail,
        })
    }

    /// As stored: `size:mtime:head:tail`.
    pub fn stamp(&self) -> String {
        format!(
            "{}:{}:{:x}:{:x}",
            self.size, self.mtime_ns, self.head, self.tail
        )
    }

    /// Parse a stored stamp.
    pub fn parse(stamp: &str) -> Option<Fingerprint> {
        let mut it = stamp.split(':');
        let size = it.next()?.parse().ok()?;
        let mtime_ns = it.next()?.parse().ok()?;
        let head = u64::from_str_radix(it.next()?, 16).ok()?;
        let tail = u64::from_str_radix(it.next()?, 16).ok()?;
        Some(Fingerprint {
            size,
            mtime_ns,
            head,
            tail,
        })
    }

    /// True when `path` is `old` with bytes appended: larger, and both the old head and the
    /// bytes that ended it unchanged.
    pub fn appended(old: &Fingerprint, path: &Path, now: &Fingerprint) -> bool {
        if now.size <= old.size || old.size == 0 {
            return false;
        }
        let check = || -> std::io::Result<bool> {
            let mut f = std::fs::File::open(path)?;
            let head = xxh3_64(&read_at(&mut f, 0, old.size.min(EDGE))?);
            let tail = xxh3_64(&read_at(
                &mut f,
                old.size.saturating_sub(EDGE),
                old.size.min(EDGE),
            )?);
            Ok(head == old.head && tail == old.tail)
        };
        check().unwrap_or(false)
    }
}
