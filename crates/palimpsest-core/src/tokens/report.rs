//! The token views built from a session's piece counts: the final agent-visible context by
//! category, everything processed over the run (the sum of each request's context: the cost
//! view), the context of every request, top tools and parts, and the usage the source recorded
//! beside our estimate. Counting is `tokens/mod.rs`'s job; drawing is `charts`'.
//!
//! A request and its context are what `compaction::Eras` says (the first assistant message of
//! each run of assistant messages; the messages before it the model could see then).

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Category, CountStats, SessionCounts, ToolKind};
use crate::compaction::Eras;
use crate::model::{RecordedUsage, Role, Session, Trigger};

/// Tokens per category, one field per category (the JSON names of [`Category`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[allow(missing_docs)]
pub struct CategoryCounts {
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub system: u64,
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub user_text: u64,
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub assistant_text: u64,
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub thinking: u64,
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub tool_call_arguments: u64,
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub file_writes: u64,
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub edits: u64,
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub tool_results: u64,
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub summaries: u64,
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub other: u64,
}

impl CategoryCounts {
    fn from_array(a: &[u64; 10]) -> Self {
        CategoryCounts {
            system: a[0],
            user_text: a[1],
            assistant_text: a[2],
            thinking: a[3],
            tool_call_arguments: a[4],
            file_writes: a[5],
            edits: a[6],
            tool_results: a[7],
            summaries: a[8],
            other: a[9],
        }
    }

    /// Tokens of one category.
    pub fn get(&self, c: Category) -> u64 {
        [
            self.system,
            self.user_text,
            self.assistant_text,
            self.thinking,
            self.tool_call_arguments,
            self.file_writes,
            self.edits,
            self.tool_results,
            self.summaries,
            self.other,
        ][c.index()]
    }
}

/// One category's share of a total.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct CategoryShare {
    /// The category's JSON name (`tool_results`, ...).
    pub name: String,
    /// Tokens.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub tokens: u64,
    /// Fraction of the total, 0..=1.
    pub share: f64,
}

/// A total split by category (every category listed, in [`Category::ALL`] order).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct CategoryTotals {
    /// Tokens in all.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub total: u64,
    /// The split.
    pub categories: Vec<CategoryShare>,
}

impl CategoryTotals {
    fn from_array(a: &[u64; 10]) -> Self {
        let total: u64 = a.iter().sum();
        CategoryTotals {
            total,
            categories: Category::ALL
                .iter()
                .map(|c| CategoryShare {
                    name: c.as_str().to_owned(),
                    tokens: a[c.index()],
                    share: if total == 0 {
                        0.0
                    } else {
                        a[c.index()] as f64 / total as f64
                    },
                })
                .collect(),
        }
    }

    /// Tokens of one category.
    pub fn tokens(&self, c: Category) -> u64 {
        self.categories
            .iter()
            .find(|s| s.name == c.as_str())
            .map_or(0, |s| s.tokens)
    }
}

/// The context of one request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct RequestTokens {
    /// 0-based request number.
    pub request: usize,
    /// The assistant message that answered it.
    pub message_index: usize,
    /// Our estimate of its context.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub total: u64,
    /// The estimate by category.
    pub categories: CategoryCounts,
    /// The context the source recorded for it (input + cache reads + cache writes), when it did.
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub recorded: Option<u64>,
}

/// Tokens one tool put into the session (each stored part counted once).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct ToolTokens {
    /// The tool's name as called (`(unknown)` for results whose call is missing).
    pub name: String,
    /// What it does.
    pub kind: ToolKind,
    /// Number of calls.
    pub calls: usize,
    /// Tool-call argument tokens (bodies excluded).
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub arguments: u64,
    /// Write and edit body tokens.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub bodies: u64,
    /// Result tokens.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub results: u64,
    /// The sum.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub total: u64,
    /// The message holding this tool's largest part (to jump to).
    pub largest_message_index: usize,
}

/// One stored part and its tokens.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct PartTokens {
    /// The message (to jump to).
    pub message_index: usize,
    /// The part's position in it.
    pub part_index: usize,
    /// The category holding most of its tokens.
    pub category: String,
    /// The tool, for tool traffic.
    pub tool: Option<String>,
    /// Tokens.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub tokens: u64,
    /// Bytes counted.
    pub bytes: usize,
    /// In the final agent-visible context.
    pub agent_visible: bool,
}

/// Usage the source recorded, beside our estimate of the same thing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct UsageComparison {
    /// The session-level record (last request), when there is one.
    pub session: Option<RecordedUsage>,
    /// Context of the last recorded request: input + cache reads + cache writes.
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub recorded_context: Option<u64>,
    /// Our estimate of that same request's context.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub estimated_context: u64,
    /// estimate − recorded (positive: we count more).
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub difference: Option<i64>,
    /// difference / recorded.
    pub difference_share: Option<f64>,
    /// Requests whose messages carry usage.
    pub requests_with_usage: usize,
    /// Sum of the recorded per-request contexts (the recorded cost view).
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub recorded_processed: Option<u64>,
}

/// A compaction cut, placed on the request axis.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct CutMark {
    /// First message after the cut.
    pub cut_index: usize,
    /// First request after the cut (None when no request follows).
    pub request: Option<usize>,
    /// How it started.
    pub trigger: Option<Trigger>,
    /// Context before, when recorded.
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub pre_tokens: Option<u64>,
}

/// Everything the Tokens view shows for one session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct TokenReport {
    /// The session.
    pub session_id: String,
    /// The vocabulary (`o200k_base`, `cl100k_base`).
    pub encoding: String,
    /// The final agent-visible context by category.
    pub final_context: CategoryTotals,
    /// The sum over requests of each request's context, by category.
    pub processed: CategoryTotals,
    /// What the source recorded, beside our estimate; null when it recorded nothing.
    pub recorded_usage: Option<UsageComparison>,
    /// Tools by tokens, largest first.
    pub top_tools: Vec<ToolTokens>,
    /// Parts by tokens, largest first.
    pub top_parts: Vec<PartTokens>,
    /// The context of every request.
    pub per_request: Vec<RequestTokens>,
    /// Compaction cuts on the request axis.
    pub compactions: Vec<CutMark>,
    /// The model's context window, when known.
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub context_limit: Option<u64>,
    /// The compaction trigger drawn on the chart, when known or given.
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub trigger_tokens: Option<u64>,
    /// Cache use of this count.
    pub stats: CountStats,
}

/// Options of [`build`].
#[derive(Debug, Clone, Copy)]
pub struct ReportOptions {
    /// How many tools and parts to list.
    pub top: usize,
    /// The compaction trigger to draw; default 80% of the context window when it is known.
    pub trigger_tokens: Option<u64>,
}

impl Default for ReportOptions {
    fn default() -> Self {
        ReportOptions {
            top: 20,
            trigger_tokens: None,
        }
    }
}

/// Build the views of `session` from its `counts`.
pub fn build(session: &Session, counts: &SessionCounts, opts: ReportOptions) -> TokenReport {
    let pos: HashMap<usize, usize> = session
        .messages
        .iter()
        .enumerate()
        .map(|(p, m)| (m.index, p))
        .collect();
    let mut per_msg = vec![[0u64; 10]; session.messages.len()];
    for pc in &counts.pieces {
        if let Some(&p) = pos.get(&pc.message_index) {
            per_msg[p][pc.category.index()] += pc.tokens;
        }
    }

    let mut final_ctx = [0u64; 10];
    for (m, sums) in session.messages.iter().zip(&per_msg) {
        if m.agent_visible {
            add(&mut final_ctx, sums);
        }
    }

    let per_request = requests(session, &per_msg);
    let mut processed = [0u64; 10];
    for r in &per_request {
        for c in Category::ALL {
            processed[c.index()] += r.categories.get(c);
        }
    }
    let compactions = session
        .compactions
        .iter()
        .map(|c| CutMark {
            cut_index: c.cut_index,
            request: per_request
                .iter()
                .find(|r| r.message_index >= c.effective_index())
                .map(|r| r.request),
            trigger: c.trigger,
            pre_tokens: c.pre_tokens,
        })
        .collect();
    TokenReport {
        session_id: session.meta.id.clone(),
        encoding: counts.encoding.as_str().to_owned(),
        final_context: CategoryTotals::from_array(&final_ctx),
        processed: CategoryTotals::from_array(&processed),
        recorded_usage: usage(session, &per_request, final_ctx.iter().sum()),
        top_tools: top_tools(counts, opts.top),
        top_parts: top_parts(session, &pos, counts, opts.top),
        per_request,
        compactions,
        context_limit: session.meta.context_limit,
        trigger_tokens: opts
            .trigger_tokens
            .or(session.meta.context_limit.map(|l| l * 4 / 5)),
        stats: counts.stats,
    }
}

fn add(into: &mut [u64; 10], from: &[u64; 10]) {
    for (a, b) in into.iter_mut().zip(from) {
        *a += b;
    }
}

fn sub(from: &mut [u64; 10], what: &[u64; 10]) {
    for (a, b) in from.iter_mut().zip(what) {
        *a -= b;
    }
}

/// The context of each request, by a sweep over `compaction::Eras` (which dates each message's
/// visibility): a message joins the running sum once requests pass the point it became visible
/// (its own position, or the point a compaction took effect for the block it wrote) and leaves
/// it once they pass the point the compaction that dropped it took effect.
fn requests(session: &Session, per_msg: &[[u64; 10]]) -> Vec<RequestTokens> {
    let eras = Eras::new(session);
    let answers = eras.answers();
    let mut running = [0u64; 10];
    // Visible at t when from < t <= until: sums joining once t passes `from`, leaving once it
    // passes `until`.
    let mut joining: BTreeMap<usize, [u64; 10]> = BTreeMap::new();
    let mut leaving: BTreeMap<usize, [u64; 10]> = BTreeMap::new();
    let mut out: Vec<RequestTokens> = Vec::with_capacity(answers.len());
    let mut next = 0;
    for (pos, (m, sums)) in session.messages.iter().zip(per_msg).enumerate() {
        if next < answers.len() && answers[next] == pos {
            // Joins first: a span that both joined and left before t must not underflow.
            for (map, join) in [(&mut joining, true), (&mut leaving, false)] {
                while let Some(entry) = map.first_entry() {
                    if *entry.key() >= pos {
                        break;
                    }
                    let v = entry.remove();
                    if join {
                        add(&mut running, &v);
                    } else {
                        sub(&mut running, &v);
                    }
                }
            }
            out.push(RequestTokens {
                request: next,
                message_index: m.index,
                total: running.iter().sum(),
                categories: CategoryCounts::from_array(&running),
                recorded: None,
            });
            next += 1;
        }
        if m.role == Role::Assistant
            && let Some(u) = message_usage(m.details.as_ref())
            && let Some(r) = out.last_mut()
        {
            // Claude repeats one response's usage on each of its lines: one per request.
            r.recorded = Some(u);
        }
        let Some((from, until)) = eras.visible_span(pos) else {
            continue;
        };
        add(joining.entry(from).or_default(), sums);
        if until != usize::MAX {
            add(leaving.entry(until).or_default(), sums);
        }
    }
    out
}

/// The recorded context (input + cache reads + cache writes) in a message's usage details, as
/// the readers leave it:
/// - Claude Code: `usage` with `input_tokens`, `cache_read_input_tokens`,
///   `cache_creation_input_tokens` (fresh input apart from the cache: summed);
/// - coworker: `usage` with `input`, `cache_read`, `cache_write` (likewise summed);
/// - Codex: `last_token_usage` of the `token_count` after the answer, whose `input_tokens`
///   already includes `cached_input_tokens` (taken as is);
/// - goose (newer rows): `usage` with `inputTokens`, the whole prompt; its `cacheReadTokens` /
///   `cacheWriteTokens` are shares of it, so they are deliberately not in the key lists below.
pub fn message_usage(details: Option<&Value>) -> Option<u64> {
    let d = details?;
    let u = d
        .get("usage")
        .or_else(|| d.get("last_token_usage"))
        .or_else(|| d.pointer("/info/last_token_usage"))?;
    let num = |keys: &[&str]| keys.iter().find_map(|k| u.get(*k).and_then(Value::as_u64));
    let input = num(&["input_tokens", "input", "inputTokens", "prompt_tokens"])?;
    if u.get("cached_input_tokens").is_some() || u.get("prompt_tokens_details").is_some() {
        return Some(input);
    }
    let read = num(&[
        "cache_read_input_tokens",
        "cache_read",
        "cache_read_tokens",
        "cacheReadInputTokens",
    ])
    .unwrap_or(0);
    let write = num(&[
        "cache_creation_input_tokens",
        "cache_write",
        "cache_write_tokens",
        "cacheCreationInputTokens",
    ])
    .unwrap_or(0);
    Some(input + read + write)
}

fn usage(session: &Session, reqs: &[RequestTokens], final_total: u64) -> Option<UsageComparison> {
    let recorded: Vec<(usize, u64)> = reqs
        .iter()
        .filter_map(|r| r.recorded.map(|u| (r.request, u)))
        .collect();
    let meta = session.meta.usage.clone();
    // The reader says what the whole prompt was; input alone is the best guess without it.
    let meta_ctx = meta
        .as_ref()
        .and_then(|u| u.context_tokens.or(u.input_tokens));
    if meta.is_none() && recorded.is_empty() {
        return None;
    }
    // Compare like with like: the last request's recorded context against our estimate of it.
    let (recorded_context, estimated_context) = match (recorded.last(), meta_ctx) {
        (Some(&(r, u)), _) => (Some(u), reqs[r].total),
        (None, Some(u)) => (Some(u), reqs.last().map_or(final_total, |r| r.total)),
        (None, None) => (None, reqs.last().map_or(final_total, |r| r.total)),
    };
    let difference = recorded_context.map(|r| estimated_context as i64 - r as i64);
    Some(UsageComparison {
        session: meta,
        recorded_context,
        estimated_context,
        difference,
        difference_share: match (difference, recorded_context) {
            (Some(d), Some(r)) if r > 0 => Some(d as f64 / r as f64),
            _ => None,
        },
        requests_with_usage: recorded.len(),
        recorded_processed: (!recorded.is_empty()).then(|| recorded.iter().map(|x| x.1).sum()),
    })
}

fn top_tools(counts: &SessionCounts, top: usize) -> Vec<ToolTokens> {
    let mut by: HashMap<&str, (ToolTokens, u64)> = HashMap::new();
    let mut seen_calls: std::collections::HashSet<(usize, usize)> = Default::default();
    for pc in &counts.pieces {
        let name = match (&pc.tool, pc.category) {
            (Some(t), _) => t.as_str(),
            (None, Category::ToolResults) => "(unknown)",
            _ => continue,
        };
        let (t, largest) = by.entry(name).or_insert_with(|| {
            (
                ToolTokens {
                    name: name.to_owned(),
                    kind: pc.tool_kind.unwrap_or(ToolKind::Other),
                    calls: 0,
                    arguments: 0,
                    bodies: 0,
                    results: 0,
                    total: 0,
                    largest_message_index: pc.message_index,
                },
                0,
            )
        });
        match pc.category {
            Category::ToolCallArguments => {
                if seen_calls.insert((pc.message_index, pc.part_index)) {
                    t.calls += 1;
                }
                t.arguments += pc.tokens;
            }
            Category::FileWrites | Category::Edits => t.bodies += pc.tokens,
            _ => t.results += pc.tokens,
        }
        t.total += pc.tokens;
        if pc.tokens > *largest {
            *largest = pc.tokens;
            t.largest_message_index = pc.message_index;
        }
    }
    let mut v: Vec<ToolTokens> = by.into_values().map(|(t, _)| t).collect();
    v.sort_by(|a, b| b.total.cmp(&a.total).then_with(|| a.name.cmp(&b.name)));
    v.truncate(top);
    v
}

fn top_parts(
    session: &Session,
    pos: &HashMap<usize, usize>,
    counts: &SessionCounts,
    top: usize,
) -> Vec<PartTokens> {
    let mut parts: Vec<PartTokens> = Vec::new();
    let mut biggest_piece: Vec<u64> = Vec::new();
    for pc in &counts.pieces {
        let same = parts
            .last()
            .is_some_and(|p| p.message_index == pc.message_index && p.part_index == pc.part_index);
        if !same {
            parts.push(PartTokens {
                message_index: pc.message_index,
                part_index: pc.part_index,
                category: pc.category.as_str().to_owned(),
                tool: pc.tool.clone(),
                tokens: 0,
                bytes: 0,
                agent_visible: pos
                    .get(&pc.message_index)
                    .is_some_and(|&p| session.messages[p].agent_visible),
            });
            biggest_piece.push(0);
        }
        let (last, big) = (parts.last_mut(), biggest_piece.last_mut());
        if let (Some(p), Some(big)) = (last, big) {
            p.tokens += pc.tokens;
            p.bytes += pc.bytes;
            if pc.tokens > *big {
                *big = pc.tokens;
                p.category = pc.category.as_str().to_owned();
            }
        }
    }
    parts.sort_by(|a, b| {
        b.tokens
            .cmp(&a.tokens)
            .then_with(|| a.message_index.cmp(&b.message_index))
            .then_with(|| a.part_index.cmp(&b.part_index))
    });
    parts.truncate(top);
    parts
}
