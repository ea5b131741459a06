//! The report's top lists: the tools and the single parts that took the most tokens. Both are
//! made from the counted pieces in one pass; the parts list keeps only its `top` entries while it
//! goes. The rest of the report is the parent module's.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use super::{PartTokens, ToolTokens};
use crate::model::Session;
use crate::tokens::{Category, SessionCounts, ToolKind};

pub(super) fn top_tools(counts: &SessionCounts, top: usize) -> Vec<ToolTokens> {
    let mut by: HashMap<&str, (ToolTokens, u64)> = HashMap::new();
    let mut seen_calls: std::collections::HashSet<(usize, usize)> = Default::default();
    for pc in &counts.pieces {
        let name = match (&pc.tool, pc.category) {
            (Some(t), _) => t.as_str(),
            (None, Category::ToolResults) => "(unknown)",
            _ => continue,
        };
        let (t, largest) = by.entry(name).or_insert_with(|| {
            (
                ToolTokens {
                    name: name.to_owned(),
                    kind: pc.tool_kind.unwrap_or(ToolKind::Other),
                    calls: 0,
                    arguments: 0,
                    bodies: 0,
                    results: 0,
                    total: 0,
                    largest_message_index: pc.message_index,
                },
                0,
            )
        });
        match pc.category {
            Category::ToolCallArguments => {
                if seen_calls.insert((pc.message_index, pc.part_index)) {
                    t.calls += 1;
                }
                t.arguments += pc.tokens;
            }
            Category::FileWrites | Category::Edits => t.bodies += pc.tokens,
            _ => t.results += pc.tokens,
        }
        t.total += pc.tokens;
        if pc.tokens > *largest {
            *largest = pc.tokens;
            t.largest_message_index = pc.message_index;
        }
    }
    let mut v: Vec<ToolTokens> = by.into_values().map(|(t, _)| t).collect();
    v.sort_by(|a, b| b.total.cmp(&a.total).then_with(|| a.name.cmp(&b.name)));
    v.truncate(top);
    v
}

pub(super) fn top_parts(
    session: &Session,
    pos: &HashMap<usize, usize>,
    counts: &SessionCounts,
    top: usize,
) -> Vec<PartTokens> {
    // Only the `top` largest parts so far are kept: a part made for every part of a 200 MB
    // session (with its category and tool as strings) took 8 MB to keep ten.
    let mut best: BinaryHeap<Reverse<Ranked>> = BinaryHeap::with_capacity(top + 1);
    let mut cur: Option<Ranked> = None;
    for pc in &counts.pieces {
        let same = cur
            .as_ref()
            .is_some_and(|p| p.message_index == pc.message_index && p.part_index == pc.part_index);
        if !same {
            keep(&mut best, top, cur.take());
            cur = Some(Ranked {
                tokens: 0,
                message_index: pc.message_index,
                part_index: pc.part_index,
                bytes: 0,
                biggest: 0,
                category: pc.category,
                tool: pc.tool.as_deref(),
            });
        }
        if let Some(p) = cur.as_mut() {
            p.tokens += pc.tokens;
            p.bytes += pc.bytes;
            if pc.tokens > p.biggest {
                p.biggest = pc.tokens;
                p.category = pc.category;
            }
        }
    }
    keep(&mut best, top, cur);
    let mut parts: Vec<Ranked> = best.into_iter().map(|Reverse(p)| p).collect();
    parts.sort_by(|a, b| b.cmp(a));
    parts
        .into_iter()
        .map(|p| PartTokens {
            message_index: p.message_index,
            part_index: p.part_index,
            category: p.category.as_str().to_owned(),
            tool: p.tool.map(str::to_owned),
            tokens: p.tokens,
            bytes: p.bytes,
            agent_visible: pos
                .get(&p.message_index)
                .is_some_and(|&i| session.messages[i].agent_visible),
        })
        .collect()
}

/// Keep `part` among the `top` largest in `best`.
fn keep<'a>(best: &mut BinaryHeap<Reverse<Ranked<'a>>>, top: usize, part: Option<Ranked<'a>>) {
    if let Some(p) = part {
        best.push(Reverse(p));
        if best.len() > top {
            best.pop();
        }
    }
}

/// A part's sums while the top parts are picked; ranked by tokens, then earlier first.
#[derive(Debug, PartialEq, Eq)]
struct Ranked<'a> {
    tokens: u64,
    message_index: usize,
    part_index: usize,
    bytes: usize,
    /// Its largest piece's tokens, whose category it takes.
    biggest: u64,
    category: Category,
    tool: Option<&'a str>,
}

impl Ord for Ranked<'_> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.tokens
            .cmp(&other.tokens)
            .then_with(|| other.message_index.cmp(&self.message_index))
            .then_with(|| other.part_index.cmp(&self.part_index))
    }
}

impl PartialOrd for Ranked<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Message, Part, Role};
    use crate::testkit;
    use crate::tokens::{CountStats, Encoding, PieceCount};

    fn piece(
        message_index: usize,
        part_index: usize,
        category: Category,
        tokens: u64,
    ) -> PieceCount {
        PieceCount {
            message_index,
            part_index,
            category,
            tool: (category != Category::AssistantText).then(|| format!("T{message_index}")),
            tool_kind: None,
            tokens,
            bytes: tokens as usize * 4,
        }
    }

    #[test]
    fn the_top_parts_are_the_head_of_every_part_sorted() {
        let text = |t: &str| Part::Text { text: t.into() };
        let mut messages: Vec<Message> = (0..6)
            .map(|i| Message::new(i, Role::Assistant, vec![text("a"), text("b")]))
            .collect();
        messages[2].agent_visible = false;
        let session = testkit::session(messages, vec![]);
        let pos: HashMap<usize, usize> = (0..6).map(|i| (i, i)).collect();
        // (message, part, category, tokens): a call split in pieces, ties broken by place.
        let rows = [
            (0, 0, Category::ToolCallArguments, 5),
            (0, 0, Category::Edits, 40),
            (1, 0, Category::AssistantText, 45),
            (2, 1, Category::ToolResults, 45),
            (3, 0, Category::AssistantText, 7),
            (4, 1, Category::ToolResults, 0),
            (5, 0, Category::FileWrites, 45),
            (5, 1, Category::AssistantText, 1),
        ];
        let counts = SessionCounts {
            encoding: Encoding::O200kBase,
            pieces: rows.iter().map(|&(m, p, c, t)| piece(m, p, c, t)).collect(),
            stats: CountStats::default(),
            cache_problem: None,
        };
        let all = top_parts(&session, &pos, &counts, 100);
        let order: Vec<(usize, usize, u64, &str)> = all
            .iter()
            .map(|p| (p.message_index, p.part_index, p.tokens, p.category.as_str()))
            .collect();
        assert_eq!(
            order,
            vec![
                (0, 0, 45, "edits"),
                (1, 0, 45, "assistant_text"),
                (2, 1, 45, "tool_results"),
                (5, 0, 45, "file_writes"),
                (3, 0, 7, "assistant_text"),
                (5, 1, 1, "assistant_text"),
                (4, 1, 0, "tool_results"),
            ],
            "a part sums its pieces and takes its largest piece's category; equal sums keep \
             their order in the session"
        );
        assert!(
            !all[2].agent_visible,
            "message 2 is out of the model's view"
        );
        for top in [0, 1, 3, 4, 7] {
            assert_eq!(
                top_parts(&session, &pos, &counts, top),
                all[..top],
                "the top {top} are the first {top} of every part sorted"
            );
        }
    }
}
