//! Kernel launches: arguments into the context, the space split into chunks run in parallel, partial reductions
//! combined, then the worklist protocol (overflow check, retry relaunches, the swap rule).
//!
//! This is the one module of the crate allowed `unsafe`: it calls [`CpuKernels::run`], whose contract is that the
//! context was built by this runtime for this program. It is: the [`Machine`] builds the context from its own
//! [`Memory`](crate::memory::Memory), whose buffers outlive every launch and never move, keeps every pointer slot
//! in step with the buffers (`context::sync_worklist` after every swap), and passes iteration ranges within the
//! space size it computed for that very context.

use irgc_artifact::{reduce_combine, reduce_identity, KernelDesc, ReduceOp, ScalarType, Space, WorklistSlot};
use rayon::prelude::*;

use crate::context;
use crate::error::RunError;
use crate::eval;
use crate::memory::Worklist;
use crate::plan::{timed, Machine};
use crate::stats::{LaunchRecord, Pushed, Stats};
use crate::CpuKernels;

/// The smallest chunk of iterations handed to one task: below it, scheduling costs more than the work.
pub const MIN_CHUNK: u64 = 256;

/// Runs iterations `0..size` of kernel `k` in parallel chunks on `pool`, combining partial reductions.
fn run_space(
    kernels: &dyn CpuKernels,
    pool: &rayon::ThreadPool,
    k: usize,
    ctx: &[u64],
    size: u64,
    reduction: Option<(ReduceOp, ScalarType)>,
) -> u64 {
    let (op, ty) = reduction.unwrap_or((ReduceOp::Any, ScalarType::Bool));
    let identity = reduce_identity(op, ty);
    if size == 0 {
        return identity;
    }
    let threads = pool.current_num_threads() as u64;
    let chunk = (size / (threads * 8)).max(MIN_CHUNK);
    let chunks = size.div_ceil(chunk);
    // SAFETY: see the module documentation; `lo..hi` lies within the space size computed for `ctx`.
    let run = |c: u64| unsafe { kernels.run(k, ctx, c * chunk, ((c + 1) * chunk).min(size)) };
    if chunks == 1 {
        return reduce_combine(op, ty, identity, run(0));
    }
    pool.install(|| (0..chunks).into_par_iter().map(run).reduce(|| identity, |a, b| reduce_combine(op, ty, a, b)))
}

impl Machine<'_> {
    /// Launches kernel `k` with `args` (typed bits) and returns its reduction result (the identity's bits, or 0,
    /// when it has none).
    pub(crate) fn launch(&mut self, k: usize, args: &[(ScalarType, u64)]) -> Result<u64, RunError> {
        let artifact = self.artifact;
        let desc: &KernelDesc = artifact
            .kernels
            .get(k)
            .ok_or_else(|| RunError::plan(format!("the plan launches kernel #{k}, which does not exist")))?;
        if args.len() != desc.params.len() {
            return Err(RunError::plan(format!(
                "kernel `{}` takes {} argument(s) but the plan passes {}",
                desc.name,
                desc.params.len(),
                args.len()
            )));
        }
        for (i, (&(from, bits), &to)) in args.iter().zip(&desc.params).enumerate() {
            // The front end types arguments exactly; a cast here only guards against an artifact that does not.
            let v = if from == to { bits } else { eval::cast(from, to, bits) };
            self.ctx[self.layout.arg(i)] = eval::normalize(to, v);
        }
        for &w in desc.pushes.iter().chain(&desc.retries) {
            self.worklist(w)?;
            let wl = &self.mem.worklists[w];
            wl.counters.set_word(Worklist::OUT_COUNT, 0);
            wl.counters.set_word(Worklist::RETRY_COUNT, 0);
        }

        let size = self.space_size(k, desc)?;
        let (mut result, seconds) = self.launch_once(k, desc, size)?;
        self.record(desc, size, 0, seconds);

        if let Some(w) = desc.retries {
            result = self.retry_rounds(k, desc, w, result)?;
        }
        for &w in &desc.pushes {
            let wl = &mut self.mem.worklists[w];
            wl.count = wl.counters.word(Worklist::OUT_COUNT);
            wl.counters.set_word(Worklist::OUT_COUNT, 0);
            wl.cur = 1 - wl.cur;
            context::sync_worklist(&mut self.ctx, &self.layout, &self.mem, w);
        }
        Ok(result)
    }

    fn space_size(&self, k: usize, desc: &KernelDesc) -> Result<u64, RunError> {
        Ok(match &desc.space {
            Space::Nodes => self.mem.num_nodes,
            Space::Edges => self.mem.num_edges,
            Space::Worklist(w) => self.worklist(*w)?.count,
            // SAFETY: `self.ctx` was built by `context::build` for this program's layout and memory.
            Space::Range { .. } | Space::Tiles { .. } => unsafe { self.kernels.space_size(k, &self.ctx) },
        })
    }

    /// One launch over `0..size`, counted against the launch limit, followed by the overflow check.
    fn launch_once(&mut self, k: usize, desc: &KernelDesc, size: u64) -> Result<(u64, f64), RunError> {
        if self.launches >= self.options.max_launches {
            return Err(RunError::LaunchLimit { limit: self.options.max_launches, kernel: desc.name.clone() });
        }
        self.launches += 1;
        let (kernels, pool, ctx) = (self.kernels, &self.pool, &self.ctx);
        let (result, seconds) = timed(|| run_space(kernels, pool, k, ctx, size, desc.reduction));
        for &w in desc.pushes.iter().chain(&desc.retries) {
            let wl = &self.mem.worklists[w];
            if wl.counters.word(Worklist::OVERFLOW) != 0 {
                return Err(RunError::Overflow(format!(
                    "worklist `{}` overflowed: kernel `{}` pushed more than its capacity of {} items \
                     (max(nodes, edges) + 1); a node is probably pushed more than once per round",
                    wl.name, desc.name, wl.capacity
                )));
            }
        }
        Ok((if desc.reduction.is_some() { result } else { 0 }, seconds))
    }

    /// Relaunches `desc` over the items it retried into worklist `w` until it retries none, then restores the
    /// worklist's current items (retries do not change a worklist's contents; only the swap rule does).
    fn retry_rounds(&mut self, k: usize, desc: &KernelDesc, w: usize, mut result: u64) -> Result<u64, RunError> {
        if desc.space != Space::Worklist(w) {
            return Err(RunError::plan(format!(
                "kernel `{}` retries into worklist `{}` but does not sweep it; retry needs `forall x in {}`",
                desc.name, self.mem.worklists[w].name, self.mem.worklists[w].name
            )));
        }
        let (in_slot, count_slot) =
            (self.layout.worklist(w, WorklistSlot::InItems), self.layout.worklist(w, WorklistSlot::InCount));
        let saved = (self.ctx[in_slot], self.ctx[count_slot]);
        let mut round = 0u32;
        loop {
            let wl = &mut self.mem.worklists[w];
            let retried = wl.counters.word(Worklist::RETRY_COUNT);
            if retried == 0 {
                break;
            }
            round += 1;
            // The retried items become the kernel's input; retries of this round go to the other buffer.
            let Some(bufs) = &wl.retry else {
                return Err(RunError::plan(format!("worklist `{}` has no retry buffer", wl.name)));
            };
            let input = bufs[wl.retry_cur].addr();
            wl.retry_cur = 1 - wl.retry_cur;
            wl.counters.set_word(Worklist::RETRY_COUNT, 0);
            context::sync_worklist(&mut self.ctx, &self.layout, &self.mem, w);
            self.ctx[in_slot] = input;
            self.ctx[count_slot] = retried;
            let (r, seconds) = self.launch_once(k, desc, retried)?;
            if let Some((op, ty)) = desc.reduction {
                result = reduce_combine(op, ty, result, r);
            }
            self.record(desc, retried, round, seconds);
        }
        self.ctx[in_slot] = saved.0;
        self.ctx[count_slot] = saved.1;
        Ok(result)
    }

    fn record(&mut self, desc: &KernelDesc, items: u64, retry: u32, seconds: f64) {
        if !self.options.collect_stats {
            return;
        }
        let pushed = desc
            .pushes
            .iter()
            .map(|&w| {
                let wl = &self.mem.worklists[w];
                Pushed { worklist: wl.name.clone(), items: wl.counters.word(Worklist::OUT_COUNT) }
            })
            .collect();
        let rec = LaunchRecord {
            round: self.round,
            kernel: desc.name.clone(),
            items,
            pushed,
            retry,
            mode: self.mode,
            seconds,
        };
        Stats::keep(&mut self.stats.launches, &mut self.stats.dropped, rec);
    }
}
