//! Aider's log of what it sent, `.aider.llm.history` (written with `--llm-history-file`): each
//! request as `TO LLM <time>` and its messages, each message opened by `-------` and each of
//! its lines prefixed by its role in capitals (`USER …`); each reply as `LLM RESPONSE <time>`
//! and its lines prefixed `ASSISTANT `. It is what the model really received, so `build` reads
//! the model's view and the summaries from it. Times are local, to the second, as the chat
//! log's headers are.

/// One message of a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sent {
    /// `system`, `user`, `assistant` (lower-cased).
    pub role: String,
    /// Its text.
    pub text: String,
}

/// One request and the reply it got.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Request {
    /// When it was sent (`YYYY-MM-DDTHH:MM:SS`, local).
    pub time: String,
    /// The line of its `TO LLM` header (1-based).
    pub line: usize,
    /// The messages, in order.
    pub messages: Vec<Sent>,
    /// The reply, when one was logged.
    pub reply: Option<String>,
}

const TO: &str = "TO LLM ";
const FROM: &str = "LLM RESPONSE ";
const ROLES: [&str; 4] = ["SYSTEM", "USER", "ASSISTANT", "TOOL"];

/// The time of a header line, when `line` is one.
fn header<'a>(line: &'a str, prefix: &str) -> Option<&'a str> {
    let t = line.strip_prefix(prefix)?.trim();
    // `2026-11-03T10:00:00`: ten digits and dashes, a `T`, the time.
    (t.len() >= 19 && t.as_bytes()[10] == b'T' && t[..4].bytes().all(|b| b.is_ascii_digit()))
        .then_some(t)
}

/// The role and text of a message line (`USER text`, or `USER` alone for an empty line).
fn role_line(line: &str) -> Option<(&'static str, &str)> {
    ROLES.iter().find_map(|r| {
        let rest = line.strip_prefix(r)?;
        match rest.strip_prefix(' ') {
            Some(t) => Some((*r, t)),
            None if rest.is_empty() => Some((*r, "")),
            None => None,
        }
    })
}

/// Read the requests of a log.
pub fn parse(text: &str) -> Vec<Request> {
    enum At {
        Nothing,
        Request,
        Reply,
    }
    let mut out: Vec<Request> = Vec::new();
    let mut at = At::Nothing;
    for (k, line) in text.lines().enumerate() {
        if let Some(t) = header(line, TO) {
            out.push(Request {
                time: t.to_owned(),
                line: k + 1,
                ..Request::default()
            });
            at = At::Request;
            continue;
        }
        if header(line, FROM).is_some() {
            if let Some(r) = out.last_mut() {
                r.reply = Some(String::new());
            }
            at = At::Reply;
            continue;
        }
        let Some(r) = out.last_mut() else { continue };
        match at {
            At::Nothing => {}
            At::Request if line == "-------" => r.messages.push(Sent {
                role: String::new(),
                text: String::new(),
            }),
            At::Request => {
                let Some((role, t)) = role_line(line) else {
                    continue;
                };
                let Some(m) = r.messages.last_mut() else {
                    continue;
                };
                if m.role.is_empty() {
                    m.role = role.to_lowercase();
                } else {
                    m.text.push('\n');
                }
                m.text.push_str(t);
            }
            At::Reply => {
                if let (Some(("ASSISTANT", t)), Some(reply)) = (role_line(line), r.reply.as_mut()) {
                    if !reply.is_empty() {
                        reply.push('\n');
                    }
                    reply.push_str(t);
                }
            }
        }
    }
    for r in &mut out {
        r.messages.retain(|m| !m.role.is_empty());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_their_messages_and_replies() {
        let log = "TO LLM 2026-11-03T10:00:05\n-------\nSYSTEM Act as an expert.\nSYSTEM \nSYSTEM Be brief.\n-------\nUSER add a retry\nLLM RESPONSE 2026-11-03T10:00:09\nASSISTANT Done.\nASSISTANT \nASSISTANT It retries.\n";
        assert_eq!(
            parse(log),
            vec![Request {
                time: "2026-11-03T10:00:05".to_owned(),
                line: 1,
                messages: vec![
                    Sent {
                        role: "system".to_owned(),
                        text: "Act as an expert.\n\nBe brief.".to_owned()
                    },
                    Sent {
                        role: "user".to_owned(),
                        text: "add a retry".to_owned()
                    },
                ],
                reply: Some("Done.\n\nIt retries.".to_owned()),
            }]
        );
    }
}
