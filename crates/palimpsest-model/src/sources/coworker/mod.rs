//! OpenWorker's `coworker` harness: a state folder (`coworker.db` + `conversations/<sid>.jsonl`)
//! or a headless `--out` folder (`messages.json`, `events.jsonl`, `tool-output/`), each claimed
//! as a whole. The database is opened read-only and never written.
//!
//! Submodules: [`block`] rebuilds the compacted block from a record, [`cap`] parses the
//! tool-result cap's marker, [`db`] reads the `sessions` table, [`build`] lays out the timeline,
//! `locate` says where coworker keeps its state and which paths are coworker's.
//! Token counting and compaction replay are left to `tokens` and `replay`.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{SessionSource, jsonl};
use crate::error::{Error, Result};
use crate::model::{RecordedUsage, Role, Session, SessionMeta, SourceFormat};

pub mod block;
pub mod build;
pub mod cap;
pub mod db;
mod list;
mod locate;
pub mod pyjson;
pub mod stored;

use build::{Context, Entry};
use db::SessionRow;
use list::{column_total, last_usage, tokens};
pub use locate::{claim, default_locations};

/// A coworker state folder or headless run folder.
pub struct CoworkerSource {
    dir: PathBuf,
    headless: bool,
    /// Only this session (when one conversation file was opened).
    only: Option<String>,
    /// Scratch bases whose `<sid>/tool-output/` may hold spill files.
    scratch_bases: Vec<PathBuf>,
    /// A conversation file copied out of its state folder: the one session, read alone.
    lone: Option<PathBuf>,
}

impl CoworkerSource {
    /// A state folder; spill files are looked for under the scratch bases coworker would use
    /// (`prefs.json`'s `scratch_base`, `$COWORKER_SCRATCH_BASE`, `~/OpenWorker`).
    pub fn state_dir(dir: &Path) -> Self {
        let mut bases = Vec::new();
        if let Ok(text) = std::fs::read_to_string(dir.join("prefs.json"))
            && let Ok(v) = serde_json::from_str::<Value>(&text)
            && let Some(b) = v.get("scratch_base").and_then(Value::as_str)
        {
            bases.push(dir.join(b));
        }
        let m = crate::env::machine();
        if let Some(b) = m.var_path("COWORKER_SCRATCH_BASE") {
            bases.push(b);
        }
        if let Some(h) = m.home() {
            bases.push(h.join("OpenWorker"));
        }
        Self::with_scratch(dir, bases)
    }

    /// A state folder with explicit scratch bases (tests, or a copied session with its spills).
    pub fn with_scratch(dir: &Path, scratch_bases: Vec<PathBuf>) -> Self {
        Self {
            dir: dir.to_owned(),
            headless: false,
            only: None,
            scratch_bases,
            lone: None,
        }
    }

    /// One conversation file away from its state folder (a copy attached to a report): its
    /// session alone, compactions from its notices' records, spill files under the scratch
    /// bases coworker would use; no database, so no title or `sessions.compaction` column.
    pub fn lone_file(file: &Path) -> Self {
        let dir = file.parent().unwrap_or(Path::new(".")).to_owned();
        let mut s = Self::state_dir(&dir);
        s.only = file.file_stem().map(|n| n.to_string_lossy().into_owned());
        s.lone = Some(file.to_owned());
        s
    }

    /// A headless `openworker run --out` folder: one session, spills in `tool-output/`.
    pub fn headless(dir: &Path) -> Self {
        Self {
            dir: dir.to_owned(),
            headless: true,
            only: None,
            scratch_bases: Vec::new(),
            lone: None,
        }
    }

    fn db(&self) -> PathBuf {
        self.dir.join("coworker.db")
    }

    fn conversation(&self, id: &str) -> PathBuf {
        match &self.lone {
            Some(file) => file.clone(),
            None => self.dir.join("conversations").join(format!("{id}.jsonl")),
        }
    }

    fn rows(&self) -> Result<Vec<SessionRow>> {
        if self.headless || self.lone.is_some() || !self.db().is_file() {
            return Ok(Vec::new());
        }
        db::read_sessions(&self.db())
    }

    fn headless_id(&self) -> String {
        self.summary()
            .and_then(|s| {
                s.get("session_id")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            })
            .unwrap_or_else(|| {
                self.dir
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_else(|| "headless".into())
            })
    }

    fn summary(&self) -> Option<Value> {
        let text = std::fs::read_to_string(self.dir.join("summary.json")).ok()?;
        serde_json::from_str(&text).ok()
    }

    /// Every session id with its row (if any), in database order then file-name order.
    fn ids(&self) -> Result<Vec<(String, Option<SessionRow>)>> {
        if self.headless {
            return Ok(vec![(self.headless_id(), None)]);
        }
        if self.lone.is_some() {
            return Ok(self.only.iter().map(|id| (id.clone(), None)).collect());
        }
        let mut out: Vec<(String, Option<SessionRow>)> = Vec::new();
        for r in self.rows()? {
            let has_messages = self.conversation(&r.id).is_file() || r.inline_messages.is_some();
            if has_messages {
                out.push((r.id.clone(), Some(r)));
            }
        }
        let mut files: Vec<String> = std::fs::read_dir(self.dir.join("conversations"))
            .map(|rd| {
                rd.filter_map(|e| e.ok())
                    .map(|e| e.path())
                    .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
                    .filter_map(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
                    .collect()
            })
            .unwrap_or_default();
        files.sort();
        for f in files {
            if !out.iter().any(|(id, _)| *id == f) {
                out.push((f, None));
            }
        }
        if let Some(only) = &self.only {
            out.retain(|(id, _)| id == only);
        }
        Ok(out)
    }

    /// The stored messages of a session, and the file they came from.
    fn entries(&self, id: &str, row: Option<&SessionRow>) -> Result<(PathBuf, Vec<Entry>)> {
        if self.headless {
            let path = self.dir.join("messages.json");
            let text = std::fs::read_to_string(&path).map_err(|e| Error::io(&path, e))?;
            return Ok((path.clone(), array_entries(&path, &text)?));
        }
        // The id comes from coworker's database: joined to a path only when it is one name.
        let plain = super::is_plain_component(id);
        let path = self.conversation(id);
        if plain && path.is_file() {
            let mut entries = Vec::new();
            jsonl::for_each_line(&path, |l| {
                entries.push(Entry {
                    line: l.number,
                    value: l.value.map_err(|b| (b.error.to_string(), b.raw)),
                });
                true
            })?;
            return Ok((path, entries));
        }
        match row.and_then(|r| r.inline_messages.as_deref()) {
            Some(text) => Ok((self.db(), array_entries(&self.db(), text)?)),
            None if !plain => Err(Error::format(
                &self.dir,
                format!(
                    "session id `{id}` is not one plain file name: its conversation file is not read"
                ),
            )),
            None => Err(Error::NoSuchSession {
                path: self.dir.clone(),
                id: id.to_owned(),
            }),
        }
    }

    fn spill_dirs(&self, id: &str) -> Vec<PathBuf> {
        if self.headless {
            return vec![self.dir.join("tool-output")];
        }
        if !super::is_plain_component(id) {
            return Vec::new();
        }
        self.scratch_bases
            .iter()
            .map(|b| b.join(id).join("tool-output"))
            .collect()
    }

    fn build(&self, id: &str) -> Result<(Session, Vec<Entry>, build::Built)> {
        let ids = self.ids()?;
        let Some((_, row)) = ids.into_iter().find(|(i, _)| i == id) else {
            return Err(Error::NoSuchSession {
                path: self.dir.clone(),
                id: id.to_owned(),
            });
        };
        let (file, entries) = self.entries(id, row.as_ref())?;
        let ctx = Context {
            file: file.clone(),
            spill_dirs: self.spill_dirs(id),
            column: row.as_ref().and_then(|r| r.compaction.as_ref()),
        };
        let mut built = build::build(&entries, &ctx);
        crate::sources::usage::fill(
            &mut built.messages,
            "usage",
            crate::sources::usage::coworker,
        );
        let first_user = built
            .messages
            .iter()
            .find(|m| {
                m.role == Role::User
                    && m.details
                        .as_ref()
                        .is_none_or(|d| d.get("synthetic").is_none())
            })
            .map(|m| m.text());
        let mut meta = self.meta(id, row.as_ref(), &file, first_user.as_deref());
        meta.message_count = built.messages.len();
        meta.compaction_count = built.compactions.len();
        meta.created = built.messages.iter().find_map(|m| m.created);
        if meta.updated.is_none() {
            meta.updated = built.messages.iter().rev().find_map(|m| m.created);
        }
        let usage_of = |m: &crate::model::Message| m.detail("usage");
        let last = built.messages.iter().rev().find_map(usage_of);
        let mut usage = last.as_ref().map(last_usage).unwrap_or_default();
        usage.accumulated_total_tokens = row
            .as_ref()
            .and_then(|r| r.usage.as_ref())
            .map(column_total)
            .or_else(|| {
                let all: Vec<Value> = built.messages.iter().filter_map(usage_of).collect();
                (!all.is_empty()).then(|| {
                    all.iter()
                        .map(|u| tokens(u, &["input", "output", "cache_read", "cache_write"]))
                        .sum()
                })
            });
        if meta.model.is_none() {
            meta.model = last
                .as_ref()
                .and_then(|u| u.get("model").and_then(Value::as_str).map(str::to_owned));
        }
        meta.usage = (usage != RecordedUsage::default()).then_some(usage);
        let session = Session {
            meta,
            messages: crate::model::shared(built.messages.clone()),
            compactions: built.compactions.clone(),
        };
        Ok((session, entries, built))
    }

    fn meta(
        &self,
        id: &str,
        row: Option<&SessionRow>,
        file: &Path,
        first_user: Option<&str>,
    ) -> SessionMeta {
        let summary = if self.headless { self.summary() } else { None };
        let from_summary = |k: &str| {
            summary
                .as_ref()
                .and_then(|s| s.get(k))
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        SessionMeta {
            id: id.to_owned(),
            format: SourceFormat::Coworker,
            path: file.to_string_lossy().into_owned(),
            name: match row {
                Some(r) => r.title(first_user),
                None => from_summary("title").unwrap_or_else(|| db::snapshot_title(first_user)),
            },
            working_dir: row
                .and_then(|r| r.workspace.clone())
                .or_else(|| from_summary("workspace")),
            created: None,
            updated: row.and_then(|r| r.updated),
            model: row
                .and_then(|r| r.model.clone())
                .or_else(|| from_summary("model")),
            context_limit: None,
            usage: row.and_then(|r| r.usage.as_ref()).map(|u| RecordedUsage {
                accumulated_total_tokens: Some(column_total(u)),
                ..Default::default()
            }),
            message_count: 0,
            compaction_count: 0,
            parent_id: None,
        }
    }
}

fn array_entries(path: &Path, text: &str) -> Result<Vec<Entry>> {
    let v: Value = serde_json::from_str(text).map_err(|e| Error::Line {
        path: path.to_owned(),
        line: e.line(),
        message: format!("not valid JSON: {e}"),
    })?;
    let items = match v {
        Value::Array(a) => a,
        Value::Object(mut o) => match o.remove("messages") {
            Some(Value::Array(a)) => a,
            _ => return Err(Error::format(path, "holds no `messages` array")),
        },
        _ => return Err(Error::format(path, "is not a JSON array of messages")),
    };
    Ok(items
        .into_iter()
        .enumerate()
        .map(|(i, v)| Entry {
            line: i + 1,
            value: Ok(v),
        })
        .collect())
}

impl SessionSource for CoworkerSource {
    fn format(&self) -> SourceFormat {
        SourceFormat::Coworker
    }

    fn path(&self) -> &Path {
        &self.dir
    }

    fn list(&self) -> Result<Vec<SessionMeta>> {
        list::list(self)
    }

    fn load(&self, id: &str) -> Result<Session> {
        Ok(self.build(id)?.0)
    }

    fn raw(&self, id: &str, index: usize) -> Result<Option<String>> {
        let (_, entries, built) = self.build(id)?;
        if let Some((_, raw)) = built.block_raw.iter().find(|(i, _)| *i == index) {
            return Ok(Some(raw.to_string()));
        }
        let Some(Some(e)) = built.origin.get(index) else {
            return Ok(None);
        };
        let entry = &entries[*e];
        if self.headless || !self.conversation(id).is_file() {
            return Ok(entry.value.as_ref().ok().map(Value::to_string));
        }
        nth_line(&self.conversation(id), entry.line)
    }
}

/// The text of 1-based line `n`, as written (lines before it are skipped, not kept).
pub(crate) fn nth_line(path: &Path, n: usize) -> Result<Option<String>> {
    let text = super::scan::read_lines(path, &[n])?;
    Ok((!text.is_empty()).then_some(text))
}
