//! Build script: checks that the UI was built (tauri embeds `ui/dist`), then runs tauri-build.

fn main() {
    let dist = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../ui/dist/index.html");
    println!("cargo:rerun-if-changed=../ui/dist");
    if !dist.exists() {
        // tauri's own message for a missing frontendDist is a panic deep inside a macro; say
        // what to do instead.
        panic!(
            "ui/dist/index.html is missing: build the UI first with `make ui` \
             (or `cd ui && npm ci && npm run build`), then build the app again"
        );
    }
    tauri_build::build()
}
