//! One module per subcommand; each has `Args` (clap) and `run`.

pub mod sessions;
pub mod show;
pub mod tokens;
pub mod watch;
