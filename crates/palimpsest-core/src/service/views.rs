//! One function per view of a session, each answering from the index when it holds the
//! session's file as it is on disk (without reading the file), else from the session loaded
//! once and shared ([`SessionService::session`]), the heavy results kept per loaded copy
//! ([`Memo`](super::Memo)). Making each view is the api's; the timeline's pages are
//! `timeline`'s.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use super::{IndexUse, SessionService, cache};
use crate::analysis::spill_text::Confirmation;
use crate::analysis::{Diagnosis, SpillEntry, SpillReview};
use crate::api::{self, DiagnoseOptions, RecordedSet};
use crate::compaction::RequestContext;
use crate::compaction::context::Eras;
use crate::rpc::IpcError;
use crate::tokens::{Progress, TokenCache};
use crate::views::MessageDetail;
use crate::views::cuts::{RequestView, SessionCuts};
use crate::views::tokens::TokenReport;

/// Every message of a session, as [`SessionService::messages`] gives them.
pub enum Messages {
    /// From the index, read one at a time.
    Stored(Box<crate::index::StoredMessages>),
    /// The session loaded.
    Loaded(Arc<crate::model::Session>),
}

impl SessionService {
    /// One whole message, and its stored text when `raw`: from the session when it is loaded,
    /// else read by offset through the index while the session is read behind the rows, else
    /// from the first lines of a big transcript shown while it is read, else once the session
    /// is loaded.
    pub fn message(
        &self,
        path: &str,
        id: &str,
        index: usize,
        raw: bool,
    ) -> Result<MessageDetail, IpcError> {
        if self.loaded_now(path, id).is_none()
            && let Some(d) = self.ask(path, |ix| {
                // The window shows a grown file's message as last indexed while it reads the
                // rest; a command answers only what equals the file.
                if self.index == IndexUse::Kept {
                    cache::message_indexed_grown(ix, Path::new(path), Some(id), index)
                } else {
                    cache::message_indexed(ix, Path::new(path), Some(id), index)
                }
            })
        {
            return Ok(d);
        }
        if !raw && let Some(d) = self.first_lines_message(path, id, index) {
            return Ok(d);
        }
        let session = self.session(path, id)?;
        Ok(api::message_detail(Path::new(path), &session, index, raw)?)
    }

    /// The post-mortem of one session under `opts` (BPE token counts, as `palimpsest
    /// diagnose`). The index keeps the diagnosis under the default spill pattern, BPE counts
    /// and roots; so does the loaded copy.
    pub fn diagnosis(
        &self,
        path: &str,
        id: &str,
        opts: &DiagnoseOptions,
    ) -> Result<Diagnosis, IpcError> {
        if let Some(d) = self.ask(path, |ix| {
            cache::diagnosis_indexed(ix, Path::new(path), Some(id), opts)
        }) {
            return Ok(d);
        }
        let session = self.session(path, id)?;
        if !opts.kept_by_index() {
            return Ok(api::diagnose(&session, opts)?);
        }
        self.memo
            .get(&session, "diagnose", || Ok(api::diagnose(&session, opts)?))
    }

    /// Every message of one session: from the index one at a time, each read by its offsets,
    /// when it holds the file as it is and can give every message back (a 200 MB transcript
    /// is then never held whole), else the session loaded.
    pub fn messages(&self, path: &str, id: &str) -> Result<Messages, IpcError> {
        if self.loaded_now(path, id).is_none()
            && let Some(stored) =
                self.ask_quietly(|ix| cache::messages_indexed(ix, Path::new(path), Some(id)))
        {
            return Ok(Messages::Stored(Box::new(stored)));
        }
        Ok(Messages::Loaded(self.session(path, id)?))
    }

    /// What the model saw at request `number` (`None`: the request the agent would send
    /// next), with the answer and the pairing findings.
    pub fn request_context(
        &self,
        path: &str,
        id: &str,
        number: Option<usize>,
    ) -> Result<RequestContext, IpcError> {
        if let Some(ctx) = self.ask(path, |ix| {
            cache::request_context_indexed(ix, Path::new(path), Some(id), number)
        }) {
            return Ok(ctx);
        }
        let session = self.session(path, id)?;
        let number = number.unwrap_or_else(|| Eras::new(&session).request_count());
        Ok(api::request_context(
            &session,
            number,
            self.counts(&session).as_deref(),
        )?)
    }

    /// Every spill file of one session, none of them read.
    pub fn spills(
        &self,
        path: &str,
        id: &str,
        opts: &DiagnoseOptions,
    ) -> Result<SpillReview, IpcError> {
        if let Some(r) = self.ask(path, |ix| {
            cache::spills_indexed(ix, Path::new(path), Some(id), opts)
        }) {
            return Ok(r);
        }
        Ok(api::spills(&*self.session(path, id)?, opts)?)
    }

    /// One spill file with its text: inside the session's folders, or where the user confirmed.
    pub fn spill_text(
        &self,
        path: &str,
        id: &str,
        file: &str,
        opts: &DiagnoseOptions,
        confirmation: Confirmation<'_>,
    ) -> Result<SpillEntry, IpcError> {
        if let Some(review) = self.ask(path, |ix| {
            cache::spills_indexed(ix, Path::new(path), Some(id), &api::unread(opts))
        }) {
            return Ok(api::spill_text_in(&review, file, confirmation)?);
        }
        let session = self.session(path, id)?;
        Ok(api::spill_text(&session, opts, file, confirmation)?)
    }

    /// The token report of one session as `opts` asks (vocabulary, cache, top lists, prices),
    /// counted once per loaded copy, `progress` told as it counts and `cancel` checked. The
    /// index answers when the count would go through the user's own cache, as the index's did.
    pub fn token_report(
        &self,
        path: &str,
        id: &str,
        opts: &api::TokenOptions,
        progress: &mut dyn FnMut(Progress),
        cancel: &AtomicBool,
    ) -> Result<Arc<TokenReport>, IpcError> {
        let prices = opts
            .prices
            .as_ref()
            .unwrap_or(crate::cost::PriceTable::bundled());
        if opts.cache_dir.is_some()
            && opts.cache_dir == TokenCache::default_dir()
            && let Some(r) = self.ask(path, |ix| {
                let (p, enc) = (Path::new(path), opts.encoding);
                cache::token_report_indexed_as(ix, p, Some(id), enc, &opts.report, prices)
            })
        {
            return Ok(Arc::new(r));
        }
        let session = self.session(path, id)?;
        // The price table is not in the key: a service prices with one table (the window's
        // shipped one, a command's own).
        let key = format!(
            "tokens:{:?}:{:?}:{}:{:?}",
            opts.encoding, opts.cache_dir, opts.report.top, opts.report.trigger_tokens
        );
        self.memo.get(&session, &key, || {
            Ok(Arc::new(api::token_report(
                &session, opts, progress, cancel,
            )?))
        })
    }

    /// Every compaction of one session as the cut view draws it: counted in BPE once the
    /// session is counted (the estimate's view is not kept for it).
    pub fn cut_view(&self, path: &str, id: &str) -> Result<Arc<SessionCuts>, IpcError> {
        if let Some(c) = self.ask(path, |ix| {
            cache::cut_view_indexed(ix, Path::new(path), Some(id))
        }) {
            return Ok(Arc::new(c));
        }
        let session = self.session(path, id)?;
        let counts = self.counts(&session);
        let key = if counts.is_some() {
            "cuts"
        } else {
            "cuts_estimated"
        };
        self.memo.get(&session, key, || {
            Ok(Arc::new(api::session_cuts(&session, counts.as_deref())))
        })
    }

    /// What the model saw at request `number`, as rows, with its pairing findings.
    pub fn request_view(
        &self,
        path: &str,
        id: &str,
        number: usize,
    ) -> Result<RequestView, IpcError> {
        if let Some(v) = self.ask(path, |ix| {
            cache::request_view_indexed(ix, Path::new(path), Some(id), number)
        }) {
            return Ok(v);
        }
        let session = self.session(path, id)?;
        Ok(api::request_view(
            &session,
            number,
            self.counts(&session).as_deref(),
        )?)
    }

    /// The requests the agent recorded it sent, each beside the rebuilt one; the harness state
    /// folder `home` is where coworker keeps its logs.
    pub fn recorded(
        &self,
        path: &str,
        id: &str,
        home: Option<&Path>,
    ) -> Result<RecordedSet, IpcError> {
        // Listed by the index as it is on disk, with no log where its listing says: every
        // Claude Code and Codex session answers the empty set without being read.
        let nothing = self.ask_quietly(|ix| {
            let listed = ix.listing(Path::new(path))?.map(|(sessions, _)| sessions);
            let meta = listed.and_then(|l| l.into_iter().find(|m| m.id == id));
            Ok(meta.and_then(|m| api::nothing_recorded(&api::recorded_dirs_of(&m, home))))
        });
        if let Some(none) = nothing {
            return Ok(none);
        }
        let session = self.session(path, id)?;
        Ok(api::recorded(&session, &api::recorded_dirs(&session, home)))
    }
}
