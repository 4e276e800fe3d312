//! The CPU device's workers: threads that spin for a while after each launch before they sleep, so that the
//! next launch of a run of many small ones (a road network's BFS levels: thousands of launches of a few hundred
//! iterations) starts in about a microsecond, as an OpenMP team does, rather than after waking sleeping threads
//! (rayon's pool: about 12 µs a launch, more than such a launch's work).
//!
//! A launch publishes a [`Job`] that lives on the launching thread's stack: the chunk count, a counter from which
//! every thread (the launcher too) claims chunks in order, and a slot per chunk for its partial reduction, which
//! the launcher combines in chunk order (so a float sum is the same on every run with the same threads). The
//! launcher withdraws the job and waits until no worker still holds it before its stack frame ends: a worker
//! announces itself (`active`) *before* it reads the job pointer, and the launcher clears the pointer *before*
//! it waits for `active` to drain, both sequentially consistent, so no worker can reach a withdrawn job.
//!
//! A chunk that panics (a hand-written `CpuKernels` may; generated code does not) is caught on whichever thread
//! ran it and re-raised on the launcher after the job is withdrawn.
//!
//! One pool per thread count serves the whole process ([`WorkerPool::shared`]): every run, bench repetition and
//! Python call with the same `--threads` finds it ready. Launches from several threads at once take turns.

use std::any::Any;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, AtomicUsize, Ordering::*};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// How long an idle worker spins before it sleeps: longer than the host's work between two launches of a plan's
/// loop, short enough that an idle process stops using the cores at once to a person.
const SPIN: Duration = Duration::from_micros(200);

/// One launch: chunks `0..chunks` of `run`.
struct Job<'a> {
    run: &'a (dyn Fn(u64) -> u64 + Sync),
    chunks: u64,
    next: AtomicU64,
    done: AtomicU64,
    partials: Vec<AtomicU64>,
    /// The first panic of a chunk, re-raised by the launcher once no worker holds the job.
    panic: Mutex<Option<Box<dyn Any + Send>>>,
}

impl Job<'_> {
    /// Claims and runs chunks until none is left. A chunk that panics still counts as done (its panic is kept
    /// for the launcher), so that the launcher never unwinds, or waits forever, while the job is published.
    fn work(&self) {
        loop {
            let c = self.next.fetch_add(1, Relaxed);
            if c >= self.chunks {
                return;
            }
            match catch_unwind(AssertUnwindSafe(|| (self.run)(c))) {
                Ok(bits) => self.partials[c as usize].store(bits, Relaxed),
                Err(p) => {
                    self.panic.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(p);
                }
            }
            self.done.fetch_add(1, Release);
        }
    }
}

/// What the launcher and the workers share.
struct Shared {
    /// The job being run (a `Job` on the launcher's stack, its lifetime erased), or null.
    job: AtomicPtr<Job<'static>>,
    /// Bumped by every launch, so a spinning worker sees that there is work.
    epoch: AtomicU64,
    /// Workers between announcing themselves and leaving a job.
    active: AtomicUsize,
    /// Sleeping workers, and where they sleep.
    sleepers: AtomicUsize,
    sleep: Mutex<()>,
    wake: Condvar,
    stop: AtomicBool,
}

/// `threads - 1` workers; the launching thread is the last.
pub struct WorkerPool {
    shared: Arc<Shared>,
    threads: usize,
    /// One launch at a time.
    launch: Mutex<()>,
    workers: Vec<std::thread::JoinHandle<()>>,
}

impl WorkerPool {
    /// A pool of `threads` threads in all (at least 1).
    pub fn new(threads: usize) -> std::io::Result<WorkerPool> {
        let threads = threads.max(1);
        let shared = Arc::new(Shared {
            job: AtomicPtr::new(std::ptr::null_mut()),
            epoch: AtomicU64::new(0),
            active: AtomicUsize::new(0),
            sleepers: AtomicUsize::new(0),
            sleep: Mutex::new(()),
            wake: Condvar::new(),
            stop: AtomicBool::new(false),
        });
        let mut pool = WorkerPool { shared, threads, launch: Mutex::new(()), workers: Vec::with_capacity(threads - 1) };
        for i in 1..threads {
            let s = Arc::clone(&pool.shared);
            // On an error, dropping `pool` stops and joins the workers started so far.
            pool.workers.push(std::thread::Builder::new().name(format!("irgc-cpu-{i}")).spawn(move || worker(&s))?);
        }
        Ok(pool)
    }

    /// The process's pool of `threads` threads, made on first use.
    pub fn shared(threads: usize) -> std::io::Result<Arc<WorkerPool>> {
        static POOLS: OnceLock<Mutex<Vec<Arc<WorkerPool>>>> = OnceLock::new();
        let mut pools = POOLS.get_or_init(|| Mutex::new(Vec::new())).lock().unwrap_or_else(|e| e.into_inner());
        if let Some(p) = pools.iter().find(|p| p.threads == threads.max(1)) {
            return Ok(Arc::clone(p));
        }
        let p = Arc::new(WorkerPool::new(threads)?);
        pools.push(Arc::clone(&p));
        Ok(p)
    }

    /// Threads in all, the launcher included.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Runs `run(c)` for every chunk `c` in `0..chunks` on all the pool's threads; returns the results in chunk
    /// order.
    pub fn run(&self, chunks: u64, run: &(dyn Fn(u64) -> u64 + Sync)) -> Vec<u64> {
        let _turn = self.launch.lock().unwrap_or_else(|e| e.into_inner());
        let job = Job {
            run,
            chunks,
            next: AtomicU64::new(0),
            done: AtomicU64::new(0),
            partials: (0..chunks).map(|_| AtomicU64::new(0)).collect(),
            panic: Mutex::new(None),
        };
        let s = &*self.shared;
        // Only the pointer's lifetime is erased: the job is withdrawn below, before `job` goes out of scope.
        s.job.store(&job as *const Job<'_> as *mut Job<'static>, SeqCst);
        s.epoch.fetch_add(1, SeqCst);
        if s.sleepers.load(SeqCst) > 0 {
            let _g = s.sleep.lock().unwrap_or_else(|e| e.into_inner());
            s.wake.notify_all();
        }
        job.work();
        let mut spins = 0u32;
        while job.done.load(Acquire) < chunks {
            relax(&mut spins);
        }
        s.job.store(std::ptr::null_mut(), SeqCst);
        while s.active.load(SeqCst) > 0 {
            relax(&mut spins);
        }
        if let Some(p) = job.panic.lock().unwrap_or_else(|e| e.into_inner()).take() {
            resume_unwind(p);
        }
        job.partials.iter().map(|p| p.load(Relaxed)).collect()
    }
}

impl Drop for WorkerPool {
    fn drop(&mut self) {
        let s = &*self.shared;
        s.stop.store(true, SeqCst);
        s.epoch.fetch_add(1, SeqCst);
        {
            let _g = s.sleep.lock().unwrap_or_else(|e| e.into_inner());
            s.wake.notify_all();
        }
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
    }
}

/// One turn of a wait loop: a spin hint, and every 64th turn a yield, so that a thread of this pool that the OS
/// has descheduled (more threads than cores: parallel test runs, other processes) gets the core back soon.
fn relax(spins: &mut u32) {
    *spins = spins.wrapping_add(1);
    if spins.is_multiple_of(64) {
        std::thread::yield_now();
    } else {
        std::hint::spin_loop();
    }
}

/// A worker: waits for a new epoch (spinning, then sleeping), joins the job published with it, repeats.
fn worker(s: &Shared) {
    let mut seen = 0;
    loop {
        let start = Instant::now();
        let mut spins = 0u32;
        while s.epoch.load(Acquire) == seen {
            relax(&mut spins);
            if spins.is_multiple_of(256) && start.elapsed() > SPIN {
                let mut g = s.sleep.lock().unwrap_or_else(|e| e.into_inner());
                s.sleepers.fetch_add(1, SeqCst);
                while s.epoch.load(SeqCst) == seen {
                    g = s.wake.wait(g).unwrap_or_else(|e| e.into_inner());
                }
                s.sleepers.fetch_sub(1, SeqCst);
            }
        }
        seen = s.epoch.load(Acquire);
        if s.stop.load(SeqCst) {
            return;
        }
        s.active.fetch_add(1, SeqCst);
        let job = s.job.load(SeqCst);
        if !job.is_null() {
            // SAFETY: a non-null pointer read after announcing ourselves in `active` is a job whose launcher has
            // not yet withdrawn it, and the launcher keeps it alive until `active` drains (module documentation).
            unsafe { &*job }.work();
        }
        s.active.fetch_sub(1, SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_chunk_runs_once_and_results_come_in_order() {
        for threads in [1, 2, 3, 8] {
            let pool = WorkerPool::new(threads).unwrap();
            for chunks in [0u64, 1, 2, 7, 100, 1000] {
                let runs = AtomicU64::new(0);
                let out = pool.run(chunks, &|c| {
                    runs.fetch_add(1, Relaxed);
                    c * c
                });
                assert_eq!(runs.load(Relaxed), chunks);
                assert_eq!(out, (0..chunks).map(|c| c * c).collect::<Vec<_>>());
            }
        }
    }

    #[test]
    fn workers_wake_after_sleeping_and_launches_from_threads_take_turns() {
        let pool = Arc::new(WorkerPool::new(3).unwrap());
        std::thread::sleep(SPIN * 5);
        assert_eq!(pool.run(50, &|c| c + 1).iter().sum::<u64>(), (1..=50u64).sum::<u64>());
        std::thread::scope(|sc| {
            for t in 0..4u64 {
                let pool = Arc::clone(&pool);
                sc.spawn(move || {
                    for _ in 0..200 {
                        assert_eq!(pool.run(9, &|c| c * t), (0..9).map(|c| c * t).collect::<Vec<_>>());
                    }
                });
            }
        });
    }

    #[test]
    fn a_chunk_that_panics_reaches_the_launcher_and_the_pool_goes_on() {
        let pool = WorkerPool::new(2).unwrap();
        for bad in [0u64, 7, 63] {
            let r = catch_unwind(AssertUnwindSafe(|| {
                pool.run(64, &|c| {
                    assert!(c != bad, "chunk {c}");
                    c
                })
            }));
            let msg = r.unwrap_err();
            assert_eq!(msg.downcast_ref::<String>().map(String::as_str), Some(format!("chunk {bad}").as_str()));
        }
        assert_eq!(pool.run(5, &|c| c), vec![0, 1, 2, 3, 4]);
    }

    #[test]
    fn the_process_keeps_one_pool_per_thread_count() {
        let a = WorkerPool::shared(2).unwrap();
        let b = WorkerPool::shared(2).unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!(WorkerPool::shared(3).unwrap().threads(), 3);
    }
}
