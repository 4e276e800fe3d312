//! The evaluator of host expressions ([`HostExpr`]): the plan's arithmetic, on typed bits.
//!
//! The scalar operations themselves are `irgc_scalar`'s, the language's one implementation of its semantics, so
//! a computation moved between the plan and a kernel gives the same answer (division by zero is 0 in both, and
//! so on: see that crate's documentation).

use irgc_artifact::{BinaryOp, HostExpr, HostExprKind, MathFn, Scalar, UnaryOp};

use crate::error::RunError;

pub use irgc_scalar::{from_f64, normalize, to_f64, to_i64};

/// `a op b` for operands of type `ty` (see [`irgc_scalar::binary`]); a type the operator does not take is a
/// malformed plan.
pub fn binary(op: BinaryOp, ty: Scalar, a: u64, b: u64) -> Result<u64, RunError> {
    irgc_scalar::binary(op, ty, a, b).map_err(|e| RunError::plan(format!("the artifact's plan is malformed: {e}")))
}

/// `op a` for an operand of type `ty`.
pub fn unary(op: UnaryOp, ty: Scalar, a: u64) -> u64 {
    irgc_scalar::unary(op, ty, a)
}

/// Converts a value of type `from` to type `to`.
pub fn cast(from: Scalar, to: Scalar, bits: u64) -> u64 {
    irgc_scalar::cast(from, to, bits)
}

/// A built-in function; `ty` is the result type, `args` the operands with their types.
pub fn math(f: MathFn, ty: Scalar, args: &[(Scalar, u64)]) -> Result<u64, RunError> {
    irgc_scalar::math(f, ty, args).map_err(|e| RunError::plan(format!("the artifact's plan is malformed: {e}")))
}

/// What an expression can read besides its operands. The plan interpreter implements it over live memory; the
/// evaluation of array dimensions and check sources before the plan runs implements it over params only.
pub trait Env {
    fn local(&self, i: usize) -> Result<u64, RunError>;
    fn param(&self, p: usize) -> Result<u64, RunError>;
    fn num_nodes(&self) -> u64;
    fn num_edges(&self) -> u64;
    fn worklist_size(&self, w: usize) -> Result<u64, RunError>;
    /// `device_threads()`: [`Device::parallel_threads`](crate::Device::parallel_threads) of the run's device.
    fn device_threads(&self) -> Result<u64, RunError>;
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
        HostExprKind::DeviceThreads => env.device_threads()?,
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

    fn device_threads(&self) -> Result<u64, RunError> {
        Err(RunError::plan("device_threads() is used outside the plan (in an array size or a check's source)"))
    }

    fn load(&self, _: usize, _: &[u64]) -> Result<u64, RunError> {
        Err(RunError::plan("an array element is read outside the plan (in an array size or a check's source)"))
    }
}
