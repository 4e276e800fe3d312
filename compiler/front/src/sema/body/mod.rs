//! Lowering one body — a device function, a kernel or the plan — from AST to IR, resolving names and checking
//! types as it goes.
//!
//! Expressions are lowered with an optional expected type, which is how unsuffixed literals and `inf` get theirs
//! (`level[v] == inf` makes `inf` a `u32` because `level` holds `u32`). Effects inside expressions (atomics, calls,
//! reducing kernel invocations) become statements emitted just before the statement that uses them, with the
//! result in a fresh local; `&&`/`||` keep short-circuit order by turning an effectful right side into an `if`.
//!
//! The lowerer is split by job: this file holds its state and the helpers every part uses; `expr`, `call`,
//! `stmt`, `parallel` and `output` hold the rest.

mod call;
mod expr;
mod output;
mod parallel;
mod stmt;

use super::consts;
use super::place::Place;
use super::types::{self, float_in_range, float_literal, int_fits, int_literal, int_value};
use super::{Sema, Symbol};
use crate::diag::Diagnostic;
use crate::ir::{
    self, Arg, ArrayRef, AtomicOp, BinaryOp, Block, Body, Check, Cooperation, DeviceOp, Expr, ExprKind, GlobalKind,
    GraphQuery, Handle, Literal, Local, LocalType, MathFn, PlanOp, ReduceOp, Scalar, Space, Statement, StmtKind,
    UnaryOp,
};
use crate::span::{Ident, Span};
use crate::syntax::ast::{self, ExprKind as AK, StmtKind as SK};

/// Which kind of body is being lowered; decides which constructs are allowed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Context {
    Plan,
    Kernel(Option<(ReduceOp, Scalar)>),
    Function(Option<Scalar>),
}

#[derive(Clone, Copy, Debug)]
enum Binding {
    Local {
        h: Handle<Local>,
        mutable: bool,
    },
    ArrayParam(Handle<Local>),
    Shared(Handle<ir::SharedArray>),
    /// A declaration that failed: uses are dropped silently.
    Poisoned,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum LoopKind {
    /// `while`, `loop`, `repeat`, `for`, `pipe`: `break`/`continue` allowed.
    Serial,
    /// A `forall` body: a boundary `break`/`continue` cannot cross.
    Parallel,
}

const MATH_FNS: &[&str] = &["min", "max", "abs", "ctz", "clz", "popcount", "sqrt", "random", "select"];
const ATOMICS: &[(&str, AtomicOp)] = &[
    ("atomic_add", AtomicOp::Add),
    ("atomic_sub", AtomicOp::Sub),
    ("atomic_min", AtomicOp::Min),
    ("atomic_max", AtomicOp::Max),
    ("atomic_and", AtomicOp::And),
    ("atomic_or", AtomicOp::Or),
    ("atomic_xor", AtomicOp::Xor),
    ("atomic_exch", AtomicOp::Exchange),
    ("atomic_cas", AtomicOp::CompareExchange),
];
const GRAPH_FIELDS: &str = "num_nodes, num_edges, nodes, edges";
const GRAPH_METHODS: &str = "src, dst, weight, degree, first_edge, end_edge, edges";

pub(crate) struct BodyLowerer<'s, Op: Place> {
    pub(crate) sema: &'s mut Sema,
    body: Body<Op>,
    ctx: Context,
    scopes: Vec<Vec<(String, Binding)>>,
    blocks: Vec<Block<Op>>,
    loops: Vec<LoopKind>,
    /// Depth of `forall` nesting.
    foralls: u32,
    in_tile: bool,
    temps: u32,
    /// Locals whose initialiser failed to type-check: their uses are dropped without further errors.
    poisoned: Vec<Handle<Local>>,
    /// The worklist the kernel's sweep covers, if it is a worklist sweep (where `retry` is allowed).
    sweep_worklist: Option<Handle<ir::Worklist>>,
    /// The kernel declared a reduction that failed to resolve (already reported): `reduce` is not checked.
    bad_reduction: bool,
    /// How many of the body's first locals are parameters.
    param_count: usize,
}

/// Whether an expression takes its type from context (unsuffixed literals, `inf`).
fn flexible(e: &ast::Expr) -> bool {
    match &e.kind {
        AK::Int(t) => int_literal(t).map(|(_, s)| s.is_none()).unwrap_or(true),
        AK::Float(t) => float_literal(t).map(|(_, s)| s.is_none()).unwrap_or(true),
        AK::Inf => true,
        AK::Unary(UnaryOp::Neg, inner) => flexible(inner),
        _ => false,
    }
}

/// Whether evaluating the expression has effects (atomics, function calls, kernel launches).
fn has_effects(e: &ast::Expr) -> bool {
    match &e.kind {
        AK::Call(name, args) => !MATH_FNS.contains(&name.node.as_str()) || args.iter().any(has_effects),
        AK::Method(base, _, args) => has_effects(base) || args.iter().any(has_effects),
        AK::Index(base, idx) => has_effects(base) || idx.iter().any(has_effects),
        AK::Field(base, _) => has_effects(base),
        AK::Unary(_, a) | AK::Cast(a, _) => has_effects(a),
        AK::Binary(_, a, b) => has_effects(a) || has_effects(b),
        _ => false,
    }
}

/// Whether a block always ends in `return` (for functions with a result).
fn always_returns<Op: Place>(block: &Block<Op>) -> bool {
    fn breaks<Op>(block: &Block<Op>) -> bool {
        block.iter().any(|s| match &s.kind {
            StmtKind::Break => true,
            StmtKind::If { then, otherwise, .. } => breaks(then) || breaks(otherwise),
            _ => false,
        })
    }
    match block.last().map(|s| &s.kind) {
        Some(StmtKind::Op(op)) => op.is_return(),
        Some(StmtKind::If { then, otherwise, .. }) => always_returns(then) && always_returns(otherwise),
        Some(StmtKind::Loop { body, break_if: None, .. }) => !breaks(body),
        _ => false,
    }
}

/// Levenshtein distance, for "did you mean" hints.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            cur.push((prev[j] + usize::from(ca != *cb)).min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

impl<'s, Op: Place> BodyLowerer<'s, Op> {
    /// Starts (or resumes) lowering `body`; statements already in its block are kept and appended to.
    pub(crate) fn new(sema: &'s mut Sema, mut body: Body<Op>, ctx: Context) -> Self {
        let block = std::mem::take(&mut body.block);
        BodyLowerer {
            sema,
            body,
            ctx,
            scopes: vec![Vec::new()],
            blocks: vec![block],
            loops: Vec::new(),
            foralls: 0,
            in_tile: false,
            temps: 0,
            poisoned: Vec::new(),
            sweep_worklist: None,
            bad_reduction: false,
            param_count: 0,
        }
    }

    // ---- entry points ----

    pub(crate) fn lower_fn(mut self, name: &str, params: &[Ident], block: &ast::Block) -> Body<Op> {
        self.bind_params(name, params);
        self.stmts(&block.stmts);
        let ir_block = self.blocks.pop().unwrap_or_default();
        if let Context::Function(Some(ret)) = self.ctx {
            if !always_returns(&ir_block) {
                let end = Span { start: block.span.end.saturating_sub(1), ..block.span };
                self.error(
                    Diagnostic::error(end, format!("this function must return a {ret} on every path"))
                        .label("control reaches the end without `return`")
                        .cascading(),
                );
            }
        }
        self.body.block = ir_block;
        self.body
    }

    pub(crate) fn lower_kernel(mut self, params: &[Ident], block: &ast::Block, kernel: &Ident) -> Body<Op> {
        let name = kernel.span;
        self.bad_reduction =
            self.sema.bad_signatures.contains(&kernel.node) && matches!(self.ctx, Context::Kernel(None));
        self.bind_params(&kernel.node, params);
        let sweeps = block.stmts.iter().filter(|s| matches!(s.kind, SK::ForAll { .. } | SK::ForTile(_))).count();
        let others = block.stmts.iter().find(|s| !matches!(s.kind, SK::ForAll { .. } | SK::ForTile(_) | SK::Error));
        if let Some(other) = others {
            self.error(
                Diagnostic::error(other.span, "a kernel's body must be a single `forall`")
                    .label("statement outside the kernel's `forall`")
                    .note("a kernel is one parallel sweep: move this inside the `forall`, or into another kernel"),
            );
        } else if sweeps == 0 && !block.stmts.iter().any(|s| matches!(s.kind, SK::Error)) {
            self.error(
                Diagnostic::error(name, "this kernel has no `forall`")
                    .label("kernel without a parallel sweep")
                    .note("write e.g. `forall v in G.nodes { ... }`")
                    .cascading(),
            );
        } else if sweeps > 1 {
            self.error(
                Diagnostic::error(block.stmts[1].span, "a kernel's body must be a single `forall`")
                    .label("second sweep")
                    .note("each sweep needs all threads to finish the one before it: put it in a kernel of its own"),
            );
        }
        self.stmts(&block.stmts);
        self.body.block = self.blocks.pop().unwrap_or_default();
        self.body
    }

    /// `merge from -> into { body }`: both names node arrays of one element type; the block is plan code in a
    /// scope of its own (the plan's locals are not visible: it runs after the plan, on another device's data).
    pub(crate) fn lower_merge(
        &mut self,
        from: &Ident,
        into: &Ident,
        body: &ast::Block,
    ) -> Option<(Handle<ir::Global>, Handle<ir::Global>, Block<Op>)> {
        let array = |lw: &mut Self, name: &Ident| -> Option<Handle<ir::Global>> {
            match lw.lookup_global(name)? {
                Symbol::Global(g) if lw.sema.module.globals[g].kind == GlobalKind::Node => Some(g),
                other => {
                    lw.error(
                        Diagnostic::error(
                            name.span,
                            format!("`{}` is {}, not a node array", name.node, other.describe()),
                        )
                        .label("a merge moves a node array from one device to another"),
                    );
                    None
                }
            }
        };
        let (f, i) = (array(self, from), array(self, into));
        let (f, i) = (f?, i?);
        let (fe, ie) = (self.sema.module.globals[f].elem, self.sema.module.globals[i].elem);
        if f == i || fe != ie {
            let why = if f == i { "the partner's array needs an array of its own" } else { "their elements differ" };
            self.error(
                Diagnostic::error(into.span, format!("cannot merge `{}` into `{}`: {why}", from.node, into.node))
                    .label(format!("declare `node {}: {fe};`", if f == i { "theirs" } else { into.node.as_str() })),
            );
            return None;
        }
        let saved = std::mem::replace(&mut self.scopes, vec![Vec::new()]);
        let block = self.block(body);
        self.scopes = saved;
        Some((f, i, block))
    }

    pub(crate) fn lower_plan(&mut self, block: &ast::Block) {
        self.stmts(&block.stmts);
    }

    pub(crate) fn finish(mut self) -> Body<Op> {
        self.body.block = self.blocks.pop().unwrap_or_default();
        self.body
    }

    fn error(&mut self, d: Diagnostic) {
        self.sema.diags.push(d);
    }

    fn bind_params(&mut self, item: &str, params: &[Ident]) {
        let locals: Vec<(Handle<Local>, LocalType)> = self.body.locals.iter().map(|(h, l)| (h, l.ty)).collect();
        self.param_count = locals.len();
        for (i, (name, (h, ty))) in params.iter().zip(locals).enumerate() {
            if self.scopes[0].iter().any(|(n, _)| *n == name.node) {
                self.error(
                    Diagnostic::error(name.span, format!("parameter `{}` is declared twice", name.node))
                        .label("duplicate parameter"),
                );
                continue;
            }
            let b = match ty {
                _ if self.sema.bad_params.contains(&(item.to_string(), i)) => Binding::Poisoned,
                LocalType::Scalar(_) => Binding::Local { h, mutable: false },
                LocalType::ArrayRef(_) => Binding::ArrayParam(h),
            };
            self.scopes[0].push((name.node.clone(), b));
        }
    }

    fn emit(&mut self, kind: StmtKind<Op>, span: Span) {
        self.blocks.last_mut().expect("a block is open").push(Statement { kind, span });
    }

    /// Emits an operation only kernels and functions have; in the plan, says so instead.
    fn emit_device(&mut self, op: DeviceOp, span: Span) {
        match Op::device(op) {
            Some(op) => self.emit(StmtKind::Op(op), span),
            None => self.error(
                Diagnostic::error(span, "this statement is only allowed in kernels and functions")
                    .label("device code, not host code"),
            ),
        }
    }

    /// Emits an operation only the plan has; in device code, says so instead.
    fn emit_plan(&mut self, op: PlanOp, span: Span) {
        match Op::plan(op) {
            Some(op) => self.emit(StmtKind::Op(op), span),
            None => self.error(
                Diagnostic::error(span, "this statement is only allowed in the plan")
                    .label("the plan decides which kernels run; kernels cannot"),
            ),
        }
    }

    fn add(&mut self, kind: ExprKind, ty: Scalar, span: Span) -> Handle<Expr> {
        self.body.exprs.append(Expr { kind, ty, span })
    }

    fn new_local(&mut self, name: &str, ty: Scalar, span: Span) -> Handle<Local> {
        self.body.locals.append(Local { name: name.to_string(), ty: LocalType::Scalar(ty), span })
    }

    fn temp(&mut self, ty: Scalar, span: Span) -> Handle<Local> {
        self.temps += 1;
        let name = format!("tmp{}", self.temps);
        self.new_local(&name, ty, span)
    }

    fn bind(&mut self, name: &Ident, b: Binding) {
        self.scopes.last_mut().expect("a scope is open").push((name.node.clone(), b));
    }

    fn lookup_local(&self, name: &str) -> Option<Binding> {
        self.scopes.iter().rev().flat_map(|s| s.iter().rev()).find(|(n, _)| n == name).map(|(_, b)| *b)
    }

    /// Runs `f` in a new block and scope, returning the statements it emitted.
    fn block_with(&mut self, f: impl FnOnce(&mut Self)) -> Block<Op> {
        self.blocks.push(Vec::new());
        self.scopes.push(Vec::new());
        f(self);
        self.scopes.pop();
        self.blocks.pop().unwrap_or_default()
    }

    fn block(&mut self, b: &ast::Block) -> Block<Op> {
        self.block_with(|lw| lw.stmts(&b.stmts))
    }

    fn unknown_name(&mut self, name: &str, span: Span) {
        let mut candidates: Vec<&str> = self.sema.symbols.keys().map(String::as_str).collect();
        let locals: Vec<String> = self.scopes.iter().flat_map(|s| s.iter().map(|(n, _)| n.clone())).collect();
        candidates.extend(locals.iter().map(String::as_str));
        let best = candidates
            .iter()
            .map(|c| (distance(name, c), *c))
            .filter(|(d, c)| *d <= 2 && *d < name.len().max(c.len()))
            .min();
        let mut d =
            Diagnostic::error(span, format!("cannot find `{name}` in this scope")).label("not found").cascading();
        if let Some((_, c)) = best {
            d = d.note(format!("a similar name exists: `{c}`"));
        } else if name == "G" || name == "g" {
            d = d.note("declare the input graph first, e.g. `graph G;`");
        }
        self.error(d);
    }

    fn lookup_global(&mut self, name: &Ident) -> Option<Symbol> {
        match self.sema.symbols.get(&name.node) {
            Some((sym, _)) => Some(*sym),
            None => {
                self.unknown_name(&name.node, name.span);
                None
            }
        }
    }

    fn mismatch(&mut self, span: Span, want: Scalar, found: Scalar) {
        let mut d = Diagnostic::error(span, format!("mismatched types: expected {want}, found {found}"))
            .label(format!("expected {want}, found {found}"));
        if (want.is_id() || found.is_id() || want.is_numeric()) && found != Scalar::Bool && want != Scalar::Bool {
            d = d.note(format!("convert explicitly with `as {want}`"));
        }
        self.error(d);
    }

    fn ty(&self, h: Handle<Expr>) -> Scalar {
        self.body.exprs[h].ty
    }

    fn is_device(&self) -> bool {
        !matches!(self.ctx, Context::Plan)
    }

    // ---- expressions ----
}

/// "1 argument", "2 arguments".
fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// "1 was", "3 were".
fn was(n: usize) -> String {
    if n == 1 {
        "1 was".to_string()
    } else {
        format!("{n} were")
    }
}
