//! The host plan interpreter: runs an artifact's [`Plan`] statement by statement over live device memory.
//!
//! The plan is small and sequential (it launches kernels and moves a few scalars), so a tree-walking interpreter
//! costs nothing next to the kernels it launches. Control flow follows the artifact's documentation: `Loop` runs
//! `body`, then `continuing`, then leaves if `break_if` holds, and `Continue` jumps to `continuing`; `For` evaluates
//! its bounds once and counts in its variable's type; `Pipe` checks its worklist before every round; `Hybrid`
//! picks `dense` when the worklist holds more than `threshold × num_nodes` items.
//!
//! The interpreter is generic over the [`Device`] that holds the memory and runs the kernels; everything here is
//! host-side bookkeeping plus element reads and writes through the device.

use std::time::Instant;

use irgc_artifact::{Artifact, AutoHybrid, BinaryOp, HostExpr, HostStmt, Layout, PipeState, Scalar};

use crate::context;
use crate::device::{Device, DeviceBuffer, HostRounds, PipeRun};
use crate::error::RunError;
use crate::eval::{self, Env};
use crate::loop_gate::{LoopGate, Next};
use crate::memory::{Global, Memory, Worklist};
use crate::stats::{Contraction, HybridChoice, LoopRound, Mode, OutlinedRun, PipeRound, Printed, Stats};
use crate::{LoopOutlining, RunOptions};

/// How an outlined pipe or loop ran ([`Machine::outlined_pipe`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Outlined {
    /// Not as one kernel (the device cannot, the options do not allow it, or nothing is left to run): the host
    /// runs the round.
    Declined,
    /// To its end.
    Done,
    /// A loop's trial ran this many rounds and the loop goes on.
    Paused { rounds: u64 },
}

/// How a block ended.
enum Flow {
    Normal,
    Break,
    Continue,
}

/// The state of a running plan.
pub(crate) struct Machine<'a, D: Device> {
    pub artifact: &'a Artifact,
    pub layout: Layout,
    pub dev: &'a mut D,
    pub mem: Memory<D::Buffer>,
    /// The host copy of the kernel context.
    pub ctx: Vec<u64>,
    pub params: Vec<u64>,
    pub locals: Vec<u64>,
    pub options: &'a RunOptions,
    pub stats: Stats,
    pub launches: u64,
    /// Pipe rounds started so far.
    pub round: u64,
    /// The innermost enclosing `hybrid` branch.
    pub mode: Option<Mode>,
    /// Pipes the statement being run is inside (a `print` there belongs to a round).
    pub pipes_open: u32,
    /// Plan statements run since the last kernel launch (see [`IDLE_STEPS`]).
    pub idle_steps: u64,
    /// What each `hybrid ... above auto` measured so far, by the statement's address in the artifact (the same
    /// statement all run long).
    pub auto: std::collections::HashMap<usize, AutoHybrid>,
}

/// Plan statements the interpreter runs without a kernel launch before it calls the plan stuck: `--max-launches`
/// cannot see a loop that launches nothing (`while true { x += 1; }`), and a plan's own arithmetic between two
/// launches is a handful of statements, not tens of millions.
pub const IDLE_STEPS: u64 = 1 << 26;

impl<D: Device> Env for Machine<'_, D> {
    fn local(&self, i: usize) -> Result<u64, RunError> {
        self.locals.get(i).copied().ok_or_else(|| RunError::plan(format!("the plan reads local #{i}, which it lacks")))
    }

    fn param(&self, p: usize) -> Result<u64, RunError> {
        self.params.get(p).copied().ok_or_else(|| RunError::plan(format!("the plan reads param #{p}, which it lacks")))
    }

    fn num_nodes(&self) -> u64 {
        self.mem.num_nodes
    }

    fn num_edges(&self) -> u64 {
        self.mem.num_edges
    }

    fn worklist_size(&self, w: usize) -> Result<u64, RunError> {
        Ok(self.worklist(w)?.count)
    }

    fn device_threads(&self) -> Result<u64, RunError> {
        Ok(self.dev.parallel_threads())
    }

    fn load(&self, global: usize, index: &[u64]) -> Result<u64, RunError> {
        let g = self.global(global)?;
        let i = g.linear(index)?;
        Ok(self.dev.read(&g.buf, g.elem.size(), i, 1)?[0])
    }
}

impl<'a, D: Device> Machine<'a, D> {
    pub fn global(&self, g: usize) -> Result<&Global<D::Buffer>, RunError> {
        self.mem.globals.get(g).ok_or_else(|| RunError::plan(format!("the plan uses array #{g}, which does not exist")))
    }

    pub fn worklist(&self, w: usize) -> Result<&Worklist<D::Buffer>, RunError> {
        self.mem
            .worklists
            .get(w)
            .ok_or_else(|| RunError::plan(format!("the plan uses worklist #{w}, which does not exist")))
    }

    fn eval(&self, e: &HostExpr) -> Result<u64, RunError> {
        eval::eval(e, self)
    }

    fn local_ty(&self, i: usize) -> Result<Scalar, RunError> {
        self.artifact
            .plan
            .locals
            .get(i)
            .map(|l| l.1)
            .ok_or_else(|| RunError::plan(format!("the plan assigns local #{i}, which it does not declare")))
    }

    fn set_local(&mut self, i: usize, bits: u64) -> Result<(), RunError> {
        let ty = self.local_ty(i)?;
        self.locals[i] = eval::normalize(ty, bits);
        Ok(())
    }

    /// A machine for `artifact` over `mem` on `dev`, before its plan runs.
    pub fn new(
        artifact: &'a Artifact,
        layout: Layout,
        dev: &'a mut D,
        mem: Memory<D::Buffer>,
        ctx: Vec<u64>,
        params: &[u64],
        options: &'a RunOptions,
    ) -> Self {
        Machine {
            artifact,
            layout,
            dev,
            mem,
            ctx,
            params: params.to_vec(),
            locals: Vec::new(),
            options,
            stats: Stats::default(),
            launches: 0,
            round: 0,
            mode: None,
            pipes_open: 0,
            idle_steps: 0,
            auto: Default::default(),
        }
    }

    /// Runs a block of plan code after the plan (a multi-device run's `merge`), with the plan's locals.
    pub fn run_block(&mut self, stmts: &'a [HostStmt]) -> Result<(), RunError> {
        if self.locals.len() < self.artifact.plan.locals.len() {
            self.locals = vec![0; self.artifact.plan.locals.len()];
        }
        match self.block(stmts)? {
            Flow::Normal => Ok(()),
            Flow::Break | Flow::Continue => Err(RunError::plan("a `break` or `continue` outside a loop")),
        }
    }

    /// Runs the whole plan.
    pub fn run_plan(&mut self) -> Result<(), RunError> {
        self.locals = vec![0; self.artifact.plan.locals.len()];
        let body = &self.artifact.plan.body;
        match self.block(body)? {
            Flow::Normal => Ok(()),
            // The front end rejects a `break` outside a loop; an artifact with one is ill-formed.
            Flow::Break | Flow::Continue => Err(RunError::plan("the plan has a `break` or `continue` outside a loop")),
        }
    }

    fn block(&mut self, stmts: &'a [HostStmt]) -> Result<Flow, RunError> {
        for s in stmts {
            match self.stmt(s)? {
                Flow::Normal => {}
                other => return Ok(other),
            }
        }
        Ok(Flow::Normal)
    }

    fn stmt(&mut self, s: &'a HostStmt) -> Result<Flow, RunError> {
        self.idle_steps += 1;
        if self.idle_steps > IDLE_STEPS {
            return Err(RunError::plan(format!(
                "the plan ran {IDLE_STEPS} statements (a fill counting one per 64 elements) without launching a \
                 kernel: it looks like a loop that never ends (use --timeout SECONDS to bound a run)"
            )));
        }
        match s {
            HostStmt::Assign { local, value } => {
                let v = self.eval(value)?;
                self.set_local(*local, v)?;
            }
            HostStmt::Store { global, index, value } => {
                let idx = index.iter().map(|i| self.eval(i)).collect::<Result<Vec<_>, _>>()?;
                let v = self.eval(value)?;
                let i = self.global(*global)?.linear(&idx)?;
                let g = &mut self.mem.globals[*global];
                self.dev.write(&mut g.buf, g.elem.size(), i, &[eval::normalize(g.elem, v)])?;
            }
            HostStmt::Fill { global, value } => {
                let v = self.eval(value)?;
                self.global(*global)?;
                let g = &mut self.mem.globals[*global];
                let len = g.len();
                // A fill is work without a launch: a loop of fills alone is stopped as other idle loops are,
                // after about 2^32 elements written rather than 2^26 statements.
                self.idle_steps += len / 64;
                self.dev.fill(&mut g.buf, g.elem.size(), len, eval::normalize(g.elem, v))?;
            }
            HostStmt::Push { worklist, value } => {
                let v = self.eval(value)?;
                self.host_push(*worklist, v)?;
            }
            HostStmt::Print { items } => {
                for (label, e) in items {
                    let bits = self.eval(e)?;
                    let rec = Printed {
                        label: label.clone(),
                        ty: e.ty.name().to_string(),
                        text: crate::output::format_value(e.ty, bits, "inf"),
                        value: eval::to_f64(e.ty, bits),
                        round: if self.pipes_open > 0 { self.round } else { 0 },
                    };
                    Stats::keep(&mut self.stats.printed, &mut self.stats.dropped, rec);
                }
            }
            HostStmt::Contract { label } => {
                let weight_ty = self.artifact.graph.as_ref().and_then(|g| g.weight);
                let (nodes, edges) = (self.mem.num_nodes, self.mem.num_edges);
                // The launches queued before it finish first, so the record times the contraction alone (its read
                // of the labels would otherwise wait for them inside the timed span).
                self.dev.finish()?;
                let started = std::time::Instant::now();
                let phases = crate::contract::contract(&mut *self.dev, &mut self.mem, *label, weight_ty)?;
                let rec = Contraction {
                    nodes,
                    edges,
                    groups: self.mem.num_nodes,
                    new_edges: self.mem.num_edges,
                    seconds: started.elapsed().as_secs_f64(),
                    phases,
                };
                Stats::keep(&mut self.stats.contractions, &mut self.stats.dropped, rec);
                context::sync_memory(&mut self.ctx, &self.layout, &self.mem);
            }
            HostStmt::Clear { worklist } => {
                self.worklist(*worklist)?;
                self.mem.worklists[*worklist].count = 0;
                context::sync_worklist(&mut self.ctx, &self.layout, &self.mem, *worklist);
            }
            HostStmt::Invoke { kernel, args, result } => {
                let args = args.iter().map(|a| Ok((a.ty, self.eval(a)?))).collect::<Result<Vec<_>, RunError>>()?;
                let r = self.launch(*kernel, &args)?;
                if let Some(local) = result {
                    self.set_local(*local, r)?;
                }
            }
            HostStmt::If { cond, then, otherwise } => {
                let branch = if self.eval(cond)? != 0 { then } else { otherwise };
                return self.block(branch);
            }
            HostStmt::Loop { body, continuing, break_if, outlined } => {
                // An outlined loop asks its gate before each round where it runs (`crate::loop_gate`).
                let mut gate = outlined.map(|p| (p, LoopGate::new(self.loop_outlining())));
                // The loop's rounds so far, wherever they ran (its kernel rounds' records count on from here).
                let mut iterations = 0;
                loop {
                    if let Some((p, g)) = &mut gate {
                        if let Next::Kernel(budget) = g.next() {
                            let started = Instant::now();
                            let at = HostRounds { rounds_done: iterations, ..HostRounds::default() };
                            match self.outlined_pipe(*p, None, at, &[], budget)? {
                                Outlined::Done => break,
                                Outlined::Declined => g.declined(),
                                Outlined::Paused { rounds } => {
                                    if let Some(c) = g.trial(rounds, started.elapsed().as_secs_f64()) {
                                        Stats::keep(&mut self.stats.loop_choices, &mut self.stats.dropped, c);
                                    }
                                    iterations += rounds;
                                    continue;
                                }
                            }
                        }
                    }
                    iterations += 1;
                    let started = Instant::now();
                    if let Flow::Break = self.block(body)? {
                        break;
                    }
                    if let Flow::Break = self.block(continuing)? {
                        break;
                    }
                    if let Some(c) = break_if {
                        if self.eval(c)? != 0 {
                            break;
                        }
                    }
                    if let Some((_, g)) = &mut gate {
                        g.host_round(started.elapsed().as_secs_f64());
                    }
                }
            }
            HostStmt::For { var, start, end, body } => {
                let ty = self.local_ty(*var)?;
                let (mut i, end) = (self.eval(start)?, self.eval(end)?);
                while eval::binary(BinaryOp::Lt, ty, i, end)? != 0 {
                    self.set_local(*var, i)?;
                    if let Flow::Break = self.block(body)? {
                        break;
                    }
                    // The loop counts in its own variable, not in the (possibly reassigned) local.
                    i = eval::binary(BinaryOp::Add, ty, i, 1)?;
                }
            }
            HostStmt::Break => return Ok(Flow::Break),
            HostStmt::Continue => return Ok(Flow::Continue),
            HostStmt::Pipe { worklist, body, outlined } => {
                let mut last = HostRounds::default();
                loop {
                    // Asked again every round: a device may run the first rounds as ordinary launches (large ones,
                    // or the first few of every pipe) and enter the persistent kernel later (see `Device::run_pipe`).
                    if let Some(p) = outlined {
                        if self.outlined_pipe(*p, Some(*worklist), last, body, None)? == Outlined::Done {
                            return Ok(Flow::Normal);
                        }
                    }
                    let size = self.worklist(*worklist)?.count;
                    last.rounds_done += 1;
                    last.previous_count = size;
                    if size == 0 {
                        break;
                    }
                    self.round += 1;
                    if self.options.collect_stats {
                        let name = self.mem.worklists[*worklist].name.clone();
                        let rec = PipeRound { worklist: name, round: self.round, size, ms: None, dense: None };
                        Stats::keep(&mut self.stats.pipe_rounds, &mut self.stats.dropped, rec);
                    }
                    self.pipes_open += 1;
                    let started = Instant::now();
                    let flow = self.block(body);
                    last.previous_seconds = started.elapsed().as_secs_f64();
                    self.pipes_open -= 1;
                    if let Flow::Break = flow? {
                        break;
                    }
                }
            }
            HostStmt::Hybrid { worklist, threshold, dense, sparse } => {
                let size = self.worklist(*worklist)?.count;
                let Some(threshold) = threshold else { return self.auto_hybrid(s, *worklist, size, dense, sparse) };
                let t = eval::to_f64(threshold.ty, self.eval(threshold)?);
                let above = t * self.mem.num_nodes as f64;
                let mode = if size as f64 > above { Mode::Dense } else { Mode::Sparse };
                if self.options.collect_stats {
                    let name = self.mem.worklists[*worklist].name.clone();
                    let rec = HybridChoice { worklist: name, size, above: Some(above), mode };
                    Stats::keep(&mut self.stats.hybrid, &mut self.stats.dropped, rec);
                }
                let outer = self.mode.replace(mode);
                let flow = self.block(if mode == Mode::Dense { dense } else { sparse });
                self.mode = outer;
                return flow;
            }
        }
        Ok(Flow::Normal)
    }

    /// A `hybrid ... above auto` (statement `s`): the mode its estimates predict cheaper for `size` items, run and
    /// timed (to the end of its work on the device), and the estimates updated with the time.
    fn auto_hybrid(
        &mut self,
        s: &'a HostStmt,
        worklist: usize,
        size: u64,
        dense: &'a [HostStmt],
        sparse: &'a [HostStmt],
    ) -> Result<Flow, RunError> {
        let key = s as *const HostStmt as usize;
        let cost = self.auto.get(&key).copied().unwrap_or_default();
        let n = self.mem.num_nodes;
        let mode = if cost.dense(size, n) { Mode::Dense } else { Mode::Sparse };
        if self.options.collect_stats {
            let name = self.mem.worklists[worklist].name.clone();
            let rec = HybridChoice { worklist: name, size, above: None, mode };
            Stats::keep(&mut self.stats.hybrid, &mut self.stats.dropped, rec);
        }
        let outer = self.mode.replace(mode);
        let start = Instant::now();
        let flow = self.block(if mode == Mode::Dense { dense } else { sparse });
        self.mode = outer;
        // A failed branch's own error, not the wait's.
        let flow = flow?;
        self.dev.finish()?;
        let ns = start.elapsed().as_nanos() as f64;
        self.auto.entry(key).or_default().update(mode == Mode::Dense, size, ns);
        Ok(flow)
    }

    /// The estimates of the `hybrid`s in `body` (pre-order, the order an outlined pipe's kernel numbers them;
    /// fixed ones too, which the kernel ignores), and their keys in [`Machine::auto`].
    fn hybrids_of(&self, body: &'a [HostStmt]) -> Vec<(usize, AutoHybrid)> {
        fn walk<'b>(block: &'b [HostStmt], out: &mut Vec<&'b HostStmt>) {
            for s in block {
                match s {
                    HostStmt::If { then, otherwise, .. } => {
                        walk(then, out);
                        walk(otherwise, out);
                    }
                    HostStmt::Hybrid { dense, sparse, .. } => {
                        out.push(s);
                        walk(dense, out);
                        walk(sparse, out);
                    }
                    _ => {}
                }
            }
        }
        let mut found = Vec::new();
        walk(body, &mut found);
        found
            .into_iter()
            .map(|s| {
                let key = s as *const HostStmt as usize;
                (key, self.auto.get(&key).copied().unwrap_or_default())
            })
            .collect()
    }

    /// When this run lets a device run outlined loops as one kernel: as the options say, never without outlining.
    /// With statistics the kernel records each round (`LoopRound`), so they need not run the loop launch by launch.
    fn loop_outlining(&self) -> LoopOutlining {
        if self.options.outline {
            self.options.outline_loops
        } else {
            LoopOutlining::Never
        }
    }

    /// Runs outlined pipe `p` over worklist `w` (or outlined loop `p`, without) as one kernel if the device can
    /// (and the options allow), after the host rounds `last` says (a loop: after `last.rounds_done` rounds
    /// wherever they ran, which numbers its records; the device is told none); a loop's trial runs at most
    /// `budget` rounds. Afterwards the host locals are the kernel's, the worklist is empty, and the launch count
    /// and round number have moved on as if the rounds had run from the host.
    fn outlined_pipe(
        &mut self,
        p: usize,
        w: Option<usize>,
        last: HostRounds,
        body: &'a [HostStmt],
        budget: Option<u64>,
    ) -> Result<Outlined, RunError> {
        let artifact = self.artifact;
        let Some(desc) = artifact.pipes.get(p) else {
            return Err(RunError::plan(format!("the plan runs outlined pipe #{p}, which does not exist")));
        };
        let count = match w {
            Some(w) => self.worklist(w)?.count,
            None => 0,
        };
        let per_round = desc.launches_per_round.max(1);
        let launch_rounds = self.options.max_launches.saturating_sub(self.launches) / per_round;
        let max_rounds = budget.map_or(launch_rounds, |b| b.min(launch_rounds));
        // Nothing to run, or not a whole round left: the host loop says so (or ends) as usual. (A loop reaches
        // here only when its gate allows it: `loop_outlining`.)
        let allowed = self.options.outline;
        if !allowed || desc.worklist != w || (w.is_some() && count == 0) || max_rounds == 0 {
            return Ok(Outlined::Declined);
        }
        let retry_buffers = match w.and_then(|w| self.mem.worklists[w].retry.as_ref()) {
            Some(bufs) => [bufs[0].address(), bufs[1].address()],
            None => [0, 0],
        };
        let max_launches = self.options.max_launches.saturating_sub(self.launches);
        // Statistics: the kernel records each round (as many as the statistics keep), so they need not run the
        // rounds from the host.
        let kept = match w {
            Some(_) => self.stats.pipe_rounds.len(),
            None => self.stats.loop_rounds.len(),
        };
        let record_rounds = if self.options.collect_stats {
            max_rounds.min(crate::stats::MAX_RECORDS.saturating_sub(kept) as u64)
        } else {
            0
        };
        let hybrids = self.hybrids_of(body);
        let auto: Vec<AutoHybrid> = hybrids.iter().map(|h| h.1).collect();
        let run = PipeRun {
            pipe: p,
            auto: &auto,
            desc,
            count,
            max_rounds,
            max_launches,
            retry_buffers,
            host: if w.is_some() { last } else { HostRounds::default() },
            record_rounds,
            locals: &self.locals,
        };
        let Some(end) = self.dev.run_pipe(run, &self.ctx)? else {
            return Ok(Outlined::Declined);
        };
        for (i, &bits) in end.locals.iter().enumerate().take(self.locals.len()) {
            self.set_local(i, bits)?;
        }
        for ((key, _), cost) in hybrids.iter().zip(&end.auto) {
            self.auto.insert(*key, *cost);
        }
        self.launches += end.launches;
        crate::progress::count_launches(end.launches);
        let name = w.map(|w| self.mem.worklists[w].name.clone());
        let what = name.as_ref().map_or("loop".to_string(), |n| format!("pipe over {n}"));
        if w.is_none() {
            self.keep_loop_records(last.rounds_done, &end.records);
        }
        if let Some(w) = w {
            self.keep_round_records(w, &end.records);
            self.round += end.rounds;
            self.mem.worklists[w].count = 0;
            context::sync_worklist(&mut self.ctx, &self.layout, &self.mem, w);
        }
        let worklist = name.unwrap_or_default();
        self.stats.outlined.push(OutlinedRun { worklist, size: count, rounds: end.rounds });
        match (end.status, w) {
            (PipeState::DONE, _) => Ok(Outlined::Done),
            // The budget's rounds ran, fewer than the launch limit allows: the loop goes on.
            (PipeState::LIMIT, None) if max_rounds < launch_rounds && end.rounds >= max_rounds => {
                Ok(Outlined::Paused { rounds: end.rounds })
            }
            (PipeState::LIMIT, _) => Err(RunError::LaunchLimit {
                limit: self.options.max_launches,
                kernel: format!("{what}, run as one GPU kernel"),
            }),
            (PipeState::OVERFLOW, Some(w)) => Err(RunError::Overflow(format!(
                "worklist `{}` overflowed: a kernel of the pipe over it pushed more than its capacity of {} items \
                 (max(nodes, edges) + 1); a node is probably pushed more than once per round",
                self.mem.worklists[w].name, self.mem.worklists[w].capacity
            ))),
            (other, _) => Err(RunError::Device(format!("the outlined {what} ended with unknown status {other}"))),
        }
    }

    /// The statistics of the rounds an outlined pipe over worklist `w` ran in its kernel, as the host keeps its
    /// own rounds': a `PipeRound` each (with the clock's time and the mode), and a `HybridChoice` for each
    /// `hybrid` a round ran.
    fn keep_round_records(&mut self, w: usize, records: &[crate::device::RoundRecord]) {
        let name = &self.mem.worklists[w].name;
        for (i, r) in records.iter().enumerate() {
            // A round that ran a `hybrid` ran dense if one of them did; without one, no mode.
            let ran: Vec<bool> = r.hybrids.iter().flatten().map(|&(d, _)| d).collect();
            let dense = (!ran.is_empty()).then(|| ran.contains(&true));
            let round = self.round + 1 + i as u64;
            let ms = Some(r.ns as f64 / 1e6);
            let rec = PipeRound { worklist: name.clone(), round, size: r.size, ms, dense };
            Stats::keep(&mut self.stats.pipe_rounds, &mut self.stats.dropped, rec);
            for &(d, above) in r.hybrids.iter().flatten() {
                let mode = if d { Mode::Dense } else { Mode::Sparse };
                // The kernel writes NaN for an `above auto` (no single threshold).
                let above = (!above.is_nan()).then_some(above);
                let rec = HybridChoice { worklist: name.clone(), size: r.size, above, mode };
                Stats::keep(&mut self.stats.hybrid, &mut self.stats.dropped, rec);
            }
        }
    }

    /// The statistics of the rounds an outlined loop ran in its kernel after `before` rounds: a `LoopRound` each,
    /// placed after the launch records kept so far.
    fn keep_loop_records(&mut self, before: u64, records: &[crate::device::RoundRecord]) {
        let after_launches = self.stats.launches.len() as u64;
        for (i, r) in records.iter().enumerate() {
            let rec = LoopRound {
                round: self.round,
                iteration: before + 1 + i as u64,
                after_launches,
                reduced: r.reduced,
                ms: r.ns as f64 / 1e6,
            };
            Stats::keep(&mut self.stats.loop_rounds, &mut self.stats.dropped, rec);
        }
    }

    /// A host push: appends to the worklist's current items.
    fn host_push(&mut self, w: usize, bits: u64) -> Result<(), RunError> {
        let wl = self.worklist(w)?;
        if wl.count >= wl.capacity {
            return Err(RunError::Overflow(format!(
                "worklist `{}` is full: the plan pushed more than its capacity of {} items",
                wl.name, wl.capacity
            )));
        }
        let wl = &mut self.mem.worklists[w];
        let (size, at, bits) = (wl.elem.size(), wl.count, eval::normalize(wl.elem, bits));
        self.dev.write(wl.in_buf_mut(), size, at, &[bits])?;
        wl.count += 1;
        context::sync_worklist(&mut self.ctx, &self.layout, &self.mem, w);
        Ok(())
    }
}

/// Times `f`.
pub(crate) fn timed<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let start = Instant::now();
    let r = f();
    (r, start.elapsed().as_secs_f64())
}
