//! Statements: structured control flow becomes LLVM blocks; worklist pushes and reductions follow the protocols
//! of the kernel ABI (see the crate docs).

use crate::lower::{Form, Lower, GLOBAL};
use crate::types;
use crate::PtxError;
use inkwell::values::{BasicMetadataValueEnum, BasicValueEnum, IntValue};
use inkwell::{AtomicOrdering, AtomicRMWBinOp, FloatPredicate, IntPredicate};
use irgc_artifact::WorklistSlot;
use irgc_front::ir::{
    Arg, ArrayRef, Cooperation, DeviceOp, DeviceStmt, Expr, Handle, ReduceOp, Scalar, Schedule, Space, StmtKind,
    Worklist,
};

impl<'c> Lower<'c, '_> {
    pub fn block_of(&mut self, stmts: &[DeviceStmt]) -> Result<(), PtxError> {
        stmts.iter().try_for_each(|s| self.stmt(s))
    }

    pub fn stmt(&mut self, s: &DeviceStmt) -> Result<(), PtxError> {
        match &s.kind {
            StmtKind::Assign { local, value } => {
                let v = self.expr(*value)?;
                self.write_local(*local, v)?;
            }
            StmtKind::If { cond, then, otherwise } => {
                let c = self.expr(*cond)?;
                let c = self.int(c)?;
                self.if_else(c, |me| me.block_of(then), |me| me.block_of(otherwise))?;
            }
            StmtKind::Loop { body, continuing, break_if } => {
                let (head, cont, exit) = (self.block("loop"), self.block("loop.cont"), self.block("loop.exit"));
                self.b.build_unconditional_branch(head)?;
                self.b.position_at_end(head);
                self.loops.push(Some((cont, exit)));
                let r = self.block_of(body);
                self.loops.pop();
                r?;
                self.b.build_unconditional_branch(cont)?;
                self.b.position_at_end(cont);
                self.block_of(continuing)?;
                match break_if {
                    Some(c) => {
                        let c = self.expr(*c)?;
                        let c = self.int(c)?;
                        self.b.build_conditional_branch(c, exit, head)?;
                    }
                    None => {
                        self.b.build_unconditional_branch(head)?;
                    }
                }
                self.b.position_at_end(exit);
            }
            StmtKind::For { var, start, end, body } => {
                let ty = self.expr_of(*start).ty;
                let lo = self.expr(*start)?;
                let lo = self.to_i64(ty, lo)?;
                let hi = self.expr(*end)?;
                let hi = self.to_i64(ty, hi)?;
                let one = self.c.i64_type().const_int(1, false);
                self.counted_loop(lo, hi, one, ty.is_signed(), true, |me, i| {
                    let v = me.narrow_i64(ty, i)?;
                    me.write_local(*var, v)?;
                    me.block_of(body)
                })?;
            }
            StmtKind::Break | StmtKind::Continue => {
                let Some(Some((cont, exit))) = self.loops.last().copied() else {
                    return self.malformed("`break`/`continue` outside a loop of this thread");
                };
                self.jump_away(if matches!(s.kind, StmtKind::Break) { exit } else { cont })?;
            }
            StmtKind::Op(op) => self.device_op(op)?,
        }
        Ok(())
    }

    /// A device operation (what only kernels and functions do).
    fn device_op(&mut self, op: &DeviceOp) -> Result<(), PtxError> {
        match op {
            DeviceOp::Store { array, index, value } => {
                let v = self.expr(*value)?;
                let (addr, elem, _) = self.array_addr(*array, index)?;
                let v = self.reg_to_mem(elem, v)?;
                if self.coherent_array(*array) {
                    // Read by other items of a waiting launch while it runs: written through at once, and
                    // fenced, so that whoever sees a later write of this thread (an atomic that frees another
                    // item) also sees this one.
                    self.coherent_store(addr, elem, v)?;
                } else {
                    self.b.build_store(addr, v)?;
                }
            }
            DeviceOp::Atomic { op, array, index, value, compare, result } => {
                let old = self.atomic(*op, *array, index, *value, *compare)?;
                if let Some(r) = result {
                    self.write_local(*r, old)?;
                }
            }
            DeviceOp::Call { function, args, result } => {
                let mut vals: Vec<BasicMetadataValueEnum> = vec![self.ctx.into()];
                for a in args {
                    vals.push(match a {
                        Arg::Value(e) => self.expr(*e)?.into(),
                        Arg::Array(r @ (ArrayRef::Global(_) | ArrayRef::Param(_))) => self.array_base(*r)?.into(),
                        Arg::Array(ArrayRef::Shared(_)) => {
                            return self.unsupported(
                                "passing a shared array to a function (array parameters are global pointers)",
                            )
                        }
                    });
                }
                for slot in self.fn_slots.clone() {
                    vals.push(self.slot(slot)?.into());
                }
                let Some(&f) = self.funcs.get(function.index()) else {
                    return self.malformed("call of an unknown function");
                };
                let call = self.b.build_call(f, &vals, "")?;
                if let Some(r) = result {
                    let Some(v) = call.try_as_basic_value().basic() else {
                        return self.malformed("result of a call to a function returning nothing");
                    };
                    self.write_local(*r, v)?;
                }
            }
            DeviceOp::ForAll { vars, space, body, schedule: Schedule::Warp, combine, interleave, .. }
                if vars.len() == 1 && space.is_range() =>
            {
                let Some(lp) = self.nested_loop(op) else {
                    return self.malformed("a warp-scheduled loop that is not a one-variable `forall`");
                };
                let skewed = self.skewed()?;
                let serial = |me: &mut Self| me.serial_forall(vars, space, body, combine, *interleave);
                self.if_else(skewed, |me| me.warp_loop(&lp), serial)?;
            }
            // In its thread: unscheduled, or (`block` reached here) on a graph that is not skewed.
            DeviceOp::ForAll { vars, space, body, combine, interleave, .. } => {
                self.serial_forall(vars, space, body, combine, *interleave)?
            }
            DeviceOp::ForTile { .. } => return self.unsupported("`forall tile` nested in another statement"),
            DeviceOp::Return(v) => {
                let Some(ret) = self.returns else {
                    return self.malformed("`return` outside a function");
                };
                match (v, ret) {
                    (Some(e), Some(_)) => {
                        let v = self.expr(*e)?;
                        self.b.build_return(Some(&v))?;
                    }
                    (None, None) => {
                        self.b.build_return(None)?;
                    }
                    _ => return self.malformed("`return` of the wrong arity"),
                }
                self.start_dead_block();
            }
            DeviceOp::Push { worklist, value, coop } => self.push(*worklist, *value, false, *coop)?,
            DeviceOp::Retry { worklist, value, coop } => self.push(*worklist, *value, true, *coop)?,
            DeviceOp::Reduce { value } => {
                let Some((op, ty, acc)) = self.reduction else {
                    return self.malformed("`reduce` in a kernel without a reduction");
                };
                let v = self.expr(*value)?;
                let a = self.b.build_load(types::reg(self.c, ty), acc, "acc")?;
                let c = self.combine(op, ty, a, v)?;
                self.b.build_store(acc, c)?;
            }
            DeviceOp::Barrier => {
                if self.nested_foralls > 0 {
                    // As on the CPU: a barrier inside a nested (sequential) `forall` has no meaning.
                    return self.unsupported("a barrier inside a nested `forall` of a `forall tile`");
                }
                if !self.in_tile {
                    return self.malformed("a barrier outside a `forall tile`");
                }
                self.barrier()?;
            }
            DeviceOp::Wait => {
                let Some(w) = self.wait.clone() else {
                    return self.malformed("`wait` outside the sweep of a kernel that waits");
                };
                self.b.build_store(w.waited, self.c.bool_type().const_all_ones())?;
                for p in &w.clear {
                    self.b.build_store(*p, self.c.bool_type().const_zero())?;
                }
                self.jump_away(w.end)?;
            }
        }
        Ok(())
    }

    /// A nested `forall` run sequentially within its thread (as on the CPU).
    pub(crate) fn serial_forall(
        &mut self,
        vars: &[Handle<irgc_front::ir::Local>],
        space: &Space,
        body: &[DeviceStmt],
        combine: &[irgc_front::ir::Combined],
        interleave: u32,
    ) -> Result<(), PtxError> {
        let sp = self.prepare_space(space)?;
        let i64t = self.c.i64_type();
        if interleave > 1 && vars.len() == 1 {
            let bind = |me: &mut Self, i: IntValue<'c>| me.bind_space(&sp, vars, i);
            return self.interleaved(vars[0], body, combine, interleave, sp.size, &bind);
        }
        self.nested_foralls += 1;
        let r = self.counted_loop(i64t.const_zero(), sp.size, i64t.const_int(1, false), false, false, |me, i| {
            me.bind_space(&sp, vars, i)?;
            me.block_of(body)
        });
        self.nested_foralls -= 1;
        r
    }

    /// Whether the graph is skewed enough for the nested-parallelism schedules (the context's `SKEWED` slot, the
    /// same in every thread).
    /// In a flat entry it is the constant `false`, so LLVM drops the scheduled forms and their registers.
    pub(crate) fn skewed(&mut self) -> Result<IntValue<'c>, PtxError> {
        if self.form == Form::Flat {
            return Ok(self.c.bool_type().const_zero());
        }
        let v = self.slot(irgc_artifact::Layout::SKEWED)?;
        Ok(self.b.build_int_compare(IntPredicate::NE, v, v.get_type().const_zero(), "skewed")?)
    }

    /// `if c { then }`.
    pub fn if_then(
        &mut self,
        c: IntValue<'c>,
        then: impl FnOnce(&mut Self) -> Result<(), PtxError>,
    ) -> Result<(), PtxError> {
        self.if_else(c, then, |_| Ok(()))
    }

    /// `if c { then } else { otherwise }`.
    pub fn if_else(
        &mut self,
        c: IntValue<'c>,
        then: impl FnOnce(&mut Self) -> Result<(), PtxError>,
        otherwise: impl FnOnce(&mut Self) -> Result<(), PtxError>,
    ) -> Result<(), PtxError> {
        let (bt, be, join) = (self.block("then"), self.block("else"), self.block("endif"));
        self.b.build_conditional_branch(c, bt, be)?;
        self.b.position_at_end(bt);
        then(self)?;
        self.b.build_unconditional_branch(join)?;
        self.b.position_at_end(be);
        otherwise(self)?;
        self.b.build_unconditional_branch(join)?;
        self.b.position_at_end(join);
        Ok(())
    }

    /// Runs `body(i)` for `i = lo; i < hi; i += step` (`i64`s compared signed or unsigned). With `targets`,
    /// `break` and `continue` inside `body` leave or advance this loop; without, they may not cross it.
    pub fn counted_loop(
        &mut self,
        lo: IntValue<'c>,
        hi: IntValue<'c>,
        step: IntValue<'c>,
        signed: bool,
        targets: bool,
        body: impl FnOnce(&mut Self, IntValue<'c>) -> Result<(), PtxError>,
    ) -> Result<(), PtxError> {
        let i64t = self.c.i64_type();
        let counter = self.alloca(i64t.into(), "i")?;
        self.b.build_store(counter, lo)?;
        let (head, blk, cont, exit) =
            (self.block("for"), self.block("for.body"), self.block("for.cont"), self.block("for.exit"));
        self.b.build_unconditional_branch(head)?;
        self.b.position_at_end(head);
        let i = self.b.build_load(i64t, counter, "i")?.into_int_value();
        let p = if signed { IntPredicate::SLT } else { IntPredicate::ULT };
        let go = self.b.build_int_compare(p, i, hi, "")?;
        self.b.build_conditional_branch(go, blk, exit)?;
        self.b.position_at_end(blk);
        self.loops.push(if targets { Some((cont, exit)) } else { None });
        let r = body(self, i);
        self.loops.pop();
        r?;
        self.b.build_unconditional_branch(cont)?;
        self.b.position_at_end(cont);
        let i = self.b.build_load(i64t, counter, "")?.into_int_value();
        let next = self.b.build_int_add(i, step, "")?;
        self.b.build_store(counter, next)?;
        self.b.build_unconditional_branch(head)?;
        self.b.position_at_end(exit);
        Ok(())
    }

    /// A worklist push (or retry): `i = atomic_add(*count, 1)`; if `i < capacity` store the item at `items[i]`,
    /// else set `*overflow = 1`.
    fn push(
        &mut self,
        w: Handle<Worklist>,
        value: Handle<Expr>,
        retry: bool,
        coop: Cooperation,
    ) -> Result<(), PtxError> {
        let elem = self.m.worklists[w].elem;
        let v = self.expr(value)?;
        let v = self.reg_to_mem(elem, v)?;
        let (items, count) = if retry {
            (WorklistSlot::RetryItems, WorklistSlot::RetryCount)
        } else {
            (WorklistSlot::OutItems, WorklistSlot::OutCount)
        };
        let slot = |s| self.layout.worklist(w.index(), s);
        let (items, count, cap, ovf) =
            (slot(items), slot(count), slot(WorklistSlot::Capacity), slot(WorklistSlot::Overflow));
        let i64t = self.c.i64_type();
        let count_ptr = self.count_ptr(count)?;
        let i = match coop {
            Cooperation::Warp => self.claim_slot(count_ptr)?,
            Cooperation::Thread => {
                let one = i64t.const_int(1, false);
                self.b.build_atomicrmw(AtomicRMWBinOp::Add, count_ptr, one, AtomicOrdering::Monotonic)?
            }
        };
        let cap = self.slot(cap)?;
        let fits = self.b.build_int_compare(IntPredicate::ULT, i, cap, "fits")?;
        self.if_else(
            fits,
            |me| {
                let base = me.slot_ptr(items)?;
                let addr = me.element(base, i, elem, GLOBAL)?;
                me.b.build_store(addr, v)?;
                Ok(())
            },
            |me| {
                let flag = me.slot_ptr(ovf)?;
                me.b.build_store(flag, i64t.const_int(1, false))?;
                Ok(())
            },
        )
    }

    /// `atomic_add(*count, 1)` for every lane that pushes, aggregated over the warp: the lanes that push together
    /// (`activemask`: whoever is here now, never an assumed full mask) take consecutive slots with one atomic by
    /// their lowest lane, which broadcasts the base with `shfl.sync` over the same mask. A push-heavy round thus
    /// costs one counter atomic per warp instead of one per item: the counter is the hottest address in the kernel.
    fn claim_slot(&mut self, count_ptr: inkwell::values::PointerValue<'c>) -> Result<IntValue<'c>, PtxError> {
        let (i32t, i64t) = (self.c.i32_type(), self.c.i64_type());
        let int = |v: BasicValueEnum<'c>| v.into_int_value();
        let mask = int(self.call_intrinsic("llvm.nvvm.activemask", i32t.into(), &[])?);
        let lane = int(self.call_intrinsic("llvm.nvvm.read.ptx.sreg.laneid", i32t.into(), &[])?);
        let below = int(self.call_intrinsic("llvm.nvvm.read.ptx.sreg.lanemask.lt", i32t.into(), &[])?);
        let n = int(self.call_intrinsic("llvm.ctpop.i32", i32t.into(), &[mask.into()])?);
        let before = self.b.build_and(mask, below, "")?;
        let rank = int(self.call_intrinsic("llvm.ctpop.i32", i32t.into(), &[before.into()])?);
        // The mask holds at least this lane: zero cannot happen (`true`: no zero check).
        let nonzero = self.c.bool_type().const_all_ones().into();
        let leader = int(self.call_intrinsic("llvm.cttz.i32", i32t.into(), &[mask.into(), nonzero])?);
        let is_leader = self.b.build_int_compare(IntPredicate::EQ, lane, leader, "leader")?;
        let base_var = self.alloca(i64t.into(), "push_base")?;
        self.b.build_store(base_var, i64t.const_zero())?;
        self.if_else(
            is_leader,
            |me| {
                let n64 = me.b.build_int_z_extend(n, i64t, "")?;
                let base = me.b.build_atomicrmw(AtomicRMWBinOp::Add, count_ptr, n64, AtomicOrdering::Monotonic)?;
                me.b.build_store(base_var, base)?;
                Ok(())
            },
            |_| Ok(()),
        )?;
        let base = self.b.build_load(i64t, base_var, "")?.into_int_value();
        let lo = self.b.build_int_truncate(base, i32t, "")?;
        let hi = self.b.build_right_shift(base, i64t.const_int(32, false), false, "")?;
        let hi = self.b.build_int_truncate(hi, i32t, "")?;
        let width = i32t.const_int(31, false);
        let shfl = |me: &Self, v: IntValue<'c>| -> Result<IntValue<'c>, PtxError> {
            let args = [mask.into(), v.into(), leader.into(), width.into()];
            Ok(int(me.call_intrinsic("llvm.nvvm.shfl.sync.idx.i32", i32t.into(), &args)?))
        };
        let (lo, hi) = (shfl(self, lo)?, shfl(self, hi)?);
        let lo = self.b.build_int_z_extend(lo, i64t, "")?;
        let hi = self.b.build_int_z_extend(hi, i64t, "")?;
        let hi = self.b.build_left_shift(hi, i64t.const_int(32, false), "")?;
        let base = self.b.build_or(hi, lo, "")?;
        let rank = self.b.build_int_z_extend(rank, i64t, "")?;
        Ok(self.b.build_int_add(base, rank, "slot")?)
    }

    /// Combines a reduction accumulator `a` with a value `v` of type `ty`, as `irgc_artifact::reduce_combine`.
    pub fn combine(
        &mut self,
        op: ReduceOp,
        ty: Scalar,
        a: BasicValueEnum<'c>,
        v: BasicValueEnum<'c>,
    ) -> Result<BasicValueEnum<'c>, PtxError> {
        let b = &self.b;
        Ok(match op {
            ReduceOp::Any => b.build_or(self.int(a)?, self.int(v)?, "")?.into(),
            ReduceOp::All => b.build_and(self.int(a)?, self.int(v)?, "")?.into(),
            ReduceOp::Sum if ty.is_float() => b.build_float_add(self.float(a)?, self.float(v)?, "")?.into(),
            ReduceOp::Sum => b.build_int_add(self.int(a)?, self.int(v)?, "")?.into(),
            ReduceOp::Min | ReduceOp::Max => {
                let a_less = self.less(ty, a, v)?;
                let (x, y) = if op == ReduceOp::Min { (a, v) } else { (v, a) };
                b.build_select(a_less, x, y, "")?
            }
        })
    }

    /// `a < b` in type `ty` (ordered for floats, by signedness for integers).
    pub fn less(&self, ty: Scalar, a: BasicValueEnum<'c>, v: BasicValueEnum<'c>) -> Result<IntValue<'c>, PtxError> {
        Ok(if ty.is_float() {
            self.b.build_float_compare(FloatPredicate::OLT, self.float(a)?, self.float(v)?, "")?
        } else {
            let p = if ty.is_signed() { IntPredicate::SLT } else { IntPredicate::ULT };
            self.b.build_int_compare(p, self.int(a)?, self.int(v)?, "")?
        })
    }

    /// The identity of a reduction, as a value of its type.
    pub fn reduce_identity(&self, op: ReduceOp, ty: Scalar) -> BasicValueEnum<'c> {
        let bits = irgc_artifact::reduce_identity(op, ty);
        types::constant(self.c, ty, bits)
    }
}
