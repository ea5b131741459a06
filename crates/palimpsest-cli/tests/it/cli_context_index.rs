//! `context` of a transcript the index holds as it is answers from it (the request's context
//! from the rows' spans, its messages read back by offset): the same bytes as reading the file,
//! as text and JSON, for every request of the six-cut fixture and a sample of the real
//! transcripts', `next` and a request past the next one included; a file written on since it
//! was indexed is read again.

use std::path::Path;

use crate::common::{repo, run_in as run};

fn requests(home: &Path, file: &str) -> usize {
    let (out, ..) = run(
        home,
        &["context", file, "--request", "1", "--json", "--no-index"],
    );
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    v["requests"].as_u64().unwrap() as usize
}

/// `context` of `file` at each of `numbers`, from the index and from the file: the same.
fn same_either_way(home: &Path, file: &str, numbers: &[String]) {
    for n in numbers {
        for json in [true, false] {
            let mut args = vec!["context", file, "--request", n.as_str()];
            if json {
                args.push("--json");
            }
            let indexed = run(home, &args);
            let read = run(home, &[&args[..], &["--no-index"]].concat());
            assert!(
                indexed == read,
                "{args:?}: the index answers what the file gives, and fails as it fails ({} \
                 bytes vs {}; {})",
                indexed.0.len(),
                read.0.len(),
                String::from_utf8_lossy(&indexed.1)
            );
        }
    }
}

#[test]
fn every_requests_context_from_the_index_is_the_files() {
    let home = tempfile::tempdir().unwrap();
    let six = repo()
        .join("fixtures/claude/projects/-home-dev-shop/6c075000-0000-4000-8000-00000000c006.jsonl");
    let six = six.to_str().unwrap();
    run(home.path(), &["index", six]);
    let count = requests(home.path(), six);
    assert_eq!(
        count, 37,
        "the six-cut fixture's requests, the next one counted"
    );
    let mut numbers: Vec<String> = (1..=count + 1).map(|n| n.to_string()).collect();
    numbers.push("next".into());
    same_either_way(home.path(), six, &numbers);

    // The answer is the index's: a mark put in its rows is what `context` prints.
    let db = home.path().join("palimpsest/index.db");
    let c = rusqlite::Connection::open(&db).unwrap();
    c.execute("UPDATE messages SET tokens = 1000000 WHERE idx = 0", [])
        .unwrap();
    let tokens = |args: &[&str]| {
        let v: serde_json::Value = serde_json::from_slice(&run(home.path(), args).0).unwrap();
        v["tokens_counted"].as_u64().unwrap()
    };
    assert!(
        tokens(&["context", six, "--request", "1", "--json"]) >= 1_000_000,
        "the file the index holds as it is is not read"
    );

    // A file written on since it was indexed is read as it is now.
    let copy = home.path().join("grown.jsonl");
    std::fs::copy(six, &copy).unwrap();
    let copy = copy.to_str().unwrap();
    run(home.path(), &["index", copy]);
    let mut text = std::fs::read_to_string(six).unwrap();
    text.push('\n');
    std::fs::write(copy, text).unwrap();
    same_either_way(home.path(), copy, &["1".into(), "next".into()]);
}

#[test]
fn real_transcripts_contexts_from_the_index() {
    let home = tempfile::tempdir().unwrap();
    let (dir, files) = crate::common::real_transcripts();
    run(home.path(), &["index", dir.to_str().unwrap()]);
    let mut asked = 0;
    for p in &files {
        let count = requests(home.path(), p);
        // Every 9th request (the compactions' neighbourhoods among them), the next one
        // and one past it: each a process, both ways.
        let mut numbers: Vec<String> = (1..=count).step_by(9).map(|n| n.to_string()).collect();
        numbers.extend([count.to_string(), "next".into(), (count + 1).to_string()]);
        asked += numbers.len();
        same_either_way(home.path(), p, &numbers);
    }
    assert_eq!(asked, 61, "the real transcripts' requests were asked");
}
