//! Every view's data, in one home: what the window draws and what the CLI's `--json` prints are
//! these same types (keys named in the issues that asked for them are kept; new ones are added,
//! never renamed). A view of one session is reached through one function of the session service
//! ([`crate::service::SessionService`]), which the app command and the CLI subcommand of the
//! same name call; it answers from the index when the index holds the file as it is
//! (`service::cache`), else makes the view with the `api` function named here:
//!
//! | view | type | service | made by |
//! |---|---|---|---|
//! | sidebar sources | [`SourceGroup`] | — | `api::source_group` |
//! | timeline | [`timeline::Timeline`] ([`timeline::TimelineRow`]) | `timeline`, `page`, `first_page` | `api::timeline`, `api::timeline_first_lines` |
//! | message in the inspector | [`MessageDetail`] | `message` | `api::message_detail` |
//! | every message | [`crate::model::Message`]s | `messages` | `api::load_session` |
//! | cuts | [`cuts::SessionCuts`] (the window takes [`cuts::CutsBrief`], then one opened [`cuts::CutDetail`]: `SessionCuts::cut`) | `cut_view` | `api::session_cuts` (`compactions` and `lint` print its parts: `api::compactions_of`, `api::lint_of`) |
//! | requests | [`cuts::RequestView`], [`RecordedSet`] | `request_view`, `request_context`, `recorded` | `api::request_view`, `api::request_context`, `api::recorded` |
//! | replay panel | [`panels::ReplayPanel`] | `session` | `api::replay_panel` |
//! | simulation | [`panels::SimulationSummary`] | `session` | `api::replay_summary` |
//! | sweep | [`panels::SweepView`] (the CLI prints its grid) | `sweep` (goose's from the digests the index keeps) | `api::replay_sweep`, then `api::sweep_view` |
//! | tokens | `views::tokens::TokenView` (the window's; the CLI prints the whole `TokenReport`) | `token_report` | `api::token_report`, then `views::tokens::shown` |
//! | token charts | [`panels::TokenCharts`] (of `views::tokens::TokenReport`) | `token_report` | `api::token_charts` |
//! | diagnosis | `analysis::Diagnosis` | `diagnosis` | `api::diagnose` |
//! | spill files | `analysis::SpillReview`, `analysis::SpillEntry` | `spills`, `spill_text` | `api::spills`, `api::spill_text` |
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
