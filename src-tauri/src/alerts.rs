//! Alerts while the window is open: a thread of its own, at the command workers' low priority,
//! judges each session the live follower saw change (core's [`Alerter`], over what the follower
//! already holds) and sends what it raises to the window as one `alerts` event per batch, and,
//! unless the window is quiet, to the desktop (`desktop`); the fleet rows of those sessions,
//! diagnosed as they are now, go to the window's fleet table (`fleet-rows`). The live thread only hands over what
//! changed ([`Observed`]), so a diagnosis never delays a row reaching the window.
//! What an alert is and when it is raised is core's (`palimpsest_core::watch::alerts`); showing
//! and opening them is the UI's (`ui/src/alerts.ts`).

use std::collections::HashMap;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

use palimpsest_core::analysis::alerts::AlertRules;
use palimpsest_core::watch::{Alert, Alerter, FleetUpdate, Observed, PACE_ABOVE};
use tauri::{AppHandle, Emitter};

/// The window event carrying a batch of alerts (declared with the others in `rpc`).
pub const EVENT: &str = palimpsest_core::rpc::event::alerts;

/// How often idle sessions are looked at when nothing changed.
const TICK: Duration = Duration::from_millis(500);

/// What the app sends the alert thread.
pub enum ToAlerts {
    /// What one look of the live follower changed under source `path`.
    Observed(String, Observed),
    /// Alerts on or off, at which thresholds, and whether on the desktop too.
    Set {
        /// The alerter, or none for off.
        alerter: Option<Box<Alerter>>,
        /// Desktop notifications too.
        notify: bool,
    },
}

/// Start the alert thread, alerts on at the post-mortem's thresholds with desktop
/// notifications.
pub fn start(app: AppHandle) -> Sender<ToAlerts> {
    let (tx, rx) = mpsc::channel();
    let spawned = std::thread::Builder::new()
        .name("palimpsest-alerts".into())
        .spawn(move || {
            crate::runtime::lower_priority();
            run(&app, &rx);
        });
    if let Err(e) = spawned {
        eprintln!("palimpsest-app: alerts are off: {e}");
    }
    tx
}

fn run(app: &AppHandle, rx: &Receiver<ToAlerts>) {
    let mut alerter = Some(Box::new(
        Alerter::new(AlertRules::default(), None)
            .with_rows()
            .with_pacing(PACE_ABOVE),
    ));
    let mut notify = true;
    let mut desktop = crate::desktop::Notifier::start(app.clone());
    // The source each session was followed under, for the window to open it.
    let mut source_of: HashMap<String, String> = HashMap::new();
    loop {
        let mut batch = Vec::new();
        match rx.recv_timeout(TICK) {
            Ok(first) => {
                batch.push(first);
                batch.extend(rx.try_iter());
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => return,
        }
        // What queued up while the last batch was judged, merged per source: a session that
        // changed several times meanwhile is judged once, as it is now.
        let mut observed: Vec<(String, Observed)> = Vec::new();
        for msg in batch {
            match msg {
                ToAlerts::Set {
                    alerter: a,
                    notify: n,
                } => {
                    alerter = a.map(|a| Box::new(a.with_rows().with_pacing(PACE_ABOVE)));
                    notify = n;
                }
                ToAlerts::Observed(path, o) => {
                    for id in o.sessions() {
                        source_of.insert(id.to_owned(), path.clone());
                    }
                    match observed.iter_mut().find(|(p, _)| *p == path) {
                        Some((_, seen)) => seen.merge(o),
                        None => observed.push((path, o)),
                    }
                }
            }
        }
        let now = Instant::now();
        let mut raised = Vec::new();
        if let Some(a) = alerter.as_mut() {
            for (_, o) in &observed {
                raised.extend(a.observe_changes(o, now));
            }
            raised.extend(a.tick(now));
            // The fleet table's rows of the sessions that changed, diagnosed as they are now.
            let rows: Vec<FleetUpdate> = a
                .take_rows()
                .into_iter()
                .filter_map(|row| {
                    let source = source_of.get(&row.session_id)?.clone();
                    Some(FleetUpdate { source, row })
                })
                .collect();
            if !rows.is_empty()
                && let Err(e) = app.emit(palimpsest_core::rpc::event::fleet_rows, &rows)
            {
                eprintln!("palimpsest-app: cannot send fleet rows to the window: {e}");
            }
        }
        if raised.is_empty() {
            continue;
        }
        for a in &mut raised {
            a.source = source_of.get(&a.session_id).cloned();
        }
        if notify && let Some(d) = desktop.as_mut() {
            for a in &raised {
                d.show(a);
            }
        }
        if let Err(e) = app.emit(EVENT, &raised) {
            eprintln!("palimpsest-app: cannot send alerts to the window: {e}");
        }
    }
}

/// The alert a desktop notification was for, opened in the window (its click).
pub fn open(app: &AppHandle, alert: &Alert) {
    use tauri::Manager;
    if let Err(e) = app.emit(palimpsest_core::rpc::event::open_alert, alert) {
        eprintln!("palimpsest-app: cannot open the alert in the window: {e}");
    }
    if let Some(w) = app.get_webview_window("main") {
        let _ = w.unminimize();
        let _ = w.set_focus();
    }
}
