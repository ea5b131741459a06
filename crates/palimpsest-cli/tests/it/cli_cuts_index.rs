//! `compactions` and `lint` of a transcript the index holds as it is answer from the cut view
//! it keeps, without reading the file: the same bytes as reading it (with the BPE counts the
//! index made), as text and JSON, for every cut and both rule sets; a file changed since it
//! was indexed is read again.

use std::path::Path;

use crate::common::repo;

/// stdout, stderr and exit code of `palimpsest ARGS` with the cache (index and token counts)
/// in `home`: 0, 1 (lint findings) or 2 (a cut out of range, said on stderr).
fn run(home: &Path, args: &[&str]) -> (Vec<u8>, Vec<u8>, Option<i32>) {
    let out = crate::common::run_in(home, args);
    assert!(
        matches!(out.2, Some(0..=2)),
        "{args:?} runs: {}",
        String::from_utf8_lossy(&out.1)
    );
    out
}

/// Every question these commands answer of `file`.
fn questions(file: &str, cuts: usize) -> Vec<Vec<String>> {
    let mut q: Vec<Vec<&str>> = vec![
        vec!["compactions", file],
        vec!["compactions", file, "--json"],
        vec!["lint", file],
        vec!["lint", file, "--json"],
        vec!["lint", file, "--api", "anthropic"],
        vec!["lint", file, "--api", "anthropic", "--json"],
    ];
    let numbers: Vec<String> = (1..=cuts + 1).map(|n| n.to_string()).collect();
    for n in &numbers {
        q.push(vec!["compactions", file, "--cut", n, "--json"]);
    }
    q.into_iter()
        .map(|a| a.into_iter().map(str::to_owned).collect())
        .collect()
}

/// Each answer of `file` from the index is the file's.
fn same_either_way(home: &Path, file: &str, cuts: usize) {
    for args in questions(file, cuts) {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let indexed = run(home, &args);
        let read = run(home, &[&args[..], &["--no-index"]].concat());
        assert!(
            indexed == read,
            "{args:?}: the index answers what the file gives, and fails as it fails ({} bytes vs \
             {})",
            indexed.0.len(),
            read.0.len()
        );
    }
}

fn cut_count(home: &Path, file: &str) -> usize {
    let (out, ..) = run(home, &["compactions", file, "--json", "--no-index"]);
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    v["compactions"].as_array().unwrap().len()
}

/// Put a mark in every cut view the index keeps (stored zstd-compressed JSON): its first lint's
/// request count becomes 4242.
fn mark_lint(c: &rusqlite::Connection) {
    let kept: Vec<(i64, Vec<u8>)> = c
        .prepare("SELECT session, json FROM cut_views")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    for (session, packed) in kept {
        let mut v: serde_json::Value =
            serde_json::from_slice(&zstd::stream::decode_all(packed.as_slice()).unwrap()).unwrap();
        v["lint"][0]["requests"] = serde_json::json!(4242);
        let json = serde_json::to_vec(&v).unwrap();
        c.execute(
            "UPDATE cut_views SET json = ?1 WHERE session = ?2",
            rusqlite::params![zstd::bulk::compress(&json, 1).unwrap(), session],
        )
        .unwrap();
    }
}

#[test]
fn cuts_and_lint_from_the_index_are_the_files() {
    let home = tempfile::tempdir().unwrap();
    let six = repo()
        .join("fixtures/claude/projects/-home-dev-shop/6c075000-0000-4000-8000-00000000c006.jsonl");
    let six = six.to_str().unwrap();
    run(home.path(), &["index", six]);
    assert_eq!(cut_count(home.path(), six), 6, "the fixture's six cuts");
    same_either_way(home.path(), six, 6);

    // The answer is the index's: a mark put in its cut view is what `lint` prints.
    let db = home.path().join("palimpsest/index.db");
    let c = rusqlite::Connection::open(&db).unwrap();
    mark_lint(&c);
    let requests = |args: &[&str]| {
        let v: serde_json::Value = serde_json::from_slice(&run(home.path(), args).0).unwrap();
        v["requests"].clone()
    };
    assert_eq!(
        requests(&["lint", six, "--json"]),
        serde_json::json!(4242),
        "the file the index holds as it is is not read"
    );

    // A file written on since it was indexed is read as it is now.
    let copy = home.path().join("grown.jsonl");
    std::fs::copy(six, &copy).unwrap();
    let copy = copy.to_str().unwrap();
    run(home.path(), &["index", copy]);
    mark_lint(&c);
    let mut text = std::fs::read_to_string(six).unwrap();
    text.push('\n');
    std::fs::write(copy, text).unwrap();
    assert_ne!(
        requests(&["lint", copy, "--json"]),
        serde_json::json!(4242),
        "a changed file is read, not answered from the index"
    );
    same_either_way(home.path(), copy, 6);
}

#[test]
fn cuts_and_lint_of_real_transcripts_from_the_index() {
    let home = tempfile::tempdir().unwrap();
    let (dir, files) = crate::common::real_transcripts();
    run(home.path(), &["index", dir.to_str().unwrap()]);
    let mut cuts = 0;
    for p in &files {
        let n = cut_count(home.path(), p);
        same_either_way(home.path(), p, n);
        cuts += n;
    }
    assert_eq!(
        cuts, 2,
        "the real transcripts' cuts were asked: 258c7280 and ae4a77f8 compacted once each"
    );
}
