//! The malformed-input corpus (`palimpsest_fixtures::malformed`, at least 50 cases for each of
//! the eleven formats it damages) through the real command line. For every case and every command
//! (`sessions`, `show`, `spills`, `lint`): no panic, done within 10 s, every error and every
//! error row names the file (and its line or row), and the case's folder is byte for byte and
//! name for name what it was (nothing changed, nothing created). Then what each case must do
//! ([`Expect`]): all the good messages load, or it loads, or it is refused with a named error,
//! or a folder lists each session once.
#![cfg(unix)]

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use palimpsest_fixtures::malformed::{Case, Expect, generate};
use serde_json::Value;

/// The promise: every command ends within this.
const LIMIT: Duration = Duration::from_secs(10);

/// Every entry under `dir` (symlinks not followed) with its kind and, for files, its bytes'
/// hash: what "nothing changed and nothing appeared" is checked against.
fn listing(dir: &Path) -> BTreeMap<PathBuf, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            let Ok(m) = std::fs::symlink_metadata(&p) else {
                continue;
            };
            let what = if m.file_type().is_symlink() {
                format!("link {:?}", std::fs::read_link(&p).ok())
            } else if m.is_dir() {
                stack.push(p.clone());
                "dir".to_owned()
            } else if m.is_file() {
                let bytes = std::fs::read(&p).unwrap_or_default();
                format!(
                    "file {} {:016x}",
                    bytes.len(),
                    xxhash_rust::xxh3::xxh3_64(&bytes)
                )
            } else {
                "special".to_owned()
            };
            out.insert(p, what);
        }
    }
    out
}

/// Run the CLI, killing it at [`LIMIT`].
fn run(args: &[String], env: &[(&str, &Path)]) -> (Output, Duration) {
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("palimpsest"));
    cmd.args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let start = Instant::now();
    let mut child = cmd.spawn().expect("the CLI starts");
    // Drain the pipes on threads so a big output cannot stall the child.
    let mut so = child.stdout.take().expect("stdout");
    let mut se = child.stderr.take().expect("stderr");
    let t_out = std::thread::spawn(move || {
        let mut b = Vec::new();
        std::io::Read::read_to_end(&mut so, &mut b).ok();
        b
    });
    let t_err = std::thread::spawn(move || {
        let mut b = Vec::new();
        std::io::Read::read_to_end(&mut se, &mut b).ok();
        b
    });
    let status = loop {
        if let Some(st) = child.try_wait().expect("wait") {
            break st;
        }
        if start.elapsed() > LIMIT {
            child.kill().ok();
            panic!("palimpsest {args:?} did not end within {LIMIT:?}");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let took = start.elapsed();
    let out = Output {
        status,
        stdout: t_out.join().unwrap_or_default(),
        stderr: t_err.join().unwrap_or_default(),
    };
    (out, took)
}

/// What one message is, for "the good messages all load": everything but its position and id.
fn signature(m: &Value) -> String {
    let mut m = m.clone();
    if let Some(o) = m.as_object_mut() {
        o.remove("index");
        o.remove("id");
        // Where it was stored moves with an inserted line; what it is does not.
        if let Some(d) = o.get_mut("details").and_then(Value::as_object_mut) {
            d.remove("lines");
            d.remove("offsets");
            d.remove("line");
        }
        // A link to another session of the same file names that file: where the case is.
        for l in o
            .get_mut("links")
            .and_then(Value::as_array_mut)
            .into_iter()
            .flatten()
        {
            if let Some(l) = l.as_object_mut().filter(|l| l.contains_key("session")) {
                l.remove("path");
            }
        }
    }
    m.to_string()
}

/// A case's outcome of `show`: the messages, or the error text.
struct Shown {
    messages: Option<Vec<Value>>,
    stderr: String,
}

fn args_for(cmd: &str, c: &Case) -> Vec<String> {
    let mut a = vec![cmd.to_owned(), c.target.display().to_string()];
    if cmd != "sessions"
        && let Some(s) = &c.session
    {
        a.extend(["--session".to_owned(), s.clone()]);
    }
    match cmd {
        "sessions" | "show" => a.push("--json".into()),
        "spills" => a.extend(["--json".into(), "--text".into(), "5000".into()]),
        _ => {}
    }
    a
}

/// Run every command on one case and check the promises every case keeps. Returns what
/// `sessions` listed and what `show` gave.
fn check_case(c: &Case, env: &[(&str, &Path)], failures: &mut Vec<String>) -> (Vec<String>, Shown) {
    let before = listing(&c.dir);
    let dir = c.dir.display().to_string();
    let mut ids = Vec::new();
    let mut shown = Shown {
        messages: None,
        stderr: String::new(),
    };
    let who = format!("{}/{}", c.format, c.name);
    for cmd in ["sessions", "show", "spills", "lint"] {
        let args = args_for(cmd, c);
        let (out, took) = run(&args, env);
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        if out.status.code() == Some(101) || stderr.contains("panicked") {
            failures.push(format!("{who}: `{cmd}` panicked: {stderr}"));
        }
        if out.status.code().is_none() {
            failures.push(format!("{who}: `{cmd}` was killed by a signal"));
        }
        assert!(took <= LIMIT, "{who}: `{cmd}` took {took:?}");
        // Exit 1 is lint's "findings"; any other failure must say which file.
        let findings = cmd == "lint" && out.status.code() == Some(1);
        let failed = !(out.status.success() || findings);
        if failed && !stderr.contains(&dir) {
            failures.push(format!(
                "{who}: `{cmd}` failed without naming the file: {stderr}"
            ));
        }
        for w in stderr.lines().filter(|l| l.contains("warning:")) {
            if !w.contains(&dir) {
                failures.push(format!(
                    "{who}: `{cmd}` warned without naming the file: {w}"
                ));
            }
        }
        let after = listing(&c.dir);
        if after != before {
            let changed: Vec<_> = after
                .iter()
                .filter(|(k, v)| before.get(*k) != Some(*v))
                .map(|(k, _)| k.display().to_string())
                .chain(
                    before
                        .keys()
                        .filter(|k| !after.contains_key(*k))
                        .map(|k| format!("{} (removed)", k.display())),
                )
                .collect();
            failures.push(format!(
                "{who}: `{cmd}` changed the input folder: {changed:?}"
            ));
        }
        match cmd {
            "sessions" if out.status.success() => {
                let v: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
                ids = v
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .filter_map(|s| s["id"].as_str().map(str::to_owned))
                            .collect()
                    })
                    .unwrap_or_default();
            }
            "show" => {
                shown.stderr = stderr.clone();
                if out.status.success() {
                    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
                    let msgs = v["messages"].as_array().cloned().unwrap_or_default();
                    for m in &msgs {
                        if let Some(e) = m["error"].as_str()
                            && !(e.contains(&dir) && has_place(e))
                        {
                            failures.push(format!(
                                "{who}: error row {} does not name its file and line or row: {e}",
                                m["index"]
                            ));
                        }
                    }
                    shown.messages = Some(msgs);
                }
            }
            _ => {}
        }
    }
    (ids, shown)
}

/// `path:12:` or `path: row 12:`: an error that says where.
fn has_place(e: &str) -> bool {
    let b = e.as_bytes();
    let digits_then = |i: usize, end: u8| {
        let mut j = i;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        j > i && j < b.len() && b[j] == end
    };
    (0..b.len()).any(|i| {
        (b[i] == b':' && digits_then(i + 1, b':'))
            || (e[i..].starts_with("row ") && digits_then(i + 4, b':'))
    })
}

#[test]
fn malformed_corpus_keeps_every_promise() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let corpus = tmp.path().join("corpus");
    let cache = tmp.path().join("cache");
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let cases = generate(&corpus).expect("the corpus is generated");
    let mut per_format: HashMap<&str, usize> = HashMap::new();
    for c in &cases {
        *per_format.entry(c.format).or_default() += 1;
    }
    assert_eq!(per_format.len(), 11, "eleven formats: {per_format:?}");
    for (f, n) in &per_format {
        assert!(*n >= 51, "{f}: {n} cases, at least 50 besides the good one");
    }
    let env: Vec<(&str, &Path)> = vec![
        ("XDG_CACHE_HOME", cache.as_path()),
        ("HOME", home.as_path()),
        ("CODEX_HOME", home.as_path()),
    ];

    let mut failures = Vec::new();
    // The good case of each format comes first: it is what the others are compared with.
    let mut base: HashMap<&str, (Vec<String>, Vec<Value>)> = HashMap::new();
    let results: Vec<(usize, Vec<String>, Shown, Vec<String>)> = std::thread::scope(|s| {
        let chunks: Vec<Vec<(usize, &Case)>> = {
            let mut v: Vec<Vec<(usize, &Case)>> = vec![Vec::new(), Vec::new()];
            for (i, c) in cases.iter().enumerate() {
                v[i % 2].push((i, c));
            }
            v
        };
        let handles: Vec<_> = chunks
            .into_iter()
            .map(|chunk| {
                let env = &env;
                s.spawn(move || {
                    chunk
                        .into_iter()
                        .map(|(i, c)| {
                            let mut f = Vec::new();
                            let (ids, shown) = check_case(c, env, &mut f);
                            (i, ids, shown, f)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        let mut all: Vec<_> = handles
            .into_iter()
            .flat_map(|h| h.join().expect("a checker thread"))
            .collect();
        all.sort_by_key(|r| r.0);
        all
    });
    for (i, ids, shown, f) in results {
        failures.extend(f);
        let c = &cases[i];
        let who = format!("{}/{}", c.format, c.name);
        if c.name == "good" {
            let msgs = shown
                .messages
                .clone()
                .unwrap_or_else(|| panic!("{who}: the good session must load: {}", shown.stderr));
            assert!(!msgs.is_empty(), "{who}: the good session has messages");
            base.insert(c.format, (ids.clone(), msgs));
        }
        let (base_ids, base_msgs) = base.get(c.format).expect("good case first");
        match &c.expect {
            Expect::AllGood { extra_rows } | Expect::AllGoodAnyOrder { extra_rows } => {
                match &shown.messages {
                    None => failures.push(format!("{who}: must load: {}", shown.stderr)),
                    Some(msgs) => {
                        let any_order = matches!(c.expect, Expect::AllGoodAnyOrder { .. });
                        let good = |v: &[Value]| -> Vec<String> {
                            let mut g: Vec<String> = v
                                .iter()
                                .filter(|m| m["error"].is_null() && !only_other(m))
                                .map(|m| {
                                    let mut m = m.clone();
                                    if any_order {
                                        // Which side of a boundary a message falls moves with it.
                                        m["agent_visible"] = Value::Null;
                                    }
                                    signature(&m)
                                })
                                .collect();
                            if any_order {
                                g.sort();
                            }
                            g
                        };
                        if good(msgs) != good(base_msgs) {
                            failures.push(format!(
                                "{who}: the good messages differ from the base's ({} vs {})",
                                good(msgs).len(),
                                good(base_msgs).len()
                            ));
                        }
                        if msgs.len() != base_msgs.len() + extra_rows {
                            failures.push(format!(
                                "{who}: {} rows, expected {} + {extra_rows}",
                                msgs.len(),
                                base_msgs.len()
                            ));
                        }
                    }
                }
            }
            Expect::Loads => {
                if shown.messages.is_none() {
                    failures.push(format!("{who}: must load: {}", shown.stderr));
                }
            }
            Expect::Refused => {
                if shown.messages.is_some() {
                    failures.push(format!("{who}: must be refused, but loaded"));
                }
            }
            Expect::ListsOnce => {
                let mut got = ids.clone();
                got.sort();
                let mut want = base_ids.clone();
                want.sort();
                if got != want {
                    failures.push(format!("{who}: listed {got:?}, expected {want:?}"));
                }
            }
            Expect::ListsBaseAnd(more) => {
                let mut got = ids.clone();
                got.sort();
                let mut want = base_ids.clone();
                want.extend(more.iter().cloned());
                want.sort();
                if got != want {
                    failures.push(format!("{who}: listed {got:?}, expected {want:?}"));
                }
            }
            Expect::Either => {}
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases broke a promise:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

/// A row kept only as `other` (an unknown record), not a message of the base.
fn only_other(m: &Value) -> bool {
    m["parts"]
        .as_array()
        .is_some_and(|p| !p.is_empty() && p.iter().all(|x| x["type"] == "other"))
}
