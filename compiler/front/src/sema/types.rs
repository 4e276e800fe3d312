//! Type names and literals: turning what the user wrote into [`Scalar`]s and [`Literal`]s, with diagnostics.

use crate::diag::Diagnostic;
use crate::ir::{Literal, LocalType, Scalar};
use crate::syntax::ast::{TypeExpr, TypeExprKind};

pub const SCALAR_NAMES: &str = "bool, i32, u32, i64, u64, f32, f64, node, edge";

/// Resolves a scalar type name.
pub fn scalar(t: &TypeExpr) -> Result<Scalar, Diagnostic> {
    match &t.node {
        TypeExprKind::Named(n) => Scalar::from_name(n).ok_or_else(|| {
            Diagnostic::error(t.span, format!("unknown type `{n}`"))
                .label("not a type")
                .note(format!("the scalar types are {SCALAR_NAMES}"))
        }),
        TypeExprKind::ArrayRef(_) => Err(Diagnostic::error(t.span, "an array reference type is not allowed here")
            .label("expected a scalar type")
            .note("array references `[T]` are only for device-function parameters")),
    }
}

/// Resolves a parameter type: a scalar, or `[T]` where array references are allowed.
pub fn local_type(t: &TypeExpr, allow_array: bool) -> Result<LocalType, Diagnostic> {
    match &t.node {
        TypeExprKind::ArrayRef(inner) if allow_array => Ok(LocalType::ArrayRef(scalar(inner)?)),
        _ => scalar(t).map(LocalType::Scalar),
    }
}

/// The integer types a suffix names.
fn suffix_type(text: &str) -> (String, Option<Scalar>) {
    for (suf, ty) in [("u32", Scalar::U32), ("i32", Scalar::I32), ("u64", Scalar::U64), ("i64", Scalar::I64)] {
        if let Some(stripped) = text.strip_suffix(suf) {
            if !text.starts_with("0x") || !stripped.is_empty() {
                return (stripped.to_string(), Some(ty));
            }
        }
    }
    for (suf, ty) in [("f32", Scalar::F32), ("f64", Scalar::F64)] {
        if let Some(stripped) = text.strip_suffix(suf) {
            if !text.starts_with("0x") {
                return (stripped.to_string(), Some(ty));
            }
        }
    }
    (text.to_string(), None)
}

/// Parses an integer literal's value and its suffix type, if any.
pub fn int_literal(text: &str) -> Result<(u64, Option<Scalar>), String> {
    let (digits, ty) = suffix_type(text);
    let clean = digits.replace('_', "");
    let parsed = match clean.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => clean.parse::<u64>(),
    };
    let value = parsed.map_err(|_| format!("integer literal `{text}` does not fit in 64 bits"))?;
    Ok((value, ty))
}

/// Parses a float literal's value and its suffix type, if any.
pub fn float_literal(text: &str) -> Result<(f64, Option<Scalar>), String> {
    let (digits, ty) = suffix_type(text);
    let clean = digits.replace('_', "");
    clean.parse::<f64>().map(|v| (v, ty)).map_err(|_| format!("malformed float literal `{text}`"))
}

/// Checks that a float literal's value is finite in `ty`: decimal text whose value rounds to infinity in the type
/// (`1e400`, or `1e39` as an `f32`) is refused rather than silently becoming `inf` (the keyword is the way to write
/// infinity). `text` is the literal as written, suffix included. Literals too small for the type round to zero or a
/// subnormal, like in any IEEE language.
pub fn float_in_range(text: &str, ty: Scalar) -> Result<(), String> {
    let (digits, _) = suffix_type(text);
    let clean = digits.replace('_', "");
    let (finite, max) = match ty {
        Scalar::F32 => (clean.parse::<f32>().is_ok_and(f32::is_finite), format!("{:e}", f32::MAX)),
        Scalar::F64 => (clean.parse::<f64>().is_ok_and(f64::is_finite), format!("{:e}", f64::MAX)),
        _ => return Ok(()),
    };
    if finite {
        Ok(())
    } else {
        Err(format!("float literal `{text}` is too large for {ty} (the largest {ty} is {max})"))
    }
}

/// Whether the integer `value` (negated if `negative`) fits in `ty`; ids count as unsigned of their width.
pub fn int_fits(value: u64, negative: bool, ty: Scalar) -> bool {
    match ty {
        Scalar::I32 => {
            if negative {
                value <= 1 << 31
            } else {
                value <= i32::MAX as u64
            }
        }
        Scalar::I64 => {
            if negative {
                value <= 1 << 63
            } else {
                value <= i64::MAX as u64
            }
        }
        Scalar::U32 | Scalar::Node => !negative && value <= u32::MAX as u64,
        Scalar::U64 | Scalar::Edge => !negative,
        Scalar::F32 | Scalar::F64 => true,
        Scalar::Bool => false,
    }
}

/// The literal for an integer value in `ty` (two's complement for negative values, floats converted).
pub fn int_value(value: u64, negative: bool, ty: Scalar) -> Literal {
    if ty.is_float() {
        let f = value as f64;
        return Literal::Float(if negative { -f } else { f });
    }
    let v = if negative { value.wrapping_neg() } else { value };
    let v = if ty.bits() == 32 { v & 0xffff_ffff } else { v };
    Literal::Int(v)
}
