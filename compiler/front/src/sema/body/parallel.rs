//! Loops over spaces: serial `for`, the kernel's `forall` sweep (whose bounds the host must be able to compute)
//! and `forall tile` with its block shape; patterns binding the loop variables.

use super::*;

impl<'s, Op: Place> BodyLowerer<'s, Op> {
    /// Binds loop variables of the given types in the current scope.
    pub(super) fn bind_pattern(
        &mut self,
        pat: &ast::Pattern,
        tys: &[Scalar],
        what_span: Span,
    ) -> Option<Vec<Handle<Local>>> {
        let names: Vec<&Ident> = match pat {
            ast::Pattern::One(a) => vec![a],
            ast::Pattern::Two(a, b) => vec![a, b],
        };
        if names.len() != tys.len() {
            let mut d = Diagnostic::error(
                what_span,
                format!("this space has {} dimension(s) but the loop binds {}", tys.len(), names.len()),
            )
            .label("pattern and space do not match");
            if names.len() == 2 {
                d = d.note("`(i, x)` binds a position and an item over a worklist (`forall (i, x) in wl`), or two indices over `(a..b, c..d)`");
            }
            self.error(d);
            return None;
        }
        let mut out = Vec::new();
        for (n, &t) in names.into_iter().zip(tys) {
            let h = self.new_local(&n.node, t, n.span);
            self.bind(n, Binding::Local { h, mutable: false });
            out.push(h);
        }
        Some(out)
    }

    pub(super) fn range(&mut self, a: &ast::Expr, b: &ast::Expr) -> Option<(Handle<Expr>, Handle<Expr>, Scalar)> {
        // `0..4` counts things: without other context its literals are u32, not the general default i32.
        let (ha, hb, t) = self.pair(a, b, Some(Scalar::U32))?;
        if !(t.is_int() || t.is_id()) {
            self.error(
                Diagnostic::error(a.span.to(b.span), format!("a range must be over integers or ids, not {t}"))
                    .label("bad range"),
            );
            return None;
        }
        Some((ha, hb, t))
    }

    /// Lowers a 1-D or 2-D range space, with the type of each dimension (`None` for other spaces or on error).
    pub(super) fn range_space(&mut self, space: &ast::Space) -> Option<(Space, Vec<Scalar>)> {
        match space {
            ast::Space::Range(a, b) => {
                let (a, b, t) = self.range(a, b)?;
                Some((Space::Range(a, b), vec![t]))
            }
            ast::Space::Range2([(a, b), (c, d)]) => {
                let (a, b, t1) = self.range(a, b)?;
                let (c, d, t2) = self.range(c, d)?;
                Some((Space::Range2([(a, b), (c, d)]), vec![t1, t2]))
            }
            ast::Space::Expr(_) => None,
        }
    }

    /// Resolves `G.nodes`, `G.edges`, `G.edges(n)` and worklist names.
    pub(super) fn named_space(&mut self, e: &ast::Expr) -> Option<Space> {
        match &e.kind {
            AK::Field(base, f) if self.is_graph(base) => match f.node.as_str() {
                "nodes" => Some(Space::Nodes),
                "edges" => Some(Space::Edges),
                other => {
                    self.error(
                        Diagnostic::error(f.span, format!("`{other}` is not an iteration space"))
                            .label("expected `nodes`, `edges` or `edges(n)`"),
                    );
                    None
                }
            },
            AK::Method(base, m, args) if self.is_graph(base) && m.node == "edges" => {
                if !self.arity("`edges`", args, 1, e.span) {
                    return None;
                }
                Some(Space::OutEdges(self.expr_of(&args[0], Scalar::Node)?))
            }
            AK::Name(n)
                if self.lookup_local(n).is_none()
                    && matches!(self.sema.symbols.get(n), Some((Symbol::Worklist(_), _))) =>
            {
                let Some((Symbol::Worklist(w), _)) = self.sema.symbols.get(n) else { unreachable!("checked") };
                Some(Space::Worklist(*w))
            }
            _ => {
                if self.expr(e, None).is_some() {
                    self.error(
                        Diagnostic::error(e.span, "this is not an iteration space")
                            .label("cannot iterate over a value")
                            .note("iterate over `a..b`, `G.nodes`, `G.edges`, `G.edges(n)` or a worklist"),
                    );
                }
                None
            }
        }
    }

    /// Whether the range bounds of a kernel's sweep can be computed before the launch (from kernel arguments,
    /// params, constants and graph sizes): the runtime sizes the launch from them. Reports the first that cannot.
    pub(super) fn sweep_bounds_known(&mut self, space: &Space) -> bool {
        let bounds: Vec<Handle<Expr>> = match space {
            Space::Range(a, b) => vec![*a, *b],
            Space::Range2(r) => r.iter().flat_map(|(a, b)| [*a, *b]).collect(),
            _ => return true,
        };
        for b in bounds {
            if let Some(bad) = self.not_host_computable(b) {
                self.error(
                    Diagnostic::error(self.body.exprs[bad].span, "the bounds of a kernel's sweep must be known before it starts")
                        .label("read from device memory")
                        .note("use kernel arguments, params, constants, `G.num_nodes` and `G.num_edges` (pass other values as kernel arguments)"),
                );
                return false;
            }
        }
        true
    }

    /// The first subexpression of `h` the host could not compute before a launch, if any.
    pub(super) fn not_host_computable(&self, h: Handle<Expr>) -> Option<Handle<Expr>> {
        match &self.body.exprs[h].kind {
            ExprKind::Literal(_) | ExprKind::Param(_) => None,
            ExprKind::Graph(GraphQuery::NumNodes | GraphQuery::NumEdges) => None,
            ExprKind::Local(l) if l.index() < self.param_count => None,
            ExprKind::Unary { arg, .. } | ExprKind::Cast { arg } => self.not_host_computable(*arg),
            ExprKind::Binary { left, right, .. } => {
                self.not_host_computable(*left).or_else(|| self.not_host_computable(*right))
            }
            ExprKind::Math { args, .. } => args.iter().find_map(|&a| self.not_host_computable(a)),
            _ => Some(h),
        }
    }

    pub(super) fn for_loop(&mut self, pat: &ast::Pattern, space: &ast::Space, body: &ast::Block, span: Span) {
        let (start, end, t) = match space {
            ast::Space::Range(a, b) => match self.range(a, b) {
                Some(r) => r,
                None => return,
            },
            ast::Space::Range2(_) => {
                self.error(
                    Diagnostic::error(span, "a sequential `for` takes one range")
                        .label("2-D space")
                        .note("nest two `for` loops, or use `forall`"),
                );
                return;
            }
            ast::Space::Expr(e) => match self.named_space(e) {
                None => return,
                Some(Space::OutEdges(n)) => {
                    let s = self.add(ExprKind::Graph(GraphQuery::FirstEdge(n)), Scalar::Edge, e.span);
                    let t = self.add(ExprKind::Graph(GraphQuery::EndEdge(n)), Scalar::Edge, e.span);
                    (s, t, Scalar::Edge)
                }
                Some(Space::Nodes) => {
                    let s = self.add(ExprKind::Literal(Literal::Int(0)), Scalar::Node, e.span);
                    let n = self.add(ExprKind::Graph(GraphQuery::NumNodes), Scalar::U32, e.span);
                    let t = self.add(ExprKind::Cast { arg: n }, Scalar::Node, e.span);
                    (s, t, Scalar::Node)
                }
                Some(Space::Edges) => {
                    let s = self.add(ExprKind::Literal(Literal::Int(0)), Scalar::Edge, e.span);
                    let n = self.add(ExprKind::Graph(GraphQuery::NumEdges), Scalar::U64, e.span);
                    let t = self.add(ExprKind::Cast { arg: n }, Scalar::Edge, e.span);
                    (s, t, Scalar::Edge)
                }
                Some(_) => {
                    self.error(
                        Diagnostic::error(e.span, "a worklist cannot be iterated by a sequential `for`")
                            .label("a worklist is swept in parallel")
                            .note("sweep it with a kernel whose body is `forall x in <worklist> { ... }`"),
                    );
                    return;
                }
            },
        };
        self.scopes.push(Vec::new());
        let vars = self.bind_pattern(pat, &[t], span);
        self.loops.push(LoopKind::Serial);
        let b = self.block(body);
        self.loops.pop();
        self.scopes.pop();
        if let Some(vars) = vars {
            self.emit(StmtKind::For { var: vars[0], start, end, body: b }, span);
        }
    }

    pub(super) fn forall(&mut self, pat: &ast::Pattern, space: &ast::Space, body: &ast::Block, span: Span) {
        match self.ctx {
            Context::Plan => {
                self.error(
                    Diagnostic::error(span, "`forall` is only allowed in a kernel")
                        .label("parallel loop in the plan")
                        .note("write the loop in a `kernel` and launch it from the plan"),
                );
                return;
            }
            Context::Function(_) => {
                self.error(
                    Diagnostic::error(span, "`forall` is not allowed in a device function")
                        .label("a function runs inside one thread")
                        .note("use a sequential `for`, or move the loop into a kernel"),
                );
                return;
            }
            Context::Kernel(_) => {}
        }
        if self.loops.last() == Some(&LoopKind::Serial) {
            self.error(
                Diagnostic::error(span, "`forall` inside a sequential loop is not supported").label("nested in a loop"),
            );
            return;
        }
        let (sp, tys) = match space {
            ast::Space::Range(..) | ast::Space::Range2(..) => match self.range_space(space) {
                Some(r) => r,
                None => return,
            },
            ast::Space::Expr(e) => {
                let Some(sp) = self.named_space(e) else { return };
                let tys = match &sp {
                    Space::Nodes => vec![Scalar::Node],
                    Space::Edges | Space::OutEdges(_) => vec![Scalar::Edge],
                    // `forall (i, x) in wl`: also the item's position in the worklist's current contents.
                    Space::Worklist(w) if matches!(pat, ast::Pattern::Two(..)) => {
                        vec![Scalar::U64, self.sema.module.worklists[*w].elem]
                    }
                    Space::Worklist(w) => vec![self.sema.module.worklists[*w].elem],
                    _ => unreachable!("named spaces"),
                };
                (sp, tys)
            }
        };
        if self.foralls == 0 && !self.sweep_bounds_known(&sp) {
            return;
        }
        if self.foralls > 0 && matches!(sp, Space::Nodes | Space::Edges | Space::Worklist(_)) {
            self.error(
                Diagnostic::error(span, "a nested `forall` can only cover `G.edges(n)` or a range")
                    .label("a whole-graph sweep inside another sweep")
                    .note("launch a second kernel instead"),
            );
            return;
        }
        self.scopes.push(Vec::new());
        let vars = self.bind_pattern(pat, &tys, span);
        self.loops.push(LoopKind::Parallel);
        if self.foralls == 0 {
            self.sweep_worklist = match sp {
                Space::Worklist(w) => Some(w),
                _ => None,
            };
        }
        self.foralls += 1;
        let b = self.block(body);
        self.foralls -= 1;
        self.loops.pop();
        self.scopes.pop();
        if let Some(vars) = vars {
            self.emit_device(
                DeviceOp::ForAll {
                    vars,
                    space: sp,
                    body: Op::device_block(b),
                    schedule: crate::ir::Schedule::Thread,
                    combine: Vec::new(),
                    unroll: 1,
                    interleave: 1,
                    stops: false,
                },
                span,
            );
        }
    }

    pub(super) fn for_tile(
        &mut self,
        tile: &ast::Pattern,
        tiles: &ast::Space,
        thread: &ast::Pattern,
        threads: &ast::Space,
        body: &ast::Block,
        span: Span,
    ) {
        if !matches!(self.ctx, Context::Kernel(_)) || self.foralls > 0 || !self.loops.is_empty() {
            self.error(
                Diagnostic::error(span, "`forall tile` must be the body of a kernel")
                    .label("misplaced tiled loop")
                    .note("a tiled loop launches thread blocks: it is a kernel's whole body"),
            );
            return;
        }
        let (tile_space, tile_tys) = match tiles {
            ast::Space::Range(..) | ast::Space::Range2(..) => match self.range_space(tiles) {
                Some(r) => r,
                None => return,
            },
            ast::Space::Expr(e) => {
                self.error(
                    Diagnostic::error(e.span, "tiles are numbered by ranges")
                        .label("expected `a..b` or `(a..b, c..d)`"),
                );
                return;
            }
        };
        if !self.sweep_bounds_known(&tile_space) {
            return;
        }
        let ranges: Vec<(&ast::Expr, &ast::Expr)> = match threads {
            ast::Space::Range(a, b) => vec![(a, b)],
            ast::Space::Range2([(a, b), (c, d)]) => vec![(a, b), (c, d)],
            ast::Space::Expr(e) => {
                self.error(
                    Diagnostic::error(e.span, "the thread shape must be `0..N` or `(0..N, 0..M)`")
                        .label("expected constant ranges"),
                );
                return;
            }
        };
        let mut shape = Vec::new();
        for (a, b) in ranges {
            let start = consts::eval(a, Scalar::U32, &self.sema.consts);
            let end = consts::eval(b, Scalar::U32, &self.sema.consts);
            match (start, end) {
                (Ok(Literal::Int(0)), Ok(Literal::Int(n))) if n > 0 => shape.push(n as u32),
                (Ok(_), Ok(_)) => {
                    self.error(
                        Diagnostic::error(a.span.to(b.span), "a thread range must be `0..N` with N > 0")
                            .label("bad thread range"),
                    );
                    return;
                }
                (Err(d), _) | (_, Err(d)) => {
                    self.error(d.note("the thread shape of a tile is fixed at compile time"));
                    return;
                }
            }
        }
        let total: u64 = shape.iter().map(|&s| s as u64).product();
        if total > 1024 {
            self.error(
                Diagnostic::error(threads_span(threads), format!("a tile of {total} threads is too large"))
                    .label("at most 1024 threads per tile"),
            );
            return;
        }
        self.scopes.push(Vec::new());
        let tile_vars = self.bind_pattern(tile, &tile_tys, span);
        let thread_vars = self.bind_pattern(thread, &vec![Scalar::U32; shape.len()], span);
        self.loops.push(LoopKind::Parallel);
        self.foralls += 1;
        self.in_tile = true;
        let b = self.block(body);
        self.in_tile = false;
        self.foralls -= 1;
        self.loops.pop();
        self.scopes.pop();
        if let (Some(tile_vars), Some(thread_vars)) = (tile_vars, thread_vars) {
            self.emit_device(
                DeviceOp::ForTile {
                    tile_vars,
                    tiles: tile_space,
                    thread_vars,
                    threads: shape,
                    body: Op::device_block(b),
                },
                span,
            );
        }
    }
}

fn threads_span(s: &ast::Space) -> Span {
    match s {
        ast::Space::Range(a, b) => a.span.to(b.span),
        ast::Space::Range2([(a, _), (_, d)]) => a.span.to(d.span),
        ast::Space::Expr(e) => e.span,
    }
}
