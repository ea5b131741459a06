//! OpenCode's store as builds before its SQLite database wrote it: `storage/` JSON files, one
//! per session (`session/<project>/<id>.json`), message (`message/<session>/<id>.json`) and part
//! (`part/<message>/<id>.json`), each holding what the database's `data` column holds now plus
//! its own ids. It holds `opencode`'s worker, child and old-build sessions with their ids
//! renamed ([`renamed`]), so a listing of every fixture does not meet one id twice and a test
//! can hold each session equal to the database's.

use std::path::Path;

use anyhow::{Context, Result};
use serde_json::{Value, json};

use crate::opencode::{CWD, Sess};

/// What the ids of the database's sessions are renamed from and to here.
const FROM: &str = "7a1c0e2f";
const TO: &str = "6b0d1f3e";

/// The id here of a session, message or call the database fixture names `id`.
pub fn renamed(id: &str) -> String {
    id.replace(FROM, TO)
}

fn write_json(path: &Path, text: &str) -> Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("create {}", dir.display()))?;
    }
    std::fs::write(path, text).with_context(|| format!("write {}", path.display()))
}

/// `v` with its ids renamed, as OpenCode writes a record (two-space indents).
fn text(v: &Value) -> String {
    renamed(&serde_json::to_string_pretty(v).expect("JSON"))
}

/// Write `sessions` as the `storage/` tree of the data folder `out` (emptied first).
pub(crate) fn write(out: &Path, sessions: &[Sess]) -> Result<()> {
    if out.exists() {
        std::fs::remove_dir_all(out).with_context(|| format!("empty {}", out.display()))?;
    }
    let root = out.join("storage");
    write_json(
        &root.join("project/prj_shop.json"),
        &text(&json!({"id": "prj_shop", "worktree": CWD, "vcs": "git",
            "time": {"created": crate::opencode::T0}})),
    )?;
    let mut part_n = 0usize;
    for s in sessions {
        let id = renamed(s.id);
        let first = s.messages.first().map_or(crate::opencode::T0, |m| m.at);
        let last = s.messages.last().map_or(first, |m| m.at + 9_000);
        let mut session = json!({"id": s.id, "slug": &s.id[4..], "version": "0.15.31",
            "projectID": "prj_shop", "directory": CWD, "title": s.title,
            "time": {"created": first, "updated": last}});
        if let Some(p) = s.parent {
            session["parentID"] = json!(p);
        }
        write_json(
            &root.join(format!("session/prj_shop/{id}.json")),
            &text(&session),
        )?;
        for m in &s.messages {
            let mid = renamed(&m.id);
            let file = root.join(format!("message/{id}/{mid}.json"));
            match &m.raw {
                // A record cut short is written as it was cut.
                Some(raw) => write_json(&file, &renamed(raw))?,
                None => {
                    let mut data = m.data.clone();
                    data["id"] = json!(m.id);
                    data["sessionID"] = json!(s.id);
                    write_json(&file, &text(&data))?;
                }
            }
            for p in &m.parts {
                part_n += 1;
                let pid = format!("prt_{part_n:06}");
                let mut p = p.clone();
                p["id"] = json!(pid);
                p["sessionID"] = json!(s.id);
                p["messageID"] = json!(m.id);
                write_json(&root.join(format!("part/{mid}/{pid}.json")), &text(&p))?;
            }
        }
    }
    Ok(())
}
