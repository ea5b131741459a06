//! One function per view of a session, each answering from the index when it holds the
//! session's file as it is on disk (without reading the file), else from the session loaded
//! once and shared ([`SessionService::session`]), the heavy results kept per loaded copy
//! ([`Memo`](super::Memo)). Making each view is the api's; the timeline's pages are
//! `timeline`'s.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use super::{SessionService, indexing};
use crate::analysis::spill_text::Confirmation;
use crate::analysis::{Diagnosis, SpillEntry, SpillReview};
use crate::api::{self, DiagnoseOptions, RecordedSet};
use crate::rpc::IpcError;
use crate::tokens::{Encoding, Progress, TokenCache};
use crate::views::MessageDetail;
use crate::views::cuts::{RequestView, SessionCuts};
use crate::views::tokens::TokenReport;

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
            && let Some(d) = indexing::message(path, id, index)
        {
            return Ok(d);
        }
        if !raw && let Some(d) = self.first_lines_message(path, id, index) {
            return Ok(d);
        }
        let session = self.session(path, id)?;
        Ok(api::message_detail(Path::new(path), &session, index, raw)?)
    }

    /// The post-mortem of one session (BPE token counts, as `palimpsest diagnose`).
    pub fn diagnosis(&self, path: &str, id: &str) -> Result<Diagnosis, IpcError> {
        if let Some(d) = indexing::diagnosis(path, id) {
            return Ok(d);
        }
        let session = self.session(path, id)?;
        self.memo.get(&session, "diagnose", || {
            Ok(api::diagnose(&session, &DiagnoseOptions::default())?)
        })
    }

    /// Every spill file of one session, none of them read.
    pub fn spills(
        &self,
        path: &str,
        id: &str,
        opts: &DiagnoseOptions,
    ) -> Result<SpillReview, IpcError> {
        if let Some(r) = indexing::spills(path, id, opts) {
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
        if let Some(e) = indexing::spill_text(path, id, file, opts, confirmation) {
            return Ok(e?);
        }
        let session = self.session(path, id)?;
        Ok(api::spill_text(&session, opts, file, confirmation)?)
    }

    /// The token report of one session in `encoding`, counted once per loaded copy (into the
    /// user's token cache), `progress` told as it counts and `cancel` checked.
    pub fn token_report(
        &self,
        path: &str,
        id: &str,
        encoding: Option<Encoding>,
        progress: &mut dyn FnMut(Progress),
        cancel: &AtomicBool,
    ) -> Result<Arc<TokenReport>, IpcError> {
        if let Some(r) = indexing::token_report(path, id, encoding) {
            return Ok(Arc::new(r));
        }
        let session = self.session(path, id)?;
        let opts = api::TokenOptions {
            encoding,
            cache_dir: TokenCache::default_dir(),
            report: Default::default(),
            prices: None,
        };
        self.memo
            .get(&session, &format!("tokens:{encoding:?}"), || {
                Ok(Arc::new(api::token_report(
                    &session, &opts, progress, cancel,
                )?))
            })
    }

    /// Every compaction of one session as the cut view draws it: counted in BPE once the
    /// session is counted (the estimate's view is not kept for it).
    pub fn cut_view(&self, path: &str, id: &str) -> Result<Arc<SessionCuts>, IpcError> {
        if let Some(c) = indexing::cut_view(path, id) {
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
        if let Some(v) = indexing::request_view(path, id, number) {
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
        if let Some(none) = indexing::nothing_recorded(path, id, home) {
            return Ok(none);
        }
        let session = self.session(path, id)?;
        Ok(api::recorded(&session, &api::recorded_dirs(&session, home)))
    }
}
