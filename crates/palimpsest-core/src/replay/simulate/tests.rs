//! Simulation on in-code sessions: where goose and coworker fire, what the walk prevents, and
//! what a cut does to the latest read of a file.

use super::*;
use crate::replay::goose::{Rule, Wording};
use crate::replay::{chars_over_four, generate, testkit};

fn goose(keep_tail: usize, naive: bool, limit: u64) -> SimParams {
    SimParams {
        policy: Policy::Goose {
            rule: Rule {
                keep_tail,
                naive,
                manual: false,
            },
            wording: Wording::Since20260216,
            threshold: 0.8,
            context_limit: limit,
        },
        summary_tokens: 50,
        detail: true,
    }
}

fn session(messages: Vec<Message>) -> Session {
    let mut s = generate::agent_loop(0);
    s.meta.message_count = messages.len();
    s.messages = messages;
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
    let counter = &chars_over_four;
    let prep = Prepared::new(&s, counter, None);
    let total: u64 = s.messages.iter().map(chars_over_four).sum();
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
    let counter = &chars_over_four;
    let prep = Prepared::new(&s, counter, None);
    let total: u64 = s.messages.iter().map(chars_over_four).sum();
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
    let counter = &chars_over_four;
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
    let counter = &chars_over_four;
    let prep = Prepared::new(&s, counter, None).with_cap(10_000, counter);
    let settings = crate::replay::coworker::Settings {
        window: 40_000,
        ..Default::default()
    };
    let params = SimParams {
        policy: Policy::Coworker(settings),
        summary_tokens: 1_000,
        detail: true,
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
