//! Aider (fixtures/README.md, `aider/`): a repository's chat log read session by session with
//! the request log beside it: typed lines the user's messages (commands shown, never sent;
//! `/ask` sends its words), notices Aider's, the `Tokens:` line the reply's usage, the model
//! from its `Main model:` line; the summary the third request carries a cut before that turn,
//! keeping the turn the request still holds word for word; `/clear` ends the conversation and
//! what follows is a session of its own; a summary of the chat history alone is not taken for
//! thrash; each request the log holds is set beside the request rebuilt from the chat log.

use std::path::PathBuf;

use palimpsest_core::compaction::recorded::ItemOp;
use palimpsest_core::model::{Role, Session, SourceFormat, Trigger};
use palimpsest_core::{api, sources};
use palimpsest_fixtures::aider::{FIRST, SECOND};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/aider/shop")
}

fn load(id: &str) -> Session {
    api::load_session(&repo(), Some(id)).expect("the fixture session loads")
}

#[test]
fn the_repository_lists_one_session_per_header_with_its_model_and_first_prompt() {
    let (metas, problems) = sources::open(&repo()).unwrap().list();
    assert!(problems.is_empty(), "{problems:?}");
    let got: Vec<String> = metas
        .iter()
        .map(|m| {
            format!(
                "{} {} {:?} messages={} cuts={} model={:?} created={:?} updated={:?}",
                m.id,
                m.format.as_str(),
                m.name,
                m.message_count,
                m.compaction_count,
                m.model,
                m.created,
                m.updated
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            format!(
                "{FIRST} aider \"add a retry to fetch_rows\" messages=20 cuts=1 \
                 model=Some(\"gpt-4.1\") created=Some(1793700000000) updated=Some(1793700362000)"
            ),
            format!(
                "{FIRST}#clear1 aider \"list the callers of fetch_rows\" messages=3 cuts=0 \
                 model=Some(\"gpt-4.1\") created=Some(1793700510000) updated=Some(1793700510000)"
            ),
            format!(
                "{SECOND} aider \"explain store.py\" messages=4 cuts=0 \
                 model=Some(\"gpt-4.1-mini\") created=Some(1793719800000) updated=Some(1793719812000)"
            ),
        ]
    );
    assert!(metas.iter().all(|m| m.format == SourceFormat::Aider));
}

#[test]
fn the_first_session_reads_as_aider_wrote_and_sent_it() {
    let s = load(FIRST);
    let rows: Vec<String> = s
        .messages
        .iter()
        .map(|m| {
            let first = m.text().lines().next().unwrap_or_default().to_owned();
            let role = match m.role {
                Role::User => "user",
                Role::Assistant => "assistant",
                Role::System => "system",
                Role::Tool => "tool",
            };
            format!(
                "{} {role} {:?} model={} user={} {}",
                m.index,
                m.kind,
                m.agent_visible,
                m.user_visible,
                first.chars().take(40).collect::<String>()
            )
        })
        .collect();
    let want = [
        "0 system Notification model=false user=true /usr/local/bin/aider --model gpt-4.1 --l",
        "1 system Notification model=false user=true /add store.py",
        "2 system Notification model=false user=true Added store.py to the chat",
        "3 user Ordinary model=false user=true add a retry to fetch_rows",
        "4 assistant Ordinary model=false user=true I'll wrap the query in a loop of three a",
        "5 system Notification model=false user=true Tokens: 2,310 sent, 120 received. Cost: ",
        "6 system Notification model=false user=true /run pytest -q",
        "7 system Notification model=false user=true F.",
        "8 user Ordinary model=true user=true the test expects OperationalError from s",
        "9 assistant Ordinary model=true user=true Import it from sqlite3.",
        "10 system Notification model=false user=true Tokens: 2,604 sent, 80 received. Cost: $",
        "11 user Summary model=true user=false I spoke to you previously about a number",
        "12 user Ordinary model=true user=true also log each attempt",
        "13 assistant Ordinary model=true user=true Each failed attempt is logged before the",
        "14 system Notification model=false user=true Tokens: 2,180 sent, 95 received. Cost: $",
        "15 user Ordinary model=true user=true why might the suite be slow?",
        "16 assistant Ordinary model=true user=true Each failing attempt sleeps 0.1 s, so a ",
        "17 system Notification model=false user=true Tokens: 2.4k sent, 1.2k cache write, 1.1",
        "18 system Notification model=false user=true /clear",
        "19 system Notification model=false user=true All chat history cleared.",
    ];
    assert_eq!(rows, want);
    let c = &s.compactions;
    assert_eq!(
        (
            c.len(),
            c[0].cut_index,
            c[0].summary_index,
            c[0].kept.clone(),
            c[0].trigger
        ),
        (1, 11, Some(11), vec![8, 9], Some(Trigger::Auto)),
        "the third request's history opens with the summary and keeps the second turn"
    );
    let usage: Vec<(usize, u64, u64, u64, u64)> = s
        .messages
        .iter()
        .filter_map(|m| {
            m.usage
                .first()
                .map(|u| (m.index, u.input, u.output, u.cache_read, u.cache_write))
        })
        .collect();
    assert_eq!(
        usage,
        vec![
            (4, 2310, 120, 0, 0),
            (9, 2604, 80, 0, 0),
            (13, 2180, 95, 0, 0),
            (16, 100, 30, 1100, 1200),
        ],
        "each Tokens line is its reply's usage; the tokens sent count the cache's"
    );
    assert_eq!(
        s.messages[15]
            .detail("typed")
            .and_then(|v| v.as_str().map(str::to_owned)),
        Some("/ask why might the suite be slow?".to_owned()),
        "/ask sends its words; what was typed stays in the details"
    );
}

#[test]
fn after_a_clear_the_conversation_is_a_session_of_its_own() {
    let s = load(&format!("{FIRST}#clear1"));
    let rows: Vec<(usize, bool, String)> = s
        .messages
        .iter()
        .map(|m| (m.index, m.agent_visible, m.text()))
        .collect();
    assert_eq!(
        rows,
        vec![
            (0, true, "list the callers of fetch_rows".to_owned()),
            (
                1,
                true,
                "app.py:12 and jobs.py:40 call fetch_rows.".to_owned()
            ),
            (
                2,
                false,
                "Tokens: 1,900 sent, 14 received. Cost: $0.0039 message, $0.03 session.".to_owned()
            ),
        ]
    );
    assert_eq!(
        s.messages[1]
            .detail("model")
            .and_then(|v| v.as_str().map(str::to_owned)),
        Some("gpt-4.1".to_owned()),
        "the model named before the /clear still answers"
    );
}

#[test]
fn a_summary_of_the_chat_history_alone_is_no_thrash_and_the_verdict_says_so() {
    let d = palimpsest_core::analysis::diagnose(&load(FIRST), &Default::default());
    assert_eq!(
        (
            d.thrash.len(),
            d.compactions.len(),
            d.compactions[0].dropped
        ),
        (0, 1, 2),
        "the summary dropped the first turn (#3, #4); the files and map still sent make it \
         free little, by design"
    );
}

/// Each compared request as `number@log line: differences`, then its diff: `+` sent only, `-`
/// rebuilt only, `~` the same place with other text, `=` the same; with the message
/// each rebuilt item comes from.
fn compared(s: &Session) -> (usize, Vec<String>) {
    let set = api::recorded(s, &api::recorded_dirs(s, None));
    assert!(set.problems.is_empty(), "{:?}", set.problems);
    let rows = set
        .matched
        .iter()
        .map(|c| {
            let line = c.log.file.rsplit(':').next().unwrap();
            let diff: Vec<String> = c
                .diff
                .iter()
                .map(|d| {
                    let mark = match d.op {
                        ItemOp::Same => '=',
                        ItemOp::RecordedOnly => '+',
                        ItemOp::RebuiltOnly => '-',
                        ItemOp::Changed => '~',
                    };
                    let from = d.rebuilt.map(|b| c.rebuilt_from[b].to_string());
                    format!("{mark}{}", from.unwrap_or_default())
                })
                .collect();
            format!(
                "{}@{line}: {} [{}]",
                c.request,
                c.differences,
                diff.join(" ")
            )
        })
        .collect();
    (set.logs, rows)
}

#[test]
fn each_logged_request_is_set_beside_the_request_rebuilt_from_the_chat_log() {
    // The system prompt, the repository map and the chat's files are sent with every request
    // and never written to the chat log: sent only. The summary Aider sent first, before the
    // turns it kept; the session holds it where it was made, before the turn that carried it.
    assert_eq!(
        compared(&load(FIRST)),
        (
            5,
            vec![
                "1@1: 4 [+ + + + + =3]".to_owned(),
                "2@46: 4 [+ + + =3 =4 + + =8]".to_owned(),
                "3@105: 5 [+ + + + =8 =9 ~11 + =12]".to_owned(),
                "4@163: 6 [+ + + + =8 =9 -11 =12 =13 + + =15]".to_owned(),
            ]
        ),
        "the first session's four requests; the fifth logged in its time is the next part's"
    );
    let after_clear = load(&format!("{FIRST}#clear1"));
    let (logs, rows) = compared(&after_clear);
    assert_eq!((logs, rows.len()), (5, 1));
    assert!(rows[0].starts_with("1@225: "), "{rows:?}");
    let (logs, rows) = compared(&load(SECOND));
    assert_eq!((logs, rows.len()), (1, 1));
    assert!(rows[0].starts_with("1@254: "), "{rows:?}");
}

#[test]
fn without_a_request_log_nothing_is_recorded_and_the_session_is_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join(".aider.chat.history.md");
    std::fs::copy(repo().join(".aider.chat.history.md"), &log).unwrap();
    let s = api::load_session(&log, Some(SECOND)).unwrap();
    let dirs = api::recorded_dirs(&s, None);
    assert_eq!(dirs, [dir.path().join(".aider.llm.history")]);
    assert!(api::nothing_recorded(&dirs).is_some());
    let set = api::recorded(&s, &dirs);
    assert_eq!((set.dir, set.logs, set.matched.len()), (None, 0, 0));
    // With the log, the same call finds it.
    let with = api::recorded_dirs(&load(SECOND), None);
    assert!(api::nothing_recorded(&with).is_none());
}
