//! The service's copy of the session it loaded last, or, for a session the live follower keeps,
//! where the follower keeps it.
//!
//! A 200 MB transcript an agent is writing is in memory once: the follower reads what is
//! appended into it (`model::Current`), and the window's commands read the same session there.
//! A command holds the session as it was when it started for as long as it reads; a change
//! that comes meanwhile goes to a new copy, and the window gets the new rows at once. What a
//! change is, and how it is made, is core's (`watch::Patch`, `sources::claude::resume`); when
//! the slot is filled and read is the service's ([`super::SessionService`]).

use std::sync::Arc;

use crate::index::fingerprint::Fingerprint;
use crate::model::{Current, Session};
use crate::watch::Patch;

/// The session loaded last.
pub struct Kept {
    path: String,
    id: String,
    copy: Copy,
    /// The session's file and its fingerprint from before the copy was read from it, while the
    /// copy is as read (the index may take it then: [`Kept::given`]).
    print: Option<(String, Fingerprint)>,
}

/// Whose the session is.
enum Copy {
    /// Read for the window: its own.
    Own(Arc<Session>),
    /// Where the live follower keeps it, up to date with the file.
    Followed(Arc<Current>),
}

impl Kept {
    /// `session`, loaded from `path`, as it is now.
    pub fn new(path: &str, id: &str, session: Arc<Session>) -> Self {
        Self::with(path, id, Copy::Own(session))
    }

    /// `session` read from the file `path` whose fingerprint was `print` before the read.
    pub fn read(path: &str, id: &str, session: Arc<Session>, print: Option<Fingerprint>) -> Self {
        Kept {
            print: print.map(|p| (path.to_owned(), p)),
            ..Kept::new(path, id, session)
        }
    }

    /// The session the live follower keeps in `current`.
    pub fn followed(path: &str, id: &str, current: Arc<Current>) -> Self {
        Self::with(path, id, Copy::Followed(current))
    }

    /// The session read ahead for the live follower into `current`, from its transcript `file`
    /// (of source `path`) whose fingerprint was `print` before the read: offered to the index
    /// until it changes, as a copy the window read is, so the update the window's read sets off
    /// does not read a 200 MB transcript a second time.
    pub fn read_ahead(
        path: &str,
        id: &str,
        current: Arc<Current>,
        file: &str,
        print: Option<Fingerprint>,
    ) -> Self {
        Kept {
            print: print.map(|p| (file.to_owned(), p)),
            ..Kept::followed(path, id, current)
        }
    }

    /// Session `id` under `path` as `patch` gives it: where the follower keeps it, or the
    /// whole session it read and keeps no more. A follower's read that reached the file's end
    /// is offered to the index with the file's fingerprint then ([`Kept::given`]), so indexing
    /// a transcript followed live takes what was read on from the last offset instead of
    /// reading the file again.
    pub fn of(path: &str, id: &str, patch: &Patch) -> Option<Self> {
        match (patch.current(), patch) {
            (Some(current), _) => Some(Kept {
                print: patch.printed().map(|p| (p.file.clone(), p.print.clone())),
                ..Self::followed(path, id, Arc::clone(current))
            }),
            (None, Patch::Whole(session)) => Some(Self::new(path, id, Arc::clone(session))),
            // Every change to a session the follower keeps says where it keeps it.
            (None, _) => None,
        }
    }

    fn with(path: &str, id: &str, copy: Copy) -> Self {
        Kept {
            path: path.to_owned(),
            id: id.to_owned(),
            copy,
            print: None,
        }
    }

    /// The copy as read from its file, with that file and its fingerprint from before the read,
    /// for the index to take instead of reading the file again
    /// ([`crate::index::Given`]); only a weak handle, so a copy the window lets go of
    /// is not kept alive by a queued update (that one reads the file itself). The follower's
    /// copy is offered as it is now, with the fingerprint of the file as its last read left it
    /// ([`Kept::of`]): should a later change have come to it without reaching this slot, the
    /// file has grown past that fingerprint too, and the index, which takes a copy only while
    /// the file is as fingerprinted, reads the file.
    pub fn given(&self) -> Option<(String, Fingerprint, std::sync::Weak<Session>)> {
        let (file, print) = self.print.clone()?;
        let session = match &self.copy {
            Copy::Own(s) => Arc::downgrade(s),
            Copy::Followed(current) => Arc::downgrade(&current.now()),
        };
        Some((file, print, session))
    }

    /// The session's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// True when it is session `id` under `path`.
    pub fn is(&self, path: &str, id: &str) -> bool {
        self.path == path && self.id == id
    }

    /// The session as it is now; a change that comes while the caller holds it does not
    /// change it.
    pub fn ready(&self) -> Arc<Session> {
        match &self.copy {
            Copy::Own(s) => Arc::clone(s),
            Copy::Followed(current) => current.now(),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::path::{Path, PathBuf};

    use crate::api;
    use crate::watch::Tracker;

    use super::*;

    const ID: &str = "258c7280-ae70-4798-800f-63464d01a85d";

    /// The real transcript's lines, and a project folder holding its first `n`.
    fn started(n: usize) -> (tempfile::TempDir, PathBuf, Vec<String>) {
        let real = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../fixtures/real/claude-code")
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

    /// Append `lines` and let the tracker look: the one patch it makes of the session.
    fn grow(tracker: &mut Tracker, dir: &Path, lines: &[String]) -> Patch {
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(dir.join(format!("{ID}.jsonl")))
            .unwrap();
        f.write_all(lines.concat().as_bytes()).unwrap();
        tracker.refresh();
        let mut patches = tracker.take_patches();
        assert_eq!(patches.len(), 1, "one session changed: one patch");
        patches.remove(0)
    }

    /// As the slot does at `change`: what the change gives replaces `kept`. The follower read
    /// the appended lines to the file's end, so its session is offered to the index in turn,
    /// with the file's fingerprint after that read: indexing it reads nothing again.
    fn offers_the_followers_read(kept: Kept, path: &str, change: &Patch, file: &Path) {
        drop(kept);
        let kept = Kept::of(path, ID, change).expect("a change the follower keeps");
        let (offered_file, offered, weak) = kept
            .given()
            .expect("the follower read to the file's end: its session is the file's");
        assert_eq!(
            offered_file,
            file.display().to_string(),
            "the transcript the follower read, as the index matches it"
        );
        assert_eq!(
            Some(offered),
            Fingerprint::of(file).ok(),
            "with the file's fingerprint after the appended lines were read"
        );
        assert!(
            weak.upgrade()
                .is_some_and(|s| Arc::ptr_eq(&s, &change.current().unwrap().now())),
            "the follower's session itself, not a copy"
        );
    }

    #[test]
    fn a_followed_session_is_read_where_the_follower_keeps_it_not_copied() {
        // Lines 1256 and 1257 reach back (the file is read whole there): these stop before.
        let (_t, dir, lines) = started(1100);
        let path = dir.display().to_string();
        let mut tracker = Tracker::new(&dir, None).unwrap();
        tracker.keep_patches();
        let first = grow(&mut tracker, &dir, &lines[1100..1110]);
        assert!(
            matches!(first, Patch::Shared { .. }),
            "the first change reads the transcript whole, and the tracker keeps it"
        );
        let mut kept = Kept::of(&path, ID, &first).expect("a kept session is shared");
        let current = Arc::clone(first.current().unwrap());
        for chunk in [&lines[1110..1130], &lines[1130..1160]] {
            let patch = grow(&mut tracker, &dir, chunk);
            assert!(
                matches!(patch, Patch::Tail(_)),
                "a transcript read once grows by tails"
            );
            kept = Kept::of(&path, ID, &patch).expect("a tail says where the session is");
            assert!(
                Arc::ptr_eq(&kept.ready(), &current.now()),
                "the window reads the follower's session itself, not a copy of its own"
            );
        }
        assert_eq!(
            *kept.ready(),
            api::load_session(&dir, Some(ID)).unwrap(),
            "followed, the session is what a whole read gives"
        );
    }

    #[test]
    fn a_copy_read_ahead_for_the_follower_is_offered_to_the_index_and_so_is_each_read_on() {
        let (_t, dir, lines) = started(1100);
        let path = dir.display().to_string();
        let file = dir.join(format!("{ID}.jsonl"));
        let mut tracker = Tracker::new(&dir, None).unwrap();
        tracker.keep_patches();
        let meta = api::list_sessions(&file)
            .unwrap()
            .sessions
            .into_iter()
            .find(|m| m.id == ID)
            .unwrap();
        let mut read = None;
        let primed =
            crate::watch::Primed::read_with(&meta, |current, print| read = Some((current, print)))
                .unwrap()
                .expect("a Claude Code transcript is read ahead");
        let (current, print) = read.expect("the read says where it keeps the session");
        let kept = Kept::read_ahead(&path, ID, Arc::clone(&current), &meta.path, print);
        let (offered_file, offered, weak) = kept
            .given()
            .expect("the follower's copy, as read, is offered to the index");
        assert_eq!(
            offered_file, meta.path,
            "the transcript itself, not its source's folder: the index matches a copy by its file"
        );
        assert_eq!(
            Some(offered),
            Fingerprint::of(&file).ok(),
            "with the transcript's fingerprint from before the read, which it still has"
        );
        assert!(
            weak.upgrade()
                .is_some_and(|s| Arc::ptr_eq(&s, &current.now())),
            "the follower's copy itself, not a second one"
        );
        assert!(tracker.adopt(primed), "the follower goes on from the read");
        let change = grow(&mut tracker, &dir, &lines[1100..1110]);
        offers_the_followers_read(kept, &path, &change, &file);
    }

    #[test]
    fn a_command_reading_the_session_keeps_it_as_it_was_while_the_follower_goes_on() {
        let (_t, dir, lines) = started(1100);
        let path = dir.display().to_string();
        let mut tracker = Tracker::new(&dir, None).unwrap();
        tracker.keep_patches();
        let kept = Kept::of(&path, ID, &grow(&mut tracker, &dir, &lines[1100..1110])).unwrap();
        let reading = kept.ready();
        let before = api::load_session(&dir, Some(ID)).unwrap();
        let patch = grow(&mut tracker, &dir, &lines[1110..1160]);
        let kept = Kept::of(&path, ID, &patch).unwrap();
        assert_eq!(
            *reading, before,
            "the session a command reads is not changed under it"
        );
        let now = kept.ready();
        assert!(
            !Arc::ptr_eq(&reading, &now),
            "the change went to a new copy while the old one was read"
        );
        // That copy shares every message the new lines left alone with the one being read: it
        // cost a pointer per message (0.27 s for a 210 MB transcript when messages were copied
        // whole, which held the window's next row back).
        let Patch::Tail(tail) = &patch else {
            panic!("a transcript read once grows by tails")
        };
        let shared = (0..tail.from)
            .filter(|&i| Arc::ptr_eq(&reading.messages[i], &now.messages[i]))
            .count();
        assert_eq!(
            (shared, tail.from),
            (195, 195),
            "the 195 messages before the first one the change reached are shared, not copied"
        );
        assert_eq!(
            *now,
            api::load_session(&dir, Some(ID)).unwrap(),
            "and the next command reads the session as the file is now"
        );
        // Let go of, the session is changed where it is: its first text stays the same bytes.
        drop((reading, now));
        let at = first_text(&kept.ready());
        let kept = Kept::of(&path, ID, &grow(&mut tracker, &dir, &lines[1160..1170])).unwrap();
        assert_eq!(
            first_text(&kept.ready()),
            at,
            "a change to a session no command holds is made without copying it"
        );
    }

    /// Where the session's first text is in memory.
    fn first_text(s: &Session) -> usize {
        let text = s
            .messages
            .iter()
            .flat_map(|m| &m.parts)
            .find_map(|p| match p {
                crate::model::Part::Text { text } => Some(text),
                _ => None,
            });
        text.unwrap().as_ptr() as usize
    }

    #[test]
    fn a_copy_as_read_is_offered_to_the_index_weakly_then_the_followers_read() {
        let (_t, dir, lines) = started(1100);
        let mut tracker = Tracker::new(&dir, None).unwrap();
        tracker.keep_patches();
        let file = dir.join(format!("{ID}.jsonl"));
        let (copy, print) = api::load_session_printed(&file, Some(ID)).unwrap();
        let print = print.expect("a file is fingerprinted before it is read");
        let path = file.display().to_string();
        let kept = Kept::read(&path, ID, Arc::new(copy), Some(print.clone()));
        let (file_offered, offered, weak) = kept
            .given()
            .expect("a copy as read is offered to the index");
        assert_eq!(offered, print, "with the fingerprint from before its read");
        assert_eq!(file_offered, path, "of the file it was read from");
        assert!(
            weak.upgrade()
                .is_some_and(|s| Arc::ptr_eq(&s, &kept.ready())),
            "the window's copy itself, not a second one"
        );
        let change = grow(&mut tracker, &dir, &lines[1100..1110]);
        offers_the_followers_read(kept, &path, &change, &file);
        assert!(
            weak.upgrade().is_none(),
            "the window's own copy is let go once it reads the follower's"
        );
    }
}
