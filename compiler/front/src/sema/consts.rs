//! Compile-time evaluation of `const` items, parameter defaults and tile shapes.
//!
//! Only literals, other constants and arithmetic on them are constant; anything else is reported.

use crate::diag::Diagnostic;
use crate::ir::{Literal, Scalar};
use crate::sema::types::{float_literal, int_fits, int_literal, int_value};
use crate::syntax::ast::{BinOp, Expr, ExprKind, UnOp};
use std::collections::BTreeMap;

/// A constant's value and type.
pub type ConstVal = (Literal, Scalar);

/// Evaluates `e` as a constant of type `ty`, looking names up in `consts`.
pub fn eval(e: &Expr, ty: Scalar, consts: &BTreeMap<String, ConstVal>) -> Result<Literal, Diagnostic> {
    match &e.kind {
        ExprKind::Int(text) => {
            let (v, suffix) = int_literal(text).map_err(|m| Diagnostic::error(e.span, m))?;
            check_suffix(e, suffix, ty)?;
            if ty == Scalar::Bool {
                return Err(mismatch(e, ty, "an integer"));
            }
            if !int_fits(v, false, ty) {
                return Err(Diagnostic::error(e.span, format!("literal `{text}` does not fit in {ty}")));
            }
            Ok(int_value(v, false, ty))
        }
        ExprKind::Float(text) => {
            let (v, suffix) = float_literal(text).map_err(|m| Diagnostic::error(e.span, m))?;
            check_suffix(e, suffix, ty)?;
            if !ty.is_float() {
                return Err(mismatch(e, ty, "a float"));
            }
            Ok(Literal::Float(v))
        }
        ExprKind::Bool(b) if ty == Scalar::Bool => Ok(Literal::Bool(*b)),
        ExprKind::Bool(_) => Err(mismatch(e, ty, "bool")),
        ExprKind::Inf if ty != Scalar::Bool => Ok(Literal::Inf),
        ExprKind::Name(n) => match consts.get(n) {
            Some(&(lit, t)) if t == ty => Ok(lit),
            Some(&(_, t)) => Err(mismatch(e, ty, t.name())),
            None => Err(Diagnostic::error(e.span, format!("`{n}` is not a constant defined before this point"))
                .label("not known at compile time here")
                .note("constants may use literals and constants defined above them")),
        },
        // A negative integer literal is checked as a whole, so that e.g. `-2147483648` fits in i32.
        ExprKind::Unary(UnOp::Neg, inner) if ty.is_signed() && matches!(inner.kind, ExprKind::Int(_)) => {
            let ExprKind::Int(text) = &inner.kind else { unreachable!("checked above") };
            let (v, suffix) = int_literal(text).map_err(|m| Diagnostic::error(inner.span, m))?;
            check_suffix(inner, suffix, ty)?;
            if !int_fits(v, true, ty) {
                return Err(Diagnostic::error(e.span, format!("literal `-{text}` does not fit in {ty}")));
            }
            Ok(int_value(v, true, ty))
        }
        ExprKind::Unary(UnOp::Neg, inner) => match eval(inner, ty, consts)? {
            Literal::Int(v) if ty.is_signed() => Ok(int_value(v, true, ty)),
            Literal::Float(f) => Ok(Literal::Float(-f)),
            _ => Err(Diagnostic::error(e.span, format!("cannot negate a value of type {ty}"))),
        },
        ExprKind::Unary(UnOp::Not, inner) => match eval(inner, ty, consts)? {
            Literal::Bool(b) => Ok(Literal::Bool(!b)),
            _ => Err(not_constant(e)),
        },
        ExprKind::Binary(op, a, b) => {
            let (a, b) = (eval(a, ty, consts)?, eval(b, ty, consts)?);
            binary(*op, a, b, ty).ok_or_else(|| not_constant(e))
        }
        _ => Err(not_constant(e)),
    }
}

fn check_suffix(e: &Expr, suffix: Option<Scalar>, ty: Scalar) -> Result<(), Diagnostic> {
    match suffix {
        Some(s) if s != ty => Err(mismatch(e, ty, s.name())),
        _ => Ok(()),
    }
}

fn mismatch(e: &Expr, want: Scalar, found: &str) -> Diagnostic {
    Diagnostic::error(e.span, format!("mismatched types: expected {want}, found {found}"))
        .label(format!("expected {want}"))
}

fn not_constant(e: &Expr) -> Diagnostic {
    Diagnostic::error(e.span, "not a constant expression")
        .label("must be known at compile time")
        .note("constants may use literals, other constants and arithmetic")
}

fn binary(op: BinOp, a: Literal, b: Literal, ty: Scalar) -> Option<Literal> {
    match (a, b) {
        (Literal::Int(x), Literal::Int(y)) => {
            let mask = if ty.bits() == 32 { 0xffff_ffffu64 } else { u64::MAX };
            let signed = |v: u64| if ty.bits() == 32 { v as u32 as i32 as i64 } else { v as i64 };
            let r = match op {
                BinOp::Add => x.wrapping_add(y),
                BinOp::Sub => x.wrapping_sub(y),
                BinOp::Mul => x.wrapping_mul(y),
                BinOp::Div if y != 0 => {
                    if ty.is_signed() {
                        signed(x).wrapping_div(signed(y)) as u64
                    } else {
                        x / y
                    }
                }
                BinOp::Rem if y != 0 => {
                    if ty.is_signed() {
                        signed(x).wrapping_rem(signed(y)) as u64
                    } else {
                        x % y
                    }
                }
                BinOp::BitAnd => x & y,
                BinOp::BitOr => x | y,
                BinOp::BitXor => x ^ y,
                BinOp::Shl if y < ty.bits() as u64 => x << y,
                BinOp::Shr if y < ty.bits() as u64 => x >> y,
                _ => return None,
            };
            Some(Literal::Int(r & mask))
        }
        (Literal::Float(x), Literal::Float(y)) => Some(Literal::Float(match op {
            BinOp::Add => x + y,
            BinOp::Sub => x - y,
            BinOp::Mul => x * y,
            BinOp::Div => x / y,
            _ => return None,
        })),
        (Literal::Bool(x), Literal::Bool(y)) => Some(Literal::Bool(match op {
            BinOp::And => x && y,
            BinOp::Or => x || y,
            _ => return None,
        })),
        _ => None,
    }
}
