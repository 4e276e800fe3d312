//! Statements: the AST statement forms, assignments (compound ones included), statement expressions, `return`,
//! and where each may stand (plan or device code).

use super::*;

impl<'s, Op: Place> BodyLowerer<'s, Op> {
    pub(super) fn stmts(&mut self, stmts: &[ast::Stmt]) {
        for s in stmts {
            self.stmt(s);
        }
    }

    pub(super) fn stmt(&mut self, s: &ast::Stmt) {
        let span = s.span;
        match &s.kind {
            SK::Error => {}
            SK::Let { name, mutable, ty, value } => {
                let want = match ty {
                    Some(t) => match types::scalar(t) {
                        Ok(t) => Some(t),
                        Err(d) => {
                            self.error(d);
                            return;
                        }
                    },
                    None => None,
                };
                let Some(v) = (match want {
                    Some(t) => self.expr_of(value, t),
                    None => self.expr(value, None),
                }) else {
                    // Bind the name anyway so later uses do not report "cannot find"; without a declared type the
                    // local is poisoned: uses of it fail silently instead of cascading into type errors.
                    if let Some(t) = want {
                        let h = self.new_local(&name.node, t, name.span);
                        self.bind(name, Binding::Local { h, mutable: *mutable });
                    } else {
                        let h = self.new_local(&name.node, Scalar::I32, name.span);
                        self.bind(name, Binding::Local { h, mutable: true });
                        self.poisoned.push(h);
                    }
                    return;
                };
                let t = self.ty(v);
                let h = self.new_local(&name.node, t, name.span);
                self.emit(StmtKind::Assign { local: h, value: v }, span);
                self.bind(name, Binding::Local { h, mutable: *mutable });
            }
            SK::Assign { place, op, value } => self.assign(place, *op, value, span),
            SK::Expr(e) => self.stmt_expr(e),
            SK::If { cond, then, otherwise } => {
                let Some(c) = self.expr_of(cond, Scalar::Bool) else {
                    let _ = self.block(then);
                    if let Some(o) = otherwise {
                        let _ = self.block(o);
                    }
                    return;
                };
                let then = self.block(then);
                let otherwise = otherwise.as_ref().map(|o| self.block(o)).unwrap_or_default();
                self.emit(StmtKind::If { cond: c, then, otherwise }, span);
            }
            SK::While { cond, body } => {
                self.loops.push(LoopKind::Serial);
                let block = self.block_with(|lw| {
                    if let Some(c) = lw.expr_of(cond, Scalar::Bool) {
                        let not = lw.add(ExprKind::Unary { op: UnaryOp::Not, arg: c }, Scalar::Bool, cond.span);
                        lw.emit(
                            StmtKind::If {
                                cond: not,
                                then: vec![Statement { kind: StmtKind::Break, span: cond.span }],
                                otherwise: Vec::new(),
                            },
                            cond.span,
                        );
                    }
                    lw.stmts(&body.stmts);
                });
                self.loops.pop();
                self.emit(StmtKind::Loop { body: block, continuing: Vec::new(), break_if: None }, span);
            }
            SK::Loop(body) => {
                self.loops.push(LoopKind::Serial);
                let block = self.block(body);
                self.loops.pop();
                self.emit(StmtKind::Loop { body: block, continuing: Vec::new(), break_if: None }, span);
            }
            SK::Repeat { body, until } => {
                self.loops.push(LoopKind::Serial);
                self.scopes.push(Vec::new());
                self.blocks.push(Vec::new());
                self.stmts(&body.stmts);
                let block = self.blocks.pop().unwrap_or_default();
                self.loops.pop();
                self.blocks.push(Vec::new());
                let cond = self.expr_of(until, Scalar::Bool);
                let continuing = self.blocks.pop().unwrap_or_default();
                self.scopes.pop();
                if let Some(c) = cond {
                    self.emit(StmtKind::Loop { body: block, continuing, break_if: Some(c) }, span);
                }
            }
            SK::For { pat, space, body } => self.for_loop(pat, space, body, span),
            SK::ForAll { pat, space, body } => self.forall(pat, space, body, span),
            SK::ForTile(t) => {
                let ast::ForTile { tile, tiles, thread, threads, body } = &**t;
                self.for_tile(tile, tiles, thread, threads, body, span)
            }
            SK::Break | SK::Continue => {
                let word = if matches!(s.kind, SK::Break) { "break" } else { "continue" };
                match self.loops.last() {
                    Some(LoopKind::Serial) => {
                        self.emit(if word == "break" { StmtKind::Break } else { StmtKind::Continue }, span)
                    }
                    Some(LoopKind::Parallel) => self.error(
                        Diagnostic::error(span, format!("`{word}` cannot leave a `forall`"))
                            .label("the iterations of a `forall` run in parallel")
                            .note("to skip the rest of one item, put the rest inside an `if`"),
                    ),
                    None => self
                        .error(Diagnostic::error(span, format!("`{word}` outside of a loop")).label("not in a loop")),
                }
            }
            SK::Return(v) => self.ret(v.as_ref(), span),
            SK::Reduce(v) => {
                let Context::Kernel(red) = self.ctx else {
                    self.error(
                        Diagnostic::error(span, "`reduce` is only allowed in a kernel").label("not in a kernel"),
                    );
                    return;
                };
                let Some((_, ty)) = red else {
                    if self.bad_reduction {
                        return;
                    }
                    self.error(
                        Diagnostic::error(span, "`reduce` in a kernel without a reduction")
                            .label("nothing to reduce into")
                            .note("declare one on the kernel, e.g. `kernel hook() -> any { ... }`"),
                    );
                    return;
                };
                if self.foralls == 0 {
                    self.error(Diagnostic::error(span, "`reduce` outside the kernel's `forall`"));
                    return;
                }
                if let Some(value) = self.expr_of(v, ty) {
                    self.emit_device(DeviceOp::Reduce { value }, span);
                }
            }
            SK::Barrier => {
                if !self.in_tile {
                    self.error(
                        Diagnostic::error(span, "`barrier` is only allowed inside `forall tile`")
                            .label("no thread block to synchronise")
                            .note("threads of an ordinary `forall` cannot wait for each other; split the work into kernels"),
                    );
                    return;
                }
                if self.loops.iter().rev().take_while(|k| **k == LoopKind::Serial).count() > 0 || self.foralls > 1 {
                    // Barriers inside loops are fine as long as every thread runs them; we cannot prove it, so allow.
                }
                self.emit_device(DeviceOp::Barrier, span);
            }
            SK::Wait => self.wait(span),
            SK::Shared { name, elem, dims } => {
                if !self.in_tile {
                    self.error(
                        Diagnostic::error(span, "`shared` arrays are only allowed inside `forall tile`")
                            .label("no thread block to share with"),
                    );
                    return;
                }
                let Ok(elem) = types::scalar(elem).map_err(|d| self.error(d)) else {
                    self.bind(name, Binding::Poisoned);
                    return;
                };
                let mut sizes = Vec::new();
                for d in dims {
                    match consts::eval(d, Scalar::U32, &self.sema.consts) {
                        Ok(Literal::Int(v)) if v > 0 => sizes.push(v as u32),
                        Ok(_) => {
                            self.error(Diagnostic::error(d.span, "a shared dimension must be a positive constant"))
                        }
                        Err(e) => self
                            .error(e.note("shared arrays live in on-chip memory: their size is fixed at compile time")),
                    }
                }
                if sizes.len() != dims.len() {
                    self.bind(name, Binding::Poisoned);
                    return;
                }
                if dims.is_empty() || dims.len() > 2 {
                    self.error(Diagnostic::error(span, "a shared array has 1 or 2 dimensions"));
                    self.bind(name, Binding::Poisoned);
                    return;
                }
                let bytes: u64 = sizes.iter().map(|&s| s as u64).product::<u64>() * (elem.bits() as u64 / 8);
                if bytes > 48 * 1024 {
                    self.error(
                        Diagnostic::error(span, format!("shared array `{}` needs {bytes} bytes", name.node))
                            .label("more than 48 KiB of block-shared memory"),
                    );
                    self.bind(name, Binding::Poisoned);
                    return;
                }
                let h = self.body.shared.append(ir::SharedArray {
                    name: name.node.clone(),
                    elem,
                    dims: sizes,
                    span: name.span,
                });
                self.bind(name, Binding::Shared(h));
            }
            SK::Pipe { worklist, body } => {
                if !self.plan_only("pipe", span) {
                    return;
                }
                let Some(w) = self.worklist_named(worklist) else { return };
                self.loops.push(LoopKind::Serial);
                let b = self.block(body);
                self.loops.pop();
                self.emit_plan(PlanOp::Pipe { worklist: w, body: Op::plan_block(b) }, span);
            }
            SK::Hybrid { worklist, threshold, dense, sparse } => {
                if !self.plan_only("hybrid", span) {
                    return;
                }
                let Some(w) = self.worklist_named(worklist) else { return };
                let t = match threshold {
                    Some(threshold) => match self.expr_of(threshold, Scalar::F64) {
                        Some(t) => Some(t),
                        None => return,
                    },
                    None => None,
                };
                let dense = self.block(dense);
                let sparse = self.block(sparse);
                let (dense, sparse) = (Op::plan_block(dense), Op::plan_block(sparse));
                self.emit_plan(PlanOp::Hybrid { worklist: w, threshold: t, dense, sparse }, span);
            }
        }
    }

    /// `wait;`: the current item of the kernel's sweep runs again later in the same launch. Only an item of a
    /// kernel's own sweep can wait: not one of a nested `forall` (whose iterations the item combines), not a tile
    /// thread (which meets the others at barriers), not in a kernel with a reduction (an item that runs again would
    /// contribute again); a kernel that waits and retries is refused once the whole kernel is known.
    fn wait(&mut self, span: Span) {
        let refuse = |me: &mut Self, msg: &str, label: &str, note: &str| {
            me.error(Diagnostic::error(span, msg.to_string()).label(label.to_string()).note(note.to_string()))
        };
        let what = "`wait;` ends an item of a kernel's sweep unfinished; the item runs again later in the same launch";
        match self.ctx {
            Context::Kernel(_) if self.foralls > 0 => {}
            _ => {
                return refuse(self, "`wait` is only allowed inside a kernel's `forall`", "no item to run again", what)
            }
        }
        if self.in_tile {
            let label = "a tile's threads meet at barriers, which an item run again later would miss";
            return refuse(self, "`wait` in a `forall tile`", label, what);
        }
        if self.foralls > 1 {
            let note = "set a flag in the nested loop, and `wait` after it when the flag is set";
            return refuse(
                self,
                "`wait` inside a nested `forall`",
                "only an item of the kernel's sweep can wait",
                note,
            );
        }
        if let Context::Kernel(Some(_)) = self.ctx {
            let label = "an item that runs again would contribute to the reduction again";
            let note = "write the result to an array instead, and reduce it in a kernel of its own";
            return refuse(self, "`wait` in a kernel with a reduction", label, note);
        }
        self.emit_device(DeviceOp::Wait, span);
    }

    /// `print(a, b, ...)` in the plan: each value recorded for the run's summary under its expression as
    /// written (whitespace runs collapsed), so `print(mu - mf)` reads back as `mu - mf = 1042`.
    fn print(&mut self, args: &[ast::Expr], span: Span) {
        if !self.plan_only("print", span) {
            return;
        }
        if args.is_empty() {
            self.error(
                Diagnostic::error(span, "`print` needs at least one value")
                    .label("nothing to print")
                    .note("e.g. `print(depth, frontier.size())`"),
            );
            return;
        }
        let mut items = Vec::with_capacity(args.len());
        for a in args {
            let text = self.sema.texts.get(&a.span.file).and_then(|t| t.get(a.span.range())).unwrap_or("value");
            let label = text.split_whitespace().collect::<Vec<_>>().join(" ");
            let Some(v) = self.expr(a, None) else { return };
            items.push((label, v));
        }
        self.emit_plan(PlanOp::Print { items }, span);
    }

    pub(super) fn plan_only(&mut self, what: &str, span: Span) -> bool {
        if self.is_device() {
            self.error(
                Diagnostic::error(span, format!("`{what}` is only allowed in the plan"))
                    .label("the plan decides which kernels run; kernels cannot"),
            );
            return false;
        }
        true
    }

    pub(super) fn worklist_named(&mut self, name: &Ident) -> Option<Handle<ir::Worklist>> {
        self.worklist_of(&ast::Expr { kind: AK::Name(name.node.clone()), span: name.span })
    }

    pub(super) fn ret(&mut self, v: Option<&ast::Expr>, span: Span) {
        let Context::Function(ret) = self.ctx else {
            let d = match self.ctx {
                Context::Kernel(_) => Diagnostic::error(span, "`return` in a kernel")
                    .label("kernels return nothing")
                    .note("to report to the plan, declare a reduction (`-> any`) and use `reduce`"),
                _ => {
                    Diagnostic::error(span, "`return` in the plan").label("the plan ends when its last statement does")
                }
            };
            self.error(d);
            return;
        };
        if self.foralls > 0 {
            self.error(Diagnostic::error(span, "`return` inside a `forall`"));
            return;
        }
        match (ret, v) {
            (Some(t), Some(v)) => {
                if let Some(h) = self.expr_of(v, t) {
                    self.emit_device(DeviceOp::Return(Some(h)), span);
                }
            }
            (None, None) => self.emit_device(DeviceOp::Return(None), span),
            (Some(t), None) => {
                self.error(Diagnostic::error(span, format!("this function must return a {t}")).label("missing value"))
            }
            (None, Some(v)) => self.error(
                Diagnostic::error(v.span, "this function returns nothing")
                    .label("unexpected value")
                    .note("declare the result type: `fn f(...) -> u32`"),
            ),
        }
    }

    pub(super) fn assign(&mut self, place: &ast::Expr, op: Option<BinaryOp>, value: &ast::Expr, span: Span) {
        let combine = |lw: &mut Self, current: Handle<Expr>, t: Scalar| -> Option<Handle<Expr>> {
            match op {
                None => lw.expr_of(value, t),
                Some(op) => {
                    let fake = ast::Expr { kind: AK::Name(String::new()), span: place.span };
                    let _ = fake;
                    let rhs = lw.expr_of(value, t)?;
                    let irop = op;
                    let ok = if matches!(
                        irop,
                        BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div | BinaryOp::Rem
                    ) {
                        t.is_numeric()
                    } else {
                        t.is_int()
                    };
                    if !ok {
                        lw.error(
                            Diagnostic::error(span, format!("`{}=` cannot be applied to {t}", op.symbol()))
                                .label(format!("a value of type {t}")),
                        );
                        return None;
                    }
                    Some(lw.add(ExprKind::Binary { op: irop, left: current, right: rhs }, t, span))
                }
            }
        };
        match &place.kind {
            AK::Name(n) => match self.lookup_local(n) {
                Some(Binding::Local { h, mutable }) => {
                    if !mutable && h.index() < self.param_count {
                        self.error(
                            Diagnostic::error(place.span, format!("cannot assign to the parameter `{n}`"))
                                .label("parameters are read-only")
                                .note(format!("copy it into a variable first: `var my_{n} = {n};`")),
                        );
                        return;
                    }
                    if !mutable {
                        let decl = self.body.locals[h].span;
                        self.error(
                            Diagnostic::error(place.span, format!("cannot assign to `{n}`: it is immutable"))
                                .label("assignment to an immutable binding")
                                .with_secondary(decl, format!("declare it with `var {n}` to make it mutable")),
                        );
                        return;
                    }
                    let LocalType::Scalar(t) = self.body.locals[h].ty else { return };
                    let current = self.add(ExprKind::Local(h), t, place.span);
                    if let Some(v) = combine(self, current, t) {
                        self.emit(StmtKind::Assign { local: h, value: v }, span);
                    }
                }
                Some(_) => self.error(
                    Diagnostic::error(place.span, format!("cannot assign to the array `{n}` as a whole"))
                        .label("assign to an element: `a[i] = ...`"),
                ),
                None => match self.lookup_global(&Ident { node: n.clone(), span: place.span }) {
                    Some(Symbol::Global(_)) => self.error(
                        Diagnostic::error(place.span, format!("cannot assign to the array `{n}` as a whole"))
                            .label("assign to an element, or use `.fill(v)` in the plan"),
                    ),
                    Some(sym) => self.error(
                        Diagnostic::error(place.span, format!("cannot assign to `{n}`: it is {}", sym.describe()))
                            .label("read-only"),
                    ),
                    None => {}
                },
            },
            AK::Index(base, idx) => {
                let Some(array) = self.array_ref(base) else { return };
                if !self.is_device() && !matches!(array, ArrayRef::Global(_)) {
                    return;
                }
                let Some((elem, index)) = self.indices(array, idx, place.span) else { return };
                let current = match (self.ctx, array) {
                    (Context::Plan, ArrayRef::Global(global)) => {
                        self.add(ExprKind::HostLoad { global, index: index.clone() }, elem, place.span)
                    }
                    _ => self.add(ExprKind::Load { array, index: index.clone() }, elem, place.span),
                };
                if let Some(v) = combine(self, current, elem) {
                    match (self.ctx, array) {
                        (Context::Plan, ArrayRef::Global(global)) => {
                            self.emit_plan(PlanOp::Store { global, index, value: v }, span)
                        }
                        _ => self.emit_device(DeviceOp::Store { array, index, value: v }, span),
                    }
                }
            }
            _ => self.error(
                Diagnostic::error(place.span, "cannot assign to this expression")
                    .label("expected a variable or an array element"),
            ),
        }
    }

    pub(super) fn stmt_expr(&mut self, e: &ast::Expr) {
        let span = e.span;
        match &e.kind {
            AK::Error => {}
            AK::Call(f, args) if f.node == "print" && !self.sema.symbols.contains_key("print") => {
                self.print(args, span)
            }
            AK::Call(f, args) if !MATH_FNS.contains(&f.node.as_str()) && !self.is_device_threads(f) => {
                let name = f.node.as_str();
                if let Some(&(_, op)) = ATOMICS.iter().find(|(n, _)| *n == name) {
                    let _ = self.atomic(op, args, span, false);
                    return;
                }
                match self.lookup_global(f) {
                    Some(Symbol::Function(h)) => {
                        let _ = self.call_fn(h, args, span, None);
                    }
                    Some(Symbol::Kernel(k)) => {
                        let _ = self.invoke(k, args, span, None);
                    }
                    Some(other) => self.error(
                        Diagnostic::error(f.span, format!("`{name}` is {}, not a function", other.describe()))
                            .label("cannot be called"),
                    ),
                    None => {}
                }
            }
            AK::Method(base, m, args) => {
                if self.is_graph(base) {
                    match m.node.as_str() {
                        "contract" => self.contract(args, span),
                        _ => self.no_effect(span),
                    }
                    return;
                }
                // `a.fill(v)` on a global array.
                if m.node == "fill" {
                    if let AK::Name(n) = &base.kind {
                        if let Some((Symbol::Global(g), _)) = self.sema.symbols.get(n).copied() {
                            if self.lookup_local(n).is_none() {
                                if !self.plan_only("fill", span) || !self.arity("`fill`", args, 1, span) {
                                    return;
                                }
                                let elem = self.sema.module.globals[g].elem;
                                if let Some(v) = self.expr_of(&args[0], elem) {
                                    self.emit_plan(PlanOp::Fill { global: g, value: v }, span);
                                }
                                return;
                            }
                        }
                    }
                }
                let Some(w) = self.worklist_of(base) else { return };
                let elem = self.sema.module.worklists[w].elem;
                match m.node.as_str() {
                    "push" => {
                        if !self.arity("`push`", args, 1, span) {
                            return;
                        }
                        let Some(v) = self.expr_of(&args[0], elem) else { return };
                        if self.is_device() {
                            self.emit_device(DeviceOp::Push { worklist: w, value: v, coop: Cooperation::Thread }, span);
                        } else {
                            self.emit_plan(PlanOp::HostPush { worklist: w, value: v }, span);
                        }
                    }
                    "retry" => {
                        if !matches!(self.ctx, Context::Kernel(_)) || self.foralls == 0 {
                            self.error(
                                Diagnostic::error(span, "`retry` is only allowed inside a kernel's `forall`")
                                    .label("nothing to retry here"),
                            );
                            return;
                        }
                        if self.sweep_worklist != Some(w) {
                            let wname = self.sema.module.worklists[w].name.clone();
                            self.error(
                                Diagnostic::error(span, format!("`retry` into `{wname}` outside a sweep over `{wname}`"))
                                    .label("nothing would process the retried item")
                                    .note(format!("retried items are processed again by the same kernel: use it inside `forall x in {wname}`")),
                            );
                            return;
                        }
                        if !self.arity("`retry`", args, 1, span) {
                            return;
                        }
                        let Some(v) = self.expr_of(&args[0], elem) else { return };
                        self.emit_device(DeviceOp::Retry { worklist: w, value: v, coop: Cooperation::Thread }, span);
                    }
                    "clear" => {
                        if self.plan_only("clear", span) && self.arity("`clear`", args, 0, span) {
                            self.emit_plan(PlanOp::Clear { worklist: w }, span);
                        }
                    }
                    "size" => self.no_effect(span),
                    other => self.error(
                        Diagnostic::error(m.span, format!("worklists have no method `{other}`"))
                            .label("unknown method")
                            .note("worklist methods: push, retry, size, clear"),
                    ),
                }
            }
            _ => {
                // Lower it anyway so errors inside are reported, then say it does nothing.
                if self.expr(e, None).is_some() {
                    self.no_effect(span);
                }
            }
        }
    }

    /// `G.contract(label)` in the plan: the graph becomes its quotient under `label`, a `node` array of `node`s;
    /// then every node and edge array with an initialiser gets it again (on the new graph's sizes).
    fn contract(&mut self, args: &[ast::Expr], span: Span) {
        if !self.plan_only("G.contract", span) || !self.arity("`G.contract`", args, 1, span) {
            return;
        }
        let Some(label) = self.array_ref(&args[0]) else { return };
        let node_of_nodes = match label {
            ArrayRef::Global(g) => {
                let global = &self.sema.module.globals[g];
                (global.kind == GlobalKind::Node && global.elem == Scalar::Node).then_some(g)
            }
            _ => None,
        };
        let Some(g) = node_of_nodes else {
            self.error(
                Diagnostic::error(args[0].span, "`G.contract` takes a node array of `node`s")
                    .label("each node's group: declare it `node NAME: node;`"),
            );
            return;
        };
        if let Some(decl) = self.sema.module.graph.as_ref().filter(|d| d.simple) {
            let declared = decl.span;
            self.error(
                Diagnostic::error(span, "a program that declares a simple graph cannot contract it")
                    .label("the quotient keeps each group's inner edges as a self loop")
                    .with_secondary(declared, "`simple` declared here"),
            );
            return;
        }
        self.emit_plan(PlanOp::Contract { label: g }, span);
        for (global, init) in self.sema.refills.clone() {
            self.fill(global, &init);
        }
    }

    pub(super) fn no_effect(&mut self, span: Span) {
        self.error(
            Diagnostic::error(span, "this expression does nothing")
                .label("value computed and thrown away")
                .note("did you mean to assign it, e.g. `let x = ...;`?")
                .cascading(),
        );
    }
}
