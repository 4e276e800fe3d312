//! Which statements a body of one place may hold. Sema lowers device bodies (kernels, functions) and the plan with
//! one walk over the AST, while the IR keeps their statements apart by type ([`DeviceOp`] / [`PlanOp`]): the
//! lowerer is generic over [`Place`], and an operation that does not belong to the body's place becomes a
//! diagnostic here instead of a statement.

use crate::ir::{Block, DeviceBlock, DeviceOp, PlanBlock, PlanOp};

/// The operation type of a place: [`DeviceOp`] for kernels and functions, [`PlanOp`] for the plan.
pub(crate) trait Place: Sized {
    /// `op` as an operation of this place, or `None` if only device code has it.
    fn device(op: DeviceOp) -> Option<Self>;
    /// `op` as an operation of this place, or `None` if only the plan has it.
    fn plan(op: PlanOp) -> Option<Self>;
    /// Whether this operation leaves a function (`return`).
    fn is_return(&self) -> bool;
    /// A block of this place as the body of a device operation (a `forall`); empty where that operation cannot
    /// stand, and [`Place::device`] then refuses the operation itself.
    fn device_block(b: Block<Self>) -> DeviceBlock;
    /// A block of this place as the body of a plan operation (a `pipe`); empty in device code, likewise.
    fn plan_block(b: Block<Self>) -> PlanBlock;
}

impl Place for DeviceOp {
    fn device(op: DeviceOp) -> Option<Self> {
        Some(op)
    }

    fn plan(_: PlanOp) -> Option<Self> {
        None
    }

    fn is_return(&self) -> bool {
        matches!(self, DeviceOp::Return(_))
    }

    fn device_block(b: Block<Self>) -> DeviceBlock {
        b
    }

    fn plan_block(_: Block<Self>) -> PlanBlock {
        Vec::new()
    }
}

impl Place for PlanOp {
    fn device(_: DeviceOp) -> Option<Self> {
        None
    }

    fn plan(op: PlanOp) -> Option<Self> {
        Some(op)
    }

    fn is_return(&self) -> bool {
        false
    }

    fn device_block(_: Block<Self>) -> DeviceBlock {
        Vec::new()
    }

    fn plan_block(b: Block<Self>) -> PlanBlock {
        b
    }
}
