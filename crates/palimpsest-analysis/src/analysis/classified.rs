//! A session's calls, each classified once with what its result text says, for every pass
//! that asks: the diagnosis (re-reads, loops, timeouts, spill loops, context errors), the cut
//! view's file carriers and the spill files.
//!
//! A long result is held packed ([`crate::model::Body`]); each pass that read its text
//! unpacked it again, and on a long session that unpacking was a quarter of an index update.
//! Here each result is unpacked once and what the passes read in it is kept beside the call.
//! The two patterns a result is read with (a timeout, a context-length error) live here; what
//! a class is stays `reads`'; what a marker is, `markers`'.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::LazyLock;

use regex::Regex;

use super::calls::Call;
use super::markers::Marker;
use super::reads::CallClass;

static TIMEOUT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(timed out|time(?:d)?out (?:after|exceeded|expired|reached)|deadline exceeded|exceeded (?:the )?(?:time ?limit|timeout)|killed after \d+ ?s)",
    )
    .expect("static regex")
});

static TOO_LONG: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)prompt is too long|context_length_exceeded|maximum context length|context window (?:is )?(?:exceeded|full)|input is too long")
        .expect("static regex")
});

/// Compile this module's patterns now (see [`super::warm_up`]).
pub(super) fn warm_up() {
    LazyLock::force(&TIMEOUT);
    LazyLock::force(&TOO_LONG);
}

/// True when a result reads as a timeout (a loop, a spill chain that ended so). Only the ends
/// of the text are searched: a long result is file content, and a source file mentioning
/// `timed out` is not a timeout.
pub fn is_timeout(text: &str) -> bool {
    let head: String = text.chars().take(400).collect();
    let tail: String = {
        let n = text.chars().count();
        text.chars().skip(n.saturating_sub(400)).collect()
    };
    TIMEOUT.is_match(&head) || TIMEOUT.is_match(&tail)
}

/// True when `text` says the prompt was too long for the model's context (thrash).
pub fn says_too_long(text: &str) -> bool {
    TOO_LONG.is_match(text)
}

/// What a call's result text says, read once ([`Classified::of`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ResultFacts {
    /// It reads as a timeout ([`is_timeout`]).
    pub timed_out: bool,
    /// Its truncation markers, with the built-in patterns alone ([`super::markers::markers`]).
    pub markers: Vec<Marker>,
    /// It says the prompt was too long for the model's context ([`says_too_long`]).
    pub too_long: bool,
}

impl ResultFacts {
    /// The facts of result `text`.
    pub fn of(text: &str) -> ResultFacts {
        ResultFacts {
            timed_out: is_timeout(text),
            markers: super::markers::markers(text, None),
            too_long: says_too_long(text),
        }
    }
}

/// A session's calls paired with their results ([`super::calls::calls`]), each one's class
/// and what its result says: made once for the diagnosis, the cut view's file carriers and
/// the spill files.
pub struct Classified<'a> {
    /// The calls, in call order.
    pub calls: Vec<Call<'a>>,
    /// Each call's class, by position in `calls`.
    pub classes: Vec<CallClass>,
    /// What each call's result says, by position in `calls` (default for a call unanswered).
    pub results: Vec<ResultFacts>,
    /// A print of each call's arguments, by position in `calls`: equal for equal arguments,
    /// keys in any order (`sources::json_print`), so the loop finder groups the same calls
    /// without reading their arguments again.
    pub arguments: Vec<u64>,
    /// Position in `calls` of the call each result answers, by the result's message index
    /// and call id.
    answered: HashMap<(usize, &'a str), usize>,
}

impl<'a> Classified<'a> {
    /// Every call of `session`, classified against its working directory.
    pub fn of(session: &'a crate::model::Session) -> Classified<'a> {
        let wd = session.meta.working_dir.as_deref();
        let calls = super::calls::calls(session);
        let (mut classes, mut results, mut arguments) = (Vec::new(), Vec::new(), Vec::new());
        for (class, said, print) in read_all(&calls, wd) {
            classes.push(class);
            results.push(said);
            arguments.push(print);
        }
        let answered = calls
            .iter()
            .enumerate()
            .filter_map(|(i, c)| Some(((c.result_index?, c.id), i)))
            .collect();
        Classified {
            calls,
            classes,
            results,
            arguments,
            answered,
        }
    }

    /// What result `text` (a part of message `index`, answering call `call_id`) says, when
    /// it is the result its call was paired with.
    pub fn result_of(
        &self,
        index: usize,
        call_id: &str,
        text: &crate::model::Body,
    ) -> Option<&ResultFacts> {
        let &i = self.answered.get(&(index, call_id))?;
        // A second result for one call, in the same message, was not read here.
        self.calls[i]
            .result
            .is_some_and(|r| std::ptr::eq(r, text))
            .then(|| &self.results[i])
    }
}

/// One call read: its class, what its result says, its arguments' print.
type Read = (CallClass, ResultFacts, u64);

/// What each call reads as (its class, what its result says, its arguments' print), on every
/// core: unpacking the results is the bulk of it, and the passes that ask for them wait.
fn read_all(calls: &[Call<'_>], wd: Option<&str>) -> Vec<Read> {
    // Calls per share: enough to make a thread worth it, few enough that a run of long results
    // in one place does not leave the other cores idle.
    const SHARE: usize = 256;
    let one = |c: &Call<'_>| {
        let args = c.arguments.value();
        let text = c.result.map(|r| r.text());
        let class =
            super::reads::classify_with(c, &args, wd, &|| text.as_deref().map(Cow::Borrowed));
        let said = text.map(|t| ResultFacts::of(&t)).unwrap_or_default();
        (class, said, crate::sources::json_print::of(&args))
    };
    let shares: Vec<&[Call<'_>]> = calls.chunks(SHARE).collect();
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(shares.len());
    if threads <= 1 {
        return calls.iter().map(one).collect();
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut done: Vec<(usize, Vec<Read>)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(share) = shares.get(i) else { break };
                        mine.push((i, share.iter().map(one).collect()));
                    }
                    mine
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    done.sort_unstable_by_key(|(i, _)| *i);
    done.into_iter().flat_map(|(_, v)| v).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Message, Part, Role};
    use crate::testkit::{call, result, session};

    fn results_of(m: &Message) -> Vec<&crate::model::Body> {
        m.parts
            .iter()
            .filter_map(|p| match p {
                Part::ToolResult { text, .. } => Some(text),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn each_result_is_read_once_into_what_the_passes_ask_of_it() {
        // A long log, held packed, capped with its full text saved, that ended on a timeout.
        let log = format!(
            "{}\n[... 500 bytes omitted here; this result was 3000 bytes; full text saved to \
             /tmp/spill/c1.txt (read it with cat) ...]\nError: command timed out after 900 seconds",
            "step ok\n".repeat(300)
        );
        let mut answered = result(
            3,
            "c2",
            "prompt is too long: 210000 tokens > 200000 maximum",
        );
        // A second result for the same call in the same message: not the one paired.
        answered.parts.push(Part::ToolResult {
            call_id: "c2".into(),
            text: "again".into(),
            is_error: false,
            raw: serde_json::Value::Null.into(),
        });
        let s = session(
            vec![
                call(0, "c1", "make check"),
                result(1, "c1", &log),
                call(2, "c2", "pytest -q"),
                answered,
                Message::new(4, Role::User, vec![]),
            ],
            vec![],
        );
        let c = Classified::of(&s);
        let long = results_of(&s.messages[1])[0];
        assert!(long.is_packed());
        assert_eq!(c.calls.len(), 2);
        assert!(c.results[0].timed_out);
        assert!(!c.results[0].too_long);
        let spilled: Vec<_> = c.results[0]
            .markers
            .iter()
            .map(|m| (m.path.as_deref(), m.total_bytes, m.omitted_bytes))
            .collect();
        assert_eq!(
            spilled,
            [(Some("/tmp/spill/c1.txt"), Some(3000), Some(500))]
        );
        assert_eq!(
            c.results[1],
            ResultFacts {
                timed_out: false,
                markers: vec![],
                too_long: true
            }
        );
        // Each result is found by its message, call id and part; the second for c2 is not
        // the one its facts were read from.
        let [first, second] = results_of(&s.messages[3])[..] else {
            panic!("two results")
        };
        assert_eq!(c.result_of(1, "c1", long), Some(&c.results[0]));
        assert_eq!(c.result_of(3, "c2", first), Some(&c.results[1]));
        assert_eq!(c.result_of(3, "c2", second), None);
        assert_eq!(c.result_of(1, "c2", long), None);
    }

    #[test]
    fn a_call_s_arguments_are_read_once_for_its_poll_and_its_print() {
        let bash = |i: usize, id: &str, args: serde_json::Value| {
            Message::new(
                i,
                Role::Assistant,
                vec![Part::ToolCall {
                    id: id.into(),
                    name: "Bash".into(),
                    arguments: args.into(),
                }],
            )
        };
        let s = session(
            vec![
                bash(
                    0,
                    "a",
                    serde_json::json!({"command": "pytest -q", "timeout": 60}),
                ),
                bash(
                    1,
                    "b",
                    serde_json::json!({"timeout": 60, "command": "pytest -q"}),
                ),
                bash(
                    2,
                    "c",
                    serde_json::json!({"command": "pytest -q", "timeout": 90}),
                ),
                bash(
                    3,
                    "d",
                    serde_json::json!({"command": "sleep 30 && tail -20 app.log"}),
                ),
            ],
            vec![],
        );
        let c = Classified::of(&s);
        assert_eq!(
            c.arguments[0], c.arguments[1],
            "the same arguments in another order"
        );
        assert_ne!(c.arguments[0], c.arguments[2]);
        let polls: Vec<bool> = c.classes.iter().map(|k| k.poll).collect();
        assert_eq!(polls, [false, false, false, true]);
    }

    #[test]
    fn timeouts_are_found_at_the_ends_only() {
        assert!(
            is_timeout("Error: command timed out after 900 seconds"),
            "plain timeout"
        );
        let file = format!(
            "{}# handles timed out connections\n{}",
            "x".repeat(1000),
            "y".repeat(1000)
        );
        assert!(
            !is_timeout(&file),
            "a phrase in the middle of file content is not a timeout"
        );
    }

    #[test]
    fn calls_classified_on_every_core_keep_their_order() {
        // More calls than one share, each reading its own file.
        let mut messages = Vec::new();
        for k in 0..700 {
            messages.push(call(2 * k, &format!("c{k}"), &format!("cat f{k}.txt")));
            messages.push(result(2 * k + 1, &format!("c{k}"), "x"));
        }
        let s = session(messages, vec![]);
        let c = Classified::of(&s);
        assert_eq!(c.classes.len(), 700);
        for (k, class) in c.classes.iter().enumerate() {
            let read: Vec<&str> = class.accesses.iter().map(|a| a.path.as_str()).collect();
            assert_eq!(read, [format!("f{k}.txt")], "call {k}");
        }
    }
}
