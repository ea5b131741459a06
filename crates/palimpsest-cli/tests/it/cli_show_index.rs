//! `show` of a transcript the index holds as it is prints it message by message from the index
//! (each read by its byte offsets): the same bytes as reading the file, in every view, as text
//! and JSON; a file changed since it was indexed is read again.

use std::path::Path;

use assert_cmd::Command;

use crate::common::repo;

fn run(home: &Path, args: &[&str]) -> Vec<u8> {
    Command::cargo_bin("palimpsest")
        .unwrap()
        .env("XDG_CACHE_HOME", home)
        .args(args)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone()
}

/// Every view of `file`, as text and JSON, from the index and from the file.
fn same_either_way(home: &Path, file: &str) {
    for view in ["all", "agent", "user"] {
        for json in [false, true] {
            let mut args = vec!["show", file, "--view", view];
            if json {
                args.push("--json");
            }
            let indexed = run(home, &args);
            args.push("--no-index");
            let read = run(home, &args);
            assert!(
                indexed == read,
                "{file} --view {view} json={json}: the index prints what the file gives \
                 ({} bytes vs {})",
                indexed.len(),
                read.len()
            );
        }
    }
}

#[test]
fn show_from_the_index_prints_what_the_file_gives() {
    let home = tempfile::tempdir().unwrap();
    let six = repo()
        .join("fixtures/claude/projects/-home-dev-shop/6c075000-0000-4000-8000-00000000c006.jsonl");
    let six = six.to_str().unwrap();
    run(home.path(), &["index", six]);
    same_either_way(home.path(), six);

    // A file that changed after it was indexed is read, not answered with the old rows.
    let copy = home.path().join("grown.jsonl");
    std::fs::copy(six, &copy).unwrap();
    let copy = copy.to_str().unwrap();
    run(home.path(), &["index", copy]);
    let before = run(home.path(), &["show", copy, "--json"]);
    let first = std::fs::read_to_string(six).unwrap();
    let line = first
        .lines()
        .find(|l| l.contains("\"type\":\"user\""))
        .unwrap();
    let mut grown = first.clone();
    grown.push_str(&line.replace(
        "00000000-0000-4000-8000-000000000001",
        "11111111-0000-4000-8000-000000000001",
    ));
    grown.push('\n');
    std::fs::write(copy, grown).unwrap();
    let after = run(home.path(), &["show", copy, "--json"]);
    assert!(
        after != before && after == run(home.path(), &["show", copy, "--json", "--no-index"]),
        "the grown file is read as it is now"
    );
}

#[test]
fn show_of_real_transcripts_from_the_index() {
    let home = tempfile::tempdir().unwrap();
    let (dir, files) = crate::common::real_transcripts();
    run(home.path(), &["index", dir.to_str().unwrap()]);
    let mut shown = 0;
    for p in &files {
        same_either_way(home.path(), p);
        shown += 1;
    }
    assert!(shown >= 3, "the real transcripts were shown: {shown}");
}
