//! Atomic read-modify-writes on array elements (global or shared memory), and the final combination of a
//! thread's reduction into the reduction slot.
//!
//! Integer operations are `atomicrmw` (signedness picks `min`/`umin`...) and `cmpxchg`, all relaxed
//! (`monotonic`), which is what CUDA's `atomicAdd` & co. are. Float `add`/`sub` are `atomicrmw fadd`
//! (`atom.add.f32`/`.f64`; sub adds the negation: the same IEEE result as `old - v`). Float `min`/`max` have no
//! instruction: they are compare-and-swap loops that only write when the new value is smaller/larger (IEEE
//! comparison, so a NaN operand never replaces anything), as on the CPU. A float exchange or `atomic_cas`
//! works on the bits (so `-0.0` differs from `0.0`). `bool` elements are bytes; LLVM widens their atomics to
//! 32-bit compare-and-swap loops.

use crate::lower::{Lower, GLOBAL};
use crate::types;
use crate::PtxError;
use inkwell::values::{BasicValue, BasicValueEnum, IntValue, PointerValue};
use inkwell::{AtomicOrdering, AtomicRMWBinOp, FloatPredicate};
use irgc_front::ir::{ArrayRef, AtomicOp, Expr, Handle, ReduceOp, Scalar};

const RELAXED: AtomicOrdering = AtomicOrdering::Monotonic;

impl<'c> Lower<'c, '_> {
    /// Performs the atomic and returns the element's old value.
    pub fn atomic(
        &mut self,
        op: AtomicOp,
        array: ArrayRef,
        index: &[Handle<Expr>],
        value: Handle<Expr>,
        compare: Option<Handle<Expr>>,
    ) -> Result<BasicValueEnum<'c>, PtxError> {
        let v = self.expr(value)?;
        let cmp = match compare {
            Some(c) => Some(self.expr(c)?),
            None => None,
        };
        let (addr, elem, space) = self.array_addr(array, index)?;
        if op == AtomicOp::CompareExchange {
            let Some(expected) = cmp else {
                return self.malformed("atomic_cas without a compare operand");
            };
            let (e, n) = (self.value_to_int_bits(elem, expected)?, self.value_to_int_bits(elem, v)?);
            let pair = self.b.build_cmpxchg(addr, e, n, RELAXED, RELAXED)?;
            let old = self.b.build_extract_value(pair, 0, "old")?;
            return self.int_bits_to_value(elem, self.int(old)?);
        }
        if elem.is_float() {
            return self.float_atomic(op, elem, addr, space, v);
        }
        let signed = elem.is_signed();
        let rmw = match op {
            AtomicOp::Add => AtomicRMWBinOp::Add,
            AtomicOp::Sub => AtomicRMWBinOp::Sub,
            AtomicOp::And => AtomicRMWBinOp::And,
            AtomicOp::Or => AtomicRMWBinOp::Or,
            AtomicOp::Xor => AtomicRMWBinOp::Xor,
            AtomicOp::Exchange => AtomicRMWBinOp::Xchg,
            AtomicOp::Min if signed => AtomicRMWBinOp::Min,
            AtomicOp::Min => AtomicRMWBinOp::UMin,
            AtomicOp::Max if signed => AtomicRMWBinOp::Max,
            AtomicOp::Max => AtomicRMWBinOp::UMax,
            AtomicOp::CompareExchange => return self.malformed("unreachable atomic_cas"),
        };
        let bits = self.value_to_int_bits(elem, v)?;
        let old = self.b.build_atomicrmw(rmw, addr, bits, RELAXED)?;
        self.int_bits_to_value(elem, old)
    }

    /// A value as the integer holding its in-memory bits (floats bitcast, `bool` as a byte).
    fn value_to_int_bits(&self, s: Scalar, v: BasicValueEnum<'c>) -> Result<IntValue<'c>, PtxError> {
        if s.is_float() {
            let i = self.b.build_bit_cast(v, types::bits_int(self.c, s), "")?;
            self.int(i)
        } else {
            let m = self.reg_to_mem(s, v)?;
            self.int(m)
        }
    }

    fn int_bits_to_value(&self, s: Scalar, v: IntValue<'c>) -> Result<BasicValueEnum<'c>, PtxError> {
        if s.is_float() {
            Ok(self.b.build_bit_cast(v, types::reg(self.c, s), "")?)
        } else {
            self.mem_to_reg(s, v.into())
        }
    }

    fn float_atomic(
        &mut self,
        op: AtomicOp,
        elem: Scalar,
        addr: PointerValue<'c>,
        space: u16,
        v: BasicValueEnum<'c>,
    ) -> Result<BasicValueEnum<'c>, PtxError> {
        match op {
            AtomicOp::Exchange => {
                let bits = self.value_to_int_bits(elem, v)?;
                let old = self.b.build_atomicrmw(AtomicRMWBinOp::Xchg, addr, bits, RELAXED)?;
                self.int_bits_to_value(elem, old)
            }
            AtomicOp::Add | AtomicOp::Sub => {
                let v = if op == AtomicOp::Sub { self.b.build_float_neg(self.float(v)?, "")?.into() } else { v };
                self.fadd(elem, addr, space, v)
            }
            AtomicOp::Min | AtomicOp::Max => self.float_min_max(op == AtomicOp::Min, elem, addr, v),
            _ => self.malformed(format!("{} on a float array", op.name())),
        }
    }

    /// `atomicrmw fadd` (through a helper, see [`crate::helpers`]); returns the old value.
    pub(crate) fn fadd(
        &mut self,
        elem: Scalar,
        addr: PointerValue<'c>,
        space: u16,
        v: BasicValueEnum<'c>,
    ) -> Result<BasicValueEnum<'c>, PtxError> {
        let f = self.helpers.atomic_fadd(self.c, self.lm, types::reg(self.c, elem), space);
        match self.b.build_call(f, &[addr.into(), v.into()], "")?.try_as_basic_value().basic() {
            Some(old) => Ok(old),
            None => Err(PtxError::Llvm("fadd helper returned nothing".into())),
        }
    }

    /// A float min/max as a compare-and-swap loop: read the element; if `v` is not better, done; else swap it
    /// in if the element still holds what was read, else retry from what the swap found. Returns the old value.
    fn float_min_max(
        &mut self,
        min: bool,
        elem: Scalar,
        addr: PointerValue<'c>,
        v: BasicValueEnum<'c>,
    ) -> Result<BasicValueEnum<'c>, PtxError> {
        let it = types::bits_int(self.c, elem);
        let ft = types::reg(self.c, elem);
        let first = self.b.build_load(it, addr, "")?;
        if let Some(inst) = first.as_instruction_value() {
            inst.set_atomic_ordering(RELAXED).map_err(|e| PtxError::Llvm(format!("atomic load: {e:?}")))?;
        }
        let pre = self.current_block()?;
        let (head, swap, done) = (self.block("fminmax"), self.block("fminmax.swap"), self.block("fminmax.done"));
        self.b.build_unconditional_branch(head)?;

        self.b.position_at_end(head);
        let phi = self.b.build_phi(it, "old.bits")?;
        let old_bits = phi.as_basic_value().into_int_value();
        let old = self.b.build_bit_cast(old_bits, ft, "old")?;
        let p = if min { FloatPredicate::OLT } else { FloatPredicate::OGT };
        let better = self.b.build_float_compare(p, self.float(v)?, self.float(old)?, "")?;
        self.b.build_conditional_branch(better, swap, done)?;

        self.b.position_at_end(swap);
        let new_bits = self.b.build_bit_cast(v, it, "")?;
        let pair = self.b.build_cmpxchg(addr, old_bits, self.int(new_bits)?, RELAXED, RELAXED)?;
        let seen = self.b.build_extract_value(pair, 0, "seen")?;
        let won = self.b.build_extract_value(pair, 1, "won")?;
        self.b.build_conditional_branch(self.int(won)?, done, head)?;
        phi.add_incoming(&[(&first, pre), (&seen, swap)]);

        self.b.position_at_end(done);
        Ok(old)
    }

    /// The combination of `v` over the lanes that are here together (`activemask`), and whether this lane is the
    /// lowest of them. A five-step butterfly on `v`'s 64 bits: a lane whose partner is not in the mask (it left
    /// early or took another branch, so its shuffled value is undefined) combines the identity `id` instead, so
    /// every lane ends with the combination over exactly the mask's lanes. `op` is `Sum`, `Min` or `Max` of a
    /// 64-bit integer or a float type `ty` ([`shuffles`]).
    fn warp_combine_64(
        &mut self,
        op: ReduceOp,
        ty: Scalar,
        v: BasicValueEnum<'c>,
        id: BasicValueEnum<'c>,
    ) -> Result<(BasicValueEnum<'c>, IntValue<'c>), PtxError> {
        let i32t = self.c.i32_type();
        let mask = self.call_intrinsic("llvm.nvvm.activemask", i32t.into(), &[])?.into_int_value();
        let lane = self.call_intrinsic("llvm.nvvm.read.ptx.sreg.laneid", i32t.into(), &[])?.into_int_value();
        let mut t = v;
        for k in [16u64, 8, 4, 2, 1] {
            let kk = i32t.const_int(k, false);
            let bits = self.value_to_bits(ty, t)?;
            let got = self.shfl_mode("bfly", mask, bits, kk)?;
            let got = self.bits_to_value(ty, got)?;
            let partner = self.b.build_xor(lane, kk, "")?;
            let bit = self.b.build_right_shift(mask, partner, false, "")?;
            let bit = self.b.build_and(bit, i32t.const_int(1, false), "")?;
            let here = self.b.build_int_compare(inkwell::IntPredicate::NE, bit, i32t.const_zero(), "")?;
            let got = self.b.build_select(here, got, id, "")?;
            t = self.combine(op, ty, t, got)?;
        }
        // The mask holds at least this lane: zero cannot happen (`true`: no zero check).
        let nonzero = self.c.bool_type().const_all_ones().into();
        let first = self.call_intrinsic("llvm.cttz.i32", i32t.into(), &[mask.into(), nonzero])?.into_int_value();
        let leader = self.b.build_int_compare(inkwell::IntPredicate::EQ, lane, first, "leader")?;
        Ok((t, leader))
    }

    /// Combines the thread's accumulator into the reduction slot, unless it still holds the identity (combining
    /// the identity changes nothing, and most threads of a sparse `any` never set theirs).
    ///
    /// With [`Cooperation::Warp`](irgc_front::ir::Cooperation) (the `coop` pass), reductions that `redux.sync`
    /// supports (`bool` any/all, 32-bit integers and nodes) are first combined across the warp: the lanes that reach the end together (`activemask`, never an assumed full mask: lanes
    /// may have left early or diverged) reduce with `redux.sync`, and only the lowest of them updates the slot,
    /// which cuts same-address atomics 32-fold. 64-bit integer and float sums, minima and maxima are combined the
    /// same way by a shuffle butterfly ([`Lower::warp_combine_64`]). A float sum's additions happen in another
    /// order then, but no less fixed a one: every thread's atomic on the slot lands in whatever order the GPU
    /// schedules them (one f64 atomic per thread cost Louvain's node sweeps ~0.35 ms a launch on an H200).
    pub fn flush_reduction(&mut self) -> Result<(), PtxError> {
        let Some((op, ty, acc)) = self.reduction else {
            return Ok(());
        };
        let mut a = self.b.build_load(types::reg(self.c, ty), acc, "acc")?;
        let id = self.reduce_identity(op, ty);
        let mut leader = None;
        let warp = self.reduce_coop == irgc_front::ir::Cooperation::Warp;
        if let Some(red) = redux_op(op, ty).filter(|_| warp) {
            let i32t = self.c.i32_type();
            let mask = self.call_intrinsic("llvm.nvvm.activemask", i32t.into(), &[])?;
            let v = if ty == Scalar::Bool { self.b.build_int_z_extend(self.int(a)?, i32t, "")?.into() } else { a };
            let r = self.call_intrinsic(&format!("llvm.nvvm.redux.sync.{red}"), i32t.into(), &[v, mask])?;
            a = if ty == Scalar::Bool {
                self.b.build_int_compare(inkwell::IntPredicate::NE, self.int(r)?, i32t.const_zero(), "")?.into()
            } else {
                r
            };
            let lane = self.call_intrinsic("llvm.nvvm.read.ptx.sreg.laneid", i32t.into(), &[])?;
            // The mask holds at least this lane: zero cannot happen (`true`: no zero check).
            let nonzero = self.c.bool_type().const_all_ones().into();
            let first = self.call_intrinsic("llvm.cttz.i32", i32t.into(), &[mask, nonzero])?;
            leader = Some(self.b.build_int_compare(
                inkwell::IntPredicate::EQ,
                self.int(lane)?,
                self.int(first)?,
                "leader",
            )?);
        }
        if warp && shuffles(op, ty) {
            let (t, l) = self.warp_combine_64(op, ty, a, id)?;
            a = t;
            leader = Some(l);
        }
        let (ab, ib) = (self.value_to_int_bits(ty, a)?, self.value_to_int_bits(ty, id)?);
        let mut changed = self.b.build_int_compare(inkwell::IntPredicate::NE, ab, ib, "changed")?;
        if let Some(l) = leader {
            changed = self.b.build_and(changed, l, "")?;
        }
        let slot = self.layout.reduction();
        self.if_else(
            changed,
            |me| {
                let addr = match me.reduction_addr {
                    Some(addr) => addr,
                    None => me.slot_addr(slot)?,
                };
                let i32t = me.c.i32_type();
                match op {
                    ReduceOp::Any => {
                        me.b.build_atomicrmw(AtomicRMWBinOp::Or, addr, i32t.const_int(1, false), RELAXED)?;
                    }
                    ReduceOp::All => {
                        me.b.build_atomicrmw(AtomicRMWBinOp::And, addr, i32t.const_zero(), RELAXED)?;
                    }
                    ReduceOp::Sum if ty.is_float() => {
                        me.fadd(ty, addr, GLOBAL, a)?;
                    }
                    ReduceOp::Sum => {
                        me.b.build_atomicrmw(AtomicRMWBinOp::Add, addr, me.int(a)?, RELAXED)?;
                    }
                    ReduceOp::Min | ReduceOp::Max if ty.is_float() => {
                        me.float_min_max(op == ReduceOp::Min, ty, addr, a)?;
                    }
                    ReduceOp::Min | ReduceOp::Max => {
                        let rmw = match (op == ReduceOp::Min, ty.is_signed()) {
                            (true, true) => AtomicRMWBinOp::Min,
                            (true, false) => AtomicRMWBinOp::UMin,
                            (false, true) => AtomicRMWBinOp::Max,
                            (false, false) => AtomicRMWBinOp::UMax,
                        };
                        me.b.build_atomicrmw(rmw, addr, me.int(a)?, RELAXED)?;
                    }
                }
                Ok(())
            },
            |_| Ok(()),
        )
    }
}

/// Whether a reduction is combined across a warp by shuffles (see [`Lower::warp_combine_64`]): 64-bit integer
/// and float sums, minima and maxima.
fn shuffles(op: ReduceOp, ty: Scalar) -> bool {
    matches!(ty, Scalar::I64 | Scalar::U64 | Scalar::Edge | Scalar::F32 | Scalar::F64)
        && matches!(op, ReduceOp::Sum | ReduceOp::Min | ReduceOp::Max)
}

/// The `redux.sync` operation combining a warp's accumulators, for the reductions it supports (32-bit integer
/// operands only).
fn redux_op(op: ReduceOp, ty: Scalar) -> Option<&'static str> {
    let int32 = matches!(ty, Scalar::I32 | Scalar::U32 | Scalar::Node);
    Some(match (op, ty) {
        (ReduceOp::Any, Scalar::Bool) => "or",
        (ReduceOp::All, Scalar::Bool) => "and",
        (ReduceOp::Sum, _) if int32 => "add",
        (ReduceOp::Min, Scalar::I32) => "min",
        (ReduceOp::Max, Scalar::I32) => "max",
        (ReduceOp::Min, _) if int32 => "umin",
        (ReduceOp::Max, _) if int32 => "umax",
        _ => return None,
    })
}
