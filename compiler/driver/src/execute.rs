//! Running a compiled program on the chosen backend, and what the summary needs of the result whichever it was.
//!
//! The CPU goes through `irgc_runtime::execute` (the Cranelift kernels, on a thread pool); CUDA through
//! `irgc_runtime::run_on` with an `irgc_cuda::CudaDevice` (the PTX kernels, on GPU 0). Both run the same plan
//! interpreter, so results, statistics and verification are comparable line for line.

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
}

/// What a multi-device run's devices and merges did (`irgc_runtime::devices`).
pub struct Devices {
    pub runs: Vec<irgc_runtime::devices::DeviceRun>,
    pub merge_rounds: u32,
    pub merge_time: Duration,
    pub merge_launches: u64,
}

/// A program made ready for the GPU: the PTX compiled for `arch` and loaded.
pub struct CudaProgram {
    device: irgc_cuda::CudaDevice,
    arch: String,
}

/// Opens GPU 0: the first thing `--backend cuda` does, so that a machine without a driver says so at once.
pub fn open_gpu() -> Result<irgc_cuda::Gpu> {
    irgc_cuda::Gpu::open(0).map_err(|e| anyhow!(e))
}

/// Compiles `module` to PTX for `arch` (default: the GPU's own, capped at sm_90), with every access
/// bounds-checked if `check_bounds`, and loads it on `gpu`.
pub fn prepare_cuda(
    gpu: irgc_cuda::Gpu,
    module: &Module,
    artifact: &Artifact,
    arch: Option<&str>,
    check_bounds: bool,
) -> Result<CudaProgram> {
    let arch = match arch {
        Some(a) => a.to_string(),
        None => gpu.arch()?,
    };
    let ptx = crate::backend::compile_ptx(module, &arch, check_bounds)?;
    let device = irgc_cuda::CudaDevice::load(gpu, &ptx, artifact, None)?.with_bounds_checks(check_bounds);
    Ok(CudaProgram { device, arch })
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
        });
    }
    let (multi, threads) = irgc_runtime::execute_on_devices(req, devices)?;
    let sum = |f: fn(&irgc_runtime::devices::DeviceRun) -> Duration| multi.devices.iter().map(f).sum::<Duration>();
    Ok(Finished {
        outputs: multi.outputs,
        stats: multi.stats,
        launches: multi.devices.iter().map(|d| d.launches).sum::<u64>() + multi.merge_launches,
        setup_time: sum(|d| d.setup_time),
        setup_parts: multi.setup_parts,
        compute_time: sum(|d| d.compute_time) + multi.merge_time,
        target: Target::Cpu { threads },
        devices: Some(Devices {
            runs: multi.devices,
            merge_rounds: multi.merge_rounds,
            merge_time: multi.merge_time,
            merge_launches: multi.merge_launches,
        }),
    })
}

/// Runs on the GPU.
pub fn on_cuda(
    program: CudaProgram,
    artifact: &Artifact,
    graph: &Csr,
    graph_name: &str,
    params: &[u64],
    options: RunOptions,
) -> Result<Finished> {
    let CudaProgram { mut device, arch } = program;
    let req = irgc_runtime::DeviceRequest { artifact, graph, graph_name, params, options };
    let run = irgc_runtime::run_on(&mut device, req)?;
    let transfers = device.transfers();
    Ok(Finished {
        outputs: run.outputs,
        stats: run.stats,
        launches: run.launches,
        setup_time: run.setup_time,
        setup_parts: run.memory.setup,
        compute_time: run.compute_time,
        target: Target::Cuda {
            device: device.gpu().name.clone(),
            arch,
            upload: transfers.to_device,
            upload_bytes: transfers.to_device_bytes,
            readback: run.readback_time,
        },
        devices: None,
    })
}
