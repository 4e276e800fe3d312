//! Iteration outlining: which `pipe`s and loops of a plan a GPU can run as one persistent kernel.
//!
//! A pipe normally costs a launch, a counter read-back and a host decision per kernel per round: on a road
//! network with thousands of BFS levels that overhead is nearly all of the run. When everything a round does can
//! be done on the device, the PTX backend emits one extra entry that runs the whole loop (see
//! `irgc_artifact::PipeState` for its ABI, and `irgc-backend-ptx`'s `pipe.rs` for the code). This module decides
//! where that is possible; the host backend (the artifact lowering) and the PTX backend both ask it, so they agree
//! on the pipes and their numbering.
//!
//! A pipe qualifies when its body holds only
//! - launches (`Invoke`) of kernels with a top-level `forall` (not `forall tile`) and no `retry`, that push to no
//!   worklist but the pipe's own, with arguments the device can compute (a reduction's result may go to a local:
//!   every thread reads it after the grid barrier), and
//! - assignments to host locals of values the device can compute: literals, locals, params, graph sizes, and
//!   unary, binary, cast and math operations on them (not `random`, whose host and device values agree but which
//!   is rarely meant per round; not worklist sizes or reads of arrays, which would need the host's view),
//!
//! and at least one of its launches pushes to the pipe's worklist (otherwise the loop never ends by itself).
//! A loop (`while`, `loop`) qualifies on the same terms, with no pushes at all, an empty `continuing`, and exits
//! of the form `if cond { break }` in its body or a `break_if` the device can compute (`while step() { .. }`,
//! whose condition is a reduction, is the common case); it needs at least one exit.

use crate::analysis::kernel_effects;
use crate::ir::{
    DeviceOp, Expr, ExprKind, GraphQuery, Handle, MathFn, Module, PlanBlock, PlanBody, PlanOp, PlanStmt, StmtKind,
    Worklist,
};

/// An outlinable pipe or loop of the plan.
#[derive(Clone, Debug)]
pub struct OutlinedPipe<'m> {
    /// Its index among the outlined pipes and loops (the entry is `irgc_pipe_<index>`).
    pub index: usize,
    /// The pipe's worklist; `None` for a loop.
    pub worklist: Option<Handle<Worklist>>,
    pub body: &'m PlanBlock,
    /// A loop's `break_if`, checked after the body.
    pub break_if: Option<Handle<Expr>>,
}

impl OutlinedPipe<'_> {
    /// The PTX entry that runs this pipe.
    pub fn entry(&self) -> String {
        entry_name(self.index)
    }

    /// Kernel launches per round.
    pub fn launches_per_round(&self) -> u64 {
        self.body.iter().filter(|s| matches!(s.kind, StmtKind::Op(PlanOp::Invoke { .. }))).count() as u64
    }

    /// Launches of reducing kernels per round (each gets words of the state area).
    pub fn reductions(&self, m: &Module) -> usize {
        self.body
            .iter()
            .filter(|s| {
                matches!(s.kind, StmtKind::Op(PlanOp::Invoke { kernel, .. }) if m.kernels[kernel].reduction.is_some())
            })
            .count()
    }
}

/// The entry name of outlined pipe `index`.
pub fn entry_name(index: usize) -> String {
    format!("irgc_pipe_{index}")
}

/// The outlinable pipes of `m`'s plan, in the order a pre-order walk of the plan meets them (the order the
/// artifact numbers them in).
pub fn outlinable_pipes(m: &Module) -> Vec<OutlinedPipe<'_>> {
    let mut found = Vec::new();
    walk(m, &m.plan.block, &mut found);
    found
}

fn walk<'m>(m: &'m Module, block: &'m PlanBlock, found: &mut Vec<OutlinedPipe<'m>>) {
    for s in block {
        match &s.kind {
            StmtKind::Op(PlanOp::Pipe { worklist, body }) => {
                if qualifies(m, Some(*worklist), body) {
                    found.push(OutlinedPipe { index: found.len(), worklist: Some(*worklist), body, break_if: None });
                } else {
                    walk(m, body, found);
                }
            }
            StmtKind::Loop { body, continuing, break_if } => {
                let exits = break_if.is_some() || body.iter().any(|s| is_exit(m, s).is_some());
                if continuing.is_empty()
                    && exits
                    && break_if.is_none_or(|c| device_computable(&m.plan, c))
                    && qualifies(m, None, body)
                {
                    found.push(OutlinedPipe { index: found.len(), worklist: None, body, break_if: *break_if });
                } else {
                    walk(m, body, found);
                    walk(m, continuing, found);
                }
            }
            StmtKind::If { then, otherwise, .. } => {
                walk(m, then, found);
                walk(m, otherwise, found);
            }
            StmtKind::For { body, .. } => walk(m, body, found),
            StmtKind::Op(PlanOp::Hybrid { dense, sparse, .. }) => {
                walk(m, dense, found);
                walk(m, sparse, found);
            }
            _ => {}
        }
    }
}

/// The condition of an `if cond { break }`.
pub fn is_exit(m: &Module, s: &PlanStmt) -> Option<Handle<Expr>> {
    match &s.kind {
        StmtKind::If { cond, then, otherwise }
            if otherwise.is_empty() && matches!(then.as_slice(), [b] if matches!(b.kind, StmtKind::Break)) =>
        {
            device_computable(&m.plan, *cond).then_some(*cond)
        }
        _ => None,
    }
}

/// Whether a pipe over `wl` (or a loop, without) with this body can run on the device.
fn qualifies(m: &Module, wl: Option<Handle<Worklist>>, body: &PlanBlock) -> bool {
    let mut drains = false;
    for s in body {
        match &s.kind {
            StmtKind::Assign { value, .. } if device_computable(&m.plan, *value) => {}
            StmtKind::If { .. } if wl.is_none() && is_exit(m, s).is_some() => {}
            StmtKind::Op(PlanOp::Invoke { kernel, args, result }) => {
                let k = &m.kernels[*kernel];
                let top_forall =
                    matches!(k.body.block.as_slice(), [s] if matches!(s.kind, StmtKind::Op(DeviceOp::ForAll { .. })));
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

/// Whether every thread of the pipe's kernel can compute `e` from registers and the context alone.
fn device_computable(plan: &PlanBody, e: Handle<Expr>) -> bool {
    let ok = |h: &Handle<Expr>| device_computable(plan, *h);
    match &plan.exprs[e].kind {
        ExprKind::Literal(_) | ExprKind::Local(_) | ExprKind::Param(_) => true,
        ExprKind::Graph(GraphQuery::NumNodes | GraphQuery::NumEdges) => true,
        ExprKind::Unary { arg, .. } | ExprKind::Cast { arg } => ok(arg),
        ExprKind::Binary { left, right, .. } => ok(left) && ok(right),
        ExprKind::Math { fun, args } => *fun != MathFn::Random && args.iter().all(ok),
        ExprKind::Graph(_) | ExprKind::Load { .. } | ExprKind::WorklistSize(_) | ExprKind::HostLoad { .. } => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pipes(src: &str) -> Vec<(usize, usize)> {
        let c = crate::compile_source("t.irg", src);
        let m = c.module.expect("compiles");
        outlinable_pipes(&m).iter().map(|p| (p.index, p.worklist.map_or(usize::MAX, |w| w.index()))).collect()
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
        // Pushing to another worklist, reading a worklist's size, and a pipe that never pushes to its worklist.
        let k = "kernel a() { forall v in wl { other.push(v); } }\nkernel b() { forall v in wl { wl.push(v); } }\n";
        for plan in [
            "pipe wl { a(); }",
            "var s: u64 = 0; pipe wl { b(); s = wl.size(); }",
            "pipe wl { wl.clear(); }",
            "pipe other { b(); }",
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
}
