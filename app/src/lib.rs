//! Vernier's desktop app and command line, over the `vernier_engine`
//! library. The `vernier` binary is a thin `main` over [`cli::main`].

pub mod cli;
pub mod gui;
mod scratch;
