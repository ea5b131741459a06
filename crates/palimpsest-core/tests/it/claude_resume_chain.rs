//! The active chain of a Claude Code transcript followed live (`sources::claude::chain`): a
//! transcript written line by line, built the way Claude Code writes parallel tool calls and
//! rewinds. Results of parallel calls leave the walked chain when the next result arrives, yet
//! stay seen (their calls are on it): the reader goes on from where it stopped. A rewind takes
//! messages already read off the chain: the reader reads the file whole again. After every line
//! the session equals a whole read.

use std::io::Write;
use std::path::Path;

use palimpsest_core::api;
use palimpsest_core::sources::claude::resume::{Extended, Resumable};

const ID: &str = "c4a1e000-0000-4000-8000-00000000c4a1";

fn uuid(n: u32) -> String {
    format!("00000000-0000-4000-8000-{n:012}")
}

fn line(n: u32, parent: Option<u32>, typ: &str, message: serde_json::Value) -> String {
    let v = serde_json::json!({
        "parentUuid": parent.map(uuid),
        "isSidechain": false,
        "sessionId": ID,
        "type": typ,
        "timestamp": format!("2026-03-02T09:00:{n:02}.000Z"),
        "uuid": uuid(n),
        "message": message,
    });
    format!("{v}\n")
}

fn user(n: u32, parent: Option<u32>, text: &str) -> String {
    line(
        n,
        parent,
        "user",
        serde_json::json!({"role": "user", "content": text}),
    )
}

/// One block of API response `msg`: a tool call, or text when `call` is `None`.
fn assistant(n: u32, parent: u32, msg: &str, call: Option<&str>, text: &str) -> String {
    let block = match call {
        Some(id) => serde_json::json!({"type": "tool_use", "id": id, "name": "Read",
            "input": {"file_path": text}}),
        None => serde_json::json!({"type": "text", "text": text}),
    };
    line(
        n,
        Some(parent),
        "assistant",
        serde_json::json!({"id": msg, "type": "message", "role": "assistant",
            "model": "claude-opus-4-6", "content": [block],
            "usage": {"input_tokens": 10, "output_tokens": 5}}),
    )
}

fn result(n: u32, parent: u32, call: &str) -> String {
    line(
        n,
        Some(parent),
        "user",
        serde_json::json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": call, "content": format!("body of {call}")}]}),
    )
}

fn append(path: &Path, text: &str) {
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    f.write_all(text.as_bytes()).unwrap();
}

/// Append `text`, read on, and check the session against a whole read; returns what the read did.
fn step(r: &mut Resumable, path: &Path, text: &str, what: &str) -> Extended {
    append(path, text);
    let ext = r.extend().unwrap().expect("an appended file is resumed");
    assert_eq!(
        *r.session(),
        api::load_session(path, Some(ID)).unwrap(),
        "after {what}: the session as a whole read gives it"
    );
    ext
}

fn branch_marks(r: &Resumable) -> Vec<usize> {
    r.session()
        .messages
        .iter()
        .filter(|m| {
            m.details
                .as_ref()
                .and_then(|d| d.get("branch"))
                .is_some_and(|b| b == "inactive")
        })
        .map(|m| m.index)
        .collect()
}

#[test]
fn parallel_results_go_on_and_a_rewind_is_read_whole() {
    let t = tempfile::tempdir().unwrap();
    let path = t.path().join(format!("{ID}.jsonl"));
    // A prompt, one response with two parallel Read calls (two lines, one message), and the
    // first call's result.
    let first = [
        user(1, None, "Read both files"),
        assistant(2, 1, "msg_1", Some("toolu_1"), "/a.py"),
        assistant(3, 2, "msg_1", Some("toolu_2"), "/b.py"),
        result(4, 2, "toolu_1"),
    ]
    .concat();
    std::fs::write(&path, first).unwrap();
    let mut r = Resumable::open(&path, ID, None).unwrap();
    assert_eq!(
        r.session().messages.len(),
        3,
        "the prompt, the response merged from two lines, the first result"
    );

    // The second result hangs off the second call's line: the walk from it no longer passes
    // the first result, which stays seen because its call is on the chain.
    let ext = step(&mut r, &path, &result(5, 3, "toolu_2"), "the second result");
    assert_eq!(
        ext,
        Extended::From(3),
        "a result of a parallel call is read on from message 3, not whole"
    );
    let ext = step(
        &mut r,
        &path,
        &assistant(6, 5, "msg_2", None, "Both read."),
        "the answer",
    );
    assert_eq!(ext, Extended::From(4), "the answer is message 4, read on");
    assert!(
        branch_marks(&r).is_empty(),
        "no message is a rewound branch yet"
    );
    assert!(
        r.session().messages.iter().all(|m| m.agent_visible),
        "every message is still seen by the model"
    );

    // The user rewinds to the prompt and asks again: everything after the prompt is a branch.
    let ext = step(
        &mut r,
        &path,
        &user(7, Some(1), "Only read a.py"),
        "a rewind",
    );
    assert_eq!(
        ext,
        Extended::Whole,
        "a rewind takes messages already read off the chain: the file is read whole"
    );
    assert_eq!(
        branch_marks(&r),
        vec![1, 2, 3, 4],
        "the response, both results and the answer are the rewound branch"
    );

    // After the rewind, the new branch grows as before: read on.
    let ext = step(
        &mut r,
        &path,
        &assistant(8, 7, "msg_3", Some("toolu_3"), "/a.py"),
        "the new branch's call",
    );
    assert_eq!(ext, Extended::From(6), "the new call is message 6, read on");
    assert_eq!(
        branch_marks(&r),
        vec![1, 2, 3, 4],
        "the rewound branch keeps its marks"
    );
}

#[test]
fn a_rewind_to_a_text_answer_is_read_whole() {
    let t = tempfile::tempdir().unwrap();
    let path = t.path().join(format!("{ID}.jsonl"));
    let first = [
        user(1, None, "Say hello"),
        assistant(2, 1, "msg_1", None, "Hello."),
    ]
    .concat();
    std::fs::write(&path, first).unwrap();
    let mut r = Resumable::open(&path, ID, None).unwrap();
    // No call leaves the chain here, only a text answer: its mark changes all the same.
    let ext = step(&mut r, &path, &user(3, Some(1), "Say goodbye"), "a rewind");
    assert_eq!(
        ext,
        Extended::Whole,
        "an answer already read that leaves the chain makes a whole read"
    );
    assert_eq!(
        branch_marks(&r),
        vec![1],
        "the first answer is the rewound branch"
    );
}
