//! Running a soak (SPEC T2, T3, T4): N workers repeat a calibrated chunk of
//! work; every interval the chunks completed per second become the score,
//! sampled beside the sensors, and the row is written at once — a soak
//! stopped at minute 7 keeps its first 7 minutes.

use std::hint::black_box;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use super::analysis::{ANALYSIS_FACT, Thresholds};
use super::file::{HEADER, SoakRow};
use super::sensors::Sensors;
use crate::platform::machine::Machine;
use vernier_model::notebook::{Condition, ConditionName, SoakProtocol};

/// A chunk is calibrated to take about this long on one core.
const CHUNK_TARGET: Duration = Duration::from_millis(20);

/// What to run.
#[derive(Debug, Clone, PartialEq)]
pub struct SoakSpec {
    /// Duration and interval (the analysis thresholds are not the runner's).
    pub protocol: SoakProtocol,
    /// Worker threads (default: logical CPUs).
    pub workers: usize,
    /// The CSV to write; must not exist yet.
    pub out: PathBuf,
    /// Root of `/sys` and `/proc` (`/` on a real machine).
    pub sensors_root: PathBuf,
    /// Conditions only the user knows (ambient, physical setup, other load,
    /// pre-run idle, shared host), written as comments.
    pub context: Vec<(String, String)>,
}

/// How a soak went.
#[derive(Debug, Clone, PartialEq)]
pub struct SoakOutcome {
    /// Rows written.
    pub samples: usize,
    /// Xorshift steps per chunk.
    pub chunk_steps: u64,
    /// Calibrated time of one chunk, ms.
    pub chunk_ms: f64,
    /// Columns written as placeholders.
    pub placeholders: Vec<&'static str>,
    /// Worker threads that ran the load (fewer than asked when cancelled
    /// while they started).
    pub workers: usize,
    /// Stopped before its duration.
    pub cancelled: bool,
}

/// Why a soak could not run.
#[derive(Debug, thiserror::Error)]
pub enum SoakRunError {
    /// Bad duration or interval.
    #[error("{0}")]
    Invalid(String),
    /// A worker count this machine does not take.
    #[error(transparent)]
    Workers(#[from] WorkersError),
    /// The output file exists (a soak never overwrites one) or cannot be written.
    #[error("cannot write {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the OS said.
        #[source]
        source: std::io::Error,
    },
}

impl SoakOutcome {
    /// The conditions stored with the Soak runs row: the machine's, the
    /// placeholders, the load's worker count and calibrated chunk time.
    pub fn row_conditions(&self) -> Vec<Condition> {
        let placeholders = if self.placeholders.is_empty() { "none".into() } else { self.placeholders.join(", ") };
        let mut conditions = Machine::read().conditions();
        conditions.push(Condition::new(ConditionName::Placeholders, placeholders));
        conditions.push(Condition::new(ConditionName::Workers, self.workers.to_string()));
        conditions.push(Condition::new(ConditionName::CalibratedChunkTime, format!("{:.3} ms", self.chunk_ms)));
        conditions
    }
}

/// The conditions only the student can state, taken from the notebook's
/// Environment for the soak file's comments ("not stated" when empty). The
/// power source is marked as stated, since the system's own reading is
/// written beside it.
pub fn stated_context(env: &vernier_model::notebook::Environment) -> Vec<(String, String)> {
    use vernier_model::notebook::EnvField;
    [EnvField::Ambient, EnvField::PhysicalSetup, EnvField::OtherLoad, EnvField::PreRunIdle, EnvField::PowerSource]
        .into_iter()
        .map(|f| {
            let v = env.get(f);
            let key = match f {
                EnvField::PowerSource => "power source (as stated in the notebook)".to_owned(),
                other => other.label().to_lowercase(),
            };
            (key, if v.is_empty() { "not stated".into() } else { v })
        })
        .collect()
}

/// The most workers a soak starts: four per logical CPU, and never more
/// than [`WORKERS_CAP`] (issue 45 item 6: `--workers 4294967296` started
/// threads without bound). More load than that measures the scheduler,
/// not the machine's sustained speed.
pub fn max_workers() -> usize {
    let cpus = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    cpus.saturating_mul(4).min(WORKERS_CAP)
}

/// The ceiling of [`max_workers`] on any machine.
pub const WORKERS_CAP: usize = 1024;

/// Why a worker count cannot load this machine.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WorkersError {
    /// No worker at all.
    #[error("a soak needs at least one worker")]
    None,
    /// More than [`max_workers`].
    #[error(
        "{asked} workers is more than this machine takes: at most {max} (4 per logical CPU, never more than {WORKERS_CAP})"
    )]
    TooMany {
        /// The count asked for.
        asked: usize,
        /// This machine's [`max_workers`].
        max: usize,
    },
}

/// Why `workers` cannot load this machine, if it cannot: none, or more than
/// [`max_workers`].
pub fn check_workers(workers: usize) -> Result<(), WorkersError> {
    let max = max_workers();
    match workers {
        0 => Err(WorkersError::None),
        asked if asked > max => Err(WorkersError::TooMany { asked, max }),
        _ => Ok(()),
    }
}

/// Runs the soak, calling `on_sample` with each row as it is written.
/// Cancel is read while the workers start too: a cancelled start stops
/// those already running and ends with no sample.
pub fn run(
    spec: &SoakSpec,
    cancel: &AtomicBool,
    on_sample: &mut dyn FnMut(usize, SoakRow),
) -> Result<SoakOutcome, SoakRunError> {
    let (duration_s, interval_s) = (spec.protocol.duration_s, spec.protocol.interval_s);
    let ticks = spec.protocol.samples();
    let interval = Duration::try_from_secs_f64(interval_s).ok().filter(|i| !i.is_zero());
    let (Some(interval), true, true) = (interval, ticks > 0, spec.workers > 0) else {
        return Err(SoakRunError::Invalid(format!(
            "need an interval above 0, a duration of at least one interval and at least one worker (got {interval_s} s, {duration_s} s, {})",
            spec.workers
        )));
    };
    check_workers(spec.workers)?;
    let io = |source| SoakRunError::Io { path: spec.out.clone(), source };
    let mut file = std::fs::OpenOptions::new().write(true).create_new(true).open(&spec.out).map_err(io)?;
    let mut sensors = Sensors::discover(&spec.sensors_root);
    let (chunk_steps, chunk_ms) = calibrate();
    let placeholders = sensors.placeholders();
    let machine = Machine::read();
    let mut header = vec![
        "Vernier soak — written as it runs; a stopped soak keeps every row it wrote".to_owned(),
        format!("machine: {}", machine.cpu_model),
        format!("OS: {}, kernel {}", machine.os, machine.kernel),
        format!("logical CPUs: {}", machine.logical_cpus),
        format!("power source: {}", machine.power_source),
        format!("shared host: {}", machine.hypervisor),
        // T13: when it started, so two soaks' gap (their cool-down) is known.
        format!(
            "{}: {}",
            super::likeness::STARTED_FACT,
            chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
        ),
    ];
    header.extend(spec.context.iter().map(|(k, v)| format!("{k}: {v}")));
    header.extend([
        format!("protocol: duration {duration_s} s, interval {interval_s} s"),
        format!("{ANALYSIS_FACT}: {}", Thresholds::from(&spec.protocol).fact()),
        format!("workers: {}", spec.workers),
        format!("chunk size: {chunk_steps} dependent xorshift steps"),
        format!("calibrated chunk time: {chunk_ms:.3} ms"),
    ]);
    header.extend(sensors.sources().into_iter().map(|(col, src)| format!("source {col}: {src}")));
    header.push(format!(
        "placeholders: {}",
        if placeholders.is_empty() { "none".to_owned() } else { placeholders.join(", ") }
    ));
    let mut text: String = header.iter().map(|h| format!("# {}\n", h.replace(['\n', '\r'], " "))).collect();
    text.push_str(HEADER);
    text.push('\n');
    file.write_all(text.as_bytes()).and_then(|()| file.sync_data()).map_err(io)?;

    let done = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let mut workers = Vec::new();
    let mut cancelled = false;
    for k in 0..spec.workers {
        if cancel.load(Ordering::Relaxed) {
            cancelled = true;
            break;
        }
        let (count, halt) = (Arc::clone(&done), Arc::clone(&stop));
        let spawned = std::thread::Builder::new().name(format!("vernier-soak-{k}")).spawn(move || {
            while !halt.load(Ordering::Relaxed) {
                black_box(chunk(black_box(chunk_steps)));
                count.fetch_add(1, Ordering::Relaxed);
            }
        });
        match spawned {
            Ok(handle) => workers.push(handle),
            Err(e) => {
                stop.store(true, Ordering::Relaxed);
                for w in workers {
                    let _ = w.join();
                }
                return Err(SoakRunError::Io { path: spec.out.clone(), source: e });
            }
        }
    }
    let _ = sensors.sample(); // primes the energy counter
    let start = Instant::now();
    let (mut last_at, mut last_done) = (start, 0u64);
    let mut samples = 0;
    let result = (|| {
        if cancelled {
            return Ok(());
        }
        for k in 1..=ticks {
            let due = start + interval * k;
            while Instant::now() < due {
                if cancel.load(Ordering::Relaxed) {
                    cancelled = true;
                    return Ok(());
                }
                std::thread::sleep((due - Instant::now()).min(Duration::from_millis(50)));
            }
            let now = Instant::now();
            let count = done.load(Ordering::Relaxed);
            let score = (count - last_done) as f64 / now.duration_since(last_at).as_secs_f64();
            (last_at, last_done) = (now, count);
            let [clock_mhz, power_w, soc_temp_c, skin_temp_c] = sensors.sample();
            let t_seconds = (now.duration_since(start).as_secs_f64() * 1000.0).round() / 1000.0;
            let row = SoakRow { t_seconds, clock_mhz, power_w, soc_temp_c, skin_temp_c, score };
            writeln!(file, "{}", row.csv_line()).and_then(|()| file.sync_data()).map_err(io)?;
            samples += 1;
            on_sample(samples, row);
        }
        Ok(())
    })();
    stop.store(true, Ordering::Relaxed);
    let started = workers.len();
    for w in workers {
        let _ = w.join();
    }
    result.map(|()| SoakOutcome { samples, chunk_steps, chunk_ms, placeholders, workers: started, cancelled })
}

/// One chunk of the load: the canary's register-only arithmetic.
fn chunk(steps: u64) -> u64 {
    crate::kernels::dependent_steps(steps)
}

/// Doubles the chunk until one takes [`CHUNK_TARGET`]; returns its steps
/// and its median time over three runs.
fn calibrate() -> (u64, f64) {
    let time = |steps: u64| {
        let start = Instant::now();
        black_box(chunk(black_box(steps)));
        start.elapsed()
    };
    let mut steps = 1u64 << 16;
    while time(steps) < CHUNK_TARGET && steps < 1 << 40 {
        steps *= 2;
    }
    let mut ms: Vec<f64> = (0..3).map(|_| time(steps).as_secs_f64() * 1e3).collect();
    ms.sort_by(f64::total_cmp);
    (steps, ms[1])
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicBool;

    use super::*;

    fn spec(dir: &std::path::Path, workers: usize) -> SoakSpec {
        let protocol = SoakProtocol { duration_s: 2.0, interval_s: 1.0, ..SoakProtocol::default() };
        SoakSpec {
            protocol,
            workers,
            out: dir.join("soak.csv"),
            sensors_root: dir.join("no-sensors"),
            context: Vec::new(),
        }
    }

    // SPEC T2 (issue 45 item 6): more workers than 4 per logical CPU (and
    // never more than 1024) is refused before a file is written or a thread
    // started, saying the limit; the limit itself is taken.
    #[test]
    fn workers_past_the_limit_are_refused() {
        let tmp = tempfile::tempdir().expect("tmp");
        let max = max_workers();
        assert!((1..=WORKERS_CAP).contains(&max));
        for workers in [max + 1, 4_294_967_296, usize::MAX] {
            let err = run(&spec(tmp.path(), workers), &AtomicBool::new(false), &mut |_, _| {}).expect_err("refused");
            assert!(matches!(&err, SoakRunError::Workers(WorkersError::TooMany { .. })), "{err}");
            assert!(err.to_string().contains(&format!("at most {max}")), "{err}");
            assert!(!tmp.path().join("soak.csv").exists(), "nothing written");
        }
        assert!(check_workers(max).is_ok());
        assert!(check_workers(0).is_err());
    }

    // SPEC T2, E1 (issue 45 item 6): a cancel already asked for while the
    // workers start is honoured there: no worker starts, no sample is taken.
    #[test]
    fn a_cancel_while_workers_start_starts_none() {
        let tmp = tempfile::tempdir().expect("tmp");
        let cancel = AtomicBool::new(true);
        let outcome = run(&spec(tmp.path(), max_workers()), &cancel, &mut |_, _| {}).expect("runs");
        assert!(outcome.cancelled);
        assert_eq!((outcome.workers, outcome.samples), (0, 0));
    }
}
