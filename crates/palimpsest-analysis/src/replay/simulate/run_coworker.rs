//! The coworker runner: before every model call, compact when the signal reaches the trigger
//! (`>=`). The signal is the previous call's context within this "engine lifetime", or, right
//! after a compaction and at the start, the harness's own estimate of the outbound request
//! (`len(json.dumps(msg)) // 4`). The boundary is [`crate::replay::coworker::pick_boundary`];
//! the new block is rendered from a fresh state exactly as the harness builds it.

use super::{
    ASSISTANT, NOTICE, Prepared, SimCompaction, SimParams, Simulation, Tally, USER_SLOT,
    text_message,
};
use crate::replay::coworker::{self as cw, Settings, Slot};
use crate::replay::{Counter, pyjson};
use crate::sources::coworker::block::CompactionState;

pub(super) fn run(
    prep: &Prepared<'_>,
    params: &SimParams,
    s: &Settings,
    counter: Counter<'_>,
) -> Simulation {
    let n = prep.len();
    let slots: Vec<Slot> = prep
        .entries
        .iter()
        .map(|e| {
            if e.flags & USER_SLOT != 0 {
                Slot::User
            } else if e.flags & ASSISTANT != 0 {
                Slot::Assistant
            } else {
                Slot::Other
            }
        })
        .collect();
    let mut canon = vec![0u64; n + 1];
    let mut out = vec![0u64; n + 1];
    let mut toks = vec![0u64; n + 1];
    for (i, e) in prep.entries.iter().enumerate() {
        canon[i + 1] = canon[i] + e.canon_len;
        out[i + 1] = out[i] + e.out_len;
        toks[i + 1] = toks[i] + e.tokens;
    }
    let (trigger, keep) = (s.trigger(), s.keep_tokens());
    // Transcript names count stored lines, not the timeline (which holds rebuilt blocks).
    let stored_at = cw::canonical_indices(&prep.session().messages);
    let mut tally = Tally::new(prep, params.detail);
    let mut boundary = 0usize;
    let mut state: Option<CompactionState> = None;
    let (mut block_tokens, mut block_len) = (0u64, 0u64);
    let mut last_ctx: Option<u64> = None;
    let mut prev_assistant = false;
    for i in 0..n {
        let e = &prep.entries[i];
        let assistant = e.flags & ASSISTANT != 0;
        if assistant && !prev_assistant {
            let signal = last_ctx
                .unwrap_or_else(|| (prep.system_len + block_len + out[i] - out[boundary]) / 4);
            let before = prep.system_tokens + block_tokens + toks[i] - toks[boundary];
            if signal >= trigger
                && let Some(b) = cw::pick_boundary(&slots, &canon, 0, i, boundary, keep)
            {
                let span = (boundary..b).map(|p| prep.message(p));
                let recorded = prep.recorded.get(&b);
                let (summary_text, summary_tokens) = match recorded {
                    Some((t, k)) => (t.clone(), *k),
                    None => (String::new(), params.summary_tokens),
                };
                let boundary_index = stored_at[prep.entries[b].source as usize];
                let st = cw::build_state(state.as_ref(), span, boundary_index, summary_text, s);
                let text = cw::block(&st, s.legacy);
                let placeholder_extra = if recorded.is_some() {
                    0
                } else {
                    summary_tokens
                };
                block_tokens = counter.count(&text_message(&text)) + placeholder_extra;
                block_len = pyjson::dumps_len(&serde_json::json!({"role": "user", "content": text}))
                    as u64
                    + 4 * placeholder_extra;
                boundary = b;
                let after = prep.system_tokens + block_tokens + toks[i] - toks[boundary];
                let (orphans, files) = tally.cut(prep, boundary, i.saturating_sub(1), after);
                if params.detail {
                    tally.sim.compactions.push(SimCompaction {
                        request: tally.sim.requests.len(),
                        at_index: prep.entries[i.saturating_sub(1)].source as usize,
                        cut_index: Some(prep.entries[b].source as usize),
                        kept_tail: (b..i)
                            .filter(|&p| prep.entries[p].flags & NOTICE == 0)
                            .map(|p| prep.entries[p].source as usize)
                            .collect(),
                        preserved_index: None,
                        preserved_appended: false,
                        user_messages: Some((st.user_messages.len(), st.user_messages_dropped)),
                        tokens_before: before,
                        tokens_after: after,
                        recorded_summary: recorded.is_some(),
                        orphans,
                        files,
                        recovery: false,
                    });
                }
                state = Some(st);
            }
            // The call goes out (compacted or not); its usage is the next check's signal.
            let ctx = prep.system_tokens + block_tokens + toks[i] - toks[boundary];
            tally.request(prep, i, ctx);
            last_ctx = Some(ctx);
        }
        prev_assistant = assistant;
        tally.arrive(prep, i);
    }
    tally.finish()
}
