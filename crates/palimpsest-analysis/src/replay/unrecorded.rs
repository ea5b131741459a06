//! The coworker states the older harness (MAIN-0821) built but never recorded, re-derived from
//! its own rules at each record-less `compacted` notice (coworker-format §2, §4): the boundary
//! `pick_boundary` gives over the messages the harness held just before the notice (or, for a
//! trim, `trim_state`'s 10 % step), the span from the previous boundary, and the state
//! `build_state` makes of it. [`super::verify`] chains them so a recorded state built on
//! unrecorded ones is checked over its own span, as the harness built it, instead of from the
//! start of the session.
//!
//! What cannot be re-derived is said, not guessed: an LLM summary is unknown (a later trim's
//! chained summary is then taken as recorded), and a notice where the rules give no boundary
//! at the window the check runs with ends the chain (the check is then "cannot verify").

use super::coworker as cw;
use crate::model::{Message, MessageKind, Role};
use crate::sources::coworker::block::{CompactionState, TRIM_NOTE};
use crate::sources::coworker::stored::recorded_lengths;

/// A state re-derived at a record-less notice.
#[derive(Debug, Clone)]
pub struct Derived {
    /// The state the harness built there (its `summary_text` is empty unless known).
    pub state: CompactionState,
    /// Whether `state.summary_text` is what the harness had (a trim chaining a known summary).
    pub summary_known: bool,
}

/// Whether a record-less notice is a trim (the harness's trim notice text).
pub fn is_trim_notice(m: &Message) -> bool {
    m.text().contains("trimmed")
}

/// The state the harness built at a record-less notice sitting at canonical position `at`
/// (so it held `canonical[..at]`), on top of `prior`; `None` when its rules give no boundary
/// there at these settings.
pub fn derive_at(
    canonical: &[&Message],
    at: usize,
    trimmed: bool,
    prior: Option<&Derived>,
    settings: &cw::Settings,
) -> Option<Derived> {
    let held = &canonical[..at.min(canonical.len())];
    let start = prior.map_or(0, |p| p.state.boundary_index);
    let boundary = if trimmed {
        trim_boundary(held, start)?
    } else {
        pick(held, start, settings.keep_tokens())?
    };
    let prior_state = prior.map(|p| &p.state);
    let span = held[start..boundary].iter().copied();
    let mut state = cw::build_state(prior_state, span, boundary, String::new(), settings);
    let summary_known = if trimmed {
        // A trim writes no transcript (the legacy rules never do: `build_state` knows).
        state.transcript_path.clear();
        state.summary_text = match prior_state.map(|p| p.summary_text.as_str()) {
            Some(p) if !p.is_empty() => format!("{p}\n\n{TRIM_NOTE}"),
            _ => TRIM_NOTE.to_owned(),
        };
        state.trimmed = true;
        prior.is_none_or(|p| p.summary_known)
    } else {
        false
    };
    Some(Derived {
        state,
        summary_known,
    })
}

/// `pick_boundary` over the held messages, sized as the engine holds them (notices and
/// sidecars included), refused at or before `prior` as `build_state` refuses it.
fn pick(held: &[&Message], prior: usize, keep: u64) -> Option<usize> {
    let start = usize::from(
        held.first()
            .is_some_and(|m| m.role == Role::System && m.kind != MessageKind::Notification),
    );
    let slots: Vec<cw::Slot> = held.iter().map(|m| cw::slot_of(m)).collect();
    let mut prefix = vec![0u64; held.len() + 1];
    for (i, m) in held.iter().enumerate() {
        prefix[i + 1] = prefix[i] + stored_len(m);
    }
    cw::pick_boundary(&slots, &prefix, start, held.len(), prior, keep)
}

/// `trim_state`'s boundary: past `max(1, int(0.10 × remaining))` of the messages since the
/// prior boundary, on the next user or assistant message; none with two or fewer left.
fn trim_boundary(held: &[&Message], start: usize) -> Option<usize> {
    let remaining = held.len().checked_sub(start)?;
    if remaining <= 2 {
        return None;
    }
    let target = start + ((remaining as f64 * 0.10) as usize).max(1);
    (target..held.len())
        .find(|&i| matches!(cw::slot_of(held[i]), cw::Slot::User | cw::Slot::Assistant))
        .filter(|&b| b > start)
}

/// `len(json.dumps(msg))` as the reader measured it, else of the chat shape rebuilt.
fn stored_len(m: &Message) -> u64 {
    recorded_lengths(m.details.as_ref()).map_or_else(
        || super::pyjson::dumps_len(&cw::stored_value(m, None)) as u64,
        |[stored, _]| stored,
    )
}
