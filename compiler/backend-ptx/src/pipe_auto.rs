//! `hybrid W above auto` inside an outlined pipe's persistent kernel: `irgc_artifact::AutoHybrid`'s decision and
//! update, the same `f64` formulas as the host's, in LLVM IR.
//!
//! Every thread decides from copy `r % 2` of the estimates in the state area (round `r` from 0), which thread 0
//! wrote two rounds earlier with grid barriers since, so all take the same branch. They are read at the round's
//! head, beside the worklist's count, so the two reads' latencies overlap. Only thread 0 times the branch
//! (`%globaltimer` before it and after its last grid barrier) and keeps the current estimates in registers; after
//! the branch it writes them to copy `r % 2` (every thread has decided by then: the branch's first launch ends
//! with a grid barrier), and to copy 0 when the kernel ends, for the host (`PipeState::auto_words`). A small
//! round that block 0 runs alone (`crate::pipe_solo`) goes sparse without deciding and is not timed.

use crate::lower::Lower;
use crate::PtxError;
use inkwell::values::{FloatValue, IntValue, PointerValue};
use inkwell::{FloatPredicate, IntPredicate};
use irgc_artifact::{AutoHybrid, PipeState};

/// Registers holding one `hybrid`'s estimates, in `AutoHybrid::to_words` order: thread 0's current ones, and
/// every thread's copy of this round's (the ones it decides from).
#[derive(Clone, Copy)]
pub(crate) struct AutoRegs<'c> {
    regs: [PointerValue<'c>; AutoHybrid::WORDS],
    now: [PointerValue<'c>; AutoHybrid::WORDS],
}

/// Where a pipe's estimates live in its state area.
#[derive(Clone, Copy)]
pub(crate) struct AutoLayout {
    pub locals: usize,
    pub reductions: usize,
}

impl AutoLayout {
    fn word(&self, k: usize, slot: usize) -> usize {
        PipeState::auto_words(self.locals, self.reductions, k, slot)
    }
}

impl<'c> Lower<'c, '_> {
    /// Registers for the estimates of `hybrids` `hybrid`s, loaded from copy 0 (every thread loads them; only
    /// thread 0's are used).
    pub(crate) fn auto_regs(
        &mut self,
        state: PointerValue<'c>,
        at: AutoLayout,
        hybrids: usize,
    ) -> Result<Vec<AutoRegs<'c>>, PtxError> {
        let (i64t, f64t) = (self.c.i64_type(), self.c.f64_type());
        (0..hybrids)
            .map(|k| {
                let mut regs = Vec::with_capacity(AutoHybrid::WORDS);
                for i in 0..AutoHybrid::WORDS {
                    let reg = self.alloca(f64t.into(), &format!("auto{k}.{i}"))?;
                    let addr = self.state_word(state, i64t.const_int((at.word(k, 0) + i) as u64, false))?;
                    let bits = self.b.build_load(i64t, addr, "")?.into_int_value();
                    self.b.build_store(reg, self.b.build_bit_cast(bits, f64t, "")?)?;
                    regs.push(reg);
                }
                let now: Vec<PointerValue<'c>> = (0..AutoHybrid::WORDS)
                    .map(|i| self.alloca(f64t.into(), &format!("auto{k}.now{i}")))
                    .collect::<Result<_, _>>()?;
                let bad = |_| PtxError::Llvm("auto registers".into());
                Ok(AutoRegs { regs: regs.try_into().map_err(bad)?, now: now.try_into().map_err(bad)? })
            })
            .collect()
    }

    /// The address of word `i` of copy `slot` (0 or 1, a register) of `hybrid` `k`'s estimates.
    fn auto_word(
        &mut self,
        state: PointerValue<'c>,
        at: AutoLayout,
        k: usize,
        slot: IntValue<'c>,
        i: usize,
    ) -> Result<PointerValue<'c>, PtxError> {
        let i64t = self.c.i64_type();
        let off = self.b.build_int_mul(slot, i64t.const_int(AutoHybrid::WORDS as u64, false), "")?;
        let off = self.b.build_int_add(off, i64t.const_int((at.word(k, 0) + i) as u64, false), "")?;
        self.state_word(state, off)
    }

    /// At round `round`'s head: every thread reads copy `round % 2` of `hybrid` `k`'s estimates (a relaxed GPU-scope load: thread
    /// 0 wrote them) into its registers.
    pub(crate) fn auto_read(
        &mut self,
        state: PointerValue<'c>,
        at: AutoLayout,
        k: usize,
        round: IntValue<'c>,
        regs: AutoRegs<'c>,
    ) -> Result<(), PtxError> {
        let (i64t, f64t) = (self.c.i64_type(), self.c.f64_type());
        let slot = self.b.build_and(round, i64t.const_int(1, false), "auto_slot")?;
        for i in 0..AutoHybrid::WORDS {
            let addr = self.auto_word(state, at, k, slot, i)?;
            let bits = self.relaxed_load(addr, "auto")?;
            self.b.build_store(regs.now[i], self.b.build_bit_cast(bits, f64t, "")?)?;
        }
        Ok(())
    }

    /// Whether every thread runs `dense` this round, from this round's estimates (read at the head), for `size`
    /// items (`AutoHybrid::dense`).
    pub(crate) fn auto_decide(
        &mut self,
        regs: AutoRegs<'c>,
        size: IntValue<'c>,
        nodes: IntValue<'c>,
    ) -> Result<IntValue<'c>, PtxError> {
        let f64t = self.c.f64_type();
        let mut w = Vec::with_capacity(AutoHybrid::WORDS);
        for i in 0..AutoHybrid::WORDS {
            w.push(self.b.build_load(f64t, regs.now[i], "")?.into_float_value());
        }
        // w[0] and w[1] (the anchor) shape the line in `auto_update`; the decision needs only the line and `dense`.
        let (base, per, dense) = (w[2], w[3], w[4]);
        let x = self.b.build_unsigned_int_to_float(size, f64t, "x")?;
        let n = self.b.build_unsigned_int_to_float(nodes, f64t, "n")?;
        let explore = f64t.const_float(AutoHybrid::EXPLORE);
        let known_sparse = self.b.build_float_compare(FloatPredicate::ORD, per, per, "")?;
        let known_dense = self.b.build_float_compare(FloatPredicate::ORD, dense, dense, "")?;
        // Both measured: the cheaper, sparse predicted by its line.
        let per_x = self.b.build_float_mul(per, x, "")?;
        let sx = self.b.build_float_add(base, per_x, "")?;
        let both = self.b.build_float_compare(FloatPredicate::OLT, dense, sx, "")?;
        // Dense not yet measured: tried once the worklist holds `nodes / EXPLORE` items.
        let explore_x = self.b.build_float_mul(explore, x, "")?;
        let only_sparse = self.b.build_float_compare(FloatPredicate::OGE, explore_x, n, "")?;
        // Nothing measured: sparse. (Dense is never measured before sparse, so a known dense implies a line.)
        let untried = self.b.build_and(known_sparse, only_sparse, "")?;
        Ok(self.b.build_select(known_dense, both, untried, "auto_dense")?.into_int_value())
    }

    /// Thread 0 (the caller branches): takes in a round that ran `dense` (or not) over `size` items in `ns`
    /// nanoseconds (`AutoHybrid::update`), then writes the estimates to copy `slot`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn auto_update(
        &mut self,
        state: PointerValue<'c>,
        at: AutoLayout,
        k: usize,
        slot: IntValue<'c>,
        regs: AutoRegs<'c>,
        dense: IntValue<'c>,
        size: IntValue<'c>,
        ns: IntValue<'c>,
    ) -> Result<(), PtxError> {
        let f64t = self.c.f64_type();
        let load = |me: &mut Self, i: usize| -> Result<FloatValue<'c>, PtxError> {
            Ok(me.b.build_load(f64t, regs.regs[i], "")?.into_float_value())
        };
        let (last_size, last_sparse, base0, per0, dense0) =
            (load(self, 0)?, load(self, 1)?, load(self, 2)?, load(self, 3)?, load(self, 4)?);
        let t = self.b.build_unsigned_int_to_float(ns, f64t, "ns")?;
        let x = self.b.build_unsigned_int_to_float(size, f64t, "")?;
        let one = f64t.const_float(1.0);
        let zero = f64t.const_zero();
        let gt1 = self.b.build_float_compare(FloatPredicate::OGT, x, one, "")?;
        let x1 = self.b.build_select(gt1, x, one, "")?.into_float_value();
        // The line through the anchor if this size is far from it (at least twice, at most half), the old slope
        // through this round if near, through the origin for a first round.
        let two = f64t.const_float(2.0);
        let anchored = self.b.build_float_compare(FloatPredicate::ORD, last_size, last_size, "")?;
        let twice = self.b.build_float_mul(two, last_size, "")?;
        let above = self.b.build_float_compare(FloatPredicate::OGE, x, twice, "")?;
        let x2 = self.b.build_float_mul(two, x, "")?;
        let below = self.b.build_float_compare(FloatPredicate::OLE, x2, last_size, "")?;
        let far = self.b.build_or(above, below, "")?;
        let line = self.b.build_and(anchored, far, "")?;
        let near = self.b.build_and(anchored, self.b.build_not(far, "")?, "")?;
        let dt = self.b.build_float_sub(t, last_sparse, "")?;
        let dxs = self.b.build_float_sub(x, last_size, "")?;
        let per_line = self.b.build_float_div(dt, dxs, "")?;
        let px = self.b.build_float_mul(per_line, x, "")?;
        let base_line = self.b.build_float_sub(t, px, "")?;
        let px0 = self.b.build_float_mul(per0, x, "")?;
        let base_near = self.b.build_float_sub(t, px0, "")?;
        let per_origin = self.b.build_float_div(t, x1, "")?;
        let per_else = self.b.build_select(near, per0, per_origin, "")?.into_float_value();
        let base_else = self.b.build_select(near, base_near, zero, "")?.into_float_value();
        let mut per = self.b.build_select(line, per_line, per_else, "")?.into_float_value();
        let mut base = self.b.build_select(line, base_line, base_else, "")?.into_float_value();
        let neg = self.b.build_float_compare(FloatPredicate::OLT, per, zero, "")?;
        per = self.b.build_select(neg, zero, per, "")?.into_float_value();
        base = self.b.build_select(neg, t, base, "")?.into_float_value();
        let negb = self.b.build_float_compare(FloatPredicate::OLT, base, zero, "")?;
        per = self.b.build_select(negb, per_origin, per, "")?.into_float_value();
        base = self.b.build_select(negb, zero, base, "")?.into_float_value();
        // A dense round changes only `dense`.
        let pick = |me: &mut Self, on_dense: FloatValue<'c>, on_sparse: FloatValue<'c>| {
            Ok::<_, PtxError>(me.b.build_select(dense, on_dense, on_sparse, "")?.into_float_value())
        };
        // The anchor moves to this round unless it was near the anchor.
        let keep_size = self.b.build_select(near, last_size, x, "")?.into_float_value();
        let keep_time = self.b.build_select(near, last_sparse, t, "")?.into_float_value();
        let new = [
            pick(self, last_size, keep_size)?,
            pick(self, last_sparse, keep_time)?,
            pick(self, base0, base)?,
            pick(self, per0, per)?,
            pick(self, t, dense0)?,
        ];
        for (i, v) in new.into_iter().enumerate() {
            self.b.build_store(regs.regs[i], v)?;
        }
        self.auto_store(state, at, k, slot, regs)
    }

    /// Writes thread 0's estimates of `hybrid` `k` to copy `slot`.
    pub(crate) fn auto_store(
        &mut self,
        state: PointerValue<'c>,
        at: AutoLayout,
        k: usize,
        slot: IntValue<'c>,
        regs: AutoRegs<'c>,
    ) -> Result<(), PtxError> {
        let (i64t, f64t) = (self.c.i64_type(), self.c.f64_type());
        for i in 0..AutoHybrid::WORDS {
            let v = self.b.build_load(f64t, regs.regs[i], "")?.into_float_value();
            let bits = self.b.build_bit_cast(v, i64t, "")?.into_int_value();
            let addr = self.auto_word(state, at, k, slot, i)?;
            self.b.build_store(addr, bits)?;
        }
        Ok(())
    }

    /// `%globaltimer`, ns.
    pub(crate) fn global_timer(&mut self) -> Result<IntValue<'c>, PtxError> {
        let t = self.call_intrinsic("llvm.nvvm.read.ptx.sreg.globaltimer", self.c.i64_type().into(), &[])?;
        self.int(t)
    }

    /// `a - b` for two timer reads (0 if the clock went back).
    pub(crate) fn elapsed(&mut self, a: IntValue<'c>, b: IntValue<'c>) -> Result<IntValue<'c>, PtxError> {
        let later = self.b.build_int_compare(IntPredicate::UGE, a, b, "")?;
        let d = self.b.build_int_sub(a, b, "")?;
        Ok(self.b.build_select(later, d, self.c.i64_type().const_zero(), "")?.into_int_value())
    }
}
