//! The size of a `Range` or `Tiles` space from the kernel's [`bounds`](irgc_artifact::KernelDesc::bounds),
//! evaluated on the host: how a device whose kernels do not compute their own size (a GPU, where asking the
//! device would cost a round trip per launch) learns how many iterations to launch.
//!
//! The rule is the backends' own: each dimension has `max(end - start, 0)` iterations, the comparison signed for
//! signed bound types, and a 2-D space is the product of its dimensions.

use irgc_artifact::{HostExpr, Scalar};

use crate::error::RunError;
use crate::eval::{binary, eval, to_i64, Env};

/// The number of iterations of a space with `bounds` (per dimension: start, end), evaluated in `env` (whose
/// locals are the launch's arguments). An empty list is an empty space: the front end gives no bounds to a kernel
/// whose body has no sweep. `kernel` names it in errors.
pub fn space_size(kernel: &str, bounds: &[(HostExpr, HostExpr)], env: &dyn Env) -> Result<u64, RunError> {
    let mut size = if bounds.is_empty() { 0u64 } else { 1u64 };
    for (start, end) in bounds {
        let (a, b) = (eval(start, env)?, eval(end, env)?);
        let len = range_len(start.ty, a, b)?;
        size = size.checked_mul(len).ok_or_else(|| {
            RunError::Plan(format!("the space of kernel `{kernel}` has more than 2^64 iterations; check its bounds"))
        })?;
    }
    Ok(size)
}

/// `max(end - start, 0)` for bounds of type `ty` (as bits).
pub fn range_len(ty: Scalar, start: u64, end: u64) -> Result<u64, RunError> {
    if ty.is_float() {
        return Err(RunError::Plan(format!("a range has {} bounds; ranges need integer bounds", ty.name())));
    }
    if binary(irgc_artifact::BinaryOp::Lt, ty, start, end)? == 0 {
        return Ok(0);
    }
    Ok(to_i64(ty, end).wrapping_sub(to_i64(ty, start)) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use irgc_artifact::{HostExprKind, Scalar as T};

    use crate::eval::StaticEnv;

    fn lit(ty: T, v: u64) -> HostExpr {
        HostExpr { ty, kind: HostExprKind::Literal(v) }
    }

    #[test]
    fn lengths_follow_the_type() {
        assert_eq!(range_len(T::U32, 3, 10).unwrap(), 7);
        assert_eq!(range_len(T::U32, 10, 3).unwrap(), 0);
        // Signed: -2..3 has 5 iterations; unsigned the same bits would be empty.
        let m2 = (-2i32) as u32 as u64;
        assert_eq!(range_len(T::I32, m2, 3).unwrap(), 5);
        assert_eq!(range_len(T::U32, m2, 3).unwrap(), 0);
        assert_eq!(range_len(T::I64, (-5i64) as u64, (-1i64) as u64).unwrap(), 4);
        assert_eq!(range_len(T::U64, 0, u64::MAX).unwrap(), u64::MAX);
        assert!(range_len(T::F32, 0, 1).is_err());
    }

    #[test]
    fn two_dimensions_multiply_and_empty_bounds_are_empty() {
        let env = StaticEnv { params: &[], num_nodes: 10, num_edges: 0 };
        let b = vec![(lit(T::U32, 0), lit(T::U32, 4)), (lit(T::U32, 2), lit(T::U32, 7))];
        assert_eq!(space_size("k", &b, &env).unwrap(), 20);
        assert_eq!(space_size("k", &[], &env).unwrap(), 0);
        let huge = vec![(lit(T::U64, 0), lit(T::U64, u64::MAX)), (lit(T::U64, 0), lit(T::U64, 4))];
        assert!(space_size("k", &huge, &env).unwrap_err().to_string().contains("kernel `k`"));
    }
}
