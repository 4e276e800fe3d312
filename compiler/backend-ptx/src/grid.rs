//! The grid level of a `block` loop: in a small round of an outlined pipe (one dealt out a block per item, see
//! `kernel.rs`), a range of at least [`GRID_MIN`] iterations is shared by every block of the grid, not only its
//! own. A hub released in a round of its own would otherwise take one block's 256 threads while the rest of the
//! grid waits at the round's barrier (JP-LDF on kron22: a round per step of the hubs' priority chain).
//!
//! Only where every block of the grid is resident (a step of an outlined pipe or loop: a cooperative launch) and
//! reaches the loop exactly once (the dealt round), and only for loops without combined locals (their partial
//! results would need a grid-wide combine the owner waits for).
//!
//! # Protocol (a zeroed `.global` board per loop)
//! 1. *Publish.* A thread whose range is that long takes a record (`atomic_add` on the board's count) and writes
//!    its range and live-ins there, and empties its own range (the block and warp levels then skip it). More than
//!    [`RECORDS`] such ranges in one round: the rest stay with their blocks.
//! 2. A grid barrier (the board's own word). If no range was published, that is all.
//! 3. *Share.* The records' ranges are cut into chunks of [`CHUNK`] iterations; blocks take chunks in turn
//!    (`atomic_add` on the board's cursor, by thread 0) and stride over each with all their threads, the owner's
//!    live-ins in place of their own, until none is left.
//! 4. A second grid barrier (every chunk done, its writes visible to the owner after the loop), then block 0
//!    zeroes the count and the cursor for the next round, which starts after the pipe's own barrier.

use crate::grid_barrier::Poll;
use crate::lower::{Lower, GLOBAL};
use crate::nested::NestedLoop;
use crate::PtxError;
use inkwell::values::{IntValue, PointerValue};
use inkwell::{AtomicOrdering, AtomicRMWBinOp, IntPredicate};
use irgc_front::ir::Scalar;

/// Iterations a block takes at a time.
const CHUNK: u64 = 4 * crate::FORALL_MAX_THREADS as u64;
/// The length from which a range is shared with the grid: four chunks, so at least four blocks help.
const GRID_MIN: u64 = 4 * CHUNK;
/// Records per board (ranges shared in one round).
const RECORDS: u64 = 64;
/// The board's words: the barrier's counter, the records taken, the next chunk; records start at `HEAD`.
const BARRIER: u64 = 0;
const COUNT: u64 = 1;
const CURSOR: u64 = 2;
const HEAD: u64 = 4;

impl<'c> Lower<'c, '_> {
    /// Steps 1–4 of the module docs for loop `lp`, whose range in this thread is `*s_own`, `*n_own` (emptied when
    /// published). Every thread of every block runs it.
    pub(crate) fn grid_level(
        &mut self,
        lp: &NestedLoop<'_>,
        s_own: PointerValue<'c>,
        n_own: PointerValue<'c>,
    ) -> Result<(), PtxError> {
        let i64t = self.c.i64_type();
        let k = |v: u64| i64t.const_int(v, false);
        let live = self.live_ins(lp);
        let width = 2 + live.len() as u64;
        let board = self.board(HEAD + RECORDS * width)?;

        // 1. Publish.
        let n = self.b.build_load(i64t, n_own, "")?.into_int_value();
        let big = self.b.build_int_compare(IntPredicate::UGE, n, k(GRID_MIN), "grid_big")?;
        let saved = self.save(&live)?;
        self.if_then(big, |me| {
            let count = me.word(board, k(COUNT))?;
            let slot = me.b.build_atomicrmw(AtomicRMWBinOp::Add, count, k(1), AtomicOrdering::Monotonic)?;
            let fits = me.b.build_int_compare(IntPredicate::ULT, slot, k(RECORDS), "")?;
            me.if_then(fits, |me| {
                let base = me.record(slot, width)?;
                let s = me.b.build_load(i64t, s_own, "")?.into_int_value();
                me.board_store(board, base, 0, s)?;
                me.board_store(board, base, 1, n)?;
                for (j, &(l, v)) in saved.iter().enumerate() {
                    let bits = me.local_bits(l, v)?;
                    me.board_store(board, base, 2 + j as u64, bits)?;
                }
                me.b.build_store(n_own, k(0))?;
                Ok(())
            })
        })?;

        // 2. Everything published is visible to every block after this.
        self.converge_warp()?;
        let bar = self.word(board, k(BARRIER))?;
        self.grid_barrier_on(bar, Poll::Round)?;
        let count_at = self.word(board, k(COUNT))?;
        let count = self.relaxed_load(count_at, "grid_count")?;
        let some = self.b.build_int_compare(IntPredicate::NE, count, k(0), "")?;
        self.if_then(some, |me| {
            let over = me.b.build_int_compare(IntPredicate::UGT, count, k(RECORDS), "")?;
            let records = me.b.build_select(over, k(RECORDS), count, "")?.into_int_value();
            me.share_chunks(lp, board, records, width, &saved)?;
            // 4. Every chunk done; then the board back to zero for the next round.
            me.converge_warp()?;
            let bar = me.word(board, k(BARRIER))?;
            me.grid_barrier_on(bar, Poll::Round)?;
            let (tid, ctaid) = (me.sreg("tid")?, me.sreg("ctaid")?);
            let first = me.b.build_or(tid, ctaid, "")?;
            let first = me.b.build_int_compare(IntPredicate::EQ, first, k(0), "")?;
            me.if_then(first, |me| {
                me.board_store(board, k(COUNT), 0, k(0))?;
                me.board_store(board, k(CURSOR), 0, k(0))
            })
        })
    }

    /// Step 3: the block takes chunks of the `records` published ranges until none is left.
    fn share_chunks(
        &mut self,
        lp: &NestedLoop<'_>,
        board: PointerValue<'c>,
        records: IntValue<'c>,
        width: u64,
        saved: &[(irgc_front::ir::Handle<irgc_front::ir::Local>, inkwell::values::BasicValueEnum<'c>)],
    ) -> Result<(), PtxError> {
        let i64t = self.c.i64_type();
        let k = |v: u64| i64t.const_int(v, false);
        let (tid, ntid) = (self.sreg("tid")?, self.sreg("ntid")?);
        let taken = self.shared_slots(Scalar::U64, 1, "np.chunk")?;
        let (rec, off, acc) = (
            self.alloca(i64t.into(), "grid_rec")?,
            self.alloca(i64t.into(), "grid_off")?,
            self.alloca(i64t.into(), "")?,
        );
        let first = self.b.build_int_compare(IntPredicate::EQ, tid, k(0), "")?;
        self.owner_rounds(
            |me| {
                me.if_then(first, |me| {
                    let cursor = me.word(board, k(CURSOR))?;
                    let c = me.b.build_atomicrmw(AtomicRMWBinOp::Add, cursor, k(1), AtomicOrdering::Monotonic)?;
                    me.store_slot(taken, k(0), Scalar::U64, c.into())
                })?;
                me.block_barrier()?;
                let c = me.load_slot(taken, k(0), Scalar::U64)?.into_int_value();
                // Thread 0 may overwrite the shared word only once every thread has read it.
                me.block_barrier()?;
                // Which record chunk c falls in: the records' chunks follow each other in record order.
                me.b.build_store(rec, k(RECORDS))?;
                me.b.build_store(acc, k(0))?;
                me.counted_loop(k(0), records, k(1), false, false, |me, r| {
                    let base = me.record(r, width)?;
                    let at = me.b.build_int_add(base, k(1), "")?;
                    let n = me.board_load(board, at)?;
                    let chunks = me.b.build_int_add(n, k(CHUNK - 1), "")?;
                    let chunks = me.b.build_int_unsigned_div(chunks, k(CHUNK), "")?;
                    let before = me.b.build_load(i64t, acc, "")?.into_int_value();
                    let after = me.b.build_int_add(before, chunks, "")?;
                    me.b.build_store(acc, after)?;
                    let unset = me.b.build_load(i64t, rec, "")?.into_int_value();
                    let unset = me.b.build_int_compare(IntPredicate::EQ, unset, k(RECORDS), "")?;
                    let within = me.b.build_int_compare(IntPredicate::ULT, c, after, "")?;
                    let here = me.b.build_and(unset, within, "")?;
                    me.if_then(here, |me| {
                        me.b.build_store(rec, r)?;
                        let o = me.b.build_int_sub(c, before, "")?;
                        me.b.build_store(off, o)?;
                        Ok(())
                    })
                })?;
                let r = me.b.build_load(i64t, rec, "")?.into_int_value();
                let none = me.b.build_int_compare(IntPredicate::EQ, r, k(RECORDS), "")?;
                Ok((none, r))
            },
            |me, r| {
                let base = me.record(r, width)?;
                let s = me.board_load(board, base)?;
                let at = me.b.build_int_add(base, k(1), "")?;
                let n = me.board_load(board, at)?;
                for (j, &(l, _)) in saved.iter().enumerate() {
                    let at = me.b.build_int_add(base, k(2 + j as u64), "")?;
                    let bits = me.board_load(board, at)?;
                    let v = me.bits_local(l, bits)?;
                    me.write_local(l, v)?;
                }
                let o = me.b.build_load(i64t, off, "")?.into_int_value();
                let lo = me.b.build_int_mul(o, k(CHUNK), "")?;
                let rest = me.b.build_int_sub(n, lo, "")?;
                let short = me.b.build_int_compare(IntPredicate::ULT, rest, k(CHUNK), "")?;
                let len = me.b.build_select(short, rest, k(CHUNK), "")?.into_int_value();
                let start = me.b.build_int_add(s, lo, "")?;
                me.stride(lp, start, tid, len, ntid, lp.unroll)
            },
        )?;
        self.restore(saved)
    }

    /// A new zeroed `.global` board of `words` 64-bit words, named after the function (steps' names are unique
    /// in the module, so the parts compiled in parallel do not collide).
    fn board(&self, words: u64) -> Result<PointerValue<'c>, PtxError> {
        let aty = self.c.i64_type().array_type(words as u32);
        let f = self.f.get_name().to_string_lossy().replace(['.', '$'], "_");
        Ok(self.module_array(aty, GLOBAL, &format!("irgc.grid.{f}"), true))
    }

    /// The address of word `i` of a board.
    fn word(&mut self, board: PointerValue<'c>, i: IntValue<'c>) -> Result<PointerValue<'c>, PtxError> {
        self.element(board, i, Scalar::U64, GLOBAL)
    }

    /// A relaxed GPU-scope load of word `i` of a board (written by other blocks: past L1).
    fn board_load(&mut self, board: PointerValue<'c>, i: IntValue<'c>) -> Result<IntValue<'c>, PtxError> {
        let w = self.word(board, i)?;
        self.relaxed_load(w, "")
    }

    /// Stores `v` in word `at + j` of a board.
    fn board_store(
        &mut self,
        board: PointerValue<'c>,
        at: IntValue<'c>,
        j: u64,
        v: IntValue<'c>,
    ) -> Result<(), PtxError> {
        let i = if j == 0 { at } else { self.b.build_int_add(at, self.c.i64_type().const_int(j, false), "")? };
        let w = self.word(board, i)?;
        self.b.build_store(w, v)?;
        Ok(())
    }

    /// The first word of record `r`.
    fn record(&self, r: IntValue<'c>, width: u64) -> Result<IntValue<'c>, PtxError> {
        let i64t = self.c.i64_type();
        let at = self.b.build_int_mul(r, i64t.const_int(width, false), "")?;
        Ok(self.b.build_int_add(at, i64t.const_int(HEAD, false), "")?)
    }
}
