//! The pairing check a replay needs: how many tool results in a context answer a call that is
//! not in it (orphans). Strict chat APIs reject such a request; lenient servers render it and
//! hand the model output it never asked for. A full lint of stored sessions is `compaction`'s.

use std::collections::HashSet;

use crate::model::Part;

/// Count tool results whose call id was not issued by an earlier tool call in `contexts`
/// (each item is one message's parts, in order).
pub fn orphan_results<'a>(contexts: impl IntoIterator<Item = &'a [Part]>) -> usize {
    let mut issued: HashSet<&str> = HashSet::new();
    let mut orphans = 0;
    for parts in contexts {
        for p in parts {
            match p {
                Part::ToolCall { id, .. } => {
                    issued.insert(id.as_str());
                }
                Part::ToolResult { call_id, .. } if !issued.contains(call_id.as_str()) => {
                    orphans += 1;
                }
                _ => {}
            }
        }
    }
    orphans
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::testkit::seed_five;

    #[test]
    fn a_result_before_its_call_is_an_orphan() {
        let msgs = seed_five();
        let all: Vec<&[Part]> = msgs.iter().map(|m| m.parts.as_slice()).collect();
        assert_eq!(
            orphan_results(all.iter().copied()),
            0,
            "the whole conversation pairs every result"
        );
        assert_eq!(
            orphan_results(all[2..].iter().copied()),
            1,
            "a slice opening on the cat result has lost its request"
        );
    }
}
