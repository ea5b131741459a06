//! The fast path of an update: each folder the index was brought up to date for keeps the
//! [`super::fingerprint::tree_stamp`] of its listing and the problems the update met. When the
//! stamp is the same, nothing under it changed: its sessions count as unchanged and its problems
//! are said again, without opening a file — the warm `search` or `diagnose DIR` a user waits
//! for. Anything else goes through the full update (`super`), and so does a folder whose last
//! update met a locked database or an unreadable file (those can come right unseen).

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OptionalExtension, params};

use crate::error::Problem;

/// What the index knew of a folder at its last full update.
pub struct Known {
    /// Its tree stamp then.
    pub stamp: String,
    /// The problems that update met.
    pub problems: Vec<Problem>,
}

/// The stored stamp and problems of `root`.
pub fn known(conn: &Connection, root: &Path) -> rusqlite::Result<Option<Known>> {
    conn.query_row(
        "SELECT stamp, problems FROM roots WHERE path = ?1",
        params![root.display().to_string()],
        |r| {
            let problems: String = r.get(1)?;
            Ok(Known {
                stamp: r.get(0)?,
                problems: serde_json::from_str(&problems).unwrap_or_default(),
            })
        },
    )
    .optional()
}

/// Remember `root`'s stamp and problems after a full update.
pub fn save(
    conn: &Connection,
    root: &Path,
    stamp: &str,
    problems: &[Problem],
) -> rusqlite::Result<()> {
    conn.execute(
        "INSERT INTO roots(path, stamp, problems) VALUES(?1, ?2, ?3)
         ON CONFLICT(path) DO UPDATE SET stamp = excluded.stamp, problems = excluded.problems",
        params![
            root.display().to_string(),
            stamp,
            serde_json::to_string(problems).unwrap_or_else(|_| "[]".into())
        ],
    )?;
    Ok(())
}

/// The problems of `root`'s last update when its listing is still the same; `None` when it
/// changed (or the index never saw the folder, or `root` is a file).
pub fn fresh(conn: &Connection, root: &Path) -> rusqlite::Result<Option<Vec<Problem>>> {
    if !root.is_dir() {
        return Ok(None);
    }
    Ok(known(conn, root)?
        .filter(|k| k.stamp == super::fingerprint::tree_stamp(root))
        .map(|k| k.problems))
}

/// Drop what the index knew of `root`'s listing: its next update is a full one.
pub fn forget(conn: &Connection, root: &Path) -> rusqlite::Result<()> {
    conn.execute(
        "DELETE FROM roots WHERE path = ?1",
        params![root.display().to_string()],
    )?;
    Ok(())
}

/// Forget every indexed folder that holds `path` (but `path` itself): sessions indexed from
/// `path` now sit under them without being theirs (a database inside a folder opened on its
/// own, which the folder's sources do not list), so their listing is made from disk again.
pub fn forget_ancestors(conn: &Connection, path: &Path) -> rusqlite::Result<()> {
    let mut q = conn.prepare("SELECT path FROM roots")?;
    let all: Vec<String> = q
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    for r in all {
        let p = Path::new(&r);
        if p != path && path.starts_with(p) {
            forget(conn, p)?;
        }
    }
    Ok(())
}

/// Sessions the index holds under `root`.
pub fn sessions_under(conn: &Connection, root: &Path) -> rusqlite::Result<usize> {
    let mut q = conn.prepare_cached("SELECT file FROM sessions")?;
    let files = q.query_map([], |r| r.get::<_, String>(0))?;
    let roots = [root.to_owned()];
    let mut n = 0;
    for f in files {
        n += usize::from(super::under(&f?, &roots));
    }
    Ok(n)
}

/// The problems of a full update that belong to `root` (they name a file under it); the
/// first root also takes those that name none.
pub fn problems_of(all: &[Problem], root: &Path, roots: &[PathBuf]) -> Vec<Problem> {
    let mine = |p: &Problem| p.message.contains(&root.display().to_string());
    let anyone = |p: &Problem| {
        roots
            .iter()
            .any(|r| p.message.contains(&r.display().to_string()))
    };
    let first = roots.first().is_some_and(|r| r == root);
    all.iter()
        .filter(|p| mine(p) || first && !anyone(p))
        .cloned()
        .collect()
}
