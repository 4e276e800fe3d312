//! One rank of a multi-process run (`irgc_runtime::ranks`), on either backend: the link to the other ranks is
//! set up here (NCCL between GPUs, local sockets through the host otherwise), then the rank runs its part and its
//! merge steps. Rank 0 ends with the outputs; the others with what they did.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{anyhow, Result};
use irgc_runtime::ranks::{run_rank, Link, Rank, RankExecution, SocketLink};
use irgc_runtime::{Device, DeviceRequest, RunError};

use crate::execute::{CudaProgram, Finished, RankReport, Target};

/// How the ranks reach each other.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RankLink {
    /// NCCL (GPUs only): rank 0 writes the unique id to the join file.
    Nccl,
    /// Unix-domain sockets beside the join file, arrays staged through host memory (one host, any backend).
    Sockets,
}

/// Which rank this process is, and how it meets the others.
#[derive(Clone, Debug)]
pub struct RankSpec {
    pub rank: Rank,
    /// The file the ranks meet at (`--join`).
    pub join: PathBuf,
    pub link: RankLink,
    /// How long to wait for another rank before giving up.
    pub wait: Duration,
}

/// Runs rank `spec.rank` of the request on the CPU.
pub fn on_cpu_rank(kernels: &crate::backend::CpuBackend, req: DeviceRequest<'_>, spec: &RankSpec) -> Result<Finished> {
    if spec.link == RankLink::Nccl {
        return Err(anyhow!("--comm nccl joins GPU ranks; CPU ranks meet through --comm sockets"));
    }
    let mut dev = irgc_runtime::CpuDevice::new(kernels, &req.options)?;
    let threads = dev.threads();
    let (exec, report) = linked(&mut dev, |_| SocketLink::join(&spec.join, spec.rank, spec.wait), spec, req)?;
    Ok(finished(exec, report, Target::Cpu { threads }))
}

/// Runs rank `spec.rank` of the request on the one GPU `program` was loaded on.
pub fn on_cuda_rank(program: CudaProgram, req: DeviceRequest<'_>, spec: &RankSpec) -> Result<Finished> {
    let name = crate::execute::gpu_names(&program.devices);
    let arch = program.arch;
    let mut devices = program.devices;
    if devices.len() != 1 {
        return Err(anyhow!("a rank runs on one GPU (name it with --gpus), not {}", devices.len()));
    }
    let dev = &mut devices[0];
    let (exec, report) = match spec.link {
        RankLink::Nccl => linked(dev, |d| irgc_cuda::NcclLink::join(d, &spec.join, spec.rank, spec.wait), spec, req)?,
        RankLink::Sockets => linked(dev, |_| SocketLink::join(&spec.join, spec.rank, spec.wait), spec, req)?,
    };
    let transfers = dev.transfers();
    let readback = exec.result.as_ref().map(|r| r.readback_time).unwrap_or_default();
    let target = Target::Cuda {
        device: name,
        arch,
        upload: transfers.to_device,
        upload_bytes: transfers.to_device_bytes,
        readback,
    };
    Ok(finished(exec, report, target))
}

/// Joins the other ranks through the link `join` makes (timed), then runs the rank over it.
fn linked<D: Device, L: Link<D>>(
    dev: &mut D,
    join: impl FnOnce(&D) -> Result<L, RunError>,
    spec: &RankSpec,
    req: DeviceRequest<'_>,
) -> Result<(RankExecution<D::Buffer>, RankReport)> {
    let joined = Instant::now();
    let mut link = join(dev)?;
    let join_time = joined.elapsed();
    let exec = run_rank(dev, &mut link, spec.rank, req)?;
    let report = report(&exec, link.describe(), join_time);
    Ok((exec, report))
}

fn report<B>(exec: &RankExecution<B>, link: String, join_time: Duration) -> RankReport {
    RankReport {
        rank: exec.rank,
        link,
        join_time,
        barrier_time: exec.barrier_time,
        part: exec.part.clone(),
        merges_received: exec.merges_received,
        merge_time: exec.merge_time,
        merge_launches: exec.merge_launches,
        sent_to: exec.sent_to,
    }
}

/// A rank's run as a [`Finished`]: compute is from the barrier to the end of its merges (on rank 0, the whole
/// run's compute time), set-up is its part's.
fn finished<B>(exec: RankExecution<B>, report: RankReport, target: Target) -> Finished {
    let (outputs, stats) = match exec.result {
        Some(r) => (r.outputs, r.stats),
        None => (Vec::new(), Default::default()),
    };
    Finished {
        outputs,
        stats,
        launches: exec.part.launches + exec.merge_launches,
        setup_time: exec.part.setup_time,
        setup_parts: exec.setup_parts,
        compute_time: exec.total_time,
        target,
        devices: None,
        rank: Some(report),
    }
}
