//! Filesystem oddities around a good session: a FIFO where the session file should be (given
//! directly, met while scanning a folder, named like a subagent run or a spill file in the
//! session's own folder), a directory named like the session file, symlink cycles, a dangling
//! symlink, and another agent's session file beside it (a goose legacy file, which once made
//! goose claim the whole folder). Reading a FIFO blocks forever and a cycle is walked without
//! end unless the reader refuses them; the good session beside them must still list.

use std::path::Path;

use anyhow::{Context, Result, bail};

use super::{Base, Case, Expect};

fn mkfifo(p: &Path) -> Result<()> {
    let st = std::process::Command::new("mkfifo")
        .arg(p)
        .status()
        .with_context(|| format!("mkfifo {}", p.display()))?;
    if !st.success() {
        bail!("mkfifo {} failed", p.display());
    }
    Ok(())
}

#[cfg(unix)]
fn link(target: &str, at: &Path) -> Result<()> {
    std::os::unix::fs::symlink(target, at).with_context(|| format!("symlink {}", at.display()))
}

#[cfg(not(unix))]
fn link(_target: &str, at: &Path) -> Result<()> {
    bail!("symlinks are not made on this platform ({})", at.display())
}

/// The filesystem cases of `base`, written under `out`.
pub fn cases(base: &Base, out: &Path) -> Result<Vec<Case>> {
    let mut v = Vec::new();
    let single = base.target == base.main;

    // The session file is a FIFO: refused without opening it.
    let mut c = base.case(
        out,
        "fifo-given",
        if single {
            Expect::Refused
        } else {
            Expect::Either
        },
    );
    base.write(&c.dir, None)?;
    let main = c.dir.join(&base.main);
    std::fs::remove_file(&main)?;
    mkfifo(&main)?;
    if single {
        c.target = main;
    }
    v.push(c);

    // A FIFO named like a session file in a folder beside the good session.
    let mut c = base.case(out, "fifo-in-folder", Expect::ListsOnce);
    base.write(&c.dir, None)?;
    let more = c.dir.join("more");
    std::fs::create_dir_all(&more)?;
    let name = base.main.file_name().unwrap_or_default();
    mkfifo(&more.join(name))?;
    c.target = c.dir.clone();
    v.push(c);

    // FIFOs named like a subagent run and a spill file in the session's own folder.
    let mut c = base.case(out, "fifo-as-run-and-spill", Expect::ListsOnce);
    base.write(&c.dir, None)?;
    let own = c.dir.join(base.main.with_extension(""));
    for rel in [
        "subagents/agent-a0fifo.jsonl",
        "tool-results/toolu_fifo.txt",
    ] {
        let p = own.join(rel);
        std::fs::create_dir_all(p.parent().unwrap_or(&own))?;
        mkfifo(&p)?;
    }
    c.target = c.dir.clone();
    v.push(c);

    // A goose legacy session beside the good one: both are listed.
    let mut c = base.case(
        out,
        "beside-goose-legacy",
        Expect::ListsBaseAnd(vec!["20250903_090000".into()]),
    );
    base.write(&c.dir, None)?;
    let folder = c
        .dir
        .join(base.main.parent().unwrap_or_else(|| Path::new("")));
    std::fs::create_dir_all(&folder)?;
    std::fs::write(
        folder.join("20250903_090000.jsonl"),
        "{\"working_dir\":\"/w\",\"description\":\"beside\",\"message_count\":1}\n\
         {\"id\":null,\"role\":\"user\",\"created\":1700000000,\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]}\n",
    )?;
    c.target = c.dir.clone();
    v.push(c);

    // A directory where the session file should be.
    let mut c = base.case(
        out,
        "dir-named-like-file",
        if single {
            Expect::Refused
        } else {
            Expect::Either
        },
    );
    base.write(&c.dir, None)?;
    let main = c.dir.join(&base.main);
    std::fs::remove_file(&main)?;
    std::fs::create_dir_all(&main)?;
    if single {
        c.target = main;
    }
    v.push(c);

    // Five links back into the folder (a cycle each), and a dangling one.
    let mut c = base.case(out, "symlink-cycles", Expect::ListsOnce);
    base.write(&c.dir, None)?;
    for (i, sub) in ["a", "a/b", "a/b/c"].iter().enumerate() {
        let d = c.dir.join(sub);
        std::fs::create_dir_all(&d)?;
        link(&"../".repeat(i + 1), &d.join("up"))?;
    }
    link(".", &c.dir.join("self"))?;
    link("a", &c.dir.join("again"))?;
    link("missing.jsonl", &c.dir.join("dangling.jsonl"))?;
    c.target = c.dir.clone();
    v.push(c);
    Ok(v)
}
