//! Regenerating the Codex fixtures into a temp dir gives byte-identical rollouts: the committed
//! files are exactly what `src/codex.rs` writes.

use std::path::{Path, PathBuf};

fn files(root: &Path) -> Vec<(String, Vec<u8>)> {
    let day = root.join("codex/sessions/2026/02/24");
    let mut names: Vec<PathBuf> = std::fs::read_dir(&day)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect()
}

#[test]
fn regenerated_codex_fixtures_match_the_committed_ones() {
    let out = tempfile::tempdir().unwrap();
    palimpsest_fixtures::codex::generate(out.path()).unwrap();
    let fresh = files(out.path());
    assert_eq!(fresh.len(), 4, "four rollouts are generated");
    let committed = files(&PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures"
    )));
    assert_eq!(
        fresh, committed,
        "fixtures/codex is out of date: run `cargo run -p palimpsest-fixtures -- fixtures/`"
    );
}
