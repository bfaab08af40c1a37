//! Vernier's notebook model, the bottom layer: every type saved in
//! notebook.ron and the rules that keep it honest, the statistics every
//! number is reported with, and the store — the only code that writes
//! notebook.ron. Rule IDs (`SPEC S7`) are listed in the repository's
//! `RULES.md`.
//!
//! - [`notebook`] — the measurement log: its sections and rules, locked
//!   predictions with a hash chain, the conditions vocabulary, and the atomic
//!   folder store with its lock (SPEC N).
//! - [`stats`] — the summary every number is reported with, the S6 rounding,
//!   the S7 verdict and the units numbers are shown in (SPEC S).
//! - [`bounded`] — reading a file someone else may have made: regular files
//!   only, never more than a stated size.
//! - [`closed_enum!`] — an enum whose `ALL` is written from the same lines.
//! - [`digest`] — SHA-256 in lower-case hex, as every record writes it.
//! - [`display`] — text from a file shown inert, argv quoted.
//! - [`duration`] — the one rule for every duration a student types.
//! - [`shared_work`] — work over many rows shared among the CPUs.
//! - [`os`] — the few OS calls the store needs: a lock file that follows no
//!   link, the identity of the process holding it, a directory sync.
//!
//! Nothing here runs a program or reads a sensor (that is
//! `vernier-instrument`), and nothing writes a document (`vernier-engine`).

pub mod bounded;
pub mod closed_enum;
pub mod digest;
pub mod display;
pub mod duration;
pub mod notebook;
pub mod os;
pub mod shared_work;
pub mod stats;
