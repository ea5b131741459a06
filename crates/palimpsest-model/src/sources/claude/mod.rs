//! Claude Code transcripts: `~/.claude/projects/<encoded-cwd>/<session>.jsonl`.
//!
//! A main file is one session; its `<session>/subagents/agent-*.jsonl` files are child sessions
//! (`parent_id` set, id `<session>/agent-<id>`), linked from the Task call that started them
//! (a `LinkKind::Subagent` link on that message) and, for the compactor's own run
//! (`agent-acompact-*`), from the compaction boundary it produced. A project folder (a main
//! file next to its session folder) is claimed whole, so subagent files are not listed twice; a
//! subagent file opened on its own is a child session of the id its lines name.
//!
//! Line → message rules live in `build`, visibility in `visibility`, cheap listing in
//! `listing`. Tolerance: a truncated last line is skipped, a malformed line is an error row.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::{Claim, Probe, SessionSource, jsonl, scan};
use crate::error::{Error, Result};
use crate::model::{Session, SessionMeta, SourceFormat};

pub mod blocks;
pub mod build;
mod chain;
pub mod detect;
mod finish;
mod head_line;
pub mod listing;
pub mod orphans;
pub mod prefix;
pub mod records;
pub mod resume;
mod tally;
pub mod visibility;

pub use build::LineCounts;
pub use finish::finish;

pub use detect::is_transcript;

fn is_jsonl(p: &Path) -> bool {
    p.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("jsonl"))
}

/// Claims a Claude Code `.jsonl` file, or a project folder holding a session next to its
/// `<session>/` folder (so its subagents are read as children, not as separate sessions).
pub fn claim(probe: &Probe) -> Claim {
    if probe.is_dir {
        let (files, declined, orphans) = project_files(probe.path)?;
        let mut s = ClaudeSource::new(probe.path, files);
        s.declined = declined;
        s.orphans = orphans;
        return Some(Ok(Box::new(s)));
    }
    if !is_jsonl(probe.path) || !is_transcript(probe.path) {
        return None;
    }
    Some(Ok(Box::new(ClaudeSource::new(
        probe.path,
        vec![probe.path.to_owned()],
    ))))
}

/// The Claude transcripts of a project folder, when at least one has its session folder beside it.
/// The second list holds the `.jsonl` files that are not Claude's, for the other readers.
/// The third holds the `<id>` folders of subagent runs whose transcript is gone ([`orphans`]).
type ProjectFiles = (Vec<PathBuf>, Vec<PathBuf>, Vec<PathBuf>);

fn project_files(dir: &Path) -> Option<ProjectFiles> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| is_jsonl(p) && p.is_file())
        .collect();
    files.sort();
    let orphans = orphans::find(dir);
    if orphans.is_empty() && !files.iter().any(|f| f.with_extension("").is_dir()) {
        return None;
    }
    let (claude, declined): (Vec<PathBuf>, Vec<PathBuf>) =
        files.into_iter().partition(|f| is_transcript(f));
    if !orphans.is_empty() || claude.iter().any(|f| f.with_extension("").is_dir()) {
        Some((claude, declined, orphans))
    } else {
        None
    }
}

/// One session file known to a source. Its head is read when it is listed, not here: naming
/// the sessions of a folder (the index's update, a load) reads each file's first line only.
#[derive(Debug, Clone)]
struct Entry {
    id: String,
    path: PathBuf,
    parent: Option<String>,
}

/// A loaded file with what the session model has no room for.
#[derive(Debug)]
pub struct Loaded {
    /// The session.
    pub session: Session,
    /// Line counts by type (progress, snapshots, queue operations...).
    pub counts: LineCounts,
    /// For each message, the 1-based lines it was built from.
    pub lines: Vec<Vec<usize>>,
}

/// Sessions of Claude Code files (one file, or a project folder).
pub struct ClaudeSource {
    path: PathBuf,
    files: Vec<PathBuf>,
    declined: Vec<PathBuf>,
    orphans: Vec<PathBuf>,
    entries: Mutex<Option<Vec<Entry>>>,
    lines: Mutex<HashMap<String, Vec<Vec<usize>>>>,
}

impl ClaudeSource {
    /// A source over the given main (or standalone subagent) files.
    pub fn new(path: &Path, files: Vec<PathBuf>) -> Self {
        Self {
            path: path.to_owned(),
            files,
            declined: Vec::new(),
            orphans: Vec::new(),
            entries: Mutex::new(None),
            lines: Mutex::new(HashMap::new()),
        }
    }

    fn entries(&self) -> Result<Vec<Entry>> {
        let mut guard = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(e) = guard.as_ref() {
            return Ok(e.clone());
        }
        let mut out = Vec::new();
        for f in &self.files {
            let stem = stem_of(f);
            let sid = listing::session_id(f)?.unwrap_or_else(|| stem.clone());
            let in_subagents = f
                .parent()
                .and_then(Path::file_name)
                .is_some_and(|n| n == "subagents");
            if in_subagents && stem.starts_with("agent-") {
                out.push(Entry {
                    id: format!("{sid}/{stem}"),
                    path: f.clone(),
                    parent: Some(sid),
                });
                continue;
            }
            out.push(Entry {
                id: sid.clone(),
                path: f.clone(),
                parent: None,
            });
            for child in subagent_files(f) {
                out.push(Entry {
                    id: format!("{sid}/{}", stem_of(&child)),
                    path: child,
                    parent: Some(sid.clone()),
                });
            }
        }
        for o in &self.orphans {
            let parent = orphans::id(o);
            for child in subagents_in(o) {
                out.push(Entry {
                    id: format!("{parent}/{}", stem_of(&child)),
                    path: child,
                    parent: Some(parent.clone()),
                });
            }
        }
        *guard = Some(out.clone());
        Ok(out)
    }

    /// The orphan folder whose placeholder parent is `id`, with its number of runs.
    fn orphan(&self, id: &str) -> Option<(&PathBuf, usize)> {
        self.orphans
            .iter()
            .find(|o| orphans::id(o) == id)
            .map(|o| (o, subagents_in(o).len()))
    }

    fn entry(&self, id: &str) -> Result<Entry> {
        self.entries()?
            .into_iter()
            .find(|e| e.id == id)
            .ok_or_else(|| Error::NoSuchSession {
                path: self.path.clone(),
                id: id.to_owned(),
            })
    }

    /// Load one session with its line counts and line map.
    pub fn load_full(&self, id: &str) -> Result<Loaded> {
        let e = self.entry(id)?;
        let loaded = load_file(&e.path, &e.id, e.parent.clone())?;
        self.lines
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(id.to_owned(), loaded.lines.clone());
        Ok(loaded)
    }
}

fn stem_of(p: &Path) -> String {
    p.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// `<dir>/<stem>/subagents/agent-*.jsonl` of a main file, sorted.
fn subagent_files(main: &Path) -> Vec<PathBuf> {
    subagents_in(&main.with_extension(""))
}

/// `<folder>/subagents/agent-*.jsonl`, sorted.
fn subagents_in(folder: &Path) -> Vec<PathBuf> {
    let dir = folder.join("subagents");
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                // A regular file only: a FIFO named `agent-x.jsonl` would block every read.
                .filter(|p| is_jsonl(p) && stem_of(p).starts_with("agent-") && p.is_file())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

impl SessionSource for ClaudeSource {
    fn format(&self) -> SourceFormat {
        SourceFormat::ClaudeCode
    }

    fn path(&self) -> &Path {
        &self.path
    }

    fn list(&self) -> Result<Vec<SessionMeta>> {
        self.list_known(&|_| None)
    }

    fn list_known(&self, known: &super::Known<'_>) -> Result<Vec<SessionMeta>> {
        // Orphan folders are counted, not read: nothing to save there.
        let mut out: Vec<SessionMeta> = self
            .orphans
            .iter()
            .map(|o| orphans::meta(o, subagents_in(o).len()))
            .collect();
        for e in self.entries()? {
            let file = super::SessionFile {
                id: e.id,
                file: e.path,
                stamp: None,
            };
            out.push(match known(&file) {
                Some(meta) => meta,
                None => listing::meta(&file.file, &listing::head(&file.file)?, file.id, e.parent)?,
            });
        }
        Ok(out)
    }

    fn load(&self, id: &str) -> Result<Session> {
        if let Some((o, runs)) = self.orphan(id) {
            return Ok(orphans::session(o, runs));
        }
        Ok(self.load_full(id)?.session)
    }

    fn open_resumable(&self, id: &str) -> Option<Result<super::Resumable>> {
        if self.orphan(id).is_some() {
            return None;
        }
        let e = match self.entry(id) {
            Ok(e) => e,
            Err(e) => return Some(Err(e)),
        };
        // Offsets in a compressed file count unpacked bytes: resuming would unpack it all.
        (!crate::sources::compressed::is_zst(&e.path)).then(|| {
            resume::Resumable::open(&e.path, &e.id, e.parent.clone())
                .map(|r| super::Resumable::Claude(Box::new(r)))
        })
    }

    fn declined(&self) -> Vec<PathBuf> {
        self.declined.clone()
    }

    fn names_files_cheaply(&self) -> bool {
        true
    }

    fn session_files(&self) -> Result<Vec<super::SessionFile>> {
        // Heads only: listing would read every transcript whole.
        let mut out: Vec<super::SessionFile> = self
            .orphans
            .iter()
            .map(|o| {
                let m = orphans::meta(o, subagents_in(o).len());
                super::SessionFile {
                    stamp: Some(format!("orphan:{}", m.message_count)),
                    file: o.clone(),
                    id: m.id,
                }
            })
            .collect();
        out.extend(self.entries()?.into_iter().map(|e| super::SessionFile {
            id: e.id,
            file: e.path,
            stamp: None,
        }));
        Ok(out)
    }

    fn raw(&self, id: &str, index: usize) -> Result<Option<String>> {
        let cached = self
            .lines
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(id)
            .and_then(|l| l.get(index).cloned());
        let lines = match cached {
            Some(l) => Some(l),
            None => self.load_full(id)?.lines.get(index).cloned(),
        };
        match lines {
            Some(l) => Ok(Some(scan::read_lines(&self.entry(id)?.path, &l)?)),
            None => Ok(None),
        }
    }
}

/// Read one Claude Code file into a session. `parent` is set for subagent files.
pub fn load_file(path: &Path, id: &str, parent: Option<String>) -> Result<Loaded> {
    let mut b = build::Builder::default();
    jsonl::for_each_line(path, |line| {
        b.push(line);
        true
    })?;
    finish(path, id, parent, b)
}
