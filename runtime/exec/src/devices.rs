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
//! partition-and-merge path a multi-GPU run takes. Arrays move by a [`Mover`]: [`Receive`], the device's own
//! copy (through the host on the CPU, a peer copy between GPUs), or NCCL (`irgc_cuda::NcclDevices`). With one
//! process per device the same scheme runs in [`crate::ranks`].

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
    /// How the merges moved the arrays ([`Mover::describe`]).
    pub moved_by: String,
}

/// How the devices of a multi-device run take turns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Schedule {
    /// One after another on this thread (CPU devices: each already uses every worker thread).
    OneAfterAnother,
    /// All at once, each device driven by its own host thread (GPUs: the set-up and plan of every device overlap).
    Concurrent,
}

/// How a one-process run's merge round brings the sender's `from` array into the receiver's `into` array. The
/// device's own way is [`Receive`]; GPUs may use NCCL instead (`irgc_cuda::NcclDevices`).
pub trait Mover<D: Device> {
    /// Moves the first `len` elements (of `elem_size` bytes) of `from`, on device `sender`, into `into`, on
    /// device `receiver`, and waits until they are there.
    fn bring(
        &mut self,
        receiver: (usize, &mut D),
        into: &mut D::Buffer,
        sender: (usize, &D),
        from: &D::Buffer,
        elem_size: usize,
        len: u64,
    ) -> Result<(), RunError>;
    /// How the arrays move, for the summary ("peer copies", "NCCL 2.27.3").
    fn describe(&self) -> String;
}

/// The device's own move, [`Device::receive`]: a peer copy between GPUs, through the host on the CPU; `label`
/// says which, for the summary.
#[derive(Clone, Copy, Debug)]
pub struct Receive {
    pub label: &'static str,
}

impl<D: Device> Mover<D> for Receive {
    fn bring(
        &mut self,
        (_, receiver): (usize, &mut D),
        into: &mut D::Buffer,
        (_, sender): (usize, &D),
        from: &D::Buffer,
        elem_size: usize,
        len: u64,
    ) -> Result<(), RunError> {
        receiver.receive(into, sender, from, elem_size, len)
    }

    fn describe(&self) -> String {
        self.label.to_string()
    }
}

/// The pairwise merges of `n` devices (or ranks), round by round: in round `r`, device `i` (a multiple of
/// `2^(r+1)`) receives from device `i + 2^r` (`(receiver, sender)` pairs). ⌈log₂ n⌉ rounds; device 0 ends with
/// every part merged. One process's merges, the ranks' steps and NCCL's connection warm-up all follow it.
pub fn merge_rounds(n: usize) -> Vec<Vec<(usize, usize)>> {
    let mut rounds = Vec::new();
    let mut stride = 1;
    while stride < n {
        rounds.push((0..n).step_by(2 * stride).filter(|i| i + stride < n).map(|i| (i, i + stride)).collect());
        stride *= 2;
    }
    rounds
}

/// The program's `merge`, or the refusal a program without one gets.
pub(crate) fn merge_of(artifact: &Artifact) -> Result<&irgc_artifact::MergeDesc, RunError> {
    artifact.merge.as_ref().ok_or_else(|| {
        RunError::plan(format!(
            "program `{}` declares no `merge`, so its results cannot be combined across devices; add \
             `merge ARRAY -> THEIRS {{ ... }}` (docs/language.md) or run on one device",
            artifact.name
        ))
    })
}

/// Runs `artifact` on `devices.len()` devices, one part of `graph`'s edges each, and merges the results into
/// device 0 (see the module documentation), the arrays moved by `mover`. A program without a `merge` is refused.
#[allow(clippy::too_many_arguments)]
pub fn run_on_devices<D>(
    devices: &mut [D],
    schedule: Schedule,
    mover: &mut dyn Mover<D>,
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
    let merge = merge_of(artifact)?;
    let parts = graph.parts(devices.len(), options.partition);
    let run_part = |dev, part: &Csr| {
        let (mut machine, setup_time) = set_up_part(dev, artifact, part, graph_name, params, options)?;
        let run = compute_part(&mut machine, part.num_edges(), setup_time, options)?;
        Ok((machine, run))
    };
    let ran: Result<Vec<(Machine<'_, D>, DeviceRun)>, RunError> = match schedule {
        Schedule::OneAfterAnother => devices.iter_mut().zip(&parts).map(|(dev, part)| run_part(dev, part)).collect(),
        Schedule::Concurrent => std::thread::scope(|scope| {
            let threads: Vec<_> =
                devices.iter_mut().zip(&parts).map(|(dev, part)| scope.spawn(move || run_part(dev, part))).collect();
            threads
                .into_iter()
                .map(|t| t.join().unwrap_or_else(|_| Err(RunError::plan("a device's host thread panicked"))))
                .collect()
        }),
    };
    let (mut machines, runs): (Vec<_>, Vec<_>) = ran?.into_iter().unzip();
    let setup_parts = machines.iter().map(|m| m.mem.setup).fold(Default::default(), |a, b| a + b);
    let start = Instant::now();
    let rounds = merge_rounds(machines.len());
    let mut merge_launches = 0;
    for &(i, j) in rounds.iter().flatten() {
        let (left, right) = machines.split_at_mut(j);
        let (receiver, sender) = (&mut left[i], &right[0]);
        let from = sender.mem.globals.get(merge.from).ok_or_else(|| RunError::plan("merge of a missing array"))?;
        let into =
            receiver.mem.globals.get_mut(merge.into).ok_or_else(|| RunError::plan("merge into a missing array"))?;
        receiver.dev.begin_compute(options.collect_stats)?;
        let (elem, len) = (from.elem.size(), from.len());
        mover.bring((i, &mut *receiver.dev), &mut into.buf, (j, &*sender.dev), &from.buf, elem, len)?;
        let before = receiver.launches;
        receiver.run_block(&merge.body)?;
        receiver.dev.end_compute()?;
        merge_launches += receiver.launches - before;
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
        merge_rounds: rounds.len() as u32,
        merge_time,
        merge_launches,
        readback_time,
        moved_by: mover.describe(),
    })
}

/// Sets up `dev` with its part of the graph: its memory and the machine that will run the plan there.
pub(crate) fn set_up_part<'a, D: Device>(
    dev: &'a mut D,
    artifact: &'a Artifact,
    part: &Csr,
    graph_name: &str,
    params: &[u64],
    options: &'a RunOptions,
) -> Result<(Machine<'a, D>, Duration), RunError> {
    let setup = Instant::now();
    let mem = Memory::allocate(dev, artifact, part, graph_name, params)?;
    let layout = Layout::of(artifact);
    let ctx = context::build(&layout, &mem, params);
    let setup_time = setup.elapsed();
    Ok((Machine::new(artifact, layout, dev, mem, ctx, params, options), setup_time))
}

/// Runs the plan on a machine [`set_up_part`] made, for a part of `edges` edges.
pub(crate) fn compute_part<D: Device>(
    machine: &mut Machine<'_, D>,
    edges: u64,
    setup_time: Duration,
    options: &RunOptions,
) -> Result<DeviceRun, RunError> {
    let start = Instant::now();
    machine.dev.begin_compute(options.collect_stats)?;
    machine.run_plan()?;
    let compute_time = machine.dev.end_compute()?.unwrap_or_else(|| start.elapsed());
    Ok(DeviceRun { edges, setup_time, compute_time, launches: machine.launches })
}
