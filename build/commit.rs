// Included by the build scripts of the two binaries (`crates/palimpsest-cli/build.rs`,
// `src-tauri/build.rs`): names the commit they are built from, for `--version` and the About
// dialog. Kept out of the library crates so a new commit rebuilds only the two binaries.

/// Sets `PALIMPSEST_COMMIT` for the crate being built: `$PALIMPSEST_COMMIT` when a packager
/// gives it, else the checkout's `HEAD` (12 hex digits), else "unknown" (a source tarball).
fn emit_commit() {
    println!("cargo:rerun-if-env-changed=PALIMPSEST_COMMIT");
    let commit = std::env::var("PALIMPSEST_COMMIT")
        .ok()
        .filter(|c| !c.trim().is_empty())
        .or_else(|| {
            let git = |args: &[&str]| {
                let out = std::process::Command::new("git").args(args).output().ok()?;
                out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
            };
            let head = git(&["rev-parse", "--short=12", "HEAD"])?;
            // Rerun when HEAD moves: the files that say where it points.
            if let Some(dir) = git(&["rev-parse", "--absolute-git-dir"]) {
                let dir = std::path::Path::new(&dir);
                let mut watched = vec![dir.join("HEAD"), dir.join("packed-refs")];
                if let Some(r) = git(&["symbolic-ref", "-q", "HEAD"]) {
                    watched.push(dir.join(r));
                }
                for f in watched.iter().filter(|f| f.exists()) {
                    println!("cargo:rerun-if-changed={}", f.display());
                }
            }
            Some(head)
        })
        .unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=PALIMPSEST_COMMIT={}", commit.trim());
}
