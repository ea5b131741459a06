//! Printing helpers shared by the subcommands: JSON to stdout, the indexing bar, and
//! broken-pipe detection so `palimpsest show … | head` exits quietly.
//! What to print is each subcommand's business.

use std::io::Write;

use serde::Serialize;

/// Standard output, buffered: Rust's stdout is line-buffered, and a big `show` printed line by
/// line is hundreds of thousands of `write` calls. Dropping it flushes.
pub fn stdout() -> std::io::BufWriter<std::io::StdoutLock<'static>> {
    std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock())
}

/// The bar `index` and `export` draw on stderr while sessions are indexed (hidden when stderr
/// is not a terminal); set its length and position from the index's `(done, total)`, and
/// clear it with `finish_and_clear` before printing.
pub fn index_bar() -> indicatif::ProgressBar {
    let bar =
        indicatif::ProgressBar::with_draw_target(None, indicatif::ProgressDrawTarget::stderr());
    bar.set_style(
        indicatif::ProgressStyle::with_template("indexing {wide_bar} {pos}/{len} sessions ({eta})")
            .expect("static template"),
    );
    bar
}

/// Tell the user, on stderr, what was done to Palimpsest's own caches (a damaged index set
/// aside and built again, a cache that could not be used).
pub fn notices(notices: &[String]) {
    for n in notices {
        eprintln!("palimpsest: note: {n}");
    }
}

/// Print `value` as pretty JSON followed by a newline.
pub fn json<T: Serialize>(value: &T) -> anyhow::Result<()> {
    let mut out = stdout();
    serde_json::to_writer_pretty(&mut out, value)?;
    writeln!(out)?;
    out.flush()?;
    Ok(())
}

/// True when the error chain holds a broken pipe (the reader went away).
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
            || c.downcast_ref::<serde_json::Error>()
                .is_some_and(|e| e.io_error_kind() == Some(std::io::ErrorKind::BrokenPipe))
    })
}
