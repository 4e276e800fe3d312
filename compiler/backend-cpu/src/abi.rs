//! The kernel context as generated code sees it: a table of `u64` slots (see `irgc_artifact`'s kernel ABI), read
//! with plain loads since the runtime fills it before a launch and nobody writes it during one.

use crate::types;
use cranelift_codegen::ir::{types as t, InstBuilder, MemFlagsData, Value};
use cranelift_frontend::FunctionBuilder;
use irgc_artifact::Layout;
use irgc_front::ir::Scalar;

/// Flags for every access the generated code makes: aligned (the ABI requires naturally aligned buffers) and
/// not trapping (a fault would be a runtime bug, not a program error to recover from).
pub(crate) fn flags() -> MemFlagsData {
    MemFlagsData::trusted()
}

/// Slot `i` of the context, as an `i64`. The load is marked read-only and movable: the context does not change
/// during a launch and is always mapped, so Cranelift may merge repeated reads and hoist them out of loops (an
/// array's base pointer is then read once per launch, not once per element).
pub(crate) fn slot(b: &mut FunctionBuilder, ctx: Value, i: usize) -> Value {
    b.ins().load(t::I64, flags().with_readonly().with_can_move(), ctx, (i * 8) as i32)
}

/// The value of a param or kernel-argument slot, as a value of type `s`.
pub(crate) fn scalar_slot(b: &mut FunctionBuilder, ctx: Value, i: usize, s: Scalar) -> Value {
    let bits = slot(b, ctx, i);
    types::from_bits(b, s, bits)
}

/// `base + index * size`: the address of element `index` (an `i64`) of an array of `s`.
pub(crate) fn element(b: &mut FunctionBuilder, base: Value, index: Value, s: Scalar) -> Value {
    let off = b.ins().imul_imm_s(index, types::size(s));
    b.ins().iadd(base, off)
}

/// Reads `row_start[v]` for `v` a node (`i32`) plus `extra` (0 or 1): an edge id.
pub(crate) fn row_start(b: &mut FunctionBuilder, ctx: Value, v: Value, extra: i64) -> Value {
    let base = slot(b, ctx, Layout::ROW_START);
    let mut i = b.ins().uextend(t::I64, v);
    if extra != 0 {
        i = b.ins().iadd_imm_s(i, extra);
    }
    let addr = element(b, base, i, Scalar::Edge);
    b.ins().load(t::I64, flags(), addr, 0)
}
