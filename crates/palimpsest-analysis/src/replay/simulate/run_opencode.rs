//! The OpenCode runner: before each request, compact when the context has reached the usable
//! window (OpenCode's overflow check on the last answer's tokens), keeping the tail
//! [`crate::replay::opencode::select`] picks, as the one-shot replay does; between turns, prune
//! old tool outputs to a stub when that frees enough (`opencode::PRUNE_*`); asked to, also
//! before the request that follows each recorded compaction. The context is counted from the
//! replayed messages.

use super::{ASSISTANT, NONE, NOTICE, Policy, Prepared, SimParams, Simulation};
use super::{TOOL_RESULT, Tally, USER_TEXT, text_message};
use crate::replay::Counter;
use crate::replay::opencode::{
    CONTINUE, Item, PRUNE_MINIMUM, PRUNE_PROTECT, PRUNED_STUB, Settings, select,
};
use crate::sources::opencode::build::COMPACTION_PROMPT;

/// One message of the simulated context.
#[derive(Debug, Clone, Copy)]
struct Slot {
    /// Stream position, or `NONE` for a message the policy wrote.
    pos: u32,
    tokens: u64,
    turn_start: bool,
    unit: u64,
    tool_result: bool,
    /// A summary this run wrote (prune stops there).
    summary: bool,
    pruned: bool,
}

impl Item for Slot {
    fn tokens(&self) -> u64 {
        self.tokens
    }
    fn turn_start(&self) -> bool {
        self.turn_start
    }
    fn unit(&self) -> u64 {
        self.unit
    }
}

pub(super) fn run(prep: &Prepared<'_>, params: &SimParams, counter: Counter<'_>) -> Simulation {
    let Policy::OpenCode(settings) = params.policy else {
        unreachable!("dispatched on the OpenCode policy");
    };
    let written = |t: &str| counter.count(&text_message(t));
    let mut run = Run {
        prep,
        params,
        settings,
        prompt: written(COMPACTION_PROMPT),
        resume: written(CONTINUE),
        stub: written(PRUNED_STUB),
        tally: Tally::new(prep, params.detail),
        ctx: Vec::new(),
        sum: prep.system_tokens,
    };
    let messages: Vec<_> = (0..prep.len()).map(|p| prep.message(p)).collect();
    let units = crate::replay::opencode::units(&messages);
    let usable = settings.usable();
    let mut prev_assistant = false;
    // Asked to, compact where the session did: before the request that follows its summary
    // (unless the usable window already made it compact there).
    let mut recorded_due = false;
    for (i, e) in prep.entries.iter().enumerate() {
        recorded_due |= params.at_recorded && prep.recorded.contains_key(&i);
        if e.flags & NOTICE != 0 {
            continue;
        }
        let assistant = e.flags & ASSISTANT != 0;
        if assistant && !prev_assistant {
            let over = usable > 0 && run.sum >= usable;
            if (over || recorded_due) && run.ctx.iter().any(|s| s.pos != NONE) {
                run.compact(i);
                recorded_due = false;
            }
            run.tally.request(prep, i, run.sum);
        }
        prev_assistant = assistant;
        let turn_start = e.flags & USER_TEXT != 0;
        if turn_start && settings.prune {
            // The loop of the turn before ended: OpenCode prunes then.
            run.prune();
        }
        run.ctx.push(Slot {
            pos: i as u32,
            tokens: e.tokens,
            turn_start,
            unit: units[i],
            tool_result: e.flags & TOOL_RESULT != 0,
            summary: false,
            pruned: false,
        });
        run.sum += e.tokens;
        run.tally.arrive(prep, i);
    }
    run.tally.finish()
}

/// An OpenCode simulation under way.
struct Run<'p, 's> {
    prep: &'p Prepared<'s>,
    params: &'p SimParams,
    settings: Settings,
    /// Tokens of "What did we do so far?", of the "Continue" message and of a pruned stub.
    prompt: u64,
    resume: u64,
    stub: u64,
    tally: Tally,
    ctx: Vec<Slot>,
    sum: u64,
}

impl Run<'_, '_> {
    /// Compact the context as it stands, before stream position `next` is requested.
    fn compact(&mut self, next: usize) {
        let prep = self.prep;
        let keep = select(&self.ctx, self.settings.tail_turns, self.settings.budget())
            .unwrap_or(self.ctx.len());
        let recorded = prep.recorded.get(&next);
        let wrote = |tokens, summary| Slot {
            pos: NONE,
            tokens,
            turn_start: false,
            unit: u64::MAX,
            tool_result: false,
            summary,
            pruned: false,
        };
        let mut after: Vec<Slot> = self.ctx[keep..].to_vec();
        after.push(wrote(self.prompt, false));
        after.push(wrote(
            recorded.map_or(self.params.summary_tokens, |r| r.1),
            true,
        ));
        after.push(wrote(self.resume, false));
        let before = self.sum;
        self.sum = prep.system_tokens + after.iter().map(|s| s.tokens).sum::<u64>();
        let kept: Vec<usize> = self.ctx[keep..]
            .iter()
            .filter(|s| s.pos != NONE)
            .map(|s| s.pos as usize)
            .collect();
        self.tally
            .kept_tail_cut(prep, next, &kept, (before, self.sum), recorded.is_some());
        self.ctx = after;
    }

    /// OpenCode's prune: from the newest message back, past the last two turns, stopping at a
    /// summary or an output pruned before, keep tool outputs up to `PRUNE_PROTECT` tokens and
    /// stub the older ones when they come to more than `PRUNE_MINIMUM`.
    fn prune(&mut self) {
        let (mut turns, mut total, mut pruned) = (0, 0, 0);
        let mut marked = Vec::new();
        for (k, s) in self.ctx.iter().enumerate().rev() {
            if s.turn_start {
                turns += 1;
            }
            if turns < 2 {
                continue;
            }
            if s.summary || s.pruned {
                break;
            }
            if s.tool_result {
                total += s.tokens;
                if total > PRUNE_PROTECT {
                    pruned += s.tokens;
                    marked.push(k);
                }
            }
        }
        if pruned > PRUNE_MINIMUM {
            for k in marked {
                let s = &mut self.ctx[k];
                self.sum = self.sum - s.tokens + self.stub.min(s.tokens);
                s.tokens = self.stub.min(s.tokens);
                s.pruned = true;
            }
        }
    }
}
