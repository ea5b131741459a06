//! A recorded request beside the one rebuilt from the session: which request of which session
//! a provider log is, and every item in which the two differ.
//!
//! A recorded request ([`RecordedRequest`], read by the source, e.g. goose's request logs) is
//! placed by what it ends with: the last item it holds that the session also holds (a tool
//! result, a call, a text) was stored at some position, and the request sent next is the first
//! one answered after it ([`Eras::answers`]), or the next request when none was. It belongs to
//! a session when that item is found and every call id it names is one of the session's. Both
//! sides are then flattened into items (a message with three tool results is three items on
//! either side, however the API split or merged messages) and diffed in order. The system
//! prompt is never stored in a session: it is counted apart, not as a difference.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::context::Eras;
use crate::model::{Item, Message, Part, RecordedRequest, Session};

/// How one item compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "snake_case")]
pub enum ItemOp {
    /// Sent as rebuilt.
    Same,
    /// Sent, but not in the rebuilt request.
    RecordedOnly,
    /// Rebuilt, but not sent.
    RebuiltOnly,
    /// The same call or result, with other content.
    Changed,
}

/// One step of the item diff: indices into `RecordedComparison::recorded` and `rebuilt`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct ItemDiff {
    /// How it compares.
    pub op: ItemOp,
    /// The recorded item.
    pub recorded: Option<usize>,
    /// The rebuilt item.
    pub rebuilt: Option<usize>,
}

/// A recorded request and the request rebuilt from the session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct RecordedComparison {
    /// The request number it was placed at (1-based; one past the last answer = the next).
    pub request: usize,
    /// The message that answered it, when stored.
    pub answer_index: Option<usize>,
    /// The log as read.
    pub log: RecordedRequest,
    /// The rebuilt request's items.
    pub rebuilt: Vec<Item>,
    /// The stored message each rebuilt item comes from.
    pub rebuilt_from: Vec<usize>,
    /// The diff, in order.
    pub diff: Vec<ItemDiff>,
    /// Steps that are not [`ItemOp::Same`], the system prompt left out.
    pub differences: usize,
    /// Recorded system-prompt items (never stored in a session).
    pub system_items: usize,
}

/// Two sequences aligned in order (a longest common subsequence, Myers): each step is an
/// element of both, of `a` only or of `b` only; where a run of `a` was replaced by a run of
/// `b`, their elements are paired by position (a pair whose elements differ).
pub fn align<T: std::hash::Hash + Eq + Ord>(
    a: &[T],
    b: &[T],
) -> Vec<(Option<usize>, Option<usize>)> {
    let mut out = Vec::new();
    for op in similar::capture_diff_slices(similar::Algorithm::Myers, a, b) {
        match op {
            similar::DiffOp::Equal {
                old_index,
                new_index,
                len,
            } => out.extend((0..len).map(|k| (Some(old_index + k), Some(new_index + k)))),
            similar::DiffOp::Delete {
                old_index, old_len, ..
            } => out.extend((0..old_len).map(|k| (Some(old_index + k), None))),
            similar::DiffOp::Insert {
                new_index, new_len, ..
            } => out.extend((0..new_len).map(|k| (None, Some(new_index + k)))),
            similar::DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => out.extend((0..old_len.max(new_len)).map(|k| {
                (
                    (k < old_len).then_some(old_index + k),
                    (k < new_len).then_some(new_index + k),
                )
            })),
        }
    }
    out
}

/// Arguments with their keys sorted, so both sides write one object one way.
fn sorted(v: &Value) -> Value {
    match v {
        Value::Object(o) => {
            let mut keys: Vec<&String> = o.keys().collect();
            keys.sort();
            Value::Object(
                keys.into_iter()
                    .map(|k| (k.clone(), sorted(&o[k])))
                    .collect(),
            )
        }
        Value::Array(a) => Value::Array(a.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

fn canonical(mut i: Item) -> Item {
    if i.kind == "tool_call"
        && let Some((name, args)) = i.text.split_once(' ')
        && let Ok(v) = serde_json::from_str::<Value>(args)
    {
        i.text = format!("{name} {}", sorted(&v));
    }
    i
}

/// What the model receives of one stored message, item by item.
pub fn items_of(m: &Message) -> Vec<Item> {
    let role = serde_json::to_value(m.role)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default();
    m.parts
        .iter()
        .filter_map(|p| match p {
            Part::Text { text } if !text.is_empty() => Some(Item::text(&role, text)),
            Part::ToolCall {
                id,
                name,
                arguments,
            } => Some(Item::call(id, name, &arguments.value())),
            Part::ToolResult { call_id, text, .. } => Some(Item::result(call_id, &text.text())),
            Part::Image { .. } => Some(Item {
                role: role.clone(),
                kind: "image".into(),
                call_id: None,
                text: String::new(),
            }),
            _ => None,
        })
        .map(canonical)
        .collect()
}

/// What a session's messages hold, item by item, made once for every log compared with it.
pub struct Held<'s> {
    session: &'s Session,
    per: Vec<Vec<Item>>,
    ids: HashSet<String>,
}

impl<'s> Held<'s> {
    /// The items of every message of `session`, and every call id among them.
    pub fn new(session: &'s Session) -> Self {
        let per: Vec<Vec<Item>> = session.iter().map(items_of).collect();
        let ids = per
            .iter()
            .flatten()
            .filter_map(|i| i.call_id.clone())
            .collect();
        Held { session, per, ids }
    }

    /// The request `log` is, or `None` when it is not this session's.
    pub fn locate(&self, eras: &Eras, log: &RecordedRequest) -> Option<usize> {
        let recorded: Vec<Item> = log.items.iter().cloned().map(canonical).collect();
        if recorded
            .iter()
            .filter_map(|i| i.call_id.as_deref())
            .any(|id| !self.ids.contains(id))
        {
            return None;
        }
        let at = recorded
            .iter()
            .rev()
            .filter(|i| i.role != "system")
            .find_map(|i| (0..self.per.len()).rev().find(|&p| self.per[p].contains(i)))?;
        let answers = eras.answers();
        Some(
            answers
                .iter()
                .position(|&a| a > at)
                .map_or(answers.len() + 1, |k| k + 1),
        )
    }

    /// Compare `log` with request `number` rebuilt from the session.
    pub fn compare(
        &self,
        eras: &Eras,
        number: usize,
        log: &RecordedRequest,
    ) -> Option<RecordedComparison> {
        let session = self.session;
        let t = eras.request_point(number)?;
        let (mut rebuilt, mut rebuilt_from) = (Vec::new(), Vec::new());
        for p in eras.context_at(t) {
            for i in &self.per[p] {
                rebuilt.push(i.clone());
                rebuilt_from.push(session.messages[p].index);
            }
        }
        let recorded: Vec<Item> = log.items.iter().cloned().map(canonical).collect();
        let mut diff = Vec::new();
        for (r, b) in align(&recorded, &rebuilt) {
            let op = match (r, b) {
                (Some(x), Some(y)) if recorded[x] == rebuilt[y] => ItemOp::Same,
                (Some(x), Some(y)) => {
                    let (p, q) = (&recorded[x], &rebuilt[y]);
                    if p.role == q.role && p.kind == q.kind && p.call_id == q.call_id {
                        ItemOp::Changed
                    } else {
                        // Two different things at one place: each side on its own.
                        diff.push(ItemDiff {
                            op: ItemOp::RecordedOnly,
                            recorded: r,
                            rebuilt: None,
                        });
                        diff.push(ItemDiff {
                            op: ItemOp::RebuiltOnly,
                            recorded: None,
                            rebuilt: b,
                        });
                        continue;
                    }
                }
                (Some(_), None) => ItemOp::RecordedOnly,
                _ => ItemOp::RebuiltOnly,
            };
            diff.push(ItemDiff {
                op,
                recorded: r,
                rebuilt: b,
            });
        }
        let is_system = |d: &ItemDiff| d.recorded.is_some_and(|r| recorded[r].role == "system");
        let system_items = recorded.iter().filter(|i| i.role == "system").count();
        let differences = diff
            .iter()
            .filter(|d| d.op != ItemOp::Same && !is_system(d))
            .count();
        let answer_index = (number <= eras.answers().len())
            .then(|| session.messages[eras.answers()[number - 1]].index);
        Some(RecordedComparison {
            request: number,
            answer_index,
            // Shown as compared: arguments with their keys sorted on both sides.
            log: RecordedRequest {
                items: recorded,
                ..log.clone()
            },
            rebuilt,
            rebuilt_from,
            diff,
            differences,
            system_items,
        })
    }
}
