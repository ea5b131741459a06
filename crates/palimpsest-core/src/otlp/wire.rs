//! OTLP's building blocks as `spans` uses them: attribute values, the ids of a session's trace
//! and spans (derived from the session, so exporting it again gives the same ids), one span,
//! and the provider a model name belongs to.

use opentelemetry_proto::tonic::common::v1::{AnyValue, ArrayValue, KeyValue, any_value};
use opentelemetry_proto::tonic::trace::v1::{Span, span};

use crate::model::Session;

/// An attribute.
pub(super) fn kv(key: &str, value: impl Into<Attr>) -> KeyValue {
    KeyValue {
        key: key.to_string(),
        value: Some(AnyValue {
            value: Some(value.into().0),
        }),
        ..Default::default()
    }
}

/// An attribute's value.
pub(super) struct Attr(any_value::Value);

impl From<&str> for Attr {
    fn from(s: &str) -> Self {
        Attr(any_value::Value::StringValue(s.to_string()))
    }
}
impl From<String> for Attr {
    fn from(s: String) -> Self {
        Attr(any_value::Value::StringValue(s))
    }
}
impl From<i64> for Attr {
    fn from(n: i64) -> Self {
        Attr(any_value::Value::IntValue(n))
    }
}
impl From<f64> for Attr {
    fn from(x: f64) -> Self {
        Attr(any_value::Value::DoubleValue(x))
    }
}
impl From<bool> for Attr {
    fn from(b: bool) -> Self {
        Attr(any_value::Value::BoolValue(b))
    }
}
impl From<Vec<&str>> for Attr {
    fn from(v: Vec<&str>) -> Self {
        Attr(any_value::Value::ArrayValue(ArrayValue {
            values: v
                .into_iter()
                .map(|s| AnyValue {
                    value: Some(any_value::Value::StringValue(s.to_string())),
                })
                .collect(),
        }))
    }
}

/// A session's trace id (the hash of its file and id) and its spans' ids.
pub(super) struct Ids {
    pub trace: [u8; 16],
}

impl Ids {
    pub fn of(session: &Session) -> Self {
        let seed = format!("{}\0{}", session.meta.path, session.meta.id);
        Ids {
            trace: xxhash_rust::xxh3::xxh3_128(seed.as_bytes()).to_be_bytes(),
        }
    }

    /// The id of the `n`th span of `kind` (0 the session, 1 a request, 2 a tool call); never
    /// zero, which OTLP reads as "no span".
    pub fn span(&self, kind: u8, n: u64) -> u64 {
        let mut key = self.trace.to_vec();
        key.push(kind);
        key.extend_from_slice(&n.to_be_bytes());
        xxhash_rust::xxh3::xxh3_64(&key).max(1)
    }
}

/// One span of the session's trace (`parent` 0: the root).
#[allow(clippy::too_many_arguments)]
pub(super) fn span(
    ids: &Ids,
    id: u64,
    parent: u64,
    name: String,
    kind: span::SpanKind,
    start: u64,
    end: u64,
    attributes: Vec<KeyValue>,
) -> Span {
    Span {
        trace_id: ids.trace.to_vec(),
        span_id: id.to_be_bytes().to_vec(),
        parent_span_id: if parent == 0 {
            Vec::new()
        } else {
            parent.to_be_bytes().to_vec()
        },
        name,
        kind: kind as i32,
        start_time_unix_nano: start,
        end_time_unix_nano: end.max(start),
        attributes,
        ..Default::default()
    }
}

/// `gen_ai.request.model` and, when the model's name says whose it is, `gen_ai.provider.name`
/// (the convention's names for the providers the agents use).
pub(super) fn model_attrs(model: Option<&str>) -> Vec<KeyValue> {
    let Some(model) = model else {
        return Vec::new();
    };
    let mut out = vec![kv("gen_ai.request.model", model)];
    let m = model.to_ascii_lowercase();
    let provider = [
        ("claude", "anthropic"),
        ("gemini", "gcp.gemini"),
        ("gpt", "openai"),
        ("codex", "openai"),
        ("deepseek", "deepseek"),
        ("mistral", "mistral_ai"),
        ("codestral", "mistral_ai"),
        ("grok", "x_ai"),
    ]
    .iter()
    .find(|(word, _)| m.contains(word))
    .map(|(_, p)| *p)
    .or_else(|| {
        let bare = m.rsplit('/').next().unwrap_or(&m);
        ["o1", "o3", "o4"]
            .iter()
            .any(|p| bare.starts_with(p))
            .then_some("openai")
    });
    if let Some(p) = provider {
        out.push(kv("gen_ai.provider.name", p));
    }
    out
}
