//! The runtime the window's commands run on. Tauri runs each `#[tauri::command(async)]`, a
//! plain function here, on a worker of its async runtime, and the function holds that worker
//! until it returns. A command waiting for a session still being read (a message, the cut
//! view, a tab of a 2 GB transcript: half a minute) holds its worker all that time, and tauri's
//! default runtime has one worker per core: on two cores, two such waits held every other
//! command — the sidebar's listing, a message read by offset, the first lines' inspector —
//! until the read ended. This runtime has a worker for each command the window can have
//! waiting at once, and more.

/// Workers: the window asks a handful of things at once (rows, a message, the cuts, a tab, the
/// sidebar's groups), each of which may wait; idle workers cost a thread each.
pub const WORKERS: usize = 32;

/// A multi-threaded runtime with [`WORKERS`] workers.
pub fn build() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(WORKERS)
        .thread_name("palimpsest-command")
        .enable_all()
        .build()
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
}
