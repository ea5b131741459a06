//! Alerts while workers run: each followed session diagnosed again as its lines land, and an
//! [`Alert`] raised the first time one of its conditions holds
//! (`analysis::alerts::conditions`), once per session and kind until that kind clears.
//!
//! A session is diagnosed from what the [`super::Tracker`] already holds of it (a transcript read on
//! from its last offset, a database session read again), never by reading its file whole
//! again here. A session that was there before the watch began is judged against its state
//! then (the messages before the first one that changed): a worker already stuck when the watch
//! starts is the fleet view's to show, and only what its new lines make it is raised. The idle
//! kind is timed with this process's clock from the last change seen, never from the times a
//! session records (a transcript copied or replayed carries old ones).
//! Noticing changes is the tracker's; printing, notifying and running commands are the callers'.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::pace::Pacer;
use super::{Observed, Patch};
use crate::analysis::Severity;
use crate::analysis::alerts::{self, AlertKind, AlertRules};
use crate::analysis::asked::DiagnoseOptions;
use crate::model::{Session, SessionMeta, SourceFormat};

/// One alert: a followed session turned stuck, or turned bad, for one reason.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Alert {
    /// The session.
    pub session_id: String,
    /// Its name, as the listing gives it.
    pub name: String,
    /// Its format.
    pub format: SourceFormat,
    /// The file or database it is read from.
    pub path: String,
    /// The source it was followed under, as the window's sidebar lists it
    /// ([`crate::views::SourceGroup::path`]): set by the app's follower.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub source: Option<String>,
    /// What it is about.
    pub kind: AlertKind,
    /// `stuck` for what the post-mortem calls stuck, `watch` for idling and the budget.
    pub severity: Severity,
    /// The finding in words.
    pub words: String,
    /// The message that tipped it.
    pub message_index: usize,
    /// When it was raised (milliseconds since the epoch, this machine's clock).
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub raised_at: i64,
}

/// A fleet row made again from a followed session's diagnosis as it changed, for the window's
/// fleet table to update in place.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct FleetUpdate {
    /// The source it was followed under ([`crate::views::SourceGroup::path`]).
    pub source: String,
    /// The row as the session is now.
    pub row: crate::analysis::FleetRow,
}

/// What the alerter remembers of a session it saw change.
struct Watched {
    /// Kinds raised and still holding (or, for those never raised, holding at the baseline).
    raised: BTreeSet<AlertKind>,
    /// When it last changed.
    changed: Instant,
    /// Its last full compaction, when no request was answered after it.
    waiting: Option<Waiting>,
}

/// A session waiting since a compaction: what its idle alert will say, if it comes (the
/// session itself is not kept between changes).
struct Waiting {
    /// The compaction's number.
    number: usize,
    /// The message the worker stopped on.
    message: usize,
    /// The session's listing then.
    meta: SessionMeta,
}

/// The size above which the window and `watch --alerts` judge a session at a pace
/// ([`Alerter::with_pacing`]): a whole diagnosis of a session that big takes seconds, until
/// diagnoses are updated in place.
pub const PACE_ABOVE: usize = 20_000;

/// Raises alerts for sessions as they change.
pub struct Alerter {
    rules: AlertRules,
    opts: DiagnoseOptions,
    sessions: BTreeMap<String, Watched>,
    /// Fleet rows of the sessions observed since the last [`Alerter::take_rows`], when kept.
    rows: Option<Vec<crate::analysis::FleetRow>>,
    /// Big sessions judged at a pace ([`Alerter::with_pacing`]), when paced.
    pace: Option<Pacer>,
}

impl Alerter {
    /// An alerter at `rules`, costing sessions at `prices` (the shipped table when `None`).
    pub fn new(rules: AlertRules, prices: Option<crate::cost::PriceTable>) -> Self {
        Alerter {
            rules,
            // Re-read sizes are not part of any alert: estimated, not counted with BPE.
            opts: DiagnoseOptions {
                estimate_tokens: true,
                prices,
                ..DiagnoseOptions::default()
            },
            sessions: BTreeMap::new(),
            rows: None,
            pace: None,
        }
    }

    /// Judge sessions of more than `above` messages at a pace (`watch/pace.rs`): at once when
    /// they change, then again only once ten times their last diagnosis has passed, the changes
    /// between judged at [`Alerter::tick`] when their turn comes.
    pub fn with_pacing(mut self, above: usize) -> Self {
        self.pace = Some(Pacer::new(above));
        self
    }

    /// Also make each observed session's fleet row ([`Alerter::take_rows`]): the diagnosis is
    /// made anyway, the row costs its pricing.
    pub fn with_rows(mut self) -> Self {
        self.rows = Some(Vec::new());
        self
    }

    /// The fleet rows of the sessions observed since the last call, oldest first (one per
    /// session, its newest).
    pub fn take_rows(&mut self) -> Vec<crate::analysis::FleetRow> {
        self.rows.as_mut().map(std::mem::take).unwrap_or_default()
    }

    /// `session` as it is now, changed at `now`. `before`: for a session this alerter has not
    /// seen, how many of its first messages were there before the watch began (those are its
    /// baseline); `None` for a session that began during the watch.
    pub fn observe(
        &mut self,
        session: &Session,
        before: Option<usize>,
        now: Instant,
    ) -> Vec<Alert> {
        let id = &session.meta.id;
        if !self.sessions.contains_key(id) {
            let raised = match before {
                Some(b) if b > 0 => {
                    let then = session.prefix(b);
                    self.holding(&then).into_iter().map(|c| c.kind).collect()
                }
                _ => BTreeSet::new(),
            };
            self.sessions.insert(
                id.clone(),
                Watched {
                    raised,
                    changed: now,
                    waiting: None,
                },
            );
        }
        let (conditions, waiting) = match crate::analysis::asked::diagnose(session, &self.opts) {
            Ok(d) => {
                let cost = (self.rules.budget_usd.is_some() || self.rows.is_some())
                    .then(|| crate::cost::session_cost(session, self.opts.price_table()))
                    .flatten();
                let found = alerts::conditions(session, &d, cost.as_ref(), &self.rules);
                if let Some(rows) = self.rows.as_mut() {
                    let usd = cost.as_ref().and_then(|c| c.total_usd);
                    rows.retain(|r| r.session_id != *id);
                    rows.push(crate::analysis::fleet::row(&session.meta, &d, usd));
                }
                (found, alerts::waiting_after_compaction(session, &d))
            }
            Err(_) => (Vec::new(), None),
        };
        let w = self.sessions.get_mut(id).expect("inserted above");
        w.changed = now;
        w.waiting = waiting
            .filter(|_| self.rules.on(AlertKind::IdleAfterCompaction))
            .map(|(number, message)| Waiting {
                number,
                message,
                meta: session.meta.clone(),
            });
        // A kind that no longer holds clears; activity clears idling.
        let now_kinds: BTreeSet<AlertKind> = conditions.iter().map(|c| c.kind).collect();
        w.raised
            .retain(|k| *k != AlertKind::IdleAfterCompaction && now_kinds.contains(k));
        let mut out = Vec::new();
        for c in conditions {
            if w.raised.insert(c.kind) {
                out.push(alert(&session.meta, c.kind, c.words, c.message_index));
            }
        }
        out
    }

    /// At `now`: the paced sessions whose turn has come, judged, and the sessions waiting since
    /// a compaction for longer than the rules allow.
    pub fn tick(&mut self, now: Instant) -> Vec<Alert> {
        let mut out = Vec::new();
        let due = self
            .pace
            .as_mut()
            .map(|p| p.take_due(now))
            .unwrap_or_default();
        for (session, before) in due {
            out.extend(self.judge(&session, before, now));
        }
        let after = Duration::from_secs_f64((self.rules.idle_minutes * 60.0).max(0.0));
        for w in self.sessions.values_mut() {
            let Some(wait) = &w.waiting else {
                continue;
            };
            let idle = now.saturating_duration_since(w.changed);
            if idle >= after && w.raised.insert(AlertKind::IdleAfterCompaction) {
                let words = format!(
                    "no request for {} after compaction {}",
                    minutes(idle),
                    wait.number
                );
                out.push(alert(
                    &wait.meta,
                    AlertKind::IdleAfterCompaction,
                    words,
                    wait.message,
                ));
            }
        }
        out
    }

    /// The sessions one look changed ([`Observed`]): each observed, judged against its state
    /// before the watch when it was there already; a big one waits its turn when paced.
    pub fn observe_changes(&mut self, o: &Observed, now: Instant) -> Vec<Alert> {
        let mut raised = Vec::new();
        for patch in &o.patches {
            let session: Arc<Session> = match patch {
                Patch::Whole(s) => Arc::clone(s),
                p => match p.current() {
                    Some(c) => c.now(),
                    None => continue,
                },
            };
            let id = patch.session_id();
            // A session that only changed visibility keeps every message as its baseline.
            let before = (!o.added.contains(id))
                .then(|| o.from.get(id).copied().unwrap_or(session.messages.len()));
            let turn = match self.pace.as_mut() {
                Some(p) => p.admit(session, before, now),
                None => Some((session, before)),
            };
            if let Some((session, before)) = turn {
                raised.extend(self.judge(&session, before, now));
            }
        }
        raised
    }

    /// [`Alerter::observe`], timed for the pace.
    fn judge(&mut self, session: &Session, before: Option<usize>, now: Instant) -> Vec<Alert> {
        let took = Instant::now();
        let raised = self.observe(session, before, now);
        if let Some(p) = self.pace.as_mut() {
            p.judged(
                &session.meta.id,
                session.messages.len(),
                took.elapsed(),
                now,
            );
        }
        raised
    }

    /// The conditions holding on `session`, kinds switched off left out.
    fn holding(&self, session: &Session) -> Vec<alerts::Condition> {
        crate::analysis::asked::diagnose(session, &self.opts)
            .map(|d| alerts::conditions(session, &d, None, &self.rules))
            .unwrap_or_default()
    }
}

/// An alert about the session listed as `meta`, raised now.
fn alert(meta: &SessionMeta, kind: AlertKind, words: String, message_index: usize) -> Alert {
    let severity = match kind {
        AlertKind::IdleAfterCompaction | AlertKind::OverBudget => Severity::Watch,
        _ => Severity::Stuck,
    };
    Alert {
        session_id: meta.id.clone(),
        name: meta.name.clone(),
        format: meta.format,
        path: meta.path.clone(),
        source: None,
        kind,
        severity,
        words,
        message_index,
        raised_at: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as i64),
    }
}

/// `90 s` → `1.5 min`; under a minute in seconds.
fn minutes(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s < 60.0 {
        format!("{s:.0} s")
    } else {
        format!("{:.0} min", s / 60.0)
    }
}
