//! The replay operations the CLI and the app share: options as the front ends pass them, and
//! the three operations on a loaded session (compact once, simulate, sweep). Defaults come from
//! the session (its context limit, its continuation wording) and then from the policies' own.
//! The policies' rules are `goose`, `coworker` and `simulate`'s; printing is the front ends'.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::defaults::DEFAULTS;
use super::digest::Digest;
use super::simulate::{Policy, Prepared, SimParams, Simulation, simulate};
use super::sweep::{Axis, Metric, SweepGrid, sweep, sweep_prepared};
use super::{Counter, ReplayedMessage, SummarySource, coworker as cw, goose, pairing};
use crate::model::{MessageKind, Role, Session};
use crate::sources::coworker::block::CompactionState;

/// Context limit when the session does not say (goose's and coworker's default).
pub const DEFAULT_CONTEXT: u64 = DEFAULTS.context_window;
/// Placeholder summary size when none is given.
pub const DEFAULT_SUMMARY_TOKENS: u64 = DEFAULTS.summary_tokens;
/// coworker's legacy summary size.
pub const LEGACY_SUMMARY_TOKENS: u64 = DEFAULTS.legacy_summary_tokens;

/// Which policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "snake_case")]
pub enum PolicyName {
    /// goose summarise-and-keep-tail.
    #[default]
    Goose,
    /// coworker boundary and compacted block.
    Coworker,
    /// OpenCode's budgeted tail of user turns, and its prune.
    #[serde(rename = "opencode")]
    OpenCode,
    /// Gemini CLI's (and Qwen Code's) kept fraction of the history.
    Gemini,
}

impl PolicyName {
    /// The name as the JSON and the command line spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            PolicyName::Goose => "goose",
            PolicyName::Coworker => "coworker",
            PolicyName::OpenCode => "opencode",
            PolicyName::Gemini => "gemini",
        }
    }
}

/// Every knob of a replay, as the front ends pass them (`None` = the default).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct ReplayOptions {
    /// The policy.
    pub policy: PolicyName,
    /// goose keep-tail K.
    pub keep_tail: usize,
    /// goose: slice the tail without the walk.
    pub naive: bool,
    /// goose: a `/compact` (nothing preserved).
    pub manual: bool,
    /// Context window / limit in tokens (else the session's, else 128 000).
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub context_window: Option<u64>,
    /// Threshold fraction (0.8).
    pub threshold: Option<f64>,
    /// coworker trigger cap (250 000).
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub trigger_cap: Option<u64>,
    /// Tool-result cap on arrival, bytes (coworker: 10 000; goose: off); 0 = off.
    pub tool_result_cap: Option<usize>,
    /// Placeholder summary size in tokens.
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub summary_tokens: Option<u64>,
    /// coworker legacy rules.
    pub legacy: bool,
    /// goose variant (not goose's own rule): the preserved ask skips earlier summaries.
    #[serde(default)]
    pub skip_summaries: bool,
    /// OpenCode `tail_turns`: user turns kept verbatim (else 2).
    #[serde(default)]
    pub tail_turns: Option<usize>,
    /// OpenCode `preserve_recent_tokens`: the kept tail's budget (else a quarter of the usable
    /// window, 2 000–8 000).
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub preserve_tokens: Option<u64>,
    /// Gemini: the fraction of the history kept verbatim (else 0.3).
    #[serde(default)]
    pub preserve_fraction: Option<f64>,
    /// Gemini: function-response tokens kept whole in the compressed history, 0 = no budget
    /// (else 50 000 for Gemini CLI, none for Qwen Code).
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub response_budget: Option<u64>,
    /// goose, OpenCode and Gemini: also compact where the session recorded a compaction (a
    /// fleet tuned at its own compaction points), beside the policy's own triggers.
    #[serde(default)]
    pub at_recorded: bool,
}

impl ReplayOptions {
    fn window(&self, s: &Session) -> u64 {
        self.context_window
            .or(s.meta.context_limit)
            .unwrap_or(DEFAULT_CONTEXT)
    }

    fn rule(&self) -> goose::Rule {
        goose::Rule {
            keep_tail: self.keep_tail,
            naive: self.naive,
            manual: self.manual,
            skip_summaries: self.skip_summaries,
        }
    }

    /// coworker's knobs for a session: these options, else the session's window, else defaults.
    pub fn settings(&self, s: &Session) -> cw::Settings {
        cw::Settings {
            threshold: self.threshold.unwrap_or(DEFAULTS.threshold),
            window: self.window(s),
            cap: self.trigger_cap.unwrap_or(DEFAULTS.trigger_cap),
            legacy: self.legacy,
        }
    }

    /// OpenCode's knobs for a session: these options, else the session's window, else
    /// OpenCode's defaults.
    pub fn opencode_settings(&self, s: &Session) -> super::opencode::Settings {
        super::opencode::Settings {
            tail_turns: self
                .tail_turns
                .unwrap_or(super::opencode::DEFAULT_TAIL_TURNS),
            preserve_tokens: self.preserve_tokens,
            window: self.window(s),
            prune: true,
        }
    }

    /// Gemini's knobs for a session: these options, else the session's window, else the
    /// defaults of the harness that wrote it (Qwen Code's threshold and no budget for a Qwen
    /// Code session, Gemini CLI's for any other).
    pub fn gemini_settings(&self, s: &Session) -> super::gemini::Settings {
        let qwen = s.meta.format == crate::model::SourceFormat::QwenCode;
        super::gemini::Settings {
            threshold: self.threshold.unwrap_or(if qwen {
                super::gemini::QWEN_THRESHOLD
            } else {
                super::gemini::GEMINI_THRESHOLD
            }),
            preserve: self
                .preserve_fraction
                .unwrap_or(super::gemini::DEFAULT_PRESERVE)
                .clamp(0.01, 0.99),
            response_budget: self.response_budget.unwrap_or(if qwen {
                0
            } else {
                super::gemini::RESPONSE_BUDGET
            }),
            window: self.window(s),
        }
    }

    /// The tool-result cap in force.
    pub fn cap_bytes(&self) -> usize {
        self.tool_result_cap.unwrap_or(match self.policy {
            PolicyName::Goose | PolicyName::OpenCode | PolicyName::Gemini => 0,
            PolicyName::Coworker => super::cap::DEFAULT_MAX_BYTES,
        })
    }

    fn summary_tokens(&self) -> u64 {
        self.summary_tokens.unwrap_or(if self.legacy {
            LEGACY_SUMMARY_TOKENS
        } else {
            DEFAULT_SUMMARY_TOKENS
        })
    }

    /// The simulation parameters for a session.
    pub fn sim_params(&self, s: &Session, detail: bool) -> SimParams {
        let policy = match self.policy {
            PolicyName::Goose => {
                self.goose_policy(goose::Wording::for_session(s), s.meta.context_limit)
            }
            PolicyName::Coworker => Policy::Coworker(self.settings(s)),
            PolicyName::OpenCode => Policy::OpenCode(self.opencode_settings(s)),
            PolicyName::Gemini => Policy::Gemini(self.gemini_settings(s)),
        };
        SimParams {
            policy,
            summary_tokens: self.summary_tokens(),
            detail,
            at_recorded: self.at_recorded,
        }
    }

    /// The sweep's parameters for a session known by its digest (goose only).
    pub fn digest_params(&self, d: &Digest) -> SimParams {
        SimParams {
            policy: self.goose_policy(d.wording, d.context_limit),
            summary_tokens: self.summary_tokens(),
            detail: false,
            at_recorded: self.at_recorded,
        }
    }

    fn goose_policy(&self, wording: goose::Wording, session_limit: Option<u64>) -> Policy {
        Policy::Goose {
            rule: self.rule(),
            wording,
            threshold: self.threshold.unwrap_or(DEFAULTS.threshold),
            context_limit: self
                .context_window
                .or(session_limit)
                .unwrap_or(DEFAULT_CONTEXT),
        }
    }
}

/// The result of compacting a history once (`palimpsest replay` without `--simulate`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct ReplayView {
    /// What the model sees afterwards.
    pub visible: Vec<ReplayedMessage>,
    /// Stored index of the first message after the cut (one past the history when nothing is
    /// kept verbatim).
    pub cut_index: usize,
    /// Where the cut was asked for, before goose's backward walk (same terms).
    pub requested_cut_index: usize,
    /// Stored indices kept verbatim.
    pub kept_tail: Vec<usize>,
    /// goose: a preserved copy of the user's ask was appended.
    pub preserved_appended: bool,
    /// goose: the stored index of the user message preserved (the one a copy repeats).
    #[serde(default)]
    pub preserved_index: Option<usize>,
    /// Tool results in `visible` whose call is not in it.
    pub orphans: usize,
    /// Positions in `visible` of the messages holding those results (`replay::pairing`'s rule).
    #[serde(default)]
    pub orphaned: Vec<usize>,
}

/// Compact the session's history once, as it stands. `raw` = stored lines (coworker sizing).
pub fn replay_once(
    s: &Session,
    o: &ReplayOptions,
    raw: Option<&[Option<Value>]>,
    counter: Counter<'_>,
) -> ReplayView {
    let summary = SummarySource::Placeholder {
        tokens: o.summary_tokens(),
    };
    match o.policy {
        PolicyName::Goose => {
            let c = goose::compact(
                &s.messages,
                o.rule(),
                goose::Wording::for_session(s),
                &summary,
            );
            let past = c.history.last().map_or(0, |&i| i + 1);
            let at = |p: usize| c.history.get(p).copied().unwrap_or(past);
            ReplayView {
                cut_index: at(c.plan.cut),
                requested_cut_index: at(c.plan.requested_cut),
                visible: c.visible,
                kept_tail: c.kept_tail,
                preserved_appended: c.preserved_appended,
                preserved_index: c.preserved_index,
                orphans: c.orphans,
                orphaned: c.orphaned,
            }
        }
        PolicyName::Coworker => coworker_once(s, o, raw, counter),
        PolicyName::OpenCode | PolicyName::Gemini => {
            let c = if o.policy == PolicyName::Gemini {
                super::gemini::compact_once(s, &o.gemini_settings(s), &summary, counter)
            } else {
                super::opencode::compact_once(s, &o.opencode_settings(s), &summary, counter)
            };
            ReplayView {
                visible: c.visible,
                cut_index: c.cut_index,
                requested_cut_index: c.cut_index,
                kept_tail: c.kept_tail,
                preserved_appended: false,
                preserved_index: None,
                orphans: c.orphans,
                orphaned: c.orphaned,
            }
        }
    }
}

fn coworker_once(
    s: &Session,
    o: &ReplayOptions,
    raw: Option<&[Option<Value>]>,
    counter: Counter<'_>,
) -> ReplayView {
    let settings = o.settings(s);
    let prep = Prepared::new(s, counter, raw);
    let n = prep.len();
    let mut prefix = vec![0u64; n + 1];
    for (i, e) in prep.entries.iter().enumerate() {
        prefix[i + 1] = prefix[i] + e.canon_len;
    }
    let slots: Vec<cw::Slot> = (0..n).map(|i| cw::slot_of(prep.message(i))).collect();
    // The prior boundary: the latest recorded block sits right before it.
    let prior_state = s
        .messages
        .iter()
        .rev()
        .filter(|m| m.kind == MessageKind::Summary)
        .find_map(|m| m.details.as_ref());
    let prior_source = prior_state
        .and_then(|d| d.get("boundary_index"))
        .and_then(|v| v.as_u64());
    // `boundary_index` counts stored lines; entries point at the timeline, which also holds
    // the rebuilt blocks.
    let canon = cw::canonical_indices(&s.messages);
    let prior = prior_source.map_or(0, |b| {
        let b = b as usize;
        prep.entries
            .iter()
            .position(|e| canon[e.source as usize] >= b)
            .unwrap_or(n)
    });
    let past = s.messages.len();
    let Some(b) = cw::pick_boundary(&slots, &prefix, 0, n, prior, settings.keep_tokens()) else {
        return ReplayView {
            visible: s
                .view(crate::model::View::Agent)
                .map(ReplayedMessage::kept)
                .collect(),
            cut_index: past,
            requested_cut_index: past,
            kept_tail: Vec::new(),
            preserved_appended: false,
            preserved_index: None,
            orphans: 0,
            orphaned: Vec::new(),
        };
    };
    let span: Vec<_> = (prior..b).map(|p| prep.message(p)).collect();
    let cut_source = prep.entries[b].source as usize;
    let summary = SummarySource::Placeholder {
        tokens: o.summary_tokens(),
    }
    .text();
    let state = cw::build_state(
        latest_state(s).as_ref(),
        span.iter().copied(),
        canon[cut_source],
        summary,
        &settings,
    );
    let mut visible: Vec<ReplayedMessage> = s
        .messages
        .iter()
        .filter(|m| m.role == Role::System && m.agent_visible)
        .map(|m| ReplayedMessage::kept(m))
        .collect();
    visible.push(ReplayedMessage::written(
        Role::User,
        MessageKind::Summary,
        cw::block(&state, o.legacy),
    ));
    let kept: Vec<usize> = (b..n)
        .filter(|&p| prep.message(p).kind != MessageKind::Notification)
        .map(|p| prep.entries[p].source as usize)
        .collect();
    visible.extend(kept.iter().map(|&i| ReplayedMessage::kept(&s.messages[i])));
    let (orphans, orphaned) = pairing::replayed_orphans(&visible);
    ReplayView {
        visible,
        cut_index: cut_source,
        requested_cut_index: cut_source,
        kept_tail: kept,
        preserved_appended: false,
        preserved_index: None,
        orphans,
        orphaned,
    }
}

fn latest_state(s: &Session) -> Option<CompactionState> {
    s.compactions
        .iter()
        .rev()
        .find_map(|c| c.raw.as_ref())
        .and_then(|r| CompactionState::from_value(r).ok().flatten())
}

/// Run the session forward under the options.
pub fn simulation(
    s: &Session,
    o: &ReplayOptions,
    raw: Option<&[Option<Value>]>,
    counter: Counter<'_>,
) -> Simulation {
    let prep = prepare(s, o, raw, counter);
    simulate(&prep, &o.sim_params(s, true), counter)
}

/// Sweep `rows × cols` from the options.
pub fn sweep_session(
    s: &Session,
    o: &ReplayOptions,
    rows: Axis,
    cols: Axis,
    metric: Metric,
    raw: Option<&[Option<Value>]>,
    counter: Counter<'_>,
) -> SweepGrid {
    let prep = prepare(s, o, raw, counter);
    sweep(&prep, &o.sim_params(s, false), rows, cols, metric, counter)
}

/// goose's digests of `s` at each tool-result cap of `caps`: what [`sweep_digests`] sweeps and
/// the index keeps. Each cap's capped results are counted on a thread of their own.
pub fn goose_digests(
    s: &Session,
    caps: &[usize],
    encoding: &str,
    counter: Counter<'_>,
) -> Vec<Digest> {
    let base = Prepared::tokens_only(s, counter);
    let wording = goose::Wording::for_session(s);
    let continuation = super::simulate::continuation_tokens(wording, counter);
    std::thread::scope(|scope| {
        let handles: Vec<_> = caps
            .iter()
            .map(|&cap| {
                let base = &base;
                scope.spawn(move || {
                    let prep = base.with_cap(cap, counter);
                    Digest::of(&prep, s, wording, encoding, continuation)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a digest thread panicked"))
            .collect()
    })
}

/// Sweep goose's keep-tail `rows` over the tool-result caps the digests were made at (one
/// digest per column, in `cols`' order): no session, no counting. Equal, cell for cell, to
/// [`sweep_session`] on the session they were made of.
pub fn sweep_digests(
    digests: &[Digest],
    o: &ReplayOptions,
    rows: Axis,
    cols: Axis,
    metric: Metric,
) -> Option<SweepGrid> {
    let first = digests.first()?;
    let preps: Vec<Prepared<'static>> = digests.iter().map(Digest::prepared).collect();
    // Nothing is counted: the continuations come with the digest, and no cap is applied again.
    let never = |_: &crate::model::Message| 0;
    Some(sweep_prepared(
        &preps,
        &o.digest_params(first),
        rows,
        cols,
        metric,
        &never,
    ))
}

fn prepare<'s>(
    s: &'s Session,
    o: &ReplayOptions,
    raw: Option<&'s [Option<Value>]>,
    counter: Counter<'_>,
) -> Prepared<'s> {
    let base = match o.policy {
        PolicyName::Goose | PolicyName::OpenCode | PolicyName::Gemini => {
            Prepared::tokens_only(s, counter)
        }
        PolicyName::Coworker => Prepared::new(s, counter, raw),
    };
    base.with_cap(o.cap_bytes(), counter)
}
