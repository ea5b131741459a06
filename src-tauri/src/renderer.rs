//! When the window's web renderer process ends under it (WebKitGTK: it crashed, or went over
//! its memory limit), say why on stderr and load the page again, instead of leaving a blank
//! window that answers nothing.
//!
//! The page starts as at launch (the start-up sources listed again); what it showed is not
//! restored. A renderer that keeps ending is reloaded a few times only, so a page that crashes
//! as it loads does not loop. Other platforms' webviews are left as they are.

use std::sync::atomic::{AtomicU32, Ordering};

use tauri::Manager;
use webkit2gtk::{WebProcessTerminationReason, WebViewExt};

/// Reloads after a renderer ended, at most, in one run of the app.
const RELOADS: u32 = 3;

pub fn watch(app: &tauri::App) {
    let Some(window) = app.get_webview_window("main") else {
        return;
    };
    let watched = window.with_webview(|platform| {
        static RELOADED: AtomicU32 = AtomicU32::new(0);
        platform
            .inner()
            .connect_web_process_terminated(|view, reason| {
                // Ended on purpose (the window closing): nothing to say or do.
                if reason == WebProcessTerminationReason::TerminatedByApi {
                    return;
                }
                let n = RELOADED.fetch_add(1, Ordering::Relaxed) + 1;
                if n > RELOADS {
                    eprintln!("palimpsest-app: the window's renderer ended ({reason:?}) again; not reloading it");
                    return;
                }
                eprintln!("palimpsest-app: the window's renderer ended ({reason:?}); reloading the page ({n} of {RELOADS})");
                view.reload();
            });
    });
    if let Err(e) = watched {
        eprintln!("palimpsest-app: cannot watch the window's renderer: {e}");
    }
}
