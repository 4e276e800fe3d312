//! Running a compiled program on the chosen backend, and what the summary needs of the result whichever it was.
//!
//! The CPU goes through `irgc_runtime::execute` (the Cranelift kernels, on a thread pool); CUDA through
//! `irgc_runtime::run_on` with an `irgc_cuda::CudaDevice` (the PTX kernels, on GPU 0 or the GPUs asked for).
//! Several devices go through `irgc_runtime::devices::run_on_devices`. All run the same plan interpreter, so
//! results, statistics and verification are comparable line for line.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{anyhow, Result};
use irgc_artifact::Artifact;
use irgc_front::ir::Module;
use irgc_graph::Csr;
use irgc_runtime::{OutputData, RunOptions, Stats};

/// Where a run happened.
pub enum Target {
    Cpu {
        threads: usize,
    },
    Cuda {
        /// The GPU's name.
        device: String,
        /// The PTX target compiled for.
        arch: String,
        /// Uploading the graph and initial data (part of setup).
        upload: Duration,
        upload_bytes: u64,
        /// Reading the outputs back after the plan.
        readback: Duration,
    },
}

/// A finished run, from either backend.
pub struct Finished {
    pub outputs: Vec<OutputData>,
    pub stats: Stats,
    pub launches: u64,
    pub setup_time: Duration,
    /// What the set-up spent its time on (summed over the devices of a multi-device run).
    pub setup_parts: irgc_runtime::memory::SetupParts,
    pub compute_time: Duration,
    pub target: Target,
    /// A multi-device run's parts and merges (`None` on one device).
    pub devices: Option<Devices>,
    /// What this process did as one rank of a multi-process run (`None` otherwise). On a rank other than 0,
    /// `outputs` is empty: rank 0 holds the answer (`crate::ranks`).
    pub rank: Option<RankReport>,
}

/// What a multi-device run's devices and merges did (`irgc_runtime::devices`).
pub struct Devices {
    pub runs: Vec<irgc_runtime::devices::DeviceRun>,
    pub merge_rounds: u32,
    pub merge_time: Duration,
    pub merge_launches: u64,
    /// Whether the devices ran their parts at once (GPUs) or one after another (CPU devices, or
    /// [`CudaProgram::one_after_another`]).
    pub at_once: bool,
    /// How the merges moved the arrays ("CUDA peer copies", "NCCL 2.27.3", ...).
    pub moved_by: String,
}

/// What this process did as a rank, for the summary.
#[derive(Clone, Debug)]
pub struct RankReport {
    pub rank: irgc_runtime::ranks::Rank,
    /// How the arrays moved ("NCCL 2.27.3", "local sockets, through the host").
    pub link: String,
    /// Setting up the link (NCCL's rendezvous waits for every rank).
    pub join_time: Duration,
    /// Waiting for the other ranks' set-up before computing.
    pub barrier_time: Duration,
    /// This rank's part and its plan.
    pub part: irgc_runtime::devices::DeviceRun,
    pub merges_received: u32,
    /// From the end of its plan to the end of its merge steps (waiting for partners included).
    pub merge_time: Duration,
    pub merge_launches: u64,
    pub sent_to: Option<usize>,
}

/// How the GPUs of a one-process multi-GPU run move the merge's arrays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Comm {
    /// CUDA peer copies: in one process they measured faster than NCCL (0.35 ms against 11–25 ms for kron22's
    /// merge on two H100s, NCCL connecting each pair at its first send; `docs/distributed.md`).
    Auto,
    /// CUDA peer copies (`cuMemcpyPeerAsync`: direct over NVLink or PCIe where peer access is on), as `Auto`.
    Peer,
    /// NCCL (`ncclSend`/`ncclRecv` between per-GPU communicators); an error if it cannot be set up.
    Nccl,
}

/// A program made ready for the GPU: the PTX compiled for `arch` and loaded on each GPU a device runs on.
pub struct CudaProgram {
    pub(crate) devices: Vec<irgc_cuda::CudaDevice>,
    pub(crate) arch: String,
    schedule: irgc_runtime::devices::Schedule,
    mover: Box<dyn irgc_runtime::devices::Mover<irgc_cuda::CudaDevice>>,
}

/// What a multi-GPU run's merges use unless NCCL takes over.
const PEER_COPIES: irgc_runtime::devices::Receive = irgc_runtime::devices::Receive { label: "CUDA peer copies" };

impl CudaProgram {
    /// Runs several devices' parts one after another instead of at once: each part's compute time is then its
    /// own, which is how a multi-GPU run's parts are measured with several devices on one GPU (`--gpus 0,0`).
    pub fn one_after_another(mut self, yes: bool) -> CudaProgram {
        if yes {
            self.schedule = irgc_runtime::devices::Schedule::OneAfterAnother;
        }
        self
    }

    /// Chooses how the devices' merges move arrays (only a run on several devices merges).
    pub fn merging_by(mut self, comm: Comm) -> Result<CudaProgram> {
        if self.devices.len() < 2 || comm != Comm::Nccl {
            return Ok(self);
        }
        let mut ordinals: Vec<usize> = self.devices.iter().map(|d| d.gpu().ordinal).collect();
        ordinals.sort_unstable();
        if ordinals.windows(2).any(|w| w[0] == w[1]) {
            return Err(anyhow!(
                "--comm nccl needs a GPU of its own for every device (NCCL refuses a GPU named twice)"
            ));
        }
        self.mover = Box::new(irgc_cuda::NcclDevices::new(&self.devices)?);
        Ok(self)
    }
}

/// Opens the GPUs `ordinals` names, one per device (`[0]` for a one-GPU run; a GPU named twice holds two
/// devices): the first thing `--backend cuda` does, so that a machine without a driver says so at once.
pub fn open_gpus(ordinals: &[usize]) -> Result<Vec<irgc_cuda::Gpu>> {
    irgc_cuda::Gpu::open_all(ordinals).map_err(|e| anyhow!(e))
}

/// Compiles `module` to PTX for `arch` (default: the first GPU's own, capped at sm_90), with every access
/// bounds-checked if `check_bounds`, and loads it on every one of `gpus` (one device each).
pub fn prepare_cuda(
    gpus: Vec<irgc_cuda::Gpu>,
    module: &Module,
    artifact: &Artifact,
    arch: Option<&str>,
    check_bounds: bool,
) -> Result<CudaProgram> {
    let arch = cuda_arch(&gpus, arch)?;
    let ptx = crate::backend::compile_ptx(module, &arch, check_bounds)?;
    load_cuda(gpus, &ptx, arch, artifact, check_bounds)
}

/// The architecture a run on `gpus` compiles for: `arch` if given, else the first GPU's own (capped at sm_90).
pub fn cuda_arch(gpus: &[irgc_cuda::Gpu], arch: Option<&str>) -> Result<String> {
    match arch {
        Some(a) => Ok(a.to_string()),
        None => Ok(gpus.first().ok_or_else(|| anyhow!("no GPU to run on"))?.arch()?),
    }
}

/// A program's PTX, compiled on first use for each architecture and bounds-check setting and kept, for callers
/// that run one program many times (`irgc bench`'s runs, a Python `Program`): the LLVM back end takes seconds on
/// a large program.
#[derive(Default)]
pub struct PtxCache(Mutex<Vec<(String, bool, Arc<str>)>>);

impl PtxCache {
    /// `module`'s PTX for `arch`, bounds-checked if `check_bounds`: compiled the first time, then the same text.
    pub fn get(&self, module: &Module, arch: &str, check_bounds: bool) -> Result<Arc<str>> {
        let mut kept = self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some((_, _, text)) = kept.iter().find(|(a, c, _)| a == arch && *c == check_bounds) {
            return Ok(text.clone());
        }
        let text: Arc<str> = crate::backend::compile_ptx(module, arch, check_bounds)?.into();
        kept.push((arch.to_string(), check_bounds, text.clone()));
        Ok(text)
    }
}

/// Loads `ptx`, compiled for `arch` (with bounds checks if `check_bounds`), on every one of `gpus` (one device
/// each): [`prepare_cuda`] without the compile, for a caller that keeps the PTX ([`PtxCache`]).
pub fn load_cuda(
    gpus: Vec<irgc_cuda::Gpu>,
    ptx: &str,
    arch: String,
    artifact: &Artifact,
    check_bounds: bool,
) -> Result<CudaProgram> {
    if gpus.is_empty() {
        return Err(anyhow!("no GPU to run on"));
    }
    if gpus.len() > 1 {
        irgc_cuda::Gpu::connect(&gpus)?;
    }
    let devices = gpus
        .into_iter()
        .map(|gpu| Ok(irgc_cuda::CudaDevice::load(gpu, ptx, artifact, None)?.with_bounds_checks(check_bounds)))
        .collect::<Result<Vec<_>>>()?;
    Ok(CudaProgram {
        devices,
        arch,
        schedule: irgc_runtime::devices::Schedule::Concurrent,
        mover: Box::new(PEER_COPIES),
    })
}

/// Runs on the CPU: on one device, or on `devices` CPU devices, each with a contiguous part of the edges, the
/// results merged pairwise with the program's `merge` (the devices run one after another, each with every
/// thread: compute time is their sum plus the merges).
pub fn on_cpu(
    kernels: &crate::backend::CpuBackend,
    artifact: &Artifact,
    graph: &Csr,
    graph_name: &str,
    params: &[u64],
    options: RunOptions,
    devices: usize,
) -> Result<Finished> {
    let req = irgc_runtime::Request { artifact, graph, graph_name, params, kernels, options };
    if devices <= 1 {
        let exec = irgc_runtime::execute(req)?;
        return Ok(Finished {
            outputs: exec.outputs().to_vec(),
            stats: exec.stats,
            launches: exec.launches,
            setup_time: exec.setup_time,
            setup_parts: exec.setup_parts,
            compute_time: exec.compute_time,
            target: Target::Cpu { threads: exec.threads },
            devices: None,
            rank: None,
        });
    }
    let (multi, threads) = irgc_runtime::execute_on_devices(req, devices)?;
    // The devices took turns, each with every thread: their times add up.
    Ok(finished_on_devices(multi, Target::Cpu { threads }, false, |t| t.into_iter().sum()))
}

/// A multi-device run as a [`Finished`]: device 0's outputs and statistics, the devices' set-up and compute
/// times combined by `combine` (a sum, or the slowest), plus the merges.
fn finished_on_devices<B>(
    multi: irgc_runtime::devices::MultiExecution<B>,
    target: Target,
    at_once: bool,
    combine: fn(Vec<Duration>) -> Duration,
) -> Finished {
    let each = |f: fn(&irgc_runtime::devices::DeviceRun) -> Duration| combine(multi.devices.iter().map(f).collect());
    Finished {
        setup_time: each(|d| d.setup_time),
        compute_time: each(|d| d.compute_time) + multi.merge_time,
        launches: multi.devices.iter().map(|d| d.launches).sum::<u64>() + multi.merge_launches,
        outputs: multi.outputs,
        stats: multi.stats,
        setup_parts: multi.setup_parts,
        target,
        devices: Some(Devices {
            runs: multi.devices,
            merge_rounds: multi.merge_rounds,
            merge_time: multi.merge_time,
            merge_launches: multi.merge_launches,
            at_once,
            moved_by: multi.moved_by,
        }),
        rank: None,
    }
}

/// Runs on the GPU, or on several: each device of `program` gets a contiguous part of the edges and its own host
/// thread (unless [`CudaProgram::one_after_another`]), and the results are merged pairwise with the program's
/// `merge` (GPU to GPU). Compute time is then the slowest device's plus the merges (also one after another: what
/// the devices would take at once, each on a GPU of its own); set-up the slowest device's.
pub fn on_cuda(
    program: CudaProgram,
    artifact: &Artifact,
    graph: &Csr,
    graph_name: &str,
    params: &[u64],
    options: RunOptions,
) -> Result<Finished> {
    let CudaProgram { mut devices, arch, schedule, mut mover } = program;
    let name = gpu_names(&devices);
    if devices.len() == 1 {
        let device = &mut devices[0];
        let req = irgc_runtime::DeviceRequest { artifact, graph, graph_name, params, options };
        let run = irgc_runtime::run_on(device, req)?;
        let transfers = device.transfers();
        return Ok(Finished {
            outputs: run.outputs,
            stats: run.stats,
            launches: run.launches,
            setup_time: run.setup_time,
            setup_parts: run.memory.setup,
            compute_time: run.compute_time,
            target: Target::Cuda {
                device: name,
                arch,
                upload: transfers.to_device,
                upload_bytes: transfers.to_device_bytes,
                readback: run.readback_time,
            },
            devices: None,
            rank: None,
        });
    }
    let multi = irgc_runtime::devices::run_on_devices(
        &mut devices,
        schedule,
        mover.as_mut(),
        artifact,
        graph,
        graph_name,
        params,
        &options,
    )?;
    let target = Target::Cuda {
        device: name,
        arch,
        upload: devices.iter().map(|d| d.transfers().to_device).max().unwrap_or_default(),
        upload_bytes: devices.iter().map(|d| d.transfers().to_device_bytes).sum(),
        readback: multi.readback_time,
    };
    let at_once = schedule == irgc_runtime::devices::Schedule::Concurrent;
    // Each GPU works for itself (taking turns only to time the parts alone): the slowest one sets the pace.
    Ok(finished_on_devices(multi, target, at_once, |t| t.into_iter().max().unwrap_or_default()))
}

/// The GPUs' name for the summary: "NVIDIA H200", or "2 × NVIDIA H200" (names joined if they differ).
pub(crate) fn gpu_names(devices: &[irgc_cuda::CudaDevice]) -> String {
    let names: Vec<&str> = devices.iter().map(|d| d.gpu().name.as_str()).collect();
    match names.as_slice() {
        [one] => one.to_string(),
        [first, rest @ ..] if rest.iter().all(|n| n == first) => format!("{} × {first}", names.len()),
        _ => names.join(" + "),
    }
}
