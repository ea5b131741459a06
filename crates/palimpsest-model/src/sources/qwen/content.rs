//! A record's `message` — a Gemini API `Content` — read into parts as soon as its line is, with
//! a fingerprint of its JSON: what a `chat_compression`'s new history is matched against to find
//! the tail it kept. Reading it at once lets each line's JSON go while the file is read, as the
//! Claude Code reader does; holding every line's JSON until the end and freeing it all then
//! cost a Qwen Code load a fifth of its time. Which contents the model holds is `build`'s.

use serde_json::Value;
use xxhash_rust::xxh3::xxh3_64;

use crate::model::Part;
use crate::sources::gemini::expand::parts;
use crate::sources::json_print;

/// One `Content`: its role, its parts, and its fingerprint.
#[derive(Debug)]
pub struct Content {
    /// Whether the role is `model` (the model's answer), not `user`.
    pub model: bool,
    /// The parts as messages hold them; `build` takes them when it makes the message.
    pub parts: Vec<Part>,
    /// Whether the record's `parts` was a list, which a later fragment extends.
    listed: bool,
    /// The fingerprint of the role and each part's JSON, in order (see [`print`]).
    pub print: u64,
}

impl Content {
    /// `c` read: its parts converted, its JSON fingerprinted.
    pub fn of(c: &Value) -> Content {
        let items = c.get("parts").unwrap_or(&Value::Null);
        Content {
            model: c["role"] == "model",
            parts: parts(items),
            listed: items.is_array(),
            print: print(c),
        }
    }

    /// A later fragment `c` of the same record joined as the CLI joins it: its parts appended
    /// to a list, or the content replaced when there was none.
    pub fn join(&mut self, c: &Value) {
        let Some(more) = c.get("parts").and_then(Value::as_array) else {
            return;
        };
        if !self.listed {
            *self = Content::of(c);
            return;
        }
        self.print = more.iter().fold(self.print, json_print::then);
        self.parts.extend(parts(&Value::Array(more.clone())));
    }
}

/// The fingerprint [`Content::of`] gives the `Content` `c`, without converting its parts.
pub fn print(c: &Value) -> u64 {
    let role = xxh3_64(c["role"].as_str().unwrap_or("\0").as_bytes());
    c["parts"]
        .as_array()
        .into_iter()
        .flatten()
        .fold(role, json_print::then)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn equal_contents_print_alike_in_any_key_order_and_different_ones_do_not() {
        let a = json!({"role": "user", "parts": [{"text": "hi"}, {"functionResponse": {"id": "c1", "name": "read_file", "response": {"output": "x"}}}]});
        let b: Value = serde_json::from_str(
            r#"{"parts": [{"text": "hi"}, {"functionResponse": {"response": {"output": "x"}, "name": "read_file", "id": "c1"}}], "role": "user"}"#,
        )
        .unwrap();
        assert_eq!(print(&a), print(&b));
        assert_eq!(Content::of(&a).print, print(&b));
        for other in [
            json!({"role": "model", "parts": [{"text": "hi"}, {"functionResponse": {"id": "c1", "name": "read_file", "response": {"output": "x"}}}]}),
            json!({"role": "user", "parts": [{"functionResponse": {"id": "c1", "name": "read_file", "response": {"output": "x"}}}, {"text": "hi"}]}),
            json!({"role": "user", "parts": [{"text": "hi"}, {"functionResponse": {"id": "c1", "name": "read_file", "response": {"output": "y"}}}]}),
            json!({"role": "user", "parts": [{"text": "hi"}]}),
        ] {
            assert_ne!(print(&a), print(&other), "{other}");
        }
    }

    #[test]
    fn a_fragment_extends_the_parts_and_the_print_as_one_content_would() {
        let mut c = Content::of(&json!({"role": "model", "parts": [{"text": "a"}]}));
        c.join(&json!({"role": "model", "parts": [{"text": "b"}]}));
        let whole = json!({"role": "model", "parts": [{"text": "a"}, {"text": "b"}]});
        assert_eq!(c.print, print(&whole));
        assert_eq!(c.parts, Content::of(&whole).parts);
        // No list yet: the fragment's content stands.
        let mut c = Content::of(&json!({"role": "model"}));
        c.join(&json!({"role": "model", "parts": [{"text": "b"}]}));
        assert_eq!(c.parts, vec![Part::Text { text: "b".into() }]);
    }
}
