//! `palimpsest-app [PATH]`: the desktop window over palimpsest-core.
//!
//! A thin shell: the commands declared once in `palimpsest_core::rpc` (`commands`), each a call
//! on core's session service (`state` holds it, with the start-up sources core's
//! `service::startup` finds), live events (`live`), alerts (`alerts`, `desktop`), and the process settings only the window
//! needs (`alloc`, `painting`, `renderer`, `runtime`). All reading and analysis is core's; all
//! drawing is the UI's (`ui/`, embedded from `ui/dist`).
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

mod alerts;
mod alloc;
mod commands;
mod desktop;
mod live;
#[cfg(target_os = "linux")]
mod painting;
mod progress;
#[cfg(target_os = "linux")]
mod renderer;
mod runtime;
mod state;

use palimpsest_core::rpc::IpcError;
use state::AppState;
use tauri::Manager;

/// mimalloc, as the command: see the workspace manifest, and `alloc` for how it gives memory
/// back. Under glibc's malloc the app's threads (the live follower, the background reads, the
/// indexer) each kept an arena of memory freed but not given back.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Expands the command list into the handler, checking first that every command function has
/// exactly the signature the list (and so the generated TypeScript) declares.
macro_rules! handlers {
    ( $( $name:ident ( $req:ty ) -> $res:ty ),* $(,)? ) => {{
        $(
            let _: fn(tauri::State<'_, AppState>, $req) -> Result<$res, IpcError> =
                commands::$name;
        )*
        tauri::generate_handler![$( commands::$name ),*]
    }};
}

/// The process settings the app needs, made before anything else runs: painting on the CPU on
/// a machine without a GPU (`painting`), and allocators that give freed memory back at once
/// (`alloc`). Each is left alone when the user set its variable.
fn settle_process() {
    #[cfg(target_os = "linux")]
    let paint_on_cpu = painting::wanted();
    let allocators = alloc::wanted(|name| std::env::var_os(name));
    // SAFETY: this runs first in `main`, while the process has one thread, so nothing reads
    // the environment or the allocators' options while they change: `set_var` and
    // mimalloc's `mi_option_set` are not thread-safe. WebKit's renderer process, started
    // later, inherits the variable; mimalloc and glibc read their variables before `main`,
    // so their settings go through their own calls.
    #[allow(unsafe_code)]
    unsafe {
        #[cfg(target_os = "linux")]
        if let Some((name, value)) = paint_on_cpu {
            std::env::set_var(name, value);
        }
        for setting in allocators {
            match setting {
                alloc::Setting::PurgeDelay(ms) => {
                    libmimalloc_sys::mi_option_set(alloc::MI_OPTION_PURGE_DELAY, ms.into());
                }
                #[cfg(all(target_os = "linux", target_env = "gnu"))]
                alloc::Setting::TrimThreshold(bytes) => {
                    libc::mallopt(libc::M_TRIM_THRESHOLD, bytes);
                }
                #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
                alloc::Setting::TrimThreshold(_) => {}
            }
        }
    }
}

fn main() {
    settle_process();
    // The one place the app's core learns the environment.
    palimpsest_core::env::install(palimpsest_core::env::Machine::new(
        dirs::home_dir(),
        dirs::cache_dir(),
        dirs::config_dir(),
        std::env::vars_os(),
    ));
    if let Err(e) = runtime::install() {
        eprintln!("palimpsest-app: cannot start the command runtime: {e}");
        std::process::exit(1);
    }
    let state = AppState::new(palimpsest_core::service::startup::path_argument(
        std::env::args_os().skip(1),
    ));
    let result = tauri::Builder::default()
        .plugin(tauri_plugin_dialog::init())
        .plugin(tauri_plugin_clipboard_manager::init())
        .plugin(progress::plugin())
        .manage(state)
        .setup(|app| {
            // The start-up sources join the watcher when `list_sources` first finds them.
            let alerts = alerts::start(app.handle().clone());
            let tx = live::start(app.handle().clone(), Vec::new(), alerts.clone());
            app.state::<AppState>().set_live(tx);
            app.state::<AppState>().set_alerts(alerts);
            #[cfg(target_os = "linux")]
            renderer::watch(app);
            Ok(())
        })
        .invoke_handler(palimpsest_core::with_commands!(handlers))
        .run(tauri::generate_context!());
    if let Err(e) = result {
        eprintln!("palimpsest-app: {e}");
        std::process::exit(1);
    }
}
