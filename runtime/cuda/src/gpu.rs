//! Opening a GPU: the driver check, the context and stream, and what the rest needs to know of the device.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use cudarc::driver::{sys::CUdevice_attribute, CudaContext, CudaStream};

use crate::arch::arch_for;
use crate::driver::driver_present;
use crate::error::{describe, CudaError};

/// An opened GPU: its primary context and the stream everything runs on, in order.
pub struct Gpu {
    pub(crate) ctx: Arc<CudaContext>,
    pub(crate) stream: Arc<CudaStream>,
    /// The GPU's ordinal among the machine's (what `--gpus` names).
    pub ordinal: usize,
    /// The device's name, e.g. "NVIDIA H100 80GB HBM3".
    pub name: String,
    /// Compute capability (major, minor).
    pub capability: (i32, i32),
    /// Streaming multiprocessors.
    pub sms: u32,
    /// Whether the GPU takes cooperative launches (which outlined pipes need for their grid barrier).
    pub cooperative: bool,
    /// Bytes of device memory, in all and free when opened.
    pub total_memory: u64,
    pub free_memory: u64,
}

impl Gpu {
    /// Opens GPU `ordinal`. Fails with [`CudaError::NoDriver`] when there is no driver library (without touching
    /// cudarc, which would panic), and with [`CudaError::NoDevice`] when the driver has no usable GPU.
    pub fn open(ordinal: usize) -> Result<Gpu, CudaError> {
        if !driver_present() {
            return Err(CudaError::NoDriver);
        }
        // cudarc resolves driver functions lazily and panics on one the driver lacks (an old driver): report that
        // as an error like the rest rather than a crash.
        let opened = catch_unwind(AssertUnwindSafe(|| Gpu::open_unguarded(ordinal)));
        opened.unwrap_or_else(|_| {
            Err(CudaError::NoDevice(
                "the driver library lacks a function irgc needs (a driver older than CUDA 12.8?)".to_string(),
            ))
        })
    }

    /// Opens the GPUs `ordinals` names, in order (one may be named twice: its devices then share it), after
    /// checking each exists, so that `--gpus 2` on a machine with two GPUs says so rather than a driver code.
    pub fn open_all(ordinals: &[usize]) -> Result<Vec<Gpu>, CudaError> {
        if !driver_present() {
            return Err(CudaError::NoDriver);
        }
        let count = catch_unwind(CudaContext::device_count)
            .map_err(|_| CudaError::NoDevice("the driver library lacks a function irgc needs".to_string()))?
            .map_err(|e| CudaError::NoDevice(describe(&e)))?
            .max(0) as usize;
        if let Some(&asked) = ordinals.iter().find(|&&o| o >= count) {
            return Err(CudaError::MissingGpu { asked, count });
        }
        ordinals.iter().map(|&o| Gpu::open(o)).collect()
    }

    /// Lets each of `gpus` reach the memory of the others directly where the hardware allows (NVLink, PCIe
    /// peer-to-peer), memory pools included, so that a multi-device merge copies GPU to GPU rather than through
    /// the host (2 ms per merge on two H200s). Done once, before anything is allocated: switching access on maps
    /// the peer's existing allocations.
    pub fn connect(gpus: &[Gpu]) -> Result<(), CudaError> {
        for a in gpus {
            for b in gpus {
                crate::driver::enable_peer_access(&a.ctx, &b.ctx)
                    .map_err(|e| CudaError::driver("cannot enable peer access between GPUs", e))?;
            }
        }
        Ok(())
    }

    fn open_unguarded(ordinal: usize) -> Result<Gpu, CudaError> {
        let ctx =
            CudaContext::new(ordinal).map_err(|e| CudaError::NoDevice(format!("GPU {ordinal}: {}", describe(&e))))?;
        let query = |what: &str, r: Result<i32, cudarc::driver::DriverError>| {
            r.map_err(|e| CudaError::driver(format!("cannot query the GPU's {what}"), e))
        };
        let name = ctx.name().map_err(|e| CudaError::driver("cannot query the GPU's name", e))?;
        let capability =
            ctx.compute_capability().map_err(|e| CudaError::driver("cannot query the GPU's compute capability", e))?;
        let sms =
            query("multiprocessor count", ctx.attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT))?;
        let cooperative =
            ctx.attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH).is_ok_and(|c| c != 0);
        let (free, total) = ctx.mem_get_info().map_err(|e| CudaError::driver("cannot query the GPU's memory", e))?;
        let stream = ctx.default_stream();
        Ok(Gpu {
            ctx,
            stream,
            ordinal,
            name,
            capability,
            sms: sms.max(1) as u32,
            cooperative,
            total_memory: total as u64,
            free_memory: free as u64,
        })
    }

    /// The PTX target for this GPU (see [`arch_for`]).
    pub fn arch(&self) -> Result<String, CudaError> {
        arch_for(self.capability.0, self.capability.1).map_err(CudaError::Unsupported)
    }

    /// Bytes of device memory free now.
    pub fn free_memory_now(&self) -> Option<u64> {
        self.ctx.mem_get_info().ok().map(|(free, _)| free as u64)
    }
}
