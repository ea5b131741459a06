//! A compaction as the event `palimpsest.compaction` on its session's span, taken apart as the
//! Cuts view takes it (`compaction::context::Eras`' block of the compaction): where it cut, how
//! it started, the messages of the model's context it dropped, its summary and the tokens it
//! recorded. Which span carries it is `spans`'.

use opentelemetry_proto::tonic::trace::v1::span as otel;

use super::wire::kv;
use crate::compaction::context::Eras;
use crate::model::Session;

/// The event of compaction `ci` (position in `Session::compactions`), as the Cuts view takes it
/// apart: where it cut, how it started, the messages of the model's context it dropped, its
/// summary, and the token counts it recorded.
pub(super) fn compaction(
    session: &Session,
    eras: &Eras,
    ci: usize,
    times: &[u64],
    bodies: bool,
) -> otel::Event {
    let r = &session.compactions[ci];
    let block = eras.block(ci);
    let summary = block
        .summary
        .and_then(|i| session.messages.get(i))
        .map(|m| m.text())
        .unwrap_or_default();
    let mut a = vec![
        kv("palimpsest.compaction.cut_index", r.cut_index as i64),
        kv(
            "palimpsest.compaction.dropped_messages",
            block.dropped.len() as i64,
        ),
        kv(
            "palimpsest.compaction.summary_chars",
            summary.trim().chars().count() as i64,
        ),
    ];
    if let Some(i) = block.summary {
        a.push(kv("palimpsest.compaction.summary_index", i as i64));
    }
    if let Some(trigger) = r
        .trigger
        .as_ref()
        .and_then(|t| serde_json::to_value(t).ok())
        .and_then(|v| v.as_str().map(str::to_owned))
    {
        a.push(kv("palimpsest.compaction.trigger", trigger));
    }
    for (key, v) in [
        ("palimpsest.compaction.pre_tokens", r.pre_tokens),
        ("palimpsest.compaction.post_tokens", r.post_tokens),
    ] {
        if let Some(v) = v {
            a.push(kv(key, v as i64));
        }
    }
    if bodies && !summary.is_empty() {
        a.push(kv("palimpsest.compaction.summary", summary));
    }
    otel::Event {
        time_unix_nano: times
            .get(r.cut_index.min(times.len().saturating_sub(1)))
            .copied()
            .unwrap_or(0),
        name: "palimpsest.compaction".into(),
        attributes: a,
        dropped_attributes_count: 0,
    }
}
