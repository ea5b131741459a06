//! The libraries' modules are split by concern: within each library crate, no two sibling
//! modules use each other (a file split for size leaves such a pair behind; a helper both need
//! belongs to one of them, or the two belong in one file with a child module). Between crates,
//! cargo itself refuses a back edge. Read from the sources: every `super::name` and
//! `crate::path` outside tests, resolved to the deepest module that exists.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every module of `src` (`a::b`) and its file.
fn modules(src: &Path) -> BTreeMap<String, PathBuf> {
    let mut out = BTreeMap::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            if p.extension().is_none_or(|x| x != "rs") {
                continue;
            }
            let rel = p.strip_prefix(src).unwrap().with_extension("");
            let mut name = rel.to_string_lossy().replace('/', "::");
            if name == "lib" {
                name.clear();
            } else if let Some(parent) = name.strip_suffix("::mod") {
                name = parent.to_owned();
            }
            out.insert(name, p);
        }
    }
    out
}

/// What module `name` (in `file`) uses, outside its tests and comments.
fn uses(name: &str, file: &Path, all: &BTreeMap<String, PathBuf>) -> BTreeSet<String> {
    let text = std::fs::read_to_string(file).unwrap();
    let code = text.split("#[cfg(test)]").next().unwrap_or("");
    let code: String = code
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    let parent = name.rsplit_once("::").map_or("", |(p, _)| p);
    let mut out = BTreeSet::new();
    let word = |s: &str| -> Vec<String> {
        s.split("::")
            .map(|w| {
                w.chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect()
            })
            .take_while(|w: &String| !w.is_empty())
            .collect()
    };
    for (at, _) in code.match_indices("super::") {
        if let Some(first) = word(&code[at + 7..]).first() {
            let t = if parent.is_empty() {
                first.clone()
            } else {
                format!("{parent}::{first}")
            };
            if all.contains_key(&t) && t != name {
                out.insert(t);
            }
        }
    }
    for (at, _) in code.match_indices("crate::") {
        let parts = word(&code[at + 7..]);
        if let Some(t) = (1..=parts.len())
            .rev()
            .map(|k| parts[..k].join("::"))
            .find(|t| all.contains_key(t))
            && t != name
        {
            out.insert(t);
        }
    }
    out
}

/// The library crates, bottom layer first, each with at least this many modules (so a walk
/// that finds nothing cannot pass).
const LIBRARIES: [(&str, usize); 5] = [
    ("palimpsest-model", 60),
    ("palimpsest-tokens", 10),
    ("palimpsest-analysis", 60),
    ("palimpsest-index", 15),
    ("palimpsest-core", 25),
];

#[test]
fn no_two_sibling_modules_use_each_other() {
    for (krate, least) in LIBRARIES {
        let src = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("..")
            .join(krate)
            .join("src");
        siblings_apart(krate, &src, least);
    }
}

fn siblings_apart(krate: &str, src: &Path, least: usize) {
    let all = modules(src);
    assert!(
        all.len() >= least,
        "the walk finds {krate}'s modules: {}",
        all.len()
    );
    let deps: BTreeMap<&String, BTreeSet<String>> = all
        .iter()
        .filter(|(_, f)| !f.to_string_lossy().ends_with("tests.rs"))
        .map(|(m, f)| (m, uses(m, f, &all)))
        .collect();
    let mut pairs = Vec::new();
    for (a, used) in &deps {
        for b in used {
            let nested = b.starts_with(&format!("{a}::")) || a.starts_with(&format!("{b}::"));
            if a.as_str() < b.as_str()
                && !nested
                && deps.get(b).is_some_and(|u| u.contains(a.as_str()))
            {
                pairs.push(format!("{a} <-> {b}"));
            }
        }
    }
    assert!(
        pairs.is_empty(),
        "{krate}: sibling modules that use each other: {pairs:?}"
    );
}
