//! The scalar types and operators of irgc programs, and what every operator computes: **the one specification
//! of the semantics the IR leaves open**, and its one implementation ([`eval`]).
//!
//! The front end folds constants with [`eval`], the plan interpreter evaluates host expressions with it, and the
//! two device backends (Cranelift, PTX) generate code that must compute exactly the same values: the operator
//! conformance table (`tests/conformance/ops/`) runs every operator on every type it takes and on edge values
//! through the CPU backend (and, on a GPU machine, through the PTX backend) and compares each result with
//! [`eval`]'s. The compiler and the runtime both depend on this crate; the runtime never on the compiler.
//!
//! # Values
//! A value travels as `u64` bits: integers and ids zero-extended from their width (signed ones as their two's
//! complement in that width), `f32` as its IEEE bits in the low half, `f64` as its bits, `bool` as 0 or 1.
//!
//! # The open semantics
//! - **Integer arithmetic** (`+ - *`, unary `-`) wraps at the type's width.
//! - **Division and remainder** are signed for `i32`/`i64`, unsigned otherwise, truncating toward zero.
//!   **By zero, both give 0** (on the host as on the device: no trap, no error). `MIN / -1` wraps to `MIN`;
//!   `MIN % -1` is 0.
//! - **Shifts** take the amount modulo the width (what the hardware does; LLVM's shifts by the width or more are
//!   poison, so the PTX backend masks); `>>` is arithmetic for signed types, logical otherwise.
//! - **Floats** follow IEEE 754 in the type's own precision (an `f32` operation rounds to `f32`). `%` is
//!   `x - trunc(x / y) * y`, each step rounded (not C's `fmod`); comparisons with NaN are false except `!=`.
//! - **`min`/`max` on floats** select on an ordered comparison: `min(a, b) = a < b ? a : b` (so a NaN in `a`
//!   gives `b`, a NaN in `b` gives NaN); on integers they compare by signedness.
//! - **`abs`** wraps at `MIN` (`abs(i32::MIN) = i32::MIN`); `ctz`/`clz` of 0 are the width; `popcount` counts
//!   ones; `sqrt` is IEEE.
//! - **Casts**: integer to integer sign-extends a signed source (zero-extends an unsigned one) and truncates;
//!   integer to float rounds to nearest from the integer directly (never through `f64` for an `f32` result);
//!   float to integer saturates at the target's range and sends NaN to 0; anything to `bool` is `!= 0` (NaN is
//!   true); `bool` to a number is 0 or 1.
//! - **`random(seed, i)`** is the splitmix64-style hash of [`random`].
//! - **Reductions** combine with [`reduce_combine`] from [`reduce_identity`].

mod eval;
mod ops;
mod types;

pub use eval::{
    binary, cast, from_f64, math, normalize, random, reduce_combine, reduce_identity, to_f64, to_i64, unary,
};
pub use eval::{EvalError, Value};
pub use ops::{AtomicOp, BinaryOp, MathFn, ReduceOp, UnaryOp};
pub use types::Scalar;
