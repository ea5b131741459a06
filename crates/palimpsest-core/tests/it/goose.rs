//! The goose reader on the committed fixtures (schema 16, schema 6, legacy jsonl): exact message
//! sequences, kinds, visibility, compaction records and listing. Bad input, the read-only
//! guarantee and odd schemas are in `goose_input.rs`.

use std::path::PathBuf;

use palimpsest_core::model::{
    CompactionRecord, Message, Part, Role, Session, SourceFormat, Trigger, View,
};
use palimpsest_core::sources;
use serde_json::json;

fn fixture(rel: &str) -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/goose")).join(rel)
}

/// The three stored shapes of every fixture session.
const SHAPES: [&str; 3] = ["sessions.db", "v6/sessions.db", "legacy"];

fn load(shape: &str, id: &str) -> Session {
    let path = if shape == "legacy" {
        fixture(&format!("legacy/{id}.jsonl"))
    } else {
        fixture(shape)
    };
    sources::open(&path)
        .unwrap_or_else(|e| panic!("open {}: {e}", path.display()))
        .load(&path, Some(id))
        .unwrap_or_else(|e| panic!("load {id} from {}: {e}", path.display()))
}

/// One line per message: role, kind, agent/user visibility, part types.
fn shape_of(s: &Session) -> Vec<String> {
    s.messages
        .iter()
        .map(|m| {
            let parts: Vec<&str> = m.parts.iter().map(Part::type_name).collect();
            format!(
                "{:?} {:?} a={} u={} [{}]",
                m.role,
                m.kind,
                m.agent_visible as u8,
                m.user_visible as u8,
                parts.join(",")
            )
        })
        .collect()
}

fn call(m: &Message) -> (&str, &str, serde_json::Value) {
    match &m.parts[0] {
        Part::ToolCall {
            id,
            name,
            arguments,
        } => (id, name, arguments.value()),
        other => panic!(
            "message {} should open with a tool call, got {other:?}",
            m.index
        ),
    }
}

fn result(m: &Message) -> (&str, String, bool) {
    match &m.parts[0] {
        Part::ToolResult {
            call_id,
            text,
            is_error,
            ..
        } => (call_id, text.text().into_owned(), *is_error),
        other => panic!(
            "message {} should open with a tool result, got {other:?}",
            m.index
        ),
    }
}

const STORE_PY: &str = "def fetch_rows(conn, q):\n    cur = conn.cursor()\n    cur.execute(q)\n    return cur.fetchall()\n";
const FAIL: &str = "1 failed: test_retry - AssertionError: expected 3 attempts, got 1";

#[test]
fn seed_five_reads_identically_in_every_shape() {
    for shape in SHAPES {
        let s = load(shape, "seed-five");
        assert_eq!(
            shape_of(&s),
            [
                "User Ordinary a=1 u=1 [text]",
                "Assistant Ordinary a=1 u=1 [tool_call]",
                "User Ordinary a=1 u=1 [tool_result]",
                "Assistant Ordinary a=1 u=1 [tool_call]",
                "User Ordinary a=1 u=1 [tool_result]",
            ],
            "{shape}: the seed's five messages, all visible to both"
        );
        let m = &s.messages;
        assert_eq!(
            m[0].text(),
            "add a retry to fetch_rows in store.py",
            "{shape}: the ask"
        );
        assert_eq!(
            call(&m[1]),
            ("call_1", "shell", json!({"cmd": "cat store.py"})),
            "{shape}: tool name is exactly `shell`"
        );
        assert_eq!(
            result(&m[2]),
            ("call_1", STORE_PY.to_owned(), false),
            "{shape}: the file"
        );
        assert_eq!(
            call(&m[3]),
            ("call_2", "shell", json!({"cmd": "pytest -q"})),
            "{shape}: pytest call"
        );
        assert_eq!(
            result(&m[4]),
            ("call_2", FAIL.to_owned(), false),
            "{shape}: the failure"
        );
        assert_eq!(
            m[0].created,
            Some(1_771_900_000_000),
            "{shape}: seconds → ms"
        );
        assert_eq!(m[4].created, Some(1_771_900_040_000), "{shape}: 10 s apart");
        assert!(s.compactions.is_empty(), "{shape}: no compaction");
        assert_eq!(s.meta.message_count, 5, "{shape}: count matches messages");
        let want_id = match shape {
            "v6/sessions.db" => None,
            _ => Some("msg_seed-five_0".to_owned()),
        };
        assert_eq!(
            m[0].id, want_id,
            "{shape}: message ids exist from schema 7 on (none stored in schema 6)"
        );
        let want_format = if shape == "legacy" {
            SourceFormat::GooseLegacy
        } else {
            SourceFormat::Goose
        };
        assert_eq!(s.meta.format, want_format, "{shape}: format");
    }
}

#[test]
fn seed_parallel_three_calls_three_results_default_metadata() {
    for shape in SHAPES {
        let s = load(shape, "seed-parallel");
        assert_eq!(
            shape_of(&s),
            [
                "User Ordinary a=1 u=1 [text]",
                "Assistant Ordinary a=1 u=1 [tool_call,tool_call,tool_call]",
                "User Ordinary a=1 u=1 [tool_result]",
                "User Ordinary a=1 u=1 [tool_result]",
                "User Ordinary a=1 u=1 [tool_result]",
            ],
            "{shape}: NULL/missing metadata reads as visible to both"
        );
        let ids: Vec<&str> = s.messages[2..].iter().map(|m| result(m).0).collect();
        assert_eq!(
            ids,
            ["call_a", "call_b", "call_c"],
            "{shape}: results in call order"
        );
    }
}

#[test]
fn seed_dup_has_the_second_ask_inside_the_tail() {
    for shape in SHAPES {
        let s = load(shape, "seed-dup");
        let texts: Vec<String> = s.iter().map(Message::text).collect();
        assert_eq!(s.messages.len(), 6, "{shape}: seed-five plus one user text");
        assert_eq!(
            texts[3], "also log each attempt",
            "{shape}: the second ask sits right after the first tool result"
        );
        let last_text_only = s
            .messages
            .iter()
            .rposition(|m| m.role == Role::User && m.has_text_only());
        assert_eq!(
            last_text_only,
            Some(3),
            "{shape}: the most recent text-only user message is within the last 3"
        );
    }
}

#[test]
fn goose_compacted_tool_loop_auto_compaction() {
    for shape in SHAPES {
        let s = load(shape, "goose-compacted");
        assert_eq!(
            shape_of(&s),
            [
                "User Ordinary a=0 u=1 [text]",
                "Assistant Ordinary a=0 u=1 [tool_call]",
                "User Ordinary a=0 u=1 [tool_result]",
                "Assistant Ordinary a=0 u=1 [tool_call]",
                "User Ordinary a=0 u=1 [tool_result]",
                "User Summary a=1 u=0 [text]",
                "Assistant Continuation a=1 u=0 [text]",
                "User PreservedCopy a=1 u=1 [text]",
                "Assistant Ordinary a=1 u=1 [tool_call]",
                "User Ordinary a=1 u=1 [tool_result]",
            ],
            "{shape}: originals hidden from the agent, summary/continuation agent-only, copy visible"
        );
        assert_eq!(
            s.compactions,
            vec![CompactionRecord {
                cut_index: 5,
                trigger: Some(Trigger::Auto),
                pre_tokens: None,
                post_tokens: None,
                post_tokens_from_usage: false,
                summary_index: Some(5),
                kept: vec![7],
                raw: None,
                applied_index: None,
                archived: None,
            }],
            "{shape}: one auto compaction cut at the summary, keeping the preserved copy"
        );
        let agent: Vec<usize> = s.view(View::Agent).map(|m| m.index).collect();
        assert_eq!(agent, [5, 6, 7, 8, 9], "{shape}: what the model sees");
        assert!(
            s.messages[6]
                .text()
                .starts_with("Your context was compacted.")
                && s.messages[6]
                    .text()
                    .ends_with("Continue calling tools as necessary to complete the task."),
            "{shape}: the ≥2026-02-16 tool-loop continuation"
        );
        assert_eq!(
            s.messages[7].text(),
            "add a retry to fetch_rows in store.py",
            "{shape}: the preserved ask"
        );
        assert_eq!(s.meta.compaction_count, 1, "{shape}: counted");
    }
}

#[test]
fn goose_manual_compaction_with_echo_and_notification() {
    for shape in SHAPES {
        let s = load(shape, "goose-manual");
        assert_eq!(
            shape_of(&s),
            [
                "User Ordinary a=0 u=1 [text]",
                "Assistant Ordinary a=0 u=1 [text]",
                "User Summary a=1 u=0 [text]",
                "Assistant Continuation a=1 u=0 [text]",
                "User Notification a=0 u=1 [text]",
                "Assistant Notification a=0 u=1 [other]",
                "User Ordinary a=1 u=1 [text]",
                "Assistant Ordinary a=1 u=1 [text]",
            ],
            "{shape}: manual compaction, `/compact` echo and 'Compaction complete' are notices"
        );
        assert_eq!(
            s.compactions.len(),
            1,
            "{shape}: one compaction in the manual session"
        );
        let c = &s.compactions[0];
        assert_eq!(
            (c.cut_index, c.summary_index, c.trigger, c.kept.clone()),
            (2, Some(2), Some(Trigger::Manual), vec![]),
            "{shape}: manual (old-era text), nothing preserved"
        );
        match &s.messages[5].parts[0] {
            Part::Other { original_type, raw } => {
                assert_eq!(original_type, "systemNotification", "{shape}: tag kept");
                assert_eq!(raw["msg"], "Compaction complete", "{shape}: raw kept");
            }
            other => panic!("{shape}: notification must stay an other part, got {other:?}"),
        }
    }
}

#[test]
fn legacy_item_types_are_kept_not_dropped() {
    for shape in SHAPES {
        let s = load(shape, "goose-legacy-types");
        assert_eq!(
            shape_of(&s),
            [
                "User Ordinary a=1 u=1 [text]",
                "Assistant Ordinary a=1 u=1 [tool_call]",
                "User Ordinary a=1 u=1 [tool_result]",
                "Assistant Notification a=0 u=1 [other]",
                "Assistant Notification a=0 u=1 [other]",
                "Assistant Notification a=0 u=1 [other]",
                "Assistant Ordinary a=1 u=1 [text]",
            ],
            "{shape}: old compaction markers kept as notices"
        );
        let tags: Vec<&str> = s.messages[3..6]
            .iter()
            .map(|m| match &m.parts[0] {
                Part::Other { original_type, .. } => original_type.as_str(),
                _ => "",
            })
            .collect();
        assert_eq!(
            tags,
            [
                "contextLengthExceeded",
                "summarizationRequested",
                "conversationCompacted"
            ],
            "{shape}: original tags"
        );
        assert_eq!(
            result(&s.messages[2]),
            (
                "call_l1",
                "ERROR db timeout after 30s\nERROR db timeout after 30s".to_owned(),
                false
            ),
            "{shape}: the bare-array result, text items joined with a newline"
        );
        assert_eq!(
            s.meta.name, "legacy item types",
            "{shape}: empty name falls back to the whitespace-collapsed description"
        );
    }
}

#[test]
fn hostile_html_is_kept_verbatim() {
    for shape in SHAPES {
        let s = load(shape, "hostile-html");
        assert_eq!(
            s.meta.name, "<b>hostile</b><script>alert('name')</script>",
            "{shape}: names are data, not markup"
        );
        assert!(
            s.messages[0]
                .text()
                .starts_with("<script>alert(1)</script>"),
            "{shape}: text untouched"
        );
        let second = Message {
            parts: s.messages[1].parts[1..].to_vec(),
            ..Message::clone(&s.messages[1])
        };
        let (_, name, args) = call(&second);
        assert_eq!(name, "shell", "{shape}: tool name");
        assert_eq!(
            args["html"], "<img src=x onerror=alert(6)>",
            "{shape}: arguments untouched"
        );
        assert!(
            result(&s.messages[2])
                .1
                .contains("<iframe src=\"javascript:alert(9)\">"),
            "{shape}: result untouched"
        );
    }
    assert_eq!(
        load("sessions.db", "hostile-html").messages[0].created,
        Some(1_771_904_000_250),
        "a millisecond created_timestamp (> 10^10) is kept as milliseconds"
    );
}

#[test]
fn folder_listing_matches_loading() {
    let dir = fixture("");
    let list = palimpsest_core::api::list_sessions(&dir).expect("list fixtures/goose");
    assert!(list.problems.is_empty(), "no problems: {:?}", list.problems);
    let seven: Vec<(String, usize, usize)> = [
        ("goose-compacted", 10, 1),
        ("goose-legacy-types", 7, 0),
        ("goose-manual", 8, 1),
        ("hostile-html", 3, 0),
        ("seed-dup", 6, 0),
        ("seed-five", 5, 0),
        ("seed-parallel", 5, 0),
    ]
    .map(|(id, m, c)| (id.to_owned(), m, c))
    .to_vec();
    let under = |rel: &str| {
        let mut got: Vec<(String, usize, usize)> = list
            .sessions
            .iter()
            .filter(|m| {
                let p = std::path::Path::new(&m.path);
                p.strip_prefix(&dir).is_ok_and(|r| {
                    r.parent().unwrap_or(std::path::Path::new("")) == std::path::Path::new(rel)
                })
            })
            .map(|m| (m.id.clone(), m.message_count, m.compaction_count))
            .collect();
        got.sort();
        got
    };
    for shape in ["", "v6", "legacy"] {
        assert_eq!(
            under(shape),
            seven,
            "{shape:?}: the seven sessions with exact counts, in each of the three shapes"
        );
    }
    assert_eq!(
        under("v17"),
        [
            ("20261120_1".to_owned(), 32, 1),
            ("20261120_2".to_owned(), 2, 0),
            ("20261120_3".to_owned(), 1, 0)
        ],
        "the schema-17 database in its subfolder"
    );
    assert_eq!(
        list.sessions.len(),
        24,
        "the folder's database does not hide the databases and legacy files below it \
         (issue 46), nor are goose's request logs (v17/logs) taken for sessions"
    );
    let five = list
        .sessions
        .iter()
        .find(|m| m.id == "seed-five" && m.path.ends_with("goose/sessions.db"))
        .unwrap();
    assert_eq!(
        five.model.as_deref(),
        Some("qwen3.6-27b"),
        "model from model_config_json"
    );
    assert_eq!(
        five.context_limit,
        Some(131_072),
        "context limit from model_config_json"
    );
    let usage = five.usage.as_ref().expect("token columns recorded");
    assert_eq!(
        (
            usage.input_tokens,
            usage.output_tokens,
            usage.total_tokens,
            usage.accumulated_total_tokens
        ),
        (Some(2_000), Some(200), Some(2_200), Some(5_100)),
        "usage from the token columns"
    );
    assert_eq!(
        five.created,
        Some(1_771_900_000_000),
        "created_at parsed as UTC"
    );
    assert_eq!(
        five.updated,
        Some(1_771_900_040_000),
        "updated_at parsed as UTC"
    );
    assert!(
        five.path.ends_with("sessions.db"),
        "path names the DB: {}",
        five.path
    );
    for shape in ["sessions.db", "v6/sessions.db", "legacy"] {
        let path = fixture(shape);
        let catalog = sources::open(&path).unwrap();
        let (metas, problems) = catalog.list();
        assert!(problems.is_empty(), "{shape}: {problems:?}");
        assert_eq!(metas.len(), 7, "{shape}: seven sessions");
        for m in metas {
            let s = catalog.load(&path, Some(&m.id)).unwrap();
            assert_eq!(
                (m.message_count, m.compaction_count),
                (s.messages.len(), s.compactions.len()),
                "{shape}/{}: the cheap listing counts agree with a full load",
                m.id
            );
        }
    }
}

#[test]
fn raw_returns_the_stored_row_and_line() {
    let db = fixture("sessions.db");
    let catalog = sources::open(&db).unwrap();
    let raw = catalog.sources[0]
        .raw("seed-five", 1)
        .unwrap()
        .expect("row 2 exists");
    let v: serde_json::Value = serde_json::from_str(&raw).unwrap();
    assert_eq!(v["role"], "assistant", "the second row");
    assert_eq!(v["message_id"], "msg_seed-five_1", "its message id");
    let content: serde_json::Value = serde_json::from_str(
        v["content_json"]
            .as_str()
            .expect("content_json kept as text"),
    )
    .unwrap();
    assert_eq!(
        content[0]["toolCall"]["value"]["arguments"]["cmd"], "cat store.py",
        "content_json as stored"
    );
    assert_eq!(
        v["metadata_json"], r#"{"userVisible":true,"agentVisible":true}"#,
        "metadata as stored"
    );
    assert!(
        catalog.sources[0].raw("seed-five", 5).unwrap().is_none(),
        "past the end there is no row"
    );
    let legacy = fixture("legacy/seed-five.jsonl");
    let catalog = sources::open(&legacy).unwrap();
    let line = catalog.sources[0].raw("seed-five", 0).unwrap().unwrap();
    assert!(
        line.starts_with(r#"{"id":"msg_seed-five_0","role":"user""#),
        "legacy raw is the message line (metadata line skipped): {line}"
    );
}
