//! Semantic analysis: from the ASTs of a program and its imports to a validated IR [`Module`].
//!
//! Two passes. [`declare`](Sema::declare) walks the items of every file, evaluates constants, and gives every
//! program-wide entity (param, global, worklist, function, kernel) its IR handle and signature, so bodies can refer
//! to anything regardless of order. Then each body (functions, kernels, the plan) is lowered by
//! [`body::BodyLowerer`], which resolves names, checks types and emits IR in one walk. Errors are collected, never
//! thrown: lowering continues past a bad construct so one run reports every problem.

mod body;
mod consts;
mod place;
mod types;

use crate::diag::Diagnostic;
use crate::ir::{self, Arena, DeviceBody, GraphDecl, Handle, Literal, Module, ReduceOp, Scalar};
use crate::span::{FileId, Span};
use crate::syntax::ast::{self, ItemKind};
use body::{BodyLowerer, Context};
use consts::ConstVal;
use std::collections::{BTreeMap, BTreeSet};

pub use types::SCALAR_NAMES;

/// What a top-level name refers to.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Symbol {
    Graph,
    Param(Handle<ir::Param>),
    Const(Literal, Scalar),
    Global(Handle<ir::Global>),
    Worklist(Handle<ir::Worklist>),
    Function(Handle<ir::Function>),
    Kernel(Handle<ir::Kernel>),
    /// A declaration that already failed (bad type, bad constant): uses of it are dropped without more errors.
    Error,
}

impl Symbol {
    pub(crate) fn describe(&self) -> &'static str {
        match self {
            Symbol::Graph => "the graph",
            Symbol::Param(_) => "a param",
            Symbol::Const(..) => "a constant",
            Symbol::Global(_) => "an array",
            Symbol::Worklist(_) => "a worklist",
            Symbol::Function(_) => "a function",
            Symbol::Kernel(_) => "a kernel",
            Symbol::Error => "an erroneous declaration",
        }
    }
}

/// The program-wide symbol table and the module under construction.
pub(crate) struct Sema {
    pub(crate) module: Module,
    pub(crate) symbols: BTreeMap<String, (Symbol, Span)>,
    pub(crate) consts: BTreeMap<String, ConstVal>,
    pub(crate) diags: Vec<Diagnostic>,
    /// The program's own file (for diagnostics that have no better place).
    pub(crate) main_file: FileId,
    /// Kernels and functions whose signature (a parameter type or the reduction) failed to resolve: calls to them
    /// are checked no further, so the one real error does not cascade.
    pub(crate) bad_signatures: BTreeSet<String>,
    /// (kernel or function, parameter index) of parameters whose type failed to resolve.
    pub(crate) bad_params: BTreeSet<(String, usize)>,
    /// Each file's text, by id (see [`ParsedFile::text`]).
    pub(crate) texts: BTreeMap<FileId, String>,
    /// Node and edge arrays with an initialiser: `G.contract` re-applies them to the new graph's arrays.
    pub(crate) refills: Vec<(Handle<ir::Global>, ast::Expr)>,
}

/// One parsed file; `is_main` is false for imported modules (which may hold only `fn` and `const`).
pub struct ParsedFile<'a> {
    pub file: FileId,
    pub ast: &'a ast::SourceFile,
    /// The file's text, for what quotes the source (a `print`'s labels).
    pub text: &'a str,
    pub is_main: bool,
}

/// Lowers a program (its main file and every imported module) to IR. The module is returned only when there were
/// no errors; it has then passed the validator.
///
/// Without a main file (every file `is_main: false`) the files are modules checked on their own: only functions,
/// constants and imports are allowed, and no `plan` is required.
pub fn lower(name: &str, files: &[ParsedFile<'_>]) -> (Option<Module>, Vec<Diagnostic>) {
    let mut sema = Sema {
        module: Module {
            name: name.to_string(),
            graph: None,
            params: Arena::new(),
            globals: Arena::new(),
            worklists: Arena::new(),
            functions: Arena::new(),
            kernels: Arena::new(),
            plan: ir::PlanBody::default(),
            outputs: Vec::new(),
            merge: None,
        },
        symbols: BTreeMap::new(),
        consts: BTreeMap::new(),
        diags: Vec::new(),
        main_file: files.iter().find(|f| f.is_main).map_or(FileId(0), |f| f.file),
        bad_signatures: BTreeSet::new(),
        bad_params: BTreeSet::new(),
        texts: files.iter().map(|f| (f.file, f.text.to_string())).collect(),
        refills: Vec::new(),
    };
    let mut pending = Pending::default();
    for f in files {
        sema.declare(f, &mut pending);
    }
    sema.lower_bodies(&pending, files.iter().any(|f| f.is_main));
    for f in ir::validate::recursive_functions(&sema.module) {
        let f = &sema.module.functions[f];
        sema.diags.push(
            Diagnostic::error(f.span, format!("function `{}` is recursive", f.name))
                .label("calls itself, directly or through other functions")
                .note("device functions cannot recurse (GPU threads have tiny stacks): rewrite it as a loop"),
        );
    }
    if sema.diags.iter().any(Diagnostic::is_error) {
        return (None, sema.diags);
    }
    if let Err(errors) = ir::validate::validate(&sema.module) {
        for e in errors {
            sema.diags.push(
                Diagnostic::error(e.span, format!("internal compiler error: invalid IR: {}", e.message))
                    .note("this is a bug in irgc; please report it with the program"),
            );
        }
        return (None, sema.diags);
    }
    (Some(sema.module), sema.diags)
}

/// A global's initialiser and dense dimensions, lowered in the plan's prologue.
type PendingGlobal<'a> = (Handle<ir::Global>, Option<&'a ast::Expr>, Option<&'a [ast::Expr]>);

/// Bodies and initialisers found by `declare`, lowered once every name is known.
#[derive(Default)]
struct Pending<'a> {
    functions: Vec<(Handle<ir::Function>, &'a ast::Function)>,
    kernels: Vec<(Handle<ir::Kernel>, &'a ast::Kernel)>,
    /// (global, initialiser, dense dimensions)
    globals: Vec<PendingGlobal<'a>>,
    outputs: Vec<&'a ast::OutputDecl>,
    plans: Vec<(&'a ast::Block, Span)>,
    /// `merge FROM -> INTO { ... }` (at most one).
    merges: Vec<(&'a crate::span::Ident, &'a crate::span::Ident, &'a ast::Block, Span)>,
}

/// What `graph G(...)` declares: see [`GraphDecl`].
#[derive(Default)]
struct GraphProps {
    weight: Option<Scalar>,
    default: Option<ir::Literal>,
    undirected: bool,
    simple: bool,
    degree_ordered: bool,
}

impl Sema {
    /// The properties of `graph G(...)`: the weight type and its default, `undirected` and `simple`. Each may appear
    /// once; anything else is an error naming the properties there are.
    fn graph_props(&mut self, props: &[ast::GraphProp]) -> GraphProps {
        let mut out = GraphProps::default();
        let mut seen: Vec<&str> = Vec::new();
        for p in props {
            let name = p.name.node.as_str();
            if seen.contains(&name) {
                self.diags
                    .push(Diagnostic::error(p.span, format!("`{name}` is given twice")).label("already declared"));
                continue;
            }
            seen.push(name);
            match (name, &p.ty) {
                ("undirected", None) => out.undirected = true,
                ("simple", None) => out.simple = true,
                ("degree_ordered", None) => out.degree_ordered = true,
                ("weight", Some(ty)) => {
                    out.weight = self.scalar(ty);
                    if let (Some(ty), Some(d)) = (out.weight, &p.default) {
                        out.default = consts::eval(d, ty, &self.consts).map_err(|e| self.diags.push(e)).ok();
                    }
                }
                ("weight", None) => self.diags.push(
                    Diagnostic::error(p.span, "`weight` needs a type")
                        .label("e.g. `weight: u32` or `weight: f64 = 1.0`"),
                ),
                (flag @ ("undirected" | "simple" | "degree_ordered"), Some(_)) => self.diags.push(
                    Diagnostic::error(p.span, format!("`{flag}` takes no type")).label(format!("write just `{flag}`")),
                ),
                (other, _) => self.diags.push(
                    Diagnostic::error(p.name.span, format!("graphs have no property `{other}`"))
                        .label("unknown property")
                        .note(
                            "graph properties: `undirected`, `simple`, `degree_ordered`, `weight: TYPE` (optionally \
                             `= DEFAULT`)",
                        ),
                ),
            }
        }
        out
    }

    fn define(&mut self, name: &crate::span::Ident, sym: Symbol) -> bool {
        if let Some((old, old_span)) = self.symbols.get(&name.node) {
            let d = Diagnostic::error(name.span, format!("`{}` is defined more than once", name.node))
                .label("defined again here")
                .with_secondary(*old_span, format!("first defined here, as {}", old.describe()));
            self.diags.push(d);
            return false;
        }
        self.symbols.insert(name.node.clone(), (sym, name.span));
        true
    }

    fn scalar(&mut self, t: &ast::TypeExpr) -> Option<Scalar> {
        types::scalar(t).map_err(|d| self.diags.push(d)).ok()
    }

    fn declare<'a>(&mut self, f: &ParsedFile<'a>, pending: &mut Pending<'a>) {
        for item in &f.ast.items {
            let span = item.span;
            if !f.is_main && !matches!(item.kind, ItemKind::Function(_) | ItemKind::Const { .. } | ItemKind::Import(_))
            {
                self.diags.push(
                    Diagnostic::error(span, "an imported module may only define functions and constants")
                        .label("not allowed in a module")
                        .note("graphs, arrays, worklists, kernels and the plan belong to the main program"),
                );
                continue;
            }
            match &item.kind {
                ItemKind::Import(_) | ItemKind::Error => {}
                ItemKind::Graph { name, props } => {
                    let GraphProps { weight, default: default_weight, undirected, simple, degree_ordered } =
                        self.graph_props(props);
                    if let Some(old) = &self.module.graph {
                        self.diags.push(
                            Diagnostic::error(name.span, "a program has one graph")
                                .label("second graph declared here")
                                .with_secondary(old.span, "first graph declared here"),
                        );
                        continue;
                    }
                    if self.define(name, Symbol::Graph) {
                        let (name, span) = (name.node.clone(), name.span);
                        self.module.graph =
                            Some(GraphDecl { name, weight, default_weight, undirected, simple, degree_ordered, span });
                    }
                }
                ItemKind::Param { name, ty, default } => {
                    let Some(ty) = self.scalar(ty) else {
                        self.define(name, Symbol::Error);
                        continue;
                    };
                    let default = default
                        .as_ref()
                        .and_then(|d| consts::eval(d, ty, &self.consts).map_err(|e| self.diags.push(e)).ok());
                    let h =
                        self.module.params.append(ir::Param { name: name.node.clone(), ty, default, span: name.span });
                    self.define(name, Symbol::Param(h));
                }
                ItemKind::Const { name, ty, value } => {
                    let Some(ty) = self.scalar(ty) else {
                        self.define(name, Symbol::Error);
                        continue;
                    };
                    match consts::eval(value, ty, &self.consts) {
                        Ok(lit) => {
                            if self.define(name, Symbol::Const(lit, ty)) {
                                self.consts.insert(name.node.clone(), (lit, ty));
                            }
                        }
                        Err(d) => {
                            self.diags.push(d);
                            self.define(name, Symbol::Error);
                        }
                    }
                }
                ItemKind::Array { name, kind, elem, init } => {
                    let Some(elem) = self.scalar(elem) else {
                        self.define(name, Symbol::Error);
                        continue;
                    };
                    let (gk, dims) = match kind {
                        ast::ArrayKind::Node => (ir::GlobalKind::Node, None),
                        ast::ArrayKind::Edge => (ir::GlobalKind::Edge, None),
                        ast::ArrayKind::Dense(d) => {
                            if d.is_empty() || d.len() > 2 {
                                self.diags.push(
                                    Diagnostic::error(
                                        span,
                                        format!("a dense array has 1 or 2 dimensions, not {}", d.len()),
                                    )
                                    .label("wrong number of dimensions"),
                                );
                                continue;
                            }
                            (ir::GlobalKind::Dense(Vec::new()), Some(d.as_slice()))
                        }
                    };
                    let h = self.module.globals.append(ir::Global {
                        name: name.node.clone(),
                        kind: gk,
                        elem,
                        span: name.span,
                    });
                    self.define(name, Symbol::Global(h));
                    pending.globals.push((h, init.as_ref(), dims));
                }
                ItemKind::Worklist { name, elem } => {
                    let elem = match elem {
                        Some(t) => {
                            let Some(s) = self.scalar(t) else {
                                self.define(name, Symbol::Error);
                                continue;
                            };
                            if !matches!(s, Scalar::Node | Scalar::Edge | Scalar::U32 | Scalar::I32) {
                                self.diags.push(
                                    Diagnostic::error(t.span, format!("a worklist cannot hold {s}"))
                                        .label("unsupported item type")
                                        .note("worklist items are node, edge, u32 or i32"),
                                );
                                self.define(name, Symbol::Error);
                                continue;
                            }
                            s
                        }
                        None => Scalar::Node,
                    };
                    let h =
                        self.module.worklists.append(ir::Worklist { name: name.node.clone(), elem, span: name.span });
                    self.define(name, Symbol::Worklist(h));
                }
                ItemKind::Output(decls) => pending.outputs.extend(decls.iter()),
                ItemKind::Function(func) => {
                    let mut body = DeviceBody::default();
                    let params = self.signature_params(&func.name, &func.params, true, &mut body);
                    let ret = func.ret.as_ref().and_then(|r| {
                        let t = self.scalar(r);
                        if t.is_none() {
                            self.bad_signatures.insert(func.name.node.clone());
                        }
                        t
                    });
                    let h = self.module.functions.append(ir::Function {
                        name: func.name.node.clone(),
                        params,
                        ret,
                        body,
                        span: func.name.span,
                    });
                    self.define(&func.name, Symbol::Function(h));
                    pending.functions.push((h, func));
                }
                ItemKind::Kernel(k) => {
                    let mut body = DeviceBody::default();
                    let params = self.signature_params(&k.name, &k.params, false, &mut body);
                    let reduction = k.reduction.as_ref().and_then(|r| self.reduction(r));
                    if k.reduction.is_some() && reduction.is_none() {
                        self.bad_signatures.insert(k.name.node.clone());
                    }
                    let h = self.module.kernels.append(ir::Kernel {
                        name: k.name.node.clone(),
                        params,
                        reduction,
                        reduce_coop: ir::Cooperation::Thread,
                        body,
                        span: k.name.span,
                    });
                    self.define(&k.name, Symbol::Kernel(h));
                    pending.kernels.push((h, k));
                }
                ItemKind::Merge { from, into, body } => {
                    if let Some((_, _, _, first)) = pending.merges.first() {
                        self.diags.push(
                            Diagnostic::error(span, "a program has one merge")
                                .label("second merge")
                                .with_secondary(*first, "first merge"),
                        );
                    } else {
                        pending.merges.push((from, into, body, span));
                    }
                }
                ItemKind::Plan(block) => {
                    if let Some((_, first)) = pending.plans.first() {
                        self.diags.push(
                            Diagnostic::error(span, "a program has one plan")
                                .label("second plan")
                                .with_secondary(*first, "first plan"),
                        );
                    } else {
                        pending.plans.push((block, span));
                    }
                }
            }
        }
    }

    /// Declares the parameters of a function or kernel as the first locals of its body. A parameter whose type
    /// fails still gets a stand-in local (typed i32), so positions stay aligned; it is recorded in `bad_params` and its
    /// uses are then dropped silently.
    fn signature_params(
        &mut self,
        item: &crate::span::Ident,
        params: &[ast::Param],
        allow_array: bool,
        body: &mut DeviceBody,
    ) -> Vec<Handle<ir::Local>> {
        let mut out = Vec::new();
        for (i, p) in params.iter().enumerate() {
            let ty = match types::local_type(&p.ty, allow_array) {
                Ok(ty) => ty,
                Err(mut d) => {
                    if !allow_array && matches!(p.ty.node, ast::TypeExprKind::ArrayRef(_)) {
                        d = d.note("kernels read program arrays by name; only device functions take array references");
                    }
                    self.diags.push(d);
                    self.bad_signatures.insert(item.node.clone());
                    self.bad_params.insert((item.node.clone(), i));
                    ir::LocalType::Scalar(Scalar::I32)
                }
            };
            out.push(body.locals.append(ir::Local { name: p.name.node.clone(), ty, span: p.name.span }));
        }
        out
    }

    fn reduction(&mut self, r: &ast::Reduction) -> Option<(ReduceOp, Scalar)> {
        let op = match r.op.node.as_str() {
            "any" => ReduceOp::Any,
            "all" => ReduceOp::All,
            "sum" => ReduceOp::Sum,
            "min" => ReduceOp::Min,
            "max" => ReduceOp::Max,
            other => {
                self.diags.push(
                    Diagnostic::error(r.op.span, format!("unknown reduction `{other}`"))
                        .label("expected `any`, `all`, `sum`, `min` or `max`"),
                );
                return None;
            }
        };
        let ty = match (&r.ty, op) {
            (None, ReduceOp::Any | ReduceOp::All) => Scalar::Bool,
            (Some(t), ReduceOp::Any | ReduceOp::All) => {
                let ty = self.scalar(t)?;
                if ty != Scalar::Bool {
                    self.diags.push(Diagnostic::error(t.span, format!("`{}` reduces bool, not {ty}", op.name())));
                    return None;
                }
                ty
            }
            (None, _) => {
                self.diags.push(
                    Diagnostic::error(r.span, format!("`{}` needs a type", op.name()))
                        .label(format!("write e.g. `-> {} u64`", op.name())),
                );
                return None;
            }
            (Some(t), _) => {
                let ty = self.scalar(t)?;
                if !(ty.is_numeric() || (ty.is_id() && op != ReduceOp::Sum)) {
                    self.diags.push(Diagnostic::error(t.span, format!("cannot `{}` values of type {ty}", op.name())));
                    return None;
                }
                ty
            }
        };
        Some((op, ty))
    }

    /// `has_main`: whether there is a main program (which must have a plan), or only modules checked on their own.
    fn lower_bodies(&mut self, pending: &Pending<'_>, has_main: bool) {
        // The plan's prologue first: dense-array sizes must be known before kernels index those arrays. Then
        // array initialisers (as fills) and output checks.
        self.refills = pending
            .globals
            .iter()
            .filter(|(g, _, _)| matches!(self.module.globals[*g].kind, ir::GlobalKind::Node | ir::GlobalKind::Edge))
            .filter_map(|&(g, init, _)| Some((g, init?.clone())))
            .collect();
        let mut lw = BodyLowerer::new(self, ir::PlanBody::default(), Context::Plan);
        for &(g, init, dims) in &pending.globals {
            if let Some(dims) = dims {
                let lowered = lw.dims(dims);
                if let ir::GlobalKind::Dense(d) = &mut lw.sema.module.globals[g].kind {
                    *d = lowered;
                }
            }
            if let Some(init) = init {
                lw.fill(g, init);
            }
        }
        for o in &pending.outputs {
            lw.output(o);
        }
        self.module.plan = lw.finish();
        for &(h, func) in &pending.functions {
            // A clone, not a take: a directly recursive call looks up this function's parameters while its body
            // is being lowered (the recursion itself is reported after lowering).
            let body = self.module.functions[h].body.clone();
            let ret = self.module.functions[h].ret;
            let params: Vec<_> = func.params.iter().map(|p| p.name.clone()).collect();
            let body =
                BodyLowerer::new(self, body, Context::Function(ret)).lower_fn(&func.name.node, &params, &func.body);
            self.module.functions[h].body = body;
        }
        for &(h, k) in &pending.kernels {
            let body = std::mem::take(&mut self.module.kernels[h].body);
            let red = self.module.kernels[h].reduction;
            let params: Vec<_> = k.params.iter().map(|p| p.name.clone()).collect();
            let body = BodyLowerer::new(self, body, Context::Kernel(red)).lower_kernel(&params, &k.body, &k.name);
            self.module.kernels[h].body = body;
            self.no_wait_with_retry(h);
        }
        let prologue = std::mem::take(&mut self.module.plan);
        let mut lw = BodyLowerer::new(self, prologue, Context::Plan);
        match pending.plans.first() {
            Some((block, _)) => lw.lower_plan(block),
            None if !has_main => {}
            None => {
                let span = Span::new(lw.sema.main_file, 0, 0);
                lw.sema.diags.push(
                    Diagnostic::error(span, "the program has no `plan`")
                        .note("add `plan { ... }` saying which kernels run, e.g. `plan { init(); }`")
                        .cascading(),
                );
            }
        }
        if let Some(&(from, into, body, span)) = pending.merges.first() {
            if let Some((from, into, body)) = lw.lower_merge(from, into, body) {
                lw.sema.module.merge = Some(ir::Merge { from, into, body, span });
            }
        }
        self.module.plan = lw.finish();
        self.check_degree_ordered();
    }

    /// A kernel whose sweep waits cannot also retry: a waiting item runs again in this launch, a retried one in
    /// the next, and an item doing both would run twice.
    fn no_wait_with_retry(&mut self, k: Handle<ir::Kernel>) {
        let (mut wait, mut retry) = (None, false);
        for s in &self.module.kernels[k].body.block {
            s.visit(&mut |s| match &s.kind {
                ir::StmtKind::Op(ir::DeviceOp::Wait) => wait = wait.or(Some(s.span)),
                ir::StmtKind::Op(ir::DeviceOp::Retry { .. }) => retry = true,
                _ => {}
            });
        }
        if let (Some(span), true) = (wait, retry) {
            self.diags.push(
                Diagnostic::error(span, "a kernel that waits cannot also `retry`")
                    .label("this item would run again in this launch, and a retried one in the next")
                    .note("keep the item unfinished with `wait;` alone, or leave it to the next launch with `retry`"),
            );
        }
    }

    /// What a `degree_ordered` program may not have yet: the runtime numbers its graph's nodes afresh and maps node
    /// outputs back to the input's nodes, but it does not map node params in, edge outputs out, or a partner's
    /// array in a merge.
    fn check_degree_ordered(&mut self) {
        let Some(decl) = self.module.graph.as_ref().filter(|g| g.degree_ordered) else { return };
        let declared = decl.span;
        let mut refused = Vec::new();
        for (_, p) in self.module.params.iter().filter(|(_, p)| p.ty == Scalar::Node) {
            refused.push((p.span, format!("a node param (`{}`)", p.name)));
        }
        for o in &self.module.outputs {
            let g = &self.module.globals[o.global];
            if g.kind == ir::GlobalKind::Edge {
                refused.push((o.span, format!("an edge output (`{}`)", g.name)));
            }
        }
        if let Some(m) = &self.module.merge {
            refused.push((m.span, "a `merge`".to_string()));
        }
        for (span, what) in refused {
            self.diags.push(
                Diagnostic::error(span, format!("a program whose graph is `degree_ordered` cannot have {what} yet"))
                    .label("its nodes are numbered afresh for the run: this would see the new numbers")
                    .with_secondary(declared, "`degree_ordered` declared here"),
            );
        }
    }
}
