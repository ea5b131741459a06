//! Aider's chat log, `.aider.chat.history.md`, cut into its sessions and blocks.
//!
//! Aider appends to one Markdown file per repository: `# aider chat started at …` opens each
//! session; each line the user typed is written `#### line`; what Aider tells the user (files
//! added, edits applied, commits, token counts, errors) is quoted, `> line`; the model's
//! replies are written as they are, with no prefix. A reply's fenced code may hold lines that
//! look like the others, so inside a fence every line is the reply's. What a block means (a
//! command, a usage line) is `build`'s.

/// What a block is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Lines the user typed (`#### `).
    User,
    /// The model's reply.
    Assistant,
    /// Aider's own output to the user (`> `).
    Notice,
}

/// A run of lines of one kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// Its kind.
    pub kind: Kind,
    /// The text, prefixes and Markdown line breaks removed.
    pub text: String,
    /// The line it starts on (1-based).
    pub line: usize,
}

/// One session of the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChatSession {
    /// When it started, as Aider wrote it (`YYYY-MM-DD HH:MM:SS`, local time); empty for
    /// lines before the first header.
    pub started: String,
    /// The line of its header (1-based; 0 when there is none).
    pub line: usize,
    /// Its blocks, in order.
    pub blocks: Vec<Block>,
}

/// What opens a session.
pub const HEADER: &str = "# aider chat started at ";

/// Cut `text` into sessions. Lines before the first header make a session of their own.
pub fn parse(text: &str) -> Vec<ChatSession> {
    let mut sessions: Vec<ChatSession> = Vec::new();
    let mut fenced = false;
    let mut prev_blank = false;
    for (k, raw) in text.lines().enumerate() {
        let line = raw.strip_suffix("  ").unwrap_or(raw);
        let blank_before = prev_blank;
        prev_blank = line.trim().is_empty();
        if let Some(at) = line.strip_prefix(HEADER).filter(|_| !fenced) {
            sessions.push(ChatSession {
                started: at.trim().to_owned(),
                line: k + 1,
                blocks: Vec::new(),
            });
            continue;
        }
        if sessions.is_empty() {
            if line.trim().is_empty() {
                continue;
            }
            sessions.push(ChatSession {
                started: String::new(),
                line: 0,
                blocks: Vec::new(),
            });
        }
        let blocks = &mut sessions.last_mut().expect("a session was opened").blocks;
        let last = blocks.last().map(|b| b.kind);
        let (kind, body) = if fenced && last == Some(Kind::Assistant) {
            (Kind::Assistant, line)
        } else if let Some(t) = line
            .strip_prefix("#### ")
            .or((line == "####").then_some(""))
        {
            (Kind::User, t)
        } else if let Some(t) = line.strip_prefix("> ").or((line == ">").then_some("")) {
            (Kind::Notice, t)
        } else if line.trim().is_empty() {
            // A blank line ends a typed or quoted run; inside a reply it is a paragraph break.
            if last == Some(Kind::Assistant)
                && let Some(b) = blocks.last_mut()
            {
                b.text.push('\n');
            }
            continue;
        } else {
            (Kind::Assistant, line)
        };
        if kind == Kind::Assistant && line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        let joins = match (last, kind) {
            // A reply goes on across blank lines; typed and quoted runs are line after line.
            (Some(Kind::Assistant), Kind::Assistant) => true,
            (Some(a), b) if a == b => !blank_before,
            _ => false,
        };
        match blocks.last_mut() {
            Some(b) if joins => {
                if !b.text.is_empty() || kind == Kind::Assistant {
                    b.text.push('\n');
                }
                b.text.push_str(body);
            }
            _ => blocks.push(Block {
                kind,
                text: body.to_owned(),
                line: k + 1,
            }),
        }
    }
    for s in &mut sessions {
        for b in &mut s.blocks {
            let trimmed = b.text.trim_end_matches('\n').to_owned();
            b.text = trimmed;
        }
    }
    sessions
}

/// Commands that empty the model's history: what follows is a conversation of its own.
pub const CLEARING: [&str; 2] = ["/clear", "/reset"];

/// `s` cut after each `/clear` or `/reset` (and the notices that answer it): the history the
/// model holds starts again from nothing there, as a new Claude Code session does after its
/// `/clear`. The first part keeps the command; each part keeps the header's time and line.
pub fn split_at_clears(s: ChatSession) -> Vec<ChatSession> {
    let mut parts = vec![ChatSession {
        blocks: Vec::new(),
        ..s.clone()
    }];
    let mut cleared = false;
    for b in s.blocks {
        let clears = b.kind == Kind::User
            && CLEARING.contains(&b.text.split_whitespace().next().unwrap_or_default());
        if cleared && b.kind != Kind::Notice {
            parts.push(ChatSession {
                blocks: Vec::new(),
                ..parts[0].clone()
            });
            cleared = false;
        }
        cleared |= clears;
        parts.last_mut().expect("one part at least").blocks.push(b);
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sessions_blocks_and_fenced_replies() {
        let log = "\n# aider chat started at 2026-11-03 10:00:00\n\n> Aider v0.86.1  \n> Main model: gpt-4.1 with diff edit format  \n\n#### add a retry  \n#### and log it  \n\nHere is the change:\n\n```python\n#### not a prompt\n> not a notice\n```\n\n> Applied edit to store.py  \n\n# aider chat started at 2026-11-03 11:00:00\n\n#### /clear  \n";
        let s = parse(log);
        type Blocks = Vec<(Kind, String, usize)>;
        let got: Vec<(String, Blocks)> = s
            .iter()
            .map(|s| {
                (
                    s.started.clone(),
                    s.blocks
                        .iter()
                        .map(|b| (b.kind, b.text.clone(), b.line))
                        .collect(),
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                (
                    "2026-11-03 10:00:00".to_owned(),
                    vec![
                        (
                            Kind::Notice,
                            "Aider v0.86.1\nMain model: gpt-4.1 with diff edit format".to_owned(),
                            4
                        ),
                        (Kind::User, "add a retry\nand log it".to_owned(), 7),
                        (
                            Kind::Assistant,
                            "Here is the change:\n\n```python\n#### not a prompt\n> not a notice\n```"
                                .to_owned(),
                            10
                        ),
                        (Kind::Notice, "Applied edit to store.py".to_owned(), 17),
                    ]
                ),
                (
                    "2026-11-03 11:00:00".to_owned(),
                    vec![(Kind::User, "/clear".to_owned(), 21)]
                ),
            ]
        );
    }
}
