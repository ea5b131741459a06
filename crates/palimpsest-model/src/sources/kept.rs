//! The frame a reader that goes on from where its read stopped ([`super::Resumable`]) is kept
//! in between processes.
//!
//! A snapshot is MessagePack: a header (which reader, which build of the readers and the
//! model, which file and session), the reader's state, then an xxh3 of all that. A snapshot cut
//! short, damaged, of another file or written by another build (`build.rs` names each by a hash
//! of the readers' and the model's sources, so neither a changed layout nor a changed reading
//! is ever mixed with an older one) is refused with an error naming it; the caller then reads
//! the file whole. What each reader keeps is its own (`claude/resume/saved.rs`,
//! `codex/resume.rs`); where snapshots live and which are kept is the index's.

use std::hash::Hasher;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::Xxh3;

use crate::error::{Error, Result};

/// The build of the readers and the model that writes and reads snapshots: the crate's version
/// and a hash of their sources (`build.rs`).
const BUILD: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    "+",
    env!("PALIMPSEST_READER_BUILD")
);

/// The error for a snapshot that cannot be taken.
pub(crate) fn refused(snapshot: &Path, why: &str) -> Error {
    Error::format(snapshot, format!("not a usable snapshot: {why}"))
}

/// Written first: by which reader and build, of which file.
#[derive(Serialize, Deserialize)]
struct Header {
    reader: String,
    build: String,
    file: PathBuf,
    id: String,
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

/// Write `body`, the state of `reader` (`"claude"`, `"codex"`) reading session `id` of
/// `file`, framed to `to`.
pub(crate) fn write(
    to: &mut dyn Write,
    reader: &str,
    file: &Path,
    id: &str,
    body: &impl Serialize,
) -> Result<()> {
    let bad = |e: String| Error::format(file, format!("writing its snapshot: {e}"));
    let mut w = Hashing {
        inner: BufWriter::with_capacity(1 << 16, to),
        hash: Xxh3::new(),
    };
    let header = Header {
        reader: reader.into(),
        build: BUILD.into(),
        file: file.to_owned(),
        id: id.to_owned(),
    };
    rmp_serde::encode::write(&mut w, &header).map_err(|e| bad(e.to_string()))?;
    rmp_serde::encode::write(&mut w, body).map_err(|e| bad(e.to_string()))?;
    let sum = w.hash.finish();
    w.inner
        .write_all(&sum.to_le_bytes())
        .and_then(|_| w.inner.flush())
        .map_err(|e| bad(e.to_string()))
}

/// A snapshot being read: its header, then its reader's state ([`Framed::body`]).
pub(crate) struct Framed<'a>(Hashing<BufReader<&'a mut dyn Read>>);

impl<'a> Framed<'a> {
    /// Open the snapshot in `from` (named `snapshot` in errors) of session `id` of `file`: the
    /// reader it names (`"claude"`, `"codex"`), and its state to read with [`Framed::body`].
    pub fn open(
        from: &'a mut dyn Read,
        snapshot: &Path,
        file: &Path,
        id: &str,
    ) -> Result<(String, Self)> {
        let mut r = Framed(Hashing {
            inner: BufReader::with_capacity(1 << 16, from),
            hash: Xxh3::new(),
        });
        let h = r.header(snapshot, file, id)?;
        Ok((h.reader, r))
    }

    fn header(&mut self, snapshot: &Path, file: &Path, id: &str) -> Result<Header> {
        let h: Header = rmp_serde::decode::from_read(&mut self.0)
            .map_err(|e| refused(snapshot, &e.to_string()))?;
        if h.build != BUILD {
            return Err(refused(
                snapshot,
                &format!(
                    "written by build {} of the readers, this is {BUILD}",
                    h.build
                ),
            ));
        }
        if h.file != file || h.id != id {
            return Err(refused(
                snapshot,
                &format!("it is of session {} of {}", h.id, h.file.display()),
            ));
        }
        Ok(h)
    }

    /// The reader's state, once the checksum after it says the snapshot is whole.
    pub fn body<T: DeserializeOwned>(mut self, snapshot: &Path) -> Result<T> {
        let body: T = rmp_serde::decode::from_read(&mut self.0)
            .map_err(|e| refused(snapshot, &e.to_string()))?;
        let sum = self.0.hash.finish();
        let mut end = [0u8; 8];
        self.0
            .inner
            .read_exact(&mut end)
            .map_err(|_| refused(snapshot, "cut short before its checksum"))?;
        if u64::from_le_bytes(end) != sum {
            return Err(refused(snapshot, "its checksum does not match"));
        }
        Ok(body)
    }
}

/// A field kept in a snapshot as its JSON text (`#[serde(with = "kept::json")]`): for values
/// and records whose own serde skips fields or reads any shape, which a positional form
/// cannot carry.
pub(crate) mod json {
    use serde::de::{DeserializeOwned, Error};
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<T: Serialize, S: Serializer>(v: &T, s: S) -> Result<S::Ok, S::Error> {
        let text = serde_json::to_string(v).map_err(serde::ser::Error::custom)?;
        s.serialize_str(&text)
    }

    pub fn deserialize<'de, T: DeserializeOwned, D: Deserializer<'de>>(
        d: D,
    ) -> Result<T, D::Error> {
        serde_json::from_str(&String::deserialize(d)?).map_err(D::Error::custom)
    }
}
