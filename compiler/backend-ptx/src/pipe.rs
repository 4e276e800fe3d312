//! Iteration outlining: an outlined `pipe` (see `irgc_front::ir::OutlinedLoop`) as one persistent `.entry`.
//!
//! ```text
//! .entry irgc_pipe_<i>(.param .u64 ctx, .param .u64 state)
//! ```
//!
//! The entry runs the whole loop of the pipe: every thread holds the plan's host locals in registers (read from
//! the state area, see `irgc_artifact::PipeState`) and computes the same values, so no thread needs to hear from
//! another except through the worklist counts, which live in the state area and are read after a grid barrier.
//! Each kernel launch of the pipe's body becomes a call of a *step*: the kernel's ordinary entry body (the
//! grid-stride loop) as an internal, always-inlined function whose worklist slots and arguments come from
//! parameters ([`Lower::overrides`]) instead of the context table, which stays unchanged during the launch as
//! the kernel ABI requires. A grid barrier follows every step.
//!
//! The grid barrier (`crate::grid_barrier`) needs every block resident at once: the runtime launches the entry
//! cooperatively.
//!
//! A small round runs on block 0 alone while the other blocks wait (`crate::pipe_solo`).
//!
//! The loop's exit is decided by every thread from values that cannot change while it decides: the round count
//! (a register) and the current push count, which nobody pushes into during the round (pushes go to the next
//! of the three rotating counts). A count above the capacity means a push overflowed, and ends the loop too.

use crate::lower::{Lower, PipeCount, SoloCounts, GLOBAL};
use crate::pipe_auto::{AutoLayout, AutoRegs};
use crate::pipe_records::Records;
use crate::PtxError;
use inkwell::basic_block::BasicBlock;
use inkwell::values::{FunctionValue, IntValue, PointerValue};
use inkwell::{AddressSpace, FloatPredicate, IntPredicate};
use irgc_artifact::{Layout, PipeState, WorklistSlot};
use irgc_front::ir::OutlinedLoop as OutlinedPipe;
use irgc_front::ir::{Handle, Kernel, LocalType, Module, PlanBlock, PlanOp, Scalar, StmtKind};

/// The worklist slots a step takes as parameters, in order (its arguments follow).
const STEP_WORKLIST_SLOTS: [WorklistSlot; 7] = [
    WorklistSlot::InItems,
    WorklistSlot::InCount,
    WorklistSlot::OutItems,
    WorklistSlot::OutCount,
    WorklistSlot::SpentCount,
    WorklistSlot::RetryItems,
    WorklistSlot::RetryCount,
];

/// The context slots a step of a kernel with `params` in a pipe over worklist `w` (or a loop, without) takes as parameters
/// (after the context pointer), in order. A reducing kernel's step takes one more parameter after these: the
/// address its reduction combines into.
pub(crate) fn step_slots(layout: &Layout, w: Option<usize>, params: &[Handle<irgc_front::ir::Local>]) -> Vec<usize> {
    let mut slots: Vec<usize> = match w {
        Some(w) => STEP_WORKLIST_SLOTS.iter().map(|&s| layout.worklist(w, s)).collect(),
        None => Vec::new(),
    };
    slots.extend((0..params.len()).map(|i| layout.arg(i)));
    slots
}

/// The registers that track an outlined pipe's worklist.
struct WorklistRegs<'c> {
    w: usize,
    /// The two item buffers (current first, at the start).
    items: [IntValue<'c>; 2],
    cap: IntValue<'c>,
    /// Whether the buffers have swapped roles.
    flipped: PointerValue<'c>,
    /// State-word indices of the current, next and spare push counts.
    rot: Vec<PointerValue<'c>>,
    /// The current count, read (a relaxed GPU-scope load) before the loop, after each pushing launch and by a
    /// block let go after block 0 ran rounds alone: it cannot change in between, so the round's head, `w.size()`,
    /// hybrid tests and launches use this register rather than reading the state word again.
    count: PointerValue<'c>,
    /// The retry buffers and counts, when a launch of the pipe retries.
    retry: Option<RetryRegs<'c>>,
}

/// The registers of an outlined pipe's retries: pass `p` of a retrying launch retries into one buffer and count,
/// pass `p + 1` runs over those items and retries into the other buffer and the next count (three counts rotate
/// as the push counts do, so a count is zeroed only after every thread has read it).
struct RetryRegs<'c> {
    /// The two retry buffers' addresses (`PipeState::RETRY_BUFFERS`).
    bufs: [IntValue<'c>; 2],
    /// Which buffer the next pass retries into.
    which: PointerValue<'c>,
    /// The state-word index of the count the next pass retries into.
    count_at: PointerValue<'c>,
}

/// What lowering a round's statements needs besides the `Lower` itself.
struct Frame<'c, 's> {
    state: PointerValue<'c>,
    /// Whether this is the thread with global index 0 (the one that writes shared words).
    first: IntValue<'c>,
    wl: Option<&'s WorklistRegs<'c>>,
    red_rot: PointerValue<'c>,
    status: PointerValue<'c>,
    exit: BasicBlock<'c>,
    /// The launches run so far (reported in `PipeState::LAUNCHES`), and the most allowed.
    launches: PointerValue<'c>,
    max_launches: IntValue<'c>,
    steps: &'s [(Handle<Kernel>, FunctionValue<'c>)],
    /// The next reducing launch site, in [`OutlinedPipe::launch_sites`] order.
    site: usize,
    /// Where thread 0 writes per-round records (nowhere unless the runtime gave a buffer).
    records: Records<'c>,
    /// The next `hybrid` statement, in [`OutlinedPipe::hybrids`] order.
    hybrid: usize,
    /// The rounds started so far (the current round is this minus 1 inside a round).
    started: PointerValue<'c>,
    /// Thread 0's estimates of each `hybrid` (used by `above auto` ones), and where their copies live.
    auto: Vec<AutoRegs<'c>>,
    auto_at: AutoLayout,
    /// Whether this block runs the rounds alone (block 0 only), when the pipe may (`crate::pipe_solo`).
    solo: Option<PointerValue<'c>>,
}

/// One launch of a step as the pipe makes it (every pass of a retrying launch is the same launch).
struct Pass<'c, 'a> {
    step: FunctionValue<'c>,
    kernel: Handle<Kernel>,
    args: &'a [Handle<irgc_front::ir::Expr>],
    /// Whether the kernel pushes to the pipe's worklist, and retries into it.
    pushes: bool,
    retries: bool,
    red: Option<PointerValue<'c>>,
}

/// Whether some launch of outlined pipe `pipe` retries into its worklist `w`.
fn pipe_retries(m: &Module, pipe: &OutlinedPipe, w: usize) -> bool {
    pipe.launch_sites().iter().any(|s| match s.kind {
        StmtKind::Op(PlanOp::Invoke { kernel, .. }) => {
            irgc_front::analysis::kernel_effects(m, &m.kernels[kernel]).1.contains(&w)
        }
        _ => false,
    })
}

/// The kernels a pipe launches, each once, in order of first launch.
pub(crate) fn pipe_kernels(pipe: &OutlinedPipe) -> Vec<Handle<Kernel>> {
    let mut ks = Vec::new();
    for s in pipe.launch_sites() {
        if let StmtKind::Op(PlanOp::Invoke { kernel, .. }) = s.kind {
            if !ks.contains(&kernel) {
                ks.push(kernel);
            }
        }
    }
    ks
}

/// The name of the step function of kernel `k` in outlined pipe `p`.
pub(crate) fn step_name(p: usize, k: Handle<Kernel>, m: &Module) -> String {
    format!("irgc.step.{p}.{}", m.kernels[k].name)
}

impl<'c> Lower<'c, '_> {
    /// The body of an outlined pipe's or loop's entry (this `Lower` lowers the plan body); `steps` holds the step
    /// function of each kernel it launches.
    pub fn pipe_entry(
        &mut self,
        pipe: &OutlinedPipe,
        state: PointerValue<'c>,
        steps: &[(Handle<Kernel>, FunctionValue<'c>)],
    ) -> Result<(), PtxError> {
        let i64t = self.c.i64_type();
        let word = |me: &mut Self, i: usize| me.fixed_word(state, i);
        let (tid, ctaid, ntid) = (self.sreg("tid")?, self.sreg("ctaid")?, self.sreg("ntid")?);
        let base = self.b.build_int_mul(ctaid, ntid, "")?;
        let gidx = self.b.build_int_add(base, tid, "gidx")?;
        let first = self.b.build_int_compare(IntPredicate::EQ, gidx, i64t.const_zero(), "first")?;
        let locals = self.body.locals.len();

        // The host locals, from the state area.
        for (h, local) in self.body.locals.iter() {
            if let LocalType::Scalar(s) = local.ty {
                let at = word(self, PipeState::LOCALS + h.index())?;
                let bits = self.b.build_load(i64t, at, "")?.into_int_value();
                let v = self.bits_to_value(s, bits)?;
                self.write_local(h, v)?;
            }
        }
        let wl = match pipe.worklist {
            Some(w) => {
                let w = w.index();
                let items = [
                    self.slot(self.layout.worklist(w, WorklistSlot::InItems))?,
                    self.slot(self.layout.worklist(w, WorklistSlot::OutItems))?,
                ];
                let cap = self.slot(self.layout.worklist(w, WorklistSlot::Capacity))?;
                let flipped = self.alloca(self.c.bool_type().into(), "flipped")?;
                self.b.build_store(flipped, self.c.bool_type().const_zero())?;
                let rot: Vec<PointerValue<'c>> =
                    (0..3).map(|i| self.alloca(i64t.into(), &format!("count{i}"))).collect::<Result<_, _>>()?;
                for (i, r) in rot.iter().enumerate() {
                    self.b.build_store(*r, i64t.const_int((PipeState::COUNTS + i) as u64, false))?;
                }
                let count = self.alloca(i64t.into(), "count")?;
                let retry = if pipe_retries(self.m, pipe, w) {
                    let (at0, at1) = (word(self, PipeState::RETRY_BUFFERS)?, word(self, PipeState::RETRY_BUFFERS + 1)?);
                    let bufs = [
                        self.b.build_load(i64t, at0, "retry0")?.into_int_value(),
                        self.b.build_load(i64t, at1, "retry1")?.into_int_value(),
                    ];
                    let which = self.alloca(self.c.bool_type().into(), "retry_buf")?;
                    self.b.build_store(which, self.c.bool_type().const_zero())?;
                    let count_at = self.alloca(i64t.into(), "retry_count")?;
                    self.b.build_store(count_at, i64t.const_int(PipeState::RETRY_COUNTS as u64, false))?;
                    Some(RetryRegs { bufs, which, count_at })
                } else {
                    None
                };
                Some(WorklistRegs { w, items, cap, flipped, rot, count, retry })
            }
            None => None,
        };
        let at = word(self, PipeState::MAX_ROUNDS)?;
        let max_rounds = self.b.build_load(i64t, at, "max_rounds")?.into_int_value();
        let at = word(self, PipeState::MAX_LAUNCHES)?;
        let max_launches = self.b.build_load(i64t, at, "max_launches")?.into_int_value();
        let rounds = self.alloca(i64t.into(), "rounds")?;
        self.b.build_store(rounds, i64t.const_zero())?;
        let records = {
            let at = word(self, PipeState::RECORDS)?;
            let base = self.b.build_load(i64t, at, "records")?.into_int_value();
            let at = word(self, PipeState::RECORD_ROUNDS)?;
            let most = self.b.build_load(i64t, at, "record_rounds")?.into_int_value();
            let words = PipeState::record_words(pipe.hybrids()) as u64;
            Records { base, rounds: most, words }
        };
        let launches = self.alloca(i64t.into(), "launches")?;
        self.b.build_store(launches, i64t.const_zero())?;
        let auto_at = AutoLayout { locals, reductions: pipe.reductions(self.m) };
        let autos = pipe.auto_hybrids();
        let auto = self.auto_regs(state, auto_at, autos.len())?;
        let status = self.alloca(i64t.into(), "status")?;
        // Which of its three words each reducing launch combines into this round (all rotate together).
        let red_rot = self.alloca(i64t.into(), "red_rot")?;
        self.b.build_store(red_rot, i64t.const_zero())?;
        let reducing: Vec<Handle<Kernel>> = pipe
            .launch_sites()
            .iter()
            .filter_map(|s| match s.kind {
                StmtKind::Op(PlanOp::Invoke { kernel, .. }) if self.m.kernels[kernel].reduction.is_some() => {
                    Some(kernel)
                }
                _ => None,
            })
            .collect();
        if !reducing.is_empty() {
            // The first round's words start at the identity; later rounds' are set a round ahead.
            self.if_else(
                first,
                |me| {
                    for (j, k) in reducing.iter().enumerate() {
                        let id = me.identity_bits(*k)?;
                        let at = word(me, PipeState::reduction(locals, j))?;
                        me.b.build_store(at, id)?;
                    }
                    Ok(())
                },
                |_| Ok(()),
            )?;
            self.grid_barrier(state)?;
        }
        if let Some(wl) = &wl {
            self.pipe_count = Some(PipeCount { w: wl.w, current: wl.count, cap: wl.cap });
        }

        // Small rounds run by block 0 (the first cluster) alone: any pipe over a worklist. `above auto` switches
        // need nothing more: thread 0, which keeps their estimates, runs every round (see `auto_hybrid`).
        let solo = match &wl {
            Some(wl) => {
                let base = PipeState::spill(locals, auto_at.reductions, pipe.hybrids());
                let mut regs = vec![(rounds, false), (launches, false), (red_rot, false), (wl.flipped, true)];
                regs.extend(wl.rot.iter().map(|&r| (r, false)));
                if let Some(rt) = &wl.retry {
                    regs.extend([(rt.which, true), (rt.count_at, false)]);
                }
                Some(self.solo_start(state, base, regs, (wl.count, wl.rot[0]))?)
            }
            _ => None,
        };
        if let (Some(sl), true) = (&solo, self.clusters) {
            let shared = self.shared_slots(Scalar::U64, 3, "solo_counts")?;
            self.solo_counts = Some(SoloCounts { flag: sl.flag, shared });
        }
        if let Some(wl) = &wl {
            // Read here and after each pushing launch (and by a block that waited while block 0 ran alone):
            // the head uses the register, one load a round fewer.
            let count = self.rotating_count(state, wl.rot[0])?;
            self.b.build_store(wl.count, count)?;
        }
        let (head, go, exit) = (self.block("pipe.head"), self.block("pipe.round"), self.block("pipe.exit"));
        self.b.build_unconditional_branch(head)?;
        self.b.position_at_end(head);
        let r = self.b.build_load(i64t, rounds, "")?.into_int_value();
        let limit = self.b.build_int_compare(IntPredicate::UGE, r, max_rounds, "")?;
        let mut why = self.b.build_select(limit, i64t.const_int(PipeState::LIMIT, false), i64t.const_zero(), "")?;
        let mut stop = limit;
        if let Some(wl) = &wl {
            let count = self.b.build_load(i64t, wl.count, "")?.into_int_value();
            for (k, _) in autos.iter().enumerate().filter(|(_, &a)| a) {
                self.auto_read(state, auto_at, k, r, auto[k])?;
            }
            self.record_round_start(records, first, r, Some(count))?;
            let empty = self.b.build_int_compare(IntPredicate::EQ, count, i64t.const_zero(), "")?;
            let over = self.b.build_int_compare(IntPredicate::UGT, count, wl.cap, "")?;
            why = self.b.build_select(over, i64t.const_int(PipeState::OVERFLOW, false), why.into_int_value(), "")?;
            why = self.b.build_select(empty, i64t.const_int(PipeState::DONE, false), why.into_int_value(), "")?;
            stop = self.b.build_or(stop, empty, "")?;
            stop = self.b.build_or(stop, over, "stop")?;
        } else {
            self.record_round_start(records, first, r, None)?;
        }
        self.b.build_store(status, why)?;
        match (&solo, &wl) {
            (Some(sl), Some(wl)) => {
                let count = self.b.build_load(i64t, wl.count, "")?.into_int_value();
                self.solo_head(sl, (state, first), stop, count, [head, go, exit])?;
            }
            _ => {
                self.b.build_conditional_branch(stop, exit, go)?;
            }
        }

        self.b.position_at_end(go);
        let next = self.b.build_int_add(r, i64t.const_int(1, false), "")?;
        self.b.build_store(rounds, next)?;
        if !reducing.is_empty() {
            // Next round's words back to the identity, here for every launch site (a branch not taken this round
            // must still find its word reset next round); the grid barrier after this round's first launch orders
            // the writes before any use, and every reader of those words (two rounds ago) is past a barrier since.
            let rr = self.b.build_load(i64t, red_rot, "")?.into_int_value();
            self.if_else(
                first,
                |me| {
                    for (j, k) in reducing.iter().enumerate() {
                        let (_, next) = me.reduction_words(state, locals, j, rr)?;
                        let id = me.identity_bits(*k)?;
                        me.b.build_store(next, id)?;
                    }
                    Ok(())
                },
                |_| Ok(()),
            )?;
        }
        let mut frame = Frame {
            state,
            first,
            wl: wl.as_ref(),
            red_rot,
            status,
            exit,
            launches,
            max_launches,
            steps,
            site: 0,
            records,
            hybrid: 0,
            started: rounds,
            auto: auto.clone(),
            auto_at,
            solo: solo.as_ref().map(|sl| sl.flag),
        };
        self.pipe_block(&pipe.body, &mut frame)?;
        if let Some(cond) = pipe.break_if {
            self.exit_if(cond, status, exit)?;
        }
        if !reducing.is_empty() {
            let rr = self.b.build_load(i64t, red_rot, "")?.into_int_value();
            let rr = self.b.build_int_add(rr, i64t.const_int(1, false), "")?;
            let wrap = self.b.build_int_compare(IntPredicate::EQ, rr, i64t.const_int(3, false), "")?;
            let rr = self.b.build_select(wrap, i64t.const_zero(), rr, "")?;
            self.b.build_store(red_rot, rr)?;
        }
        self.b.build_unconditional_branch(head)?;

        // Block 0 leaving the loop while it runs alone lets the waiting blocks go, telling them the loop ended.
        // Then thread 0 closes the last round's record (the loop may have left inside a round, where no head
        // wrote one) and reports: rounds, launches, status and the final host locals.
        self.b.position_at_end(exit);
        self.pipe_count = None;
        if let Some(sl) = &solo {
            let alone = self.b.build_load(self.c.bool_type(), sl.flag, "")?.into_int_value();
            self.if_then(alone, |me| me.solo_leave(sl, (state, first), true))?;
        }
        self.solo_counts = None;
        let started = self.b.build_load(i64t, rounds, "")?.into_int_value();
        self.record_round_start(records, first, started, None)?;
        self.if_else(
            first,
            |me| {
                for (from, to) in
                    [(rounds, PipeState::ROUNDS), (launches, PipeState::LAUNCHES), (status, PipeState::STATUS)]
                {
                    let v = me.b.build_load(i64t, from, "")?;
                    let at = word(me, to)?;
                    me.b.build_store(at, v)?;
                }
                for (h, local) in me.body.locals.iter() {
                    if let LocalType::Scalar(s) = local.ty {
                        let v = me.read_local(h)?;
                        let bits = me.value_to_bits(s, v)?;
                        let at = word(me, PipeState::LOCALS + h.index())?;
                        me.b.build_store(at, bits)?;
                    }
                }
                for (k, regs) in auto.iter().enumerate() {
                    me.auto_store(state, auto_at, k, i64t.const_zero(), *regs)?;
                }
                Ok(())
            },
            |_| Ok(()),
        )?;
        if solo.is_some() && self.clusters {
            // Block 0 must not exit while the cluster's other blocks may still read its shared push counts
            // (distributed shared memory): compute-sanitizer's racecheck reported exactly that without this barrier.
            self.cluster_barrier()?;
        }
        Ok(())
    }

    /// Lowers the statements of one round (or of a branch inside it); every thread runs the same ones.
    fn pipe_block(&mut self, block: &PlanBlock, f: &mut Frame<'c, '_>) -> Result<(), PtxError> {
        for s in block {
            match &s.kind {
                StmtKind::Op(PlanOp::Invoke { kernel, args, result }) => self.pipe_launch(*kernel, args, *result, f)?,
                StmtKind::Assign { local, value } => {
                    let v = self.expr(*value)?;
                    self.write_local(*local, v)?;
                }
                StmtKind::If { .. } if s.as_exit().is_some() && f.wl.is_none() => {
                    let Some(cond) = s.as_exit() else { unreachable!("checked by the guard") };
                    self.exit_if(cond, f.status, f.exit)?;
                }
                StmtKind::If { cond, then, otherwise } => {
                    let c = self.expr(*cond)?;
                    let c = self.int(c)?;
                    self.pipe_branch(c, then, otherwise, f)?;
                }
                StmtKind::Op(PlanOp::Hybrid { worklist, threshold, dense, sparse }) => {
                    let Some(count) = self.pipe_worklist_size(worklist.index())? else {
                        return self.malformed("an outlined pipe switches on a worklist other than its own");
                    };
                    let f64t = self.c.f64_type();
                    let nodes = self.graph(irgc_front::ir::GraphQuery::NumNodes, Scalar::U64)?.into_int_value();
                    let k = f.hybrid;
                    f.hybrid += 1;
                    let Some(threshold) = threshold else {
                        self.auto_hybrid(k, count, nodes, dense, sparse, f)?;
                        continue;
                    };
                    // As the host decides: dense when the count exceeds threshold x nodes, in f64.
                    let t = self.expr(*threshold)?;
                    let t = self.cast(t, self.expr_of(*threshold).ty, Scalar::F64)?.into_float_value();
                    let n = self.b.build_unsigned_int_to_float(nodes, f64t, "")?;
                    let above = self.b.build_float_mul(t, n, "above")?;
                    let size = self.b.build_unsigned_int_to_float(count, f64t, "")?;
                    let dense_now = self.b.build_float_compare(FloatPredicate::OGT, size, above, "dense")?;
                    self.record_hybrid(f.records, f.first, f.started, k, dense_now, above)?;
                    self.pipe_branch(dense_now, dense, sparse, f)?;
                }
                _ => {
                    return self
                        .malformed("an outlined pipe holds a statement other than launches, assignments and branches")
                }
            }
        }
        Ok(())
    }

    /// `hybrid` number `k` of the round, `above auto`: every thread decides from the estimates of two rounds ago;
    /// thread 0 times the branch and writes its new estimates (see `pipe_auto.rs`).
    ///
    /// A small round that block 0 (the first cluster) runs alone goes sparse without deciding, and nobody times
    /// it: the estimates describe rounds of the whole grid, the only ones they decide. Skipping the decision and
    /// the update there keeps thread 0's floating-point work off the short rounds' critical path (grid2k's BFS:
    /// 4,095 rounds). The protocol holds with such rounds: copy `r % 2` is written only in rounds of the whole
    /// grid, after the branch's first grid barrier; a block let go after a stretch of small rounds passed a grid
    /// barrier thread 0 arrived at after its last write, and every block reads the same copy at a round's head.
    fn auto_hybrid(
        &mut self,
        k: usize,
        count: IntValue<'c>,
        nodes: IntValue<'c>,
        dense: &PlanBlock,
        sparse: &PlanBlock,
        f: &mut Frame<'c, '_>,
    ) -> Result<(), PtxError> {
        let (i64t, boolt) = (self.c.i64_type(), self.c.bool_type());
        let round = self.current_round(f.started, "")?;
        let slot = self.b.build_and(round, i64t.const_int(1, false), "")?;
        // Whether the whole grid runs this round (always, in a pipe without small rounds on block 0).
        let grid = match f.solo {
            Some(flag) => {
                let alone = self.b.build_load(boolt, flag, "")?.into_int_value();
                self.b.build_not(alone, "grid_round")?
            }
            None => boolt.const_all_ones(),
        };
        let decided = self.alloca(boolt.into(), "auto_dense_now")?;
        self.b.build_store(decided, boolt.const_zero())?;
        let regs = f.auto[k];
        self.if_then(grid, |me| {
            let d = me.auto_decide(regs, count, nodes)?;
            me.b.build_store(decided, d)?;
            Ok(())
        })?;
        let dense_now = self.b.build_load(boolt, decided, "")?.into_int_value();
        let nan = self.c.f64_type().const_float(f64::NAN);
        self.record_hybrid(f.records, f.first, f.started, k, dense_now, nan)?;
        // Only thread 0 reads the clock: every thread reading `%globaltimer` twice a round cost about 2 us a round
        // (grid2k's 4,095-level BFS: 37.7 -> 45.4 ms).
        let timer = self.b.build_and(f.first, grid, "auto_timer")?;
        let t0 = self.alloca(i64t.into(), "auto_t0")?;
        self.if_then(timer, |me| {
            let now = me.global_timer()?;
            me.b.build_store(t0, now)?;
            Ok(())
        })?;
        self.pipe_branch(dense_now, dense, sparse, f)?;
        let (state, at) = (f.state, f.auto_at);
        self.if_then(timer, |me| {
            let t1 = me.global_timer()?;
            let start = me.b.build_load(i64t, t0, "")?.into_int_value();
            let ns = me.elapsed(t1, start)?;
            me.auto_update(state, at, k, slot, regs, dense_now, count, ns)
        })
    }

    /// `then` when `c` holds, `otherwise` else (`c` is the same in every thread).
    fn pipe_branch(
        &mut self,
        c: IntValue<'c>,
        then: &PlanBlock,
        otherwise: &PlanBlock,
        f: &mut Frame<'c, '_>,
    ) -> Result<(), PtxError> {
        let (bt, be, join) = (self.block("pipe.then"), self.block("pipe.else"), self.block("pipe.endif"));
        self.b.build_conditional_branch(c, bt, be)?;
        self.b.position_at_end(bt);
        self.pipe_block(then, f)?;
        self.b.build_unconditional_branch(join)?;
        self.b.position_at_end(be);
        self.pipe_block(otherwise, f)?;
        self.b.build_unconditional_branch(join)?;
        self.b.position_at_end(join);
        Ok(())
    }

    /// The current item count of worklist `w`, if it is the outlined pipe's (capped at the capacity as the
    /// steps see it); `None` outside an outlined pipe or for another worklist.
    pub(crate) fn pipe_worklist_size(&mut self, w: usize) -> Result<Option<IntValue<'c>>, PtxError> {
        let Some(pc) = self.pipe_count.filter(|pc| pc.w == w) else {
            return Ok(None);
        };
        let count = self.b.build_load(self.c.i64_type(), pc.current, "")?.into_int_value();
        let over = self.b.build_int_compare(IntPredicate::UGT, count, pc.cap, "")?;
        Ok(Some(self.b.build_select(over, pc.cap, count, "size")?.into_int_value()))
    }

    /// One launch of the round: the step, the grid barrier after it, its reduction's result, and (a pushing
    /// kernel) the worklist's buffers and counts moved on.
    fn pipe_launch(
        &mut self,
        kernel: Handle<Kernel>,
        args: &[Handle<irgc_front::ir::Expr>],
        result: Option<Handle<irgc_front::ir::Local>>,
        f: &mut Frame<'c, '_>,
    ) -> Result<(), PtxError> {
        let i64t = self.c.i64_type();
        let Some(&(_, step)) = f.steps.iter().find(|(k, _)| *k == kernel) else {
            return self.malformed("an outlined pipe launches a kernel without a step");
        };
        let (pushed, retried) = irgc_front::analysis::kernel_effects(self.m, &self.m.kernels[kernel]);
        let (pushes, retries) = f.wl.map_or((false, false), |wl| (pushed.contains(&wl.w), retried.contains(&wl.w)));
        let red = match result {
            Some(_) => {
                let locals = self.body.locals.len();
                let rr = self.b.build_load(i64t, f.red_rot, "")?.into_int_value();
                let (now, _) = self.reduction_words(f.state, locals, f.site, rr)?;
                f.site += 1;
                Some(now)
            }
            None => None,
        };
        let pass = Pass { step, kernel, args, pushes, retries, red };
        self.launch_step(&pass, f.wl, None, (f.state, f.first, f.solo))?;
        self.count_launch(f)?;
        self.round_barrier(f.state, f.solo)?;
        if let (true, Some(wl)) = (retries, f.wl) {
            self.retry_passes(&pass, wl, f)?;
        }
        // The new count is read before the reduction, whose value the plan uses at once: both loads in flight
        // together, not one after the other (on an H200, `bfs_do` against `bfs_worklist` on road: 1.29 → 1.25×).
        if let (true, Some(wl)) = (pushes, f.wl) {
            // What was pushed becomes the current items; the count rotation moves on by one.
            let fl = self.b.build_load(self.c.bool_type(), wl.flipped, "")?.into_int_value();
            self.b.build_store(wl.flipped, self.b.build_not(fl, "")?)?;
            let v: Vec<IntValue<'c>> = wl
                .rot
                .iter()
                .map(|p| Ok(self.b.build_load(i64t, *p, "")?.into_int_value()))
                .collect::<Result<_, PtxError>>()?;
            for i in 0..3 {
                self.b.build_store(wl.rot[i], v[(i + 1) % 3])?;
            }
            let count = self.rotating_count(f.state, wl.rot[0])?;
            self.b.build_store(wl.count, count)?;
        }
        if let (Some(local), Some(addr)) = (result, red) {
            let v = self.read_reduction(kernel, addr)?;
            self.write_local(local, v)?;
            if let Some((_, ty)) = self.m.kernels[kernel].reduction {
                self.record_reduced(f.records, f.first, f.started, v, ty)?;
            }
        }
        Ok(())
    }

    /// Leaves the loop (status `DONE`) when `cond` holds; every thread computes the same `cond`.
    fn exit_if(
        &mut self,
        cond: Handle<irgc_front::ir::Expr>,
        status: PointerValue<'c>,
        exit: BasicBlock<'c>,
    ) -> Result<(), PtxError> {
        let c = self.expr(cond)?;
        let c = self.int(c)?;
        let stay = self.block("pipe.stay");
        self.b.build_store(status, self.c.i64_type().const_int(PipeState::DONE, false))?;
        self.b.build_conditional_branch(c, exit, stay)?;
        self.b.position_at_end(stay);
        Ok(())
    }

    /// The reduction identity of kernel `k`, as state-word bits.
    fn identity_bits(&mut self, k: Handle<Kernel>) -> Result<IntValue<'c>, PtxError> {
        let Some((op, ty)) = self.m.kernels[k].reduction else {
            return self.malformed("a reduction word for a kernel without a reduction");
        };
        let id = self.reduce_identity(op, ty);
        self.value_to_bits(ty, id)
    }

    /// The addresses of reducing launch `j`'s word for this round and for the next, `rr` being the rotation.
    fn reduction_words(
        &mut self,
        state: PointerValue<'c>,
        locals: usize,
        j: usize,
        rr: IntValue<'c>,
    ) -> Result<(PointerValue<'c>, PointerValue<'c>), PtxError> {
        let i64t = self.c.i64_type();
        let base = i64t.const_int(PipeState::reduction(locals, j) as u64, false);
        let now = self.b.build_int_add(base, rr, "")?;
        let n1 = self.b.build_int_add(rr, i64t.const_int(1, false), "")?;
        let wrap = self.b.build_int_compare(IntPredicate::EQ, n1, i64t.const_int(3, false), "")?;
        let n1 = self.b.build_select(wrap, i64t.const_zero(), n1, "")?.into_int_value();
        let next = self.b.build_int_add(base, n1, "")?;
        Ok((self.state_word(state, now)?, self.state_word(state, next)?))
    }

    /// A reducing launch's result, read (a relaxed GPU-scope load: other blocks combined into it) after the grid
    /// barrier.
    fn read_reduction(
        &mut self,
        k: Handle<Kernel>,
        addr: PointerValue<'c>,
    ) -> Result<inkwell::values::BasicValueEnum<'c>, PtxError> {
        let Some((_, ty)) = self.m.kernels[k].reduction else {
            return self.malformed("a reduction result of a kernel without a reduction");
        };
        let i64t = self.c.i64_type();
        let mut bits = self.relaxed_load(addr, "reduced")?;
        // 32-bit results (and bools) live in the word's low half.
        if ty.bits() <= 32 {
            bits = self.b.build_and(bits, i64t.const_int(0xFFFF_FFFF, false), "")?;
        }
        self.bits_to_value(ty, bits)
    }

    /// The count in the state word whose index register `which` holds, read with a relaxed GPU-scope load (other
    /// blocks write it).
    pub(crate) fn rotating_count(
        &mut self,
        state: PointerValue<'c>,
        which: PointerValue<'c>,
    ) -> Result<IntValue<'c>, PtxError> {
        let addr = self.rotating_addr(state, which)?;
        self.relaxed_load(addr, "count")
    }

    /// A `u64` word other blocks write during the launch: a strong load at GPU scope (`ld.relaxed.gpu`), so it is
    /// read again every time, from L2, never from a stale L1 line. Not PTX's `volatile`, which is a strong load
    /// at *system* scope: on an H200 that cost about 1 µs more per round of an outlined pipe (4,000 rounds of one
    /// item: 12.3 → 8.0 ms), and every word read this way is written on this GPU only.
    pub(crate) fn relaxed_load(&mut self, addr: PointerValue<'c>, name: &str) -> Result<IntValue<'c>, PtxError> {
        self.asm_u64("ld.relaxed.gpu.u64 $0, [$1];", "=l,l,~{memory}", &[addr.into()], name)
    }

    /// The address of the push count whose state-word index register `which` holds: the state word, or, in a small
    /// round on the first cluster ([`Lower::solo_counts`]), block 0's shared copy (both generic then).
    fn rotating_addr(
        &mut self,
        state: PointerValue<'c>,
        which: PointerValue<'c>,
    ) -> Result<PointerValue<'c>, PtxError> {
        let idx = self.b.build_load(self.c.i64_type(), which, "")?.into_int_value();
        let word = self.state_word(state, idx)?;
        let Some(sc) = self.solo_counts else {
            return Ok(word);
        };
        let global = self.b.build_address_space_cast(word, self.c.ptr_type(AddressSpace::default()), "")?;
        let shared = self.solo_count_addr(sc, idx)?;
        let alone = self.b.build_load(self.c.bool_type(), sc.flag, "")?.into_int_value();
        Ok(self.b.build_select(alone, shared, global, "count_addr")?.into_pointer_value())
    }

    /// The address of the fixed word `i` of the state area (a `PipeState` constant).
    pub(crate) fn fixed_word(&mut self, state: PointerValue<'c>, i: usize) -> Result<PointerValue<'c>, PtxError> {
        let i = self.c.i64_type().const_int(i as u64, false);
        self.state_word(state, i)
    }

    /// The address of word `i` of the state area.
    pub(crate) fn state_word(
        &mut self,
        state: PointerValue<'c>,
        i: IntValue<'c>,
    ) -> Result<PointerValue<'c>, PtxError> {
        self.element(state, i, Scalar::U64, GLOBAL)
    }

    /// Counts one launch (for `PipeState::LAUNCHES`).
    fn count_launch(&mut self, f: &Frame<'c, '_>) -> Result<(), PtxError> {
        let i64t = self.c.i64_type();
        let n = self.b.build_load(i64t, f.launches, "")?.into_int_value();
        self.b.build_store(f.launches, self.b.build_int_add(n, i64t.const_int(1, false), "")?)?;
        Ok(())
    }

    /// After a retrying launch's first pass (and its grid barrier): while the last pass retried something, run the
    /// step again over the retried items, as the host relaunches it. Every thread reads the same count after the
    /// barrier, so all take the same way out. A count above the capacity (a retry overflowed) leaves the pipe with
    /// `OVERFLOW`; one launch more than `MAX_LAUNCHES` allows leaves it with `LIMIT`.
    fn retry_passes(&mut self, pass: &Pass<'c, '_>, wl: &WorklistRegs<'c>, f: &Frame<'c, '_>) -> Result<(), PtxError> {
        let (i64t, boolt) = (self.c.i64_type(), self.c.bool_type());
        let Some(rt) = &wl.retry else {
            return self.malformed("a retrying launch in an outlined pipe without retry registers");
        };
        let (head, over_b, limit_b, body, done) = (
            self.block("retry.head"),
            self.block("retry.overflow"),
            self.block("retry.limit"),
            self.block("retry.pass"),
            self.block("retry.done"),
        );
        self.b.build_unconditional_branch(head)?;
        self.b.position_at_end(head);
        // The pass just run retried into the count before the current one (the rotation moved on at its launch).
        let at = self.b.build_load(i64t, rt.count_at, "")?.into_int_value();
        let prev = self.rotate3(at, 2)?;
        let prev_addr = self.state_word(f.state, prev)?;
        let count = self.relaxed_load(prev_addr, "retried")?;
        let none = self.b.build_int_compare(IntPredicate::EQ, count, i64t.const_zero(), "")?;
        let over = self.b.build_int_compare(IntPredicate::UGT, count, wl.cap, "")?;
        let n = self.b.build_load(i64t, f.launches, "")?.into_int_value();
        let limit = self.b.build_int_compare(IntPredicate::UGE, n, f.max_launches, "")?;
        let check_limit = self.block("retry.check");
        self.b.build_conditional_branch(none, done, check_limit)?;
        self.b.position_at_end(check_limit);
        let go_on = self.block("retry.go");
        self.b.build_conditional_branch(over, over_b, go_on)?;
        self.b.position_at_end(go_on);
        self.b.build_conditional_branch(limit, limit_b, body)?;
        for (block, why) in [(over_b, PipeState::OVERFLOW), (limit_b, PipeState::LIMIT)] {
            self.b.position_at_end(block);
            self.b.build_store(f.status, i64t.const_int(why, false))?;
            self.b.build_unconditional_branch(f.exit)?;
        }
        self.b.position_at_end(body);
        // The retried items are in the buffer the last pass retried into: the one before `which`.
        let which = self.b.build_load(boolt, rt.which, "")?.into_int_value();
        let items = self.b.build_select(which, rt.bufs[0], rt.bufs[1], "retried_items")?.into_int_value();
        self.launch_step(pass, Some(wl), Some((items, count)), (f.state, f.first, f.solo))?;
        self.count_launch(f)?;
        self.round_barrier(f.state, f.solo)?;
        self.b.build_unconditional_branch(head)?;
        self.b.position_at_end(done);
        Ok(())
    }

    /// `(i - RETRY_COUNTS + by) mod 3 + RETRY_COUNTS`: a retry count's state-word index moved on by `by`.
    fn rotate3(&mut self, i: IntValue<'c>, by: u64) -> Result<IntValue<'c>, PtxError> {
        let i64t = self.c.i64_type();
        let base = i64t.const_int(PipeState::RETRY_COUNTS as u64, false);
        let rel = self.b.build_int_sub(i, base, "")?;
        let rel = self.b.build_int_add(rel, i64t.const_int(by, false), "")?;
        let rel = self.b.build_int_unsigned_rem(rel, i64t.const_int(3, false), "")?;
        Ok(self.b.build_int_add(rel, base, "")?)
    }

    /// One pass of a kernel launch of the pipe: the step's worklist slots from the registers (its input from
    /// `input` instead of the current items, for a retry pass), its arguments computed here, and (a reducing
    /// kernel) the word its reduction combines into (the same for every pass of the launch).
    fn launch_step(
        &mut self,
        pass: &Pass<'c, '_>,
        wl: Option<&WorklistRegs<'c>>,
        input: Option<(IntValue<'c>, IntValue<'c>)>,
        (state, first, solo): (PointerValue<'c>, IntValue<'c>, Option<PointerValue<'c>>),
    ) -> Result<(), PtxError> {
        let &Pass { step, kernel, args, pushes, retries, red } = pass;
        let i64t = self.c.i64_type();
        let as_bits = |me: &Self, p: PointerValue<'c>| me.b.build_ptr_to_int(p, i64t, "");
        let mut call_args: Vec<inkwell::values::BasicMetadataValueEnum<'c>> = vec![self.ctx.into()];
        if let Some(wl) = wl {
            let f = self.b.build_load(self.c.bool_type(), wl.flipped, "")?.into_int_value();
            let (in_items, in_count) = match input {
                Some(given) => given,
                None => {
                    let items = self.b.build_select(f, wl.items[1], wl.items[0], "in_items")?.into_int_value();
                    let count = self.b.build_load(i64t, wl.count, "")?.into_int_value();
                    let over = self.b.build_int_compare(IntPredicate::UGT, count, wl.cap, "")?;
                    (items, self.b.build_select(over, wl.cap, count, "in_count")?.into_int_value())
                }
            };
            let out_items = self.b.build_select(f, wl.items[0], wl.items[1], "out_items")?.into_int_value();
            let out_count = self.rotating_addr(state, wl.rot[1])?;
            let spare = self.rotating_addr(state, wl.rot[2])?;
            let (retry_items, retry_count) = match (&wl.retry, retries) {
                (Some(rt), true) => {
                    // This pass retries into buffer `which` and count `count_at`, and zeroes the count after it
                    // (the next pass's), which every thread read before the last barrier; then both move on.
                    let which = self.b.build_load(self.c.bool_type(), rt.which, "")?.into_int_value();
                    let items = self.b.build_select(which, rt.bufs[1], rt.bufs[0], "retry_items")?.into_int_value();
                    let at = self.b.build_load(i64t, rt.count_at, "")?.into_int_value();
                    let count_addr = self.state_word(state, at)?;
                    let count = as_bits(self, count_addr)?;
                    let after = self.rotate3(at, 1)?;
                    let after_addr = self.state_word(state, after)?;
                    self.zero_by_first(first, after_addr)?;
                    self.b.build_store(rt.which, self.b.build_not(which, "")?)?;
                    self.b.build_store(rt.count_at, after)?;
                    (items, count)
                }
                _ => (i64t.const_zero(), i64t.const_zero()),
            };
            if pushes {
                // The spare count becomes the next pass's push count: zero it now, a grid barrier before that pass.
                self.zero_by_first(first, spare)?;
            }
            call_args.push(in_items.into());
            call_args.push(in_count.into());
            call_args.push(out_items.into());
            call_args.push(as_bits(self, out_count)?.into());
            call_args.push(as_bits(self, spare)?.into());
            call_args.push(retry_items.into());
            call_args.push(retry_count.into());
        }
        let k = &self.m.kernels[kernel];
        for (&a, &p) in args.iter().zip(&k.params) {
            let LocalType::Scalar(s) = k.body.locals[p].ty else {
                return self.malformed("kernel parameter of array type");
            };
            let v = self.expr(a)?;
            call_args.push(self.value_to_bits(s, v)?.into());
        }
        call_args.push(self.step_blocks(solo)?.into());
        if let Some(addr) = red {
            call_args.push(addr.into());
        }
        self.b.build_call(step, &call_args, "")?;
        Ok(())
    }

    /// Zeroes the state word at `addr` from the thread with global index 0 (`first`) alone.
    fn zero_by_first(&mut self, first: IntValue<'c>, addr: PointerValue<'c>) -> Result<(), PtxError> {
        let zero = self.c.i64_type().const_zero();
        self.if_else(
            first,
            |me| {
                me.b.build_store(addr, zero)?;
                Ok(())
            },
            |_| Ok(()),
        )
    }
}

/// The address space of the state pointer.
pub(crate) fn state_type(c: &inkwell::context::Context) -> inkwell::types::PointerType<'_> {
    c.ptr_type(AddressSpace::from(GLOBAL))
}
