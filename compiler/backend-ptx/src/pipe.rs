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
//! The grid barrier needs every block resident at once: the runtime launches the entry cooperatively. It is the
//! classic one: `bar.sync`; thread 0 of each block fences (`membar.gl`), reads the generation, arrives with an
//! atomic add, and either (last arrival) resets the count, fences and bumps the generation, or spins until the
//! generation changes, then fences again; `bar.sync`. The fences make every write before the barrier visible to
//! every read after it, at GPU scope (they also drop stale L1 lines).
//!
//! The loop's exit is decided by every thread from values that cannot change while it decides: the round count
//! (a register) and the current push count, which nobody pushes into during the round (pushes go to the next
//! of the three rotating counts). A count above the capacity means a push overflowed, and ends the loop too.

use crate::lower::{Lower, GLOBAL};
use crate::PtxError;
use inkwell::values::{BasicValue, FunctionValue, IntValue, PointerValue};
use inkwell::{AddressSpace, AtomicOrdering, AtomicRMWBinOp, IntPredicate};
use irgc_artifact::{Layout, PipeState, WorklistSlot};
use irgc_front::ir::OutlinedLoop as OutlinedPipe;
use irgc_front::ir::{Handle, Kernel, LocalType, Module, PlanOp, Scalar, StmtKind};

/// The worklist slots a step takes as parameters, in order (its arguments follow).
const STEP_WORKLIST_SLOTS: [WorklistSlot; 5] = [
    WorklistSlot::InItems,
    WorklistSlot::InCount,
    WorklistSlot::OutItems,
    WorklistSlot::OutCount,
    WorklistSlot::SpentCount,
];

/// The context slots a step of kernel `k` in a pipe over worklist `w` (or a loop, without) takes as parameters
/// (after the context pointer), in order. A reducing kernel's step takes one more parameter after these: the
/// address its reduction combines into.
pub(crate) fn step_slots(layout: &Layout, w: Option<usize>, k: &Kernel) -> Vec<usize> {
    let mut slots: Vec<usize> = match w {
        Some(w) => STEP_WORKLIST_SLOTS.iter().map(|&s| layout.worklist(w, s)).collect(),
        None => Vec::new(),
    };
    slots.extend((0..k.params.len()).map(|i| layout.arg(i)));
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
}

/// The kernels a pipe launches, each once, in order of first launch.
pub(crate) fn pipe_kernels(pipe: &OutlinedPipe) -> Vec<Handle<Kernel>> {
    let mut ks = Vec::new();
    for s in &pipe.body {
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
                Some(WorklistRegs { w, items, cap, flipped, rot })
            }
            None => None,
        };
        let at = word(self, PipeState::MAX_ROUNDS)?;
        let max_rounds = self.b.build_load(i64t, at, "max_rounds")?.into_int_value();
        let rounds = self.alloca(i64t.into(), "rounds")?;
        self.b.build_store(rounds, i64t.const_zero())?;
        let status = self.alloca(i64t.into(), "status")?;
        // Which of its three words each reducing launch combines into this round (all rotate together).
        let red_rot = self.alloca(i64t.into(), "red_rot")?;
        self.b.build_store(red_rot, i64t.const_zero())?;
        let reducing: Vec<Handle<Kernel>> = pipe
            .body
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

        let (head, go, exit) = (self.block("pipe.head"), self.block("pipe.round"), self.block("pipe.exit"));
        self.b.build_unconditional_branch(head)?;
        self.b.position_at_end(head);
        let r = self.b.build_load(i64t, rounds, "")?.into_int_value();
        let limit = self.b.build_int_compare(IntPredicate::UGE, r, max_rounds, "")?;
        let mut why = self.b.build_select(limit, i64t.const_int(PipeState::LIMIT, false), i64t.const_zero(), "")?;
        let mut stop = limit;
        if let Some(wl) = &wl {
            let count = self.rotating_count(state, wl.rot[0])?;
            let empty = self.b.build_int_compare(IntPredicate::EQ, count, i64t.const_zero(), "")?;
            let over = self.b.build_int_compare(IntPredicate::UGT, count, wl.cap, "")?;
            why = self.b.build_select(over, i64t.const_int(PipeState::OVERFLOW, false), why.into_int_value(), "")?;
            why = self.b.build_select(empty, i64t.const_int(PipeState::DONE, false), why.into_int_value(), "")?;
            stop = self.b.build_or(stop, empty, "")?;
            stop = self.b.build_or(stop, over, "stop")?;
        }
        self.b.build_store(status, why)?;
        self.b.build_conditional_branch(stop, exit, go)?;

        self.b.position_at_end(go);
        let next = self.b.build_int_add(r, i64t.const_int(1, false), "")?;
        self.b.build_store(rounds, next)?;
        let mut j = 0;
        for s in &pipe.body {
            match &s.kind {
                StmtKind::Op(PlanOp::Invoke { kernel, args, result }) => {
                    let Some(&(_, step)) = steps.iter().find(|(k, _)| k == kernel) else {
                        return self.malformed("an outlined pipe launches a kernel without a step");
                    };
                    let pushes = wl.as_ref().is_some_and(|wl| {
                        irgc_front::abi::pushed_worklists(self.m, &self.m.kernels[*kernel]).contains(&wl.w)
                    });
                    let red = match result {
                        Some(_) => {
                            let words = self.reduction_words(state, locals, j, red_rot)?;
                            j += 1;
                            // The next round's word: back to the identity, a grid barrier before it is used.
                            let id = self.identity_bits(*kernel)?;
                            self.if_else(
                                first,
                                |me| {
                                    me.b.build_store(words.1, id)?;
                                    Ok(())
                                },
                                |_| Ok(()),
                            )?;
                            Some(words.0)
                        }
                        None => None,
                    };
                    self.launch_step(step, *kernel, args, pushes, wl.as_ref(), red, (state, first))?;
                    self.grid_barrier(state)?;
                    if let (Some(local), Some(addr)) = (result, red) {
                        let v = self.read_reduction(*kernel, addr)?;
                        self.write_local(*local, v)?;
                    }
                    if let (true, Some(wl)) = (pushes, &wl) {
                        // What was pushed becomes the current items; the count rotation moves on by one.
                        let f = self.b.build_load(self.c.bool_type(), wl.flipped, "")?.into_int_value();
                        self.b.build_store(wl.flipped, self.b.build_not(f, "")?)?;
                        let v: Vec<IntValue<'c>> = wl
                            .rot
                            .iter()
                            .map(|p| Ok(self.b.build_load(i64t, *p, "")?.into_int_value()))
                            .collect::<Result<_, PtxError>>()?;
                        for i in 0..3 {
                            self.b.build_store(wl.rot[i], v[(i + 1) % 3])?;
                        }
                    }
                }
                StmtKind::Assign { local, value } => {
                    let v = self.expr(*value)?;
                    self.write_local(*local, v)?;
                }
                StmtKind::If { .. } => {
                    let Some(cond) = s.as_exit() else {
                        return self.malformed("an outlined loop holds an `if` other than `if cond { break }`");
                    };
                    self.exit_if(cond, status, exit)?;
                }
                _ => return self.malformed("an outlined pipe holds a statement other than launches and assignments"),
            }
        }
        if let Some(cond) = pipe.break_if {
            self.exit_if(cond, status, exit)?;
        }
        if j > 0 {
            let rr = self.b.build_load(i64t, red_rot, "")?.into_int_value();
            let rr = self.b.build_int_add(rr, i64t.const_int(1, false), "")?;
            let wrap = self.b.build_int_compare(IntPredicate::EQ, rr, i64t.const_int(3, false), "")?;
            let rr = self.b.build_select(wrap, i64t.const_zero(), rr, "")?;
            self.b.build_store(red_rot, rr)?;
        }
        self.b.build_unconditional_branch(head)?;

        // Thread 0 reports: rounds, status and the final host locals.
        self.b.position_at_end(exit);
        self.if_else(
            first,
            |me| {
                let r = me.b.build_load(i64t, rounds, "")?;
                let at = word(me, PipeState::ROUNDS)?;
                me.b.build_store(at, r)?;
                let st = me.b.build_load(i64t, status, "")?;
                let at = word(me, PipeState::STATUS)?;
                me.b.build_store(at, st)?;
                for (h, local) in me.body.locals.iter() {
                    if let LocalType::Scalar(s) = local.ty {
                        let v = me.read_local(h)?;
                        let bits = me.value_to_bits(s, v)?;
                        let at = word(me, PipeState::LOCALS + h.index())?;
                        me.b.build_store(at, bits)?;
                    }
                }
                Ok(())
            },
            |_| Ok(()),
        )
    }

    /// Leaves the loop (status `DONE`) when `cond` holds; every thread computes the same `cond`.
    fn exit_if(
        &mut self,
        cond: Handle<irgc_front::ir::Expr>,
        status: PointerValue<'c>,
        exit: inkwell::basic_block::BasicBlock<'c>,
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

    /// The addresses of reducing launch `j`'s word for this round and for the next.
    fn reduction_words(
        &mut self,
        state: PointerValue<'c>,
        locals: usize,
        j: usize,
        red_rot: PointerValue<'c>,
    ) -> Result<(PointerValue<'c>, PointerValue<'c>), PtxError> {
        let i64t = self.c.i64_type();
        let rr = self.b.build_load(i64t, red_rot, "")?.into_int_value();
        let base = i64t.const_int(PipeState::reduction(locals, j) as u64, false);
        let now = self.b.build_int_add(base, rr, "")?;
        let n1 = self.b.build_int_add(rr, i64t.const_int(1, false), "")?;
        let wrap = self.b.build_int_compare(IntPredicate::EQ, n1, i64t.const_int(3, false), "")?;
        let n1 = self.b.build_select(wrap, i64t.const_zero(), n1, "")?.into_int_value();
        let next = self.b.build_int_add(base, n1, "")?;
        Ok((self.state_word(state, now)?, self.state_word(state, next)?))
    }

    /// A reducing launch's result, read (volatile: other blocks combined into it) after the grid barrier.
    fn read_reduction(
        &mut self,
        k: Handle<Kernel>,
        addr: PointerValue<'c>,
    ) -> Result<inkwell::values::BasicValueEnum<'c>, PtxError> {
        let Some((_, ty)) = self.m.kernels[k].reduction else {
            return self.malformed("a reduction result of a kernel without a reduction");
        };
        let i64t = self.c.i64_type();
        let mut bits = self.volatile_load(addr, "reduced")?;
        // 32-bit results (and bools) live in the word's low half.
        if ty.bits() <= 32 {
            bits = self.b.build_and(bits, i64t.const_int(0xFFFF_FFFF, false), "")?;
        }
        self.bits_to_value(ty, bits)
    }

    /// The count in the state word whose index register `which` holds, read volatile (other blocks write it).
    fn rotating_count(&mut self, state: PointerValue<'c>, which: PointerValue<'c>) -> Result<IntValue<'c>, PtxError> {
        let addr = self.rotating_addr(state, which)?;
        self.volatile_load(addr, "count")
    }

    /// A `u64` word other blocks write during the launch: read volatile, so it is read again every time.
    fn volatile_load(&mut self, addr: PointerValue<'c>, name: &str) -> Result<IntValue<'c>, PtxError> {
        let v = self.b.build_load(self.c.i64_type(), addr, name)?;
        v.as_instruction_value()
            .ok_or_else(|| PtxError::Llvm("load is not an instruction".into()))?
            .set_volatile(true)
            .map_err(|e| PtxError::Llvm(e.to_string()))?;
        Ok(v.into_int_value())
    }

    /// Stores a `u64` word that other blocks poll, volatile.
    fn volatile_store(&mut self, addr: PointerValue<'c>, v: IntValue<'c>) -> Result<(), PtxError> {
        let st = self.b.build_store(addr, v)?;
        st.set_volatile(true).map_err(|e| PtxError::Llvm(e.to_string()))
    }

    fn rotating_addr(
        &mut self,
        state: PointerValue<'c>,
        which: PointerValue<'c>,
    ) -> Result<PointerValue<'c>, PtxError> {
        let idx = self.b.build_load(self.c.i64_type(), which, "")?.into_int_value();
        self.state_word(state, idx)
    }

    /// The address of the fixed word `i` of the state area (a `PipeState` constant).
    fn fixed_word(&mut self, state: PointerValue<'c>, i: usize) -> Result<PointerValue<'c>, PtxError> {
        let i = self.c.i64_type().const_int(i as u64, false);
        self.state_word(state, i)
    }

    /// The address of word `i` of the state area.
    fn state_word(&mut self, state: PointerValue<'c>, i: IntValue<'c>) -> Result<PointerValue<'c>, PtxError> {
        self.element(state, i, Scalar::U64, GLOBAL)
    }

    /// One kernel launch of the pipe: the step's worklist slots from the registers, its arguments computed here,
    /// and (a reducing kernel) the word its reduction combines into.
    #[allow(clippy::too_many_arguments)]
    fn launch_step(
        &mut self,
        step: FunctionValue<'c>,
        kernel: Handle<Kernel>,
        args: &[Handle<irgc_front::ir::Expr>],
        pushes: bool,
        wl: Option<&WorklistRegs<'c>>,
        red: Option<PointerValue<'c>>,
        (state, first): (PointerValue<'c>, IntValue<'c>),
    ) -> Result<(), PtxError> {
        let i64t = self.c.i64_type();
        let as_bits = |me: &Self, p: PointerValue<'c>| me.b.build_ptr_to_int(p, i64t, "");
        let mut call_args: Vec<inkwell::values::BasicMetadataValueEnum<'c>> = vec![self.ctx.into()];
        if let Some(wl) = wl {
            let f = self.b.build_load(self.c.bool_type(), wl.flipped, "")?.into_int_value();
            let in_items = self.b.build_select(f, wl.items[1], wl.items[0], "in_items")?.into_int_value();
            let out_items = self.b.build_select(f, wl.items[0], wl.items[1], "out_items")?.into_int_value();
            let count = self.rotating_count(state, wl.rot[0])?;
            let over = self.b.build_int_compare(IntPredicate::UGT, count, wl.cap, "")?;
            let in_count = self.b.build_select(over, wl.cap, count, "in_count")?;
            let out_count = self.rotating_addr(state, wl.rot[1])?;
            let spare = self.rotating_addr(state, wl.rot[2])?;
            if pushes {
                // The spare count becomes the next pass's push count: zero it now, a grid barrier before that pass.
                self.if_else(
                    first,
                    |me| {
                        me.b.build_store(spare, i64t.const_zero())?;
                        Ok(())
                    },
                    |_| Ok(()),
                )?;
            }
            call_args.push(in_items.into());
            call_args.push(in_count.into());
            call_args.push(out_items.into());
            call_args.push(as_bits(self, out_count)?.into());
            call_args.push(as_bits(self, spare)?.into());
        }
        let k = &self.m.kernels[kernel];
        for (&a, &p) in args.iter().zip(&k.params) {
            let LocalType::Scalar(s) = k.body.locals[p].ty else {
                return self.malformed("kernel parameter of array type");
            };
            let v = self.expr(a)?;
            call_args.push(self.value_to_bits(s, v)?.into());
        }
        if let Some(addr) = red {
            call_args.push(addr.into());
        }
        self.b.build_call(step, &call_args, "")?;
        Ok(())
    }

    /// A barrier across the whole grid (every block resident: a cooperative launch). See the module docs.
    fn grid_barrier(&mut self, state: PointerValue<'c>) -> Result<(), PtxError> {
        let i64t = self.c.i64_type();
        let fence = |me: &Self| -> Result<(), PtxError> {
            let f = me.intrinsic("llvm.nvvm.membar.gl", None, &[]);
            me.b.build_call(f, &[], "")?;
            Ok(())
        };
        self.barrier()?;
        let tid = self.sreg("tid")?;
        let lead = self.b.build_int_compare(IntPredicate::EQ, tid, i64t.const_zero(), "lead")?;
        let nblocks = self.sreg("nctaid")?;
        self.if_else(
            lead,
            |me| {
                fence(me)?;
                let gen_ptr = me.fixed_word(state, PipeState::BARRIER_GEN)?;
                let count_ptr = me.fixed_word(state, PipeState::BARRIER_COUNT)?;
                let gen = me.volatile_load(gen_ptr, "gen")?;
                let old = me.b.build_atomicrmw(
                    AtomicRMWBinOp::Add,
                    count_ptr,
                    i64t.const_int(1, false),
                    AtomicOrdering::Monotonic,
                )?;
                let last_n = me.b.build_int_sub(nblocks, i64t.const_int(1, false), "")?;
                let last = me.b.build_int_compare(IntPredicate::EQ, old, last_n, "last")?;
                me.if_else(
                    last,
                    |me| {
                        me.volatile_store(count_ptr, i64t.const_zero())?;
                        fence(me)?;
                        let bumped = me.b.build_int_add(gen, i64t.const_int(1, false), "")?;
                        me.volatile_store(gen_ptr, bumped)
                    },
                    |me| {
                        let (spin, done) = (me.block("gridbar.spin"), me.block("gridbar.done"));
                        me.b.build_unconditional_branch(spin)?;
                        me.b.position_at_end(spin);
                        let now = me.volatile_load(gen_ptr, "")?;
                        let same = me.b.build_int_compare(IntPredicate::EQ, now, gen, "")?;
                        me.b.build_conditional_branch(same, spin, done)?;
                        me.b.position_at_end(done);
                        Ok(())
                    },
                )?;
                fence(me)
            },
            |_| Ok(()),
        )?;
        self.barrier()
    }
}

/// The address space of the state pointer.
pub(crate) fn state_type(c: &inkwell::context::Context) -> inkwell::types::PointerType<'_> {
    c.ptr_type(AddressSpace::from(GLOBAL))
}
