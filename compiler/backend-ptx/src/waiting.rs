//! Sweeps that wait (`wait;`, [`irgc_front::ir::DeviceOp::Wait`]): each thread runs its items again and again,
//! in one launch, until none of them waits — as ECL-GC runs its colouring.
//!
//! # Protocol
//! - The lanes of a warp step through their items together (the grid-stride loop runs from the warp's first
//!   lane's start; a lane past the end idles) and the warp goes round while any lane has an item waiting
//!   (`vote.any`). Threads going round on their own were faster where nothing is shared (a first form of
//!   `jp_async`: urand22 13.5 against 18.2 ms) but hung `jp_async` on graphs that are not skewed (an H200,
//!   2026-11-28: cause not found; docs/coloring.md), so the warp goes round as one.
//! - An item that ran to its end sets its byte in the wait flags (the context's `Layout::wait_flags`, all 0 at
//!   the launch's start; the host clears them after it) and is skipped from then on; one that reached `wait`
//!   leaves its byte 0. Only its lane reads and writes an item's byte, so plain accesses do.
//! - What the items read of each other goes through strong loads at GPU scope (`ld.relaxed.gpu`: read again
//!   every time, past L1), and a store to such an array is a strong store followed by `fence.acq_rel.gpu`
//!   ([`Lower::coherent_array`], [`Lower::coherent_load`]). (PTX's `volatile` loads act at system scope and
//!   `membar.gl` is a sequentially consistent fence: dearer, and nothing here is shared beyond the GPU.) The runtime
//!   launches every thread at once (a cooperative launch), so a warp going round never waits for one that has
//!   not started.
//! - With bounds checks, once a bad index is reported every warp stops going round (an item reading the scratch
//!   word the bad access went to could wait for ever); the runtime then reports it.
//! - **Predicated items.** A sweep whose body holds a `warp`-scheduled loop (directly or under `if`s) runs the
//!   body in every lane of the warp, the statements of a lane without a ready item switched off
//!   ([`Lower::predicated_waiting`]): every lane then reaches the loop, and all 32 share the ranges of the lanes
//!   that have one (a hub's release in `jp_async`), instead of only the lanes whose items were ready at that step.

use crate::kernel::Prepared;
use crate::lower::{Lower, WaitTarget, GLOBAL, SHARED};
use crate::PtxError;
use inkwell::types::{BasicType, BasicTypeEnum};
use inkwell::values::{BasicValueEnum, IntValue, PointerValue};
use inkwell::{AddressSpace, IntPredicate};
use irgc_front::ir::{DeviceOp, DeviceStmt, Handle, Local, Scalar, Schedule, StmtKind};

/// Whether a statement of a waiting sweep holds a `warp`-scheduled loop at a point every lane of the warp can
/// reach (itself, or inside its `if`s).
fn holds_warp_loop(s: &DeviceStmt) -> bool {
    match &s.kind {
        StmtKind::Op(DeviceOp::ForAll { schedule: Schedule::Warp, vars, space, .. }) => {
            vars.len() == 1 && space.is_range()
        }
        StmtKind::If { then, otherwise, .. } => then.iter().chain(otherwise).any(holds_warp_loop),
        _ => false,
    }
}

impl<'c> Lower<'c, '_> {
    /// The sweep of a kernel that waits (see the module docs): `start`, `size`, `stride` of its grid-stride loop.
    pub(crate) fn waiting_sweep(
        &mut self,
        sp: &Prepared<'c>,
        vars: &[Handle<Local>],
        body: &[DeviceStmt],
        (start, size, stride): (IntValue<'c>, IntValue<'c>, IntValue<'c>),
    ) -> Result<(), PtxError> {
        let boolt = self.c.bool_type();
        let flags = self.slot_ptr(self.layout.wait_flags())?;
        let waited = self.alloca(boolt.into(), "waited")?;
        let again = self.alloca(boolt.into(), "again")?;
        let predicated = body.iter().any(holds_warp_loop);
        let (pass, done) = (self.block("wait.pass"), self.block("wait.done"));
        self.b.build_unconditional_branch(pass)?;
        self.b.position_at_end(pass);
        self.b.build_store(again, boolt.const_zero())?;
        let i32t = self.c.i32_type();
        let lane = self.call_intrinsic("llvm.nvvm.read.ptx.sreg.laneid", i32t.into(), &[])?.into_int_value();
        let lane = self.b.build_int_z_extend(lane, self.c.i64_type(), "lane")?;
        let warp_start = self.b.build_int_sub(start, lane, "warp_start")?;
        self.counted_loop(warp_start, size, stride, false, false, |me, first| {
            let i = me.b.build_int_add(first, lane, "")?;
            let valid = me.b.build_int_compare(IntPredicate::ULT, i, size, "")?;
            let item = Item { sp, vars, body, flags, i, waited, again };
            if predicated {
                me.predicated_item(&item, valid)
            } else {
                me.if_then(valid, |me| me.waiting_item(&item))
            }
        })?;
        let mine = self.b.build_load(boolt, again, "")?.into_int_value();
        let all = i32t.const_all_ones();
        let mut more =
            self.call_intrinsic("llvm.nvvm.vote.any.sync", boolt.into(), &[all.into(), mine.into()])?.into_int_value();
        if self.check_bounds {
            let report = self.bounds_report()?;
            let site = self.relaxed_load(report, "bad_site")?;
            let bad = self.b.build_int_compare(IntPredicate::NE, site, site.get_type().const_zero(), "")?;
            let args = [all.into(), bad.into()];
            let stop = self.call_intrinsic("llvm.nvvm.vote.any.sync", boolt.into(), &args)?.into_int_value();
            more = self.b.build_and(more, self.b.build_not(stop, "")?, "")?;
        }
        self.b.build_conditional_branch(more, pass, done)?;
        self.b.position_at_end(done);
        Ok(())
    }

    /// An item of a lane (in range): skipped once its byte is set; else its body runs, then the byte is set if it
    /// ran to its end, `again` if it waited.
    fn waiting_item(&mut self, item: &Item<'c, '_>) -> Result<(), PtxError> {
        let boolt = self.c.bool_type();
        let (at, open) = self.open_item(item)?;
        self.if_then(open, |me| {
            me.b.build_store(item.waited, boolt.const_zero())?;
            me.bind_space(item.sp, item.vars, item.i)?;
            let end = me.block("wait.item_end");
            let outer = me.wait.replace(WaitTarget { waited: item.waited, end, clear: Vec::new() });
            me.block_of(item.body)?;
            me.wait = outer;
            me.b.build_unconditional_branch(end)?;
            me.b.position_at_end(end);
            me.item_done(item, at)
        })
    }

    /// The address of an item's byte and whether the item is still open.
    fn open_item(&mut self, item: &Item<'c, '_>) -> Result<(PointerValue<'c>, IntValue<'c>), PtxError> {
        let i8t = self.c.i8_type();
        let at = self.element(item.flags, item.i, Scalar::Bool, GLOBAL)?;
        let flag = self.b.build_load(i8t, at, "finished")?.into_int_value();
        Ok((at, self.b.build_int_compare(IntPredicate::EQ, flag, i8t.const_zero(), "open")?))
    }

    /// After an item ran: `again` if it waited, else its byte set.
    fn item_done(&mut self, item: &Item<'c, '_>, at: PointerValue<'c>) -> Result<(), PtxError> {
        let (boolt, i8t) = (self.c.bool_type(), self.c.i8_type());
        let w = self.b.build_load(boolt, item.waited, "")?.into_int_value();
        self.if_else(
            w,
            |me| {
                me.b.build_store(item.again, boolt.const_all_ones())?;
                Ok(())
            },
            |me| {
                me.b.build_store(at, i8t.const_int(1, false))?;
                Ok(())
            },
        )
    }

    /// An item run by every lane of the warp, its statements switched off in the lanes without an open item in
    /// range (`valid`): see the module docs.
    fn predicated_item(&mut self, item: &Item<'c, '_>, valid: IntValue<'c>) -> Result<(), PtxError> {
        let boolt = self.c.bool_type();
        let pred = self.alloca(boolt.into(), "item_pred")?;
        let at_slot = self.alloca(self.c.ptr_type(AddressSpace::from(GLOBAL)).into(), "item_flag")?;
        self.b.build_store(pred, boolt.const_zero())?;
        self.if_then(valid, |me| {
            let (at, open) = me.open_item(item)?;
            me.b.build_store(at_slot, at)?;
            me.b.build_store(pred, open)?;
            Ok(())
        })?;
        let active = self.b.build_load(boolt, pred, "active")?.into_int_value();
        self.b.build_store(item.waited, boolt.const_zero())?;
        self.if_then(active, |me| me.bind_space(item.sp, item.vars, item.i))?;
        self.predicated_waiting(item.body, item.waited, &[pred])?;
        self.if_then(active, |me| {
            let at = me.b.build_load(me.c.ptr_type(AddressSpace::from(GLOBAL)), at_slot, "")?.into_pointer_value();
            me.item_done(item, at)
        })
    }

    /// Statements of a predicated item: those holding no `warp` loop run where the innermost of `preds` holds,
    /// a `wait` among them clearing every one of `preds`; an `if` holding one splits the predicate; a `warp`
    /// loop runs in every lane, a lane whose predicate is off bringing an empty range.
    fn predicated_waiting(
        &mut self,
        stmts: &[DeviceStmt],
        waited: PointerValue<'c>,
        preds: &[PointerValue<'c>],
    ) -> Result<(), PtxError> {
        let boolt = self.c.bool_type();
        let Some(&pred) = preds.last() else {
            return self.malformed("a predicated statement without a predicate");
        };
        for s in stmts {
            if !holds_warp_loop(s) {
                let p = self.b.build_load(boolt, pred, "pred")?.into_int_value();
                self.if_then(p, |me| {
                    let end = me.block("wait.stmt_end");
                    let outer = me.wait.replace(WaitTarget { waited, end, clear: preds.to_vec() });
                    me.stmt(s)?;
                    me.wait = outer;
                    me.b.build_unconditional_branch(end)?;
                    me.b.position_at_end(end);
                    Ok(())
                })?;
                continue;
            }
            match &s.kind {
                StmtKind::If { cond, then, otherwise } => {
                    let (pt, po) = self.split_pred(pred, *cond)?;
                    for (branch, bp) in [(then, pt), (otherwise, po)] {
                        let mut inner = preds.to_vec();
                        inner.push(bp);
                        self.predicated_waiting(branch, waited, &inner)?;
                    }
                }
                StmtKind::Op(op @ DeviceOp::ForAll { vars, space, body, combine, interleave, .. }) => {
                    let Some(lp) = self.nested_loop(op) else {
                        return self.malformed("a warp-scheduled loop that is not a one-variable `forall`");
                    };
                    let p = self.b.build_load(boolt, pred, "pred")?.into_int_value();
                    let skewed = self.skewed()?;
                    let serial =
                        |me: &mut Self| me.if_then(p, |me| me.serial_forall(vars, space, body, combine, *interleave));
                    self.if_else(skewed, |me| me.warp_loop_all(&lp, p), serial)?;
                }
                _ => return self.malformed("a warp-scheduled loop under a statement other than `if`"),
            }
        }
        Ok(())
    }
}

/// One item of a waiting sweep, as its lane sees it.
struct Item<'c, 'a> {
    sp: &'a Prepared<'c>,
    vars: &'a [Handle<Local>],
    body: &'a [DeviceStmt],
    flags: PointerValue<'c>,
    i: IntValue<'c>,
    waited: PointerValue<'c>,
    again: PointerValue<'c>,
}

impl<'c> Lower<'c, '_> {
    /// The PTX state space of a pointer's address space, for inline assembly (generic: none).
    fn space_of(addr: PointerValue<'c>) -> &'static str {
        match addr.get_type().get_address_space() {
            a if a == AddressSpace::from(GLOBAL) => ".global",
            a if a == AddressSpace::from(SHARED) => ".shared",
            _ => "",
        }
    }

    /// A load of a coherent array's element `elem` at `addr` (in its memory form, as `build_load` gives it): a
    /// relaxed strong load at GPU scope, so another item's store is seen as soon as it reaches L2.
    pub(crate) fn coherent_load(
        &mut self,
        addr: PointerValue<'c>,
        elem: Scalar,
    ) -> Result<BasicValueEnum<'c>, PtxError> {
        let mem = crate::types::mem(self.c, elem);
        let bits = crate::types::bits_int(self.c, elem);
        let wide = bits.get_bit_width() == 64;
        let reg = if wide { self.c.i64_type() } else { self.c.i32_type() };
        let asm = format!("ld.relaxed.gpu{}.b{} $0, [$1];", Self::space_of(addr), bits.get_bit_width());
        let constraints = if wide { "=l,l,~{memory}" } else { "=r,l,~{memory}" };
        let call = self.inline_asm(Some(reg), &asm, constraints, &[addr.into()], "coherent")?;
        let Some(v) = call.try_as_basic_value().basic() else {
            return Err(PtxError::Llvm("inline assembly returned nothing".into()));
        };
        let v = self.b.build_int_truncate_or_bit_cast(v.into_int_value(), bits, "")?;
        Ok(match mem {
            BasicTypeEnum::IntType(_) => v.into(),
            other => self.b.build_bit_cast(v, other.as_basic_type_enum(), "")?,
        })
    }

    /// A store to a coherent array (`v` in its memory form): a relaxed strong store at GPU scope, then a fence,
    /// so whoever sees a later write of this thread (an atomic that frees another item) also sees this one.
    pub(crate) fn coherent_store(
        &mut self,
        addr: PointerValue<'c>,
        elem: Scalar,
        v: BasicValueEnum<'c>,
    ) -> Result<(), PtxError> {
        let bits = crate::types::bits_int(self.c, elem);
        let wide = bits.get_bit_width() == 64;
        let reg = if wide { self.c.i64_type() } else { self.c.i32_type() };
        let v = match v {
            BasicValueEnum::IntValue(i) => i,
            other => self.b.build_bit_cast(other, bits, "")?.into_int_value(),
        };
        let v = self.b.build_int_z_extend_or_bit_cast(v, reg, "")?;
        let asm =
            format!("st.relaxed.gpu{}.b{} [$0], $1;\n\tfence.acq_rel.gpu;", Self::space_of(addr), bits.get_bit_width());
        let constraints = if wide { "l,l,~{memory}" } else { "l,r,~{memory}" };
        self.inline_asm(None, &asm, constraints, &[addr.into(), v.into()], "")?;
        Ok(())
    }
}
