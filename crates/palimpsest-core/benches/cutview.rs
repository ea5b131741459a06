//! How fast the app's cut views answer: `session_cuts` (anatomy, file fates, lint under both
//! APIs) and one `request_view` (a stepper step) on the real auto-compacted Claude Code
//! transcript, and on a 100 000-message `cat`-and-result loop (every result carries a file).

use criterion::{Criterion, criterion_group, criterion_main};
use palimpsest_core::api;
use palimpsest_core::model::{Message, Part, Role, Session, SessionMeta, SourceFormat};
use serde_json::json;

fn cat_loop(n: usize) -> Session {
    let messages = (0..n)
        .map(|i| {
            let id = format!("call_{}", i / 2);
            let part = if i % 2 == 0 {
                Part::ToolCall {
                    id,
                    name: "developer__shell".into(),
                    arguments: json!({"command": format!("cat src/f{}.py", i % 50)}).into(),
                }
            } else {
                Part::ToolResult {
                    call_id: id,
                    text: "def f():\n    return 1\n".into(),
                    is_error: false,
                    raw: json!(null).into(),
                }
            };
            let role = if i % 2 == 0 {
                Role::Assistant
            } else {
                Role::User
            };
            Message::new(i, role, vec![part]).into()
        })
        .collect();
    // Built from JSON so fields added to the model later keep their serde defaults.
    let meta: SessionMeta = serde_json::from_value(json!({
        "id": "loop", "format": SourceFormat::Goose, "path": "/bench/loop", "name": "loop",
        "working_dir": "/work/proj", "message_count": n, "compaction_count": 0,
    }))
    .expect("a valid listing");
    Session {
        meta,
        messages,
        compactions: Vec::new(),
    }
}

fn bench(c: &mut Criterion) {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/real/claude-code/258c7280-ae70-4798-800f-63464d01a85d.jsonl"
    );
    let s = api::load_session(path.as_ref(), Some("258c7280-ae70-4798-800f-63464d01a85d"))
        .expect("real transcript loads");
    let next = api::session_cuts(&s, None).requests.len();
    c.bench_function("session_cuts 258c7280", |b| {
        b.iter(|| api::session_cuts(std::hint::black_box(&s), None))
    });
    c.bench_function("request_view 258c7280 next request", |b| {
        b.iter(|| api::request_view(std::hint::black_box(&s), next, None))
    });
    let big = cat_loop(100_000);
    c.bench_function("session_cuts 100k cat loop", |b| {
        b.iter(|| api::session_cuts(std::hint::black_box(&big), None))
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = bench
}
criterion_main!(benches);
