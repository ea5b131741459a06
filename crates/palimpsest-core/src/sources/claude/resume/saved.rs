//! A [`Resumable`] written to a file and read back by another process, so a transcript that
//! grew since is read from where the last read stopped, not from its first line: the CLI's
//! `index` of a session an agent is still writing.
//!
//! Everything the reader keeps is written: the builder (per-message nodes, the uuid table,
//! counts, titles), the walk of the active chain, the usage sums, where the read stopped and
//! the file's first bytes, and the session itself, its packed texts as their bytes
//! (`model::snap`). MessagePack, positional. The file ends with an xxh3 of everything before
//! it: a snapshot cut short or damaged is refused, as is one written by another build of the
//! reader and the model (`build.rs` names each by a hash of their sources, so neither a changed
//! layout nor a changed reading is ever mixed with an older one). Refused, the caller reads the
//! transcript whole, as it would with none. Where snapshots live and which are kept is the
//! index's business (`index::snapshots`).

use std::hash::Hasher;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_bytes::{ByteBuf, Bytes};
use xxhash_rust::xxh3::Xxh3;

use super::Resumable;
use crate::error::{Error, Result};
use crate::model::snap::{MessageIn, MessagesOut};
use crate::model::{CompactionRecord, Current, Session, SessionMeta};
use crate::sources::claude::build::Builder;
use crate::sources::claude::chain::Chain;
use crate::sources::claude::finish::UsageSums;
use crate::sources::claude::listing::Head;
use crate::sources::jsonl::Resume;

/// The build of the reader and the model that writes and reads snapshots: the crate's version
/// and a hash of their sources (`build.rs`).
const BUILD: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    "+",
    env!("PALIMPSEST_READER_BUILD")
);

/// Written first: by which build, of which file.
#[derive(Serialize, Deserialize)]
struct Header {
    build: String,
    file: PathBuf,
    id: String,
}

#[derive(Serialize)]
struct Out<'a> {
    parent: &'a Option<String>,
    builder: &'a Builder,
    meta: String,
    messages: MessagesOut<'a>,
    compactions: String,
    chain: &'a Option<Chain>,
    sums: &'a UsageSums,
    compactors: &'a [PathBuf],
    listing_head: &'a Option<Head>,
    at: Resume,
    head: &'a Bytes,
}

#[derive(Deserialize)]
struct In {
    parent: Option<String>,
    builder: Builder,
    meta: String,
    messages: Vec<MessageIn>,
    compactions: String,
    chain: Option<Chain>,
    sums: UsageSums,
    compactors: Vec<PathBuf>,
    listing_head: Option<Head>,
    at: Resume,
    head: ByteBuf,
}

/// Hashes what passes through it.
struct Hashing<T> {
    inner: T,
    hash: Xxh3,
}

impl<W: Write> Write for Hashing<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hash.write(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

impl<R: Read> Read for Hashing<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hash.write(&buf[..n]);
        Ok(n)
    }
}

impl Resumable {
    /// Write what this reader keeps to `to` (see the module docs).
    pub fn save(&self, to: &mut dyn Write) -> Result<()> {
        let session = self.current.now();
        let bad = |e: String| Error::format(&self.path, format!("writing its snapshot: {e}"));
        let mut w = Hashing {
            inner: BufWriter::with_capacity(1 << 16, to),
            hash: Xxh3::new(),
        };
        let header = Header {
            build: BUILD.into(),
            file: self.path.clone(),
            id: self.id.clone(),
        };
        let out = Out {
            parent: &self.parent,
            builder: &self.builder,
            meta: serde_json::to_string(&session.meta).map_err(|e| bad(e.to_string()))?,
            messages: MessagesOut(&session.messages),
            compactions: serde_json::to_string(&session.compactions)
                .map_err(|e| bad(e.to_string()))?,
            chain: &self.chain,
            sums: &self.sums,
            compactors: &self.compactors,
            listing_head: &self.listing_head,
            at: self.at,
            head: Bytes::new(&self.head),
        };
        rmp_serde::encode::write(&mut w, &header).map_err(|e| bad(e.to_string()))?;
        rmp_serde::encode::write(&mut w, &out).map_err(|e| bad(e.to_string()))?;
        let sum = w.hash.finish();
        w.inner
            .write_all(&sum.to_le_bytes())
            .and_then(|_| w.inner.flush())
            .map_err(|e| bad(e.to_string()))
    }

    /// Read back a reader [`Resumable::save`] wrote for session `id` of `file`, from `from`
    /// (named `snapshot` in errors); call [`Resumable::extend`] on it to read what was appended
    /// since. An error when it is not such a snapshot, or not whole.
    pub fn restore(from: &mut dyn Read, snapshot: &Path, file: &Path, id: &str) -> Result<Self> {
        let bad = |e: &str| Error::format(snapshot, format!("not a usable snapshot: {e}"));
        let mut r = Hashing {
            inner: BufReader::with_capacity(1 << 16, from),
            hash: Xxh3::new(),
        };
        let header: Header =
            rmp_serde::decode::from_read(&mut r).map_err(|e| bad(&e.to_string()))?;
        if header.build != BUILD {
            return Err(bad(&format!(
                "written by build {} of the reader, this is {BUILD}",
                header.build
            )));
        }
        if header.file != file || header.id != id {
            return Err(bad(&format!(
                "it is of session {} of {}",
                header.id,
                header.file.display()
            )));
        }
        let saved: In = rmp_serde::decode::from_read(&mut r).map_err(|e| bad(&e.to_string()))?;
        let sum = r.hash.finish();
        let mut end = [0u8; 8];
        r.inner
            .read_exact(&mut end)
            .map_err(|_| bad("cut short before its checksum"))?;
        if u64::from_le_bytes(end) != sum {
            return Err(bad("its checksum does not match"));
        }
        let meta: SessionMeta =
            serde_json::from_str(&saved.meta).map_err(|e| bad(&e.to_string()))?;
        let compactions: Vec<CompactionRecord> =
            serde_json::from_str(&saved.compactions).map_err(|e| bad(&e.to_string()))?;
        let messages: Vec<_> = saved.messages.into_iter().map(|m| m.0).collect();
        // What `extend` indexes by must agree, or a damaged snapshot would panic there.
        let n = messages.len();
        let agrees = saved.builder.nodes.len() == n
            && saved.builder.messages.is_empty()
            && saved.sums.len() == n
            && saved.chain.as_ref().is_none_or(|c| c.marks.len() == n)
            && compactions.iter().all(|c| c.cut_index < n);
        if !agrees {
            return Err(bad("its parts do not agree on the number of messages"));
        }
        Ok(Resumable {
            path: file.to_owned(),
            id: id.to_owned(),
            parent: saved.parent,
            builder: saved.builder,
            current: Current::new(Session {
                meta,
                messages,
                compactions,
            }),
            chain: saved.chain,
            sums: saved.sums,
            compactors: saved.compactors,
            listing_head: saved.listing_head,
            at: saved.at,
            head: saved.head.into_vec(),
        })
    }
}
