//! Token accounting on real and hand-built inputs: counts equal tiktoken's, each format's tools
//! land in the right categories with exact totals, the cache hits and misses as it should,
//! cancellation stops counting, and the request views follow compaction cuts.

use std::sync::atomic::{AtomicBool, Ordering};

use palimpsest_core::model::{
    CompactionRecord, Message, MessageKind, Part, Role, Session, SourceFormat, Trigger,
};
use palimpsest_core::tokens::{self, Category, Encoding, TokenCache};
use palimpsest_core::views::tokens::{self as report, ReportOptions};
use serde_json::{Value, json};

/// tiktoken's own count (the reference engine), for independent expectations.
pub(crate) fn tiktoken(enc: Encoding, text: &str) -> u64 {
    let bpe = match enc {
        Encoding::O200kBase => tiktoken_rs::o200k_base_singleton(),
        Encoding::Cl100kBase => tiktoken_rs::cl100k_base_singleton(),
    };
    bpe.encode_ordinary(text).len() as u64
}

fn session(format: SourceFormat, messages: Vec<Message>) -> Session {
    Session::in_memory("s", format, messages, Vec::new())
}

fn text(i: usize, role: Role, t: &str) -> Message {
    Message::new(i, role, vec![Part::Text { text: t.into() }])
}

fn call(i: usize, id: &str, name: &str, args: Value) -> Message {
    Message::new(
        i,
        Role::Assistant,
        vec![Part::ToolCall {
            id: id.into(),
            name: name.into(),
            arguments: args.into(),
        }],
    )
}

fn result(i: usize, role: Role, id: &str, out: &str) -> Message {
    Message::new(
        i,
        role,
        vec![Part::ToolResult {
            call_id: id.into(),
            text: out.into(),
            is_error: false,
            raw: Value::Null.into(),
        }],
    )
}

fn count(s: &Session) -> tokens::SessionCounts {
    tokens::count_session(
        s,
        Encoding::O200kBase,
        None,
        &mut |_| {},
        &AtomicBool::new(false),
    )
    .expect("counting in memory cannot fail")
}

fn totals(s: &Session) -> report::TokenReport {
    report::build(s, &count(s), ReportOptions::default())
}

#[test]
fn published_counts() {
    for enc in Encoding::ALL {
        assert_eq!(
            enc.count("hello world"),
            2,
            "{enc}: tiktoken's README example is 2 tokens"
        );
        assert_eq!(enc.count(""), 0, "{enc}: empty text has no tokens");
    }
    assert_eq!(
        Encoding::Cl100kBase.count("tiktoken is great!"),
        6,
        "OpenAI's cookbook counts 6 cl100k tokens"
    );
}

#[test]
fn counts_equal_tiktoken_on_code_prose_and_unicode() {
    let crates = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let mut corpus: Vec<String> = Vec::new();
    for dir in [
        format!("{crates}/palimpsest-core/src"),
        format!("{crates}/palimpsest-tokens/src"),
        format!("{crates}/palimpsest-model/src/sources"),
    ] {
        for e in std::fs::read_dir(&dir).expect("core sources are readable") {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "rs") {
                corpus.push(std::fs::read_to_string(p).unwrap());
            }
        }
    }
    corpus.extend(
        [
            "naïve café — déjà vu; Ἀθῆναι; Москва; 東京都; 서울; مرحبا بالعالم; שלום",
            "emoji 👩‍💻🚀🎉 and flags 🇫🇷🇯🇵, zero‑width\u{200b}joiner",
            "e\u{301} vs é (combining), ﬁ ligature, full-width ＡＢＣ１２３",
            "    indented\n\n\n\t\ttabs   trailing   \n   ",
            "{\"type\":\"tool_result\",\"content\":\"line1\\nline2\\t\\u00e9\"}",
            "I'll we've they're it's DON'T HE'LL",
            "12345678901234567890 3.14159 0x1F 1e-9",
        ]
        .map(str::to_owned),
    );
    corpus.push("a".repeat(5000));
    corpus.push("ab ".repeat(3000));
    for enc in Encoding::ALL {
        for (i, t) in corpus.iter().enumerate() {
            assert_eq!(
                enc.count(t),
                tiktoken(enc, t),
                "{enc}: corpus text {i} must count exactly as tiktoken does"
            );
        }
    }
}

/// A session whose parts are each counted as one known piece.
fn by_category(s: &Session) -> Vec<(Category, u64)> {
    let r = totals(s);
    Category::ALL
        .iter()
        .map(|&c| (c, r.final_context.tokens(c)))
        .filter(|x| x.1 > 0)
        .collect()
}

fn t(s: &str) -> u64 {
    tiktoken(Encoding::O200kBase, s)
}

#[test]
fn goose_write_edit_shell_and_view() {
    let s = session(
        SourceFormat::Goose,
        vec![
            text(0, Role::User, "make a file"),
            call(
                1,
                "c1",
                "developer__text_editor",
                json!({"command": "write", "path": "/a.py", "file_text": "print('hi')\n"}),
            ),
            result(2, Role::User, "c1", "Successfully wrote to /a.py"),
            call(
                3,
                "c2",
                "developer__text_editor",
                json!({"command": "str_replace", "path": "/a.py", "old_str": "hi", "new_str": "bye"}),
            ),
            result(4, Role::User, "c2", "ok"),
            call(
                5,
                "c3",
                "developer__shell",
                json!({"command": "python a.py"}),
            ),
            result(6, Role::User, "c3", "bye\n"),
            text(7, Role::Assistant, "Done."),
        ],
    );
    let want = vec![
        (Category::UserText, t("make a file")),
        (Category::AssistantText, t("Done.")),
        (
            Category::ToolCallArguments,
            t(r#"developer__text_editor{"command":"write","path":"/a.py"}"#)
                + t(r#"developer__text_editor{"command":"str_replace","path":"/a.py"}"#)
                + t(r#"developer__shell{"command":"python a.py"}"#),
        ),
        (Category::FileWrites, t(r#""print('hi')\n""#)),
        (Category::Edits, t(r#""hi""#) + t(r#""bye""#)),
        (
            Category::ToolResults,
            t("Successfully wrote to /a.py") + t("ok") + t("bye\n"),
        ),
    ];
    assert_eq!(
        by_category(&s),
        want,
        "goose: file_text is a write, old/new_str are edits"
    );
    let r = totals(&s);
    let shell = r
        .top_tools
        .iter()
        .find(|x| x.name == "developer__shell")
        .unwrap();
    assert_eq!(
        (shell.calls, shell.results),
        (1, t("bye\n")),
        "a result finds its tool through its call id"
    );
}

#[test]
fn claude_write_edit_multiedit_read() {
    let s = session(
        SourceFormat::ClaudeCode,
        vec![
            call(
                0,
                "w",
                "Write",
                json!({"file_path": "/x.md", "content": "# Title\n\nBody text.\n"}),
            ),
            result(1, Role::User, "w", "File created successfully at: /x.md"),
            call(
                2,
                "e",
                "Edit",
                json!({"file_path": "/x.md", "old_string": "Body", "new_string": "Main"}),
            ),
            call(
                3,
                "m",
                "MultiEdit",
                json!({"file_path": "/x.md", "edits": [{"old_string": "a", "new_string": "b"}]}),
            ),
            call(4, "r", "Read", json!({"file_path": "/x.md"})),
            result(5, Role::User, "r", "     1\t# Title\n"),
        ],
    );
    let r = totals(&s);
    assert_eq!(
        r.final_context.tokens(Category::FileWrites),
        t(r##""# Title\n\nBody text.\n""##),
        "Claude Write content is a whole-file write"
    );
    assert_eq!(
        r.final_context.tokens(Category::Edits),
        t(r#""Body""#) + t(r#""Main""#) + t(r#"[{"old_string":"a","new_string":"b"}]"#),
        "Edit strings and MultiEdit edits are edit bodies"
    );
    assert_eq!(
        r.final_context.tokens(Category::ToolResults),
        t("File created successfully at: /x.md") + t("     1\t# Title\n"),
        "results of Write and Read"
    );
}

#[test]
fn codex_apply_patch_added_files_are_writes() {
    let patch = "*** Begin Patch\n*** Add File: new.txt\n+fresh line\n*** Update File: old.txt\n@@\n-x\n+y\n*** End Patch\n";
    let s = session(
        SourceFormat::Codex,
        vec![
            call(0, "p", "apply_patch", Value::String(patch.into())),
            result(1, Role::Tool, "p", "Success. Updated the following files"),
            call(2, "x", "exec_command", json!({"cmd": "ls"})),
        ],
    );
    let want = vec![
        (
            Category::ToolCallArguments,
            t("apply_patch") + t(r#"exec_command{"cmd":"ls"}"#),
        ),
        (
            Category::FileWrites,
            t("*** Add File: new.txt\n+fresh line\n"),
        ),
        (
            Category::Edits,
            t("*** Begin Patch\n*** Update File: old.txt\n@@\n-x\n+y\n*** End Patch\n"),
        ),
        (
            Category::ToolResults,
            t("Success. Updated the following files"),
        ),
    ];
    assert_eq!(
        by_category(&s),
        want,
        "Codex: the Add File section is a write, the rest an edit"
    );
}

#[test]
fn coworker_tools_system_and_summary() {
    let mut summary = text(
        4,
        Role::User,
        "<compacted-history>summary</compacted-history>",
    );
    summary.kind = MessageKind::Summary;
    let s = session(
        SourceFormat::Coworker,
        vec![
            text(0, Role::System, "You are a coworker."),
            call(
                1,
                "a",
                "write_file",
                json!({"path": "a.py", "content": "x = 1\n"}),
            ),
            call(
                2,
                "b",
                "replace_in_file",
                json!({"path": "a.py", "old_text": "1", "new_text": "2"}),
            ),
            result(3, Role::Tool, "b", "{\"ok\": true}"),
            summary,
        ],
    );
    let want = vec![
        (Category::System, t("You are a coworker.")),
        (
            Category::ToolCallArguments,
            t(r#"write_file{"path":"a.py"}"#) + t(r#"replace_in_file{"path":"a.py"}"#),
        ),
        (Category::FileWrites, t(r#""x = 1\n""#)),
        (Category::Edits, t(r#""1""#) + t(r#""2""#)),
        (Category::ToolResults, t("{\"ok\": true}")),
        (
            Category::Summaries,
            t("<compacted-history>summary</compacted-history>"),
        ),
    ];
    assert_eq!(
        by_category(&s),
        want,
        "coworker: write_file, replace_in_file, summary kind"
    );
}

/// u0 a1 u2 [cut at 3: summary] a4 u5 a6; u0..a1 hidden by the cut, u2 kept.
fn compacted() -> Session {
    let mut msgs = vec![
        text(0, Role::User, "first question here"),
        text(1, Role::Assistant, "first answer"),
        text(2, Role::User, "second question"),
        text(3, Role::User, "summary of the first exchange"),
        text(4, Role::Assistant, "second answer"),
        text(5, Role::User, "third"),
        text(6, Role::Assistant, "third answer"),
    ];
    msgs[0].agent_visible = false;
    msgs[1].agent_visible = false;
    msgs[3].kind = MessageKind::Summary;
    let mut s = session(SourceFormat::Coworker, msgs);
    s.compactions.push(CompactionRecord {
        cut_index: 3,
        trigger: Some(Trigger::Auto),
        pre_tokens: None,
        post_tokens: None,
        post_tokens_from_usage: false,
        summary_index: Some(3),
        kept: vec![],
        raw: None,
        applied_index: None,
        archived: None,
    });
    s
}

/// (answer index, context total) of every request.
fn contexts(r: &report::TokenReport) -> Vec<(usize, u64)> {
    r.per_request
        .iter()
        .map(|q| (q.message_index, q.total))
        .collect()
}

/// tiktoken counts of `compacted()`'s six distinct texts, in order.
fn compacted_tokens() -> [u64; 6] {
    [
        "first question here",
        "first answer",
        "second question",
        "summary of the first exchange",
        "second answer",
        "third",
    ]
    .map(t)
}

#[test]
fn requests_follow_compaction_cuts() {
    let s = compacted();
    let r = totals(&s);
    let ctx = contexts(&r);
    let [u0, _, u2, sm, a4, u5] = compacted_tokens();
    assert_eq!(
        ctx,
        vec![(1, u0), (4, u2 + sm), (6, u2 + sm + a4 + u5)],
        "before the cut the first exchange is in context; after it only the summary and later turns"
    );
    assert_eq!(
        r.processed.total,
        u0 + (u2 + sm) + (u2 + sm + a4 + u5),
        "processed = sum of contexts"
    );
    assert_eq!(
        r.compactions[0].request,
        Some(1),
        "the cut lands before request 1"
    );
}

/// u0 a1 u2 [summary at 3] a4 [notice at 5: the compaction took effect here] u6 a7: a4
/// answered the old context, a7 the compacted one.
#[test]
fn requests_follow_the_point_a_compaction_took_effect() {
    let mut s = compacted();
    let mut notice = text(5, Role::User, "Context compacted");
    notice.kind = MessageKind::Notification;
    notice.agent_visible = false;
    s.messages.insert(5, notice.into());
    for (i, m) in s
        .messages
        .iter_mut()
        .map(std::sync::Arc::make_mut)
        .enumerate()
    {
        m.index = i;
    }
    s.compactions[0].applied_index = Some(5);
    let r = totals(&s);
    let ctx = contexts(&r);
    let [u0, a1, u2, sm, a4, u6] = compacted_tokens();
    assert_eq!(
        ctx,
        vec![(1, u0), (4, u0 + a1 + u2), (7, u2 + sm + a4 + u6)],
        "a4 answered before the notice (first exchange, no summary); a7 after it"
    );
    assert_eq!(
        r.compactions[0].request,
        Some(2),
        "the compaction lands before the third request (index 2), not the second"
    );
}

#[test]
fn cache_hits_after_the_first_count_and_per_encoding() {
    let dir = tempfile::tempdir().unwrap();
    let cache = TokenCache::open(dir.path()).unwrap();
    let big = "fn main() { println!(\"hello\"); }\n".repeat(40);
    let s = session(
        SourceFormat::MessageLog,
        vec![
            text(0, Role::User, &big),
            text(1, Role::Assistant, "short"),
            text(2, Role::User, &big),
        ],
    );
    let no = AtomicBool::new(false);
    let first =
        tokens::count_session(&s, Encoding::O200kBase, Some(&cache), &mut |_| {}, &no).unwrap();
    assert_eq!(
        (first.stats.cache_hits, first.stats.counted),
        (1, 2),
        "first count: the repeated big text is counted once and reused in-session; the short one is counted"
    );
    assert_eq!(
        cache.len().unwrap(),
        1,
        "only texts of CACHE_MIN_BYTES or more are stored"
    );
    let again =
        tokens::count_session(&s, Encoding::O200kBase, Some(&cache), &mut |_| {}, &no).unwrap();
    assert_eq!(
        (again.stats.cache_hits, again.stats.counted),
        (2, 1),
        "second count: both big texts hit"
    );
    assert_eq!(first.pieces, again.pieces, "cached counts equal fresh ones");
    let cl =
        tokens::count_session(&s, Encoding::Cl100kBase, Some(&cache), &mut |_| {}, &no).unwrap();
    assert_eq!(
        cl.stats.cache_hits, 1,
        "another encoding misses the first time"
    );
    assert_eq!(
        cl.pieces[0].tokens,
        tiktoken(Encoding::Cl100kBase, &big),
        "and counts with its own vocabulary"
    );
}

#[test]
fn cancel_stops_counting_and_keeps_what_was_done() {
    let dir = tempfile::tempdir().unwrap();
    let cache = TokenCache::open(dir.path()).unwrap();
    let msgs: Vec<Message> = (0..64)
        .map(|i| text(i, Role::User, &format!("message {i} ").repeat(8000)))
        .collect();
    let s = session(SourceFormat::MessageLog, msgs);
    let cancel = AtomicBool::new(false);
    let mut calls = 0;
    let err = tokens::count_session(
        &s,
        Encoding::O200kBase,
        Some(&cache),
        &mut |p| {
            calls += 1;
            if p.done_bytes > 0 {
                cancel.store(true, Ordering::Relaxed);
            }
        },
        &cancel,
    )
    .expect_err("a set cancel flag stops counting");
    assert_eq!(
        err.code().as_str(),
        "cancelled",
        "the error says cancelled: {err}"
    );
    let stored = cache.len().unwrap();
    assert!(
        stored > 0 && stored < 64,
        "counts made before the cancel are kept ({stored} of 64)"
    );
    assert!(
        calls >= 2,
        "progress was reported at the start and on the way"
    );
}

#[test]
fn claude_transcripts_count_like_tiktoken() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/real/claude-code/subagent.jsonl"
    );
    if !std::path::Path::new(path).exists() {
        return;
    }
    let s = palimpsest_core::api::load_session(std::path::Path::new(path), None).unwrap();
    let counts = count(&s);
    let pieces = tokens::category::pieces(&s);
    let reference: u64 = pieces
        .iter()
        .map(|p| tiktoken(Encoding::O200kBase, &p.text.get()))
        .sum();
    let ours: u64 = counts.pieces.iter().map(|p| p.tokens).sum();
    assert_eq!(
        ours, reference,
        "every piece of a real transcript counts as tiktoken counts it"
    );
    let r = report::build(&s, &counts, ReportOptions::default());
    assert_eq!(
        r.final_context.total, 15_103,
        "final context of subagent.jsonl (o200k)"
    );
    assert_eq!(r.per_request.len(), 12, "12 requests in subagent.jsonl");
    let write = r
        .top_tools
        .iter()
        .find(|x| x.name == "Write")
        .expect("the transcript writes a file");
    assert!(
        write.bodies > write.arguments,
        "the Write body outweighs its path argument"
    );
    let usage = r.recorded_usage.expect("Claude records usage per message");
    assert_eq!(
        usage.requests_with_usage, 12,
        "one usage per request, not per line"
    );
}

fn fixture_report(rel: &str, id: Option<&str>) -> report::TokenReport {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures")
        .join(rel);
    let s = palimpsest_core::api::load_session(&path, id).expect("fixture loads");
    totals(&s)
}

fn recorded(r: &report::TokenReport) -> Vec<Option<u64>> {
    r.per_request.iter().map(|q| q.recorded).collect()
}

#[test]
fn goose_recorded_usage_is_the_session_token_columns() {
    let r = fixture_report("goose/sessions.db", Some("seed-five"));
    let u = r
        .recorded_usage
        .clone()
        .expect("seed-five has token columns");
    assert_eq!(
        recorded(&r),
        [None, None],
        "goose rows of this schema carry no per-message usage"
    );
    assert_eq!(
        (
            u.recorded_context,
            u.requests_with_usage,
            u.recorded_processed
        ),
        (Some(2_000), 0, None),
        "the last call's input_tokens column (2 000) is the recorded context"
    );
    assert_eq!(
        u.session.and_then(|s| s.accumulated_total_tokens),
        Some(5_100),
        "accumulated_total_tokens column"
    );
}

#[test]
fn codex_recorded_usage_is_each_answers_token_count() {
    let r = fixture_report(
        "codex/sessions/2026/02/24/rollout-2026-02-24T10-51-00-019c8f0a-0000-7000-8000-00000000a001.jsonl",
        None,
    );
    // token_count after the first answer: last input 239 000 (120 000 of it cached); the one
    // after "Keep going." has no answer (the compaction replaced it); after the compaction
    // 29 000 (15 000 cached). OpenAI input already includes the cached tokens.
    assert_eq!(
        recorded(&r),
        [None, Some(239_000), Some(29_000)],
        "each token_count is the request whose answer precedes it; the reasoning-only first \
         answer was never reported"
    );
    let u = r.recorded_usage.expect("Codex records usage");
    assert_eq!(
        (
            u.recorded_context,
            u.requests_with_usage,
            u.recorded_processed
        ),
        (Some(29_000), 2, Some(268_000)),
        "cached input is not added on top of input_tokens"
    );
    assert_eq!(
        u.session.and_then(|s| s.context_tokens),
        Some(29_000),
        "the session's last context is the last token_count's input"
    );
}

#[test]
fn coworker_recorded_usage_is_each_assistant_sidecar() {
    let r = fixture_report("coworker/state", Some("a1b2c3d4e5f6"));
    // input + cache_read + cache_write of each assistant line's `usage` sidecar.
    let want = [
        7_168,
        9_500 + 7_000,
        3_000 + 9_000,
        2_000 + 11_000,
        2_500 + 3_000,
        3_100 + 3_000,
        4_000 + 2_000,
        5_000 + 2_000,
    ];
    assert_eq!(
        recorded(&r),
        want.map(Some),
        "one sidecar per answered request, fresh input plus cache"
    );
    let u = r.recorded_usage.expect("coworker records usage");
    assert_eq!(
        (
            u.recorded_context,
            u.requests_with_usage,
            u.recorded_processed
        ),
        (Some(7_000), 8, Some(want.iter().sum())),
        "the last sidecar is the recorded context"
    );
    assert_eq!(
        u.session.and_then(|s| s.context_tokens),
        Some(7_000),
        "the session's last context counts cache reads (coworker keeps them apart from input)"
    );
}

#[test]
fn claude_recorded_usage_is_one_per_response_not_per_line() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/real/claude-code/short.jsonl"
    );
    if !std::path::Path::new(path).exists() {
        return;
    }
    let s = palimpsest_core::api::load_session(std::path::Path::new(path), None).unwrap();
    let lines_with_usage = s
        .messages
        .iter()
        .filter(|m| report::message_usage(m).is_some())
        .count();
    assert_eq!(
        lines_with_usage, 1,
        "short.jsonl stores one response (one message.id, one usage) over five content-block \
         lines: the reader makes them one message"
    );
    let r = totals(&s);
    assert_eq!(
        recorded(&r),
        [Some(3 + 13_835 + 11_515)],
        "input + cache creation + cache read, once for the one request"
    );
    let u = r.recorded_usage.expect("Claude records usage");
    assert_eq!(
        (
            u.recorded_processed,
            u.session.and_then(|s| s.context_tokens)
        ),
        (Some(25_353), Some(25_353)),
        "the repeated usage is not summed five times"
    );
}
