//! The process's own threads beside a run (SPEC E15): an instrument must
//! not compete with what it measures, and must show that it did not.
//!
//! While a run from the window is in flight, every thread of the process
//! other than the run's own (the measuring thread and its watchdog) is
//! kept off the CPU the run is pinned to — the UI thread, the file thread,
//! the engine thread and whatever threads the renderer started inside the
//! process (Mesa's llvmpipe rasterisers, for one) — and put back afterwards.
//! Their CPU time during the run is counted whole, so the row can state what
//! the window cost: the process's CPU time less the run's own threads', from
//! the run thread's first step (before it reads the machine and pins
//! itself) to its last (after its watchdog and its trials' guardian have
//! ended), which is the span an outside reader sees the run's thread live
//! (`app/benches/window-cpu.sh`). A frame the window draws while the run
//! ends is thus counted, and threads that ended meanwhile are too. Threads
//! of other processes (the display server, a compositor) are out of reach
//! and out of the count, and the text says so.
//!
//! Linux does both through `/proc/self/task` and `sched_setaffinity`;
//! elsewhere nothing is moved and the reading is "not available on this
//! platform". The text of `/proc` files is read by pure functions, tested
//! here on any OS.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use super::NOT_ON_THIS_PLATFORM;

/// Where the threads beside the run were, as the row states it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeptOff {
    /// The run was not pinned: there is no one CPU to keep free.
    NotPinned,
    /// Pinned to `cpu`; `moved` threads were kept off it, `already_off` did
    /// not use it anyway, `refused` could not be moved.
    Off {
        /// The run's CPU.
        cpu: usize,
        /// Threads moved off it for the run and put back after.
        moved: usize,
        /// Threads whose placement already left it out.
        already_off: usize,
        /// Threads the OS would not move.
        refused: usize,
    },
    /// `cpu` is the only CPU the process may use: nothing can leave it.
    OnlyCpu(usize),
    /// Another run in this process is keeping the threads placed (two
    /// engines in one process: only tests do that).
    Held,
    /// This OS gives no way to move another thread.
    NotAvailable,
}

/// What the threads beside a run cost during it.
#[derive(Debug, Clone, PartialEq)]
pub struct Beside {
    /// How long the watch lasted.
    pub wall: Duration,
    /// Their CPU time (every thread of the process but the run's own),
    /// or why it cannot be read here.
    pub cpu: Result<Duration, &'static str>,
    /// Where they were kept.
    pub kept: KeptOff,
}

impl Beside {
    /// The row's `window CPU during the run` value: the share of one core
    /// first (what a reader compares), then the figures it comes from and
    /// where the threads were.
    pub fn describe(&self) -> String {
        let Ok(cpu) = self.cpu else { return NOT_ON_THIS_PLATFORM.to_owned() };
        let wall = self.wall.as_secs_f64();
        let share = if wall > 0.0 { 100.0 * cpu.as_secs_f64() / wall } else { 0.0 };
        let kept = match &self.kept {
            KeptOff::NotPinned => "the run was not pinned, so the window's threads shared every CPU with it".to_owned(),
            KeptOff::Off { cpu, moved, already_off, refused } => {
                let mut text = format!(
                    "the window's threads were kept off CPU {cpu} ({moved} moved for the run{})",
                    if *already_off > 0 { format!(", {already_off} already off it") } else { String::new() }
                );
                if *refused > 0 {
                    text.push_str(&format!("; {refused} could not be moved"));
                }
                text
            }
            KeptOff::OnlyCpu(cpu) => {
                format!("CPU {cpu} is the only CPU this process may use, so the window's threads shared it")
            }
            KeptOff::Held => "the window's threads were placed by another run in this process".to_owned(),
            KeptOff::NotAvailable => format!("the window's threads were not moved: {NOT_ON_THIS_PLATFORM}"),
        };
        format!(
            "{share:.1} % of a core ({:.3} s of CPU in {wall:.2} s; {kept}; the display server's own time is not counted)",
            cpu.as_secs_f64()
        )
    }
}

/// A watch started on the run's own thread as the run starts;
/// [`Watch::keep_off`] moves the other threads once it is pinned, and
/// [`Watch::finish`] on the same thread ends it as the run ends.
pub struct Watch {
    started: Instant,
    inner: imp::Watch,
}

impl Watch {
    /// Starts counting, first thing on the run's thread, so that what the
    /// window does while the run reads the machine is counted too. The
    /// calling thread and any thread named in `run_threads` (the run's own
    /// helpers, which follow its placement) are the run's; every other
    /// thread of the process is the window's.
    pub fn start(run_threads: &'static [&'static str]) -> Self {
        Self { started: Instant::now(), inner: imp::Watch::start(run_threads) }
    }

    /// Once the run is pinned to `pinned`, keeps every other thread of the
    /// process off that CPU until the watch ends; unpinned (`None`), nothing
    /// is moved and the row says so.
    pub fn keep_off(&mut self, pinned: Option<usize>) {
        self.inner.keep_off(pinned);
    }

    /// Reads the run's helpers' CPU time now, for a helper about to end
    /// before the watch does (the watchdog ends with its runner): an ended
    /// thread's time can no longer be told apart from the window's, so what
    /// it used up to here is taken as the run's, and only its last steps
    /// (waking to end: microseconds) fall to the window.
    pub fn helpers_ending(&mut self) {
        self.inner.helpers_ending();
    }

    /// Ends the watch: the threads are put back where they were, and what
    /// they cost is returned.
    pub fn finish(self) -> Beside {
        let wall = self.started.elapsed();
        let (cpu, kept) = self.inner.finish();
        Beside { wall, cpu, kept }
    }
}

/// One thread of this process: its id, its name and the CPUs it may run on.
pub type ThreadPlacement = (i32, String, Vec<usize>);

/// The CPUs each thread of this process may run on, by thread id, as
/// `/proc/self/task/*/status` lists them (`Cpus_allowed_list`), with each
/// thread's name; what the tests look at.
pub fn thread_placements() -> Result<Vec<ThreadPlacement>, &'static str> {
    imp::thread_placements()
}

/// The nanoseconds on CPU in a `/proc/…/schedstat` text (its first field).
// Read only on Linux; tested everywhere, so the readers stay honest.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn schedstat_ns(text: &str) -> Option<u64> {
    text.split_whitespace().next()?.parse().ok()
}

/// utime + stime, in clock ticks, from a `/proc/…/stat` text. The name in
/// parentheses may hold spaces, so fields are counted after its last `)`.
// Read only on Linux; tested everywhere, so the readers stay honest.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn stat_ticks(text: &str) -> Option<u64> {
    let rest = &text[text.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace().skip(11);
    let utime: u64 = fields.next()?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    Some(utime + stime)
}

/// A CPU list as the kernel writes it (`0-3,6`), as numbers.
// Read only on Linux; tested everywhere, so the readers stay honest.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn cpu_list(text: &str) -> Option<Vec<usize>> {
    let mut cpus = Vec::new();
    for part in text.trim().split(',').filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b): (usize, usize) = (a.parse().ok()?, b.parse().ok()?);
                if b < a || b - a > 65_536 {
                    return None;
                }
                cpus.extend(a..=b);
            }
            None => cpus.push(part.parse().ok()?),
        }
    }
    Some(cpus)
}

/// The run's helpers' CPU time during the watch: each one's last reading
/// (at the end, or just before it ended) less its reading at the start,
/// or less nothing for a helper that started after the watch did. By
/// thread id.
// Read only on Linux; tested everywhere, so the sums stay honest.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn helpers_time(start: &HashMap<i32, Duration>, last: &HashMap<i32, Duration>) -> Duration {
    last.iter().map(|(tid, cpu)| cpu.saturating_sub(start.get(tid).copied().unwrap_or_default())).sum()
}

/// True when a thread's `comm` is `name` as the kernel keeps it (cut to
/// 15 bytes).
// Read only on Linux; tested everywhere, so the readers stay honest.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn named(comm: &str, name: &str) -> bool {
    let cut = name.as_bytes().get(..name.len().min(15)).unwrap_or_default();
    comm.trim_end_matches('\n').as_bytes() == cut
}

#[cfg(target_os = "linux")]
mod imp {
    //! `/proc/self/task` and `sched_setaffinity`.

    use std::collections::HashMap;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::Duration;

    use rustix::process::Pid;
    use rustix::thread::{CpuSet, sched_getaffinity, sched_setaffinity};
    use rustix::time::{ClockId, clock_gettime};

    use super::{KeptOff, ThreadPlacement, cpu_list, helpers_time, named, schedstat_ns, stat_ticks};

    /// Only one run at a time moves the process's threads: a second one
    /// (two engines in one test process) would save the first's placement
    /// as the one to restore.
    static HELD: AtomicBool = AtomicBool::new(false);

    pub(super) struct Watch {
        own: i32,
        run_threads: &'static [&'static str],
        /// CPU time of the whole process (every thread, living or ended; not
        /// its children) at the start.
        process: Duration,
        /// The calling thread's.
        thread: Duration,
        /// The run's other threads' (by id) at the start.
        helpers: HashMap<i32, Duration>,
        /// Their latest reading, kept for those that end before the watch.
        helpers_last: HashMap<i32, Duration>,
        /// Where the other threads are kept, once the run is pinned. Taken
        /// by `finish`; a watch dropped before (a run that could not start)
        /// still puts the threads back.
        fence: Option<Fence>,
    }

    enum Fence {
        KeptOff { cpu: usize, saved: Vec<(i32, CpuSet)>, leader: Option<CpuSet>, already_off: usize, refused: usize },
        Not(KeptOff),
    }

    fn timespec(t: rustix::time::Timespec) -> Duration {
        Duration::new(u64::try_from(t.tv_sec).unwrap_or(0), u32::try_from(t.tv_nsec).unwrap_or(0))
    }

    fn tids() -> Vec<i32> {
        let Ok(dir) = std::fs::read_dir("/proc/self/task") else { return Vec::new() };
        dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok()).collect()
    }

    fn comm(tid: i32) -> String {
        std::fs::read_to_string(format!("/proc/self/task/{tid}/comm")).unwrap_or_default()
    }

    fn is_helper(tid: i32, run_threads: &[&str]) -> bool {
        let comm = comm(tid);
        run_threads.iter().any(|name| named(&comm, name))
    }

    /// The CPU time of each living thread named in `run_threads` but the
    /// caller, by id.
    fn read_helpers(own: i32, run_threads: &[&str]) -> HashMap<i32, Duration> {
        tids()
            .into_iter()
            .filter(|&t| t != own && is_helper(t, run_threads))
            .filter_map(|t| Some((t, thread_cpu(t)?)))
            .collect()
    }

    /// A thread's CPU time: `schedstat` in nanoseconds, or `stat` in ticks
    /// where the kernel keeps no schedstat.
    fn thread_cpu(tid: i32) -> Option<Duration> {
        if let Some(ns) =
            std::fs::read_to_string(format!("/proc/self/task/{tid}/schedstat")).ok().as_deref().and_then(schedstat_ns)
        {
            return Some(Duration::from_nanos(ns));
        }
        let ticks = stat_ticks(&std::fs::read_to_string(format!("/proc/self/task/{tid}/stat")).ok()?)?;
        let hz = rustix::param::clock_ticks_per_second().max(1);
        Some(Duration::from_secs_f64(ticks as f64 / hz as f64))
    }

    impl Watch {
        pub(super) fn start(run_threads: &'static [&'static str]) -> Self {
            let own = rustix::thread::gettid().as_raw_nonzero().get();
            let helpers = read_helpers(own, run_threads);
            Self {
                own,
                run_threads,
                process: timespec(clock_gettime(ClockId::ProcessCPUTime)),
                thread: timespec(clock_gettime(ClockId::ThreadCPUTime)),
                helpers_last: helpers.clone(),
                helpers,
                fence: None,
            }
        }

        pub(super) fn keep_off(&mut self, pinned: Option<usize>) {
            if let Some(fence) = self.fence.take() {
                self.put_back(fence);
            }
            self.fence = Some(match pinned {
                None => Fence::Not(KeptOff::NotPinned),
                Some(cpu) => fence(cpu, self.own, self.run_threads),
            });
        }

        pub(super) fn helpers_ending(&mut self) {
            self.helpers_last.extend(read_helpers(self.own, self.run_threads));
        }

        pub(super) fn finish(mut self) -> (Result<Duration, &'static str>, KeptOff) {
            // The run's own time: this thread's, and each helper's up to its
            // last reading. The helpers are read first, so the process's
            // reading holds all they are charged with. Clamped at zero: the
            // kernel adds a thread's time on another CPU at its next tick, so
            // two readings a moment apart may disagree by less than a tick.
            self.helpers_ending();
            let process = timespec(clock_gettime(ClockId::ProcessCPUTime)).saturating_sub(self.process);
            let own = timespec(clock_gettime(ClockId::ThreadCPUTime)).saturating_sub(self.thread);
            let run = own + helpers_time(&self.helpers, &self.helpers_last);
            let kept = self.fence.take().map_or(KeptOff::NotPinned, |fence| self.put_back(fence));
            (Ok(process.saturating_sub(run)), kept)
        }

        fn put_back(&self, fence: Fence) -> KeptOff {
            match fence {
                Fence::Not(kept) => kept,
                Fence::KeptOff { cpu, saved, leader, already_off, refused } => {
                    restore(cpu, self.own, self.run_threads, &saved, leader);
                    HELD.store(false, Ordering::Release);
                    KeptOff::Off { cpu, moved: saved.len(), already_off, refused }
                }
            }
        }
    }

    impl Drop for Watch {
        fn drop(&mut self) {
            if let Some(fence) = self.fence.take() {
                self.put_back(fence);
            }
        }
    }

    /// Moves every thread but the caller and the run's helpers off `cpu`.
    fn fence(cpu: usize, own: i32, run_threads: &[&str]) -> Fence {
        if HELD.swap(true, Ordering::AcqRel) {
            return Fence::Not(KeptOff::Held);
        }
        let (mut saved, mut already_off, mut refused) = (Vec::new(), 0, 0);
        let pid = rustix::process::getpid().as_raw_nonzero().get();
        let mut leader = None;
        for tid in tids() {
            if tid == own || is_helper(tid, run_threads) {
                continue;
            }
            let Some(id) = Pid::from_raw(tid) else { continue };
            // A thread that ended meanwhile is simply gone.
            let Ok(old) = sched_getaffinity(Some(id)) else { continue };
            if tid == pid {
                leader = Some(old);
            }
            if !old.is_set(cpu) {
                already_off += 1;
                continue;
            }
            let mut new = old;
            new.unset(cpu);
            if new.count() == 0 {
                HELD.store(false, Ordering::Release);
                return Fence::Not(KeptOff::OnlyCpu(cpu));
            }
            match sched_setaffinity(Some(id), &new) {
                Ok(()) => saved.push((tid, old)),
                Err(rustix::io::Errno::SRCH) => {}
                Err(_) => refused += 1,
            }
        }
        Fence::KeptOff { cpu, saved, leader, already_off, refused }
    }

    /// Puts each moved thread back; a thread started during the run from a
    /// moved one inherited the narrower placement, so it gets the main
    /// thread's as it was.
    fn restore(cpu: usize, own: i32, run_threads: &[&str], saved: &[(i32, CpuSet)], leader: Option<CpuSet>) {
        for (tid, old) in saved {
            if let Some(id) = Pid::from_raw(*tid) {
                // A thread that ended during the run has nothing to restore.
                let _ = sched_setaffinity(Some(id), old);
            }
        }
        let Some(leader) = leader else { return };
        for tid in tids() {
            if tid == own || saved.iter().any(|(t, _)| *t == tid) || is_helper(tid, run_threads) {
                continue;
            }
            let Some(id) = Pid::from_raw(tid) else { continue };
            if sched_getaffinity(Some(id)).is_ok_and(|now| !now.is_set(cpu)) {
                let _ = sched_setaffinity(Some(id), &leader);
            }
        }
    }

    pub(super) fn thread_placements() -> Result<Vec<ThreadPlacement>, &'static str> {
        let mut threads = Vec::new();
        for tid in tids() {
            let Ok(status) = std::fs::read_to_string(format!("/proc/self/task/{tid}/status")) else { continue };
            let Some(list) = status.lines().find_map(|l| l.strip_prefix("Cpus_allowed_list:")) else { continue };
            let cpus = cpu_list(list).ok_or("a Cpus_allowed_list could not be read")?;
            threads.push((tid, comm(tid).trim_end().to_owned(), cpus));
        }
        Ok(threads)
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    //! No reading and no moving: said, never guessed.

    use std::time::Duration;

    use super::super::NOT_ON_THIS_PLATFORM;
    use super::{KeptOff, ThreadPlacement};

    pub(super) struct Watch {
        pinned: bool,
    }

    impl Watch {
        pub(super) fn start(_run_threads: &'static [&'static str]) -> Self {
            Self { pinned: false }
        }

        pub(super) fn keep_off(&mut self, pinned: Option<usize>) {
            self.pinned = pinned.is_some();
        }

        pub(super) fn helpers_ending(&mut self) {}

        pub(super) fn finish(self) -> (Result<Duration, &'static str>, KeptOff) {
            (Err(NOT_ON_THIS_PLATFORM), if self.pinned { KeptOff::NotAvailable } else { KeptOff::NotPinned })
        }
    }

    pub(super) fn thread_placements() -> Result<Vec<ThreadPlacement>, &'static str> {
        Err(NOT_ON_THIS_PLATFORM)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // SPEC E15: the /proc texts are read as the kernel writes them.
    #[test]
    fn proc_texts_are_read() {
        assert_eq!(schedstat_ns("103792 2000 1\n"), Some(103_792));
        assert_eq!(schedstat_ns(""), None);
        let stat = "42 (vernier (x) y) S 1 42 42 0 -1 4194560 100 0 0 0 17 5 0 0 20 0 3 0 1 2 3";
        assert_eq!(stat_ticks(stat), Some(22));
        assert_eq!(stat_ticks("42 (no close"), None);
        assert_eq!(cpu_list("0-2,5\n"), Some(vec![0, 1, 2, 5]));
        assert_eq!(cpu_list("1"), Some(vec![1]));
        assert_eq!(cpu_list("3-1"), None);
        assert_eq!(cpu_list("x"), None);
        assert!(named("vernier-watchdo\n", "vernier-watchdog"));
        assert!(named("vernier-bench\n", "vernier-bench"));
        assert!(!named("vernier-ben\n", "vernier-bench"));
        assert!(!named("vernier-io\n", "vernier-bench"));
    }

    // SPEC E15: the row says the share of a core first, then where the
    // threads were, and never claims a reading the OS did not give.
    #[test]
    fn the_window_cpu_text_says_what_was_done() {
        let beside = Beside {
            wall: Duration::from_millis(500),
            cpu: Ok(Duration::from_millis(10)),
            kept: KeptOff::Off { cpu: 1, moved: 9, already_off: 0, refused: 1 },
        };
        let text = beside.describe();
        assert!(text.starts_with("2.0 % of a core (0.010 s of CPU in 0.50 s; "), "{text}");
        assert!(text.contains("kept off CPU 1 (9 moved for the run); 1 could not be moved"), "{text}");
        assert!(text.ends_with("the display server's own time is not counted)"), "{text}");
        let unread = Beside { cpu: Err(NOT_ON_THIS_PLATFORM), ..beside.clone() };
        assert_eq!(unread.describe(), NOT_ON_THIS_PLATFORM);
        let free = Beside { kept: KeptOff::NotPinned, ..beside };
        assert!(free.describe().contains("not pinned"));
    }

    // SPEC E15: a watch with nothing pinned moves nothing and counts the
    // process's other threads (here: whatever else the test binary runs).
    #[test]
    fn an_unpinned_watch_counts_without_moving() {
        let mut watch = Watch::start(&["vernier-bench"]);
        watch.keep_off(None);
        let beside = watch.finish();
        assert_eq!(beside.kept, KeptOff::NotPinned);
        if cfg!(target_os = "linux") {
            assert!(beside.cpu.is_ok());
        } else {
            assert_eq!(beside.cpu, Err(NOT_ON_THIS_PLATFORM));
        }
    }

    // SPEC E15: a helper's time is the run's from its reading at the start
    // (none: it started later) to its last one, taken before it ended.
    #[test]
    fn the_helpers_time_runs_from_their_first_reading_to_their_last() {
        let ms = Duration::from_millis;
        let start = HashMap::from([(7, ms(100))]);
        let last = HashMap::from([(7, ms(130)), (8, ms(40))]);
        assert_eq!(helpers_time(&start, &last), ms(70));
        assert_eq!(helpers_time(&start, &HashMap::new()), Duration::ZERO);
        // A reading below the start (a reused thread id) adds nothing.
        assert_eq!(helpers_time(&HashMap::from([(8, ms(90))]), &last), ms(130));
    }

    /// Spends `cpu` of this thread's own CPU time, whatever else the
    /// machine is doing (a wall-clock loop would spend less when the
    /// thread waits for a CPU).
    #[cfg(target_os = "linux")]
    fn burn(cpu: Duration) {
        use rustix::time::{ClockId, clock_gettime};
        let now = || {
            let t = clock_gettime(ClockId::ThreadCPUTime);
            Duration::new(u64::try_from(t.tv_sec).unwrap_or(0), u32::try_from(t.tv_nsec).unwrap_or(0))
        };
        let end = now() + cpu;
        let mut spin = 0u64;
        while now() < end {
            spin = std::hint::black_box(spin.wrapping_add(1));
        }
    }

    // SPEC E15 (issue 34): the window's CPU is counted whole: a busy thread
    // that is not the run's is counted, even one that ended before the
    // watch did (a renderer thread that came and went). Only a lower bound
    // is asserted: the test binary's other tests run beside this one.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_busy_thread_beside_the_run_is_counted_whole() {
        let burned = Duration::from_millis(200);
        let run = std::thread::Builder::new().name("vernier-bench".into()).spawn(move || {
            let mut watch = Watch::start(&["vernier-bench", "vernier-watchdog"]);
            watch.keep_off(None);
            let beside = std::thread::Builder::new().name("vernier-io".into()).spawn(move || burn(burned));
            beside.expect("a thread beside the run").join().expect("it burned");
            watch.finish()
        });
        let beside = run.expect("the run's thread").join().expect("the watch ended");
        let cpu = beside.cpu.expect("readable on Linux");
        assert!(cpu >= burned / 2, "the busy thread's {burned:?} was not counted: {cpu:?}");
    }
}
