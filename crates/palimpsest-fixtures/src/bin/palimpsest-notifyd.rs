//! `palimpsest-notifyd LOG CLICKS`: a stand-in desktop notification service for the end-to-end
//! tests, on the session bus named by `DBUS_SESSION_BUS_ADDRESS`. It owns
//! `org.freedesktop.Notifications`, answers `Notify` with a new id and appends each notification
//! to LOG as a JSON line (`id`, `app`, `summary`, `body`, `actions`); each id the test appends to
//! CLICKS (a line each) is clicked: the service's `ActionInvoked(id, "default")` signal, as a
//! notification daemon sends it when its notification is clicked.
//! What the app sends, and what it does with the click, are the app's (`src-tauri/src/desktop.rs`).

#[cfg(target_os = "linux")]
fn main() -> anyhow::Result<()> {
    use std::io::Write;
    use std::sync::atomic::{AtomicU32, Ordering};
    use std::time::Duration;

    use anyhow::Context;
    use dbus::arg::PropMap;
    use dbus::blocking::Connection;
    use dbus::channel::{MatchingReceiver, Sender};
    use dbus::message::{MatchRule, Message};

    const NAME: &str = "org.freedesktop.Notifications";
    const OBJECT: &str = "/org/freedesktop/Notifications";

    let mut args = std::env::args_os().skip(1);
    let usage = "usage: palimpsest-notifyd LOG CLICKS";
    let log = std::path::PathBuf::from(args.next().context(usage)?);
    let clicks = std::path::PathBuf::from(args.next().context(usage)?);
    let conn = Connection::new_session().context("no session bus (DBUS_SESSION_BUS_ADDRESS)")?;
    conn.request_name(NAME, false, true, true)?;
    let next = AtomicU32::new(1);
    conn.start_receive(
        MatchRule::new_method_call(),
        Box::new(move |msg: Message, conn: &Connection| {
            let reply = match msg.member().as_deref() {
                Some("Notify") => {
                    type Notify = (
                        String,
                        u32,
                        String,
                        String,
                        String,
                        Vec<String>,
                        PropMap,
                        i32,
                    );
                    let Ok((app, _, _, summary, body, actions, _, _)) = msg.read_all::<Notify>()
                    else {
                        return true;
                    };
                    let id = next.fetch_add(1, Ordering::Relaxed);
                    let line = serde_json::json!({"id": id, "app": app, "summary": summary,
                        "body": body, "actions": actions});
                    if let Ok(mut f) = std::fs::OpenOptions::new()
                        .create(true)
                        .append(true)
                        .open(&log)
                    {
                        let _ = writeln!(f, "{line}");
                    }
                    msg.method_return().append1(id)
                }
                Some("GetCapabilities") => msg.method_return().append1(vec!["actions", "body"]),
                Some("GetServerInformation") => msg
                    .method_return()
                    .append2("palimpsest-notifyd", "palimpsest")
                    .append2("1", "1.2"),
                _ => return true,
            };
            let _ = conn.send(reply);
            true
        }),
    );
    let mut clicked = 0;
    loop {
        conn.process(Duration::from_millis(100))?;
        let text = std::fs::read_to_string(&clicks).unwrap_or_default();
        let ids: Vec<u32> = text.lines().filter_map(|l| l.trim().parse().ok()).collect();
        for &id in &ids[clicked.min(ids.len())..] {
            let signal = Message::new_signal(OBJECT, NAME, "ActionInvoked")
                .map_err(anyhow::Error::msg)?
                .append2(id, "default");
            let _ = conn.send(signal);
        }
        clicked = ids.len();
    }
}

#[cfg(not(target_os = "linux"))]
fn main() {
    eprintln!("palimpsest-notifyd: the session bus is Linux's");
    std::process::exit(2);
}
