//! The Replay tab's sweep through the index's goose digests, on a real Claude Code transcript
//! (`fixtures/real`): the first sweep keeps the digests of a session the index holds as it
//! was loaded, the next one sweeps from them and agrees cell for cell; a session read before
//! its file grew is swept but never kept under the grown file's fingerprint.

use std::io::Write;
use std::path::Path;

use palimpsest_core::api::{self, DiagnoseOptions};
use palimpsest_core::charts::ThemeName;
use palimpsest_core::index::Index;
use palimpsest_core::index::digests::stamp_of;
use palimpsest_core::replay::options::{PolicyName, ReplayOptions};
use palimpsest_core::replay::sweep::Metric;

/// The caps the tab sweeps (`panels::default_axes`).
const CAPS: [usize; 4] = [0, 2_000, 10_000, 30_000];

fn opts() -> ReplayOptions {
    ReplayOptions {
        policy: PolicyName::Goose,
        context_window: Some(30_000),
        ..ReplayOptions::default()
    }
}

/// The tab's sweep of `session`, through `index` when given.
fn sweep(
    session: &palimpsest_core::model::Session,
    index: Option<&mut Index>,
) -> palimpsest_core::views::panels::SweepView {
    api::replay_sweep_view_indexed(session, &opts(), Metric::default(), ThemeName::Light, index)
        .unwrap()
}

#[test]
fn the_tabs_sweep_keeps_its_digests_only_for_the_session_the_file_holds() {
    let real = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/real/claude-code/258c7280-ae70-4798-800f-63464d01a85d.jsonl");
    let dir = tempfile::tempdir().unwrap();
    let file = dir
        .path()
        .join("258c7280-ae70-4798-800f-63464d01a85d.jsonl");
    std::fs::copy(&real, &file).unwrap();
    let mut ix = Index::open(&dir.path().join("cache/index.db")).unwrap();
    ix.update(
        std::slice::from_ref(&file),
        &DiagnoseOptions::default(),
        &mut |_, _| {},
    )
    .unwrap();
    let session = api::load_session(&file, None).unwrap();
    let id = session.meta.id.clone();
    let stamp = stamp_of(&file).expect("a transcript has a fingerprint");

    let plain = sweep(&session, None);
    let first = sweep(&session, Some(&mut ix));
    assert_eq!(
        first.grid, plain.grid,
        "the digests made on the way sweep as the session does"
    );
    let kept = ix.digests(&file, Some(&id), &stamp, &CAPS).unwrap();
    assert_eq!(
        kept.map(|d| d.len()),
        Some(4),
        "the index holds the file as loaded, so a digest per cap is kept"
    );
    let second = sweep(&session, Some(&mut ix));
    assert_eq!(
        second.grid, plain.grid,
        "swept from the digests, every cell agrees"
    );
    assert!(
        plain
            .grid
            .totals
            .iter()
            .flatten()
            .any(|t| t.compactions > 0),
        "a 30 000-token window compacts this transcript, so the cells measure something"
    );

    // The file grows after the session was read; the index catches up with the file.
    let line = std::fs::read_to_string(&real)
        .unwrap()
        .lines()
        .find(|l| l.contains("\"type\":\"user\""))
        .unwrap()
        .to_owned();
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&file)
        .unwrap();
    writeln!(f, "{line}").unwrap();
    drop(f);
    ix.update(
        std::slice::from_ref(&file),
        &DiagnoseOptions::default(),
        &mut |_, _| {},
    )
    .unwrap();
    let grown = stamp_of(&file).unwrap();
    assert_ne!(grown, stamp, "the grown file has another fingerprint");
    sweep(&session, Some(&mut ix));
    assert!(
        ix.digests(&file, Some(&id), &grown, &CAPS)
            .unwrap()
            .is_none(),
        "the copy read before the file grew is not what the file holds: nothing is kept"
    );
}
