//! The goose runner, with goose's two automatic triggers (and, when asked, the session's own
//! recorded compaction points as a third): after each user turn's message
//! arrives, compact when the context over the limit is strictly above the threshold (checked
//! once per user turn); and inside the tool loop, when a request would exceed the context limit
//! itself (the provider refuses it, goose compacts and retries; still over, it gives up). The
//! cut is [`crate::replay::goose::plan`], the same rule the one-shot replay uses.
//! The context is counted from the replayed messages (goose reads the last call's usage; offline
//! the current context is the faithful stand-in).

use super::{
    ASSISTANT, NONE, Policy, Prepared, SUMMARY, SimCompaction, SimParams, Simulation, Tally,
    USER_TEXT,
};
use super::{NOTICE, TOOL_RESULT, text_message};
use crate::model::MessageKind;
use crate::replay::Counter;
use crate::replay::goose::{Continuation, Item, Wording, plan};

/// One message of the simulated context.
#[derive(Debug, Clone, Copy)]
struct Slot {
    /// Stream position, or `NONE` for a message the policy wrote.
    pos: u32,
    tokens: u64,
    preservable: bool,
    tool_response: bool,
    /// A summary (stored, or one this run wrote).
    summary: bool,
}

impl Item for Slot {
    fn is_tool_response(&self) -> bool {
        self.tool_response
    }
    fn is_preservable(&self) -> bool {
        self.preservable
    }
    fn is_summary(&self) -> bool {
        self.summary
    }
}

pub(super) fn run(prep: &Prepared<'_>, params: &SimParams, counter: Counter<'_>) -> Simulation {
    let Policy::Goose {
        rule,
        wording,
        threshold,
        context_limit,
    } = params.policy
    else {
        unreachable!("dispatched on the goose policy");
    };
    let mut run = Run {
        prep,
        params,
        rule,
        continuation_tokens: prep
            .continuation
            .unwrap_or_else(|| continuation_tokens(wording, counter)),
        tally: Tally::new(prep, params.detail),
        ctx: Vec::new(),
        sum: prep.system_tokens,
    };
    let enabled = threshold > 0.0 && threshold < 1.0 && context_limit > 0;
    let mut prev_assistant = false;
    // The position before which the last compaction fired: a recorded compaction the threshold
    // already made is not made twice.
    let mut compacted_before = usize::MAX;
    for (i, e) in prep.entries.iter().enumerate() {
        if params.at_recorded
            && compacted_before != i
            && prep.recorded.contains_key(&i)
            && run.ctx.iter().any(|s| s.pos != NONE)
        {
            run.compact(i, false);
            compacted_before = i;
        }
        if e.flags & NOTICE != 0 {
            continue;
        }
        let assistant = e.flags & ASSISTANT != 0;
        if assistant && !prev_assistant {
            // Recovery: a request over the context limit is refused by the provider
            // (ContextLengthExceeded); goose compacts inside the loop and retries once more,
            // then gives up. This is how a session that is one long tool loop compacts.
            if context_limit > 0 && run.sum > context_limit && run.ctx.iter().any(|s| s.pos != NONE)
            {
                run.compact(i, true);
                compacted_before = i;
                if run.sum > context_limit {
                    run.tally.sim.totals.gave_up += 1;
                }
            }
            run.tally.request(prep, i, run.sum);
        }
        prev_assistant = assistant;
        run.ctx.push(Slot {
            pos: i as u32,
            tokens: e.tokens,
            preservable: e.flags & USER_TEXT != 0,
            tool_response: e.flags & TOOL_RESULT != 0,
            summary: e.flags & SUMMARY != 0,
        });
        run.sum += e.tokens;
        run.tally.arrive(prep, i);
        // The pre-turn check: once per user turn, after its message is stored.
        if enabled && e.flags & USER_TEXT != 0 && run.sum as f64 / context_limit as f64 > threshold
        {
            run.compact(i + 1, false);
            compacted_before = i + 1;
        }
    }
    run.tally.finish()
}

/// A goose simulation under way: the context as it stands and what has been tallied.
struct Run<'p, 's> {
    prep: &'p Prepared<'s>,
    params: &'p SimParams,
    rule: crate::replay::goose::Rule,
    continuation_tokens: [u64; 3],
    tally: Tally,
    ctx: Vec<Slot>,
    sum: u64,
}

impl Run<'_, '_> {
    /// Compact the context as it stands, before stream position `next` arrives; `recovery`
    /// when it fired because a request would not fit (inside the tool loop), not at the
    /// turn's threshold check.
    fn compact(&mut self, next: usize, recovery: bool) {
        let (prep, ctx) = (self.prep, &self.ctx);
        let p = plan(ctx, true, self.rule);
        let recorded = prep.recorded.get(&next);
        let summary = Slot {
            pos: NONE,
            tokens: recorded.map_or(self.params.summary_tokens, |r| r.1),
            preservable: true,
            tool_response: false,
            summary: true,
        };
        let cont = Slot {
            pos: NONE,
            tokens: self.continuation_tokens[p.continuation as usize],
            preservable: false,
            tool_response: false,
            summary: false,
        };
        let copy = p.preserved.filter(|_| !p.preserved_in_tail).map(|k| Slot {
            pos: NONE,
            tokens: ctx[k].tokens,
            preservable: true,
            tool_response: false,
            summary: ctx[k].summary,
        });
        let preserved_index = p.preserved.and_then(|k| {
            (ctx[k].pos != NONE).then(|| prep.entries[ctx[k].pos as usize].source as usize)
        });
        let mut after = Vec::with_capacity(ctx.len() - p.cut + 3);
        after.push(summary);
        after.push(cont);
        after.extend_from_slice(&ctx[p.cut..]);
        after.extend(copy);
        let before = self.sum;
        self.sum = prep.system_tokens + after.iter().map(|s| s.tokens).sum::<u64>();
        let kept: Vec<usize> = ctx[p.cut..]
            .iter()
            .filter(|s| s.pos != NONE)
            .map(|s| s.pos as usize)
            .collect();
        let last = next.saturating_sub(1);
        let floor = kept.first().copied().unwrap_or(next);
        let (orphans, files) = self.tally.cut(prep, floor, last, self.sum);
        if self.params.detail {
            self.tally.sim.compactions.push(SimCompaction {
                request: self.tally.sim.requests.len(),
                at_index: prep.entries[last].source as usize,
                cut_index: kept.first().map(|&k| prep.entries[k].source as usize),
                kept_tail: kept
                    .iter()
                    .map(|&k| prep.entries[k].source as usize)
                    .collect(),
                preserved_index,
                preserved_appended: copy.is_some(),
                user_messages: None,
                tokens_before: before,
                tokens_after: self.sum,
                recorded_summary: recorded.is_some(),
                orphans,
                files,
                recovery,
            });
        }
        self.ctx = after;
    }
}

/// Tokens of each continuation text, indexed by [`Continuation`] as usize.
pub(crate) fn continuation_tokens(wording: Wording, counter: Counter<'_>) -> [u64; 3] {
    [
        Continuation::Conversation,
        Continuation::ToolLoop,
        Continuation::Manual,
    ]
    .map(|c| {
        let mut m = text_message(wording.text(c));
        m.kind = MessageKind::Continuation;
        counter.count(&m)
    })
}
