//! An Aider repository under `fixtures/aider/shop/`: its `.aider.chat.history.md` as Aider's
//! `InputOutput` appends it (a `# aider chat started at` header per session, typed lines as
//! `#### `, Aider's notices quoted with `> ` and Markdown line breaks, replies with their
//! SEARCH/REPLACE blocks fenced), and the `.aider.llm.history` that `--llm-history-file`
//! writes: each request's messages as `utils.format_messages` prints them (a `-------` line,
//! then each line prefixed by its role) and each reply as `format_content("ASSISTANT", …)`.
//! The first session adds a file, edits, runs the tests, is summarised in the background
//! (`ChatSummary`: the third request's history opens with Aider's summary prefix and keeps
//! the second turn), asks with `/ask`, clears with `/clear` and goes on; the second is one
//! question. What each exercises is fixtures/README.md's.

use std::path::Path;

use anyhow::{Context, Result};

/// The first session's id: its start time.
pub const FIRST: &str = "2026-11-03T10:00:00";
/// The second session's id.
pub const SECOND: &str = "2026-11-03T15:30:00";

const SYSTEM: &str = "Act as an expert software developer.\nAlways use best practices when coding.\n\nOnce you understand the request you MUST describe each change with a *SEARCH/REPLACE block*.";
const REPO_MAP: &str = "Here are summaries of some files present in my git repository.\n\ntests/test_store.py:\n│def test_retry(db):";
const REPO_OK: &str = "Ok, I won't try and edit those files without asking first.";
const FILES_OK: &str = "Ok, any changes I propose will be to those files.";
const SUMMARY: &str = "I spoke to you previously about a number of things.\nI asked you to add a retry to fetch_rows in store.py. You wrapped the query in a loop of three attempts that sleeps 0.1 s after an OperationalError and re-raises after the last one.";

const ASK_1: &str = "add a retry to fetch_rows";
const REPLY_1: &str = "I'll wrap the query in a loop of three attempts.\n\nstore.py\n```python\n<<<<<<< SEARCH\ndef fetch_rows(db, query):\n    return db.execute(query).fetchall()\n=======\ndef fetch_rows(db, query):\n    for attempt in range(3):\n        try:\n            return db.execute(query).fetchall()\n        except OperationalError:\n            time.sleep(0.1)\n    raise\n>>>>>>> REPLACE\n```";
const ASK_2: &str = "the test expects OperationalError from sqlite3";
const REPLY_2: &str = "Import it from sqlite3.\n\nstore.py\n```python\n<<<<<<< SEARCH\nimport time\n=======\nimport time\nfrom sqlite3 import OperationalError\n>>>>>>> REPLACE\n```";
const ASK_3: &str = "also log each attempt";
const REPLY_3: &str = "Each failed attempt is logged before the sleep.\n\nstore.py\n```python\n<<<<<<< SEARCH\n        except OperationalError:\n            time.sleep(0.1)\n=======\n        except OperationalError:\n            log.warning(\"fetch_rows attempt %d failed\", attempt + 1)\n            time.sleep(0.1)\n>>>>>>> REPLACE\n```";
const ASK_4: &str = "why might the suite be slow?";
const REPLY_4: &str =
    "Each failing attempt sleeps 0.1 s, so a test that exhausts the retries waits 0.3 s.";
const ASK_5: &str = "list the callers of fetch_rows";
const REPLY_5: &str = "app.py:12 and jobs.py:40 call fetch_rows.";
const ASK_6: &str = "explain store.py";
const REPLY_6: &str = "store.py opens the database and fetches rows, retrying three times.";

/// The chat log, as Aider appends it.
fn chat_log() -> String {
    let quote = |lines: &[&str]| {
        lines
            .iter()
            .map(|l| format!("> {l}  \n"))
            .collect::<String>()
    };
    let typed = |t: &str| format!("#### {t}  \n\n");
    let reply = |t: &str| format!("{t}\n\n");
    let mut s = String::new();
    s += "\n# aider chat started at 2026-11-03 10:00:00\n\n";
    s += &quote(&[
        "/usr/local/bin/aider --model gpt-4.1 --llm-history-file .aider.llm.history",
        "Aider v0.86.1",
        "Main model: gpt-4.1 with diff edit format",
        "Git repo: .git with 3 files",
        "Repo-map: using 4096 tokens, auto refresh",
    ]);
    s += "\n";
    s += &typed("/add store.py");
    s += &quote(&["Added store.py to the chat"]);
    s += "\n";
    s += &typed(ASK_1);
    s += &reply(REPLY_1);
    s += &quote(&[
        "Tokens: 2,310 sent, 120 received. Cost: $0.0056 message, $0.0056 session.",
        "Applied edit to store.py",
        "Commit 1a2b3c4 feat: Retry fetch_rows three times",
    ]);
    s += "\n";
    s += &typed("/run pytest -q");
    s += &quote(&[
        "F.",
        "FAILED tests/test_store.py::test_retry - NameError: name 'OperationalError' is not defined",
        "Add 0.1k tokens of command output to the chat? (Y)es/(N)o [Yes]: n",
    ]);
    s += "\n";
    s += &typed(ASK_2);
    s += &reply(REPLY_2);
    s += &quote(&[
        "Tokens: 2,604 sent, 80 received. Cost: $0.0059 message, $0.0115 session.",
        "Applied edit to store.py",
        "Commit 5d6e7f8 fix: Import OperationalError from sqlite3",
    ]);
    s += "\n";
    s += &typed(ASK_3);
    s += &reply(REPLY_3);
    s += &quote(&[
        "Tokens: 2,180 sent, 95 received. Cost: $0.0051 message, $0.02 session.",
        "Applied edit to store.py",
        "Commit 9a0b1c2 feat: Log each failed fetch_rows attempt",
    ]);
    s += "\n";
    s += &typed(&format!("/ask {ASK_4}"));
    s += &reply(REPLY_4);
    s += &quote(&[
        "Tokens: 2.4k sent, 1.2k cache write, 1.1k cache hit, 30 received. Cost: $0.0041 message, $0.02 session.",
    ]);
    s += "\n";
    s += &typed("/clear");
    s += &quote(&["All chat history cleared."]);
    s += "\n";
    s += &typed(ASK_5);
    s += &reply(REPLY_5);
    s += &quote(&["Tokens: 1,900 sent, 14 received. Cost: $0.0039 message, $0.03 session."]);
    s += "\n# aider chat started at 2026-11-03 15:30:00\n\n";
    s += &quote(&[
        "Aider v0.86.1",
        "Main model: gpt-4.1-mini with diff edit format",
    ]);
    s += "\n";
    s += &typed(ASK_6);
    s += &reply(REPLY_6);
    s += &quote(&["Tokens: 1,200 sent, 16 received. Cost: $0.0005 message, $0.0005 session."]);
    s
}

/// One request of the log: `(role, text)` messages, then the reply.
fn request(at: &str, messages: &[(&str, &str)], replied: &str, reply: &str) -> String {
    let mut s = format!("TO LLM {at}\n");
    for (role, text) in messages {
        s += "-------\n";
        for line in text.lines() {
            s += &format!("{} {line}\n", role.to_uppercase());
        }
    }
    s += &format!("LLM RESPONSE {replied}\n");
    for line in reply.lines() {
        s += &format!("ASSISTANT {line}\n");
    }
    s
}

/// The request log, as `--llm-history-file` writes it.
fn llm_log() -> String {
    let files = "I have *added these files to the chat* so you can go ahead and edit them.\n\nstore.py\n```\nimport time\n\ndef fetch_rows(db, query):\n    return db.execute(query).fetchall()\n```";
    let head = [
        ("system", SYSTEM),
        ("user", REPO_MAP),
        ("assistant", REPO_OK),
    ];
    let tail = |ask: &'static str| vec![("user", files), ("assistant", FILES_OK), ("user", ask)];
    let with = |done: &[(&'static str, &'static str)], ask: &'static str| {
        let mut m: Vec<(&str, &str)> = head.to_vec();
        m.extend_from_slice(done);
        m.extend(tail(ask));
        m
    };
    let mut s = String::new();
    s += &request(
        "2026-11-03T10:00:20",
        &with(&[], ASK_1),
        "2026-11-03T10:00:26",
        REPLY_1,
    );
    s += &request(
        "2026-11-03T10:02:05",
        &with(&[("user", ASK_1), ("assistant", REPLY_1)], ASK_2),
        "2026-11-03T10:02:09",
        REPLY_2,
    );
    // The background summary has replaced the first turn.
    s += &request(
        "2026-11-03T10:04:40",
        &with(
            &[("user", SUMMARY), ("user", ASK_2), ("assistant", REPLY_2)],
            ASK_3,
        ),
        "2026-11-03T10:04:47",
        REPLY_3,
    );
    s += &request(
        "2026-11-03T10:06:02",
        &with(
            &[
                ("user", SUMMARY),
                ("user", ASK_2),
                ("assistant", REPLY_2),
                ("user", ASK_3),
                ("assistant", REPLY_3),
            ],
            ASK_4,
        ),
        "2026-11-03T10:06:05",
        REPLY_4,
    );
    s += &request(
        "2026-11-03T10:08:30",
        &with(&[], ASK_5),
        "2026-11-03T10:08:32",
        REPLY_5,
    );
    s += &request(
        "2026-11-03T15:30:12",
        &with(&[], ASK_6),
        "2026-11-03T15:30:14",
        REPLY_6,
    );
    s
}

/// Write `aider/shop/` under `out`.
pub fn generate(out: &Path) -> Result<()> {
    let root = out.join("aider");
    if root.exists() {
        std::fs::remove_dir_all(&root).with_context(|| format!("remove {}", root.display()))?;
    }
    let repo = root.join("shop");
    std::fs::create_dir_all(&repo).with_context(|| format!("create {}", repo.display()))?;
    std::fs::write(repo.join(".aider.chat.history.md"), chat_log())?;
    std::fs::write(repo.join(".aider.llm.history"), llm_log())?;
    Ok(())
}
