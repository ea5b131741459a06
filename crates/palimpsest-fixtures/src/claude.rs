//! A Claude Code project folder shaped like the real sessions that break inspectors:
//! `fixtures/claude/projects/-home-dev-shop/` holds `six-cuts`, a worker with six cuts of three
//! kinds (manual, micro, auto, micro, manual, auto), a 3 KB first prompt, Read/Edit/Bash work,
//! MCP calls (`mcp__linear__*`), a Task call whose subagent run sits in `<id>/subagents/`, and
//! microcompacts that clear earlier Read results by id (`compactedToolIds`), and an MCP result
//! that overflowed into `<id>/tool-results/` (Claude Code's "exceeds maximum allowed tokens"
//! notice, naming the file by the path of the machine that wrote it).
//!
//! Records follow the shapes of real transcripts (transcript-formats.md §1 and the files in
//! `fixtures/real/claude-code`): a `queue-operation` and a `file-history-snapshot` first, the
//! envelope keys on every line, `compact_boundary` with `logicalParentUuid` and
//! `compactMetadata`, the summary as an `isCompactSummary` user line,
//! `microcompact_boundary` with `microcompactMetadata.{trigger, preTokens, tokensSaved,
//! compactedToolIds}`. Which cut the model's context came from is asserted on it by the app's
//! end-to-end tests.

use std::path::Path;

use anyhow::{Context, Result};
use serde_json::{Map, Value, json};

/// The session's id (its file is `<id>.jsonl`).
pub const SIX_CUTS_ID: &str = "6c075000-0000-4000-8000-00000000c006";
/// The project folder under `fixtures/claude/projects/`.
pub const PROJECT: &str = "-home-dev-shop";

/// Lines of a Claude Code transcript being written, with the chain of `parentUuid`s kept (the
/// tests build their inputs with it, in the shape real sessions have).
pub struct Transcript {
    /// The lines so far.
    pub lines: Vec<Value>,
    parent: Option<String>,
    n: usize,
    second: u32,
    session: String,
}

impl Transcript {
    /// An empty transcript of session `id`.
    pub fn new(id: &str) -> Self {
        Transcript {
            lines: Vec::new(),
            parent: None,
            n: 0,
            second: 0,
            session: id.to_owned(),
        }
    }

    fn ts(&mut self) -> String {
        self.second += 7;
        let s = self.second;
        format!(
            "2026-03-02T{:02}:{:02}:{:02}.000Z",
            9 + s / 3600,
            (s / 60) % 60,
            s % 60
        )
    }

    fn uuid(&mut self) -> String {
        self.n += 1;
        format!("00000000-0000-4000-8000-{:012}", self.n)
    }

    /// One envelope line, chained after the previous one.
    fn push(&mut self, typ: &str, extra: Value) -> String {
        let uuid = self.uuid();
        let mut m: Map<String, Value> = match json!({
            "parentUuid": self.parent, "isSidechain": false, "userType": "external",
            "cwd": "/home/dev/shop", "sessionId": self.session, "version": "2.1.39",
            "gitBranch": "main", "slug": "quiet-orange-lantern", "type": typ,
            "timestamp": self.ts(), "uuid": uuid,
        }) {
            Value::Object(m) => m,
            _ => unreachable!("an object"),
        };
        if let Value::Object(e) = extra {
            m.extend(e);
        }
        self.lines.push(Value::Object(m));
        self.parent = Some(uuid.clone());
        uuid
    }

    pub fn user(&mut self, text: &str) {
        self.push(
            "user",
            json!({"message": {"role": "user", "content": text}}),
        );
    }

    pub fn say(&mut self, text: &str, input_tokens: u64) {
        let id = format!("msg_{:04}", self.n);
        self.push("assistant", json!({"message": {"id": id, "type": "message", "role": "assistant",
            "model": "claude-opus-4-6", "content": [{"type": "text", "text": text}],
            "usage": {"input_tokens": 12, "cache_read_input_tokens": input_tokens, "cache_creation_input_tokens": 400, "output_tokens": 80}}}));
    }

    /// One API response as Claude Code 2.1 streams it into the transcript: each content block
    /// on a line of its own under the response's one `message.id`, every line with the
    /// response's input figures and an early `output_tokens`, only the last with the final one
    /// (one real response's lines read 10, 10, 10, 10, 10, then 441).
    pub fn streamed(&mut self, model: &str, blocks: &[Value], input: [u64; 3], outputs: &[u64]) {
        let id = format!("msg_{:04}", self.n);
        let [fresh, read, write] = input;
        for (block, out) in blocks.iter().zip(outputs) {
            self.push("assistant", json!({"message": {"id": id, "type": "message", "role": "assistant",
                "model": model, "content": [block],
                "usage": {"input_tokens": fresh, "cache_read_input_tokens": read,
                    "cache_creation_input_tokens": write,
                    "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": write},
                    "output_tokens": out, "service_tier": "standard"}}}));
        }
    }

    /// A tool call and its result; returns the call id.
    pub fn tool(&mut self, name: &str, input: Value, result: &str, input_tokens: u64) -> String {
        self.tool_with(name, input, result, input_tokens, json!({}))
    }

    /// [`Transcript::tool`] with more keys on the result line (`toolUseResult`).
    pub fn tool_with(
        &mut self,
        name: &str,
        input: Value,
        result: &str,
        input_tokens: u64,
        extra: Value,
    ) -> String {
        self.call_and_result(name, input, result, input_tokens, extra, false)
    }

    /// A tool call whose result is an error (`is_error: true`); returns the call id.
    pub fn tool_error(
        &mut self,
        name: &str,
        input: Value,
        result: &str,
        input_tokens: u64,
    ) -> String {
        self.call_and_result(name, input, result, input_tokens, json!({}), true)
    }

    /// The assistant line with the call, then the user line with its result.
    fn call_and_result(
        &mut self,
        name: &str,
        input: Value,
        result: &str,
        input_tokens: u64,
        extra: Value,
        is_error: bool,
    ) -> String {
        let call = format!("toolu_{:04}", self.n);
        let id = format!("msg_{:04}", self.n);
        self.push("assistant", json!({"message": {"id": id, "type": "message", "role": "assistant",
            "model": "claude-opus-4-6", "content": [{"type": "tool_use", "id": call, "name": name, "input": input}],
            "usage": {"input_tokens": 12, "cache_read_input_tokens": input_tokens, "cache_creation_input_tokens": 300, "output_tokens": 60}}}));
        let mut block = json!({"type": "tool_result", "tool_use_id": call, "content": result});
        if is_error {
            block["is_error"] = json!(true);
        }
        let mut line = json!({"message": {"role": "user", "content": [block]}});
        if let (Value::Object(l), Value::Object(e)) = (&mut line, extra) {
            l.extend(e);
        }
        self.push("user", line);
        call
    }

    /// The line Claude Code writes when the API refuses a request (`isApiErrorMessage`, model
    /// `<synthetic>`, zero usage), e.g. `Prompt is too long`.
    pub fn api_error(&mut self, text: &str) {
        let id = format!("msg_{:04}", self.n);
        self.push("assistant", json!({"isApiErrorMessage": true, "message": {"id": id, "type": "message",
            "role": "assistant", "model": "<synthetic>", "content": [{"type": "text", "text": text}],
            "usage": {"input_tokens": 0, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0, "output_tokens": 0}}}));
    }

    /// The uuid the next chained line will get.
    pub fn next_uuid(&self) -> String {
        format!("00000000-0000-4000-8000-{:012}", self.n + 1)
    }

    /// The uuid of the last line chained so far.
    pub fn last_uuid(&self) -> String {
        self.parent.clone().unwrap_or_default()
    }

    /// A line outside the chain (a state record: no uuid, no parent), as written.
    pub fn record(&mut self, line: Value) {
        self.lines.push(line);
    }

    /// Write the transcript as JSONL.
    pub fn write(&self, path: &Path) -> Result<()> {
        write_lines(path, &self.lines)
    }

    /// A full compaction: the boundary (a new chain, linked logically) and the summary.
    pub fn compact(&mut self, trigger: &str, pre: u64, summary: &str) {
        let logical = self.parent.take();
        self.push(
            "system",
            json!({"logicalParentUuid": logical, "subtype": "compact_boundary",
            "content": "Conversation compacted", "isMeta": false, "level": "info",
            "compactMetadata": {"trigger": trigger, "preTokens": pre}}),
        );
        self.push("user", json!({"isCompactSummary": true, "isVisibleInTranscriptOnly": true,
            "message": {"role": "user", "content": format!(
                "This session is being continued from a previous conversation that ran out of context. \
                 The summary below covers the earlier portion of the conversation.\n\n{summary}")}}));
    }

    pub fn micro(&mut self, pre: u64, saved: u64, cleared: &[String]) {
        self.push("system", json!({"subtype": "microcompact_boundary", "content": "Context microcompacted",
            "isMeta": false, "level": "info",
            "microcompactMetadata": {"trigger": "auto", "preTokens": pre, "tokensSaved": saved, "compactedToolIds": cleared}}));
    }
}

fn source(name: &str, lines: usize) -> String {
    (0..lines)
        .map(|i| {
            format!(
                "def {name}_{i}(cart):\n    return sum(item.price for item in cart)  # line {i}\n"
            )
        })
        .collect()
}

/// The `six-cuts` transcript's lines.
pub fn six_cuts() -> Vec<Value> {
    let mut t = Transcript::new(SIX_CUTS_ID);
    let prompt = format!(
        "Fix the checkout total: discounts are applied twice when a coupon and a sale overlap. \
         Keep the public API of shop/cart.py; add a regression test; close the Linear issues that \
         this fixes (SHOP-101 to SHOP-112) with a comment. Context follows.\n\n{}",
        "The checkout flow computes totals in three places (cart, order, invoice). ".repeat(40)
    );
    t.lines.push(json!({"type": "queue-operation", "operation": "enqueue", "timestamp": "2026-03-02T09:00:00.000Z",
        "sessionId": SIX_CUTS_ID, "content": prompt}));
    t.lines.push(json!({"type": "file-history-snapshot", "messageId": "m0", "isSnapshotUpdate": false,
        "snapshot": {"messageId": "m0", "trackedFileBackups": {}, "timestamp": "2026-03-02T09:00:00.000Z"}}));
    t.user(&prompt);
    let mut reads: Vec<String> = Vec::new();
    let mut tokens = 20_000;
    for (k, (kind, pre)) in [
        ("manual", 131_000),
        ("micro", 90_000),
        ("auto", 167_000),
        ("micro", 95_000),
        ("manual", 140_000),
        ("auto", 171_000),
    ]
    .into_iter()
    .enumerate()
    {
        let seg = k + 1;
        reads.push(t.tool(
            "Read",
            json!({"file_path": "/home/dev/shop/shop/cart.py"}),
            &source(&format!("cart{seg}"), 60),
            tokens,
        ));
        tokens += 9_000;
        t.tool(
            "Bash",
            json!({"command": "pytest -q tests/test_cart.py"}),
            "1 failed: test_coupon_and_sale - assert 80 == 72",
            tokens,
        );
        tokens += 1_000;
        // Segment 6's listing overflowed: Claude Code saved it under the session's
        // `tool-results/` and said so (the path is the writing machine's, as in a copied home).
        let issues = if seg == 6 {
            format!(
                "Error: result (1,093,765 characters) exceeds maximum allowed tokens. Output has been \
                 saved to /home/dev/.claude/projects/{PROJECT}/{SIX_CUTS_ID}/tool-results/{OVERFLOW}.\n\
                 Format: JSON array of issues"
            )
        } else {
            "[{\"id\":\"SHOP-101\"},{\"id\":\"SHOP-102\"}]".to_owned()
        };
        t.tool(
            "mcp__linear__list_issues",
            json!({"team": "SHOP", "state": "open"}),
            &issues,
            tokens,
        );
        t.tool(
            "mcp__linear__update_issue",
            json!({"id": format!("SHOP-1{seg:02}"), "state": "In Progress"}),
            "{\"ok\":true}",
            tokens,
        );
        if seg == 2 {
            t.tool_with("Task", json!({"subagent_type": "Explore", "description": "find every total computation", "prompt": "List every place the checkout total is computed."}),
                "cart.py:total, order.py:grand_total, invoice.py:amount_due", tokens,
                json!({"toolUseResult": {"status": "completed", "agentId": "a6c0e01"}}));
        }
        t.tool("Edit", json!({"file_path": "/home/dev/shop/shop/cart.py", "old_string": "total -= discount", "new_string": "total -= max(discount, sale)"}), "The file has been updated.", tokens);
        t.say(
            &format!("Segment {seg}: the double discount is narrowed down; continuing."),
            tokens,
        );
        match kind {
            "micro" => {
                // Clear the Read results seen so far, as Claude Code does before a full cut.
                let cleared: Vec<String> = std::mem::take(&mut reads);
                t.micro(pre, 24_000, &cleared);
                tokens -= 24_000;
            }
            trigger => {
                t.compact(trigger, pre, &format!(
                    "1. Primary Request and Intent: fix the double discount in shop/cart.py (coupon + sale), \
                     add a regression test, close SHOP-101..SHOP-112.\n2. Files and Code Sections: shop/cart.py \
                     (total, apply_discounts), tests/test_cart.py.\n3. Errors and fixes: test_coupon_and_sale \
                     fails (80 != 72).\n4. Pending Tasks: segment {} of the fix.\n5. Current Work: the Edit to \
                     cart.py total.", seg + 1));
                reads.clear();
                tokens = 14_000;
                if seg < 6 {
                    t.user("Continue with the fix.");
                }
            }
        }
    }
    t.say(
        "Continuing from the summary: adding the regression test next.",
        tokens,
    );
    t.lines
}

/// The Explore subagent's run, linked from the Task call of segment 2.
fn subagent() -> Vec<Value> {
    let line = |uuid: &str, parent: Option<&str>, typ: &str, message: Value| {
        json!({"parentUuid": parent, "isSidechain": true, "userType": "external", "cwd": "/home/dev/shop",
               "sessionId": SIX_CUTS_ID, "agentId": "a6c0e01", "version": "2.1.39", "type": typ,
               "timestamp": "2026-03-02T09:05:00.000Z", "uuid": uuid, "message": message})
    };
    vec![
        line(
            "s1",
            None,
            "user",
            json!({"role": "user", "content": "List every place the checkout total is computed."}),
        ),
        line(
            "s2",
            Some("s1"),
            "assistant",
            json!({"id": "msg_s2", "role": "assistant", "model": "claude-haiku-4-5",
            "content": [{"type": "text", "text": "cart.py:total, order.py:grand_total, invoice.py:amount_due"}]}),
        ),
    ]
}

/// Write `lines` as JSONL at `path`, making its folder.
pub fn write_lines(path: &Path, lines: &[Value]) -> Result<()> {
    if let Some(p) = path.parent() {
        std::fs::create_dir_all(p).with_context(|| format!("create {}", p.display()))?;
    }
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(path, text).with_context(|| format!("write {}", path.display()))
}

/// Write `<out>/claude/projects/-home-dev-shop/…`, replacing what is there.
pub fn generate(out: &Path) -> Result<()> {
    let root = out.join("claude");
    if root.exists() {
        std::fs::remove_dir_all(&root).with_context(|| format!("remove {}", root.display()))?;
    }
    let project = root.join("projects").join(PROJECT);
    write_lines(&project.join(format!("{SIX_CUTS_ID}.jsonl")), &six_cuts())?;
    write_lines(
        &project
            .join(SIX_CUTS_ID)
            .join("subagents/agent-a6c0e01.jsonl"),
        &subagent(),
    )?;
    let spill = project
        .join(SIX_CUTS_ID)
        .join("tool-results")
        .join(OVERFLOW);
    std::fs::create_dir_all(project.join(SIX_CUTS_ID).join("tool-results"))?;
    std::fs::write(&spill, overflow_listing())
        .with_context(|| format!("write {}", spill.display()))?;
    crate::claude_views::generate(&root)
}

/// The file segment 6's overflowing `list_issues` was saved to (Claude Code's naming).
pub const OVERFLOW: &str = "mcp-linear-list_issues-1772442000.txt";

/// What that file holds: the open issues as one JSON array.
fn overflow_listing() -> String {
    let issues: Vec<Value> = (101..=112)
        .map(|n| json!({"id": format!("SHOP-{n}"), "title": format!("Checkout total wrong (case {n})"), "state": "open"}))
        .collect();
    serde_json::to_string_pretty(&issues).unwrap_or_default() + "\n"
}
