//! The host backend: lowers a validated IR module to the runtime's [`Artifact`](art::Artifact) — signatures,
//! spaces, worklist effects, and the plan as plain data the runtime interprets. It sits beside the two device
//! backends (`irgc-backend-cpu`, `irgc-backend-ptx`), which supply the kernels' code.
//!
//! Entities keep their IR order: IR global `g` is artifact global `g`, and so on for params, worklists and
//! kernels, so a device backend can index the context layout with IR handles directly
//! ([`irgc_front::abi::layout_of`]).

use irgc_artifact as art;
use irgc_front::analysis::kernel_effects;
use irgc_front::ir::{self, Body, DeviceOp, ExprKind, GraphQuery, Handle, Literal, Module, PlanOp, Scalar, StmtKind};

pub use irgc_front::abi::{layout_of, pushed_worklists};

/// Builds the artifact of a module (which must have passed the validator).
pub fn lower(m: &Module) -> art::Artifact {
    let plan_exprs = |h: Handle<ir::Expr>| host_expr(&m.plan, h);
    let outlined = irgc_front::analysis::outlined_loops(m);
    art::Artifact {
        name: m.name.clone(),
        graph: m.graph.as_ref().map(|g| art::GraphDesc { weight: g.weight }),
        needs_sources: m.kernels.iter().any(|(_, k)| uses_sources(&k.body))
            || m.functions.iter().any(|(_, f)| uses_sources(&f.body)),
        params: m
            .params
            .iter()
            .map(|(_, p)| art::ParamDesc {
                name: p.name.clone(),
                ty: p.ty,
                default: p.default.map(|d| art::Value { ty: p.ty, bits: literal_bits(d, p.ty) }),
            })
            .collect(),
        globals: m
            .globals
            .iter()
            .map(|(_, g)| art::GlobalDesc {
                name: g.name.clone(),
                elem: g.elem,
                shape: match &g.kind {
                    ir::GlobalKind::Node => art::Shape::Node,
                    ir::GlobalKind::Edge => art::Shape::Edge,
                    ir::GlobalKind::Dense(d) => art::Shape::Dense(d.iter().map(|&e| plan_exprs(e)).collect()),
                },
            })
            .collect(),
        worklists: m.worklists.iter().map(|(_, w)| art::WorklistDesc { name: w.name.clone(), elem: w.elem }).collect(),
        kernels: m.kernels.iter().map(|(_, k)| kernel(m, k)).collect(),
        pipes: outlined
            .iter()
            .map(|p| art::PipeDesc {
                entry: p.entry(),
                worklist: p.worklist.map(|w| w.index()),
                launches_per_round: p.launches_per_round(),
                reductions: p.reductions(m),
            })
            .collect(),
        plan: art::Plan {
            locals: m.plan.locals.iter().map(|(_, l)| (l.name.clone(), local_scalar(l.ty))).collect(),
            body: Plan.block(&m.plan, &m.plan.block),
        },
        outputs: m
            .outputs
            .iter()
            .map(|o| art::OutputDesc {
                global: o.global.index(),
                check: o.check.as_ref().map(|c| match c {
                    ir::Check::Bfs { source } => art::CheckDesc::Bfs { source: plan_exprs(*source) },
                    ir::Check::Sssp { source } => art::CheckDesc::Sssp { source: plan_exprs(*source) },
                    ir::Check::Components => art::CheckDesc::Components,
                    ir::Check::Coloring => art::CheckDesc::Coloring,
                    ir::Check::Matching => art::CheckDesc::Matching,
                    ir::Check::Communities => art::CheckDesc::Communities,
                    ir::Check::Apsp => art::CheckDesc::Apsp,
                }),
            })
            .collect(),
    }
}

fn local_scalar(t: ir::LocalType) -> art::Scalar {
    match t {
        ir::LocalType::Scalar(s) | ir::LocalType::ArrayRef(s) => s,
    }
}

/// The bits of a literal of type `ty`, as the artifact's [`Value`](art::Value) stores them.
pub fn literal_bits(lit: Literal, ty: Scalar) -> u64 {
    match lit {
        Literal::Bool(b) => b as u64,
        Literal::Int(v) => v,
        Literal::Float(f) => match ty {
            Scalar::F32 => (f as f32).to_bits() as u64,
            _ => f.to_bits(),
        },
        Literal::Inf => ty.inf_bits(),
    }
}

fn kernel(m: &Module, k: &ir::Kernel) -> art::KernelDesc {
    let (pushes, retries) = kernel_effects(m, k);
    let dims = |s: &ir::Space| match s {
        ir::Space::Range2(_) => 2,
        _ => 1,
    };
    let ranges = |s: &ir::Space| match s {
        ir::Space::Range(a, b) => vec![(host_expr(&k.body, *a), host_expr(&k.body, *b))],
        ir::Space::Range2(r) => r.iter().map(|(a, b)| (host_expr(&k.body, *a), host_expr(&k.body, *b))).collect(),
        _ => Vec::new(),
    };
    let bounds = match k.body.block.first().map(|s| &s.kind) {
        Some(StmtKind::Op(DeviceOp::ForAll { space, .. })) => ranges(space),
        Some(StmtKind::Op(DeviceOp::ForTile { tiles, .. })) => ranges(tiles),
        _ => Vec::new(),
    };
    let space = match k.body.block.first().map(|s| &s.kind) {
        Some(StmtKind::Op(DeviceOp::ForAll { space, .. })) => match space {
            ir::Space::Nodes => art::Space::Nodes,
            ir::Space::Edges => art::Space::Edges,
            ir::Space::Worklist(w) => art::Space::Worklist(w.index()),
            s => art::Space::Range { dims: dims(s) },
        },
        Some(StmtKind::Op(DeviceOp::ForTile { tiles, threads, .. })) => {
            art::Space::Tiles { dims: dims(tiles), threads: threads.clone() }
        }
        // The validator guarantees one sweep per kernel; an empty body has an empty range.
        _ => art::Space::Range { dims: 1 },
    };
    art::KernelDesc {
        name: k.name.clone(),
        params: k.params.iter().map(|&p| local_scalar(k.body.locals[p].ty)).collect(),
        reduction: k.reduction.map(|(op, ty)| (op, ty)),
        space,
        pushes: pushes.into_iter().collect(),
        retries: retries.into_iter().next(),
        bounds,
    }
}

fn uses_sources<Op>(body: &Body<Op>) -> bool {
    body.exprs.iter().any(|(_, e)| matches!(e.kind, ExprKind::Graph(GraphQuery::Src(_))))
}

/// Lowers plan statements; an outlined pipe or loop keeps its number, which names its GPU entry.
struct Plan;

impl Plan {
    fn block(&self, body: &ir::PlanBody, b: &ir::PlanBlock) -> Vec<art::HostStmt> {
        b.iter().map(|s| self.stmt(body, s)).collect()
    }

    fn stmt(&self, body: &ir::PlanBody, s: &ir::PlanStmt) -> art::HostStmt {
        let e = |h: Handle<ir::Expr>| host_expr(body, h);
        let es = |hs: &[Handle<ir::Expr>]| hs.iter().map(|&h| host_expr(body, h)).collect::<Vec<_>>();
        match &s.kind {
            StmtKind::Assign { local, value } => art::HostStmt::Assign { local: local.index(), value: e(*value) },
            StmtKind::Op(PlanOp::Store { global, index, value }) => {
                art::HostStmt::Store { global: global.index(), index: es(index), value: e(*value) }
            }
            StmtKind::Op(PlanOp::Fill { global, value }) => {
                art::HostStmt::Fill { global: global.index(), value: e(*value) }
            }
            StmtKind::Op(PlanOp::HostPush { worklist, value }) => {
                art::HostStmt::Push { worklist: worklist.index(), value: e(*value) }
            }
            StmtKind::Op(PlanOp::Clear { worklist }) => art::HostStmt::Clear { worklist: worklist.index() },
            StmtKind::Op(PlanOp::Invoke { kernel, args, result }) => {
                art::HostStmt::Invoke { kernel: kernel.index(), args: es(args), result: result.map(|r| r.index()) }
            }
            StmtKind::If { cond, then, otherwise } => art::HostStmt::If {
                cond: e(*cond),
                then: self.block(body, then),
                otherwise: self.block(body, otherwise),
            },
            StmtKind::Loop { body: b, continuing, break_if } => art::HostStmt::Loop {
                body: self.block(body, b),
                continuing: self.block(body, continuing),
                break_if: break_if.map(e),
                outlined: None,
            },
            StmtKind::For { var, start, end, body: b } => {
                art::HostStmt::For { var: var.index(), start: e(*start), end: e(*end), body: self.block(body, b) }
            }
            StmtKind::Break => art::HostStmt::Break,
            StmtKind::Continue => art::HostStmt::Continue,
            StmtKind::Op(PlanOp::Pipe { worklist, body: b }) => {
                art::HostStmt::Pipe { worklist: worklist.index(), body: self.block(body, b), outlined: None }
            }
            StmtKind::Op(PlanOp::Outlined(o)) => match o.worklist {
                Some(w) => art::HostStmt::Pipe {
                    worklist: w.index(),
                    body: self.block(body, &o.body),
                    outlined: Some(o.index),
                },
                None => art::HostStmt::Loop {
                    body: self.block(body, &o.body),
                    continuing: Vec::new(),
                    break_if: o.break_if.map(e),
                    outlined: Some(o.index),
                },
            },
            StmtKind::Op(PlanOp::Hybrid { worklist, threshold, dense, sparse }) => art::HostStmt::Hybrid {
                worklist: worklist.index(),
                threshold: e(*threshold),
                dense: self.block(body, dense),
                sparse: self.block(body, sparse),
            },
        }
    }
}

fn host_expr<Op>(body: &Body<Op>, h: Handle<ir::Expr>) -> art::HostExpr {
    let ex = &body.exprs[h];
    let sub = |h: Handle<ir::Expr>| Box::new(host_expr(body, h));
    let kind = match &ex.kind {
        ExprKind::Literal(l) => art::HostExprKind::Literal(literal_bits(*l, ex.ty)),
        ExprKind::Local(l) => art::HostExprKind::Local(l.index()),
        ExprKind::Param(p) => art::HostExprKind::Param(p.index()),
        ExprKind::Unary { op, arg } => art::HostExprKind::Unary(*op, sub(*arg)),
        ExprKind::Binary { op, left, right } => art::HostExprKind::Binary(*op, sub(*left), sub(*right)),
        ExprKind::Cast { arg } => art::HostExprKind::Cast(sub(*arg)),
        ExprKind::Math { fun, args } => {
            art::HostExprKind::Math(*fun, args.iter().map(|&a| host_expr(body, a)).collect())
        }
        ExprKind::Graph(GraphQuery::NumNodes) => art::HostExprKind::NumNodes,
        ExprKind::Graph(GraphQuery::NumEdges) => art::HostExprKind::NumEdges,
        ExprKind::WorklistSize(w) => art::HostExprKind::WorklistSize(w.index()),
        ExprKind::HostLoad { global, index } => art::HostExprKind::Load {
            global: global.index(),
            index: index.iter().map(|&i| host_expr(body, i)).collect(),
        },
        // Device-only expressions never occur in a validated plan (invariant 4); keep the tree total anyway.
        ExprKind::Load { .. } | ExprKind::Graph(_) => art::HostExprKind::Literal(0),
    };
    art::HostExpr { ty: ex.ty, kind }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn artifact(src: &str) -> art::Artifact {
        let c = irgc_front::compile_source("t.irg", src);
        assert!(!c.has_errors(), "{}", c.sources.render(&c.diagnostics, false));
        lower(c.module.as_ref().unwrap())
    }

    #[test]
    fn kernels_record_spaces_and_worklist_effects_through_calls() {
        let a = artifact(
            "graph G; worklist wl; node d: u32 = inf;
             fn visit(v: node) { wl.push(v); }
             kernel k() { forall v in wl { visit(G.src(G.first_edge(v))); } }
             kernel r() -> sum u64 { forall (i, j) in (0..4u32, 0..5u32) { reduce 1; } }
             plan { wl.push(0 as node); pipe wl { k(); } let s = r(); }",
        );
        assert!(a.needs_sources);
        assert_eq!(a.kernels[0].space, art::Space::Worklist(0));
        assert_eq!(a.kernels[0].pushes, vec![0]);
        assert_eq!(a.kernels[1].space, art::Space::Range { dims: 2 });
        assert_eq!(a.kernels[1].reduction, Some((art::ReduceOp::Sum, art::Scalar::U64)));
        // Plan: fill (initialiser), push, pipe, invoke with result, assign.
        assert!(matches!(a.plan.body[0], art::HostStmt::Fill { global: 0, .. }));
        assert!(matches!(a.plan.body[2], art::HostStmt::Pipe { worklist: 0, .. }));
        let fill = match &a.plan.body[0] {
            art::HostStmt::Fill { value, .. } => value.clone(),
            _ => unreachable!(),
        };
        assert_eq!(fill.kind, art::HostExprKind::Literal(u32::MAX as u64));
    }

    #[test]
    fn params_keep_typed_defaults() {
        let a = artifact("graph G; param h: f32 = 0.5; param s: i32 = -3; node x: u32; kernel k() { forall v in G.nodes { x[v] = 1; } } plan { k(); }");
        assert_eq!(a.params[0].default.unwrap().bits, 0.5f32.to_bits() as u64);
        assert_eq!(a.params[1].default.unwrap().bits, (-3i32) as u32 as u64);
    }
}
