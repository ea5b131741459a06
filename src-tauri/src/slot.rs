//! The app's copy of the session it loaded last, with the live changes not yet applied to it.
//!
//! A live change to a copy that a command is still reading waits here. The cut view of a
//! 200 MB session reads its copy for seconds in the debug app, and patching it meanwhile would
//! mean cloning the whole session on the live thread before the window hears of the change.
//! Instead, the window gets the new rows at once. The next command to take the session applies
//! every waiting change in one go, cloning at most once, and not at all when nothing else holds
//! the copy by then. What a change is, and how it applies, is core's (`watch::Patch`); when the
//! slot is filled and read is `state`'s.

use std::sync::Arc;

use palimpsest_core::index::fingerprint::Fingerprint;
use palimpsest_core::model::Session;
use palimpsest_core::tokens::counter::Counted;
use palimpsest_core::watch::Patch;

use crate::memo::Memo;

/// The session loaded last and what changed since.
pub struct Kept {
    path: String,
    id: String,
    session: Arc<Session>,
    /// Tail patches, oldest first, for a copy that was held elsewhere when they came.
    pending: Vec<Patch>,
    /// The file's fingerprint from before the copy was read from it, while the copy is as read
    /// (the index may take it then: [`Kept::given`]).
    print: Option<Fingerprint>,
}

impl Kept {
    /// `session`, loaded from `path`, as it is now.
    pub fn new(path: &str, id: &str, session: Arc<Session>) -> Self {
        Kept {
            path: path.to_owned(),
            id: id.to_owned(),
            session,
            pending: Vec::new(),
            print: None,
        }
    }

    /// `session` read from the file `path` whose fingerprint was `print` before the read.
    pub fn read(path: &str, id: &str, session: Arc<Session>, print: Option<Fingerprint>) -> Self {
        Kept {
            print,
            ..Kept::new(path, id, session)
        }
    }

    /// The copy as read from its file, for the index to take instead of reading the file again
    /// ([`palimpsest_core::index::Given`]); only a weak handle, so a copy the window lets go of
    /// is not kept alive by a queued update (that one reads the file itself).
    pub fn given(&self) -> Option<(Fingerprint, std::sync::Weak<Session>)> {
        let print = self.print.clone().filter(|_| self.pending.is_empty())?;
        Some((print, Arc::downgrade(&self.session)))
    }

    /// True when it is session `id` under `path`.
    pub fn is(&self, path: &str, id: &str) -> bool {
        self.path == path && self.id == id
    }

    /// The copy as it is, when no change waits for it; `None` otherwise (see [`Kept::settled`]).
    pub fn ready(&self) -> Option<Arc<Session>> {
        self.pending.is_empty().then(|| Arc::clone(&self.session))
    }

    /// Take `patch`: a whole session replaces the copy; a tail is applied now when nothing else
    /// holds the copy and no change waits before it, else it waits. `None` when it does not fit
    /// the copy: the session is then read from its file at the next command.
    pub fn patched(mut self, patch: &Patch, memo: &Memo) -> Option<Kept> {
        // Patched or not yet, the copy is no longer the file as read.
        self.print = None;
        if let Patch::Whole(s) = patch {
            self.session = Arc::clone(s);
            self.pending.clear();
            return Some(self);
        }
        if !self.pending.is_empty() {
            self.pending.push(patch.clone());
            return Some(self);
        }
        let counts = counts_of(&self.session, memo);
        match Arc::try_unwrap(self.session) {
            Ok(mut session) => {
                if !patch.apply(&mut session) {
                    return None;
                }
                self.session = renewed(session, counts, memo);
            }
            Err(held) => {
                self.session = held;
                self.pending.push(patch.clone());
            }
        }
        Some(self)
    }

    /// The copy with every waiting change applied (cloned once when a command still holds
    /// it); `None` when one did not fit.
    pub fn settled(mut self, memo: &Memo) -> Option<Kept> {
        if self.pending.is_empty() {
            return Some(self);
        }
        let counts = counts_of(&self.session, memo);
        let mut session = Arc::unwrap_or_clone(self.session);
        for p in self.pending.drain(..) {
            if !p.apply(&mut session) {
                return None;
            }
        }
        self.session = renewed(session, counts, memo);
        Some(self)
    }
}

/// The token counts kept for `session`: they answer per message by what its texts hash to, so
/// they hold for a patched copy too (a changed or added message is counted afresh), and the
/// views need not count the whole session again after every line.
fn counts_of(session: &Arc<Session>, memo: &Memo) -> Option<Arc<Counted>> {
    memo.peek::<Arc<Counted>>(session, "session_counts")
}

/// A changed session as a new copy, not the old one changed in place: results kept for the
/// old one (`memo`) are keyed by it and must not be taken for the new one's, but for the
/// counts, which go across.
fn renewed(session: Session, counts: Option<Arc<Counted>>, memo: &Memo) -> Arc<Session> {
    let session = Arc::new(session);
    if let Some(c) = counts {
        let _ = memo.get(&session, "session_counts", || Ok(c));
    }
    session
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::path::{Path, PathBuf};
    use std::sync::atomic::AtomicBool;

    use palimpsest_core::api;
    use palimpsest_core::tokens::{Encoding, TokenCache};
    use palimpsest_core::watch::Tracker;

    use super::*;

    const ID: &str = "258c7280-ae70-4798-800f-63464d01a85d";

    /// The real transcript's lines, and a project folder holding its first `n`.
    fn started(n: usize) -> (tempfile::TempDir, PathBuf, Vec<String>) {
        let real = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../shared/data/claude-code")
            .join(format!("{ID}.jsonl"));
        let lines: Vec<String> = std::fs::read_to_string(real)
            .unwrap()
            .lines()
            .map(|l| format!("{l}\n"))
            .collect();
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().join("-home-u-proj");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(format!("{ID}.jsonl")), lines[..n].concat()).unwrap();
        (t, dir, lines)
    }

    fn append(dir: &Path, lines: &[String]) {
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(dir.join(format!("{ID}.jsonl")))
            .unwrap();
        f.write_all(lines.concat().as_bytes()).unwrap();
    }

    /// The patches a tracker of `dir` makes for `lines` appended in the given chunks.
    fn patches(tracker: &mut Tracker, dir: &Path, chunks: &[&[String]]) -> Vec<Patch> {
        chunks
            .iter()
            .flat_map(|c| {
                append(dir, c);
                tracker.refresh();
                tracker.take_patches()
            })
            .collect()
    }

    /// Three appends to the real transcript, with a copy as the window holds it after the
    /// first: the copy, the two tail patches after it, and the session as a whole read gives it.
    fn grown() -> (tempfile::TempDir, PathBuf, Session, Vec<Patch>, Session) {
        // Lines 1256 and 1257 reach back (the file is read whole there): these stop before.
        let (t, dir, lines) = started(1100);
        let mut tracker = Tracker::new(&dir, None).unwrap();
        tracker.keep_patches();
        patches(&mut tracker, &dir, &[&lines[1100..1110]]);
        let copy = api::load_session(&dir, Some(ID)).unwrap();
        let tails = patches(
            &mut tracker,
            &dir,
            &[&lines[1110..1130], &lines[1130..1160]],
        );
        assert!(
            tails.len() == 2 && tails.iter().all(|p| matches!(p, Patch::Tail(_))),
            "a transcript read once grows by tails: {} patches",
            tails.len()
        );
        let whole = api::load_session(&dir, Some(ID)).unwrap();
        (t, dir, copy, tails, whole)
    }

    #[test]
    fn a_change_to_a_copy_nobody_else_holds_is_applied_at_once() {
        let (_t, dir, copy, tails, whole) = grown();
        let memo = Memo::default();
        let mut kept = Kept::new(&dir.display().to_string(), ID, Arc::new(copy));
        for p in &tails {
            kept = kept
                .patched(p, &memo)
                .expect("each tail fits the copy it follows");
            assert!(
                kept.ready().is_some(),
                "nothing waits when nothing else held the copy"
            );
        }
        assert_eq!(
            *kept.ready().unwrap(),
            whole,
            "patched, the copy is what a whole read gives"
        );
    }

    #[test]
    fn a_change_to_a_copy_a_command_reads_waits_and_the_next_command_applies_it() {
        let (_t, dir, copy, tails, whole) = grown();
        let (memo, cache_dir) = (Memo::default(), tempfile::tempdir().unwrap());
        let copy = Arc::new(copy);
        // The copy counted, as the Tokens tab or the index leaves it.
        let cache = TokenCache::open(cache_dir.path()).unwrap();
        let enc = Encoding::for_model(copy.meta.model.as_deref());
        palimpsest_core::tokens::count_session(
            &copy,
            enc,
            Some(&cache),
            &mut |_| {},
            &AtomicBool::new(false),
        )
        .unwrap();
        let counts = Arc::new(api::session_counts(&copy, Some(&cache)).expect("counted"));
        memo.get(&copy, "session_counts", || Ok(Arc::clone(&counts)))
            .unwrap();
        let reading = Arc::clone(&copy);
        let before = copy.messages.len();
        let mut kept = Kept::new(&dir.display().to_string(), ID, copy);
        for p in &tails {
            kept = kept.patched(p, &memo).expect("a change waiting is kept");
            assert!(
                kept.ready().is_none(),
                "the change waits while a command reads the copy"
            );
        }
        assert_eq!(
            reading.messages.len(),
            before,
            "the copy a command reads is not changed under it"
        );
        let kept = kept.settled(&memo).expect("both changes fit, in order");
        let now = kept.ready().expect("settled, nothing waits");
        assert_eq!(*now, whole, "settled, the copy is what a whole read gives");
        let carried = memo.peek::<Arc<Counted>>(&now, "session_counts");
        assert!(
            carried.is_some_and(|c| Arc::ptr_eq(&c, &counts)),
            "the counts go across to the new copy, so the views do not count it again"
        );
    }

    #[test]
    fn a_change_that_does_not_fit_empties_the_slot() {
        let (_t, dir, copy, tails, _) = grown();
        let memo = Memo::default();
        // The second tail without the first: it starts from a copy this one is not.
        let kept = Kept::new(&dir.display().to_string(), ID, Arc::new(copy.clone()));
        assert!(
            kept.patched(&tails[1], &memo).is_none(),
            "applied at once, it does not fit"
        );
        let reading = Arc::new(copy);
        let kept = Kept::new(&dir.display().to_string(), ID, Arc::clone(&reading));
        let kept = kept.patched(&tails[1], &memo).expect("it waits, unchecked");
        assert!(
            kept.settled(&memo).is_none(),
            "settled, it does not fit: the file is read again"
        );
    }

    #[test]
    fn a_copy_as_read_is_offered_to_the_index_weakly_until_a_change_comes() {
        let (_t, dir, _, _, whole) = grown();
        let file = dir.join(format!("{ID}.jsonl"));
        let (copy, print) = api::load_session_printed(&file, Some(ID)).unwrap();
        let print = print.expect("a file is fingerprinted before it is read");
        let path = file.display().to_string();
        let kept = Kept::read(&path, ID, Arc::new(copy), Some(print.clone()));
        let (offered, weak) = kept
            .given()
            .expect("a copy as read is offered to the index");
        assert_eq!(offered, print, "with the fingerprint from before its read");
        assert!(
            weak.upgrade()
                .is_some_and(|s| Arc::ptr_eq(&s, &kept.ready().unwrap())),
            "the window's copy itself, not a second one"
        );
        drop(kept);
        assert!(
            weak.upgrade().is_none(),
            "a copy the window let go of is not kept alive for the index"
        );
        let memo = Memo::default();
        let kept = Kept::read(&path, ID, Arc::new(whole.clone()), Some(print));
        let kept = kept
            .patched(&Patch::Whole(Arc::new(whole)), &memo)
            .expect("a whole read replaces the copy");
        assert!(
            kept.given().is_none(),
            "a changed copy is no longer the file as read: the index reads the file"
        );
    }
}
