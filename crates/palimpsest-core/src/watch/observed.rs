//! What one look of a [`Tracker`] changed, as an [`Alerter`] needs it ([`Observed`]: small, so
//! the window's live thread can hand it to its alert thread), and the two together for a
//! caller that looks and judges in one loop ([`AlertWatch`], `watch --alerts`).
//! Judging is [`super::alerts`]'s; noticing changes is the tracker's.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

use super::{Alert, Alerter, Change, Patch, Tracker};

/// What one look of a [`Tracker`] changed, as an [`Alerter`] needs it: the sessions that began
/// during the watch, where each other one first changed, and the changed sessions as the
/// tracker keeps them (its patches). Small, so a caller may hand it to another thread.
#[derive(Debug, Clone, Default)]
pub struct Observed {
    pub(super) added: BTreeSet<String>,
    pub(super) from: BTreeMap<String, usize>,
    pub(super) patches: Vec<Patch>,
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
        let mut raised = self.alerter.observe_changes(&observed, now);
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
