//! Compile-time evaluation of `const` items, parameter defaults and tile shapes.
//!
//! Only literals, other constants and arithmetic on them are constant; anything else is reported.

use crate::diag::Diagnostic;
use crate::ir::{Literal, Scalar};
use crate::sema::types::{float_in_range, float_literal, int_fits, int_literal, int_value};
use crate::syntax::ast::{BinaryOp, Expr, ExprKind, UnaryOp};
use std::collections::BTreeMap;

/// A constant's value and type.
pub type ConstVal = (Literal, Scalar);

/// Evaluates `e` as a constant of type `ty`, looking names up in `consts`.
///
/// This recursion is as deep as the expression (up to [`crate::syntax::limits::MAX_DEPTH`]), so its frame is kept
/// small: everything but the recursion itself lives in the helpers, which are never inlined into it.
pub fn eval(e: &Expr, ty: Scalar, consts: &BTreeMap<String, ConstVal>) -> Result<Literal, Diagnostic> {
    match &e.kind {
        ExprKind::Unary(UnaryOp::Neg, inner) if !(ty.is_signed() && matches!(inner.kind, ExprKind::Int(_))) => {
            let v = eval(inner, ty, consts)?;
            negate(e, v, ty)
        }
        ExprKind::Unary(UnaryOp::Not, inner) => {
            let v = eval(inner, ty, consts)?;
            not(e, v)
        }
        ExprKind::Binary(op, a, b) => {
            let a = eval(a, ty, consts)?;
            let b = eval(b, ty, consts)?;
            fold(e, *op, a, b, ty)
        }
        _ => leaf(e, ty, consts),
    }
}

/// A constant without operands to evaluate first: a literal (a negative integer literal included), a name.
#[inline(never)]
fn leaf(e: &Expr, ty: Scalar, consts: &BTreeMap<String, ConstVal>) -> Result<Literal, Diagnostic> {
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
            float_in_range(text, ty)
                .map_err(|m| Diagnostic::error(e.span, m).label(format!("out of range for {ty}")))?;
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
        ExprKind::Unary(UnaryOp::Neg, inner) if ty.is_signed() && matches!(inner.kind, ExprKind::Int(_)) => {
            let ExprKind::Int(text) = &inner.kind else { unreachable!("checked above") };
            let (v, suffix) = int_literal(text).map_err(|m| Diagnostic::error(inner.span, m))?;
            check_suffix(inner, suffix, ty)?;
            if !int_fits(v, true, ty) {
                return Err(Diagnostic::error(e.span, format!("literal `-{text}` does not fit in {ty}")));
            }
            Ok(int_value(v, true, ty))
        }
        _ => Err(not_constant(e)),
    }
}

/// `-v`; `-inf` is minus infinity for floats, or `-MAX` for a signed integer, as at run time.
#[inline(never)]
fn negate(e: &Expr, v: Literal, ty: Scalar) -> Result<Literal, Diagnostic> {
    match v {
        lit @ (Literal::Int(_) | Literal::Float(_) | Literal::Inf) if ty.is_signed() || ty.is_float() => {
            Ok(literal_of(ty, irgc_scalar::unary(UnaryOp::Neg, ty, literal_bits(lit, ty))))
        }
        _ => Err(Diagnostic::error(e.span, format!("cannot negate a value of type {ty}"))),
    }
}

#[inline(never)]
fn not(e: &Expr, v: Literal) -> Result<Literal, Diagnostic> {
    match v {
        Literal::Bool(b) => Ok(Literal::Bool(!b)),
        _ => Err(not_constant(e)),
    }
}

/// `a op b`, refusing a division by zero.
#[inline(never)]
fn fold(e: &Expr, op: BinaryOp, a: Literal, b: Literal, ty: Scalar) -> Result<Literal, Diagnostic> {
    if matches!(op, BinaryOp::Div | BinaryOp::Rem) && (b == Literal::Int(0) || b == Literal::Float(0.0)) {
        // The language defines it (0 for integers, an infinity or NaN for floats), but in a constant it is surely
        // a mistake.
        return Err(Diagnostic::error(e.span, "division by zero in a constant expression")
            .label("this divides by zero")
            .note("at run time integer `x / 0` and `x % 0` are 0 and float ones infinite or NaN; a constant that relies on it is almost surely a bug"));
    }
    binary(op, a, b, ty).ok_or_else(|| not_constant(e))
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

/// `a op b` folded with the language's one scalar semantics (`irgc_scalar`), so a constant has the value the
/// same expression would have at run time; comparisons (whose result is not `ty`) are not constants here.
fn binary(op: BinaryOp, a: Literal, b: Literal, ty: Scalar) -> Option<Literal> {
    if op.is_comparison() || (matches!(op, BinaryOp::And | BinaryOp::Or) != (ty == Scalar::Bool)) {
        return None;
    }
    let bits = irgc_scalar::binary(op, ty, literal_bits(a, ty), literal_bits(b, ty)).ok()?;
    Some(literal_of(ty, bits))
}

/// The literal for the bits of a value of type `ty`.
fn literal_of(ty: Scalar, bits: u64) -> Literal {
    match ty {
        Scalar::Bool => Literal::Bool(bits != 0),
        t if t.is_float() => Literal::Float(irgc_scalar::to_f64(t, bits)),
        _ => Literal::Int(bits),
    }
}

/// The bits of a literal of type `ty`.
fn literal_bits(lit: Literal, ty: Scalar) -> u64 {
    match lit {
        Literal::Bool(b) => b as u64,
        Literal::Int(v) => v,
        Literal::Float(f) => irgc_scalar::from_f64(ty, f),
        Literal::Inf => ty.inf_bits(),
    }
}
