//! Pacing for the sessions too big to diagnose again at every line: one of more messages than a
//! bound is judged at once when it changes, then not again until ten times its last diagnosis
//! has passed (a second at least); the changes between wait, merged, and are judged when due.
//! A big worker is still alerted on, a few seconds late, while the small ones beside it keep
//! their latency and the machine is not kept busy re-diagnosing one file.
//! What judging is, is the [`super::Alerter`]'s; when to look again is its caller's.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::model::Session;

/// How much longer than its last diagnosis a big session waits before the next.
const FACTOR: u32 = 10;
/// The shortest wait between two diagnoses of a big session.
const FLOOR: Duration = Duration::from_secs(1);

/// A session waiting its turn: as it is now, and its baseline (`Alerter::observe`'s `before`).
pub(super) type Turn = (Arc<Session>, Option<usize>);

/// Which big sessions may be judged now, and which wait.
pub(super) struct Pacer {
    /// Sessions of more messages than this are paced.
    above: usize,
    /// When each paced session may be judged again.
    due: HashMap<String, Instant>,
    /// Changes waiting for their session's turn, the newest state kept.
    waiting: BTreeMap<String, Turn>,
}

impl Pacer {
    pub(super) fn new(above: usize) -> Self {
        Pacer {
            above,
            due: HashMap::new(),
            waiting: BTreeMap::new(),
        }
    }

    /// `session` changed at `now`: it back to judge now, or `None` when it waits its turn.
    pub(super) fn admit(
        &mut self,
        session: Arc<Session>,
        before: Option<usize>,
        now: Instant,
    ) -> Option<Turn> {
        if session.messages.len() <= self.above {
            return Some((session, before));
        }
        let id = session.meta.id.clone();
        // The earliest baseline holds: what came since it is new to the watch.
        let before = match self.waiting.remove(&id) {
            Some((_, earlier)) => earlier.zip(before).map(|(a, b)| a.min(b)),
            None => before,
        };
        if self.due.get(&id).is_some_and(|due| now < *due) {
            self.waiting.insert(id, (session, before));
            return None;
        }
        Some((session, before))
    }

    /// Session `id` was judged at `now`, which took `took`.
    pub(super) fn judged(&mut self, id: &str, messages: usize, took: Duration, now: Instant) {
        if messages > self.above {
            self.due
                .insert(id.to_owned(), now + (took * FACTOR).max(FLOOR));
        }
    }

    /// The waiting sessions whose turn has come at `now`.
    pub(super) fn take_due(&mut self, now: Instant) -> Vec<Turn> {
        let ready: Vec<String> = self
            .waiting
            .keys()
            .filter(|id| self.due.get(*id).is_none_or(|due| now >= *due))
            .cloned()
            .collect();
        ready
            .into_iter()
            .filter_map(|id| self.waiting.remove(&id))
            .collect()
    }
}
