//! Lowering one body — a device function, a kernel or the plan — from AST to IR, resolving names and checking
//! types as it goes.
//!
//! Expressions are lowered with an optional expected type, which is how unsuffixed literals and `inf` get theirs
//! (`level[v] == inf` makes `inf` a `u32` because `level` holds `u32`). Effects inside expressions (atomics, calls,
//! reducing kernel invocations) become statements emitted just before the statement that uses them, with the
//! result in a fresh local; `&&`/`||` keep short-circuit order by turning an effectful right side into an `if`.

use super::consts;
use super::place::Place;
use super::types::{self, float_literal, int_fits, int_literal, int_value};
use super::{Sema, Symbol};
use crate::diag::Diagnostic;
use crate::ir::{
    self, Arg, ArrayRef, AtomicOp, BinaryOp, Block, Body, Check, Cooperation, DeviceOp, Expr, ExprKind, GlobalKind,
    GraphQuery, Handle, Literal, Local, LocalType, MathFn, PlanOp, ReduceOp, Scalar, Space, Statement, StmtKind,
    UnaryOp,
};
use crate::span::{Ident, Span};
use crate::syntax::ast::{self, BinOp, ExprKind as AK, StmtKind as SK, UnOp};

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
        AK::Unary(UnOp::Neg, inner) => flexible(inner),
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

    pub(crate) fn lower_plan(&mut self, block: &ast::Block) {
        self.stmts(&block.stmts);
    }

    pub(crate) fn finish(mut self) -> Body<Op> {
        self.body.block = self.blocks.pop().unwrap_or_default();
        self.body
    }

    pub(crate) fn dims(&mut self, dims: &[ast::Expr]) -> Vec<Handle<Expr>> {
        dims.iter().filter_map(|d| self.expr_of(d, Scalar::U32)).collect()
    }

    pub(crate) fn fill(&mut self, g: Handle<ir::Global>, init: &ast::Expr) {
        let elem = self.sema.module.globals[g].elem;
        if let Some(value) = self.expr_of(init, elem) {
            self.emit_plan(PlanOp::Fill { global: g, value }, init.span);
        }
    }

    pub(crate) fn output(&mut self, o: &ast::OutputDecl) {
        let _ = self.try_output(o);
    }

    fn try_output(&mut self, o: &ast::OutputDecl) -> Option<()> {
        let g = match self.lookup_global(&o.name)? {
            Symbol::Global(g) => g,
            other => {
                self.error(
                    Diagnostic::error(o.name.span, format!("`{}` is {}, not an array", o.name.node, other.describe()))
                        .label("outputs are arrays"),
                );
                return None;
            }
        };
        let (gkind, elem) = {
            let global = &self.sema.module.globals[g];
            (global.kind.clone(), global.elem)
        };
        let check = match &o.check {
            None => None,
            Some((kind, args)) => {
                let want_args = match kind.node.as_str() {
                    "bfs" | "sssp" => 1,
                    "components" | "coloring" | "matching" | "communities" | "apsp" => 0,
                    other => {
                        self.error(
                            Diagnostic::error(kind.span, format!("unknown result kind `{other}`"))
                                .label("`--verify` does not know this")
                                .note("known kinds: bfs(source), sssp(source), components, coloring, matching, communities, apsp"),
                        );
                        return None;
                    }
                };
                if args.len() != want_args {
                    self.error(
                        Diagnostic::error(
                            o.span,
                            format!("`{}` takes {want_args} argument(s), given {}", kind.node, args.len()),
                        )
                        .label("wrong number of arguments"),
                    );
                    return None;
                }
                let is_dense2 = matches!(&gkind, GlobalKind::Dense(d) if d.len() == 2);
                let shape_ok = if kind.node == "apsp" { is_dense2 } else { gkind == GlobalKind::Node };
                if !shape_ok {
                    let want = if kind.node == "apsp" { "a dense n×n array" } else { "a `node` array" };
                    self.error(
                        Diagnostic::error(o.name.span, format!("`{}` results must be {want}", kind.node))
                            .label(format!("`{}` is not", o.name.node)),
                    );
                    return None;
                }
                if matches!(kind.node.as_str(), "coloring" | "components" | "communities")
                    && !(elem.is_int() || elem == Scalar::Node)
                {
                    self.error(Diagnostic::error(
                        o.name.span,
                        format!("`{}` labels must be integers or node ids, not {elem}", kind.node),
                    ));
                    return None;
                }
                if kind.node == "matching" && elem != Scalar::Node {
                    self.error(Diagnostic::error(
                        o.name.span,
                        format!("a matching holds each node's mate (`node`), not {elem}"),
                    ));
                    return None;
                }
                Some(match kind.node.as_str() {
                    "bfs" => Check::Bfs { source: self.expr_of(&args[0], Scalar::Node)? },
                    "sssp" => Check::Sssp { source: self.expr_of(&args[0], Scalar::Node)? },
                    "components" => Check::Components,
                    "coloring" => Check::Coloring,
                    "matching" => Check::Matching,
                    "communities" => Check::Communities,
                    _ => Check::Apsp,
                })
            }
        };
        if let Some(prev) = self.sema.module.outputs.iter().find(|p| p.global == g) {
            let prev = prev.span;
            self.error(
                Diagnostic::error(o.span, format!("`{}` is already an output", o.name.node))
                    .with_secondary(prev, "first listed here"),
            );
            return None;
        }
        self.sema.module.outputs.push(ir::Output { global: g, check, span: o.span });
        Some(())
    }

    // ---- helpers ----

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

    /// Lowers `e`, requiring exactly type `want`.
    fn expr_of(&mut self, e: &ast::Expr, want: Scalar) -> Option<Handle<Expr>> {
        let h = self.expr(e, Some(want))?;
        let got = self.body.exprs[h].ty;
        if got != want {
            self.mismatch(e.span, want, got);
            return None;
        }
        Some(h)
    }

    fn ty(&self, h: Handle<Expr>) -> Scalar {
        self.body.exprs[h].ty
    }

    fn is_device(&self) -> bool {
        !matches!(self.ctx, Context::Plan)
    }

    // ---- expressions ----

    fn expr(&mut self, e: &ast::Expr, expect: Option<Scalar>) -> Option<Handle<Expr>> {
        let span = e.span;
        match &e.kind {
            AK::Error => None,
            AK::Int(_) | AK::Float(_) | AK::Inf => self.literal(e, false, expect, span),
            AK::Unary(UnOp::Neg, inner) if matches!(inner.kind, AK::Int(_) | AK::Float(_)) => {
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
                    UnOp::Neg => (t.is_signed() || t.is_float(), UnaryOp::Neg, "a signed integer or a float"),
                    UnOp::Not => (t == Scalar::Bool, UnaryOp::Not, "bool"),
                    UnOp::BitNot => (t.is_int(), UnaryOp::BitNot, "an integer"),
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
    fn literal(&mut self, e: &ast::Expr, negative: bool, expect: Option<Scalar>, span: Span) -> Option<Handle<Expr>> {
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

    fn name(&mut self, n: &str, span: Span) -> Option<Handle<Expr>> {
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
    fn array_ref(&mut self, base: &ast::Expr) -> Option<ArrayRef> {
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
    fn array_shape(&self, a: ArrayRef) -> (Scalar, Vec<Option<Scalar>>, String) {
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

    fn indices(&mut self, a: ArrayRef, idx: &[ast::Expr], span: Span) -> Option<(Scalar, Vec<Handle<Expr>>)> {
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

    fn index(&mut self, base: &ast::Expr, idx: &[ast::Expr], span: Span) -> Option<Handle<Expr>> {
        let a = self.array_ref(base)?;
        let (elem, index) = self.indices(a, idx, span)?;
        let kind = match (self.ctx, a) {
            (Context::Plan, ArrayRef::Global(global)) => ExprKind::HostLoad { global, index },
            _ => ExprKind::Load { array: a, index },
        };
        Some(self.add(kind, elem, span))
    }

    /// `Some(())` if `base` names the graph; reports otherwise.
    fn is_graph(&mut self, base: &ast::Expr) -> bool {
        if let AK::Name(n) = &base.kind {
            if self.lookup_local(n).is_none() {
                if let Some((Symbol::Graph, _)) = self.sema.symbols.get(n) {
                    return true;
                }
            }
        }
        false
    }

    fn field(&mut self, base: &ast::Expr, field: &Ident, span: Span) -> Option<Handle<Expr>> {
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

    fn arity(&mut self, what: &str, args: &[ast::Expr], want: usize, span: Span) -> bool {
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

    fn method_value(&mut self, base: &ast::Expr, m: &Ident, args: &[ast::Expr], span: Span) -> Option<Handle<Expr>> {
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

    fn worklist_of(&mut self, base: &ast::Expr) -> Option<Handle<ir::Worklist>> {
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

    fn call_value(
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

    fn math(&mut self, name: &str, args: &[ast::Expr], span: Span, expect: Option<Scalar>) -> Option<Handle<Expr>> {
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
    fn atomic(
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
    fn bad_signature(&mut self, name: &str, args: &[ast::Expr]) -> bool {
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

    fn call_fn(
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

    fn invoke(
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
    fn pair(
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

    fn binary(
        &mut self,
        op: BinOp,
        a: &ast::Expr,
        b: &ast::Expr,
        span: Span,
        expect: Option<Scalar>,
    ) -> Option<Handle<Expr>> {
        if matches!(op, BinOp::And | BinOp::Or) {
            let left = self.expr_of(a, Scalar::Bool)?;
            if !has_effects(b) {
                let right = self.expr_of(b, Scalar::Bool)?;
                let irop = if op == BinOp::And { BinaryOp::And } else { BinaryOp::Or };
                return Some(self.add(ExprKind::Binary { op: irop, left, right }, Scalar::Bool, span));
            }
            // Keep short-circuit order: the right side's effects happen only when it is evaluated.
            let t = self.temp(Scalar::Bool, span);
            self.emit(StmtKind::Assign { local: t, value: left }, span);
            let tv = self.add(ExprKind::Local(t), Scalar::Bool, span);
            let cond = if op == BinOp::And {
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
        let is_cmp = matches!(op, BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge);
        let (left, right, t) = self.pair(a, b, if is_cmp { None } else { expect })?;
        let (irop, ok, what) = match op {
            BinOp::Add => (BinaryOp::Add, t.is_numeric(), "numbers"),
            BinOp::Sub => (BinaryOp::Sub, t.is_numeric(), "numbers"),
            BinOp::Mul => (BinaryOp::Mul, t.is_numeric(), "numbers"),
            BinOp::Div => (BinaryOp::Div, t.is_numeric(), "numbers"),
            BinOp::Rem => (BinaryOp::Rem, t.is_numeric(), "numbers"),
            BinOp::BitAnd => (BinaryOp::BitAnd, t.is_int(), "integers"),
            BinOp::BitOr => (BinaryOp::BitOr, t.is_int(), "integers"),
            BinOp::BitXor => (BinaryOp::BitXor, t.is_int(), "integers"),
            BinOp::Shl => (BinaryOp::Shl, t.is_int(), "integers"),
            BinOp::Shr => (BinaryOp::Shr, t.is_int(), "integers"),
            BinOp::Eq => (BinaryOp::Eq, true, ""),
            BinOp::Ne => (BinaryOp::Ne, true, ""),
            BinOp::Lt => (BinaryOp::Lt, t != Scalar::Bool, "numbers or ids"),
            BinOp::Le => (BinaryOp::Le, t != Scalar::Bool, "numbers or ids"),
            BinOp::Gt => (BinaryOp::Gt, t != Scalar::Bool, "numbers or ids"),
            BinOp::Ge => (BinaryOp::Ge, t != Scalar::Bool, "numbers or ids"),
            BinOp::And | BinOp::Or => unreachable!("handled above"),
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

    fn stmts(&mut self, stmts: &[ast::Stmt]) {
        for s in stmts {
            self.stmt(s);
        }
    }

    fn stmt(&mut self, s: &ast::Stmt) {
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
                let Some(t) = self.expr_of(threshold, Scalar::F64) else { return };
                let dense = self.block(dense);
                let sparse = self.block(sparse);
                let (dense, sparse) = (Op::plan_block(dense), Op::plan_block(sparse));
                self.emit_plan(PlanOp::Hybrid { worklist: w, threshold: t, dense, sparse }, span);
            }
        }
    }

    fn plan_only(&mut self, what: &str, span: Span) -> bool {
        if self.is_device() {
            self.error(
                Diagnostic::error(span, format!("`{what}` is only allowed in the plan"))
                    .label("the plan decides which kernels run; kernels cannot"),
            );
            return false;
        }
        true
    }

    fn worklist_named(&mut self, name: &Ident) -> Option<Handle<ir::Worklist>> {
        self.worklist_of(&ast::Expr { kind: AK::Name(name.node.clone()), span: name.span })
    }

    fn ret(&mut self, v: Option<&ast::Expr>, span: Span) {
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

    fn assign(&mut self, place: &ast::Expr, op: Option<BinOp>, value: &ast::Expr, span: Span) {
        let combine = |lw: &mut Self, current: Handle<Expr>, t: Scalar| -> Option<Handle<Expr>> {
            match op {
                None => lw.expr_of(value, t),
                Some(op) => {
                    let fake = ast::Expr { kind: AK::Name(String::new()), span: place.span };
                    let _ = fake;
                    let rhs = lw.expr_of(value, t)?;
                    let irop = match op {
                        BinOp::Add => BinaryOp::Add,
                        BinOp::Sub => BinaryOp::Sub,
                        BinOp::Mul => BinaryOp::Mul,
                        BinOp::Div => BinaryOp::Div,
                        BinOp::Rem => BinaryOp::Rem,
                        BinOp::BitAnd => BinaryOp::BitAnd,
                        BinOp::BitOr => BinaryOp::BitOr,
                        BinOp::BitXor => BinaryOp::BitXor,
                        BinOp::Shl => BinaryOp::Shl,
                        _ => BinaryOp::Shr,
                    };
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

    fn stmt_expr(&mut self, e: &ast::Expr) {
        let span = e.span;
        match &e.kind {
            AK::Error => {}
            AK::Call(f, args) if !MATH_FNS.contains(&f.node.as_str()) => {
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
                    self.no_effect(span);
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

    fn no_effect(&mut self, span: Span) {
        self.error(
            Diagnostic::error(span, "this expression does nothing")
                .label("value computed and thrown away")
                .note("did you mean to assign it, e.g. `let x = ...;`?")
                .cascading(),
        );
    }

    /// Binds loop variables of the given types in the current scope.
    fn bind_pattern(&mut self, pat: &ast::Pattern, tys: &[Scalar], what_span: Span) -> Option<Vec<Handle<Local>>> {
        let names: Vec<&Ident> = match pat {
            ast::Pattern::One(a) => vec![a],
            ast::Pattern::Two(a, b) => vec![a, b],
        };
        if names.len() != tys.len() {
            self.error(
                Diagnostic::error(
                    what_span,
                    format!("this space has {} dimension(s) but the loop binds {}", tys.len(), names.len()),
                )
                .label("pattern and space do not match"),
            );
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

    fn range(&mut self, a: &ast::Expr, b: &ast::Expr) -> Option<(Handle<Expr>, Handle<Expr>, Scalar)> {
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
    fn range_space(&mut self, space: &ast::Space) -> Option<(Space, Vec<Scalar>)> {
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
    fn named_space(&mut self, e: &ast::Expr) -> Option<Space> {
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
    fn sweep_bounds_known(&mut self, space: &Space) -> bool {
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
    fn not_host_computable(&self, h: Handle<Expr>) -> Option<Handle<Expr>> {
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

    fn for_loop(&mut self, pat: &ast::Pattern, space: &ast::Space, body: &ast::Block, span: Span) {
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

    fn forall(&mut self, pat: &ast::Pattern, space: &ast::Space, body: &ast::Block, span: Span) {
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
                let t = match &sp {
                    Space::Nodes => Scalar::Node,
                    Space::Edges | Space::OutEdges(_) => Scalar::Edge,
                    Space::Worklist(w) => self.sema.module.worklists[*w].elem,
                    _ => unreachable!("named spaces"),
                };
                (sp, vec![t])
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
            self.emit_device(DeviceOp::ForAll { vars, space: sp, body: Op::device_block(b) }, span);
        }
    }

    fn for_tile(
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

fn threads_span(s: &ast::Space) -> Span {
    match s {
        ast::Space::Range(a, b) => a.span.to(b.span),
        ast::Space::Range2([(a, _), (_, d)]) => a.span.to(d.span),
        ast::Space::Expr(e) => e.span,
    }
}
