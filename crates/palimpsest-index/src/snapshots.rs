//! Readers kept between updates, so an appended transcript is read from its last offset by the
//! next process too, not only by the window that follows it live.
//!
//! A session whose file the index found appended to, or written in the last ten minutes
//! (`jobs::WRITTEN_LATELY`: likely an agent's still), is read by a reader that can go on
//! ([`SessionSource::open_resumable`]: Claude Code transcripts, Codex rollouts), and that
//! reader is written to `readers/<hash of file and id>.snap` beside the index, in the frame of
//! `sources::kept`, tagged with the file's fingerprint and message count as the index stored
//! them (`jobs::tag`). At the next update, a file appended to again whose stored fingerprint
//! and count are that tag is read from the snapshot's offset on. Anything else (no snapshot,
//! another tag, a snapshot refused, a file rewritten) reads the session whole, as before.
//! Only growing and lately written sessions get one, so a home of finished sessions costs
//! nothing here; the
//! oldest snapshots go once they hold more than [`KEEP_BYTES`]. Deleting the folder loses
//! nothing but speed.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use xxhash_rust::xxh3::xxh3_64;

use crate::error::{Error, Result};
use crate::sources::SessionSource;
use crate::sources::{Extended, Resumable};

/// What the snapshots may hold together before the least recently written go.
pub const KEEP_BYTES: u64 = 2 << 30;

/// A session read by a reader that is kept.
pub(super) struct Read {
    pub reader: Resumable,
    /// The first message that changed since the snapshot, when it was read from there; `None`
    /// when the file was read whole.
    pub changed_from: Option<usize>,
}

/// The folder of snapshots beside an index.
pub(super) struct Snapshots {
    dir: PathBuf,
}

impl Snapshots {
    /// The snapshots beside the index file `index`.
    pub fn beside(index: &Path) -> Option<Snapshots> {
        index.parent().map(|d| Snapshots {
            dir: d.join("readers"),
        })
    }

    fn path_of(&self, file: &str, id: &str) -> PathBuf {
        let key = xxh3_64(format!("{file}\0{id}").as_bytes());
        self.dir.join(format!("{key:016x}.snap"))
    }

    /// Session `id` of `file` (source `source`), found appended to since the index stored what
    /// `tag` says: from its snapshot when there is one so tagged, else whole. `None` when the
    /// source has no reader that goes on.
    pub fn read(
        &self,
        source: &dyn SessionSource,
        file: &str,
        id: &str,
        tag: &str,
    ) -> Option<Result<Read>> {
        if let Some(mut reader) = self.restore(file, id, tag)
            && let Ok(Some(ext)) = reader.extend()
        {
            let changed_from = match ext {
                Extended::From(i) => Some(i),
                Extended::Whole => None,
            };
            return Some(Ok(Read {
                reader,
                changed_from,
            }));
        }
        self.open(source, id)
    }

    /// Session `id` of `source` read whole by a reader that goes on, to keep: `None` when the
    /// source has none.
    pub fn open(&self, source: &dyn SessionSource, id: &str) -> Option<Result<Read>> {
        let reader = source.open_resumable(id)?;
        Some(reader.map(|reader| Read {
            reader,
            changed_from: None,
        }))
    }

    /// The reader in the snapshot of `id` of `file`, when it is tagged `tag` and reads back.
    fn restore(&self, file: &str, id: &str, tag: &str) -> Option<Resumable> {
        let at = self.path_of(file, id);
        // A snapshot is a file this cache wrote; anything else in its place is not read.
        if !std::fs::symlink_metadata(&at).ok()?.is_file() {
            return None;
        }
        let mut f = std::fs::File::open(&at).ok()?;
        let kept: String = rmp_serde::decode::from_read(&mut f).ok()?;
        if kept != tag {
            return None;
        }
        Resumable::restore(&mut f, &at, Path::new(file), id).ok()
    }

    /// Keep `reader` (session `id` of `file`) tagged `tag`, what the index stores with the rows
    /// it read (`jobs::tag`). Written to a temporary file and renamed, so a reader of the
    /// folder never sees half a snapshot.
    pub fn save(&self, reader: &Resumable, file: &str, id: &str, tag: &str) -> Result<()> {
        let at = self.path_of(file, id);
        std::fs::create_dir_all(&self.dir).map_err(|e| Error::io(&self.dir, e))?;
        // Named by process: two updates at once each write their own, and the last rename wins.
        let tmp = at.with_extension(format!("tmp{}", std::process::id()));
        let written = (|| -> Result<()> {
            let f = std::fs::File::create(&tmp).map_err(|e| Error::io(&tmp, e))?;
            let mut w = BufWriter::new(f);
            rmp_serde::encode::write(&mut w, tag)
                .map_err(|e| Error::format(&tmp, format!("writing a snapshot: {e}")))?;
            reader.save(&mut w)?;
            w.flush().map_err(|e| Error::io(&tmp, e))?;
            std::fs::rename(&tmp, &at).map_err(|e| Error::io(&at, e))
        })();
        if written.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        written
    }

    /// Drop the snapshot of `id` of `file` (a session gone from disk).
    pub fn forget(&self, file: &str, id: &str) {
        let _ = std::fs::remove_file(self.path_of(file, id));
    }

    /// Drop the least recently written snapshots beyond `keep` bytes together ([`KEEP_BYTES`]).
    pub fn prune(&self, keep: u64) {
        let Ok(rd) = std::fs::read_dir(&self.dir) else {
            return;
        };
        let mut all: Vec<(std::time::SystemTime, u64, PathBuf)> = rd
            .flatten()
            .filter_map(|e| {
                let m = e.metadata().ok()?;
                Some((m.modified().ok()?, m.len(), e.path()))
            })
            .collect();
        all.sort_by_key(|a| std::cmp::Reverse(a.0));
        let mut total = 0u64;
        for (_, len, path) in all {
            total += len;
            if total > keep {
                let _ = std::fs::remove_file(path);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reader_is_taken_only_under_the_tag_it_was_kept_with() {
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../fixtures/claude/projects/-home-dev-docs/c0117a95-0000-4000-8000-00000000c011.jsonl");
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().join("-home-dev-docs");
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("c0117a95-0000-4000-8000-00000000c011.jsonl");
        std::fs::copy(&fixture, &file).unwrap();
        let id = "c0117a95-0000-4000-8000-00000000c011";
        let catalog = crate::sources::open(&dir).unwrap();
        let source = &*catalog.sources[0];
        let s = Snapshots::beside(&t.path().join("index.db")).unwrap();
        let f = file.to_string_lossy().into_owned();
        let first = s.read(source, &f, id, "s1|5").unwrap().unwrap();
        assert_eq!(first.changed_from, None, "no reader kept yet: read whole");
        s.save(&first.reader, &f, id, "s1|5").unwrap();
        let taken = s.read(source, &f, id, "s1|5").unwrap().unwrap();
        assert_eq!(
            taken.changed_from,
            Some(first.reader.session().messages.len()),
            "under its tag the kept reader goes on from its last message (nothing was appended)"
        );
        let other = s.read(source, &f, id, "s1|6").unwrap().unwrap();
        assert_eq!(
            other.changed_from, None,
            "the same stamp with another message count (another update's read) is read whole"
        );
    }

    #[test]
    fn the_least_recently_written_go_beyond_the_bound() {
        let t = tempfile::tempdir().unwrap();
        let s = Snapshots::beside(&t.path().join("index.db")).unwrap();
        std::fs::create_dir_all(&s.dir).unwrap();
        let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        for (i, name) in ["a.snap", "b.snap", "c.snap"].iter().enumerate() {
            let p = s.dir.join(name);
            std::fs::write(&p, vec![0u8; 1000]).unwrap();
            // a written an hour ago, b half an hour ago, c now.
            let at = old + std::time::Duration::from_secs(1800 * i as u64);
            std::fs::File::options()
                .write(true)
                .open(&p)
                .unwrap()
                .set_modified(at)
                .unwrap();
        }
        s.prune(2500);
        let mut left: Vec<String> = std::fs::read_dir(&s.dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(
            left,
            ["b.snap", "c.snap"],
            "3 000 bytes against a bound of 2 500: the oldest goes, the two newest stay"
        );
    }
}
