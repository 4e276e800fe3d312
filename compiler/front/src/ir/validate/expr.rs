//! Invariants 1, 2 and 6 for expressions: handles point into their arenas and operands come first, every
//! expression's type follows its operands, plan-only expressions stay in the plan.

use super::*;

impl Validator<'_> {
    pub(super) fn operand(
        &mut self,
        body: BodyView<'_>,
        owner: Handle<Expr>,
        h: Handle<Expr>,
        span: Span,
    ) -> Option<Scalar> {
        if h >= owner {
            self.err(span, format!("expression {owner:?} uses {h:?}, which is not earlier in the arena"));
            return None;
        }
        Some(body.exprs[h].ty)
    }

    pub(super) fn expect_local(&mut self, body: BodyView<'_>, l: Handle<Local>, span: Span) -> Option<LocalType> {
        match body.locals.get(l) {
            Some(local) => Some(local.ty),
            None => {
                self.err(span, format!("local {l:?} does not exist"));
                None
            }
        }
    }

    /// The element type of an array passed by reference (globals must be per-node, as array parameters are).
    pub(super) fn array_type(&mut self, body: BodyView<'_>, a: ArrayRef, span: Span) -> Option<Scalar> {
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

    pub(super) fn array_elem(
        &mut self,
        body: BodyView<'_>,
        a: ArrayRef,
        index: &[Handle<Expr>],
        span: Span,
    ) -> Option<Scalar> {
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

    pub(super) fn expr(&mut self, body: BodyView<'_>, at: Where, h: Handle<Expr>, e: &Expr) {
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
            ExprKind::DeviceThreads => {
                if ty != Scalar::U64 || at != Where::Plan {
                    self.err(span, "device_threads(): bad type or place");
                }
            }
        }
    }

    pub(super) fn cond(&mut self, body: BodyView<'_>, c: Handle<Expr>, span: Span) {
        match body.exprs.get(c) {
            Some(e) if e.ty == Scalar::Bool => {}
            Some(e) => self.err(span, format!("condition of type {}", e.ty)),
            None => self.err(span, "condition does not exist"),
        }
    }

    pub(super) fn value(&mut self, body: BodyView<'_>, e: Handle<Expr>, span: Span) -> Option<Scalar> {
        match body.exprs.get(e) {
            Some(e) => Some(e.ty),
            None => {
                self.err(span, format!("expression {e:?} does not exist"));
                None
            }
        }
    }

    pub(super) fn space(&mut self, body: BodyView<'_>, s: &Space, vars: &[Handle<Local>], span: Span) {
        let want: Vec<Option<Scalar>> = match s {
            Space::Nodes => vec![Some(Scalar::Node)],
            Space::Edges | Space::OutEdges(_) => vec![Some(Scalar::Edge)],
            Space::Worklist(w) => {
                let item = self.m.worklists.get(*w).map(|w| w.elem);
                // With two variables, the first is the item's position (`forall (i, x) in wl`).
                if vars.len() == 2 {
                    vec![Some(Scalar::U64), item]
                } else {
                    vec![item]
                }
            }
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
}
