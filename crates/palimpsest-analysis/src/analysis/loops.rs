//! Signs of a worker going round in circles: the same call getting the same result three times
//! or more with no write between (polls left out: `polls`), streaks of failing calls, long stretches without a single write, and
//! calls that timed out.
//! Which calls there are is `calls`'; which of them read or write is `reads`'.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::calls::Call;

/// The same call this many times is a loop.
pub const REPEAT_MIN: usize = 3;
/// This many failing calls in a row is a streak.
pub const ERROR_STREAK_MIN: usize = 3;
/// This many calls in a row without a write is a stretch worth flagging.
pub const NO_WRITE_MIN: usize = 20;

/// What kind of loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "snake_case")]
pub enum LoopKind {
    /// The same tool with the same arguments, again and again.
    RepeatedCall,
    /// Consecutive calls that all failed.
    ErrorStreak,
    /// Many consecutive calls with no write.
    NoWriteStretch,
    /// A call whose result says it timed out.
    Timeout,
}

/// One loop finding.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Loop {
    /// The kind.
    pub kind: LoopKind,
    /// One line saying what happened.
    pub description: String,
    /// How many calls.
    pub count: usize,
    /// Message indices of the calls involved.
    pub messages: Vec<usize>,
    /// The tool, for repeated calls and timeouts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// The arguments, for repeated calls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Value>,
}

/// A successful read-only query of an MCP server (`mcp__github__get_authenticated_user`,
/// `linear__list_issues`): it asks a service for its state, which another party may change, and
/// asking again costs a small answer. Left out of repeated calls as polls are; a failing one
/// stays in (the same error again is a loop).
fn asks_a_service(c: &Call) -> bool {
    !c.is_error
        && crate::tool::split_name(c.name).0.is_some()
        && crate::tool::verb(c.name) == crate::tool::Verb::Look
}

/// Find loops among the calls `classified`.
pub(crate) fn loops(classified: &super::classified::Classified<'_>) -> Vec<Loop> {
    let (calls, classes) = (&classified.calls, &classified.classes);
    let mut out = Vec::new();

    // Repeated calls, keyed by tool and key-sorted arguments: a loop is a run of the same
    // call getting the same answer, with no write anywhere between (a write may have changed
    // what the call sees: then trying again is reasonable). Polls wait for the world to change
    // and are left out.
    let mut groups: BTreeMap<(&str, u64), Vec<usize>> = BTreeMap::new();
    for (i, (c, class)) in calls.iter().zip(classes).enumerate() {
        if class.poll || asks_a_service(c) {
            continue;
        }
        groups
            .entry((c.name, classified.arguments[i]))
            .or_default()
            .push(i);
    }
    // Calls (by position) after which a write was made.
    let mut writes_before = vec![0usize; calls.len() + 1];
    for (i, class) in classes.iter().enumerate() {
        writes_before[i + 1] = writes_before[i] + usize::from(class.writes());
    }
    let mut runs: Vec<Vec<usize>> = Vec::new();
    for v in groups.values() {
        let mut run: Vec<usize> = Vec::new();
        for &i in v {
            let continues = run.last().is_some_and(|&p| {
                calls[p].result == calls[i].result
                    && calls[p].is_error == calls[i].is_error
                    // No write from the earlier call up to (not including) this one.
                    && writes_before[i] == writes_before[p]
            });
            if !continues {
                if run.len() >= REPEAT_MIN {
                    runs.push(std::mem::take(&mut run));
                }
                run.clear();
            }
            run.push(i);
        }
        if run.len() >= REPEAT_MIN {
            runs.push(run);
        }
    }
    runs.sort_by_key(|v| v[0]);
    for v in runs {
        let c = &calls[v[0]];
        out.push(Loop {
            kind: LoopKind::RepeatedCall,
            description: format!(
                "{} {} called {} times with the same result",
                c.name,
                short_args(&c.arguments.value()),
                v.len()
            ),
            count: v.len(),
            messages: v.iter().map(|&i| calls[i].call_index).collect(),
            tool: Some(c.name.to_owned()),
            arguments: Some(c.arguments.value()),
        });
    }

    // Error streaks over answered calls. A streak of one call failing unchanged names the
    // call (`tool`, `arguments`): that worker is stuck; different failing calls are a worker
    // trying things.
    let mut streak: Vec<&Call> = Vec::new();
    let flush = |streak: &mut Vec<&Call>, out: &mut Vec<Loop>| {
        if streak.len() >= ERROR_STREAK_MIN {
            let first = streak[0];
            let same = streak.iter().all(|c| {
                c.name == first.name
                    && canonical(&c.arguments.value()) == canonical(&first.arguments.value())
            });
            out.push(Loop {
                kind: LoopKind::ErrorStreak,
                description: if same {
                    format!(
                        "{} failing calls in a row, all {} {}",
                        streak.len(),
                        first.name,
                        short_args(&first.arguments.value())
                    )
                } else {
                    format!("{} failing calls in a row", streak.len())
                },
                count: streak.len(),
                messages: streak.iter().map(|c| c.call_index).collect(),
                tool: same.then(|| first.name.to_owned()),
                arguments: same.then(|| first.arguments.value()),
            });
        }
        streak.clear();
    };
    for c in calls.iter().filter(|c| c.result.is_some()) {
        if c.is_error {
            streak.push(c);
        } else {
            flush(&mut streak, &mut out);
        }
    }
    flush(&mut streak, &mut out);

    // Stretches without a write.
    let mut stretch: Vec<usize> = Vec::new();
    for (c, class) in calls.iter().zip(classes) {
        if class.writes() {
            push_stretch(&mut stretch, &mut out);
        } else {
            stretch.push(c.call_index);
        }
    }
    push_stretch(&mut stretch, &mut out);

    // Timeouts.
    for (c, said) in calls.iter().zip(&classified.results) {
        if said.timed_out {
            out.push(Loop {
                kind: LoopKind::Timeout,
                description: format!("{} {} timed out", c.name, short_args(&c.arguments.value())),
                count: 1,
                messages: vec![c.call_index],
                tool: Some(c.name.to_owned()),
                arguments: None,
            });
        }
    }
    out
}

fn push_stretch(stretch: &mut Vec<usize>, out: &mut Vec<Loop>) {
    if stretch.len() >= NO_WRITE_MIN {
        out.push(Loop {
            kind: LoopKind::NoWriteStretch,
            description: format!(
                "{} calls without a write (messages {}–{})",
                stretch.len(),
                stretch[0],
                stretch[stretch.len() - 1]
            ),
            count: stretch.len(),
            messages: std::mem::take(stretch),
            tool: None,
            arguments: None,
        });
    }
    stretch.clear();
}

/// JSON with object keys sorted, so `{"a":1,"b":2}` and `{"b":2,"a":1}` are the same call.
pub fn canonical(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            Value::Object(
                keys.into_iter()
                    .map(|k| (k.clone(), canonical(&m[k])))
                    .collect(),
            )
        }
        Value::Array(a) => Value::Array(a.iter().map(canonical).collect()),
        other => other.clone(),
    }
}

/// Arguments as one short line for descriptions: the command, path or query when there is
/// one, else `key=value` pairs; never a wall of JSON.
pub fn short_args(v: &Value) -> String {
    const TELLING: &[&str] = &[
        "command",
        "cmd",
        "file_path",
        "path",
        "filePath",
        "query",
        "pattern",
        "url",
        "id",
    ];
    let cut = |s: &str| {
        let flat: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
        if flat.chars().count() > 60 {
            format!("{}…", flat.chars().take(60).collect::<String>())
        } else {
            flat
        }
    };
    let scalar = |x: &Value| match x {
        Value::String(s) => s.clone(),
        Value::Array(a) if a.iter().all(Value::is_string) => a
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(" "),
        other => other.to_string(),
    };
    match v {
        Value::Object(o) => {
            if let Some(x) = TELLING.iter().find_map(|k| o.get(*k)) {
                return cut(&scalar(x));
            }
            let pairs: Vec<String> = o
                .iter()
                .take(3)
                .map(|(k, x)| format!("{k}={}", cut(&scalar(x))))
                .collect();
            cut(&pairs.join(", "))
        }
        Value::String(s) => cut(s),
        other => cut(&other.to_string()),
    }
}
