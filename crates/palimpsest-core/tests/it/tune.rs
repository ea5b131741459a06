//! The fleet tuned (`api::tune`): on a fleet built so that each keep-tail K spares a known set
//! of re-reads (`palimpsest_fixtures::tune`), every session's spared re-reads per K, the
//! setting that storms at a small window, the tool results a naive slice orphans (and that the
//! walk never does), the seeds' own worker spared at the fork's K = 3, and a broken file named
//! while the rest is still tuned.

use std::path::{Path, PathBuf};

use palimpsest_core::api::{self, TuneView};
use palimpsest_core::replay::options::{PolicyName, ReplayOptions};
use palimpsest_core::replay::tune::Setting;

fn ks(range: std::ops::RangeInclusive<usize>) -> Vec<Setting> {
    range
        .map(|k| Setting {
            keep_tail: Some(k),
            ..Setting::default()
        })
        .collect()
}

fn goose() -> ReplayOptions {
    ReplayOptions {
        policy: PolicyName::Goose,
        at_recorded: true,
        ..ReplayOptions::default()
    }
}

fn tune(paths: &[PathBuf], base: &ReplayOptions, settings: &[Setting]) -> TuneView {
    api::tune(
        paths,
        base,
        settings,
        &Default::default(),
        None,
        &|| None,
        &|_, _| {},
        None,
    )
    .unwrap()
}

fn fleet() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    palimpsest_fixtures::tune::write(dir.path()).unwrap();
    let path = dir.path().to_path_buf();
    (dir, path)
}

/// Per session (by id): the count of one cell field at each setting.
fn per_session(
    v: &TuneView,
    f: impl Fn(&palimpsest_core::replay::tune::Cell) -> usize,
) -> Vec<(String, Vec<usize>)> {
    v.tune
        .sessions
        .iter()
        .map(|s| (s.session_id.clone(), s.cells.iter().map(&f).collect()))
        .collect()
}

fn named(rows: &[(&str, Vec<usize>)]) -> Vec<(String, Vec<usize>)> {
    rows.iter()
        .map(|(id, v)| ((*id).to_owned(), v.clone()))
        .collect()
}

#[test]
fn each_keep_tail_spares_exactly_the_re_reads_its_tail_holds() {
    let (_dir, path) = fleet();
    let v = tune(&[path], &goose(), &ks(0..=8));
    assert!(v.problems.is_empty(), "{:?}", v.problems);
    assert_eq!(
        per_session(&v, |c| c.avoided.len()),
        named(&[
            ("tune-k3", vec![0, 0, 0, 1, 1, 1, 1, 1, 1]),
            ("tune-k5", vec![0, 0, 0, 0, 0, 1, 1, 1, 1]),
            ("tune-twice", vec![0, 1, 1, 2, 2, 2, 2, 2, 2]),
            ("tune-storm", vec![0; 9]),
        ])
    );
    let recorded: Vec<usize> = v.tune.sessions.iter().map(|s| s.recorded).collect();
    assert_eq!(recorded, [1, 1, 2, 0]);
    assert_eq!(v.tune.recorded, 4);
    // The walk never orphans; every recorded compaction fires at every K, and no more at the
    // sessions' own window.
    assert!(
        v.tune
            .settings
            .iter()
            .all(|s| s.orphans == 0 && s.compactions == 5)
    );
    let fleet: Vec<usize> = v.tune.settings.iter().map(|s| s.avoided).collect();
    assert_eq!(fleet, [0, 1, 1, 3, 3, 4, 4, 4, 4]);
    // K = 2 and K = 4 spare no more than the K below them and carry more: off the front.
    assert_eq!(v.tune.front, [0, 1, 3, 5]);
    assert_eq!(v.tune.settings[v.tune.knee.unwrap()].label, "K=3");
    let k3 = &v.tune.settings[3];
    let gaining: Vec<(&str, usize, &str, usize, usize)> = k3
        .gaining
        .iter()
        .map(|g| {
            let a = &g.first;
            (
                g.session_id.as_str(),
                g.avoided,
                a.path.as_str(),
                a.previous_index,
                a.call_index,
            )
        })
        .collect();
    assert_eq!(
        gaining,
        [
            ("tune-twice", 2, "app.py", 1, 6),
            ("tune-k3", 1, "store.py", 1, 8)
        ]
    );
}

#[test]
fn a_keep_tail_that_holds_most_of_a_small_window_storms() {
    let (_dir, path) = fleet();
    let base = ReplayOptions {
        context_window: Some(8_000),
        ..goose()
    };
    let v = tune(&[path], &base, &ks(0..=8));
    let storm = |f: fn(&palimpsest_core::replay::tune::Cell) -> usize| {
        per_session(&v, f)
            .into_iter()
            .find(|(id, _)| id == "tune-storm")
            .unwrap()
            .1
    };
    assert_eq!(storm(|c| c.compactions), [3, 3, 3, 4, 4, 4, 4, 7, 7]);
    assert_eq!(storm(|c| c.storms), [0, 0, 0, 0, 0, 0, 0, 5, 5]);
    assert_eq!(storm(|c| c.over_window), [0; 9]);
}

#[test]
fn a_naive_slice_orphans_the_tool_results_the_walk_keeps_paired() {
    let (_dir, path) = fleet();
    let base = ReplayOptions {
        naive: true,
        ..goose()
    };
    let v = tune(&[path], &base, &ks(2..=4));
    assert_eq!(
        per_session(&v, |c| c.orphans),
        named(&[
            ("tune-k3", vec![0, 1, 1]),
            ("tune-k5", vec![0, 1, 0]),
            ("tune-twice", vec![1, 2, 1]),
            ("tune-storm", vec![1, 0, 0]),
        ])
    );
    let at: Vec<Vec<usize>> = v
        .tune
        .sessions
        .iter()
        .map(|s| s.cells[1].orphaned_at.clone())
        .collect();
    assert_eq!(at, [vec![4], vec![6], vec![2, 9], vec![]]);
    // The orphaned store.py result is not counted as held: its call was cut away.
    assert_eq!(v.tune.sessions[0].cells[1].avoided.len(), 0);
    // Every setting orphans one: none is recommended.
    assert!(v.tune.front.is_empty());
    assert_eq!(v.tune.knee, None);
}

#[test]
fn the_seeds_worker_has_its_re_read_spared_at_the_forks_k_and_not_below() {
    let db = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/goose/sessions.db");
    let v = tune(&[db], &goose(), &ks(0..=4));
    let s = v
        .tune
        .sessions
        .iter()
        .find(|s| s.session_id == "goose-compacted")
        .unwrap();
    assert_eq!(s.recorded, 1);
    let spared: Vec<usize> = s.cells.iter().map(|c| c.avoided.len()).collect();
    assert_eq!(spared, [0, 0, 0, 1, 1]);
    let a = &s.cells[3].avoided[0];
    assert_eq!(
        (a.path.as_str(), a.previous_index, a.call_index),
        ("store.py", 1, 8)
    );
}

#[test]
fn a_broken_file_is_named_and_the_rest_still_tuned() {
    let (_dir, path) = fleet();
    let broken = path.join("broken.jsonl");
    std::fs::write(&broken, "{\"type\": \"user\", \"message\":\n").unwrap();
    let v = tune(&[path], &goose(), &ks(3..=3));
    assert_eq!(v.tune.sessions.len(), 4);
    assert_eq!(v.problems.len(), 1, "{:?}", v.problems);
    assert!(
        v.problems[0]
            .message
            .contains(&broken.display().to_string()),
        "{}",
        v.problems[0].message
    );
}

#[test]
fn a_second_tune_comes_from_the_index_and_a_grown_fleet_replays_only_what_is_new() {
    let home = tempfile::tempdir().unwrap();
    let fleet = home.path().join("claude-code");
    palimpsest_fixtures::copy_tree(
        &palimpsest_fixtures::real_data("claude-code"),
        &fleet,
        &["LICENSE", "README.md"],
    )
    .unwrap();
    // One session joins later.
    let aside = home.path().join("tool_heavy.jsonl");
    let tool_heavy = fleet.join("tool_heavy.jsonl");
    std::fs::rename(&tool_heavy, &aside).unwrap();
    let index = std::sync::Mutex::new(
        palimpsest_core::index::Index::open(&home.path().join("index.db")).unwrap(),
    );
    let run = |settings: &[Setting]| {
        api::tune(
            std::slice::from_ref(&fleet),
            &goose(),
            settings,
            &Default::default(),
            Some(&index),
            &|| None,
            &|_, _| {},
            None,
        )
        .unwrap()
    };
    let first = run(&ks(0..=2));
    assert_eq!((first.from_index, first.replayed), (0, 8));
    let second = run(&ks(0..=2));
    assert_eq!((second.from_index, second.replayed), (8, 0));
    assert_eq!(second.tune, first.tune);
    // What nothing kept answers the same.
    assert_eq!(
        tune(std::slice::from_ref(&fleet), &goose(), &ks(0..=2)).tune,
        first.tune
    );
    // A wider grid replays every session at the new setting only, and agrees with a fresh run.
    let wider = run(&ks(0..=3));
    assert_eq!((wider.from_index, wider.replayed), (0, 8));
    assert_eq!(
        wider.tune,
        tune(std::slice::from_ref(&fleet), &goose(), &ks(0..=3)).tune
    );
    // One session more: only it is read.
    std::fs::rename(&aside, &tool_heavy).unwrap();
    let grown = run(&ks(0..=3));
    assert_eq!((grown.from_index, grown.replayed), (8, 1));
    assert_eq!(grown.tune.sessions.len(), 9);
    // A session that grew is read again, and tuned as it is now.
    let last = std::fs::read_to_string(&tool_heavy)
        .unwrap()
        .lines()
        .last()
        .unwrap()
        .to_owned();
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&tool_heavy)
        .unwrap();
    std::io::Write::write_all(&mut f, format!("{last}\n").as_bytes()).unwrap();
    let again = run(&ks(0..=3));
    assert_eq!((again.from_index, again.replayed), (8, 1));
    assert_eq!(
        again.tune,
        tune(std::slice::from_ref(&fleet), &goose(), &ks(0..=3)).tune
    );
}

#[test]
fn opencode_and_qwen_fleets_are_replayed_at_their_recorded_compactions_when_asked() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    for (dir, policy, recorded) in [
        ("opencode", PolicyName::OpenCode, 3),
        ("qwen", PolicyName::Gemini, 2),
    ] {
        let compactions = |at_recorded: bool| -> Vec<usize> {
            let base = ReplayOptions {
                policy,
                at_recorded,
                ..ReplayOptions::default()
            };
            let settings = [Setting::default()];
            tune(&[fixtures.join(dir)], &base, &settings)
                .tune
                .settings
                .iter()
                .map(|s| s.compactions)
                .collect()
        };
        // Far below their windows, their own triggers never fire.
        assert_eq!(compactions(false), [0], "{dir}");
        assert_eq!(compactions(true), [recorded], "{dir}");
    }
}

/// A tune counts each capped result from the whole result's pieces: on every real transcript,
/// at every cap of the tune bench's grid, the replay runs forward exactly as when each capped
/// text is counted whole (a counter without an encoding takes that path).
#[test]
fn capped_results_count_from_their_pieces_as_the_capped_texts_do() {
    use palimpsest_core::replay::simulate::{Prepared, simulate};
    use palimpsest_core::tokens::Counter;
    use palimpsest_core::tokens::counter::Bpe;
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/real/claude-code");
    let caps = [0, 2_000, 8_000, 10_000, 30_000, 50_000];
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    assert_eq!(files.len(), 5, "the real transcripts");
    let mut differed = 0;
    for file in &files {
        let session = palimpsest_core::sources::open(file)
            .unwrap()
            .load(file, None)
            .unwrap();
        let bpe = Bpe::new(palimpsest_core::tokens::Encoding::for_model(
            session.meta.model.as_deref(),
        ));
        let whole = |m: &palimpsest_core::model::Message| bpe.count(m);
        let o = ReplayOptions {
            keep_tail: 3,
            ..goose()
        };
        let params = o.sim_params(&session, false);
        let by_pieces = Prepared::tokens_only(&session, &bpe).with_caps(&caps, &bpe);
        // A profiling counter keeps each long result's pieces from its first count instead.
        let known = palimpsest_core::tokens::known::Known::of(
            &session,
            palimpsest_core::tokens::Encoding::for_model(session.meta.model.as_deref()),
            None,
        )
        .profiling();
        let by_kept = Prepared::tokens_only(&session, &known).with_caps(&caps, &known);
        let uncapped = Prepared::tokens_only(&session, &whole);
        for (cap, prep) in caps.iter().zip(&by_pieces) {
            let want = simulate(&uncapped.with_cap(*cap, &whole), &params, &whole).totals;
            let got = simulate(prep, &params, &bpe).totals;
            assert_eq!(got, want, "{} at cap {cap}", file.display());
            let kept = &by_kept[caps.iter().position(|c| c == cap).unwrap()];
            assert_eq!(
                simulate(kept, &params, &known).totals,
                want,
                "{} at cap {cap}, profiled",
                file.display()
            );
            differed += usize::from(
                *cap > 0
                    && want.tokens_processed
                        != simulate(&uncapped, &params, &whole).totals.tokens_processed,
            );
        }
    }
    assert_eq!(differed, 9, "the runs the caps changed (of 25 capped)");
}
