//! Alerts while workers run: each followed session diagnosed again as its lines land, and an
//! [`Alert`] raised the first time one of its conditions holds
//! (`analysis::alerts::conditions`), once per session and kind until that kind clears.
//!
//! A session is diagnosed from what the [`Tracker`] already holds of it (a transcript read on
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

use super::{Change, Patch, Tracker};
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

/// Raises alerts for sessions as they change.
pub struct Alerter {
    rules: AlertRules,
    opts: DiagnoseOptions,
    sessions: BTreeMap<String, Watched>,
    /// Fleet rows of the sessions observed since the last [`Alerter::take_rows`], when kept.
    rows: Option<Vec<crate::analysis::FleetRow>>,
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
        }
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

    /// Sessions waiting since a compaction for longer than the rules allow, at `now`.
    pub fn tick(&mut self, now: Instant) -> Vec<Alert> {
        let after = Duration::from_secs_f64((self.rules.idle_minutes * 60.0).max(0.0));
        let mut out = Vec::new();
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
    /// before the watch when it was there already. Sessions of more than `max_messages` are
    /// left out when a limit is given.
    pub fn observe_changes(
        &mut self,
        o: &Observed,
        max_messages: Option<usize>,
        now: Instant,
    ) -> Vec<Alert> {
        let mut raised = Vec::new();
        for patch in &o.patches {
            let session: Arc<Session> = match patch {
                Patch::Whole(s) => Arc::clone(s),
                p => match p.current() {
                    Some(c) => c.now(),
                    None => continue,
                },
            };
            if max_messages.is_some_and(|m| session.messages.len() > m) {
                continue;
            }
            let id = patch.session_id();
            // A session that only changed visibility keeps every message as its baseline.
            let before = (!o.added.contains(id))
                .then(|| o.from.get(id).copied().unwrap_or(session.messages.len()));
            raised.extend(self.observe(&session, before, now));
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

/// What one look of a [`Tracker`] changed, as an [`Alerter`] needs it: the sessions that began
/// during the watch, where each other one first changed, and the changed sessions as the
/// tracker keeps them (its patches). Small, so a caller may hand it to another thread.
#[derive(Debug, Clone, Default)]
pub struct Observed {
    added: BTreeSet<String>,
    from: BTreeMap<String, usize>,
    patches: Vec<Patch>,
}

impl Observed {
    /// From a refresh's `changes` and the `patches` taken after it.
    pub fn of(changes: &[Change], patches: Vec<Patch>) -> Self {
        let mut o = Observed {
            patches,
            ..Observed::default()
        };
        for c in changes {
            let (id, at) = match c {
                Change::SessionAdded { session } => {
                    o.added.insert(session.id.clone());
                    continue;
                }
                Change::Appended {
                    session_id,
                    messages,
                } => match messages.first() {
                    Some(m) => (session_id, m.index),
                    None => continue,
                },
                Change::Rewritten {
                    session_id,
                    from_index,
                    ..
                } => (session_id, *from_index),
                _ => continue,
            };
            o.changed_at(id, at);
        }
        o
    }

    /// `later` laid over this one, for a caller that fell behind: the sessions added in either,
    /// the first changed message of both, each session's newer patch. Each session is then
    /// judged once, as it is now.
    pub fn merge(&mut self, later: Observed) {
        self.added.extend(later.added);
        for (id, at) in &later.from {
            self.changed_at(id, *at);
        }
        for p in later.patches {
            self.patches.retain(|q| q.session_id() != p.session_id());
            self.patches.push(p);
        }
    }

    fn changed_at(&mut self, id: &str, at: usize) {
        let e = self.from.entry(id.to_owned()).or_insert(at);
        *e = (*e).min(at);
    }

    /// Nothing changed.
    pub fn is_empty(&self) -> bool {
        self.patches.is_empty()
    }

    /// The changed sessions' ids.
    pub fn sessions(&self) -> impl Iterator<Item = &str> {
        self.patches.iter().map(Patch::session_id)
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

/// A [`Tracker`] and an [`Alerter`] together: what `watch --alerts` and the window run.
pub struct AlertWatch {
    tracker: Tracker,
    alerter: Alerter,
}

/// How many sessions changing at once the tracker keeps to read on from: a fleet of workers
/// writing side by side is read line by line, not whole at each change.
pub const FOLLOWED: usize = 64;

impl AlertWatch {
    /// Watch `tracker`'s sessions for `alerter`.
    pub fn new(mut tracker: Tracker, alerter: Alerter) -> Self {
        tracker.keep_patches();
        tracker.keep_up_to(FOLLOWED);
        AlertWatch { tracker, alerter }
    }

    /// Look again: what changed, and the alerts it raised (the idle kind included).
    pub fn refresh(&mut self, now: Instant) -> (Vec<Change>, Vec<Alert>) {
        let changes = self.tracker.refresh();
        let observed = Observed::of(&changes, self.tracker.take_patches());
        let mut raised = self.alerter.observe_changes(&observed, None, now);
        raised.extend(self.alerter.tick(now));
        (changes, raised)
    }

    /// The idle kind alone, with no look at the files: between two changes.
    pub fn tick(&mut self, now: Instant) -> Vec<Alert> {
        self.alerter.tick(now)
    }

    /// The fleet rows of the sessions judged since the last call, when the alerter keeps them
    /// ([`Alerter::with_rows`]).
    pub fn take_rows(&mut self) -> Vec<crate::analysis::FleetRow> {
        self.alerter.take_rows()
    }
}
