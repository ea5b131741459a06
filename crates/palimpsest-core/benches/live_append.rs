//! One line appended to a big Claude Code transcript that is being followed live: what the
//! watcher's refresh costs now (the transcript read on from where the last read stopped,
//! `sources::claude::resume`) beside the reference, reading the whole session again (what
//! every change cost before); and the first change, read whole, beside the same once the
//! transcript was read ahead (`watch::Primed`, as the app does); and a line read while a reader
//! holds the session (a command of the app reading it for seconds) beside what the follower
//! paid for that before, a copy of every message. The transcript is made by
//! `palimpsest-big` from the real one in `fixtures/real` (`PALIMPSEST_BENCH_MB`, default 50 MB).
//!
//! Run: `cargo bench -p palimpsest-core --bench live_append`.

use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use palimpsest_core::watch::{Primed, Tracker};

fn main() -> anyhow::Result<()> {
    let mb: u64 = std::env::var("PALIMPSEST_BENCH_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(50);
    let real = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/real/claude-code/258c7280-ae70-4798-800f-63464d01a85d.jsonl");
    let t = tempfile::tempdir()?;
    let dir = t.path().join("-home-u-proj");
    // Keep the last 12 lines back, to append one per round.
    let held = 12;
    let (file, lines) = palimpsest_fixtures::big::followed(&real, &dir, mb << 20, held)?;
    let mut tracker = Tracker::new(&dir, None)?;
    // As the app follows it: a patch of each change for the copy it keeps.
    tracker.keep_patches();
    let mut bare = palimpsest_core::sources::claude::resume::Resumable::open(
        &file,
        "258c7280-ae70-4798-800f-63464d01a85d",
        None,
    )?;
    let mut extend = Vec::new();
    // As the app does for the session it shows while it is written: read it ahead (on its own
    // thread there) and hand it to the tracker.
    let mut ahead = Tracker::new(&dir, None)?;
    ahead.keep_patches();
    let meta = palimpsest_core::api::list_sessions(&file)?
        .sessions
        .into_iter()
        .find(|m| m.id == "258c7280-ae70-4798-800f-63464d01a85d")
        .expect("the transcript lists its session");
    let t0 = Instant::now();
    let primed = Primed::read(&meta)?.expect("a transcript that holds still is read ahead");
    let read_ahead = t0.elapsed();
    assert!(ahead.adopt(primed), "nothing changed since the baseline");
    // The first change reads the transcript whole (nothing read yet to go on from), unless it
    // was read ahead.
    append(&file, &lines[0])?;
    let t0 = Instant::now();
    tracker.refresh();
    std::hint::black_box(tracker.take_patches());
    let first = t0.elapsed();
    let t0 = Instant::now();
    ahead.refresh();
    std::hint::black_box(ahead.take_patches());
    let first_ahead = t0.elapsed();
    drop(ahead);
    let (mut resumed, mut whole) = (Vec::new(), Vec::new());
    let (mut extend_held, mut deep) = (Vec::new(), Vec::new());
    for (round, line) in lines[1..].iter().enumerate() {
        append(&file, line)?;
        let t0 = Instant::now();
        tracker.refresh();
        std::hint::black_box(tracker.take_patches());
        resumed.push(t0.elapsed());
        // Every other line comes while a reader holds the session as it was.
        let reader = (round % 2 == 1).then(|| bare.session());
        let t0 = Instant::now();
        std::hint::black_box(bare.extend()?);
        match &reader {
            Some(held) => {
                extend_held.push(t0.elapsed());
                // The reference: the copy of every message a change made while a reader held
                // the session, before messages were shared.
                let t0 = Instant::now();
                let copy: Vec<palimpsest_core::model::Message> = held.iter().cloned().collect();
                deep.push(t0.elapsed());
                drop(std::hint::black_box(copy));
            }
            None => extend.push(t0.elapsed()),
        }
        drop(reader);
        let t0 = Instant::now();
        std::hint::black_box(palimpsest_core::api::load_session(&dir, None)?);
        whole.push(t0.elapsed());
    }
    let median = |v: &mut Vec<Duration>| {
        v.sort();
        v[v.len() / 2]
    };
    let (r, w, e) = (
        median(&mut resumed),
        median(&mut whole),
        median(&mut extend),
    );
    let (h, d) = (median(&mut extend_held), median(&mut deep));
    println!(
        "live append to a {:.0} MB transcript: refresh {r:.1?} (of it the resumed read {e:.1?}) \
         beside reading it again {w:.1?}: {:.1}× less; the first change {first:.1?} (read \
         whole), {first_ahead:.1?} once read ahead as the app does for the session it shows \
         ({read_ahead:.1?} in the background); a line read while a reader holds the session \
         {h:.1?}, beside a copy of every message {d:.1?} (what it added before)",
        std::fs::metadata(&file)?.len() as f64 / 1e6,
        w.as_secs_f64() / r.as_secs_f64().max(1e-9),
    );
    Ok(())
}

fn append(path: &Path, line: &str) -> std::io::Result<()> {
    let mut f = std::fs::OpenOptions::new().append(true).open(path)?;
    writeln!(f, "{line}")
}
