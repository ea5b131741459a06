//! What a simulation is asked ([`Policy`], [`SimParams`]) and what it answers ([`Simulation`]:
//! requests, compactions with the fate of each file read, totals). Plain data: running the
//! policies is `simulate`'s and its `run_*` modules'; the app receives these types as they are.

use serde::{Deserialize, Serialize};

use crate::replay::coworker as cw;

/// Which policy to simulate, with its settings.
#[derive(Debug, Clone, PartialEq)]
pub enum Policy {
    /// goose: threshold over the context limit, once per user turn; and a recovery inside the
    /// tool loop when a request exceeds the limit itself.
    Goose {
        /// The keep-tail rule.
        rule: crate::replay::goose::Rule,
        /// Continuation wording.
        wording: crate::replay::goose::Wording,
        /// Auto-compact threshold (0.8); `<= 0` or `>= 1` disables it.
        threshold: f64,
        /// Context limit in tokens.
        context_limit: u64,
    },
    /// coworker: trigger before every model call.
    Coworker(cw::Settings),
    /// OpenCode: the usable window reached before a request; a budgeted tail of turns kept.
    OpenCode(crate::replay::opencode::Settings),
    /// Gemini CLI: the last prompt past a fraction of the window; a fraction of the history
    /// kept.
    Gemini(crate::replay::gemini::Settings),
}

/// What a simulation is asked to do.
#[derive(Debug, Clone, PartialEq)]
pub struct SimParams {
    /// The policy.
    pub policy: Policy,
    /// Size of placeholder summaries, in tokens.
    pub summary_tokens: u64,
    /// Keep per-request and per-compaction detail (the sweep only needs totals).
    pub detail: bool,
    /// Also compact where the session recorded a compaction (goose, OpenCode and Gemini),
    /// beside the policy's own triggers.
    pub at_recorded: bool,
}

/// One model request of the replay.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Request {
    /// Stored index of the assistant message the request produced.
    pub source_index: usize,
    /// Tokens in context for the request.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub context_tokens: u64,
}

/// What became of one file's latest read at a cut.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct FileFate {
    /// The path as the call named it.
    pub path: String,
    /// Stored index of the result carrying the latest read.
    pub read_index: usize,
    /// Still in context verbatim after the cut (else only the summary has it).
    pub verbatim: bool,
}

/// One simulated compaction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct SimCompaction {
    /// Index into `requests` of the request it preceded (goose: the user turn's first).
    pub request: usize,
    /// Stored index of the last message in context when it fired.
    pub at_index: usize,
    /// Stored index of the first original kept verbatim (`None`: everything summarised).
    pub cut_index: Option<usize>,
    /// Stored indices of the originals kept verbatim, in order.
    pub kept_tail: Vec<usize>,
    /// goose: stored index of the preserved user message.
    pub preserved_index: Option<usize>,
    /// goose: a preserved copy was appended.
    pub preserved_appended: bool,
    /// coworker: user messages carried in the block, and those omitted so far.
    #[cfg_attr(feature = "ts", ts(type = "[number, number] | null"))]
    pub user_messages: Option<(usize, u64)>,
    /// Context tokens just before.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub tokens_before: u64,
    /// Context tokens just after.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub tokens_after: u64,
    /// The recorded summary was used (the session compacted here too).
    pub recorded_summary: bool,
    /// Tool results this cut left without their call.
    pub orphans: usize,
    /// Every file read so far: did its latest read survive verbatim?
    pub files: Vec<FileFate>,
    /// goose: fired inside the tool loop because the request would not fit the context limit
    /// (the provider's "context length exceeded"), not at the user turn's threshold check.
    #[serde(default)]
    pub recovery: bool,
}

/// Totals over a simulation.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Totals {
    /// Model requests.
    pub requests: usize,
    /// Compactions fired.
    pub compactions: usize,
    /// Sum of context tokens over requests.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub tokens_processed: u64,
    /// Largest context of any request.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub peak_context: u64,
    /// Mean context right after a compaction (0 without compactions).
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub mean_tokens_after: u64,
    /// Tool results left without their call, each counted once.
    pub orphans: usize,
    /// Distinct files read.
    pub files_read: usize,
    /// Cuts after which the most recently read file was still there verbatim.
    pub last_read_kept: usize,
    /// Cuts at which some file had been read (the denominator of `last_read_kept`).
    pub last_read_cuts: usize,
    /// goose: requests still over the context limit after a recovery compaction, where goose
    /// stops the session ("context length exceeded even after compaction").
    #[serde(default)]
    pub gave_up: usize,
}

/// A whole simulated run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Simulation {
    /// Per request (empty unless `detail`).
    pub requests: Vec<Request>,
    /// Per compaction (empty unless `detail`).
    pub compactions: Vec<SimCompaction>,
    /// Totals.
    pub totals: Totals,
    /// ≈ what this setting would have cost beside what the session did cost (`api` fills it
    /// for a session with recorded usage; the sweep leaves it out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<crate::cost::setting::SettingCost>,
}
