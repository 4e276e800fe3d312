//! Loops that stop once their result cannot change (`DeviceOp::ForAll`'s `stops`, the `np` pass's decision): a
//! read-only loop that combines only `bool`s by `||` and `&&` may stop when each flag holds its absorbing value.
//!
//! A thread's own share of a `warp` or `block` loop ([`Lower::until_saturated`]) runs four iterations a turn, no
//! test between them, so their loads are in flight together, and stops after the turn that saturates. Where a warp
//! or the block shares one owner's range, the range runs to its end: a form in which every helper ran the same
//! number of turns and they voted after each (`vote.any`, `barrier.red.or`) was tried and measured (H200, 2026-11-28)
//! and lost — `bfs_do` kron22 1.356 → 1.343 ms, `jp_ldf` kron22 179.7 → 208.2 (its 256-colour windows never fill,
//! so it paid the turns' predication and votes for nothing) — so it is not built.
//!
//! Measured with `bfs_do`'s bottom-up test (docs/optimizer.md, "Saturating loops stop early").

use crate::lower::Lower;
use crate::nested::NestedLoop;
use crate::types;
use crate::PtxError;
use inkwell::values::IntValue;
use inkwell::IntPredicate;
use irgc_front::ir::Combined;

/// Iterations a turn (each thread's) between two saturation tests.
const SATURATION_TURN: u32 = 4;

impl<'c> Lower<'c, '_> {
    /// This thread's iterations `0..n` of a loop marked `stops`: `SATURATION_TURN`
    /// iterations a turn (their loads in flight together, as in an unrolled loop), stopping after the first turn
    /// that leaves every combined local at its absorbing value; what is left of the last turn runs one at a time.
    pub(crate) fn until_saturated(
        &mut self,
        lp: &NestedLoop<'_>,
        start: IntValue<'c>,
        n: IntValue<'c>,
    ) -> Result<(), PtxError> {
        let i64t = self.c.i64_type();
        self.turns(lp, (start, i64t.const_zero(), n, i64t.const_int(1, false)), SATURATION_TURN, true)
    }

    /// Whether every combined local holds its operator's absorbing value, so no further iteration can change it.
    pub(crate) fn saturated(&mut self, combine: &[Combined]) -> Result<IntValue<'c>, PtxError> {
        let mut all = self.c.bool_type().const_all_ones();
        for c in combine {
            let ty = self.scalar_of(c.local)?;
            let Some(bits) = c.op.absorbing_bits(ty) else {
                return self
                    .malformed("a saturation test of a local combined by an operator without an absorbing value");
            };
            let absorbing = types::constant(self.c, ty, bits).into_int_value();
            let v = self.read_local(c.local)?.into_int_value();
            let eq = self.b.build_int_compare(IntPredicate::EQ, v, absorbing, "")?;
            all = self.b.build_and(all, eq, "")?;
        }
        Ok(all)
    }
}
