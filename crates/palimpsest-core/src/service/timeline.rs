//! The timeline the window fetches in pages: from the index when it answers for the session's
//! file (its first page alone, then every row), else from the session read whole. Part of
//! [`SessionService`]; which rows the index holds is the index's.

use std::path::Path;
use std::sync::Arc;

use crate::api;
use crate::index::AsOf;
use crate::rpc::IpcError;
use crate::views::timeline::Timeline;

use super::{SessionService, cache, prime};

/// The rows of the timeline sent last.
pub(super) enum Sent {
    /// Every row, for the next pages.
    Rows(Arc<Timeline>),
    /// Only the first page, from the index ([`SessionService::timeline_head`]): the next page reads
    /// the same rows whole, as the index held them then.
    Head(AsOf),
}

impl SessionService {
    /// The timeline of session `id` under `path`; `fresh` looks it up again (from the index
    /// when it holds the file as it is, the session read behind it if it is being written; else
    /// from the file, whose source is indexed afterwards), otherwise the one sent last is reused
    /// for its next page. A file that only grew since it was indexed shows the index's rows at
    /// once, marked by `grown_bytes`, and is read behind them unless `whole` asks for the rows
    /// of that read, which waits for it.
    pub fn timeline(
        &self,
        path: &str,
        id: &str,
        fresh: bool,
        whole: bool,
    ) -> Result<Arc<Timeline>, IpcError> {
        let mut kept = self.timeline.lock().unwrap_or_else(|e| e.into_inner());
        if !fresh
            && let Some((p, i, sent)) = kept.as_ref()
            && p == path
            && i == id
        {
            let rows = match sent {
                Sent::Rows(t) => Some(Arc::clone(t)),
                // The rest of the rows the first page was the head of, as they were then.
                Sent::Head(as_of) => self.indexed_rows(path, id, *as_of).map(Arc::new),
            };
            if let Some(t) = rows {
                *kept = Some((path.to_owned(), id.to_owned(), Sent::Rows(Arc::clone(&t))));
                return Ok(t);
            }
        }
        if let Ok(mut w) = self.wanted.lock() {
            *w = Some((path.to_owned(), id.to_owned()));
        }
        let t = match self.indexed_timeline(path, id) {
            Some(t) => {
                // A session an agent is still writing will be needed whole (the follower patches
                // the window's copy); a finished one is read whole only when a view asks for it,
                // as most of them answer from the index.
                if super::being_written(&t.meta.path) {
                    self.warm(path, id, &t.meta);
                }
                t
            }
            None => match (!whole && self.loaded_now(path, id).is_none())
                .then(|| self.indexed_timeline_grown(path, id))
                .flatten()
            {
                // Grown since it was indexed: its new messages need the session read whole.
                Some(t) => {
                    self.warm(path, id, &t.meta);
                    t
                }
                None => {
                    let session = self.session(path, id)?;
                    let (live, p, meta) = (
                        self.live.get().cloned(),
                        path.to_owned(),
                        session.meta.clone(),
                    );
                    let done = Arc::clone(&self.read_ahead);
                    std::thread::spawn(move || prime(live, &done, &p, &meta));
                    let t = api::timeline(&session, self.counts(&session).as_deref());
                    self.index_later(path, self.given(path, id));
                    t
                }
            },
        };
        let t = Arc::new(t);
        *kept = Some((path.to_owned(), id.to_owned(), Sent::Rows(Arc::clone(&t))));
        Ok(t)
    }

    /// Rows `from..from + limit` of [`SessionService::timeline`]. The rows are kept for the next page
    /// only until the last one is sent: the window then holds them, and nothing here reads them
    /// again (letting them go took a 2.1 GB transcript followed live from 1 021–1 025 to
    /// 1 003 MB). A page asked after that is made afresh.
    pub fn page(
        &self,
        path: &str,
        id: &str,
        from: usize,
        limit: Option<usize>,
        whole: bool,
    ) -> Result<Timeline, IpcError> {
        let t = self.timeline(path, id, from == 0, whole)?;
        let page = t.page(from, limit);
        if page.first_row + page.rows.len() >= page.total_rows {
            self.forget_timeline(path, id);
        }
        Ok(page)
    }

    /// The first page of session `id` under `path` before its rows are read whole: the index's
    /// ([`SessionService::timeline_head`]), else a big transcript's first lines
    /// ([`SessionService::timeline_first_lines`]); `None` when neither answers.
    pub fn first_page(&self, path: &str, id: &str, limit: usize) -> Option<Timeline> {
        self.timeline_head(path, id, limit)
            .or_else(|| self.timeline_first_lines(path, id, limit))
    }

    /// The first `limit` rows of session `id` under `path` from the index, when it answers for
    /// the file as [`SessionService::timeline`] would (as indexed; or grown since, the session not
    /// read yet), without reading the others: 264 000 rows of a 2 GB transcript take a second
    /// to read from the index, its first screen needs 200. The next page reads them all.
    pub fn timeline_head(&self, path: &str, id: &str, limit: usize) -> Option<Timeline> {
        // A grown file's rows as indexed only while the session is not read yet (then its own
        // rows are at hand); `Grown` answers for the file as indexed too.
        let as_of = match self.loaded_now(path, id) {
            None => AsOf::Grown,
            Some(_) => AsOf::Same,
        };
        let t = self.ask_quietly(|ix| {
            cache::timeline_indexed_head(ix, Path::new(path), Some(id), as_of, limit)
        })?;
        if let Ok(mut w) = self.wanted.lock() {
            *w = Some((path.to_owned(), id.to_owned()));
        }
        if let Ok(mut kept) = self.timeline.lock() {
            *kept = Some((path.to_owned(), id.to_owned(), Sent::Head(as_of)));
        }
        // As `timeline`: a session still being written, or grown since it was indexed, is
        // needed whole.
        if t.grown_bytes > 0 || super::being_written(&t.meta.path) {
            self.warm(path, id, &t.meta);
        }
        Some(t)
    }

    /// The rows of the first lines of session `id` under `path` when it is a big transcript no
    /// index answers for and not loaded yet (`api::timeline_first_lines`): the first screen of
    /// a 200 MB transcript opened for the first time in milliseconds, where its whole read
    /// takes seconds. That read starts here, behind them; the window then asks for the rows
    /// `whole`, which waits for it, and puts them in place of these.
    pub fn timeline_first_lines(&self, path: &str, id: &str, limit: usize) -> Option<Timeline> {
        if self.loaded_now(path, id).is_some() {
            return None;
        }
        let first = api::first_lines(std::path::Path::new(path), id, limit)
            .ok()
            .flatten()?;
        let t = first.timeline();
        if let Ok(mut kept) = self.first_lines.lock() {
            *kept = Some((path.to_owned(), id.to_owned(), Arc::new(first.session)));
        }
        if let Ok(mut w) = self.wanted.lock() {
            *w = Some((path.to_owned(), id.to_owned()));
        }
        // The next page is of the whole file's rows, never these.
        self.forget_timeline(path, id);
        self.warm(path, id, &t.meta);
        Some(t)
    }

    /// Message `index` of the first lines of session `id` under `path` last sent, while the
    /// session is still read whole behind them: a row of the first screen opens in the
    /// inspector at once (a 2 GB transcript takes half a minute to read). What the later lines
    /// change of it comes with the whole read.
    pub fn first_lines_message(
        &self,
        path: &str,
        id: &str,
        index: usize,
    ) -> Option<crate::views::MessageDetail> {
        if self.loaded_now(path, id).is_some() {
            return None;
        }
        let session = self
            .first_lines
            .lock()
            .ok()?
            .as_ref()
            .filter(|(p, i, _)| p == path && i == id)
            .map(|(.., s)| Arc::clone(s))?;
        api::message_detail(std::path::Path::new(path), &session, index, false).ok()
    }

    /// Forget the timeline kept for session `id` under `path`.
    pub(super) fn forget_timeline(&self, path: &str, id: &str) {
        if let Ok(mut kept) = self.timeline.lock()
            && kept.as_ref().is_some_and(|(p, i, _)| p == path && i == id)
        {
            *kept = None;
        }
    }
}

impl SessionService {
    /// The timeline of session `id` under `path` from the index, when it holds it as it is on
    /// disk; `None` when it does not, or when the index cannot be opened (the file is read then).
    fn indexed_timeline(&self, path: &str, id: &str) -> Option<Timeline> {
        self.ask(path, |ix| {
            cache::timeline_indexed(ix, Path::new(path), Some(id))
        })
    }

    /// The rows the index holds of session `id` under `path` when its file is as indexed or
    /// only grew since (`grown_bytes` says by how much): the first screen of a transcript an
    /// agent went on writing, without waiting for it to be read whole.
    fn indexed_timeline_grown(&self, path: &str, id: &str) -> Option<Timeline> {
        self.ask_quietly(|ix| cache::timeline_indexed_grown(ix, Path::new(path), Some(id)))
    }

    /// Every row the index holds of session `id` under `path`, as of `as_of`.
    fn indexed_rows(&self, path: &str, id: &str, as_of: AsOf) -> Option<Timeline> {
        match as_of {
            AsOf::Same => self.indexed_timeline(path, id),
            AsOf::Grown => self.indexed_timeline_grown(path, id),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::SessionService;

    const ID: &str = "258c7280-ae70-4798-800f-63464d01a85d";

    /// The real transcript the fixtures carry (with its licence).
    fn real() -> std::path::PathBuf {
        let real = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(format!("../../fixtures/real/claude-code/{ID}.jsonl"));
        assert!(real.is_file(), "{} is part of the fixtures", real.display());
        real
    }

    /// Run `f` with the index and the token cache in `t`'s `cache` folder.
    fn with_cache(t: &tempfile::TempDir, f: impl FnOnce()) {
        let machine = crate::env::Machine::new(None, Some(t.path().join("cache")), None, []);
        crate::env::with(machine, f)
    }

    #[test]
    fn an_indexed_session_gives_its_first_page_alone_and_then_every_row() {
        let real = real();
        let t = tempfile::tempdir().unwrap();
        let file = t.path().join("s.jsonl");
        std::fs::copy(&real, &file).unwrap();
        let (path, id) = (file.canonicalize().unwrap().display().to_string(), ID);
        with_cache(&t, || {
            let mut ix = crate::api::open_index(None).unwrap();
            crate::api::index_update(
                &mut ix,
                std::slice::from_ref(&file),
                &Default::default(),
                &mut |_, _| {},
            )
            .unwrap();
            let state = SessionService::default();
            let head = state
                .timeline_head(&path, id, 200)
                .expect("the index answers for the file");
            assert_eq!(
                (head.rows.len(), head.total_rows, head.from_index),
                (200, 349, true),
                "the first page alone, every row counted, from the index"
            );
            let all = state.timeline(&path, id, false, false).unwrap();
            assert_eq!(
                all.rows.len(),
                349,
                "the next page's request reads every row"
            );
            assert_eq!(
                &all.rows[..200],
                &head.rows[..],
                "the first page is the head of those rows"
            );
            assert!(all.from_index, "from the same index");
        });
    }

    #[test]
    fn the_rows_are_kept_for_the_next_page_until_the_last_is_sent() {
        let id = ID;
        let real = real();
        let t = tempfile::tempdir().unwrap();
        let file = t.path().join(format!("{id}.jsonl"));
        std::fs::copy(&real, &file).unwrap();
        let path = file.canonicalize().unwrap().display().to_string();
        with_cache(&t, || {
            let state = SessionService::default();
            let kept = |state: &SessionService| state.timeline.lock().unwrap().is_some();
            let first = state.page(&path, id, 0, Some(200), false).unwrap();
            assert_eq!(
                (first.rows.len(), first.total_rows),
                (200, 349),
                "the first page of the real transcript's 349 rows"
            );
            assert!(kept(&state), "its rows are kept for the next page");
            let rest = state.page(&path, id, 200, Some(100), false).unwrap();
            assert_eq!(
                (rest.first_row, rest.rows.len()),
                (200, 100),
                "a page from where the last ended"
            );
            assert!(kept(&state), "49 rows are still to come");
            let last = state.page(&path, id, 300, Some(100), false).unwrap();
            assert_eq!(
                (last.first_row, last.rows.len()),
                (300, 49),
                "the last page holds what is left"
            );
            assert!(
                !kept(&state),
                "with the last page sent, no copy of every row stays behind"
            );
            let again = state.page(&path, id, 300, Some(100), false).unwrap();
            assert_eq!(
                again.rows, last.rows,
                "a page asked again is made afresh, the same rows"
            );
        });
    }

    #[test]
    fn a_big_transcript_not_indexed_gives_its_first_lines_then_every_row() {
        let id = ID;
        let real = real();
        let t = tempfile::tempdir().unwrap();
        let file = t.path().join(format!("{id}.jsonl"));
        let copies =
            palimpsest_fixtures::big::grow(&real, &file, crate::api::FIRST_LINES_FROM + 1).unwrap();
        let path = file.canonicalize().unwrap().display().to_string();
        with_cache(&t, || {
            let state = SessionService::default();
            let first = state
                .timeline_first_lines(&path, id, 200)
                .expect("no index holds it: its first lines answer");
            assert_eq!(
                (first.rows.len(), first.from_index),
                (201, false),
                "a screen of rows and one more, from the file"
            );
            assert!(first.unread_bytes > 0, "the rest is said to be unread");
            let shown = state
                .first_lines_message(&path, id, 5)
                .expect("a row of the first lines opens before the whole read");
            let whole = state.timeline(&path, id, true, true).unwrap();
            let read = state.session(&path, id).unwrap();
            assert_eq!(
                shown.message.parts, read.messages[5].parts,
                "its parts are those the whole read gives"
            );
            assert!(
                state.first_lines_message(&path, id, 5).is_none(),
                "once the session is read, its own messages answer"
            );
            assert_eq!(
                (whole.rows.len(), whole.unread_bytes),
                (349 * copies, 0),
                "the whole read's rows, every copy's messages"
            );
            assert!(
                state.timeline_first_lines(&path, id, 200).is_none(),
                "once the session is loaded, its own rows are at hand"
            );
        });
    }
}
