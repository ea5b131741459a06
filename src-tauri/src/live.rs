//! Live following: a background thread that watches every source the sidebar shows (each
//! family's default folder found on start — the goose sessions DB and its `-wal`, Claude Code,
//! Codex and coworker folders — the path argument or the fixtures, and each file or folder the
//! user opened; `AppState::startup` and `open_path` send them here) with core's [`Follower`] and emits what changed to the window as one `live` event
//! per batch (`Vec<LiveEvent>`). Diffing, fingerprints and debouncing are core's
//! (`palimpsest_core::follow`, `watch`); applying the events is the UI's (`ui/src/live.ts`).
//! A transcript being written that the window shows is read ahead on another thread and
//! handed over ([`ToLive::Primed`]), so its first change costs what was appended; once it has
//! stopped changing for [`SETTLED`], the index takes that copy, read on from its last offset,
//! instead of reading the file again (`indexing::later`).

use std::sync::mpsc::{self, Receiver, Sender, TryRecvError};
use std::time::{Duration, Instant};

use palimpsest_core::follow::{Follower, LiveEvent};
use palimpsest_core::watch::{Patch, Primed, Tracker};
use tauri::{AppHandle, Emitter, Manager};

use crate::alerts::ToAlerts;
use crate::state::AppState;

/// The window event carrying a batch of [`LiveEvent`]s (declared with the others in `rpc`).
pub const EVENT: &str = palimpsest_core::rpc::event::live;

/// How long the thread waits for a notification before looking anyway (a poll for what
/// notifications miss, and how soon a newly opened source starts being followed).
const POLL: Duration = Duration::from_millis(500);

/// How long a transcript followed live must go unchanged (the agent waits on its user, or
/// stopped) before the index takes the window's copy of it, read on from its last offset: once
/// per pause, not once per line, as the update diagnoses the whole session.
const SETTLED: Duration = Duration::from_secs(5);

/// What the app sends the live thread.
pub enum ToLive {
    /// A source to follow: its path and the baseline taken before the window listed it.
    Follow(String, Tracker),
    /// A transcript of the source at this path read ahead, so its first change is read on
    /// from there (`AppState::prime`).
    Primed(String, Box<Primed>),
}

/// Start following `paths`; send more sources on the returned channel to follow them too.
/// What each look changed goes to `alerts` (`crate::alerts`).
pub fn start(app: AppHandle, paths: Vec<String>, alerts: Sender<ToAlerts>) -> Sender<ToLive> {
    let (tx, rx) = mpsc::channel();
    let spawned = std::thread::Builder::new()
        .name("palimpsest-live".into())
        .spawn(move || run(&app, paths, &rx, &alerts));
    if let Err(e) = spawned {
        eprintln!("palimpsest-app: live following is off: {e}");
    }
    tx
}

fn run(app: &AppHandle, paths: Vec<String>, rx: &Receiver<ToLive>, alerts: &Sender<ToAlerts>) {
    let mut follower = Follower::new();
    follower.observe();
    for p in paths {
        add(&mut follower, &p);
    }
    // The followed session last read on to its file's end, and when: indexed once it settles.
    let mut settling: Option<(String, String, Instant)> = None;
    loop {
        loop {
            match rx.try_recv() {
                Ok(ToLive::Follow(p, tracker)) => {
                    if let Err(e) = follower.add_tracker(&p, tracker) {
                        eprintln!("palimpsest-app: not following {p}: {e}");
                    }
                }
                Ok(ToLive::Primed(p, primed)) => {
                    // Refused when the source changed since its baseline: it is then read
                    // whole at its next change, as without this.
                    let id = primed.session_id().to_owned();
                    let taken = follower.adopt(&p, *primed);
                    eprintln!(
                        "palimpsest-app: {id} read ahead for following live: {}",
                        if taken {
                            "taken"
                        } else {
                            "not taken, it changed since"
                        }
                    );
                }
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => return,
            }
        }
        let events = follower.poll(POLL);
        for (path, observed) in follower.take_observed() {
            let _ = alerts.send(ToAlerts::Observed(path, observed));
        }
        if !events.is_empty() {
            let patches = follower.take_patches();
            if let Some((path, patch)) = patches.iter().rev().find(|(_, p)| p.printed().is_some()) {
                settling = Some((path.clone(), patch.session_id().to_owned(), Instant::now()));
            }
            publish(app, &events, patches);
        }
        if let Some((path, id, _)) = settling.take_if(|(_, _, at)| at.elapsed() >= SETTLED)
            // Only the session the window keeps, as read: another one changing in a followed
            // folder is left for the next update that asks, as before.
            && let Some(read) = app.state::<AppState>().given(&path, &id)
        {
            app.state::<AppState>().index_later(&path, Some(read));
        }
    }
}

/// A source that cannot be followed (gone, unreadable) still shows what it held; its problem
/// is already in the sidebar from the listing, so it is only logged here.
fn add(follower: &mut Follower, path: &str) {
    if let Err(e) = follower.add(path) {
        eprintln!("palimpsest-app: not following {path}: {e}");
    }
}

fn publish(app: &AppHandle, events: &[LiveEvent], patches: Vec<(String, Patch)>) {
    // The window's session, changed, is read where the follower keeps it (a transcript growing
    // by a line is not read whole for each line, nor copied); one the follower says nothing
    // of is dropped, so a click on a new row reads the session as it is now.
    let state = app.state::<AppState>();
    for e in events {
        if let Some(id) = e.session_id()
            && !patches
                .iter()
                .any(|(p, patch)| p == e.path() && patch.session_id() == id)
        {
            state.forget(e.path(), id);
        }
    }
    for (path, patch) in patches {
        state.patched(&path, &patch);
    }
    if let Err(e) = app.emit(EVENT, events) {
        eprintln!("palimpsest-app: cannot send live changes to the window: {e}");
    }
}
