//! Small rounds of an outlined pipe on one block. A round of at most `PipeState::SOLO_ITEMS` items (the runtime's
//! limit; 0 on a skewed graph) is run by block 0 alone, its barriers `bar.sync`, while the other blocks wait at one
//! grid barrier: a round's cost on a road network is mostly that barrier, every block's atomic on one word and a
//! poll. When a round is larger again, or the loop ends, thread 0 writes block 0's registers (rounds, launches,
//! the worklist's and retries' rotation, the reduction rotation, the host locals) to the state's spill words
//! (`PipeState::spill`) and block 0 arrives at that barrier; the others reload them and read the round's head
//! again ([`Lower::solo_head`]). Steps take the number of blocks taking part as a parameter (read where `%nctaid`
//! would be), so a step in such a round strides over the one block. In a pipe with `above auto` switches a small
//! round goes sparse without deciding and is not timed; thread 0, which keeps the estimates, is in block 0 and so
//! runs every round (`Lower::auto_hybrid`).
//!
//! On a target with thread-block clusters (`sm_90` on), "block 0" is the first cluster: its `%cluster_nctarank`
//! blocks (16 on Hopper, the runtime's default; 1 in a launch without clusters) run the small rounds
//! together, each step ended by the cluster's hardware barrier instead of `bar.sync`, and the runtime's limit
//! grows with them (256 items a block). Their registers stay equal to block 0's (every block of the cluster
//! computes them from the same state words), so block 0's thread 0 alone spills them, and each block of the
//! cluster arrives at the grid barrier when the stretch ends.

use crate::lower::{Lower, SoloCounts, SHARED};
use crate::PtxError;
use inkwell::basic_block::BasicBlock;
use inkwell::values::{IntValue, PointerValue};
use inkwell::{AddressSpace, IntPredicate};
use irgc_artifact::PipeState;
use irgc_front::ir::{LocalType, Scalar};

/// A pipe whose small rounds block 0 may run alone ([`PipeState::SOLO_ITEMS`]): the flag, and the registers it
/// hands back to the grid through the spill words when it stops.
pub(crate) struct Solo<'c> {
    pub flag: PointerValue<'c>,
    /// The most items of a round run alone (from the state area).
    max: IntValue<'c>,
    /// The first spill word (the flag that the loop ended; the registers follow).
    base: usize,
    /// The registers spilled, and whether each is a `bool`.
    regs: Vec<(PointerValue<'c>, bool)>,
    /// The register of the worklist's current count and that of its state-word index (read again from the
    /// state area by a block let go, since the pipe's head takes the count from the register).
    count: (PointerValue<'c>, PointerValue<'c>),
}

impl<'c> Lower<'c, '_> {
    /// The flag and limit of a pipe whose small rounds block 0 may run alone, its registers `regs` spilled from
    /// state word `base` on; `count`: the worklist's count register and the register of its state-word index.
    pub(crate) fn solo_start(
        &mut self,
        state: PointerValue<'c>,
        base: usize,
        regs: Vec<(PointerValue<'c>, bool)>,
        count: (PointerValue<'c>, PointerValue<'c>),
    ) -> Result<Solo<'c>, PtxError> {
        debug_assert!(regs.len() < PipeState::SPILL_WORDS);
        let flag = self.alloca(self.c.bool_type().into(), "solo")?;
        self.b.build_store(flag, self.c.bool_type().const_zero())?;
        let at = self.fixed_word(state, PipeState::SOLO_ITEMS)?;
        let max = self.b.build_load(self.c.i64_type(), at, "solo_items")?.into_int_value();
        Ok(Solo { flag, max, base, regs, count })
    }

    /// The barrier after a launch of the round: the grid's, or the block's in a round block 0 runs alone (`solo`:
    /// the flag, in a pipe that may).
    pub(crate) fn round_barrier(
        &mut self,
        state: PointerValue<'c>,
        solo: Option<PointerValue<'c>>,
    ) -> Result<(), PtxError> {
        let Some(flag) = solo else {
            return self.grid_barrier(state);
        };
        let alone = self.b.build_load(self.c.bool_type(), flag, "")?.into_int_value();
        self.if_else(alone, |me| me.solo_barrier(), |me| me.grid_barrier(state))
    }

    /// The blocks that run a small round (`i64`): the first cluster's (`%cluster_nctarank`: 1 unless the entry is
    /// launched with clusters), or block 0 alone on a target without clusters.
    pub(crate) fn solo_blocks(&mut self) -> Result<IntValue<'c>, PtxError> {
        let i64t = self.c.i64_type();
        if !self.clusters {
            return Ok(i64t.const_int(1, false));
        }
        let v = self.call_intrinsic("llvm.nvvm.read.ptx.sreg.cluster.nctarank", self.c.i32_type().into(), &[])?;
        let n = self.b.build_int_z_extend(self.int(v)?, i64t, "cluster_blocks")?;
        // At least block 0, whatever the register says: with no block running them, small rounds would never end.
        let one = i64t.const_int(1, false);
        let none = self.b.build_int_compare(IntPredicate::ULT, n, one, "")?;
        Ok(self.b.build_select(none, one, n, "")?.into_int_value())
    }

    /// The barrier that ends a step of a small round: `bar.sync` on one block; on a cluster of several, the
    /// cluster's hardware barrier (`barrier.cluster.arrive` with release semantics, `barrier.cluster.wait` with
    /// acquire: the global writes of every block of the cluster are visible to all of them after it).
    fn solo_barrier(&mut self) -> Result<(), PtxError> {
        if !self.clusters {
            return self.barrier();
        }
        let n = self.solo_blocks()?;
        let several = self.b.build_int_compare(IntPredicate::UGT, n, self.c.i64_type().const_int(1, false), "")?;
        self.if_else(several, |me| me.cluster_barrier(), |me| me.barrier())
    }

    /// The cluster's hardware barrier, every thread of every block of the cluster (arrive with release semantics,
    /// wait with acquire).
    pub(crate) fn cluster_barrier(&mut self) -> Result<(), PtxError> {
        for name in ["llvm.nvvm.barrier.cluster.arrive.aligned", "llvm.nvvm.barrier.cluster.wait.aligned"] {
            let f = self.intrinsic(name, None, &[]);
            self.b.build_call(f, &[], "")?;
        }
        Ok(())
    }

    /// The blocks taking part in a step's launch, its last-but-reduction parameter: [`Lower::solo_blocks`] in a
    /// small round, else the grid's.
    pub(crate) fn step_blocks(&mut self, solo: Option<PointerValue<'c>>) -> Result<IntValue<'c>, PtxError> {
        let nctaid = self.sreg("nctaid")?;
        let Some(flag) = solo else {
            return Ok(nctaid);
        };
        let alone = self.b.build_load(self.c.bool_type(), flag, "")?.into_int_value();
        let few = self.solo_blocks()?;
        Ok(self.b.build_select(alone, few, nctaid, "blocks")?.into_int_value())
    }

    /// The end of the round head of a pipe whose small rounds block 0 may run alone (`stop` and `count` as the
    /// head computed them; `[head, go, exit]` its blocks). Every block agrees on `count`:
    /// - block 0 running alone goes on while rounds stay small; otherwise it spills its registers and meets the
    ///   others at a grid barrier, and everyone reads the head again;
    /// - at a small round the grid runs, block 0 starts running alone and every other block waits at a grid
    ///   barrier, then reloads block 0's registers and reads the head again (or ends, if the loop ended).
    pub(crate) fn solo_head(
        &mut self,
        sl: &Solo<'c>,
        (state, first): (PointerValue<'c>, IntValue<'c>),
        stop: IntValue<'c>,
        count: IntValue<'c>,
        [head, go, exit]: [BasicBlock<'c>; 3],
    ) -> Result<(), PtxError> {
        let boolt = self.c.bool_type();
        let fits = self.b.build_int_compare(IntPredicate::ULE, count, sl.max, "")?;
        let small = self.b.build_and(fits, self.b.build_not(stop, "")?, "small")?;
        let alone = self.b.build_load(boolt, sl.flag, "")?.into_int_value();
        let names = ["solo.on", "solo.rejoin", "solo.grid", "solo.small", "solo.enter", "solo.start", "solo.wait"];
        let [on, rejoin, grid, check, enter, start, wait] = names.map(|n| self.block(n));
        self.b.build_conditional_branch(alone, on, grid)?;
        self.b.position_at_end(on);
        self.b.build_conditional_branch(small, go, rejoin)?;
        self.b.position_at_end(rejoin);
        self.solo_leave(sl, (state, first), false)?;
        self.b.build_unconditional_branch(head)?;
        self.b.position_at_end(grid);
        self.b.build_conditional_branch(stop, exit, check)?;
        self.b.position_at_end(check);
        self.b.build_conditional_branch(small, enter, go)?;
        self.b.position_at_end(enter);
        let ctaid = self.sreg("ctaid")?;
        let few = self.solo_blocks()?;
        let runs = self.b.build_int_compare(IntPredicate::ULT, ctaid, few, "")?;
        self.b.build_conditional_branch(runs, start, wait)?;
        self.b.position_at_end(start);
        self.b.build_store(sl.flag, boolt.const_all_ones())?;
        if let Some(sc) = self.solo_counts {
            // The push counts move into block 0's shared memory for the stretch: thread 0 copies them in, and the
            // cluster's barrier publishes them before any block of it pushes, zeroes or reads one.
            // The barrier before the copy orders it after the cluster's reads of the previous stretch's counts,
            // which only the software grid barrier separates otherwise (invisible to racecheck).
            self.solo_barrier()?;
            self.if_then(first, |me| me.copy_solo_counts(sc, state, true))?;
            self.solo_barrier()?;
        }
        self.b.build_unconditional_branch(go)?;
        self.b.position_at_end(wait);
        self.grid_barrier_long(state)?;
        let ended = self.solo_reload(sl, state)?;
        self.b.build_conditional_branch(ended, exit, head)?;
        Ok(())
    }

    /// Block 0 stops running alone: thread 0 writes its registers and host locals (and whether the loop `ended`)
    /// to the spill words, and block 0 arrives at the grid barrier the other blocks wait at.
    pub(crate) fn solo_leave(
        &mut self,
        sl: &Solo<'c>,
        (state, first): (PointerValue<'c>, IntValue<'c>),
        ended: bool,
    ) -> Result<(), PtxError> {
        let i64t = self.c.i64_type();
        let counts = self.solo_counts;
        self.if_then(first, |me| {
            if let Some(sc) = counts {
                // Every push of the stretch is in block 0's copy (each step ended with the cluster's barrier).
                me.copy_solo_counts(sc, state, false)?;
            }
            let at = me.fixed_word(state, sl.base)?;
            me.b.build_store(at, i64t.const_int(u64::from(ended), false))?;
            for (i, &(reg, is_bool)) in sl.regs.iter().enumerate() {
                let v = if is_bool {
                    let b = me.b.build_load(me.c.bool_type(), reg, "")?.into_int_value();
                    me.b.build_int_z_extend(b, i64t, "")?
                } else {
                    me.b.build_load(i64t, reg, "")?.into_int_value()
                };
                let at = me.fixed_word(state, sl.base + 1 + i)?;
                me.b.build_store(at, v)?;
            }
            for (h, local) in me.body.locals.iter() {
                if let LocalType::Scalar(s) = local.ty {
                    let v = me.read_local(h)?;
                    let bits = me.value_to_bits(s, v)?;
                    let at = me.fixed_word(state, PipeState::LOCALS + h.index())?;
                    me.b.build_store(at, bits)?;
                }
            }
            Ok(())
        })?;
        self.b.build_store(sl.flag, self.c.bool_type().const_zero())?;
        self.grid_barrier(state)
    }

    /// The generic address of the push count with state-word index `idx` in block 0's shared copy, as every block
    /// of the first cluster reaches it (`mapa` to the cluster's rank 0: distributed shared memory).
    pub(crate) fn solo_count_addr(
        &mut self,
        sc: SoloCounts<'c>,
        idx: IntValue<'c>,
    ) -> Result<PointerValue<'c>, PtxError> {
        let i64t = self.c.i64_type();
        let rel = self.b.build_int_sub(idx, i64t.const_int(PipeState::COUNTS as u64, false), "")?;
        let own = self.element(sc.shared, rel, Scalar::U64, SHARED)?;
        let generic = self.c.ptr_type(AddressSpace::default());
        let own = self.b.build_address_space_cast(own, generic, "")?;
        let rank0 = self.c.i32_type().const_zero();
        let at = self.call_intrinsic("llvm.nvvm.mapa", generic.into(), &[own.into(), rank0.into()])?;
        Ok(at.into_pointer_value())
    }

    /// Thread 0 (block 0's) copies the three push counts between the state area and block 0's shared copy: in
    /// (`into_shared`) when the first cluster starts running small rounds alone, out when it stops.
    fn copy_solo_counts(
        &mut self,
        sc: SoloCounts<'c>,
        state: PointerValue<'c>,
        into_shared: bool,
    ) -> Result<(), PtxError> {
        let i64t = self.c.i64_type();
        for i in 0..3 {
            let word = self.fixed_word(state, PipeState::COUNTS + i)?;
            let own = self.element(sc.shared, i64t.const_int(i as u64, false), Scalar::U64, SHARED)?;
            if into_shared {
                let v = self.relaxed_load(word, "")?;
                self.b.build_store(own, v)?;
            } else {
                let v = self.b.build_load(i64t, own, "")?;
                self.b.build_store(word, v)?;
            }
        }
        Ok(())
    }

    /// A waiting block, let go by block 0: its registers and host locals from the spill words; whether the loop
    /// ended.
    fn solo_reload(&mut self, sl: &Solo<'c>, state: PointerValue<'c>) -> Result<IntValue<'c>, PtxError> {
        let i64t = self.c.i64_type();
        for (i, &(reg, is_bool)) in sl.regs.iter().enumerate() {
            let at = self.fixed_word(state, sl.base + 1 + i)?;
            let v = self.relaxed_load(at, "")?;
            if is_bool {
                let b = self.b.build_int_truncate(v, self.c.bool_type(), "")?;
                self.b.build_store(reg, b)?;
            } else {
                self.b.build_store(reg, v)?;
            }
        }
        for (h, local) in self.body.locals.iter() {
            if let LocalType::Scalar(s) = local.ty {
                let at = self.fixed_word(state, PipeState::LOCALS + h.index())?;
                let bits = self.relaxed_load(at, "")?;
                let v = self.bits_to_value(s, bits)?;
                self.write_local(h, v)?;
            }
        }
        let (count, which) = sl.count;
        let n = self.rotating_count(state, which)?;
        self.b.build_store(count, n)?;
        let at = self.fixed_word(state, sl.base)?;
        let ended = self.relaxed_load(at, "solo_ended")?;
        Ok(self.b.build_int_compare(IntPredicate::NE, ended, i64t.const_zero(), "")?)
    }
}
