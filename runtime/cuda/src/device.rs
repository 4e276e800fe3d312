//! The GPU as an `irgc_runtime::Device`: device buffers, the context table in device memory, PTX kernels.
//!
//! Everything runs on one stream, in order. An untimed launch is only queued: the next read of device memory (a
//! worklist counter, a reduction's result, an output) waits for it in stream order, and a fault shows at that
//! wait; a timed launch (`--stats`, `bench`) is waited for at once, between its events. Either way host reads
//! and writes of device memory see every earlier launch finished, as the `Device` contract says, so there is no
//! concurrency to reason about between the host and the device.
//! A kernel that faults poisons the CUDA context; the error names the kernel and the run stops there.

use std::time::{Duration, Instant};

use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaEvent, CudaFunction, CudaModule, CudaStream, DriverError, LaunchConfig};
use cudarc::nvrtc::Ptx;
use irgc_artifact::{reduce_identity, Artifact, AutoHybrid, KernelDesc, Layout, PipeState};
use irgc_runtime::memory::show_bytes;
use irgc_runtime::{Device, DeviceBuffer, Launched, PipeEnd, PipeRun, RoundRecord, RunError};
use rayon::prelude::*;
use std::sync::Arc;

use crate::driver::{self, GpuBuffer};
use crate::error::{describe, device_error, CudaError};
use crate::gpu::Gpu;
use crate::pack::{fill_plan, pack, unpack, Fill};
use crate::shape::{block_threads, dealing_shape, launch_shape, FORALL_BLOCK};
use crate::slots::SlotTable;

/// Elements written from the host before a [`Fill::Pattern`] fill doubles them on the device.
const PATTERN_SEED: u64 = 1 << 12;

/// One kernel, loaded.
struct Kernel {
    name: String,
    function: CudaFunction,
    /// Its flat twin ([`irgc_artifact::flat_entry`]), launched on a graph that is not skewed; `None` when the
    /// kernel schedules no nested loop.
    flat: Option<CudaFunction>,
    /// Its rolled twin ([`irgc_artifact::rolled_entry`]), when its own body has an unrolled loop, and which of the
    /// two launches on a skewed graph.
    rolled: Option<CudaFunction>,
    unroll: UnrollChoice,
    /// The most threads per block the driver allows this kernel and its twins (fewer than 1024 when they use
    /// many registers).
    max_threads: u32,
}

/// Which of a kernel's entry (unrolled) and its rolled twin launches on a skewed graph: the first launch runs
/// the unrolled entry, timed; the next launch of the same size runs the rolled one, timed; the faster is kept for
/// the rest of the run (the unrolled one on a tie, or when no second launch of that size comes: a worklist
/// sweep's launches differ in size, and their times say nothing about the entries).
#[derive(Clone, Copy, Debug, PartialEq)]
enum UnrollChoice {
    Untimed,
    /// The unrolled entry took `ms` on a launch of `size` iterations.
    Timed {
        size: i64,
        ms: f32,
    },
    /// Decided from these two launches' times: the unrolled entry launches unless the rolled one was faster.
    Decided {
        unrolled: f32,
        rolled: f32,
    },
}

/// What one launch of a kernel with a rolled twin runs, as [`UnrollChoice::trial`] says.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Trial {
    rolled: bool,
    /// Whether the launch is timed for the choice.
    timed: bool,
}

impl UnrollChoice {
    /// What a launch of `size` iterations runs.
    fn trial(self, size: i64) -> Trial {
        match self {
            UnrollChoice::Untimed => Trial { rolled: false, timed: true },
            UnrollChoice::Timed { size: s, .. } if s == size => Trial { rolled: true, timed: true },
            UnrollChoice::Timed { .. } => Trial { rolled: false, timed: false },
            UnrollChoice::Decided { unrolled, rolled } => Trial { rolled: rolled < unrolled, timed: false },
        }
    }

    /// The choice after launch `t` of `size` iterations took `ms`.
    fn after(self, t: Trial, size: i64, ms: f32) -> UnrollChoice {
        match (self, t.timed, t.rolled) {
            (UnrollChoice::Untimed, true, false) => UnrollChoice::Timed { size, ms },
            (UnrollChoice::Timed { ms: unrolled, .. }, true, true) => UnrollChoice::Decided { unrolled, rolled: ms },
            (keep, ..) => keep,
        }
    }
}

/// An outlined pipe's entry, loaded, with the grid it runs on.
struct PipeEntry {
    scheduled: PipeGrid,
    /// Its flat twin with that twin's grid, for a graph that is not skewed.
    flat: Option<PipeGrid>,
}

/// One entry of an outlined pipe and how it is launched.
#[derive(Clone)]
struct PipeGrid {
    function: CudaFunction,
    /// Blocks of [`FORALL_BLOCK`] threads: all resident at once, as the entry's grid barrier needs.
    grid: u32,
    /// Blocks per thread-block cluster (1: none; see [`PIPE_CLUSTER_VAR`]).
    cluster: u32,
}

/// Whether the run's graph is skewed (the context's `SKEWED` slot): the scheduled entries run then, and the flat
/// twins otherwise.
fn skewed(ctx: &[u64]) -> bool {
    ctx.get(Layout::SKEWED).is_some_and(|&v| v != 0)
}

/// Blocks per multiprocessor for an outlined pipe (fewer than an ordinary launch: every block takes part in
/// every grid barrier, so more blocks make each barrier slower, and the frontiers of long pipes are small).
const PIPE_BLOCKS_PER_SM: u32 = 2;
/// An outlined pipe is entered only when its worklist has at most this many items per thread of its grid.
const LARGE_ROUND: u64 = 4;
/// An outlined pipe is entered only after this many rounds have run as ordinary launches. A pipe that ends within
/// them (Suitor's 7–8 rounds on road and grid2k, BFS's 6 levels on kron22) never pays the persistent kernel's
/// start (the state's upload and read-back, a cooperative launch) and its smaller grid, which made those runs
/// 10–48% slower than round by round (docs/optimizer.md); a long pipe (road's 1,921 BFS levels) pays 8 ordinary
/// rounds, about 0.2 ms.
const HOST_ROUNDS_FIRST: u64 = 8;

/// An outlined pipe is not entered in a round that follows one that shrank its worklist more than this many times
/// (e.g. 1,000 items to fewer than 500). A worklist that keeps shrinking that fast ends within log2 of its size in
/// rounds (at most ~20 at the sizes [`LARGE_ROUND`] admits, a few microseconds of launches each), too few to repay
/// the persistent kernel's start: IPGC on road (9 rounds, each leaving a third of the last) was 25% slower
/// entering it after its host rounds (docs/optimizer.md). Pipes whose worklist holds its size (a BFS frontier
/// crossing a road network, a colouring's tail of priority steps) enter as before.
const FAST_SHRINK: u64 = 2;

/// Whether an outlined pipe over a worklist of `count` items, after `rounds_done` rounds from the host, the last of
/// which began with `previous` items (0: none ran), enters its persistent kernel of `grid` blocks now (see
/// [`LARGE_ROUND`], [`HOST_ROUNDS_FIRST`] and [`FAST_SHRINK`]).
fn enters_pipe(count: u64, previous: u64, grid: u32, rounds_done: u64) -> bool {
    count <= u64::from(grid) * u64::from(FORALL_BLOCK) * LARGE_ROUND
        && rounds_done >= HOST_ROUNDS_FIRST
        && count.saturating_mul(FAST_SHRINK) >= previous
}
/// Set (to anything) in the environment, every outlined pipe enters its persistent kernel at its first round,
/// whatever its size: what the GPU tests use to run the persistent kernels of pipes that would otherwise end, or
/// switch modes, within their host rounds (`scripts/gpu-outline.sh`). Timings with it are not representative.
pub const ENTER_PIPES_AT_ONCE: &str = "IRGC_ENTER_PIPES_AT_ONCE";

/// A round of an outlined pipe with at most this many items runs on one block while the rest of the grid waits
/// (`PipeState::SOLO_ITEMS`): one item per thread, as on the whole grid, but its barriers are the block's, not a
/// grid barrier (every block's atomic on one word, then a poll). Only on a graph that is not skewed, where an
/// item's edges are few: on a skewed graph a small round's items are hubs, which the grid shares (`grid.rs`).
const SOLO_ITEMS: u64 = FORALL_BLOCK as u64;
/// Set to a number in the environment, the most items of a round run on one block instead of [`SOLO_ITEMS`]
/// (0: never): the knob the measurements of `docs/optimizer.md` turned.
pub const SOLO_ITEMS_VAR: &str = "IRGC_SOLO_ITEMS";

/// Set to a number in the environment, the most blocks of an outlined pipe's persistent grid (at least 1; the
/// resident grid when unset or not a number). For compute-sanitizer's racecheck, which did not finish the BFS
/// programs' persistent kernels on the whole resident grid in minutes (`docs/optimizer.md`, "Small rounds on one
/// block"): a smaller grid runs the same code, rounds of several blocks and solo stretches included. Timings with
/// it are not representative.
pub const PIPE_BLOCKS_VAR: &str = "IRGC_PIPE_BLOCKS";

/// The grid of an outlined pipe's persistent kernel: `resident` blocks, or fewer when `cap` (the value of
/// [`PIPE_BLOCKS_VAR`]) is a positive number.
fn capped_pipe_grid(resident: u32, cap: Option<&str>) -> u32 {
    match cap.and_then(|c| c.trim().parse::<u32>().ok()) {
        Some(c) if c > 0 => resident.min(c),
        _ => resident,
    }
}

/// Set to a number from 2 to 16 in the environment, outlined pipes are launched in thread-block clusters of that
/// many blocks (GPUs of compute capability 9.0 on, PTX compiled for `sm_90`): a small round then runs on the
/// first cluster, up to [`SOLO_ITEMS`] items per block of it, its steps ended by the cluster's hardware barrier
/// instead of the grid's (`compiler/backend-ptx/src/pipe_solo.rs`). Unset, or 1: no clusters. An experiment, not
/// the default: not yet measured against block 0 alone (docs/next-iteration-outlining.md, "Cluster rounds").
pub const PIPE_CLUSTER_VAR: &str = "IRGC_PIPE_CLUSTER";

/// The cluster size [`PIPE_CLUSTER_VAR`] asks of a GPU of compute capability `capability` for `ptx`: 1 when
/// unset, an error naming the problem when the value is not a size from 1 to 16 or the GPU or the PTX has no
/// clusters.
fn pipe_cluster(value: Option<&str>, capability: (i32, i32), ptx: &str) -> Result<u32, CudaError> {
    let Some(value) = value else {
        return Ok(1);
    };
    let bad = |why: String| Err(CudaError::Unsupported(format!("{PIPE_CLUSTER_VAR}={value}: {why}")));
    let blocks = match value.trim().parse::<u32>() {
        Ok(b @ 1..=16) => b,
        _ => return bad("expected a cluster size from 1 (no clusters) to 16 blocks".into()),
    };
    if blocks == 1 {
        return Ok(1);
    }
    if capability.0 < 9 {
        let (major, minor) = capability;
        return bad(format!("this GPU (compute capability {major}.{minor}) has no thread-block clusters (9.0 on)"));
    }
    if !ptx.contains("%cluster_nctarank") {
        return bad("the PTX was compiled for a GPU without clusters (compile with --arch sm_90)".into());
    }
    Ok(blocks)
}

/// The most items of a round the first block (or the first cluster of `cluster` blocks) runs alone, for a run
/// whose context is `ctx`.
fn solo_items(ctx: &[u64], cluster: u32) -> u64 {
    if skewed(ctx) {
        return 0;
    }
    let set = std::env::var(SOLO_ITEMS_VAR).ok().and_then(|v| v.trim().parse().ok());
    set.unwrap_or(SOLO_ITEMS * u64::from(cluster))
}

/// Blocks per multiprocessor for an outlined loop, whose kernels usually sweep every node each round: as many
/// as an ordinary launch, for the memory parallelism the sweeps need.
const LOOP_BLOCKS_PER_SM: u32 = 8;

/// Bytes moved between host and device, and the time it took (measured on the host, waiting for the copies).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Transfers {
    pub to_device_bytes: u64,
    pub to_device: Duration,
}

/// A program loaded on a GPU, ready to run with `irgc_runtime::run_on`.
pub struct CudaDevice {
    gpu: Gpu,
    kernels: Vec<Kernel>,
    /// Per outlined pipe of the artifact: its entry, if the PTX has it and the GPU can run it.
    pipes: Vec<Option<PipeEntry>>,
    /// The outlined pipes' state area (`PipeState`).
    pipe_state: GpuBuffer,
    /// The kernel context in device memory, and what the host knows it holds.
    table: GpuBuffer,
    slots: SlotTable,
    reduction_slot: usize,
    /// Per-launch timing events, reused; used only when `time_launches` (each costs a wait for the kernel).
    launch_events: (CudaEvent, CudaEvent),
    time_launches: bool,
    /// Events around the whole plan.
    compute_events: (CudaEvent, CudaEvent),
    memory_limit: Option<u64>,
    transfers: Transfers,
    /// Whether the PTX was compiled with bounds checks (`--check-bounds`): the runtime then reads the bounds
    /// report after every launch.
    check_bounds: bool,
    /// The runtime's `G.contract` kernels and their scratch, loaded when the run first contracts (`contract.rs`).
    pub(crate) contraction: Option<crate::contract::ContractKernels>,
    _module: Arc<CudaModule>,
}

impl CudaDevice {
    /// Says whether the loaded PTX was compiled with bounds checks (see `Device::checks_bounds`).
    pub fn with_bounds_checks(mut self, on: bool) -> CudaDevice {
        self.check_bounds = on;
        self
    }

    /// Loads `ptx` (a module with one `.entry` per kernel of `artifact`, named as the kernel) on `gpu`. The run
    /// may allocate `memory_limit` bytes (default: what the GPU has free now).
    pub fn load(gpu: Gpu, ptx: &str, artifact: &Artifact, memory_limit: Option<u64>) -> Result<CudaDevice, CudaError> {
        if ptx.contains('\0') {
            return Err(CudaError::Module("the PTX text contains a NUL byte".into()));
        }
        let module = gpu.ctx.load_module(Ptx::from_src(ptx)).map_err(|e| {
            let version = ptx.lines().find(|l| l.trim_start().starts_with(".version")).unwrap_or("(no .version line)");
            CudaError::Module(format!(
                "the CUDA driver cannot load the program's PTX: {}; the PTX says `{}` (a driver older than that PTX \
                 ISA rejects it: update the driver or compile for an older --arch)",
                describe(&e),
                version.trim()
            ))
        })?;
        let mut kernels = Vec::with_capacity(artifact.kernels.len());
        for desc in &artifact.kernels {
            let function = module.load_function(&desc.name).map_err(|e| {
                CudaError::Module(format!("the PTX has no entry for kernel `{}`: {}", desc.name, describe(&e)))
            })?;
            let flat = load_twin(&module, ptx, &irgc_artifact::flat_entry(&desc.name));
            let rolled = load_twin(&module, ptx, &irgc_artifact::rolled_entry(&desc.name));
            let query = |f: &CudaFunction| {
                f.max_threads_per_block()
                    .map_err(|e| CudaError::driver(format!("cannot query kernel `{}`", desc.name), e))
            };
            let mut max_threads = query(&function)?;
            for twin in flat.iter().chain(&rolled) {
                max_threads = max_threads.min(query(twin)?);
            }
            let block = block_threads(&desc.space)
                .map_err(|why| CudaError::Module(format!("kernel `{}` cannot run on a GPU: {why}", desc.name)))?;
            if block as i64 > max_threads as i64 {
                return Err(CudaError::Module(format!(
                    "kernel `{}` needs {block} threads per block, but the GPU allows it at most {max_threads} (it \
                     uses too many registers or too much shared memory for that block size)",
                    desc.name
                )));
            }
            let unroll = UnrollChoice::Untimed;
            let name = desc.name.clone();
            kernels.push(Kernel { name, function, flat, rolled, unroll, max_threads: max_threads.max(0) as u32 });
        }
        let cluster = pipe_cluster(std::env::var(PIPE_CLUSTER_VAR).ok().as_deref(), gpu.capability, ptx)?;
        let pipes = artifact
            .pipes
            .iter()
            .map(|p| {
                let per_sm = if p.worklist.is_some() { PIPE_BLOCKS_PER_SM } else { LOOP_BLOCKS_PER_SM };
                if gpu.cooperative {
                    pipe_entry(&module, ptx, &p.entry, &gpu, (per_sm, cluster))
                } else {
                    Ok(None)
                }
            })
            .collect::<Result<_, _>>()?;
        let layout = Layout::of(artifact);
        let reductions = artifact.pipes.iter().map(|p| p.reductions).max().unwrap_or(0);
        let hybrids = artifact.pipes.iter().map(|p| p.hybrids).max().unwrap_or(0);
        let pipe_state = gpu
            .stream
            .alloc_zeros::<u8>(PipeState::words(artifact.plan.locals.len(), reductions, hybrids) * 8)
            .map_err(|e| CudaError::driver("cannot allocate the pipe state on the GPU", e))?;
        let pipe_state = GpuBuffer::new(pipe_state, &gpu.stream);
        let table = gpu
            .stream
            .alloc_zeros::<u8>(layout.context_len() * 8)
            .map_err(|e| CudaError::driver("cannot allocate the kernel context on the GPU", e))?;
        let table = GpuBuffer::new(table, &gpu.stream);
        let event = || {
            gpu.ctx
                .new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
                .map_err(|e| CudaError::driver("cannot create a CUDA event", e))
        };
        let launch_events = (event()?, event()?);
        let compute_events = (event()?, event()?);
        let memory_limit = memory_limit.or(gpu.free_memory_now());
        Ok(CudaDevice {
            slots: SlotTable::new(layout.context_len()),
            reduction_slot: layout.reduction(),
            gpu,
            kernels,
            pipes,
            pipe_state,
            table,
            launch_events,
            time_launches: false,
            compute_events,
            memory_limit,
            transfers: Transfers::default(),
            check_bounds: false,
            contraction: None,
            _module: module,
        })
    }

    /// The GPU this device runs on.
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    /// What was uploaded so far (the graph and initial data: setup).
    pub fn transfers(&self) -> Transfers {
        self.transfers
    }

    pub(crate) fn wait(&self, what: impl std::fmt::Display) -> Result<(), RunError> {
        self.gpu.stream.synchronize().map_err(|e| device_error(what, e))
    }

    /// `bytes` more, on top of what is allocated, do not fit: the error says how much the GPU has.
    fn out_of_memory(&self, what: &str, bytes: usize, e: DriverError) -> RunError {
        let free = self.gpu.free_memory_now().map_or("unknown".to_string(), show_bytes);
        RunError::Memory(format!(
            "{what} needs {} of GPU memory, but the GPU cannot allocate it ({}; {free} free of {})",
            show_bytes(bytes as u64),
            describe(&e),
            show_bytes(self.gpu.total_memory)
        ))
    }

    pub(crate) fn alloc(&mut self, what: &str, bytes: usize) -> Result<GpuBuffer, RunError> {
        // Whole words, and never zero bytes (the driver refuses empty allocations; an empty array still needs an
        // address for its slot).
        let bytes = bytes.div_ceil(8).max(1) * 8;
        let slice = self.gpu.stream.alloc_zeros::<u8>(bytes).map_err(|e| self.out_of_memory(what, bytes, e))?;
        Ok(GpuBuffer::new(slice, &self.gpu.stream))
    }

    /// The byte range of elements `start..start + len` of `elem_size` bytes, checked against `buf`.
    fn range(buf: &GpuBuffer, elem_size: usize, start: u64, len: u64) -> Result<(usize, usize), RunError> {
        let a = start.checked_mul(elem_size as u64);
        let b = start.checked_add(len).and_then(|end| end.checked_mul(elem_size as u64));
        match (a, b) {
            (Some(a), Some(b)) if b <= buf.bytes() as u64 => Ok((a as usize, b as usize)),
            _ => Err(RunError::Device(format!(
                "internal error: elements {start}..{} of {elem_size} bytes lie outside a GPU buffer of {} bytes",
                start.saturating_add(len),
                buf.bytes()
            ))),
        }
    }

    fn write_bytes(&mut self, buf: &mut GpuBuffer, offset: usize, bytes: &[u8]) -> Result<(), RunError> {
        copy_to(&self.gpu.stream, buf, offset, bytes)
    }

    /// The grid of a launch of `size` iterations whose sweep waits: as many blocks of [`FORALL_BLOCK`] threads as
    /// are resident at once (at most the ordinary cap per multiprocessor, and no more than the items need).
    fn waiting_shape(&self, function: &CudaFunction, size: i64, name: &str) -> Result<LaunchConfig, RunError> {
        let cap = crate::shape::FORALL_BLOCKS_PER_SM as u32;
        let resident = resident_grid(function, self.gpu.sms, cap).map_or(0, u64::from);
        if resident == 0 {
            return Err(RunError::Device(format!(
                "kernel `{name}` waits (`wait;`), so all its threads must run at once, but no block of it fits on \
                 a multiprocessor of this GPU (or the driver cannot say how many do)"
            )));
        }
        let wanted = (size as u64).div_ceil(u64::from(FORALL_BLOCK));
        let grid = resident.min(wanted).max(1) as u32;
        Ok(LaunchConfig { grid_dim: (grid, 1, 1), block_dim: (FORALL_BLOCK, 1, 1), shared_mem_bytes: 0 })
    }

    /// Copies the changed slots of `ctx` (and the reduction identity, for a reducing kernel) to the device table.
    fn upload_slots(&mut self, desc: Option<&KernelDesc>, ctx: &[u64]) -> Result<(), RunError> {
        let forced = desc.and_then(|d| d.reduction).map(|(op, ty)| (self.reduction_slot, reduce_identity(op, ty)));
        if let Some(up) = self.slots.update(ctx, forced) {
            let bytes = pack(&up.values, 8, 1);
            let stream = self.gpu.stream.clone();
            let mut dst = self.table.slice_mut().slice_mut(up.first * 8..up.first * 8 + bytes.len());
            stream.memcpy_htod(&bytes, &mut dst).map_err(|e| device_error("cannot copy the kernel context", e))?;
        }
        Ok(())
    }
}

/// Copies `bytes` to `buf` from byte `offset`, in stream order.
fn copy_to(stream: &Arc<CudaStream>, buf: &mut GpuBuffer, offset: usize, bytes: &[u8]) -> Result<(), RunError> {
    let mut dst = buf.slice_mut().slice_mut(offset..offset + bytes.len());
    stream.memcpy_htod(bytes, &mut dst).map_err(|e| device_error("cannot copy to the GPU", e))
}

/// How many blocks of [`FORALL_BLOCK`] threads of `function` are resident at once on `sms` multiprocessors, at
/// most `per_sm_cap` on each (`None` when the driver cannot say): the grid of a launch whose blocks must all run
/// together (an outlined pipe's grid barrier, a sweep that waits).
fn resident_grid(function: &CudaFunction, sms: u32, per_sm_cap: u32) -> Option<u32> {
    let per_sm = function.occupancy_max_active_blocks_per_multiprocessor(FORALL_BLOCK, 0, None).ok()?;
    sms.checked_mul(per_sm.min(per_sm_cap))
}

/// Loads an outlined pipe's entry and sizes its grid: `None` when the PTX lacks it or no block of it fits on a
/// multiprocessor (the interpreter then runs the pipe round by round, as on a GPU without cooperative launches).
/// With clusters of `cluster` blocks (more than 1), the grid is the resident clusters' blocks, and an error says
/// so when none fits.
fn pipe_entry(
    module: &Arc<CudaModule>,
    ptx: &str,
    name: &str,
    gpu: &Gpu,
    (wanted_per_sm, cluster): (u32, u32),
) -> Result<Option<PipeEntry>, CudaError> {
    let cap = std::env::var(PIPE_BLOCKS_VAR).ok();
    let load = |name: &str| -> Result<Option<PipeGrid>, CudaError> {
        let Ok(function) = module.load_function(name) else {
            return Ok(None);
        };
        let Some(resident) = resident_grid(&function, gpu.sms, wanted_per_sm) else {
            return Ok(None);
        };
        let grid = if cluster > 1 {
            let cfg = LaunchConfig {
                grid_dim: (resident.max(cluster).next_multiple_of(cluster), 1, 1),
                block_dim: (FORALL_BLOCK, 1, 1),
                shared_mem_bytes: 0,
            };
            let clusters = driver::resident_clusters(&gpu.stream, &function, cfg, cluster)
                .map_err(|e| CudaError::driver(format!("cannot size the clusters of pipe entry `{name}`"), e))?;
            // Whole clusters, no more blocks than the entry wants per multiprocessor.
            let whole = (clusters * cluster).min(resident / cluster * cluster);
            if whole == 0 {
                return Err(CudaError::Unsupported(format!(
                    "{PIPE_CLUSTER_VAR}={cluster}: no cluster of {cluster} blocks of pipe entry `{name}` fits on this \
                     GPU at once ({clusters} clusters resident, {resident} blocks); try a smaller size"
                )));
            }
            // At most the blocks IRGC_PIPE_BLOCKS asks for, but one cluster at least.
            (capped_pipe_grid(whole, cap.as_deref()) / cluster).max(1) * cluster
        } else {
            capped_pipe_grid(resident, cap.as_deref())
        };
        Ok((grid > 0).then_some(PipeGrid { function, grid, cluster }))
    };
    let Some(scheduled) = load(name)? else {
        return Ok(None);
    };
    let flat = irgc_artifact::flat_entry(name);
    let flat = if has_entry(ptx, &flat) { load(&flat)? } else { None };
    Ok(Some(PipeEntry { scheduled, flat }))
}

/// Whether the PTX text declares entry `name` (asked before loading a flat twin, so that a kernel without one
/// costs no failed driver call, which compute-sanitizer would report as an error).
fn has_entry(ptx: &str, name: &str) -> bool {
    ptx.contains(&format!(".entry {name}("))
}

/// Entry `twin` (a kernel's flat or rolled twin), if the PTX has it.
fn load_twin(module: &Arc<CudaModule>, ptx: &str, twin: &str) -> Option<CudaFunction> {
    has_entry(ptx, twin).then(|| module.load_function(twin).ok()).flatten()
}

impl Device for CudaDevice {
    type Buffer = GpuBuffer;

    fn checks_bounds(&self) -> bool {
        self.check_bounds
    }

    fn memory_name(&self) -> &'static str {
        "GPU memory"
    }

    /// A GPU keeps the input's numbering (see the trait's documentation).
    fn renumbers_by_degree(&self) -> bool {
        false
    }

    /// The threads of a full launch's grid (`launch_shape`: `FORALL_BLOCKS_PER_SM` blocks of `FORALL_BLOCK` on
    /// every multiprocessor).
    fn parallel_threads(&self) -> u64 {
        u64::from(self.gpu.sms) * crate::shape::FORALL_BLOCKS_PER_SM * u64::from(crate::shape::FORALL_BLOCK)
    }

    fn memory_limit(&self) -> Option<u64> {
        self.memory_limit
    }

    fn alloc_zeroed(&mut self, what: &str, len: u64, elem_size: usize) -> Result<GpuBuffer, RunError> {
        // The interpreter checked the size against the memory limit (and 2^40 bytes) before asking.
        self.alloc(what, (len * elem_size as u64) as usize)
    }

    fn alloc_from(&mut self, what: &str, elems: &[u64], elem_size: usize) -> Result<GpuBuffer, RunError> {
        let start = Instant::now();
        let bytes = pack(elems, elem_size, 8);
        let mut buf = self.alloc(what, bytes.len())?;
        self.write_bytes(&mut buf, 0, &bytes)?;
        self.wait(format_args!("cannot copy {what} to the GPU"))?;
        self.transfers.to_device_bytes += bytes.len() as u64;
        self.transfers.to_device += start.elapsed();
        Ok(buf)
    }

    fn alloc_from_u32(&mut self, what: &str, elems: &[u32]) -> Result<GpuBuffer, RunError> {
        let start = Instant::now();
        // Little-endian bytes straight from the u32s, padded to whole words as `pack` pads.
        let mut bytes = vec![0u8; (elems.len() * 4).div_ceil(8).max(1) * 8];
        bytes.par_chunks_mut(4).zip(elems.par_iter()).for_each(|(b, x)| b.copy_from_slice(&x.to_le_bytes()));
        let mut buf = self.alloc(what, bytes.len())?;
        self.write_bytes(&mut buf, 0, &bytes)?;
        self.wait(format_args!("cannot copy {what} to the GPU"))?;
        self.transfers.to_device_bytes += bytes.len() as u64;
        self.transfers.to_device += start.elapsed();
        Ok(buf)
    }

    fn read(&self, buf: &GpuBuffer, elem_size: usize, start: u64, len: u64) -> Result<Vec<u64>, RunError> {
        if len == 0 {
            return Ok(Vec::new());
        }
        let (a, b) = Self::range(buf, elem_size, start, len)?;
        let bytes = self
            .gpu
            .stream
            .clone_dtoh(&buf.slice().slice(a..b))
            .map_err(|e| device_error("cannot read from the GPU", e))?;
        self.wait("cannot read from the GPU")?;
        Ok(unpack(&bytes, elem_size))
    }

    fn read_u32(&self, buf: &GpuBuffer, start: u64, len: u64) -> Result<Vec<u32>, RunError> {
        if len == 0 {
            return Ok(Vec::new());
        }
        let (a, b) = Self::range(buf, 4, start, len)?;
        let mut out = vec![0u32; len as usize];
        // Straight into the result's bytes (the host is little-endian, as the device is): a 4 M-node graph's labels
        // took 18 ms to read as widened words (a 16 MB copy, then a 32 MB one).
        self.gpu
            .stream
            .memcpy_dtoh(&buf.slice().slice(a..b), bytemuck::cast_slice_mut::<u32, u8>(&mut out))
            .map_err(|e| device_error("cannot read from the GPU", e))?;
        self.wait("cannot read from the GPU")?;
        Ok(out)
    }

    fn write(&mut self, buf: &mut GpuBuffer, elem_size: usize, start: u64, elems: &[u64]) -> Result<(), RunError> {
        if elems.is_empty() {
            return Ok(());
        }
        let (a, _) = Self::range(buf, elem_size, start, elems.len() as u64)?;
        // Exactly the elements' bytes: their neighbours in the same word are left alone. Eight-byte elements are
        // copied from `elems` itself (a contracted graph's row offsets: no packed copy to allocate and fill).
        if elem_size == 8 {
            return self.write_bytes(buf, a, bytemuck::cast_slice(elems));
        }
        self.write_bytes(buf, a, &pack(elems, elem_size, 1))
    }

    fn write_u32(&mut self, buf: &mut GpuBuffer, start: u64, elems: &[u32]) -> Result<(), RunError> {
        if elems.is_empty() {
            return Ok(());
        }
        let (a, _) = Self::range(buf, 4, start, elems.len() as u64)?;
        // Straight from `elems` (the host is little-endian, as the device is): a contracted graph's columns can be
        // 100 M, and need no packed copy.
        self.write_bytes(buf, a, bytemuck::cast_slice(elems))
    }

    fn fill(&mut self, buf: &mut GpuBuffer, elem_size: usize, len: u64, bits: u64) -> Result<(), RunError> {
        if len == 0 {
            return Ok(());
        }
        let (_, total) = Self::range(buf, elem_size, 0, len)?;
        let stream = self.gpu.stream.clone();
        let failed = |e| device_error("cannot fill an array on the GPU", e);
        match fill_plan(elem_size, bits) {
            Fill::Bytes(b) => driver::memset_d8(&stream, buf, 0, total, b).map_err(failed),
            Fill::Words(w) => driver::memset_d32(&stream, buf, 0, total / 4, w).map_err(failed),
            Fill::Pattern(v) => {
                // The first elements from the host, then each copy doubles the filled prefix.
                let seed = len.min(PATTERN_SEED);
                self.write(buf, elem_size, 0, &vec![v; seed as usize])?;
                let mut done = seed as usize * elem_size;
                while done < total {
                    let n = done.min(total - done);
                    driver::copy_within(&stream, buf, 0, done, n).map_err(failed)?;
                    done += n;
                }
                Ok(())
            }
        }
    }

    fn launch(&mut self, k: usize, desc: &KernelDesc, ctx: &[u64], size: u64) -> Result<Launched, RunError> {
        let identity = desc.reduction.map_or(0, |(op, ty)| reduce_identity(op, ty));
        if size == 0 {
            return Ok(Launched { bits: identity, seconds: 0.0 });
        }
        let shape = if desc.deals && skewed(ctx) {
            dealing_shape(&desc.space, size, self.gpu.sms)
        } else {
            launch_shape(&desc.space, size, self.gpu.sms)
        };
        let shape =
            shape.map_err(|why| RunError::Device(format!("kernel `{}` cannot run on a GPU: {why}", desc.name)))?;
        let kernel = self.kernels.get(k).ok_or_else(|| {
            RunError::Device(format!("kernel `{}` (#{k}) is not in the loaded PTX module", desc.name))
        })?;
        if shape.block > kernel.max_threads {
            return Err(RunError::Device(format!(
                "kernel `{}` needs {} threads per block, but the GPU allows it at most {}",
                desc.name, shape.block, kernel.max_threads
            )));
        }
        let size = i64::try_from(size)
            .map_err(|_| RunError::Device(format!("kernel `{}` has {size} iterations, more than 2^63", desc.name)))?;
        self.upload_slots(Some(desc), ctx)?;
        let cfg = LaunchConfig { grid_dim: (shape.grid, 1, 1), block_dim: (shape.block, 1, 1), shared_mem_bytes: 0 };
        let failed = |e| device_error(format_args!("kernel `{}` failed on the GPU", desc.name), e);
        let stream = &self.gpu.stream;
        // Untimed, the launch is queued and the host goes on: the next read (the worklist counters, a reduction's
        // result, the outputs) waits for it, in stream order. A failure then shows at that wait.
        let kernel = &self.kernels[k];
        // The entry: the flat twin on a graph that is not skewed, else the unrolled or the rolled one.
        let flat = kernel.flat.as_ref().filter(|_| !skewed(ctx));
        let trial = (flat.is_none() && kernel.rolled.is_some()).then(|| kernel.unroll.trial(size));
        let function = match (flat, &kernel.rolled, trial) {
            (Some(flat), ..) => flat,
            (None, Some(rolled), Some(Trial { rolled: true, .. })) => rolled,
            _ => &kernel.function,
        };
        // A sweep that waits runs on a grid whose threads all run at once (a cooperative launch: the driver
        // refuses one that cannot be resident), each going round its items until none waits.
        let cfg = if desc.waits { self.waiting_shape(function, size, &desc.name)? } else { cfg };
        let go = || driver::launch(stream, function, &self.table, size, cfg, desc.waits);
        let ms = if self.time_launches || trial.is_some_and(|t| t.timed) {
            self.launch_events.0.record(stream).map_err(failed)?;
            go().map_err(failed)?;
            self.launch_events.1.record(stream).map_err(failed)?;
            stream.synchronize().map_err(failed)?;
            self.launch_events.0.elapsed_ms(&self.launch_events.1).map_err(failed)?
        } else {
            go().map_err(failed)?;
            0.0
        };
        if let Some(t) = trial {
            let kernel = &mut self.kernels[k];
            kernel.unroll = kernel.unroll.after(t, size, ms);
        }
        let ms = if self.time_launches { ms } else { 0.0 };
        let bits = match desc.reduction {
            None => 0,
            Some((_, ty)) => {
                let slot = self.read(&self.table, 8, self.reduction_slot as u64, 1)?[0];
                // 32-bit results (and bools) live in the slot's low 4 bytes.
                if ty.size() <= 4 {
                    irgc_runtime::eval::normalize(ty, slot & 0xFFFF_FFFF)
                } else {
                    slot
                }
            }
        };
        Ok(Launched { bits, seconds: ms as f64 / 1e3 })
    }

    fn finish(&mut self) -> Result<(), RunError> {
        self.wait("a kernel failed on the GPU")
    }

    fn contracts_on_device(&self) -> bool {
        true
    }

    fn contract(
        &mut self,
        job: irgc_runtime::ContractJob<'_, GpuBuffer>,
    ) -> Result<irgc_runtime::Contracted, RunError> {
        self.contract_on_gpu(job)
    }

    fn run_pipe(&mut self, run: PipeRun<'_>, ctx: &[u64]) -> Result<Option<PipeEnd>, RunError> {
        let Some(Some(entry)) = self.pipes.get(run.pipe) else {
            return Ok(None);
        };
        let PipeGrid { function, grid, cluster } = match &entry.flat {
            Some(flat) if !skewed(ctx) => flat.clone(),
            _ => entry.scheduled.clone(),
        };
        // A worklist larger than the persistent grid can hide latency for (it has a few blocks per
        // multiprocessor, an ordinary launch up to 8) runs its round from the host; the pipe enters the kernel once
        // its worklist has shrunk (pipes seeded with every node: matching, colouring) and it has run
        // `HOST_ROUNDS_FIRST` rounds (short pipes never enter it).
        let at_once = std::env::var_os(ENTER_PIPES_AT_ONCE).is_some();
        if run.desc.worklist.is_some() && !at_once && !enters_pipe(run.count, run.previous_count, grid, run.rounds_done)
        {
            return Ok(None);
        }
        self.upload_slots(None, ctx)?;
        let (locals, reductions) = (run.locals.len(), run.desc.reductions);
        let mut words = vec![0u64; PipeState::words(locals, reductions, run.desc.hybrids)];
        for k in 0..run.desc.hybrids {
            let cost = run.auto.get(k).copied().unwrap_or_default();
            for slot in 0..2 {
                let at = PipeState::auto_words(locals, reductions, k, slot);
                words[at..at + AutoHybrid::WORDS].copy_from_slice(&cost.to_words());
            }
        }
        words[PipeState::MAX_ROUNDS] = run.max_rounds;
        words[PipeState::SOLO_ITEMS] = solo_items(ctx, cluster);
        words[PipeState::MAX_LAUNCHES] = run.max_launches;
        words[PipeState::RETRY_BUFFERS..PipeState::RETRY_BUFFERS + 2].copy_from_slice(&run.retry_buffers);
        words[PipeState::COUNTS] = run.count;
        words[PipeState::LOCALS..PipeState::LOCALS + run.locals.len()].copy_from_slice(run.locals);
        // Per-round records (statistics): a zeroed buffer of `record_rounds + 1` records, read back after.
        let record_words = PipeState::record_words(run.desc.hybrids);
        let records = match (run.record_rounds, run.desc.worklist) {
            (0, _) | (_, None) => None,
            (rounds, Some(_)) => {
                let bytes = (rounds as usize + 1) * record_words * 8;
                let buf = self
                    .gpu
                    .stream
                    .alloc_zeros::<u8>(bytes)
                    .map_err(|e| self.out_of_memory("the per-round records (--stats)", bytes, e))?;
                let buf = GpuBuffer::new(buf, &self.gpu.stream);
                words[PipeState::RECORDS] = buf.address();
                words[PipeState::RECORD_ROUNDS] = rounds;
                Some(buf)
            }
        };
        copy_to(&self.gpu.stream, &mut self.pipe_state, 0, &pack(&words, 8, 1))?;
        let cfg = LaunchConfig { grid_dim: (grid, 1, 1), block_dim: (FORALL_BLOCK, 1, 1), shared_mem_bytes: 0 };
        let kernel = match cluster {
            1 => format!("one cooperative kernel of {grid} blocks"),
            n => format!("one cooperative kernel of {grid} blocks in clusters of {n}"),
        };
        let what = match run.desc.worklist {
            Some(w) => format!("the pipe over worklist #{w} ({kernel})"),
            None => format!("an outlined loop ({kernel})"),
        };
        driver::launch_pipe(&self.gpu.stream, &function, &self.table, &self.pipe_state, cfg, cluster)
            .map_err(|e| device_error(format_args!("{what} failed on the GPU"), e))?;
        let end = self.read(&self.pipe_state, 8, 0, words.len() as u64)?;
        let rounds = end[PipeState::ROUNDS];
        let records = match &records {
            Some(buf) => {
                let kept = (rounds.min(run.record_rounds) + 1) * record_words as u64;
                RoundRecord::decode(&self.read(buf, 8, 0, kept)?, run.desc.hybrids)
            }
            None => Vec::new(),
        };
        let auto = (0..run.desc.hybrids)
            .map(|k| {
                let at = PipeState::auto_words(locals, reductions, k, 0);
                AutoHybrid::from_words(&end[at..at + AutoHybrid::WORDS])
            })
            .collect();
        Ok(Some(PipeEnd {
            rounds,
            auto,
            launches: end[PipeState::LAUNCHES],
            status: end[PipeState::STATUS],
            locals: end[PipeState::LOCALS..PipeState::LOCALS + run.locals.len()].to_vec(),
            records,
        }))
    }

    fn receive(
        &mut self,
        dst: &mut GpuBuffer,
        sender: &CudaDevice,
        src: &GpuBuffer,
        elem_size: usize,
        len: u64,
    ) -> Result<(), RunError> {
        let (_, bytes) = Self::range(src, elem_size, 0, len)?;
        Self::range(dst, elem_size, 0, len)?;
        // Direct where `Gpu::connect` switched peer access on; through the host otherwise.
        driver::copy_peer(&self.gpu.stream, dst, src, &sender.gpu.ctx, bytes)
            .map_err(|e| device_error("cannot copy an array between GPUs", e))?;
        // The sender may free or reuse `src` once this returns.
        self.wait("cannot copy an array between GPUs")
    }

    fn begin_compute(&mut self, time_launches: bool) -> Result<(), RunError> {
        self.time_launches = time_launches;
        self.compute_events.0.record(&self.gpu.stream).map_err(|e| device_error("cannot record a CUDA event", e))
    }

    fn unroll_choices(&self) -> Vec<irgc_runtime::UnrollChoice> {
        self.kernels
            .iter()
            .filter_map(|k| match k.unroll {
                UnrollChoice::Decided { unrolled, rolled } => Some(irgc_runtime::UnrollChoice {
                    kernel: k.name.clone(),
                    unrolled_ms: f64::from(unrolled),
                    rolled_ms: f64::from(rolled),
                    kept_unrolled: rolled >= unrolled,
                }),
                _ => None,
            })
            .collect()
    }

    fn end_compute(&mut self) -> Result<Option<Duration>, RunError> {
        let failed = |e| device_error("cannot time the run on the GPU", e);
        self.compute_events.1.record(&self.gpu.stream).map_err(failed)?;
        self.gpu.stream.synchronize().map_err(failed)?;
        let ms = self.compute_events.0.elapsed_ms(&self.compute_events.1).map_err(failed)?;
        Ok(Some(Duration::from_secs_f64(ms.max(0.0) as f64 / 1e3)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pipe_grid_is_capped_only_by_a_positive_number() {
        assert_eq!(capped_pipe_grid(264, None), 264);
        assert_eq!(capped_pipe_grid(264, Some("4")), 4);
        assert_eq!(capped_pipe_grid(264, Some(" 2 ")), 2);
        assert_eq!(capped_pipe_grid(264, Some("1000")), 264, "never more than are resident");
        assert_eq!(capped_pipe_grid(264, Some("0")), 264);
        assert_eq!(capped_pipe_grid(264, Some("many")), 264);
        assert_eq!(capped_pipe_grid(0, Some("4")), 0, "nothing fits: still nothing");
    }

    #[test]
    fn a_pipe_cluster_is_asked_for_only_where_the_gpu_and_the_ptx_have_clusters() {
        let (hopper, ampere) = ((9, 0), (8, 0));
        let ptx90 = "mov.u32 %r1, %cluster_nctarank;";
        assert_eq!(pipe_cluster(None, hopper, ptx90).unwrap(), 1, "unset: no clusters");
        assert_eq!(pipe_cluster(Some("1"), ampere, "").unwrap(), 1, "1: no clusters, on any GPU");
        assert_eq!(pipe_cluster(Some(" 8 "), hopper, ptx90).unwrap(), 8);
        assert_eq!(pipe_cluster(Some("16"), hopper, ptx90).unwrap(), 16);
        for (value, cc, ptx, why) in [
            ("0", hopper, ptx90, "from 1 (no clusters) to 16"),
            ("17", hopper, ptx90, "from 1 (no clusters) to 16"),
            ("eight", hopper, ptx90, "from 1 (no clusters) to 16"),
            ("8", ampere, ptx90, "compute capability 8.0) has no thread-block clusters"),
            ("8", hopper, "", "compile with --arch sm_90"),
        ] {
            let e = pipe_cluster(Some(value), cc, ptx).unwrap_err().to_string();
            assert!(e.starts_with(&format!("{PIPE_CLUSTER_VAR}={value}: ")), "{e}");
            assert!(e.contains(why), "{value}: {e}");
        }
    }

    #[test]
    fn a_cluster_runs_as_many_items_alone_as_its_blocks_hold() {
        let plain = vec![0u64; Layout::SKEWED + 1];
        let mut skewed = plain.clone();
        skewed[Layout::SKEWED] = 1;
        if std::env::var_os(SOLO_ITEMS_VAR).is_none() {
            assert_eq!(solo_items(&plain, 1), SOLO_ITEMS);
            assert_eq!(solo_items(&plain, 8), 8 * SOLO_ITEMS);
        }
        assert_eq!(solo_items(&skewed, 8), 0, "a skewed graph's small rounds are hubs: the grid shares them");
    }

    /// Runs launches of the given sizes and times (unrolled, rolled) through the choice; returns what each
    /// launch ran (`true`: rolled) and the final choice.
    fn choose(launches: &[(i64, f32, f32)]) -> (Vec<bool>, UnrollChoice) {
        let mut c = UnrollChoice::Untimed;
        let mut ran = Vec::new();
        for &(size, unrolled, rolled) in launches {
            let t = c.trial(size);
            ran.push(t.rolled);
            c = c.after(t, size, if t.rolled { rolled } else { unrolled });
        }
        (ran, c)
    }

    #[test]
    fn the_faster_of_the_unrolled_and_rolled_entries_is_kept() {
        let (ran, c) = choose(&[(100, 1.27, 1.03), (100, 1.27, 1.03), (100, 1.27, 1.03)]);
        let decided = UnrollChoice::Decided { unrolled: 1.27, rolled: 1.03 };
        assert_eq!((ran, c), (vec![false, true, true], decided), "rolled faster (rmatg22)");
        let (ran, c) = choose(&[(100, 1.99, 3.86), (100, 1.99, 3.86), (100, 1.99, 3.86)]);
        let decided = UnrollChoice::Decided { unrolled: 1.99, rolled: 3.86 };
        assert_eq!((ran, c), (vec![false, true, false], decided), "unrolled faster (kron22)");
        let (ran, _) = choose(&[(100, 1.0, 1.0), (100, 1.0, 1.0), (100, 1.0, 1.0)]);
        assert_eq!(ran, vec![false, true, false], "a tie keeps the pass's choice");
        // Launches of different sizes (a worklist sweep) compare nothing: the unrolled entry runs untimed.
        let (ran, c) = choose(&[(100, 1.0, 0.5), (7, 1.0, 0.5), (3000, 1.0, 0.5)]);
        assert_eq!(ran, vec![false, false, false]);
        assert_eq!(c, UnrollChoice::Timed { size: 100, ms: 1.0 });
        assert_eq!(c.trial(7), Trial { rolled: false, timed: false });
    }

    #[test]
    fn a_pipe_enters_its_kernel_only_when_small_and_after_its_first_rounds() {
        let grid = 264; // 132 multiprocessors, 2 blocks each
        let small = 1_000;
        assert!(!enters_pipe(small, 0, grid, 0), "a short pipe's first rounds run from the host");
        assert!(!enters_pipe(small, small, grid, HOST_ROUNDS_FIRST - 1));
        assert!(enters_pipe(small, small, grid, HOST_ROUNDS_FIRST));
        let large = u64::from(grid) * u64::from(FORALL_BLOCK) * LARGE_ROUND + 1;
        assert!(!enters_pipe(large, large, grid, 100), "a large round runs from the host");
    }

    #[test]
    fn a_pipe_whose_worklist_shrinks_fast_stays_on_the_host() {
        let grid = 264;
        let after = HOST_ROUNDS_FIRST;
        assert!(!enters_pipe(400, 1_000, grid, after), "less than half the last round's items: about to end");
        assert!(enters_pipe(500, 1_000, grid, after), "half of them: may go on for long");
        assert!(enters_pipe(1_200, 1_000, grid, after), "a growing frontier enters");
        assert!(!enters_pipe(1, 3, grid, after) && enters_pipe(2, 3, grid, after));
    }
}
