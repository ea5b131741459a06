//! Whether a session file changed since it was indexed, without reading it: size, mtime and a
//! hash of its first and last 4 KiB. An appended file (larger, same head, and the bytes that
//! used to end it still there) is told apart from a rewritten one, so only its new messages
//! are re-written. Sessions that share one file (a goose or coworker database) are told apart
//! by their source's own stamp (last update and message count) instead: `super` picks.
//! [`tree_stamp`] fingerprints a whole folder from its listing alone (paths, sizes, mtimes), so
//! an update of a folder where nothing changed reads no file at all.

use crate::sources::scan::read_at;
use std::path::Path;

use xxhash_rust::xxh3::xxh3_64;

pub use crate::sources::sqlite::is_sqlite;

/// Bytes hashed at each end.
const EDGE: u64 = 4096;

/// What a file looked like when indexed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fingerprint {
    /// Size in bytes.
    pub size: u64,
    /// Modification time, nanoseconds since the epoch.
    pub mtime_ns: i128,
    /// Hash of the first `EDGE` bytes.
    pub head: u64,
    /// Hash of the last `EDGE` bytes.
    pub tail: u64,
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

/// How deep [`tree_stamp`] looks: deeper than the readers' walk, so whatever they read is in it.
const TREE_DEPTH: usize = 9;

/// A hash of every file under `root` (relative path, size, mtime), from the listing alone:
/// when it is the same as at the last update, no session under `root` changed. Symlinks are
/// followed (as the readers follow them), each folder once.
pub fn tree_stamp(root: &Path) -> String {
    use std::hash::Hasher;
    let mut entries: Vec<(String, u64, i128)> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    fn walk(
        dir: &Path,
        rel: &str,
        depth: usize,
        out: &mut Vec<(String, u64, i128)>,
        seen: &mut std::collections::HashSet<std::path::PathBuf>,
    ) {
        let Ok(canon) = dir.canonicalize() else {
            return;
        };
        if !seen.insert(canon) {
            return;
        }
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let path = e.path();
            let Ok(m) = std::fs::metadata(&path) else {
                out.push((format!("{rel}/{name}"), u64::MAX, 0));
                continue;
            };
            if m.is_dir() {
                if depth < TREE_DEPTH {
                    walk(&path, &format!("{rel}/{name}"), depth + 1, out, seen);
                }
            } else {
                let mtime = m
                    .modified()
                    .ok()
                    .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                    .map_or(0, |d| d.as_nanos() as i128);
                out.push((format!("{rel}/{name}"), m.len(), mtime));
            }
        }
    }
    match std::fs::metadata(root) {
        Ok(m) if m.is_dir() => walk(root, "", 0, &mut entries, &mut seen),
        Ok(m) => entries.push((
            String::new(),
            m.len(),
            m.modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos() as i128),
        )),
        Err(_) => return "missing".into(),
    }
    entries.sort();
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    for (p, size, mtime) in &entries {
        h.write(p.as_bytes());
        h.write_u64(*size);
        h.write_i128(*mtime);
    }
    format!("{}:{:x}", entries.len(), h.finish())
}
