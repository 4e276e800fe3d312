//! irgc's GPU backend: the typed IR of a program lowered through LLVM 19 (inkwell) to PTX for NVIDIA GPUs
//! (`sm_80` to `sm_90`).
//!
//! [`compile`] builds one LLVM module for the whole program (every kernel and the device functions they call),
//! verifies it, optimises it with LLVM's `default<O3>` pipeline and emits PTX with the NVPTX back end. The code
//! computes exactly what `irgc-backend-cpu` computes (same semantic choices, listed below), so that a program's
//! results do not depend on where it ran.
//!
//! # GPU kernel ABI
//! Every IR kernel `k` becomes a PTX `.entry` named exactly `k`, with the signature
//!
//! ```text
//! .entry k(.param .u64 ctx /* ptr addrspace(1) */, .param .u64 size /* i64 */)
//! ```
//!
//! - `ctx` points (in device memory) to the table of `u64` slots of the kernel ABI of [`irgc_artifact`], laid out
//!   by [`irgc_artifact::Layout`] exactly as for the CPU ([`layout_of`] gives it from the IR). Every pointer slot
//!   holds a device address. The kernel reads slots with invariant loads: the table must not change during a
//!   launch (except the reduction slot, which the kernel updates atomically).
//! - `size` is the number of iterations of the kernel's top-level space (tiles for a `forall tile`), computed by
//!   the host as the CPU backend's size function does (`num_nodes`, `num_edges`, the worklist's `in_count`, or
//!   `max(end - start, 0)` of each range, multiplied for 2-D ranges). The kernel itself evaluates the bounds it
//!   needs for the mapping (range starts, the inner length of a 2-D range) from the slots.
//!
//! ## `forall` kernels
//! A grid-stride loop: `for (i = ctaid.x * ntid.x + tid.x; i < size; i += nctaid.x * ntid.x)`, iteration `i`
//! mapped as on the CPU (nodes: `v = i`; edges: `e = i`; worklist: `in_items[i]`; range: `a + i`; 2-D range:
//! `(a + i / (d - c), c + i % (d - c))`). Any grid works; launch blocks of at most [`FORALL_MAX_THREADS`]
//! threads (1-D, `blockDim.x`): the entries carry `.maxntid 256`, which caps their register use so that a
//! 256-thread block always fits.
//!
//! ## `forall tile` kernels
//! Launch blocks of exactly `product(threads)` threads in `blockDim.x` (the entry carries `.reqntid` with that
//! number; see [`PtxOutput::block_threads`]). Tile `t` runs on one block: `for (t = ctaid.x; t < size; t +=
//! nctaid.x)`, so any grid size works (at most `size` blocks are useful). Thread indices come from `tid.x`: 1-D
//! `ti = tid`; 2-D `(ti, tj) = (tid / T1, tid % T1)` (row-major, as on the CPU). Tile indices are mapped from `t`
//! like a range or a 2-D range. Shared arrays are static `.shared` arrays (module globals in address space 3,
//! named `<kernel>__<array>`); [`PtxOutput::shared_bytes`] gives each kernel's total. `barrier` is
//! `bar.sync 0`, and every tile iteration ends with one, so that a block moving on to its next tile never
//! overwrites shared data that slower threads still read. As on every GPU, barriers must be reached by all
//! threads of the block (uniform control flow around them).
//!
//! ## Reductions
//! Each thread accumulates its `reduce` values in a register starting from the identity
//! ([`irgc_artifact::reduce_identity`]). After its loop, the accumulator is combined into the reduction slot
//! `ctx[layout.reduction()]` atomically: `any` as an atomic or of 1, `all` as an atomic and with 0, `sum` as
//! `atom.add` (integers, `f32`, `f64`), `min`/`max` as `atom.min`/`atom.max` (signed for `i32`/`i64`, unsigned
//! for the others) or, for floats, a compare-and-swap loop; an accumulator still equal to the identity is not
//! combined. `bool` and 32-bit integer reductions are first combined across the warp with `redux.sync` over the
//! lanes of `activemask` (never an assumed full mask), and only the lowest active lane updates the slot. 32-bit
//! types (and `bool`) use the low 4 bytes of the slot (little-endian). **The runtime writes the identity's bits
//! (zero-extended to 64) to the slot before the launch and reads the slot afterwards.** Kernels without a
//! reduction never touch the slot.
//!
//! ## Worklists
//! A push claims slot `i` of `out_count` (a `u64`), warp-aggregated: the lanes pushing together take consecutive
//! slots with one `atom.add.u64` by their lowest lane and a `shfl.sync` of the base (over `activemask`, never an
//! assumed full mask); if `i < capacity` the item is stored at `out_items[i]`, else 1 is stored to the overflow
//! flag (a `u64`). Retries go to the retry buffer the same way. The thread with global index 0 zeroes the spent
//! counter of every worklist the kernel pushes to (the alternating counter pair of the kernel ABI), so the
//! runtime spends no copy resetting counters; it reads them back once after the launch and swaps buffers and
//! counters, as for the CPU.
//!
//! ## Device functions
//! Internal LLVM functions named `irgc.fn.<index>.<name>` (`alwaysinline`, so they disappear from the PTX)
//! taking the context pointer as a hidden first argument; array parameters (`[T]`) are `ptr addrspace(1)`, so only global arrays can be passed
//! to them (passing a shared array is refused with [`PtxError::Unsupported`]).
//!
//! # Semantics
//! The scalar semantics the IR leaves open are specified once, in `irgc_scalar`; this backend implements them
//! (the operator conformance table in `tests/conformance/ops/` runs on a GPU through `scripts/gpu-conformance.sh`).
//! How: float to integer casts are `llvm.fpto[su]i.sat`; float `min`/`max` an ordered comparison and a select
//! (not `fmin`/`fmax`, which treat NaN differently); shifts mask the amount (LLVM's shifts by the width are
//! poison); no fused multiply-adds (no fast-math flags are emitted, and NVPTX only contracts with them).
//! - `&&` and `||` short-circuit; a local read before any write is 0; a `for` evaluates its bounds once.
//! - `random(seed, i)` is the splitmix64-based hash of `irgc_scalar::random`.
//! - Atomics are relaxed (`monotonic`: CUDA's `atomicAdd` & co.); float `atomic_add`/`atomic_sub` are `atom.add`
//!   (sub adds the negation, which is the same IEEE result; on global memory the `f32` instruction flushes
//!   subnormal operands and results to zero, a difference from the CPU that `irgc_scalar` leaves open); float
//!   `atomic_min`/`atomic_max` are CAS loops that only write when the value is smaller/larger; float exchange and
//!   CAS work on the bits.
//! - Plain loads and stores of arrays are ordinary (non-volatile) accesses, as in CUDA C.

mod abi;
mod atomics;
mod bounds;
mod codegen;
mod convert;
mod expr;
mod grid;
mod grid_barrier;
mod helpers;
mod interleave;
mod kernel;
mod lower;
mod nested;
mod nested_fine;
mod nested_saturate;
mod nested_values;
mod pipe;
mod pipe_auto;
mod pipe_records;
mod pipe_solo;
mod stmt;
mod types;
mod waiting;

use irgc_front::ir::Module;

/// The most threads per block a `forall` kernel may be launched with (its `.maxntid`).
pub const FORALL_MAX_THREADS: u32 = 256;

/// The architectures [`compile`] accepts (LLVM 19's NVPTX knows them, and PTX 8.0 covers them).
pub const ARCHS: &[&str] = &["sm_80", "sm_86", "sm_87", "sm_89", "sm_90", "sm_90a"];

/// What to compile for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// The GPU architecture, one of [`ARCHS`] (`"sm_80"`, `"sm_90"`, ...).
    pub arch: String,
    /// Bounds-check every array and graph access (`--check-bounds`, see the `bounds` module).
    pub check_bounds: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options { arch: "sm_80".into(), check_bounds: false }
    }
}

/// A compiled program.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PtxOutput {
    /// The LLVM IR as generated, before verification and optimisation (for `--emit llvm` and snapshots).
    pub llvm_ir: String,
    /// The PTX module (text), loadable with `cuModuleLoadData`.
    pub ptx: String,
    /// The `.entry` names, one per IR kernel, in the module's kernel order.
    pub kernels: Vec<String>,
    /// Per kernel (same order): the exact block size of a `forall tile` kernel, `None` for a `forall` kernel
    /// (launch those with at most [`FORALL_MAX_THREADS`] threads per block).
    pub block_threads: Vec<Option<u32>>,
    /// Per kernel (same order): bytes of static shared memory its tile arrays take (0 without tiles).
    pub shared_bytes: Vec<u64>,
    /// The entries of the outlined pipes (`irgc_pipe_<i>`, see `irgc_front::ir::OutlinedLoop`), in pipe order.
    pub pipes: Vec<String>,
}

/// Why a module could not be compiled to PTX.
#[derive(Debug, thiserror::Error)]
pub enum PtxError {
    /// A construct this backend does not implement (the message says which, and where).
    #[error("{0}")]
    Unsupported(String),
    /// The IR broke an invariant the validator should have caught.
    #[error("malformed IR: {0}")]
    Malformed(String),
    /// Bad [`Options`].
    #[error("{0}")]
    Options(String),
    /// LLVM rejected the generated code or failed (a bug in this backend).
    #[error("llvm: {0}")]
    Llvm(String),
}

impl From<inkwell::builder::BuilderError> for PtxError {
    fn from(e: inkwell::builder::BuilderError) -> Self {
        PtxError::Llvm(format!("builder: {e}"))
    }
}

/// The context layout of `module`'s kernels (defined once, with the artifact lowering).
pub use irgc_front::abi::layout_of;

/// Compiles every kernel of `module` (and the device functions they call) to one PTX module.
pub fn compile(module: &Module, opts: &Options) -> Result<PtxOutput, PtxError> {
    codegen::compile(module, opts, codegen::Part::All)
}

/// The same PTX entries as [`compile`], faster on a machine with several cores: each kernel is compiled in an LLVM
/// module of its own on a thread of its own (LLVM optimises and emits one module on one thread), and the PTX texts
/// are joined under one header. PTX labels and the demoted shared arrays are local to their entry, and device
/// functions are always inlined, so the parts cannot collide. `llvm_ir` holds the parts' modules one after
/// another; use [`compile`] to see a program's LLVM IR as one module.
pub fn compile_parallel(module: &Module, opts: &Options) -> Result<PtxOutput, PtxError> {
    let n = module.kernels.len();
    let pipes = irgc_front::analysis::outlined_loops(module).len();
    if n + pipes <= 1 {
        return compile(module, opts);
    }
    let parts = (0..n)
        .map(codegen::Part::Kernel)
        .chain((0..pipes).map(codegen::Part::Pipe))
        .chain((0..pipes).map(codegen::Part::PipeFlat));
    let parts: Vec<Result<PtxOutput, PtxError>> = std::thread::scope(|s| {
        let handles: Vec<_> = parts.map(|part| s.spawn(move || codegen::compile(module, opts, part))).collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err(PtxError::Llvm("a compile thread panicked".to_string()))))
            .collect()
    });
    let mut out = PtxOutput::default();
    for (i, part) in parts.into_iter().enumerate() {
        let part = part?;
        let Some(body_at) = part.ptx.find(PTX_HEADER_END).map(|at| at + PTX_HEADER_END.len()) else {
            return Err(PtxError::Llvm(format!("PTX without `{}`", PTX_HEADER_END.trim())));
        };
        if i == 0 {
            out.ptx.push_str(&part.ptx[..body_at]);
        }
        out.ptx.push_str(&part.ptx[body_at..]);
        out.llvm_ir.push_str(&part.llvm_ir);
        out.kernels.extend(part.kernels);
        out.block_threads.extend(part.block_threads);
        out.shared_bytes.extend(part.shared_bytes);
        out.pipes.extend(part.pipes);
    }
    Ok(out)
}

/// The last line of the header LLVM writes before a PTX module's declarations and entries.
const PTX_HEADER_END: &str = ".address_size 64\n";
