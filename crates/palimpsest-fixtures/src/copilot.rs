//! GitHub Copilot CLI sessions under `fixtures/copilot/session-state/<id>/events.jsonl`, in the
//! event envelope of the Copilot SDK's session-event schema (`{type, data, id, timestamp,
//! parentId}`, an `agentId` on a sub-agent's events): user and assistant messages with
//! `toolRequests`, tool executions, a background compaction (`session.compaction_start`, two
//! more messages, `session.compaction_complete` with `messagesRemoved`, `summaryContent`,
//! `checkpointPath`), a manual `/compact`, a truncation, a failed compaction, a sub-agent's
//! events inline, an event type nobody knows, a line cut short, and the shutdown's per-model
//! usage. The folder works as `$COPILOT_HOME`. What each session exercises is
//! fixtures/README.md's.

use std::path::Path;

use anyhow::{Context, Result};
use serde_json::{Value, json};

/// The worker session.
pub const WORKER: &str = "3f1b0c9e-5a2d-4c71-9e11-7c0de0000001";
/// A short session that only truncates.
pub const TRUNCATED: &str = "3f1b0c9e-5a2d-4c71-9e11-7c0de0000002";

const CWD: &str = "/work/shop";

/// Events with ids and parents chained, timestamps a second apart.
struct Log {
    session: &'static str,
    lines: Vec<String>,
    last: Option<String>,
    second: u32,
}

impl Log {
    fn new(session: &'static str) -> Self {
        Log {
            session,
            lines: Vec::new(),
            last: None,
            second: 0,
        }
    }

    fn add(&mut self, kind: &str, data: Value) -> &mut Self {
        self.add_for(kind, data, None)
    }

    /// An event of the sub-agent `agent` (`agentId`), or the main agent's.
    fn add_for(&mut self, kind: &str, data: Value, agent: Option<&str>) -> &mut Self {
        let n = self.lines.len() + 1;
        let id = format!("{}-e{n:03}", &self.session[..8]);
        let mut e = json!({
            "type": kind,
            "data": data,
            "id": id,
            "timestamp": format!("2026-10-05T09:{:02}:{:02}.000Z", self.second / 60, self.second % 60),
            "parentId": self.last,
        });
        if let Some(a) = agent {
            e["agentId"] = json!(a);
        }
        self.second += 1;
        self.last = Some(id);
        self.lines.push(e.to_string());
        self
    }

    fn user(&mut self, text: &str) -> &mut Self {
        self.add(
            "user.message",
            json!({"content": text, "transformedContent": format!("<current_datetime>2026-10-05T09:00:00Z</current_datetime>\n\n{text}"), "attachments": []}),
        )
    }

    /// An assistant message with `calls` (`[call id, tool, arguments]`), then each call run.
    fn turn(&mut self, text: &str, calls: &[(&str, &str, Value, &str)]) -> &mut Self {
        let requests: Vec<Value> = calls
            .iter()
            .map(|(id, name, args, _)| json!({"toolCallId": id, "name": name, "arguments": args, "type": "function"}))
            .collect();
        let n = self.lines.len();
        self.add(
            "assistant.message",
            json!({"messageId": format!("msg-{n:03}"), "content": text, "toolRequests": requests,
                "model": "claude-sonnet-4.5", "outputTokens": 40 + 10 * calls.len()}),
        );
        for (id, name, args, out) in calls {
            self.add(
                "tool.execution_start",
                json!({"toolCallId": id, "toolName": name, "arguments": args}),
            );
            self.add(
                "tool.execution_complete",
                json!({"toolCallId": id, "success": true, "model": "claude-sonnet-4.5",
                    "result": {"content": out, "detailedContent": out}}),
            );
        }
        self
    }

    fn text(&self, tail: &str) -> String {
        let mut t = self.lines.join("\n");
        t.push('\n');
        t.push_str(tail);
        t
    }
}

const STORE_PY: &str =
    "import time\n\ndef fetch_rows(db, query):\n    return db.execute(query).fetchall()\n";
const SUMMARY: &str = "<overview>The user wants a retry in fetch_rows (/work/shop/store.py).</overview>\n<history>\n1. Read store.py; pytest showed test_retry failing: fetch_rows is called once, three expected.\n2. Added a three-attempt retry with a sleep; both tests pass.\n</history>\n<work_done>\nFiles updated:\n- /work/shop/store.py: fetch_rows retries three times\n</work_done>\n<next_steps>\nLog each attempt, then run the whole suite.\n</next_steps>";

fn worker() -> Log {
    let mut l = Log::new(WORKER);
    l.add(
        "session.start",
        json!({"sessionId": WORKER, "version": 1, "producer": "copilot-agent", "copilotVersion": "1.0.80",
            "startTime": "2026-10-05T09:00:00.000Z", "selectedModel": "claude-sonnet-4.5",
            "context": {"cwd": CWD, "gitRoot": CWD, "branch": "main"}}),
    );
    l.user("add a retry to fetch_rows in store.py");
    l.add("assistant.turn_start", json!({"turnId": "0"}));
    l.turn(
        "Reading store.py first.",
        &[(
            "call_v1",
            "view",
            json!({"path": "/work/shop/store.py"}),
            STORE_PY,
        )],
    );
    l.turn(
        "",
        &[(
            "call_b1",
            "bash",
            json!({"command": "pytest -q", "description": "run the tests"}),
            "F.\nFAILED tests/test_store.py::test_retry - fetch_rows was called once, expected 3\n1 failed, 1 passed",
        )],
    );
    l.turn(
        "",
        &[(
            "call_e1",
            "edit",
            json!({"path": "/work/shop/store.py", "old_str": "    return db.execute(query).fetchall()\n",
                "new_str": "    for attempt in range(3):\n        try:\n            return db.execute(query).fetchall()\n        except OSError:\n            time.sleep(0.1)\n"}),
            "File /work/shop/store.py updated with changes.",
        )],
    );
    l.turn("fetch_rows now retries three times.", &[]);
    l.add("assistant.turn_end", json!({"turnId": "0"}));
    // The background compaction starts; the agent goes on while it runs.
    l.add(
        "session.compaction_start",
        json!({"conversationTokens": 96_400, "systemTokens": 3_100, "toolDefinitionsTokens": 9_200}),
    );
    l.user("also log each attempt");
    l.add("assistant.turn_start", json!({"turnId": "1"}));
    l.add(
        "session.compaction_complete",
        json!({"success": true, "trigger": "threshold", "preCompactionTokens": 108_700,
            "postCompactionTokens": 14_900, "preCompactionMessagesLength": 9, "messagesRemoved": 5,
            "tokensRemoved": 93_800, "summaryContent": SUMMARY, "checkpointNumber": 1,
            "checkpointPath": "/home/dev/.copilot/session-state/3f1b0c9e-5a2d-4c71-9e11-7c0de0000001/checkpoints/001-retry.md",
            "compactionTokensUsed": {"model": "claude-sonnet-4.5", "inputTokens": 96_000, "outputTokens": 900, "cacheReadTokens": 0}}),
    );
    l.turn(
        "",
        &[(
            "call_v2",
            "view",
            json!({"path": "/work/shop/store.py"}),
            STORE_PY,
        )],
    );
    l.turn(
        "",
        &[(
            "call_t1",
            "task",
            json!({"description": "find callers", "prompt": "Find every caller of fetch_rows.", "agent_type": "explore"}),
            "fetch_rows is called from app.py:12 and jobs.py:40.",
        )],
    );
    // The sub-agent the task ran: its events carry its agentId, between the call and its end.
    l.add_for(
        "subagent.started",
        json!({"toolCallId": "call_t1", "agentName": "explore", "agentDisplayName": "Explore"}),
        None,
    );
    l.add_for(
        "user.message",
        json!({"content": "Find every caller of fetch_rows."}),
        Some("explore-1"),
    );
    l.add_for(
        "assistant.message",
        json!({"messageId": "sub-1", "content": "", "toolRequests": [{"toolCallId": "call_g1", "name": "grep", "arguments": {"pattern": "fetch_rows"}}], "model": "claude-haiku-4.5"}),
        Some("explore-1"),
    );
    l.add_for(
        "tool.execution_complete",
        json!({"toolCallId": "call_g1", "success": true, "result": {"content": "app.py:12\njobs.py:40"}}),
        Some("explore-1"),
    );
    l.add_for(
        "assistant.message",
        json!({"messageId": "sub-2", "content": "fetch_rows is called from app.py:12 and jobs.py:40.", "model": "claude-haiku-4.5"}),
        Some("explore-1"),
    );
    l.add_for(
        "subagent.completed",
        json!({"toolCallId": "call_t1", "agentName": "explore"}),
        None,
    );
    l.turn(
        "Each attempt is logged now, and the callers are app.py and jobs.py.",
        &[],
    );
    l.add("assistant.turn_end", json!({"turnId": "1"}));
    l.add(
        "session.canvas_pinned",
        json!({"note": "an event type no reader knows"}),
    );
    // A manual /compact that failed, then one that worked.
    l.add("session.compaction_start", json!({}));
    l.add(
        "session.compaction_complete",
        json!({"success": false, "trigger": "manual", "error": "compaction request failed: 503"}),
    );
    l.add("session.compaction_start", json!({}));
    l.add(
        "session.compaction_complete",
        json!({"success": true, "trigger": "manual", "preCompactionTokens": 21_300, "postCompactionTokens": 2_100,
            "messagesRemoved": 10, "summaryContent": SUMMARY, "checkpointNumber": 2}),
    );
    l.user("run the whole suite");
    l.turn(
        "All 8 tests pass.",
        &[(
            "call_b2",
            "bash",
            json!({"command": "pytest", "description": "run the suite"}),
            "........\n8 passed in 0.51s",
        )],
    );
    l.add(
        "session.shutdown",
        json!({"shutdownType": "routine", "totalPremiumRequests": 3, "totalApiDurationMs": 41_000,
            "sessionStartTime": 1_791_190_800_000_i64,
            "codeChanges": {"filesModified": ["/work/shop/store.py"], "linesAdded": 5, "linesRemoved": 1},
            "modelMetrics": {"claude-sonnet-4.5": {"requests": {"count": 9, "cost": 9},
                "usage": {"inputTokens": 190_000, "outputTokens": 3_100, "cacheReadTokens": 150_000, "cacheWriteTokens": 20_000}},
                "claude-haiku-4.5": {"requests": {"count": 2, "cost": 0.66},
                "usage": {"inputTokens": 9_000, "outputTokens": 400, "cacheReadTokens": 0, "cacheWriteTokens": 0}}}}),
    );
    l
}

/// A session whose context was truncated (no summary), with a line cut short at its end.
fn truncated() -> Log {
    let mut l = Log::new(TRUNCATED);
    l.add(
        "session.start",
        json!({"sessionId": TRUNCATED, "version": 1, "producer": "copilot-agent", "copilotVersion": "0.0.340",
            "startTime": "2026-10-05T09:00:00.000Z", "context": {"cwd": CWD}}),
    );
    l.user("explain store.py");
    l.turn(
        "",
        &[(
            "call_v9",
            "view",
            json!({"path": "/work/shop/store.py"}),
            STORE_PY,
        )],
    );
    l.turn("store.py runs a query and returns every row.", &[]);
    l.add(
        "session.truncation",
        json!({"tokenLimit": 8_000, "preTruncationTokensInMessages": 9_100, "preTruncationMessagesLength": 4,
            "postTruncationTokensInMessages": 600, "postTruncationMessagesLength": 1,
            "tokensRemovedDuringTruncation": 8_500, "messagesRemovedDuringTruncation": 3, "performedBy": "BasicTruncator"}),
    );
    l.user("and jobs.py?");
    l
}

/// Write `copilot/session-state/<id>/events.jsonl` for each session under `out`.
pub fn generate(out: &Path) -> Result<()> {
    let root = out.join("copilot");
    if root.exists() {
        std::fs::remove_dir_all(&root).with_context(|| format!("remove {}", root.display()))?;
    }
    for (log, tail) in [
        (worker(), ""),
        (
            truncated(),
            r#"{"type":"assistant.message","data":{"messageId":"msg-x","content":"jobs.py sch"#,
        ),
    ] {
        let dir = root.join("session-state").join(log.session);
        std::fs::create_dir_all(&dir).with_context(|| format!("create {}", dir.display()))?;
        std::fs::write(dir.join("events.jsonl"), log.text(tail))?;
        // The harness keeps its workspace file beside the log; it is not a session.
        std::fs::write(
            dir.join("workspace.yaml"),
            format!("id: {}\ncwd: {CWD}\n", log.session),
        )?;
    }
    // The first compaction's checkpoint, as the harness saves it beside the log.
    let checkpoints = root.join("session-state").join(WORKER).join("checkpoints");
    std::fs::create_dir_all(&checkpoints)?;
    std::fs::write(
        checkpoints.join("001-retry.md"),
        format!("# Checkpoint 1: retry\n\n{SUMMARY}\n"),
    )?;
    // An older build's session, in the folder it wrote them to.
    crate::copilot_legacy::generate(out)
}
