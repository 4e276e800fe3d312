//! The kernel context: the table of `u64` slots every kernel is entered with ([`Layout`] gives the indices).
//!
//! The runtime owns the context and rewrites the slots that change between launches (kernel arguments, worklist
//! buffer pointers and counts); kernels only read it. The pointers are the [addresses](DeviceBuffer::address) of
//! [`Memory`]'s buffers, which move only when `G.contract` replaces the graph and its arrays (the plan then
//! calls [`sync_memory`]). This is the host copy: a device whose kernels cannot read host memory copies it over before each launch.

use irgc_artifact::{Layout, WorklistSlot};

use crate::device::DeviceBuffer;
use crate::memory::Memory;

/// Builds the full context for `mem` with the given param values; argument and reduction slots start at 0.
pub fn build<B: DeviceBuffer>(layout: &Layout, mem: &Memory<B>, params: &[u64]) -> Vec<u64> {
    let mut ctx = vec![0u64; layout.context_len()];
    sync_memory(&mut ctx, layout, mem);
    for (p, &bits) in params.iter().enumerate() {
        ctx[layout.param(p)] = bits;
    }
    ctx
}

/// Rewrites every slot that describes memory: the graph, the global arrays and the worklists.
pub fn sync_memory<B: DeviceBuffer>(ctx: &mut [u64], layout: &Layout, mem: &Memory<B>) {
    ctx[layout.bounds_report()] = mem.bounds_report.address();
    ctx[layout.wait_flags()] = mem.wait_flags.as_ref().map_or(0, |(b, _)| b.address());
    ctx[Layout::ROW_START] = mem.row_start.address();
    ctx[Layout::COL] = mem.col.address();
    ctx[Layout::WEIGHTS] = mem.weights.as_ref().map_or(0, |b| b.address());
    ctx[Layout::SRC] = mem.sources.as_ref().map_or(0, |b| b.address());
    ctx[Layout::NUM_NODES] = mem.num_nodes;
    ctx[Layout::NUM_EDGES] = mem.num_edges;
    ctx[Layout::SKEWED] = skew(mem);
    for (g, global) in mem.globals.iter().enumerate() {
        let at = layout.global(g);
        ctx[at] = global.buf.address();
        ctx[at + 1] = global.dims[0];
        ctx[at + 2] = global.dims[1];
    }
    for w in 0..mem.worklists.len() {
        sync_worklist(ctx, layout, mem, w);
    }
}

/// Set in the environment, how the graph is classed for the nested-parallelism schedules (the context's `SKEWED`
/// slot, [`irgc_artifact::Skew`]) in place of [`irgc_artifact::Skew::of`]'s class: `0` even (the flat entries
/// run), `1` skewed (the scheduled entries run everywhere). Any other value (`wide`, which older scripts set)
/// leaves the class. The knob that measures the rule (`docs/optimizer.md`, "The skew rule, measured").
pub const SKEWED_VAR: &str = "IRGC_SKEWED";

fn skew<B: DeviceBuffer>(mem: &Memory<B>) -> u64 {
    let class = irgc_artifact::Skew::of(mem.num_nodes, mem.num_edges, mem.max_degree);
    skew_as_set(std::env::var(SKEWED_VAR).ok().as_deref(), class)
}

/// The `SKEWED` slot's value for a graph of `class` ([`irgc_artifact::Skew::of`]): as [`SKEWED_VAR`]'s value
/// `set` says, else the class.
fn skew_as_set(set: Option<&str>, class: u64) -> u64 {
    use irgc_artifact::Skew;
    match set.map(str::trim) {
        Some("0") => Skew::EVEN,
        Some("1") => Skew::SKEWED,
        _ => class,
    }
}

/// Rewrites worklist `w`'s 8 slots from its current state (after a swap, a host push, a retry round).
pub fn sync_worklist<B: DeviceBuffer>(ctx: &mut [u64], layout: &Layout, mem: &Memory<B>, w: usize) {
    use crate::memory::Worklist;
    let wl = &mem.worklists[w];
    let slot = |s: WorklistSlot| layout.worklist(w, s);
    let counters = wl.counters.address();
    ctx[slot(WorklistSlot::InItems)] = wl.in_buf().address();
    ctx[slot(WorklistSlot::InCount)] = wl.count;
    ctx[slot(WorklistSlot::OutItems)] = wl.out_buf().address();
    ctx[slot(WorklistSlot::OutCount)] = counters + 8 * wl.out_slot as u64;
    ctx[slot(WorklistSlot::SpentCount)] = counters + 8 * (1 - wl.out_slot) as u64;
    ctx[slot(WorklistSlot::Capacity)] = wl.capacity;
    ctx[slot(WorklistSlot::RetryItems)] = wl.retry.as_ref().map_or(0, |r| r[wl.retry_cur].address());
    ctx[slot(WorklistSlot::RetryCount)] = counters + 8 * Worklist::<B>::RETRY_COUNT as u64;
    ctx[slot(WorklistSlot::Overflow)] = counters + 8 * Worklist::<B>::OVERFLOW as u64;
}

#[cfg(test)]
mod tests {
    use super::skew_as_set;
    use irgc_artifact::Skew;

    #[test]
    fn the_skew_knob_overrides_the_class_as_it_says() {
        for class in [Skew::EVEN, Skew::WIDE, Skew::SKEWED] {
            assert_eq!(skew_as_set(Some("0"), class), Skew::EVEN);
            assert_eq!(skew_as_set(Some(" 1"), class), Skew::SKEWED);
            for other in [None, Some(""), Some("yes"), Some("2"), Some("wide")] {
                assert_eq!(skew_as_set(other, class), class, "{other:?}");
            }
        }
    }
}
