//! The only module with `unsafe` code: owning JIT-compiled code and calling it.
//!
//! The safety contract of calling generated code is on [`CpuProgram`].

#![allow(unsafe_code)]

use cranelift_jit::JITModule;
use irgc_artifact::Layout;

/// The native code of one kernel.
pub(crate) struct KernelCode {
    pub name: String,
    /// `extern "C" fn(ctx: *const u64, lo: u64, hi: u64) -> u64`.
    pub entry: *const u8,
    /// `extern "C" fn(ctx: *const u64) -> u64`.
    pub size: *const u8,
}

type Entry = extern "C" fn(*const u64, u64, u64) -> u64;
type Size = extern "C" fn(*const u64) -> u64;

/// A compiled program: every kernel of the module, as native code. Kernel `k` is the module's kernel `k`.
///
/// # Safety
/// The generated functions dereference the pointers in the context slots without checks, exactly as GPU kernels
/// do. Calling one is sound only if `ctx` follows the kernel ABI of `irgc_artifact` for this program's
/// [`Layout`]:
/// - slots 0..=3 point to the graph's CSR arrays (`row_start`: `num_nodes + 1` `u64`s; `col`: `num_edges` `u32`s;
///   `weights`: `num_edges` elements of the weight type, if the program reads weights; `src`: `num_edges` `u32`s,
///   if it reads `G.src`), and every node id in `col`/`src` is below `num_nodes`;
/// - every global's slot points to a buffer of `dim0 × dim1` elements (node arrays: `num_nodes`, edge arrays:
///   `num_edges`), naturally aligned, which no one else accesses non-atomically during the call;
/// - every worklist's slots hold valid `in_items`/`in_count`, `out_items` and `retry_items` buffers of
///   `capacity` items, and valid pointers to its `u64` counters and overflow flag;
/// - the program itself indexes arrays in bounds (kernels are not bounds-checked, as on the GPU).
///
/// The runtime builds such contexts; [`CpuProgram::run`] and [`CpuProgram::space_size`] are therefore `unsafe fn`s
/// whose callers promise it. Several threads may call them at once with the same context (on disjoint `lo..hi`):
/// the generated code keeps no state of its own, pushes through atomic counters, and its atomics are hardware
/// atomics; plain accesses of different iterations to one element race as they would on the GPU (the
/// language leaves such results unspecified: last write wins).
pub struct CpuProgram {
    /// Owns the code memory the pointers in `kernels` point into; freed on drop.
    jit: Option<JITModule>,
    layout: Layout,
    kernels: Vec<KernelCode>,
    /// Whether the kernels were compiled with bounds checks.
    check_bounds: bool,
    /// Whether the kernels read the `src` slot (see [`CpuProgram::reads_sources`]).
    reads_sources: bool,
}

// SAFETY: after `finalize_definitions` the JIT module is never touched again until it is dropped: the code is
// immutable and executable, and the raw pointers are plain code addresses. Calling the code from several threads
// is what the kernel ABI is designed for (see the safety contract above).
unsafe impl Send for CpuProgram {}
unsafe impl Sync for CpuProgram {}

impl CpuProgram {
    pub(crate) fn new(
        jit: JITModule,
        layout: Layout,
        kernels: Vec<KernelCode>,
        check_bounds: bool,
        reads_sources: bool,
    ) -> CpuProgram {
        CpuProgram { jit: Some(jit), layout, kernels, check_bounds, reads_sources }
    }

    /// Whether the kernels read the edge-source array (the `src` slot). A kernel over `G.edges` knows each
    /// edge's source from walking the rows, so only `G.src` of another edge (say, one passed to a function, or
    /// from an edge range) needs the array; when none does, the runtime need not build it.
    pub fn reads_sources(&self) -> bool {
        self.reads_sources
    }

    /// Whether the kernels were compiled with bounds checks (they then write the bounds report).
    pub fn checks_bounds(&self) -> bool {
        self.check_bounds
    }

    /// The context layout the kernels expect.
    pub fn layout(&self) -> Layout {
        self.layout
    }

    pub fn kernel_count(&self) -> usize {
        self.kernels.len()
    }

    pub fn kernel_name(&self, kernel: usize) -> &str {
        &self.kernels[kernel].name
    }

    fn check(&self, kernel: usize, ctx: &[u64]) -> &KernelCode {
        assert!(
            ctx.len() >= self.layout.len(),
            "context of {} slots, the layout needs {}",
            ctx.len(),
            self.layout.len()
        );
        &self.kernels[kernel]
    }

    /// The number of iterations of `kernel`'s parallel space (tiles for a `forall tile` kernel).
    ///
    /// # Safety
    /// `ctx` must be a context as the [`CpuProgram`] docs describe (a `Range` space's bounds may read arrays).
    pub unsafe fn space_size(&self, kernel: usize, ctx: &[u64]) -> u64 {
        let code = self.check(kernel, ctx);
        // SAFETY: `size` was compiled with the `Size` signature; the caller vouches for `ctx`.
        let f = unsafe { std::mem::transmute::<*const u8, Size>(code.size) };
        f(ctx.as_ptr())
    }

    /// Runs iterations `lo..hi` of `kernel` and returns the bits of its partial reduction (the reduction's
    /// identity if no `reduce` ran; 0 for a kernel without reduction).
    ///
    /// # Safety
    /// `ctx` must be a context as the [`CpuProgram`] docs describe, and `hi` at most the space's size.
    pub unsafe fn run(&self, kernel: usize, ctx: &[u64], lo: u64, hi: u64) -> u64 {
        let code = self.check(kernel, ctx);
        // SAFETY: `entry` was compiled with the `Entry` signature; the caller vouches for `ctx` and `hi`.
        let f = unsafe { std::mem::transmute::<*const u8, Entry>(code.entry) };
        f(ctx.as_ptr(), lo, hi)
    }
}

impl Drop for CpuProgram {
    fn drop(&mut self) {
        if let Some(jit) = self.jit.take() {
            // SAFETY: no function pointer into this module outlives `self` (they are private to it).
            unsafe { jit.free_memory() };
        }
    }
}
