//! A 64-bit fingerprint of a JSON value, for the readers that must tell whether a record they
//! already read came back the same (Qwen Code's compression histories, Gemini CLI's rewrites)
//! without keeping the record's JSON to compare with. What counts as the same is each reader's.

use serde_json::Value;
use xxhash_rust::xxh3::xxh3_64_with_seed;

/// Equal for equal values: an object's keys in any order (as `Value`'s equality has it),
/// numbers by their JSON text. Two different values share one with a chance of about 2⁻⁶⁴.
pub fn of(v: &Value) -> u64 {
    match v {
        Value::Null => 1,
        Value::Bool(b) => 2 + u64::from(*b),
        Value::Number(n) => xxh3_64_with_seed(n.to_string().as_bytes(), 4),
        Value::String(s) => xxh3_64_with_seed(s.as_bytes(), 5),
        Value::Array(a) => a.iter().fold(6, then),
        Value::Object(o) => o.iter().fold(7u64, |h, (k, x)| {
            // A sum is blind to order, as an object is.
            h.wrapping_add(xxh3_64_with_seed(k.as_bytes(), of(x)))
        }),
    }
}

/// The running fingerprint `at` of a sequence with `v` after it.
pub fn then(at: u64, v: &Value) -> u64 {
    xxh3_64_with_seed(&of(v).to_le_bytes(), at)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn equal_values_print_alike_in_any_key_order_and_different_ones_do_not() {
        let a = json!({"id": "c1", "response": {"output": "x", "n": 3}, "ok": true});
        let b: Value = serde_json::from_str(
            r#"{"ok": true, "response": {"n": 3, "output": "x"}, "id": "c1"}"#,
        )
        .unwrap();
        assert_eq!(of(&a), of(&b));
        for other in [
            json!({"id": "c1", "response": {"output": "y", "n": 3}, "ok": true}),
            json!({"id": "c1", "response": {"output": "x", "n": 4}, "ok": true}),
            json!({"id": "c1", "response": {"output": "x", "n": 3}, "ok": false}),
            json!({"id": "c1", "response": {"output": "x", "n": 3}}),
            json!([1, 2]),
            json!([2, 1]),
        ] {
            assert_ne!(of(&a), of(&other), "{other}");
        }
        assert_ne!(
            of(&json!([1, 2])),
            of(&json!([2, 1])),
            "a list's order counts"
        );
    }
}
