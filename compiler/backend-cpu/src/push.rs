//! Worklist pushes. A push claims a slot with an atomic add on the worklist's shared counter; when every thread
//! does that for every item, the counter's cache line moves between cores on each push (2 M pushes in a
//! bottom-up BFS round on a Graph500 graph). So a kernel's pushes to a worklist first collect in a buffer on its
//! stack, [`BUFFER`] items, and go to the worklist a buffer at a time: one atomic add claims the slots for all of
//! them. The GPU aggregates a warp's pushes for the same reason.
//!
//! A buffer is handed over when it fills and when the kernel's chunk ends, so everything pushed is in the
//! worklist when the launch returns. Items beyond the capacity are dropped and set the overflow flag, and the
//! counter still counts them, exactly as for a push one at a time (the runtime's overflow protocol). Retries
//! (rare: a conflict's loser) and pushes in device functions (which have no kernel frame to buffer in) go one at
//! a time.

use crate::abi;
use crate::lower::{Lower, PushBuffer};
use crate::types;
use crate::CpuError;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types as t, AtomicRmwOp, InstBuilder, StackSlotData, StackSlotKind, Value};
use irgc_artifact::WorklistSlot;
use irgc_front::ir::{Handle, Worklist};

/// Items a push buffer holds.
pub(crate) const BUFFER: i64 = 64;

impl Lower<'_, '_> {
    /// Gives the kernel an empty push buffer for every worklist in `pushed` (those it pushes to, by index).
    pub fn open_push_buffers(&mut self, pushed: &[usize]) {
        self.push_buffers = (0..self.m.worklists.len())
            .map(|w| {
                pushed.contains(&w).then(|| {
                    let size = types::size(self.m.worklists[Handle::<Worklist>::new(w)].elem);
                    let bytes = u32::try_from(BUFFER * size).expect("a small buffer");
                    let slot =
                        self.b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, bytes, 3));
                    let count = self.b.declare_var(t::I64);
                    let zero = self.b.ins().iconst(t::I64, 0);
                    self.b.def_var(count, zero);
                    PushBuffer { slot, count }
                })
            })
            .collect();
    }

    /// Hands every buffer's items to its worklist (at the end of the kernel's chunk).
    pub fn close_push_buffers(&mut self) -> Result<(), CpuError> {
        for w in 0..self.push_buffers.len() {
            if let Some(buf) = self.push_buffers[w] {
                self.flush(Handle::new(w), buf)?;
            }
        }
        self.push_buffers.clear();
        Ok(())
    }

    /// `w.push(v)` (or `w.retry(v)`).
    pub fn push(&mut self, w: Handle<Worklist>, v: Value, retry: bool) -> Result<(), CpuError> {
        let elem = self.m.worklists[w].elem;
        match self.push_buffers.get(w.index()).copied().flatten() {
            Some(buf) if !retry => {
                let n = self.b.use_var(buf.count);
                let at = self.b.ins().stack_addr(t::I64, buf.slot, 0);
                let addr = abi::element(&mut self.b, at, n, elem);
                self.b.ins().store(abi::flags(), v, addr, 0);
                let n = self.b.ins().iadd_imm_s(n, 1);
                self.b.def_var(buf.count, n);
                let full = self.b.ins().icmp_imm_s(IntCC::Equal, n, BUFFER);
                self.if_else(full, |me| me.flush(w, buf), |_| Ok(()))
            }
            _ => {
                let one = self.b.ins().iconst(t::I64, 1);
                let first = self.claim(w, one, retry);
                self.store_claimed(w, first, one, retry, |_, _| v)
            }
        }
    }

    /// Moves `buf`'s items into `w` and empties it.
    fn flush(&mut self, w: Handle<Worklist>, buf: PushBuffer) -> Result<(), CpuError> {
        let elem = self.m.worklists[w].elem;
        let n = self.b.use_var(buf.count);
        let zero = self.b.ins().iconst(t::I64, 0);
        let any = self.b.ins().icmp_imm_u(IntCC::UnsignedGreaterThan, n, 0);
        self.if_else(
            any,
            |me| {
                let first = me.claim(w, n, false);
                me.store_claimed(w, first, n, false, |me, i| {
                    let at = me.b.ins().stack_addr(t::I64, buf.slot, 0);
                    let addr = abi::element(&mut me.b, at, i, elem);
                    me.b.ins().load(types::clif(elem), abi::flags(), addr, 0)
                })
            },
            |_| Ok(()),
        )?;
        self.b.def_var(buf.count, zero);
        Ok(())
    }

    /// Claims `n` slots of `w`'s output (or retry) list: the first slot's index.
    fn claim(&mut self, w: Handle<Worklist>, n: Value, retry: bool) -> Value {
        let count = if retry { WorklistSlot::RetryCount } else { WorklistSlot::OutCount };
        let count = abi::slot(&mut self.b, self.ctx, self.layout.worklist(w.index(), count));
        self.b.ins().atomic_rmw(t::I64, abi::flags(), AtomicRmwOp::Add, count, n)
    }

    /// Stores `n` items from slot `first` on: item `i` is `item(i)`'s value. Slots at or past the capacity are
    /// not stored, and set the overflow flag.
    fn store_claimed(
        &mut self,
        w: Handle<Worklist>,
        first: Value,
        n: Value,
        retry: bool,
        item: impl Fn(&mut Self, Value) -> Value,
    ) -> Result<(), CpuError> {
        let elem = self.m.worklists[w].elem;
        let ctx = self.ctx;
        let slot = |s| self.layout.worklist(w.index(), s);
        let items = slot(if retry { WorklistSlot::RetryItems } else { WorklistSlot::OutItems });
        let (cap, ovf) = (slot(WorklistSlot::Capacity), slot(WorklistSlot::Overflow));
        let cap = abi::slot(&mut self.b, ctx, cap);
        // Room for `min(n, cap - first)` of them (none when `first >= cap`).
        let zero = self.b.ins().iconst(t::I64, 0);
        let below = self.b.ins().icmp(IntCC::UnsignedLessThan, first, cap);
        let left = self.b.ins().isub(cap, first);
        let room = self.b.ins().select(below, left, zero);
        let stored = self.b.ins().umin(room, n);
        self.counted_loop(zero, stored, false, false, |me, i| {
            let v = item(me, i);
            let base = abi::slot(&mut me.b, ctx, items);
            let index = me.b.ins().iadd(first, i);
            let addr = abi::element(&mut me.b, base, index, elem);
            me.b.ins().store(abi::flags(), v, addr, 0);
            Ok(())
        })?;
        let lost = self.b.ins().icmp(IntCC::UnsignedLessThan, stored, n);
        self.if_else(
            lost,
            |me| {
                let flag = abi::slot(&mut me.b, ctx, ovf);
                let one = me.b.ins().iconst(t::I64, 1);
                me.b.ins().atomic_store(abi::flags(), one, flag);
                Ok(())
            },
            |_| Ok(()),
        )
    }
}
