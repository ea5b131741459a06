//! Every view's data, in one home: what the window draws and what the CLI's `--json` prints are
//! these same types (keys named in the issues that asked for them are kept; new ones are added,
//! never renamed). Each view is made by one function of [`crate::api`], which the app command
//! and the CLI subcommand of the same name call:
//!
//! | view | type | made by |
//! |---|---|---|
//! | sidebar sources | [`SourceGroup`] | `api::source_group` |
//! | timeline | [`timeline::Timeline`] ([`timeline::TimelineRow`]) | `api::timeline`, `api::timeline_indexed`, `api::timeline_first_lines` |
//! | message in the inspector | [`MessageDetail`] | `api::message_detail`, `api::message_indexed` |
//! | cuts | [`cuts::SessionCuts`] (the window takes [`cuts::CutsBrief`], then one opened [`cuts::CutDetail`]: `SessionCuts::cut`) | `api::session_cuts`, `api::cut_view_indexed` (`compactions` and `lint` print its parts: `api::compactions_of`, `api::lint_of`) |
//! | requests | [`cuts::RequestView`], [`RecordedSet`] | `api::request_view`, `api::recorded` |
//! | replay panel | [`panels::ReplayPanel`] | `api::replay_panel` |
//! | simulation | [`panels::SimulationSummary`] | `api::replay_summary` |
//! | sweep | [`panels::SweepView`] | `api::replay_sweep_view_indexed` |
//! | tokens | `views::tokens::TokenView` (the window's; the CLI prints the whole `TokenReport`) | `api::token_report`, `api::token_report_indexed`, then `views::tokens::shown` |
//! | token charts | [`panels::TokenCharts`] (of `views::tokens::TokenReport`) | `api::token_charts`, `api::token_report` |
//! | diagnosis | `analysis::Diagnosis` | `api::diagnose`, `api::diagnosis_indexed` |
//!
//! The cut views, the token report and the diagnosis are their modules' results, shown as they
//! are and named here; the rest are defined here and reshape what the concern modules computed. Nothing here
//! depends on `api` or `rpc`: `rpc` names these types for the app's commands, `api` makes them.

mod message;
pub mod panels;
mod recorded;
mod sources;

pub use message::MessageDetail;
/// The views the index keeps too, made in the analysis crate.
pub use palimpsest_analysis::views::{cuts, timeline, tokens};
pub use recorded::RecordedSet;
pub use sources::{SourceGroup, SourceOrigin};
