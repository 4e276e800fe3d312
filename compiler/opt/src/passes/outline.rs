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
//! - launches (`Invoke`) of kernels with a top-level `forall` (not `forall tile`) and no `retry`, that push to no
//!   worklist but the pipe's own, with arguments the device can compute (a reduction's result may go to a local:
//!   every thread reads it after the grid barrier), and
//! - assignments to plan locals of values the device can compute (`irgc_front::analysis::device_computable`),
//!
//! and at least one of its launches pushes to the pipe's worklist (otherwise the loop never ends by itself).
//! A loop (`while`, `loop`) qualifies on the same terms, with no pushes at all, an empty `continuing`, and exits
//! of the form `if cond { break }` in its body or a `break_if` the device can compute (`while step() { .. }`,
//! whose condition is a reduction, is the common case); it needs at least one exit.
//!
//! What it does not do: outline `hybrid` pipes, pipes with `retry`, several worklists, or host reads (worklist
//! sizes, array elements); those still run round by round. Whether outlining pays is not judged here: loops are
//! outlined but the runtime runs them persistently only with `--outline-loops` (short heavy loops run faster
//! round by round).

use crate::Options;
use irgc_front::analysis::{device_computable, kernel_effects, outlined_loops};
use irgc_front::ir::{DeviceOp, Handle, Module, OutlinedLoop, PlanBlock, PlanOp, StmtKind, Worklist};

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
    for s in body {
        match &s.kind {
            StmtKind::Assign { value, .. } if device_computable(&m.plan, *value) => {}
            StmtKind::If { .. } if wl.is_none() && is_exit(m, s) => {}
            StmtKind::Op(PlanOp::Invoke { kernel, args, result }) => {
                let k = &m.kernels[*kernel];
                let top_forall = matches!(k.sweep(), Some(DeviceOp::ForAll { .. }));
                let (pushes, retries) = kernel_effects(m, k);
                if !top_forall
                    || result.is_some() != k.reduction.is_some()
                    || !retries.is_empty()
                    || pushes.iter().any(|&w| Some(w) != wl.map(|h| h.index()))
                    || !args.iter().all(|&a| device_computable(&m.plan, a))
                {
                    return false;
                }
                drains |= wl.is_some_and(|w| pushes.contains(&w.index()));
            }
            _ => return false,
        }
    }
    drains || wl.is_none()
}

#[cfg(test)]
mod tests {
    use crate::Options;
    use irgc_front::analysis::outlined_loops;

    /// (index, worklist index or usize::MAX for a loop) of every outlined pipe and loop.
    fn pipes(src: &str) -> Vec<(usize, usize)> {
        let c = irgc_front::compile_source("t.irg", src);
        let mut m = c.module.expect("compiles");
        crate::run(&mut m, &Options { validate: true, ..Options::default() }).expect("valid after the pass");
        outlined_loops(&m).iter().map(|p| (p.index, p.worklist.map_or(usize::MAX, |w| w.index()))).collect()
    }

    const HEAD: &str = "graph G;\nnode level: u32 = inf;\nworklist wl;\nworklist other;\n";

    #[test]
    fn a_bfs_pipe_with_a_counter_is_outlined() {
        let src = format!(
            "{HEAD}kernel expand(d: u32) {{ forall v in wl {{ for e in G.edges(v) {{ let w = G.dst(e); \
             if atomic_min(level[w], d + 1) > d + 1 {{ wl.push(w); }} }} }} }}\n\
             plan {{ wl.push(0); var d: u32 = 0; pipe wl {{ expand(d); d += 1; }} }}"
        );
        assert_eq!(pipes(&src), vec![(0, 0)]);
    }

    #[test]
    fn pipes_the_host_must_watch_are_not_outlined() {
        // Pushing to another worklist, reading a worklist's size, a pipe that never pushes to its worklist, and
        // one that prints.
        let k = "kernel a() { forall v in wl { other.push(v); } }\nkernel b() { forall v in wl { wl.push(v); } }\n";
        for plan in [
            "pipe wl { a(); }",
            "var s: u64 = 0; pipe wl { b(); s = wl.size(); }",
            "pipe wl { wl.clear(); }",
            "pipe other { b(); }",
            "var d: u32 = 0; pipe wl { b(); print(d); d += 1; }",
        ] {
            let src = format!("{HEAD}{k}plan {{ wl.push(0); {plan} }}");
            assert_eq!(pipes(&src), vec![], "{plan}");
        }
        let src = format!("{HEAD}{k}plan {{ wl.push(0); pipe wl {{ a(); }} pipe wl {{ b(); }} }}");
        assert_eq!(pipes(&src), vec![(0, 0)]);
    }

    #[test]
    fn a_while_loop_over_a_reduction_is_outlined_but_not_one_that_pushes() {
        let k = "kernel step(d: u32) -> any { forall v in G.nodes { if level[v] == d { reduce true; } } }\n\
                 kernel p() -> any { forall v in G.nodes { wl.push(v); reduce true; } }\n";
        let src = format!("{HEAD}{k}plan {{ var d: u32 = 0; while step(d) {{ d += 1; }} }}");
        assert_eq!(pipes(&src), vec![(0, usize::MAX)]);
        let src = format!("{HEAD}{k}plan {{ while p() {{ }} }}");
        assert_eq!(pipes(&src), vec![]);
        // A loop without an exit is left to the host (and its launch limit).
        let src = format!("{HEAD}{k}plan {{ var d: u32 = 0; loop {{ step(d); d += 1; }} }}");
        assert_eq!(pipes(&src), vec![]);
    }

    #[test]
    fn outlined_pipes_are_numbered_in_plan_order_and_the_pass_is_idempotent() {
        let k = "kernel b() { forall v in wl { wl.push(v); } }\n";
        let src = format!("{HEAD}{k}plan {{ wl.push(0); if true {{ pipe wl {{ b(); }} }} pipe wl {{ b(); }} }}");
        let c = irgc_front::compile_source("t.irg", &src);
        let mut m = c.module.expect("compiles");
        let opts = Options { validate: true, ..Options::default() };
        let first = crate::run(&mut m, &opts).expect("valid");
        let outline = |r: &crate::Report| r.passes.iter().find(|p| p.name == "outline").map(|p| p.changes);
        assert_eq!(outline(&first), Some(2));
        let again = crate::run(&mut m, &opts).expect("valid");
        assert_eq!(outline(&again), Some(0));
        let idx: Vec<usize> = outlined_loops(&m).iter().map(|o| o.index).collect();
        assert_eq!(idx, vec![0, 1]);
    }

    #[test]
    fn disabled_it_changes_nothing() {
        let k = "kernel b() { forall v in wl { wl.push(v); } }\n";
        let src = format!("{HEAD}{k}plan {{ wl.push(0); pipe wl {{ b(); }} }}");
        let c = irgc_front::compile_source("t.irg", &src);
        let mut m = c.module.expect("compiles");
        let before = m.clone();
        let report = crate::run(&mut m, &Options::none()).expect("valid");
        assert!(report.passes.iter().all(|p| !p.ran));
        assert_eq!(m, before);
    }
}
