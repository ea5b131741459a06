//! Where spill files may be opened from. Their paths come from untrusted transcript text, so a
//! path is opened only when it resolves (symlinks followed) inside one of the session's own
//! folders or a folder the user added; anything else is returned for confirmation with its full
//! path, never opened. Nothing here writes.

use std::io::Read;
use std::path::{Component, Path, PathBuf};

/// Where a path landed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolution {
    /// Exists inside a root; the canonical path.
    Inside(PathBuf),
    /// Would be inside a root but does not exist.
    Missing(PathBuf),
    /// Resolves outside every root (directly, by `..`, or through a symlink): needs the user's
    /// explicit confirmation. The path as resolved lexically.
    Outside(PathBuf),
}

/// A set of allowed folders.
#[derive(Debug, Clone, Default)]
pub struct Confinement {
    roots: Vec<PathBuf>,
}

impl Confinement {
    /// Allow these folders (canonicalised; ones that do not exist are dropped).
    pub fn new<I: IntoIterator<Item = PathBuf>>(roots: I) -> Self {
        let mut out: Vec<PathBuf> = Vec::new();
        for r in roots {
            if let Ok(c) = r.canonicalize()
                && c.is_dir()
                && !out.contains(&c)
            {
                out.push(c);
            }
        }
        Confinement { roots: out }
    }

    /// The allowed folders, canonical.
    pub fn roots(&self) -> &[PathBuf] {
        &self.roots
    }

    fn contains(&self, canonical: &Path) -> bool {
        self.roots.iter().any(|r| canonical.starts_with(r))
    }

    /// Resolve a path as written. Relative paths are tried against each of `bases` in turn
    /// (the first under which the file exists inside a root wins).
    pub fn resolve(&self, raw: &str, bases: &[PathBuf]) -> Resolution {
        let raw = raw.trim().trim_matches('"');
        let expanded = expand_home(raw);
        let candidates: Vec<PathBuf> = if expanded.is_absolute() {
            vec![lexical(&expanded)]
        } else {
            bases.iter().map(|b| lexical(&b.join(&expanded))).collect()
        };
        // Best first: inside a root (returned at once), an existing file outside (the user can
        // confirm it), a file missing from a root, a missing file outside.
        let mut best: Option<(u8, Resolution)> = None;
        for cand in candidates {
            let (rank, res) = match cand.canonicalize() {
                Ok(c) if self.contains(&c) => return Resolution::Inside(c),
                Ok(_) => (1, Resolution::Outside(cand)),
                Err(_) => {
                    // Missing: judge by the deepest ancestor that exists, canonicalised, so a
                    // symlinked folder cannot smuggle a missing path outside.
                    let mut anc = cand.as_path();
                    let mut rest: Vec<&std::ffi::OsStr> = Vec::new();
                    let real = loop {
                        match anc.canonicalize() {
                            Ok(c) => break Some(c),
                            Err(_) => {
                                let Some(name) = anc.file_name() else {
                                    break None;
                                };
                                rest.push(name);
                                match anc.parent() {
                                    Some(p) => anc = p,
                                    None => break None,
                                }
                            }
                        }
                    };
                    match real {
                        Some(mut r) => {
                            rest.iter().rev().for_each(|n| r.push(n));
                            if self.contains(&r) {
                                (2, Resolution::Missing(r))
                            } else {
                                (3, Resolution::Outside(cand))
                            }
                        }
                        None => (3, Resolution::Outside(cand)),
                    }
                }
            };
            if best.as_ref().is_none_or(|(r, _)| rank < *r) {
                best = Some((rank, res));
            }
        }
        let (rank, first) = best.unwrap_or((3, Resolution::Outside(expanded.clone())));
        // A session copied from elsewhere: its files may sit under a root by their last names.
        if matches!(first, Resolution::Outside(_))
            && let Some(moved) = self.relocate(&expanded)
            && (rank == 3 || matches!(moved, Resolution::Inside(_)))
        {
            return moved;
        }
        first
    }

    /// A session copied from another machine names its spills by their old absolute paths
    /// (`/home/dev/OpenWorker/<sid>/tool-output/0001-read_file.txt`). Look for the same last
    /// three or two segments under each root; never fewer, so a bare file name cannot match
    /// an unrelated file.
    fn relocate(&self, path: &Path) -> Option<Resolution> {
        let names: Vec<&std::ffi::OsStr> = path
            .components()
            .filter_map(|c| match c {
                Component::Normal(n) => Some(n),
                _ => None,
            })
            .collect();
        let mut missing = None;
        for k in [3, 2] {
            if names.len() < k {
                continue;
            }
            let suffix: PathBuf = names[names.len() - k..].iter().collect();
            for root in &self.roots {
                let cand = root.join(&suffix);
                match cand.canonicalize() {
                    Ok(c) if self.contains(&c) => return Some(Resolution::Inside(c)),
                    Ok(_) => {}
                    Err(_) => {
                        let parent_inside = cand
                            .parent()
                            .and_then(|p| p.canonicalize().ok())
                            .is_some_and(|p| self.contains(&p) && p != *root);
                        if parent_inside && missing.is_none() {
                            missing = Some(Resolution::Missing(cand));
                        }
                    }
                }
            }
        }
        missing
    }
}

/// Read at most `max` bytes of a confined file (lossy UTF-8), and whether it was cut.
/// Refuses anything not [`Resolution::Inside`].
pub fn read_confined(res: &Resolution, max: usize) -> std::io::Result<(String, bool)> {
    let Resolution::Inside(p) = res else {
        return Err(std::io::Error::new(
            std::io::ErrorKind::PermissionDenied,
            "path is outside the session's folders",
        ));
    };
    // Only a regular file: opening a FIFO named like a spill file would wait forever.
    if !std::fs::metadata(p)?.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file (a FIFO, socket or device): not read",
        ));
    }
    let f = std::fs::File::open(p)?;
    let mut buf = Vec::new();
    f.take(max as u64 + 1).read_to_end(&mut buf)?;
    let cut = buf.len() > max;
    buf.truncate(max);
    Ok((String::from_utf8_lossy(&buf).into_owned(), cut))
}

fn expand_home(raw: &str) -> PathBuf {
    match raw.strip_prefix("~/") {
        Some(rest) => crate::env::machine()
            .home()
            .map(|h| h.join(rest))
            .unwrap_or_else(|| PathBuf::from(raw)),
        None => PathBuf::from(raw),
    }
}

/// Resolve `.` and `..` without touching the disk.
pub fn lexical(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}
