//! Outlined pipes through the interpreter: what it hands a device that runs a pipe as one kernel
//! (`Device::run_pipe`), and what it makes of the answer. The device here is the CPU with a scripted `run_pipe`,
//! so the interpreter's side is checked without a GPU: the pipe's start (count, round limit, host locals), the
//! host locals and launch count afterwards, the errors for a pipe stopped by the round limit or an overflow, and
//! the fallback to host rounds when outlining is off or the device declines.

mod common;

use std::cell::RefCell;

use common::*;
use irgc_artifact::*;
use irgc_runtime::loop_gate::{HOST_ROUNDS_FIRST, MAX_TRIAL};
use irgc_runtime::{
    CpuDevice, Device, DeviceRequest, HostRounds, Launched, LoopOutlining, PipeEnd, PipeRun, RunError, RunOptions,
};

/// What a request handed the device: the worklist's count, the most rounds it may run, the host locals.
type Asked = (u64, u64, Vec<u64>);

/// The CPU, with `run_pipe` declining its first `declines` requests, then answering `answer` (or declining, with
/// `None`), and recording what it was asked.
struct Scripted<'k> {
    cpu: CpuDevice<'k>,
    answer: Option<PipeEnd>,
    declines: usize,
    asked: RefCell<Vec<Asked>>,
    /// The rounds each request asked to be recorded.
    asked_records: RefCell<Vec<u64>>,
    /// Each request's host rounds so far.
    asked_progress: RefCell<Vec<HostRounds>>,
    /// How long each answer takes (a kernel slower than the host's rounds).
    delay: std::time::Duration,
}

impl Device for Scripted<'_> {
    type Buffer = irgc_runtime::memory::Buffer;

    irgc_runtime::forward_device_basics!(cpu);

    fn launch(&mut self, k: usize, desc: &KernelDesc, ctx: &[u64], size: u64) -> Result<Launched, RunError> {
        self.cpu.launch(k, desc, ctx, size)
    }

    fn run_pipe(&mut self, run: PipeRun<'_>, _ctx: &[u64]) -> Result<Option<PipeEnd>, RunError> {
        self.asked.borrow_mut().push((run.count, run.max_rounds, run.locals.to_vec()));
        self.asked_records.borrow_mut().push(run.record_rounds);
        self.asked_progress.borrow_mut().push(run.host);
        if self.asked.borrow().len() <= self.declines {
            return Ok(None);
        }
        std::thread::sleep(self.delay);
        Ok(self.answer.clone())
    }
}

/// The BFS of `bfs_artifact` with its pipe outlined, storing `depth` into `level[1]` after the pipe.
fn outlined_bfs() -> Artifact {
    let mut a = bfs_artifact();
    a.pipes = vec![PipeDesc {
        entry: "irgc_pipe_0".into(),
        worklist: Some(0),
        launches_per_round: 1,
        reductions: 0,
        hybrids: 0,
    }];
    for s in &mut a.plan.body {
        if let HostStmt::Pipe { outlined, .. } = s {
            *outlined = Some(0);
        }
    }
    a.plan.body.push(HostStmt::Store {
        global: 0,
        index: vec![cast(Scalar::Node, u32c(1))],
        value: local(Scalar::U32, 0),
    });
    a
}

struct Outcome {
    result: Result<(Vec<u64>, u64, Vec<irgc_runtime::OutlinedRun>), RunError>,
    asked: Vec<Asked>,
    asked_records: Vec<u64>,
    asked_progress: Vec<HostRounds>,
    stats: Option<irgc_runtime::Stats>,
}

fn run_scripted(answer: Option<PipeEnd>, options: RunOptions) -> Outcome {
    run_declining(0, answer, options)
}

fn run_declining(declines: usize, answer: Option<PipeEnd>, options: RunOptions) -> Outcome {
    let a = outlined_bfs();
    let g = path_graph();
    let pushes = a.kernels.iter().map(|k| k.pushes.clone()).collect();
    let fake = Fake { layout: Layout::of(&a), kernels: bfs_kernels(false), pushes };
    let cpu = CpuDevice::new(&fake, &options).unwrap();
    let mut dev = Scripted {
        cpu,
        answer,
        declines,
        asked: RefCell::default(),
        asked_records: RefCell::default(),
        asked_progress: RefCell::default(),
        delay: std::time::Duration::ZERO,
    };
    let req = DeviceRequest { artifact: &a, graph: &g, graph_name: "path", params: &[0], options };
    let mut stats = None;
    let result = irgc_runtime::run_on(&mut dev, req).map(|e| {
        let level = dev.cpu.read(&e.memory.globals[0].buf, 4, 0, 6).unwrap();
        stats = Some(e.stats.clone());
        (level, e.launches, e.stats.outlined)
    });
    Outcome {
        result,
        asked: dev.asked.into_inner(),
        asked_records: dev.asked_records.into_inner(),
        asked_progress: dev.asked_progress.into_inner(),
        stats,
    }
}

fn options() -> RunOptions {
    RunOptions { threads: Some(2), max_launches: 1000, ..Default::default() }
}

#[test]
fn a_finished_pipe_hands_back_its_locals_and_rounds() {
    let end =
        PipeEnd { rounds: 5, launches: 5, status: PipeState::DONE, locals: vec![42], records: vec![], auto: vec![] };
    let out = run_scripted(Some(end), options());
    // One source pushed, every launch left for rounds (one launch each), depth 0.
    assert_eq!(out.asked, vec![(1, 1000, vec![0])]);
    let (level, launches, outlined) = out.result.unwrap();
    // The device ran nothing here, so only the source's level and the stored depth are set.
    assert_eq!(level[0], 0);
    assert_eq!(level[1], 42);
    assert_eq!(launches, 5);
    assert_eq!(outlined, vec![irgc_runtime::OutlinedRun { worklist: "frontier".into(), size: 1, rounds: 5 }]);
}

#[test]
fn statistics_take_the_rounds_the_kernel_recorded() {
    // Two host rounds, then the device's 2 rounds with their records: the statistics hold all four rounds in
    // order, the device's with their clock time; no records are asked for without statistics.
    let records = vec![
        irgc_runtime::RoundRecord { size: 1, ns: 2_000_000, hybrids: vec![], reduced: None },
        irgc_runtime::RoundRecord { size: 1, ns: 500_000, hybrids: vec![], reduced: None },
    ];
    let end = PipeEnd { rounds: 2, launches: 2, status: PipeState::DONE, locals: vec![4], records, auto: vec![] };
    let out = run_declining(2, Some(end.clone()), RunOptions { collect_stats: true, ..options() });
    assert_eq!(out.asked_records, vec![1000, 999, 998], "as many as the rounds it may run");
    let rounds = out.stats.unwrap().pipe_rounds;
    let seen: Vec<(u64, u64, Option<f64>, Option<bool>)> =
        rounds.iter().map(|r| (r.round, r.size, r.ms, r.dense)).collect();
    assert_eq!(seen, [(1, 1, None, None), (2, 1, None, None), (3, 1, Some(2.0), None), (4, 1, Some(0.5), None)]);
    let out = run_declining(2, Some(end), RunOptions { collect_stats: false, ..options() });
    assert_eq!(out.asked_records, vec![0, 0, 0]);
}

#[test]
fn the_launches_the_device_reports_are_counted_not_rounds_times_a_fixed_number() {
    // A round's branches (`if`, `hybrid`) may launch different kernels: 4 rounds that made 7 launches count 7.
    let end =
        PipeEnd { rounds: 4, launches: 7, status: PipeState::DONE, locals: vec![4], records: vec![], auto: vec![] };
    let (_, launches, _) = run_scripted(Some(end), options()).result.unwrap();
    assert_eq!(launches, 7);
}

#[test]
fn a_device_may_take_the_pipe_over_after_host_rounds() {
    // Declined twice (a large worklist runs its round from the host), then taken over: two host rounds (levels 0
    // and 1), then the device's 3 rounds, which start from the host's depth and round budget.
    let end =
        PipeEnd { rounds: 3, launches: 3, status: PipeState::DONE, locals: vec![7], records: vec![], auto: vec![] };
    let out = run_declining(2, Some(end), options());
    assert_eq!(out.asked, vec![(1, 1000, vec![0]), (1, 999, vec![1]), (1, 998, vec![2])]);
    let (level, launches, outlined) = out.result.unwrap();
    assert_eq!((level[0], level[1], level[2]), (0, 7, 2));
    assert_eq!(launches, 2 + 3);
    assert_eq!(outlined, vec![irgc_runtime::OutlinedRun { worklist: "frontier".into(), size: 1, rounds: 3 }]);
}

#[test]
fn a_pipe_stopped_by_the_round_limit_or_an_overflow_fails_clearly() {
    let limit = PipeEnd {
        rounds: 1000,
        launches: 1000,
        status: PipeState::LIMIT,
        locals: vec![1000],
        records: vec![],
        auto: vec![],
    };
    let e = run_scripted(Some(limit), options()).result.expect_err("fails");
    assert!(matches!(e, RunError::LaunchLimit { limit: 1000, .. }), "{e}");
    assert!(e.to_string().contains("pipe over frontier, run as one GPU kernel"), "{e}");
    let overflow =
        PipeEnd { rounds: 3, launches: 3, status: PipeState::OVERFLOW, locals: vec![3], records: vec![], auto: vec![] };
    let e = run_scripted(Some(overflow), options()).result.expect_err("fails");
    assert!(matches!(e, RunError::Overflow(_)), "{e}");
    assert!(e.to_string().contains("worklist `frontier` overflowed"), "{e}");
}

#[test]
fn without_outlining_the_pipe_runs_round_by_round() {
    // Outlining off: never asked. A device that declines: asked again before every host round (it may take the
    // pipe over once the worklist is small), 5 rounds here.
    for (answer, outline, asked) in [
        (Some(PipeEnd { rounds: 1, launches: 1, status: 0, locals: vec![9], records: vec![], auto: vec![] }), false, 0),
        (None, true, 5),
    ] {
        let out = run_scripted(answer, RunOptions { outline, ..options() });
        assert_eq!(out.asked.len(), asked);
        let (level, launches, outlined) = out.result.unwrap();
        // Levels along the path, then `depth` (5 rounds: levels 0..4 and one empty expansion) in level[1].
        assert_eq!(level, vec![0, 5, 2, 3, 4, u32::MAX as u64]);
        assert_eq!(launches, 5);
        assert!(outlined.is_empty());
    }
}

#[test]
fn a_declining_device_is_told_how_many_rounds_ran_and_what_the_last_began_with() {
    // The path's BFS: one item a round (its frontier), 5 host rounds; the device judges from these whether the
    // worklist is shrinking fast (`FAST_SHRINK` in irgc-cuda), and whether its rounds are heavy (`HEAVY_ROUND`).
    let out = run_scripted(None, options());
    let counts: Vec<(u64, u64)> = out.asked_progress.iter().map(|h| (h.rounds_done, h.previous_count)).collect();
    assert_eq!(counts, vec![(0, 0), (1, 1), (2, 1), (3, 1), (4, 1)]);
    assert_eq!(out.asked_progress[0].previous_seconds, 0.0, "no host round has run before the first request");
    for h in &out.asked_progress[1..] {
        let (round, seconds) = (h.rounds_done, h.previous_seconds);
        assert!(seconds > 0.0 && seconds < 10.0, "host round {round} took {seconds} s");
    }
}

/// Outlined pipe 0 as a loop (no worklist), one launch a round.
fn outlined_loop_desc() -> PipeDesc {
    PipeDesc { entry: "irgc_pipe_0".into(), worklist: None, launches_per_round: 1, reductions: 0, hybrids: 0 }
}

#[test]
fn loops_are_offered_to_the_device_only_when_asked() {
    // A loop marked outlinable: `loop { } while false`, which the host ends after one empty round.
    let mut a = bfs_artifact();
    a.pipes = vec![outlined_loop_desc()];
    a.plan.body = vec![HostStmt::Loop {
        body: vec![],
        continuing: vec![],
        break_if: Some(lit(Scalar::Bool, 1)),
        outlined: Some(0),
    }];
    a.outputs = vec![];
    let g = path_graph();
    // Statistics change nothing (the kernel records the loop's rounds); `auto` runs a loop that ends in its first
    // round from the host.
    use LoopOutlining::{Always, Auto, Never};
    for (outline_loops, collect_stats, asked) in
        [(Never, false, 0), (Never, true, 0), (Always, false, 1), (Always, true, 1), (Auto, false, 0)]
    {
        let options = RunOptions { outline_loops, collect_stats, ..options() };
        let pushes = a.kernels.iter().map(|k| k.pushes.clone()).collect();
        let fake = Fake { layout: Layout::of(&a), kernels: bfs_kernels(false), pushes };
        let end =
            PipeEnd { rounds: 3, launches: 3, status: PipeState::DONE, locals: vec![7], records: vec![], auto: vec![] };
        let mut dev = Scripted {
            cpu: CpuDevice::new(&fake, &options).unwrap(),
            answer: Some(end),
            declines: 0,
            asked: RefCell::new(vec![]),
            asked_records: RefCell::new(vec![]),
            asked_progress: RefCell::new(vec![]),
            delay: std::time::Duration::ZERO,
        };
        let req = DeviceRequest { artifact: &a, graph: &g, graph_name: "path", params: &[0], options };
        let e = irgc_runtime::run_on(&mut dev, req).unwrap();
        assert_eq!(dev.asked.borrow().len(), asked);
        // Outlined: the device's rounds and no worklist; on the host: no launch at all.
        assert_eq!(e.launches, 3 * asked as u64);
        assert_eq!(e.stats.outlined.len(), asked);
    }
}

/// A loop counting local 0 up by one a round until it reaches `until`, outlined as pipe 0 (no kernels: its host
/// rounds take microseconds).
fn counting_loop(until: u32) -> Artifact {
    let mut a = bfs_artifact();
    a.pipes = vec![outlined_loop_desc()];
    let x = || local(Scalar::U32, 0);
    a.plan.body = vec![
        HostStmt::Assign { local: 0, value: u32c(0) },
        HostStmt::Loop {
            body: vec![HostStmt::Assign { local: 0, value: bin(BinaryOp::Add, x(), u32c(1)) }],
            continuing: vec![],
            break_if: Some(bin(BinaryOp::Ge, x(), u32c(until))),
            outlined: Some(0),
        },
        HostStmt::Store { global: 0, index: vec![cast(Scalar::Node, u32c(1))], value: x() },
    ];
    a.outputs = vec![];
    a
}

/// Runs [`counting_loop`] with `--outline-loops auto` on a device answering `answer` after `delay`: what it was
/// asked (count, most rounds, locals), the loop's last count and the launches.
fn run_gate(until: u32, answer: PipeEnd, delay: std::time::Duration) -> (Vec<Asked>, u64, u64) {
    let (asked, x, launches, _) = run_gate_with(until, answer, delay, false);
    (asked, x, launches)
}

/// [`run_gate`], with or without statistics, and the run's statistics and the rounds each request asked to be
/// recorded.
fn run_gate_with(
    until: u32,
    answer: PipeEnd,
    delay: std::time::Duration,
    collect_stats: bool,
) -> (Vec<Asked>, u64, u64, (irgc_runtime::Stats, Vec<u64>)) {
    let a = counting_loop(until);
    let g = path_graph();
    let options = RunOptions { outline_loops: LoopOutlining::Auto, collect_stats, ..options() };
    let pushes = a.kernels.iter().map(|k| k.pushes.clone()).collect();
    let fake = Fake { layout: Layout::of(&a), kernels: bfs_kernels(false), pushes };
    let mut dev = Scripted {
        cpu: CpuDevice::new(&fake, &options).unwrap(),
        answer: Some(answer),
        declines: 0,
        asked: RefCell::default(),
        asked_records: RefCell::default(),
        asked_progress: RefCell::default(),
        delay,
    };
    let req = DeviceRequest { artifact: &a, graph: &g, graph_name: "path", params: &[0], options };
    let e = irgc_runtime::run_on(&mut dev, req).unwrap();
    let x = dev.cpu.read(&e.memory.globals[0].buf, 4, 1, 1).unwrap()[0];
    (dev.asked.into_inner(), x, e.launches, (e.stats, dev.asked_records.into_inner()))
}

#[test]
fn with_statistics_a_loop_still_runs_in_its_kernel_and_its_rounds_are_numbered_after_the_hosts() {
    // The gate's 16 host rounds, then a trial in the kernel that ends the loop after 3 rounds, which it recorded
    // (the second reduced nothing). The records become `LoopRound`s numbered on from the host's rounds, after the
    // launches kept so far, and the device was asked for as many records as the trial may run.
    let first = HOST_ROUNDS_FIRST as u64;
    let rec = |ns, reduced| irgc_runtime::RoundRecord { size: 0, ns, hybrids: vec![], reduced };
    let end = PipeEnd {
        rounds: 3,
        launches: 3,
        status: PipeState::DONE,
        locals: vec![first + 3],
        records: vec![rec(2_000_000, Some(4.0)), rec(500_000, None), rec(250_000, Some(0.0))],
        auto: vec![],
    };
    let (asked, x, _, (stats, asked_records)) = run_gate_with(1000, end, std::time::Duration::ZERO, true);
    assert_eq!(asked.len(), 1, "statistics no longer keep the loop on the host");
    assert_eq!(asked_records, vec![MAX_TRIAL]);
    assert_eq!(x, first + 3);
    let got: Vec<(u64, u64, Option<f64>, f64)> =
        stats.loop_rounds.iter().map(|r| (r.iteration, r.after_launches, r.reduced, r.ms)).collect();
    let after = stats.launches.len() as u64;
    assert_eq!(
        got,
        [(first + 1, after, Some(4.0), 2.0), (first + 2, after, None, 0.5), (first + 3, after, Some(0.0), 0.25)]
    );
    // Without statistics nothing is recorded.
    let locals = vec![first + 3];
    let end = PipeEnd { rounds: 3, launches: 3, status: PipeState::DONE, locals, records: vec![], auto: vec![] };
    let (_, _, _, (stats, asked_records)) = run_gate_with(1000, end, std::time::Duration::ZERO, false);
    assert_eq!(asked_records, vec![0]);
    assert!(stats.loop_rounds.is_empty());
}

#[test]
fn an_auto_loop_runs_its_first_rounds_from_the_host_then_a_trial_in_the_kernel() {
    // Rounds of microseconds: the trial is as long as a trial may be. The kernel ends the loop within it.
    let first = HOST_ROUNDS_FIRST as u64;
    let end = PipeEnd {
        rounds: 5,
        launches: 5,
        status: PipeState::DONE,
        locals: vec![first + 5],
        records: vec![],
        auto: vec![],
    };
    let (asked, x, launches) = run_gate(1000, end, std::time::Duration::ZERO);
    assert_eq!(asked, vec![(0, MAX_TRIAL, vec![first])], "after {first} host rounds, with their count");
    assert_eq!((x, launches), (first + 5, 5), "the kernel's locals and launches");
    // A loop that ends within its host rounds never starts the kernel.
    let end =
        PipeEnd { rounds: 1, launches: 1, status: PipeState::DONE, locals: vec![0], records: vec![], auto: vec![] };
    let (asked, x, _) = run_gate(first as u32, end, std::time::Duration::ZERO);
    assert!(asked.is_empty());
    assert_eq!(x, first);
}

#[test]
fn a_loop_whose_trial_was_slower_goes_on_from_the_host() {
    // The trial's rounds (a whole 50 ms for 64) are far slower than the host's: the trial pauses the loop after
    // its rounds, the host runs the rest, and the kernel is not asked again.
    let first = HOST_ROUNDS_FIRST as u64;
    let locals = vec![first + MAX_TRIAL];
    let end = PipeEnd {
        rounds: MAX_TRIAL,
        launches: MAX_TRIAL,
        status: PipeState::LIMIT,
        locals,
        records: vec![],
        auto: vec![],
    };
    let (asked, x, launches) = run_gate(100, end, std::time::Duration::from_millis(50));
    assert_eq!(asked.len(), 1);
    assert_eq!(x, 100, "the host counted on from the kernel's locals");
    assert_eq!(launches, MAX_TRIAL);
}
