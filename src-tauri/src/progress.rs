//! Long work's plumbing, kept out of the commands: progress sent to the window as
//! `task-progress` events (throttled, so a fast count does not flood the IPC) and one cancel
//! flag per running task, which a cancel command flips. The work itself is core's.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use palimpsest_core::rpc::TaskProgress;
use palimpsest_core::tokens::Progress;
use tauri::{AppHandle, Emitter};

/// The event name the UI listens to (declared with the others in `rpc`).
pub const EVENT: &str = palimpsest_core::rpc::event::task_progress;

/// At most this often, except for the first and last reports.
const EVERY: Duration = Duration::from_millis(100);

static APP: OnceLock<AppHandle> = OnceLock::new();

/// A plugin whose only job is to remember the app handle at start-up, so commands can emit
/// without taking it (their signatures are fixed by the command list).
pub fn plugin() -> tauri::plugin::TauriPlugin<tauri::Wry> {
    tauri::plugin::Builder::new("progress")
        .setup(|app, _api| {
            let _ = APP.set(app.clone());
            Ok(())
        })
        .build()
}

/// The token count: one at a time (a new one cancels the last).
pub static TOKENS: Tasks = Tasks::new();

/// The fleet's update: one at a time.
pub static FLEET: Tasks = Tasks::new();

/// The fleet tuned: one at a time.
pub static TUNE: Tasks = Tasks::new();

/// The cancel flag of the task of one kind that is running, if any.
pub struct Tasks {
    running: Mutex<Option<Arc<AtomicBool>>>,
}

impl Tasks {
    /// No task running.
    pub const fn new() -> Self {
        Tasks {
            running: Mutex::new(None),
        }
    }

    /// A fresh flag for a new task; the previous task (the user moved on) is cancelled.
    pub fn start(&self) -> Arc<AtomicBool> {
        let flag = Arc::new(AtomicBool::new(false));
        let mut running = self.running.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(old) = running.replace(Arc::clone(&flag)) {
            old.store(true, Ordering::Relaxed);
        }
        flag
    }

    /// Cancel the running task; false when none is running.
    pub fn cancel(&self) -> bool {
        let running = self.running.lock().unwrap_or_else(|e| e.into_inner());
        match running.as_ref() {
            Some(f) if Arc::strong_count(f) > 1 => {
                f.store(true, Ordering::Relaxed);
                true
            }
            _ => false,
        }
    }
}

/// A `(done, total)` callback for core that emits `task-progress` events for `task` on `id`,
/// counting pieces (sessions) rather than bytes.
pub fn counter(task: &'static str, id: &str) -> impl FnMut(usize, usize) {
    let mut report = reporter(task, id);
    move |done, total| {
        report(Progress {
            done_pieces: done,
            total_pieces: total,
            ..Progress::default()
        })
    }
}

/// A progress callback for core that emits `task-progress` events for `task` on session `id`.
pub fn reporter(task: &'static str, id: &str) -> impl FnMut(Progress) {
    let id = id.to_owned();
    let mut last: Option<Instant> = None;
    move |progress: Progress| {
        let done = progress.done_bytes >= progress.total_bytes
            && progress.done_pieces >= progress.total_pieces;
        if !done && last.is_some_and(|t| t.elapsed() < EVERY) {
            return;
        }
        last = Some(Instant::now());
        if let Some(app) = APP.get() {
            let event = TaskProgress {
                task: task.to_owned(),
                id: id.clone(),
                progress,
            };
            // A window that is gone cannot show progress; the work still finishes.
            let _ = app.emit(EVENT, event);
        }
    }
}
