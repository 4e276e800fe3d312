//! IR scalar types as Cranelift types, and conversions between typed values and the `u64` bits of the ABI.

use cranelift_codegen::ir::{types, InstBuilder, MemFlagsData, Type, Value};
use cranelift_frontend::FunctionBuilder;
use irgc_front::ir::Scalar;

/// The Cranelift type a scalar lives in, in registers and in memory: `bool` is an `i8` holding 0 or 1 (what
/// Cranelift's comparisons produce), ids are unsigned integers of their width.
pub(crate) fn clif(s: Scalar) -> Type {
    match s {
        Scalar::Bool => types::I8,
        Scalar::I32 | Scalar::U32 | Scalar::Node => types::I32,
        Scalar::I64 | Scalar::U64 | Scalar::Edge => types::I64,
        Scalar::F32 => types::F32,
        Scalar::F64 => types::F64,
    }
}

/// Bytes per element in memory.
pub(crate) fn size(s: Scalar) -> i64 {
    i64::from(s.bits() / 8)
}

/// A constant of type `s` from its ABI bits.
pub(crate) fn constant(b: &mut FunctionBuilder, s: Scalar, bits: u64) -> Value {
    match s {
        Scalar::F32 => b.ins().f32const(f32::from_bits(bits as u32)),
        Scalar::F64 => b.ins().f64const(f64::from_bits(bits)),
        _ => {
            let t = clif(s);
            // Cranelift wants narrow constants in range: mask to the type's width.
            let masked = if t.bits() < 64 { bits & ((1u64 << t.bits()) - 1) } else { bits };
            b.ins().iconst(t, masked as i64)
        }
    }
}

/// The ABI bits of a value of type `s`, as an `i64` (zero-extended; floats as their IEEE bits).
pub(crate) fn to_bits(b: &mut FunctionBuilder, s: Scalar, v: Value) -> Value {
    match s {
        Scalar::F32 => {
            let i = b.ins().bitcast(types::I32, MemFlagsData::new(), v);
            b.ins().uextend(types::I64, i)
        }
        Scalar::F64 => b.ins().bitcast(types::I64, MemFlagsData::new(), v),
        _ if clif(s) == types::I64 => v,
        _ => b.ins().uextend(types::I64, v),
    }
}

/// A value of type `s` from ABI bits held in an `i64`.
pub(crate) fn from_bits(b: &mut FunctionBuilder, s: Scalar, bits: Value) -> Value {
    match s {
        Scalar::F32 => {
            let i = b.ins().ireduce(types::I32, bits);
            b.ins().bitcast(types::F32, MemFlagsData::new(), i)
        }
        Scalar::F64 => b.ins().bitcast(types::F64, MemFlagsData::new(), bits),
        Scalar::Bool => {
            // Normalise: any non-zero bits read as true.
            b.ins().icmp_imm_s(cranelift_codegen::ir::condcodes::IntCC::NotEqual, bits, 0)
        }
        _ if clif(s) == types::I64 => bits,
        _ => b.ins().ireduce(clif(s), bits),
    }
}

/// Widens an integer, id or bool value of type `s` to `i64`, sign-extending signed types: for indices and sizes.
pub(crate) fn to_i64(b: &mut FunctionBuilder, s: Scalar, v: Value) -> Value {
    if clif(s) == types::I64 {
        v
    } else if s.is_signed() {
        b.ins().sextend(types::I64, v)
    } else {
        b.ins().uextend(types::I64, v)
    }
}

/// Narrows (or keeps) an `i64` to the integer or id type `s`.
pub(crate) fn from_i64(b: &mut FunctionBuilder, s: Scalar, v: Value) -> Value {
    let t = clif(s);
    if t == types::I64 {
        v
    } else {
        b.ins().ireduce(t, v)
    }
}
