//! The views over many sessions, through the same service: the fleet table and search. Each
//! brings the index up to date for the paths asked (taking the session the window keeps
//! instead of reading its file again) and answers from it; without a usable index, or when
//! told not to use one, every session is read and the same answer made from the files.

use std::path::{Path, PathBuf};

use super::{IndexUse, SessionService};
use crate::analysis::Fleet;
use crate::api::{self, DiagnoseOptions};
use crate::error::{Error, ErrorCode, Problem};
use crate::index::search::{Hit, Query};

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
