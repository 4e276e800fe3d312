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
use crate::pipe_grid::{
    enters_pipe, has_entry, heavy_round, pipe_cluster, pipe_entry, resident_grid, scheduled, solo_items, PipeEntry,
    ENTER_PIPES_AT_ONCE, LOOP_BLOCKS_PER_SM, PIPE_BLOCKS_PER_SM, PIPE_CLUSTER_VAR,
};
use crate::shape::{block_threads, dealing_shape, launch_shape, FORALL_BLOCK};
use crate::slots::SlotTable;

/// Elements written from the host before a [`Fill::Pattern`] fill doubles them on the device.
const PATTERN_SEED: u64 = 1 << 12;

/// One kernel, loaded.
struct Kernel {
    name: String,
    function: CudaFunction,
    /// Its flat twin ([`irgc_artifact::flat_entry`]), launched where the schedules do not run ([`scheduled`]);
    /// `None` when the kernel schedules no nested loop.
    flat: Option<CudaFunction>,
    /// Its rolled twin ([`irgc_artifact::rolled_entry`]), when its body or a function it calls has an unrolled
    /// loop, and which of the two launches where the schedules run.
    rolled: Option<CudaFunction>,
    unroll: UnrollChoice,
    /// The most threads per block the driver allows this kernel and its twins (fewer than 1024 when they use
    /// many registers).
    max_threads: u32,
}

/// Which of a kernel's entry (unrolled) and its rolled twin launches where the schedules run: the first launch runs
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
        let scheduled = scheduled(ctx, matches!(desc.space, irgc_artifact::Space::Worklist(_)));
        let shape = if desc.deals && scheduled {
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
        // The entry: the flat twin where the schedules do not run, else the unrolled or the rolled one.
        let flat = kernel.flat.as_ref().filter(|_| !scheduled);
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
        let scheduled = scheduled(ctx, run.desc.worklist.is_some());
        let pipe_grid = match &entry.flat {
            Some(flat) if !scheduled => flat,
            _ => &entry.scheduled,
        };
        let function = pipe_grid.function.clone();
        let (grid, cluster) = pipe_grid.shape.for_graph(scheduled);
        // A worklist larger than the persistent grid can hide latency for (it has a few blocks per
        // multiprocessor, an ordinary launch up to 8) runs its round from the host; the pipe enters the kernel once
        // its worklist has shrunk (pipes seeded with every node: matching, colouring) and it has run
        // `HOST_ROUNDS_FIRST` rounds (short pipes never enter it).
        let at_once = std::env::var_os(ENTER_PIPES_AT_ONCE).is_some();
        if run.desc.worklist.is_some() && !at_once && !enters_pipe(run.count, &run.host, grid, heavy_round()) {
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
        words[PipeState::SOLO_ITEMS] = solo_items(scheduled, cluster);
        words[PipeState::MAX_LAUNCHES] = run.max_launches;
        words[PipeState::RETRY_BUFFERS..PipeState::RETRY_BUFFERS + 2].copy_from_slice(&run.retry_buffers);
        words[PipeState::COUNTS] = run.count;
        words[PipeState::LOCALS..PipeState::LOCALS + run.locals.len()].copy_from_slice(run.locals);
        // Per-round records (statistics): a zeroed buffer of `record_rounds + 1` records, read back after.
        let record_words = PipeState::record_words(run.desc.hybrids);
        let records = match run.record_rounds {
            0 => None,
            rounds => {
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
}
