//! Expressions: literals (typed by what is expected), names, array elements, graph fields, and binary
//! operators (short-circuit order kept when the right side has effects).

use super::*;

impl<'s, Op: Place> BodyLowerer<'s, Op> {
    /// Lowers `e`, requiring exactly type `want`.
    pub(super) fn expr_of(&mut self, e: &ast::Expr, want: Scalar) -> Option<Handle<Expr>> {
        let h = self.expr(e, Some(want))?;
        let got = self.body.exprs[h].ty;
        if got != want {
            self.mismatch(e.span, want, got);
            return None;
        }
        Some(h)
    }

    pub(super) fn expr(&mut self, e: &ast::Expr, expect: Option<Scalar>) -> Option<Handle<Expr>> {
        let span = e.span;
        match &e.kind {
            AK::Error => None,
            AK::Int(_) | AK::Float(_) | AK::Inf => self.literal(e, false, expect, span),
            AK::Unary(UnaryOp::Neg, inner) if matches!(inner.kind, AK::Int(_) | AK::Float(_)) => {
                self.literal(inner, true, expect, span)
            }
            AK::Bool(b) => Some(self.add(ExprKind::Literal(Literal::Bool(*b)), Scalar::Bool, span)),
            AK::Name(n) => self.name(n, span),
            AK::Index(base, idx) => self.index(base, idx, span),
            AK::Field(base, field) => self.field(base, field, span),
            AK::Method(base, m, args) => self.method_value(base, m, args, span),
            AK::Call(f, args) => self.call_value(f, args, span, expect),
            AK::Unary(op, inner) => {
                let arg = self.expr(inner, expect)?;
                let t = self.ty(arg);
                let (ok, irop, what) = match op {
                    UnaryOp::Neg => (t.is_signed() || t.is_float(), UnaryOp::Neg, "a signed integer or a float"),
                    UnaryOp::Not => (t == Scalar::Bool, UnaryOp::Not, "bool"),
                    UnaryOp::BitNot => (t.is_int(), UnaryOp::BitNot, "an integer"),
                };
                if !ok {
                    self.error(
                        Diagnostic::error(span, format!("cannot apply `{}` to {t}", op.symbol()))
                            .label(format!("expected {what}, found {t}")),
                    );
                    return None;
                }
                Some(self.add(ExprKind::Unary { op: irop, arg }, t, span))
            }
            AK::Binary(op, a, b) => self.binary(*op, a, b, span, expect),
            AK::Cast(inner, ty) => {
                let to = types::scalar(ty).map_err(|d| self.error(d)).ok()?;
                if to == Scalar::Bool {
                    self.error(
                        Diagnostic::error(ty.span, "cannot cast to bool")
                            .label("write a comparison instead, e.g. `x != 0`"),
                    );
                    return None;
                }
                if flexible(inner) {
                    return self.expr_of(inner, to);
                }
                let arg = self.expr(inner, None)?;
                let from = self.ty(arg);
                if from == to {
                    return Some(arg);
                }
                Some(self.add(ExprKind::Cast { arg }, to, span))
            }
        }
    }

    /// Lowers a literal (negated if `negative`); `span` covers the whole literal, minus sign included.
    pub(super) fn literal(
        &mut self,
        e: &ast::Expr,
        negative: bool,
        expect: Option<Scalar>,
        span: Span,
    ) -> Option<Handle<Expr>> {
        let (lit, ty) = match &e.kind {
            AK::Int(text) => {
                let (v, suffix) = match int_literal(text) {
                    Ok(x) => x,
                    Err(m) => {
                        self.error(Diagnostic::error(span, m).label("too large"));
                        return None;
                    }
                };
                let ty = match (suffix, expect) {
                    (Some(s), _) => s,
                    (None, Some(t)) if t != Scalar::Bool => t,
                    _ => Scalar::I32,
                };
                if !int_fits(v, negative, ty) {
                    let sign = if negative { "-" } else { "" };
                    let mut d = Diagnostic::error(span, format!("literal `{sign}{text}` does not fit in {ty}"))
                        .label(format!("out of range for {ty}"));
                    if negative && !ty.is_signed() {
                        d = Diagnostic::error(span, format!("cannot negate a value of unsigned type {ty}"))
                            .label("unsigned values cannot be negative");
                    }
                    self.error(d);
                    return None;
                }
                (int_value(v, negative, ty), ty)
            }
            AK::Float(text) => {
                let (v, suffix) = match float_literal(text) {
                    Ok(x) => x,
                    Err(m) => {
                        self.error(Diagnostic::error(span, m));
                        return None;
                    }
                };
                let ty = match (suffix, expect) {
                    (Some(s), _) => s,
                    (None, Some(t)) if t.is_float() => t,
                    (None, Some(t)) if t != Scalar::Bool => {
                        self.error(
                            Diagnostic::error(span, format!("mismatched types: expected {t}, found a float literal"))
                                .label(format!("expected {t}")),
                        );
                        return None;
                    }
                    _ => Scalar::F64,
                };
                if let Err(m) = float_in_range(text, ty) {
                    self.error(
                        Diagnostic::error(span, m).label(format!("out of range for {ty}")).note(
                            "write `inf` for infinity (`-inf` for minus infinity), or use `f64` for larger values",
                        ),
                    );
                    return None;
                }
                (Literal::Float(if negative { -v } else { v }), ty)
            }
            AK::Inf => match expect {
                Some(t) if t != Scalar::Bool => (Literal::Inf, t),
                _ => {
                    self
                        .error(Diagnostic::error(span, "cannot tell the type of `inf` here").label("type unknown").note(
                        "`inf` is the largest value of the type the context expects; write e.g. `let d: u32 = inf;`",
                    ));
                    return None;
                }
            },
            _ => unreachable!("literal() is only called on literals"),
        };
        if let Some(want) = expect {
            if want != ty && !(want == Scalar::Bool) {
                // A suffixed literal that disagrees with its context; report here with the literal's span.
                self.mismatch(span, want, ty);
                return None;
            }
        }
        Some(self.add(ExprKind::Literal(lit), ty, span))
    }

    pub(super) fn name(&mut self, n: &str, span: Span) -> Option<Handle<Expr>> {
        match self.lookup_local(n) {
            Some(Binding::Local { h, .. }) => {
                if self.poisoned.contains(&h) {
                    return None;
                }
                let LocalType::Scalar(ty) = self.body.locals[h].ty else { unreachable!("scalar binding") };
                return Some(self.add(ExprKind::Local(h), ty, span));
            }
            Some(Binding::ArrayParam(_)) | Some(Binding::Shared(_)) => {
                self.error(
                    Diagnostic::error(span, format!("`{n}` is an array, not a value"))
                        .label(format!("index it: `{n}[i]`")),
                );
                return None;
            }
            Some(Binding::Poisoned) => return None,
            None => {}
        }
        let sym = self.lookup_global(&Ident { node: n.to_string(), span })?;
        match sym {
            Symbol::Error => None,
            Symbol::Param(p) => {
                let ty = self.sema.module.params[p].ty;
                Some(self.add(ExprKind::Param(p), ty, span))
            }
            Symbol::Const(lit, ty) => Some(self.add(ExprKind::Literal(lit), ty, span)),
            Symbol::Global(_) => {
                self.error(
                    Diagnostic::error(span, format!("`{n}` is an array, not a value"))
                        .label(format!("index it: `{n}[i]`")),
                );
                None
            }
            other => {
                let mut d = Diagnostic::error(span, format!("`{n}` is {}, not a value", other.describe()))
                    .label("expected a value");
                d = match other {
                    Symbol::Worklist(_) => {
                        d.note(format!("use `{n}.size()` in the plan, or `forall x in {n}` in a kernel"))
                    }
                    Symbol::Graph => d.note(format!("use `{n}.num_nodes`, `{n}.dst(e)`, ...")),
                    Symbol::Function(_) | Symbol::Kernel(_) => d.note(format!("call it: `{n}(...)`")),
                    _ => d,
                };
                self.error(d);
                None
            }
        }
    }

    /// Resolves the array an index expression's base names.
    pub(super) fn array_ref(&mut self, base: &ast::Expr) -> Option<ArrayRef> {
        let AK::Name(n) = &base.kind else {
            self.error(Diagnostic::error(base.span, "only named arrays can be indexed").label("not an array name"));
            return None;
        };
        match self.lookup_local(n) {
            Some(Binding::ArrayParam(h)) => return Some(ArrayRef::Param(h)),
            Some(Binding::Shared(h)) => return Some(ArrayRef::Shared(h)),
            Some(Binding::Local { h, .. }) => {
                if !self.poisoned.contains(&h) {
                    self.error(
                        Diagnostic::error(base.span, format!("`{n}` is a scalar, not an array"))
                            .label("cannot be indexed"),
                    );
                }
                return None;
            }
            Some(Binding::Poisoned) => return None,
            None => {}
        }
        match self.lookup_global(&Ident { node: n.clone(), span: base.span })? {
            Symbol::Global(g) => Some(ArrayRef::Global(g)),
            Symbol::Error => None,
            other => {
                self.error(
                    Diagnostic::error(base.span, format!("`{n}` is {}, not an array", other.describe()))
                        .label("cannot be indexed"),
                );
                None
            }
        }
    }

    /// The element type and the index types an array takes (`None`: any integer).
    pub(super) fn array_shape(&self, a: ArrayRef) -> (Scalar, Vec<Option<Scalar>>, String) {
        match a {
            ArrayRef::Global(g) => {
                let global = &self.sema.module.globals[g];
                let idx = match &global.kind {
                    GlobalKind::Node => vec![Some(Scalar::Node)],
                    GlobalKind::Edge => vec![Some(Scalar::Edge)],
                    GlobalKind::Dense(d) => vec![None; d.len().max(1)],
                };
                (global.elem, idx, global.name.clone())
            }
            ArrayRef::Shared(s) => {
                let sh = &self.body.shared[s];
                (sh.elem, vec![None; sh.dims.len()], sh.name.clone())
            }
            ArrayRef::Param(l) => {
                let local = &self.body.locals[l];
                let LocalType::ArrayRef(elem) = local.ty else { unreachable!("array binding") };
                (elem, vec![Some(Scalar::Node)], local.name.clone())
            }
        }
    }

    pub(super) fn indices(
        &mut self,
        a: ArrayRef,
        idx: &[ast::Expr],
        span: Span,
    ) -> Option<(Scalar, Vec<Handle<Expr>>)> {
        let (elem, want, name) = self.array_shape(a);
        if want.len() != idx.len() {
            let what = match want.len() {
                1 => "one index".to_string(),
                n => format!("{n} indices"),
            };
            self.error(
                Diagnostic::error(span, format!("`{name}` takes {what}, given {}", idx.len()))
                    .label("wrong number of indices"),
            );
            return None;
        }
        let mut out = Vec::new();
        for (i, w) in idx.iter().zip(want) {
            let h = match w {
                Some(t) => {
                    // Array parameters accept node ids or plain integers.
                    if matches!(a, ArrayRef::Param(_)) {
                        let h = self.expr(i, Some(t))?;
                        let got = self.ty(h);
                        if !(got.is_int() || got.is_id()) {
                            self.mismatch(i.span, t, got);
                            return None;
                        }
                        if got != Scalar::Node {
                            self.add(ExprKind::Cast { arg: h }, Scalar::Node, i.span)
                        } else {
                            h
                        }
                    } else {
                        self.expr_of(i, t)?
                    }
                }
                None => {
                    let h = self.expr(i, Some(Scalar::U32))?;
                    let got = self.ty(h);
                    if !got.is_int() {
                        self.error(
                            Diagnostic::error(i.span, format!("array index must be an integer, found {got}"))
                                .label("not an integer")
                                .note("convert ids with `as u32`"),
                        );
                        return None;
                    }
                    h
                }
            };
            out.push(h);
        }
        Some((elem, out))
    }

    pub(super) fn index(&mut self, base: &ast::Expr, idx: &[ast::Expr], span: Span) -> Option<Handle<Expr>> {
        let a = self.array_ref(base)?;
        let (elem, index) = self.indices(a, idx, span)?;
        let kind = match (self.ctx, a) {
            (Context::Plan, ArrayRef::Global(global)) => ExprKind::HostLoad { global, index },
            _ => ExprKind::Load { array: a, index },
        };
        Some(self.add(kind, elem, span))
    }

    /// `Some(())` if `base` names the graph; reports otherwise.
    pub(super) fn is_graph(&mut self, base: &ast::Expr) -> bool {
        if let AK::Name(n) = &base.kind {
            if self.lookup_local(n).is_none() {
                if let Some((Symbol::Graph, _)) = self.sema.symbols.get(n) {
                    return true;
                }
            }
        }
        false
    }

    pub(super) fn field(&mut self, base: &ast::Expr, field: &Ident, span: Span) -> Option<Handle<Expr>> {
        if !self.is_graph(base) {
            if let AK::Name(n) = &base.kind {
                if self.lookup_local(n).is_none() && !self.sema.symbols.contains_key(n) {
                    self.unknown_name(n, base.span);
                    return None;
                }
            }
            self.error(
                Diagnostic::error(field.span, format!("no field `{}` here", field.node))
                    .label("only the graph has fields"),
            );
            return None;
        }
        match field.node.as_str() {
            "num_nodes" => Some(self.add(ExprKind::Graph(GraphQuery::NumNodes), Scalar::U32, span)),
            "num_edges" => Some(self.add(ExprKind::Graph(GraphQuery::NumEdges), Scalar::U64, span)),
            "nodes" | "edges" => {
                self.error(
                    Diagnostic::error(span, format!("`{}` is an iteration space, not a value", field.node))
                        .label(format!("use it in a loop: `forall x in ...{}`", field.node)),
                );
                None
            }
            other => {
                self.error(
                    Diagnostic::error(field.span, format!("the graph has no field `{other}`"))
                        .label("unknown field")
                        .note(format!("graph fields: {GRAPH_FIELDS}; methods: {GRAPH_METHODS}")),
                );
                None
            }
        }
    }

    pub(super) fn binary(
        &mut self,
        op: BinaryOp,
        a: &ast::Expr,
        b: &ast::Expr,
        span: Span,
        expect: Option<Scalar>,
    ) -> Option<Handle<Expr>> {
        if matches!(op, BinaryOp::And | BinaryOp::Or) {
            let left = self.expr_of(a, Scalar::Bool)?;
            if !has_effects(b) {
                let right = self.expr_of(b, Scalar::Bool)?;
                let irop = if op == BinaryOp::And { BinaryOp::And } else { BinaryOp::Or };
                return Some(self.add(ExprKind::Binary { op: irop, left, right }, Scalar::Bool, span));
            }
            // Keep short-circuit order: the right side's effects happen only when it is evaluated.
            let t = self.temp(Scalar::Bool, span);
            self.emit(StmtKind::Assign { local: t, value: left }, span);
            let tv = self.add(ExprKind::Local(t), Scalar::Bool, span);
            let cond = if op == BinaryOp::And {
                tv
            } else {
                self.add(ExprKind::Unary { op: UnaryOp::Not, arg: tv }, Scalar::Bool, span)
            };
            let mut ok = true;
            let then = self.block_with(|lw| match lw.expr_of(b, Scalar::Bool) {
                Some(r) => lw.emit(StmtKind::Assign { local: t, value: r }, span),
                None => ok = false,
            });
            if !ok {
                return None;
            }
            self.emit(StmtKind::If { cond, then, otherwise: Vec::new() }, span);
            return Some(self.add(ExprKind::Local(t), Scalar::Bool, span));
        }
        let is_cmp =
            matches!(op, BinaryOp::Eq | BinaryOp::Ne | BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge);
        let (left, right, t) = self.pair(a, b, if is_cmp { None } else { expect })?;
        let (irop, ok, what) = match op {
            BinaryOp::Add => (BinaryOp::Add, t.is_numeric(), "numbers"),
            BinaryOp::Sub => (BinaryOp::Sub, t.is_numeric(), "numbers"),
            BinaryOp::Mul => (BinaryOp::Mul, t.is_numeric(), "numbers"),
            BinaryOp::Div => (BinaryOp::Div, t.is_numeric(), "numbers"),
            BinaryOp::Rem => (BinaryOp::Rem, t.is_numeric(), "numbers"),
            BinaryOp::BitAnd => (BinaryOp::BitAnd, t.is_int(), "integers"),
            BinaryOp::BitOr => (BinaryOp::BitOr, t.is_int(), "integers"),
            BinaryOp::BitXor => (BinaryOp::BitXor, t.is_int(), "integers"),
            BinaryOp::Shl => (BinaryOp::Shl, t.is_int(), "integers"),
            BinaryOp::Shr => (BinaryOp::Shr, t.is_int(), "integers"),
            BinaryOp::Eq => (BinaryOp::Eq, true, ""),
            BinaryOp::Ne => (BinaryOp::Ne, true, ""),
            BinaryOp::Lt => (BinaryOp::Lt, t != Scalar::Bool, "numbers or ids"),
            BinaryOp::Le => (BinaryOp::Le, t != Scalar::Bool, "numbers or ids"),
            BinaryOp::Gt => (BinaryOp::Gt, t != Scalar::Bool, "numbers or ids"),
            BinaryOp::Ge => (BinaryOp::Ge, t != Scalar::Bool, "numbers or ids"),
            BinaryOp::And | BinaryOp::Or => unreachable!("handled above"),
        };
        if !ok {
            let mut d = Diagnostic::error(span, format!("`{}` cannot be applied to {t}", op.symbol()))
                .label(format!("`{}` takes {what}", op.symbol()));
            if t.is_id() {
                d = d.note(format!("ids take no arithmetic: convert first, e.g. `(x as u32) {} 1`", op.symbol()));
            }
            self.error(d);
            return None;
        }
        let ty = if is_cmp { Scalar::Bool } else { t };
        Some(self.add(ExprKind::Binary { op: irop, left, right }, ty, span))
    }

    // ---- statements ----
}
