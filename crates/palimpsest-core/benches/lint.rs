//! How fast the pairing lint is: `lint_messages` on a 10 000-message tool loop (what replay
//! calls per candidate history), and the whole per-request lint plus anatomy of the real Claude
//! Code auto-compacted transcript.

use criterion::{Criterion, criterion_group, criterion_main};
use palimpsest_core::api;
use palimpsest_core::compaction::{Api, lint_messages};
use palimpsest_core::model::{Message, Part, Role};
use serde_json::json;

fn tool_loop(n: usize) -> Vec<Message> {
    (0..n)
        .map(|i| {
            let id = format!("call_{}", i / 2);
            if i % 2 == 0 {
                Message::new(
                    i,
                    Role::Assistant,
                    vec![Part::ToolCall {
                        id,
                        name: "shell".into(),
                        arguments: json!({"cmd": "ls"}).into(),
                    }],
                )
            } else {
                Message::new(
                    i,
                    Role::User,
                    vec![Part::ToolResult {
                        call_id: id,
                        text: "ok".into(),
                        is_error: false,
                        raw: json!("ok").into(),
                    }],
                )
            }
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let msgs = tool_loop(10_000);
    let refs: Vec<&Message> = msgs.iter().skip(1).collect();
    c.bench_function("lint_messages 10k (one orphan)", |b| {
        b.iter(|| lint_messages(std::hint::black_box(&refs), Api::Openai))
    });
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/real/claude-code/258c7280-ae70-4798-800f-63464d01a85d.jsonl"
    );
    let s = api::load_session(path.as_ref(), Some("258c7280-ae70-4798-800f-63464d01a85d"))
        .expect("real transcript loads");
    c.bench_function("lint session 258c7280 (every request)", |b| {
        b.iter(|| api::lint(std::hint::black_box(&s), Api::Anthropic))
    });
    c.bench_function("compactions 258c7280", |b| {
        b.iter(|| api::compactions(std::hint::black_box(&s), None))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
