//! Host expressions: typed scalar semantics on bits, and the evaluator of [`HostExpr`].
//!
//! Values travel as `u64` bits in the artifact's convention ([`irgc_artifact::Value`]): integers zero-extended
//! (signed ones as two's complement in their width), floats as IEEE bits (`f32` in the low half), bools as 0/1.
//! The operations here must agree with what the backends generate for the same expression in a kernel, so that a
//! computation moved between the plan and a kernel gives the same answer:
//! - integer arithmetic wraps at the type's width; `/` and `%` are signed for `i32`/`i64` (and `MIN / -1` wraps);
//!   integer division by zero is an error on the host (the language leaves it undefined; the host can say so);
//! - shifts use the amount modulo the width (what the hardware instructions do); `>>` is arithmetic when signed;
//! - float → integer casts saturate and send NaN to 0 (Rust's `as`, Cranelift's `fcvt_to_*_sat`);
//! - comparisons involving NaN are false, except `!=`.

use irgc_artifact::{BinaryOp, HostExpr, HostExprKind, MathFn, ScalarType, UnaryOp};

use crate::error::RunError;
use crate::random;

use ScalarType as T;

/// Keeps only the bits that belong to a value of `ty` (the low 32 for 4-byte types, the low bit of a bool).
pub fn normalize(ty: ScalarType, bits: u64) -> u64 {
    match ty {
        T::Bool => (bits != 0) as u64,
        T::I32 | T::U32 | T::F32 | T::Node => bits & 0xFFFF_FFFF,
        T::I64 | T::U64 | T::F64 | T::Edge => bits,
    }
}

/// Width in bits of an integer (or id) type.
fn width(ty: ScalarType) -> u32 {
    match ty {
        T::Bool => 1,
        T::I32 | T::U32 | T::F32 | T::Node => 32,
        _ => 64,
    }
}

/// The value as an `i64`: sign-extended for signed types, zero-extended otherwise.
pub fn to_i64(ty: ScalarType, bits: u64) -> i64 {
    match ty {
        T::I32 => bits as u32 as i32 as i64,
        _ => bits as i64,
    }
}

/// A float value (`ty` must be `f32` or `f64`) widened to `f64`.
pub fn to_f64(ty: ScalarType, bits: u64) -> f64 {
    match ty {
        T::F32 => f32::from_bits(bits as u32) as f64,
        T::F64 => f64::from_bits(bits),
        _ if ty.is_signed() => to_i64(ty, bits) as f64,
        _ => bits as f64,
    }
}

/// Bits of a float of type `ty` (`f32` rounds).
pub fn from_f64(ty: ScalarType, x: f64) -> u64 {
    match ty {
        T::F32 => (x as f32).to_bits() as u64,
        _ => x.to_bits(),
    }
}

/// A float op done in the type's own precision (f32 arithmetic must round per operation, as on the device).
fn float_op(ty: ScalarType, a: u64, b: u64, f32op: fn(f32, f32) -> f32, f64op: fn(f64, f64) -> f64) -> u64 {
    match ty {
        T::F32 => f32op(f32::from_bits(a as u32), f32::from_bits(b as u32)).to_bits() as u64,
        _ => f64op(f64::from_bits(a), f64::from_bits(b)).to_bits(),
    }
}

/// `a op b` for operands of type `ty`. Comparisons and `&&`/`||` give a bool; everything else a `ty`.
pub fn binary(op: BinaryOp, ty: ScalarType, a: u64, b: u64) -> Result<u64, RunError> {
    use BinaryOp as B;
    let (a, b) = (normalize(ty, a), normalize(ty, b));
    if ty.is_float() {
        let (x, y) = (to_f64(ty, a), to_f64(ty, b));
        return Ok(match op {
            B::Add => float_op(ty, a, b, |x, y| x + y, |x, y| x + y),
            B::Sub => float_op(ty, a, b, |x, y| x - y, |x, y| x - y),
            B::Mul => float_op(ty, a, b, |x, y| x * y, |x, y| x * y),
            B::Div => float_op(ty, a, b, |x, y| x / y, |x, y| x / y),
            B::Rem => float_op(ty, a, b, |x, y| x % y, |x, y| x % y),
            B::Eq => (x == y) as u64,
            B::Ne => (x != y) as u64,
            B::Lt => (x < y) as u64,
            B::Le => (x <= y) as u64,
            B::Gt => (x > y) as u64,
            B::Ge => (x >= y) as u64,
            B::And | B::Or | B::BitAnd | B::BitOr | B::BitXor | B::Shl | B::Shr => {
                return Err(RunError::plan(format!("the artifact applies {op:?} to {} operands", ty.name())))
            }
        });
    }
    let w = width(ty);
    let signed = ty.is_signed();
    let (sa, sb) = (to_i64(ty, a), to_i64(ty, b));
    let lt = if signed { sa < sb } else { a < b };
    let r = match op {
        B::Add => a.wrapping_add(b),
        B::Sub => a.wrapping_sub(b),
        B::Mul => a.wrapping_mul(b),
        B::Div | B::Rem => {
            if b == 0 {
                let what = if op == B::Div { "division" } else { "remainder" };
                return Err(RunError::plan(format!("{what} by zero in the plan ({} {a} by 0)", ty.name())));
            }
            match (ty, op == B::Div) {
                (T::I32, true) => (sa as i32).wrapping_div(sb as i32) as u32 as u64,
                (T::I32, false) => (sa as i32).wrapping_rem(sb as i32) as u32 as u64,
                (T::I64, true) => sa.wrapping_div(sb) as u64,
                (T::I64, false) => sa.wrapping_rem(sb) as u64,
                (_, true) => a / b,
                (_, false) => a % b,
            }
        }
        B::BitAnd => a & b,
        B::BitOr => a | b,
        B::BitXor => a ^ b,
        B::Shl => a.wrapping_shl((b % w as u64) as u32),
        B::Shr => {
            let s = (b % w as u64) as u32;
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
pub fn unary(op: UnaryOp, ty: ScalarType, a: u64) -> u64 {
    let a = normalize(ty, a);
    match op {
        UnaryOp::Neg if ty.is_float() => from_f64(ty, -to_f64(ty, a)),
        UnaryOp::Neg => normalize(ty, a.wrapping_neg()),
        UnaryOp::Not => (a == 0) as u64,
        UnaryOp::BitNot => normalize(ty, !a),
    }
}

/// Converts a value of type `from` to type `to`.
pub fn cast(from: ScalarType, to: ScalarType, bits: u64) -> u64 {
    let bits = normalize(from, bits);
    if to == T::Bool {
        return if from.is_float() { (to_f64(from, bits) != 0.0) as u64 } else { (bits != 0) as u64 };
    }
    match (from.is_float(), to.is_float()) {
        (false, false) => normalize(to, to_i64(from, bits) as u64),
        (false, true) => match to {
            // Convert straight to f32 from the integer: going through f64 could round twice.
            T::F32 if from.is_signed() => (to_i64(from, bits) as f32).to_bits() as u64,
            T::F32 => (bits as f32).to_bits() as u64,
            _ if from.is_signed() => (to_i64(from, bits) as f64).to_bits(),
            _ => (bits as f64).to_bits(),
        },
        (true, true) => from_f64(to, to_f64(from, bits)),
        (true, false) => {
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
pub fn math(f: MathFn, ty: ScalarType, args: &[(ScalarType, u64)]) -> Result<u64, RunError> {
    let want = match f {
        MathFn::Min | MathFn::Max | MathFn::Random => 2,
        MathFn::Select => 3,
        _ => 1,
    };
    if args.len() != want {
        return Err(RunError::plan(format!("the artifact calls {f:?} with {} arguments, expected {want}", args.len())));
    }
    let (at, a) = (args[0].0, normalize(args[0].0, args[0].1));
    Ok(match f {
        MathFn::Min | MathFn::Max => {
            let b = normalize(at, args[1].1);
            let a_less = binary(BinaryOp::Lt, at, a, b)? != 0;
            if at.is_float() {
                let (x, y) = (to_f64(at, a), to_f64(at, b));
                from_f64(at, if f == MathFn::Min { x.min(y) } else { x.max(y) })
            } else if (f == MathFn::Min) == a_less {
                a
            } else {
                b
            }
        }
        MathFn::Abs if at.is_float() => from_f64(at, to_f64(at, a).abs()),
        MathFn::Abs if at.is_signed() => normalize(at, (to_i64(at, a).wrapping_abs()) as u64),
        MathFn::Abs => a,
        MathFn::Ctz => match width(at) {
            32 => (a as u32).trailing_zeros() as u64,
            _ => a.trailing_zeros() as u64,
        },
        MathFn::Clz => match width(at) {
            32 => (a as u32).leading_zeros() as u64,
            _ => a.leading_zeros() as u64,
        },
        MathFn::Popcount => a.count_ones() as u64,
        MathFn::Sqrt => match at {
            T::F32 => f32::from_bits(a as u32).sqrt().to_bits() as u64,
            _ => f64::from_bits(a).sqrt().to_bits(),
        },
        MathFn::Random => random(a, args[1].1),
        MathFn::Select => {
            if a != 0 {
                normalize(ty, args[1].1)
            } else {
                normalize(ty, args[2].1)
            }
        }
    })
}

/// What an expression can read besides its operands. The plan interpreter implements it over live memory; the
/// evaluation of array dimensions and check sources before the plan runs implements it over params only.
pub trait Env {
    fn local(&self, i: usize) -> Result<u64, RunError>;
    fn param(&self, p: usize) -> Result<u64, RunError>;
    fn num_nodes(&self) -> u64;
    fn num_edges(&self) -> u64;
    fn worklist_size(&self, w: usize) -> Result<u64, RunError>;
    fn load(&self, global: usize, index: &[u64]) -> Result<u64, RunError>;
}

/// Evaluates `e`; the result is normalized to `e.ty`.
pub fn eval(e: &HostExpr, env: &dyn Env) -> Result<u64, RunError> {
    let bits = match &e.kind {
        HostExprKind::Literal(b) => *b,
        HostExprKind::Local(i) => env.local(*i)?,
        HostExprKind::Param(p) => env.param(*p)?,
        HostExprKind::Unary(op, a) => unary(*op, a.ty, eval(a, env)?),
        HostExprKind::Binary(op, a, b) => {
            let x = eval(a, env)?;
            // `&&` and `||` short-circuit: the right side may be a load that is only valid when the left holds.
            match op {
                BinaryOp::And if x == 0 => 0,
                BinaryOp::Or if x != 0 => 1,
                _ => binary(*op, a.ty, x, eval(b, env)?)?,
            }
        }
        HostExprKind::Cast(a) => cast(a.ty, e.ty, eval(a, env)?),
        HostExprKind::Math(f, args) => {
            let vals = args.iter().map(|a| Ok((a.ty, eval(a, env)?))).collect::<Result<Vec<_>, RunError>>()?;
            math(*f, e.ty, &vals)?
        }
        HostExprKind::NumNodes => env.num_nodes(),
        HostExprKind::NumEdges => env.num_edges(),
        HostExprKind::WorklistSize(w) => env.worklist_size(*w)?,
        HostExprKind::Load { global, index } => {
            let idx = index.iter().map(|i| eval(i, env)).collect::<Result<Vec<_>, _>>()?;
            env.load(*global, &idx)?
        }
    };
    Ok(normalize(e.ty, bits))
}

/// An [`Env`] with params and graph sizes only: for array dimensions and check sources, evaluated outside the plan.
pub struct StaticEnv<'a> {
    pub params: &'a [u64],
    pub num_nodes: u64,
    pub num_edges: u64,
}

impl Env for StaticEnv<'_> {
    fn local(&self, _: usize) -> Result<u64, RunError> {
        Err(RunError::plan("a host local is used outside the plan (in an array size or a check's source)"))
    }

    fn param(&self, p: usize) -> Result<u64, RunError> {
        self.params
            .get(p)
            .copied()
            .ok_or_else(|| RunError::plan(format!("the artifact reads param #{p}, which it lacks")))
    }

    fn num_nodes(&self) -> u64 {
        self.num_nodes
    }

    fn num_edges(&self) -> u64 {
        self.num_edges
    }

    fn worklist_size(&self, _: usize) -> Result<u64, RunError> {
        Err(RunError::plan("a worklist size is used outside the plan (in an array size or a check's source)"))
    }

    fn load(&self, _: usize, _: &[u64]) -> Result<u64, RunError> {
        Err(RunError::plan("an array element is read outside the plan (in an array size or a check's source)"))
    }
}
