//! The host backend: lowers a validated IR module to the runtime's [`Artifact`](art::Artifact) — signatures,
//! spaces, worklist effects, and the plan as plain data the runtime interprets. It sits beside the two device
//! backends (`irgc-backend-cpu`, `irgc-backend-ptx`), which supply the kernels' code.
//!
//! Entities keep their IR order: IR global `g` is artifact global `g`, and so on for params, worklists and
//! kernels, so a device backend can index the context layout with IR handles directly
//! ([`irgc_front::abi::layout_of`]).

use irgc_artifact as art;
use irgc_front::ir::{self, Body, ExprKind, GraphQuery, Handle, Literal, Module, Scalar};

mod kernel;
mod plan;

pub use irgc_front::abi::{layout_of, pushed_worklists};
use kernel::kernel;
use plan::{host_expr, Plan};

/// Builds the artifact of a module (which must have passed the validator).
pub fn lower(m: &Module) -> art::Artifact {
    let plan_exprs = |h: Handle<ir::Expr>| host_expr(&m.plan, h);
    let outlined = irgc_front::analysis::outlined_loops(m);
    art::Artifact {
        name: m.name.clone(),
        graph: m.graph.as_ref().map(|g| art::GraphDesc {
            weight: g.weight,
            default_weight: g.default_weight.zip(g.weight).map(|(d, ty)| literal_bits(d, ty)),
            undirected: g.undirected,
            simple: g.simple,
            degree_ordered: g.degree_ordered,
        }),
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
                hybrids: p.hybrids(),
            })
            .collect(),
        plan: art::Plan {
            locals: m.plan.locals.iter().map(|(_, l)| (l.name.clone(), local_scalar(l.ty))).collect(),
            body: Plan.block(&m.plan, &m.plan.block),
        },
        merge: m.merge.as_ref().map(|mg| art::MergeDesc {
            from: mg.from.index(),
            into: mg.into.index(),
            body: Plan.block(&m.plan, &mg.body),
        }),
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
                    ir::Check::PageRank { damping, tolerance } => {
                        art::CheckDesc::PageRank { damping: plan_exprs(*damping), tolerance: plan_exprs(*tolerance) }
                    }
                    ir::Check::Triangles => art::CheckDesc::Triangles,
                    ir::Check::Bc { source } => art::CheckDesc::Bc { source: plan_exprs(*source) },
                }),
            })
            .collect(),
    }
}

pub(crate) fn local_scalar(t: ir::LocalType) -> art::Scalar {
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

fn uses_sources<Op>(body: &Body<Op>) -> bool {
    body.exprs.iter().any(|(_, e)| matches!(e.kind, ExprKind::Graph(GraphQuery::Src(_))))
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
