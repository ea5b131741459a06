//! The sidebar's view: each source (a path given, a default folder, the bundled fixtures, one
//! opened) with the sessions found under it and what failed to open there. Made by
//! [`crate::api::source_group`].

use serde::{Deserialize, Serialize};

use crate::error::Problem;
use crate::model::SessionMeta;

/// Where a source in the sidebar came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "snake_case")]
pub enum SourceOrigin {
    /// The path given on the command line.
    Argument,
    /// An agent family's default folder on this machine ([`SourceGroup::family`] says which).
    Default,
    /// The fixtures bundled with Palimpsest (shown when the user has no sessions).
    Fixtures,
    /// Opened with File › Open or dropped on the window.
    Opened,
}

/// One source in the sidebar: a path and the sessions found under it.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct SourceGroup {
    /// Short name for the sidebar ("goose", "fixtures", the file name...).
    pub label: String,
    /// The path, as `get_timeline` wants it back.
    pub path: String,
    /// Where it came from.
    pub origin: SourceOrigin,
    /// The agent family: the default folder's, else the one most sessions found there belong
    /// to; `null` when none is known yet (a path not listed yet, or holding no session).
    #[serde(default)]
    pub family: Option<crate::model::Family>,
    /// Sessions there, counted without reading them (file names, database rows) before the
    /// listing is in; once `loaded`, `sessions.len()`. None when not counted yet.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub session_count: Option<usize>,
    /// False while only counted (`list_sources`), true once listed (`load_source`, `open_path`).
    #[serde(default)]
    pub loaded: bool,
    /// Sessions found, newest update first.
    pub sessions: Vec<SessionMeta>,
    /// What failed to open there (the path itself, or single files under it).
    pub problems: Vec<Problem>,
    /// Before the listing is in, the session to open first when the path is a file holding one
    /// conversation (its subagents' runs aside), named from its first lines: the listing of a
    /// 2 GB transcript reads the whole file, and the window need not wait for it to show the
    /// session. Left out otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub opens: Option<String>,
}
