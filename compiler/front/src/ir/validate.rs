//! The IR validator: checks the invariants listed in the [`ir`](crate::ir) module docs.
//!
//! It runs after lowering (and, in debug builds, after every pass). A failure is a compiler bug, not a user error,
//! so the messages name IR entities rather than source constructs; each still carries the span it came from.

use super::*;
use std::collections::BTreeSet;

/// One broken invariant.
#[derive(Clone, Debug, PartialEq)]
pub struct ValidationError {
    pub message: String,
    pub span: Span,
}

/// Checks a module; returns every broken invariant found.
pub fn validate(m: &Module) -> Result<(), Vec<ValidationError>> {
    let mut v = Validator { m, errors: Vec::new() };
    v.module();
    if v.errors.is_empty() {
        Ok(())
    } else {
        Err(v.errors)
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Where {
    Plan,
    Kernel(Option<(ReduceOp, Scalar)>),
    Function(Option<Scalar>),
}

#[derive(Clone, Copy)]
struct Scope {
    in_loop: bool,
    in_serial_loop: bool,
    in_forall: bool,
    in_tile: bool,
}

struct Validator<'a> {
    m: &'a Module,
    errors: Vec<ValidationError>,
}

impl<'a> Validator<'a> {
    fn err(&mut self, span: Span, message: impl Into<String>) {
        self.errors.push(ValidationError { message: message.into(), span });
    }

    fn module(&mut self) {
        let m = self.m;
        for (_, g) in m.globals.iter() {
            if let GlobalKind::Dense(dims) = &g.kind {
                if dims.is_empty() || dims.len() > 2 {
                    self.err(g.span, format!("dense global @{} has {} dimensions", g.name, dims.len()));
                }
                for &d in dims {
                    self.host_constant_expr(d, g.span);
                }
            }
        }
        for o in &m.outputs {
            if !m.globals.contains(o.global) {
                self.err(o.span, "output names a missing global");
            }
            if let Some(Check::Bfs { source } | Check::Sssp { source }) = &o.check {
                self.host_constant_expr(*source, o.span);
            }
        }
        for (_, f) in m.functions.iter() {
            self.body(&f.body, Where::Function(f.ret), &f.params, f.span);
        }
        for (_, k) in m.kernels.iter() {
            self.body(&k.body, Where::Kernel(k.reduction), &k.params, k.span);
            for &p in &k.params {
                if let Some(LocalType::ArrayRef(_)) = k.body.locals.get(p).map(|l| l.ty) {
                    self.err(k.span, format!("kernel {} takes an array parameter", k.name));
                }
            }
        }
        self.body(&m.plan, Where::Plan, &[], Span::default());
        self.recursion();
    }

    /// Invariant 6: only params, literals, graph sizes and arithmetic on them.
    fn host_constant_expr(&mut self, h: Handle<Expr>, span: Span) {
        let Some(e) = self.m.plan.exprs.get(h) else {
            self.err(span, "size or check expression is not in the plan's arena");
            return;
        };
        match &e.kind {
            ExprKind::Literal(_)
            | ExprKind::Param(_)
            | ExprKind::Graph(GraphQuery::NumNodes | GraphQuery::NumEdges) => {}
            ExprKind::Binary { left, right, .. } => {
                self.host_constant_expr(*left, span);
                self.host_constant_expr(*right, span);
            }
            ExprKind::Cast { arg } | ExprKind::Unary { arg, .. } => self.host_constant_expr(*arg, span),
            _ => self.err(span, "size or check expression uses something other than params and graph sizes"),
        }
    }

    fn body(&mut self, body: &Body, at: Where, params: &[Handle<Local>], span: Span) {
        for (i, &p) in params.iter().enumerate() {
            if p.index() != i {
                self.err(span, "parameters must be the first locals of the body");
            }
        }
        for (h, e) in body.exprs.iter() {
            self.expr(body, at, h, e);
        }
        if !matches!(at, Where::Kernel(_)) && !body.shared.is_empty() {
            self.err(span, "shared arrays outside a kernel");
        }
        let scope = Scope { in_loop: false, in_serial_loop: false, in_forall: false, in_tile: false };
        self.block(body, at, &body.block, scope);
    }

    fn operand(&mut self, body: &Body, owner: Handle<Expr>, h: Handle<Expr>, span: Span) -> Option<Scalar> {
        if h >= owner {
            self.err(span, format!("expression {owner:?} uses {h:?}, which is not earlier in the arena"));
            return None;
        }
        Some(body.exprs[h].ty)
    }

    fn expect_local(&mut self, body: &Body, l: Handle<Local>, span: Span) -> Option<LocalType> {
        match body.locals.get(l) {
            Some(local) => Some(local.ty),
            None => {
                self.err(span, format!("local {l:?} does not exist"));
                None
            }
        }
    }

    /// The element type of an array passed by reference (globals must be per-node, as array parameters are).
    fn array_type(&mut self, body: &Body, a: ArrayRef, span: Span) -> Option<Scalar> {
        match a {
            ArrayRef::Global(g) => match self.m.globals.get(g) {
                Some(global) if global.kind == GlobalKind::Node => Some(global.elem),
                _ => {
                    self.err(span, "array argument is not a per-node global");
                    None
                }
            },
            ArrayRef::Param(l) => match self.expect_local(body, l, span)? {
                LocalType::ArrayRef(elem) => Some(elem),
                LocalType::Scalar(_) => {
                    self.err(span, "a scalar local passed as an array");
                    None
                }
            },
            ArrayRef::Shared(_) => {
                self.err(span, "shared arrays cannot be passed to functions");
                None
            }
        }
    }

    fn array_elem(&mut self, body: &Body, a: ArrayRef, index: &[Handle<Expr>], span: Span) -> Option<Scalar> {
        let idx_ty = |v: &mut Self, i: usize| {
            body.exprs.get(index[i]).map(|e| e.ty).or_else(|| {
                v.err(span, "index expression does not exist");
                None
            })
        };
        match a {
            ArrayRef::Global(g) => {
                let Some(global) = self.m.globals.get(g) else {
                    self.err(span, "global does not exist");
                    return None;
                };
                let want: Vec<Option<Scalar>> = match &global.kind {
                    GlobalKind::Node => vec![Some(Scalar::Node)],
                    GlobalKind::Edge => vec![Some(Scalar::Edge)],
                    GlobalKind::Dense(d) => vec![None; d.len()],
                };
                if want.len() != index.len() {
                    self.err(span, format!("@{} takes {} indices, given {}", global.name, want.len(), index.len()));
                    return Some(global.elem);
                }
                for (i, w) in want.iter().enumerate() {
                    let t = idx_ty(self, i)?;
                    let ok = match w {
                        Some(w) => t == *w,
                        None => t.is_int(),
                    };
                    if !ok {
                        self.err(span, format!("@{} indexed with {t}", global.name));
                    }
                }
                Some(global.elem)
            }
            ArrayRef::Shared(s) => {
                let Some(sh) = body.shared.get(s) else {
                    self.err(span, "shared array does not exist");
                    return None;
                };
                if sh.dims.len() != index.len() {
                    self.err(span, format!("%{} takes {} indices", sh.name, sh.dims.len()));
                }
                for i in 0..index.len() {
                    if !idx_ty(self, i)?.is_int() {
                        self.err(span, format!("%{} indexed with a non-integer", sh.name));
                    }
                }
                Some(sh.elem)
            }
            ArrayRef::Param(l) => match self.expect_local(body, l, span)? {
                LocalType::ArrayRef(elem) => {
                    if index.len() != 1 {
                        self.err(span, "array parameters take one index");
                    } else {
                        let t = idx_ty(self, 0)?;
                        if !(t.is_int() || t.is_id()) {
                            self.err(span, format!("array parameter indexed with {t}"));
                        }
                    }
                    Some(elem)
                }
                LocalType::Scalar(_) => {
                    self.err(span, "a scalar local used as an array");
                    None
                }
            },
        }
    }

    fn expr(&mut self, body: &Body, at: Where, h: Handle<Expr>, e: &Expr) {
        let span = e.span;
        let ty = e.ty;
        match &e.kind {
            ExprKind::Literal(l) => {
                let ok = match l {
                    Literal::Bool(_) => ty == Scalar::Bool,
                    Literal::Int(_) => ty.is_int() || ty.is_id(),
                    Literal::Float(_) => ty.is_float(),
                    Literal::Inf => ty != Scalar::Bool,
                };
                if !ok {
                    self.err(span, format!("literal {l:?} typed {ty}"));
                }
            }
            ExprKind::Local(l) => {
                if let Some(t) = self.expect_local(body, *l, span) {
                    if t != LocalType::Scalar(ty) {
                        self.err(span, format!("local {l:?} read as {ty}"));
                    }
                }
            }
            ExprKind::Param(p) => match self.m.params.get(*p) {
                Some(p) if p.ty == ty => {}
                _ => self.err(span, format!("param {p:?} missing or read with the wrong type")),
            },
            ExprKind::Load { array, index } => {
                for &i in index {
                    self.operand(body, h, i, span);
                }
                if at == Where::Plan {
                    self.err(span, "device load in the plan (use HostLoad)");
                }
                if let Some(elem) = self.array_elem(body, *array, index, span) {
                    if elem != ty {
                        self.err(span, format!("load of {elem} typed {ty}"));
                    }
                }
            }
            ExprKind::HostLoad { global, index } => {
                for &i in index {
                    self.operand(body, h, i, span);
                }
                if at != Where::Plan {
                    self.err(span, "host load outside the plan");
                }
                if let Some(elem) = self.array_elem(body, ArrayRef::Global(*global), index, span) {
                    if elem != ty {
                        self.err(span, format!("host load of {elem} typed {ty}"));
                    }
                }
            }
            ExprKind::Unary { op, arg } => {
                if let Some(t) = self.operand(body, h, *arg, span) {
                    let ok = t == ty
                        && match op {
                            UnaryOp::Neg => t.is_signed() || t.is_float(),
                            UnaryOp::Not => t == Scalar::Bool,
                            UnaryOp::BitNot => t.is_int(),
                        };
                    if !ok {
                        self.err(span, format!("unary {op:?} on {t} typed {ty}"));
                    }
                }
            }
            ExprKind::Binary { op, left, right } => {
                let (Some(l), Some(r)) = (self.operand(body, h, *left, span), self.operand(body, h, *right, span))
                else {
                    return;
                };
                let ok = l == r
                    && match op {
                        BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div | BinaryOp::Rem => {
                            l.is_numeric() && ty == l
                        }
                        BinaryOp::BitAnd | BinaryOp::BitOr | BinaryOp::BitXor | BinaryOp::Shl | BinaryOp::Shr => {
                            l.is_int() && ty == l
                        }
                        BinaryOp::And | BinaryOp::Or => l == Scalar::Bool && ty == Scalar::Bool,
                        BinaryOp::Eq | BinaryOp::Ne => ty == Scalar::Bool,
                        BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge => {
                            l != Scalar::Bool && ty == Scalar::Bool
                        }
                    };
                if !ok {
                    self.err(span, format!("binary {op:?} on {l} and {r} typed {ty}"));
                }
            }
            ExprKind::Cast { arg } => {
                if let Some(t) = self.operand(body, h, *arg, span) {
                    let ok = (t.is_numeric() || t.is_id() || t == Scalar::Bool) && ty != Scalar::Bool;
                    if !ok {
                        self.err(span, format!("cast from {t} to {ty}"));
                    }
                }
            }
            ExprKind::Math { fun, args } => {
                let tys: Vec<Option<Scalar>> = args.iter().map(|&a| self.operand(body, h, a, span)).collect();
                let Some(tys) = tys.into_iter().collect::<Option<Vec<_>>>() else { return };
                let ok = match fun {
                    MathFn::Min | MathFn::Max => {
                        tys.len() == 2 && tys[0] == tys[1] && tys[0] == ty && ty != Scalar::Bool
                    }
                    MathFn::Abs => tys.len() == 1 && tys[0] == ty && (ty.is_signed() || ty.is_float()),
                    MathFn::Ctz | MathFn::Clz | MathFn::Popcount => {
                        tys.len() == 1 && tys[0].is_int() && ty == Scalar::U32
                    }
                    MathFn::Sqrt => tys.len() == 1 && tys[0] == ty && ty.is_float(),
                    MathFn::Random => tys == [Scalar::U64, Scalar::U64] && ty == Scalar::U64,
                    MathFn::Select => tys.len() == 3 && tys[0] == Scalar::Bool && tys[1] == tys[2] && tys[1] == ty,
                };
                if !ok {
                    self.err(span, format!("{}({tys:?}) typed {ty}", fun.name()));
                }
            }
            ExprKind::Graph(q) => {
                let (arg, want_arg, want_ty) = match q {
                    GraphQuery::NumNodes => (None, None, Scalar::U32),
                    GraphQuery::NumEdges => (None, None, Scalar::U64),
                    GraphQuery::Src(a) => (Some(*a), Some(Scalar::Edge), Scalar::Node),
                    GraphQuery::Dst(a) => (Some(*a), Some(Scalar::Edge), Scalar::Node),
                    GraphQuery::Weight(a) => {
                        let w = self.m.graph.as_ref().and_then(|g| g.weight);
                        if w.is_none() {
                            self.err(span, "weight query on a graph without weights");
                        }
                        (Some(*a), Some(Scalar::Edge), w.unwrap_or(ty))
                    }
                    GraphQuery::Degree(a) => (Some(*a), Some(Scalar::Node), Scalar::U32),
                    GraphQuery::FirstEdge(a) | GraphQuery::EndEdge(a) => (Some(*a), Some(Scalar::Node), Scalar::Edge),
                };
                if self.m.graph.is_none() {
                    self.err(span, "graph query in a program without a graph");
                }
                if let (Some(a), Some(w)) = (arg, want_arg) {
                    if let Some(t) = self.operand(body, h, a, span) {
                        if t != w {
                            self.err(span, format!("graph query {q:?} given {t}"));
                        }
                    }
                }
                if ty != want_ty {
                    self.err(span, format!("graph query {q:?} typed {ty}"));
                }
            }
            ExprKind::WorklistSize(w) => {
                if !self.m.worklists.contains(*w) || ty != Scalar::U64 || at != Where::Plan {
                    self.err(span, "worklist size: bad worklist, type or place");
                }
            }
        }
    }

    fn cond(&mut self, body: &Body, c: Handle<Expr>, span: Span) {
        match body.exprs.get(c) {
            Some(e) if e.ty == Scalar::Bool => {}
            Some(e) => self.err(span, format!("condition of type {}", e.ty)),
            None => self.err(span, "condition does not exist"),
        }
    }

    fn value(&mut self, body: &Body, e: Handle<Expr>, span: Span) -> Option<Scalar> {
        match body.exprs.get(e) {
            Some(e) => Some(e.ty),
            None => {
                self.err(span, format!("expression {e:?} does not exist"));
                None
            }
        }
    }

    fn space(&mut self, body: &Body, s: &Space, vars: &[Handle<Local>], span: Span) {
        let want: Vec<Option<Scalar>> = match s {
            Space::Nodes => vec![Some(Scalar::Node)],
            Space::Edges | Space::OutEdges(_) => vec![Some(Scalar::Edge)],
            Space::Worklist(w) => vec![self.m.worklists.get(*w).map(|w| w.elem)],
            Space::Range(a, b) => {
                let (ta, tb) = (self.value(body, *a, span), self.value(body, *b, span));
                if ta != tb {
                    self.err(span, "range bounds of different types");
                }
                vec![ta]
            }
            Space::Range2(r) => r
                .iter()
                .map(|(a, b)| {
                    let (ta, tb) = (self.value(body, *a, span), self.value(body, *b, span));
                    if ta != tb {
                        self.err(span, "range bounds of different types");
                    }
                    ta
                })
                .collect(),
        };
        if let Space::OutEdges(n) = s {
            if self.value(body, *n, span) != Some(Scalar::Node) {
                self.err(span, "out_edges of a non-node");
            }
        }
        if want.len() != vars.len() {
            self.err(span, format!("space of {} dimensions binds {} variables", want.len(), vars.len()));
            return;
        }
        for (w, &v) in want.iter().zip(vars) {
            let t = self.expect_local(body, v, span);
            if let (Some(w), Some(t)) = (w, t) {
                if t != LocalType::Scalar(*w) {
                    self.err(span, format!("loop variable of type {t:?} over a space of {w}"));
                }
            }
        }
    }

    fn block(&mut self, body: &Body, at: Where, block: &Block, scope: Scope) {
        for s in block {
            self.stmt(body, at, s, scope);
        }
    }

    fn stmt(&mut self, body: &Body, at: Where, s: &Statement, scope: Scope) {
        let span = s.span;
        let device = matches!(at, Where::Kernel(_) | Where::Function(_));
        let host = at == Where::Plan;
        let device_only = |v: &mut Self, what: &str| {
            if !device {
                v.err(span, format!("{what} in the plan"));
            }
        };
        let host_only = |v: &mut Self, what: &str| {
            if !host {
                v.err(span, format!("{what} outside the plan"));
            }
        };
        match &s.kind {
            StmtKind::Assign { local, value } => {
                let t = self.expect_local(body, *local, span);
                let v = self.value(body, *value, span);
                if let (Some(t), Some(v)) = (t, v) {
                    if t != LocalType::Scalar(v) {
                        self.err(span, format!("assignment of {v} to a local of type {t:?}"));
                    }
                }
            }
            StmtKind::Store { array, index, value } => {
                if host && !matches!(array, ArrayRef::Global(_)) {
                    self.err(span, "the plan can only store to globals");
                }
                let elem = self.array_elem(body, *array, index, span);
                let v = self.value(body, *value, span);
                if elem.is_some() && v.is_some() && elem != v {
                    self.err(span, format!("store of {v:?} into an array of {elem:?}"));
                }
            }
            StmtKind::Atomic { op, array, index, value, compare, result } => {
                device_only(self, "atomic");
                let elem = self.array_elem(body, *array, index, span);
                let v = self.value(body, *value, span);
                if elem != v {
                    self.err(span, format!("{} of {v:?} on an array of {elem:?}", op.name()));
                }
                if (*op == AtomicOp::CompareExchange) != compare.is_some() {
                    self.err(span, "compare operand present exactly for atomic_cas");
                }
                if let Some(c) = compare {
                    if self.value(body, *c, span) != elem {
                        self.err(span, "atomic_cas compare operand of the wrong type");
                    }
                }
                if let (Some(r), Some(elem)) = (result, elem) {
                    if self.expect_local(body, *r, span) != Some(LocalType::Scalar(elem)) {
                        self.err(span, "atomic result local of the wrong type");
                    }
                }
            }
            StmtKind::Call { function, args, result } => {
                device_only(self, "call");
                let Some(f) = self.m.functions.get(*function) else {
                    self.err(span, "call of a missing function");
                    return;
                };
                if f.params.len() != args.len() {
                    self.err(span, format!("call of {} with {} arguments", f.name, args.len()));
                }
                for (&p, a) in f.params.iter().zip(args) {
                    let want = f.body.locals[p].ty;
                    let got = match a {
                        Arg::Value(e) => self.value(body, *e, span).map(LocalType::Scalar),
                        Arg::Array(r) => self.array_type(body, *r, span).map(LocalType::ArrayRef),
                    };
                    if got.is_some() && got != Some(want) {
                        self.err(span, format!("argument of type {got:?} for a parameter of type {want:?}"));
                    }
                }
                if let Some(r) = result {
                    if f.ret.map(LocalType::Scalar) != self.expect_local(body, *r, span) {
                        self.err(span, "call result local of the wrong type");
                    }
                }
            }
            StmtKind::If { cond, then, otherwise } => {
                self.cond(body, *cond, span);
                self.block(body, at, then, scope);
                self.block(body, at, otherwise, scope);
            }
            StmtKind::Loop { body: b, continuing, break_if } => {
                let inner = Scope { in_loop: true, in_serial_loop: true, ..scope };
                self.block(body, at, b, inner);
                self.block(body, at, continuing, Scope { in_loop: false, ..inner });
                if let Some(c) = break_if {
                    self.cond(body, *c, span);
                }
            }
            StmtKind::For { var, start, end, body: b } => {
                let (ts, te) = (self.value(body, *start, span), self.value(body, *end, span));
                if ts != te || self.expect_local(body, *var, span) != ts.map(LocalType::Scalar) {
                    self.err(span, "for loop bounds and variable of different types");
                }
                self.block(body, at, b, Scope { in_loop: true, in_serial_loop: true, ..scope });
            }
            StmtKind::ForAll { vars, space, body: b } => {
                if !matches!(at, Where::Kernel(_)) {
                    self.err(span, "forall outside a kernel");
                }
                if scope.in_serial_loop {
                    self.err(span, "forall inside a serial loop");
                }
                self.space(body, space, vars, span);
                self.block(body, at, b, Scope { in_loop: false, in_forall: true, ..scope });
            }
            StmtKind::ForTile { tile_vars, tiles, thread_vars, threads, body: b } => {
                if !matches!(at, Where::Kernel(_)) || scope.in_forall || scope.in_serial_loop {
                    self.err(span, "forall tile must be at the top of a kernel");
                }
                self.space(body, tiles, tile_vars, span);
                if threads.is_empty() || threads.len() > 2 || thread_vars.len() != threads.len() {
                    self.err(span, "tile thread shape must have one or two dimensions, one variable each");
                }
                if threads.iter().product::<u32>() > 1024 || threads.contains(&0) {
                    self.err(span, "tile thread shape must have 1..=1024 threads");
                }
                self.block(body, at, b, Scope { in_loop: false, in_forall: true, in_tile: true, ..scope });
            }
            StmtKind::Break | StmtKind::Continue => {
                if !scope.in_loop {
                    self.err(span, "break or continue outside a loop");
                }
            }
            StmtKind::Return(v) => match at {
                Where::Function(ret) => {
                    let got = v.and_then(|v| self.value(body, v, span));
                    if got != ret {
                        self.err(span, format!("return of {got:?} from a function returning {ret:?}"));
                    }
                }
                _ => self.err(span, "return outside a function"),
            },
            StmtKind::Push { worklist, value } | StmtKind::Retry { worklist, value } => {
                device_only(self, "push");
                self.worklist_item(body, *worklist, *value, span);
            }
            StmtKind::Reduce { value } => match at {
                Where::Kernel(Some((_, ty))) => {
                    if self.value(body, *value, span) != Some(ty) {
                        self.err(span, "reduce of the wrong type");
                    }
                }
                _ => self.err(span, "reduce outside a kernel with a reduction"),
            },
            StmtKind::Barrier => {
                if !scope.in_tile {
                    self.err(span, "barrier outside a tile");
                }
            }
            StmtKind::Invoke { kernel, args, result } => {
                host_only(self, "invoke");
                let Some(k) = self.m.kernels.get(*kernel) else {
                    self.err(span, "invoke of a missing kernel");
                    return;
                };
                if k.params.len() != args.len() {
                    self.err(span, format!("invoke of {} with {} arguments", k.name, args.len()));
                }
                for (&p, &a) in k.params.iter().zip(args) {
                    if self.value(body, a, span).map(LocalType::Scalar) != Some(k.body.locals[p].ty) {
                        self.err(span, format!("argument of the wrong type for kernel {}", k.name));
                    }
                }
                if let Some(r) = result {
                    let want = k.reduction.map(|(_, t)| LocalType::Scalar(t));
                    if want.is_none() || self.expect_local(body, *r, span) != want {
                        self.err(span, "invoke result without a matching reduction");
                    }
                }
            }
            StmtKind::Pipe { worklist, body: b } => {
                host_only(self, "pipe");
                if !self.m.worklists.contains(*worklist) {
                    self.err(span, "pipe over a missing worklist");
                }
                self.block(body, at, b, Scope { in_loop: true, ..scope });
            }
            StmtKind::Hybrid { worklist, threshold, dense, sparse } => {
                host_only(self, "hybrid");
                if !self.m.worklists.contains(*worklist) {
                    self.err(span, "hybrid over a missing worklist");
                }
                if self.value(body, *threshold, span) != Some(Scalar::F64) {
                    self.err(span, "hybrid threshold must be f64");
                }
                self.block(body, at, dense, scope);
                self.block(body, at, sparse, scope);
            }
            StmtKind::Fill { global, value } => {
                host_only(self, "fill");
                let elem = self.m.globals.get(*global).map(|g| g.elem);
                if elem.is_none() || elem != self.value(body, *value, span) {
                    self.err(span, "fill of a missing global or with the wrong type");
                }
            }
            StmtKind::Clear { worklist } => {
                host_only(self, "clear");
                if !self.m.worklists.contains(*worklist) {
                    self.err(span, "clear of a missing worklist");
                }
            }
            StmtKind::HostPush { worklist, value } => {
                host_only(self, "host push");
                self.worklist_item(body, *worklist, *value, span);
            }
        }
    }

    fn worklist_item(&mut self, body: &Body, w: Handle<Worklist>, value: Handle<Expr>, span: Span) {
        let elem = self.m.worklists.get(w).map(|w| w.elem);
        if elem.is_none() || elem != self.value(body, value, span) {
            self.err(span, "push to a missing worklist or of the wrong type");
        }
    }

    /// Invariant 5: the call graph of device functions is acyclic.
    fn recursion(&mut self) {
        for f in recursive_functions(self.m) {
            let f = &self.m.functions[f];
            self.err(f.span, format!("function {} is recursive", f.name));
        }
    }
}

/// The functions that lie on a cycle of calls (sema reports these to the user; the validator re-checks).
pub fn recursive_functions(m: &Module) -> Vec<Handle<Function>> {
    let calls: Vec<BTreeSet<usize>> = m
        .functions
        .iter()
        .map(|(_, f)| {
            let mut out = BTreeSet::new();
            collect_calls(&f.body.block, &mut out);
            out
        })
        .collect();
    // f is recursive when f is reachable from one of its callees.
    let reaches = |from: usize, to: usize| {
        let mut seen = vec![false; calls.len()];
        let mut stack = vec![from];
        while let Some(i) = stack.pop() {
            if i == to {
                return true;
            }
            if i < seen.len() && !seen[i] {
                seen[i] = true;
                stack.extend(calls[i].iter().copied());
            }
        }
        false
    };
    m.functions
        .iter()
        .filter(|(h, _)| calls[h.index()].iter().any(|&c| reaches(c, h.index())))
        .map(|(h, _)| h)
        .collect()
}

fn collect_calls(block: &Block, out: &mut BTreeSet<usize>) {
    for s in block {
        match &s.kind {
            StmtKind::Call { function, .. } => {
                out.insert(function.index());
            }
            StmtKind::If { then, otherwise, .. } => {
                collect_calls(then, out);
                collect_calls(otherwise, out);
            }
            StmtKind::Loop { body, continuing, .. } => {
                collect_calls(body, out);
                collect_calls(continuing, out);
            }
            StmtKind::For { body, .. } | StmtKind::ForAll { body, .. } | StmtKind::ForTile { body, .. } => {
                collect_calls(body, out)
            }
            _ => {}
        }
    }
}
