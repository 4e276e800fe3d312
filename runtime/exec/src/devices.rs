//! Multi-device runs (seed 004's scheme): the graph's edges are split into one contiguous range per device,
//! balanced by edge count ([`Csr::edge_parts`]); every device runs the whole plan on its part (all nodes, some
//! edges); then the devices' results are merged pairwise in ⌈log₂ N⌉ rounds — in round `r`, device `i` (a
//! multiple of `2^(r+1)`) receives device `i + 2^r`'s `from` array into its own `into` array and runs the
//! program's `merge` block — and device 0 holds the answer. The program says how results merge
//! (`merge from -> into { ... }`, see `docs/language.md`); the runtime only moves arrays and runs blocks.
//!
//! Generic over the [`Device`]; the CPU runs it with one [`crate::CpuDevice`] per part (one after another, each
//! with every worker thread), so CI tests the same partition-and-merge path a multi-GPU run takes. Moving an
//! array goes through the host here (read, then write); a GPU implementation would use NCCL or peer copies.

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
}

/// Runs `artifact` on `devices.len()` devices, one part of `graph`'s edges each, and merges the results into
/// device 0 (see the module documentation). A program without a `merge` is refused.
pub fn run_on_devices<D: Device>(
    devices: &mut [D],
    artifact: &Artifact,
    graph: &Csr,
    graph_name: &str,
    params: &[u64],
    options: &RunOptions,
) -> Result<MultiExecution<D::Buffer>, RunError> {
    let Some(merge) = &artifact.merge else {
        return Err(RunError::plan(format!(
            "program `{}` declares no `merge`, so its results cannot be combined across devices; add \
             `merge ARRAY -> THEIRS {{ ... }}` (docs/language.md) or run on one device",
            artifact.name
        )));
    };
    let parts = graph.edge_parts(devices.len());
    let layout = Layout::of(artifact);
    let mut machines = Vec::with_capacity(devices.len());
    let mut runs = Vec::with_capacity(devices.len());
    for (dev, part) in devices.iter_mut().zip(&parts) {
        let setup = Instant::now();
        let mem = Memory::allocate(dev, artifact, part, graph_name, params)?;
        let ctx = context::build(&layout, &mem, params);
        let setup_time = setup.elapsed();
        let mut machine = Machine::new(artifact, layout, dev, mem, ctx, params, options);
        let start = Instant::now();
        machine.dev.begin_compute(options.collect_stats)?;
        machine.run_plan()?;
        let compute_time = machine.dev.end_compute()?.unwrap_or_else(|| start.elapsed());
        runs.push(DeviceRun { edges: part.num_edges(), setup_time, compute_time, launches: machine.launches });
        machines.push(machine);
    }
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
            let (receiver, sender) = (&mut left[i], &mut right[0]);
            let from = sender.mem.globals.get(merge.from).ok_or_else(|| RunError::plan("merge of a missing array"))?;
            let values = sender.dev.read(&from.buf, from.elem.size(), 0, from.len())?;
            let into =
                receiver.mem.globals.get_mut(merge.into).ok_or_else(|| RunError::plan("merge into a missing array"))?;
            receiver.dev.write(&mut into.buf, into.elem.size(), 0, &values)?;
            let before = receiver.launches;
            receiver.run_block(&merge.body)?;
            merge_launches += receiver.launches - before;
        }
        stride *= 2;
        rounds += 1;
    }
    let merge_time = start.elapsed();
    let first = machines.swap_remove(0);
    let outputs = output::read_outputs(artifact, &*first.dev, &first.mem)?;
    Ok(MultiExecution {
        outputs,
        memory: first.mem,
        stats: first.stats,
        devices: runs,
        setup_parts,
        merge_rounds: rounds,
        merge_time,
        merge_launches,
    })
}
