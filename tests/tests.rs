//! Cross-crate tests of Vernier's engine, used as a library.
//!
//! Each module names the SPEC rules it covers; fixtures live in `fixtures/`.

/// Shared fixtures: temporary notebooks and ready-made rows.
mod util;

/// ARCHITECTURE.md's module and thread lists, checked against the code.
mod architecture;
/// N7: atomic save under injected faults and under SIGKILL.
mod atomic_save;
mod audit;
/// D5, S11, S12: a chart per comparison, read back from report.docx.
mod charts;
/// D1–D4: the six documents and the workbook round trip.
mod documents;
/// N10: the folder's lock — deleted mid-change, raced with a link.
mod folder_lock;
/// E1, E7, E10, N6: the engine thread, cancellation, recording.
mod harness;
/// E14, D5: an imported row's trials read back from its instrument's file.
mod imported_trials;
/// N1, N7, N8: the journal beside notebook.ron — appended, chained, cut
/// when torn, compacted, and older files migrated.
mod journal;
/// A20, S17: a notebook made only by Vernier's commands audits clean in Vernier's text.
mod lab_notebook;
/// The engine's layers: crates that depend only downwards, no module cycles.
mod layers;
/// N1, N2, N8: the folder format, round trips, schema and error positions.
mod notebook_store;
/// N1, N6, N8, T4: notebooks and soak files written on Windows (CRLF, `\\`)
/// open here, and a save is the same file on every OS.
mod platforms;
/// N4: locked predictions, amendments, and the hash chain under tampering.
mod prediction_chain;
/// N14, T1: predictions commit a figure and are scored against the rows that answer them.
mod predictions_scored;
/// D8: the report of a student-like notebook: conditions once, a sweep as
/// one table, within its page budget when LibreOffice is installed.
mod report_pages;
/// RULES.md: every SPEC citation resolves there, and it lists exactly SPEC.md's IDs.
mod rules;
/// N9, N11: rows keep their snapshot and build; the file stores each snapshot once.
mod snapshots;
/// S1–S9 against numpy's values, and the statistics' invariants as properties.
mod stats_reference;
/// E16, U4, D5: a sweep as one group, one view, charted and linked.
mod sweeps;
/// Issue 46: one meaning per name, no public type defined twice.
mod type_names;
/// Issue 46 item 5: no engine function others call returns `Result<_, String>`.
mod typed_errors;
/// N12, D3, D4: the workbook's protection, and its edits seen in every layout.
mod workbook_edits;
/// D3, S6, S11, N5: measurements.xlsx on paper — the print scale each sheet
/// asks for, number formats by S6, `#` as numbers, comparison partners.
mod workbook_print;
