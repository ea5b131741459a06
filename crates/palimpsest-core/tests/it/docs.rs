//! The docs name real things: every path `docs/ARCHITECTURE.md` names exists, every link of the
//! README and `docs/` leads to a file, and the README stays a two-minute read.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// The text of every `code span` in `md`.
fn code_spans(md: &str) -> Vec<&str> {
    md.split('`').skip(1).step_by(2).collect()
}

/// Every repository path a code span names: it starts at a top-level folder of the repository.
fn named_paths(md: &str) -> Vec<String> {
    const TOP: [&str; 6] = [
        "crates/",
        "src-tauri/",
        "ui/",
        "fixtures/",
        "docs/",
        "tests/",
    ];
    code_spans(md)
        .into_iter()
        .filter(|s| TOP.iter().any(|t| s.starts_with(t)) && !s.contains(' '))
        .map(|s| s.trim_end_matches('/').replace("<name>", "show"))
        .collect()
}

#[test]
fn every_path_the_architecture_names_exists() {
    let md = read("docs/ARCHITECTURE.md");
    let paths = named_paths(&md);
    assert!(
        paths.len() >= 40,
        "the page names its crates' files by path ({} found)",
        paths.len()
    );
    let missing: Vec<&String> = paths.iter().filter(|p| !root().join(p).exists()).collect();
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md names {missing:?}, which do not exist"
    );
}

#[test]
fn every_link_of_the_docs_leads_to_a_file() {
    let mut docs = vec!["README.md".to_owned()];
    for e in std::fs::read_dir(root().join("docs")).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.ends_with(".md") {
            docs.push(format!("docs/{name}"));
        }
    }
    assert!(docs.len() >= 6, "README and five docs pages: {docs:?}");
    let mut broken = Vec::new();
    for doc in &docs {
        let md = read(doc);
        let dir = Path::new(doc).parent().unwrap_or(Path::new(""));
        for (at, _) in md.match_indices("](") {
            let rest = &md[at + 2..];
            let target = &rest[..rest.find(')').unwrap_or(rest.len())];
            let file = target.split('#').next().unwrap_or("");
            if file.is_empty() || file.starts_with("http") {
                continue;
            }
            if !root().join(dir).join(file).exists() {
                broken.push(format!("{doc}: {target}"));
            }
        }
    }
    assert!(broken.is_empty(), "links to nothing: {broken:?}");
}

#[test]
fn the_readme_is_a_two_minute_read() {
    let lines = read("README.md").lines().count();
    assert!(
        lines < 200,
        "README.md has {lines} lines; the rest belongs in docs/"
    );
}
