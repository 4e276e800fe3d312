//! How the IR maps onto the runtime's kernel ABI (`irgc-artifact`): what the host backend and both device
//! backends must agree on, stated once.
//!
//! Entities keep their IR order in the artifact (IR global `g` is artifact global `g`, and so on for params,
//! worklists and kernels), so a device backend can index the context [`Layout`](irgc_artifact::Layout) with IR
//! handles directly.

use crate::analysis::kernel_effects;
use crate::ir::{Kernel, Module};
use irgc_artifact as art;

/// The context layout of a module's kernels: the same as [`art::Layout::of`] gives for its artifact, since the
/// artifact keeps globals, worklists, params and kernels in IR order. Backends index the context with it.
pub fn layout_of(m: &Module) -> art::Layout {
    art::Layout {
        globals: m.globals.len(),
        worklists: m.worklists.len(),
        params: m.params.len(),
        max_args: m.kernels.iter().map(|(_, k)| k.params.len()).max().unwrap_or(0),
    }
}

/// The worklists kernel `k` pushes to (directly or in the functions it calls), by index, in order: the ones whose
/// spent push counter its first iteration zeroes (see the kernel ABI in `irgc-artifact`).
pub fn pushed_worklists(m: &Module, k: &Kernel) -> Vec<usize> {
    kernel_effects(m, k).0.into_iter().collect()
}
