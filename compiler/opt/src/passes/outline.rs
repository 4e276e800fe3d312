//! **outline** — iteration outlining: a `pipe` or loop of the plan that a GPU can run by itself becomes one
//! persistent kernel ([`PlanOp::Outlined`]).
//!
//! A pipe normally costs a launch, a counter read-back and a host decision per kernel per round: on a road
//! network with thousands of BFS levels that overhead is nearly all of the run. When everything a round does can
//! be done on the device, the PTX backend emits one extra entry that runs the whole loop (see
//! `irgc_artifact::PipeState` for its ABI, and `irgc-backend-ptx`'s `pipe.rs` for the code); the host backend
//! marks it in the artifact, and the runtime runs it round by round where that entry cannot run (the CPU).
//!
//! What it does: a pipe qualifies when its body holds only
//! - launches (`Invoke`) of kernels with a top-level `forall` (not `forall tile`) that push (and, when they sweep
//!   it, retry) to no worklist but the pipe's own, with arguments the device can compute (a reduction's result may go to a local:
//!   every thread reads it after the grid barrier),
//! - assignments to plan locals of values the device can compute (`irgc_front::analysis::pipe_computable`: the
//!   pipe's own worklist size included),
//! - `if` statements on such values, and `hybrid` switches over the pipe's worklist with such a threshold, whose
//!   branches hold the same (every thread computes the same condition, so the grid takes one branch),
//!
//! at least one of its launches pushes to the pipe's worklist (otherwise the loop never ends by itself), and every
//! way through a round launches at least one kernel.
//! A loop (`while`, `loop`) qualifies on the same terms, with no pushes at all, an empty `continuing`, and exits
//! of the form `if cond { break }` in its body or a `break_if` the device can compute (`while step() { .. }`,
//! whose condition is a reduction, is the common case); it needs at least one exit.
//!
//! What it does not do: outline pipes over several worklists, or with host reads (other worklists' sizes, array
//! elements); those still run round by round. Whether outlining pays is not judged here: the runtime enters a
//! pipe's kernel once its worklist is small (irgc-cuda's `enters_pipe`) and a loop's where a trial of its rounds
//! was faster than the host's (`irgc_runtime::loop_gate`, `--outline-loops auto`).

use crate::Options;
use irgc_front::analysis::{device_computable, kernel_effects, outlined_loops, pipe_computable};
use irgc_front::ir::{
    launches_through, DeviceOp, Handle, Module, OutlinedLoop, PlanBlock, PlanOp, Space, StmtKind, Worklist,
};

/// Outlines every qualifying pipe and loop; returns how many.
pub(super) fn run(m: &mut Module, _: &Options, _: &mut Vec<crate::Remark>) -> usize {
    let before = outlined_loops(m).len();
    let mut block = std::mem::take(&mut m.plan.block);
    rewrite(m, &mut block, &mut 0);
    renumber(&mut block, &mut 0);
    m.plan.block = block;
    outlined_loops(m).len() - before
}

/// Numbers every outlined loop of `block` in a pre-order walk (what the entries' names and the artifact use).
fn renumber(block: &mut PlanBlock, next: &mut usize) {
    for s in block.iter_mut() {
        match &mut s.kind {
            StmtKind::Op(PlanOp::Outlined(o)) => {
                o.index = *next;
                *next += 1;
            }
            StmtKind::Op(PlanOp::Pipe { body, .. }) | StmtKind::For { body, .. } => renumber(body, next),
            StmtKind::Loop { body, continuing, .. } => {
                renumber(body, next);
                renumber(continuing, next);
            }
            StmtKind::If { then, otherwise, .. } => {
                renumber(then, next);
                renumber(otherwise, next);
            }
            StmtKind::Op(PlanOp::Hybrid { dense, sparse, .. }) => {
                renumber(dense, next);
                renumber(sparse, next);
            }
            _ => {}
        }
    }
}

/// Rewrites the qualifying pipes and loops of `block` (numbered provisionally; [`renumber`] fixes the order).
fn rewrite(m: &Module, block: &mut PlanBlock, next: &mut usize) {
    for s in block.iter_mut() {
        let kind = std::mem::replace(&mut s.kind, StmtKind::Break);
        let mut outline = |worklist, body, break_if| {
            let index = *next;
            *next += 1;
            StmtKind::Op(PlanOp::Outlined(OutlinedLoop { index, worklist, body, break_if }))
        };
        s.kind = match kind {
            StmtKind::Op(PlanOp::Pipe { worklist, body }) if qualifies(m, Some(worklist), &body) => {
                outline(Some(worklist), body, None)
            }
            StmtKind::Loop { body, continuing, break_if }
                if continuing.is_empty()
                    && (break_if.is_some() || body.iter().any(|s| is_exit(m, s)))
                    && break_if.is_none_or(|c| device_computable(&m.plan, c))
                    && qualifies(m, None, &body) =>
            {
                outline(None, body, break_if)
            }
            mut other => {
                match &mut other {
                    StmtKind::Op(PlanOp::Pipe { body, .. }) | StmtKind::For { body, .. } => rewrite(m, body, next),
                    StmtKind::Loop { body, continuing, .. } => {
                        rewrite(m, body, next);
                        rewrite(m, continuing, next);
                    }
                    StmtKind::If { then, otherwise, .. } => {
                        rewrite(m, then, next);
                        rewrite(m, otherwise, next);
                    }
                    StmtKind::Op(PlanOp::Hybrid { dense, sparse, .. }) => {
                        rewrite(m, dense, next);
                        rewrite(m, sparse, next);
                    }
                    _ => {}
                }
                other
            }
        };
    }
}

/// An `if cond { break }` whose condition the device can compute.
fn is_exit(m: &Module, s: &irgc_front::ir::PlanStmt) -> bool {
    s.as_exit().is_some_and(|c| device_computable(&m.plan, c))
}

/// Whether a pipe over `wl` (or a loop, without) with this body can run on the device.
fn qualifies(m: &Module, wl: Option<Handle<Worklist>>, body: &PlanBlock) -> bool {
    let mut drains = false;
    block_qualifies(m, wl, body, true, &mut drains) && fewest_launches(body) > 0 && (drains || wl.is_none())
}

/// Whether every statement of `block` (the body itself when `top`, else a branch inside it) can run on the device;
/// sets `drains` when one of its launches pushes to the pipe's worklist.
fn block_qualifies(m: &Module, wl: Option<Handle<Worklist>>, block: &PlanBlock, top: bool, drains: &mut bool) -> bool {
    let computable = |e| pipe_computable(&m.plan, e, wl);
    for s in block {
        let ok = match &s.kind {
            StmtKind::Assign { value, .. } => computable(*value),
            StmtKind::If { .. } if top && wl.is_none() && is_exit(m, s) => true,
            StmtKind::If { cond, then, otherwise } => {
                computable(*cond)
                    && block_qualifies(m, wl, then, false, drains)
                    && block_qualifies(m, wl, otherwise, false, drains)
            }
            // Every thread reads the pipe's current count, so all take the same branch.
            // `above auto`: thread 0 times each branch from before its first launch to after its last grid
            // barrier, so both branches must launch (`irgc_artifact::PipeState::auto_words`).
            StmtKind::Op(PlanOp::Hybrid { worklist, threshold, dense, sparse }) => {
                let timed = threshold.is_some()
                    || (launches_through(dense, u64::min) > 0 && launches_through(sparse, u64::min) > 0);
                wl == Some(*worklist)
                    && threshold.is_none_or(computable)
                    && timed
                    && block_qualifies(m, wl, dense, false, drains)
                    && block_qualifies(m, wl, sparse, false, drains)
            }
            StmtKind::Op(PlanOp::Invoke { kernel, args, result }) => {
                let k = &m.kernels[*kernel];
                let top_forall = matches!(k.sweep(), Some(DeviceOp::ForAll { .. }));
                // A kernel may retry into the pipe's worklist if it sweeps it (the host's rule too): the entry
                // relaunches the step over the retried items until none are retried.
                let sweeps_wl =
                    matches!(k.sweep(), Some(DeviceOp::ForAll { space: Space::Worklist(w), .. }) if Some(*w) == wl);
                let own = |w: &usize| Some(*w) == wl.map(|h| h.index());
                let (pushes, retries) = kernel_effects(m, k);
                *drains |= wl.is_some_and(|w| pushes.contains(&w.index()));
                // A kernel whose sweep waits runs on a grid of its own, with per-item flags the host sizes for
                // each launch: not a step of a persistent kernel.
                top_forall
                    && !k.waits()
                    && result.is_some() == k.reduction.is_some()
                    && (retries.is_empty() || (sweeps_wl && retries.iter().all(own)))
                    && pushes.iter().all(own)
                    && args.iter().all(|&a| computable(a))
            }
            _ => false,
        };
        if !ok {
            return false;
        }
    }
    true
}

/// The fewest kernel launches any way through `block` makes. A round that launched nothing would pass no grid
/// barrier: the reduction words a round resets for the next would then race with the last round's readers.
fn fewest_launches(block: &PlanBlock) -> u64 {
    launches_through(block, u64::min)
}
