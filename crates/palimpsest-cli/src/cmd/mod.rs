//! One module per subcommand; each has `Args` (clap) and `run`.

pub mod diagnose;
pub mod sessions;
pub mod show;
pub mod spills;
pub mod tokens;
pub mod watch;
