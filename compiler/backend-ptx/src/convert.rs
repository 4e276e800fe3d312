//! Conversions between typed register values and the `u64` bits of the ABI, between register and memory forms,
//! and integer widening and narrowing: methods of [`Lower`], used by expressions, statements and the kernel entry.

use crate::lower::Lower;
use crate::types::reg;
use crate::PtxError;
use inkwell::types::BasicTypeEnum;
use inkwell::values::{BasicValueEnum, IntValue};
use irgc_front::ir::Scalar;

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
