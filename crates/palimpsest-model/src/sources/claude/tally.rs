//! Counting a Claude Code transcript's lines for its listing (`listing::meta`), in one pass of
//! line sketches (`sources::scan`), and going on from where that pass stopped once the file has
//! grown: a transcript followed live is listed again on every change, and counting 200 MB again
//! for each appended line would cost more than everything else the change does.
//!
//! The passes of the last few large files are kept in memory, each with the first bytes of its
//! file and the bytes that ended it. A file whose size and modification time are unchanged is
//! not read; one that has grown with those bytes in place is read from where its pass stopped;
//! anything else (shorter, rewritten, compressed, small) is counted whole. What a line counts
//! as is decided here, what the listing makes of the counts in `listing`.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

use crate::error::{Error, Result};
use crate::sources::scan::{self, Resume, Sketch, find_kv, first_string_field};

/// Files smaller than this are counted whole every time: it costs less than keeping them.
const KEEP_FROM: u64 = 1 << 20;
/// How many files' passes are kept.
const KEPT: usize = 8;
/// Bytes compared at the head of the file and before where the pass stopped.
const EDGE: u64 = 4096;

/// A pass kept for a file.
struct Kept {
    path: PathBuf,
    tally: Tally,
    at: Resume,
    size: u64,
    modified: Option<SystemTime>,
    head: Vec<u8>,
    edge: Vec<u8>,
}

static KEPT_PASSES: Mutex<Vec<Kept>> = Mutex::new(Vec::new());

/// The counts of `path` as it is now.
pub(super) fn of(path: &Path) -> Result<Counts> {
    let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
    let (size, modified) = (meta.len(), meta.modified().ok());
    if size < KEEP_FROM || crate::sources::compressed::is_zst(path) {
        let mut t = Tally::default();
        scan::for_each_sketch(path, |s| t.see(s))?;
        return Ok(t.counts);
    }
    let taken = {
        let mut kept = KEPT_PASSES.lock().unwrap_or_else(|e| e.into_inner());
        kept.iter()
            .position(|k| k.path == path)
            .map(|i| kept.remove(i))
    };
    let mut k = match taken {
        Some(k) if k.size == size && k.modified == modified && modified.is_some() => {
            let counts = k.tally.counts.clone();
            keep(k);
            return Ok(counts);
        }
        Some(k) if size >= k.at.offset && still_there(path, &k)? => k,
        _ => Kept {
            path: path.to_owned(),
            tally: Tally::default(),
            at: Resume::default(),
            size: 0,
            modified: None,
            head: Vec::new(),
            edge: Vec::new(),
        },
    };
    let t = &mut k.tally;
    k.at = scan::sketch_from(path, k.at, |s| t.see(s))?;
    (k.size, k.modified) = (size, modified);
    let mut f = crate::sources::open_file(path)?;
    k.head = scan::read_at(&mut f, 0, EDGE.min(k.at.offset)).map_err(|e| Error::io(path, e))?;
    let from = k.at.offset.saturating_sub(EDGE);
    k.edge = scan::read_at(&mut f, from, k.at.offset - from).map_err(|e| Error::io(path, e))?;
    let counts = k.tally.counts.clone();
    keep(k);
    Ok(counts)
}

/// True when the bytes a kept pass saw at the head and where it stopped are still there.
fn still_there(path: &Path, k: &Kept) -> Result<bool> {
    let mut f = crate::sources::open_file(path)?;
    let head = scan::read_at(&mut f, 0, k.head.len() as u64).map_err(|e| Error::io(path, e))?;
    let from = k.at.offset - k.edge.len() as u64;
    let edge = scan::read_at(&mut f, from, k.edge.len() as u64).map_err(|e| Error::io(path, e))?;
    Ok(head == k.head && edge == k.edge)
}

fn keep(k: Kept) {
    let mut kept = KEPT_PASSES.lock().unwrap_or_else(|e| e.into_inner());
    kept.retain(|o| o.path != k.path);
    if kept.len() >= KEPT {
        kept.remove(0);
    }
    kept.push(k);
}

/// What the listing takes from one pass of line sketches.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(super) struct Counts {
    /// Lines that become messages (an API response's lines once).
    pub messages: usize,
    /// Compact and microcompact boundaries, replacements and collapse commits.
    pub compactions: usize,
    /// The last `timestamp` of a message line.
    pub last_timestamp: Option<String>,
    /// The last title of each kind.
    pub custom_title: Option<String>,
    /// `ai-title`.
    pub ai_title: Option<String>,
    /// `summary`.
    pub summary_title: Option<String>,
}

/// The counts and the API response ids seen, which a pass resumed later needs.
#[derive(Debug, Default)]
struct Tally {
    counts: Counts,
    api_ids: HashSet<String>,
}

impl Tally {
    fn see(&mut self, s: &Sketch) {
        if s.len == 0 || !s.complete {
            return;
        }
        let ts = scan::last_string_field(s.tail, "timestamp")
            .or_else(|| scan::last_string_field(s.head, "timestamp"));
        if ts.is_some() {
            self.counts.last_timestamp = ts;
        }
        let h = s.head;
        // Keys are matched with or without spaces around the colon (re-serialised files).
        let has = |k: &str, v: &str| find_kv(h, k, v).is_some();
        if has("type", "progress")
            || has("type", "file-history-snapshot")
            || has("type", "queue-operation")
        {
            return;
        }
        if s.is_whole() {
            for (typ, slot, key) in [
                ("custom-title", &mut self.counts.custom_title, "customTitle"),
                ("ai-title", &mut self.counts.ai_title, "aiTitle"),
                ("summary", &mut self.counts.summary_title, "summary"),
            ] {
                if find_kv(h, "type", typ).is_some() {
                    *slot = first_string_field(h, key).or_else(|| first_string_field(h, "title"));
                    return;
                }
            }
        }
        // Rows that edit the model's view without a boundary (`replace`): each is a cut.
        if has("type", "content-replacement") || has("type", "marble-origami-commit") {
            self.counts.messages += 1;
            self.counts.compactions += 1;
            return;
        }
        if has("type", "marble-origami-reset") {
            self.counts.messages += 1;
            return;
        }
        if has("type", "system") {
            self.counts.messages += 1;
            if has("subtype", "compact_boundary") || has("subtype", "microcompact_boundary") {
                self.counts.compactions += 1;
            }
            return;
        }
        // A user line names its type before its message; an assistant line's message (which
        // opens with its role) comes before its type. Whichever shows first decides.
        let user = find_kv(h, "type", "user");
        let role = find_kv(h, "role", "assistant");
        let assistant = match (user, role) {
            (Some(u), Some(r)) => r < u,
            (None, Some(_)) => true,
            (Some(_), None) => false,
            (None, None) => {
                find_kv(h, "type", "assistant").is_some()
                    || find_kv(s.tail, "type", "assistant").is_some()
            }
        };
        if user.is_some() && !assistant {
            self.counts.messages += 1;
        } else if assistant {
            // One message per API response: lines of the same response share `message.id`.
            match first_string_field(h, "id") {
                Some(id) if id.starts_with("msg_") => {
                    if self.api_ids.insert(id) {
                        self.counts.messages += 1;
                    }
                }
                _ => self.counts.messages += 1,
            }
        }
    }
}
