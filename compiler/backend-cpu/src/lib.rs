//! The irgc CPU backend: compiles the kernels of a typed IR module to native code with Cranelift (JIT).
//!
//! Every kernel becomes two native functions following the kernel ABI of [`irgc_artifact`]:
//! - an *entry* `extern "C" fn(ctx: *const u64, lo: u64, hi: u64) -> u64` that runs iterations `lo..hi` of the
//!   kernel's top-level `forall` (linearised as [`irgc_artifact::Space`] describes) and returns the bits of its
//!   partial reduction (the identity when no `reduce` ran, or when the kernel has no reduction: 0);
//! - a *size* function `extern "C" fn(ctx: *const u64) -> u64` giving the number of iterations of that space.
//!
//! The runtime splits `0..size` into chunks and may run them on several threads at once: every atomic of the
//! program is a real (sequentially consistent) hardware atomic, so concurrent chunks are as correct as GPU threads.
//! Device functions become native functions of their own, called with the context pointer as a hidden first
//! argument (they can read globals, params and the graph, and push to worklists).
//!
//! `forall tile` kernels are supported: each entry iteration is one tile, whose threads run in lockstep phases
//! split at barriers (see the `kernel` module). Their per-thread locals and shared arrays live on the stack of
//! the calling thread: up to `threads × locals × 8` bytes plus the shared arrays (≈100 KiB for a 32×32 tile),
//! which the default 2 MiB thread stack holds.
//!
//! # Value representation
//! In slots and in the returned reduction, values are bits as [`irgc_artifact::Value`] says: integers and ids
//! zero-extended, `f32` as its IEEE bits in the low 32 bits, `f64` as its bits, `bool` as 0/1. In memory, elements
//! are stored at their natural size (`bool` one byte 0/1) and must be naturally aligned (a `Vec<T>` of the element
//! type is): loads, stores and atomics are emitted as aligned accesses.
//!
//! # Semantics
//! The scalar semantics the IR leaves open (division by zero, shifts, overflow, casts, float `%` and `min`/`max`,
//! `random`, atomics) are specified once, in `irgc_scalar`, and this backend implements them (the operator
//! conformance table in `tests/conformance/ops/` checks every operator against `irgc_scalar`'s evaluator). Float
//! `atomic_add`/`atomic_sub` are exact IEEE compare-and-swap loops (the GPU may flush `f32` subnormals there: the
//! one backend difference the specification allows). Beyond those: a `for` loop evaluates its bounds once, before
//! the first iteration; array indices are not bounds-checked (as on the GPU) unless compiled with
//! [`compile_checked`].

mod abi;
mod atomics;
mod bounds;
mod call;
mod codegen;
mod expr;
mod kernel;
mod lower;
mod push;
mod stmt;
mod types;

use irgc_front::ir::Module;

pub use call::CpuProgram;

/// Why a module could not be compiled for the CPU.
#[derive(Debug, thiserror::Error)]
pub enum CpuError {
    /// A construct the CPU backend does not implement (the message says which, and where).
    #[error("{0}")]
    Unsupported(String),
    /// The IR broke an invariant the validator should have caught.
    #[error("malformed IR: {0}")]
    Malformed(String),
    /// Cranelift rejected the generated code (a bug in this backend).
    #[error("cranelift: {0}")]
    Cranelift(String),
}

/// The context layout of `module`'s kernels (defined once, with the artifact lowering).
pub use irgc_front::abi::layout_of;

/// Compiles every kernel (and the device functions they call) of `module` to native code.
pub fn compile(module: &Module) -> Result<CpuProgram, CpuError> {
    codegen::compile(module, false)
}

/// As [`compile`], with every array and graph access bounds-checked (see the `bounds` module): a bad index is
/// reported through the bounds report instead of touching memory outside the arrays.
pub fn compile_checked(module: &Module) -> Result<CpuProgram, CpuError> {
    codegen::compile(module, true)
}

/// The device `random(seed, i)`, defined once for every backend and the host in `irgc_scalar::random`.
pub use irgc_artifact::random;
