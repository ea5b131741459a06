//! Subagent runs whose parent transcript is gone: `<project>/<id>/subagents/agent-*.jsonl` with
//! no `<project>/<id>.jsonl` beside it (deleted, or not copied). They are listed under a
//! placeholder parent named by the folder's id, an empty session that says what is missing, so
//! the runs never vanish from a listing. Reading the runs themselves is the reader's as usual.

use std::path::{Path, PathBuf};

use crate::model::{Session, SessionMeta, SourceFormat};

/// The `<id>` folders of `dir` that hold a `subagents/` folder and have no `<id>.jsonl`.
pub fn find(dir: &Path) -> Vec<PathBuf> {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = rd
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("subagents").is_dir() && !p.with_extension("jsonl").is_file())
        // `a.b/` would map to `a.jsonl`: only plain ids.
        .filter(|p| p.extension().is_none())
        .collect();
    out.sort();
    out
}

/// The placeholder parent's id: the folder's name.
pub fn id(folder: &Path) -> String {
    folder
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The placeholder parent as a session: no messages, its runs listed as its children.
pub fn session(folder: &Path, runs: usize) -> Session {
    let id = id(folder);
    let mut s = Session::in_memory(&id, SourceFormat::ClaudeCode, Vec::new(), Vec::new());
    s.meta.name = format!("{id} (transcript missing; {runs} subagent runs)");
    s.meta.path = folder.display().to_string();
    s
}

/// The placeholder parent's listing entry.
pub fn meta(folder: &Path, runs: usize) -> SessionMeta {
    session(folder, runs).meta
}
