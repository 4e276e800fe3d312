//! **np** — nested parallelism: an inner loop of a sweep whose iterations are independent is turned into a
//! nested `forall` with a GPU schedule, so that one thread no longer runs a hub's whole edge list.
//!
//! What it transforms: every serial `for x in a..b { .. }` (`for e in G.edges(v)` is `G.first_edge(v)..
//! G.end_edge(v)`) in a kernel's `forall` sweep or in a device function, and every `forall` nested in a sweep,
//! that is not itself inside a loop this pass transformed. A serial loop qualifies when running its iterations
//! in any order, at the same time, computes what running them in order does:
//! - it does not leave early: no `break` or `continue` of this loop, no `return`, no barrier, no parallel loop
//!   inside;
//! - every local it assigns is either private to an iteration (not used outside the loop, and assigned before
//!   it is read in each iteration — a `let` or `var` of the body), or *combined*: updated only as `x = x op v`
//!   with `op` one of `+`, `min`, `max`, `|`/`||`, `&`/`&&`, and read nowhere else in the loop (sums, counts,
//!   bitmasks, minima; first-found searches with `break`, argmax with a tie rule, and running counters used as
//!   indices are not combinations, and keep the loop serial; a counter that is an atomic's slot is, see below);
//! - an array it stores to is neither read nor updated atomically in the loop, and the index of every such store
//!   is one-to-one in the loop variable (`x`, `x + k`, `(k + x as u64) as edge`, ...) or in a *slot* (a local
//!   whose only write in the body is the old value of an `atomic_add` of a positive constant: an append, `let p =
//!   atomic_add(count[v], 1); list[f + p] = u;`, whose iterations take distinct slots in whatever order the
//!   atomics run), so no two iterations write the same element (two stores to one array must then use the same
//!   index expression); it calls no function that stores to an array. Atomic updates and pushes are
//!   allowed: iterations of one loop then race as the sweep's threads already do (the program must not rely on
//!   the order of its own loop's atomics, exactly as it cannot rely on the order of the sweep's threads).
//!
//! The schedule ([`Schedule`]): `block` where every thread of the block reaches the loop together — directly in
//! the kernel's sweep or under `if`s there (ranges of at least the block size run over the whole block, of at
//! least 32 over the warp, shorter ones in their thread: Merrill et al.'s TWC); `warp` anywhere else (device
//! functions, loops inside serial loops): the lanes that arrive together run each other's ranges of 32 or more.
//! Two rules turn `block` into `warp`, both because the block would wait at every barrier for its slowest thread:
//! a sweep that keeps a serial loop besides its scheduled ones, and a loop with combined locals whose own body
//! runs a serial loop. Combined locals are otherwise fine under `block` (its barriers are the
//! non-aligned PTX forms; `docs/optimizer.md`, "Combined locals under the block schedule").
//!
//! Before that, a loop of a device function whose only exits are `return K` (one literal) and which writes nothing
//! is rewritten to run every iteration and combine *whether* one would have returned ([`exits_to_or`]), where the
//! rewritten loop then qualifies.
//!
//! TWC's third level: a `block` loop without combined locals whose body runs no serial loop becomes `fine`, whose
//! short ranges (fewer than 32 iterations) are dealt out over the block iteration by iteration by a prefix sum;
//! the others keep their short ranges in their threads (the remark says which and why).
//!
//! What it does not do: split a loop around a `break` (first-found) or turn an argmax into a combination; the
//! fine level for loops with combined locals; nothing in `forall tile` kernels; nothing on the CPU, whose
//! backend runs every schedule as `thread` (its threads take chunks of the sweep, so a hub costs one chunk; see
//! `docs/optimizer.md`). Every decision, taken or not, is a remark (`irgc compile --explain`).

use crate::{Options, Remark};
use exits::exits_to_or;
use irgc_front::analysis::function_has;
use irgc_front::ir::walk::{combine_use, expr_locals, visit_expr, CombineUse};
use irgc_front::ir::{
    ArrayRef, AtomicOp, BinaryOp, CombineOp, Combined, DeviceBlock, DeviceBody, DeviceOp, DeviceStmt, Expr, ExprKind,
    Handle, Literal, Local, LocalType, Module, Scalar, Schedule, Space, Statement, StmtKind,
};
use irgc_front::span::Span;
use std::collections::{BTreeMap, BTreeSet};

mod exits;

/// Schedules every nested loop that qualifies; returns how many it changed.
pub(super) fn run(m: &mut Module, _: &Options, remarks: &mut Vec<Remark>) -> usize {
    let stores = |s: &DeviceStmt| matches!(s.kind, StmtKind::Op(DeviceOp::Store { .. }));
    let loops = |s: &DeviceStmt| {
        matches!(s.kind, StmtKind::For { .. } | StmtKind::Loop { .. } | StmtKind::Op(DeviceOp::ForAll { .. }))
    };
    let fn_names: Vec<String> = m.functions.iter().map(|(_, f)| f.name.clone()).collect();
    let global_names: Vec<String> = m.globals.iter().map(|(_, g)| format!("@{}", g.name)).collect();
    let names = Names { functions: &fn_names, globals: &global_names };
    let mut changed = 0;
    // Writes of any kind (stores, atomics, pushes, barriers), for the early-return rewrite and loops that stop.
    let writes = |s: &DeviceStmt| matches!(&s.kind, StmtKind::Op(op) if op.writes_or_waits());
    let per_fn = |has: &dyn Fn(&DeviceStmt) -> bool| (0..m.functions.len()).map(|i| function_has(m, i, has)).collect();
    let fns = FnFacts { stores: per_fn(&stores), loops: per_fn(&loops), writes: per_fn(&writes) };
    for (_, f) in m.functions.iter_mut() {
        let what = format!("function `{}`", f.name);
        exits_to_or(&mut f.body, &fns, names, &what, remarks);
    }
    for (_, k) in m.kernels.iter_mut() {
        let what = format!("kernel `{}`", k.name);
        let mentions = mentions(&k.body, &k.body.block);
        // The threads of a sweep that waits run their items again independently: no point of it is reached by
        // the whole block together, so its loops get the warp schedule (which needs no block-wide barrier).
        let uniform = !k.waits();
        let Some(Statement { kind: StmtKind::Op(DeviceOp::ForAll { body: sweep, .. }), .. }) = k.body.block.first_mut()
        else {
            continue;
        };
        let mut sweep = std::mem::take(sweep);
        let mut cx = Cx { body: &k.body, mentions, fns: &fns, names, what: &what, remarks };
        changed += cx.block(&mut sweep, uniform);
        if let Some(at) = serial_loop(&sweep, &fns.loops) {
            if demote(&mut sweep) > 0 {
                let msg = "its block-scheduled loops use the warp schedule instead: the sweep also runs a serial \
                           loop, and the block would wait at every barrier for its slowest thread";
                remarks.push(Remark { span: at, message: format!("{what}: {msg}") });
            }
        }
        if let Some(Statement { kind: StmtKind::Op(DeviceOp::ForAll { body, .. }), .. }) = k.body.block.first_mut() {
            *body = sweep;
        }
    }
    for (_, f) in m.functions.iter_mut() {
        let what = format!("function `{}`", f.name);
        let mentions = mentions(&f.body, &f.body.block);
        let mut block = std::mem::take(&mut f.body.block);
        let mut cx = Cx { body: &f.body, mentions, fns: &fns, names, what: &what, remarks };
        changed += cx.block(&mut block, false);
        f.body.block = block;
    }
    changed
}

/// A serial loop of the sweep's body outside its scheduled loops (or a call of a function with a loop), if any:
/// work of one thread that a block-wide barrier would wait for.
fn serial_loop(block: &DeviceBlock, loop_fns: &[bool]) -> Option<Span> {
    for s in block {
        match &s.kind {
            StmtKind::For { .. } | StmtKind::Loop { .. } => return Some(s.span),
            StmtKind::If { then, otherwise, .. } => {
                if let Some(at) = serial_loop(then, loop_fns).or_else(|| serial_loop(otherwise, loop_fns)) {
                    return Some(at);
                }
            }
            StmtKind::Op(DeviceOp::Call { function, .. }) if loop_fns[function.index()] => return Some(s.span),
            _ => {}
        }
    }
    None
}

/// What a remark says a loop of `schedule` is spread over.
fn over(schedule: Schedule) -> &'static str {
    if schedule.is_block() {
        "block"
    } else {
        schedule.name()
    }
}

/// Turns the block-scheduled loops of a sweep's body into warp-scheduled ones; returns how many.
fn demote(block: &mut DeviceBlock) -> usize {
    let mut n = 0;
    for s in block.iter_mut() {
        match &mut s.kind {
            StmtKind::Op(DeviceOp::ForAll { schedule, .. }) if schedule.is_block() => {
                *schedule = Schedule::Warp;
                n += 1;
            }
            StmtKind::If { then, otherwise, .. } => n += demote(then) + demote(otherwise),
            _ => {}
        }
    }
    n
}

/// Names for remarks.
#[derive(Clone, Copy)]
struct Names<'a> {
    functions: &'a [String],
    globals: &'a [String],
}

/// The walk over one body.
struct Cx<'a> {
    /// The body's arenas (its statements are taken out while they are rewritten).
    body: &'a DeviceBody,
    /// How often the whole body mentions each local (see [`mentions`]), taken before any rewrite.
    mentions: BTreeMap<Handle<Local>, usize>,
    fns: &'a FnFacts,
    names: Names<'a>,
    what: &'a str,
    remarks: &'a mut Vec<Remark>,
}

/// What the pass asks of a call, per function (by index), each through the functions it calls in turn.
struct FnFacts {
    /// Whether it stores to memory.
    stores: Vec<bool>,
    /// Whether it runs a loop (a call of one is a serial loop where it stays in its thread).
    loops: Vec<bool>,
    /// Whether it writes memory or waits at a barrier.
    writes: Vec<bool>,
}

impl Cx<'_> {
    /// Rewrites the loops of `block`; `uniform` when every thread of the block reaches it together.
    fn block(&mut self, block: &mut DeviceBlock, uniform: bool) -> usize {
        let mut changed = 0;
        for i in 0..block.len() {
            changed += self.stmt(block, i, uniform);
        }
        changed
    }

    fn stmt(&mut self, block: &mut DeviceBlock, i: usize, uniform: bool) -> usize {
        let schedule = if uniform { Schedule::Block } else { Schedule::Warp };
        let span = block[i].span;
        match &mut block[i].kind {
            StmtKind::If { then, otherwise, .. } => self.block(then, uniform) + self.block(otherwise, uniform),
            StmtKind::Loop { body, continuing, .. } => self.block(body, false) + self.block(continuing, false),
            StmtKind::Op(DeviceOp::ForAll { vars, schedule: s, body, combine, .. }) => {
                // Written `forall`: parallel by the program's word.
                let var = vars.first().map(|&v| self.body.locals[v].name.clone()).unwrap_or_default();
                if *s == Schedule::Thread {
                    let (schedule, level) = self.fine(schedule, combine, body);
                    *s = schedule;
                    self.remark(
                        span,
                        format!("the nested forall over `{var}` is spread over the {}{level}", over(schedule)),
                    );
                    1
                } else {
                    0
                }
            }
            StmtKind::For { var, start, end, body } => match self.parallel(*var, body) {
                Ok(combine) => {
                    // A combining loop whose iterations each run a serial loop (`tc`'s merges of two neighbour
                    // lists) differ in cost, and the block would wait at each of its barriers, and its combining,
                    // for the slowest (`tc` on kron22, one H200: 303 ms under `warp`, 367 under `block`). Loops
                    // without combined locals keep `block` with a serial loop inside (`ecl_cc`'s `hook`, a short
                    // find walk): that is how they were measured.
                    let uneven = schedule == Schedule::Block
                        && !combine.is_empty()
                        && serial_loop(body, &self.fns.loops).is_some();
                    let schedule = if uneven { Schedule::Warp } else { schedule };
                    let (schedule, level) = self.fine(schedule, &combine, body);
                    let name = self.body.locals[*var].name.clone();
                    let with = if combine.is_empty() {
                        String::new()
                    } else {
                        let c: Vec<String> = combine
                            .iter()
                            .map(|c| format!("`{}` by {}", self.body.locals[c.local].name, c.op.name()))
                            .collect();
                        format!(", combining {}", c.join(", "))
                    };
                    let why = if uneven {
                        " (not the block: its body runs a serial loop, so its iterations' costs differ and the block \
                         would wait at every barrier for the slowest)"
                    } else {
                        ""
                    };
                    self.remark(
                        span,
                        format!("the loop over `{name}` is spread over the {}{with}{why}{level}", over(schedule)),
                    );
                    let (var, start, end, body) = (*var, *start, *end, std::mem::take(body));
                    let stops = self.stops(&combine, &body);
                    block[i].kind = StmtKind::Op(DeviceOp::ForAll {
                        vars: vec![var],
                        space: Space::Range(start, end),
                        body,
                        schedule,
                        combine,
                        unroll: 1,
                        interleave: 1,
                        stops,
                    });
                    1
                }
                Err(why) => {
                    let name = self.body.locals[*var].name.clone();
                    self.remark(span, format!("the loop over `{name}` stays in its thread: {why}"));
                    self.block(body, false)
                }
            },
            _ => 0,
        }
    }

    /// Whether a thread's own iterations of the loop may stop once its combined locals saturate: it combines only
    /// `bool`s by `||` and `&&` (a found flag), and its body writes nothing and waits at no barrier, nor does any
    /// function it calls, so the iterations left would change nothing anyone sees. Integer masks combined by `|`
    /// are left out: they saturate only when every bit is set, which first-fit windows almost never are, so the
    /// tests would cost on every range and stop none.
    fn stops(&self, combine: &[Combined], body: &DeviceBlock) -> bool {
        let mut blocked = false;
        for s in body {
            s.visit(&mut |s| {
                blocked |= match &s.kind {
                    StmtKind::Op(DeviceOp::Call { function, .. }) => self.fns.writes[function.index()],
                    StmtKind::Op(op) => op.writes_or_waits(),
                    _ => false,
                };
            });
        }
        let flag = |c: &Combined| {
            matches!(c.op, CombineOp::Or | CombineOp::And)
                && self.body.locals[c.local].ty == LocalType::Scalar(Scalar::Bool)
        };
        !combine.is_empty() && combine.iter().all(flag) && !blocked
    }

    /// TWC's third level: a `block` loop without combined locals whose body runs no serial loop becomes `fine`
    /// (its short ranges dealt out iteration by iteration over the block). Where the body runs a serial loop
    /// (`ecl_cc`'s find walks, `afforest`'s `link`) the level was slower (rmatg22, one H200: `ecl_cc` 0.76 ->
    /// 1.50 ms): a thread's own iterations share their walks' cache lines, spread ones do not. Combined locals
    /// would need a combine per iteration into the owner's slot. Returns the schedule and the remark's words.
    fn fine(&self, schedule: Schedule, combine: &[Combined], body: &DeviceBlock) -> (Schedule, &'static str) {
        if schedule != Schedule::Block {
            return (schedule, "");
        }
        if !combine.is_empty() {
            (schedule, " (short ranges stay in their threads: combined locals)")
        } else if serial_loop(body, &self.fns.loops).is_some() {
            (schedule, " (short ranges stay in their threads: the body runs a serial loop)")
        } else {
            (Schedule::Fine, ", short ranges iteration by iteration (`fine`)")
        }
    }

    fn remark(&mut self, span: Span, message: String) {
        self.remarks.push(Remark { span, message: format!("{}: {message}", self.what) });
    }

    /// Whether the iterations of `for var in .. { body }` may run in parallel: the locals to combine, or why not.
    fn parallel(&self, var: Handle<Local>, body: &DeviceBlock) -> Result<Vec<Combined>, String> {
        let b = self.body;
        let local = |l: Handle<Local>| b.locals[l].name.clone();
        let mut facts = Facts::default();
        facts.collect(b, body, 0)?;
        if let Some(f) = facts.calls.iter().find(|&&f| self.fns.stores[f]) {
            return Err(format!("it calls `{}`, which writes arrays", self.names.functions[*f]));
        }
        // Locals: private to an iteration, or combined. A local the body mentions more often than the loop does
        // is used outside the loop.
        let inside = mentions(b, body);
        let outside: BTreeSet<Handle<Local>> =
            inside.iter().filter(|(l, n)| self.mentions.get(l).copied().unwrap_or(0) > **n).map(|(l, _)| *l).collect();
        let mut combine = Vec::new();
        for &l in &facts.written {
            if l == var {
                continue;
            }
            let private = !outside.contains(&l) && facts.first_mention.get(&l) == Some(&true);
            if private {
                continue;
            }
            match combine_use(&b.exprs, body, l) {
                CombineUse::By(op) if matches!(b.locals[l].ty, LocalType::Scalar(t) if op.takes(t)) => {
                    combine.push(Combined { local: l, op })
                }
                _ if outside.contains(&l) => {
                    return Err(format!(
                        "it assigns `{}`, which is used outside the loop, other than as `x = x op v` (op one of \
                         +, min, max, |, &) read nowhere else in the loop",
                        local(l)
                    ))
                }
                _ => return Err(format!("`{}` may be read before it is assigned in an iteration", local(l))),
            }
        }
        // Memory: stores must not meet reads or atomics of the same array, nor repeat an index.
        let written: BTreeSet<Handle<Local>> = facts.written.iter().copied().collect();
        let slots = facts.slots();
        for (array, index, _) in &facts.stores {
            let name = match array {
                ArrayRef::Global(g) => self.names.globals[g.index()].clone(),
                ArrayRef::Param(l) => local(*l),
                ArrayRef::Shared(_) => return Err("it stores to a shared array".into()),
            };
            if facts.loads.contains(array) || facts.atomics.contains(array) {
                return Err(format!("it stores to {name} and also reads it"));
            }
            if matches!(array, ArrayRef::Param(_)) && !(facts.loads.is_empty() && facts.atomics.is_empty()) {
                return Err(format!("it stores through the array parameter `{name}`, which may alias what it reads"));
            }
            // Two iterations may store to one element only if every store to the array writes the same value.
            let same_value = facts.stores.iter().filter(|s| s.0 == *array).all(|s| invariant(b, s.2, var, &written));
            let same_index = facts.stores.iter().filter(|s| s.0 == *array).all(|s| same_exprs(b, &s.1, index));
            if !(same_value || (same_index && index.iter().any(|&i| one_to_one(b, i, var, &slots, &written)))) {
                return Err(format!(
                    "two iterations may store different values to the same element of {name} (the order would matter)"
                ));
            }
        }
        Ok(combine)
    }
}

/// What a loop body does, gathered in one walk.
#[derive(Default)]
struct Facts {
    /// Locals assigned anywhere in the body, in order of first write.
    written: Vec<Handle<Local>>,
    /// For each local the body mentions: whether its first mention (pre-order) writes it without reading it.
    first_mention: BTreeMap<Handle<Local>, bool>,
    loads: BTreeSet<ArrayRef>,
    atomics: BTreeSet<ArrayRef>,
    stores: Vec<(ArrayRef, Vec<Handle<Expr>>, Handle<Expr>)>,
    calls: BTreeSet<usize>,
    /// Per local the body writes: each write, as a slot source ([`Write`]).
    writes: BTreeMap<Handle<Local>, Vec<Write>>,
}

/// How a statement of the body writes a local, as far as slots ([`Facts::slots`]) care.
#[derive(Clone, Copy, PartialEq)]
enum Write {
    /// The old value of an `atomic_add` of a positive integer constant: distinct in every iteration.
    Append,
    /// A copy of another local.
    Copy(Handle<Local>),
    Other,
}

impl Facts {
    /// `depth` counts the serial loops inside the body around `block` (a `break` there is theirs).
    fn collect(&mut self, b: &DeviceBody, block: &DeviceBlock, depth: usize) -> Result<(), String> {
        for s in block {
            self.statement(b, s, depth)?;
        }
        Ok(())
    }

    fn statement(&mut self, b: &DeviceBody, s: &DeviceStmt, depth: usize) -> Result<(), String> {
        let reads: Vec<Handle<Local>> = {
            let mut r = Vec::new();
            for e in s.operands() {
                expr_locals(&b.exprs, e, &mut |l| r.push(l));
                self.arrays_read(b, e);
            }
            r
        };
        for &l in &reads {
            self.first_mention.entry(l).or_insert(false);
        }
        for l in s.writes() {
            self.first_mention.entry(l).or_insert(true);
            if !self.written.contains(&l) {
                self.written.push(l);
            }
            let how = match &s.kind {
                StmtKind::Op(DeviceOp::Atomic { op: AtomicOp::Add, value, compare: None, .. })
                    if matches!(b.exprs[*value].kind, ExprKind::Literal(Literal::Int(k)) if k > 0)
                        && b.exprs[*value].ty.is_int() =>
                {
                    Write::Append
                }
                StmtKind::Assign { value, .. } => match b.exprs[*value].kind {
                    ExprKind::Local(from) => Write::Copy(from),
                    _ => Write::Other,
                },
                _ => Write::Other,
            };
            self.writes.entry(l).or_default().push(how);
        }
        match &s.kind {
            StmtKind::Break | StmtKind::Continue if depth == 0 => {
                return Err("`break` or `continue` ends it early (its iterations depend on each other)".into())
            }
            StmtKind::Loop { body, continuing, .. } => {
                self.collect(b, body, depth + 1)?;
                self.collect(b, continuing, depth + 1)?;
            }
            StmtKind::For { body, .. } => self.collect(b, body, depth + 1)?,
            StmtKind::If { then, otherwise, .. } => {
                self.collect(b, then, depth)?;
                self.collect(b, otherwise, depth)?;
            }
            StmtKind::Op(op) => match op {
                DeviceOp::Return(_) => return Err("`return` inside it ends it early".into()),
                DeviceOp::Barrier => return Err("it waits at a barrier".into()),
                DeviceOp::Wait => return Err("`wait` inside it ends the item early".into()),
                DeviceOp::ForAll { .. } | DeviceOp::ForTile { .. } => {
                    return Err("it contains a parallel loop (only the outer one is spread)".into())
                }
                DeviceOp::Store { array, index, value } => self.stores.push((*array, index.clone(), *value)),
                DeviceOp::Atomic { array, .. } => {
                    self.atomics.insert(*array);
                }
                DeviceOp::Call { function, .. } => {
                    self.calls.insert(function.index());
                }
                DeviceOp::Push { .. } | DeviceOp::Retry { .. } | DeviceOp::Reduce { .. } => {}
            },
            _ => {}
        }
        Ok(())
    }

    /// The body's *slots*: locals written once per iteration, by the old value of an `atomic_add` of a positive
    /// constant or by a copy of another slot. Iterations get distinct slots (the atomic hands each its own).
    fn slots(&self) -> BTreeSet<Handle<Local>> {
        let mut slots = BTreeSet::new();
        loop {
            let before = slots.len();
            for (&l, w) in &self.writes {
                let one = match w.as_slice() {
                    [Write::Append] => true,
                    [Write::Copy(from)] => slots.contains(from),
                    _ => false,
                };
                if one {
                    slots.insert(l);
                }
            }
            if slots.len() == before {
                return slots;
            }
        }
    }

    fn arrays_read(&mut self, b: &DeviceBody, e: Handle<Expr>) {
        visit_expr(&b.exprs, e, &mut |x| {
            if let ExprKind::Load { array, .. } = x.kind {
                self.loads.insert(array);
            }
        });
    }
}

/// How often each local is mentioned (read in an operand, or written) by the statements of `block`, nested ones
/// included. Rewriting a `for` into a nested `forall` keeps every count.
fn mentions(b: &DeviceBody, block: &DeviceBlock) -> BTreeMap<Handle<Local>, usize> {
    let mut out = BTreeMap::new();
    for s in block {
        s.visit(&mut |s| {
            for e in s.operands() {
                expr_locals(&b.exprs, e, &mut |l| *out.entry(l).or_insert(0) += 1);
            }
            for l in s.writes() {
                *out.entry(l).or_insert(0) += 1;
            }
        });
    }
    out
}

/// Whether `e` has the same value in every iteration of the loop over `var`: it reads no local the loop writes
/// and no array.
fn invariant(b: &DeviceBody, e: Handle<Expr>, var: Handle<Local>, written: &BTreeSet<Handle<Local>>) -> bool {
    let mut ok = true;
    expr_locals(&b.exprs, e, &mut |l| ok &= l != var && !written.contains(&l));
    ok && !has_load(b, e)
}

/// Whether the index expression `e` takes a different value in every iteration of the loop over `var`: `var`
/// itself or a slot ([`Facts::slots`]), widened by casts, plus or minus something the loop does not change.
fn one_to_one(
    b: &DeviceBody,
    e: Handle<Expr>,
    var: Handle<Local>,
    slots: &BTreeSet<Handle<Local>>,
    written: &BTreeSet<Handle<Local>>,
) -> bool {
    let invariant = |h: Handle<Expr>| invariant(b, h, var, written);
    let one_to_one = |h: Handle<Expr>| one_to_one(b, h, var, slots, written);
    match &b.exprs[e].kind {
        ExprKind::Local(l) => *l == var || slots.contains(l),
        ExprKind::Cast { arg } => {
            let (from, to) = (b.exprs[*arg].ty, b.exprs[e].ty);
            (from.is_int() || from.is_id())
                && (to.is_int() || to.is_id())
                && to.bits() >= from.bits()
                && one_to_one(*arg)
        }
        ExprKind::Binary { op: BinaryOp::Add | BinaryOp::BitXor | BinaryOp::Sub, left, right } => {
            (one_to_one(*left) && invariant(*right)) || (one_to_one(*right) && invariant(*left))
        }
        _ => false,
    }
}

/// Whether two index lists are the same expressions (structurally).
fn same_exprs(b: &DeviceBody, x: &[Handle<Expr>], y: &[Handle<Expr>]) -> bool {
    x.len() == y.len() && x.iter().zip(y).all(|(&p, &q)| same_expr(b, p, q))
}

fn same_expr(b: &DeviceBody, p: Handle<Expr>, q: Handle<Expr>) -> bool {
    if p == q {
        return true;
    }
    let (x, y) = (&b.exprs[p], &b.exprs[q]);
    x.ty == y.ty
        && match (&x.kind, &y.kind) {
            (ExprKind::Literal(l), ExprKind::Literal(m)) => l == m,
            (ExprKind::Local(l), ExprKind::Local(m)) => l == m,
            (ExprKind::Param(l), ExprKind::Param(m)) => l == m,
            (ExprKind::Cast { arg: a }, ExprKind::Cast { arg: c }) => same_expr(b, *a, *c),
            (ExprKind::Unary { op: o, arg: a }, ExprKind::Unary { op: o2, arg: c }) => o == o2 && same_expr(b, *a, *c),
            (ExprKind::Binary { op: o, left: l, right: r }, ExprKind::Binary { op: o2, left: l2, right: r2 }) => {
                o == o2 && same_expr(b, *l, *l2) && same_expr(b, *r, *r2)
            }
            _ => false,
        }
}

/// Whether an expression reads an array (its value may change while the loop runs).
fn has_load(b: &DeviceBody, e: Handle<Expr>) -> bool {
    let mut f = Facts::default();
    f.arrays_read(b, e);
    !f.loads.is_empty()
}

#[cfg(test)]
mod tests {
    use crate::{Options, Remark};
    use irgc_front::ir::print::print_module;

    const HEAD: &str = "graph G;\nnode level: u32 = inf;\nnode x: u64 = 0;\nedge scratch: u32 = 0;\nworklist wl;\n";

    /// The IR after the pass and its remarks.
    fn np(src: &str) -> (String, Vec<String>) {
        let c = irgc_front::compile_source("t.irg", &format!("{HEAD}{src}\nplan {{ }}"));
        let mut m = c.module.unwrap_or_else(|| panic!("compiles: {:?}", c.diagnostics));
        let opts =
            Options { validate: true, ..Options::default() }.without("unroll").without("coop").without("outline");
        let report = crate::run(&mut m, &opts).expect("valid after the pass");
        let pass = report.passes.iter().find(|p| p.name == "np").expect("the pass ran");
        (print_module(&m), pass.remarks.iter().map(|r: &Remark| r.message.clone()).collect())
    }

    #[test]
    fn an_edge_loop_of_a_sweep_is_spread_over_the_block() {
        let (ir, remarks) = np("kernel k(d: u32) { forall v in wl { for e in G.edges(v) { \
             if atomic_min(level[G.dst(e)], d) > d { wl.push(G.dst(e)); } } } }");
        assert!(ir.contains("schedule fine"), "{ir}");
        assert_eq!(
            remarks,
            vec![
                "kernel `k`: the loop over `e` is spread over the block, short ranges iteration by iteration (`fine`)"
            ]
        );
    }

    /// The `stops` the pass records on each kernel's combining loop: found flags may stop (also through a call of
    /// a function that only reads), bitmasks and loops that write may not.
    #[test]
    fn only_read_only_loops_of_found_flags_may_stop_once_the_flag_is_set() {
        let src = "fn big(u: node) -> bool { return level[u] > 3; }\n\
             kernel flag() { forall v in G.nodes { var f: bool = false; \
               for e in G.edges(v) { f = f || level[G.dst(e)] > 3; } x[v] = select(f, 1u64, 0u64); } }\n\
             kernel pure_call() { forall v in G.nodes { var f: bool = false; \
               for e in G.edges(v) { let b = big(G.dst(e)); f = f || b; } x[v] = select(f, 1u64, 0u64); } }\n\
             kernel mask() { forall v in G.nodes { var m: u64 = 0; \
               for e in G.edges(v) { m |= level[G.dst(e)] as u64; } x[v] = m; } }\n\
             kernel writes() { forall v in G.nodes { var f: bool = false; \
               for e in G.edges(v) { atomic_add(scratch[e], 1u32); f = f || level[G.dst(e)] > 3; } \
               x[v] = select(f, 1u64, 0u64); } }";
        let c = irgc_front::compile_source("t.irg", &format!("{HEAD}{src}\nplan {{ }}"));
        let mut m = c.module.unwrap_or_else(|| panic!("compiles: {:?}", c.diagnostics));
        crate::run(&mut m, &Options { validate: true, ..Options::default() }).expect("valid");
        let stops: Vec<(String, bool)> = m
            .kernels
            .iter()
            .map(|(_, k)| {
                let mut found = None;
                for s in &k.body.block {
                    s.visit(&mut |s| {
                        if let irgc_front::ir::StmtKind::Op(irgc_front::ir::DeviceOp::ForAll {
                            combine, stops, ..
                        }) = &s.kind
                        {
                            if !combine.is_empty() {
                                found = Some(*stops);
                            }
                        }
                    });
                }
                (k.name.clone(), found.unwrap_or_else(|| panic!("kernel `{}` has a combining loop", k.name)))
            })
            .collect();
        let want = [("flag", true), ("pure_call", true), ("mask", false), ("writes", false)];
        assert_eq!(stops, want.map(|(k, b)| (k.to_string(), b)).to_vec());
        // The validator checks the recorded decision.
        for k in [2, 3] {
            let mut bad = m.clone();
            let irgc_front::ir::DeviceOp::ForAll { stops, .. } =
                super::super::test_support::forall_of(&mut bad, k, true)
            else {
                unreachable!("forall_of returns a ForAll")
            };
            *stops = true;
            let errors = super::super::test_support::validation_errors(&bad);
            assert!(
                errors.contains("a loop that stops early but combines other than found flags, or writes"),
                "{errors}"
            );
        }
    }

    #[test]
    fn sums_bitmasks_and_minima_are_combined_and_loops_in_functions_use_the_warp() {
        let (ir, remarks) = np("fn f(v: node) -> u64 { var m: u64 = 0; var s: u32 = 0; var lo: node = inf; \
             for e in G.edges(v) { m |= 1u64 << ((G.dst(e) as u64) % 64u64); s += 1; lo = min(lo, G.dst(e)); } \
             return m + (s as u64) + (lo as u64); }\n\
             kernel k() { forall v in G.nodes { x[v] = f(v); } }");
        assert!(ir.contains("schedule warp combine(m: or, s: sum, lo: min)"), "{ir}");
        assert!(remarks[0].starts_with("function `f`: the loop over `e` is spread over the warp, combining"));
    }

    #[test]
    fn loops_whose_iterations_depend_on_each_other_stay_in_their_thread_with_the_reason() {
        let cases = [
            // First found: `break`.
            (
                "kernel k() { forall v in G.nodes { var p = v; for e in G.edges(v) { if G.dst(e) < v { p = G.dst(e); \
              break; } } level[v] = p as u32; } }",
                "`break` or `continue` ends it early",
            ),
            // The last iteration's value escapes.
            (
                "kernel k() { forall v in G.nodes { var p = v; for e in G.edges(v) { p = G.dst(e); } \
              level[v] = p as u32; } }",
                "it assigns `p`, which is used outside the loop",
            ),
            // A counter used as an index (compaction).
            (
                "kernel k() { forall v in G.nodes { var n: u64 = 0; for e in G.edges(v) { \
              scratch[(G.first_edge(v) as u64 + n) as edge] = 1; n += 1; } } }",
                "it assigns `n`",
            ),
            // Reads what it stores.
            (
                "kernel k() { forall v in G.nodes { for e in G.edges(v) { if level[G.dst(e)] == inf { \
              level[G.dst(e)] = level[v] + 1; } } } }",
                "it stores to @level and also reads it",
            ),
            // Different values may land on one element.
            (
                "kernel k() { forall v in G.nodes { for e in G.edges(v) { level[G.dst(e)] = G.dst(e) as u32; } } }",
                "two iterations may store different values to the same element of @level",
            ),
            // Early return from a function whose loop also writes memory (so it cannot become an or).
            (
                "fn f(v: node) -> bool { for e in G.edges(v) { atomic_min(level[G.dst(e)], 1); if G.dst(e) == v { \
              return true; } } return false; }\n\
              kernel k() { forall v in G.nodes { if f(v) { level[v] = 0; } } }",
                "`return` inside it ends it early",
            ),
            // Two stores to one array at different indices (iterations i and i + 1 meet).
            (
                "kernel k() { forall v in G.nodes { for i in 0..G.degree(v) { \
              scratch[((G.first_edge(v) as u64) + (i as u64)) as edge] = i; \
              scratch[((G.first_edge(v) as u64) + (i as u64) + 1u64) as edge] = i; } } }",
                "two iterations may store different values to the same element of @scratch",
            ),
        ];
        for (src, why) in cases {
            let (ir, remarks) = np(src);
            assert!(!ir.contains("schedule "), "{src}\n{ir}");
            assert!(remarks.iter().any(|r| r.contains("stays in its thread") && r.contains(why)), "{src}: {remarks:?}");
        }
    }

    #[test]
    fn stores_of_one_value_or_at_one_to_one_indices_are_parallel() {
        let (ir, _) = np("kernel k(r: u32) { forall v in G.nodes { for e in G.edges(v) { level[G.dst(e)] = r + 1; } \
             for e in G.edges(v) { scratch[e] = 0; } \
             for i in 0..G.degree(v) { scratch[((G.first_edge(v) as u64) + (i as u64)) as edge] = i; } } }");
        assert_eq!(ir.matches("schedule fine").count(), 3, "{ir}");
    }

    #[test]
    fn a_loop_that_leaves_only_by_returning_a_literal_becomes_an_or_and_is_spread() {
        let (ir, remarks) = np("fn f(v: node) -> bool { for e in G.edges(v) { if G.dst(e) == v { return true; } } \
             return false; }\nkernel k() { forall v in G.nodes { if f(v) { level[v] = 0; } } }");
        assert!(ir.contains("schedule warp combine(found: or)"), "{ir}");
        assert!(ir.contains("if found {\n        return true"), "{ir}");
        assert!(remarks.iter().any(|r| r.contains("leaves early only by `return true`")), "{remarks:?}");
        // Two different literals: the exit says which, so the loop keeps it and stays serial.
        let (ir, _) = np("fn f(v: node) -> u32 { for e in G.edges(v) { if G.dst(e) == v { return 1; } \
             if G.dst(e) > v { return 2; } } return 0; }\nkernel k() { forall v in G.nodes { level[v] = f(v); } }");
        assert!(!ir.contains("schedule"), "{ir}");
    }

    #[test]
    fn appends_through_an_atomic_counter_take_distinct_slots_and_are_parallel() {
        let (ir, remarks) = np("kernel k() { forall v in G.nodes { for e in G.edges(v) { let u = G.dst(e); \
             if u > v { let p = atomic_add(level[v], 1u32); \
             scratch[((G.first_edge(v) as u64) + (p as u64)) as edge] = u as u32; } } } }");
        assert!(ir.contains("schedule fine"), "{ir}\n{remarks:?}");
        // A counter that is not an atomic's slot (a plain running count) keeps the loop serial.
        let (ir, _) = np("kernel k() { forall v in G.nodes { var n: u64 = 0; for e in G.edges(v) { \
             let p = atomic_add(level[v], 0u32); scratch[((G.first_edge(v) as u64) + (p as u64)) as edge] = G.dst(e) as u32; } } }");
        assert!(!ir.contains("schedule"), "{ir}");
    }

    #[test]
    fn a_sweep_that_keeps_a_serial_loop_uses_the_warp_schedule_for_the_others() {
        let (ir, remarks) = np("kernel k() { forall v in G.nodes { for e in G.edges(v) { level[G.dst(e)] = 1; } \
             var p = v; for e in G.edges(v) { p = G.dst(e); } level[v] = p as u32; } }");
        assert!(
            ir.contains("schedule warp") && !ir.contains("schedule block") && !ir.contains("schedule fine"),
            "{ir}"
        );
        assert!(remarks.iter().any(|r| r.contains("use the warp schedule instead")), "{remarks:?}");
    }

    #[test]
    fn a_combining_loop_in_a_sweep_takes_the_block_unless_its_body_runs_a_serial_loop() {
        let (ir, remarks) =
            np("kernel k() { forall v in G.nodes { var d: u64 = 0; for e in G.edges(v) { d += 1u64; } \
                 x[v] = d; } }");
        assert!(ir.contains("schedule block combine(d: sum)"), "{ir}");
        assert!(remarks.iter().all(|r| !r.contains("not the block")), "{remarks:?}");
        // Each iteration runs a walk of its own length (tc's merges): the warp.
        let (ir, remarks) = np("kernel k() { forall v in G.nodes { var d: u64 = 0; for e in G.edges(v) { \
                 var u = G.dst(e) as u32; while u > (v as u32) { u = u / 2; d += 1u64; } } x[v] = d; } }");
        assert!(ir.contains("schedule warp combine(d: sum)") && !ir.contains("schedule block"), "{ir}");
        assert!(
            remarks.iter().any(|r| r.contains("by sum (not the block: its body runs a serial loop")),
            "{remarks:?}"
        );
    }

    #[test]
    fn a_written_nested_forall_is_scheduled_and_tiles_are_left_alone() {
        let (ir, _) = np("kernel k() { forall v in G.nodes { forall e in G.edges(v) { atomic_min(level[G.dst(e)], 1); } } }\n\
             kernel t() { forall tile b in 0..4u32 threads i in 0..32 { for j in 0..8 { level[(b * 32 + i) as node] = j; } } }");
        assert!(ir.contains("forall e: edge in out_edges(v) schedule fine"), "{ir}");
        assert_eq!(ir.matches("schedule").count(), 1, "{ir}");
    }

    /// The validator checks the recorded decision: `fine` never carries combined locals.
    #[test]
    fn the_validator_rejects_a_fine_loop_with_combined_locals() {
        let src = format!(
            "{HEAD}kernel k() {{ forall v in G.nodes {{ var d: u64 = 0; \
             for e in G.edges(v) {{ d += 1u64; }} x[v] = d; }} }}\nplan {{ k(); }}"
        );
        let mut m = irgc_front::compile_source("t.irg", &src).module.expect("compiles");
        crate::run(&mut m, &Options { validate: true, ..Options::default() }).expect("valid");
        match super::super::test_support::forall_of(&mut m, 0, true) {
            irgc_front::ir::DeviceOp::ForAll { schedule, .. } => *schedule = irgc_front::ir::Schedule::Fine,
            _ => unreachable!("forall_of returns a ForAll"),
        }
        let errors = super::super::test_support::validation_errors(&m);
        assert!(errors.contains("a `fine` loop with combined locals"), "{errors}");
    }

    #[test]
    fn short_ranges_stay_in_their_threads_where_the_body_runs_a_serial_loop_or_combines() {
        let (ir, remarks) = np("kernel k() { forall v in G.nodes { forall e in G.edges(v) { var u = G.dst(e) as u32; \
             while u > (v as u32) { u = u / 2; } atomic_min(level[u as node], 1); } } }");
        assert!(ir.contains("schedule block") && !ir.contains("schedule fine"), "{ir}");
        assert!(remarks.iter().any(|r| r.contains("short ranges stay in their threads: the body runs a serial loop")));
        let (ir, remarks) =
            np("kernel k() { forall v in G.nodes { var d: u64 = 0; for e in G.edges(v) { d += 1u64; } \
             x[v] = d; } }");
        assert!(ir.contains("schedule block combine(d: sum)"), "{ir}");
        assert!(remarks.iter().any(|r| r.contains("short ranges stay in their threads: combined locals")));
    }
}
