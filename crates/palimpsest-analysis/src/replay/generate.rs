//! A generated agent-loop session of any length, for the sweep benchmark and the simulation
//! tests: user asks, each followed by a loop of shell reads and test runs whose results vary in
//! size (a fixed linear congruential sequence, so every run is the same), then a short answer.
//! Shaped like goose (results ride in user messages).
//! Simulating it is `simulate`'s; real sessions come from `sources`.

use serde_json::json;

use crate::model::{Message, Part, Role, Session, SourceFormat};

/// A session of exactly `messages` messages.
pub fn agent_loop(messages: usize) -> Session {
    let mut msgs: Vec<Message> = Vec::with_capacity(messages);
    let mut rng: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = |m: u64| {
        rng = rng
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (rng >> 33) % m
    };
    let (mut turn, mut call) = (0usize, 0usize);
    while msgs.len() < messages {
        let i = msgs.len();
        let loop_len = 2 + next(6) as usize;
        msgs.push(Message::new(
            i,
            Role::User,
            vec![Part::Text {
                text: format!("task {turn}: make the tests in module_{} pass", turn % 17),
            }],
        ));
        for _ in 0..loop_len {
            if msgs.len() + 2 > messages {
                break;
            }
            let id = format!("call_{call}");
            call += 1;
            let cmd = if next(3) == 0 {
                "pytest -q".to_owned()
            } else {
                format!("cat src/module_{}.py", next(40))
            };
            msgs.push(Message::new(
                msgs.len(),
                Role::Assistant,
                vec![Part::ToolCall {
                    id: id.clone(),
                    name: "developer__shell".into(),
                    arguments: json!({ "command": cmd }).into(),
                }],
            ));
            let size = 200 + next(24_000) as usize;
            msgs.push(Message::new(
                msgs.len(),
                Role::User,
                vec![Part::ToolResult {
                    call_id: id,
                    text: "x = 1\n".repeat(size / 6).into(),
                    is_error: false,
                    raw: json!(null).into(),
                }],
            ));
        }
        if msgs.len() < messages {
            msgs.push(Message::new(
                msgs.len(),
                Role::Assistant,
                vec![Part::Text {
                    text: format!("Done with task {turn}."),
                }],
            ));
        }
        turn += 1;
    }
    let mut s = Session::in_memory("generated", SourceFormat::Goose, msgs, Vec::new());
    s.meta.path = String::new();
    s.meta.name = "generated agent loop".into();
    s.meta.context_limit = Some(128_000);
    s
}
