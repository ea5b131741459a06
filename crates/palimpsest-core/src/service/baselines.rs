//! Which start-up sources' live followers have taken their baseline. A source is listed for the
//! window only after that, so nothing written between the listing and the follower's start goes
//! unreported; but the list of sources, and so the first screen of a file given on the command
//! line, does not wait for it: the baseline of a 2 GB transcript no index holds lists it whole
//! (3.5 s). Following files is the app's; this only keeps the count.

use std::collections::HashSet;
use std::sync::{Arc, Condvar, Mutex};

/// The sources whose follower took its baseline, and a wait for one.
#[derive(Default)]
pub struct Baselines {
    taken: Mutex<HashSet<String>>,
    changed: Condvar,
}

impl Baselines {
    /// Wait until `path`'s baseline is taken.
    pub fn wait(&self, path: &str) {
        let mut taken = self.taken.lock().unwrap_or_else(|e| e.into_inner());
        while !taken.contains(path) {
            taken = self.changed.wait(taken).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// A guard that marks `path`'s baseline taken when dropped, whether its follower went on
    /// or panicked: a failed follower must not hold up the listing for good.
    pub fn taken_on_drop(self: &Arc<Self>, path: String) -> Taken {
        Taken(Arc::clone(self), path)
    }
}

/// See [`Baselines::taken_on_drop`].
pub struct Taken(Arc<Baselines>, String);

impl Taken {
    /// The source it stands for.
    pub fn path(&self) -> &str {
        &self.1
    }
}

impl Drop for Taken {
    fn drop(&mut self) {
        let mut taken = self.0.taken.lock().unwrap_or_else(|e| e.into_inner());
        taken.insert(std::mem::take(&mut self.1));
        self.0.changed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::Baselines;

    /// A source is listed once its follower took its baseline, even when that follower
    /// panicked: the listing must not wait for good.
    #[test]
    fn a_listing_waits_for_its_baseline_and_a_failed_follower_releases_it() {
        let b = Arc::new(Baselines::default());
        let (quick, failing) = (Arc::clone(&b), Arc::clone(&b));
        let t1 = std::thread::spawn(move || {
            let _taken = quick.taken_on_drop("/a".into());
            std::thread::sleep(std::time::Duration::from_millis(50));
        });
        let t2 = std::thread::spawn(move || {
            let _taken = failing.taken_on_drop("/b".into());
            panic!("a follower that failed");
        });
        b.wait("/a");
        b.wait("/b");
        assert!(
            t1.join().is_ok() && t2.join().is_err(),
            "one follower ended, one panicked"
        );
        let taken = b.taken.lock().unwrap();
        assert_eq!(
            taken
                .iter()
                .map(String::as_str)
                .collect::<std::collections::BTreeSet<_>>(),
            ["/a", "/b"].into(),
            "both baselines count as taken"
        );
    }
}
