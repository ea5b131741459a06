//! A session's messages as a reader's snapshot keeps them between processes (the Claude Code
//! reader's, `sources::claude::saved`): every packed text (a long tool result, details,
//! arguments) as the bytes held, so writing a snapshot and reading it back neither unpacks
//! nor packs anything. `Message`'s own serde is the JSON contract (`show --json`, the app),
//! where a packed text is its plain string; this is a second, positional form for
//! MessagePack (fields in order, no names), never shown to anyone. Where the snapshot lives
//! and when it is trusted is the index's business.

use std::borrow::Borrow;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer, de};
use serde_bytes::{ByteBuf, Bytes};

use super::{
    Arguments, Body, CompactJson, Link, LinkKind, Message, MessageKind, Part, Role, UsageSplit,
};

/// Messages to write into a snapshot (a session's, shared, or a reader's own).
pub struct MessagesOut<'a, M: Borrow<Message>>(pub &'a [M]);

impl<M: Borrow<Message>> Serialize for MessagesOut<'_, M> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(|m| MessageOut::of(m.borrow())))
    }
}

/// A reader's own messages in a snapshot (`#[serde(with = "model::snap::owned")]`).
pub mod owned {
    use super::*;

    /// Write `v` as [`MessagesOut`] does.
    pub fn serialize<S: Serializer>(v: &[Message], s: S) -> Result<S::Ok, S::Error> {
        MessagesOut(v).serialize(s)
    }

    /// Read back what [`serialize`] wrote.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Message>, D::Error> {
        let v = Vec::<MessageIn>::deserialize(d)?;
        Ok(v.into_iter()
            .map(|m| Arc::try_unwrap(m.0).unwrap_or_else(|a| (*a).clone()))
            .collect())
    }
}

/// One message read back from a snapshot (a `Vec` of them is the session's messages).
pub struct MessageIn(pub Arc<Message>);

impl<'de> Deserialize<'de> for MessageIn {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let m = MessageFields::deserialize(d)?;
        m.message()
            .map(|m| MessageIn(Arc::new(m)))
            .ok_or_else(|| de::Error::custom("a text in the snapshot is not UTF-8"))
    }
}

/// A [`Body`] as held: its text's length, whether packed, the bytes.
#[derive(Serialize)]
struct BodyOut<'a>(usize, bool, &'a Bytes);

#[derive(Deserialize)]
struct BodyIn(usize, bool, ByteBuf);

impl<'a> BodyOut<'a> {
    fn of(b: &'a Body) -> Self {
        BodyOut(b.len(), b.is_packed(), Bytes::new(b.held()))
    }
}

impl BodyIn {
    fn body(self) -> Option<Body> {
        Body::from_held(self.0, self.1, self.2.into_vec())
    }
}

#[derive(Serialize)]
enum ArgsOut<'a> {
    Json(&'a Bytes),
    Long(BodyOut<'a>),
}

#[derive(Deserialize)]
enum ArgsIn {
    Json(ByteBuf),
    Long(BodyIn),
}

#[derive(Serialize)]
enum PartOut<'a> {
    Text(&'a str),
    Thinking(&'a str, bool),
    ToolCall(&'a str, &'a str, ArgsOut<'a>),
    ToolResult(&'a str, BodyOut<'a>, bool, &'a Bytes),
    Image(&'a str, usize),
    /// The raw value as JSON text: exact whatever numbers it holds.
    Other(&'a str, String),
}

#[derive(Deserialize)]
enum PartIn {
    Text(String),
    Thinking(String, bool),
    ToolCall(String, String, ArgsIn),
    ToolResult(String, BodyIn, bool, ByteBuf),
    Image(String, usize),
    Other(String, String),
}

#[derive(Serialize)]
struct MessageOut<'a> {
    index: usize,
    id: &'a Option<String>,
    role: &'a Role,
    kind: &'a MessageKind,
    created: Option<i64>,
    parts: Vec<PartOut<'a>>,
    agent_visible: bool,
    user_visible: bool,
    error: &'a Option<String>,
    links: Vec<(&'a LinkKind, &'a str, &'a Option<String>)>,
    details: Option<&'a Bytes>,
    usage: &'a [UsageSplit],
}

/// [`MessageOut`] read back.
#[derive(Deserialize)]
struct MessageFields {
    index: usize,
    id: Option<String>,
    role: Role,
    kind: MessageKind,
    created: Option<i64>,
    parts: Vec<PartIn>,
    agent_visible: bool,
    user_visible: bool,
    error: Option<String>,
    links: Vec<(LinkKind, String, Option<String>)>,
    details: Option<ByteBuf>,
    usage: Vec<UsageSplit>,
}

impl<'a> MessageOut<'a> {
    fn of(m: &'a Message) -> Self {
        let parts = m
            .parts
            .iter()
            .map(|p| match p {
                Part::Text { text } => PartOut::Text(text),
                Part::Thinking { text, redacted } => PartOut::Thinking(text, *redacted),
                Part::ToolCall {
                    id,
                    name,
                    arguments,
                } => PartOut::ToolCall(
                    id,
                    name,
                    match arguments.held() {
                        Ok(j) => ArgsOut::Json(Bytes::new(j.held())),
                        Err(b) => ArgsOut::Long(BodyOut::of(b)),
                    },
                ),
                Part::ToolResult {
                    call_id,
                    text,
                    is_error,
                    raw,
                } => PartOut::ToolResult(
                    call_id,
                    BodyOut::of(text),
                    *is_error,
                    Bytes::new(raw.held()),
                ),
                Part::Image { mime, size } => PartOut::Image(mime, *size),
                Part::Other { original_type, raw } => {
                    PartOut::Other(original_type, raw.to_string())
                }
            })
            .collect();
        MessageOut {
            index: m.index,
            id: &m.id,
            role: &m.role,
            kind: &m.kind,
            created: m.created,
            parts,
            agent_visible: m.agent_visible,
            user_visible: m.user_visible,
            error: &m.error,
            links: m
                .links
                .iter()
                .map(|l| (&l.kind, l.path.as_str(), &l.session))
                .collect(),
            details: m.details.as_ref().map(|d| Bytes::new(d.held())),
            usage: &m.usage,
        }
    }
}

impl MessageFields {
    /// The message, or `None` when a text is not what was written (not UTF-8, not JSON).
    fn message(self) -> Option<Message> {
        let parts = self
            .parts
            .into_iter()
            .map(|p| {
                Some(match p {
                    PartIn::Text(text) => Part::Text { text },
                    PartIn::Thinking(text, redacted) => Part::Thinking { text, redacted },
                    PartIn::ToolCall(id, name, args) => Part::ToolCall {
                        id,
                        name,
                        arguments: Arguments::from_held(match args {
                            ArgsIn::Json(b) => Ok(CompactJson::from_held(b.into_vec())?),
                            ArgsIn::Long(b) => Err(b.body()?),
                        }),
                    },
                    PartIn::ToolResult(call_id, text, is_error, raw) => Part::ToolResult {
                        call_id,
                        text: text.body()?,
                        is_error,
                        raw: CompactJson::from_held(raw.into_vec())?,
                    },
                    PartIn::Image(mime, size) => Part::Image { mime, size },
                    PartIn::Other(original_type, raw) => Part::Other {
                        original_type,
                        raw: serde_json::from_str(&raw).ok()?,
                    },
                })
            })
            .collect::<Option<Vec<Part>>>()?;
        let details = match self.details {
            Some(d) => Some(CompactJson::from_held(d.into_vec())?),
            None => None,
        };
        Some(Message {
            index: self.index,
            id: self.id,
            role: self.role,
            kind: self.kind,
            created: self.created,
            parts,
            agent_visible: self.agent_visible,
            user_visible: self.user_visible,
            error: self.error,
            links: self
                .links
                .into_iter()
                .map(|(kind, path, session)| Link {
                    kind,
                    path,
                    session,
                })
                .collect(),
            details,
            usage: self.usage,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A message with every kind of part, packed texts among them.
    fn every_part() -> Message {
        let long: String = (0..300).map(|i| format!("line {i} passed\n")).collect();
        let mut m = Message::new(
            7,
            Role::Assistant,
            vec![
                Part::Text {
                    text: "Reading it.".into(),
                },
                Part::Thinking {
                    text: String::new(),
                    redacted: true,
                },
                Part::ToolCall {
                    id: "t1".into(),
                    name: "Read".into(),
                    arguments: Arguments::new(json!({"file_path": "/src/a.rs", "offset": 10})),
                },
                Part::ToolCall {
                    id: "t2".into(),
                    name: "Write".into(),
                    arguments: Arguments::new(json!({"file_path": "/src/b.rs", "content": long})),
                },
                Part::ToolResult {
                    call_id: "t1".into(),
                    text: Body::new(long.clone()),
                    is_error: false,
                    raw: CompactJson::new(&json!({"type": "tool_result", "content": long})),
                },
                Part::Image {
                    mime: "image/png".into(),
                    size: 12,
                },
                Part::Other {
                    original_type: "systemNotification".into(),
                    raw: json!({"n": 18446744073709551615u64, "f": 0.1, "neg": -3}),
                },
            ],
        );
        m.id = Some("msg_1".into());
        m.created = Some(1_700_000_000_000);
        m.error = Some("bad row".into());
        m.links.push(Link {
            kind: LinkKind::Subagent,
            path: "/x/agent-1.jsonl".into(),
            session: None,
        });
        m.details = Some(CompactJson::new(
            &json!({"lines": [3], "offsets": [120], "usage": {"input_tokens": 5}}),
        ));
        m.usage.push(UsageSplit {
            input: 5,
            output: 9,
            ..Default::default()
        });
        m
    }

    #[test]
    fn messages_come_back_equal_with_their_texts_held_as_they_were() {
        let m = Arc::new(every_part());
        let bytes = rmp_serde::to_vec(&MessagesOut(std::slice::from_ref(&m))).expect("written");
        let back: Vec<MessageIn> = rmp_serde::from_slice(&bytes).expect("read back");
        assert_eq!(back.len(), 1, "one message written, one read");
        assert_eq!(*back[0].0, *m, "every field and part comes back equal");
        let held = |m: &Message| -> Vec<Vec<u8>> {
            m.parts
                .iter()
                .filter_map(|p| match p {
                    Part::ToolResult { text, .. } => Some(text.held().to_vec()),
                    Part::ToolCall { arguments, .. } => Some(match arguments.held() {
                        Ok(j) => j.held().to_vec(),
                        Err(b) => b.held().to_vec(),
                    }),
                    _ => None,
                })
                .collect()
        };
        assert_eq!(
            held(&back[0].0),
            held(&m),
            "packed texts come back as the same frames: nothing was unpacked and packed again"
        );
        assert!(
            matches!(&back[0].0.parts[4], Part::ToolResult { text, .. } if text.is_packed()),
            "the long result is still held packed"
        );
    }

    #[test]
    fn a_text_that_is_not_utf8_is_refused_not_shown_broken() {
        let mut m = Message::new(0, Role::User, vec![Part::Text { text: "hi".into() }]);
        m.details = Some(CompactJson::from_held(b"{}".to_vec()).expect("plain JSON"));
        let mut bytes = rmp_serde::to_vec(&MessagesOut(&[Arc::new(m)])).expect("written");
        // The details are a bin of two bytes (0xc4, length 2, `{}`): break the first.
        let pos = bytes
            .windows(4)
            .position(|w| w == [0xc4, 2, b'{', b'}'])
            .expect("the details' bytes are in the snapshot");
        bytes[pos + 2] = 0xff;
        let err = rmp_serde::from_slice::<Vec<MessageIn>>(&bytes)
            .err()
            .expect("a broken text is an error");
        assert!(
            err.to_string().contains("not UTF-8"),
            "the error says what is wrong: {err}"
        );
    }
}
