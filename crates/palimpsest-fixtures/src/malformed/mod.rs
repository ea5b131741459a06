//! The malformed-input corpus: for each of the formats Palimpsest reads (goose `sessions.db`,
//! goose legacy `.jsonl`, Claude Code, Codex, coworker, message logs, OpenCode, Crush, Copilot
//! CLI, Gemini CLI; Cline's whole-file JSON is left to the reader's own tests), a good
//! session and at least 50 damaged copies of it — bad lines at every early position, torn and
//! cut files, wrong types, odd encodings, truncated and corrupted databases, WAL and journal
//! left-overs, FIFOs, symlink cycles, directories named like files, hostile paths.
//!
//! Every case lives in a folder of its own under `out/<format>/<case>/`, so a test can hash the
//! folder before and after each command (nothing may change or appear) and run the commands on
//! [`Case::target`]. What a case must do is [`Expect`]; checking it is the test's job
//! (`crates/palimpsest-cli/tests/it/malformed.rs`). Line mutations are `lines`', database ones
//! `sqlite`', filesystem oddities `files`', the good sessions `bases`'.

use std::path::{Path, PathBuf};

use anyhow::Result;

pub mod bases;
pub mod files;
pub mod lines;
pub mod sqlite;

/// What a case must do, beyond the promises every case keeps (no panic, done within 10 s,
/// errors naming the file, nothing written).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expect {
    /// Loads with every good message of the base, in order, plus exactly this many rows for
    /// the damage (error rows naming the file and line or row, or rows kept as `other`).
    AllGood {
        /// Rows beyond the base's.
        extra_rows: usize,
    },
    /// As [`Expect::AllGood`], but the good messages may come in another order: coworker's
    /// compaction records count stored lines, so a line *inserted* before a boundary moves
    /// where its notice falls and which messages the model still sees (damage in place does
    /// not).
    AllGoodAnyOrder {
        /// Rows beyond the base's.
        extra_rows: usize,
    },
    /// A folder target: lists exactly the base's sessions, each once.
    ListsOnce,
    /// A folder target: lists the base's sessions and these, each once (another agent's file
    /// beside the base must neither hide it nor be hidden).
    ListsBaseAnd(Vec<String>),
    /// Loads (something is lost with the damage, nothing else is promised).
    Loads,
    /// Refused: listing or loading fails, or lists no session, with an error naming the file.
    Refused,
    /// Either loads or is refused with an error naming the file.
    Either,
}

/// One damaged input.
#[derive(Debug, Clone)]
pub struct Case {
    /// `goose`, `goose-legacy`, `claude`, `codex`, `coworker`, `message-log`, `opencode`,
    /// `crush`, `copilot` or `gemini`.
    pub format: &'static str,
    /// A short name saying what is damaged (`bad-line-at-3`, `fifo`, …).
    pub name: String,
    /// The case's own folder (hashed before and after each command).
    pub dir: PathBuf,
    /// What the commands are run on: a file or folder inside `dir`.
    pub target: PathBuf,
    /// The session to load when the target holds several.
    pub session: Option<String>,
    /// What it must do.
    pub expect: Expect,
}

/// The good session of one format, and where it sits in a case folder.
#[derive(Debug, Clone)]
pub struct Base {
    /// The format.
    pub format: &'static str,
    /// Files to copy into each case folder, by relative path.
    pub files: Vec<(PathBuf, Vec<u8>)>,
    /// The file the damage goes into (relative).
    pub main: PathBuf,
    /// What the commands run on (relative; the main file or its folder).
    pub target: PathBuf,
    /// The session to load.
    pub session: Option<String>,
}

impl Base {
    /// Write this base into `dir` with the main file's bytes replaced by `main`.
    pub fn write(&self, dir: &Path, main: Option<&[u8]>) -> Result<()> {
        for (rel, bytes) in &self.files {
            let p = dir.join(rel);
            if let Some(parent) = p.parent() {
                std::fs::create_dir_all(parent)?;
            }
            let bytes = if *rel == self.main {
                main.unwrap_or(bytes)
            } else {
                bytes
            };
            std::fs::write(&p, bytes)?;
        }
        Ok(())
    }

    /// The same base with the damage going into another of its files.
    pub fn with_main(&self, rel: &str) -> Base {
        Base {
            main: PathBuf::from(rel),
            ..self.clone()
        }
    }

    /// The main file's good bytes.
    pub fn main_bytes(&self) -> &[u8] {
        self.files
            .iter()
            .find(|(r, _)| *r == self.main)
            .map(|(_, b)| b.as_slice())
            .unwrap_or_default()
    }

    /// A case of this base in `out/<format>/<name>/`.
    pub fn case(&self, out: &Path, name: &str, expect: Expect) -> Case {
        let dir = out.join(self.format).join(name);
        Case {
            format: self.format,
            name: name.to_owned(),
            target: dir.join(&self.target),
            dir,
            session: self.session.clone(),
            expect,
        }
    }
}

/// Write the whole corpus under `out` (which should be empty) and return its cases, the good
/// base of each format first (named `good`).
pub fn generate(out: &Path) -> Result<Vec<Case>> {
    let mut cases = Vec::new();
    for base in bases::all()? {
        let good = base.case(out, "good", Expect::AllGood { extra_rows: 0 });
        base.write(&good.dir, None)?;
        cases.push(good);
        match base.format {
            "goose" | "opencode" | "crush" => cases.extend(sqlite::cases(&base, out)?),
            "coworker" => {
                cases.extend(lines::cases(&base, out)?);
                cases.extend(sqlite::cases(&base.with_main("state/coworker.db"), out)?);
            }
            _ => cases.extend(lines::cases(&base, out)?),
        }
        cases.extend(files::cases(&base, out)?);
    }
    Ok(cases)
}
