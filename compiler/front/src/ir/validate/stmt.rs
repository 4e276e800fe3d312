//! Invariants 3 and 4 for statements: loops and `break`, `return` types, where parallel loops, barriers and
//! reductions may stand, and the operand types of every statement. Device and plan operations are different
//! types, so neither can appear in the other's place; [`ValidateOp`] checks each place's own operations.

use super::*;

/// Checks the operations of one place (device code or the plan); control flow is checked the same for both.
pub(super) trait ValidateOp: Sized {
    fn validate(&self, v: &mut Validator<'_>, body: BodyView<'_>, at: Where, span: Span, scope: Scope);
}

impl ValidateOp for DeviceOp {
    fn validate(&self, v: &mut Validator<'_>, body: BodyView<'_>, at: Where, span: Span, scope: Scope) {
        v.device_op(body, at, self, span, scope)
    }
}

impl ValidateOp for PlanOp {
    fn validate(&self, v: &mut Validator<'_>, body: BodyView<'_>, at: Where, span: Span, scope: Scope) {
        v.plan_op(body, at, self, span, scope)
    }
}

impl Validator<'_> {
    pub(super) fn block<Op: ValidateOp>(&mut self, body: BodyView<'_>, at: Where, block: &Block<Op>, scope: Scope) {
        for s in block {
            self.stmt(body, at, s, scope);
        }
    }

    pub(super) fn stmt<Op: ValidateOp>(&mut self, body: BodyView<'_>, at: Where, s: &Statement<Op>, scope: Scope) {
        let span = s.span;
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
            StmtKind::If { cond, then, otherwise } => {
                self.cond(body, *cond, span);
                self.block(body, at, then, scope);
                self.block(body, at, otherwise, scope);
            }
            StmtKind::Loop { body: b, continuing, break_if } => {
                let inner = Scope { in_loop: true, in_serial_loop: true, uniform: false, ..scope };
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
                self.block(body, at, b, Scope { in_loop: true, in_serial_loop: true, uniform: false, ..scope });
            }
            StmtKind::Break | StmtKind::Continue => {
                if !scope.in_loop {
                    self.err(span, "break or continue outside a loop");
                }
            }
            StmtKind::Op(op) => op.validate(self, body, at, span, scope),
        }
    }

    /// What only kernels and functions do.
    pub(super) fn device_op(&mut self, body: BodyView<'_>, at: Where, op: &DeviceOp, span: Span, scope: Scope) {
        match op {
            DeviceOp::Store { array, index, value } => {
                let elem = self.array_elem(body, *array, index, span);
                let v = self.value(body, *value, span);
                if elem.is_some() && v.is_some() && elem != v {
                    self.err(span, format!("store of {v:?} into an array of {elem:?}"));
                }
            }
            DeviceOp::Atomic { op, array, index, value, compare, result } => {
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
            DeviceOp::Call { function, args, result } => {
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
            DeviceOp::ForAll { vars, space, body: b, schedule, combine, unroll, interleave, stops } => {
                // The sweep stands at the top of a kernel; a nested `forall` anywhere in parallel code (a sweep's
                // body, a device function, their serial loops).
                let nested = scope.in_forall || matches!(at, Where::Function(_));
                if !nested && (!matches!(at, Where::Kernel(_)) || scope.in_serial_loop) {
                    self.err(span, "forall outside a kernel's top level");
                }
                if !nested && (*schedule != Schedule::Thread || !combine.is_empty()) {
                    self.err(span, "a kernel's sweep with a nested loop's schedule or combined locals");
                }
                if schedule.is_block() && (!scope.uniform || !matches!(at, Where::Kernel(_))) {
                    self.err(span, "a block-scheduled loop at a point not every thread of the block reaches");
                }
                // The fine level deals iterations out to other threads with no way back for partial results.
                if *schedule == Schedule::Fine && !combine.is_empty() {
                    self.err(span, "a `fine` loop with combined locals (its short ranges would lose their partials)");
                }
                // Unrolling applies to the strides that several threads share, so only to a scheduled loop.
                if *unroll != 1 && !LOOP_FACTORS.contains(unroll) {
                    self.err(span, format!("unroll {unroll}: a loop is unrolled by 1, 2, 4 or 8"));
                } else if *unroll != 1 && *schedule == Schedule::Thread {
                    self.err(span, format!("unroll {unroll} on a loop scheduled `thread`, which no threads share"));
                }
                // Interleaving runs iterations of one range at once in a thread: only a nested loop over a range.
                if *interleave != 1 && !LOOP_FACTORS.contains(interleave) {
                    self.err(span, format!("interleave {interleave}: a loop is interleaved by 1, 2, 4 or 8"));
                } else if *interleave != 1 && (!nested || vars.len() != 1 || !space.is_range()) {
                    self.err(span, format!("interleave {interleave} on a loop that is not a nested loop over a range"));
                }
                self.space(body, space, vars, span);
                for c in combine {
                    self.combined(body, *c, vars, b, span);
                }
                // Stopping early skips iterations: only where they would change nothing but the saturated flags.
                // (Calls are the pass's to judge: whether a callee writes is not visible here.)
                if *stops {
                    let flags = !combine.is_empty()
                        && combine.iter().all(|c| {
                            matches!(c.op, CombineOp::Or | CombineOp::And)
                                && body.locals[c.local].ty == LocalType::Scalar(Scalar::Bool)
                        });
                    let mut writes = false;
                    for s in b {
                        s.visit(&mut |s| writes |= matches!(&s.kind, StmtKind::Op(op) if op.writes_or_waits()));
                    }
                    if !flags || writes {
                        self.err(span, "a loop that stops early but combines other than found flags, or writes");
                    }
                }
                // Inside the sweep, only `if`s keep a point uniform; a nested loop's body is not.
                let uniform = !nested;
                let in_nested = scope.in_nested || nested;
                self.block(body, at, b, Scope { in_loop: false, in_forall: true, uniform, in_nested, ..scope });
            }
            DeviceOp::ForTile { tile_vars, tiles, thread_vars, threads, body: b } => {
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
            DeviceOp::Return(v) => match at {
                Where::Function(ret) => {
                    let got = v.and_then(|v| self.value(body, v, span));
                    if got != ret {
                        self.err(span, format!("return of {got:?} from a function returning {ret:?}"));
                    }
                }
                _ => self.err(span, "return outside a function"),
            },
            DeviceOp::Push { worklist, value, .. } | DeviceOp::Retry { worklist, value, .. } => {
                self.worklist_item(body, *worklist, *value, span);
            }
            DeviceOp::Reduce { value } => match at {
                Where::Kernel(Some((_, ty))) => {
                    if self.value(body, *value, span) != Some(ty) {
                        self.err(span, "reduce of the wrong type");
                    }
                }
                _ => self.err(span, "reduce outside a kernel with a reduction"),
            },
            DeviceOp::Barrier => {
                if !scope.in_tile {
                    self.err(span, "barrier outside a tile");
                }
            }
            DeviceOp::Wait => {
                if !matches!(at, Where::Kernel(_)) || !scope.in_forall || scope.in_tile || scope.in_nested {
                    self.err(span, "wait outside the top-level forall sweep of a kernel");
                }
            }
        }
    }

    /// A combined local of a nested loop: a scalar local that is not a loop variable, of a type the operator
    /// takes, which the loop's own statements update only as `x = x op value` and read nowhere else.
    fn combined(&mut self, body: BodyView<'_>, c: Combined, vars: &[Handle<Local>], block: &DeviceBlock, span: Span) {
        let Some(LocalType::Scalar(ty)) = body.locals.get(c.local).map(|l| l.ty) else {
            self.err(span, "a combined local that is missing or not a scalar");
            return;
        };
        if !c.op.takes(ty) || vars.contains(&c.local) {
            self.err(span, format!("local {} combined by {} in a nested loop", body.locals[c.local].name, c.op.name()));
        }
        let ok = match walk::combine_use(body.exprs, block, c.local) {
            walk::CombineUse::Unused => true,
            walk::CombineUse::By(op) => op == c.op,
            walk::CombineUse::Other => false,
        };
        if !ok {
            let name = &body.locals[c.local].name;
            self.err(span, format!("combined local {name} is used in the loop other than as `{name} = {name} op v`"));
        }
    }

    /// What only the plan does.
    pub(super) fn plan_op(&mut self, body: BodyView<'_>, at: Where, op: &PlanOp, span: Span, scope: Scope) {
        match op {
            PlanOp::Store { global, index, value } => {
                let elem = self.array_elem(body, ArrayRef::Global(*global), index, span);
                let v = self.value(body, *value, span);
                if elem.is_some() && v.is_some() && elem != v {
                    self.err(span, format!("store of {v:?} into an array of {elem:?}"));
                }
            }
            PlanOp::Invoke { kernel, args, result } => {
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
            PlanOp::Pipe { worklist, body: b } => {
                if !self.m.worklists.contains(*worklist) {
                    self.err(span, "pipe over a missing worklist");
                }
                self.block(body, at, b, Scope { in_loop: true, ..scope });
            }
            PlanOp::Hybrid { worklist, threshold, dense, sparse } => {
                if !self.m.worklists.contains(*worklist) {
                    self.err(span, "hybrid over a missing worklist");
                }
                if threshold.is_some_and(|t| self.value(body, t, span) != Some(Scalar::F64)) {
                    self.err(span, "hybrid threshold must be f64");
                }
                self.block(body, at, dense, scope);
                self.block(body, at, sparse, scope);
            }
            PlanOp::Fill { global, value } => {
                let elem = self.m.globals.get(*global).map(|g| g.elem);
                if elem.is_none() || elem != self.value(body, *value, span) {
                    self.err(span, "fill of a missing global or with the wrong type");
                }
            }
            PlanOp::Clear { worklist } => {
                if !self.m.worklists.contains(*worklist) {
                    self.err(span, "clear of a missing worklist");
                }
            }
            PlanOp::Contract { label } => match self.m.globals.get(*label) {
                Some(g) if g.kind == GlobalKind::Node && g.elem == Scalar::Node => {}
                _ => self.err(span, "contract by something that is not a node array of nodes"),
            },
            PlanOp::Print { items } => {
                if items.is_empty() {
                    self.err(span, "print of nothing");
                }
                for (_, e) in items {
                    self.value(body, *e, span);
                }
            }
            PlanOp::Outlined(o) => self.outlined(body, at, o, span, scope),
            PlanOp::HostPush { worklist, value } => {
                self.worklist_item(body, *worklist, *value, span);
            }
        }
    }

    /// An outlined pipe or loop: numbered in plan order, holding only launches, assignments, `if`s, `hybrid`
    /// switches over the pipe's own worklist and (loops only, at the top) `if cond { break }` exits. Whether the GPU can compute its values is the outlining pass's judgement.
    fn outlined(&mut self, body: BodyView<'_>, at: Where, o: &OutlinedLoop, span: Span, scope: Scope) {
        if o.index != self.outlined_seen {
            self.err(span, format!("outlined loop #{} where #{} was expected", o.index, self.outlined_seen));
        }
        self.outlined_seen += 1;
        if let Some(w) = o.worklist {
            if !self.m.worklists.contains(w) {
                self.err(span, "outlined pipe over a missing worklist");
            }
            if o.break_if.is_some() {
                self.err(span, "outlined pipe with a break_if");
            }
        }
        if let Some(c) = o.break_if {
            self.cond(body, c, span);
        }
        self.outlined_block(o, &o.body, true);
        self.block(body, at, &o.body, Scope { in_loop: true, ..scope });
    }

    /// The statements of an outlined body (`top`) or of a branch inside it.
    fn outlined_block(&mut self, o: &OutlinedLoop, block: &PlanBlock, top: bool) {
        for s in block {
            let allowed = match &s.kind {
                StmtKind::Assign { .. } | StmtKind::Op(PlanOp::Invoke { .. }) => true,
                StmtKind::If { .. } if s.as_exit().is_some() => top && o.worklist.is_none(),
                StmtKind::If { then, otherwise, .. } => {
                    self.outlined_block(o, then, false);
                    self.outlined_block(o, otherwise, false);
                    true
                }
                StmtKind::Op(PlanOp::Hybrid { worklist, dense, sparse, .. }) => {
                    self.outlined_block(o, dense, false);
                    self.outlined_block(o, sparse, false);
                    o.worklist == Some(*worklist)
                }
                _ => false,
            };
            if !allowed {
                self.err(
                    s.span,
                    "an outlined loop holds a statement other than launches, assignments, branches and exits",
                );
            }
        }
    }

    pub(super) fn worklist_item(&mut self, body: BodyView<'_>, w: Handle<Worklist>, value: Handle<Expr>, span: Span) {
        let elem = self.m.worklists.get(w).map(|w| w.elem);
        if elem.is_none() || elem != self.value(body, value, span) {
            self.err(span, "push to a missing worklist or of the wrong type");
        }
    }
}
