//! What arrives from the engine, soak and file threads, applied between
//! frames within a time budget.

use std::sync::mpsc::TryRecvError;
use std::time::Instant;

use vernier_engine::harness::{self, EngineEvent};
use vernier_engine::notebook::pending::{Edit, Recording};
use vernier_engine::notebook::{AnsweredBy, Notebook};
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
            let Some(engine) = &self.measure.engine else { break };
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
            let Some(io) = &self.files.io else { break };
            match io.try_event() {
                Ok(event) => self.on_file_event(event),
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => {
                    self.io_stopped();
                    break;
                }
            }
        }
        while start.elapsed() < EVENT_BUDGET {
            let Some(live) = &self.measure.live_soak else { break };
            let event = match live.handle.try_event() {
                Ok(event) => event,
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => {
                    // The thread sends Finished before it ends; without it, it died.
                    self.measure.live_soak = None;
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
                if let Some(live) = &mut self.measure.live {
                    live.total = total;
                }
            }
            EngineEvent::Trial(trial, progress) => {
                if let Some(live) = &mut self.measure.live {
                    live.done = progress.done;
                    live.total = progress.total;
                    live.remaining = progress.remaining;
                    let arm = if live.scan { 0 } else { trial.arm.min(1) };
                    live.points[arm].push(egui_plot::PlotPoint::new(trial.index as f64, trial.ns as f64 / 1e6));
                }
            }
            // SPEC N15: what the build recipe did, before the trials.
            EngineEvent::Built(report) => self.say(report, false),
            EngineEvent::Finished(result) => {
                self.measure.live = None;
                // SPEC R5: the rebuild's scratch folder goes once its run ends.
                self.remove_scratch();
                let next_run = self.doc.notebook.runs().len() + 1;
                self.send_job(super::jobs::WriteRunRaw { dir: self.doc.dir.clone(), result, next_run });
            }
            EngineEvent::Failed(e) => {
                self.measure.live = None;
                self.remove_scratch();
                self.measure.extending = None;
                self.say(format!("the run could not start: {e}"), true);
            }
        }
    }

    pub(super) fn on_soak_event(&mut self, event: soak_runner::SoakEvent) {
        match event {
            soak_runner::SoakEvent::Sample(row) => {
                if let Some(live) = &mut self.measure.live_soak {
                    live.points.push(egui_plot::PlotPoint::new(row.t_seconds, row.score));
                }
            }
            soak_runner::SoakEvent::Finished(result) => {
                self.measure.live_soak = None;
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

    pub(super) fn on_file_event(&mut self, event: io::Event) {
        let answers = event.answers();
        if answers > 0 {
            self.files.waiting = self.files.waiting.saturating_sub(answers);
            if self.files.waiting == 0 {
                self.files.busy_since = None;
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
            io::Event::Done { done, .. } => done(self),
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
            // holds any other program's changes too (unless it is what the
            // window shows already).
            self.doc.saving_since = None;
            if let Some(notebook) = saved.notebook {
                self.doc.notebook = Arc::new(notebook);
                self.doc.changed();
            }
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
    pub(super) fn record(
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
    pub(super) fn record_run(
        &mut self,
        result: Arc<harness::BenchResult>,
        raw_file: vernier_engine::notebook::RawFile,
    ) {
        let at = chrono::Utc::now();
        let reproduced = self.reproduction_pending(&result);
        let extending = self.measure.extending.take();
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
                nb.add_vernier_note(&side.note(original, source), at)?;
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
        // SPEC N14: the prediction the New run dialog said this run answers.
        let answers = self.dialogs.answers_on_record.take();
        let Some(applied) = applied else { return };
        if let (Some(prediction), false) = (answers, applied.failed) {
            self.answer_recorded(prediction, &applied.runs);
        }
        if let Some(&last) = applied.runs.last() {
            self.select_run(last);
            // A recorded scan shows its sweep, the picture it was run for.
            if let Some(sweep) = self.doc.notebook.sweep_of(last).filter(|_| result.scan.is_some()) {
                self.views.runs.sweep = Some(views::SweepPick::Recorded(sweep.number));
                self.views.runs.show_sweep = true;
            }
        }
        if extended && !applied.failed {
            // The status bar cuts a long sentence; the run view shows it whole.
            self.views.runs.extension = Some((applied.runs.clone(), applied.message.clone()));
        }
        if let (Some((original, _)), Some(dialog)) = (reproduced, &mut self.dialogs.reproduce) {
            let mine: Vec<_> = applied.runs.iter().map(|&n| self.doc.notebook.run(n)).collect();
            dialog.outcome = SideBySide::new(&original, &result, &mine).map(|side| (original, side));
        }
    }

    /// Links `prediction` to the rows just recorded: their comparison, or
    /// the one run; a sweep's points are answered one by one, from a row.
    fn answer_recorded(&mut self, prediction: u32, runs: &[u32]) {
        let nb = &self.doc.notebook;
        let by = match (runs, runs.last().and_then(|&n| nb.pair_of(n))) {
            (_, Some((pair, _))) => AnsweredBy::Comparison(pair.number),
            ([run], None) => AnsweredBy::Run(*run),
            _ => {
                let text = format!(
                    "P{prediction} is not linked: a sweep answers a prediction by one of its points (select the \
                     point's row, then Answers a prediction…)"
                );
                return self.say(text, true);
            }
        };
        self.commands.push(AppCommand::AnswerPrediction(prediction, by));
    }

    /// Their row and its source, when the finished run reproduced it.
    fn reproduction_pending(&mut self, result: &harness::BenchResult) -> Option<(Original, String)> {
        let dialog = self.dialogs.reproduce.as_mut()?;
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
