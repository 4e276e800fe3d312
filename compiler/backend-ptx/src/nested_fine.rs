//! The fine-grained level of a `block` loop (Merrill, Garland and Grimshaw, PPoPP 2012: "scan-based gathering"):
//! after the block and warp levels, the ranges left to their threads (fewer than 32 iterations each) are dealt
//! out iteration by iteration over every thread of the block, so that a warp whose lanes hold 1 and 31 iterations
//! no longer runs 31 turns with most lanes idle.
//!
//! # Protocol (every thread of the block runs it)
//! 1. A block-wide exclusive prefix sum of the lengths left (`shfl.up` within each warp, the warps' totals through
//!    shared memory) gives each thread its ranks `[off, off + n)` and the block its `total`; each thread publishes
//!    its live-ins in its shared slot and gives its range up.
//! 2. The ranks are taken `ntid` at a time: each thread writes, for its ranks in the window, the iteration and its
//!    own index into the window's shared slots; a barrier; thread `t` runs the iteration in slot `t` (if any) with
//!    its owner's live-ins in place of its own; a barrier before the window is reused.
//!
//! Only for loops without combined locals (a helper's partial result would need a combine per iteration into
//! its owner's slot); those keep their short ranges in their threads.

use crate::lower::Lower;
use crate::nested::{NestedLoop, BLOCK, WARP};
use crate::PtxError;
use inkwell::values::{IntValue, PointerValue};
use inkwell::IntPredicate;
use irgc_front::ir::Scalar;

/// Ranges this long or longer stay with their threads (the warp level leaves some when its threshold is above 32,
/// and such lanes are balanced among themselves); it also bounds the prefix sums to 32 bits.
const FINE_MAX: u64 = WARP;

impl<'c> Lower<'c, '_> {
    /// Steps 1–2 of the module docs for loop `lp`, whose range in this thread is `*s_own`, `*n_own` (emptied when
    /// dealt out).
    pub(crate) fn fine_level(
        &mut self,
        lp: &NestedLoop<'_>,
        s_own: PointerValue<'c>,
        n_own: PointerValue<'c>,
    ) -> Result<(), PtxError> {
        let (i32t, i64t) = (self.c.i32_type(), self.c.i64_type());
        let k = |v: u64| i64t.const_int(v, false);
        let tid = self.sreg("tid")?;
        let ntid = self.sreg("ntid")?;
        let n = self.b.build_load(i64t, n_own, "")?.into_int_value();
        let short = self.b.build_int_compare(IntPredicate::ULT, n, k(FINE_MAX), "")?;
        let mine = self.b.build_select(short, n, k(0), "fine_n")?.into_int_value();
        let (off, total) = self.block_scan(self.b.build_int_truncate(mine, i32t, "")?)?;
        let (off, total) = (self.b.build_int_z_extend(off, i64t, "")?, self.b.build_int_z_extend(total, i64t, "")?);
        let any = self.b.build_int_compare(IntPredicate::NE, total, k(0), "")?;
        let live = self.live_ins(lp);
        let saved = self.save(&live)?;
        let sh_live: Vec<PointerValue<'c>> = (0..live.len())
            .map(|k| self.pooled_slots(Scalar::U64, BLOCK, "np.fine.live", k))
            .collect::<Result<_, _>>()?;
        let sh_iter = self.pooled_slots(Scalar::U64, BLOCK, "np.fine.iter", 0)?;
        let sh_owner = self.pooled_slots(Scalar::U32, BLOCK, "np.fine.owner", 0)?;
        let start = self.b.build_load(i64t, s_own, "")?.into_int_value();
        self.if_then(any, |me| {
            for ((&l, &(_, v)), &sh) in live.iter().zip(&saved).zip(&sh_live) {
                let bits = me.local_bits(l, v)?;
                me.store_slot(sh, tid, Scalar::U64, bits.into())?;
            }
            me.if_then(short, |me| {
                me.b.build_store(n_own, k(0))?;
                Ok(())
            })?;
            let end = me.b.build_int_add(off, mine, "")?;
            let tid32 = me.b.build_int_truncate(tid, i32t, "")?;
            me.counted_loop(k(0), total, ntid, false, false, |me, base| {
                // This thread's ranks in the window [base, base + ntid).
                let top = me.b.build_int_add(base, ntid, "")?;
                let lo = me.umax(off, base)?;
                let hi = me.umin(end, top)?;
                me.counted_loop(lo, hi, k(1), false, false, |me, r| {
                    let slot = me.b.build_int_sub(r, base, "")?;
                    let rel = me.b.build_int_sub(r, off, "")?;
                    let it = me.b.build_int_add(start, rel, "")?;
                    me.store_slot(sh_iter, slot, Scalar::U64, it.into())?;
                    me.store_slot(sh_owner, slot, Scalar::U32, tid32.into())
                })?;
                me.block_barrier()?;
                let taken = me.b.build_int_add(base, tid, "")?;
                let has = me.b.build_int_compare(IntPredicate::ULT, taken, total, "")?;
                me.if_then(has, |me| {
                    let it = me.load_slot(sh_iter, tid, Scalar::U64)?.into_int_value();
                    let o = me.load_slot(sh_owner, tid, Scalar::U32)?.into_int_value();
                    let o = me.b.build_int_z_extend(o, i64t, "")?;
                    for (&l, &sh) in live.iter().zip(&sh_live) {
                        let bits = me.load_slot(sh, o, Scalar::U64)?.into_int_value();
                        let v = me.bits_local(l, bits)?;
                        me.write_local(l, v)?;
                    }
                    let ty = me.scalar_of(lp.var)?;
                    let v = me.narrow_i64(ty, it)?;
                    me.write_local(lp.var, v)?;
                    me.nested_foralls += 1;
                    let r = me.block_of(lp.body);
                    me.nested_foralls -= 1;
                    r
                })?;
                // The window's slots are rewritten next turn, and the owners read what the helpers wrote after
                // the loop.
                me.block_barrier()
            })?;
            me.restore(&saved)
        })
    }

    /// The block-wide exclusive prefix sum of `v` (an `i32`; every thread of the block calls it) and the block's
    /// total: an inclusive `shfl.up` scan in each warp, the warps' totals through shared memory.
    fn block_scan(&mut self, v: IntValue<'c>) -> Result<(IntValue<'c>, IntValue<'c>), PtxError> {
        let (i32t, i64t) = (self.c.i32_type(), self.c.i64_type());
        self.converge_warp()?;
        let full = i32t.const_all_ones();
        let lane = self.call_intrinsic("llvm.nvvm.read.ptx.sreg.laneid", i32t.into(), &[])?.into_int_value();
        let mut acc = v;
        for d in [1u64, 2, 4, 8, 16] {
            let delta = i32t.const_int(d, false);
            let args = [full.into(), acc.into(), delta.into(), i32t.const_zero().into()];
            let got = self.call_intrinsic("llvm.nvvm.shfl.sync.up.i32", i32t.into(), &args)?.into_int_value();
            let from_below = self.b.build_int_compare(IntPredicate::UGE, lane, delta, "")?;
            let add = self.b.build_select(from_below, got, i32t.const_zero(), "")?.into_int_value();
            acc = self.b.build_int_add(acc, add, "")?;
        }
        let sums = self.pooled_slots(Scalar::U32, BLOCK / WARP as u32, "np.fine.warps", 0)?;
        let tid = self.sreg("tid")?;
        let warp = self.b.build_right_shift(tid, i64t.const_int(5, false), false, "")?;
        let last = self.b.build_int_compare(IntPredicate::EQ, lane, i32t.const_int(WARP - 1, false), "")?;
        self.if_then(last, |me| me.store_slot(sums, warp, Scalar::U32, acc.into()))?;
        self.block_barrier()?;
        let (before, total) = (self.alloca(i32t.into(), "scan_before")?, self.alloca(i32t.into(), "scan_total")?);
        self.b.build_store(before, i32t.const_zero())?;
        self.b.build_store(total, i32t.const_zero())?;
        let ntid = self.sreg("ntid")?;
        let warps = self.b.build_int_add(ntid, i64t.const_int(WARP - 1, false), "")?;
        let warps = self.b.build_right_shift(warps, i64t.const_int(5, false), false, "")?;
        self.counted_loop(i64t.const_zero(), warps, i64t.const_int(1, false), false, false, |me, w| {
            let s = me.load_slot(sums, w, Scalar::U32)?.into_int_value();
            let t = me.b.build_load(i32t, total, "")?.into_int_value();
            me.b.build_store(total, me.b.build_int_add(t, s, "")?)?;
            let below = me.b.build_int_compare(IntPredicate::ULT, w, warp, "")?;
            me.if_then(below, |me| {
                let b = me.b.build_load(i32t, before, "")?.into_int_value();
                me.b.build_store(before, me.b.build_int_add(b, s, "")?)?;
                Ok(())
            })
        })?;
        // The warps' totals are read by everyone before a later scan may overwrite them.
        self.block_barrier()?;
        let b = self.b.build_load(i32t, before, "")?.into_int_value();
        let excl = self.b.build_int_sub(acc, v, "")?;
        let excl = self.b.build_int_add(excl, b, "fine_off")?;
        let total = self.b.build_load(i32t, total, "fine_total")?.into_int_value();
        Ok((excl, total))
    }

    fn umax(&self, a: IntValue<'c>, b: IntValue<'c>) -> Result<IntValue<'c>, PtxError> {
        let gt = self.b.build_int_compare(IntPredicate::UGT, a, b, "")?;
        Ok(self.b.build_select(gt, a, b, "")?.into_int_value())
    }

    fn umin(&self, a: IntValue<'c>, b: IntValue<'c>) -> Result<IntValue<'c>, PtxError> {
        let lt = self.b.build_int_compare(IntPredicate::ULT, a, b, "")?;
        Ok(self.b.build_select(lt, a, b, "")?.into_int_value())
    }
}
