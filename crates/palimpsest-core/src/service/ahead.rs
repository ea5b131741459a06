//! Reading a session ahead of need, off the commands' path: the transcript an agent is still
//! writing, read whole once for the live follower (and, through `SessionService::warm`, for the
//! window, which reads the same session), and the priority such background work runs at. When
//! to read is the service's; following is the app's ([`super::Live`]).

use std::sync::{Arc, Mutex};

use crate::index::fingerprint::Fingerprint;
use crate::model::{Current, SessionMeta};

use super::Live;

/// The sessions read ahead once already, by source path and id (see [`read_ahead`]).
pub type ReadAhead = Arc<Mutex<std::collections::HashSet<(String, String)>>>;

/// Read the transcript of a session the window shows ahead for the live follower of source
/// `path`, at the lowest priority (`warm` does it at the window's, for a session it reads
/// anyway). See [`read_ahead`].
pub fn prime(live: Option<Arc<dyn Live>>, done: &ReadAhead, path: &str, meta: &SessionMeta) {
    let Some(live) = live else { return };
    lowest_priority();
    if let Some(primed) = read_ahead(live.as_ref(), done, path, meta, |_, _| {}) {
        live.primed(path, primed);
    }
}

/// The transcript of session `meta` of source `path` read whole for the live follower, when an
/// agent is still writing it (written in the last [`super::WRITTEN_WITHIN`]): otherwise
/// its first appended line would make the follower read it whole (3 s on 200 MB). A finished
/// session opened for a post-mortem is not read twice; `None` then, or when it is not a Claude
/// Code transcript or changed while it was read. `first` is given the session as soon as it is
/// read, where it is kept, with the file's fingerprint from before the read.
pub fn read_ahead(
    live: &dyn Live,
    done: &ReadAhead,
    path: &str,
    meta: &SessionMeta,
    first: impl FnOnce(Arc<Current>, Option<Fingerprint>),
) -> Option<crate::watch::Primed> {
    if !super::being_written(&meta.path) {
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
    match crate::watch::Primed::read_with(meta, first) {
        Ok(p) => p,
        Err(e) => {
            live.report(format!("cannot read {} ahead: {e}", meta.path));
            None
        }
    }
}

/// Run the calling thread at the lowest priority: a read ahead must not take the cores from
/// the window the user is clicking through. Only for work that holds no lock a command waits
/// on (the index's write lock above all), or the command would wait on the lowest priority too:
/// an unprivileged thread cannot raise itself back.
pub fn lowest_priority() {
    // Linux keeps a nice value per thread, and no pid names the caller. Failing to lower it
    // only costs smoothness.
    #[cfg(unix)]
    let _ = rustix::process::setpriority_process(None, 19);
}
