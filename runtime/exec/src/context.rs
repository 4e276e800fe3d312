//! The kernel context: the table of `u64` slots every kernel is entered with ([`Layout`] gives the indices).
//!
//! The runtime owns the context and rewrites the slots that change between launches (kernel arguments, worklist
//! buffer pointers and counts); kernels only read it. The pointers point into [`Memory`]'s buffers, which never
//! move after allocation, so the context stays valid for as long as the memory lives.

use irgc_artifact::{Layout, WorklistSlot};

use crate::memory::Memory;

/// Builds the full context for `mem` with the given param values; argument and reduction slots start at 0.
pub fn build(layout: &Layout, mem: &Memory, params: &[u64]) -> Vec<u64> {
    let mut ctx = vec![0u64; layout.len()];
    ctx[Layout::ROW_START] = mem.row_start.addr();
    ctx[Layout::COL] = mem.col.addr();
    ctx[Layout::WEIGHTS] = mem.weights.as_ref().map_or(0, |b| b.addr());
    ctx[Layout::SRC] = mem.sources.as_ref().map_or(0, |b| b.addr());
    ctx[Layout::NUM_NODES] = mem.num_nodes;
    ctx[Layout::NUM_EDGES] = mem.num_edges;
    for (g, global) in mem.globals.iter().enumerate() {
        let at = layout.global(g);
        ctx[at] = global.buf.addr();
        ctx[at + 1] = global.dims[0];
        ctx[at + 2] = global.dims[1];
    }
    for w in 0..mem.worklists.len() {
        sync_worklist(&mut ctx, layout, mem, w);
    }
    for (p, &bits) in params.iter().enumerate() {
        ctx[layout.param(p)] = bits;
    }
    ctx
}

/// Rewrites worklist `w`'s 8 slots from its current state (after a swap, a host push, a retry round).
pub fn sync_worklist(ctx: &mut [u64], layout: &Layout, mem: &Memory, w: usize) {
    let wl = &mem.worklists[w];
    let slot = |s: WorklistSlot| layout.worklist(w, s);
    ctx[slot(WorklistSlot::InItems)] = wl.in_buf().addr();
    ctx[slot(WorklistSlot::InCount)] = wl.count;
    ctx[slot(WorklistSlot::OutItems)] = wl.out_buf().addr();
    ctx[slot(WorklistSlot::OutCount)] = wl.counters.addr();
    ctx[slot(WorklistSlot::Capacity)] = wl.capacity;
    ctx[slot(WorklistSlot::RetryItems)] = wl.retry.as_ref().map_or(0, |r| r[wl.retry_cur].addr());
    ctx[slot(WorklistSlot::RetryCount)] = wl.counters.addr() + 8 * crate::memory::Worklist::RETRY_COUNT as u64;
    ctx[slot(WorklistSlot::Overflow)] = wl.counters.addr() + 8 * crate::memory::Worklist::OVERFLOW as u64;
}
