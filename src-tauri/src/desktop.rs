//! Desktop notifications of alerts, with their click: the freedesktop notification service on
//! the session bus (`org.freedesktop.Notifications`, what GNOME, KDE, dunst and mako serve),
//! spoken to directly over D-Bus on a thread of its own. Each alert is a notification with a
//! default action; the service's `ActionInvoked` for it opens the alert in the window
//! (`alerts::open`). Without a session bus or a service, alerts still reach the window.
//!
//! Tauri's notification plugin shows notifications on Linux but does not report their click;
//! the bus does, and the `dbus` crate is already in the app (under tao).

use std::sync::mpsc::{self, Sender};

use palimpsest_core::watch::Alert;
use tauri::AppHandle;

/// Shows alerts on the desktop.
pub struct Notifier {
    tx: Sender<Alert>,
}

impl Notifier {
    /// Start the notification thread; `None` where there is no desktop to notify.
    pub fn start(app: AppHandle) -> Option<Notifier> {
        #[cfg(target_os = "linux")]
        {
            let (tx, rx) = mpsc::channel();
            std::thread::Builder::new()
                .name("palimpsest-notify".into())
                .spawn(move || linux::run(&app, &rx))
                .ok()?;
            Some(Notifier { tx })
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = (app, mpsc::channel::<Alert>);
            None
        }
    }

    /// Show `alert` (dropped when the notification thread has stopped).
    pub fn show(&mut self, alert: &Alert) {
        let _ = self.tx.send(alert.clone());
    }
}

#[cfg(target_os = "linux")]
mod linux {
    use std::collections::VecDeque;
    use std::sync::mpsc::{Receiver, TryRecvError};
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    use dbus::arg::PropMap;
    use dbus::blocking::Connection;
    use dbus::message::MatchRule;
    use palimpsest_core::watch::Alert;
    use tauri::AppHandle;

    const SERVICE: &str = "org.freedesktop.Notifications";
    const OBJECT: &str = "/org/freedesktop/Notifications";
    /// Notifications remembered for their click: the oldest are forgotten past this.
    const REMEMBERED: usize = 256;

    pub(super) fn run(app: &AppHandle, rx: &Receiver<Alert>) {
        let conn = match Connection::new_session() {
            Ok(c) => c,
            Err(e) => {
                eprintln!("palimpsest-app: no desktop notifications (no session bus): {e}");
                // Alerts still go to the window; these are dropped.
                while rx.recv().is_ok() {}
                return;
            }
        };
        let shown: Arc<Mutex<VecDeque<(u32, Alert)>>> = Arc::default();
        let (clicked, app2) = (Arc::clone(&shown), app.clone());
        let rule = MatchRule::new_signal(SERVICE, "ActionInvoked");
        let matched = conn.add_match(rule, move |(id, _action): (u32, String), _, _| {
            let hit = clicked
                .lock()
                .ok()
                .and_then(|s| s.iter().find(|(n, _)| *n == id).map(|(_, a)| a.clone()));
            if let Some(alert) = hit {
                crate::alerts::open(&app2, &alert);
            }
            true
        });
        if let Err(e) = matched {
            eprintln!("palimpsest-app: notification clicks will not open the session: {e}");
        }
        loop {
            // Signals (clicks) are read while waiting for the next alert.
            if let Err(e) = conn.process(Duration::from_millis(200)) {
                eprintln!("palimpsest-app: desktop notifications stopped: {e}");
                return;
            }
            loop {
                match rx.try_recv() {
                    Ok(alert) => {
                        if let Some(id) = notify(&conn, &alert)
                            && let Ok(mut s) = shown.lock()
                        {
                            if s.len() >= REMEMBERED {
                                s.pop_front();
                            }
                            s.push_back((id, alert));
                        }
                    }
                    Err(TryRecvError::Empty) => break,
                    Err(TryRecvError::Disconnected) => return,
                }
            }
        }
    }

    /// One notification: the verdict in words, the session and the message that tipped it.
    fn notify(conn: &Connection, a: &Alert) -> Option<u32> {
        let proxy = conn.with_proxy(SERVICE, OBJECT, Duration::from_secs(2));
        let summary = format!("Palimpsest: {} {}", a.severity.as_str(), a.name);
        let body = format!("{} (message {})", a.words, a.message_index);
        let r: Result<(u32,), dbus::Error> = proxy.method_call(
            SERVICE,
            "Notify",
            (
                "Palimpsest",
                0u32,
                "palimpsest-app",
                summary,
                body,
                vec!["default", "Open"],
                PropMap::new(),
                -1i32,
            ),
        );
        match r {
            Ok((id,)) => Some(id),
            Err(e) => {
                eprintln!("palimpsest-app: desktop notification not shown: {e}");
                None
            }
        }
    }
}
