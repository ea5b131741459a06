//! Follow sessions while agents write them, like `tail -f` with understanding.
//!
//! Two halves. [`FsWatch`] turns file-system notifications (notify, plus a slow poll as a safety
//! net) into "something under these paths changed", debounced. [`Tracker`] answers "what
//! changed?": it re-lists the sources (cheap), reloads only sessions whose listing moved, and
//! diffs them against what it last saw by content fingerprint, so a goose compaction, which
//! deletes and re-inserts every row with new row ids (or, from schema 17, updates the rows'
//! visibility in place and inserts the new ones), yields a visibility change, the new rows and
//! the cut exactly once instead of a duplicate history. A JSONL line still being written is left out by the
//! readers and arrives on the next change. A Claude Code transcript that grows is read only from
//! where the last read stopped (`sources::claude::resume`), for the last few that changed.
//! Nothing here writes to the watched files.

use std::collections::{BTreeMap, HashMap};
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use notify::{RecursiveMode, Watcher};
use serde::{Deserialize, Serialize};

use crate::api::{self, Problem};
use crate::error::{Error, Result};
use crate::model::{CompactionRecord, Message, SessionMeta};

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
    /// Content fingerprints of the messages, when the session was loaded at least once.
    fingerprints: Option<Vec<u64>>,
    /// Visibility per message, parallel to `fingerprints`.
    visibility: Vec<(bool, bool)>,
    /// Compactions already reported.
    compactions: usize,
}

/// Diffs successive states of the sessions under one path.
pub struct Tracker {
    root: PathBuf,
    only: Option<String>,
    seen: BTreeMap<String, Seen>,
    /// The transcripts read last, kept to read only what is appended to them next; the oldest
    /// goes first beyond [`RESUMABLE`] (each holds what its session's lines made).
    resumable: Vec<(String, crate::sources::claude::resume::Resumable)>,
    /// The last session each refresh loaded, for a caller that keeps sessions too.
    loaded: Vec<std::sync::Arc<crate::model::Session>>,
}

/// How many growing transcripts a tracker keeps to resume.
const RESUMABLE: usize = 4;

impl Tracker {
    /// Start tracking `root`, optionally one session only. The current state is the baseline:
    /// what exists now is not reported, only what changes from here on.
    pub fn new(root: &Path, only: Option<&str>) -> Result<Self> {
        let mut t = Tracker {
            root: root.to_owned(),
            only: only.map(str::to_owned),
            seen: BTreeMap::new(),
            resumable: Vec::new(),
            loaded: Vec::new(),
        };
        // From the index when nothing changed since it was indexed (its counts are the
        // listing's): the baseline of a folder holding a 200 MB transcript costs nothing.
        let list = api::list_sessions_indexed(root)?;
        let wanted: Vec<SessionMeta> = list
            .sessions
            .into_iter()
            .filter(|m| t.wanted(&m.id))
            .collect();
        for meta in wanted {
            let mut seen = Seen {
                listing: (meta.message_count, meta.updated),
                ..Seen::default()
            };
            if t.only.is_some() {
                // A followed session is loaded up front so its first rewrite diffs exactly.
                let session = api::load_session(&t.root, Some(&meta.id))?;
                seen.remember(&session.messages, session.compactions.len());
            }
            t.seen.insert(meta.id.clone(), seen);
        }
        Ok(t)
    }

    /// Session `meta` as it is now: a Claude Code transcript read on from where its last read
    /// stopped when it only grew, anything else loaded whole.
    fn load(&mut self, meta: &SessionMeta) -> Result<crate::model::Session> {
        use crate::sources::claude::resume::Resumable;
        if meta.format != crate::model::SourceFormat::ClaudeCode {
            return api::load_session(&self.root, Some(&meta.id));
        }
        if let Some(at) = self.resumable.iter().position(|(id, _)| *id == meta.id) {
            let (id, mut r) = self.resumable.remove(at);
            if let Some(s) = r.extend()? {
                self.resumable.push((id, r));
                return Ok(s);
            }
        }
        let (r, s) = Resumable::open(Path::new(&meta.path), &meta.id, meta.parent_id.clone())?;
        if self.resumable.len() >= RESUMABLE {
            self.resumable.remove(0);
        }
        self.resumable.push((meta.id.clone(), r));
        Ok(s)
    }

    /// The sessions the refreshes since the last call loaded, newest last: a caller keeping a
    /// session in memory takes the fresh copy instead of reading it again.
    pub fn take_loaded(&mut self) -> Vec<std::sync::Arc<crate::model::Session>> {
        std::mem::take(&mut self.loaded)
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
            let seen = match self.seen.get(&id) {
                Some(s) if s.listing == listing => continue,
                Some(s) => s.clone(),
                None => {
                    out.push(Change::SessionAdded {
                        session: meta.clone(),
                    });
                    Seen::default()
                }
            };
            match self.load(&meta) {
                Ok(session) => {
                    let mut seen = seen;
                    diff(
                        &id,
                        &seen,
                        &session.messages,
                        &session.compactions,
                        &mut out,
                    );
                    seen.listing = listing;
                    seen.remember(&session.messages, session.compactions.len());
                    self.seen.insert(id, seen);
                    // Kept until taken, one per session and a few at most: a caller that
                    // never takes them holds no more than a caller that does.
                    self.loaded.retain(|l| l.meta.id != session.meta.id);
                    if self.loaded.len() >= RESUMABLE {
                        self.loaded.remove(0);
                    }
                    self.loaded.push(std::sync::Arc::new(session));
                }
                Err(e) => out.push(Change::Problem {
                    problem: Problem::from(&e),
                }),
            }
        }
        out
    }
}

impl Seen {
    fn remember(&mut self, messages: &[Message], compactions: usize) {
        self.fingerprints = Some(messages.iter().map(fingerprint).collect());
        self.visibility = messages
            .iter()
            .map(|m| (m.agent_visible, m.user_visible))
            .collect();
        self.compactions = compactions;
    }
}

/// A hash of what a message says (role, kind, time, parts), not of how it is stored: row ids,
/// insertion times and visibility flags change on a goose rewrite while the message does not.
fn fingerprint(m: &Message) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    m.role.hash(&mut h);
    m.created.hash(&mut h);
    m.id.hash(&mut h);
    serde_json::to_string(&m.parts)
        .unwrap_or_default()
        .hash(&mut h);
    h.finish()
}

fn diff(
    id: &str,
    seen: &Seen,
    messages: &[Message],
    compactions: &[CompactionRecord],
    out: &mut Vec<Change>,
) {
    let session_id = id.to_owned();
    match &seen.fingerprints {
        None => {
            // Never loaded: the listing's count is the baseline.
            let from = seen.listing.0.min(messages.len());
            if from < messages.len() {
                out.push(Change::Appended {
                    session_id: session_id.clone(),
                    messages: messages[from..].to_vec(),
                });
            }
        }
        Some(old) => {
            let now: Vec<u64> = messages.iter().map(fingerprint).collect();
            let common = old.iter().zip(&now).take_while(|(a, b)| a == b).count();
            let changed: Vec<(usize, bool, bool)> = (0..common)
                .filter(|&i| {
                    seen.visibility.get(i)
                        != Some(&(messages[i].agent_visible, messages[i].user_visible))
                })
                .map(|i| (i, messages[i].agent_visible, messages[i].user_visible))
                .collect();
            if !changed.is_empty() {
                out.push(Change::VisibilityChanged {
                    session_id: session_id.clone(),
                    messages: changed,
                });
            }
            if common < old.len() {
                out.push(Change::Rewritten {
                    session_id: session_id.clone(),
                    from_index: common,
                    messages: messages[common..].to_vec(),
                });
            } else if common < now.len() {
                out.push(Change::Appended {
                    session_id: session_id.clone(),
                    messages: messages[common..].to_vec(),
                });
            }
        }
    }
    for record in compactions.iter().skip(seen.compactions) {
        out.push(Change::Compaction {
            session_id: session_id.clone(),
            record: record.clone(),
        });
    }
}

/// File-system notifications for a set of paths, debounced into "something changed".
pub struct FsWatch {
    _watcher: notify::RecommendedWatcher,
    rx: mpsc::Receiver<()>,
}

/// How long a burst of writes may go on before it is reported as one change.
pub const DEBOUNCE: Duration = Duration::from_millis(50);

impl FsWatch {
    /// Watch `paths` (files or folders, recursively). A file is watched through its folder so
    /// SQLite's `-wal` and `-shm` companions and atomic renames are seen too.
    pub fn new(paths: &[PathBuf]) -> Result<Self> {
        let (tx, rx) = mpsc::channel();
        let mut watcher = notify::recommended_watcher(move |res: notify::Result<notify::Event>| {
            if let Ok(ev) = res
                && !matches!(ev.kind, notify::EventKind::Access(_))
            {
                let _ = tx.send(());
            }
        })
        .map_err(|e| Error::Watch(format!("cannot watch files: {e}")))?;
        let mut dirs: HashMap<PathBuf, RecursiveMode> = HashMap::new();
        for p in paths {
            if p.is_dir() {
                dirs.insert(p.clone(), RecursiveMode::Recursive);
            } else {
                let parent = p
                    .parent()
                    .filter(|d| !d.as_os_str().is_empty())
                    .unwrap_or(Path::new("."));
                dirs.entry(parent.to_owned())
                    .or_insert(RecursiveMode::NonRecursive);
            }
        }
        for (dir, mode) in dirs {
            watcher
                .watch(&dir, mode)
                .map_err(|e| Error::Watch(format!("cannot watch {}: {e}", dir.display())))?;
        }
        Ok(FsWatch {
            _watcher: watcher,
            rx,
        })
    }

    /// Block until something changed (then let the burst settle for [`DEBOUNCE`]) or `timeout`
    /// passed. Returns true when a change was seen; callers refresh on both, since a poll
    /// catches what notifications miss (network file systems, some WAL checkpoints).
    pub fn wait(&self, timeout: Duration) -> bool {
        match self.rx.recv_timeout(timeout) {
            Ok(()) => {
                let settle = Instant::now() + DEBOUNCE;
                while let Some(left) = settle.checked_duration_since(Instant::now()) {
                    if self.rx.recv_timeout(left).is_err() {
                        break;
                    }
                }
                true
            }
            Err(_) => false,
        }
    }
}
