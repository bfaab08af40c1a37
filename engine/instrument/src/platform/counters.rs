//! Hardware counters (SPEC E11, E13): read through `perf_event_open`, which
//! only Linux has. macOS keeps its counters behind a private framework and
//! Windows behind a kernel driver, so there they are not available.
//!
//! A run opens its counters once, on the measuring thread, before its
//! first trial, with `inherit` set: every process the thread starts from
//! then on — each trial and everything it starts — counts into them, and a
//! process's counts are added in when it exits, before its parent can see
//! it gone. A trial's counts are the difference of two reads around it
//! (its spawn and reaping included, as its wall time includes them). A
//! built-in kernel runs on the thread itself and is counted the same way.
//! Counting is in user space only (`exclude_kernel`), which is what an
//! unprivileged process may count under `perf_event_paranoid` 2.

/// Whether a hardware cycle counter can be opened by this process, and why not.
#[cfg(target_os = "linux")]
pub fn probe() -> String {
    match perf_event::Builder::new(perf_event::events::Hardware::CPU_CYCLES).build() {
        Ok(_) => AVAILABLE.into(),
        Err(e) => refusal(e.raw_os_error(), &e.to_string()),
    }
}

/// Whether a hardware cycle counter can be opened by this process, and why not.
#[cfg(not(target_os = "linux"))]
pub fn probe() -> String {
    format!("{} (Vernier reads hardware counters through Linux perf_event_open)", super::NOT_ON_THIS_PLATFORM)
}

/// What the row says when the counter opened.
pub const AVAILABLE: &str = "available (hardware cycle counter opened)";

/// What a row's counts are, when they were read.
pub const COUNTED: &str = "user-space cycles and instructions of each trial's processes (perf_event_open, inherited by every process a \
     trial starts)";

/// Why `perf_event_open` refused, from its errno.
pub fn refusal(errno: Option<i32>, message: &str) -> String {
    match errno {
        // ENOENT / EOPNOTSUPP: the kernel offers no such event here (a VM without a virtual PMU, for one).
        Some(2 | 95) => format!("not available: this machine exposes no hardware cycle counter ({message})"),
        // EACCES / EPERM: a counter exists but this user may not read it.
        Some(1 | 13) => format!("not available: not permitted here ({message}); see perf_event_paranoid"),
        _ => format!("not available: {message}"),
    }
}

/// Two counts read at one moment: cycles and instructions, or whatever
/// pair of events the counters were opened for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CounterReading {
    /// The first event's count (cycles).
    pub first: u64,
    /// The second event's count (instructions).
    pub second: u64,
    /// Nanoseconds the counters were enabled, summed over both.
    enabled: u64,
    /// Nanoseconds they really counted; below `enabled` when the kernel
    /// shared the hardware with other counters (multiplexing).
    running: u64,
}

impl CounterReading {
    /// A reading, for the counters' fakes in tests.
    pub fn new(first: u64, second: u64, enabled: u64, running: u64) -> Self {
        Self { first, second, enabled, running }
    }

    /// What happened between `self` and a `later` reading: `None` when the
    /// counters did not count all of that time (their share of the
    /// hardware was cut), since a scaled-up count would be an estimate.
    pub fn until(&self, later: &CounterReading) -> Option<(u64, u64)> {
        let enabled = later.enabled.checked_sub(self.enabled)?;
        let running = later.running.checked_sub(self.running)?;
        (running >= enabled).then(|| (later.first.saturating_sub(self.first), later.second.saturating_sub(self.second)))
    }
}

/// Why counters could not be opened or read; each says so as the row
/// records it (SPEC E11, E13).
#[derive(Debug, thiserror::Error)]
pub enum CountersError {
    /// `perf_event_open` refused, or this platform has no counters: the
    /// text is [`refusal`]'s or [`probe`]'s.
    #[error("{0}")]
    Refused(String),
    /// A counter opened but would not start.
    #[error("not available: the counter did not start ({0})")]
    NotStarted(#[source] std::io::Error),
    /// An open counter could not be read.
    #[error("a counter could not be read ({0})")]
    Unreadable(#[source] std::io::Error),
}

/// The events a run counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Events {
    /// Cycles and instructions: what a row records (SPEC E13).
    Hardware,
    /// The task clock, twice: a software event that VMs without a virtual
    /// PMU still offer, so the counting path (open, inherit, read) is
    /// tested where the hardware events are not.
    TaskClock,
}

/// Open counters on the calling thread and every process it starts from
/// now on.
pub struct Counters(imp::Counters);

impl Counters {
    /// Opens `events` on the calling thread, inherited by its children;
    /// the error says why they cannot be.
    pub fn open(events: Events) -> Result<Self, CountersError> {
        imp::Counters::open(events).map(Self)
    }

    /// Both counts now; the error says why they could not be read.
    pub fn read(&mut self) -> Result<CounterReading, CountersError> {
        self.0.read()
    }
}

#[cfg(target_os = "linux")]
mod imp {
    use perf_event::events::{Hardware, Software};
    use perf_event::{Builder, Counter};

    use super::{CounterReading, CountersError, Events};

    pub struct Counters([Counter; 2]);

    impl Counters {
        pub fn open(events: Events) -> Result<Self, CountersError> {
            let open = |builder: &mut Builder<'_>| {
                let mut counter = builder
                    .observe_self()
                    .any_cpu()
                    .inherit(true)
                    .build()
                    .map_err(|e| CountersError::Refused(super::refusal(e.raw_os_error(), &e.to_string())))?;
                counter.enable().map_err(CountersError::NotStarted)?;
                Ok::<_, CountersError>(counter)
            };
            let (first, second) = match events {
                Events::Hardware => (Builder::new(Hardware::CPU_CYCLES), Builder::new(Hardware::INSTRUCTIONS)),
                Events::TaskClock => (Builder::new(Software::TASK_CLOCK), Builder::new(Software::TASK_CLOCK)),
            };
            let (mut first, mut second) = (first, second);
            Ok(Self([open(&mut first)?, open(&mut second)?]))
        }

        pub fn read(&mut self) -> Result<CounterReading, CountersError> {
            let [first, second] = &mut self.0;
            let a = first.read_count_and_time().map_err(CountersError::Unreadable)?;
            let b = second.read_count_and_time().map_err(CountersError::Unreadable)?;
            Ok(CounterReading {
                first: a.count,
                second: b.count,
                enabled: a.time_enabled + b.time_enabled,
                running: a.time_running + b.time_running,
            })
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    use super::{CounterReading, CountersError, Events};

    pub struct Counters;

    impl Counters {
        pub fn open(_events: Events) -> Result<Self, CountersError> {
            Err(CountersError::Refused(super::probe()))
        }

        pub fn read(&mut self) -> Result<CounterReading, CountersError> {
            Err(CountersError::Refused(super::probe()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // SPEC E9, E11: a refused counter says why, never "available".
    #[test]
    fn refusals_name_their_reason() {
        assert!(refusal(Some(13), "Permission denied").contains("perf_event_paranoid"));
        assert!(refusal(Some(2), "No such file").contains("exposes no hardware cycle counter"));
        assert_eq!(refusal(None, "odd"), "not available: odd");
        assert!(probe().starts_with("available") || probe().starts_with("not available"));
    }

    // SPEC E13: a difference is taken only over time the counters really
    // counted; a multiplexed stretch gives none rather than an estimate.
    #[test]
    fn a_difference_needs_the_whole_stretch_counted() {
        let before = CounterReading::new(100, 1000, 50, 50);
        assert_eq!(before.until(&CounterReading::new(400, 1600, 150, 150)), Some((300, 600)));
        assert_eq!(before.until(&CounterReading::new(400, 1600, 150, 120)), None, "multiplexed");
        assert_eq!(before.until(&CounterReading::new(400, 1600, 40, 40)), None, "went backwards");
    }

    // SPEC E13: the real counting path — opened on this thread, inherited
    // by a child at its spawn, its counts added in when it exits — with the
    // task clock, which a VM offers when it has no hardware counters. Where
    // even that is refused, the test says so and checks the refusal.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_childs_counts_are_inherited_and_read_after_it_exits() {
        let mut counters = match Counters::open(Events::TaskClock) {
            Ok(counters) => counters,
            Err(why) => {
                eprintln!("the task clock cannot be opened here, so the inherited path is not checked: {why}");
                assert!(why.to_string().starts_with("not available"), "{why}");
                return;
            }
        };
        let before = counters.read().expect("read");
        let mut child = std::process::Command::new("sh")
            .args(["-c", "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done"])
            .spawn()
            .expect("sh");
        let (status, cpu) = super::super::cpu_time::reap(&mut child).expect("reaped");
        assert!(status.success());
        let after = counters.read().expect("read");
        let (task_ns, _) = before.until(&after).expect("counted throughout");
        let cpu = cpu.expect("the child's CPU time");
        // The child's task clock is its CPU time, counted by the counter;
        // rusage is sampled at the tick, so they agree only roughly.
        assert!(task_ns * 2 >= cpu, "the counter saw {task_ns} ns of a child that used {cpu} ns of CPU");
        assert!(task_ns >= 10_000_000, "the child's work was not inherited: {task_ns} ns");
    }
}
