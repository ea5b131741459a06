//! The Gemini runner: before each request, when the prompt of the request before reached the
//! threshold, compress the history as it stood before the message being sent (Gemini CLI
//! compresses at the start of `sendMessageStream`, before the new message joins the history):
//! cut the function responses past the budget, split as [`crate::replay::gemini::split`]
//! does, and go on from the summary, the model's acknowledgement, the kept tail and the
//! message being sent. A compression that would not shrink the prompt is dropped, as Gemini
//! drops it. Asked to, it also compresses before the request that follows each recorded
//! compression. The context is counted from the replayed messages.

use super::{ASSISTANT, NONE, NOTICE, Policy, Prepared, SimParams, Simulation};
use super::{TOOL_RESULT, Tally, USER_SLOT, text_message};
use crate::model::Part;
use crate::replay::Counter;
use crate::replay::gemini::{ACK, Item, Settings, over_budget, split, truncated};

/// One message of the simulated history.
#[derive(Debug, Clone, Copy)]
struct Slot {
    /// Stream position, or `NONE` for a message the policy wrote.
    pos: u32,
    tokens: u64,
    /// Its tokens once cut (its tokens when it fits, or was cut already).
    cut: u64,
    split: bool,
    model: bool,
    calls: bool,
    response: bool,
}

impl Item for Slot {
    fn tokens(&self) -> u64 {
        self.tokens
    }
    fn truncated_tokens(&self) -> u64 {
        self.cut
    }
    fn split_point(&self) -> bool {
        self.split
    }
    fn model(&self) -> bool {
        self.model
    }
    fn calls(&self) -> bool {
        self.calls
    }
    fn response(&self) -> bool {
        self.response
    }
}

pub(super) fn run(prep: &Prepared<'_>, params: &SimParams, counter: Counter<'_>) -> Simulation {
    let Policy::Gemini(settings) = params.policy else {
        unreachable!("dispatched on the Gemini policy");
    };
    let mut run = Run {
        prep,
        params,
        settings,
        ack: counter.count(&text_message(ACK)),
        tally: Tally::new(prep, params.detail),
        ctx: Vec::new(),
        sum: prep.system_tokens,
        last_prompt: 0,
    };
    let trigger = settings.trigger();
    let mut prev_assistant = false;
    // Asked to, compress where the session did: before the request that follows its recorded
    // compression (unless the trigger already made it compress there).
    let mut recorded_due = false;
    for (i, e) in prep.entries.iter().enumerate() {
        recorded_due |= params.at_recorded && prep.recorded.contains_key(&i);
        if e.flags & NOTICE != 0 {
            continue;
        }
        let assistant = e.flags & ASSISTANT != 0;
        if assistant && !prev_assistant {
            let over = trigger > 0 && run.last_prompt >= trigger;
            if (over || recorded_due) && run.ctx.iter().any(|s| s.pos != NONE) {
                run.compact(i);
                recorded_due = false;
            }
            run.tally.request(prep, i, run.sum);
            run.last_prompt = run.sum;
        }
        prev_assistant = assistant;
        let response = e.flags & TOOL_RESULT != 0;
        // Only a response over the budget is ever cut: its cut size is counted once, here.
        let cut = if response && settings.response_budget > 0 {
            truncated(prep.message(i)).map_or(e.tokens, |m| counter.count(&m).min(e.tokens))
        } else {
            e.tokens
        };
        run.ctx.push(Slot {
            pos: i as u32,
            tokens: e.tokens,
            cut,
            split: e.flags & USER_SLOT != 0,
            model: assistant,
            calls: assistant
                && prep
                    .message(i)
                    .parts
                    .iter()
                    .any(|p| matches!(p, Part::ToolCall { .. })),
            response,
        });
        run.sum += e.tokens;
        run.tally.arrive(prep, i);
    }
    run.tally.finish()
}

/// A Gemini simulation under way.
struct Run<'p, 's> {
    prep: &'p Prepared<'s>,
    params: &'p SimParams,
    settings: Settings,
    /// Tokens of the model's acknowledgement.
    ack: u64,
    tally: Tally,
    ctx: Vec<Slot>,
    sum: u64,
    /// The prompt of the last request (Gemini's `lastPromptTokenCount`).
    last_prompt: u64,
}

impl Run<'_, '_> {
    /// Compress the history before stream position `next` is requested.
    fn compact(&mut self, next: usize) {
        let prep = self.prep;
        // The message being sent (a user message, or the responses to the last calls) is not
        // in the history yet.
        let sent = self.ctx.iter().rposition(|s| s.model).map_or(0, |k| k + 1);
        let mut history: Vec<Slot> = self.ctx[..sent].to_vec();
        for k in over_budget(&history, self.settings.response_budget) {
            history[k].tokens = history[k].cut;
        }
        let keep = split(&history, 1.0 - self.settings.preserve);
        if keep == 0 {
            return;
        }
        // A summary the session recorded between the end of this history and this request is
        // the one the harness wrote here (it lands before the message being sent, after or
        // before the harness's notices).
        let end = history
            .iter()
            .rev()
            .find(|s| s.pos != NONE)
            .map_or(next, |s| s.pos as usize + 1);
        let recorded = (end..=next).find_map(|k| prep.recorded.get(&k));
        let wrote = |tokens, split, model| Slot {
            pos: NONE,
            tokens,
            cut: tokens,
            split,
            model,
            calls: false,
            response: false,
        };
        let mut after = vec![
            wrote(
                recorded.map_or(self.params.summary_tokens, |r| r.1),
                true,
                false,
            ),
            wrote(self.ack, false, true),
        ];
        after.extend_from_slice(&history[keep..]);
        after.extend_from_slice(&self.ctx[sent..]);
        let before = self.sum;
        let now = prep.system_tokens + after.iter().map(|s| s.tokens).sum::<u64>();
        if now > before {
            // Gemini keeps the history when the compressed one is no smaller.
            return;
        }
        self.sum = now;
        let kept: Vec<usize> = after
            .iter()
            .filter(|s| s.pos != NONE)
            .map(|s| s.pos as usize)
            .collect();
        self.tally
            .kept_tail_cut(prep, next, &kept, (before, self.sum), recorded.is_some());
        self.ctx = after;
    }
}
