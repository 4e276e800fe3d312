//! **coop** — cooperative conversion: the GPU threads of a warp that push to a worklist, or finish a reduction,
//! at the same moment combine their updates and send one atomic to the shared counter or result
//! ([`Cooperation::Warp`]) instead of one each.
//!
//! A worklist's push counter and a kernel's reduction word are each one address that every thread of a launch
//! updates: per-thread atomics on them serialise (IrGL's cooperative conversion removes exactly this). With the
//! pass, the lanes present at a push (`activemask`: diverged or finished lanes are never assumed) take
//! consecutive slots through one `atomic_add` by their lowest lane and a `shfl` of its result; a reduction's
//! partials are combined with `redux.sync` (bool any/all, 32-bit integers and nodes), or a shuffle butterfly
//! (64-bit integer and float sums, minima and maxima), before one lane's atomic. A float sum is then added in
//! another order, but in no less fixed a one: per-thread atomics land in whatever order the GPU schedules them.
//!
//! What it does: marks every `push` and `retry` in kernels and device functions, and every kernel's reduction,
//! as warp-combined. What it does not do: combine across a thread block (shared-memory scans at a block-wide
//! barrier; a later version), or change anything on the CPU, whose threads each own a chunk of iterations.

use crate::Options;
use irgc_front::ir::{Cooperation, DeviceBlock, DeviceOp, Module, StmtKind};

/// Marks every push, retry and reduction warp-combined; returns how many it changed.
pub(super) fn run(m: &mut Module, _: &Options, _: &mut Vec<crate::Remark>) -> usize {
    let mut changed = 0;
    for (_, f) in m.functions.iter_mut() {
        changed += mark(&mut f.body.block);
    }
    for (_, k) in m.kernels.iter_mut() {
        changed += mark(&mut k.body.block);
        if k.reduction.is_some() && k.reduce_coop != Cooperation::Warp {
            k.reduce_coop = Cooperation::Warp;
            changed += 1;
        }
    }
    changed
}

fn mark(block: &mut DeviceBlock) -> usize {
    let mut changed = 0;
    for s in block.iter_mut() {
        match &mut s.kind {
            StmtKind::Op(DeviceOp::Push { coop, .. } | DeviceOp::Retry { coop, .. }) if *coop != Cooperation::Warp => {
                *coop = Cooperation::Warp;
                changed += 1;
            }
            StmtKind::If { then, otherwise, .. } => changed += mark(then) + mark(otherwise),
            StmtKind::Loop { body, continuing, .. } => changed += mark(body) + mark(continuing),
            StmtKind::For { body, .. }
            | StmtKind::Op(DeviceOp::ForAll { body, .. } | DeviceOp::ForTile { body, .. }) => changed += mark(body),
            _ => {}
        }
    }
    changed
}

#[cfg(test)]
mod tests {
    use crate::Options;
    use irgc_front::ir::print::print_module;

    const SRC: &str = "graph G;\nworklist wl;\nnode x: u32;\n\
        kernel k() -> any { forall v in wl { if x[v] == 0 { wl.push(v); reduce true; } } }\n\
        plan { wl.push(0); while k() { } }";

    #[test]
    fn pushes_and_reductions_become_warp_combined_and_show_in_the_ir() {
        let mut m = irgc_front::compile_source("t.irg", SRC).module.expect("compiles");
        let before = print_module(&m);
        assert!(before.contains("push wl <-") && before.contains("-> any bool"), "{before}");
        let opts = Options { validate: true, ..Options::default() }.without("outline");
        let report = crate::run(&mut m, &opts).expect("valid");
        let coop = report.passes.iter().find(|p| p.name == "coop").expect("the pass ran");
        assert_eq!(coop.changes, 2);
        let after = print_module(&m);
        assert!(after.contains("push.warp wl <-") && after.contains("-> any.warp bool"), "{after}");
    }
}
