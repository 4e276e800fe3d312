//! A stable, readable text form of the IR (`irgc compile --emit ir`, and the IR snapshots).
//!
//! Expressions are printed as nested trees at their point of use; locals print as `name` (with `#index` where
//! two locals share a name), globals as `@name`, params as `$name`, shared arrays as `%name`.

use super::*;
use std::fmt::Write;

/// Prints a whole module.
pub fn print_module(m: &Module) -> String {
    let mut p = Printer { m, out: String::new() };
    p.module();
    p.out
}

struct Printer<'a> {
    m: &'a Module,
    out: String,
}

/// The arenas of the body being printed (any place's: printing a statement's own operation is [`PrintOp`]'s job).
struct Ctx<'a> {
    body: BodyView<'a>,
    /// Locals whose name is not unique in the body print with their index.
    dup: Vec<bool>,
}

impl<'a> Ctx<'a> {
    fn new<Op>(body: &'a Body<Op>) -> Self {
        let mut dup = vec![false; body.locals.len()];
        for (h, l) in body.locals.iter() {
            if body.locals.iter().filter(|(_, o)| o.name == l.name).count() > 1 {
                dup[h.index()] = true;
            }
        }
        Ctx { body: body.view(), dup }
    }

    fn local(&self, h: Handle<Local>) -> String {
        let l = &self.body.locals[h];
        if self.dup[h.index()] {
            format!("{}#{}", l.name, h.index())
        } else {
            l.name.clone()
        }
    }
}

fn local_type(t: LocalType) -> String {
    match t {
        LocalType::Scalar(s) => s.name().to_string(),
        LocalType::ArrayRef(s) => format!("[{s}]"),
    }
}

pub fn literal(lit: Literal, ty: Scalar) -> String {
    match lit {
        Literal::Bool(b) => b.to_string(),
        Literal::Int(v) => {
            let v = match ty {
                Scalar::I32 => (v as u32 as i32).to_string(),
                Scalar::I64 => (v as i64).to_string(),
                _ => v.to_string(),
            };
            format!("{v}{ty}")
        }
        Literal::Float(f) => format!("{f:?}{ty}"),
        Literal::Inf => format!("inf:{ty}"),
    }
}

impl Printer<'_> {
    fn module(&mut self) {
        let m = self.m;
        let _ = writeln!(self.out, "module {}", m.name);
        if let Some(g) = &m.graph {
            let w = g.weight.map_or("none".to_string(), |w| w.to_string());
            let d = match (g.default_weight, g.weight) {
                (Some(d), Some(ty)) => format!(" = {}", literal(d, ty)),
                _ => String::new(),
            };
            let undirected = if g.undirected { ", undirected" } else { "" };
            let simple = if g.simple { ", simple" } else { "" };
            let ordered = if g.degree_ordered { ", degree_ordered" } else { "" };
            let _ = writeln!(self.out, "graph {} (weight: {w}{d}{undirected}{simple}{ordered})", g.name);
        }
        let plan = Ctx::new(&m.plan);
        for (_, p) in m.params.iter() {
            let d = p.default.map_or(String::new(), |d| format!(" = {}", literal(d, p.ty)));
            let _ = writeln!(self.out, "param ${}: {}{d}", p.name, p.ty);
        }
        for (_, g) in m.globals.iter() {
            let shape = match &g.kind {
                GlobalKind::Node => "per node".to_string(),
                GlobalKind::Edge => "per edge".to_string(),
                GlobalKind::Dense(dims) => {
                    let d: Vec<String> = dims.iter().map(|&e| self.expr(&plan, e)).collect();
                    format!("dense [{}]", d.join(", "))
                }
            };
            let _ = writeln!(self.out, "global @{}: {} {shape}", g.name, g.elem);
        }
        for (_, w) in m.worklists.iter() {
            let _ = writeln!(self.out, "worklist {}: {}", w.name, w.elem);
        }
        for o in &m.outputs {
            let check = match &o.check {
                None => String::new(),
                Some(Check::Bfs { source }) => format!(" as bfs({})", self.expr(&plan, *source)),
                Some(Check::Sssp { source }) => format!(" as sssp({})", self.expr(&plan, *source)),
                Some(Check::Bc { source }) => format!(" as bc({})", self.expr(&plan, *source)),
                Some(Check::PageRank { damping, tolerance }) => {
                    format!(" as pagerank({}, {})", self.expr(&plan, *damping), self.expr(&plan, *tolerance))
                }
                Some(c) => format!(" as {}", c.name()),
            };
            let _ = writeln!(self.out, "output @{}{check}", m.globals[o.global].name);
        }
        for (_, f) in m.functions.iter() {
            let ctx = Ctx::new(&f.body);
            let params = self.params(&ctx, &f.params);
            let ret = f.ret.map_or(String::new(), |r| format!(" -> {r}"));
            let _ = write!(self.out, "\nfn {}({params}){ret} ", f.name);
            self.block(&ctx, &f.body.block, 0);
        }
        for (_, k) in m.kernels.iter() {
            let ctx = Ctx::new(&k.body);
            let params = self.params(&ctx, &k.params);
            let red = k
                .reduction
                .map_or(String::new(), |(op, ty)| format!(" -> {}{} {ty}", op.name(), coop_suffix(k.reduce_coop)));
            let _ = write!(self.out, "\nkernel {}({params}){red} ", k.name);
            self.block(&ctx, &k.body.block, 0);
        }
        let _ = write!(self.out, "\nplan ");
        self.block(&plan, &m.plan.block, 0);
        if let Some(merge) = &m.merge {
            let _ = write!(self.out, "\nmerge @{} -> @{} ", m.globals[merge.from].name, m.globals[merge.into].name);
            self.block(&plan, &merge.body, 0);
        }
    }

    fn params(&self, ctx: &Ctx, params: &[Handle<Local>]) -> String {
        let v: Vec<String> =
            params.iter().map(|&p| format!("{}: {}", ctx.local(p), local_type(ctx.body.locals[p].ty))).collect();
        v.join(", ")
    }

    fn block<Op: PrintOp>(&mut self, ctx: &Ctx, block: &Block<Op>, depth: usize) {
        self.out.push_str("{\n");
        for s in block {
            self.stmt(ctx, s, depth + 1);
        }
        self.indent(depth);
        self.out.push_str("}\n");
    }

    fn indent(&mut self, depth: usize) {
        for _ in 0..depth {
            self.out.push_str("    ");
        }
    }

    fn array(&self, ctx: &Ctx, a: ArrayRef) -> String {
        match a {
            ArrayRef::Global(g) => format!("@{}", self.m.globals[g].name),
            ArrayRef::Shared(s) => format!("%{}", ctx.body.shared[s].name),
            ArrayRef::Param(l) => ctx.local(l),
        }
    }

    fn index(&self, ctx: &Ctx, idx: &[Handle<Expr>]) -> String {
        let v: Vec<String> = idx.iter().map(|&e| self.expr(ctx, e)).collect();
        v.join(", ")
    }

    fn vars(&self, ctx: &Ctx, vars: &[Handle<Local>]) -> String {
        let v: Vec<String> =
            vars.iter().map(|&l| format!("{}: {}", ctx.local(l), local_type(ctx.body.locals[l].ty))).collect();
        if v.len() == 1 {
            v[0].clone()
        } else {
            format!("({})", v.join(", "))
        }
    }

    fn space(&self, ctx: &Ctx, s: &Space) -> String {
        match s {
            Space::Nodes => "nodes".into(),
            Space::Edges => "edges".into(),
            Space::OutEdges(n) => format!("out_edges({})", self.expr(ctx, *n)),
            Space::Worklist(w) => format!("worklist {}", self.m.worklists[*w].name),
            Space::Range(a, b) => format!("{}..{}", self.expr(ctx, *a), self.expr(ctx, *b)),
            Space::Range2([(a, b), (c, d)]) => format!(
                "({}..{}, {}..{})",
                self.expr(ctx, *a),
                self.expr(ctx, *b),
                self.expr(ctx, *c),
                self.expr(ctx, *d)
            ),
        }
    }

    fn stmt<Op: PrintOp>(&mut self, ctx: &Ctx, s: &Statement<Op>, depth: usize) {
        self.indent(depth);
        let line = match &s.kind {
            StmtKind::Assign { local, value } => format!("{} = {}", ctx.local(*local), self.expr(ctx, *value)),
            StmtKind::If { cond, then, otherwise } => {
                let _ = write!(self.out, "if {} ", self.expr(ctx, *cond));
                self.block(ctx, then, depth);
                if !otherwise.is_empty() {
                    self.indent(depth);
                    self.out.push_str("else ");
                    self.block(ctx, otherwise, depth);
                }
                return;
            }
            StmtKind::Loop { body, continuing, break_if } => {
                self.out.push_str("loop ");
                self.block(ctx, body, depth);
                if !continuing.is_empty() {
                    self.indent(depth);
                    self.out.push_str("continuing ");
                    self.block(ctx, continuing, depth);
                }
                if let Some(b) = break_if {
                    self.indent(depth);
                    let _ = writeln!(self.out, "break_if {}", self.expr(ctx, *b));
                }
                return;
            }
            StmtKind::For { var, start, end, body } => {
                let _ = write!(
                    self.out,
                    "for {} in {}..{} ",
                    self.vars(ctx, &[*var]),
                    self.expr(ctx, *start),
                    self.expr(ctx, *end)
                );
                self.block(ctx, body, depth);
                return;
            }
            StmtKind::Break => "break".into(),
            StmtKind::Continue => "continue".into(),
            StmtKind::Op(op) => match op.print(self, ctx, depth) {
                Some(line) => line,
                None => return,
            },
        };
        self.out.push_str(&line);
        self.out.push('\n');
    }

    /// A device operation's line, or `None` when it printed a block itself.
    fn device_op(&mut self, ctx: &Ctx, op: &DeviceOp, depth: usize) -> Option<String> {
        Some(match op {
            DeviceOp::Store { array, index, value } => {
                format!("store {}[{}] = {}", self.array(ctx, *array), self.index(ctx, index), self.expr(ctx, *value))
            }
            DeviceOp::Atomic { op, array, index, value, compare, result } => {
                let res = result.map_or(String::new(), |r| format!("{} = ", ctx.local(r)));
                let cmp = compare.map_or(String::new(), |c| format!("{}, ", self.expr(ctx, c)));
                format!(
                    "{res}{}({}[{}], {cmp}{})",
                    op.name(),
                    self.array(ctx, *array),
                    self.index(ctx, index),
                    self.expr(ctx, *value)
                )
            }
            DeviceOp::Call { function, args, result } => {
                let res = result.map_or(String::new(), |r| format!("{} = ", ctx.local(r)));
                let a: Vec<String> = args
                    .iter()
                    .map(|a| match a {
                        Arg::Value(e) => self.expr(ctx, *e),
                        Arg::Array(r) => self.array(ctx, *r),
                    })
                    .collect();
                format!("{res}call {}({})", self.m.functions[*function].name, a.join(", "))
            }
            DeviceOp::ForAll { vars, space, body, schedule, combine, unroll, interleave, stops } => {
                let _ = write!(self.out, "forall {} in {} ", self.vars(ctx, vars), self.space(ctx, space));
                // A nested loop's schedule and unrolling, once passes chose them, and its combined locals.
                if *schedule != Schedule::Thread {
                    let _ = write!(self.out, "schedule {} ", schedule.name());
                }
                if *unroll != 1 {
                    let _ = write!(self.out, "unroll {unroll} ");
                }
                if *interleave != 1 {
                    let _ = write!(self.out, "interleave {interleave} ");
                }
                if !combine.is_empty() {
                    let c: Vec<String> =
                        combine.iter().map(|c| format!("{}: {}", ctx.local(c.local), c.op.name())).collect();
                    let _ = write!(self.out, "combine({}) ", c.join(", "));
                }
                if *stops {
                    let _ = write!(self.out, "stops ");
                }
                self.block(ctx, body, depth);
                return None;
            }
            DeviceOp::ForTile { tile_vars, tiles, thread_vars, threads, body } => {
                let shape: Vec<String> = threads.iter().map(u32::to_string).collect();
                let _ = write!(
                    self.out,
                    "forall tile {} in {} threads {} in [{}] ",
                    self.vars(ctx, tile_vars),
                    self.space(ctx, tiles),
                    self.vars(ctx, thread_vars),
                    shape.join(", ")
                );
                self.out.push_str("{\n");
                for (_, sh) in ctx.body.shared.iter() {
                    self.indent(depth + 1);
                    let d: Vec<String> = sh.dims.iter().map(u32::to_string).collect();
                    let _ = writeln!(self.out, "shared %{}: {}[{}]", sh.name, sh.elem, d.join(", "));
                }
                for s in body {
                    self.stmt(ctx, s, depth + 1);
                }
                self.indent(depth);
                self.out.push_str("}\n");
                return None;
            }
            DeviceOp::Return(v) => match v {
                Some(v) => format!("return {}", self.expr(ctx, *v)),
                None => "return".into(),
            },
            DeviceOp::Push { worklist, value, coop } => {
                format!("push{} {} <- {}", coop_suffix(*coop), self.m.worklists[*worklist].name, self.expr(ctx, *value))
            }
            DeviceOp::Retry { worklist, value, coop } => {
                format!(
                    "retry{} {} <- {}",
                    coop_suffix(*coop),
                    self.m.worklists[*worklist].name,
                    self.expr(ctx, *value)
                )
            }
            DeviceOp::Reduce { value } => format!("reduce {}", self.expr(ctx, *value)),
            DeviceOp::Barrier => "barrier".into(),
            DeviceOp::Wait => "wait".into(),
        })
    }

    /// A plan operation's line, or `None` when it printed a block itself.
    fn plan_op(&mut self, ctx: &Ctx, op: &PlanOp, depth: usize) -> Option<String> {
        Some(match op {
            PlanOp::Store { global, index, value } => format!(
                "store @{}[{}] = {}",
                self.m.globals[*global].name,
                self.index(ctx, index),
                self.expr(ctx, *value)
            ),
            PlanOp::Invoke { kernel, args, result } => {
                let res = result.map_or(String::new(), |r| format!("{} = ", ctx.local(r)));
                format!("{res}invoke {}({})", self.m.kernels[*kernel].name, self.index(ctx, args))
            }
            PlanOp::Pipe { worklist, body } => {
                let _ = write!(self.out, "pipe {} ", self.m.worklists[*worklist].name);
                self.block(ctx, body, depth);
                return None;
            }
            PlanOp::Hybrid { worklist, threshold, dense, sparse } => {
                let above = threshold.map_or("auto".to_string(), |t| self.expr(ctx, t));
                let _ = write!(self.out, "hybrid {} above {above} dense ", self.m.worklists[*worklist].name);
                self.block(ctx, dense, depth);
                self.indent(depth);
                self.out.push_str("sparse ");
                self.block(ctx, sparse, depth);
                return None;
            }
            PlanOp::Fill { global, value } => {
                format!("fill @{} = {}", self.m.globals[*global].name, self.expr(ctx, *value))
            }
            PlanOp::Clear { worklist } => format!("clear {}", self.m.worklists[*worklist].name),
            PlanOp::Contract { label } => format!("contract G by @{}", self.m.globals[*label].name),
            PlanOp::Print { items } => {
                let items: Vec<String> = items.iter().map(|(l, e)| format!("{l:?} = {}", self.expr(ctx, *e))).collect();
                format!("print {}", items.join(", "))
            }
            PlanOp::HostPush { worklist, value } => {
                format!("host_push {} <- {}", self.m.worklists[*worklist].name, self.expr(ctx, *value))
            }
            PlanOp::Outlined(o) => {
                match o.worklist {
                    Some(w) => {
                        let _ = write!(self.out, "outlined #{} pipe {} ", o.index, self.m.worklists[w].name);
                    }
                    None => {
                        let _ = write!(self.out, "outlined #{} loop ", o.index);
                    }
                }
                self.block(ctx, &o.body, depth);
                if let Some(b) = o.break_if {
                    self.indent(depth);
                    let _ = writeln!(self.out, "break_if {}", self.expr(ctx, b));
                }
                return None;
            }
        })
    }

    fn expr(&self, ctx: &Ctx, h: Handle<Expr>) -> String {
        let Some(e) = ctx.body.exprs.get(h) else {
            return format!("<bad expr {h:?}>");
        };
        match &e.kind {
            ExprKind::Literal(l) => literal(*l, e.ty),
            ExprKind::Local(l) => ctx.local(*l),
            ExprKind::Param(p) => format!("${}", self.m.params[*p].name),
            ExprKind::Load { array, index } => format!("{}[{}]", self.array(ctx, *array), self.index(ctx, index)),
            ExprKind::HostLoad { global, index } => {
                format!("@{}[{}]", self.m.globals[*global].name, self.index(ctx, index))
            }
            ExprKind::Unary { op, arg } => {
                let sym = match op {
                    UnaryOp::Neg => "-",
                    UnaryOp::Not => "!",
                    UnaryOp::BitNot => "~",
                };
                format!("{sym}{}", self.expr(ctx, *arg))
            }
            ExprKind::Binary { op, left, right } => {
                format!("({} {} {})", self.expr(ctx, *left), op.symbol(), self.expr(ctx, *right))
            }
            ExprKind::Cast { arg } => format!("({} as {})", self.expr(ctx, *arg), e.ty),
            ExprKind::Math { fun, args } => format!("{}({})", fun.name(), self.index(ctx, args)),
            ExprKind::Graph(q) => match q {
                GraphQuery::NumNodes => "G.num_nodes".into(),
                GraphQuery::NumEdges => "G.num_edges".into(),
                GraphQuery::Src(x) => format!("G.src({})", self.expr(ctx, *x)),
                GraphQuery::Dst(x) => format!("G.dst({})", self.expr(ctx, *x)),
                GraphQuery::Weight(x) => format!("G.weight({})", self.expr(ctx, *x)),
                GraphQuery::Degree(x) => format!("G.degree({})", self.expr(ctx, *x)),
                GraphQuery::FirstEdge(x) => format!("G.first_edge({})", self.expr(ctx, *x)),
                GraphQuery::EndEdge(x) => format!("G.end_edge({})", self.expr(ctx, *x)),
            },
            ExprKind::WorklistSize(w) => format!("{}.size()", self.m.worklists[*w].name),
            ExprKind::DeviceThreads => "device_threads()".into(),
        }
    }
}

/// How a push or reduction's cooperation prints (nothing for the front end's per-thread default).
fn coop_suffix(c: Cooperation) -> &'static str {
    match c {
        Cooperation::Thread => "",
        Cooperation::Warp => ".warp",
    }
}

/// Prints the operations of one place; control flow is printed the same for every place.
trait PrintOp: Sized {
    fn print(&self, p: &mut Printer<'_>, ctx: &Ctx, depth: usize) -> Option<String>;
}

impl PrintOp for DeviceOp {
    fn print(&self, p: &mut Printer<'_>, ctx: &Ctx, depth: usize) -> Option<String> {
        p.device_op(ctx, self, depth)
    }
}

impl PrintOp for PlanOp {
    fn print(&self, p: &mut Printer<'_>, ctx: &Ctx, depth: usize) -> Option<String> {
        p.plan_op(ctx, self, depth)
    }
}
