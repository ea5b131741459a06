//! Simulation on in-code sessions: where goose and coworker fire, what the walk prevents, and
//! what a cut does to the latest read of a file.

use super::*;
use crate::replay::goose::{Rule, Wording};
use crate::replay::{generate, testkit};
use crate::tokens::Counter;
use crate::tokens::counter::CharEstimate;

fn goose(keep_tail: usize, naive: bool, limit: u64) -> SimParams {
    SimParams {
        policy: Policy::Goose {
            rule: Rule {
                keep_tail,
                naive,
                manual: false,
                skip_summaries: false,
            },
            wording: Wording::Since20260216,
            threshold: 0.8,
            context_limit: limit,
        },
        summary_tokens: 50,
        detail: true,
        at_recorded: false,
    }
}

fn session(messages: Vec<Message>) -> Session {
    let mut s = generate::agent_loop(0);
    s.meta.message_count = messages.len();
    s.messages = crate::model::shared(messages);
    s
}

/// seed-five followed by a second ask: the compaction fires on that ask.
fn five_then_ask() -> Session {
    let mut m = testkit::seed_five();
    m.push(testkit::text(
        5,
        Role::User,
        "now make it back off exponentially",
    ));
    session(m)
}

#[test]
fn goose_fires_on_the_user_turn_and_keeps_the_walked_tail() {
    let s = five_then_ask();
    let counter = &CharEstimate;
    let prep = Prepared::new(&s, counter, None);
    let total: u64 = s.messages.iter().map(|m| CharEstimate.count(m)).sum();
    // A limit the whole session crosses only with the last ask: 0.8 × limit < total.
    let sim = simulate(&prep, &goose(3, false, total), counter);
    assert_eq!(
        sim.totals.requests, 2,
        "two assistant messages, two requests"
    );
    assert_eq!(
        sim.totals.compactions, 1,
        "one user turn over the threshold"
    );
    let c = &sim.compactions[0];
    assert_eq!(c.at_index, 5, "fires after the new ask arrives");
    assert_eq!(
        c.kept_tail,
        vec![3, 4, 5],
        "K=3 cut lands on the pytest request, no walk needed"
    );
    assert_eq!(c.orphans, 0, "the kept tail pairs every result");
    assert_eq!(
        c.files,
        vec![FileFate {
            path: "store.py".into(),
            read_index: 2,
            verbatim: false
        }],
        "the cat store.py result was summarised away"
    );
}

#[test]
fn goose_k4_keeps_the_file_and_naive_orphans_it() {
    let s = five_then_ask();
    let counter = &CharEstimate;
    let prep = Prepared::new(&s, counter, None);
    let total: u64 = s.messages.iter().map(|m| CharEstimate.count(m)).sum();
    let walked = simulate(&prep, &goose(4, false, total), counter);
    assert_eq!(
        walked.compactions[0].kept_tail,
        vec![1, 2, 3, 4, 5],
        "cut 2 walks to 1"
    );
    assert!(
        walked.compactions[0].files[0].verbatim,
        "store.py survives with its request"
    );
    assert_eq!(
        walked.totals.last_read_kept, 1,
        "the last read file was kept"
    );
    let naive = simulate(&prep, &goose(4, true, total), counter);
    assert_eq!(
        naive.compactions[0].kept_tail,
        vec![2, 3, 4, 5],
        "naive slices at 2"
    );
    assert_eq!(
        naive.totals.orphans, 1,
        "and opens on the orphaned cat result"
    );
}

#[test]
fn long_sessions_compact_repeatedly_and_the_walk_never_orphans() {
    let s = generate::agent_loop(3_000);
    let counter = &CharEstimate;
    let prep = Prepared::new(&s, counter, None).with_cap(10_000, counter);
    for k in 0..=8 {
        let sim = simulate(&prep, &goose(k, false, 128_000), counter);
        assert!(
            sim.totals.compactions > 5,
            "K={k}: a long loop compacts many times"
        );
        assert_eq!(
            sim.totals.orphans, 0,
            "K={k}: the walk never leaves an orphan"
        );
        assert!(
            sim.requests.iter().all(|r| r.context_tokens <= 128_000),
            "K={k}: with a 10 kB cap no request overflows the window"
        );
    }
    let naive: usize = (1..=8)
        .map(|k| {
            simulate(&prep, &goose(k, true, 128_000), counter)
                .totals
                .orphans
        })
        .sum();
    assert!(
        naive > 0,
        "naive slicing orphans results somewhere over K=1..8"
    );
}

#[test]
fn coworker_fires_at_the_trigger_and_keeps_a_quarter() {
    let s = generate::agent_loop(2_000);
    let counter = &CharEstimate;
    let prep = Prepared::new(&s, counter, None).with_cap(10_000, counter);
    let settings = crate::replay::coworker::Settings {
        window: 40_000,
        ..Default::default()
    };
    let params = SimParams {
        policy: Policy::Coworker(settings),
        summary_tokens: 1_000,
        detail: true,
        at_recorded: false,
    };
    let sim = simulate(&prep, &params, counter);
    assert!(sim.totals.compactions > 3, "a 32k trigger fires repeatedly");
    for c in &sim.compactions {
        let first = c.cut_index.expect("coworker always keeps a suffix");
        let m = &s.messages[first];
        assert!(
            (m.role == Role::User && !m.has_tool_result()) || m.role == Role::Assistant,
            "pick_boundary lands on a user ask, or an assistant inside the newest turn: {m:?}"
        );
        assert!(
            c.tokens_after < c.tokens_before,
            "a compaction shrinks the context"
        );
    }
    assert_eq!(
        sim.totals.orphans, 0,
        "boundaries at user messages orphan nothing"
    );
}

/// One ask, then a tool loop of `calls` shell calls whose results are `result_chars` long: no
/// user turn after the first, so only a compaction inside the loop can keep it in the window.
fn one_long_loop(calls: usize, result_chars: usize) -> Session {
    let mut m = vec![testkit::text(
        0,
        Role::User,
        "fix the flaky test in store.py",
    )];
    for k in 0..calls {
        let id = format!("c{k}");
        m.push(testkit::calls(m.len(), &[(id.as_str(), "cat store.py")]));
        m.push(testkit::result(m.len(), &id, &"x".repeat(result_chars)));
    }
    m.push(testkit::text(m.len(), Role::Assistant, "done"));
    session(m)
}

#[test]
fn goose_compacts_inside_a_tool_loop_when_a_request_would_not_fit() {
    let s = one_long_loop(400, 4_000);
    let counter = &CharEstimate;
    let prep = Prepared::new(&s, counter, None);
    // 400 results of 1 000 tokens each: 400k tokens on a 100k window.
    let sim = simulate(&prep, &goose(3, false, 100_000), counter);
    assert!(
        sim.totals.compactions >= 4,
        "400k tokens through a 100k window compact at least four times; got {}",
        sim.totals.compactions
    );
    assert!(
        sim.compactions.iter().all(|c| c.recovery),
        "the only user turn is tiny: every compaction is the in-loop recovery"
    );
    assert!(
        sim.requests.iter().all(|r| r.context_tokens <= 100_000),
        "no request is sent over the window: each that would be is compacted first"
    );
    assert_eq!(
        (sim.totals.orphans, sim.totals.gave_up),
        (0, 0),
        "the walk keeps each kept result with its call, and every retry fits"
    );
    let c = &sim.compactions[0];
    assert_eq!(
        c.preserved_index,
        Some(0),
        "goose preserves the last user text message, the ask at 0"
    );
    assert!(
        c.tokens_before > 100_000 && c.tokens_after < 10_000,
        "it fires when over the window and keeps a small tail; got {} → {}",
        c.tokens_before,
        c.tokens_after
    );
}

#[test]
fn goose_gives_up_when_the_retry_still_does_not_fit() {
    // One result larger than the window: kept in the tail, the retry is still over.
    let s = one_long_loop(3, 500_000);
    let counter = &CharEstimate;
    let prep = Prepared::new(&s, counter, None);
    let kept = simulate(&prep, &goose(3, false, 100_000), counter);
    assert_eq!(
        kept.totals.gave_up, 3,
        "K=3 keeps each 125k-token result verbatim: each retry is still over a 100k window"
    );
    let dropped = simulate(&prep, &goose(0, false, 100_000), counter);
    assert_eq!(
        (dropped.totals.gave_up, dropped.totals.compactions),
        (0, 3),
        "K=0 summarises each result away: three compactions, every retry fits"
    );
}
