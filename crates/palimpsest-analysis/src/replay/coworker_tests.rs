//! Unit tests of coworker's formulas, boundary and preserved user messages.

use super::*;
use crate::replay::pyjson;

#[test]
fn worked_examples_of_trigger_keep_and_budget() {
    for (window, trigger, keep, budget) in [
        (128_000, 102_400, 25_600, 8_192),
        (200_000, 160_000, 40_000, 12_800),
        (1_000_000, 250_000, 62_500, 20_000),
    ] {
        let s = Settings {
            window,
            ..Settings::default()
        };
        assert_eq!(
            (s.trigger(), s.keep_tokens(), s.user_budget()),
            (trigger, keep, budget),
            "coworker-format §4 worked example for a {window}-token window"
        );
    }
}

#[test]
fn boundary_is_the_earliest_user_whose_suffix_fits() {
    use Slot::{Assistant as A, Other as O, User as U};
    let slots = [U, A, O, A, U, A, O, A, U, A];
    let lens = [40u64; 10];
    let mut prefix = vec![0];
    for l in lens {
        prefix.push(prefix.last().unwrap() + l);
    }
    // keep 40 tokens = 160 chars = the last 4 messages: index 6 fits, first user after it is 8.
    assert_eq!(
        pick_boundary(&slots, &prefix, 0, 10, 0, 40),
        Some(8),
        "user at 8"
    );
    // keep 5 tokens: nothing fits from a user; the newest turn's assistant at 9 does.
    assert_eq!(
        pick_boundary(&slots, &prefix, 0, 10, 0, 10),
        Some(9),
        "assistant in the turn"
    );
    assert_eq!(
        pick_boundary(&slots, &prefix, 0, 10, 8, 40),
        None,
        "never at the prior boundary"
    );
    assert_eq!(
        pick_boundary(&slots, &prefix, 0, 10, 0, 1000),
        None,
        "index 0 is not a cut"
    );
}

#[test]
fn user_messages_pin_the_first_and_fill_backwards() {
    let s = Settings::default(); // budget 8 192 tokens
    let mut all = vec!["first ask".to_owned()];
    all.extend((0..10).map(|i| format!("{i}{}", "y".repeat(4 * 2_000 - 1))));
    let (kept, dropped) = fit_user_messages(&all, &s);
    assert_eq!(
        kept.len(),
        5,
        "the pinned first plus the newest four at 2 000 tokens each"
    );
    assert_eq!(kept[0], "first ask", "the first message is pinned");
    assert!(
        kept[1].starts_with('6') && kept[4].starts_with('9'),
        "newest kept, in order"
    );
    assert_eq!(dropped, 6, "six messages omitted");
    let legacy = Settings {
        legacy: true,
        ..Settings::default()
    };
    let (kept, dropped) = fit_user_messages(&all, &legacy);
    assert_eq!((kept.len(), dropped), (11, 0), "legacy keeps the newest 40");
    assert_eq!(
        kept[1].chars().count(),
        600,
        "each clipped to 600 characters with the ellipsis"
    );
}

#[test]
fn estimate_uses_the_stored_chat_shape() {
    let m = crate::replay::testkit::calls(1, &[("c1", "cat store.py")]);
    let v = stored_value(&m, None);
    assert_eq!(
        pyjson::dumps(&v),
        r#"{"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "developer__shell", "arguments": "{\"command\": \"cat store.py\"}"}}]}"#,
        "OpenAI chat shape with arguments as a json.dumps string"
    );
    let raw = serde_json::json!({"role": "user", "content": "hi", "ts": 1.5});
    assert_eq!(
        outbound_value(&stored_value(&m, Some(&raw))),
        Some(serde_json::json!({"role": "user", "content": "hi"})),
        "the raw line wins, and sidecars are stripped before sending"
    );
}

#[test]
fn shell_status_reads_the_result_like_the_harness() {
    // `_result_status`: a truthy error, then exit_code (0 / "0" ok); nothing else says a thing.
    for (result, want) in [
        (r#"{"command": "x", "exit_code": 0}"#, "  [ok]"),
        (r#"{"exit_code": "0"}"#, "  [ok]"),
        (r#"{"exit_code": 2}"#, "  [exit 2]"),
        (r#"{"exit_code": null}"#, "  [exit None]"),
        (r#"{"error": "denied", "exit_code": 0}"#, "  [error]"),
        (r#"{"error": "", "exit_code": 0}"#, "  [ok]"),
        (r#"{"output": "no code"}"#, ""),
        (r#""a JSON string""#, ""),
        ("plain text, or a capped result", ""),
    ] {
        assert_eq!(shell_status(result), want, "status of {result}");
    }
}

#[test]
fn continuation_nudges_are_not_user_messages() {
    use crate::model::{Message, Part, Role};
    let text =
        |i: usize, t: &str| Message::new(i, Role::User, vec![Part::Text { text: t.to_owned() }]);
    let mut nudge = text(1, "Your previous reply hit the output-token limit…");
    nudge.set_detail("_display", serde_json::json!({"kind": "continuation"}));
    let span = [text(0, "  Fix   the\nparser "), nudge, text(2, "")];
    assert_eq!(
        span_user_texts(&span, false),
        vec!["Fix the parser".to_owned()],
        "whitespace collapsed, the nudge and the empty message skipped"
    );
    assert_eq!(
        span_user_texts(&span, true),
        vec![
            "Fix the parser".to_owned(),
            "Your previous reply hit the output-token limit…".to_owned()
        ],
        "the legacy rules (upstream main) keep the nudge"
    );
}

/// Every code point Python's `str.isspace` accepts (CPython 3.12:
/// `[c for c in range(0x110000) if chr(c).isspace()]`).
const PY_SPACE: [u32; 29] = [
    0x9, 0xa, 0xb, 0xc, 0xd, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001,
    0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f,
    0x205f, 0x3000,
];

#[test]
fn whitespace_is_what_python_splits_on() {
    let ours: Vec<u32> = (0..=0x10ffffu32)
        .filter_map(char::from_u32)
        .filter(|&c| py_isspace(c))
        .map(|c| c as u32)
        .collect();
    assert_eq!(
        ours, PY_SPACE,
        "exactly Python's whitespace, U+001C–U+001F included"
    );
    assert_eq!(
        normalise("a\u{1c}b\u{1f} c\u{3000}\u{a0}d\u{200b}e"),
        "a b c d\u{200b}e",
        "split on each of them, as \" \".join(s.split()); a zero-width space is not whitespace"
    );
}

#[test]
fn an_image_is_written_image_in_the_preserved_user_messages() {
    let image = Part::Image {
        mime: "image/png".into(),
        size: 10,
    };
    let only = Message::new(0, Role::User, vec![image.clone()]);
    let mixed = Message::new(
        1,
        Role::User,
        vec![
            Part::Text {
                text: "  look at\nthis ".into(),
            },
            image,
        ],
    );
    assert_eq!(
        span_user_texts([&only, &mixed], false),
        ["[image]", "look at this [image]"],
        "an image-only message is `[image]`, not dropped; text and image join by a space"
    );
}

#[test]
fn non_string_arguments_are_written_as_python_str() {
    let call = |args: Value| {
        Message::new(
            0,
            Role::Assistant,
            vec![Part::ToolCall {
                id: "c1".into(),
                name: "run_shell".into(),
                arguments: args.into(),
            }],
        )
    };
    let list = call(json!({"command": ["ls", "-la"]}));
    let write = Message::new(
        1,
        Role::Assistant,
        vec![Part::ToolCall {
            id: "c2".into(),
            name: "write_file".into(),
            arguments: json!({"path": 7}).into(),
        }],
    );
    let empty = call(json!({"command": []}));
    let state = working_state([&list, &write, &empty]);
    assert_eq!(
        state,
        "## Working state (extracted mechanically from tool records)\n\
         Files written/edited (most recent first):\n- 7\n\
         Recent shell commands:\n- ['ls', '-la']\n\
         Tools used in the summarized span: run_shell, write_file",
        "a number path and a list command as str() writes them; the empty list is falsy, so \
         its call records no command"
    );
}

#[test]
fn a_span_without_users_falls_back_to_its_last_assistant() {
    use Slot::{Assistant as A, Other as O};
    let slots = [O, A, O, A, O, A, O];
    let prefix: Vec<u64> = (0..=7).map(|i| i * 400).collect();
    assert_eq!(
        pick_boundary(&slots, &prefix, 1, 7, 0, 1),
        Some(5),
        "nothing fits a 1-token keep: the last assistant, as `assistants[-1]`"
    );
    assert_eq!(
        pick_boundary(&slots, &prefix, 1, 7, 0, 400),
        Some(3),
        "an assistant that fits comes first: 400 tokens keep the last four messages, from 3"
    );
}
