//! IR scalar types as LLVM types, constants, and conversions between typed values and the `u64` bits of the ABI.
//!
//! In registers (locals, expression values) `bool` is an `i1`, which is what comparisons produce and branches
//! take; in memory it is one byte holding 0 or 1, as the artifact's element storage says. Ids are unsigned
//! integers of their width (`node` 32-bit, `edge` 64-bit).

use crate::lower::Lower;
use crate::PtxError;
use inkwell::context::Context;
use inkwell::types::{BasicTypeEnum, IntType};
use inkwell::values::{BasicValueEnum, IntValue};
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

impl<'c> Lower<'c, '_> {
    /// The value as an integer (every non-float scalar is one).
    pub fn int(&self, v: BasicValueEnum<'c>) -> Result<IntValue<'c>, PtxError> {
        match v {
            BasicValueEnum::IntValue(i) => Ok(i),
            _ => self.malformed("an integer operand of non-integer LLVM type"),
        }
    }

    pub fn float(&self, v: BasicValueEnum<'c>) -> Result<inkwell::values::FloatValue<'c>, PtxError> {
        match v {
            BasicValueEnum::FloatValue(f) => Ok(f),
            _ => self.malformed("a float operand of non-float LLVM type"),
        }
    }

    /// A value of type `s` from ABI bits held in an `i64` (bool: any non-zero bits read as true).
    pub fn bits_to_value(&self, s: Scalar, bits: IntValue<'c>) -> Result<BasicValueEnum<'c>, PtxError> {
        let c = self.c;
        Ok(match s {
            Scalar::F32 => {
                let i = self.b.build_int_truncate(bits, c.i32_type(), "")?;
                self.b.build_bit_cast(i, c.f32_type(), "")?
            }
            Scalar::F64 => self.b.build_bit_cast(bits, c.f64_type(), "")?,
            Scalar::Bool => {
                let z = c.i64_type().const_zero();
                self.b.build_int_compare(inkwell::IntPredicate::NE, bits, z, "")?.into()
            }
            Scalar::I64 | Scalar::U64 | Scalar::Edge => bits.into(),
            _ => self.b.build_int_truncate(bits, c.i32_type(), "")?.into(),
        })
    }

    /// The ABI bits of a value of type `s` (the inverse of [`Lower::bits_to_value`]): integers and ids
    /// zero-extended, floats as their IEEE bits, bool as 0/1.
    pub fn value_to_bits(&self, s: Scalar, v: BasicValueEnum<'c>) -> Result<IntValue<'c>, PtxError> {
        let i64t = self.c.i64_type();
        Ok(match s {
            Scalar::F32 => {
                let i = self.b.build_bit_cast(v, self.c.i32_type(), "")?.into_int_value();
                self.b.build_int_z_extend(i, i64t, "")?
            }
            Scalar::F64 => self.b.build_bit_cast(v, i64t, "")?.into_int_value(),
            _ => {
                let i = self.int(v)?;
                if i.get_type().get_bit_width() == 64 {
                    i
                } else {
                    self.b.build_int_z_extend(i, i64t, "")?
                }
            }
        })
    }

    /// Widens an integer, id or bool value of type `s` to `i64`, sign-extending signed types: for indices and
    /// sizes.
    pub fn to_i64(&self, s: Scalar, v: BasicValueEnum<'c>) -> Result<IntValue<'c>, PtxError> {
        let v = self.int(v)?;
        let i64t = self.c.i64_type();
        Ok(if v.get_type().get_bit_width() == 64 {
            v
        } else if s.is_signed() {
            self.b.build_int_s_extend(v, i64t, "")?
        } else {
            self.b.build_int_z_extend(v, i64t, "")?
        })
    }

    /// Narrows (or keeps) an `i64` to the integer or id type `s`.
    pub fn narrow_i64(&self, s: Scalar, v: IntValue<'c>) -> Result<BasicValueEnum<'c>, PtxError> {
        let BasicTypeEnum::IntType(t) = reg(self.c, s) else {
            return self.malformed(format!("an integer value used as `{s}`"));
        };
        Ok(if t.get_bit_width() == 64 { v.into() } else { self.b.build_int_truncate(v, t, "")?.into() })
    }

    /// Converts a register value of type `s` to its in-memory form (`bool`: `i1` to a byte).
    pub fn reg_to_mem(&self, s: Scalar, v: BasicValueEnum<'c>) -> Result<BasicValueEnum<'c>, PtxError> {
        Ok(if s == Scalar::Bool { self.b.build_int_z_extend(self.int(v)?, self.c.i8_type(), "")?.into() } else { v })
    }

    /// Converts an in-memory value of type `s` to its register form (`bool`: a byte is true when non-zero).
    pub fn mem_to_reg(&self, s: Scalar, v: BasicValueEnum<'c>) -> Result<BasicValueEnum<'c>, PtxError> {
        Ok(if s == Scalar::Bool {
            let v = self.int(v)?;
            let z = v.get_type().const_zero();
            self.b.build_int_compare(inkwell::IntPredicate::NE, v, z, "")?.into()
        } else {
            v
        })
    }
}
