//! Per-round records of an outlined pipe's or loop's persistent kernel, for statistics
//! (`irgc_artifact::PipeState::RECORDS`): thread 0 writes, at each round's head, the worklist's count (a pipe's)
//! and `%globaltimer`; in each `hybrid` two bits (ran, ran `dense`) and its threshold × nodes; after the round's
//! first reducing launch, its result. The kernel's end writes one record more, which closes the last round,
//! wherever the loop left (its head, or an exit inside the round). The runtime reads them back after the kernel
//! (`irgc_runtime::RoundRecord`).

use crate::lower::{Lower, GLOBAL};
use crate::PtxError;
use inkwell::values::{BasicValueEnum, FloatValue, IntValue, PointerValue};
use inkwell::{AddressSpace, IntPredicate};
use irgc_artifact::PipeState;
use irgc_front::ir::Scalar;

/// Where thread 0 writes the per-round records: the buffer's address (0: none) and the most rounds it holds, read
/// once at entry.
#[derive(Clone, Copy)]
pub(crate) struct Records<'c> {
    pub base: IntValue<'c>,
    pub rounds: IntValue<'c>,
    /// Words a record (`PipeState::record_words`).
    pub words: u64,
}

impl<'c> Lower<'c, '_> {
    /// The current round (from 0) inside a round, from the count of rounds started (`started`).
    pub(crate) fn current_round(&mut self, started: PointerValue<'c>, name: &str) -> Result<IntValue<'c>, PtxError> {
        let i64t = self.c.i64_type();
        let n = self.b.build_load(i64t, started, "")?.into_int_value();
        Ok(self.b.build_int_sub(n, i64t.const_int(1, false), name)?)
    }

    /// The address of word `i` of record `r`.
    fn record_word(&mut self, rec: Records<'c>, r: IntValue<'c>, i: usize) -> Result<PointerValue<'c>, PtxError> {
        let i64t = self.c.i64_type();
        let at = self.b.build_int_mul(r, i64t.const_int(rec.words, false), "")?;
        let at = self.b.build_int_add(at, i64t.const_int(i as u64, false), "")?;
        let at = self.b.build_int_mul(at, i64t.const_int(8, false), "")?;
        let at = self.b.build_int_add(rec.base, at, "")?;
        Ok(self.b.build_int_to_ptr(at, self.c.ptr_type(AddressSpace::from(GLOBAL)), "record")?)
    }

    /// Whether thread 0 keeps record `r`: records are on and the buffer holds it (it holds one past its rounds).
    fn keeps_record(
        &mut self,
        rec: Records<'c>,
        first: IntValue<'c>,
        r: IntValue<'c>,
    ) -> Result<IntValue<'c>, PtxError> {
        let zero = self.c.i64_type().const_zero();
        let on = self.b.build_int_compare(IntPredicate::NE, rec.base, zero, "")?;
        let fits = self.b.build_int_compare(IntPredicate::ULE, r, rec.rounds, "")?;
        let keep = self.b.build_and(on, fits, "")?;
        Ok(self.b.build_and(keep, first, "keep_record")?)
    }

    /// At the head of round `r` (and at the kernel's end, whose record closes the last round): thread 0 writes the
    /// worklist's count (a pipe's; `None` in a loop, or at the end) and the clock.
    pub(crate) fn record_round_start(
        &mut self,
        rec: Records<'c>,
        first: IntValue<'c>,
        r: IntValue<'c>,
        count: Option<IntValue<'c>>,
    ) -> Result<(), PtxError> {
        let keep = self.keeps_record(rec, first, r)?;
        self.if_then(keep, |me| {
            let now = me.global_timer()?;
            if let Some(count) = count {
                let at = me.record_word(rec, r, PipeState::RECORD_SIZE)?;
                me.b.build_store(at, count)?;
            }
            let at = me.record_word(rec, r, PipeState::RECORD_TIME)?;
            me.b.build_store(at, now)?;
            Ok(())
        })
    }

    /// Thread 0 keeps a reducing launch's result `v` (of type `ty`) as the current round's reduced value, unless an
    /// earlier reducing launch of the round did (`started`: the rounds started). Only thread 0 writes the record,
    /// so it reads its own flag back.
    pub(crate) fn record_reduced(
        &mut self,
        rec: Records<'c>,
        first: IntValue<'c>,
        started: PointerValue<'c>,
        v: BasicValueEnum<'c>,
        ty: Scalar,
    ) -> Result<(), PtxError> {
        let i64t = self.c.i64_type();
        self.in_round_record(rec, first, started, |me, r| {
            let at = me.record_word(rec, r, PipeState::RECORD_HYBRID)?;
            let bits = me.b.build_load(i64t, at, "")?.into_int_value();
            let flag = i64t.const_int(PipeState::RECORD_REDUCED_BIT, false);
            let seen = me.b.build_and(bits, flag, "")?;
            let unseen = me.b.build_int_compare(IntPredicate::EQ, seen, i64t.const_zero(), "")?;
            me.if_then(unseen, |me| {
                me.b.build_store(at, me.b.build_or(bits, flag, "")?)?;
                let x = me.cast(v, ty, Scalar::F64)?;
                let x = me.b.build_bit_cast(x, i64t, "")?;
                let at = me.record_word(rec, r, PipeState::RECORD_REDUCED)?;
                me.b.build_store(at, x)?;
                Ok(())
            })
        })
    }

    /// Runs `write` (given the round) in thread 0 when it keeps the current round's record (`started`: the rounds
    /// started), as the writers inside a round need: as [`Lower::keeps_record`], but never into the record past
    /// the buffer's rounds, which only closes the last kept round.
    fn in_round_record(
        &mut self,
        rec: Records<'c>,
        first: IntValue<'c>,
        started: PointerValue<'c>,
        write: impl FnOnce(&mut Self, IntValue<'c>) -> Result<(), PtxError>,
    ) -> Result<(), PtxError> {
        let r = self.current_round(started, "round")?;
        let keep = self.keeps_record(rec, first, r)?;
        let below = self.b.build_int_compare(IntPredicate::ULT, r, rec.rounds, "")?;
        let keep = self.b.build_and(keep, below, "")?;
        self.if_then(keep, |me| write(me, r))
    }

    /// In the round's `hybrid` number `k` (`started`: the rounds started): thread 0 marks it run, and `dense` if
    /// so, with its threshold × nodes (NaN for `above auto`).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn record_hybrid(
        &mut self,
        rec: Records<'c>,
        first: IntValue<'c>,
        started: PointerValue<'c>,
        k: usize,
        dense: IntValue<'c>,
        above: FloatValue<'c>,
    ) -> Result<(), PtxError> {
        if k >= PipeState::RECORDED_HYBRIDS {
            return Ok(());
        }
        let i64t = self.c.i64_type();
        self.in_round_record(rec, first, started, |me, r| {
            let at = me.record_word(rec, r, PipeState::RECORD_HYBRID)?;
            let bits = me.b.build_load(i64t, at, "")?.into_int_value();
            let ran = i64t.const_int(1 << (2 * k), false);
            let d = me.b.build_int_z_extend(dense, i64t, "")?;
            let d = me.b.build_left_shift(d, i64t.const_int(2 * k as u64 + 1, false), "")?;
            let bits = me.b.build_or(bits, ran, "")?;
            let bits = me.b.build_or(bits, d, "")?;
            me.b.build_store(at, bits)?;
            let at = me.record_word(rec, r, PipeState::RECORD_ABOVE + k)?;
            let above = me.b.build_bit_cast(above, i64t, "")?;
            me.b.build_store(at, above)?;
            Ok(())
        })
    }
}
