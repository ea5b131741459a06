//! Spill-file review: every spill file a session names (capped results, large-response notices,
//! compaction transcripts, reader links) or keeps in its spill folder, with its size, whether it
//! exists, the capped result beside it (head, tail, omitted bytes) and the calls that read it
//! later. Files are opened read-only and only inside [`Confinement`]; others are reported as
//! needing confirmation with their full path.

use std::path::{Path, PathBuf};

use regex::Regex;
use serde::{Deserialize, Serialize};

use super::confine::{Confinement, Resolution, read_confined};
use super::spill_refs::SpillRef;
use super::spill_roots::{RootOptions, session_folders};
use super::spills::{Marker, SpillKind};
use crate::model::{Session, SessionMeta, SourceFormat};

/// Whether a spill file can be shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "snake_case")]
pub enum SpillStatus {
    /// Exists inside the session's folders.
    Present,
    /// Not there: inside the session's folders, or anywhere on this machine (a session
    /// recorded on another one names its paths there).
    Missing,
    /// The marker says the full text was never saved.
    NotSaved,
    /// Outside the session's folders: the user must confirm before it is opened.
    NeedsConfirmation,
    /// Exists but could not be read.
    Unreadable,
    /// Kept whole in the session itself (the message holding it): nothing to open.
    Stored,
}

/// One spill file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct SpillEntry {
    /// The path as the session wrote it (`None` for "full text not saved").
    pub path: Option<String>,
    /// The full path it resolves to (canonical when it exists).
    pub resolved: Option<String>,
    /// The mechanism.
    pub kind: SpillKind,
    /// Present, missing, not saved, needs confirmation, unreadable.
    pub status: SpillStatus,
    /// Size on disk.
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub size_bytes: Option<u64>,
    /// The message naming it (`None` for a file found only in the spill folder).
    pub message_index: Option<usize>,
    /// The call whose result was capped.
    pub call_index: Option<usize>,
    /// That call's tool.
    pub tool: Option<String>,
    /// Full size as the marker says.
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub total_bytes: Option<u64>,
    /// Elided bytes as the marker says.
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub omitted_bytes: Option<u64>,
    /// What the model saw before the elision.
    pub head: String,
    /// What it saw after.
    pub tail: String,
    /// The spill file's text, when present and asked for.
    pub spill_text: Option<String>,
    /// `spill_text` was cut at the size limit.
    pub spill_text_truncated: bool,
    /// The file starts with the head and ends with the tail (checked when read whole).
    pub head_tail_match: Option<bool>,
    /// Message indices of later calls that read it.
    pub read_by: Vec<usize>,
}

/// All spill files of a session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct SpillReview {
    /// The session.
    pub session_id: String,
    /// Folders files may be opened from: the session's own ([`super::spill_roots`]) and the
    /// user's.
    pub roots: Vec<String>,
    /// Folders the transcript names (its recorded working directory) that are not trusted
    /// until the user confirms one (`--root`, or "Trust" in the app).
    pub suggested_roots: Vec<String>,
    /// Folders left out and why (an id that is not a plain name, a symlink out).
    pub problems: Vec<String>,
    /// The spill files, in message order (folder-only files last).
    pub spills: Vec<SpillEntry>,
    /// Count present.
    pub present: usize,
    /// Count missing.
    pub missing: usize,
    /// Count never saved.
    pub not_saved: usize,
    /// Count needing confirmation.
    pub needs_confirmation: usize,
    /// Count kept whole in the session itself ([`SpillStatus::Stored`]).
    #[serde(default)]
    pub stored: usize,
    /// Bytes of the present files.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub total_bytes: u64,
}

/// How to review.
#[derive(Debug, Clone, Default)]
pub struct ReviewOptions<'a> {
    /// Folders the user added (or confirmed) beyond the session's own.
    pub extra_roots: Vec<PathBuf>,
    /// A user marker pattern (named group `path`).
    pub spill_pattern: Option<&'a Regex>,
    /// Read up to this many bytes of each present file into `spill_text`; 0 reads none.
    pub max_text_bytes: usize,
    /// coworker's scratch base (`<base>/<sid>/tool-output`); `None` uses
    /// `$COWORKER_SCRATCH_BASE`, else `~/OpenWorker`.
    pub scratch_base: Option<PathBuf>,
}

/// Review the spill files of one session.
pub fn review_spills(session: &Session, opts: &ReviewOptions) -> SpillReview {
    let refs = super::spill_refs::spill_refs(session, opts.spill_pattern);
    review_refs(&session.meta, &refs, opts)
}

/// Review the spill files `refs` names of the session listed as `meta` (what
/// [`super::spill_refs::spill_refs`] found in it, made now or kept by the index) and those in
/// its spill folders, as they are on disk now. `opts.spill_pattern` is `refs`' business.
pub fn review_refs(meta: &SessionMeta, refs: &[SpillRef], opts: &ReviewOptions) -> SpillReview {
    let folders = session_folders(
        meta,
        &RootOptions {
            extra_roots: opts.extra_roots.clone(),
            scratch_base: opts.scratch_base.clone(),
        },
    );
    let conf = Confinement::new(folders.roots.iter().cloned());
    let own = spill_dirs(meta, &folders.roots);
    let mut spills: Vec<SpillEntry> = Vec::new();
    for r in refs {
        let mut e = entry(
            &conf,
            &folders.bases,
            &own,
            r.marker.clone(),
            opts.max_text_bytes,
        );
        e.message_index = Some(r.message_index);
        e.call_index = r.call_index;
        e.tool = r.tool.clone();
        e.read_by = r.read_by.clone();
        spills.push(e);
    }
    for dir in &own {
        let Ok(rd) = std::fs::read_dir(dir) else {
            continue;
        };
        let mut files: Vec<PathBuf> = rd
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file())
            .collect();
        files.sort();
        for f in files {
            let canon = f.canonicalize().ok();
            let known = spills
                .iter()
                .any(|s| s.resolved.as_ref().map(PathBuf::from) == canon);
            if known {
                continue;
            }
            let kind = if meta.format == SourceFormat::ClaudeCode {
                SpillKind::ClaudeToolResults
            } else {
                SpillKind::CapMarker
            };
            let mk = Marker {
                kind,
                path: Some(f.to_string_lossy().into_owned()),
                total_bytes: None,
                omitted_bytes: None,
                head: String::new(),
                tail: String::new(),
            };
            spills.push(entry(&conf, &folders.bases, &[], mk, opts.max_text_bytes));
        }
    }
    let count = |s: SpillStatus| spills.iter().filter(|e| e.status == s).count();
    SpillReview {
        session_id: meta.id.clone(),
        roots: conf
            .roots()
            .iter()
            .map(|r| r.to_string_lossy().into_owned())
            .collect(),
        suggested_roots: folders
            .suggested
            .iter()
            .map(|r| r.to_string_lossy().into_owned())
            .collect(),
        problems: folders.problems,
        present: count(SpillStatus::Present),
        missing: count(SpillStatus::Missing),
        not_saved: count(SpillStatus::NotSaved),
        needs_confirmation: count(SpillStatus::NeedsConfirmation),
        stored: count(SpillStatus::Stored),
        total_bytes: spills
            .iter()
            .filter(|e| e.status == SpillStatus::Present)
            .filter_map(|e| e.size_bytes)
            .sum(),
        spills,
    }
}

/// Folders where a format keeps spills on its own: Claude Code's `<session>/tool-results/`,
/// coworker's `tool-output/` under the state folder or the scratch dir.
fn spill_dirs(meta: &SessionMeta, roots: &[PathBuf]) -> Vec<PathBuf> {
    match meta.format {
        // Only the derived `<id>/tool-results` root, never a path built from the id again.
        SourceFormat::ClaudeCode => roots
            .iter()
            .filter(|r| r.ends_with("tool-results"))
            .cloned()
            .collect(),
        SourceFormat::Coworker => roots.iter().map(|f| f.join("tool-output")).collect(),
        _ => Vec::new(),
    }
}

/// The same file in one of the session's own spill folders (`own`), when `raw` names it under
/// a folder of that name elsewhere: a transcript copied off the machine that wrote it (a fleet
/// worker's `~/.claude/projects` on an engineer's laptop) names its spills by their old path.
fn moved_here(conf: &Confinement, raw: &str, own: &[PathBuf]) -> Option<Resolution> {
    let raw = Path::new(raw.trim().trim_matches('"'));
    let (name, parent) = (raw.file_name()?, raw.parent()?);
    own.iter().find_map(|dir| {
        // `<id>/tool-results` must be the tail of the recorded folder, not just its last name.
        let tail: PathBuf = dir
            .iter()
            .rev()
            .take(2)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        if !parent.ends_with(&tail) {
            return None;
        }
        match conf.resolve(&dir.join(name).to_string_lossy(), &[]) {
            r @ Resolution::Inside(_) => Some(r),
            _ => None,
        }
    })
}

fn entry(
    conf: &Confinement,
    bases: &[PathBuf],
    own: &[PathBuf],
    mk: Marker,
    max: usize,
) -> SpillEntry {
    let mut e = SpillEntry {
        path: mk.path.clone(),
        resolved: None,
        kind: mk.kind,
        status: SpillStatus::NotSaved,
        size_bytes: None,
        message_index: None,
        call_index: None,
        tool: None,
        total_bytes: mk.total_bytes,
        omitted_bytes: mk.omitted_bytes,
        head: mk.head,
        tail: mk.tail,
        spill_text: None,
        spill_text_truncated: false,
        head_tail_match: None,
        read_by: Vec::new(),
    };
    if e.kind == SpillKind::Pruned {
        e.status = SpillStatus::Stored;
        e.size_bytes = e.total_bytes;
        return e;
    }
    let Some(path) = &mk.path else { return e };
    let res = match conf.resolve(path, bases) {
        r @ Resolution::Inside(_) => r,
        r => moved_here(conf, path, own).unwrap_or(r),
    };
    match &res {
        Resolution::Inside(p) => {
            e.resolved = Some(p.to_string_lossy().into_owned());
            e.status = SpillStatus::Present;
            e.size_bytes = std::fs::metadata(p).ok().map(|m| m.len());
            if max > 0 {
                match read_confined(&res, max) {
                    Ok((text, cut)) => {
                        if !cut && (!e.head.is_empty() || !e.tail.is_empty()) {
                            e.head_tail_match =
                                Some(text.starts_with(&e.head) && text.ends_with(&e.tail));
                        }
                        e.spill_text = Some(text);
                        e.spill_text_truncated = cut;
                    }
                    Err(_) => e.status = SpillStatus::Unreadable,
                }
            }
        }
        Resolution::Missing(p) => {
            e.resolved = Some(p.to_string_lossy().into_owned());
            e.status = SpillStatus::Missing;
        }
        Resolution::Outside(p) => {
            // A file that is nowhere on this machine (the session was recorded on another one)
            // is missing: there is nothing to confirm opening.
            e.status = if p.symlink_metadata().is_ok() {
                SpillStatus::NeedsConfirmation
            } else {
                SpillStatus::Missing
            };
            e.resolved = Some(p.to_string_lossy().into_owned());
        }
    }
    e
}
