//! Where coworker keeps its state ([`default_locations`]) and which paths are coworker's
//! ([`claim`]: a state folder, a headless `--out` folder, one of their files, or a
//! conversation file copied out of its folder). Reading what
//! is claimed is [`super::CoworkerSource`]'s job.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::CoworkerSource;
use crate::sources::{Claim, Probe};

/// Where coworker keeps its state: `$COWORKER_STATE_DIR`, the platform default
/// (`%APPDATA%\coworker` on Windows, `~/.config/coworker` elsewhere) and, for a server started
/// on a workspace, `<workspace>/.coworker`. `env` looks variables up (pass `std::env::var_os`).
pub fn default_locations(
    env: impl Fn(&str) -> Option<OsString>,
    workspace: Option<&Path>,
) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Some(d) = env("COWORKER_STATE_DIR").filter(|d| !d.is_empty()) {
        out.push(PathBuf::from(d));
    }
    if cfg!(windows) {
        if let Some(a) = env("APPDATA").filter(|d| !d.is_empty()) {
            out.push(PathBuf::from(a).join("coworker"));
        }
    } else if let Some(h) = env("HOME").filter(|d| !d.is_empty()) {
        out.push(PathBuf::from(h).join(".config").join("coworker"));
    }
    if let Some(w) = workspace {
        out.push(w.join(".coworker"));
    }
    out.dedup();
    out
}

/// Claim a coworker state folder, a headless `--out` folder, or one of their files.
pub fn claim(p: &Probe) -> Claim {
    if p.is_dir {
        if is_state_dir(p.path) {
            return Some(Ok(Box::new(CoworkerSource::state_dir(p.path))));
        }
        if is_headless(p.path) {
            return Some(Ok(Box::new(CoworkerSource::headless(p.path))));
        }
        return None;
    }
    let parent = p.path.parent()?;
    let name = p.file_name();
    if name == "coworker.db" && p.is_sqlite() {
        return Some(Ok(Box::new(CoworkerSource::state_dir(parent))));
    }
    if name == "messages.json" && is_headless(parent) {
        return Some(Ok(Box::new(CoworkerSource::headless(parent))));
    }
    if p.extension() == "jsonl"
        && parent.file_name().is_some_and(|n| n == "conversations")
        && let Some(state) = parent.parent().filter(|s| s.join("coworker.db").is_file())
    {
        let mut s = CoworkerSource::state_dir(state);
        s.only = p.path.file_stem().map(|s| s.to_string_lossy().into_owned());
        return Some(Ok(Box::new(s)));
    }
    if p.extension() == "jsonl" && written_by_coworker(p.head) {
        return Some(Ok(Box::new(CoworkerSource::lone_file(p.path))));
    }
    None
}

/// True when a JSONL file's first bytes are coworker's own: a `compacted` notice (a role only
/// coworker writes) or its usage sidecar on an assistant line, both as Python's `json.dumps`
/// lays them out. A plain provider log has neither, and stays the message-log reader's.
fn written_by_coworker(head: &[u8]) -> bool {
    let has = |needle: &[u8]| head.windows(needle.len()).any(|w| w == needle);
    has(br#""role": "notice", "kind": "compacted""#)
        || (has(br#""usage": {"model": ""#) && has(br#""cache_write": "#))
}

fn is_state_dir(dir: &Path) -> bool {
    let named = dir
        .file_name()
        .is_some_and(|n| n == ".coworker" || n == "coworker");
    dir.join("coworker.db").is_file() || (named && dir.join("conversations").is_dir())
}

fn is_headless(dir: &Path) -> bool {
    dir.join("messages.json").is_file()
        && [
            "events.jsonl",
            "trajectory.json",
            "model_calls.jsonl",
            "summary.json",
        ]
        .iter()
        .any(|f| dir.join(f).is_file())
}
