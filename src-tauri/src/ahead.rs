//! Reading a session ahead of need, off the commands' path: the transcript an agent is still
//! writing, read whole once for the live follower (and, through `AppState::warm`, for the
//! window, which reads the same session), and the priority such background work runs at. When to read is
//! `state`'s; following is `live`'s.

use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex};

use palimpsest_core::index::fingerprint::Fingerprint;
use palimpsest_core::model::{Current, SessionMeta};

/// The sessions read ahead once already, by source path and id (see [`read_ahead`]).
pub type ReadAhead = Arc<Mutex<std::collections::HashSet<(String, String)>>>;

/// Read the transcript of a session the window shows ahead for the live follower of source
/// `path`, at the lowest priority (`warm` does it at the window's, for a session it reads
/// anyway). See [`read_ahead`].
pub fn prime(
    live: Option<Sender<crate::live::ToLive>>,
    done: &ReadAhead,
    path: &str,
    meta: &SessionMeta,
) {
    let Some(tx) = live else { return };
    lowest_priority();
    if let Some(primed) = read_ahead(done, path, meta, |_, _| {}) {
        let _ = tx.send(crate::live::ToLive::Primed(
            path.to_owned(),
            Box::new(primed),
        ));
    }
}

/// The transcript of session `meta` of source `path` read whole for the live follower, when an
/// agent is still writing it (written in the last [`crate::live::WRITTEN_WITHIN`]): otherwise
/// its first appended line would make the follower read it whole (3 s on 200 MB). A finished
/// session opened for a post-mortem is not read twice; `None` then, or when it is not a Claude
/// Code transcript or changed while it was read. `first` is given the session as soon as it is
/// read, where it is kept, with the file's fingerprint from before the read.
pub fn read_ahead(
    done: &ReadAhead,
    path: &str,
    meta: &SessionMeta,
    first: impl FnOnce(Arc<Current>, Option<Fingerprint>),
) -> Option<palimpsest_core::watch::Primed> {
    if !crate::live::being_written(&meta.path) {
        return None;
    }
    // Once per session: opened again, it is either taken already or changed since, and then
    // the follower read it itself at that change.
    let not_yet = done
        .lock()
        .is_ok_and(|mut d| d.insert((path.to_owned(), meta.id.clone())));
    if !not_yet {
        return None;
    }
    match palimpsest_core::watch::Primed::read_with(meta, first) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("palimpsest-app: cannot read {} ahead: {e}", meta.path);
            None
        }
    }
}

/// Run the calling thread at the lowest priority: a read ahead must not take the cores from
/// the window the user is clicking through. Only for work that holds no lock a command waits
/// on, or the command would wait on the lowest priority too.
pub fn lowest_priority() {
    // Linux keeps a nice value per thread, and no pid names the caller. Failing to lower it
    // only costs smoothness.
    #[cfg(unix)]
    let _ = rustix::process::setpriority_process(None, 19);
}
