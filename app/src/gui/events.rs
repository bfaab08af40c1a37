//! What arrives from the engine, soak and file threads, applied between
//! frames within a time budget.

use std::sync::mpsc::TryRecvError;
use std::time::Instant;

use vernier_engine::harness::{self, EngineEvent};
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
                    let arm = trial.arm.min(1);
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
                let dir = self.doc.dir.clone();
                match record::add_row(self.notebook_mut(), &dir, &finished, chrono::Utc::now()) {
                    record::Added::Soak(n) => {
                        let stopped =
                            if finished.cancelled { " (stopped early; every row written is kept)" } else { "" };
                        self.say(format!("recorded soak S{n}{stopped}"), false);
                    }
                    record::Added::Note(why) => self.say(format!("the soak could not be analysed: {why}"), true),
                }
                self.changed();
                self.run_command(AppCommand::OpenSoak(Some(finished.path.clone())));
            }
        }
    }

    pub(super) fn on_io_event(&mut self, event: io::Event) {
        match event {
            io::Event::Saved { generation, result, unwritten } => match result {
                Ok(()) => {
                    if generation >= self.doc.saved {
                        self.doc.unwritten = unwritten;
                        self.doc.on_disk_at = chrono::Local::now();
                    }
                    self.doc.saved = self.doc.saved.max(generation);
                    self.doc.save_error = None;
                }
                Err(e) => self.doc.save_error = Some(e),
            },
            io::Event::Loaded { dir, result, unwritten } => match result {
                Ok(notebook) => {
                    self.say(format!("opened {}", dir.display()), false);
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
            io::Event::SavedAs { to, result } => match result {
                Ok(()) => {
                    self.say(format!("saved as {}; this is now the open notebook", to.display()), false);
                    self.settings.remember(&to);
                    self.doc.dir = to;
                }
                Err(e) => self.say(e, true),
            },
            io::Event::RawWritten { result, raw } => match raw {
                Ok(raw_file) => {
                    let recorded = harness::add_rows(self.notebook_mut(), &result, &raw_file, chrono::Utc::now());
                    let message = match (&result.failure, recorded.runs.as_slice()) {
                        (Some(f), _) => format!("the run ended early ({f}); its trials are in {}", recorded.raw_file),
                        (None, runs) => {
                            let rows: Vec<String> = runs.iter().map(u32::to_string).collect();
                            format!("recorded run {}", rows.join(" and "))
                        }
                    };
                    let failed = result.failure.is_some();
                    if let Some(&last) = recorded.runs.last() {
                        self.select_run(last);
                    }
                    self.reproduced(&result, &recorded.runs);
                    self.say(message, failed);
                    self.changed();
                }
                Err(e) => self.say(format!("the run finished but its raw file could not be written: {e}"), true),
            },
            io::Event::Soak(result) => match result {
                Ok(view) => self.soak = Some(*view),
                Err(e) => self.say(e, true),
            },
            io::Event::Trials { run, result } => match (result, self.doc.notebook.run(run)) {
                (Ok(trials), Some(r)) => {
                    let view = plots::RunTrials::new(r, &trials);
                    self.trials.insert(run, view);
                }
                (Err(e), _) => self.say(format!("run {run}: {e}"), true),
                (Ok(_), None) => {}
            },
            io::Event::Picked { purpose, path: Some(path), .. } => self.run_command(match purpose {
                io::Pick::Open => AppCommand::OpenDir(path),
                io::Pick::New => AppCommand::CreateDir(path),
                io::Pick::SaveAs => AppCommand::SaveAs(path),
                io::Pick::Reproduce | io::Pick::ReproduceWorkbook => AppCommand::ReadTheirLog(path),
            }),
            io::Event::Picked { purpose: io::Pick::Reproduce | io::Pick::ReproduceWorkbook, path: None, failed } => {
                if failed {
                    // The Reproduce dialog has its own path field.
                    self.say("no file-dialog service answered on this desktop; type the path instead", true);
                }
            }
            io::Event::TheirLog(log) => {
                if let Some(dialog) = &mut self.reproduce {
                    dialog.log = Some(*log);
                    dialog.selected = None;
                }
            }
            io::Event::Picked { purpose, path: None, failed: true } => {
                self.say("no file-dialog service answered on this desktop; type the folder instead", true);
                self.run_command(AppCommand::PromptPath(purpose));
            }
            io::Event::Picked { path: None, failed: false, .. } => {}
        }
    }

    /// When the finished run was a reproduction, puts it beside their row
    /// and records a note naming it.
    fn reproduced(&mut self, result: &harness::BenchResult, runs: &[u32]) {
        let Some(dialog) = &mut self.reproduce else { return };
        let Some(i) = dialog.pending.take() else { return };
        let Some(Ok(log)) = &dialog.log else { return };
        let Some((original, _)) = log.rows.get(i) else { return };
        if result.failure.is_some() {
            return;
        }
        let mine = runs.get(original.arm_index()).copied();
        if let Some(side) = vernier_engine::reproduce::SideBySide::new(original, result, mine) {
            let note = side.note(original, &log.source.display().to_string());
            let _ = Arc::make_mut(&mut self.doc.notebook).add_note(&note, chrono::Utc::now());
            dialog.outcome = Some((original.clone(), side));
        }
    }
}
