//! Regenerating the OpenCode and Kilo Code databases into a temp dir gives the committed rows.

use std::path::PathBuf;

#[test]
fn regenerated_opencode_fixtures_match_the_committed_ones() {
    let out = tempfile::tempdir().unwrap();
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_palimpsest-fixtures"))
        .arg(out.path())
        .status()
        .unwrap();
    assert!(status.success(), "the generator runs");
    let committed = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures"));
    for (db, parts) in [("opencode/opencode.db", 92), ("kilo/kilo.db", 7)] {
        let fresh = super::goose_regenerate::rows(&out.path().join(db));
        let n = fresh
            .iter()
            .find(|(t, _)| t == "part")
            .map(|(_, r)| r.len());
        assert_eq!(n, Some(parts), "{db}: every part regenerated");
        assert!(
            fresh == super::goose_regenerate::rows(&committed.join(db)),
            "{db}: committed rows differ from the generator's; rerun `cargo run -p palimpsest-fixtures -- fixtures/`"
        );
    }
}
