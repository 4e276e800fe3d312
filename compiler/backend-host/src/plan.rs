//! The plan as the artifact's host statements and expressions; an outlined pipe or loop keeps its number,
//! which names its GPU entry.

use crate::literal_bits;
use irgc_artifact as art;
use irgc_front::ir::{self, Body, ExprKind, GraphQuery, Handle, PlanOp, StmtKind};

/// Lowers plan statements; an outlined pipe or loop keeps its number, which names its GPU entry.
pub(crate) struct Plan;

impl Plan {
    pub(crate) fn block(&self, body: &ir::PlanBody, b: &ir::PlanBlock) -> Vec<art::HostStmt> {
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
            StmtKind::Op(PlanOp::Contract { label }) => art::HostStmt::Contract { label: label.index() },
            StmtKind::Op(PlanOp::Print { items }) => {
                art::HostStmt::Print { items: items.iter().map(|(l, v)| (l.clone(), e(*v))).collect() }
            }
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
                threshold: threshold.map(e),
                dense: self.block(body, dense),
                sparse: self.block(body, sparse),
            },
        }
    }
}

pub(crate) fn host_expr<Op>(body: &Body<Op>, h: Handle<ir::Expr>) -> art::HostExpr {
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
        ExprKind::DeviceThreads => art::HostExprKind::DeviceThreads,
        ExprKind::HostLoad { global, index } => art::HostExprKind::Load {
            global: global.index(),
            index: index.iter().map(|&i| host_expr(body, i)).collect(),
        },
        // Device-only expressions never occur in a validated plan (invariant 4); keep the tree total anyway.
        ExprKind::Load { .. } | ExprKind::Graph(_) => art::HostExprKind::Literal(0),
    };
    art::HostExpr { ty: ex.ty, kind }
}
