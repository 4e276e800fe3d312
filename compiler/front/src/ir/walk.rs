//! Walking the IR: a statement's nested blocks and its own expression operands, the locals an expression tree
//! reads, and the shape of a combining update (`x = x op v`). Passes, analyses and the validator walk with these
//! instead of matching every statement kind themselves.

use super::*;

impl<Op> StmtKind<Op> {
    /// The blocks nested directly in this statement's control flow (an operation's own blocks are the op's).
    pub fn own_blocks(&self) -> Vec<&Block<Op>> {
        match self {
            StmtKind::If { then, otherwise, .. } => vec![then, otherwise],
            StmtKind::Loop { body, continuing, .. } => vec![body, continuing],
            StmtKind::For { body, .. } => vec![body],
            _ => Vec::new(),
        }
    }

    /// [`StmtKind::own_blocks`], mutable (same order).
    pub fn own_blocks_mut(&mut self) -> Vec<&mut Block<Op>> {
        match self {
            StmtKind::If { then, otherwise, .. } => vec![then, otherwise],
            StmtKind::Loop { body, continuing, .. } => vec![body, continuing],
            StmtKind::For { body, .. } => vec![body],
            _ => Vec::new(),
        }
    }
}

impl DeviceOp {
    /// Whether the operation itself writes memory others may read: a store, an atomic, a push or retry, or a
    /// reduction (a call's callee is not looked into).
    pub fn writes_memory(&self) -> bool {
        matches!(
            self,
            DeviceOp::Store { .. }
                | DeviceOp::Atomic { .. }
                | DeviceOp::Push { .. }
                | DeviceOp::Retry { .. }
                | DeviceOp::Reduce { .. }
        )
    }

    /// [`writes_memory`](Self::writes_memory), a barrier or a `wait`: what a loop body must not do to run its iterations
    /// as the optimizer rewrites them (all of them after an early exit, several back to back).
    pub fn writes_or_waits(&self) -> bool {
        self.writes_memory() || matches!(self, DeviceOp::Barrier | DeviceOp::Wait)
    }

    /// The blocks nested in this operation (a `forall`'s body).
    pub fn blocks(&self) -> Vec<&DeviceBlock> {
        match self {
            DeviceOp::ForAll { body, .. } | DeviceOp::ForTile { body, .. } => vec![body],
            _ => Vec::new(),
        }
    }
}

impl DeviceStmt {
    /// Whether this statement holds a `block`-scheduled nested loop on its predicated path (itself, or inside its
    /// `if`s: where the validator allows one).
    pub fn holds_block_loop(&self) -> bool {
        match &self.kind {
            StmtKind::Op(DeviceOp::ForAll { schedule, .. }) => schedule.is_block(),
            StmtKind::If { then, otherwise, .. } => then.iter().chain(otherwise).any(DeviceStmt::holds_block_loop),
            _ => false,
        }
    }

    /// Every block nested directly in this statement, in source order.
    pub fn blocks(&self) -> Vec<&DeviceBlock> {
        match &self.kind {
            StmtKind::Op(op) => op.blocks(),
            k => k.own_blocks(),
        }
    }

    /// The roots of the expression trees this statement evaluates itself (not those of nested blocks), with
    /// the local each result is written to, if any.
    pub fn operands(&self) -> Vec<Handle<Expr>> {
        match &self.kind {
            StmtKind::Assign { value, .. } => vec![*value],
            StmtKind::If { cond, .. } => vec![*cond],
            StmtKind::Loop { break_if, .. } => break_if.iter().copied().collect(),
            StmtKind::For { start, end, .. } => vec![*start, *end],
            StmtKind::Break | StmtKind::Continue => Vec::new(),
            StmtKind::Op(op) => match op {
                DeviceOp::Store { index, value, .. } => index.iter().copied().chain([*value]).collect(),
                DeviceOp::Atomic { index, value, compare, .. } => {
                    index.iter().copied().chain([*value]).chain(compare.iter().copied()).collect()
                }
                DeviceOp::Call { args, .. } => args
                    .iter()
                    .filter_map(|a| match a {
                        Arg::Value(e) => Some(*e),
                        Arg::Array(_) => None,
                    })
                    .collect(),
                DeviceOp::ForAll { space, .. } => space.bounds(),
                DeviceOp::ForTile { tiles, .. } => tiles.bounds(),
                DeviceOp::Return(v) => v.iter().copied().collect(),
                DeviceOp::Push { value, .. } | DeviceOp::Retry { value, .. } | DeviceOp::Reduce { value } => {
                    vec![*value]
                }
                DeviceOp::Barrier | DeviceOp::Wait => Vec::new(),
            },
        }
    }

    /// The locals this statement writes itself (not in nested blocks): an assignment's target, an atomic's or
    /// call's result, a loop's variables.
    pub fn writes(&self) -> Vec<Handle<Local>> {
        match &self.kind {
            StmtKind::Assign { local, .. } => vec![*local],
            StmtKind::For { var, .. } => vec![*var],
            StmtKind::Op(DeviceOp::Atomic { result, .. } | DeviceOp::Call { result, .. }) => {
                result.iter().copied().collect()
            }
            StmtKind::Op(DeviceOp::ForAll { vars, .. }) => vars.clone(),
            StmtKind::Op(DeviceOp::ForTile { tile_vars, thread_vars, .. }) => {
                tile_vars.iter().chain(thread_vars).copied().collect()
            }
            _ => Vec::new(),
        }
    }

    /// Calls `f` on this statement and every statement nested in it, in pre-order.
    pub fn visit(&self, f: &mut impl FnMut(&DeviceStmt)) {
        f(self);
        for b in self.blocks() {
            for s in b {
                s.visit(f);
            }
        }
    }
}

impl Space {
    /// The expressions a space's bounds are computed from.
    pub fn bounds(&self) -> Vec<Handle<Expr>> {
        match self {
            Space::Nodes | Space::Edges | Space::Worklist(_) => Vec::new(),
            Space::OutEdges(v) => vec![*v],
            Space::Range(a, b) => vec![*a, *b],
            Space::Range2([(a, b), (c, d)]) => vec![*a, *b, *c, *d],
        }
    }

    /// Whether the space is one range of consecutive indices (`a..b`, or a node's out-edges): what the nested
    /// schedules and interleaving run.
    pub fn is_range(&self) -> bool {
        matches!(self, Space::Range(..) | Space::OutEdges(_))
    }
}

/// Calls `f` on every node of the expression tree `e`, parents before their operands.
pub fn visit_expr(exprs: &Arena<Expr>, e: Handle<Expr>, f: &mut impl FnMut(&Expr)) {
    let expr = &exprs[e];
    f(expr);
    let mut go = |h: &Handle<Expr>| visit_expr(exprs, *h, f);
    match &expr.kind {
        ExprKind::Literal(_)
        | ExprKind::Local(_)
        | ExprKind::Param(_)
        | ExprKind::WorklistSize(_)
        | ExprKind::DeviceThreads => {}
        ExprKind::Load { index, .. } | ExprKind::HostLoad { index, .. } => index.iter().for_each(go),
        ExprKind::Unary { arg, .. } | ExprKind::Cast { arg } => go(arg),
        ExprKind::Binary { left, right, .. } => {
            go(left);
            go(right);
        }
        ExprKind::Math { args, .. } => args.iter().for_each(go),
        ExprKind::Graph(q) => match q {
            GraphQuery::NumNodes | GraphQuery::NumEdges => {}
            GraphQuery::Src(h)
            | GraphQuery::Dst(h)
            | GraphQuery::Weight(h)
            | GraphQuery::Degree(h)
            | GraphQuery::FirstEdge(h)
            | GraphQuery::EndEdge(h) => go(h),
        },
    }
}

/// Calls `f` on every local the expression tree `e` reads.
pub fn expr_locals(exprs: &Arena<Expr>, e: Handle<Expr>, f: &mut impl FnMut(Handle<Local>)) {
    visit_expr(exprs, e, &mut |x| {
        if let ExprKind::Local(l) = x.kind {
            f(l)
        }
    });
}

/// Whether the expression tree `e` reads local `l`.
pub fn reads_local(exprs: &Arena<Expr>, e: Handle<Expr>, l: Handle<Local>) -> bool {
    let mut found = false;
    expr_locals(exprs, e, &mut |x| found |= x == l);
    found
}

/// If `local = value` has the shape `x = x op v` (or `x = v op x`, or `x = min(x, v)`, `max`) of a combining
/// update of `local` — `op` associative and commutative, and `v` not reading `x` — the operator and `v`.
pub fn combine_update(
    exprs: &Arena<Expr>,
    local: Handle<Local>,
    value: Handle<Expr>,
) -> Option<(CombineOp, Handle<Expr>)> {
    let is_x = |h: Handle<Expr>| matches!(exprs[h].kind, ExprKind::Local(l) if l == local);
    let (op, a, b) = match &exprs[value].kind {
        ExprKind::Binary { op, left, right } => {
            let op = match op {
                BinaryOp::Add => CombineOp::Sum,
                BinaryOp::BitOr | BinaryOp::Or => CombineOp::Or,
                BinaryOp::BitAnd | BinaryOp::And => CombineOp::And,
                _ => return None,
            };
            (op, *left, *right)
        }
        ExprKind::Math { fun: MathFn::Min, args } if args.len() == 2 => (CombineOp::Min, args[0], args[1]),
        ExprKind::Math { fun: MathFn::Max, args } if args.len() == 2 => (CombineOp::Max, args[0], args[1]),
        _ => return None,
    };
    let v = if is_x(a) {
        b
    } else if is_x(b) {
        a
    } else {
        return None;
    };
    (!reads_local(exprs, v, local)).then_some((op, v))
}

/// How the statements of a block use local `l`, as a combined local of a nested loop sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CombineUse {
    /// Neither read nor written.
    Unused,
    /// Written only as `l = l op v` with this one operator, and read nowhere else.
    By(CombineOp),
    /// Anything else: read elsewhere, written otherwise, or by two operators.
    Other,
}

/// How `block` (nested statements included) uses local `l`: what the nested-parallelism pass asks of a local to
/// combine, and what the validator checks of one it combined.
pub fn combine_use(exprs: &Arena<Expr>, block: &DeviceBlock, l: Handle<Local>) -> CombineUse {
    let mut op: Option<CombineOp> = None;
    let mut other = false;
    for s in block {
        s.visit(&mut |s| {
            let operands = match &s.kind {
                StmtKind::Assign { local, value } if *local == l => match combine_update(exprs, l, *value) {
                    Some((o, v)) if op.is_none_or(|p| p == o) => {
                        op = Some(o);
                        vec![v]
                    }
                    _ => {
                        other = true;
                        return;
                    }
                },
                _ => s.operands(),
            };
            let reads = operands.iter().any(|&e| reads_local(exprs, e, l));
            let other_write = s.writes().contains(&l) && !matches!(s.kind, StmtKind::Assign { .. });
            other |= reads || other_write;
        });
    }
    match (other, op) {
        (true, _) => CombineUse::Other,
        (false, Some(op)) => CombineUse::By(op),
        (false, None) => CombineUse::Unused,
    }
}
