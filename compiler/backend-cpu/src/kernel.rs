//! Kernel entry points: the linearised parallel space (shared with nested `forall`s, which run sequentially),
//! the chunk loop `lo..hi`, and `forall tile` kernels run as lockstep phases.
//!
//! # `forall tile` on the CPU
//! One entry iteration is one tile. Its threads run one after another, but in *phases*: the tile body is split
//! at its barriers, and each phase runs for every thread before the next starts, which is exactly what a barrier
//! guarantees. Locals that differ between threads live in a per-thread frame (one 8-byte cell per local and
//! thread); the tile's shared arrays live in the entry's stack frame.
//!
//! A statement of the tile body that contains a barrier (an `if`, `for`, `while`/`loop`/`repeat`), or that
//! `break`s or `continue`s such a loop, runs once for the whole tile, recursively: its condition, bounds or
//! `until` test are evaluated for thread 0. They must be uniform across the tile's threads, as the GPU requires of
//! any barrier's control flow (a divergent barrier is undefined behaviour there; here thread 0 decides). Only a
//! barrier inside a nested `forall` is refused.

use crate::abi;
use crate::lower::Lower;
use crate::types;
use crate::CpuError;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types as t, InstBuilder, Value};
use irgc_artifact::{Layout, WorklistSlot};
use irgc_front::ir::walk::visit_expr;
use irgc_front::ir::{
    Arena, DeviceBlock, DeviceOp, DeviceStmt, Expr, ExprKind, GraphQuery, Handle, Kernel, Local, Scalar, Space,
    StmtKind,
};
use std::collections::HashSet;

/// A parallel space with its bounds evaluated: `size` iterations, and what is needed to map an iteration
/// number to the loop variables.
pub(crate) struct Prepared {
    pub size: Value,
    kind: Kind,
}

enum Kind {
    Nodes,
    Edges,
    OutEdges { first: Value },
    Worklist { items: Value, elem: Scalar },
    Range { start: Value, ty: Scalar },
    Range2 { a: Value, ta: Scalar, c: Value, tc: Scalar, inner: Value },
}

impl Lower<'_, '_> {
    /// Evaluates a space's bounds. Ranges are empty when `end <= start`.
    pub fn prepare_space(&mut self, space: &Space) -> Result<Prepared, CpuError> {
        let ctx = self.ctx;
        Ok(match space {
            Space::Nodes => Prepared { size: abi::slot(&mut self.b, ctx, Layout::NUM_NODES), kind: Kind::Nodes },
            Space::Edges => Prepared { size: abi::slot(&mut self.b, ctx, Layout::NUM_EDGES), kind: Kind::Edges },
            Space::OutEdges(v) => {
                let v = self.expr(*v)?;
                let first = abi::row_start(&mut self.b, ctx, v, 0);
                let end = abi::row_start(&mut self.b, ctx, v, 1);
                Prepared { size: self.b.ins().isub(end, first), kind: Kind::OutEdges { first } }
            }
            Space::Worklist(w) => {
                let size = abi::slot(&mut self.b, ctx, self.layout.worklist(w.index(), WorklistSlot::InCount));
                let items = abi::slot(&mut self.b, ctx, self.layout.worklist(w.index(), WorklistSlot::InItems));
                Prepared { size, kind: Kind::Worklist { items, elem: self.m.worklists[*w].elem } }
            }
            Space::Range(a, b) => {
                let (start, size, ty) = self.range(*a, *b)?;
                Prepared { size, kind: Kind::Range { start, ty } }
            }
            Space::Range2([(a, b), (c, d)]) => {
                let (a, outer, ta) = self.range(*a, *b)?;
                let (c, inner, tc) = self.range(*c, *d)?;
                let size = self.b.ins().imul(outer, inner);
                // `inner` is only divided by when the space is non-empty, but keep the division trap-free.
                let one = self.b.ins().iconst(t::I64, 1);
                let inner = self.b.ins().umax(inner, one);
                Prepared { size, kind: Kind::Range2 { a, ta, c, tc, inner } }
            }
        })
    }

    /// A range's start (as `i64`), its length (`max(end - start, 0)`) and its type.
    fn range(
        &mut self,
        a: Handle<irgc_front::ir::Expr>,
        b: Handle<irgc_front::ir::Expr>,
    ) -> Result<(Value, Value, Scalar), CpuError> {
        let ty = self.expr_of(a).ty;
        let av = self.expr(a)?;
        let av = types::to_i64(&mut self.b, ty, av);
        let bv = self.expr(b)?;
        let bv = types::to_i64(&mut self.b, ty, bv);
        let cc = if ty.is_signed() { IntCC::SignedLessThan } else { IntCC::UnsignedLessThan };
        let nonempty = self.b.ins().icmp(cc, av, bv);
        let len = self.b.ins().isub(bv, av);
        let zero = self.b.ins().iconst(t::I64, 0);
        Ok((av, self.b.ins().select(nonempty, len, zero), ty))
    }

    /// Binds the loop variables of iteration `i` (an `i64` in `0..size`).
    pub fn bind_space(&mut self, sp: &Prepared, vars: &[Handle<Local>], i: Value) -> Result<(), CpuError> {
        let values: Vec<Value> = match sp.kind {
            Kind::Nodes => vec![self.b.ins().ireduce(t::I32, i)],
            Kind::Edges => vec![i],
            Kind::OutEdges { first } => vec![self.b.ins().iadd(first, i)],
            Kind::Worklist { items, elem } => {
                let addr = abi::element(&mut self.b, items, i, elem);
                let item = self.b.ins().load(types::clif(elem), abi::flags(), addr, 0);
                // `forall (i, x) in wl` also binds the item's position, a `u64`.
                if vars.len() == 2 {
                    vec![i, item]
                } else {
                    vec![item]
                }
            }
            Kind::Range { start, ty } => {
                let v = self.b.ins().iadd(start, i);
                vec![types::from_i64(&mut self.b, ty, v)]
            }
            Kind::Range2 { a, ta, c, tc, inner } => {
                let q = self.b.ins().udiv(i, inner);
                let r = self.b.ins().urem(i, inner);
                let x = self.b.ins().iadd(a, q);
                let y = self.b.ins().iadd(c, r);
                vec![types::from_i64(&mut self.b, ta, x), types::from_i64(&mut self.b, tc, y)]
            }
        };
        if values.len() != vars.len() {
            return self.malformed(format!("{} loop variables for a space of {}", vars.len(), values.len()));
        }
        for (&var, v) in vars.iter().zip(values) {
            self.write_local(var, v);
        }
        Ok(())
    }

    /// Sets the kernel's parameters from their argument slots.
    pub fn bind_kernel_args(&mut self, k: &Kernel) -> Result<(), CpuError> {
        for (i, &p) in k.params.iter().enumerate() {
            let irgc_front::ir::LocalType::Scalar(s) = self.local_type(p) else {
                return self.malformed("kernel parameter of array type");
            };
            let v = abi::scalar_slot(&mut self.b, self.ctx, self.layout.arg(i), s);
            self.write_local(p, v);
        }
        Ok(())
    }

    /// The body of the size function: the number of iterations of the kernel's top-level space (tiles for a
    /// `forall tile`), as an `i64`.
    pub fn kernel_size(&mut self, k: &Kernel) -> Result<Value, CpuError> {
        self.bind_kernel_args(k)?;
        let space = match top_level(k) {
            Some(DeviceOp::ForAll { space, .. }) => space,
            Some(DeviceOp::ForTile { tiles, .. }) => tiles,
            _ => return self.malformed("a kernel whose body is not a single `forall`"),
        };
        Ok(self.prepare_space(space)?.size)
    }

    /// The body of the entry function: runs iterations `lo..hi` and returns the partial reduction's bits.
    pub fn kernel_entry(&mut self, k: &Kernel, lo: Value, hi: Value) -> Result<Value, CpuError> {
        self.bind_kernel_args(k)?;
        let pushed = irgc_front::abi::pushed_worklists(self.m, k);
        self.zero_spent_counters(&pushed, lo)?;
        if let Some((op, ty)) = k.reduction {
            let acc = self.b.declare_var(types::clif(ty));
            let id = self.reduce_identity(op, ty);
            self.b.def_var(acc, id);
            self.reduction = Some((op, ty, acc));
        }
        self.open_push_buffers(&pushed);
        if k.waits() {
            let Some(DeviceOp::ForAll { vars, space, body, .. }) = top_level(k) else {
                return self.malformed("a kernel that waits outside a `forall` sweep");
            };
            let waiting = self.waiting_sweep(space, vars, body, lo, hi)?;
            self.close_push_buffers()?;
            return Ok(waiting);
        }
        match top_level(k) {
            Some(DeviceOp::ForAll { vars, space: Space::Edges, body, .. })
                if vars.len() == 1 && !body.iter().any(|s| writes(s, vars[0])) =>
            {
                self.walk_edges(vars[0], lo, hi, body)?;
            }
            Some(DeviceOp::ForAll { vars, space, body, .. }) => {
                let sp = self.prepare_space(space)?;
                self.counted_loop(lo, hi, false, false, |me, i| {
                    me.bind_space(&sp, vars, i)?;
                    me.block(body)
                })?;
            }
            Some(DeviceOp::ForTile { tile_vars, tiles, thread_vars, body, .. }) => {
                let sp = self.prepare_space(tiles)?;
                self.counted_loop(lo, hi, false, false, |me, i| {
                    me.bind_space(&sp, tile_vars, i)?;
                    me.tile_block(thread_vars, body)
                })?;
            }
            _ => return self.malformed("a kernel whose body is not a single `forall`"),
        }
        self.close_push_buffers()?;
        Ok(match self.reduction {
            Some((_, ty, acc)) => {
                let v = self.b.use_var(acc);
                types::to_bits(&mut self.b, ty, v)
            }
            None => self.b.ins().iconst(t::I64, 0),
        })
    }

    /// Iterations `lo..hi` of a sweep that waits (`wait;`): passes over the chunk, each running the items whose
    /// byte in the wait flags ([`Layout::wait_flags`]) is still 0 and setting it for those that ran to their end,
    /// while the last pass finished an item and some item still waits. Returns how many still wait: items of
    /// other chunks they wait for may not have run yet, so the runtime runs this chunk again after the others
    /// (`irgc_runtime`'s CPU device), until every chunk returns 0. Plain loads do: x86 keeps them in order, and
    /// no load is kept across a pass (Cranelift moves none out of a loop: the array loads are not `can_move`).
    fn waiting_sweep(
        &mut self,
        space: &Space,
        vars: &[Handle<Local>],
        body: &[DeviceStmt],
        lo: Value,
        hi: Value,
    ) -> Result<Value, CpuError> {
        let ctx = self.ctx;
        let sp = self.prepare_space(space)?;
        let flags = abi::slot(&mut self.b, ctx, self.layout.wait_flags());
        let (waiting, finished, waited) =
            (self.b.declare_var(t::I64), self.b.declare_var(t::I8), self.b.declare_var(t::I8));
        let (pass, after) = (self.b.create_block(), self.b.create_block());
        self.b.ins().jump(pass, &[]);
        self.b.switch_to_block(pass);
        let zero = self.b.ins().iconst(t::I64, 0);
        self.b.def_var(waiting, zero);
        let no = self.b.ins().iconst(t::I8, 0);
        self.b.def_var(finished, no);
        self.counted_loop(lo, hi, false, false, |me, i| {
            let at = abi::element(&mut me.b, flags, i, Scalar::Bool);
            let flag = me.b.ins().load(t::I8, abi::flags(), at, 0);
            let open = me.b.ins().icmp_imm_u(IntCC::Equal, flag, 0);
            let (run, end, next) = (me.b.create_block(), me.b.create_block(), me.b.create_block());
            me.b.ins().brif(open, run, &[], next, &[]);
            me.b.switch_to_block(run);
            let no = me.b.ins().iconst(t::I8, 0);
            me.b.def_var(waited, no);
            me.bind_space(&sp, vars, i)?;
            let outer = me.wait.replace((waited, end));
            let r = me.block(body);
            me.wait = outer;
            r?;
            me.b.ins().jump(end, &[]);
            me.b.switch_to_block(end);
            let w = me.b.use_var(waited);
            me.if_else(
                w,
                |me| {
                    let n = me.b.use_var(waiting);
                    let n = me.b.ins().iadd_imm_s(n, 1);
                    me.b.def_var(waiting, n);
                    Ok(())
                },
                |me| {
                    let one = me.b.ins().iconst(t::I8, 1);
                    me.b.ins().store(abi::flags(), one, at, 0);
                    me.b.def_var(finished, one);
                    Ok(())
                },
            )?;
            me.b.ins().jump(next, &[]);
            me.b.switch_to_block(next);
            Ok(())
        })?;
        let (n, f) = (self.b.use_var(waiting), self.b.use_var(finished));
        let some = self.b.ins().icmp_imm_u(IntCC::NotEqual, n, 0);
        let mut again = self.b.ins().band(some, f);
        let mut left = n;
        if self.check_bounds {
            // A bad access went to scratch instead, and an item reading scratch may wait for ever: once one is
            // reported, the chunk stops going round and says nothing waits, so the runtime reports it.
            let report = abi::slot(&mut self.b, ctx, self.layout.bounds_report());
            let site = self.b.ins().load(t::I64, abi::flags(), report, (irgc_artifact::BoundsReport::SITE * 8) as i32);
            let clean = self.b.ins().icmp_imm_u(IntCC::Equal, site, 0);
            again = self.b.ins().band(again, clean);
            let zero = self.b.ins().iconst(t::I64, 0);
            left = self.b.ins().select(clean, n, zero);
        }
        self.b.ins().brif(again, pass, &[], after, &[]);
        self.b.switch_to_block(after);
        Ok(left)
    }

    /// Iterations `lo..hi` of `forall e in G.edges`, walked row by row: a binary search over the row offsets
    /// finds the node whose row holds edge `lo`, then each row's edges in the chunk run as an inner loop. `G.src(e)`
    /// reads that node rather than the runtime's edge-source array, which a program reading `G.src` only this way
    /// never needs built (`CpuProgram::reads_sources`): on a graph of 128 M edges that array is 512 MB to write
    /// before the first launch, and to read in every edge sweep.
    ///
    /// A body that is one `if` whose condition sees the edge only as `G.src(e)` (`if level[G.src(e)] == d { .. }`)
    /// tests it once per row, and skips the row when it fails. Every iteration of the row reading the condition
    /// before any of them runs its body is one of the parallel schedules the language allows (iterations run in
    /// no particular order, and plain accesses of different iterations race), so this changes no result a program
    /// may rely on; it turns a sweep over every edge into one over the rows that pass.
    fn walk_edges(&mut self, var: Handle<Local>, lo: Value, hi: Value, body: &[DeviceStmt]) -> Result<(), CpuError> {
        let ctx = self.ctx;
        let rows = abi::slot(&mut self.b, ctx, Layout::ROW_START);
        let n = abi::slot(&mut self.b, ctx, Layout::NUM_NODES);
        // `row_start[i + 1]`, where row `i` ends.
        let row_end = |b: &mut cranelift_frontend::FunctionBuilder, i: Value| {
            let next = b.ins().iadd_imm_s(i, 1);
            let addr = abi::element(b, rows, next, Scalar::Edge);
            b.ins().load(t::I64, abi::flags(), addr, 0)
        };
        // The first node whose row ends after `lo`: the search keeps `row_end(a - 1) <= lo < row_end(z)`.
        let (a, z) = (self.b.declare_var(t::I64), self.b.declare_var(t::I64));
        let zero = self.b.ins().iconst(t::I64, 0);
        self.b.def_var(a, zero);
        self.b.def_var(z, n);
        let (head, step, found) = (self.b.create_block(), self.b.create_block(), self.b.create_block());
        self.b.ins().jump(head, &[]);
        self.b.switch_to_block(head);
        let (av, zv) = (self.b.use_var(a), self.b.use_var(z));
        let more = self.b.ins().icmp(IntCC::UnsignedLessThan, av, zv);
        self.b.ins().brif(more, step, &[], found, &[]);
        self.b.switch_to_block(step);
        let sum = self.b.ins().iadd(av, zv);
        let mid = self.b.ins().ushr_imm_u(sum, 1);
        let end = row_end(&mut self.b, mid);
        let before = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, end, lo);
        let after_mid = self.b.ins().iadd_imm_s(mid, 1);
        let na = self.b.ins().select(before, after_mid, av);
        let nz = self.b.ins().select(before, zv, mid);
        self.b.def_var(a, na);
        self.b.def_var(z, nz);
        self.b.ins().jump(head, &[]);
        self.b.switch_to_block(found);

        // Per row: `node` and where its row ends; `at` is the first edge of the chunk in it.
        let (node, ends, at, source) = (
            self.b.declare_var(t::I64),
            self.b.declare_var(t::I64),
            self.b.declare_var(t::I64),
            self.b.declare_var(t::I32),
        );
        let first = self.b.use_var(a);
        self.b.def_var(node, first);
        let first_end = row_end(&mut self.b, first);
        self.b.def_var(ends, first_end);
        self.b.def_var(at, lo);
        let (row, next_row, exit) = (self.b.create_block(), self.b.create_block(), self.b.create_block());
        self.b.ins().jump(row, &[]);

        // One row: its edges from `at` to `stop`, the row's end or the chunk's.
        self.b.switch_to_block(row);
        let u = self.b.use_var(node);
        let s = self.b.ins().ireduce(t::I32, u);
        self.b.def_var(source, s);
        let row_ends = self.b.use_var(ends);
        let stop = self.b.ins().umin(row_ends, hi);
        let from = self.b.use_var(at);
        self.edge_walk = Some((var, source));
        let r = match row_test(&self.body.exprs, body, var) {
            Some((cond, then)) => {
                let c = self.expr(cond)?;
                self.if_else(c, |me| me.edge_loop(var, from, stop, then), |_| Ok(()))
            }
            None => self.edge_loop(var, from, stop, body),
        };
        self.edge_walk = None;
        r?;
        self.b.def_var(at, stop);
        let more = self.b.ins().icmp(IntCC::UnsignedLessThan, stop, hi);
        self.b.ins().brif(more, next_row, &[], exit, &[]);

        // The next row that holds an edge: empty rows end where they start.
        self.b.switch_to_block(next_row);
        let u = self.b.use_var(node);
        let u = self.b.ins().iadd_imm_s(u, 1);
        self.b.def_var(node, u);
        let e = row_end(&mut self.b, u);
        self.b.def_var(ends, e);
        let empty = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, e, stop);
        self.b.ins().brif(empty, next_row, &[], row, &[]);
        self.b.switch_to_block(exit);
        Ok(())
    }

    /// Edges `from..stop` of the current row, running `body` for each.
    fn edge_loop(&mut self, var: Handle<Local>, from: Value, stop: Value, body: &[DeviceStmt]) -> Result<(), CpuError> {
        self.counted_loop(from, stop, false, false, |me, i| {
            me.write_local(var, i);
            me.block(body)
        })
    }

    /// The kernel ABI's counter protocol: the chunk that starts at iteration 0 zeroes the spent push counter of
    /// every worklist the kernel pushes to (the runtime launches only when there is an iteration).
    fn zero_spent_counters(&mut self, pushed: &[usize], lo: Value) -> Result<(), CpuError> {
        if pushed.is_empty() {
            return Ok(());
        }
        let first = self.b.ins().icmp_imm_u(IntCC::Equal, lo, 0);
        let ctx = self.ctx;
        self.if_else(
            first,
            |me| {
                let zero = me.b.ins().iconst(t::I64, 0);
                for &w in pushed {
                    let spent = abi::slot(&mut me.b, ctx, me.layout.worklist(w, WorklistSlot::SpentCount));
                    me.b.ins().store(abi::flags(), zero, spent, 0);
                }
                Ok(())
            },
            |_| Ok(()),
        )
    }

    /// Runs a tile-level block: runs of per-thread statements become phases run for every thread; barriers end
    /// a phase; tile-level statements (see [`tile_level`]) run once for the tile.
    fn tile_block(&mut self, thread_vars: &[Handle<Local>], stmts: &DeviceBlock) -> Result<(), CpuError> {
        let mut phase: Vec<&DeviceStmt> = Vec::new();
        for s in stmts {
            if !tile_level(s) {
                phase.push(s);
                continue;
            }
            self.run_phase(thread_vars, &phase)?;
            phase.clear();
            match &s.kind {
                StmtKind::Op(DeviceOp::Barrier) => {}
                StmtKind::Break | StmtKind::Continue => {
                    let Some(Some((cont, exit))) = self.loops.last().copied() else {
                        return self.malformed("`break`/`continue` outside a loop");
                    };
                    self.jump_away(if matches!(s.kind, StmtKind::Break) { exit } else { cont });
                }
                StmtKind::If { cond, then, otherwise } => {
                    self.select_thread(thread_vars, None)?;
                    let c = self.expr(*cond)?;
                    self.if_else(c, |me| me.tile_block(thread_vars, then), |me| me.tile_block(thread_vars, otherwise))?;
                }
                StmtKind::For { var, start, end, body } => {
                    self.select_thread(thread_vars, None)?;
                    self.serial_for(*var, *start, *end, |me| me.tile_block(thread_vars, body))?;
                }
                StmtKind::Loop { body, continuing, break_if } => {
                    let (head, cont, exit) = (self.b.create_block(), self.b.create_block(), self.b.create_block());
                    self.b.ins().jump(head, &[]);
                    self.b.switch_to_block(head);
                    self.loops.push(Some((cont, exit)));
                    let r = self.tile_block(thread_vars, body);
                    self.loops.pop();
                    r?;
                    self.b.ins().jump(cont, &[]);
                    self.b.switch_to_block(cont);
                    self.tile_block(thread_vars, continuing)?;
                    match break_if {
                        Some(c) => {
                            self.select_thread(thread_vars, None)?;
                            let c = self.expr(*c)?;
                            self.b.ins().brif(c, exit, &[], head, &[]);
                        }
                        None => {
                            self.b.ins().jump(head, &[]);
                        }
                    }
                    self.b.switch_to_block(exit);
                }
                _ => return self.unsupported("a barrier inside a nested `forall` of a `forall tile`"),
            }
        }
        self.run_phase(thread_vars, &phase)
    }

    /// Runs barrier-free statements for every thread of the tile in turn.
    fn run_phase(&mut self, thread_vars: &[Handle<Local>], stmts: &[&DeviceStmt]) -> Result<(), CpuError> {
        if stmts.is_empty() {
            return Ok(());
        }
        let threads = self.tile.as_ref().map_or(1, |t| t.threads) as i64;
        let zero = self.b.ins().iconst(t::I64, 0);
        let n = self.b.ins().iconst(t::I64, threads);
        self.counted_loop(zero, n, false, false, |me, tid| {
            me.select_thread(thread_vars, Some(tid))?;
            stmts.iter().try_for_each(|s| me.stmt(s))
        })
    }

    /// Makes thread `tid` (thread 0 when `None`) the current one: its per-thread locals and thread indices.
    fn select_thread(&mut self, thread_vars: &[Handle<Local>], tid: Option<Value>) -> Result<(), CpuError> {
        let tid = match tid {
            Some(v) => v,
            None => self.b.ins().iconst(t::I64, 0),
        };
        let Some(tile) = self.tile.as_ref() else {
            return self.malformed("tile code without tile state");
        };
        let (tv, shape) = (tile.tid, tile.shape.clone());
        self.b.def_var(tv, tid);
        // Row-major: the first thread index varies slowest.
        let values: Vec<Value> = match shape.as_slice() {
            [_] => vec![tid],
            [_, inner] => {
                let q = self.b.ins().udiv_imm_s(tid, i64::from(*inner));
                let r = self.b.ins().urem_imm_s(tid, i64::from(*inner));
                vec![q, r]
            }
            _ => return self.malformed("tile thread shape of more than two dimensions"),
        };
        for (&var, v) in thread_vars.iter().zip(values) {
            let irgc_front::ir::LocalType::Scalar(s) = self.local_type(var) else {
                return self.malformed("thread index of array type");
            };
            let v = types::from_i64(&mut self.b, s, v);
            self.write_local(var, v);
        }
        Ok(())
    }
}

/// The kernel's single top-level sweep.
pub(crate) fn top_level(k: &Kernel) -> Option<&DeviceOp> {
    k.sweep()
}

/// Whether a statement of a tile body runs once for the whole tile rather than per thread: it contains a
/// barrier, or a `break`/`continue` of an enclosing tile-level loop.
pub(crate) fn tile_level(s: &DeviceStmt) -> bool {
    contains_barrier(s) || escapes(s)
}

/// Whether a statement may `break` or `continue` a loop around it.
fn escapes(s: &DeviceStmt) -> bool {
    match &s.kind {
        StmtKind::Break | StmtKind::Continue => true,
        StmtKind::If { then, otherwise, .. } => then.iter().chain(otherwise).any(escapes),
        _ => false,
    }
}

pub(crate) fn contains_barrier(s: &DeviceStmt) -> bool {
    let any = |b: &[DeviceStmt]| b.iter().any(contains_barrier);
    match &s.kind {
        StmtKind::Op(DeviceOp::Barrier) => true,
        StmtKind::If { then, otherwise, .. } => any(then) || any(otherwise),
        StmtKind::Loop { body, continuing, .. } => any(body) || any(continuing),
        StmtKind::For { body, .. } | StmtKind::Op(DeviceOp::ForAll { body, .. } | DeviceOp::ForTile { body, .. }) => {
            any(body)
        }
        _ => false,
    }
}

/// Where each local of a kernel lives: in a variable, or (in a `forall tile`) in the per-thread frame. Returns
/// the homes and, for a tile kernel, its thread count and the number of per-thread cells.
pub(crate) fn tile_homes(k: &Kernel) -> Option<(usize, usize, Vec<Option<usize>>)> {
    let Some(DeviceOp::ForTile { tile_vars, thread_vars, threads, body, .. }) = top_level(k) else {
        return None;
    };
    let mut uniform: HashSet<usize> = k.params.iter().chain(tile_vars).chain(thread_vars).map(|l| l.index()).collect();
    // The variables of tile-level `for`s are set once for the tile.
    fn tile_level_fors(stmts: &[DeviceStmt], out: &mut HashSet<usize>) {
        for s in stmts.iter().filter(|s| tile_level(s)) {
            match &s.kind {
                StmtKind::For { var, body, .. } => {
                    out.insert(var.index());
                    tile_level_fors(body, out);
                }
                StmtKind::If { then, otherwise, .. } => {
                    tile_level_fors(then, out);
                    tile_level_fors(otherwise, out);
                }
                StmtKind::Loop { body, continuing, .. } => {
                    tile_level_fors(body, out);
                    tile_level_fors(continuing, out);
                }
                _ => {}
            }
        }
    }
    tile_level_fors(body, &mut uniform);
    let mut next = 0;
    let homes = (0..k.body.locals.len())
        .map(|l| {
            if uniform.contains(&l) {
                None
            } else {
                next += 1;
                Some(next - 1)
            }
        })
        .collect();
    Some((threads.iter().map(|&n| n as usize).product(), next, homes))
}

/// Whether `s` or a statement nested in it assigns `local`.
fn writes(s: &DeviceStmt, local: Handle<Local>) -> bool {
    let mut found = false;
    s.visit(&mut |t| found |= t.writes().contains(&local));
    found
}

/// A row walk's body that is one `if c { then }` whose condition `c` sees the edge `var` only as `G.src(var)`
/// (and otherwise reads params, kernel arguments and arrays): `(c, then)`, which the walk tests once per row.
fn row_test<'b>(
    exprs: &Arena<Expr>,
    body: &'b [DeviceStmt],
    var: Handle<Local>,
) -> Option<(Handle<Expr>, &'b [DeviceStmt])> {
    let [DeviceStmt { kind: StmtKind::If { cond, then, otherwise }, .. }] = body else { return None };
    (otherwise.is_empty() && sees_only_source(exprs, *cond, var)).then_some((*cond, then.as_slice()))
}

/// Whether `e` reads the local `var` only as the argument of `G.src`: every read of `var` in the tree is the
/// operand of a `G.src`.
fn sees_only_source(exprs: &Arena<Expr>, e: Handle<Expr>, var: Handle<Local>) -> bool {
    let (mut reads, mut as_source) = (0, 0);
    visit_expr(exprs, e, &mut |x| match &x.kind {
        ExprKind::Local(l) if *l == var => reads += 1,
        ExprKind::Graph(GraphQuery::Src(h)) if matches!(exprs[*h].kind, ExprKind::Local(l) if l == var) => {
            as_source += 1
        }
        _ => {}
    });
    reads == as_source
}
