//! Names the build of the Claude Code and Codex readers and the session model
//! (`PALIMPSEST_READER_BUILD`, a hash of their sources), which a reader's snapshot is tagged
//! with (`sources/kept.rs`): a snapshot another build of them wrote is never taken, whatever
//! changed, its layout or what a line becomes.

fn main() {
    let reader = [
        "src/model.rs",
        "src/model",
        "src/sources/claude",
        "src/sources/codex",
        "src/sources/jsonl.rs",
        "src/sources/kept.rs",
    ];
    let mut files = Vec::new();
    for r in reader {
        println!("cargo::rerun-if-changed={r}");
        collect(std::path::Path::new(r), &mut files);
    }
    files.sort();
    // FNV-1a over each file's path and bytes: no dependency, the same on every machine.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for f in &files {
        let bytes = std::fs::read(f).unwrap_or_else(|e| panic!("reading {}: {e}", f.display()));
        for b in f.to_string_lossy().bytes().chain([0]).chain(bytes) {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    println!("cargo::rustc-env=PALIMPSEST_READER_BUILD={h:016x}");
}

/// The `.rs` files at or under `p`.
fn collect(p: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    if p.is_dir() {
        let mut entries: Vec<_> = std::fs::read_dir(p)
            .unwrap_or_else(|e| panic!("listing {}: {e}", p.display()))
            .flatten()
            .map(|e| e.path())
            .collect();
        entries.sort();
        for e in entries {
            collect(&e, out);
        }
    } else if p.extension().is_some_and(|e| e == "rs") {
        out.push(p.to_owned());
    }
}
