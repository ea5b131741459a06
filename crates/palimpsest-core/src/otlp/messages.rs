//! Stored messages in the message shape of the OpenTelemetry GenAI conventions
//! (`gen_ai.input.messages`, `gen_ai.output.messages`: a role and typed parts), and a tool
//! call's arguments and result as `execute_tool` spans carry them. Which messages a request
//! held is `spans`' question; this only writes each one.

use serde_json::{Value, json};

use crate::model::{Message, Part, Role};

/// The message as one entry of `gen_ai.input.messages`: role `system`, `user`, `assistant`,
/// or `tool` for a user message that only carries tool results (the Anthropic shape).
pub(super) fn input(m: &Message) -> Value {
    json!({"role": role(m), "parts": parts(m)})
}

/// The answer of one request as `gen_ai.output.messages`: its assistant messages (one per
/// stored content block in Claude Code's shape) as the one choice the model returned.
pub(super) fn output(answer: &[&Message], finish: &str) -> Value {
    let parts: Vec<Value> = answer.iter().flat_map(|m| parts(m)).collect();
    json!([{"role": "assistant", "parts": parts, "finish_reason": finish}])
}

fn role(m: &Message) -> &'static str {
    match m.role {
        Role::System => "system",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
        Role::User
            if !m.parts.is_empty()
                && m.parts.iter().all(|p| matches!(p, Part::ToolResult { .. })) =>
        {
            "tool"
        }
        Role::User => "user",
    }
}

fn parts(m: &Message) -> Vec<Value> {
    m.parts.iter().filter_map(part).collect()
}

/// One part; an image keeps only what the session kept of it (its type and size), and a part
/// the reader does not model keeps its own tag.
fn part(p: &Part) -> Option<Value> {
    Some(match p {
        Part::Text { text } => json!({"type": "text", "content": text}),
        Part::Thinking { text, redacted } => {
            json!({"type": "reasoning", "content": text, "redacted": redacted})
        }
        Part::ToolCall {
            id,
            name,
            arguments,
        } => json!({"type": "tool_call", "id": id, "name": name, "arguments": arguments.value()}),
        Part::ToolResult {
            call_id,
            text,
            is_error,
            ..
        } => json!({
            "type": "tool_call_response",
            "id": call_id,
            "response": text.text(),
            "is_error": is_error,
        }),
        Part::Image { mime, size } => {
            json!({"type": "blob", "modality": "image", "mime_type": mime, "size": size})
        }
        Part::Other { original_type, .. } => json!({"type": original_type}),
    })
}
