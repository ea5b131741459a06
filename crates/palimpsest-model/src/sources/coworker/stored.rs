//! A message as coworker's engine holds it in memory: the stored dict, sidecar keys and whole
//! notices included, which is what `estimate_tokens` and `pick_boundary` size
//! (`len(json.dumps(msg, default=str))`), beside the outbound dict a provider call gets (sidecars
//! stripped, notices dropped). The reader records both lengths on each message
//! (`details.stored_len = [stored, outbound]`) so a replay sizes messages as the harness does
//! without the stored lines.

use serde_json::Value;

use super::pyjson;

/// The sidecar keys coworker strips before a provider call.
const SIDECARS: &[&str] = &[
    "source",
    "_activity",
    "timing",
    "_display",
    "ts",
    "reasoning",
    "usage",
    "finish_reason",
    "max_output_tokens",
    "reasoning_effort",
    "served_by",
    "replay",
];

/// The same message with the sidecar keys stripped, as sent (`None` for notices: never sent).
pub fn outbound_value(stored: &Value) -> Option<Value> {
    let mut o = stored.as_object()?.clone();
    if o.get("role").and_then(Value::as_str) == Some("notice") {
        return None;
    }
    for k in SIDECARS {
        o.remove(*k);
    }
    Some(Value::Object(o))
}

/// `[len(json.dumps(stored)), len(json.dumps(outbound))]` of one stored dict (`0` outbound for
/// a notice, which is never sent).
pub fn lengths(stored: &Value) -> [u64; 2] {
    [
        pyjson::dumps_len(stored) as u64,
        outbound_value(stored).map_or(0, |v| pyjson::dumps_len(&v) as u64),
    ]
}

/// The lengths a reader recorded on a message (`details.stored_len`).
pub fn recorded_lengths(details: Option<&crate::model::CompactJson>) -> Option<[u64; 2]> {
    let v = details?.get("stored_len")?;
    let a = v.as_array()?;
    Some([a.first()?.as_u64()?, a.get(1)?.as_u64()?])
}
