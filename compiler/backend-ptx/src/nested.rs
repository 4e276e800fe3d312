//! Nested parallel loops (`forall` inside a sweep or a device function) run by the schedule the `np` pass chose
//! ([`Schedule`]): one thread per range (`thread`), the warp's lanes helping each other (`warp`), or Merrill et
//! al.'s block / warp / thread levels at a point the whole block reaches (`block`).
//!
//! # What a helper needs
//! A thread that runs iterations of another thread's range (its *owner*'s) needs the owner's range start and the
//! owner's values of the loop's *live-ins* (locals the body reads but does not write). It takes them, overwrites
//! its own copies for the duration, and restores its own afterwards. The body's *combined* locals (`x = x op v`)
//! start from the operator's identity in each helper; what a helper computed for an owner is combined into the
//! owner's value: through `shfl` in the warp schedule, through a shared-memory atomic on the owner's slot in the
//! block schedule. A range's start is published as an `i64` and the loop variable is `narrow(start + j)`.
//! The moving and combining of those values is `crate::nested_values`.
//!
//! # `block`: the sweep's body under a predicate
//! A block-wide barrier needs every thread of the block, so a kernel whose sweep has a `block` loop runs its
//! grid-stride loop the same number of times in every thread of a block (`valid = i < size` instead of leaving),
//! and lowers the sweep's body *predicated*: statements on the path to the loop (only `if`s, by the validator's
//! rule) run under `valid && conditions`, and the loop itself runs in every thread, an inactive thread with an
//! empty range. Per round of the block level, threads with a range of at least the block size race to name
//! themselves owner in a shared word (two words, alternating, so that resetting one needs no third barrier); the
//! whole block strides over the owner's range. Then each warp does the same for ranges of 32 or more (owners
//! found with `ballot`). What is left (fewer than 32 iterations) runs in its own thread. In a dealt round of an
//! outlined step, the grid level ([`crate::grid`]) comes first.
//!
//! # Unrolled strides
//! Where several threads stride over one range (warp, block and grid levels), a loop the `unroll` pass marked runs
//! that many iterations a turn while they fit ([`Lower::stride`]); a thread's own remainder runs one at a time,
//! or `interleave` at once where the `interleave` pass said so (`crate::interleave`).

use crate::lower::{Form, Lower};
use crate::nested_values::slot_type;
use crate::types;
use crate::PtxError;
use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::values::{BasicValueEnum, IntValue, PointerValue};
use inkwell::{AtomicOrdering, AtomicRMWBinOp, IntPredicate};
use irgc_front::ir::{
    Combined, DeviceBlock, DeviceOp, DeviceStmt, Handle, Local, Module, Scalar, Schedule, Space, StmtKind,
};
use std::collections::BTreeSet;

/// The block size the shared arrays of a `block` loop are laid out for: every `forall` kernel and outlined pipe
/// runs with at most this many threads (their `.maxntid`).
pub(crate) const BLOCK: u32 = crate::FORALL_MAX_THREADS;
/// A warp.
pub(crate) const WARP: u64 = 32;
/// "No owner" in the block level's owner words.
const NONE: u64 = u32::MAX as u64;

/// A nested loop as the schedules need it.
pub(crate) struct NestedLoop<'a> {
    pub var: Handle<Local>,
    pub space: &'a Space,
    pub body: &'a DeviceBlock,
    pub combine: &'a [Combined],
    /// Iterations per turn in the strides several threads share (the `unroll` pass's decision).
    pub unroll: u32,
    /// Iterations a thread runs at once in the range it keeps (the `interleave` pass's decision).
    pub interleave: u32,
    /// Whether the short ranges are dealt out over the block ([`Schedule::Fine`], `crate::nested_fine`).
    pub fine: bool,
    /// Whether a thread's own iterations stop once the combined locals saturate (the `np` pass's decision,
    /// `crate::nested_saturate`).
    pub stops: bool,
}

/// Whether a loop body may write memory: a store, an atomic, a push, or a call (whose callee may).
fn writes_memory(block: &DeviceBlock) -> bool {
    let mut any = false;
    for s in block {
        s.visit(&mut |s| {
            any |= matches!(&s.kind, StmtKind::Op(op) if op.writes_memory() || matches!(op, DeviceOp::Call { .. }))
        });
    }
    any
}

/// Per device function of `m`: whether its body, or a function it calls (transitively), holds a nested loop with
/// a schedule other than `thread`. Those, and the kernels and pipes that reach them, get a flat entry as well.
pub(crate) fn scheduled_functions(m: &Module) -> Vec<bool> {
    functions_holding(m, is_scheduled)
}

/// Whether `block` holds a scheduled nested loop, directly or through a call (`fns`: [`scheduled_functions`]).
pub(crate) fn holds_schedule(block: &DeviceBlock, fns: &[bool]) -> bool {
    holds(block, fns, is_scheduled)
}

/// Per device function of `m`: whether its body, or a function it calls (transitively), holds a loop the `unroll`
/// pass unrolled. The kernels that reach one get a rolled entry as well, which calls these functions lowered
/// again one iteration a turn.
pub(crate) fn unrolled_functions(m: &Module) -> Vec<bool> {
    functions_holding(m, is_unrolled)
}

/// Whether `block` holds an unrolled loop, directly or through a call (`fns`: [`unrolled_functions`]).
pub(crate) fn holds_unrolled(block: &DeviceBlock, fns: &[bool]) -> bool {
    holds(block, fns, is_unrolled)
}

fn is_scheduled(op: &DeviceOp) -> bool {
    matches!(op, DeviceOp::ForAll { schedule, .. } if *schedule != Schedule::Thread)
}

fn is_unrolled(op: &DeviceOp) -> bool {
    matches!(op, DeviceOp::ForAll { unroll, .. } if *unroll > 1)
}

/// Per device function of `m`: whether its body, or a function it calls (transitively), holds an op `wanted`
/// picks. A fixpoint over the call graph (it is small, and calls may form cycles the validator reports elsewhere).
fn functions_holding(m: &Module, wanted: fn(&DeviceOp) -> bool) -> Vec<bool> {
    let mut out = vec![false; m.functions.len()];
    loop {
        let mut changed = false;
        for (h, f) in m.functions.iter() {
            if !out[h.index()] && holds(&f.body.block, &out, wanted) {
                out[h.index()] = true;
                changed = true;
            }
        }
        if !changed {
            return out;
        }
    }
}

/// Whether `block` holds an op `wanted` picks, directly or through a call of a function `fns` marks.
fn holds(block: &DeviceBlock, fns: &[bool], wanted: fn(&DeviceOp) -> bool) -> bool {
    let mut found = false;
    for s in block {
        s.visit(&mut |s| match &s.kind {
            StmtKind::Op(DeviceOp::Call { function, .. }) if fns.get(function.index()) == Some(&true) => found = true,
            StmtKind::Op(op) if wanted(op) => found = true,
            _ => {}
        });
    }
    found
}

impl<'c> Lower<'c, '_> {
    /// The sweep body of a kernel with `block` loops, run by every thread of the block; `pred` (an `i1` alloca)
    /// says whether this thread's iteration is real and reached this point.
    pub(crate) fn predicated_block(&mut self, stmts: &[DeviceStmt], pred: PointerValue<'c>) -> Result<(), PtxError> {
        let bool_t = self.c.bool_type();
        for s in stmts {
            if !s.holds_block_loop() {
                let p = self.b.build_load(bool_t, pred, "pred")?.into_int_value();
                self.if_then(p, |me| me.stmt(s))?;
                continue;
            }
            match &s.kind {
                StmtKind::If { cond, then, otherwise } => {
                    let (pt, po) = self.split_pred(pred, *cond)?;
                    self.predicated_block(then, pt)?;
                    self.predicated_block(otherwise, po)?;
                }
                StmtKind::Op(op) => match self.nested_loop(op) {
                    Some(lp) => self.block_loop(&lp, pred)?,
                    None => return self.malformed("a block-scheduled loop that is not a one-variable `forall`"),
                },
                _ => return self.malformed("a block-scheduled loop under a statement other than `if`"),
            }
        }
        Ok(())
    }

    /// The predicates of an `if`'s branches under predicate `pred` (allocas): `pred && cond` and `pred && !cond`,
    /// `cond` evaluated only where `pred` holds.
    pub(crate) fn split_pred(
        &mut self,
        pred: PointerValue<'c>,
        cond: Handle<irgc_front::ir::Expr>,
    ) -> Result<(PointerValue<'c>, PointerValue<'c>), PtxError> {
        let bool_t = self.c.bool_type();
        let p = self.b.build_load(bool_t, pred, "pred")?.into_int_value();
        let c = self.alloca(bool_t.into(), "cond")?;
        self.b.build_store(c, bool_t.const_zero())?;
        self.if_then(p, |me| {
            let v = me.expr(cond)?;
            let v = me.int(v)?;
            me.b.build_store(c, v)?;
            Ok(())
        })?;
        let cv = self.b.build_load(bool_t, c, "")?.into_int_value();
        let (pt, po) = (self.alloca(bool_t.into(), "pthen")?, self.alloca(bool_t.into(), "pelse")?);
        let t = self.b.build_and(p, cv, "")?;
        self.b.build_store(pt, t)?;
        let not_c = self.b.build_not(cv, "")?;
        let o = self.b.build_and(p, not_c, "")?;
        self.b.build_store(po, o)?;
        Ok((pt, po))
    }

    /// The loop of a one-variable nested `forall` as this form runs it (`None` for any other operation).
    pub(crate) fn nested_loop<'a>(&self, op: &'a DeviceOp) -> Option<NestedLoop<'a>> {
        match op {
            DeviceOp::ForAll { vars, space, body, combine, unroll, interleave, schedule, stops } if vars.len() == 1 => {
                Some(NestedLoop {
                    var: vars[0],
                    space,
                    body,
                    combine,
                    unroll: self.unroll_of(*unroll),
                    interleave: *interleave,
                    fine: *schedule == Schedule::Fine,
                    stops: *stops,
                })
            }
            _ => None,
        }
    }

    /// This thread's range of `lp` in two allocas (start, length), empty where `p` is off.
    fn predicated_range(
        &mut self,
        lp: &NestedLoop<'_>,
        p: IntValue<'c>,
    ) -> Result<(PointerValue<'c>, PointerValue<'c>), PtxError> {
        let i64t = self.c.i64_type();
        let (s_own, n_own) = (self.alloca(i64t.into(), "np_s")?, self.alloca(i64t.into(), "np_n")?);
        self.b.build_store(s_own, i64t.const_zero())?;
        self.b.build_store(n_own, i64t.const_zero())?;
        self.if_then(p, |me| {
            let (s, n) = me.range_of(lp.space)?;
            me.b.build_store(s_own, s)?;
            me.b.build_store(n_own, n)?;
            Ok(())
        })?;
        Ok((s_own, n_own))
    }

    /// A nested `forall` scheduled `warp`, or in its thread when its space is not a range.
    pub(crate) fn warp_loop(&mut self, lp: &NestedLoop<'_>) -> Result<(), PtxError> {
        let (i32t, i64t) = (self.c.i32_type(), self.c.i64_type());
        let (start, n) = self.range_of(lp.space)?;
        let n_own = self.alloca(i64t.into(), "np_n")?;
        self.b.build_store(n_own, n)?;
        let mask = self.call_intrinsic("llvm.nvvm.activemask", i32t.into(), &[])?.into_int_value();
        self.warp_loop_over(lp, start, n_own, mask)
    }

    /// A `warp` loop that every lane of the warp reaches (a predicated item of a waiting sweep,
    /// `crate::waiting`): a lane where `p` is off brings an empty range, and helps the others.
    pub(crate) fn warp_loop_all(&mut self, lp: &NestedLoop<'_>, p: IntValue<'c>) -> Result<(), PtxError> {
        let (i32t, i64t) = (self.c.i32_type(), self.c.i64_type());
        let (s_own, n_own) = self.predicated_range(lp, p)?;
        let all = i32t.const_all_ones();
        self.warp_sync(all)?;
        let start = self.b.build_load(i64t, s_own, "")?.into_int_value();
        self.warp_loop_over(lp, start, n_own, all)
    }

    /// [`Lower::warp_loop`] over this lane's range (`start`, and the length in `n_own`) among the lanes of `mask`.
    fn warp_loop_over(
        &mut self,
        lp: &NestedLoop<'_>,
        start: IntValue<'c>,
        n_own: PointerValue<'c>,
        mask: IntValue<'c>,
    ) -> Result<(), PtxError> {
        let (i32t, i64t) = (self.c.i32_type(), self.c.i64_type());
        let live = self.live_ins(lp);
        let saved = self.save(&live)?;
        let saved_comb = self.save(&lp.combine.iter().map(|c| c.local).collect::<Vec<_>>())?;
        // What the helpers computed for this lane as an owner.
        let mut acc = Vec::new();
        for c in lp.combine {
            let ty = self.scalar_of(c.local)?;
            let a = self.alloca(types::reg(self.c, ty), "np_acc")?;
            self.b.build_store(a, self.identity(c.op, ty))?;
            acc.push(a);
        }
        let int = |v: BasicValueEnum<'c>| v.into_int_value();
        let lane = int(self.call_intrinsic("llvm.nvvm.read.ptx.sreg.laneid", i32t.into(), &[])?);
        let below = int(self.call_intrinsic("llvm.nvvm.read.ptx.sreg.lanemask.lt", i32t.into(), &[])?);
        let before = self.b.build_and(mask, below, "")?;
        let rank = int(self.call_intrinsic("llvm.ctpop.i32", i32t.into(), &[before.into()])?);
        let count = int(self.call_intrinsic("llvm.ctpop.i32", i32t.into(), &[mask.into()])?);
        let (rank, count) = (self.b.build_int_z_extend(rank, i64t, "")?, self.b.build_int_z_extend(count, i64t, "")?);
        // `bar.warp.sync` orders memory among the lanes it joins (`ballot`/`shfl` do not): what an owner stored
        // before the loop is seen by its helpers, and what they stored or updated atomically (an append's slots,
        // a bitmap) is seen by the owner after it. Loops that only read need neither.
        let writes = writes_memory(lp.body);
        if writes {
            self.warp_sync(mask)?;
        }
        self.warp_rounds(mask, lane, n_own, |me, o, is_owner| {
            let os = me.shfl(mask, start, o)?;
            let n = me.b.build_load(i64t, n_own, "")?.into_int_value();
            let on = me.shfl(mask, n, o)?;
            for (&l, &(_, v)) in live.iter().zip(&saved) {
                let bits = me.local_bits(l, v)?;
                let got = me.shfl(mask, bits, o)?;
                let v = me.bits_local(l, got)?;
                me.write_local(l, v)?;
            }
            me.reset_combined(lp.combine)?;
            me.stride(lp, os, rank, on, count, lp.unroll)?;
            // Every lane combines the lanes' partials (the same steps in every lane), and the owner keeps the
            // total.
            for (c, &a) in lp.combine.iter().zip(&acc) {
                let ty = me.scalar_of(c.local)?;
                let total = me.warp_total(mask, c, ty)?;
                me.if_then(is_owner, |me| {
                    let old = me.b.build_load(types::reg(me.c, ty), a, "")?;
                    let new = me.combine_values(c.op, ty, old, total)?;
                    me.b.build_store(a, new)?;
                    Ok(())
                })?;
            }
            Ok(())
        })?;
        if writes {
            self.warp_sync(mask)?;
        }
        self.restore(&saved)?;
        for ((c, &(_, own)), &a) in lp.combine.iter().zip(&saved_comb).zip(&acc) {
            let ty = self.scalar_of(c.local)?;
            let got = self.b.build_load(types::reg(self.c, ty), a, "")?;
            let v = self.combine_values(c.op, ty, own, got)?;
            self.write_local(c.local, v)?;
        }
        let n = self.b.build_load(i64t, n_own, "")?.into_int_value();
        self.own_range(lp, start, n)
    }

    /// A nested `forall` scheduled `block` (see the module docs), run by every thread of the block; `pred` says
    /// whether this thread has a range.
    fn block_loop(&mut self, lp: &NestedLoop<'_>, pred: PointerValue<'c>) -> Result<(), PtxError> {
        let (i32t, i64t, bool_t) = (self.c.i32_type(), self.c.i64_type(), self.c.bool_type());
        // This thread's range (empty without `pred`), published with its live-ins.
        let p = self.b.build_load(bool_t, pred, "")?.into_int_value();
        let (s_own, n_own) = self.predicated_range(lp, p)?;
        if self.grid_share && lp.combine.is_empty() {
            self.grid_level(lp, s_own, n_own)?;
        }
        // Only if some range is long enough to share (one `bar.red.or`; on graphs of small degrees that is all).
        let own_n = self.b.build_load(i64t, n_own, "")?.into_int_value();
        let long = self.b.build_int_compare(IntPredicate::UGE, own_n, i64t.const_int(WARP, false), "")?;
        let long = self.b.build_int_z_extend(long, i32t, "")?;
        let any = self.block_any(long)?;
        let any = self.b.build_int_compare(IntPredicate::NE, any, i32t.const_zero(), "")?;
        self.if_then(any, |me| me.block_help(lp, s_own, n_own))?;
        if lp.fine {
            match self.fine_gate {
                Some(gate) => self.if_then(gate, |me| me.fine_level(lp, s_own, n_own))?,
                None => self.fine_level(lp, s_own, n_own)?,
            }
        }
        // What is left (fewer than 32 iterations, or nothing) runs in this thread.
        let s = self.b.build_load(i64t, s_own, "")?.into_int_value();
        let n = self.b.build_load(i64t, n_own, "")?.into_int_value();
        self.own_range(lp, s, n)
    }

    /// Runs the `n` iterations of the range starting at `start` that this thread keeps: interleaved where the
    /// `interleave` pass said so, four a turn until the combined locals saturate where the loop allows that
    /// (`crate::nested_saturate`), else one after another.
    fn own_range(&mut self, lp: &NestedLoop<'_>, start: IntValue<'c>, n: IntValue<'c>) -> Result<(), PtxError> {
        let i64t = self.c.i64_type();
        if lp.interleave <= 1 && lp.stops {
            return self.until_saturated(lp, start, n);
        }
        if lp.interleave <= 1 {
            return self.stride(lp, start, i64t.const_zero(), n, i64t.const_int(1, false), 1);
        }
        let ty = self.scalar_of(lp.var)?;
        let bind = |me: &mut Self, j: IntValue<'c>| {
            let i = me.b.build_int_add(start, j, "")?;
            let v = me.narrow_i64(ty, i)?;
            me.write_local(lp.var, v)
        };
        self.interleaved(lp.var, lp.body, lp.combine, lp.interleave, n, &bind)
    }

    /// The block and warp levels of a `block` loop: this thread's range is `*s_own`, `*n_own` (emptied when the
    /// block or the warp runs it), run by every thread of the block.
    fn block_help(
        &mut self,
        lp: &NestedLoop<'_>,
        s_own: PointerValue<'c>,
        n_own: PointerValue<'c>,
    ) -> Result<(), PtxError> {
        let (i32t, i64t) = (self.c.i32_type(), self.c.i64_type());
        let live = self.live_ins(lp);
        let saved = self.save(&live)?;
        let saved_comb = self.save(&lp.combine.iter().map(|c| c.local).collect::<Vec<_>>())?;
        let tid = self.sreg("tid")?;
        let ntid = self.sreg("ntid")?;
        let sh_s = self.pooled_slots(Scalar::U64, BLOCK, "np.start", 0)?;
        let sh_n = self.pooled_slots(Scalar::U64, BLOCK, "np.len", 0)?;
        let sh_owner = self.pooled_slots(Scalar::U32, 2, "np.owner", 0)?;
        let sh_live: Vec<PointerValue<'c>> =
            (0..live.len()).map(|k| self.pooled_slots(Scalar::U64, BLOCK, "np.live", k)).collect::<Result<_, _>>()?;
        let mut sh_comb = Vec::new();
        for (k, c) in lp.combine.iter().enumerate() {
            let ty = self.scalar_of(c.local)?;
            sh_comb.push(self.pooled_slots(slot_type(ty), BLOCK, "np.comb", k)?);
        }
        let own_s = self.b.build_load(i64t, s_own, "")?.into_int_value();
        let own_n = self.b.build_load(i64t, n_own, "")?.into_int_value();
        self.store_slot(sh_s, tid, Scalar::U64, own_s.into())?;
        self.store_slot(sh_n, tid, Scalar::U64, own_n.into())?;
        for ((&l, &(_, v)), &sh) in live.iter().zip(&saved).zip(&sh_live) {
            let bits = self.local_bits(l, v)?;
            self.store_slot(sh, tid, Scalar::U64, bits.into())?;
        }
        for (c, &sh) in lp.combine.iter().zip(&sh_comb) {
            let ty = self.scalar_of(c.local)?;
            let id = self.identity(c.op, ty);
            let id = self.to_slot(ty, id)?;
            self.store_slot(sh, tid, slot_type(ty), id)?;
        }
        let lane = self.b.build_and(tid, i64t.const_int(WARP - 1, false), "lane")?;
        let first = self.b.build_int_compare(IntPredicate::EQ, tid, i64t.const_zero(), "")?;
        self.if_then(first, |me| {
            for k in 0..2 {
                me.store_slot(sh_owner, i64t.const_int(k, false), Scalar::U32, i32t.const_int(NONE, false).into())?;
            }
            Ok(())
        })?;

        // The block level: is any range as long as the block? (`bar.red.or` is also the barrier that publishes
        // the slots written above.)
        let big = self.b.build_int_compare(IntPredicate::UGE, own_n, ntid, "")?;
        let big = self.b.build_int_z_extend(big, i32t, "")?;
        let any = self.block_any(big)?;
        let any = self.b.build_int_compare(IntPredicate::NE, any, i32t.const_zero(), "")?;
        let parity = self.alloca(i64t.into(), "np_parity")?;
        self.b.build_store(parity, i64t.const_zero())?;
        self.if_then(any, |me| {
            me.owner_rounds(
                |me| {
                    let r = me.b.build_load(i64t, parity, "")?.into_int_value();
                    let n = me.b.build_load(i64t, n_own, "")?.into_int_value();
                    let claim = me.b.build_int_compare(IntPredicate::UGE, n, ntid, "")?;
                    me.if_then(claim, |me| {
                        // Claimants race: the smallest thread index wins (an atomic, not a racing store).
                        let t = me.b.build_int_truncate(tid, i32t, "")?;
                        let at = me.slot_addr_of(sh_owner, r, Scalar::U32)?;
                        me.b.build_atomicrmw(AtomicRMWBinOp::UMin, at, t, AtomicOrdering::Monotonic)?;
                        Ok(())
                    })?;
                    me.block_barrier()?;
                    let o = me.load_slot(sh_owner, r, Scalar::U32)?.into_int_value();
                    // Reset the other word for the next round (nobody reads it in this one).
                    let other = me.b.build_xor(r, i64t.const_int(1, false), "")?;
                    me.if_then(first, |me| {
                        me.store_slot(sh_owner, other, Scalar::U32, i32t.const_int(NONE, false).into())
                    })?;
                    let none = me.b.build_int_compare(IntPredicate::EQ, o, i32t.const_int(NONE, false), "")?;
                    Ok((none, o))
                },
                |me, o| {
                    let o = me.b.build_int_z_extend(o, i64t, "owner")?;
                    me.help(lp, &live, &sh_live, sh_s, sh_n, o, tid, ntid)?;
                    me.combine_warp_into_slots(lp.combine, &sh_comb, o, lane)?;
                    let mine = me.b.build_int_compare(IntPredicate::EQ, tid, o, "")?;
                    me.if_then(mine, |me| {
                        me.b.build_store(n_own, i64t.const_zero())?;
                        Ok(())
                    })?;
                    me.block_barrier()?;
                    let r = me.b.build_load(i64t, parity, "")?.into_int_value();
                    let r = me.b.build_xor(r, i64t.const_int(1, false), "")?;
                    me.b.build_store(parity, r)?;
                    Ok(())
                },
            )
        })?;

        // The warp level: every lane is here (the block is), so the full mask is exact.
        let full = i32t.const_all_ones();
        let warp_base = self.b.build_int_sub(tid, lane, "")?;
        let lane32 = self.b.build_int_truncate(lane, i32t, "")?;
        self.warp_rounds(full, lane32, n_own, |me, o, _| {
            let o = me.b.build_int_z_extend(o, i64t, "")?;
            let owner = me.b.build_int_add(warp_base, o, "owner")?;
            me.help(lp, &live, &sh_live, sh_s, sh_n, owner, lane, i64t.const_int(WARP, false))?;
            me.combine_warp_into_slots(lp.combine, &sh_comb, owner, lane)
        })?;

        // Own values back; the helpers' results for this thread once every helper is done.
        self.restore(&saved)?;
        self.block_barrier()?;
        for ((c, &(_, own)), &sh) in lp.combine.iter().zip(&saved_comb).zip(&sh_comb) {
            let ty = self.scalar_of(c.local)?;
            let got = self.load_slot(sh, tid, slot_type(ty))?;
            let got = self.slot_to_value(ty, got)?;
            let v = self.combine_values(c.op, ty, own, got)?;
            self.write_local(c.local, v)?;
        }
        Ok(())
    }

    /// `barrier.sync 0` for a block loop: the block's threads wait for each other. Its threads may come from
    /// divergent paths (the predicated statements before the loop, the helpers' strides), so this is the
    /// non-`.aligned` form, which is defined for lanes of one warp that arrive apart. The `.aligned` `bar.sync`
    /// is not, and a `bar.warp.sync` before it did not make it safe: compute-sanitizer's synccheck found
    /// "divergent thread(s) in warp" at it (78 errors on a degree count over a Kronecker graph of scale 12, one
    /// H200), and none with this form. The `bar.warp.sync` stays (it reconverges the warp for the `ballot` and
    /// `shfl` that follow; timed with it).
    pub(crate) fn block_barrier(&mut self) -> Result<(), PtxError> {
        self.converge_warp()?;
        let i32t = self.c.i32_type();
        let f = self.intrinsic("llvm.nvvm.barrier.sync", None, &[i32t.into()]);
        self.b.build_call(f, &[i32t.const_zero().into()], "")?;
        Ok(())
    }

    /// `barrier.red.or` of `v` (an `i32`, non-zero for true) over the block, non-`.aligned` as
    /// [`Lower::block_barrier`] is (LLVM has no intrinsic for this form: inline assembly, marked `convergent` so
    /// no transformation makes it depend on more conditions); non-zero when any thread's `v` was.
    fn block_any(&mut self, v: IntValue<'c>) -> Result<IntValue<'c>, PtxError> {
        self.converge_warp()?;
        let asm = "{ .reg .pred p, q; setp.ne.u32 p, $1, 0; barrier.red.or.pred q, 0, p; selp.u32 $0, 1, 0, q; }";
        let call = self.inline_asm(Some(self.c.i32_type()), asm, "=r,r,~{memory}", &[v.into()], "any")?;
        let convergent = Attribute::get_named_enum_kind_id("convergent");
        call.add_attribute(AttributeLoc::Function, self.c.create_enum_attribute(convergent, 0));
        match call.try_as_basic_value().basic() {
            Some(v) => Ok(v.into_int_value()),
            None => Err(PtxError::Llvm("barrier.red.or returned nothing".into())),
        }
    }

    /// `bar.warp.sync mask`: the lanes of `mask` wait for each other, and their memory accesses before it are
    /// ordered before those after it.
    fn warp_sync(&mut self, mask: IntValue<'c>) -> Result<(), PtxError> {
        let i32t = self.c.i32_type();
        let f = self.intrinsic("llvm.nvvm.bar.warp.sync", None, &[i32t.into()]);
        self.b.build_call(f, &[mask.into()], "")?;
        Ok(())
    }

    /// The iterations per turn of a loop the `unroll` pass marked `unroll`: one in a rolled entry.
    pub(crate) fn unroll_of(&self, unroll: u32) -> u32 {
        if self.form == Form::Rolled {
            1
        } else {
            unroll
        }
    }

    /// Reconverges the whole warp (`bar.warp.sync` of every lane).
    pub(crate) fn converge_warp(&mut self) -> Result<(), PtxError> {
        let all = self.c.i32_type().const_all_ones();
        self.warp_sync(all)
    }

    /// The length from which a lane's range is shared with its warp: 32, or twice the mean length over the lanes
    /// of `mask` if that is more. Lanes of similar lengths are faster each on its own (no per-range overhead, all
    /// lanes busy); only outliers are worth a round of the whole warp.
    fn warp_threshold(&mut self, mask: IntValue<'c>, n: IntValue<'c>) -> Result<IntValue<'c>, PtxError> {
        let (i32t, i64t) = (self.c.i32_type(), self.c.i64_type());
        let cap = i64t.const_int(1 << 25, false);
        let small = self.b.build_int_compare(IntPredicate::ULT, n, cap, "")?;
        let clamped = self.b.build_select(small, n, cap, "")?.into_int_value();
        let c = self.b.build_int_truncate(clamped, i32t, "")?;
        let sum = self.call_intrinsic("llvm.nvvm.redux.sync.add", i32t.into(), &[c.into(), mask.into()])?;
        let count = self.call_intrinsic("llvm.ctpop.i32", i32t.into(), &[mask.into()])?;
        let twice = self.b.build_left_shift(sum.into_int_value(), i32t.const_int(1, false), "")?;
        let mean2 = self.b.build_int_unsigned_div(twice, count.into_int_value(), "")?;
        let mean2 = self.b.build_int_z_extend(mean2, i64t, "")?;
        let warp = i64t.const_int(WARP, false);
        let more = self.b.build_int_compare(IntPredicate::UGT, mean2, warp, "")?;
        Ok(self.b.build_select(more, mean2, warp, "threshold")?.into_int_value())
    }

    /// The warp level: while a lane of `mask` has a range of at least [`Lower::warp_threshold`] (found with
    /// `ballot`), every lane runs `help(owner lane, whether this lane is the owner)` for the lowest such lane, whose
    /// range is then done (`*n_own = 0`).
    fn warp_rounds(
        &mut self,
        mask: IntValue<'c>,
        lane: IntValue<'c>,
        n_own: PointerValue<'c>,
        help: impl Fn(&mut Self, IntValue<'c>, IntValue<'c>) -> Result<(), PtxError>,
    ) -> Result<(), PtxError> {
        let (i32t, i64t) = (self.c.i32_type(), self.c.i64_type());
        let n = self.b.build_load(i64t, n_own, "")?.into_int_value();
        let threshold = self.warp_threshold(mask, n)?;
        self.owner_rounds(
            |me| {
                let n = me.b.build_load(i64t, n_own, "")?.into_int_value();
                let big = me.b.build_int_compare(IntPredicate::UGE, n, threshold, "")?;
                let args = [mask.into(), big.into()];
                let want = me.call_intrinsic("llvm.nvvm.vote.ballot.sync", i32t.into(), &args)?.into_int_value();
                let none = me.b.build_int_compare(IntPredicate::EQ, want, i32t.const_zero(), "")?;
                Ok((none, want))
            },
            |me, want| {
                let nonzero = me.c.bool_type().const_all_ones().into();
                let o = me.call_intrinsic("llvm.cttz.i32", i32t.into(), &[want.into(), nonzero])?.into_int_value();
                let is_owner = me.b.build_int_compare(IntPredicate::EQ, lane, o, "owner")?;
                help(me, o, is_owner)?;
                me.if_then(is_owner, |me| {
                    me.b.build_store(n_own, i64t.const_zero())?;
                    Ok(())
                })
            },
        )
    }

    /// Rounds of "find an owner, help it": `find` returns (no owner left, the owner's token) and must give the
    /// same answer in every thread taking part; `help` runs for the owner.
    pub(crate) fn owner_rounds(
        &mut self,
        find: impl Fn(&mut Self) -> Result<(IntValue<'c>, IntValue<'c>), PtxError>,
        help: impl Fn(&mut Self, IntValue<'c>) -> Result<(), PtxError>,
    ) -> Result<(), PtxError> {
        let (head, work, exit) = (self.block("np.round"), self.block("np.help"), self.block("np.done"));
        self.b.build_unconditional_branch(head)?;
        self.b.position_at_end(head);
        let (none, token) = find(self)?;
        self.b.build_conditional_branch(none, exit, work)?;
        self.b.position_at_end(work);
        help(self, token)?;
        self.b.build_unconditional_branch(head)?;
        self.b.position_at_end(exit);
        Ok(())
    }

    /// Runs iterations `first, first + step, ..` below `n` of the range starting at `start`, `unroll` of them a
    /// turn while that many fit (the loads of a read-only body then are in flight together), then one at a time.
    /// No division: a stride may run once per call of a function inside a serial loop.
    pub(crate) fn stride(
        &mut self,
        lp: &NestedLoop<'_>,
        start: IntValue<'c>,
        first: IntValue<'c>,
        n: IntValue<'c>,
        step: IntValue<'c>,
        unroll: u32,
    ) -> Result<(), PtxError> {
        self.turns(lp, (start, first, n, step), unroll, false)
    }

    /// [`Lower::stride`] over `(start, first, n, step)`; with `stop`, the turns also end after the first one that
    /// leaves every combined local at its absorbing value (`crate::nested_saturate`), and nothing after it runs.
    pub(crate) fn turns(
        &mut self,
        lp: &NestedLoop<'_>,
        (start, first, n, step): (IntValue<'c>, IntValue<'c>, IntValue<'c>, IntValue<'c>),
        unroll: u32,
        stop: bool,
    ) -> Result<(), PtxError> {
        let ty = self.scalar_of(lp.var)?;
        self.nested_foralls += 1;
        let one = |me: &mut Self, j: IntValue<'c>| -> Result<(), PtxError> {
            let i = me.b.build_int_add(start, j, "")?;
            let v = me.narrow_i64(ty, i)?;
            me.write_local(lp.var, v)?;
            me.block_of(lp.body)
        };
        let mut from = first;
        if unroll > 1 {
            let i64t = self.c.i64_type();
            let at = self.alloca(i64t.into(), "np_at")?;
            self.b.build_store(at, first)?;
            let (head, turn, rest) = (self.block("np.turn"), self.block("np.turn.body"), self.block("np.rest"));
            self.b.build_unconditional_branch(head)?;
            self.b.position_at_end(head);
            let j = self.b.build_load(i64t, at, "")?.into_int_value();
            let span = self.b.build_int_mul(step, i64t.const_int(u64::from(unroll - 1), false), "")?;
            let last = self.b.build_int_add(j, span, "")?;
            let fits = self.b.build_int_compare(IntPredicate::ULT, last, n, "")?;
            self.b.build_conditional_branch(fits, turn, rest)?;
            self.b.position_at_end(turn);
            let mut k = j;
            for _ in 0..unroll {
                one(self, k)?;
                k = self.b.build_int_add(k, step, "")?;
            }
            self.b.build_store(at, k)?;
            if stop {
                let done = self.saturated(lp.combine)?;
                let stopped = self.block("np.turn.saturated");
                self.b.build_conditional_branch(done, stopped, head)?;
                self.b.position_at_end(stopped);
                self.b.build_store(at, n)?;
                self.b.build_unconditional_branch(rest)?;
            } else {
                self.b.build_unconditional_branch(head)?;
            }
            self.b.position_at_end(rest);
            from = self.b.build_load(i64t, at, "")?.into_int_value();
        }
        let r = self.counted_loop(from, n, step, false, false, one);
        self.nested_foralls -= 1;
        r
    }

    /// Helps owner `o` (a thread index of the block): takes its range and live-ins from the shared slots and
    /// runs iterations `me, me + step, ..` of it, the combined locals starting from their identities.
    #[allow(clippy::too_many_arguments)]
    fn help(
        &mut self,
        lp: &NestedLoop<'_>,
        live: &[Handle<Local>],
        sh_live: &[PointerValue<'c>],
        sh_s: PointerValue<'c>,
        sh_n: PointerValue<'c>,
        o: IntValue<'c>,
        me_index: IntValue<'c>,
        step: IntValue<'c>,
    ) -> Result<(), PtxError> {
        let os = self.load_slot(sh_s, o, Scalar::U64)?.into_int_value();
        let on = self.load_slot(sh_n, o, Scalar::U64)?.into_int_value();
        for (&l, &sh) in live.iter().zip(sh_live) {
            let bits = self.load_slot(sh, o, Scalar::U64)?.into_int_value();
            let v = self.bits_local(l, bits)?;
            self.write_local(l, v)?;
        }
        self.reset_combined(lp.combine)?;
        self.stride(lp, os, me_index, on, step, lp.unroll)
    }

    /// The locals the loop's body reads and does not write (its combined locals and variable excluded).
    pub(crate) fn live_ins(&self, lp: &NestedLoop<'_>) -> Vec<Handle<Local>> {
        let mut read = BTreeSet::new();
        let mut written = BTreeSet::from([lp.var]);
        for s in lp.body {
            s.visit(&mut |s| {
                for e in s.operands() {
                    irgc_front::ir::walk::expr_locals(self.body.exprs, e, &mut |l| {
                        read.insert(l);
                    });
                }
                written.extend(s.writes());
            });
        }
        read.into_iter().filter(|l| !written.contains(l)).collect()
    }

    /// The range of a nested loop's space: its start as an `i64`, and its length.
    fn range_of(&mut self, space: &Space) -> Result<(IntValue<'c>, IntValue<'c>), PtxError> {
        if !space.is_range() {
            return self.malformed("a scheduled nested loop over a space that is not a range");
        }
        let sp = self.prepare_space(space)?;
        let start = self.space_start(&sp)?;
        Ok((start, sp.size))
    }
}
