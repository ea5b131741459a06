//! What stayed in view, verbatim, from before a cut ([`super::cuts::Cut::kept`]): a set of
//! messages for a compaction that keeps a tail, a rule for a microcompact or a collapse, which
//! keep nearly everything before them. Held as sets, a long session's hundreds of
//! microcompacts each held every earlier message's index: tens of millions of entries, most of
//! a diagnosis's time and memory on such a session. Where cuts are is `cuts`'.

use std::collections::BTreeSet;

/// Messages before a cut that stayed visible verbatim (see the module docs).
#[derive(Debug, Clone, PartialEq)]
pub enum Kept {
    /// These messages.
    Set(BTreeSet<usize>),
    /// Every message before `before` but those in `except` (sorted, no repeats): a
    /// microcompact, which cleared their results.
    AllBut {
        /// The cut.
        before: usize,
        /// The messages taken from view.
        except: Vec<usize>,
    },
    /// Every message before `before` outside `first..=last`: a collapse, which archived that
    /// span.
    Outside {
        /// The cut.
        before: usize,
        /// The archived span's first message.
        first: usize,
        /// Its last.
        last: usize,
    },
}

impl Default for Kept {
    fn default() -> Self {
        Kept::Set(BTreeSet::new())
    }
}

impl Kept {
    /// Every message before `before` but `except`.
    pub fn all_but(before: usize, mut except: Vec<usize>) -> Kept {
        except.sort_unstable();
        except.dedup();
        Kept::AllBut { before, except }
    }

    /// True when message `i` stayed in view.
    pub fn contains(&self, i: &usize) -> bool {
        match self {
            Kept::Set(s) => s.contains(i),
            Kept::AllBut { before, except } => i < before && except.binary_search(i).is_err(),
            Kept::Outside {
                before,
                first,
                last,
            } => i < before && (i < first || i > last),
        }
    }

    /// How many messages stayed in view.
    pub fn len(&self) -> usize {
        match self {
            Kept::Set(s) => s.len(),
            Kept::AllBut { before, except } => {
                before - except.iter().filter(|&&e| e < *before).count()
            }
            Kept::Outside {
                before,
                first,
                last,
            } => {
                let archived = if first < before {
                    (*last).min(before - 1) + 1 - first
                } else {
                    0
                };
                before - archived
            }
        }
    }

    /// True when nothing stayed in view.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The messages that stayed in view, ascending.
    pub fn iter(&self) -> Box<dyn Iterator<Item = usize> + '_> {
        match self {
            Kept::Set(s) => Box::new(s.iter().copied()),
            Kept::AllBut { .. } | Kept::Outside { .. } => {
                let before = match self {
                    Kept::AllBut { before, .. } | Kept::Outside { before, .. } => *before,
                    Kept::Set(_) => 0,
                };
                Box::new((0..before).filter(move |i| self.contains(i)))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each rule answers as the set it stands for.
    #[test]
    fn a_rule_is_the_set_it_stands_for() {
        let rules = [
            Kept::all_but(10, vec![7, 2, 2, 12]),
            Kept::Outside {
                before: 10,
                first: 3,
                last: 5,
            },
            Kept::Outside {
                before: 4,
                first: 2,
                last: 9,
            },
            Kept::Outside {
                before: 4,
                first: 6,
                last: 9,
            },
            Kept::Set([1, 4].into()),
        ];
        let sets: [Vec<usize>; 5] = [
            vec![0, 1, 3, 4, 5, 6, 8, 9],
            vec![0, 1, 2, 6, 7, 8, 9],
            vec![0, 1],
            vec![0, 1, 2, 3],
            vec![1, 4],
        ];
        for (rule, set) in rules.iter().zip(sets) {
            assert_eq!(rule.iter().collect::<Vec<_>>(), set, "{rule:?}");
            assert_eq!(rule.len(), set.len(), "{rule:?}");
            for i in 0..14 {
                assert_eq!(rule.contains(&i), set.contains(&i), "{rule:?} holds {i}");
            }
        }
    }
}
