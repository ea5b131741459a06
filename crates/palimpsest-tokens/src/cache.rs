//! Palimpsest's own on-disk cache of token counts, keyed by content hash and encoding, so
//! reopening a counted session is near-instant.
//!
//! The cache is a SQLite file in a directory the caller passes in (the user's cache dir by
//! default, see [`TokenCache::default_dir`], the only place this module reads the environment).
//! It never lives beside, or writes to, an agent's files. WAL, `synchronous=NORMAL` and a busy
//! timeout let the CLI and the app share it; the schema is created by embedded migrations keyed
//! on `PRAGMA user_version`. Which texts are counted, and when, is `tokens/mod.rs`'s business.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OptionalExtension, params};
use xxhash_rust::xxh3::{xxh3_128, xxh3_128_with_seed};

use super::Encoding;
use crate::error::{Error, Result};

/// The cache file's name inside the cache directory.
pub const FILE_NAME: &str = "token-counts.sqlite3";

/// Schema steps; entry `i` moves `user_version` from `i` to `i + 1`. Append, never edit.
const MIGRATIONS: &[&str] = &[
    // `bytes` guards the 128-bit hash: a hit must also agree on the text's length.
    "CREATE TABLE counts (
        hash BLOB NOT NULL,
        encoding TEXT NOT NULL,
        bytes INTEGER NOT NULL,
        tokens INTEGER NOT NULL,
        PRIMARY KEY (hash, encoding)
    ) WITHOUT ROWID;",
];

/// The identity of a counted text: its XXH3-128 hash and its length.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Key {
    /// XXH3-128 of the UTF-8 bytes.
    pub hash: u128,
    /// Length in bytes.
    pub bytes: usize,
}

/// Seeds the hash of [`Key::of_source`], so a source's key is never a text's own.
const SOURCE_SEED: u64 = 0x5052_4f56_454e_414e;

impl Key {
    /// The key of a text known by `source`, bytes it is the one function of (the stored block
    /// a cleared result's text is read from): a count found under it spares making the text.
    pub fn of_source(source: &[u8]) -> Key {
        Key {
            hash: xxh3_128_with_seed(source, SOURCE_SEED),
            bytes: source.len(),
        }
    }

    /// The key of `text`.
    pub fn of(text: &str) -> Key {
        Key {
            hash: xxh3_128(text.as_bytes()),
            bytes: text.len(),
        }
    }
}

/// An open token-count cache.
pub struct TokenCache {
    conn: Connection,
    path: PathBuf,
}

impl TokenCache {
    /// The default cache directory: `$XDG_CACHE_HOME/palimpsest` (or the platform's cache dir).
    /// From the machine the CLI or the app installed ([`crate::env`]); they open the cache and
    /// pass it to everything in core that counts.
    ///
    /// [`open`]: TokenCache::open
    pub fn default_dir() -> Option<PathBuf> {
        crate::env::machine().cache_dir.clone()
    }

    /// Open the cache in `dir` when one is there (never creating it): what a view reads counts
    /// from without counting.
    pub fn existing(dir: &Path) -> Option<TokenCache> {
        dir.join(FILE_NAME)
            .is_file()
            .then(|| TokenCache::open(dir).ok())
            .flatten()
    }

    /// Open (creating when missing) the cache in `dir`.
    pub fn open(dir: &Path) -> Result<TokenCache> {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        let path = dir.join(FILE_NAME);
        let sql = |source| crate::cachedb::error(&path, source);
        let mut conn = crate::cachedb::open(&path, Duration::from_secs(5)).map_err(sql)?;
        // A cache of this version is taken with a read, which never waits on a writer; a
        // fresh or older one is migrated under the schema lock, by whichever opener gets it
        // first (the others then find it done).
        let newer = |version: i64| {
            Error::format(
                &path,
                format!(
                    "token cache schema {version} is newer than this build knows ({}); delete the file to rebuild it",
                    MIGRATIONS.len()
                ),
            )
        };
        let version = |c: &Connection| -> rusqlite::Result<i64> {
            c.pragma_query_value(None, "user_version", |r| r.get(0))
        };
        match version(&conn).map_err(sql)? {
            v if v == MIGRATIONS.len() as i64 => return Ok(TokenCache { conn, path }),
            v if v < 0 || v as usize > MIGRATIONS.len() => return Err(newer(v)),
            _ => {}
        }
        let tx = crate::cachedb::schema_lock(&mut conn).map_err(sql)?;
        let now = version(&tx).map_err(sql)?;
        if now < 0 || now as usize > MIGRATIONS.len() {
            return Err(newer(now));
        }
        for step in MIGRATIONS.iter().skip(now as usize) {
            tx.execute_batch(step).map_err(sql)?;
        }
        tx.pragma_update(None, "user_version", MIGRATIONS.len() as i64)
            .map_err(sql)?;
        tx.commit().map_err(sql)?;
        Ok(TokenCache { conn, path })
    }

    /// The cache file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn sql(&self, source: rusqlite::Error) -> Error {
        crate::cachedb::error(&self.path, source)
    }

    /// Look up many keys in one read transaction; `None` where the text was never counted.
    pub fn get_many(&self, encoding: Encoding, keys: &[Key]) -> Result<Vec<Option<u64>>> {
        let tx = self.conn.unchecked_transaction().map_err(|e| self.sql(e))?;
        let mut out = Vec::with_capacity(keys.len());
        {
            let mut stmt = tx
                .prepare_cached(
                    "SELECT tokens FROM counts WHERE hash = ?1 AND encoding = ?2 AND bytes = ?3",
                )
                .map_err(|e| self.sql(e))?;
            for k in keys {
                let hit: Option<i64> = stmt
                    .query_row(
                        params![&k.hash.to_le_bytes()[..], encoding.as_str(), k.bytes as i64],
                        |r| r.get(0),
                    )
                    .optional()
                    .map_err(|e| self.sql(e))?;
                out.push(hit.map(|t| t as u64));
            }
        }
        tx.finish().map_err(|e| self.sql(e))?;
        Ok(out)
    }

    /// Store counts in one write transaction (existing entries are left as they are).
    pub fn put_many(&self, encoding: Encoding, entries: &[(Key, u64)]) -> Result<()> {
        if entries.is_empty() {
            return Ok(());
        }
        let tx = self.conn.unchecked_transaction().map_err(|e| self.sql(e))?;
        {
            let mut stmt = tx
                .prepare_cached(
                    "INSERT OR IGNORE INTO counts (hash, encoding, bytes, tokens) VALUES (?1, ?2, ?3, ?4)",
                )
                .map_err(|e| self.sql(e))?;
            for (k, tokens) in entries {
                stmt.execute(params![
                    &k.hash.to_le_bytes()[..],
                    encoding.as_str(),
                    k.bytes as i64,
                    *tokens as i64
                ])
                .map_err(|e| self.sql(e))?;
            }
        }
        tx.commit().map_err(|e| self.sql(e))
    }

    /// Number of cached counts (all encodings).
    pub fn len(&self) -> Result<u64> {
        self.conn
            .query_row("SELECT COUNT(*) FROM counts", [], |r| r.get::<_, i64>(0))
            .map(|n| n as u64)
            .map_err(|e| self.sql(e))
    }

    /// True when nothing is cached.
    pub fn is_empty(&self) -> Result<bool> {
        Ok(self.len()? == 0)
    }

    /// Forget every cached count.
    pub fn clear(&self) -> Result<()> {
        self.conn
            .execute("DELETE FROM counts", [])
            .map(|_| ())
            .map_err(|e| self.sql(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_and_finds_by_hash_encoding_and_length() {
        let dir = tempfile::tempdir().unwrap();
        let cache = TokenCache::open(dir.path()).unwrap();
        let k = Key::of("hello world");
        cache.put_many(Encoding::O200kBase, &[(k, 2)]).unwrap();
        assert_eq!(
            cache.get_many(Encoding::O200kBase, &[k]).unwrap(),
            vec![Some(2)],
            "a stored count is found again"
        );
        assert_eq!(
            cache.get_many(Encoding::Cl100kBase, &[k]).unwrap(),
            vec![None],
            "counts are per encoding"
        );
        let wrong_len = Key { bytes: 12, ..k };
        assert_eq!(
            cache.get_many(Encoding::O200kBase, &[wrong_len]).unwrap(),
            vec![None],
            "the length must agree too"
        );
        drop(cache);
        let reopened = TokenCache::open(dir.path()).unwrap();
        assert_eq!(
            reopened.len().unwrap(),
            1,
            "the cache persists and migrations do not rerun"
        );
    }

    #[test]
    fn a_newer_schema_is_refused_with_the_file_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        let conn = Connection::open(&path).unwrap();
        conn.pragma_update(None, "user_version", 99).unwrap();
        drop(conn);
        let err = TokenCache::open(dir.path())
            .err()
            .expect("newer schema refused");
        assert!(
            err.to_string().contains(FILE_NAME) && err.to_string().contains("schema 99"),
            "the error names the file and the version: {err}"
        );
    }
}

#[cfg(test)]
mod race {
    use super::*;

    /// Indexing opens the cache from one thread per session: on a fresh directory they all
    /// create it at once, and every one must get a working cache (a failed open counts
    /// nothing into it, and the next view counts again).
    #[test]
    fn many_first_opens_at_once_all_succeed() {
        for round in 0..40 {
            let dir = tempfile::tempdir().unwrap();
            let barrier = std::sync::Barrier::new(8);
            std::thread::scope(|s| {
                let handles: Vec<_> = (0..8)
                    .map(|_| {
                        s.spawn(|| {
                            barrier.wait();
                            TokenCache::open(dir.path()).map(|c| c.len().unwrap())
                        })
                    })
                    .collect();
                for h in handles {
                    let got = h.join().unwrap();
                    assert!(
                        matches!(got, Ok(0)),
                        "round {round}: every first open gets the empty cache: {got:?}"
                    );
                }
            });
        }
    }
}
