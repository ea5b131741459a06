//! Follow sessions while agents write them, like `tail -f` with understanding.
//!
//! Two halves. [`FsWatch`] (`fs`) turns file-system notifications (notify, plus a slow poll as a
//! safety net) into "something under these paths changed", debounced. [`Tracker`] answers "what
//! changed?": it re-lists the sources (cheap), reloads only sessions whose listing moved, and
//! diffs them against what it last saw by content fingerprint (`diff`), so a goose compaction, which
//! deletes and re-inserts every row with new row ids (or, from schema 17, updates the rows'
//! visibility in place and inserts the new ones), yields a visibility change, the new rows and
//! the cut exactly once instead of a duplicate history. A JSONL line still being written is left out by the
//! readers and arrives on the next change. A Claude Code transcript that grows is read only from
//! where the last read stopped (`sources::claude::resume`), for the last few that changed, and
//! only the messages it says changed are compared. A caller keeping a session in memory takes
//! a [`Patch`] of what changed instead of reading it again (`patch`), and may hand over a
//! transcript it read ahead, so even the first change is read on from there (`primed`).
//! Nothing here writes to the watched files.

mod alerts;
mod diff;
mod fs;
mod observed;
mod pace;
mod patch;
mod primed;

pub use alerts::{Alert, Alerter, FleetUpdate, PACE_ABOVE};
pub use fs::{DEBOUNCE, FsWatch};
pub use observed::{AlertWatch, FOLLOWED, Observed};
pub use patch::{Patch, Printed, Tail};
pub use primed::Primed;

use diff::{diff, fingerprint};

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::api::{self, Problem};
use crate::error::Result;
use crate::index::fingerprint::Fingerprint;
use crate::model::{CompactionRecord, Message, Session, SessionMeta};
use crate::sources::claude::resume::{Extended, Resumable};

/// One thing that happened to the watched sessions, in the order it is reported.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Change {
    /// A session appeared.
    SessionAdded {
        /// Its listing.
        session: SessionMeta,
    },
    /// Messages were added at the end of a session.
    Appended {
        /// The session id.
        session_id: String,
        /// The new messages, in order (their `index` is their position in the session).
        messages: Vec<Message>,
    },
    /// The stored history changed before its end (a rewrite): everything from `from_index` on
    /// is replaced by `messages`.
    Rewritten {
        /// The session id.
        session_id: String,
        /// First index that differs.
        from_index: usize,
        /// The messages from `from_index` to the end, as they are now.
        messages: Vec<Message>,
    },
    /// Messages kept their content but changed visibility (compaction hides originals).
    VisibilityChanged {
        /// The session id.
        session_id: String,
        /// `(index, agent_visible, user_visible)` as they are now.
        messages: Vec<(usize, bool, bool)>,
    },
    /// A compaction appeared.
    Compaction {
        /// The session id.
        session_id: String,
        /// The compaction as the reader recorded it.
        record: CompactionRecord,
    },
    /// Something could not be read; the rest is still followed.
    Problem {
        /// What went wrong, naming the file.
        problem: Problem,
    },
}

/// What the tracker remembers of one session.
#[derive(Debug, Clone, Default)]
struct Seen {
    /// `(message_count, updated)` from the listing: a change means "reload".
    listing: (usize, Option<i64>),
    /// The session's file as it was (size, modification time) when last looked at: a file
    /// nobody wrote since is not reloaded, whatever its listing says (a listing from the index
    /// and one from the file may count differently).
    file: Option<Stamp>,
    /// Content fingerprints of the messages, when the session was loaded at least once.
    fingerprints: Option<Vec<u64>>,
    /// Visibility per message, parallel to `fingerprints`.
    visibility: Vec<(bool, bool)>,
    /// Compactions already reported.
    compactions: usize,
    /// The listing came from the index for a file that grew since it was indexed: an older
    /// state than the file's, which a read ahead of the file as it is replaces
    /// ([`Tracker::adopt`]). Until then, or [`READ_AHEAD_WAIT`], the session is not reloaded.
    provisional: bool,
}

/// A file's size and modification time, and its SQLite write-ahead log's when it has one: a
/// database being written changes its `-wal` alone until a checkpoint, so the file's own stamp
/// would call a goose session nobody wrote while its rows are coming in.
type Stamp = [(u64, Option<std::time::SystemTime>); 2];

/// `path`'s [`Stamp`], when it is a file.
fn stamp(path: &str) -> Option<Stamp> {
    let of = |p: &std::path::Path| {
        std::fs::metadata(p)
            .ok()
            .filter(std::fs::Metadata::is_file)
            .map(|m| (m.len(), m.modified().ok()))
    };
    let file = of(std::path::Path::new(path))?;
    let wal = of(std::path::Path::new(&format!("{path}-wal"))).unwrap_or((0, None));
    Some([file, wal])
}

/// How long a tracker started from the index ([`Tracker::following`]) waits for the read ahead
/// of a session before reloading it itself, and reporting what was written since the index.
pub const READ_AHEAD_WAIT: std::time::Duration = std::time::Duration::from_secs(120);

/// Diffs successive states of the sessions under one path.
pub struct Tracker {
    root: PathBuf,
    only: Option<String>,
    seen: BTreeMap<String, Seen>,
    /// The transcripts read last, kept to read only what is appended to them next; the oldest
    /// goes first beyond [`RESUMABLE`] (each holds what its session's lines made).
    resumable: Vec<(String, Resumable)>,
    /// What changed in each session since the last [`Tracker::take_patches`], once a caller
    /// asked for them ([`Tracker::keep_patches`]): a whole session handed over is a copy.
    patches: Option<Vec<Patch>>,
    /// Until when sessions with a provisional baseline wait for their read ahead.
    patience: std::time::Instant,
    /// How many growing transcripts it keeps to resume, and patches it keeps ([`RESUMABLE`]
    /// unless [`Tracker::keep_up_to`] said more).
    keep: usize,
}

/// A session a refresh looked at: loaded whole, or one of the transcripts kept to resume (by
/// its place in `resumable`) with what its read changed.
enum Fresh {
    Loaded(Box<Session>),
    Resumed(usize, Extended),
}

/// How many growing transcripts a tracker keeps to resume.
const RESUMABLE: usize = 4;

impl Tracker {
    /// Start tracking `root`, optionally one session only. The current state is the baseline:
    /// what exists now is not reported, only what changes from here on.
    pub fn new(root: &Path, only: Option<&str>) -> Result<Self> {
        Self::start(root, only, None)
    }

    /// [`Tracker::new`] for a caller that reads the session it shows ahead and hands that read
    /// over ([`Tracker::adopt`]), as the app's window does: a file that only grew since it was
    /// indexed takes the index's listing as its baseline instead of being listed whole (3.5 s
    /// for a 2 GB transcript, before the window could list it). Its sessions then wait up to
    /// `wait` ([`READ_AHEAD_WAIT`] in the app) for their read ahead, which becomes the
    /// baseline; one that comes later, or never, leaves them reloaded at the next refresh
    /// after that, reporting what was written since the index as new.
    pub fn following(root: &Path, only: Option<&str>, wait: std::time::Duration) -> Result<Self> {
        Self::start(root, only, Some(wait))
    }

    fn start(root: &Path, only: Option<&str>, wait: Option<std::time::Duration>) -> Result<Self> {
        let mut t = Tracker {
            root: root.to_owned(),
            only: only.map(str::to_owned),
            seen: BTreeMap::new(),
            resumable: Vec::new(),
            patches: None,
            patience: std::time::Instant::now() + wait.unwrap_or_default(),
            keep: RESUMABLE,
        };
        // From the index when nothing changed since it was indexed (its counts are the
        // listing's): the baseline of a folder holding a 200 MB transcript costs nothing.
        let grown = wait.and_then(|_| api::list_grown_file(root));
        let (list, provisional) = match grown {
            Some(list) => (list, true),
            None => (api::list_sessions_indexed(root)?, false),
        };
        let wanted: Vec<SessionMeta> = list
            .sessions
            .into_iter()
            .filter(|m| t.wanted(&m.id))
            .collect();
        for meta in wanted {
            let mut seen = Seen {
                listing: (meta.message_count, meta.updated),
                // A provisional listing is of an older state than the file's: no stamp of now.
                file: (!provisional).then(|| stamp(&meta.path)).flatten(),
                provisional,
                ..Seen::default()
            };
            if t.only.is_some() {
                // A followed session is loaded up front so its first rewrite diffs exactly.
                let session = api::load_session(&t.root, Some(&meta.id))?;
                seen.remember(&session.messages, None, session.compactions.len());
            }
            t.seen.insert(meta.id.clone(), seen);
        }
        Ok(t)
    }

    /// Session `meta` as it is now: a Claude Code transcript read on from where its last read
    /// stopped when it only grew, anything else loaded whole.
    fn load(&mut self, meta: &SessionMeta) -> Result<Fresh> {
        if meta.format != crate::model::SourceFormat::ClaudeCode {
            return api::load_session(&self.root, Some(&meta.id))
                .map(|s| Fresh::Loaded(Box::new(s)));
        }
        if let Some(at) = self.resumable.iter().position(|(id, _)| *id == meta.id) {
            let (id, mut r) = self.resumable.remove(at);
            if let Some(ext) = r.extend()? {
                self.resumable.push((id, r));
                return Ok(Fresh::Resumed(self.resumable.len() - 1, ext));
            }
        }
        let r = Resumable::open(Path::new(&meta.path), &meta.id, meta.parent_id.clone())?;
        if self.resumable.len() >= self.keep {
            self.resumable.remove(0);
        }
        self.resumable.push((meta.id.clone(), r));
        Ok(Fresh::Resumed(self.resumable.len() - 1, Extended::Whole))
    }

    /// Keep up to `n` growing transcripts to read on from, and patches of `n` sessions, instead
    /// of the four a window following one session needs: for a caller following a fleet of
    /// workers writing at once.
    pub fn keep_up_to(&mut self, n: usize) {
        self.keep = n.max(RESUMABLE);
    }

    /// Keep a [`Patch`] of every change from now on, for a caller that keeps sessions in
    /// memory and takes them ([`Tracker::take_patches`]).
    pub fn keep_patches(&mut self) {
        self.patches.get_or_insert_with(Vec::new);
    }

    /// What changed in each session since the last call, oldest first (nothing unless
    /// [`Tracker::keep_patches`] was called): the caller patches its copy instead of reading the
    /// session again.
    pub fn take_patches(&mut self) -> Vec<Patch> {
        self.patches
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }

    fn wanted(&self, id: &str) -> bool {
        self.only.as_deref().is_none_or(|o| o == id)
    }

    /// Look again and report what changed since the last call.
    pub fn refresh(&mut self) -> Vec<Change> {
        let mut out = Vec::new();
        let list = match api::list_sessions_indexed(&self.root) {
            Ok(l) => l,
            Err(e) => {
                return vec![Change::Problem {
                    problem: Problem::from(&e),
                }];
            }
        };
        let mut listed: Vec<SessionMeta> = list.sessions;
        // Oldest first, so events come in the order sessions were written.
        listed.sort_by(|a, b| a.updated.cmp(&b.updated).then_with(|| a.id.cmp(&b.id)));
        listed.retain(|m| self.wanted(&m.id));
        for meta in listed {
            let listing = (meta.message_count, meta.updated);
            let id = meta.id.clone();
            let waiting = std::time::Instant::now() < self.patience;
            let file = stamp(&meta.path);
            let seen = match self.seen.get(&id) {
                Some(s) if s.listing == listing => continue,
                Some(s) if file.is_some() && s.file == file => continue,
                // Its read ahead is on its way: reloading it here would read it a second time.
                Some(s) if s.provisional && waiting => continue,
                Some(s) => s.clone(),
                None => {
                    out.push(Change::SessionAdded {
                        session: meta.clone(),
                    });
                    Seen::default()
                }
            };
            let fresh = match self.load(&meta) {
                Ok(f) => f,
                Err(e) => {
                    out.push(Change::Problem {
                        problem: Problem::from(&e),
                    });
                    continue;
                }
            };
            let resumed;
            let (session, hint) = match &fresh {
                Fresh::Loaded(s) => (&**s, None),
                Fresh::Resumed(i, ext) => {
                    // Held for this look only: the next read must find it held by no one.
                    resumed = self.resumable[*i].1.session();
                    (
                        &*resumed,
                        match ext {
                            Extended::From(from) => Some(*from),
                            Extended::Whole => None,
                        },
                    )
                }
            };
            let mut seen = seen;
            let base_len = seen.fingerprints.as_ref().map(Vec::len);
            let known = diff(&id, &seen, session, hint, &mut out);
            seen.listing = listing;
            seen.file = file;
            seen.remember(&session.messages, known, session.compactions.len());
            self.seen.insert(id.clone(), seen);
            let Some(patches) = self.patches.as_mut() else {
                continue;
            };
            // A copy kept elsewhere is patched from where this one changed, when this one was
            // only read on; a session read whole is handed over whole, shared when kept here.
            let patch = match fresh {
                Fresh::Resumed(i, _) => {
                    let r = &self.resumable[i].1;
                    let current = r.shared();
                    let printed = printed(&meta.path, r.offset());
                    match (hint, base_len) {
                        (Some(from), Some(base_len)) => Patch::Tail(Box::new(Tail {
                            session_id: id,
                            base_len,
                            from,
                            messages: session.messages[from..].to_vec(),
                            meta: session.meta.clone(),
                            compactions: session.compactions.clone(),
                            current,
                            printed,
                        })),
                        _ => Patch::Shared {
                            session_id: id,
                            current,
                            printed,
                        },
                    }
                }
                Fresh::Loaded(s) => Patch::Whole(Arc::from(s)),
            };
            // One per session, a few at most: a caller that never takes them holds no more.
            patches.retain(|p| p.session_id() != patch.session_id());
            if patches.len() >= self.keep {
                patches.remove(0);
            }
            patches.push(patch);
        }
        out
    }
}

/// `file`'s fingerprint now, when it is `read` bytes long: the session read from its first
/// `read` bytes is then the file's, as long as the fingerprint holds.
fn printed(file: &str, read: u64) -> Option<Printed> {
    let print = Fingerprint::of(Path::new(file)).ok()?;
    (print.size == read).then(|| Printed {
        file: file.to_owned(),
        print,
    })
}
