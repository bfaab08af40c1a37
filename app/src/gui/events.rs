//! What arrives from the engine, soak and file threads, applied between
//! frames within a time budget.

use std::sync::mpsc::TryRecvError;
use std::time::Instant;

use vernier_engine::harness::{self, EngineEvent};
use vernier_engine::notebook::Notebook;
use vernier_engine::notebook::pending::{Edit, Recording};
use vernier_engine::reproduce::{Original, SideBySide};
use vernier_engine::soak::record;

use super::*;

impl VernierApp {
    /// Drains engine and I/O events within the frame's budget. A thread
    /// found dead here (its channel disconnected) is reported at once, so
    /// no "running…" or "saving…" waits for it forever.
    pub(super) fn drain_events(&mut self) {
        let start = Instant::now();
        while start.elapsed() < EVENT_BUDGET {
            let Some(engine) = &self.engine else { break };
            match engine.events().try_recv() {
                Ok(event) => self.on_engine_event(event),
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => {
                    self.engine_stopped();
                    break;
                }
            }
        }
        while start.elapsed() < EVENT_BUDGET {
            let Some(io) = &self.io else { break };
            match io.try_event() {
                Ok(event) => self.on_io_event(event),
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => {
                    self.io_stopped();
                    break;
                }
            }
        }
        while start.elapsed() < EVENT_BUDGET {
            let Some(live) = &self.live_soak else { break };
            let event = match live.handle.try_event() {
                Ok(event) => event,
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => {
                    // The thread sends Finished before it ends; without it, it died.
                    self.live_soak = None;
                    self.say(
                        "the soak thread stopped without a result; the rows it wrote are kept in raw/ — restart Vernier to soak again",
                        true,
                    );
                    break;
                }
            };
            self.on_soak_event(event);
        }
        self.flush_io();
    }

    pub(super) fn on_engine_event(&mut self, event: EngineEvent) {
        match event {
            EngineEvent::Started { total } => {
                if let Some(live) = &mut self.live {
                    live.total = total;
                }
            }
            EngineEvent::Trial(trial, progress) => {
                if let Some(live) = &mut self.live {
                    live.done = progress.done;
                    live.total = progress.total;
                    live.remaining = progress.remaining;
                    let arm = if live.scan { 0 } else { trial.arm.min(1) };
                    live.points[arm].push(egui_plot::PlotPoint::new(trial.index as f64, trial.ns as f64 / 1e6));
                }
            }
            EngineEvent::Finished(result) => {
                self.live = None;
                let next_run = self.doc.notebook.runs().len() + 1;
                self.send_io(io::Request::WriteRaw { dir: self.doc.dir.clone(), result, next_run });
            }
            EngineEvent::Failed(e) => {
                self.live = None;
                self.extending = None;
                self.say(format!("the run could not start: {e}"), true);
            }
        }
    }

    pub(super) fn on_soak_event(&mut self, event: soak_runner::SoakEvent) {
        match event {
            soak_runner::SoakEvent::Sample(row) => {
                if let Some(live) = &mut self.live_soak {
                    live.points.push(egui_plot::PlotPoint::new(row.t_seconds, row.score));
                }
            }
            soak_runner::SoakEvent::Finished(result) => {
                self.live_soak = None;
                let finished = match result {
                    Ok(finished) => finished,
                    Err(e) => return self.say(format!("the soak failed: {e}"), true),
                };
                let (dir, at) = (self.doc.dir.clone(), chrono::Utc::now());
                let path = finished.path.clone();
                self.record(|nb: &mut Notebook| {
                    Ok(match record::add_row(nb, &dir, &finished, at) {
                        record::Added::Soak(n) => {
                            let stopped =
                                if finished.cancelled { " (stopped early; every row written is kept)" } else { "" };
                            Applied::said(format!("recorded soak S{n}{stopped}"))
                        }
                        record::Added::Note(why) => Applied {
                            message: format!("the soak could not be analysed: {why}; a note names its file"),
                            failed: true,
                            ..Applied::default()
                        },
                    })
                });
                self.run_command(AppCommand::OpenSoak(Some(path)));
            }
        }
    }

    pub(super) fn on_io_event(&mut self, event: io::Event) {
        let answers = event.answers();
        if answers > 0 {
            self.io_waiting = self.io_waiting.saturating_sub(answers);
            if self.io_waiting == 0 {
                self.io_busy_since = None;
            }
        }
        match event {
            io::Event::Changed { generations, result } => self.on_changed(&generations, result),
            io::Event::ChangedElsewhere { notebook, unwritten } => {
                // With changes of its own in flight the window waits for
                // their answer: it carries the other program's change too.
                if self.saved() {
                    self.doc.adopt(*notebook, unwritten);
                    self.say(changed_elsewhere_message(), false);
                }
            }
            io::Event::Loaded { dir, result, unwritten } => match result {
                Ok(notebook) => {
                    self.say(format!("opened {}", vernier_engine::display::path(&dir)), false);
                    self.open(dir, *notebook, unwritten);
                }
                Err(e) => self.say(e, true),
            },
            io::Event::Audited(report) => {
                let n = report.findings.len();
                self.say(
                    if n == 0 { "audit: all checks pass".to_owned() } else { format!("audit: {n} finding(s)") },
                    false,
                );
                self.audit = Some(*report);
            }
            io::Event::Exported(result) => match result {
                Ok(unwritten) => {
                    let left: usize = unwritten.iter().map(|(_, n)| n).sum();
                    self.say(format!("exported the six documents to exports/; {left} part(s) still to write"), false);
                    self.exported = Some(unwritten);
                    if self.views.section == Section::Audit {
                        self.commands.push(AppCommand::Audit);
                    }
                }
                Err(e) => self.say(format!("export failed: {e}"), true),
            },
            io::Event::ExportWouldOverwrite(edited) => {
                self.say(format!("nothing exported: {}", edited.join(", ")), true);
                self.export_question = Some(edited);
            }
            io::Event::SavedAs { to, result } => match result {
                Ok(()) => {
                    self.say(
                        format!("saved as {}; this is now the open notebook", vernier_engine::display::path(&to)),
                        false,
                    );
                    self.settings.remember(&to);
                    self.doc.dir = to;
                }
                Err(e) => self.say(e, true),
            },
            io::Event::RawWritten { result, raw } => match raw {
                Ok(raw_file) => self.record_run(Arc::from(result), raw_file),
                Err(e) => {
                    self.extending = None;
                    self.say(format!("the run finished but its raw file could not be written: {e}"), true)
                }
            },
            io::Event::ImportPreviewed(preview) => {
                if let Some(form) = &mut self.import {
                    form.show_preview(*preview);
                }
            }
            io::Event::ImportRawWritten { prepared, raw } => match raw {
                Ok(raw_file) => self.record_import(&prepared, raw_file),
                Err(e) => {
                    if let Some(form) = &mut self.import {
                        form.busy = false;
                    }
                    self.say(format!("nothing was recorded: the raw copy could not be written: {e}"), true)
                }
            },
            io::Event::Soak(result) => match result {
                Ok(view) => self.soak = Some(*view),
                Err(e) => self.say(e, true),
            },
            io::Event::Trials { run, result } => match (result, self.doc.notebook.run(run)) {
                (Ok((trials, figures)), Some(r)) => {
                    let view = plots::RunTrials::new(r, &trials, figures.as_deref());
                    self.trials.insert(run, Ok(view));
                }
                (Err(why), _) => {
                    if let io::NoTrials::Failed(e) = &why {
                        self.say(format!("run {run}: {e}"), true);
                    }
                    self.trials.insert(run, Err(why));
                }
                (Ok(_), None) => {}
            },
            io::Event::Tried { id, result } => {
                if self.trying.as_ref().is_some_and(|(current, _)| *current == id) {
                    self.trying = None;
                    if let Some(form) = &mut self.new_run
                        && let Some(super::new_run::Tried::Running(argv)) = form.tried.take()
                    {
                        form.tried = Some(super::new_run::Tried::Done(argv, result));
                    }
                }
            }
            io::Event::Picked { purpose, path: Some(path), .. } => self.run_command(match purpose {
                io::Pick::Open => AppCommand::OpenDir(path),
                io::Pick::New => AppCommand::CreateDir(path),
                io::Pick::SaveAs => AppCommand::SaveAs(path),
                io::Pick::Reproduce | io::Pick::ReproduceWorkbook => AppCommand::ReadTheirLog(path),
                io::Pick::ImportFile => AppCommand::ImportFile(path),
                io::Pick::NewFromWorkbook => AppCommand::NewNotebookFrom(path),
            }),
            io::Event::Picked {
                purpose: io::Pick::Reproduce | io::Pick::ReproduceWorkbook | io::Pick::ImportFile,
                path: None,
                failed,
            } => {
                if failed {
                    // The Reproduce and import dialogs have their own path field.
                    self.say("no file-dialog service answered on this desktop; type the path instead", true);
                }
            }
            io::Event::MachineRead(machine) => {
                // One change for the three fields: one save, one message.
                let fields = super::views::machine_fill(&machine).to_vec();
                let said = "Machine / OS, Counter access and Placement control filled from this machine".to_owned();
                self.edit(Edit::SetEnvironment { fields, said });
            }
            io::Event::TheirLog(log) => {
                if let Some(dialog) = &mut self.reproduce {
                    dialog.log = Some(*log);
                    dialog.selected = None;
                }
            }
            io::Event::WorkbookEdits { dir, path, offer } => self.on_workbook_edits(&dir, &path, offer),
            io::Event::RecoveryFound { dir, found } => self.on_recovery_found(&dir, found),
            io::Event::Recovered { dir, result } => self.on_recovered(&dir, result),
            io::Event::TakenIn { dir, path, result } => self.on_taken_in(&dir, &path, result),
            io::Event::MadeNotebook { target, result } => match result {
                Ok(made) => {
                    let io::MadeNotebook { merged, notebook, unwritten } = *made;
                    let (taken, failed) = super::workbook::taken_message(&merged);
                    self.open(target.clone(), notebook, unwritten);
                    self.reproduce = None;
                    // R2, N13: a hidden copy that is not what their sheets
                    // show is said with the result, as a warning.
                    let warned: String = merged
                        .warnings
                        .iter()
                        .map(|w| format!(" WARNING: {}", vernier_engine::display::inert(w)))
                        .collect();
                    self.say(
                        format!(
                            "made a new notebook in {} from their workbook: {taken}{warned}",
                            vernier_engine::display::path(&target)
                        ),
                        failed || !warned.is_empty(),
                    );
                }
                Err(e) => self.say(format!("no notebook was made: {e}"), true),
            },
            io::Event::Picked { purpose, path: None, failed: true } => {
                self.say("no file-dialog service answered on this desktop; type the folder instead", true);
                self.run_command(AppCommand::PromptPath(purpose));
            }
            io::Event::Picked { path: None, failed: false, .. } => {}
        }
    }

    /// What the file thread found in a workbook of the open notebook (N12):
    /// an offer replaces the one shown; "nothing" clears an offer of the
    /// same workbook only, so the followed file does not hide another.
    fn on_workbook_edits(
        &mut self,
        dir: &std::path::Path,
        path: &std::path::Path,
        offer: Result<Option<Box<super::workbook::Offer>>, String>,
    ) {
        if dir != self.doc.dir {
            return;
        }
        let same = self.spreadsheet.as_ref().is_none_or(|o| o.path == path);
        match offer {
            Ok(Some(offer)) => {
                // An open dialog that has not taken anything in yet shows
                // the workbook as it is now.
                if let Some(dialog) = &mut self.take_in
                    && dialog.offer.path == path
                    && dialog.done.is_none()
                    && !dialog.busy
                {
                    dialog.offer = (*offer).clone();
                }
                self.spreadsheet = Some(*offer);
            }
            Ok(None) if same => self.spreadsheet = None,
            Ok(None) => {}
            Err(e) => {
                if same {
                    self.spreadsheet = None;
                }
                self.say(format!("its spreadsheet edits could not be weighed: {e}"), true);
            }
        }
    }

    /// What taking a workbook's edits in did: said in the status bar (a
    /// success only once saved) and in the dialog; the notebook shown is
    /// the one saved, unless changes of the window's own are still in
    /// flight (their save carries it).
    fn on_taken_in(&mut self, dir: &std::path::Path, path: &std::path::Path, result: Result<Box<io::TakenIn>, String>) {
        let done = match result {
            Ok(taken) => {
                let io::TakenIn { merged, notebook } = *taken;
                let (message, failed) = super::workbook::taken_message(&merged);
                if dir == self.doc.dir {
                    if let Some((notebook, unwritten)) = notebook
                        && self.saved()
                    {
                        self.doc.adopt(notebook, unwritten);
                    }
                    if self.spreadsheet.as_ref().is_some_and(|o| o.path == path) {
                        self.spreadsheet = None;
                    }
                }
                self.say(message, failed);
                Ok(Box::new(merged))
            }
            Err(e) => {
                self.say(format!("nothing taken in: {e}"), true);
                Err(e)
            }
        };
        if let Some(dialog) = &mut self.take_in {
            dialog.busy = false;
            dialog.done = Some(done);
        }
    }

    /// What the file thread says of the changes numbered `generations`.
    fn on_changed(&mut self, generations: &[u64], result: Result<Box<io::Saved>, String>) {
        let saved = match result {
            Ok(saved) => saved,
            Err(e) => {
                // Nothing of these changes is on disk; the window keeps
                // showing them, marked not saved, and sends them again
                // with the next change or "Retry" — or writes them to a
                // recovery file if it closes first (N10).
                for unsaved in self.doc.unsaved.iter_mut().filter(|u| generations.contains(&u.generation)) {
                    unsaved.failed = true;
                }
                if self.doc.unsaved.iter().all(|u| u.failed) {
                    self.doc.saving_since = None;
                }
                self.doc.save_error = Some(e);
                return;
            }
        };
        self.doc.unsaved.retain(|u| !generations.contains(&u.generation));
        if self.doc.unsaved.iter().all(|u| !u.failed) {
            self.doc.save_error = None;
        }
        self.doc.on_disk_at = chrono::Local::now();
        if self.doc.unsaved.is_empty() {
            // Every change is on disk: show the file as it is now, which
            // holds any other program's changes too.
            self.doc.saving_since = None;
            self.doc.notebook = Arc::new(saved.notebook);
            self.doc.changed();
            self.doc.unwritten = saved.unwritten;
        }
        for message in saved.messages {
            match message {
                Ok(applied) => self.say(applied.message, applied.failed),
                Err(e) => self.say(format!("not saved: the notebook on disk refuses it — {e}"), true),
            }
        }
        if saved.changed_elsewhere {
            self.say(changed_elsewhere_message(), false);
        }
    }

    /// Applies `record` — which records rows through the harness, an
    /// importer or the soak — to the window's copy, and hands the rows it
    /// added to the file thread as one [`Recording`]: the file gets the
    /// same rows, time stamps and all. Refused, it changes nothing.
    fn record(
        &mut self,
        record: impl FnOnce(&mut Notebook) -> Result<Applied, vernier_engine::notebook::NotebookError>,
    ) -> Option<Applied> {
        let mut copy = Notebook::clone(&self.doc.notebook);
        let before = copy.counts();
        match record(&mut copy) {
            Ok(applied) => self.edit(Edit::Record(Recording::capture(&copy, before, &applied))),
            Err(e) => {
                self.say(e.to_string(), true);
                None
            }
        }
    }

    /// Records a finished run whose raw file is written, as one change: its
    /// rows, and — when it reproduced a classmate's row — the note naming
    /// their row, or — when it extended runs of this notebook (S10) — the
    /// link to them and the verdict, said in the status bar; then selects
    /// it and shows the comparison.
    /// Records an import whose raw copy is written: the same change to the
    /// window's copy and, under the lock, to the file; the dialog closes
    /// and the new rows are selected.
    fn record_import(
        &mut self,
        prepared: &Arc<vernier_engine::import::Prepared>,
        raw_file: vernier_engine::notebook::RawFile,
    ) {
        let at = chrono::Utc::now();
        let applied = self.record(|nb: &mut Notebook| {
            let recorded = prepared.add_rows(nb, raw_file, at);
            let runs: Vec<String> = recorded.runs.iter().map(u32::to_string).collect();
            let pair = recorded.pair.map(|c| format!(" as comparison C{c}")).unwrap_or_default();
            Ok(Applied {
                message: format!("recorded run {} from {}{pair}", runs.join(" and "), prepared.name),
                runs: recorded.runs,
                failed: false,
            })
        });
        let Some(applied) = applied else {
            if let Some(form) = &mut self.import {
                form.busy = false;
            }
            return;
        };
        self.import = None;
        if let Some(&last) = applied.runs.last() {
            self.select_run(last);
        }
        self.views.section = Section::Runs;
    }

    fn record_run(&mut self, result: Arc<harness::BenchResult>, raw_file: vernier_engine::notebook::RawFile) {
        let at = chrono::Utc::now();
        let reproduced = self.reproduction_pending(&result);
        let extending = self.extending.take();
        let extended = extending.is_some();
        let (from, shown_source) = (Arc::clone(&result), reproduced.clone());
        let applied = self.record(|nb: &mut Notebook| {
            let (recorded, verdict) = match extending.as_ref() {
                Some((plan, claim)) => {
                    let (recorded, outcome) = plan.record(nb, &from, &raw_file, at, claim.as_ref());
                    (recorded, outcome.map(|o| o.verdict))
                }
                None => (harness::add_rows(nb, &from, &raw_file, at), None),
            };
            if let Some((original, source)) = &shown_source
                && let Some(side) =
                    SideBySide::new(original, &from, &recorded.runs.iter().map(|&n| nb.run(n)).collect::<Vec<_>>())
            {
                nb.add_note(&side.note(original, source), at)?;
            }
            Ok(match (&from.failure, recorded.runs.as_slice()) {
                (Some(f), _) => Applied {
                    message: format!("the run ended early ({f}); its trials are in {}", recorded.raw_file),
                    failed: true,
                    ..Applied::default()
                },
                (None, runs) => Applied {
                    message: verdict.clone().unwrap_or_else(|| match recorded.sweep {
                        // SPEC E16: a scan's rows are one sweep.
                        Some(w) => format!(
                            "recorded sweep W{w}: {} rows, runs {}–{}",
                            runs.len(),
                            runs.first().copied().unwrap_or_default(),
                            runs.last().copied().unwrap_or_default()
                        ),
                        None => format!(
                            "recorded run {}",
                            runs.iter().map(u32::to_string).collect::<Vec<_>>().join(" and ")
                        ),
                    }),
                    runs: runs.to_vec(),
                    failed: false,
                },
            })
        });
        let Some(applied) = applied else { return };
        if let Some(&last) = applied.runs.last() {
            self.select_run(last);
            // A recorded scan shows its sweep, the picture it was run for.
            if let Some(sweep) = self.doc.notebook.sweep_of(last).filter(|_| result.scan.is_some()) {
                self.views.sweep = Some(views::SweepPick::Recorded(sweep.number));
                self.views.show_sweep = true;
            }
        }
        if extended && !applied.failed {
            // The status bar cuts a long sentence; the run view shows it whole.
            self.views.extension = Some((applied.runs.clone(), applied.message.clone()));
        }
        if let (Some((original, _)), Some(dialog)) = (reproduced, &mut self.reproduce) {
            let mine: Vec<_> = applied.runs.iter().map(|&n| self.doc.notebook.run(n)).collect();
            dialog.outcome = SideBySide::new(&original, &result, &mine).map(|side| (original, side));
        }
    }

    /// Their row and its source, when the finished run reproduced it.
    fn reproduction_pending(&mut self, result: &harness::BenchResult) -> Option<(Original, String)> {
        let dialog = self.reproduce.as_mut()?;
        let i = dialog.pending.take()?;
        let Some(Ok(log)) = &dialog.log else { return None };
        let (original, _) = log.rows.get(i)?;
        (result.failure.is_none()).then(|| (original.clone(), log.source.display().to_string()))
    }
}

/// Said when the notebook shown was replaced by what another program saved.
fn changed_elsewhere_message() -> String {
    format!(
        "notebook.ron was changed by another program (noticed {}); showing it as it is now — nothing typed here is lost",
        chrono::Local::now().format("%H:%M:%S")
    )
}
