//! The grid barrier of an outlined pipe's persistent kernel (and of the grid level, `crate::grid`). It is the
//! one CUDA's cooperative groups use: `bar.sync`; thread 0 of each block arrives with one atomic add on a single
//! word (`atom.add.release.gpu`: every write the block made before the `bar.sync` is visible to whoever sees the
//! add), chosen so that the last arrival flips the word's top bit, and spins until it sees the flip, with an
//! acquire at GPU scope (so every read after the barrier sees those writes, and no stale L1 line); `bar.sync`.
//! One atomic and one polled word a block, alone in its 128-byte line (`PipeState::BARRIER_COUNT`).
//!
//! Measured on an H200 (4,000 rounds of one item, road `bfs_worklist`, grid2k `bfs_worklist`, ms): the earlier
//! form — `membar.gl` (a sequentially consistent fence) around a relaxed add, volatile (system-scope) polls and
//! state loads — 12.3 / 10.2 / 25.6; GPU-scope relaxed loads of the state words 8.0 / 8.9 / 21.8; release add,
//! relaxed polls and a fence after them, barrier word on its own line 7.9 / 8.8 / 21.4; polling with acquire loads
//! 7.0 / 8.8 / 20.7. Acquire polls slow down a block running rounds alone beside blocks that wait long (each poll
//! drops its multiprocessor's L1: 4,000 rounds of one item on block 0, 2.9 → 3.6 ms), so such a wait
//! ([`Poll::Long`]) polls relaxed and acquires once, with a fence, when it sees the flip.

use crate::lower::Lower;
use crate::PtxError;
use inkwell::values::PointerValue;
use inkwell::IntPredicate;
use irgc_artifact::PipeState;

/// How a block's thread 0 waits at a grid barrier.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Poll {
    /// The barrier ends a round: the wait is short. Acquire loads.
    Round,
    /// The block waits while block 0 runs rounds alone (`crate::pipe_solo`): relaxed loads, then one fence.
    Long,
}

impl<'c> Lower<'c, '_> {
    /// A barrier across the whole grid (every block resident: a cooperative launch) on the word `state` (the
    /// pipe's state area) keeps for it. See the module docs.
    pub(crate) fn grid_barrier(&mut self, state: PointerValue<'c>) -> Result<(), PtxError> {
        let count_ptr = self.fixed_word(state, PipeState::BARRIER_COUNT)?;
        self.grid_barrier_on(count_ptr, Poll::Round)
    }

    /// [`Lower::grid_barrier`] for blocks that wait while block 0 runs rounds alone ([`Poll::Long`]).
    pub(crate) fn grid_barrier_long(&mut self, state: PointerValue<'c>) -> Result<(), PtxError> {
        let count_ptr = self.fixed_word(state, PipeState::BARRIER_COUNT)?;
        self.grid_barrier_on(count_ptr, Poll::Long)
    }

    /// [`Lower::grid_barrier`] counting in the word at `count_ptr` (any value to start with: arrivals only flip
    /// its top bit, so it never needs resetting). Every thread of every block must call it.
    pub(crate) fn grid_barrier_on(&mut self, count_ptr: PointerValue<'c>, poll: Poll) -> Result<(), PtxError> {
        let i64t = self.c.i64_type();
        self.barrier()?;
        let tid = self.sreg("tid")?;
        let lead = self.b.build_int_compare(IntPredicate::EQ, tid, i64t.const_zero(), "lead")?;
        let nblocks = self.sreg("nctaid")?;
        let ctaid = self.sreg("ctaid")?;
        self.if_else(
            lead,
            |me| {
                // Block 0 adds 2^63 - (blocks - 1), every other block 1: once all have arrived the count has grown
                // by exactly 2^63, so its top bit has flipped and its low bits are back where they were.
                let top = i64t.const_int(1 << 63, false);
                let first = me.b.build_int_compare(IntPredicate::EQ, ctaid, i64t.const_zero(), "")?;
                let others = me.b.build_int_sub(nblocks, i64t.const_int(1, false), "")?;
                let first_adds = me.b.build_int_sub(top, others, "")?;
                let adds = me.b.build_select(first, first_adds, i64t.const_int(1, false), "")?.into_int_value();
                let arrive = "atom.add.release.gpu.u64 $0, [$1], $2;";
                let old = me.asm_u64(arrive, "=l,l,l,~{memory}", &[count_ptr.into(), adds.into()], "")?;
                let (spin, done) = (me.block("gridbar.spin"), me.block("gridbar.done"));
                me.b.build_unconditional_branch(spin)?;
                me.b.position_at_end(spin);
                let now = match poll {
                    Poll::Round => {
                        me.asm_u64("ld.acquire.gpu.u64 $0, [$1];", "=l,l,~{memory}", &[count_ptr.into()], "")?
                    }
                    Poll::Long => me.relaxed_load(count_ptr, "")?,
                };
                let changed = me.b.build_xor(now, old, "")?;
                let flipped = me.b.build_and(changed, top, "")?;
                let waiting = me.b.build_int_compare(IntPredicate::EQ, flipped, i64t.const_zero(), "")?;
                me.b.build_conditional_branch(waiting, spin, done)?;
                me.b.position_at_end(done);
                if poll == Poll::Long {
                    me.inline_asm(None, "fence.acq_rel.gpu;", "~{memory}", &[], "")?;
                }
                Ok(())
            },
            |_| Ok(()),
        )?;
        self.barrier()
    }
}
