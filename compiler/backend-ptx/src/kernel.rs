//! Kernel entry points: the parallel space (also used by nested `forall`s, which run sequentially), the
//! grid-stride loop over it, and `forall tile` kernels (one block per tile).
//!
//! # Mapping iterations
//! The host passes the space's `size`; the kernel evaluates the bounds it needs to map iteration `i` to the loop
//! variables exactly as the CPU backend does (see the crate docs). Bounds are evaluated once, before the loop.
//!
//! # `forall tile`
//! Unlike the CPU, which runs a tile's threads in lockstep phases, the GPU runs the body as written: every
//! thread of the block is one tile thread, locals are per-thread registers, `barrier` is `bar.sync 0`, shared
//! arrays are `.shared`. The tile loop strides over tiles by `nctaid`, so its control flow is uniform across the
//! block; a barrier ends every tile iteration, since the next tile reuses the shared arrays.

use crate::lower::{Lower, GLOBAL};
use crate::types;
use crate::PtxError;
use inkwell::values::{BasicValueEnum, IntValue, PointerValue};
use inkwell::IntPredicate;
use irgc_artifact::{Layout, WorklistSlot};
use irgc_front::ir::{DeviceOp, Expr, Handle, Kernel, Local, LocalType, Scalar, Space};

/// A parallel space with its bounds evaluated: `size` iterations, and what is needed to map an iteration
/// number to the loop variables.
pub(crate) struct Prepared<'c> {
    pub size: IntValue<'c>,
    kind: Kind<'c>,
}

enum Kind<'c> {
    Nodes,
    Edges,
    OutEdges { first: IntValue<'c> },
    Worklist { items: PointerValue<'c>, elem: Scalar },
    Range { start: IntValue<'c>, ty: Scalar },
    Range2 { a: IntValue<'c>, ta: Scalar, c: IntValue<'c>, tc: Scalar, inner: IntValue<'c> },
}

impl<'c> Lower<'c, '_> {
    /// Evaluates a space's bounds. Ranges are empty when `end <= start`.
    pub fn prepare_space(&mut self, space: &Space) -> Result<Prepared<'c>, PtxError> {
        Ok(match space {
            Space::Nodes => Prepared { size: self.slot(Layout::NUM_NODES)?, kind: Kind::Nodes },
            Space::Edges => Prepared { size: self.slot(Layout::NUM_EDGES)?, kind: Kind::Edges },
            Space::OutEdges(v) => {
                let v = self.expr(*v)?;
                let v = self.int(v)?;
                let first = self.row_start(v, 0)?;
                let end = self.row_start(v, 1)?;
                Prepared { size: self.b.build_int_sub(end, first, "")?, kind: Kind::OutEdges { first } }
            }
            Space::Worklist(w) => {
                let size = self.slot(self.layout.worklist(w.index(), WorklistSlot::InCount))?;
                let items = self.slot_ptr(self.layout.worklist(w.index(), WorklistSlot::InItems))?;
                Prepared { size, kind: Kind::Worklist { items, elem: self.m.worklists[*w].elem } }
            }
            Space::Range(a, b) => {
                let (start, size, ty) = self.range(*a, *b)?;
                Prepared { size, kind: Kind::Range { start, ty } }
            }
            Space::Range2([(a, b), (c, d)]) => {
                let (a, outer, ta) = self.range(*a, *b)?;
                let (c, inner, tc) = self.range(*c, *d)?;
                let size = self.b.build_int_mul(outer, inner, "")?;
                // `inner` is only divided by when the space is non-empty, but keep the division defined.
                let one = self.c.i64_type().const_int(1, false);
                let big = self.b.build_int_compare(IntPredicate::UGT, inner, one, "")?;
                let inner = self.b.build_select(big, inner, one, "")?.into_int_value();
                Prepared { size, kind: Kind::Range2 { a, ta, c, tc, inner } }
            }
        })
    }

    /// The `i64` that iteration `i` of a 1-D range or out-edge space adds `i` to (its first value).
    pub(crate) fn space_start(&self, sp: &Prepared<'c>) -> Result<IntValue<'c>, PtxError> {
        match sp.kind {
            Kind::Range { start, .. } => Ok(start),
            Kind::OutEdges { first } => Ok(first),
            _ => self.malformed("the start of a space that is not a range"),
        }
    }

    /// A range's start (as `i64`), its length (`max(end - start, 0)`) and its type.
    fn range(&mut self, a: Handle<Expr>, b: Handle<Expr>) -> Result<(IntValue<'c>, IntValue<'c>, Scalar), PtxError> {
        let ty = self.expr_of(a).ty;
        let av = self.expr(a)?;
        let av = self.to_i64(ty, av)?;
        let bv = self.expr(b)?;
        let bv = self.to_i64(ty, bv)?;
        let p = if ty.is_signed() { IntPredicate::SLT } else { IntPredicate::ULT };
        let nonempty = self.b.build_int_compare(p, av, bv, "")?;
        let len = self.b.build_int_sub(bv, av, "")?;
        let zero = self.c.i64_type().const_zero();
        Ok((av, self.b.build_select(nonempty, len, zero, "len")?.into_int_value(), ty))
    }

    /// Binds the loop variables of iteration `i` (an `i64` in `0..size`).
    pub fn bind_space(&mut self, sp: &Prepared<'c>, vars: &[Handle<Local>], i: IntValue<'c>) -> Result<(), PtxError> {
        let values: Vec<BasicValueEnum<'c>> = match sp.kind {
            Kind::Nodes => vec![self.b.build_int_truncate(i, self.c.i32_type(), "v")?.into()],
            Kind::Edges => vec![i.into()],
            Kind::OutEdges { first } => vec![self.b.build_int_add(first, i, "e")?.into()],
            Kind::Worklist { items, elem } => {
                let addr = self.element(items, i, elem, GLOBAL)?;
                let v = self.b.build_load(types::mem(self.c, elem), addr, "item")?;
                let item = self.mem_to_reg(elem, v)?;
                // `forall (i, x) in wl` also binds the item's position, a `u64`.
                if vars.len() == 2 {
                    vec![i.into(), item]
                } else {
                    vec![item]
                }
            }
            Kind::Range { start, ty } => {
                let v = self.b.build_int_add(start, i, "")?;
                vec![self.narrow_i64(ty, v)?]
            }
            Kind::Range2 { a, ta, c, tc, inner } => {
                let q = self.b.build_int_unsigned_div(i, inner, "")?;
                let r = self.b.build_int_unsigned_rem(i, inner, "")?;
                let x = self.b.build_int_add(a, q, "")?;
                let y = self.b.build_int_add(c, r, "")?;
                vec![self.narrow_i64(ta, x)?, self.narrow_i64(tc, y)?]
            }
        };
        if values.len() != vars.len() {
            return self.malformed(format!("{} loop variables for a space of {}", vars.len(), values.len()));
        }
        for (&var, v) in vars.iter().zip(values) {
            self.write_local(var, v)?;
        }
        Ok(())
    }

    /// Sets the kernel's parameters from their argument slots.
    fn bind_kernel_args(&mut self, k: &Kernel) -> Result<(), PtxError> {
        for (i, &p) in k.params.iter().enumerate() {
            let LocalType::Scalar(s) = self.body.locals[p].ty else {
                return self.malformed("kernel parameter of array type");
            };
            let v = self.scalar_slot(self.layout.arg(i), s)?;
            self.write_local(p, v)?;
        }
        Ok(())
    }

    /// The body of a kernel entry: the grid-stride loop over `size` iterations (or tiles), then the reduction.
    /// Without `size` (a step of an outlined pipe), the space's own size, computed from the context, is used.
    pub fn kernel_entry(&mut self, k: &Kernel, size: Option<IntValue<'c>>) -> Result<(), PtxError> {
        self.bind_kernel_args(k)?;
        if let Some((op, ty)) = k.reduction {
            let acc = self.alloca(types::reg(self.c, ty), "acc")?;
            let id = self.reduce_identity(op, ty);
            self.b.build_store(acc, id)?;
            self.reduction = Some((op, ty, acc));
            self.reduce_coop = k.reduce_coop;
        }
        // A step of an outlined pipe or loop (no size given) runs on a grid whose blocks are all resident.
        let step = size.is_none();
        match top_level(k) {
            Some(DeviceOp::ForAll { vars, space, body, .. }) => {
                let sp = self.prepare_space(space)?;
                let size = size.unwrap_or(sp.size);
                let (tid, ctaid) = (self.sreg("tid")?, self.sreg("ctaid")?);
                let (ntid, nctaid) = (self.sreg("ntid")?, self.sreg("nctaid")?);
                let base = self.b.build_int_mul(ctaid, ntid, "")?;
                let start = self.b.build_int_add(base, tid, "start")?;
                self.zero_spent_counters(k, start)?;
                let stride = self.b.build_int_mul(nctaid, ntid, "stride")?;
                let plain = |me: &mut Self| {
                    me.counted_loop(start, size, stride, false, false, |me, i| {
                        me.bind_space(&sp, vars, i)?;
                        me.block_of(body)
                    })
                };
                if k.waits() {
                    if k.sweep_holds_block_loop() {
                        return self.malformed("a sweep that waits holds a block-scheduled loop");
                    }
                    self.waiting_sweep(&sp, vars, body, (start, size, stride))?;
                } else if k.sweep_holds_block_loop() {
                    // Block-scheduled nested loops need the whole block at their barriers: every thread of a block
                    // runs the grid-stride loop as often as its first thread, an iteration past the end with its
                    // statements switched off. Only on a skewed graph; elsewhere the loops run in their threads.
                    let bool_t = self.c.bool_type();
                    let pred = self.alloca(bool_t.into(), "valid")?;
                    let iteration = |me: &mut Self, i: IntValue<'c>| {
                        let valid = me.b.build_int_compare(IntPredicate::ULT, i, size, "")?;
                        me.b.build_store(pred, valid)?;
                        me.if_then(valid, |me| me.bind_space(&sp, vars, i))?;
                        me.predicated_block(body, pred)
                    };
                    let uniform = |me: &mut Self| {
                        // A round no larger than the grid is dealt out block by block (item i to thread
                        // i / nctaid of block i % nctaid): a few heavy items then get a block each instead of
                        // all sharing the first block, whose block level would take their ranges one at a time.
                        let small = me.b.build_int_compare(IntPredicate::ULE, size, stride, "small")?;
                        me.if_else(
                            small,
                            |me| {
                                let dealt = |me: &mut Self| {
                                    let dealt = me.b.build_int_mul(tid, nctaid, "")?;
                                    let i = me.b.build_int_add(dealt, ctaid, "dealt")?;
                                    let several = me.b.build_int_compare(IntPredicate::UGT, size, nctaid, "")?;
                                    me.fine_gate = Some(several);
                                    let r = iteration(me, i);
                                    me.fine_gate = None;
                                    r
                                };
                                if step {
                                    // Every block takes part: the grid level's barriers need them all.
                                    me.grid_share = true;
                                    let r = dealt(me);
                                    me.grid_share = false;
                                    r
                                } else {
                                    let holds = me.b.build_int_compare(IntPredicate::ULT, ctaid, size, "")?;
                                    me.if_then(holds, dealt)
                                }
                            },
                            |me| {
                                me.counted_loop(base, size, stride, false, false, |me, first| {
                                    let i = me.b.build_int_add(first, tid, "")?;
                                    iteration(me, i)
                                })
                            },
                        )
                    };
                    let skewed = self.skewed()?;
                    self.if_else(skewed, uniform, plain)?;
                } else {
                    plain(self)?;
                }
            }
            Some(DeviceOp::ForTile { tile_vars, tiles, thread_vars, threads, body }) => {
                let sp = self.prepare_space(tiles)?;
                let size = size.unwrap_or(sp.size);
                let tid = self.sreg("tid")?;
                let (ctaid, nctaid) = (self.sreg("ctaid")?, self.sreg("nctaid")?);
                let first = self.b.build_or(ctaid, tid, "")?;
                self.zero_spent_counters(k, first)?;
                self.counted_loop(ctaid, size, nctaid, false, false, |me, t| {
                    me.bind_space(&sp, tile_vars, t)?;
                    me.bind_threads(thread_vars, threads, tid)?;
                    me.block_of(body)?;
                    // The next tile of this block reuses the shared arrays: wait until every thread is done.
                    me.barrier()
                })?;
            }
            _ => return self.malformed("a kernel whose body is not a single `forall`"),
        }
        self.flush_reduction()
    }

    /// The kernel ABI's counter protocol: the thread whose `index` is 0 zeroes the spent push counter of every
    /// worklist the kernel pushes to (the runtime launches only when there is an iteration, so that thread exists).
    fn zero_spent_counters(&mut self, k: &Kernel, index: IntValue<'c>) -> Result<(), PtxError> {
        let pushed = irgc_front::abi::pushed_worklists(self.m, k);
        if pushed.is_empty() {
            return Ok(());
        }
        let zero = index.get_type().const_zero();
        let first = self.b.build_int_compare(IntPredicate::EQ, index, zero, "first")?;
        self.if_else(
            first,
            |me| {
                for w in pushed {
                    let spent = me.count_ptr(me.layout.worklist(w, WorklistSlot::SpentCount))?;
                    me.b.build_store(spent, me.c.i64_type().const_zero())?;
                }
                Ok(())
            },
            |_| Ok(()),
        )
    }

    /// Binds a tile's thread indices from `tid`: row-major, the first index varying slowest (as on the CPU).
    fn bind_threads(&mut self, vars: &[Handle<Local>], shape: &[u32], tid: IntValue<'c>) -> Result<(), PtxError> {
        let i64t = self.c.i64_type();
        let values = match shape {
            [_] => vec![tid],
            [_, inner] => {
                let inner = i64t.const_int(u64::from(*inner), false);
                vec![self.b.build_int_unsigned_div(tid, inner, "")?, self.b.build_int_unsigned_rem(tid, inner, "")?]
            }
            _ => return self.unsupported("tile thread shapes of more than two dimensions"),
        };
        if values.len() != vars.len() {
            return self.malformed("thread variables do not match the thread shape");
        }
        for (&var, v) in vars.iter().zip(values) {
            let LocalType::Scalar(s) = self.body.locals[var].ty else {
                return self.malformed("thread index of array type");
            };
            let v = self.narrow_i64(s, v)?;
            self.write_local(var, v)?;
        }
        Ok(())
    }
}

/// The kernel's single top-level sweep.
pub(crate) fn top_level(k: &Kernel) -> Option<&DeviceOp> {
    k.sweep()
}
