//! The raw driver calls that cudarc's safe API does not cover, and the one module of the crate allowed `unsafe`.
//!
//! Every function here checks what makes its driver call sound (the byte range lies within the buffer, the
//! alignment the call needs), so callers stay in safe code. Kernel launches are the exception that cannot be
//! checked here: a kernel dereferences the pointers in its context table. Their soundness rests on the invariant
//! the rest of the crate keeps, as on the CPU: the table is the interpreter's context (`irgc_runtime::context`),
//! built from this device's own live buffers, uploaded in full before the first launch and kept in step before
//! every launch (`slots.rs`), and the PTX implements the kernel ABI of `irgc-artifact` (each kernel's entry takes
//! that table and an iteration count).

use cudarc::driver::{
    sys, CudaContext, CudaFunction, CudaSlice, CudaStream, DevicePtr, DriverError, LaunchConfig, PushKernelArg,
};

/// A device buffer: bytes in GPU memory, allocated in whole 8-byte words, and its address as kernels see it.
pub struct GpuBuffer {
    slice: CudaSlice<u8>,
    addr: u64,
}

impl GpuBuffer {
    /// Wraps `slice`, taking its device address.
    pub fn new(slice: CudaSlice<u8>, stream: &CudaStream) -> GpuBuffer {
        let addr = {
            let (ptr, _record) = slice.device_ptr(stream);
            ptr
        };
        GpuBuffer { addr, slice }
    }

    pub fn bytes(&self) -> usize {
        self.slice.len()
    }

    pub fn slice(&self) -> &CudaSlice<u8> {
        &self.slice
    }

    pub fn slice_mut(&mut self) -> &mut CudaSlice<u8> {
        &mut self.slice
    }
}

impl irgc_runtime::DeviceBuffer for GpuBuffer {
    fn address(&self) -> u64 {
        self.addr
    }
}

/// Whether the driver library (`libcuda.so`) can be loaded. Checked before anything else: cudarc panics when it
/// needs the library and it is missing.
pub fn driver_present() -> bool {
    // SAFETY: this only tries to load the library (running its initialisers, as every CUDA program does) and
    // drops it again; no Rust state is involved.
    unsafe { sys::is_culib_present() }
}

/// Whether cudarc can load the NCCL library under one of the names it tries (checked before any NCCL call:
/// cudarc panics when it needs the library and it is missing).
pub fn nccl_present() -> bool {
    // SAFETY: as for `driver_present`: this only tries to load the library and drops it again.
    unsafe { cudarc::nccl::sys::is_culib_present() }
}

fn check_range(buf: &GpuBuffer, offset: usize, bytes: usize) -> Result<(), DriverError> {
    match offset.checked_add(bytes) {
        Some(end) if end <= buf.bytes() => Ok(()),
        _ => Err(DriverError(sys::cudaError_enum::CUDA_ERROR_INVALID_VALUE)),
    }
}

/// Sets bytes `offset..offset + bytes` of `buf` to `value`, in stream order.
pub fn memset_d8(
    stream: &CudaStream,
    buf: &mut GpuBuffer,
    offset: usize,
    bytes: usize,
    value: u8,
) -> Result<(), DriverError> {
    check_range(buf, offset, bytes)?;
    stream.context().bind_to_thread()?;
    // SAFETY: the range lies within `buf`'s allocation (checked above), which lives until after the call returns;
    // stream order keeps it alive for the operation itself (buffers are freed in stream order too).
    unsafe { cudarc::driver::result::memset_d8_async(buf.addr + offset as u64, value, bytes, stream.cu_stream()) }
}

/// Sets `count` 4-byte words of `buf` from byte `offset` (a multiple of 4) to `value`, in stream order.
pub fn memset_d32(
    stream: &CudaStream,
    buf: &mut GpuBuffer,
    offset: usize,
    count: usize,
    value: u32,
) -> Result<(), DriverError> {
    if offset & 3 != 0 {
        return Err(DriverError(sys::cudaError_enum::CUDA_ERROR_INVALID_VALUE));
    }
    check_range(buf, offset, count.checked_mul(4).ok_or(DriverError(sys::cudaError_enum::CUDA_ERROR_INVALID_VALUE))?)?;
    stream.context().bind_to_thread()?;
    // SAFETY: as for `memset_d8`; the address is 4-byte aligned (allocations are 256-byte aligned, `offset` is a
    // multiple of 4), as `cuMemsetD32` requires.
    unsafe { sys::cuMemsetD32Async(buf.addr + offset as u64, value, count, stream.cu_stream()).result() }
}

/// Copies bytes `src..src + bytes` of `buf` to `dst..dst + bytes`, in stream order; the ranges must not overlap.
pub fn copy_within(
    stream: &CudaStream,
    buf: &mut GpuBuffer,
    src: usize,
    dst: usize,
    bytes: usize,
) -> Result<(), DriverError> {
    check_range(buf, src, bytes)?;
    check_range(buf, dst, bytes)?;
    if src < dst + bytes && dst < src + bytes {
        return Err(DriverError(sys::cudaError_enum::CUDA_ERROR_INVALID_VALUE));
    }
    stream.context().bind_to_thread()?;
    // SAFETY: both ranges lie within `buf` and do not overlap (checked above).
    unsafe {
        cudarc::driver::result::memcpy_dtod_async(
            buf.addr + dst as u64,
            buf.addr + src as u64,
            bytes,
            stream.cu_stream(),
        )
    }
}

/// Copies the first `bytes` of `src`, a buffer of the context `src_ctx`, to the start of `dst`, in the order of
/// `stream` (a stream of `dst`'s context). The contexts may belong to different GPUs (the driver copies directly
/// where peer access is on, see [`enable_peer_access`], and through the host otherwise) or be the same one.
pub fn copy_peer(
    stream: &CudaStream,
    dst: &mut GpuBuffer,
    src: &GpuBuffer,
    src_ctx: &CudaContext,
    bytes: usize,
) -> Result<(), DriverError> {
    check_range(dst, 0, bytes)?;
    check_range(src, 0, bytes)?;
    let dst_ctx = stream.context();
    dst_ctx.bind_to_thread()?;
    // SAFETY: both ranges lie within live allocations (checked above) of the contexts named with them, which
    // outlive the call; the caller keeps `src` alive and unwritten until `stream` has finished the copy.
    unsafe {
        cudarc::driver::result::memcpy_peer_async(
            dst_ctx.cu_ctx(),
            dst.addr,
            src_ctx.cu_ctx(),
            src.addr,
            bytes,
            stream.cu_stream(),
        )
    }
}

/// Lets kernels and copies of `ctx` reach the memory of `peer`'s GPU directly (NVLink or PCIe peer-to-peer), if
/// the two GPUs can: its ordinary allocations and those of its memory pool. Says whether they now can. The same
/// GPU always can.
pub fn enable_peer_access(ctx: &CudaContext, peer: &CudaContext) -> Result<bool, DriverError> {
    if ctx.ordinal() == peer.ordinal() {
        return Ok(true);
    }
    let mut can = 0i32;
    // SAFETY: plain queries and a context setting on two live contexts; `can` outlives the call that writes it.
    unsafe {
        sys::cuDeviceCanAccessPeer(&mut can, ctx.cu_device(), peer.cu_device()).result()?;
        if can == 0 {
            return Ok(false);
        }
        ctx.bind_to_thread()?;
        match sys::cuCtxEnablePeerAccess(peer.cu_ctx(), 0) {
            sys::cudaError_enum::CUDA_SUCCESS | sys::cudaError_enum::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED => {}
            e => return Err(DriverError(e)),
        }
        // cudarc allocates from the device's memory pool (`cuMemAllocAsync`) where the GPU has one, and peer
        // access to pool memory is the pool's own setting: without it the driver stages peer copies through the
        // host (2 ms for a merge of 16.8 MB on two H200s).
        if peer.has_async_alloc() {
            let mut pool: sys::CUmemoryPool = std::ptr::null_mut();
            sys::cuDeviceGetDefaultMemPool(&mut pool, peer.cu_device()).result()?;
            let access = sys::CUmemAccessDesc {
                location: sys::CUmemLocation {
                    type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE,
                    id: ctx.ordinal() as i32,
                },
                flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
            };
            sys::cuMemPoolSetAccess(pool, &access, 1).result()?;
        }
        Ok(true)
    }
}

/// Launches `f(ctx, size)` on `stream` with the shape `cfg` (asynchronously: errors of the kernel itself show at
/// the next synchronisation); `cooperative`: every block of `cfg` resident at once, or the driver refuses the
/// launch (a kernel whose sweep waits needs that: its threads go round their items until none waits, reading each
/// other's). See the module documentation for why this is sound.
pub fn launch(
    stream: &CudaStream,
    f: &CudaFunction,
    ctx: &GpuBuffer,
    size: i64,
    cfg: LaunchConfig,
    cooperative: bool,
) -> Result<(), DriverError> {
    let mut args = stream.launch_builder(f);
    args.arg(&ctx.slice).arg(&size);
    // SAFETY: the entry's parameters are `(u64 ctx, i64 size)` (the PTX kernel ABI), matching the two arguments;
    // `ctx` holds the interpreter's context over live buffers of this device (module documentation).
    unsafe {
        if cooperative {
            args.launch_cooperative(cfg)
        } else {
            args.launch(cfg)
        }
    }
    .map(|_| ())
}

/// Launches one of the runtime's own kernels (`runtime_ptx.rs`), `f(args...)`, every parameter a `u64` (device
/// addresses and counts), on `stream` with the shape `cfg`.
pub fn launch_with_words(
    stream: &CudaStream,
    f: &CudaFunction,
    args: &[u64],
    cfg: LaunchConfig,
) -> Result<(), DriverError> {
    let mut builder = stream.launch_builder(f);
    for a in args {
        builder.arg(a);
    }
    // SAFETY: the runtime's kernels take exactly their `u64` parameters in this order (`runtime_ptx.rs`'s callers
    // pass one word per parameter of the PTX they wrote); the addresses among them are of live buffers of this
    // device, which the caller keeps until the stream has finished the launch (it waits before dropping them).
    unsafe { builder.launch(cfg) }.map(|_| ())
}

/// Launches the outlined pipe entry `f(ctx, state)` cooperatively on `stream` with `cfg` (the driver refuses a
/// grid whose blocks cannot all be resident, which the entry's grid barrier needs).
/// `cluster`: blocks per thread-block cluster (1: the launch has none); see [`launch_pipe_clustered`].
pub fn launch_pipe(
    stream: &CudaStream,
    f: &CudaFunction,
    ctx: &GpuBuffer,
    state: &GpuBuffer,
    cfg: LaunchConfig,
    cluster: u32,
) -> Result<(), DriverError> {
    if cluster > 1 {
        return launch_pipe_clustered(stream, f, (ctx, state), cfg, cluster);
    }
    let mut args = stream.launch_builder(f);
    args.arg(&ctx.slice).arg(&state.slice);
    // SAFETY: a pipe entry's parameters are `(u64 ctx, u64 state)` (`irgc_artifact::PipeState`), matching the two
    // arguments; `ctx` is the interpreter's context over live buffers (module documentation) and `state` a live
    // buffer of `PipeState::words` words of this program.
    unsafe { args.launch_cooperative(cfg) }.map(|_| ())
}

/// A launch attribute: its id and value (the rest of the value's 64 bytes zero).
fn attribute(
    id: sys::CUlaunchAttributeID,
    set: impl FnOnce(&mut sys::CUlaunchAttributeValue),
) -> sys::CUlaunchAttribute {
    let mut value = sys::CUlaunchAttributeValue { pad: [0; 64] };
    set(&mut value);
    sys::CUlaunchAttribute { id, pad: [0; 4], value }
}

/// The attribute of a launch in thread-block clusters of `blocks` blocks along x.
fn cluster_attribute(blocks: u32) -> sys::CUlaunchAttribute {
    attribute(sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, |v| {
        v.clusterDim = sys::CUlaunchAttributeValue_union__bindgen_ty_1 { x: blocks, y: 1, z: 1 };
    })
}

/// A driver launch configuration of `cfg`'s shape on `stream` with `attrs`.
fn launch_config(cfg: LaunchConfig, stream: &CudaStream, attrs: &mut [sys::CUlaunchAttribute]) -> sys::CUlaunchConfig {
    sys::CUlaunchConfig {
        gridDimX: cfg.grid_dim.0,
        gridDimY: cfg.grid_dim.1,
        gridDimZ: cfg.grid_dim.2,
        blockDimX: cfg.block_dim.0,
        blockDimY: cfg.block_dim.1,
        blockDimZ: cfg.block_dim.2,
        sharedMemBytes: cfg.shared_mem_bytes,
        hStream: stream.cu_stream(),
        attrs: attrs.as_mut_ptr(),
        numAttrs: attrs.len() as u32,
    }
}

/// How many thread-block clusters of `blocks` blocks of `f` (each of `cfg`'s block shape) are resident at once
/// (`cuOccupancyMaxActiveClusters`; `f` is first allowed clusters of more than 8 blocks, which the driver calls
/// non-portable, when `blocks` asks for them).
pub fn resident_clusters(
    stream: &CudaStream,
    f: &CudaFunction,
    cfg: LaunchConfig,
    blocks: u32,
) -> Result<u32, DriverError> {
    if blocks > 8 {
        f.set_attribute(sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1)?;
    }
    let mut attrs = [cluster_attribute(blocks)];
    let config = launch_config(cfg, stream, &mut attrs);
    let mut clusters: std::ffi::c_int = 0;
    stream.context().bind_to_thread()?;
    // SAFETY: `config` points to `attrs`, which outlives the call; `clusters` is a live out-parameter; `f` is a
    // loaded function of this context, bound to the thread above.
    unsafe { sys::cuOccupancyMaxActiveClusters(&mut clusters, f.cu_function(), &config).result()? };
    Ok(clusters.max(0) as u32)
}

/// [`launch_pipe`] in thread-block clusters of `cluster` blocks (Hopper on): one `cuLaunchKernelEx` with the
/// cooperative attribute (every block resident at once, or the driver refuses the launch) and the cluster
/// dimension. The entry's small rounds then run on the first cluster, whose hardware barrier ends their steps
/// (`compiler/backend-ptx/src/pipe_solo.rs`).
fn launch_pipe_clustered(
    stream: &CudaStream,
    f: &CudaFunction,
    (ctx, state): (&GpuBuffer, &GpuBuffer),
    cfg: LaunchConfig,
    cluster: u32,
) -> Result<(), DriverError> {
    let cooperative = attribute(sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_COOPERATIVE, |v| v.cooperative = 1);
    let mut attrs = [cooperative, cluster_attribute(cluster)];
    let config = launch_config(cfg, stream, &mut attrs);
    let (mut ctx_addr, mut state_addr) = (ctx.addr, state.addr);
    let mut params = [
        (&mut ctx_addr as *mut u64).cast::<std::ffi::c_void>(),
        (&mut state_addr as *mut u64).cast::<std::ffi::c_void>(),
    ];
    stream.context().bind_to_thread()?;
    // SAFETY: a pipe entry's parameters are `(u64 ctx, u64 state)`, and `params` points to one `u64` for each,
    // live across the call (the driver copies them at launch); `config` points to `attrs`, which outlives the
    // call. `ctx` and `state` are live buffers of this device, as for `launch_pipe`; the caller reads `state`
    // back (a synchronising copy on `stream`) before either is dropped or written again.
    unsafe { sys::cuLaunchKernelEx(&config, f.cu_function(), params.as_mut_ptr(), std::ptr::null_mut()).result() }
}

/// The compute capability of GPU 0, asked of the driver without creating a context (which would cost far more
/// than the question): `None` when there is no driver or no GPU.
pub fn capability_of_first_gpu() -> Option<(i32, i32)> {
    use cudarc::driver::result;
    use sys::CUdevice_attribute::{
        CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR as MAJOR, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR as MINOR,
    };
    if !driver_present() {
        return None;
    }
    // cudarc panics on a driver function the library lacks: treat that as "no usable GPU" like any failure.
    std::panic::catch_unwind(|| {
        result::init().ok()?;
        let dev = result::device::get(0).ok()?;
        // SAFETY: `dev` is a device handle the driver just returned; the attributes are plain integers.
        let major = unsafe { result::device::get_attribute(dev, MAJOR) }.ok()?;
        let minor = unsafe { result::device::get_attribute(dev, MINOR) }.ok()?;
        Some((major, minor))
    })
    .ok()
    .flatten()
}
