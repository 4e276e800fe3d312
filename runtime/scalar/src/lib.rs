//! The scalar types and operators of irgc programs, and what every operator computes: **the one specification
//! of the semantics the IR leaves open**, and its one implementation (the evaluator: [`unary`], [`binary`],
//! [`cast`], [`math`], [`atomic`], [`reduce_combine`]).
//!
//! The front end folds constants with the evaluator, the plan interpreter evaluates host expressions with it, and
//! the two device backends (Cranelift, PTX) generate code that must compute exactly the same values: the operator
//! conformance table (`tests/conformance/ops/`) runs every operator on every type it takes and on edge values
//! through the CPU backend (and, on a GPU machine, through the PTX backend) and compares each result with the
//! evaluator's. The compiler and the runtime both depend on this crate; the runtime never on the compiler.
//!
//! # Values
//! A value travels as `u64` bits: integers and ids zero-extended from their width (signed ones as their two's
//! complement in that width), `f32` as its IEEE bits in the low half, `f64` as its bits, `bool` as 0 or 1.
//!
//! # The open semantics
//! Each point below is what both device backends' code does (Cranelift on the CPU, LLVM/NVPTX on the GPU) and
//! what the evaluator computes; where the hardware leaves a choice, the backends make the choice stated here.
//! - **Integer arithmetic** (`+ - *`, unary `-`) wraps at the type's width (no overflow trap, no poison).
//! - **Division and remainder** are signed for `i32`/`i64`, unsigned otherwise, truncating toward zero.
//!   **By zero, both give 0** (on the host as on the device: no trap, no error). `MIN / -1` wraps to `MIN`;
//!   `MIN % -1` is 0. (Both backends replace a zero or `-1` divisor by 1 and select the result afterwards.)
//! - **Shifts** take the amount modulo the width: `x << 33` on a 32-bit type is `x << 1`, and a negative signed
//!   amount counts as its two's-complement bits (`x << -1` is `x << 31`). Cranelift's shifts mask the amount
//!   themselves; LLVM's shifts by the width or more are poison, so the PTX backend masks explicitly. `>>` is
//!   arithmetic for `i32`/`i64`, logical for every other type.
//! - **Comparisons** of `i32`/`i64` are signed, of unsigned integers and ids unsigned; of floats ordered (false
//!   when either side is NaN), except `!=`, which is true when either side is NaN.
//! - **Floats** follow IEEE 754, round to nearest even, in the type's own precision (an `f32` operation rounds
//!   to `f32`), with subnormals kept (no flush to zero, except the one open point under atomics below) and no
//!   contraction into fused multiply-adds. `%` is `x - trunc(x / y) * y`, each step rounded (not C's `fmod`).
//!   Unary `-` flips the sign bit (of `0.0` and NaN too).
//! - **NaN**: which NaN an operation produces (its sign and payload) is not specified: the CPU gives the x86
//!   default NaN, the GPU its canonical one. No operator tells them apart (`atomic_cas` compares bits, but only
//!   of values a program stored); the conformance table compares every NaN as equal.
//! - **`min`/`max` on floats** select on an ordered comparison: `min(a, b) = a < b ? a : b`, `max(a, b) =
//!   a > b ? a : b` (so a NaN in `a` gives `b`, a NaN in `b` gives NaN; `min(0.0, -0.0)` is `-0.0`); on integers
//!   and ids they compare by signedness.
//! - **`abs`** wraps at `MIN` (`abs(i32::MIN) = i32::MIN`) and clears a float's sign bit (of NaN too); `ctz`/`clz`
//!   of 0 are the operand's width; `popcount` counts ones; their result is a `u32`. `sqrt` is IEEE (correctly
//!   rounded; NaN below zero, `sqrt(-0.0) = -0.0`). `select(c, a, b)` evaluates both `a` and `b`.
//! - **Casts** (the front end accepts numbers, ids and `bool` to numbers and ids, never to `bool`):
//!   integer to integer sign-extends a signed source (zero-extends an unsigned one, an id or a `bool`) and
//!   truncates; integer to float rounds to nearest even from the integer directly (never through `f64` for an
//!   `f32` result); `f64` to `f32` rounds to nearest even; float to integer truncates toward zero, **saturates**
//!   at the target's range and sends NaN to 0; `bool` to a number is 0 or 1. ([`cast`] also defines casts to
//!   `bool` as `!= 0`, NaN being true, though no program can write one.)
//! - **Literals**: an `f32` literal is its decimal rounded to `f64`, then to `f32` (the same on every backend;
//!   in rare ties that double rounding differs from rounding the decimal to `f32` directly).
//! - **`random(seed, i)`** is the splitmix64-style hash of [`random`].
//! - **Atomics** store what [`atomic`] says and return the element's old value. The one point where the two
//!   backends differ: an `f32` `atomic_add`/`atomic_sub` on a global array is exact IEEE on the CPU, but NVIDIA
//!   GPUs flush its subnormal operands and result to zero of the same sign ([`flush_subnormal`]; `atom.add.f32`
//!   on global memory does, on shared memory it does not). Programs must not rely on either.
//! - **Reductions** start from [`reduce_identity`] and combine with [`reduce_combine`], in an unspecified order
//!   and grouping (threads, chunks, warps): integer and `any`/`all` results are exact; an `f32`/`f64` `sum` may
//!   round differently from run to run and backend to backend (and an `f32` sum on the GPU flushes subnormal
//!   partial sums, as above); a NaN among the values of a float `min`/`max` reduction makes the result either
//!   NaN or a non-NaN value.

mod eval;
mod ops;
mod types;

pub use eval::{
    atomic, binary, cast, flush_subnormal, from_f64, math, normalize, random, reduce_combine, reduce_identity, to_f64,
    to_i64, unary,
};
pub use eval::{EvalError, Value};
pub use ops::{AtomicOp, BinaryOp, MathFn, ReduceOp, UnaryOp};
pub use types::Scalar;
