//! The home the index tests share: `fixtures/real` and some fixtures copied into a temporary
//! folder, and indexed there with the default options.

use std::path::{Path, PathBuf};

use palimpsest_core::api::DiagnoseOptions;
use palimpsest_core::index::Index;

/// The repository's root.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `fixtures/real` with each `(fixture, folder)` of `fixtures/` copied under `folder`, indexed:
/// the folder (to keep), the home's canonical path and its index.
pub fn indexed_home(fixtures: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf, Index) {
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("home");
    palimpsest_fixtures::copy_tree(&repo().join("fixtures/real"), &root, &[]).unwrap();
    for (fixture, to) in fixtures {
        palimpsest_fixtures::copy_tree(&repo().join("fixtures").join(fixture), &root.join(to), &[])
            .unwrap();
    }
    let root = root.canonicalize().unwrap();
    let mut ix = Index::open(&t.path().join("cache/index.db")).unwrap();
    ix.update(
        std::slice::from_ref(&root),
        &DiagnoseOptions::default(),
        &mut |_, _| {},
    )
    .unwrap();
    (t, root, ix)
}
