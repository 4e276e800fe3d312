//! The values of a nested loop that pass between an owner and its helpers (`crate::nested`): the live-ins a
//! helper takes over (saved, published as 64 bits, restored), and the combined locals — each helper's partial
//! starts from the operator's identity and is combined into the owner's value across the warp (`shfl`: a
//! butterfly for a full warp, one lane at a time otherwise) or the block (a butterfly per warp, then one atomic
//! per warp on the owner's shared slot, a compare-and-swap loop for float minima and maxima). Also the
//! block-shared slot arrays both levels use.

use crate::lower::{Lower, SHARED};
use crate::types;
use crate::PtxError;
use inkwell::module::Linkage;
use inkwell::types::BasicType;
use inkwell::values::{BasicValueEnum, IntValue, PointerValue};
use inkwell::{AddressSpace, AtomicOrdering, AtomicRMWBinOp, IntPredicate};
use irgc_front::ir::{CombineOp, Combined, Handle, Local, LocalType, ReduceOp, Scalar};

impl<'c> Lower<'c, '_> {
    /// Copies of the current values of `locals`, to put back with [`Lower::restore`].
    pub(crate) fn save(
        &mut self,
        locals: &[Handle<Local>],
    ) -> Result<Vec<(Handle<Local>, BasicValueEnum<'c>)>, PtxError> {
        locals.iter().map(|&l| Ok((l, self.read_local(l)?))).collect()
    }

    pub(crate) fn restore(&mut self, saved: &[(Handle<Local>, BasicValueEnum<'c>)]) -> Result<(), PtxError> {
        saved.iter().try_for_each(|&(l, v)| self.write_local(l, v))
    }

    pub(crate) fn reset_combined(&mut self, combine: &[Combined]) -> Result<(), PtxError> {
        for c in combine {
            let ty = self.scalar_of(c.local)?;
            let id = self.identity(c.op, ty);
            self.write_local(c.local, id)?;
        }
        Ok(())
    }

    pub(crate) fn scalar_of(&self, l: Handle<Local>) -> Result<Scalar, PtxError> {
        match self.body.locals[l].ty {
            LocalType::Scalar(s) => Ok(s),
            LocalType::ArrayRef(_) => self.malformed("a combined local or loop variable of array type"),
        }
    }

    pub(crate) fn identity(&self, op: CombineOp, ty: Scalar) -> BasicValueEnum<'c> {
        types::constant(self.c, ty, op.identity_bits(ty))
    }

    /// `a op b` in type `ty`.
    pub(crate) fn combine_values(
        &mut self,
        op: CombineOp,
        ty: Scalar,
        a: BasicValueEnum<'c>,
        b: BasicValueEnum<'c>,
    ) -> Result<BasicValueEnum<'c>, PtxError> {
        use irgc_front::ir::BinaryOp as B;
        Ok(match op {
            CombineOp::Sum => self.binary(B::Add, ty, a, b)?,
            CombineOp::Or => self.binary(B::BitOr, ty, a, b)?,
            CombineOp::And => self.binary(B::BitAnd, ty, a, b)?,
            // Selected on an ordered comparison, exactly as a kernel's `min`/`max` reduction combines.
            CombineOp::Min => self.combine(ReduceOp::Min, ty, a, b)?,
            CombineOp::Max => self.combine(ReduceOp::Max, ty, a, b)?,
        })
    }

    /// A local's value as 64 bits (ABI bits for scalars, the address for array references).
    pub(crate) fn local_bits(&self, l: Handle<Local>, v: BasicValueEnum<'c>) -> Result<IntValue<'c>, PtxError> {
        match self.body.locals[l].ty {
            LocalType::Scalar(s) => self.value_to_bits(s, v),
            LocalType::ArrayRef(_) => Ok(self.b.build_ptr_to_int(v.into_pointer_value(), self.c.i64_type(), "")?),
        }
    }

    pub(crate) fn bits_local(&self, l: Handle<Local>, bits: IntValue<'c>) -> Result<BasicValueEnum<'c>, PtxError> {
        match self.body.locals[l].ty {
            LocalType::Scalar(s) => self.bits_to_value(s, bits),
            LocalType::ArrayRef(_) => {
                let ty = self.c.ptr_type(AddressSpace::from(crate::lower::GLOBAL));
                Ok(self.b.build_int_to_ptr(bits, ty, "")?.into())
            }
        }
    }

    /// `shfl.sync.idx` of a 64-bit value from lane `src` (two 32-bit shuffles).
    pub(crate) fn shfl(
        &self,
        mask: IntValue<'c>,
        v: IntValue<'c>,
        src: IntValue<'c>,
    ) -> Result<IntValue<'c>, PtxError> {
        self.shfl_mode("idx", mask, v, src)
    }

    /// `shfl.sync.MODE` of a 64-bit value (`idx`: from lane `arg`; `bfly`: from lane `laneid ^ arg`).
    pub(crate) fn shfl_mode(
        &self,
        mode: &str,
        mask: IntValue<'c>,
        v: IntValue<'c>,
        src: IntValue<'c>,
    ) -> Result<IntValue<'c>, PtxError> {
        let (i32t, i64t) = (self.c.i32_type(), self.c.i64_type());
        let clamp = i32t.const_int(31, false);
        let lo = self.b.build_int_truncate(v, i32t, "")?;
        let hi = self.b.build_right_shift(v, i64t.const_int(32, false), false, "")?;
        let hi = self.b.build_int_truncate(hi, i32t, "")?;
        let one = |x: IntValue<'c>| -> Result<IntValue<'c>, PtxError> {
            let args = [mask.into(), x.into(), src.into(), clamp.into()];
            Ok(self.call_intrinsic(&format!("llvm.nvvm.shfl.sync.{mode}.i32"), i32t.into(), &args)?.into_int_value())
        };
        let (lo, hi) = (one(lo)?, one(hi)?);
        let lo = self.b.build_int_z_extend(lo, i64t, "")?;
        let hi = self.b.build_int_z_extend(hi, i64t, "")?;
        let hi = self.b.build_left_shift(hi, i64t.const_int(32, false), "")?;
        Ok(self.b.build_or(hi, lo, "")?)
    }

    /// The combination of a combined local over the lanes of `mask` (every lane computes it): a five-step
    /// butterfly (`shfl.bfly`) when the whole warp is there, else one `shfl` per lane of the mask.
    pub(crate) fn warp_total(
        &mut self,
        mask: IntValue<'c>,
        c: &Combined,
        ty: Scalar,
    ) -> Result<BasicValueEnum<'c>, PtxError> {
        let i32t = self.c.i32_type();
        let mine = self.read_local(c.local)?;
        let total = self.alloca(types::reg(self.c, ty), "np_total")?;
        let full = self.b.build_int_compare(IntPredicate::EQ, mask, i32t.const_all_ones(), "full")?;
        self.if_else(
            full,
            |me| {
                let mut t = mine;
                for k in [16u64, 8, 4, 2, 1] {
                    let bits = me.value_to_bits(ty, t)?;
                    let got = me.shfl_mode("bfly", mask, bits, i32t.const_int(k, false))?;
                    let got = me.bits_to_value(ty, got)?;
                    t = me.combine_values(c.op, ty, t, got)?;
                }
                me.b.build_store(total, t)?;
                Ok(())
            },
            |me| me.warp_total_partial(mask, c, ty, total),
        )?;
        Ok(self.b.build_load(types::reg(self.c, ty), total, "")?)
    }

    /// [`Lower::warp_total`] over a partial mask: one `shfl` per lane, in lane order; the result goes to `total`.
    fn warp_total_partial(
        &mut self,
        mask: IntValue<'c>,
        c: &Combined,
        ty: Scalar,
        total: PointerValue<'c>,
    ) -> Result<(), PtxError> {
        let i32t = self.c.i32_type();
        let mine = self.read_local(c.local)?;
        let mine = self.value_to_bits(ty, mine)?;
        self.b.build_store(total, self.identity(c.op, ty))?;
        let rest = self.alloca(i32t.into(), "np_lanes")?;
        self.b.build_store(rest, mask)?;
        let (head, body, exit) = (self.block("np.sum"), self.block("np.sum.lane"), self.block("np.sum.done"));
        self.b.build_unconditional_branch(head)?;
        self.b.position_at_end(head);
        let m = self.b.build_load(i32t, rest, "")?.into_int_value();
        let done = self.b.build_int_compare(IntPredicate::EQ, m, i32t.const_zero(), "")?;
        self.b.build_conditional_branch(done, exit, body)?;
        self.b.position_at_end(body);
        let nonzero = self.c.bool_type().const_all_ones().into();
        let k = self.call_intrinsic("llvm.cttz.i32", i32t.into(), &[m.into(), nonzero])?.into_int_value();
        let m1 = self.b.build_int_sub(m, i32t.const_int(1, false), "")?;
        let next = self.b.build_and(m, m1, "")?;
        self.b.build_store(rest, next)?;
        let got = self.shfl(mask, mine, k)?;
        let got = self.bits_to_value(ty, got)?;
        let t = self.b.build_load(types::reg(self.c, ty), total, "")?;
        let t = self.combine_values(c.op, ty, t, got)?;
        self.b.build_store(total, t)?;
        self.b.build_unconditional_branch(head)?;
        self.b.position_at_end(exit);
        Ok(())
    }

    /// Combines the combined locals of the whole warp (every lane is here) into owner `o`'s shared slots: a
    /// butterfly over the warp, then one atomic per warp from lane 0. One atomic per helper instead made 256
    /// threads of a block queue on one shared word every round, which cost more than the block level saved
    /// (`pagerank_pull` on kron22, one H200: 16.4 ms with the warp schedule, 21.0 with the block's per-thread
    /// atomics, 14.0 with one atomic per warp).
    pub(crate) fn combine_warp_into_slots(
        &mut self,
        combine: &[Combined],
        slots: &[PointerValue<'c>],
        o: IntValue<'c>,
        lane: IntValue<'c>,
    ) -> Result<(), PtxError> {
        let full = self.c.i32_type().const_all_ones();
        for c in combine {
            let ty = self.scalar_of(c.local)?;
            let total = self.warp_total(full, c, ty)?;
            self.write_local(c.local, total)?;
        }
        let first = self.b.build_int_compare(IntPredicate::EQ, lane, lane.get_type().const_zero(), "lane0")?;
        self.if_then(first, |me| me.combine_into_slots(combine, slots, o))
    }

    /// Combines this thread's combined locals into owner `o`'s shared slots (atomically: many helpers at once).
    pub(crate) fn combine_into_slots(
        &mut self,
        combine: &[Combined],
        slots: &[PointerValue<'c>],
        o: IntValue<'c>,
    ) -> Result<(), PtxError> {
        for (c, &sh) in combine.iter().zip(slots) {
            let ty = self.scalar_of(c.local)?;
            let v = self.read_local(c.local)?;
            let v = self.to_slot(ty, v)?;
            let addr = self.slot_addr_of(sh, o, slot_type(ty))?;
            if c.op == CombineOp::Sum && ty.is_float() {
                self.fadd(ty, addr, SHARED, v)?;
                continue;
            }
            let op = match (c.op, ty) {
                (CombineOp::Sum, _) => Some(AtomicRMWBinOp::Add),
                (CombineOp::Or, _) => Some(AtomicRMWBinOp::Or),
                (CombineOp::And, _) => Some(AtomicRMWBinOp::And),
                (CombineOp::Min | CombineOp::Max, Scalar::F32 | Scalar::F64) => None,
                (CombineOp::Min, s) if s.is_signed() => Some(AtomicRMWBinOp::Min),
                (CombineOp::Min, _) => Some(AtomicRMWBinOp::UMin),
                (CombineOp::Max, s) if s.is_signed() => Some(AtomicRMWBinOp::Max),
                (CombineOp::Max, _) => Some(AtomicRMWBinOp::UMax),
            };
            match op {
                Some(op) => {
                    self.b.build_atomicrmw(op, addr, self.int(v)?, AtomicOrdering::Monotonic)?;
                }
                None => self.cas_combine(c.op, ty, addr, v)?,
            }
        }
        Ok(())
    }

    /// `*addr = *addr op v` for a float min or max, by a compare-and-swap loop on the bits. Not the atomics'
    /// `float_min_max`: that one keeps the old value unless `v` is better, while a combined local follows
    /// `x = min(x, v)`, which selects `v` whenever `x < v` is false (they differ when `x` is NaN).
    fn cas_combine(
        &mut self,
        op: CombineOp,
        ty: Scalar,
        addr: PointerValue<'c>,
        v: BasicValueEnum<'c>,
    ) -> Result<(), PtxError> {
        let it = types::bits_int(self.c, ty);
        let (head, exit) = (self.block("np.cas"), self.block("np.cas.done"));
        let cur = self.b.build_load(it, addr, "")?.into_int_value();
        let from = self.b.get_insert_block().ok_or_else(|| PtxError::Llvm("no block".into()))?;
        self.b.build_unconditional_branch(head)?;
        self.b.position_at_end(head);
        let phi = self.b.build_phi(it, "")?;
        phi.add_incoming(&[(&cur, from)]);
        let old = phi.as_basic_value().into_int_value();
        let old_v = self.b.build_bit_cast(old, types::reg(self.c, ty), "")?;
        let new_v = self.combine_values(op, ty, old_v, v)?;
        let new = self.b.build_bit_cast(new_v, it, "")?.into_int_value();
        let pair = self.b.build_cmpxchg(addr, old, new, AtomicOrdering::Monotonic, AtomicOrdering::Monotonic)?;
        let seen = self.b.build_extract_value(pair, 0, "")?.into_int_value();
        let ok = self.b.build_extract_value(pair, 1, "")?.into_int_value();
        let here = self.b.get_insert_block().ok_or_else(|| PtxError::Llvm("no block".into()))?;
        phi.add_incoming(&[(&seen, here)]);
        self.b.build_conditional_branch(ok, exit, head)?;
        self.b.position_at_end(exit);
        Ok(())
    }

    /// A value as its shared slot holds it (bool as an `i32`).
    pub(crate) fn to_slot(&self, ty: Scalar, v: BasicValueEnum<'c>) -> Result<BasicValueEnum<'c>, PtxError> {
        Ok(if ty == Scalar::Bool { self.b.build_int_z_extend(self.int(v)?, self.c.i32_type(), "")?.into() } else { v })
    }

    pub(crate) fn slot_to_value(&self, ty: Scalar, v: BasicValueEnum<'c>) -> Result<BasicValueEnum<'c>, PtxError> {
        Ok(if ty == Scalar::Bool {
            self.b.build_int_compare(IntPredicate::NE, self.int(v)?, self.c.i32_type().const_zero(), "")?.into()
        } else {
            v
        })
    }

    /// A new block-shared array of `len` elements of `ty` (internal to this module, one per use).
    pub(crate) fn shared_slots(&self, ty: Scalar, len: u32, name: &str) -> Result<PointerValue<'c>, PtxError> {
        let aty = types::mem(self.c, ty).array_type(len);
        Ok(self.module_array(aty, SHARED, &format!("irgc.{name}"), false))
    }

    /// The `k`-th block-shared array called `name` of `len` elements of `ty` of this function, created on first use
    /// and shared by all its `block` (or `fine`) loops. Safe because those loops run one after another, each by the
    /// whole block, never nested: a loop's thread writes only its own slots before the barrier that publishes them,
    /// and every read of another thread's slot (or of a window, or the owner words) comes before the barrier that
    /// ends the loop, which every thread passes before it writes the next loop's slots.
    pub(crate) fn pooled_slots(
        &mut self,
        ty: Scalar,
        len: u32,
        name: &'static str,
        k: usize,
    ) -> Result<PointerValue<'c>, PtxError> {
        let key = (name, format!("{ty:?}"), len, k);
        if let Some(&p) = self.shared_pool.get(&key) {
            return Ok(p);
        }
        let p = self.shared_slots(ty, len, name)?;
        self.shared_pool.insert(key, p);
        Ok(p)
    }

    /// A new internal module-level array of type `aty` in address space `space`, named `{prefix}.{i}` with the
    /// first free `i`, 8-byte aligned; zeroed if `zeroed`, else undefined until written.
    pub(crate) fn module_array(
        &self,
        aty: inkwell::types::ArrayType<'c>,
        space: u16,
        prefix: &str,
        zeroed: bool,
    ) -> PointerValue<'c> {
        let mut i = 0;
        while self.lm.get_global(&format!("{prefix}.{i}")).is_some() {
            i += 1;
        }
        let gv = self.lm.add_global(aty, Some(AddressSpace::from(space)), &format!("{prefix}.{i}"));
        gv.set_linkage(Linkage::Internal);
        gv.set_initializer(&if zeroed { aty.const_zero() } else { aty.get_undef() });
        gv.set_alignment(8);
        gv.as_pointer_value()
    }

    /// The address of element `i` (a thread index of the block, or 0/1 for the owner words) of a shared array.
    pub(crate) fn slot_addr_of(
        &mut self,
        arr: PointerValue<'c>,
        i: IntValue<'c>,
        ty: Scalar,
    ) -> Result<PointerValue<'c>, PtxError> {
        self.element(arr, i, ty, SHARED)
    }

    pub(crate) fn store_slot(
        &mut self,
        arr: PointerValue<'c>,
        i: IntValue<'c>,
        ty: Scalar,
        v: BasicValueEnum<'c>,
    ) -> Result<(), PtxError> {
        let addr = self.slot_addr_of(arr, i, ty)?;
        self.b.build_store(addr, v)?;
        Ok(())
    }

    pub(crate) fn load_slot(
        &mut self,
        arr: PointerValue<'c>,
        i: IntValue<'c>,
        ty: Scalar,
    ) -> Result<BasicValueEnum<'c>, PtxError> {
        let addr = self.slot_addr_of(arr, i, ty)?;
        Ok(self.b.build_load(types::mem(self.c, ty), addr, "")?)
    }
}

/// The element type of a combined local's shared slots (bool as a `u32`, which has atomics).
pub(crate) fn slot_type(ty: Scalar) -> Scalar {
    if ty == Scalar::Bool {
        Scalar::U32
    } else {
        ty
    }
}
