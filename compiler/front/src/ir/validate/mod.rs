//! The IR validator: checks the invariants listed in the [`ir`](crate::ir) module docs.
//!
//! It runs after lowering (sema's last step). A failure is a compiler bug, not a user error,
//! so the messages name IR entities rather than source constructs; each still carries the span it came from.

mod expr;
mod recursion;
mod stmt;

use super::*;
use stmt::ValidateOp;

pub use recursion::recursive_functions;

/// One broken invariant.
#[derive(Clone, Debug, PartialEq)]
pub struct ValidationError {
    pub message: String,
    pub span: Span,
}

/// Checks a module; returns every broken invariant found.
pub fn validate(m: &Module) -> Result<(), Vec<ValidationError>> {
    let mut v = Validator { m, errors: Vec::new(), outlined_seen: 0 };
    v.module();
    if v.errors.is_empty() {
        Ok(())
    } else {
        Err(v.errors)
    }
}

/// Which kind of body is being checked.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Where {
    Plan,
    Kernel(Option<(ReduceOp, Scalar)>),
    Function(Option<Scalar>),
}

/// What encloses the statement being checked.
#[derive(Clone, Copy, Default)]
struct Scope {
    in_loop: bool,
    in_serial_loop: bool,
    in_forall: bool,
    in_tile: bool,
    /// Inside a `forall` nested in the sweep (or in a function): an item of the sweep cannot `wait` here.
    in_nested: bool,
    /// Whether every thread of a block reaches this point together: directly in a kernel's `forall` sweep, or
    /// under `if`s there (where a [`Schedule::Block`] loop may stand).
    uniform: bool,
}

/// The checker's state: the module and the errors found so far.
struct Validator<'a> {
    m: &'a Module,
    errors: Vec<ValidationError>,
    /// Outlined loops met so far, in plan order (their indices must count up from 0).
    outlined_seen: usize,
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
            if let Some(Check::Bfs { source } | Check::Sssp { source } | Check::Bc { source }) = &o.check {
                self.host_constant_expr(*source, o.span);
            }
            if let Some(Check::PageRank { damping, tolerance }) = &o.check {
                self.host_constant_expr(*damping, o.span);
                self.host_constant_expr(*tolerance, o.span);
            }
        }
        for (_, f) in m.functions.iter() {
            self.body(&f.body, Where::Function(f.ret), &f.params, f.span);
        }
        for (_, k) in m.kernels.iter() {
            self.body(&k.body, Where::Kernel(k.reduction), &k.params, k.span);
            if k.waits() {
                self.waiting_kernel(k);
            }
            for &p in &k.params {
                if let Some(LocalType::ArrayRef(_)) = k.body.locals.get(p).map(|l| l.ty) {
                    self.err(k.span, format!("kernel {} takes an array parameter", k.name));
                }
            }
        }
        self.body(&m.plan, Where::Plan, &[], Span::default());
        if let Some(merge) = &m.merge {
            let array = |g| m.globals.get(g).filter(|g| g.kind == GlobalKind::Node).map(|g| g.elem);
            match (array(merge.from), array(merge.into)) {
                (Some(a), Some(b)) if a == b && merge.from != merge.into => {}
                _ => self.err(merge.span, "merge between arrays that are not two node arrays of one element type"),
            }
            let scope = Scope::default();
            self.block(m.plan.view(), Where::Plan, &merge.body, scope);
        }
        self.recursion();
    }

    /// Invariant 7: a kernel whose sweep waits is a `forall` over a space (not tiles), has no reduction, does not
    /// retry, and holds no `block`-scheduled loop (its threads run their items again independently, so no
    /// block-wide barrier is reached by all of them).
    fn waiting_kernel(&mut self, k: &crate::ir::Kernel) {
        if !matches!(k.sweep(), Some(crate::ir::DeviceOp::ForAll { .. })) {
            self.err(k.span, format!("kernel {} waits outside a `forall` sweep", k.name));
        }
        if k.reduction.is_some() {
            self.err(k.span, format!("kernel {} waits and reduces", k.name));
        }
        let (mut retries, mut block) = (false, false);
        for s in &k.body.block {
            s.visit(&mut |s| match &s.kind {
                StmtKind::Op(crate::ir::DeviceOp::Retry { .. }) => retries = true,
                StmtKind::Op(crate::ir::DeviceOp::ForAll { schedule, .. }) if schedule.is_block() => block = true,
                _ => {}
            });
        }
        if retries {
            self.err(k.span, format!("kernel {} waits and retries", k.name));
        }
        if block {
            self.err(k.span, format!("kernel {} waits and holds a block-scheduled loop", k.name));
        }
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

    fn body<Op: ValidateOp>(&mut self, body: &Body<Op>, at: Where, params: &[Handle<Local>], span: Span) {
        for (i, &p) in params.iter().enumerate() {
            if p.index() != i {
                self.err(span, "parameters must be the first locals of the body");
            }
        }
        for (h, e) in body.exprs.iter() {
            self.expr(body.view(), at, h, e);
        }
        if !matches!(at, Where::Kernel(_)) && !body.shared.is_empty() {
            self.err(span, "shared arrays outside a kernel");
        }
        let scope = Scope::default();
        self.block(body.view(), at, &body.block, scope);
    }

    /// Invariant 5: the call graph of device functions is acyclic.
    fn recursion(&mut self) {
        for f in recursive_functions(self.m) {
            let f = &self.m.functions[f];
            self.err(f.span, format!("function {} is recursive", f.name));
        }
    }
}
