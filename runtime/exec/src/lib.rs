//! The irgc runtime executor: runs a compiled program's host plan on a graph, on the CPU or any other [`Device`].
//!
//! A run is: [`Memory::allocate`](memory::Memory::allocate) the graph, every global and every worklist the
//! [`Artifact`] describes; build the kernel context ([`context`]); interpret the plan (`plan.rs`), launching kernels
//! on the device (`launch.rs`); then read the outputs back ([`Execution::outputs`]), write them
//! ([`output::write_outputs`]), digest them ([`output::digest`]) and check them against the references
//! ([`verify::verify`]).
//!
//! [`execute`] runs on the CPU ([`CpuDevice`]): anything that implements [`CpuKernels`] by the kernel ABI
//! documented in `irgc-artifact` can run (the Cranelift backend in `irgc`, hand-written fakes in this crate's
//! tests). [`run_on`] runs on any [`Device`] (the GPU of `irgc-cuda`): the interpreter and the worklist protocol
//! are the same code for both, only memory and kernels differ. The runtime never prints; the CLI does.

mod bounds;
pub mod context;
mod contract;
#[allow(unsafe_code)] // The one place that calls `CpuKernels`; its docs give the safety argument.
pub mod cpu;
pub mod device;
pub mod devices;
mod error;
pub mod eval;
pub mod fit;
mod launch;
pub mod loop_gate;
pub mod memory;
pub mod output;
pub mod params;
mod plan;
pub mod progress;
pub mod ranks;
pub mod stats;
pub mod verify;

use std::time::{Duration, Instant};

use irgc_artifact::{Artifact, Layout};
use irgc_graph::Csr;

pub use bounds::{range_len, space_size};
pub use cpu::{CpuDevice, MIN_CHUNK};
pub use device::{ContractJob, Contracted, Device, DeviceBuffer, HostRounds, Launched, PipeEnd, PipeRun, RoundRecord};
pub use error::RunError;
pub use fit::{fit_graph, overflow_warning, Fitted};
pub use output::{
    absent_word, digest, format_value, write_outputs, OutputData, OutputFormat, OutputShape, OutputTarget,
};
pub use params::{parse_param, resolve_params, split_param};
pub use stats::{
    ContractPhases, Contraction, LaunchRecord, LoopChoice, LoopRound, Mode, OutlinedRun, PipeRound, Printed, RunStep,
    Stats, UnrollChoice,
};
pub use verify::{verify, CheckReport, Quality};

/// The kernels of a compiled program, as the CPU backend provides them.
///
/// `run` and `space_size` are `unsafe` because a kernel dereferences the raw pointers in `ctx` (the workspace otherwise denies
/// `unsafe` code; it is allowed for this declaration and in `launch`, the one caller).
#[allow(unsafe_code)]
pub trait CpuKernels: Sync {
    /// Number of iterations of kernel `k`'s space for this context (range bounds may read arrays).
    ///
    /// # Safety
    /// As for [`CpuKernels::run`].
    unsafe fn space_size(&self, k: usize, ctx: &[u64]) -> u64;
    /// Runs iterations lo..hi of kernel `k`; returns the partial reduction bits.
    ///
    /// # Safety
    /// `ctx` must be a context built by the runtime for this program (pointers valid for the layout).
    unsafe fn run(&self, k: usize, ctx: &[u64], lo: u64, hi: u64) -> u64;

    /// Whether the kernels were compiled with bounds checks (they then write bad accesses to the bounds report,
    /// which the runtime reads after every launch).
    fn checks_bounds(&self) -> bool {
        false
    }

    /// Whether the kernels read the edge-source array (the context's `src` slot), when the program reads `G.src`
    /// at all ([`Artifact::needs_sources`](irgc_artifact::Artifact)). A backend that finds each source another way
    /// (the CPU walks an edge sweep's rows) says `false`, and the runtime builds no array.
    fn reads_sources(&self) -> bool {
        true
    }
}

/// The `random(seed, i)` built-in, defined once for the host and every backend.
pub use irgc_artifact::random;

/// The default `--max-launches`.
pub const DEFAULT_MAX_LAUNCHES: u64 = 10_000_000;

/// When a device runs an outlined loop (`while step() { .. }`) as one kernel.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LoopOutlining {
    /// Always from the host, launch by launch.
    Never,
    /// Where its rounds measured faster: a few from the host, a trial in the kernel, the rest where a round was
    /// faster ([`loop_gate`]). Long loops of light rounds win (BFS levels on road networks), heavy sweeps do not.
    #[default]
    Auto,
    /// In the kernel from the first round.
    Always,
}

/// How to run.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Worker threads; `None` lets rayon choose (one per core).
    pub threads: Option<usize>,
    /// Stop with [`RunError::LaunchLimit`] after this many kernel launches (retry relaunches included).
    pub max_launches: u64,
    /// Keep per-launch and per-round records ([`Stats`]).
    pub collect_stats: bool,
    /// Let a device run an outlined `pipe` as one kernel ([`Device::run_pipe`]); off, every pipe runs round by
    /// round from the host.
    pub outline: bool,
    /// When an outlined loop (`while step() { .. }`) runs as one kernel (with `outline` on and no statistics).
    pub outline_loops: LoopOutlining,
    /// Bytes of memory the run may allocate; `None` means what the machine reports as available (and no limit
    /// where it reports nothing). Every array is also capped at 2^40 bytes.
    pub memory_limit: Option<u64>,
    /// Where a multi-device run cuts the edges ([`crate::devices`]).
    pub partition: irgc_graph::Partition,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            threads: None,
            max_launches: DEFAULT_MAX_LAUNCHES,
            collect_stats: true,
            outline: true,
            outline_loops: LoopOutlining::Auto,
            partition: irgc_graph::Partition::Edges,
            memory_limit: None,
        }
    }
}

/// Everything one run needs.
pub struct Request<'a> {
    pub artifact: &'a Artifact,
    pub graph: &'a Csr,
    /// How the graph is named in messages (its file name, or `gen:...`).
    pub graph_name: &'a str,
    /// The bits of every param, in order (see [`resolve_params`]).
    pub params: &'a [u64],
    pub kernels: &'a dyn CpuKernels,
    pub options: RunOptions,
}

/// A finished run: its memory (to read results from) and what it did.
pub struct Execution {
    memory: memory::Memory,
    outputs: Vec<OutputData>,
    pub stats: Stats,
    /// Kernel launches, retry relaunches included.
    pub launches: u64,
    /// Allocating and initialising memory.
    pub setup_time: Duration,
    /// What the set-up spent its time on (the worker pool included).
    pub setup_parts: memory::SetupParts,
    /// Running the plan.
    pub compute_time: Duration,
    /// Worker threads used.
    pub threads: usize,
}

impl Execution {
    /// The output arrays, in declaration order.
    pub fn outputs(&self) -> &[OutputData] {
        &self.outputs
    }

    /// Every element of global `g` (by index in the artifact), as bits; `None` if there is no such global.
    pub fn global(&self, g: usize) -> Option<Vec<u64>> {
        self.memory.globals.get(g).map(|x| x.buf.to_elems(x.elem.size(), x.len()))
    }

    /// The current items of worklist `w`.
    pub fn worklist(&self, w: usize) -> Option<Vec<u64>> {
        self.memory.worklists.get(w).map(|wl| wl.items())
    }
}

/// Runs `req.artifact`'s plan on `req.graph`, on the CPU.
pub fn execute(req: Request<'_>) -> Result<Execution, RunError> {
    let Request { artifact, graph, graph_name, params, kernels, options } = req;
    let setup_start = Instant::now();
    check_params(artifact, params)?;
    let mut cpu = CpuDevice::new(kernels, &options)?;
    let device_time = setup_start.elapsed();
    let threads = cpu.threads();
    let run = execute_on(&mut cpu, DeviceRequest { artifact, graph, graph_name, params, options }, setup_start)?;
    Ok(Execution {
        setup_parts: memory::SetupParts { device: device_time, ..run.memory.setup },
        memory: run.memory,
        outputs: run.outputs,
        stats: run.stats,
        launches: run.launches,
        setup_time: run.setup_time,
        compute_time: run.compute_time,
        threads,
    })
}

/// Runs `req.artifact` on `devices` CPU devices, one part of the edges each, merging the results pairwise as the
/// program's `merge` says (see [`devices`]): the partition-and-merge path of a multi-GPU run, testable anywhere.
/// Also returns each device's worker threads.
pub fn execute_on_devices(
    req: Request<'_>,
    devices: usize,
) -> Result<(devices::MultiExecution<memory::Buffer>, usize), RunError> {
    check_params(req.artifact, req.params)?;
    let mut cpus =
        (0..devices.max(1)).map(|_| CpuDevice::new(req.kernels, &req.options)).collect::<Result<Vec<_>, _>>()?;
    let threads = cpus[0].threads();
    let multi = devices::run_on_devices(
        &mut cpus,
        devices::Schedule::OneAfterAnother,
        &mut devices::Receive { label: "copies through host memory" },
        req.artifact,
        req.graph,
        req.graph_name,
        req.params,
        &req.options,
    )?;
    Ok((multi, threads))
}

/// Everything one run on some [`Device`] needs besides the device.
pub struct DeviceRequest<'a> {
    pub artifact: &'a Artifact,
    pub graph: &'a Csr,
    /// How the graph is named in messages (its file name, or `gen:...`).
    pub graph_name: &'a str,
    /// The bits of every param, in order (see [`resolve_params`]).
    pub params: &'a [u64],
    /// `threads` and `memory_limit` are the device's business (see its constructor); the rest applies as on the
    /// CPU.
    pub options: RunOptions,
}

/// A finished run on some [`Device`]: its memory (buffers of that device) and what it did.
pub struct DeviceExecution<B> {
    pub memory: memory::Memory<B>,
    /// The output arrays, read back, in declaration order.
    pub outputs: Vec<OutputData>,
    pub stats: Stats,
    /// Kernel launches, retry relaunches included.
    pub launches: u64,
    /// Allocating and initialising memory (on a GPU: with the graph's upload).
    pub setup_time: Duration,
    /// Running the plan, as the device measured it (or the host's wall clock).
    pub compute_time: Duration,
    /// Reading the outputs back.
    pub readback_time: Duration,
}

/// Runs `req.artifact`'s plan on `req.graph` on `device`: allocates the memory there, interprets the plan
/// launching the device's kernels, and reads the outputs back.
pub fn run_on<D: Device>(device: &mut D, req: DeviceRequest<'_>) -> Result<DeviceExecution<D::Buffer>, RunError> {
    let setup_start = Instant::now();
    check_params(req.artifact, req.params)?;
    execute_on(device, req, setup_start)
}

pub(crate) fn check_params(artifact: &Artifact, params: &[u64]) -> Result<(), RunError> {
    if params.len() != artifact.params.len() {
        return Err(RunError::Param(format!(
            "program `{}` has {} param(s) but {} value(s) were given",
            artifact.name,
            artifact.params.len(),
            params.len()
        )));
    }
    Ok(())
}

/// [`run_on`] with setup timed from `setup_start`.
fn execute_on<D: Device>(
    device: &mut D,
    req: DeviceRequest<'_>,
    setup_start: Instant,
) -> Result<DeviceExecution<D::Buffer>, RunError> {
    let DeviceRequest { artifact, graph, graph_name, params, options } = req;
    // A `degree_ordered` program runs on the graph numbered by degree (kept with the graph after the first run);
    // its node outputs come back per input node through `origin`, as after `G.contract`.
    let numbering = Instant::now();
    let renumbered = artifact
        .graph
        .as_ref()
        .filter(|g| g.degree_ordered && device.renumbers_by_degree())
        .and_then(|g| graph.degree_ordered(g.weight.is_some()));
    let numbering = numbering.elapsed();
    let seen = renumbered.as_ref().map_or(graph, |r| &r.csr);
    let mut mem = memory::Memory::allocate(device, artifact, seen, graph_name, params)?;
    if let Some(r) = &renumbered {
        mem.origin = Some(r.rank.clone());
        mem.setup.renumbering = numbering;
    }
    let layout = Layout::of(artifact);
    let ctx = context::build(&layout, &mem, params);
    let setup_time = setup_start.elapsed();

    let mut machine = plan::Machine::new(artifact, layout, device, mem, ctx, params, &options);
    let start = Instant::now();
    machine.dev.begin_compute(options.collect_stats)?;
    machine.run_plan()?;
    let measured = machine.dev.end_compute()?;
    let compute_time = measured.unwrap_or_else(|| start.elapsed());
    machine.stats.unroll_choices = machine.dev.unroll_choices();
    let readback_start = Instant::now();
    let outputs = output::read_outputs(artifact, &*machine.dev, &machine.mem)?;
    Ok(DeviceExecution {
        memory: machine.mem,
        outputs,
        stats: machine.stats,
        launches: machine.launches,
        setup_time,
        compute_time,
        readback_time: readback_start.elapsed(),
    })
}
