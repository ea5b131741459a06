//! A request as a provider log recorded it, item by item: what the model received, for
//! comparing with the request rebuilt from a session (`compaction::recorded`). Sources that keep
//! such logs (goose's `llm_request.*.jsonl`) fill it.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One thing the model receives, on either side of a comparison.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Item {
    /// `system`, `user`, `assistant` or `tool` (a tool result, whatever message carried it).
    pub role: String,
    /// `text`, `tool_call`, `tool_result` or `image`.
    pub kind: String,
    /// The call id, for calls and results.
    pub call_id: Option<String>,
    /// The text (a call's name and arguments as compact JSON).
    pub text: String,
}

impl Item {
    /// Text or a result's text.
    pub fn text(role: &str, text: &str) -> Self {
        Item {
            role: role.to_owned(),
            kind: "text".into(),
            call_id: None,
            text: text.to_owned(),
        }
    }

    /// A call: `name` and its arguments (a JSON string is parsed, as providers send it).
    pub fn call(id: &str, name: &str, arguments: &Value) -> Self {
        let args = match arguments {
            Value::String(s) => serde_json::from_str(s).unwrap_or_else(|_| arguments.clone()),
            other => other.clone(),
        };
        Item {
            role: "assistant".into(),
            kind: "tool_call".into(),
            call_id: Some(id.to_owned()),
            text: format!("{name} {args}"),
        }
    }

    /// A result of call `id`.
    pub fn result(id: &str, text: &str) -> Self {
        Item {
            role: "tool".into(),
            kind: "tool_result".into(),
            call_id: Some(id.to_owned()),
            text: text.to_owned(),
        }
    }
}

/// One request log, read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct RecordedRequest {
    /// The log file.
    pub file: String,
    /// Its place among the kept logs (0 = the newest).
    pub slot: Option<usize>,
    /// The model the payload names.
    pub model: Option<String>,
    /// How many messages the payload holds (its system prompt included).
    pub messages: usize,
    /// What the model received, item by item.
    pub items: Vec<Item>,
    /// The provider's error, when the call failed.
    pub error: Option<String>,
    /// The usage goose recorded for the response, as stored.
    #[cfg_attr(feature = "ts", ts(type = "unknown"))]
    pub usage: Option<Value>,
}
