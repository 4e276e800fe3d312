//! The one implementation of the scalar semantics the crate docs state, on typed bits.

use crate::{AtomicOp, BinaryOp, MathFn, ReduceOp, Scalar, UnaryOp};
use serde::{Deserialize, Serialize};
use std::fmt;

use Scalar as T;

/// A typed value as bits (see the crate docs for the encoding).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Value {
    pub ty: Scalar,
    pub bits: u64,
}

/// An operator applied to a type it does not take, or a built-in called with the wrong number of arguments:
/// what a validated program never does, so callers report it as malformed input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EvalError(pub String);

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for EvalError {}

/// Keeps only the bits that belong to a value of `ty` (the low 32 for 4-byte types, the low bit of a bool).
pub fn normalize(ty: Scalar, bits: u64) -> u64 {
    match ty {
        T::Bool => (bits != 0) as u64,
        T::I32 | T::U32 | T::F32 | T::Node => bits & 0xFFFF_FFFF,
        T::I64 | T::U64 | T::F64 | T::Edge => bits,
    }
}

/// The value as an `i64`: sign-extended for signed types, zero-extended otherwise.
pub fn to_i64(ty: Scalar, bits: u64) -> i64 {
    match ty {
        T::I32 => bits as u32 as i32 as i64,
        _ => bits as i64,
    }
}

/// A value widened to `f64` (floats exactly; integers rounded).
pub fn to_f64(ty: Scalar, bits: u64) -> f64 {
    match ty {
        T::F32 => f32::from_bits(bits as u32) as f64,
        T::F64 => f64::from_bits(bits),
        _ if ty.is_signed() => to_i64(ty, bits) as f64,
        _ => bits as f64,
    }
}

/// Bits of a float of type `ty` (`f32` rounds).
pub fn from_f64(ty: Scalar, x: f64) -> u64 {
    match ty {
        T::F32 => (x as f32).to_bits() as u64,
        _ => x.to_bits(),
    }
}

/// A float operation in the type's own precision (an `f32` operation rounds to `f32`, as on the device).
fn float_op(ty: Scalar, a: u64, b: u64, f32op: fn(f32, f32) -> f32, f64op: fn(f64, f64) -> f64) -> u64 {
    match ty {
        T::F32 => f32op(f32::from_bits(a as u32), f32::from_bits(b as u32)).to_bits() as u64,
        _ => f64op(f64::from_bits(a), f64::from_bits(b)).to_bits(),
    }
}

fn not_for(op: impl fmt::Debug, ty: Scalar) -> EvalError {
    EvalError(format!("{op:?} does not apply to {ty} operands"))
}

/// `a op b` for operands of type `ty`. Comparisons and `&&`/`||` give a bool; everything else a `ty`.
pub fn binary(op: BinaryOp, ty: Scalar, a: u64, b: u64) -> Result<u64, EvalError> {
    use BinaryOp as B;
    let (a, b) = (normalize(ty, a), normalize(ty, b));
    if ty.is_float() {
        let (x, y) = (to_f64(ty, a), to_f64(ty, b));
        return Ok(match op {
            B::Add => float_op(ty, a, b, |x, y| x + y, |x, y| x + y),
            B::Sub => float_op(ty, a, b, |x, y| x - y, |x, y| x - y),
            B::Mul => float_op(ty, a, b, |x, y| x * y, |x, y| x * y),
            B::Div => float_op(ty, a, b, |x, y| x / y, |x, y| x / y),
            // x - trunc(x / y) * y, each step rounded in the type (not fmod).
            B::Rem => float_op(ty, a, b, |x, y| x - (x / y).trunc() * y, |x, y| x - (x / y).trunc() * y),
            B::Eq => (x == y) as u64,
            B::Ne => (x != y) as u64,
            B::Lt => (x < y) as u64,
            B::Le => (x <= y) as u64,
            B::Gt => (x > y) as u64,
            B::Ge => (x >= y) as u64,
            B::And | B::Or | B::BitAnd | B::BitOr | B::BitXor | B::Shl | B::Shr => return Err(not_for(op, ty)),
        });
    }
    let w = u64::from(ty.width());
    let signed = ty.is_signed();
    let (sa, sb) = (to_i64(ty, a), to_i64(ty, b));
    let lt = if signed { sa < sb } else { a < b };
    let r = match op {
        B::Add => a.wrapping_add(b),
        B::Sub => a.wrapping_sub(b),
        B::Mul => a.wrapping_mul(b),
        B::Div | B::Rem if b == 0 => 0,
        B::Div | B::Rem => match (ty, op == B::Div) {
            (T::I32, true) => (sa as i32).wrapping_div(sb as i32) as u32 as u64,
            (T::I32, false) => (sa as i32).wrapping_rem(sb as i32) as u32 as u64,
            (T::I64, true) => sa.wrapping_div(sb) as u64,
            (T::I64, false) => sa.wrapping_rem(sb) as u64,
            (_, true) => a / b,
            (_, false) => a % b,
        },
        B::BitAnd => a & b,
        B::BitOr => a | b,
        B::BitXor => a ^ b,
        B::Shl => a.wrapping_shl((b % w) as u32),
        B::Shr => {
            let s = (b % w) as u32;
            match ty {
                T::I32 => ((sa as i32) >> s) as u32 as u64,
                T::I64 => (sa >> s) as u64,
                _ => a >> s,
            }
        }
        B::And => (a != 0 && b != 0) as u64,
        B::Or => (a != 0 || b != 0) as u64,
        B::Eq => return Ok((a == b) as u64),
        B::Ne => return Ok((a != b) as u64),
        B::Lt => return Ok(lt as u64),
        B::Le => return Ok((lt || a == b) as u64),
        B::Gt => return Ok((!lt && a != b) as u64),
        B::Ge => return Ok((!lt) as u64),
    };
    Ok(normalize(ty, r))
}

/// `op a` for an operand of type `ty`.
pub fn unary(op: UnaryOp, ty: Scalar, a: u64) -> u64 {
    let a = normalize(ty, a);
    match op {
        UnaryOp::Neg if ty.is_float() => match ty {
            T::F32 => (-f32::from_bits(a as u32)).to_bits() as u64,
            _ => (-f64::from_bits(a)).to_bits(),
        },
        UnaryOp::Neg => normalize(ty, a.wrapping_neg()),
        UnaryOp::Not => (a == 0) as u64,
        UnaryOp::BitNot => normalize(ty, !a),
    }
}

/// Converts a value of type `from` to type `to`.
pub fn cast(from: Scalar, to: Scalar, bits: u64) -> u64 {
    let bits = normalize(from, bits);
    if to == T::Bool {
        return if from.is_float() { (to_f64(from, bits) != 0.0) as u64 } else { (bits != 0) as u64 };
    }
    match (from.is_float(), to.is_float()) {
        (false, false) => normalize(to, to_i64(from, bits) as u64),
        (false, true) => match to {
            // Straight to f32 from the integer: going through f64 could round twice.
            T::F32 if from.is_signed() => (to_i64(from, bits) as f32).to_bits() as u64,
            T::F32 => (bits as f32).to_bits() as u64,
            _ if from.is_signed() => (to_i64(from, bits) as f64).to_bits(),
            _ => (bits as f64).to_bits(),
        },
        (true, true) => from_f64(to, to_f64(from, bits)),
        (true, false) => {
            // Rust's `as` saturates and sends NaN to 0: the specification.
            let x = to_f64(from, bits);
            match to {
                T::I32 => x as i32 as u32 as u64,
                T::I64 => x as i64 as u64,
                T::U32 | T::Node => x as u32 as u64,
                _ => x as u64,
            }
        }
    }
}

/// A built-in function; `ty` is the result type, `args` the operands with their types.
pub fn math(f: MathFn, ty: Scalar, args: &[(Scalar, u64)]) -> Result<u64, EvalError> {
    if args.len() != f.arity() {
        return Err(EvalError(format!("{} takes {} arguments, not {}", f.name(), f.arity(), args.len())));
    }
    let (at, a) = (args[0].0, normalize(args[0].0, args[0].1));
    Ok(match f {
        MathFn::Min | MathFn::Max => {
            let b = normalize(at, args[1].1);
            // Select on an ordered comparison: min(a, b) = a < b ? a : b, max(a, b) = a > b ? a : b.
            let take_a = binary(if f == MathFn::Min { BinaryOp::Lt } else { BinaryOp::Gt }, at, a, b)? != 0;
            if take_a {
                a
            } else {
                b
            }
        }
        MathFn::Abs if at.is_float() => match at {
            T::F32 => f32::from_bits(a as u32).abs().to_bits() as u64,
            _ => f64::from_bits(a).abs().to_bits(),
        },
        MathFn::Abs if at.is_signed() => normalize(at, to_i64(at, a).wrapping_abs() as u64),
        MathFn::Abs => a,
        MathFn::Ctz => match at.width() {
            32 => (a as u32).trailing_zeros() as u64,
            _ => a.trailing_zeros() as u64,
        },
        MathFn::Clz => match at.width() {
            32 => (a as u32).leading_zeros() as u64,
            _ => a.leading_zeros() as u64,
        },
        MathFn::Popcount => a.count_ones() as u64,
        MathFn::Sqrt => match at {
            T::F32 => f32::from_bits(a as u32).sqrt().to_bits() as u64,
            _ => f64::from_bits(a).sqrt().to_bits(),
        },
        MathFn::Random => random(a, normalize(args[1].0, args[1].1)),
        MathFn::Select => normalize(ty, if a != 0 { args[1].1 } else { args[2].1 }),
    })
}

/// The `random(seed, i)` built-in: a splitmix64-style hash of two `u64`s, with wrapping arithmetic:
///
/// ```text
/// z = seed + 0x9E3779B97F4A7C15 * (i + 1)
/// z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
/// z = (z ^ (z >> 27)) * 0x94D049BB133111EB
/// z ^ (z >> 31)
/// ```
pub fn random(seed: u64, i: u64) -> u64 {
    let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15u64.wrapping_mul(i.wrapping_add(1)));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// What one atomic read-modify-write stores into an element of type `ty` that held `old`, given the call's
/// operand `value` (and, for `atomic_cas`, its `compare` operand; ignored otherwise). The atomic itself returns
/// `old`. Every backend computes this, up to the one open point below.
///
/// - `atomic_add`/`atomic_sub` wrap on integers; on floats they are `old + value` / `old - value` in IEEE
///   arithmetic. **Open point:** an `f32` add or sub on a global array may flush subnormal operands and result to
///   zero of the same sign ([`flush_subnormal`]): NVIDIA GPUs' `atom.add.f32` on global memory does; the CPU and
///   shared memory do not.
/// - `atomic_min`/`atomic_max` replace the element only when `value` is smaller/larger: by signedness on integers
///   and ids, by an ordered comparison on floats (`value < old`), so a NaN never replaces anything and a NaN
///   element is never replaced, and `-0.0` does not replace `0.0` (nor the reverse).
/// - `atomic_and`/`or`/`xor` are bitwise; `atomic_exch` stores `value`.
/// - `atomic_cas` stores `value` when the element's **bits** equal `compare`'s (so `-0.0` differs from `0.0`,
///   and a NaN matches a NaN with the same bits).
pub fn atomic(op: AtomicOp, ty: Scalar, old: u64, value: u64, compare: u64) -> Result<u64, EvalError> {
    let (old, value, compare) = (normalize(ty, old), normalize(ty, value), normalize(ty, compare));
    let allowed = match op {
        AtomicOp::Add | AtomicOp::Sub => ty.is_numeric(),
        AtomicOp::Min | AtomicOp::Max => ty.is_numeric() || ty.is_id(),
        AtomicOp::And | AtomicOp::Or | AtomicOp::Xor => ty.is_int(),
        AtomicOp::Exchange | AtomicOp::CompareExchange => ty != T::Bool,
    };
    if !allowed || ty == T::Bool {
        return Err(not_for(op, ty));
    }
    Ok(match op {
        AtomicOp::Add => binary(BinaryOp::Add, ty, old, value)?,
        AtomicOp::Sub => binary(BinaryOp::Sub, ty, old, value)?,
        AtomicOp::Min | AtomicOp::Max => {
            let better = if op == AtomicOp::Min { BinaryOp::Lt } else { BinaryOp::Gt };
            if binary(better, ty, value, old)? != 0 {
                value
            } else {
                old
            }
        }
        AtomicOp::And => old & value,
        AtomicOp::Or => old | value,
        AtomicOp::Xor => old ^ value,
        AtomicOp::Exchange => value,
        AtomicOp::CompareExchange => {
            if old == compare {
                value
            } else {
                old
            }
        }
    })
}

/// A float of type `ty` with a subnormal value replaced by zero of the same sign (other values, and other types,
/// unchanged): what "flushing to zero" does to an operand or a result.
pub fn flush_subnormal(ty: Scalar, bits: u64) -> u64 {
    match ty {
        T::F32 if f32::from_bits(bits as u32).is_subnormal() => bits & 0x8000_0000,
        T::F64 if f64::from_bits(bits).is_subnormal() => bits & 0x8000_0000_0000_0000,
        _ => bits,
    }
}

/// The identity of a reduction in `ty`, as bits.
pub fn reduce_identity(op: ReduceOp, ty: Scalar) -> u64 {
    match op {
        ReduceOp::Any => 0,
        ReduceOp::All => 1,
        ReduceOp::Sum => 0, // 0.0 has all-zero bits in both float types
        ReduceOp::Min => ty.inf_bits(),
        ReduceOp::Max => match ty {
            T::I32 => i32::MIN as u32 as u64,
            T::I64 => i64::MIN as u64,
            T::F32 => f32::NEG_INFINITY.to_bits() as u64,
            T::F64 => f64::NEG_INFINITY.to_bits(),
            _ => 0,
        },
    }
}

/// Combines two partial reductions (bits of `ty`).
pub fn reduce_combine(op: ReduceOp, ty: Scalar, a: u64, b: u64) -> u64 {
    let pick = |take_a: bool| if take_a { a } else { b };
    match op {
        ReduceOp::Any => ((a != 0) || (b != 0)) as u64,
        ReduceOp::All => ((a != 0) && (b != 0)) as u64,
        ReduceOp::Sum => match ty {
            T::F32 => (f32::from_bits(a as u32) + f32::from_bits(b as u32)).to_bits() as u64,
            T::F64 => (f64::from_bits(a) + f64::from_bits(b)).to_bits(),
            T::I32 | T::U32 | T::Node => (a as u32).wrapping_add(b as u32) as u64,
            _ => a.wrapping_add(b),
        },
        ReduceOp::Min | ReduceOp::Max => {
            let a_less = match ty {
                T::F32 => f32::from_bits(a as u32) < f32::from_bits(b as u32),
                T::F64 => f64::from_bits(a) < f64::from_bits(b),
                T::I32 => (a as u32 as i32) < (b as u32 as i32),
                T::I64 => (a as i64) < (b as i64),
                _ => a < b,
            };
            pick(if op == ReduceOp::Min { a_less } else { !a_less })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn division_by_zero_is_zero_and_min_by_minus_one_wraps() {
        assert_eq!(binary(BinaryOp::Div, T::U32, 7, 0), Ok(0));
        assert_eq!(binary(BinaryOp::Rem, T::I64, 7, 0), Ok(0));
        let min = i32::MIN as u32 as u64;
        let m1 = (-1i32) as u32 as u64;
        assert_eq!(binary(BinaryOp::Div, T::I32, min, m1), Ok(min));
        assert_eq!(binary(BinaryOp::Rem, T::I32, min, m1), Ok(0));
    }

    #[test]
    fn shifts_take_the_amount_modulo_the_width() {
        assert_eq!(binary(BinaryOp::Shl, T::U32, 1, 33), Ok(2));
        assert_eq!(binary(BinaryOp::Shr, T::I32, (-8i32) as u32 as u64, 1), Ok((-4i32) as u32 as u64));
    }

    #[test]
    fn float_min_selects_on_an_ordered_comparison_and_rem_is_not_fmod() {
        let nan = f64::NAN.to_bits();
        let one = 1f64.to_bits();
        assert_eq!(math(MathFn::Min, T::F64, &[(T::F64, nan), (T::F64, one)]), Ok(one));
        assert!(f64::from_bits(math(MathFn::Min, T::F64, &[(T::F64, one), (T::F64, nan)]).unwrap()).is_nan());
        let r = binary(BinaryOp::Rem, T::F64, 7.5f64.to_bits(), 2f64.to_bits()).unwrap();
        assert_eq!(f64::from_bits(r), 1.5);
    }

    #[test]
    fn float_to_int_casts_saturate_and_nan_is_zero() {
        assert_eq!(cast(T::F64, T::I32, f64::NAN.to_bits()), 0);
        assert_eq!(cast(T::F64, T::U32, (-3.0f64).to_bits()), 0);
        assert_eq!(cast(T::F64, T::I32, 1e20f64.to_bits()), i32::MAX as u64);
        assert_eq!(cast(T::F32, T::Bool, f32::NAN.to_bits() as u64), 1);
    }

    #[test]
    fn atomics_store_by_type_and_min_never_takes_a_nan() {
        let a = |op, ty, old, v| atomic(op, ty, old, v, 0).unwrap();
        let m1 = (-1i32) as u32 as u64;
        assert_eq!(a(AtomicOp::Min, T::I32, 3, m1), m1);
        assert_eq!(a(AtomicOp::Min, T::U32, 3, m1), 3);
        assert_eq!(a(AtomicOp::Add, T::I32, i32::MAX as u64, 1), i32::MIN as u32 as u64);
        let (nan, one) = (f64::NAN.to_bits(), 1f64.to_bits());
        assert_eq!(a(AtomicOp::Min, T::F64, one, nan), one);
        assert_eq!(a(AtomicOp::Max, T::F64, nan, one), nan);
        assert_eq!(a(AtomicOp::Min, T::F64, 0f64.to_bits(), (-0f64).to_bits()), 0f64.to_bits());
        assert_eq!(atomic(AtomicOp::CompareExchange, T::F64, nan, one, nan), Ok(one));
        assert_eq!(atomic(AtomicOp::CompareExchange, T::F64, 0, one, (-0f64).to_bits()), Ok(0));
        assert!(atomic(AtomicOp::Xor, T::F32, 0, 0, 0).is_err());
        let tiny = 1e-40f32.to_bits() as u64;
        assert_eq!(flush_subnormal(T::F32, tiny), 0);
        assert_eq!(flush_subnormal(T::F32, (-1e-40f32).to_bits() as u64), (-0f32).to_bits() as u64);
        assert_eq!(flush_subnormal(T::F32, 1f32.to_bits() as u64), 1f32.to_bits() as u64);
    }

    #[test]
    fn reductions_combine_by_type() {
        let t = T::I32;
        let neg = (-5i32) as u32 as u64;
        assert_eq!(reduce_combine(ReduceOp::Min, t, neg, 3), neg);
        assert_eq!(reduce_combine(ReduceOp::Max, t, reduce_identity(ReduceOp::Max, t), neg), neg);
        let s = reduce_combine(ReduceOp::Sum, T::F64, 1.5f64.to_bits(), 2.25f64.to_bits());
        assert_eq!(f64::from_bits(s), 3.75);
        assert_eq!(reduce_combine(ReduceOp::Any, T::Bool, 0, 1), 1);
        assert_eq!(reduce_combine(ReduceOp::All, T::Bool, 1, 0), 0);
    }
}
