//! Lexical path normalisation, so that `./store.py`, `store.py`, `src/../store.py` and
//! `/work/proj/store.py` (with working dir `/work/proj`) are one file.
//!
//! Purely textual: nothing here touches the disk (the paths come from a transcript and may
//! not exist on this machine). Opening spill files safely is `confine`'s job.

/// Clean a `/`-separated path: drop `.` and empty segments, resolve `..` lexically.
/// Keeps a leading `/`; a relative path that climbs above its start keeps its `..`.
pub fn clean(path: &str) -> String {
    let absolute = path.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for seg in path.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                if parts.last().is_some_and(|p| *p != "..") {
                    parts.pop();
                } else if !absolute {
                    parts.push("..");
                }
            }
            s => parts.push(s),
        }
    }
    let joined = parts.join("/");
    if absolute {
        format!("/{joined}")
    } else if joined.is_empty() {
        ".".to_owned()
    } else {
        joined
    }
}

/// Join `rel` onto `base` (when `rel` is relative) and clean the result.
pub fn join(base: &str, rel: &str) -> String {
    if rel.starts_with('/') || base.is_empty() || base == "." {
        clean(rel)
    } else {
        clean(&format!("{base}/{rel}"))
    }
}

/// The key a file is known by in a session: relative to the session's working dir when it lies
/// inside it, otherwise absolute (or relative as written when there is no working dir).
///
/// `cwd` is where the command ran, relative to the working dir or absolute (`cd sub && cat x`).
pub fn normalise(raw: &str, cwd: &str, working_dir: Option<&str>) -> String {
    let raw = raw.trim();
    let raw = raw.strip_prefix("file://").unwrap_or(raw);
    let joined = join(cwd, raw);
    match working_dir.map(clean) {
        Some(wd) if joined.starts_with('/') && wd.starts_with('/') => {
            if joined == wd {
                ".".to_owned()
            } else if let Some(rest) =
                joined.strip_prefix(&format!("{}/", wd.trim_end_matches('/')))
            {
                rest.to_owned()
            } else {
                joined
            }
        }
        _ => joined,
    }
}

/// The last segment of a path.
pub fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equivalent_spellings_share_a_key() {
        let wd = Some("/work/proj");
        let keys = [
            normalise("store.py", ".", wd),
            normalise("./store.py", ".", wd),
            normalise("src/../store.py", ".", wd),
            normalise("/work/proj/store.py", ".", wd),
            normalise("../store.py", "src", wd),
        ];
        assert!(
            keys.iter().all(|k| k == "store.py"),
            "all spellings of one file must normalise alike: {keys:?}"
        );
        assert_eq!(
            normalise("/tmp/x.txt", ".", wd),
            "/tmp/x.txt",
            "paths outside the working dir stay absolute"
        );
        assert_eq!(
            clean("../../etc/passwd"),
            "../../etc/passwd",
            "a relative climb is kept, never silently dropped"
        );
    }
}
