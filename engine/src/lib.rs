//! Vernier's engine: everything that measures, summarises and stores, with no
//! GUI dependency.
//!
//! - [`stats`] — the summary every number in Vernier is reported with (SPEC S).
//! - [`notebook`] — the measurement log: its model, locked predictions with a
//!   hash chain, and the atomic folder store (SPEC N).
//!
//! The desktop app and the command line (crate `vernier`) are thin layers over
//! this library; tests drive it directly.

pub mod audit;
pub mod documents;
pub mod harness;
pub mod import;
pub mod instrument;
pub mod kernels;
pub mod machine;
pub mod notebook;
pub mod platform;
pub mod reproduce;
pub mod soak;
pub mod stats;
