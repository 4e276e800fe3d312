//! Multi-device runs (seed 004's scheme): the graph's edges are split into one contiguous range per device
//! ([`Csr::parts`]: balanced by edge count, or by the edges that lead to a smaller node; [`irgc_graph::Partition`]);
//! every device runs the whole plan on its part (all nodes, some edges); then the devices' results are merged
//! pairwise in ⌈log₂ N⌉ rounds — in round `r`, device `i` (a multiple of `2^(r+1)`) receives device `i + 2^r`'s
//! `from` array into its own `into` array and runs the program's `merge` block — and device 0 holds the answer.
//! The program says how results merge (`merge from -> into { ... }`, see `docs/language.md`); the runtime only
//! moves arrays and runs blocks.
//!
//! Generic over the [`Device`]: GPUs run their parts concurrently, one host thread each ([`Schedule`]); the CPU
//! runs one [`crate::CpuDevice`] per part one after another (each with every worker thread), so CI tests the same
//! partition-and-merge path a multi-GPU run takes. Arrays move with [`Device::receive`]: through the host on the
//! CPU, device to device (a peer copy) between GPUs.

use std::time::{Duration, Instant};

use irgc_artifact::{Artifact, Layout};
use irgc_graph::Csr;

use crate::context;
use crate::device::Device;
use crate::error::RunError;
use crate::memory::Memory;
use crate::output::{self, OutputData};
use crate::plan::Machine;
use crate::stats::Stats;
use crate::RunOptions;

/// What one device did.
#[derive(Clone, Debug)]
pub struct DeviceRun {
    /// Edges in its part.
    pub edges: u64,
    pub setup_time: Duration,
    pub compute_time: Duration,
    pub launches: u64,
}

/// A finished multi-device run: device 0's outputs, and what each device and the merges did.
pub struct MultiExecution<B> {
    pub outputs: Vec<OutputData>,
    /// Device 0's memory after the last merge.
    pub memory: Memory<B>,
    /// Device 0's statistics (its plan and the merges it received).
    pub stats: Stats,
    pub devices: Vec<DeviceRun>,
    /// The devices' set-up parts, summed.
    pub setup_parts: crate::memory::SetupParts,
    /// Pairwise merge rounds (⌈log₂ N⌉) and their total time, array moves included.
    pub merge_rounds: u32,
    pub merge_time: Duration,
    /// Launches of the merge blocks, over all rounds.
    pub merge_launches: u64,
    /// Reading device 0's outputs back.
    pub readback_time: Duration,
}

/// How the devices of a multi-device run take turns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Schedule {
    /// One after another on this thread (CPU devices: each already uses every worker thread).
    OneAfterAnother,
    /// All at once, each device driven by its own host thread (GPUs: the set-up and plan of every device overlap).
    Concurrent,
}

/// Runs `artifact` on `devices.len()` devices, one part of `graph`'s edges each, and merges the results into
/// device 0 (see the module documentation). A program without a `merge` is refused.
pub fn run_on_devices<D>(
    devices: &mut [D],
    schedule: Schedule,
    artifact: &Artifact,
    graph: &Csr,
    graph_name: &str,
    params: &[u64],
    options: &RunOptions,
) -> Result<MultiExecution<D::Buffer>, RunError>
where
    D: Device + Send,
    D::Buffer: Send,
{
    let Some(merge) = &artifact.merge else {
        return Err(RunError::plan(format!(
            "program `{}` declares no `merge`, so its results cannot be combined across devices; add \
             `merge ARRAY -> THEIRS {{ ... }}` (docs/language.md) or run on one device",
            artifact.name
        )));
    };
    let parts = graph.parts(devices.len(), options.partition);
    let ran: Result<Vec<(Machine<'_, D>, DeviceRun)>, RunError> = match schedule {
        Schedule::OneAfterAnother => devices
            .iter_mut()
            .zip(&parts)
            .map(|(dev, part)| run_part(dev, artifact, part, graph_name, params, options))
            .collect(),
        Schedule::Concurrent => std::thread::scope(|scope| {
            let threads: Vec<_> = devices
                .iter_mut()
                .zip(&parts)
                .map(|(dev, part)| scope.spawn(move || run_part(dev, artifact, part, graph_name, params, options)))
                .collect();
            threads
                .into_iter()
                .map(|t| t.join().unwrap_or_else(|_| Err(RunError::plan("a device's host thread panicked"))))
                .collect()
        }),
    };
    let (mut machines, runs): (Vec<_>, Vec<_>) = ran?.into_iter().unzip();
    let setup_parts = machines.iter().map(|m| m.mem.setup).fold(Default::default(), |a, b| a + b);
    let start = Instant::now();
    let (mut rounds, mut stride) = (0u32, 1usize);
    let mut merge_launches = 0;
    while stride < machines.len() {
        for i in (0..machines.len()).step_by(2 * stride) {
            let j = i + stride;
            if j >= machines.len() {
                continue;
            }
            let (left, right) = machines.split_at_mut(j);
            let (receiver, sender) = (&mut left[i], &right[0]);
            let from = sender.mem.globals.get(merge.from).ok_or_else(|| RunError::plan("merge of a missing array"))?;
            let into =
                receiver.mem.globals.get_mut(merge.into).ok_or_else(|| RunError::plan("merge into a missing array"))?;
            receiver.dev.begin_compute(options.collect_stats)?;
            receiver.dev.receive(&mut into.buf, &*sender.dev, &from.buf, from.elem.size(), from.len())?;
            let before = receiver.launches;
            receiver.run_block(&merge.body)?;
            receiver.dev.end_compute()?;
            merge_launches += receiver.launches - before;
        }
        stride *= 2;
        rounds += 1;
    }
    let merge_time = start.elapsed();
    let first = machines.swap_remove(0);
    let readback = Instant::now();
    let outputs = output::read_outputs(artifact, &*first.dev, &first.mem)?;
    let readback_time = readback.elapsed();
    Ok(MultiExecution {
        outputs,
        memory: first.mem,
        stats: first.stats,
        devices: runs,
        setup_parts,
        merge_rounds: rounds,
        merge_time,
        merge_launches,
        readback_time,
    })
}

/// Sets up `dev` with its part of the graph and runs the plan there.
fn run_part<'a, D: Device>(
    dev: &'a mut D,
    artifact: &'a Artifact,
    part: &Csr,
    graph_name: &str,
    params: &[u64],
    options: &'a RunOptions,
) -> Result<(Machine<'a, D>, DeviceRun), RunError> {
    let setup = Instant::now();
    let mem = Memory::allocate(dev, artifact, part, graph_name, params)?;
    let layout = Layout::of(artifact);
    let ctx = context::build(&layout, &mem, params);
    let setup_time = setup.elapsed();
    let mut machine = Machine::new(artifact, layout, dev, mem, ctx, params, options);
    let start = Instant::now();
    machine.dev.begin_compute(options.collect_stats)?;
    machine.run_plan()?;
    let compute_time = machine.dev.end_compute()?.unwrap_or_else(|| start.elapsed());
    let run = DeviceRun { edges: part.num_edges(), setup_time, compute_time, launches: machine.launches };
    Ok((machine, run))
}
