//! OpenCode's store before its SQLite database: a `storage/` folder of JSON files, one per
//! record, each holding what the database's `data` column holds now (plus its own ids):
//!
//! - `session/<project id>/<session id>.json`: id, parentID, directory, title, time;
//! - `message/<session id>/<message id>.json`: a message's `data`;
//! - `part/<message id>/<part id>.json`: a part's `data`.
//!
//! This module reads the files into the rows `db` reads from the database, so `build` makes the
//! same messages of both. Ids ascend with time (OpenCode's `Identifier.ascending`), and the
//! harness itself listed a session's messages and a message's parts in file-name order: so do
//! we. A session file that does not read is declined (the dispatcher then reports it, naming
//! it); a message or part that does not read becomes a message that says so (`build`).

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::db::{Row, model_of, recorded_usage};
use crate::error::{Error, Result};
use crate::model::{SessionMeta, SourceFormat};

/// A `storage/` folder of OpenCode's JSON files.
#[derive(Debug, Clone)]
pub struct Tree {
    /// The `storage` folder.
    pub root: PathBuf,
    /// OpenCode's or Kilo Code's (by the data folder's name).
    pub format: SourceFormat,
}

/// The `.json` files of `dir`, sorted by name; none when it does not exist.
fn json_files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|e| e == "json") && p.is_file())
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

/// When `p` was last written, in Unix ms.
fn modified_ms(p: &Path) -> Option<i64> {
    let t = std::fs::metadata(p).ok()?.modified().ok()?;
    let d = t.duration_since(std::time::UNIX_EPOCH).ok()?;
    i64::try_from(d.as_millis()).ok()
}

fn stem(p: &Path) -> String {
    p.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

impl Tree {
    /// The tree under `root` (a `storage` folder holding `session/`), when it is one.
    pub fn at(root: &Path) -> Option<Self> {
        if !root.join("session").is_dir() || !root.join("message").is_dir() {
            return None;
        }
        let data = root.parent().and_then(Path::file_name);
        Some(Tree {
            root: root.to_owned(),
            format: if data.is_some_and(|n| n == "kilo") {
                SourceFormat::Kilo
            } else {
                SourceFormat::OpenCode
            },
        })
    }

    /// Every session file, in project then file-name order.
    fn session_files(&self) -> Vec<PathBuf> {
        let mut projects: Vec<PathBuf> = std::fs::read_dir(self.root.join("session"))
            .map(|rd| {
                rd.filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.is_dir())
                    .collect()
            })
            .unwrap_or_default();
        projects.sort();
        projects.iter().flat_map(|p| json_files(p)).collect()
    }

    /// Session files that are not sessions (not JSON, or no `id`): declined, so the dispatcher
    /// names each as unreadable while the others load.
    pub fn unreadable(&self) -> Vec<PathBuf> {
        self.session_files()
            .into_iter()
            .filter(|p| self.read_session(p).is_none())
            .collect()
    }

    /// A session file's listing entry, its counts, model and usage not yet known.
    fn read_session(&self, file: &Path) -> Option<SessionMeta> {
        let v: Value = serde_json::from_slice(&std::fs::read(file).ok()?).ok()?;
        let id = v.get("id")?.as_str()?.to_owned();
        let title = v["title"].as_str().unwrap_or_default().trim().to_owned();
        let dir = v["directory"].as_str().unwrap_or_default();
        Some(SessionMeta {
            name: if title.is_empty() { id.clone() } else { title },
            format: self.format,
            path: self.root.display().to_string(),
            working_dir: Some(dir.to_owned()).filter(|d| !d.is_empty()),
            created: v["time"]["created"].as_i64(),
            updated: v["time"]["updated"].as_i64(),
            model: None,
            context_limit: None,
            usage: None,
            message_count: 0,
            compaction_count: 0,
            parent_id: v["parentID"].as_str().map(str::to_owned),
            id,
        })
    }

    /// Session `id`'s listing entry without reading its messages: loading it reads them, and
    /// `build` fills the counts, the model and the usage from them.
    pub fn entry(&self, id: &str) -> Option<SessionMeta> {
        self.session_files()
            .iter()
            .filter_map(|f| self.read_session(f))
            .find(|m| m.id == id)
    }

    /// The sessions, most recently updated first, with their message counts and the latest
    /// answer's model and usage, as `Db::list` gives them.
    pub fn list(&self) -> Result<Vec<SessionMeta>> {
        if !self.root.join("session").is_dir() {
            return Err(Error::format(&self.root, "no `session` folder"));
        }
        let mut out = Vec::new();
        for file in self.session_files() {
            let Some(mut meta) = self.read_session(&file) else {
                continue;
            };
            let files = json_files(&self.root.join("message").join(&meta.id));
            meta.message_count = files.len();
            let mut latest: Option<(i64, String, Value)> = None;
            for f in &files {
                let Some(v) = std::fs::read(f)
                    .ok()
                    .and_then(|t| serde_json::from_slice::<Value>(&t).ok())
                else {
                    continue;
                };
                if v["summary"] == true {
                    meta.compaction_count += 1;
                    continue;
                }
                if v["role"] != "assistant" {
                    continue;
                }
                let key = (v["time"]["created"].as_i64().unwrap_or(0), stem(f));
                if latest
                    .as_ref()
                    .is_none_or(|(t, id, _)| key > (*t, id.clone()))
                {
                    latest = Some((key.0, key.1, v));
                }
            }
            if let Some((_, _, v)) = &latest {
                meta.model = model_of(v);
                meta.usage = recorded_usage(v);
            }
            out.push(meta);
        }
        out.sort_by(|a, b| b.updated.cmp(&a.updated).then_with(|| a.id.cmp(&b.id)));
        Ok(out)
    }

    /// Session `id`'s messages with their parts, in file-name (id) order.
    pub fn rows(&self, id: &str) -> Result<Vec<Row>> {
        let dir = self.root.join("message").join(id);
        if !super::super::is_plain_component(id) || !dir.is_dir() {
            return Err(Error::NoSuchSession {
                path: self.root.clone(),
                id: id.to_owned(),
            });
        }
        let mut rows = Vec::new();
        for f in json_files(&dir) {
            let data = std::fs::read_to_string(&f).map_err(|e| Error::Io {
                path: f.clone(),
                source: e,
            })?;
            let id = stem(&f);
            // A record that does not read is dated by its file, written when it was.
            let created = serde_json::from_str::<Value>(&data)
                .ok()
                .and_then(|v| v["time"]["created"].as_i64())
                .or_else(|| modified_ms(&f))
                .unwrap_or(0);
            let parts = json_files(&self.root.join("part").join(&id))
                .into_iter()
                .map(|p| {
                    let text = std::fs::read_to_string(&p).unwrap_or_else(|e| {
                        // An unreadable part is shown as the row text that does not parse.
                        format!("unreadable {}: {e}", p.display())
                    });
                    (stem(&p), text)
                })
                .collect();
            rows.push(Row {
                place: f.display().to_string(),
                id,
                created,
                data,
                parts,
            });
        }
        Ok(rows)
    }
}
