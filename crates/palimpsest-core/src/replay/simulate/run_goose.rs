//! The goose runner: after each user turn's message arrives, compact when the context over the
//! limit is strictly above the threshold (goose checks once per user turn, not inside the tool
//! loop); the cut is [`crate::replay::goose::plan`], the same rule the one-shot replay uses.
//! The context is counted from the replayed messages (goose reads the last call's usage; offline
//! the current context is the faithful stand-in).

use super::{
    ASSISTANT, NONE, Policy, Prepared, SimCompaction, SimParams, Simulation, Tally, USER_TEXT,
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
}

impl Item for Slot {
    fn is_tool_response(&self) -> bool {
        self.tool_response
    }
    fn is_preservable(&self) -> bool {
        self.preservable
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
    let continuation_tokens = continuation_tokens(wording, counter);
    let enabled = threshold > 0.0 && threshold < 1.0 && context_limit > 0;
    let mut tally = Tally::new(prep, params.detail);
    let mut ctx: Vec<Slot> = Vec::new();
    let mut sum = prep.system_tokens;
    let mut prev_assistant = false;
    for (i, e) in prep.entries.iter().enumerate() {
        if e.flags & NOTICE != 0 {
            continue;
        }
        let assistant = e.flags & ASSISTANT != 0;
        if assistant && !prev_assistant {
            tally.request(prep, i, sum);
        }
        prev_assistant = assistant;
        ctx.push(Slot {
            pos: i as u32,
            tokens: e.tokens,
            preservable: e.flags & USER_TEXT != 0,
            tool_response: e.flags & TOOL_RESULT != 0,
        });
        sum += e.tokens;
        tally.arrive(prep, i);
        if !(enabled && e.flags & USER_TEXT != 0) || sum as f64 / context_limit as f64 <= threshold
        {
            continue;
        }
        // Compact the context as it stands.
        let p = plan(&ctx, true, rule);
        let recorded = prep.recorded.get(&(i + 1));
        let summary = Slot {
            pos: NONE,
            tokens: recorded.map_or(params.summary_tokens, |r| r.1),
            preservable: true,
            tool_response: false,
        };
        let cont = Slot {
            pos: NONE,
            tokens: continuation_tokens[p.continuation as usize],
            preservable: false,
            tool_response: false,
        };
        let copy = p.preserved.filter(|_| !p.preserved_in_tail).map(|k| Slot {
            pos: NONE,
            tokens: ctx[k].tokens,
            preservable: true,
            tool_response: false,
        });
        let preserved_index = p.preserved.and_then(|k| {
            (ctx[k].pos != NONE).then(|| prep.entries[ctx[k].pos as usize].source as usize)
        });
        let mut next = Vec::with_capacity(ctx.len() - p.cut + 3);
        next.push(summary);
        next.push(cont);
        next.extend_from_slice(&ctx[p.cut..]);
        next.extend(copy);
        let before = sum;
        sum = prep.system_tokens + next.iter().map(|s| s.tokens).sum::<u64>();
        let kept: Vec<usize> = ctx[p.cut..]
            .iter()
            .filter(|s| s.pos != NONE)
            .map(|s| s.pos as usize)
            .collect();
        let floor = kept.first().copied().unwrap_or(i + 1);
        let (orphans, files) = tally.cut(prep, floor, i, sum);
        if params.detail {
            tally.sim.compactions.push(SimCompaction {
                request: tally.sim.requests.len(),
                at_index: e.source as usize,
                cut_index: kept.first().map(|&k| prep.entries[k].source as usize),
                kept_tail: kept
                    .iter()
                    .map(|&k| prep.entries[k].source as usize)
                    .collect(),
                preserved_index,
                preserved_appended: copy.is_some(),
                user_messages: None,
                tokens_before: before,
                tokens_after: sum,
                recorded_summary: recorded.is_some(),
                orphans,
                files,
            });
        }
        ctx = next;
    }
    tally.finish()
}

/// Tokens of each continuation text, indexed by [`Continuation`] as usize.
fn continuation_tokens(wording: Wording, counter: Counter<'_>) -> [u64; 3] {
    [
        Continuation::Conversation,
        Continuation::ToolLoop,
        Continuation::Manual,
    ]
    .map(|c| {
        let mut m = text_message(wording.text(c));
        m.kind = MessageKind::Continuation;
        counter(&m)
    })
}
