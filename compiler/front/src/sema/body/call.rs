//! Calls: methods on graphs and worklists, builtins (math, atomics), device functions and kernel launches;
//! effectful ones become statements whose result goes to a fresh local.

use super::*;

impl<'s, Op: Place> BodyLowerer<'s, Op> {
    pub(super) fn arity(&mut self, what: &str, args: &[ast::Expr], want: usize, span: Span) -> bool {
        if args.len() != want {
            self.error(
                Diagnostic::error(
                    span,
                    format!("{what} takes {} but {} given", count(want, "argument"), was(args.len())),
                )
                .label(format!("expected {}", count(want, "argument"))),
            );
            return false;
        }
        true
    }

    pub(super) fn method_value(
        &mut self,
        base: &ast::Expr,
        m: &Ident,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<Handle<Expr>> {
        if self.is_graph(base) {
            let (arg_ty, ret, make): (Scalar, Scalar, fn(Handle<Expr>) -> GraphQuery) = match m.node.as_str() {
                "src" => (Scalar::Edge, Scalar::Node, GraphQuery::Src),
                "dst" => (Scalar::Edge, Scalar::Node, GraphQuery::Dst),
                "degree" => (Scalar::Node, Scalar::U32, GraphQuery::Degree),
                "first_edge" => (Scalar::Node, Scalar::Edge, GraphQuery::FirstEdge),
                "end_edge" => (Scalar::Node, Scalar::Edge, GraphQuery::EndEdge),
                "weight" => {
                    let Some(w) = self.sema.module.graph.as_ref().and_then(|g| g.weight) else {
                        self.error(
                            Diagnostic::error(span, "the graph has no weights")
                                .label("weight of an unweighted graph")
                                .note("declare the weight type: `graph G(weight: u32);`"),
                        );
                        return None;
                    };
                    (Scalar::Edge, w, GraphQuery::Weight)
                }
                "edges" => {
                    self.error(
                        Diagnostic::error(span, "`edges(n)` is an iteration space, not a value")
                            .label("use it in a loop: `for e in G.edges(n)`"),
                    );
                    return None;
                }
                other => {
                    self.error(
                        Diagnostic::error(m.span, format!("the graph has no method `{other}`"))
                            .label("unknown method")
                            .note(format!("graph methods: {GRAPH_METHODS}")),
                    );
                    return None;
                }
            };
            if !self.arity(&format!("`{}`", m.node), args, 1, span) {
                return None;
            }
            let a = self.expr_of(&args[0], arg_ty)?;
            return Some(self.add(ExprKind::Graph(make(a)), ret, span));
        }
        let wl = self.worklist_of(base)?;
        match m.node.as_str() {
            "size" => {
                if self.is_device() {
                    self.error(
                        Diagnostic::error(span, "a worklist's size is only known to the plan")
                            .label("not available in device code"),
                    );
                    return None;
                }
                if !self.arity("`size`", args, 0, span) {
                    return None;
                }
                Some(self.add(ExprKind::WorklistSize(wl), Scalar::U64, span))
            }
            "push" | "retry" | "clear" => {
                self.error(
                    Diagnostic::error(span, format!("`{}` does not produce a value", m.node)).label("used as a value"),
                );
                None
            }
            other => {
                self.error(
                    Diagnostic::error(m.span, format!("worklists have no method `{other}`"))
                        .label("unknown method")
                        .note("worklist methods: push, retry, size, clear"),
                );
                None
            }
        }
    }

    pub(super) fn worklist_of(&mut self, base: &ast::Expr) -> Option<Handle<ir::Worklist>> {
        let AK::Name(n) = &base.kind else {
            self.error(
                Diagnostic::error(base.span, "methods are called on the graph, a worklist or an array")
                    .label("not one"),
            );
            return None;
        };
        if let Some(b) = self.lookup_local(n) {
            let _ = b;
            self.error(Diagnostic::error(base.span, format!("`{n}` has no methods")).label("a local value"));
            return None;
        }
        match self.lookup_global(&Ident { node: n.clone(), span: base.span })? {
            Symbol::Worklist(w) => Some(w),
            other => {
                self.error(
                    Diagnostic::error(base.span, format!("`{n}` is {}, not a worklist", other.describe()))
                        .label("expected a worklist"),
                );
                None
            }
        }
    }

    pub(super) fn call_value(
        &mut self,
        f: &Ident,
        args: &[ast::Expr],
        span: Span,
        expect: Option<Scalar>,
    ) -> Option<Handle<Expr>> {
        let name = f.node.as_str();
        if MATH_FNS.contains(&name) {
            return self.math(name, args, span, expect);
        }
        if self.is_device_threads(f) {
            return self.device_threads(args, span);
        }
        if let Some(&(_, op)) = ATOMICS.iter().find(|(n, _)| *n == name) {
            let (elem, _) = self.atomic(op, args, span, true)?;
            return Some(elem);
        }
        match self.lookup_global(f)? {
            Symbol::Function(_) | Symbol::Kernel(_) if self.bad_signature(name, args) => None,
            Symbol::Function(h) => {
                let ret = self.sema.module.functions[h].ret;
                let Some(ret) = ret else {
                    self.error(Diagnostic::error(span, format!("`{name}` returns nothing")).label("used as a value"));
                    return None;
                };
                let result = self.temp(ret, span);
                self.call_fn(h, args, span, Some(result))?;
                Some(self.add(ExprKind::Local(result), ret, span))
            }
            Symbol::Kernel(k) => {
                let red = self.sema.module.kernels[k].reduction;
                let Some((_, ty)) = red else {
                    self.error(
                        Diagnostic::error(span, format!("kernel `{name}` reports nothing to the plan"))
                            .label("used as a value")
                            .note("give it a reduction, e.g. `kernel k() -> any { ... reduce true; ... }`"),
                    );
                    return None;
                };
                let result = self.temp(ty, span);
                self.invoke(k, args, span, Some(result))?;
                Some(self.add(ExprKind::Local(result), ty, span))
            }
            other => {
                self.error(
                    Diagnostic::error(f.span, format!("`{name}` is {}, not a function", other.describe()))
                        .label("cannot be called"),
                );
                None
            }
        }
    }

    /// Whether a call of `f` is the builtin `device_threads()` (a program may declare its own of that name).
    pub(super) fn is_device_threads(&self, f: &Ident) -> bool {
        f.node == "device_threads" && !self.sema.symbols.contains_key("device_threads")
    }

    /// `device_threads()`: the plan's view of how many threads run a kernel's iterations at once on the device.
    fn device_threads(&mut self, args: &[ast::Expr], span: Span) -> Option<Handle<Expr>> {
        if self.is_device() {
            self.error(
                Diagnostic::error(span, "`device_threads()` is only known to the plan")
                    .label("not available in device code")
                    .note("read it in the plan and pass it to the kernel as an argument"),
            );
            return None;
        }
        if !self.arity("`device_threads`", args, 0, span) {
            return None;
        }
        Some(self.add(ExprKind::DeviceThreads, Scalar::U64, span))
    }

    pub(super) fn math(
        &mut self,
        name: &str,
        args: &[ast::Expr],
        span: Span,
        expect: Option<Scalar>,
    ) -> Option<Handle<Expr>> {
        let fun = match name {
            "min" => MathFn::Min,
            "max" => MathFn::Max,
            "abs" => MathFn::Abs,
            "ctz" => MathFn::Ctz,
            "clz" => MathFn::Clz,
            "popcount" => MathFn::Popcount,
            "sqrt" => MathFn::Sqrt,
            "random" => MathFn::Random,
            _ => MathFn::Select,
        };
        if !self.arity(&format!("`{name}`"), args, fun.arity(), span) {
            return None;
        }
        let (hs, ty) = match fun {
            MathFn::Min | MathFn::Max => {
                let (a, b, t) = self.pair(&args[0], &args[1], expect)?;
                if t == Scalar::Bool {
                    self.error(
                        Diagnostic::error(span, format!("`{name}` of bool values")).label("expected numbers or ids"),
                    );
                    return None;
                }
                (vec![a, b], t)
            }
            MathFn::Abs | MathFn::Sqrt => {
                let a = self.expr(&args[0], expect)?;
                let t = self.ty(a);
                let ok = if fun == MathFn::Sqrt { t.is_float() } else { t.is_signed() || t.is_float() };
                if !ok {
                    let want = if fun == MathFn::Sqrt { "a float" } else { "a signed integer or a float" };
                    self.error(
                        Diagnostic::error(args[0].span, format!("`{name}` takes {want}, found {t}"))
                            .label("wrong type"),
                    );
                    return None;
                }
                (vec![a], t)
            }
            MathFn::Ctz | MathFn::Clz | MathFn::Popcount => {
                let a = self.expr(&args[0], None)?;
                let t = self.ty(a);
                if !t.is_int() {
                    self.error(
                        Diagnostic::error(args[0].span, format!("`{name}` takes an integer, found {t}"))
                            .label("not an integer"),
                    );
                    return None;
                }
                (vec![a], Scalar::U32)
            }
            MathFn::Random => {
                let a = self.expr_of(&args[0], Scalar::U64)?;
                let b = self.expr_of(&args[1], Scalar::U64)?;
                (vec![a, b], Scalar::U64)
            }
            MathFn::Select => {
                let c = self.expr_of(&args[0], Scalar::Bool)?;
                let (a, b, t) = self.pair(&args[1], &args[2], expect)?;
                (vec![c, a, b], t)
            }
        };
        Some(self.add(ExprKind::Math { fun, args: hs }, ty, span))
    }

    /// Lowers an atomic call; returns the local holding the old value (as an expression) and the element type.
    pub(super) fn atomic(
        &mut self,
        op: AtomicOp,
        args: &[ast::Expr],
        span: Span,
        want_result: bool,
    ) -> Option<(Handle<Expr>, Scalar)> {
        if !self.is_device() {
            self.error(
                Diagnostic::error(span, format!("`{}` runs on the device", op.name()))
                    .label("atomics are not available in the plan")
                    .note("the plan runs on the host, one step at a time: plain assignment is enough there"),
            );
            return None;
        }
        let n = if op == AtomicOp::CompareExchange { 3 } else { 2 };
        if !self.arity(&format!("`{}`", op.name()), args, n, span) {
            return None;
        }
        let AK::Index(base, idx) = &args[0].kind else {
            self.error(
                Diagnostic::error(
                    args[0].span,
                    format!("`{}` needs an array element as its first argument", op.name()),
                )
                .label("not an array element")
                .note("atomics act on memory shared by threads: write e.g. `atomic_min(dist[v], d)`"),
            );
            return None;
        };
        let array = self.array_ref(base)?;
        let (elem, index) = self.indices(array, idx, args[0].span)?;
        let allowed = match op {
            AtomicOp::Add | AtomicOp::Sub => elem.is_numeric(),
            AtomicOp::Min | AtomicOp::Max => elem.is_numeric() || elem.is_id(),
            AtomicOp::And | AtomicOp::Or | AtomicOp::Xor => elem.is_int(),
            AtomicOp::Exchange | AtomicOp::CompareExchange => elem != Scalar::Bool,
        };
        if !allowed || elem == Scalar::Bool {
            self.error(
                Diagnostic::error(args[0].span, format!("`{}` is not available on {elem} elements", op.name()))
                    .label(format!("an array of {elem}")),
            );
            return None;
        }
        let compare = if op == AtomicOp::CompareExchange { Some(self.expr_of(&args[1], elem)?) } else { None };
        let value = self.expr_of(&args[n - 1], elem)?;
        let result = if want_result { Some(self.temp(elem, span)) } else { None };
        self.emit_device(DeviceOp::Atomic { op, array, index, value, compare, result }, span);
        let h = match result {
            Some(r) => self.add(ExprKind::Local(r), elem, span),
            None => value,
        };
        Some((h, elem))
    }

    /// Whether a kernel or function's signature failed to resolve (already reported): calls to it are not checked,
    /// though errors inside the arguments still are.
    pub(super) fn bad_signature(&mut self, name: &str, args: &[ast::Expr]) -> bool {
        if !self.sema.bad_signatures.contains(name) {
            return false;
        }
        for a in args {
            if !matches!(a.kind, AK::Name(_)) {
                let _ = self.expr(a, None);
            }
        }
        true
    }

    pub(super) fn call_fn(
        &mut self,
        h: Handle<ir::Function>,
        args: &[ast::Expr],
        span: Span,
        result: Option<Handle<Local>>,
    ) -> Option<()> {
        if !self.is_device() {
            let name = self.sema.module.functions[h].name.clone();
            self.error(
                Diagnostic::error(span, format!("`{name}` is a device function"))
                    .label("cannot be called from the plan")
                    .note("call it from a kernel"),
            );
            return None;
        }
        let f = &self.sema.module.functions[h];
        let (name, params): (String, Vec<LocalType>) =
            (f.name.clone(), f.params.iter().map(|&p| f.body.locals[p].ty).collect());
        if self.bad_signature(&name, args) {
            return None;
        }
        if !self.arity(&format!("function `{name}`"), args, params.len(), span) {
            return None;
        }
        let mut out = Vec::new();
        for (a, p) in args.iter().zip(params) {
            match p {
                LocalType::Scalar(t) => out.push(Arg::Value(self.expr_of(a, t)?)),
                LocalType::ArrayRef(elem) => {
                    let r = self.array_ref(a)?;
                    let (got, _, aname) = self.array_shape(r);
                    let one_d = match r {
                        ArrayRef::Global(g) => self.sema.module.globals[g].kind == GlobalKind::Node,
                        ArrayRef::Param(_) => true,
                        ArrayRef::Shared(_) => false,
                    };
                    if got != elem || !one_d {
                        self.error(
                            Diagnostic::error(a.span, format!("`{aname}` is not a node array of {elem}"))
                                .label(format!("expected a `node` array of {elem}")),
                        );
                        return None;
                    }
                    out.push(Arg::Array(r));
                }
            }
        }
        self.emit_device(DeviceOp::Call { function: h, args: out, result }, span);
        Some(())
    }

    pub(super) fn invoke(
        &mut self,
        k: Handle<ir::Kernel>,
        args: &[ast::Expr],
        span: Span,
        result: Option<Handle<Local>>,
    ) -> Option<()> {
        let kernel = &self.sema.module.kernels[k];
        let name = kernel.name.clone();
        if self.is_device() {
            self.error(
                Diagnostic::error(span, format!("kernel `{name}` can only be launched from the plan"))
                    .label("kernel launch in device code")
                    .note("to share code between kernels, write a `fn`"),
            );
            return None;
        }
        if self.bad_signature(&name, args) {
            return None;
        }
        let kernel = &self.sema.module.kernels[k];
        let params: Vec<Scalar> = kernel
            .params
            .iter()
            .map(|&p| match kernel.body.locals[p].ty {
                LocalType::Scalar(t) => t,
                LocalType::ArrayRef(t) => t,
            })
            .collect();
        if !self.arity(&format!("kernel `{name}`"), args, params.len(), span) {
            return None;
        }
        let mut out = Vec::new();
        for (a, t) in args.iter().zip(params) {
            out.push(self.expr_of(a, t)?);
        }
        self.emit_plan(PlanOp::Invoke { kernel: k, args: out, result }, span);
        Some(())
    }

    /// Lowers two operands that must share a type; an unsuffixed literal takes the other side's type.
    pub(super) fn pair(
        &mut self,
        a: &ast::Expr,
        b: &ast::Expr,
        expect: Option<Scalar>,
    ) -> Option<(Handle<Expr>, Handle<Expr>, Scalar)> {
        let (ha, hb) = if flexible(a) && !flexible(b) {
            let hb = self.expr(b, expect)?;
            let tb = self.ty(hb);
            (self.expr(a, Some(tb))?, hb)
        } else {
            let ha = self.expr(a, expect)?;
            let ta = self.ty(ha);
            (ha, self.expr(b, Some(ta))?)
        };
        let (ta, tb) = (self.ty(ha), self.ty(hb));
        if ta != tb {
            let mut d = Diagnostic::error(a.span, format!("mismatched types: {ta} and {tb}"))
                .label(format!("this is {ta}"))
                .with_secondary(b.span, format!("this is {tb}"));
            d = d.note(format!("convert one side explicitly, e.g. `... as {ta}`"));
            self.error(d);
            return None;
        }
        Some((ha, hb, ta))
    }
}
