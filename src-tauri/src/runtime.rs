//! The runtime the window's commands run on. Tauri runs each `#[tauri::command(async)]`, a
//! plain function here, on a worker of its async runtime, and the function holds that worker
//! until it returns. A command waiting for a session still being read (a message, the cut
//! view, a tab of a 2 GB transcript: half a minute) holds its worker all that time, and tauri's
//! default runtime has one worker per core: on two cores, two such waits held every other
//! command — the sidebar's listing, a message read by offset, the first lines' inspector —
//! until the read ended. This runtime has a worker for each command the window can have
//! waiting at once, and more.
//!
//! Its workers also run below the page's priority: a command's work (a 200 MB session read, a
//! replay run forward for ten seconds) competes for the cores with the web process that paints
//! the window, and on two cores the page's thread lost them for 170 ms at a time. At a nice
//! value of [`NICE`] the workers, and the threads they start, still take every core the page
//! leaves idle, but yield to it when it has work.

/// Workers: the window asks a handful of things at once (rows, a message, the cuts, a tab, the
/// sidebar's groups), each of which may wait; idle workers cost a thread each.
pub const WORKERS: usize = 32;

/// The workers' nice value: CFS gives a thread at 10 about a tenth of a core that a thread at 0
/// (the page, the main thread) also wants.
pub const NICE: i32 = 10;

/// A multi-threaded runtime with [`WORKERS`] workers, each at [`NICE`].
pub fn build() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(WORKERS)
        .thread_name("palimpsest-command")
        .on_thread_start(lower_priority)
        .enable_all()
        .build()
}

/// Lower the calling thread's priority to [`NICE`]. On Linux the nice value belongs to the
/// thread (`who` = 0 names the caller, not its process) and threads it starts inherit it. A
/// thread that cannot lower itself runs as it was: only responsiveness is at stake.
pub fn lower_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: setpriority reads no memory of ours; raising one's own nice value needs no privilege.
    #[allow(unsafe_code)]
    unsafe {
        libc::setpriority(libc::PRIO_PROCESS, 0, NICE);
    }
}

/// Make [`build`]'s runtime tauri's: before the app is built, and kept for the whole run.
pub fn install() -> std::io::Result<()> {
    let runtime = build()?;
    tauri::async_runtime::set(runtime.handle().clone());
    // Tauri keeps only the handle; the runtime must outlive every command.
    std::mem::forget(runtime);
    Ok(())
}

#[cfg(test)]
mod tests {
    /// Commands that wait for one another (each holds its worker until the others come) all
    /// run: with one worker per core, the third of them would never start.
    #[test]
    fn commands_that_wait_do_not_hold_up_the_others() {
        let rt = super::build().unwrap();
        let waiting = 8;
        let barrier = std::sync::Arc::new(std::sync::Barrier::new(waiting));
        let (tx, rx) = std::sync::mpsc::channel();
        for i in 0..waiting {
            let (barrier, tx) = (std::sync::Arc::clone(&barrier), tx.clone());
            rt.spawn(async move {
                barrier.wait();
                let _ = tx.send(i);
            });
        }
        drop(tx);
        let mut done: Vec<usize> = (0..waiting)
            .map_while(|_| rx.recv_timeout(std::time::Duration::from_secs(10)).ok())
            .collect();
        // Tasks stuck at the barrier would hold a runtime dropped the usual way for good.
        rt.shutdown_background();
        done.sort();
        assert_eq!(done, (0..waiting).collect::<Vec<_>>(), "all {waiting} ran");
    }

    /// A command, and a thread it starts, run at the workers' nice value, while the thread
    /// that built the runtime (the main thread, which serves the page) keeps its own.
    #[cfg(target_os = "linux")]
    #[test]
    fn commands_run_below_the_page() {
        let nice = || {
            // SAFETY: getpriority reads no memory of ours.
            #[allow(unsafe_code)]
            unsafe {
                libc::getpriority(libc::PRIO_PROCESS, 0)
            }
        };
        let before = nice();
        let rt = super::build().unwrap();
        let (worker, started) = rt.block_on(async move {
            tokio::spawn(async move { (nice(), std::thread::spawn(nice).join().unwrap()) })
                .await
                .unwrap()
        });
        rt.shutdown_background();
        assert_eq!((worker, started), (super::NICE, super::NICE));
        assert_eq!(nice(), before, "the building thread keeps its priority");
    }
}
