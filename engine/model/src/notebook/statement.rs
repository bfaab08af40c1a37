//! What a student states about a run after it was recorded (SPEC E14, A1,
//! A2; `vernier set-run`): an imported row often cannot say how the program
//! was built, how many warm-up trials ran, or on what machine, and the
//! audit rightly flags it. Stating it later answers the audit without
//! discarding the row — but only where the row says nothing: what the row
//! recorded is never replaced, its numbers never change, and each
//! statement is kept under a name of its own ("build (stated later)") with
//! the time it was made.

use std::sync::Arc;

use chrono::{DateTime, Utc};

use super::condition::{Condition, ConditionName, Conditions};
use super::run::WarmupPolicy;
use super::{Notebook, NotebookError, RowRef};

/// One thing a student can state about a run after it was recorded.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum RunStatement {
    /// How the measured program was built (A2).
    Build(String),
    /// How many warm-up trials ran before the timed ones (A1).
    Warmup(u32),
    /// The machine it ran on (A2).
    Machine(String),
    /// The power source it ran on (A2).
    PowerSource(String),
    /// Its thermal condition: a pre-run idle, the ambient … (A2).
    Thermal(String),
}

impl RunStatement {
    /// What it states, as a person reads it in a message.
    pub fn what(&self) -> &'static str {
        match self {
            RunStatement::Build(_) => "build",
            RunStatement::Warmup(_) => "warm-up",
            RunStatement::Machine(_) => "machine",
            RunStatement::PowerSource(_) => "power source",
            RunStatement::Thermal(_) => "thermal condition",
        }
    }

    /// The condition name it is kept under, for the texts.
    fn name(&self) -> Option<ConditionName> {
        match self {
            RunStatement::Build(_) => Some(ConditionName::StatedBuild),
            RunStatement::Warmup(_) => None,
            RunStatement::Machine(_) => Some(ConditionName::StatedMachine),
            RunStatement::PowerSource(_) => Some(ConditionName::StatedPower),
            RunStatement::Thermal(_) => Some(ConditionName::StatedThermal),
        }
    }
}

impl Notebook {
    /// States what run `number` did not record, all or nothing: a
    /// statement about something the row already states is refused with
    /// what it states, and nothing is changed. A build the row took from
    /// the Environment by default is not a statement and may be corrected. Returns the sentence kept
    /// with the row (`stated later` = time: what).
    pub fn state_run(
        &mut self,
        number: u32,
        statements: &[RunStatement],
        at: DateTime<Utc>,
    ) -> Result<String, NotebookError> {
        let run = self.runs.iter().find(|r| r.number == number).ok_or(NotebookError::NoSuchRow(RowRef::Run(number)))?;
        if statements.is_empty() {
            return Err(NotebookError::Empty("statement"));
        }
        let context = run.context();
        for statement in statements {
            let already = match statement {
                RunStatement::Build(text)
                | RunStatement::Machine(text)
                | RunStatement::PowerSource(text)
                | RunStatement::Thermal(text)
                    if text.trim().is_empty() =>
                {
                    return Err(NotebookError::Empty(statement.what()));
                }
                RunStatement::Build(_) => context.build().filter(|_| !context.build_is_default()),
                RunStatement::Warmup(_) => {
                    (run.measurement.warmup != WarmupPolicy::Unknown).then(|| run.measurement.warmup.to_string())
                }
                RunStatement::Machine(_) => context.machine(),
                RunStatement::PowerSource(_) => context.power_source(),
                RunStatement::Thermal(_) => context.thermal(),
            };
            if let Some(value) = already {
                return Err(NotebookError::AlreadyStated { run: number, what: statement.what(), value });
            }
        }
        let said: Vec<String> = statements
            .iter()
            .map(|s| match s {
                RunStatement::Warmup(n) => format!("warm-up {n} trial(s), not in the file"),
                RunStatement::Build(t)
                | RunStatement::Machine(t)
                | RunStatement::PowerSource(t)
                | RunStatement::Thermal(t) => format!("{} \"{}\"", s.what(), t.trim()),
            })
            .collect();
        let sentence = format!("{}: {}", at.format("%Y-%m-%d %H:%M UTC"), said.join(", "));
        let run =
            self.runs.iter_mut().find(|r| r.number == number).ok_or(NotebookError::NoSuchRow(RowRef::Run(number)))?;
        let m = Arc::make_mut(&mut run.measurement);
        for statement in statements {
            match (statement, statement.name()) {
                (RunStatement::Warmup(n), _) => {
                    m.warmup = WarmupPolicy::Stated(*n);
                    m.warmup_trials = *n;
                }
                (
                    RunStatement::Build(t)
                    | RunStatement::Machine(t)
                    | RunStatement::PowerSource(t)
                    | RunStatement::Thermal(t),
                    Some(name),
                ) => m.conditions.push(Condition::new(name, t.trim())),
                (_, None) => {}
            }
        }
        // Several statements made at several times are all kept.
        match m.conditions.iter_mut().find(|c| c.name() == Some(ConditionName::Amended)) {
            Some(c) => c.value = format!("{}; {sentence}", c.value),
            None => m.conditions.push(Condition::new(ConditionName::Amended, sentence.clone())),
        }
        debug_assert!(m.conditions.states(ConditionName::Amended));
        Ok(sentence)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notebook::{Measurement, Tag};
    use crate::stats::Summary;

    fn notebook_with_an_import() -> Notebook {
        let mut nb = Notebook::new("t", Utc::now());
        let measurement = Measurement {
            what: "imported".into(),
            command: vec![],
            warmup: WarmupPolicy::Unknown,
            warmup_trials: 0,
            summary: Summary::of(&[1.0, 2.0, 3.0]).expect("summary"),
            unit: "ms".into(),
            ns_per_unit: 1e6,
            conditions: vec![Condition::new(ConditionName::Source, "trials.csv (imported CSV)")],
            raw_file: None,
            tag: Tag::Measured,
            synthetic: false,
            extends: None,
            figure: None,
            work: None,
            boundary: None,
            recipe: None,
            tail: None,
            noise_floor: None,
        };
        nb.record_run(measurement, Utc::now());
        nb
    }

    // SPEC A1, A2, E14: stating what an imported row lacks fills exactly
    // that, under its own name, and the numbers stay as measured.
    #[test]
    fn statements_fill_what_the_row_lacks_and_never_a_number() {
        let mut nb = notebook_with_an_import();
        let before = nb.runs()[0].measurement.summary.clone();
        assert_eq!(nb.runs()[0].context().unstated().len(), 4);
        let statements = [
            RunStatement::Build("g++ -O2 -march=native".into()),
            RunStatement::Warmup(1),
            RunStatement::Machine("ThinkPad T14, Ryzen 7 PRO 5850U".into()),
            RunStatement::PowerSource("mains".into()),
            RunStatement::Thermal("idle 5 min before the run".into()),
        ];
        let sentence = nb.state_run(1, &statements, Utc::now()).expect("states");
        assert!(sentence.contains("build \"g++ -O2 -march=native\""), "{sentence}");
        let run = &nb.runs()[0];
        assert_eq!(run.measurement.summary, before);
        assert!(run.context().unstated().is_empty(), "{:?}", run.context().unstated());
        assert_eq!(run.n_column(), "1 (not in the file) + 3");
        assert_eq!(run.context().build().as_deref(), Some("g++ -O2 -march=native (stated later)"));
        assert_eq!(run.context().power_source().as_deref(), Some("mains"));
        assert!(run.measurement.conditions.states(ConditionName::Amended));
    }

    // SPEC D7, A1: the written forms never turn a warm-up the row did not
    // record into "0 discarded"; once stated, they say it is not in the file.
    #[test]
    fn the_written_forms_say_what_the_warmup_is() {
        let mut nb = notebook_with_an_import();
        let run = &nb.runs()[0];
        assert!(run.long_form().contains("n=3 (warm-up not recorded)"), "{}", run.long_form());
        assert!(run.short_form().contains("of 3 repetitions (warm-up not recorded),"), "{}", run.short_form());
        assert!(!run.short_form().contains(",  ("), "no empty command slot: {}", run.short_form());
        nb.state_run(1, &[RunStatement::Warmup(2), RunStatement::PowerSource("mains".into())], Utc::now())
            .expect("states");
        let run = &nb.runs()[0];
        assert!(run.long_form().contains("n=3 (warm-up 2, not in the file)"), "{}", run.long_form());
        assert!(run.long_form().contains("mains power (stated later)"), "{}", run.long_form());
        assert!(!run.long_form().contains("stated at import"), "{}", run.long_form());
        assert!(run.short_form().contains("after 2 warm-up trial(s) not in the file"), "{}", run.short_form());
    }

    // SPEC N11: a build the row took from the Environment by default may
    // be corrected later; one given with the row may not.
    #[test]
    fn a_default_build_may_be_corrected_later() {
        let mut nb = notebook_with_an_import();
        let default = Condition::new(ConditionName::Build, format!("clang -O3 {}", super::super::FROM_ENVIRONMENT));
        Arc::make_mut(&mut nb.runs[0].measurement).conditions.push(default);
        nb.state_run(1, &[RunStatement::Build("gcc -O2".into())], Utc::now()).expect("corrects the default");
        assert_eq!(nb.runs()[0].context().build().as_deref(), Some("gcc -O2 (stated later)"));
        assert!(nb.state_run(1, &[RunStatement::Build("gcc -O3".into())], Utc::now()).is_err());
    }

    // SPEC N9: what a row states is never replaced, and a refused
    // statement changes nothing, not even the ones given with it.
    #[test]
    fn what_the_row_states_is_refused_and_nothing_changes() {
        let mut nb = notebook_with_an_import();
        nb.state_run(1, &[RunStatement::Build("g++ -O2".into())], Utc::now()).expect("first");
        let before = nb.runs()[0].clone();
        let refused = nb
            .state_run(1, &[RunStatement::PowerSource("mains".into()), RunStatement::Build("-O3".into())], Utc::now())
            .expect_err("refused");
        assert!(refused.to_string().contains("run 1 already states its build: g++ -O2 (stated later)"), "{refused}");
        assert_eq!(nb.runs()[0], before);
        assert!(nb.state_run(2, &[RunStatement::Warmup(1)], Utc::now()).is_err());
        assert!(nb.state_run(1, &[RunStatement::Machine("  ".into())], Utc::now()).is_err());
    }
}
