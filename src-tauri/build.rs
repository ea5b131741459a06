//! Build script: checks that the UI was built (tauri embeds `ui/dist`), names the commit the
//! About dialog shows (`build/commit.rs`), then runs tauri-build.

include!("../build/commit.rs");

fn main() {
    // Read when the script runs, not when it was compiled: a script built for another checkout
    // sharing this target directory would look in that checkout's `ui/dist`.
    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let dist = std::path::Path::new(&manifest).join("../ui/dist/index.html");
    println!("cargo:rerun-if-changed=../ui/dist");
    if !dist.exists() {
        // tauri's own message for a missing frontendDist is a panic deep inside a macro; say
        // what to do instead.
        panic!(
            "ui/dist/index.html is missing: build the UI first with `make ui` \
             (or `cd ui && npm ci && npm run build`), then build the app again"
        );
    }
    emit_commit();
    tauri_build::build()
}
