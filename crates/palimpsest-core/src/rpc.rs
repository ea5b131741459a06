//! The app's command surface, declared once: every command's name, request and response type.
//!
//! `with_commands!` is the single list. The app (`src-tauri`) expands it into its
//! `generate_handler!` registration and a compile-time check that each command function has
//! exactly the declared signature; with the `ts` feature, [`Commands`] is generated from the same
//! list into `ui/src/bindings/Commands.ts`, so `ui/src/ipc.ts` can offer a typed
//! `call(cmd, req)` and a misspelt command or a wrong request fails to type-check. The events
//! the app emits are listed the same way (`with_events!`, [`Events`], `onEvent`). The command
//! bodies live in the app and only call [`crate::api`]; nothing here does any work.

use serde::{Deserialize, Serialize};

mod compare;
mod markdown;
mod recorded;
mod report;
mod search;
pub use compare::CompareRunsReq;
pub use markdown::{GetMarkdownReq, MarkdownOf};
pub use recorded::GetRecordedReq;
pub use report::ExportReportReq;
pub use search::SearchReq;

/// Calls `$m! { name(Req) -> Res, ... }` with every app command.
#[macro_export]
macro_rules! with_commands {
    ($m:ident) => {
        $m! {
            list_sources($crate::rpc::ListSourcesReq) -> Vec<$crate::views::SourceGroup>,
            open_path($crate::rpc::OpenPathReq) -> $crate::views::SourceGroup,
            load_source($crate::rpc::LoadSourceReq) -> $crate::views::SourceGroup,
            get_timeline($crate::rpc::GetTimelineReq) -> $crate::views::timeline::Timeline,
            get_message($crate::rpc::GetMessageReq) -> $crate::views::MessageDetail,
            count_tokens($crate::rpc::CountTokensReq) -> $crate::views::tokens::TokenView,
            cancel_tokens($crate::rpc::CancelTokensReq) -> bool,
            token_charts($crate::rpc::TokenChartsReq) -> $crate::views::panels::TokenCharts,
            replay_panel($crate::rpc::ReplayReq) -> $crate::views::panels::ReplayPanel,
            replay_summary($crate::rpc::ReplayReq) -> $crate::views::panels::SimulationSummary,
            replay_sweep($crate::rpc::ReplaySweepReq) -> $crate::views::panels::SweepView,
            diagnose($crate::rpc::DiagnoseReq) -> $crate::analysis::Diagnosis,
            diagnose_fleet($crate::rpc::DiagnoseFleetReq) -> $crate::analysis::Fleet,
            cancel_fleet($crate::rpc::CancelFleetReq) -> bool,
            tune($crate::rpc::TuneReq) -> $crate::api::TuneView,
            cancel_tune($crate::rpc::CancelTuneReq) -> bool,
            spills($crate::rpc::SpillsReq) -> $crate::analysis::SpillReview,
            spill_text($crate::rpc::SpillTextReq) -> $crate::analysis::SpillEntry,
            open_spill_anyway($crate::rpc::OpenSpillAnywayReq) -> $crate::analysis::SpillEntry,
            get_cuts($crate::rpc::GetCutsReq) -> $crate::views::cuts::CutsBrief,
            get_cut($crate::rpc::GetCutReq) -> $crate::views::cuts::CutDetail,
            get_request($crate::rpc::GetRequestReq) -> $crate::views::cuts::RequestView,
            get_markdown($crate::rpc::GetMarkdownReq) -> String,
            get_recorded($crate::rpc::GetRecordedReq) -> $crate::views::RecordedSet,
            export_report($crate::rpc::ExportReportReq) -> String,
            compare_runs($crate::rpc::CompareRunsReq) -> $crate::compare::CompareView,
            bundled_examples($crate::rpc::BundledExamplesReq) -> Option<String>,
            about($crate::rpc::AboutReq) -> $crate::api::About,
            search($crate::rpc::SearchReq) -> Vec<$crate::index::search::Hit>,
            set_alerts($crate::rpc::SetAlertsReq) -> $crate::analysis::alerts::AlertRules,
        }
    };
}

/// Calls `$m! { name = "wire-name" (Payload), ... }` with every event the app emits.
#[macro_export]
macro_rules! with_events {
    ($m:ident) => {
        $m! {
            task_progress = "task-progress" ($crate::rpc::TaskProgress),
            live = "live" (Vec<$crate::follow::LiveEvent>),
            alerts = "alerts" (Vec<$crate::watch::Alert>),
            open_alert = "open-alert" ($crate::watch::Alert),
            fleet_rows = "fleet-rows" (Vec<$crate::watch::FleetUpdate>),
        }
    };
}

/// Declares the [`Events`] struct and the [`event`] names.
macro_rules! declare_events {
    ( $( $name:ident = $wire:literal ( $payload:ty ) ),* $(,)? ) => {
        /// Every event the app emits to the window as `"wire-name": payload`; exported to
        /// TypeScript as the `Events` map that `ui/src/ipc.ts` types `onEvent` with, so a
        /// misspelt event or a wrong payload fails to type-check. Never constructed.
        #[derive(Debug, Clone, Serialize)]
        #[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
        pub struct Events {
            $(
                #[allow(missing_docs)]
                #[serde(rename = $wire)]
                pub $name: $payload,
            )*
        }

        /// The events' names as the app emits them (the keys of [`Events`]).
        #[allow(non_upper_case_globals)]
        pub mod event {
            $(
                #[allow(missing_docs)]
                pub const $name: &str = $wire;
            )*
        }
    };
}
with_events!(declare_events);

/// Declares the [`Commands`] struct (one field per command: `(request, response)`).
macro_rules! declare_commands {
    ( $( $name:ident ( $req:ty ) -> $res:ty ),* $(,)? ) => {
        /// Every app command as `name: (request, response)`; exported to TypeScript as the
        /// `Commands` map that `ui/src/ipc.ts` types `call` with. Never constructed.
        #[derive(Debug, Clone, Serialize)]
        #[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
        pub struct Commands {
            $(
                #[allow(missing_docs)]
                pub $name: ($req, $res),
            )*
        }
    };
}
with_commands!(declare_commands);

/// Request of `list_sources`: the sources the app opens on start (path argument, else every
/// agent family's default folder that exists, else the bundled fixtures), counted but not yet
/// listed (`loaded: false`); `load_source` lists each. It has no parameters.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct ListSourcesReq {}

/// Request of `load_source`: the sessions of one source `list_sources` returned. Each source
/// is listed by its own call, so a slow or broken folder never holds up the others.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct LoadSourceReq {
    /// `SourceGroup::path` as `list_sources` gave it.
    pub path: String,
}

/// Request of `open_path`: a file or folder chosen with File › Open or dropped on the window.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct OpenPathReq {
    /// Absolute path of a database, a session file or a folder.
    pub path: String,
}

/// Request of `get_timeline`: one session's rows.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct GetTimelineReq {
    /// The source path the session was listed under (`SourceGroup::path`).
    pub path: String,
    /// The session id.
    pub id: String,
    /// The first row to send (0: the session is read, or looked up in the index, afresh).
    #[serde(default)]
    pub from: usize,
    /// At most this many rows (none: every row from `from` on). The window asks for its first
    /// screen, then the rest in pages, so a 200 MB session's rows need not cross the IPC at once.
    #[serde(default)]
    pub limit: Option<usize>,
    /// With `from` 0: the rows of the session read whole, waiting for that read, never the
    /// index's rows of a file that grew since it was indexed (what the window asks for once it
    /// shows those, [`crate::views::timeline::Timeline::grown_bytes`]).
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub whole: Option<bool>,
}

/// Request of `get_message`: one whole message and its stored text.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct GetMessageReq {
    /// The source path.
    pub path: String,
    /// The session id.
    pub id: String,
    /// `Message::index`.
    pub index: usize,
    /// Also read the stored text (the raw view). Off while browsing: for big files the
    /// source may have to re-read the file to find one row, so it is fetched on demand.
    #[serde(default)]
    pub raw: bool,
}

/// Request of `diagnose`: the post-mortem of one session.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct DiagnoseReq {
    /// The source path.
    pub path: String,
    /// The session id.
    pub id: String,
}

/// Request of `diagnose_fleet`: every session under a source, diagnosed (progress goes out as
/// [`TaskProgress`] events of task `fleet`, in sessions; `cancel_fleet` stops it).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct DiagnoseFleetReq {
    /// The source path.
    pub path: String,
}

/// Request of `cancel_fleet`: stop the fleet's update in progress (it answers `cancelled`;
/// what was indexed so far is kept). Returns whether one was running.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct CancelFleetReq {}

/// Request of `tune`: every session under `paths` replayed at every setting of `grid`
/// (`tune --grid`'s words; the policy's own grid when empty), the fleet's answer counting the
/// sessions `filter` keeps. Progress comes as `task-progress` events of task `tune`, its id the
/// paths joined by newlines.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct TuneReq {
    /// Source paths (folders, homes, files).
    pub paths: Vec<String>,
    /// The policy replayed.
    pub policy: crate::replay::options::PolicyName,
    /// `NAME=VALUES` words, as `tune --grid` takes them.
    #[serde(default)]
    pub grid: Vec<String>,
    /// Compact where each session compacted as well as where the policy's trigger fires
    /// (`tune --trigger recorded`, its default).
    #[serde(default)]
    pub at_recorded: bool,
    /// goose: slice the tail without the walk (`tune --naive`).
    #[serde(default)]
    pub naive: bool,
    /// Which sessions count.
    #[serde(default)]
    pub filter: crate::api::TuneFilter,
}

impl TuneReq {
    /// The `task-progress` id of this request's progress.
    pub fn progress_id(&self) -> String {
        self.paths.join("\n")
    }
}

/// Request of `cancel_tune`: stop the tuning in progress (it answers `cancelled`; the sessions
/// tuned so far are kept in the index). Returns whether one was running.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct CancelTuneReq {}

/// Request of `spills`: every spill file of one session (no file is read).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct SpillsReq {
    /// The source path.
    pub path: String,
    /// The session id.
    pub id: String,
    /// Folders the user confirmed trusting for this session (a suggested root, such as the
    /// recorded working directory), beyond the session's own.
    #[serde(default)]
    pub roots: Vec<String>,
}

/// Request of `set_alerts`: whether the live follower raises alerts on the sessions it follows
/// (each sent to the window as an `alerts` event), at which thresholds, and whether each is
/// also a desktop notification (off: quiet). Returns the thresholds in effect (the window's
/// settings start from them). A new setting starts judging afresh: each session is judged
/// against its state at its next change.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct SetAlertsReq {
    /// Raise alerts at all.
    pub on: bool,
    /// Also as desktop notifications (a click opens the session at the message).
    pub notify: bool,
    /// The thresholds (the post-mortem's own when absent).
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub rules: Option<crate::analysis::alerts::AlertRules>,
}

/// Request of `bundled_examples`: where the fixtures bundled with Palimpsest are, if anywhere
/// (offered when no agent folder holds a session).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct BundledExamplesReq {}

/// Request of `about`: the version and commit the app was built from (the About dialog).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct AboutReq {}

/// Request of `spill_text`: one spill file inside the session's folders, with its text.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct SpillTextReq {
    /// The source path.
    pub path: String,
    /// The session id.
    pub id: String,
    /// Folders the user confirmed trusting for this session (a suggested root, such as the
    /// recorded working directory), beyond the session's own.
    #[serde(default)]
    pub roots: Vec<String>,
    /// The spill file's resolved path, as `spills` listed it.
    pub file: String,
}

/// Request of `open_spill_anyway`: a spill file outside the session's folders, which the user
/// confirmed opening by clicking "Open anyway: /full/path".
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct OpenSpillAnywayReq {
    /// The source path.
    pub path: String,
    /// The session id.
    pub id: String,
    /// Folders the user confirmed trusting for this session (a suggested root, such as the
    /// recorded working directory), beyond the session's own.
    #[serde(default)]
    pub roots: Vec<String>,
    /// The spill file's resolved path, as `spills` listed it.
    pub file: String,
    /// The full path the user confirmed; must equal `file`.
    pub confirmed_path: String,
}

/// Request of `count_tokens`: count one session's tokens (cached; progress goes out as
/// [`TaskProgress`] events, `cancel_tokens` stops it) and build the Tokens view.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct CountTokensReq {
    /// The source path.
    pub path: String,
    /// The session id.
    pub id: String,
    /// The vocabulary; `null` picks it from the session's model.
    pub encoding: Option<crate::tokens::Encoding>,
}

/// Request of `cancel_tokens`: stop the count in progress (it answers `cancelled`). Returns
/// whether one was running.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct CancelTokensReq {}

/// Request of `token_charts`: draw session `id`'s Tokens view in a theme, from the report
/// `count_tokens` made for the same encoding (kept in the app: the window never sends a
/// report of megabytes back).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct TokenChartsReq {
    /// The source path.
    pub path: String,
    /// The session id.
    pub id: String,
    /// The vocabulary, as asked of `count_tokens`.
    pub encoding: Option<crate::tokens::Encoding>,
    /// Light or dark, as the system is.
    pub theme: crate::charts::ThemeName,
}

/// Request of `replay_panel` and `replay_summary`: one session under one replay setting.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct ReplayReq {
    /// The source path.
    pub path: String,
    /// The session id.
    pub id: String,
    /// The setting.
    pub options: crate::replay::options::ReplayOptions,
}

/// Request of `replay_sweep`: the panel's default grid around a setting, one metric.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct ReplaySweepReq {
    /// The source path.
    pub path: String,
    /// The session id.
    pub id: String,
    /// The setting the other knobs keep.
    pub options: crate::replay::options::ReplayOptions,
    /// What the cells show.
    pub metric: crate::replay::sweep::Metric,
    /// Heatmap theme.
    pub theme: crate::charts::ThemeName,
}

/// The event `count_tokens` emits as counting advances (event name `task-progress`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct TaskProgress {
    /// Which work: `tokens`.
    pub task: String,
    /// The session being worked on.
    pub id: String,
    /// How far it has got.
    pub progress: crate::tokens::Progress,
}

/// Request of `get_cuts`: every compaction of a session as the ribbon and the cut rules draw
/// it (without its summary's text and its files' fates: `get_cut`), its requests, and its
/// pairing lint under both APIs.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct GetCutsReq {
    /// The source path.
    pub path: String,
    /// The session id.
    pub id: String,
}

/// Request of `get_cut`: one compaction whole, as the opened cut view draws it (three columns,
/// the summary's text, file fates).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct GetCutReq {
    /// The source path.
    pub path: String,
    /// The session id.
    pub id: String,
    /// The cut's position in the session's compactions (0-based).
    pub cut: usize,
}

/// Request of `get_request`: what the model saw at one request, with its pairing findings.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct GetRequestReq {
    /// The source path.
    pub path: String,
    /// The session id.
    pub id: String,
    /// The request number, 1-based; the last one is the request the agent would send next.
    pub request: usize,
}

pub use crate::error::ErrorCode;

/// Every command's error: `{code, message}`, the message naming the file. The same type as a
/// listing's problems ([`crate::error::Problem`]): one `{code, message}` for the window.
pub type IpcError = crate::error::Problem;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_core_error_code_has_its_own_ipc_code() {
        let io = crate::Error::io(
            "/x/sessions.db",
            std::io::Error::from(std::io::ErrorKind::NotFound),
        );
        let e = IpcError::from(io);
        assert_eq!(
            e.code,
            ErrorCode::NotFound,
            "a missing file must reach the UI as not_found, not internal"
        );
        assert!(
            e.message.contains("/x/sessions.db"),
            "the message names the file: {}",
            e.message
        );
    }
}
