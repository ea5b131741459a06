//! The views over many sessions, through the same service: the fleet table, search and the
//! fleet tuned. The table and search bring the index up to date for the paths asked (taking
//! the session the window keeps instead of reading its file again) and answer from it; tuning
//! keeps its cells there. Without a usable index, or when told not to use one, every session
//! is read and the same answer made from the files.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::AtomicBool;

use super::{IndexUse, SessionService};
use crate::analysis::Fleet;
use crate::api::{self, DiagnoseOptions};
use crate::error::{Error, ErrorCode, Problem};
use crate::index::search::{Hit, Query};
use crate::replay::options::ReplayOptions;
use crate::replay::tune_grid;
use crate::rpc::TuneReq;

impl SessionService {
    /// Every session under `path` diagnosed: the fleet table, from the index brought up to date
    /// first (`progress` told `(done, total)`), or, without a usable index, afresh. The index
    /// keeps the default options' diagnoses: other options diagnose afresh. Cancelling (the
    /// options' flag) answers `Cancelled`.
    pub fn fleet(
        &self,
        path: &Path,
        opts: &DiagnoseOptions,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<Fleet, Problem> {
        if opts.kept_by_index()
            && let Some(at) = self.writable_index()
        {
            let given = self.given_kept();
            let done = api::with_index(at.as_deref(), |ix| {
                api::fleet_indexed_given(ix, path, opts, &given, &mut *progress)
            });
            match done {
                Ok((fleet, notices)) => {
                    notices.into_iter().for_each(|n| self.say(n));
                    return Ok(fleet);
                }
                Err(e) if e.code() == ErrorCode::Cancelled => return Err(e.into()),
                Err(e) => self.say(format!(
                    "diagnosed without the index, which cannot be used: {e}"
                )),
            }
        }
        Ok(api::diagnose_fleet(path, opts)?)
    }

    /// The fleet under `req`'s paths tuned (`api::tune`), each session's cells kept in the
    /// index this service may update (none with [`IndexUse::Off`], or when it cannot be
    /// opened: then every session is replayed). A grid word that is not one is `invalid`.
    pub fn tune(
        &self,
        req: &TuneReq,
        progress: &(dyn Fn(usize, usize) + Sync),
        cancel: Option<&AtomicBool>,
    ) -> Result<api::TuneView, Problem> {
        let base = ReplayOptions {
            policy: req.policy,
            at_recorded: req.at_recorded,
            naive: req.naive,
            ..ReplayOptions::default()
        };
        let settings = tune_grid::grid(req.policy, &req.grid).map_err(Error::OutOfRange)?;
        let paths: Vec<PathBuf> = req.paths.iter().map(PathBuf::from).collect();
        let index = self
            .writable_index()
            .and_then(|at| api::open_index(at.as_deref()).ok())
            .map(Mutex::new);
        Ok(api::tune(
            &paths,
            &base,
            &settings,
            &req.filter,
            index.as_ref(),
            &super::token_cache,
            progress,
            cancel,
        )?)
    }

    /// Every message under `paths` (the default folders when empty) matching `query`, with
    /// the problems met on the way: through the index brought up to date first, or, without a
    /// usable index, by reading and scanning every session (which finds the same). A bad
    /// query is an error either way.
    pub fn search(
        &self,
        paths: &[PathBuf],
        query: &Query,
    ) -> Result<(Vec<Hit>, Vec<Problem>), Problem> {
        if let Some(at) = self.writable_index() {
            let given = self.given_kept();
            let done = api::with_index(at.as_deref(), |ix| {
                api::search_given(ix, paths, query, &DiagnoseOptions::default(), &given)
            });
            match done {
                Ok(((hits, report), notices)) => {
                    notices.into_iter().for_each(|n| self.say(n));
                    return Ok((hits, report.problems));
                }
                Err(e) if e.code() == ErrorCode::Invalid => return Err(e.into()),
                Err(e) => self.say(format!(
                    "searched without the index, which cannot be used: {e}"
                )),
            }
        }
        Ok(api::search_unindexed(paths, query)?)
    }

    /// The sessions under `path`, newest first: from the index when it lists `path` as it is
    /// (listing a 2 GB transcript reads it), else from the files.
    pub fn list(&self, path: &Path) -> Result<api::SessionList, Problem> {
        let listed: Result<api::SessionList, Error> = match self.index {
            IndexUse::Off => api::list_sessions(path),
            _ => api::list_sessions_indexed(path),
        };
        Ok(listed?)
    }

    /// The index a fleet view may update: the window's, the one a command names (made when
    /// missing), or one that exists (`None` inside: its default place); none with
    /// [`IndexUse::Off`].
    fn writable_index(&self) -> Option<Option<PathBuf>> {
        match &self.index {
            IndexUse::Off => None,
            IndexUse::Kept => Some(None),
            IndexUse::Asked(at) => Some(at.clone()),
            IndexUse::Existing(at) => super::indexing::existing_file(at).map(Some),
        }
    }
}
