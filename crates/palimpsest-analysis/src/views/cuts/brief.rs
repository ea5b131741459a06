//! The cut view as the window first takes it: every cut without its summary's text and its
//! files' fates ([`CutsBrief`]), and one cut whole when it is opened ([`SessionCuts::cut`]).
//!
//! The ribbon, the cut rules, the Requests tab and the badges draw from the shape of every cut;
//! only the opened cut shows its summary and what became of each file. On a 200 MB transcript
//! with 76 cuts those two made 1.8 MB of the 3.2 MB the window received whenever the session
//! was opened or grew, every summary parsed and held by the page though at most one is shown.
//! What the cut view holds and how it is made stay with [`super`].

use serde::{Deserialize, Serialize};

use super::{ClearedResult, CutDetail, FileCarrier, SessionCuts};
use crate::compaction::anatomy::CompactionAnatomy;
use crate::compaction::context::RequestInfo;
use crate::compaction::health::HealthProfile;
use crate::compaction::lint::LintReport;
use crate::error::{Error, Result};

/// One compaction as the ribbon and the cut rules draw it: its [`CutDetail`] without
/// `summary_text` and `files`, which the window asks for when the cut is opened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct CutBrief {
    /// As in [`CutDetail::anatomy`].
    pub anatomy: CompactionAnatomy,
    /// As in [`CutDetail::dropped`].
    pub dropped: Vec<usize>,
    /// As in [`CutDetail::cleared`].
    pub cleared: Vec<ClearedResult>,
    /// As in [`CutDetail::tokens_saved_recorded`].
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub tokens_saved_recorded: Option<u64>,
    /// As in [`CutDetail::tokens_saved_counted`].
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub tokens_saved_counted: u64,
    /// As in [`CutDetail::kept`].
    pub kept: Vec<usize>,
}

/// A session's [`SessionCuts`] with each cut as a [`CutBrief`]: what the window asks for
/// when a session is opened or grows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct CutsBrief {
    /// Every compaction, by cut.
    pub cuts: Vec<CutBrief>,
    /// As in [`SessionCuts::requests`].
    pub requests: Vec<RequestInfo>,
    /// As in [`SessionCuts::profile`].
    pub profile: HealthProfile,
    /// As in [`SessionCuts::carriers`].
    pub carriers: Vec<FileCarrier>,
    /// As in [`SessionCuts::lint`].
    pub lint: Vec<LintReport>,
}

impl From<&CutDetail> for CutBrief {
    fn from(c: &CutDetail) -> Self {
        // Every field named, so a field added to the whole cut is placed here or left out on
        // purpose, never dropped unseen.
        let CutDetail {
            anatomy,
            dropped,
            cleared,
            tokens_saved_recorded,
            tokens_saved_counted,
            kept,
            summary_text: _,
            files: _,
        } = c;
        CutBrief {
            anatomy: anatomy.clone(),
            dropped: dropped.clone(),
            cleared: cleared.clone(),
            tokens_saved_recorded: *tokens_saved_recorded,
            tokens_saved_counted: *tokens_saved_counted,
            kept: kept.clone(),
        }
    }
}

/// Made from a borrowed view: the app keeps a loaded session's whole view for the cut opened
/// next, so the brief copies what it shows and not the summaries and fates it leaves out.
impl From<&SessionCuts> for CutsBrief {
    fn from(s: &SessionCuts) -> Self {
        CutsBrief {
            cuts: s.cuts.iter().map(CutBrief::from).collect(),
            requests: s.requests.clone(),
            profile: s.profile.clone(),
            carriers: s.carriers.clone(),
            lint: s.lint.clone(),
        }
    }
}

impl SessionCuts {
    /// The cut at `ordinal` (0-based, in cut order) of session `id` whole, as an opened cut
    /// shows it; past the last, an error saying how many cuts the session holds.
    pub fn cut(&self, id: &str, ordinal: usize) -> Result<CutDetail> {
        self.cuts.get(ordinal).cloned().ok_or_else(|| {
            Error::OutOfRange(format!(
                "session `{id}` has no cut {} (it holds {})",
                ordinal + 1,
                self.cuts.len()
            ))
        })
    }
}
