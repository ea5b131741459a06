//! Format readers behind one trait, and the dispatch that finds which reader owns a path.
//!
//! Each submodule reads one family of files into [`crate::model`] types and nothing else: no
//! analysis, no token counting. A reader *claims* a file or a whole folder by sniffing it
//! ([`Probe`]); [`open`] walks what it is given, lets the readers claim what they recognise and
//! collects the ones that failed as problems, so one bad file never hides the others. A
//! reader that can go on from where its read stopped ([`Resumable`]: Claude Code transcripts,
//! Codex rollouts) is kept between processes in the frame of `kept`.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::model::{Session, SessionMeta, SourceFormat};

pub mod aider;
mod catalog;
pub mod claude;
pub mod cline;
pub mod codex;
pub mod compressed;
pub mod copilot;
pub mod coworker;
pub mod crush;
pub mod discovery;
pub mod gemini;
pub mod goose;
pub mod json_print;
pub mod jsonl;
pub mod kept;
pub mod lazy;
pub mod message_log;
pub mod opencode;
pub mod qwen;
pub mod scan;
pub use catalog::Catalog;
pub mod sqlite;
pub mod usage;

/// A reader that goes on from where its last read stopped (boxed: a handful are held at once,
/// and the two differ in size).
pub enum Resumable {
    /// A Claude Code transcript's.
    Claude(Box<claude::resume::Resumable>),
    /// A Codex rollout's.
    Codex(Box<codex::resume::Resumable>),
}

/// What a read from where the last one stopped did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Extended {
    /// Only the appended lines were read; messages from this one on are new or changed, those
    /// before it are as they were (visibility included).
    From(usize),
    /// The file was read whole again (a line reached back into earlier messages).
    Whole,
}

impl Resumable {
    /// The session as read so far.
    pub fn session(&self) -> std::sync::Arc<Session> {
        match self {
            Resumable::Claude(r) => r.session(),
            Resumable::Codex(r) => r.session(),
        }
    }

    /// Read what was appended since the last read; `None` when the file is not the one read
    /// with lines appended (read it whole then).
    pub fn extend(&mut self) -> Result<Option<Extended>> {
        use claude::resume::Extended as Claude;
        match self {
            Resumable::Claude(r) => Ok(r.extend()?.map(|e| match e {
                Claude::From(i) => Extended::From(i),
                Claude::Whole => Extended::Whole,
            })),
            Resumable::Codex(r) => Ok(r.extend()?.map(Extended::From)),
        }
    }

    /// Write the reader to `to`, framed (see the module docs).
    pub fn save(&self, to: &mut dyn std::io::Write) -> Result<()> {
        match self {
            Resumable::Claude(r) => r.save(to),
            Resumable::Codex(r) => r.save(to),
        }
    }

    /// Read back a reader [`Resumable::save`] wrote for session `id` of `file`, from `from`
    /// (named `snapshot` in errors).
    pub fn restore(
        from: &mut dyn std::io::Read,
        snapshot: &Path,
        file: &Path,
        id: &str,
    ) -> Result<Self> {
        let (reader, r) = kept::Framed::open(from, snapshot, file, id)?;
        match reader.as_str() {
            "claude" => claude::resume::Resumable::restore_body(r, snapshot, file, id)
                .map(|r| Resumable::Claude(Box::new(r))),
            "codex" => codex::resume::Resumable::restore_body(r, snapshot, file, id)
                .map(|r| Resumable::Codex(Box::new(r))),
            other => Err(kept::refused(snapshot, &format!("a reader of {other}"))),
        }
    }
}

/// A file or folder that holds sessions of one format.
pub trait SessionSource: Send + Sync {
    /// The format this source reads.
    fn format(&self) -> SourceFormat;
    /// The file or folder it was opened on.
    fn path(&self) -> &Path;
    /// The sessions it holds, cheaply: must not parse every message.
    fn list(&self) -> Result<Vec<SessionMeta>>;
    /// [`Self::list`], but a session whose entry `known` gives (its file as the index last
    /// read it) is taken from there instead of being read: a folder of hundreds of transcripts
    /// with one still being written lists that one alone. The default reads nothing when
    /// `known` has every file [`Self::session_files`] names cheaply, and lists otherwise (a
    /// database's listing is one query); a source of many files overrides it file by file.
    fn list_known(&self, known: &Known<'_>) -> Result<Vec<SessionMeta>> {
        if self.names_files_cheaply()
            && let Some(all) = self
                .session_files()?
                .iter()
                .map(known)
                .collect::<Option<Vec<_>>>()
        {
            return Ok(all);
        }
        self.list()
    }
    /// The top-level session of a source that is one file holding a session and its
    /// sub-agents' (Qwen Code, Copilot CLI), read once: loading "the only session" of such a
    /// file otherwise lists it (reading it whole) before loading it. `None` (the default)
    /// sends the caller to the listing.
    fn load_top(&self) -> Option<Result<Session>> {
        None
    }
    /// One whole session. Readers fill `Session::compactions` with every compaction the
    /// stored data shows (explicit records, or the summary/continuation rows goose leaves).
    fn load(&self, id: &str) -> Result<Session>;
    /// Session `id` read by a reader a later read can go on from where this one stopped
    /// ([`Resumable`]: the index keeps it for a transcript that is still growing), for
    /// the formats that have one; `None` for the others, which [`Self::load`].
    fn open_resumable(&self, _id: &str) -> Option<Result<Resumable>> {
        None
    }
    /// The stored text of one message (the row's or line's JSON as written), for the raw view.
    /// `index` is [`crate::model::Message::index`]. `None` when the source cannot say.
    fn raw(&self, id: &str, index: usize) -> Result<Option<String>> {
        let _ = (id, index);
        Ok(None)
    }
    /// Files and folders of a claimed folder that this source does not read (not its format),
    /// so the dispatcher offers them to the other readers (and walks the folders) instead of
    /// dropping them unsaid.
    fn declined(&self) -> Vec<PathBuf> {
        Vec::new()
    }
    /// True when [`Self::session_files`] reads heads only (file-per-session formats), so asking
    /// it costs less than a listing: a single-file load then skips the listing, which for a
    /// 200 MB transcript reads the whole file before the load reads it again.
    fn names_files_cheaply(&self) -> bool {
        false
    }
    /// Where each session lives, as cheaply as the format allows: the index fingerprints these
    /// files to leave unchanged sessions unread. The default lists the sessions and stamps
    /// each with its last update and message count (right for databases holding many
    /// sessions); file-per-session formats override it to name the file and no stamp.
    fn session_files(&self) -> Result<Vec<SessionFile>> {
        Ok(self
            .list()?
            .into_iter()
            .map(|m| SessionFile {
                stamp: Some(format!(
                    "{}:{}:{}",
                    m.updated.unwrap_or(0),
                    m.message_count,
                    m.compaction_count
                )),
                file: PathBuf::from(&m.path),
                id: m.id,
            })
            .collect())
    }
}

/// The listing entry of a session whose file is as last listed, when the caller has one
/// ([`SessionSource::list_known`]).
pub type Known<'a> = dyn Fn(&SessionFile) -> Option<SessionMeta> + 'a;

/// Where one session lives, for the index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionFile {
    /// The session's id.
    pub id: String,
    /// The file its messages are read from.
    pub file: PathBuf,
    /// For a file holding many sessions, what tells this one changed; `None`: the file's own
    /// fingerprint does.
    pub stamp: Option<String>,
}

/// True when `id` can be joined to a folder without leaving it: one normal path component (no
/// `/`, `\`, `..`, `.`, empty, or NUL).
pub fn is_plain_component(id: &str) -> bool {
    if id.is_empty() || id.contains(['/', '\\', '\0']) {
        return false;
    }
    let mut comps = std::path::Path::new(id).components();
    matches!(
        (comps.next(), comps.next()),
        (Some(std::path::Component::Normal(_)), None)
    )
}

/// What the dispatcher knows about a path before any reader opens it.
#[derive(Debug)]
pub struct Probe<'a> {
    /// The path.
    pub path: &'a Path,
    /// True for a folder.
    pub is_dir: bool,
    /// The first bytes of a file (64 KiB, or a JSONL file's whole first line when longer);
    /// empty for folders.
    pub head: &'a [u8],
}

impl Probe<'_> {
    /// The file name, lossily.
    pub fn file_name(&self) -> String {
        self.path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    }

    /// The extension, lower-cased; a compressed file's is that of what it holds (`x.jsonl.zst`
    /// is `jsonl`: its head is already the decompressed text).
    pub fn extension(&self) -> String {
        let p = compressed::plain_name(self.path).unwrap_or_else(|| self.path.to_owned());
        p.extension()
            .map(|e| e.to_string_lossy().to_lowercase())
            .unwrap_or_default()
    }

    /// True when the file starts with SQLite's magic header.
    pub fn is_sqlite(&self) -> bool {
        self.head.starts_with(b"SQLite format 3\0")
    }
}

/// How a reader answers a probe.
pub type Claim = Option<Result<Box<dyn SessionSource>>>;

/// The readers, in the order they are asked. Each returns `None` when the path is not its own.
/// Folder claims come first so a state folder (coworker, goose sessions) is read as a whole.
const READERS: &[fn(&Probe) -> Claim] = &[
    goose::claim,
    coworker::claim,
    opencode::claim,
    crush::claim,
    cline::claim,
    copilot::claim,
    gemini::claim,
    // Before Claude's: Qwen Code's records carry Claude's linking keys.
    qwen::claim,
    claude::claim,
    codex::claim,
    aider::claim,
    message_log::claim,
];

/// How deep [`open`] descends into folders: enough for Codex's `YYYY/MM/DD` and Claude's
/// `projects/<cwd>/<session>/subagents`, bounded so a stray `~` cannot make it crawl the disk.
const MAX_DEPTH: usize = 6;

/// Open a file or folder: find every source in it.
///
/// A path that does not exist is an error; a folder whose files no reader wants is an empty
/// catalog; a file no reader wants is [`Error::Unrecognised`]. Anything that is neither a regular
/// file nor a folder (a FIFO, a socket, a device) is refused without being opened: reading a
/// FIFO would block forever.
pub fn open(path: &Path) -> Result<Catalog> {
    let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
    let mut catalog = Catalog::default();
    if meta.is_dir() {
        let mut seen = Visited::default();
        walk(path, 0, &mut catalog, &mut seen);
    } else if !meta.is_file() {
        return Err(not_regular(path, &meta));
    } else {
        match claim_file(path)? {
            Some(Ok(s)) => catalog.sources.push(s),
            Some(Err(e)) => return Err(e),
            None => {
                return Err(Error::Unrecognised {
                    path: path.to_owned(),
                    reason: "no reader recognised its contents".into(),
                });
            }
        }
    }
    Ok(catalog)
}

/// Open a session file for reading, refusing anything but a regular file (symlinks followed)
/// before opening it: a FIFO named like a transcript would block the read forever.
pub fn open_file(path: &Path) -> Result<std::fs::File> {
    let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
    if !meta.is_file() {
        return Err(not_regular(path, &meta));
    }
    std::fs::File::open(path).map_err(|e| Error::io(path, e))
}

/// The error for a path that is neither a regular file nor a folder.
fn not_regular(path: &Path, meta: &std::fs::Metadata) -> Error {
    #[cfg(unix)]
    let what = {
        use std::os::unix::fs::FileTypeExt;
        let t = meta.file_type();
        if t.is_fifo() {
            "a FIFO (named pipe)"
        } else if t.is_socket() {
            "a socket"
        } else if t.is_block_device() || t.is_char_device() {
            "a device"
        } else {
            "not a regular file"
        }
    };
    #[cfg(not(unix))]
    let what = {
        let _ = meta;
        "not a regular file"
    };
    Error::format(
        path,
        format!("is {what}, not a session file or folder: skipped without reading"),
    )
}

/// Folders already walked, by device and inode (by canonical path where there are none), so
/// symlink cycles and links to a folder seen before are walked once.
#[derive(Default)]
struct Visited(std::collections::HashSet<FolderKey>);

#[cfg(unix)]
type FolderKey = (u64, u64);
#[cfg(not(unix))]
type FolderKey = PathBuf;

impl Visited {
    /// True the first time a folder is met.
    #[cfg(unix)]
    fn first(&mut self, _dir: &Path, meta: &std::fs::Metadata) -> bool {
        use std::os::unix::fs::MetadataExt;
        self.0.insert((meta.dev(), meta.ino()))
    }

    /// True the first time a folder is met.
    #[cfg(not(unix))]
    fn first(&mut self, dir: &Path, _meta: &std::fs::Metadata) -> bool {
        self.0
            .insert(dir.canonicalize().unwrap_or_else(|_| dir.to_owned()))
    }
}

/// File extensions a session may have: an unclaimed file with one of them is reported, never
/// dropped unsaid. Other files (spill `.txt`, `.md` notes) are not sessions and are skipped.
const SESSION_EXTENSIONS: &[&str] = &["jsonl", "json", "db", "sqlite", "sqlite3", "zst"];

/// Folders that hold spill files and tool outputs, never sessions.
const SPILL_FOLDERS: &[&str] = &["tool-results", "tool-output"];

fn walk(dir: &Path, depth: usize, catalog: &mut Catalog, seen: &mut Visited) {
    match std::fs::metadata(dir) {
        Ok(m) if !seen.first(dir, &m) => return,
        Ok(_) => {}
        Err(e) => {
            catalog.problems.push(Error::io(dir, e));
            return;
        }
    }
    let probe = Probe {
        path: dir,
        is_dir: true,
        head: &[],
    };
    for reader in READERS {
        match reader(&probe) {
            Some(Ok(s)) => {
                // What the source left of the folder goes to the other readers.
                let left = s.declined();
                catalog.sources.push(s);
                for p in left {
                    visit(p, depth, catalog, seen);
                }
                return;
            }
            Some(Err(e)) => {
                catalog.problems.push(e);
                return;
            }
            None => {}
        }
    }
    let mut entries: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(rd) => rd.filter_map(|e| e.ok().map(|e| e.path())).collect(),
        Err(e) => {
            catalog.problems.push(Error::io(dir, e));
            return;
        }
    };
    entries.sort();
    for p in entries {
        visit(p, depth, catalog, seen);
    }
}

/// One entry of a folder at `depth`: a folder is walked, a regular file offered to the readers.
fn visit(p: PathBuf, depth: usize, catalog: &mut Catalog, seen: &mut Visited) {
    let name = p
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // Aider keeps its chat log hidden in the repository it works on.
    if name.starts_with('.') && depth > 0 && name != aider::CHAT_LOG
        || name == "node_modules"
        || name == "target"
        || SPILL_FOLDERS.contains(&name.as_str())
    {
        return;
    }
    // Follows symlinks: a link to a transcript is read like the transcript.
    let meta = match std::fs::metadata(&p) {
        Ok(m) => m,
        Err(e) => {
            // A dangling symlink or a file removed meanwhile: say so.
            catalog.problems.push(Error::io(&p, e));
            return;
        }
    };
    if meta.is_dir() {
        if depth < MAX_DEPTH {
            walk(&p, depth + 1, catalog, seen);
        }
    } else if !meta.is_file() {
        catalog.problems.push(not_regular(&p, &meta));
    } else if compressed::has_plain_twin(&p) {
        // `x.jsonl` is read; its compressed copy `x.jsonl.zst` is the same session.
    } else if goose::requests::is_request_log(&p) {
        // goose's log of the requests it sent: read by `context --recorded`, not a session.
    } else {
        offer_file(&p, catalog);
    }
}

/// Let the readers claim one regular file of a scanned folder; a file with a session's
/// extension that nobody claims is a problem naming it.
fn offer_file(p: &Path, catalog: &mut Catalog) {
    match claim_file(p) {
        Ok(Some(Ok(s))) => catalog.sources.push(s),
        Ok(Some(Err(e))) | Err(e) => catalog.problems.push(e),
        Ok(None) => {
            let ext = p
                .extension()
                .map(|e| e.to_string_lossy().to_lowercase())
                .unwrap_or_default();
            if SESSION_EXTENSIONS.contains(&ext.as_str()) {
                catalog.problems.push(Error::Unrecognised {
                    path: p.to_owned(),
                    reason: "no reader recognised its contents (not listed)".into(),
                });
            }
        }
    }
}

/// The bytes of a file a probe holds (more for a JSONL file whose first line is longer).
const PROBE_HEAD: usize = 64 * 1024;

fn claim_file(path: &Path) -> Result<Claim> {
    // Checked again here: a file given to a reader's folder claim may be anything.
    let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
    if !meta.is_file() {
        return Err(not_regular(path, &meta));
    }
    // A JSONL file is told by its first line, however long it is; any other by its opening.
    let lines = matches!(
        compressed::plain_name(path)
            .unwrap_or_else(|| path.to_owned())
            .extension()
            .and_then(|e| e.to_str()),
        Some("jsonl" | "ndjson")
    );
    let head = if lines {
        scan::read_head_line(path, PROBE_HEAD)?
    } else {
        scan::read_head(path, PROBE_HEAD)?
    };
    let probe = Probe {
        path,
        is_dir: false,
        head: &head,
    };
    Ok(READERS.iter().find_map(|reader| reader(&probe)))
}
