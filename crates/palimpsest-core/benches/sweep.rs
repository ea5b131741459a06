//! The replay sweep benchmark (criterion): 11 keep-tail values × 6 tool-result caps on a
//! generated 30 000-message agent loop, with token counts already made (the session is prepared
//! once, as the app does after counting; each cap then recounts only the results it cuts, one
//! thread per column). The target is under 100 ms per sweep once token counts exist:
//! `counts_made` times the simulations alone, every capped variant counted beforehand;
//! `prepare` times the one-off reduction.
//!
//! Run: `cargo bench -p palimpsest-core --bench sweep`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use palimpsest_core::replay::generate;
use palimpsest_core::replay::goose::{Rule, Wording};
use palimpsest_core::replay::simulate::{Policy, Prepared, SimParams};
use palimpsest_core::replay::sweep::{Axis, Metric, sweep, sweep_prepared};
use palimpsest_core::tokens::counter::CharEstimate;

fn params() -> SimParams {
    SimParams {
        policy: Policy::Goose {
            rule: Rule::default(),
            wording: Wording::Since20260216,
            threshold: 0.8,
            context_limit: 128_000,
        },
        summary_tokens: 2_000,
        detail: false,
        at_recorded: false,
    }
}

fn bench(c: &mut Criterion) {
    let session = generate::agent_loop(30_000);
    let counter = &CharEstimate;
    let prep = Prepared::tokens_only(&session, counter);
    let ks: Vec<usize> = (0..=10).collect();
    let caps = vec![0, 5_000, 10_000, 20_000, 30_000, 50_000];
    let mut g = c.benchmark_group("replay");
    g.sample_size(20);
    g.bench_function("sweep_11k_x_6caps_30k_messages", |b| {
        b.iter(|| {
            let grid = sweep(
                black_box(&prep),
                &params(),
                Axis::KeepTail(ks.clone()),
                Axis::ToolResultCap(caps.clone()),
                Metric::TokensProcessed,
                counter,
            );
            black_box(grid)
        })
    });
    // Token counts of every capped variant made beforehand: the simulations alone.
    let preps: Vec<Prepared> = caps.iter().map(|&c| prep.with_cap(c, counter)).collect();
    g.bench_function("sweep_11k_x_6caps_counts_made", |b| {
        b.iter(|| {
            black_box(sweep_prepared(
                black_box(&preps),
                &params(),
                Axis::KeepTail(ks.clone()),
                Axis::ToolResultCap(caps.clone()),
                Metric::TokensProcessed,
                counter,
            ))
        })
    });
    g.bench_function("prepare_30k_messages", |b| {
        b.iter(|| black_box(Prepared::tokens_only(black_box(&session), counter).len()))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
