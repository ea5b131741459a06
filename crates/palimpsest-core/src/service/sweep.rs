//! The sweep of one session over a grid of settings, for the Replay tab (around its setting)
//! and `palimpsest sweep` (the user's grid) alike. goose's keep-tail sweep is answered from the
//! digests the index keeps when the file is as they were made of (no parse, no count: what a
//! second sweep of a 200 MB transcript costs is the sweep), else from the session, whose
//! digests are then kept. What a sweep computes is `replay::options`'; drawing it is
//! `views::panels`'.

use std::path::Path;
use std::sync::Arc;

use super::SessionService;
use crate::index::digests::stamp_of;
use crate::index::fingerprint::Fingerprint;
use crate::model::Session;
use crate::replay::digest::Digest;
use crate::replay::options::{PolicyName, ReplayOptions, goose_digests, sweep_digests};
use crate::replay::sweep::{Axis, Metric, SweepGrid};
use crate::rpc::IpcError;
use crate::views::panels::default_axes;

/// What a sweep is asked: the policy and its setting, the grid (`None`: the Replay tab's
/// grid around the setting, [`crate::views::panels::default_axes`]) and the metric.
#[derive(Debug, Clone)]
pub struct SweepAsk {
    /// The policy and the settings the grid does not vary.
    pub opts: ReplayOptions,
    /// Rows (keep-tail or trigger caps) and columns (tool-result caps).
    pub grid: Option<(Axis, Axis)>,
    /// What each cell measures.
    pub metric: Metric,
}

/// A sweep's answer.
#[derive(Debug, Clone)]
pub struct Swept {
    /// The grid.
    pub grid: SweepGrid,
    /// The session's name (the heatmap's title).
    pub name: String,
    /// True when it was swept from the index's digests, without reading the file.
    pub from_index: bool,
}

impl SessionService {
    /// The sweep `ask` of session `id` under `path`. Digests made on the way are kept when the
    /// session swept is what the file holds now (a copy read before the file grew must not be
    /// kept under the grown file's fingerprint).
    pub fn sweep(&self, path: &str, id: &str, ask: &SweepAsk) -> Result<Swept, IpcError> {
        let (rows, cols) = match (&ask.grid, self.loaded_now(path, id), ask.opts.policy) {
            (Some(g), _, _) => g.clone(),
            (None, Some(s), _) => default_axes(s.meta.context_limit, &ask.opts),
            // goose's, OpenCode's and Gemini's grids do not depend on the session; coworker's does (the
            // window), and it is never swept from digests.
            (None, None, PolicyName::Goose | PolicyName::OpenCode | PolicyName::Gemini) => {
                default_axes(None, &ask.opts)
            }
            (None, None, PolicyName::Coworker) => {
                default_axes(self.session(path, id)?.meta.context_limit, &ask.opts)
            }
        };
        let caps = match (&rows, &cols) {
            (Axis::KeepTail(_), Axis::ToolResultCap(c)) if ask.opts.policy == PolicyName::Goose => {
                c.clone()
            }
            _ => Vec::new(),
        };
        let file = Path::new(path);
        let stamp = stamp_of(file).filter(|_| !caps.is_empty());
        let sweep_of =
            |d: &[Digest]| sweep_digests(d, &ask.opts, rows.clone(), cols.clone(), ask.metric);
        if let Some(stamp) = &stamp
            && let Some(d) = self.ask_quietly(|ix| ix.digests(file, Some(id), stamp, &caps))
            && let Some(grid) = sweep_of(&d)
        {
            let name = d[0].name.clone();
            return Ok(Swept {
                grid,
                name,
                from_index: true,
            });
        }
        let session = self.session(path, id)?;
        let cache = super::token_cache();
        let grid = match stamp {
            Some(stamp) => {
                let digests = made(&session, &caps, cache.as_ref());
                // Kept only for what the file holds now: the copy swept as read from the file
                // as it is (this call's read, or the one `resolve` kept), else a copy the index
                // holds as the file is now (the window's, followed live).
                let as_read = self
                    .given(path, id)
                    .filter(|r| {
                        r.session
                            .upgrade()
                            .is_some_and(|s| Arc::ptr_eq(&s, &session))
                    })
                    .map(|r| r.print);
                let _ = self.ask_quietly(|ix| {
                    let holds = match &as_read {
                        Some(print) => {
                            Fingerprint::of(file).ok().as_ref() == Some(print)
                                && stamp_of(file).as_deref() == Some(stamp.as_str())
                        }
                        None => ix.holds_as_loaded(file, &session)?,
                    };
                    if holds {
                        ix.save_digests(file, id, &stamp, &digests)?;
                    }
                    Ok(Some(()))
                });
                sweep_of(&digests)
            }
            None => None,
        }
        .unwrap_or_else(|| {
            crate::api::replay_sweep(&session, &ask.opts, rows, cols, ask.metric, cache.as_ref())
        });
        Ok(Swept {
            grid,
            name: session.meta.name.clone(),
            from_index: false,
        })
    }
}

/// goose's digests of `session` at `caps`, counted as every replay counts.
fn made(
    session: &Session,
    caps: &[usize],
    cache: Option<&crate::tokens::TokenCache>,
) -> Vec<Digest> {
    let counter = crate::api::replay_counter(session, cache);
    let encoding = crate::tokens::bpe::Encoding::for_model(session.meta.model.as_deref());
    goose_digests(session, caps, encoding.as_str(), &counter)
}
