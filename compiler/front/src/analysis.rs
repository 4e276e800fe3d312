//! Facts about a module that several later stages ask for (iteration outlining, the host backend, the device
//! backends): computed here once, so none of them imports another for them.

use crate::ir::{
    DeviceBlock, DeviceOp, DeviceStmt, Expr, ExprKind, GraphQuery, Handle, Kernel, MathFn, Module, OutlinedLoop,
    PlanBlock, PlanBody, PlanOp, StmtKind, Worklist,
};
use std::collections::BTreeSet;

/// The worklists kernel `k` pushes to and retries into, by index, following calls into device functions.
pub fn kernel_effects(m: &Module, k: &Kernel) -> (BTreeSet<usize>, BTreeSet<usize>) {
    let mut pushes = BTreeSet::new();
    let mut retries = BTreeSet::new();
    let mut seen = BTreeSet::new();
    effects(m, &k.body.block, &mut pushes, &mut retries, &mut seen);
    (pushes, retries)
}

fn effects(
    m: &Module,
    block: &DeviceBlock,
    pushes: &mut BTreeSet<usize>,
    retries: &mut BTreeSet<usize>,
    seen: &mut BTreeSet<usize>,
) {
    for s in block {
        match &s.kind {
            StmtKind::Op(DeviceOp::Push { worklist, .. }) => {
                pushes.insert(worklist.index());
            }
            StmtKind::Op(DeviceOp::Retry { worklist, .. }) => {
                retries.insert(worklist.index());
            }
            StmtKind::Op(DeviceOp::Call { function, .. }) if seen.insert(function.index()) => {
                effects(m, &m.functions[*function].body.block, pushes, retries, seen);
            }
            StmtKind::If { then, otherwise, .. } => {
                effects(m, then, pushes, retries, seen);
                effects(m, otherwise, pushes, retries, seen);
            }
            StmtKind::Loop { body, continuing, .. } => {
                effects(m, body, pushes, retries, seen);
                effects(m, continuing, pushes, retries, seen);
            }
            StmtKind::For { body, .. }
            | StmtKind::Op(DeviceOp::ForAll { body, .. } | DeviceOp::ForTile { body, .. }) => {
                effects(m, body, pushes, retries, seen)
            }
            _ => {}
        }
    }
}

/// The globals (by index) that a kernel whose sweep waits ([`Kernel::waits`]) writes, by a store or an atomic,
/// itself or in a function it calls (an array it passes to a function counts as written). Other items of the
/// same launch read them while they change, so every read of them, in every kernel and function, reaches memory
/// (a strong GPU-scope load on the GPU, never kept in L1 or a register across a retry); reads of every other array
/// may be cached as usual.
pub fn coherent_globals(m: &Module) -> BTreeSet<usize> {
    fn walk(m: &Module, block: &DeviceBlock, out: &mut BTreeSet<usize>, seen: &mut BTreeSet<usize>) {
        for s in block {
            s.visit(&mut |s| match &s.kind {
                StmtKind::Op(DeviceOp::Store { array, .. } | DeviceOp::Atomic { array, .. }) => {
                    if let crate::ir::ArrayRef::Global(g) = array {
                        out.insert(g.index());
                    }
                }
                StmtKind::Op(DeviceOp::Call { function, args, .. }) => {
                    // An array passed to a function may be written through its parameter: counted as written.
                    for a in args {
                        if let crate::ir::Arg::Array(crate::ir::ArrayRef::Global(g)) = a {
                            out.insert(g.index());
                        }
                    }
                    if seen.insert(function.index()) {
                        walk(m, &m.functions[*function].body.block, out, seen);
                    }
                }
                _ => {}
            });
        }
    }
    let mut out = BTreeSet::new();
    for (_, k) in m.kernels.iter().filter(|(_, k)| k.waits()) {
        walk(m, &k.body.block, &mut out, &mut BTreeSet::new());
    }
    out
}

/// Whether device function `f` (by index), or a function it calls, has a statement for which `found` holds: what
/// the nested-parallelism pass asks of a call (does it store to an array? run a loop?).
pub fn function_has(m: &Module, f: usize, found: impl Fn(&DeviceStmt) -> bool) -> bool {
    fn walk(m: &Module, block: &DeviceBlock, found: &dyn Fn(&DeviceStmt) -> bool, seen: &mut BTreeSet<usize>) -> bool {
        let mut hit = false;
        for s in block {
            s.visit(&mut |s| {
                hit |= found(s);
                if let StmtKind::Op(DeviceOp::Call { function, .. }) = &s.kind {
                    if seen.insert(function.index()) {
                        hit |= walk(m, &m.functions[*function].body.block, found, seen);
                    }
                }
            });
        }
        hit
    }
    walk(m, &m.functions[Handle::new(f)].body.block, &found, &mut BTreeSet::from([f]))
}

/// The outlined pipes and loops of the plan ([`PlanOp::Outlined`]), in index order.
pub fn outlined_loops(m: &Module) -> Vec<&OutlinedLoop> {
    fn walk<'m>(block: &'m PlanBlock, out: &mut Vec<&'m OutlinedLoop>) {
        for s in block {
            match &s.kind {
                StmtKind::Op(PlanOp::Outlined(o)) => out.push(o),
                StmtKind::Op(PlanOp::Pipe { body, .. }) | StmtKind::For { body, .. } => walk(body, out),
                StmtKind::Op(PlanOp::Hybrid { dense, sparse, .. }) => {
                    walk(dense, out);
                    walk(sparse, out);
                }
                StmtKind::If { then, otherwise, .. } => {
                    walk(then, out);
                    walk(otherwise, out);
                }
                StmtKind::Loop { body, continuing, .. } => {
                    walk(body, out);
                    walk(continuing, out);
                }
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    walk(&m.plan.block, &mut out);
    out.sort_by_key(|o| o.index);
    out
}

/// Whether every thread of a persistent GPU kernel can compute the plan expression `e` from registers and the
/// kernel context alone: literals, locals, params, graph sizes, and unary, binary, cast and math operations on
/// them (not `random`, whose host and device values agree but which is rarely meant per round; not worklist
/// sizes or reads of arrays, which need the host's view).
pub fn device_computable(plan: &PlanBody, e: Handle<Expr>) -> bool {
    pipe_computable(plan, e, None)
}

/// [`device_computable`] inside an outlined pipe over `worklist`, which may also read that worklist's size: the
/// persistent kernel holds its current count in a state word that no thread writes while others read it.
pub fn pipe_computable(plan: &PlanBody, e: Handle<Expr>, worklist: Option<Handle<Worklist>>) -> bool {
    let ok = |h: &Handle<Expr>| pipe_computable(plan, *h, worklist);
    match &plan.exprs[e].kind {
        ExprKind::Literal(_) | ExprKind::Local(_) | ExprKind::Param(_) => true,
        ExprKind::Graph(GraphQuery::NumNodes | GraphQuery::NumEdges) => true,
        ExprKind::WorklistSize(w) => Some(*w) == worklist,
        ExprKind::Unary { arg, .. } | ExprKind::Cast { arg } => ok(arg),
        ExprKind::Binary { left, right, .. } => ok(left) && ok(right),
        ExprKind::Math { fun, args } => *fun != MathFn::Random && args.iter().all(ok),
        ExprKind::Graph(_) | ExprKind::Load { .. } | ExprKind::HostLoad { .. } | ExprKind::DeviceThreads => false,
    }
}
