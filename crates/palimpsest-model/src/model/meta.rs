//! What listing a session tells without reading its messages ([`SessionMeta`]): the format it
//! came from, where it lives, its model and context window, and the usage its source recorded.
//! Part of the model (re-exported from `model`); the readers in `sources/` fill it.

use serde::{Deserialize, Serialize};

/// The family of files a session was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "kebab-case")]
pub enum SourceFormat {
    /// goose `sessions.db` (SQLite).
    Goose,
    /// goose legacy `<id>.jsonl` (first line metadata, then messages).
    GooseLegacy,
    /// Claude Code `~/.claude/projects/<cwd>/<session>.jsonl`.
    ClaudeCode,
    /// Codex `rollout-*.jsonl`.
    Codex,
    /// OpenWorker's `coworker` harness: `coworker.db` + `conversations/<sid>.jsonl`.
    Coworker,
    /// A plain OpenAI / Anthropic message log (array, `{"messages"}` or JSONL).
    MessageLog,
    /// OpenCode's `opencode.db` (SQLite: `session`, `message`, `part`).
    #[serde(rename = "opencode")]
    OpenCode,
    /// Kilo Code's `kilo.db`, OpenCode's schema.
    Kilo,
    /// GitHub Copilot CLI's `session-state/<id>/events.jsonl`.
    CopilotCli,
    /// Gemini CLI's chat recordings (`~/.gemini/tmp/<hash>/chats/session-*.jsonl`).
    GeminiCli,
    /// Crush's per-project `.crush/crush.db` (SQLite).
    Crush,
    /// Cline's (and Roo Code's) task folders, `tasks/<id>/api_conversation_history.json`.
    Cline,
    /// Qwen Code's chat recordings, `~/.qwen/projects/<cwd>/chats/<id>.jsonl`.
    QwenCode,
    /// Aider's chat log, `<repository>/.aider.chat.history.md` (and its `.aider.llm.history`).
    Aider,
}

impl SourceFormat {
    /// The stable name used in JSON and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Goose => "goose",
            Self::GooseLegacy => "goose-legacy",
            Self::ClaudeCode => "claude-code",
            Self::Codex => "codex",
            Self::Coworker => "coworker",
            Self::MessageLog => "message-log",
            Self::OpenCode => "opencode",
            Self::Kilo => "kilo",
            Self::CopilotCli => "copilot-cli",
            Self::GeminiCli => "gemini-cli",
            Self::Crush => "crush",
            Self::Cline => "cline",
            Self::QwenCode => "qwen-code",
            Self::Aider => "aider",
        }
    }
}

/// The agent family a source belongs to: whose default folder it is, and how the sidebar
/// names and groups it. goose's two formats are one family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "kebab-case")]
pub enum Family {
    /// goose (`sessions.db`, legacy `.jsonl`).
    Goose,
    /// Claude Code.
    ClaudeCode,
    /// Codex.
    Codex,
    /// OpenWorker's coworker.
    Coworker,
    /// Plain OpenAI / Anthropic message logs.
    MessageLog,
    /// OpenCode.
    #[serde(rename = "opencode")]
    OpenCode,
    /// Kilo Code.
    Kilo,
    /// GitHub Copilot CLI.
    CopilotCli,
    /// Gemini CLI.
    GeminiCli,
    /// Crush.
    Crush,
    /// Cline and Roo Code.
    Cline,
    /// Qwen Code.
    QwenCode,
    /// Aider.
    Aider,
    /// A folder nothing recognised.
    Unknown,
}

impl Family {
    /// The stable name used in JSON and on the command line (`claude-code`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Goose => "goose",
            Self::ClaudeCode => "claude-code",
            Self::Codex => "codex",
            Self::Coworker => "coworker",
            Self::MessageLog => "message-log",
            Self::OpenCode => "opencode",
            Self::Kilo => "kilo",
            Self::CopilotCli => "copilot-cli",
            Self::GeminiCli => "gemini-cli",
            Self::Crush => "crush",
            Self::Cline => "cline",
            Self::QwenCode => "qwen-code",
            Self::Aider => "aider",
            Self::Unknown => "unknown",
        }
    }
}

impl SourceFormat {
    /// The family the format belongs to (goose's legacy files are goose's).
    pub fn family(self) -> Family {
        match self {
            Self::Goose | Self::GooseLegacy => Family::Goose,
            Self::ClaudeCode => Family::ClaudeCode,
            Self::Codex => Family::Codex,
            Self::Coworker => Family::Coworker,
            Self::MessageLog => Family::MessageLog,
            Self::OpenCode => Family::OpenCode,
            Self::Kilo => Family::Kilo,
            Self::CopilotCli => Family::CopilotCli,
            Self::GeminiCli => Family::GeminiCli,
            Self::Crush => Family::Crush,
            Self::Cline => Family::Cline,
            Self::QwenCode => Family::QwenCode,
            Self::Aider => Family::Aider,
        }
    }
}

/// Token usage the source itself recorded (as opposed to our own counts).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct RecordedUsage {
    /// Input tokens of the last request (≈ current context), when recorded.
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub input_tokens: Option<u64>,
    /// Output tokens of the last request.
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub output_tokens: Option<u64>,
    /// Total of the last request.
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub total_tokens: Option<u64>,
    /// Cache reads of the last request.
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub cache_read_tokens: Option<u64>,
    /// Cache writes of the last request.
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub cache_write_tokens: Option<u64>,
    /// Sum over all requests of the session, when recorded.
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub accumulated_total_tokens: Option<u64>,
    /// The whole prompt of the last request (fresh input plus cache reads and writes): the
    /// recorded context size. Sources split input and cache differently (Claude and Codex count
    /// cached tokens inside input, coworker apart from it), so the reader that knows says.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub context_tokens: Option<u64>,
}

/// What listing a session tells, without reading its messages.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct SessionMeta {
    /// The session id as the source names it.
    pub id: String,
    /// The format it was read from.
    pub format: SourceFormat,
    /// The file the session lives in (the DB for SQLite sources).
    pub path: String,
    /// Display name (falls back to the description, then the id).
    pub name: String,
    /// The agent's working directory, when recorded.
    pub working_dir: Option<String>,
    /// Creation time, Unix milliseconds.
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub created: Option<i64>,
    /// Last update, Unix milliseconds.
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub updated: Option<i64>,
    /// The model, when recorded.
    pub model: Option<String>,
    /// The model's context window in tokens, when recorded.
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub context_limit: Option<u64>,
    /// Usage as the source recorded it.
    pub usage: Option<RecordedUsage>,
    /// Number of stored messages (rows or message lines).
    pub message_count: usize,
    /// Number of compactions, as far as listing can tell cheaply.
    pub compaction_count: usize,
    /// The parent session for subagents and compactor runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_id: Option<String>,
}
