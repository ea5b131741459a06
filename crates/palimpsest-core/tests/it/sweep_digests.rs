//! The session service's sweep through the index's goose digests, on a real Claude Code
//! transcript (`fixtures/real`): the window's first sweep keeps the digests of a session the
//! index holds as it was loaded, a command's next one sweeps from them without reading the
//! file and agrees cell for cell; a session read before its file grew is swept but never kept
//! under the grown file's fingerprint.

use std::io::Write;
use std::path::Path;

use palimpsest_core::api::DiagnoseOptions;
use palimpsest_core::index::Index;
use palimpsest_core::index::digests::stamp_of;
use palimpsest_core::replay::options::{PolicyName, ReplayOptions};
use palimpsest_core::replay::sweep::Metric;
use palimpsest_core::service::{IndexUse, SessionService, SweepAsk, Swept};

/// The caps the tab sweeps (`panels::default_axes`).
const CAPS: [usize; 4] = [0, 2_000, 10_000, 30_000];

fn opts() -> ReplayOptions {
    ReplayOptions {
        policy: PolicyName::Goose,
        context_window: Some(30_000),
        ..ReplayOptions::default()
    }
}

/// The tab's sweep (around its setting) of session `id` of `file`, by `svc`.
fn sweep(svc: &SessionService, file: &Path, id: &str) -> Swept {
    let ask = SweepAsk {
        opts: opts(),
        grid: None,
        metric: Metric::default(),
    };
    svc.sweep(&file.to_string_lossy(), id, &ask).unwrap()
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
    let at = dir.path().join("cache/index.db");
    // The window's service, with the session loaded before the sweep.
    let window = SessionService::new(IndexUse::Asked(Some(at.clone())));
    let id = window.resolve(&file.to_string_lossy(), None).unwrap();
    let path = file.to_string_lossy().into_owned();
    window.session(&path, &id).unwrap();
    let stamp = stamp_of(&file).expect("a transcript has a fingerprint");

    let plain = sweep(&SessionService::new(IndexUse::Off), &file, &id);
    assert!(!plain.from_index, "without an index the file is read");
    let first = sweep(&window, &file, &id);
    assert_eq!(
        (first.grid.clone(), first.from_index),
        (plain.grid.clone(), false),
        "the digests made on the way sweep as the session does"
    );
    let kept = ix.digests(&file, Some(&id), &stamp, &CAPS).unwrap();
    assert_eq!(
        kept.map(|d| d.len()),
        Some(4),
        "the index holds the file as loaded, so a digest per cap is kept"
    );
    let command = SessionService::new(IndexUse::Asked(Some(at)));
    let second = sweep(&command, &file, &id);
    assert_eq!(
        (second.grid, second.from_index, second.name),
        (plain.grid.clone(), true, plain.name.clone()),
        "swept from the digests without reading the file, every cell agrees"
    );
    assert!(
        command.loaded_now(&path, &id).is_none(),
        "the command read no transcript"
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
    sweep(&window, &file, &id);
    assert!(
        ix.digests(&file, Some(&id), &grown, &CAPS)
            .unwrap()
            .is_none(),
        "the copy read before the file grew is not what the file holds: nothing is kept"
    );
}
