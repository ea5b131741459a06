//! Spill loops: a read of a spill file whose result was capped and spilled again, repeated.
//!
//! What a marker looks like is `markers`' (re-exported here); opening the files is `confine` /
//! `review`'s.

use regex::Regex;
use serde::{Deserialize, Serialize};

pub use super::markers::{Marker, SpillKind, custom_pattern, markers};
use super::paths::file_name;
use super::reads::AccessKind;

/// One read in a spill loop.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct SpillStep {
    /// Message index of the call.
    pub call_index: usize,
    /// Message index of its result.
    pub result_index: Option<usize>,
    /// What the call read (the original file for the first step, then spill files).
    pub read_path: String,
    /// Where its own result spilled, when it was capped again.
    pub spilled_to: Option<String>,
    /// Size of the full result, when the marker says.
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub total_bytes: Option<u64>,
    /// The call timed out.
    pub timed_out: bool,
}

/// A read of a spill file whose result was capped and spilled again, repeated.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct SpillLoop {
    /// What the first capped call read (the file that started it), or its tool name.
    pub origin: String,
    /// Reads of spill files that were themselves capped and spilled again.
    pub respilled: usize,
    /// The chain ended on a timeout.
    pub ended_in_timeout: bool,
    /// The calls, first the one that started it.
    pub steps: Vec<SpillStep>,
    /// Message indices of the calls.
    pub messages: Vec<usize>,
}

/// Find spill loops: chains where reading a spill file spills again, at least twice.
pub(crate) fn spill_loops(
    classified: &super::classified::Classified<'_>,
    custom: Option<&Regex>,
) -> Vec<SpillLoop> {
    let (calls, classes) = (&classified.calls, &classified.classes);
    let mut chains: Vec<SpillLoop> = Vec::new();
    // spill path → chain index
    let mut open: Vec<(String, usize)> = Vec::new();
    for ((c, class), said) in calls.iter().zip(classes).zip(&classified.results) {
        // A pattern of the caller's own is looked for in the text again; the built-in ones
        // were when the calls were classified.
        let found = match (custom, c.result) {
            (Some(custom), Some(r)) => markers(&r.text(), Some(custom)),
            _ => said.markers.clone(),
        };
        let spilled_to = found
            .into_iter()
            .filter(|m| m.kind != SpillKind::CompactionTranscript)
            .find_map(|m| m.path.map(|p| (p, m.total_bytes)));
        let reads: Vec<&str> = class
            .accesses
            .iter()
            .filter(|a| a.kind == AccessKind::Read)
            .map(|a| a.path.as_str())
            .collect();
        let hit = open
            .iter()
            .rposition(|(p, _)| reads.iter().any(|r| same_file(r, p)));
        let step = |read_path: String| SpillStep {
            call_index: c.call_index,
            result_index: c.result_index,
            read_path,
            spilled_to: spilled_to.as_ref().map(|(p, _)| p.clone()),
            total_bytes: spilled_to.as_ref().and_then(|(_, t)| *t),
            timed_out: said.timed_out,
        };
        match hit {
            Some(pos) => {
                let (path, chain) = open.remove(pos);
                let s = step(path);
                let ch = &mut chains[chain];
                if s.spilled_to.is_some() {
                    ch.respilled += 1;
                    open.push((s.spilled_to.clone().unwrap_or_default(), chain));
                }
                ch.ended_in_timeout = s.timed_out;
                ch.messages.push(c.call_index);
                ch.steps.push(s);
            }
            None => {
                if let Some((p, _)) = &spilled_to {
                    let origin = reads
                        .first()
                        .map(|r| (*r).to_owned())
                        .unwrap_or_else(|| c.name.to_owned());
                    open.push((p.clone(), chains.len()));
                    chains.push(SpillLoop {
                        origin: origin.clone(),
                        respilled: 0,
                        ended_in_timeout: false,
                        steps: vec![step(origin)],
                        messages: vec![c.call_index],
                    });
                }
            }
        }
    }
    chains.retain(|c| c.respilled >= 2);
    chains
}

/// A read path names a spill file: same normalised path, or the same distinctive file name.
pub(crate) fn same_file(read: &str, spill: &str) -> bool {
    let spill = super::paths::clean(spill.trim_matches('"'));
    read == spill
        || (file_name(&spill).len() >= 8 && read.ends_with(&format!("/{}", file_name(&spill))))
        || read == file_name(&spill) && file_name(&spill).len() >= 8
}
