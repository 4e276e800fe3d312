//! The irgc CUDA runtime: runs a compiled program's host plan on an NVIDIA GPU, with the kernels the PTX backend
//! (`irgc-backend-ptx`) produced.
//!
//! The plan interpreter, the worklist protocol and the statistics are `irgc-runtime`'s, shared with the CPU; this
//! crate is the [`irgc_runtime::Device`] for a GPU ([`CudaDevice`]): device buffers, the kernel context table in
//! device memory (the changed slots copied before each launch, `slots.rs`), launch shapes (`shape.rs`), fills
//! with the driver's memsets (`pack.rs`), `G.contract` done by the runtime's own kernels (`contract.rs`:
//! `groups.rs`, `scan.rs`, `quotient.rs`, written as PTX by `runtime_ptx.rs`), reductions through the context's
//! reduction slot, and CUDA-event timing.
//!
//! The driver library is loaded at run time (cudarc's `dynamic-loading`), so one binary builds without CUDA and
//! runs wherever a driver is; [`Gpu::open`] says clearly when there is none. A run:
//!
//! ```text
//! let gpu = Gpu::open(0)?;                                  // CudaError::NoDriver without libcuda.so
//! let ptx = irgc_backend_ptx::compile(&module, &Options { arch: gpu.arch()?, check_bounds: false })?.ptx;
//! let mut dev = CudaDevice::load(gpu, &ptx, &artifact, None)?;
//! let run = irgc_runtime::run_on(&mut dev, request)?;
//! ```
//!
//! Several GPUs merge their results through NCCL (`nccl.rs`: one communicator per GPU in one process, or one
//! rank per process) or CUDA peer copies.
//!
//! `unsafe` is confined to `driver.rs`, which documents why each use is sound.

// Host arrays are copied to the device as their bytes (`bytemuck::cast_slice`): the device is little-endian.
const _: () = assert!(cfg!(target_endian = "little"), "the CUDA runtime assumes a little-endian host");

mod arch;
mod contract;
mod device;
#[allow(unsafe_code)] // The raw driver calls; see the module documentation.
mod driver;
mod error;
mod gpu;
mod groups;
mod nccl;
mod pack;
mod pipe_grid;
mod quotient;
mod runtime_ptx;
mod scan;
mod shape;
mod slots;

pub use arch::{arch_for, detect_arch};
pub use contract::contract_ptx;
pub use device::{CudaDevice, Transfers};
pub use driver::{driver_present, GpuBuffer};
pub use error::{describe, CudaError};
pub use gpu::Gpu;
pub use nccl::{find_nccl_library, nccl_loadable, nccl_version, NcclDevices, NcclLink};
pub use pack::{fill_plan, pack, unpack, Fill};
pub use pipe_grid::{ENTER_PIPES_AT_ONCE, HEAVY_ROUND_VAR, PIPE_BLOCKS_VAR, PIPE_CLUSTER_VAR, SOLO_ITEMS_VAR};
pub use shape::{block_threads, launch_shape, LaunchShape, FORALL_BLOCK};
pub use slots::{SlotTable, Upload};
