//! What arrives from the engine, soak and file threads, applied between
//! frames within a time budget.

use std::sync::mpsc::TryRecvError;
use std::time::Instant;

use vernier_engine::harness::{self, BenchEvent};
use vernier_engine::notebook::pending::{Edit, Recording};
use vernier_engine::notebook::{AnsweredBy, Notebook};
use vernier_engine::reproduce::Original;
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

    pub(super) fn on_engine_event(&mut self, event: BenchEvent) {
        match event {
            BenchEvent::Started { total } => {
                if let Some(live) = &mut self.measure.live {
                    live.total = total;
                }
            }
            BenchEvent::Trial(trial, progress) => {
                if let Some(live) = &mut self.measure.live {
                    live.done = progress.done;
                    live.total = progress.total;
                    live.remaining = progress.remaining;
                    let arm = if live.scan { 0 } else { trial.arm.min(1) };
                    live.points[arm].push(egui_plot::PlotPoint::new(trial.index as f64, trial.ns as f64 / 1e6));
                }
            }
            // SPEC N15: what the build recipe did, before the trials.
            BenchEvent::Built(report) => self.say(report, false),
            BenchEvent::Finished(result) => {
                self.measure.live = None;
                // SPEC R5: the rebuild's scratch folder goes once its run ends.
                self.remove_scratch();
                let Some(reserved) = self.measure.reserved.take() else {
                    return self
                        .say("the run finished, but its raw file's name was not taken; it is not recorded", true);
                };
                let result: Arc<harness::BenchResult> = Arc::from(result);
                let joining = match (self.measure.extending.take(), self.reproduction_pending(&result)) {
                    (Some((plan, claim)), _) => super::jobs::Joining::Extension(Box::new(plan), claim),
                    (None, Some((original, source))) => super::jobs::Joining::Reproduction(Box::new(original), source),
                    (None, None) => super::jobs::Joining::Nothing,
                };
                self.send_job(super::jobs::RecordRun { dir: self.doc.dir.clone(), result, reserved, joining });
            }
            BenchEvent::Failed(e) => {
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
            io::Event::Answered { done, .. } => self.answered(*done),
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

    /// The file thread's answer to start number `start`: the run's raw
    /// file's name and the Environment as stated, or why the run cannot be
    /// recorded (so it is not measured first). An answer to a start that
    /// was cancelled lets its name go.
    pub(super) fn reserved(&mut self, start: u64, reservation: Result<Reservation, String>) {
        let Some(starting) = self.measure.starting.as_mut().filter(|s| s.number == start) else {
            if let Ok(reservation) = reservation {
                self.send_job(super::jobs::Release(reservation.raw));
            }
            return;
        };
        match reservation {
            Ok(reservation) => {
                starting.reservation = Some(reservation);
                self.egui_ctx.request_repaint();
            }
            Err(e) => self.not_started(format!("the run was not started: {e}")),
        }
    }

    /// A finished run as the engine's use case recorded it on the file
    /// thread: the window shows the notebook as saved (with its own changes
    /// still on their way on top), says what recording said, then selects
    /// the rows and shows the comparison, the sweep, the extension's
    /// verdict or the reproduction's outcome.
    pub(super) fn run_recorded(
        &mut self,
        result: &harness::BenchResult,
        recorded: Result<Box<super::jobs::RunOnDisk>, String>,
        joining: super::jobs::Joining,
    ) {
        let extended = matches!(joining, super::jobs::Joining::Extension(..));
        // SPEC N14: the prediction the New run dialog said this run answers.
        let answers = self.measure.answers_on_record.take();
        let super::jobs::RunOnDisk { done, unwritten } = match recorded {
            Ok(recorded) => *recorded,
            Err(e) => return self.say(format!("the run finished but was not recorded: {e}"), true),
        };
        let message = done.message(result);
        let failed = result.failure.is_some();
        let notebook = super::jobs::with_unsaved(done.notebook, self.doc.unsaved.iter().map(|u| &u.change));
        self.doc.adopt(notebook, unwritten);
        self.say(message.clone(), failed);
        let runs = done.recorded.runs;
        if let (Some(prediction), false) = (answers, failed) {
            self.answer_recorded(prediction, &runs);
        }
        let (nb, dir, scan) = (Arc::clone(&self.doc.notebook), self.doc.dir.clone(), result.scan.is_some());
        let verdict = (extended && !failed).then_some(message);
        self.asked(|v, asks| v.runs.show_recorded(&runs, scan, verdict, &nb, &dir, asks));
        if let (super::jobs::Joining::Reproduction(original, _), Some(dialog)) =
            (joining, self.dialogs.get_mut::<Reproduce>())
        {
            dialog.outcome = done.also.map(|side| (*original, side));
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
        self.commands.push(AppCommand::Edit(Edit::AnswerPrediction { number: prediction, by, at: chrono::Utc::now() }));
    }

    /// Their row and its source, when the finished run reproduced it.
    fn reproduction_pending(&mut self, result: &harness::BenchResult) -> Option<(Original, String)> {
        let dialog = self.dialogs.get_mut::<Reproduce>()?;
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
