//! Which folders count as a session's own, for opening the spill files it names.
//!
//! Spill paths come from transcript text, and so does everything else a transcript records about
//! itself — its working directory, its id. None of that is trusted to widen what may be read. A
//! root is derived from where the session file lives on disk:
//! - the folder holding the session file (for a folder source, the folder itself), unless that
//!   folder is `/`, the home folder or one of its ancestors;
//! - Claude Code: `<folder>/<id>/subagents` and `<folder>/<id>/tool-results`;
//! - coworker: the state folder above `conversations/`, and `<scratch base>/<id>` (the scratch
//!   base from the user's options, `$COWORKER_SCRATCH_BASE` or `~/OpenWorker`);
//! - goose: its large-response folder `<temp dir>/goose_mcp_responses`;
//! - every folder the user named (`--root`, or confirmed in the app).
//!
//! A derived sub-folder counts only when it resolves (symlinks followed) inside the folder it
//! was derived from, and an id is joined to a path only when it is one plain path component. The
//! recorded working directory is only a *suggestion*: relative markers are resolved against it,
//! but what they reach is read only inside a root. Opening and reading is [`super::confine`]'s.

use std::path::{Path, PathBuf};

use crate::model::{SessionMeta, SourceFormat};
pub use crate::sources::is_plain_component;

/// The folders of one session, as [`session_folders`] derives them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionFolders {
    /// Folders files may be read from (not yet canonical; [`super::confine::Confinement`]
    /// canonicalises them).
    pub roots: Vec<PathBuf>,
    /// Folders relative markers are resolved against, in order: the recorded working directory
    /// first (where a relative path was meant), then the roots.
    pub bases: Vec<PathBuf>,
    /// Folders the transcript names that the user may choose to trust (its recorded working
    /// directory; a session folder too broad to be a root).
    pub suggested: Vec<PathBuf>,
    /// Why a folder was left out (an id that is not a plain name, a sub-folder that leaves its
    /// parent through a symlink).
    pub problems: Vec<String>,
}

/// Where the user allows more, and where coworker's scratch lives.
#[derive(Debug, Clone, Default)]
pub struct RootOptions {
    /// Folders the user added or confirmed.
    pub extra_roots: Vec<PathBuf>,
    /// coworker's scratch base; `None` uses `$COWORKER_SCRATCH_BASE`, else `~/OpenWorker`.
    pub scratch_base: Option<PathBuf>,
}

/// A folder too broad to count as a session's own: `/`, the home folder, or one of its
/// ancestors. A transcript saved straight into `~` must not open `~/.ssh` to its markers.
fn too_broad(dir: &Path) -> bool {
    let Ok(c) = dir.canonicalize() else {
        return false;
    };
    c.parent().is_none()
        || crate::env::machine()
            .home()
            .and_then(|h| h.canonicalize().ok())
            .is_some_and(|h| h.starts_with(&c))
}

/// `sub` when it resolves inside `parent` (both canonical); else a problem is recorded.
fn inside(parent: &Path, sub: PathBuf, problems: &mut Vec<String>) -> Option<PathBuf> {
    let (Ok(p), Ok(s)) = (parent.canonicalize(), sub.canonicalize()) else {
        // Missing folders are harmless: they hold nothing to read.
        return Some(sub);
    };
    if s.starts_with(&p) {
        Some(sub)
    } else {
        problems.push(format!(
            "{} leads outside {} (to {}): not searched",
            sub.display(),
            p.display(),
            s.display()
        ));
        None
    }
}

/// The session file as an absolute path, so a bare relative name still has a folder.
fn absolute(path: &str) -> PathBuf {
    let p = Path::new(path);
    std::path::absolute(p).unwrap_or_else(|_| p.to_owned())
}

/// The session's own folders, the bases relative markers resolve against, and the suggestions.
pub fn session_folders(meta: &SessionMeta, opts: &RootOptions) -> SessionFolders {
    let mut out = SessionFolders::default();
    let id = meta.id.as_str();
    let plain = is_plain_component(id);
    let file = absolute(&meta.path);
    let folder = if file.is_dir() {
        Some(file)
    } else {
        file.parent().map(Path::to_owned)
    };
    if let Some(f) = &folder {
        if too_broad(f) {
            out.problems.push(format!(
                "{} is too broad to be the session's folder (it holds the home folder): \
                 confirm it to trust it",
                f.display()
            ));
            out.suggested.push(f.clone());
        } else {
            out.roots.push(f.clone());
        }
        match meta.format {
            SourceFormat::ClaudeCode if plain => {
                for sub in ["subagents", "tool-results"] {
                    if let Some(d) = inside(f, f.join(id).join(sub), &mut out.problems) {
                        out.roots.push(d);
                    }
                }
            }
            // coworker keeps conversations/<sid>.jsonl one level below its state folder.
            SourceFormat::Coworker
                if f.file_name().is_some_and(|n| n == "conversations")
                    && let Some(state) = f.parent()
                    && !too_broad(state) =>
            {
                out.roots.push(state.to_owned());
            }
            _ => {}
        }
    }
    match meta.format {
        SourceFormat::Coworker => {
            let base = opts.scratch_base.clone().or_else(|| {
                let m = crate::env::machine();
                m.var_path("COWORKER_SCRATCH_BASE")
                    .or_else(|| m.home().map(|h| h.join("OpenWorker")))
            });
            if let Some(b) = base {
                if plain {
                    if let Some(d) = inside(&b, b.join(id), &mut out.problems) {
                        out.roots.push(d);
                    }
                } else {
                    out.problems.push(format!(
                        "session id `{id}` is not one plain path component: its scratch folder \
                         under {} is not searched",
                        b.display()
                    ));
                }
            }
        }
        SourceFormat::Goose | SourceFormat::GooseLegacy => {
            let d = goose_responses();
            match shared_folder_problem(&d, &file_path(meta)) {
                None => out.roots.push(d),
                Some(why) => out.problems.push(why),
            }
        }
        _ => {}
    }
    if (meta.format == SourceFormat::ClaudeCode) && !plain {
        out.problems.push(format!(
            "session id `{id}` is not one plain path component: its subagents and tool-results \
             folders are not searched"
        ));
    }
    out.roots.extend(opts.extra_roots.iter().cloned());
    if let Some(wd) = &meta.working_dir {
        let wd = PathBuf::from(wd);
        out.bases.push(wd.clone());
        let trusted = opts.extra_roots.iter().any(|r| same_dir(r, &wd));
        // A folder that is not on this machine (a session copied from elsewhere) holds
        // nothing to read: not worth a question.
        if !trusted && wd.is_dir() && !out.suggested.contains(&wd) {
            out.suggested.push(wd);
        }
    }
    out.bases.extend(out.roots.iter().cloned());
    out
}

/// goose's large-response folder: `goose_mcp_responses` in the temp folder goose uses
/// (`$TMPDIR`, else `/tmp`; `%TEMP%` on Windows).
fn goose_responses() -> PathBuf {
    let m = crate::env::machine();
    let temp = if cfg!(windows) {
        m.var_path("TEMP").or_else(|| m.var_path("TMP"))
    } else {
        m.var_path("TMPDIR")
    };
    temp.unwrap_or_else(|| {
        PathBuf::from(if cfg!(windows) {
            "C:\\Windows\\Temp"
        } else {
            "/tmp"
        })
    })
    .join("goose_mcp_responses")
}

fn file_path(meta: &SessionMeta) -> PathBuf {
    absolute(&meta.path)
}

/// Why a folder in a shared place (the temp folder, where any local user may create it first)
/// is not a root: it is a symlink, or another user owns it than the one who owns the session
/// file. `None` when it may be searched (a missing folder holds nothing and may be).
fn shared_folder_problem(dir: &Path, session_file: &Path) -> Option<String> {
    let meta = match std::fs::symlink_metadata(dir) {
        Ok(m) => m,
        Err(_) => return None,
    };
    if meta.file_type().is_symlink() {
        let to = std::fs::read_link(dir)
            .map(|t| t.display().to_string())
            .unwrap_or_else(|_| "?".into());
        return Some(format!(
            "{} is a symlink (to {to}) in a folder every user may write: not searched",
            dir.display()
        ));
    }
    if !meta.is_dir() {
        return Some(format!("{} is not a folder: not searched", dir.display()));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let Ok(owner) = std::fs::metadata(session_file).map(|m| m.uid())
            && owner != meta.uid()
        {
            return Some(format!(
                "{} belongs to another user (uid {}) than the session (uid {owner}): not searched",
                dir.display(),
                meta.uid()
            ));
        }
    }
    #[cfg(not(unix))]
    let _ = session_file;
    None
}

fn same_dir(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_components() {
        for ok in ["a1b2c3", "0b6c-uuid", "name with space", "..x", "x.."] {
            assert!(is_plain_component(ok), "{ok} is one name");
        }
        for bad in ["", ".", "..", "../../..", "a/b", "/etc", "a\\b", "a\0b"] {
            assert!(!is_plain_component(bad), "{bad:?} would leave its folder");
        }
    }

    #[test]
    fn root_and_home_are_too_broad() {
        assert!(too_broad(Path::new("/")), "/ holds everything");
        let home = tempfile::tempdir().unwrap();
        let inside = home.path().join("work");
        std::fs::create_dir(&inside).unwrap();
        let machine = crate::env::Machine::new(Some(home.path().to_owned()), None, None, []);
        crate::env::with(machine, || {
            assert!(too_broad(home.path()), "the home folder itself");
            assert!(
                !too_broad(&inside),
                "a folder inside home is a session's own"
            );
        });
        assert!(
            !too_broad(home.path()),
            "a folder is only home on the machine that says so"
        );
    }
}
