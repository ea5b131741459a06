//! What changed in one session between what a [`Tracker`](super::Tracker) remembers of it
//! ([`Seen`]) and the session as it is now: by content fingerprint, so a rewrite that keeps the
//! messages (a goose compaction re-inserting its rows) is a visibility change, not a new
//! history. When to look is `super`'s.

use std::hash::{Hash, Hasher};
use std::sync::Arc;

use super::{Change, Seen};
use crate::model::{Message, Session};

impl Seen {
    /// Remember `messages` as they are now. `known` holds the fingerprints from a message on
    /// when those before it are remembered right already (a transcript read on, diffed).
    pub(super) fn remember(&mut self, messages: &[Arc<Message>], known: Known, compactions: usize) {
        let (start, tail) = match (known, self.fingerprints.as_mut()) {
            (Some((start, tail)), Some(old)) if start <= old.len() => {
                old.truncate(start);
                old.extend(tail);
                self.visibility.truncate(start);
                (start, None)
            }
            _ => (0, Some(messages.iter().map(|m| fingerprint(m)).collect())),
        };
        if let Some(all) = tail {
            self.fingerprints = Some(all);
            self.visibility.clear();
        }
        self.visibility.extend(
            messages[start..]
                .iter()
                .map(|m| (m.agent_visible, m.user_visible)),
        );
        self.compactions = compactions;
    }
}

/// Fingerprints of the messages from a given one on, as a diff computed them.
type Known = Option<(usize, Vec<u64>)>;

/// A hash of what a message says (role, kind, time, parts), not of how it is stored: row ids,
/// insertion times and visibility flags change on a goose rewrite while the message does not.
/// The messages a change event carries, as the window gets them.
fn owned(messages: &[Arc<Message>]) -> Vec<Message> {
    messages.iter().map(|m| Message::clone(m)).collect()
}

pub(super) fn fingerprint(m: &Message) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    m.role.hash(&mut h);
    m.created.hash(&mut h);
    m.id.hash(&mut h);
    serde_json::to_string(&m.parts)
        .unwrap_or_default()
        .hash(&mut h);
    h.finish()
}

/// Report what changed between what `seen` remembers and `session`. `hint` is the first message
/// that may differ, when the reader knows it (those before it are as they were, visibility
/// included), so only the messages from there on are compared.
pub(super) fn diff(
    id: &str,
    seen: &Seen,
    session: &Session,
    hint: Option<usize>,
    out: &mut Vec<Change>,
) -> Known {
    let (messages, compactions) = (&session.messages, &session.compactions);
    let session_id = id.to_owned();
    let mut known = None;
    // The compactions already there: those reported, or, for a session never loaded, those
    // that cut before the messages its listing counted (a listing's own count of compactions
    // may be made another way than the reader's records).
    let mut old_compactions = seen.compactions;
    match &seen.fingerprints {
        None => {
            // Never loaded: the listing's count is the baseline.
            let from = seen.listing.0.min(messages.len());
            old_compactions = compactions.iter().filter(|c| c.cut_index < from).count();
            if from < messages.len() {
                out.push(Change::Appended {
                    session_id: session_id.clone(),
                    messages: owned(&messages[from..]),
                });
            }
        }
        Some(old) => {
            let start = hint.map_or(0, |h| h.min(old.len()).min(messages.len()));
            let now: Vec<u64> = messages[start..].iter().map(|m| fingerprint(m)).collect();
            let common = start
                + old[start..]
                    .iter()
                    .zip(&now)
                    .take_while(|(a, b)| a == b)
                    .count();
            let changed: Vec<(usize, bool, bool)> = (start..common)
                .filter(|&i| {
                    seen.visibility.get(i)
                        != Some(&(messages[i].agent_visible, messages[i].user_visible))
                })
                .map(|i| (i, messages[i].agent_visible, messages[i].user_visible))
                .collect();
            if !changed.is_empty() {
                out.push(Change::VisibilityChanged {
                    session_id: session_id.clone(),
                    messages: changed,
                });
            }
            if common < old.len() {
                out.push(Change::Rewritten {
                    session_id: session_id.clone(),
                    from_index: common,
                    messages: owned(&messages[common..]),
                });
            } else if common < messages.len() {
                out.push(Change::Appended {
                    session_id: session_id.clone(),
                    messages: owned(&messages[common..]),
                });
            }
            known = Some((start, now));
        }
    }
    for record in compactions.iter().skip(old_compactions) {
        out.push(Change::Compaction {
            session_id: session_id.clone(),
            record: record.clone(),
        });
    }
    known
}
