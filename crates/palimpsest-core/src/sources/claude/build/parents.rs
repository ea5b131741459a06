//! The `parentUuid` of every line with a `uuid`, each uuid's text stored once.
//!
//! Claude Code links every line (progress lines included) to its parent, so a long transcript
//! has a few hundred thousand of them, and almost every parent is itself another line's uuid.
//! Kept as a `HashMap<String, Option<String>>` that was two 36-byte strings on the heap and a
//! 48-byte bucket per line: about a fifth of what following a 210 MB transcript held (23 MB).
//! Here each distinct uuid is written once into one text buffer and named by its number; the
//! map holds numbers. What the chain walk asks of it (`get`, `contains_key`) reads as before.
//! Which lines count and how the chain is walked is `chain`'s business.

use std::hash::{BuildHasher, RandomState};

use hashbrown::HashTable;

/// No parent (a root line), in [`Parents::parent`].
const NONE: u32 = u32::MAX;

/// Every line's parent, by uuid (see the module docs).
#[derive(Clone, Default)]
pub struct Parents {
    /// Every distinct uuid seen (as a line's or as a parent), one after another.
    text: String,
    /// Where each uuid's text ends in `text` (it starts where the previous ends).
    ends: Vec<u32>,
    /// The parent of each uuid that is a line's own ([`NONE`] for a root); `None` for a uuid
    /// seen only as a parent.
    parent: Vec<Option<u32>>,
    /// Uuid text → its number.
    table: HashTable<u32>,
    hasher: RandomState,
}

impl std::fmt::Debug for Parents {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Parents({} lines)", self.len())
    }
}

impl Parents {
    /// How many lines have a parent entry.
    pub fn len(&self) -> usize {
        self.parent.iter().filter(|p| p.is_some()).count()
    }

    /// Whether no line was recorded.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn name(&self, n: u32) -> &str {
        let end = self.ends[n as usize] as usize;
        let start = n
            .checked_sub(1)
            .map_or(0, |p| self.ends[p as usize] as usize);
        &self.text[start..end]
    }

    fn find(&self, u: &str) -> Option<u32> {
        let h = self.hasher.hash_one(u);
        self.table.find(h, |&n| self.name(n) == u).copied()
    }

    fn number(&mut self, u: &str) -> u32 {
        if let Some(n) = self.find(u) {
            return n;
        }
        let n = self.ends.len() as u32;
        self.text.push_str(u);
        self.ends.push(self.text.len() as u32);
        self.parent.push(None);
        let h = self.hasher.hash_one(u);
        // Rehashing reads each entry's text, which lives in `text`, not in the table.
        let (text, ends, hasher) = (&self.text, &self.ends, &self.hasher);
        self.table.insert_unique(h, n, |&m| {
            let end = ends[m as usize] as usize;
            let start = m.checked_sub(1).map_or(0, |p| ends[p as usize] as usize);
            hasher.hash_one(&text[start..end])
        });
        n
    }

    /// Record that line `u` has parent `parent`; returns the parent it had when `u` was
    /// recorded before (`Some(None)`: it was a root).
    pub fn insert(&mut self, u: &str, parent: Option<&str>) -> Option<Option<String>> {
        let p = parent.map_or(NONE, |p| self.number(p));
        let n = self.number(u);
        let old = self.parent[n as usize].replace(p);
        old.map(|o| (o != NONE).then(|| self.name(o).to_owned()))
    }

    /// The parent of line `u`: `None` when no line has that uuid, `Some(None)` for a root.
    pub fn get(&self, u: &str) -> Option<Option<&str>> {
        let p = self.parent[self.find(u)? as usize]?;
        Some((p != NONE).then(|| self.name(p)))
    }

    /// Whether a line has the uuid `u`.
    pub fn contains_key(&self, u: &str) -> bool {
        self.get(u).is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_parents_read_back_as_recorded() {
        let mut p = Parents::default();
        assert_eq!(p.insert("a", None), None, "a first line");
        assert_eq!(p.insert("b", Some("a")), None, "its child");
        assert_eq!(p.insert("c", Some("x")), None, "a parent no line has (yet)");
        assert_eq!(p.get("b"), Some(Some("a")), "b's parent");
        assert_eq!(p.get("a"), Some(None), "a root");
        assert_eq!(p.get("x"), None, "seen only as a parent: not a line");
        assert!(!p.contains_key("x"), "not a line");
        assert_eq!(
            p.insert("x", Some("a")),
            None,
            "the parent's own line comes later"
        );
        assert!(p.contains_key("x"), "now a line");
        assert_eq!(
            p.insert("b", Some("c")),
            Some(Some("a".to_owned())),
            "read again under another parent: the old one is returned"
        );
        assert_eq!(p.get("b"), Some(Some("c")), "the new parent is kept");
        assert_eq!(p.insert("a", None), Some(None), "a root read again");
        assert_eq!(p.len(), 4, "a, b, c and x are lines");
    }

    #[test]
    fn many_uuids_survive_the_table_growing() {
        let mut p = Parents::default();
        let id = |i: usize| format!("{i:08x}-0000-4000-8000-{i:012x}");
        for i in 0..20_000 {
            p.insert(&id(i), (i > 0).then(|| id(i - 1)).as_deref());
        }
        for i in [0, 1, 9_999, 19_999] {
            let want = (i > 0).then(|| id(i - 1));
            assert_eq!(p.get(&id(i)), Some(want.as_deref()), "line {i}'s parent");
        }
        assert_eq!(p.text.len(), 20_000 * 36, "each uuid's text is kept once");
    }
}
