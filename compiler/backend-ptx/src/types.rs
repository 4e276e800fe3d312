//! IR scalar types as LLVM types, and constants. (Conversions between typed values and the ABI's `u64` bits are
//! methods of the lowering, in `convert.rs`.)
//!
//! In registers (locals, expression values) `bool` is an `i1`, which is what comparisons produce and branches
//! take; in memory it is one byte holding 0 or 1, as the artifact's element storage says. Ids are unsigned
//! integers of their width (`node` 32-bit, `edge` 64-bit).

use inkwell::context::Context;
use inkwell::types::{BasicTypeEnum, IntType};
use inkwell::values::BasicValueEnum;
use irgc_front::ir::Scalar;

/// The register type of a scalar.
pub(crate) fn reg(c: &Context, s: Scalar) -> BasicTypeEnum<'_> {
    match s {
        Scalar::Bool => c.bool_type().into(),
        Scalar::I32 | Scalar::U32 | Scalar::Node => c.i32_type().into(),
        Scalar::I64 | Scalar::U64 | Scalar::Edge => c.i64_type().into(),
        Scalar::F32 => c.f32_type().into(),
        Scalar::F64 => c.f64_type().into(),
    }
}

/// The in-memory type of an element: `bool` is a byte.
pub(crate) fn mem(c: &Context, s: Scalar) -> BasicTypeEnum<'_> {
    match s {
        Scalar::Bool => c.i8_type().into(),
        _ => reg(c, s),
    }
}

/// The integer type holding a scalar's bits in memory (for atomics on floats and bools).
pub(crate) fn bits_int(c: &Context, s: Scalar) -> IntType<'_> {
    match s.bits() {
        8 => c.i8_type(),
        32 => c.i32_type(),
        _ => c.i64_type(),
    }
}

/// A constant of type `s` from its ABI bits (floats as IEEE bits; integers masked to their width).
pub(crate) fn constant(c: &Context, s: Scalar, bits: u64) -> BasicValueEnum<'_> {
    match s {
        Scalar::F32 => c.f32_type().const_float(f64::from(f32::from_bits(bits as u32))).into(),
        Scalar::F64 => c.f64_type().const_float(f64::from_bits(bits)).into(),
        Scalar::Bool => c.bool_type().const_int(bits & 1, false).into(),
        _ => reg(c, s).into_int_type().const_int(bits, false).into(),
    }
}
