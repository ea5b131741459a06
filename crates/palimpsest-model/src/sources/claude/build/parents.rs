//! The `parentUuid` of every line with a `uuid`, each uuid stored once and named by a number.
//!
//! Claude Code links every line (progress lines included) to its parent, so a long transcript
//! has a few hundred thousand of them, and almost every parent is itself another line's uuid.
//! Each distinct uuid gets a number the first time it is seen (as a line's or as a parent),
//! and everything else holds numbers: the per-message [`Node`](super::Node)s, the chain walk
//! (`chain`). A uuid in its usual form (36 lowercase hex digits and dashes) is kept as its 16
//! bytes; any other text is kept as it is, so what a file holds is matched exactly either way.
//! Kept as strings (a `HashMap<String, Option<String>>`, then one text buffer) it was a fifth,
//! then a seventh, of what a loaded 210 MB transcript held. Which lines count and how the
//! chain is walked is `chain`'s business.

use std::hash::{BuildHasher, RandomState};

use hashbrown::HashTable;

mod kept;
use xxhash_rust::xxh3::xxh3_64_with_seed;

/// A uuid's number ([`Parents::number`]).
pub type Uid = u32;

/// In [`Parents::parent`]: the number is no line's own (seen only as a parent).
const UNSEEN: u32 = u32::MAX;
/// In [`Parents::parent`]: a line with no parent (a root).
const ROOT: u32 = u32::MAX - 1;

/// What a uuid is looked up by: its bytes, or its text when it is not in the usual form.
#[derive(PartialEq, Eq)]
enum Key<'a> {
    Bytes([u8; 16]),
    Text(&'a str),
}

impl Key<'_> {
    fn of(u: &str) -> Key<'_> {
        bytes_of(u).map_or(Key::Text(u), Key::Bytes)
    }

    /// Seeded per process, so no file can be made to collide; xxh3, since this is hashed
    /// for every line of a transcript (twice: its uuid and its parent's).
    fn hash(&self, seed: u64) -> u64 {
        match self {
            Key::Bytes(b) => xxh3_64_with_seed(b, seed),
            // Another seed: a text of 16 bytes never hashes as the bytes of a uuid would.
            Key::Text(t) => xxh3_64_with_seed(t.as_bytes(), !seed),
        }
    }
}

/// The 16 bytes of `8-4-4-4-12` lowercase hex, or `None` for any other text (upper case
/// included: it would not read back as written).
fn bytes_of(u: &str) -> Option<[u8; 16]> {
    let b = u.as_bytes();
    if b.len() != 36 || [8, 13, 18, 23].iter().any(|&i| b[i] != b'-') {
        return None;
    }
    let mut out = [0u8; 16];
    let mut digits = b.iter().filter(|&&c| c != b'-').map(|&c| match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    });
    for o in &mut out {
        *o = (digits.next()?? << 4) | digits.next()??;
    }
    Some(out)
}

/// The uuid numbered `n` (see [`Parents::names`]).
fn key_of<'a>(names: &[[u8; 16]], texts: &[u64], text: &'a str, n: Uid) -> Key<'a> {
    match text_span(names, texts, n) {
        Some(span) => Key::Text(&text[span]),
        None => Key::Bytes(names[n as usize]),
    }
}

/// Where in the uuid text the uuid numbered `n` lies, when it is kept as text.
fn text_span(names: &[[u8; 16]], texts: &[u64], n: Uid) -> Option<std::ops::Range<usize>> {
    let is_text = texts
        .get(n as usize / 64)
        .is_some_and(|w| w & (1 << (n % 64)) != 0);
    let name = names[n as usize];
    let at = |i: usize| u32::from_le_bytes([name[i], name[i + 1], name[i + 2], name[i + 3]]);
    is_text.then(|| at(0) as usize..at(4) as usize)
}

/// Every line's parent, by uuid (see the module docs).
#[derive(Clone)]
pub struct Parents {
    /// Each number's uuid: its 16 bytes in the usual form; for any other text (its bit set in
    /// `texts`), its span in `text` as two little-endian `u32`s. 16 bytes a uuid, where an
    /// enum of the two took 20.
    names: Vec<[u8; 16]>,
    /// One bit per number: set when its uuid is kept as text (rare: a file's own odd ids).
    texts: Vec<u64>,
    /// The text of uuids not in the usual form, one after another.
    text: String,
    /// Per number: its line's parent, [`ROOT`], or [`UNSEEN`].
    parent: Vec<u32>,
    /// Uuid → its number.
    table: HashTable<Uid>,
    seed: u64,
}

impl Default for Parents {
    fn default() -> Self {
        Self {
            names: Vec::new(),
            texts: Vec::new(),
            text: String::new(),
            parent: Vec::new(),
            table: HashTable::new(),
            seed: RandomState::new().hash_one(0u8),
        }
    }
}

impl std::fmt::Debug for Parents {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Parents({} lines)", self.len())
    }
}

impl Parents {
    /// How many lines have a parent entry.
    pub fn len(&self) -> usize {
        self.parent.iter().filter(|&&p| p != UNSEEN).count()
    }

    /// Whether no line was recorded.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn key(&self, n: Uid) -> Key<'_> {
        key_of(&self.names, &self.texts, &self.text, n)
    }

    /// The number of uuid `u`, when it was seen (as a line's or as a parent).
    pub fn find(&self, u: &str) -> Option<Uid> {
        let k = Key::of(u);
        self.table
            .find(k.hash(self.seed), |&n| self.key(n) == k)
            .copied()
    }

    /// The number of uuid `u`, given one now when it has none.
    pub fn number(&mut self, u: &str) -> Uid {
        if let Some(n) = self.find(u) {
            return n;
        }
        let n = self.names.len() as Uid;
        let k = Key::of(u);
        let h = k.hash(self.seed);
        let name = match k {
            Key::Bytes(b) => b,
            Key::Text(t) => {
                let start = self.text.len() as u32;
                self.text.push_str(t);
                let word = n as usize / 64;
                if self.texts.len() <= word {
                    self.texts.resize(word + 1, 0);
                }
                self.texts[word] |= 1 << (n % 64);
                let mut span = [0u8; 16];
                span[..4].copy_from_slice(&start.to_le_bytes());
                span[4..8].copy_from_slice(&(self.text.len() as u32).to_le_bytes());
                span
            }
        };
        self.names.push(name);
        self.parent.push(UNSEEN);
        // Rehashing reads each entry's name, which lives beside the table, not in it.
        let (names, texts, text, seed) = (&self.names, &self.texts, &self.text, self.seed);
        self.table
            .insert_unique(h, n, |&m| key_of(names, texts, text, m).hash(seed));
        n
    }

    /// The text of uuid `n`, as the file wrote it.
    pub fn name(&self, n: Uid) -> String {
        match self.key(n) {
            Key::Text(t) => t.to_owned(),
            Key::Bytes(b) => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                let mut s = String::with_capacity(36);
                for (i, x) in b.iter().enumerate() {
                    if matches!(i, 4 | 6 | 8 | 10) {
                        s.push('-');
                    }
                    s.push(HEX[usize::from(x >> 4)] as char);
                    s.push(HEX[usize::from(x & 15)] as char);
                }
                s
            }
        }
    }

    /// Record that line `u` has parent `parent`. Returns `u`'s number, and whether `u` was
    /// recorded before under another parent (a line read again, moved).
    pub fn insert(&mut self, u: &str, parent: Option<&str>) -> (Uid, bool) {
        let p = parent.map_or(ROOT, |p| self.number(p));
        let n = self.number(u);
        let old = std::mem::replace(&mut self.parent[n as usize], p);
        (n, old != UNSEEN && old != p)
    }

    /// Whether `n` is a line's own uuid (not only a parent named by one).
    pub fn is_line(&self, n: Uid) -> bool {
        self.parent.get(n as usize).is_some_and(|&p| p != UNSEEN)
    }

    /// The parent of line `n`: `None` for a root, or when no line has that uuid.
    pub fn parent(&self, n: Uid) -> Option<Uid> {
        self.parent
            .get(n as usize)
            .copied()
            .filter(|&p| p != UNSEEN && p != ROOT)
    }

    /// Whether a line has the uuid `u`.
    pub fn contains_key(&self, u: &str) -> bool {
        self.find(u).is_some_and(|n| self.is_line(n))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The parent of line `u` by text, as the chain walk reads it.
    fn parent_of(p: &Parents, u: &str) -> Option<Option<Uid>> {
        let n = p.find(u)?;
        p.is_line(n).then(|| p.parent(n))
    }

    #[test]
    fn lines_and_parents_read_back_as_recorded() {
        let mut p = Parents::default();
        let (a, moved) = p.insert("a", None);
        assert!(!moved, "a first line was not recorded before");
        let (b, _) = p.insert("b", Some("a"));
        let (c, _) = p.insert("c", Some("x"));
        let x = p
            .find("x")
            .expect("a parent gets a number when first named");
        assert_eq!(parent_of(&p, "b"), Some(Some(a)), "b's parent");
        assert_eq!(parent_of(&p, "a"), Some(None), "a root");
        assert_eq!(parent_of(&p, "c"), Some(Some(x)), "c's parent, no line yet");
        assert_eq!(
            parent_of(&p, "x"),
            None,
            "seen only as a parent: not a line"
        );
        assert!(!p.contains_key("x"), "not a line");
        assert_eq!(
            p.insert("x", Some("a")),
            (x, false),
            "its own line comes later"
        );
        assert!(p.contains_key("x"), "now a line");
        assert_eq!(p.insert("b", Some("a")), (b, false), "read again as it was");
        assert_eq!(
            p.insert("b", Some("c")),
            (b, true),
            "read again under another parent"
        );
        assert_eq!(p.parent(b), Some(c), "the new parent is kept");
        assert_eq!(
            p.insert("a", Some("c")),
            (a, true),
            "a root given a parent moved"
        );
        assert_eq!(p.len(), 4, "a, b, c and x are lines");
        assert_eq!(p.find("nobody"), None, "never seen");
    }

    #[test]
    fn uuids_in_their_usual_form_are_kept_as_bytes_and_others_as_text() {
        let mut p = Parents::default();
        let lower = "5f0c2b8e-9d41-4c3a-8e7f-0123456789ab";
        let upper = "5F0C2B8E-9D41-4C3A-8E7F-0123456789AB";
        let (l, _) = p.insert(lower, None);
        assert!(p.text.is_empty(), "the usual form takes no text");
        let (u, _) = p.insert(upper, Some(lower));
        assert_ne!(
            l, u,
            "upper case is another uuid: the file is matched exactly"
        );
        assert_eq!(p.text, upper, "kept as written");
        assert_eq!(p.name(l), lower, "the usual form reads back as written");
        assert_eq!(p.name(u), upper, "so does any other text");
        assert_eq!(p.parent(u), Some(l), "linked by number");
        for odd in [
            "5f0c2b8e-9d41-4c3a-8e7f-0123456789a",
            "5f0c2b8e_9d41-4c3a-8e7f-0123456789ab",
        ] {
            assert_eq!(p.find(odd), None, "{odd}: a near miss is not the uuid");
        }
        assert_eq!(bytes_of(lower).map(|b| b[15]), Some(0xab), "last byte");
        assert_eq!(
            bytes_of("g0000000-0000-0000-0000-000000000000"),
            None,
            "not hex"
        );
    }

    #[test]
    fn many_uuids_survive_the_table_growing() {
        let mut p = Parents::default();
        // Every 97th in upper case: kept as text, its bit in another word of `texts` each time.
        let id = |i: usize| {
            let u = format!("{i:08x}-abcd-4000-8000-{i:012x}");
            if i.is_multiple_of(97) {
                u.to_uppercase()
            } else {
                u
            }
        };
        for i in 0..20_000 {
            p.insert(&id(i), (i > 0).then(|| id(i - 1)).as_deref());
        }
        for i in [0, 1, 97, 98, 9_999, 19_885, 19_886, 19_999] {
            let want = (i > 0).then(|| p.find(&id(i - 1)).expect("seen"));
            assert_eq!(parent_of(&p, &id(i)), Some(want), "line {i}'s parent");
            let n = p.find(&id(i)).expect("seen");
            assert_eq!(p.name(n), id(i), "line {i}'s uuid reads back as written");
        }
        assert_eq!(p.names.len(), 20_000, "each uuid is kept once");
        assert_eq!(
            p.text.len(),
            20_000usize.div_ceil(97) * 36,
            "only the upper-case ones are kept as text"
        );
        assert_eq!(
            p.find(&id(194).to_lowercase()),
            None,
            "the lower-case form of a text-kept uuid is another uuid"
        );
    }
}
