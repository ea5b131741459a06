//! What a session itself says of its spill files: each marker its messages hold (a capped
//! result's path, a large-response notice, a compaction transcript, a reader's link), with the
//! message naming it, the call whose result it stands for and the later calls that read the
//! file. Made from the loaded session, and kept by the index so the Spills tab of a big
//! transcript does not read it whole. A tool output a harness pruned (OpenCode's) is one too,
//! kept in the session itself. Which folders are the session's own, and what is on disk there
//! now, is [`super::review`]'s.

use std::collections::HashMap;

use regex::Regex;
use serde::{Deserialize, Serialize};

use super::reads::AccessKind;
use super::spills::{Marker, SpillKind, markers, same_file};
use crate::model::{LinkKind, Part, Session};

/// One spill file a message names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpillRef {
    /// The message naming it.
    pub message_index: usize,
    /// What the message says of it.
    pub marker: Marker,
    /// The call whose result it stands for.
    pub call_index: Option<usize>,
    /// That call's tool.
    pub tool: Option<String>,
    /// Message indices of later calls that read it.
    pub read_by: Vec<usize>,
}

/// Every spill file `session`'s messages name, in message order, with the markers of
/// `pattern` (a user's) beside the built-in ones; one path named twice by one message once.
pub fn spill_refs(session: &Session, pattern: Option<&Regex>) -> Vec<SpillRef> {
    spill_refs_classified(
        session,
        pattern,
        &super::classified::Classified::of(session),
    )
}

/// [`spill_refs`] of a session whose calls come `classified`.
pub fn spill_refs_classified(
    session: &Session,
    pattern: Option<&Regex>,
    classified: &super::classified::Classified<'_>,
) -> Vec<SpillRef> {
    let (calls, classes) = (&classified.calls, &classified.classes);
    let by_result: HashMap<usize, usize> = calls
        .iter()
        .enumerate()
        .filter_map(|(i, c)| c.result_index.map(|r| (r, i)))
        .collect();

    let mut found: Vec<(usize, Marker)> = Vec::new();
    for m in &session.messages {
        for p in &m.parts {
            let text = match p {
                // Read when the calls were classified, unless a pattern of the caller's own
                // is to be looked for too.
                Part::ToolResult { call_id, text, .. } => {
                    match classified.result_of(m.index, call_id, text) {
                        Some(said) if pattern.is_none() => {
                            found.extend(said.markers.iter().map(|mk| (m.index, mk.clone())));
                            continue;
                        }
                        _ => text.text(),
                    }
                }
                Part::Text { text } => text.into(),
                _ => continue,
            };
            for mk in markers(&text, pattern) {
                found.push((m.index, mk));
            }
        }
        for l in &m.links {
            if l.kind == LinkKind::Subagent
                || found
                    .iter()
                    .any(|(_, f)| f.path.as_deref() == Some(&l.path))
            {
                continue;
            }
            found.push((
                m.index,
                Marker {
                    kind: if l.kind == LinkKind::Transcript {
                        SpillKind::CompactionTranscript
                    } else {
                        SpillKind::Link
                    },
                    path: Some(l.path.clone()),
                    total_bytes: None,
                    omitted_bytes: None,
                    head: String::new(),
                    tail: String::new(),
                },
            ));
        }
    }

    found.extend(pruned(session, calls));
    found.sort_by_key(|(idx, _)| *idx);

    let mut refs: Vec<SpillRef> = Vec::new();
    for (idx, mk) in found {
        if mk.path.is_some()
            && refs
                .iter()
                .any(|r| r.marker.path == mk.path && r.message_index == idx)
        {
            continue;
        }
        let call = by_result.get(&idx).map(|&i| &calls[i]);
        let read_by = match &mk.path {
            Some(p) => calls
                .iter()
                .zip(classes)
                .filter(|(c, _)| c.call_index > idx)
                .filter(|(_, cl)| {
                    cl.accesses
                        .iter()
                        .any(|a| a.kind == AccessKind::Read && same_file(&a.path, p))
                })
                .map(|(c, _)| c.call_index)
                .collect(),
            None => Vec::new(),
        };
        refs.push(SpillRef {
            message_index: idx,
            call_index: call.map(|c| c.call_index),
            tool: call.map(|c| c.name.to_owned()),
            read_by,
            marker: mk,
        });
    }
    refs
}

/// Each tool output a prune took from the model's view (OpenCode's and Kilo Code's: a
/// microcompact naming the calls), at the message that keeps it whole: the model got a stub
/// from then on. Claude Code's microcompacts clear results the same way but are the cut views'
/// business: its Spills tab lists the files it writes.
fn pruned(session: &Session, calls: &[super::calls::Call]) -> Vec<(usize, Marker)> {
    use crate::model::SourceFormat;
    if !matches!(
        session.meta.format,
        SourceFormat::OpenCode | SourceFormat::Kilo
    ) {
        return Vec::new();
    }
    let answered: HashMap<&str, usize> = calls
        .iter()
        .filter_map(|c| Some((c.id, c.result_index?)))
        .collect();
    let positions = session.positions();
    let mut out = Vec::new();
    for id in session.compactions.iter().flat_map(|c| c.cleared_calls()) {
        let held = answered.get(id.as_str()).and_then(|&at| {
            let m = &session.messages[*positions.get(&at)?];
            m.parts.iter().find_map(|p| match p {
                Part::ToolResult { call_id, text, .. } if *call_id == id => {
                    Some((at, text.len() as u64))
                }
                _ => None,
            })
        });
        if let Some((at, bytes)) = held {
            out.push((
                at,
                Marker {
                    kind: SpillKind::Pruned,
                    path: None,
                    total_bytes: Some(bytes),
                    omitted_bytes: Some(bytes),
                    head: crate::replay::opencode::PRUNED_STUB.to_owned(),
                    tail: String::new(),
                },
            ));
        }
    }
    out
}
