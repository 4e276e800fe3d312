//! Kernel launches: arguments into the context, the space size, the launch itself on the [`Device`], then the
//! worklist protocol (overflow check, retry relaunches, the swap rule), written once for every device.
//!
//! The protocol (see `irgc-artifact`): a pushing kernel finds its push counter at zero (the previous pushing
//! kernel zeroed it: counters come in alternating pairs), so a launch costs no reset copy; only a kernel that
//! retries has its retry counter zeroed first. After the launch the counters are read back in one copy and a set
//! overflow flag fails the run; retried items are relaunched over until none are retried; finally each pushed
//! worklist's current items become what was pushed (the two buffers, and the two push counters, swap roles).

use irgc_artifact::{reduce_combine, KernelDesc, Scalar, Space, WorklistSlot};

use crate::bounds;
use crate::context;
use crate::device::{Device, DeviceBuffer as _};
use crate::error::RunError;
use crate::eval::{self, Env};
use crate::memory::Worklist;
use crate::plan::Machine;
use crate::stats::{LaunchRecord, Pushed, Stats};

/// The environment a kernel's bounds are evaluated in: its arguments are the locals, the rest is the plan's.
struct BoundsEnv<'m, 'a, D: Device> {
    machine: &'m Machine<'a, D>,
    kernel: &'m str,
    args: &'m [u64],
}

impl<D: Device> Env for BoundsEnv<'_, '_, D> {
    fn local(&self, i: usize) -> Result<u64, RunError> {
        self.args.get(i).copied().ok_or_else(|| {
            RunError::plan(format!(
                "the bounds of kernel `{}` read local #{i}, but it takes {} argument(s)",
                self.kernel,
                self.args.len()
            ))
        })
    }

    fn param(&self, p: usize) -> Result<u64, RunError> {
        self.machine.param(p)
    }

    fn num_nodes(&self) -> u64 {
        self.machine.num_nodes()
    }

    fn num_edges(&self) -> u64 {
        self.machine.num_edges()
    }

    fn worklist_size(&self, w: usize) -> Result<u64, RunError> {
        self.machine.worklist_size(w)
    }

    fn device_threads(&self) -> Result<u64, RunError> {
        self.machine.device_threads()
    }

    fn load(&self, global: usize, index: &[u64]) -> Result<u64, RunError> {
        self.machine.load(global, index)
    }
}

impl<D: Device> Machine<'_, D> {
    /// Launches kernel `k` with `args` (typed bits) and returns its reduction result (the identity's bits, or 0,
    /// when it has none).
    pub(crate) fn launch(&mut self, k: usize, args: &[(Scalar, u64)]) -> Result<u64, RunError> {
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
        let mut values = Vec::with_capacity(args.len());
        for (i, (&(from, bits), &to)) in args.iter().zip(&desc.params).enumerate() {
            // The front end types arguments exactly; a cast here only guards against an artifact that does not.
            let v = if from == to { bits } else { eval::cast(from, to, bits) };
            let v = eval::normalize(to, v);
            self.ctx[self.layout.arg(i)] = v;
            values.push(v);
        }
        let mut watched: Vec<usize> = desc.pushes.clone();
        for &w in &watched {
            self.worklist(w)?;
        }
        if let Some(w) = desc.retries {
            self.worklist(w)?;
            self.write_counters(w, Worklist::<D::Buffer>::RETRY_COUNT, &[0])?;
            if !watched.contains(&w) {
                watched.push(w);
            }
        }

        let size = self.space_size(k, desc, &values)?;
        let (mut result, seconds) = self.launch_once(k, desc, size, &watched)?;
        self.record(desc, size, 0, result, seconds);

        if let Some(w) = desc.retries {
            result = self.retry_rounds(k, desc, w, result, &watched)?;
        }
        for &w in &desc.pushes {
            let wl = &mut self.mem.worklists[w];
            wl.count = wl.seen[wl.out_slot];
            wl.cur = 1 - wl.cur;
            // A launch over nothing ran no iteration, so nothing zeroed the other counter: keep counting in this
            // one (still 0, as nothing was pushed).
            if size > 0 {
                wl.out_slot = 1 - wl.out_slot;
            }
            context::sync_worklist(&mut self.ctx, &self.layout, &self.mem, w);
        }
        Ok(result)
    }

    /// Writes counters `first..` of worklist `w`.
    fn write_counters(&mut self, w: usize, first: usize, values: &[u64]) -> Result<(), RunError> {
        let wl = &mut self.mem.worklists[w];
        self.dev.write(&mut wl.counters, 8, first as u64, values)?;
        wl.seen[first..first + values.len()].copy_from_slice(values);
        Ok(())
    }

    fn space_size(&self, k: usize, desc: &KernelDesc, args: &[u64]) -> Result<u64, RunError> {
        Ok(match &desc.space {
            Space::Nodes => self.mem.num_nodes,
            Space::Edges => self.mem.num_edges,
            Space::Worklist(w) => self.worklist(*w)?.count,
            Space::Range { .. } | Space::Tiles { .. } => match self.dev.space_size(k, &self.ctx) {
                Some(size) => size,
                None => {
                    let env = BoundsEnv { machine: self, kernel: &desc.name, args };
                    bounds::space_size(&desc.name, &desc.bounds, &env)?
                }
            },
        })
    }

    /// One launch over `0..size`, counted against the launch limit, followed by reading back the counters of the
    /// `watched` worklists and the overflow check.
    fn launch_once(
        &mut self,
        k: usize,
        desc: &KernelDesc,
        size: u64,
        watched: &[usize],
    ) -> Result<(u64, f64), RunError> {
        if self.launches >= self.options.max_launches {
            return Err(RunError::LaunchLimit { limit: self.options.max_launches, kernel: desc.name.clone() });
        }
        self.launches += 1;
        self.idle_steps = 0;
        crate::progress::count_launches(1);
        if desc.waits {
            self.wait_flags(size)?;
        }
        let launched = self.dev.launch(k, desc, &self.ctx, size)?;
        if desc.waits && size > 0 {
            // Back to all 0 for the next launch that waits (in stream order on a GPU).
            if let Some((flags, _)) = &mut self.mem.wait_flags {
                self.dev.fill(flags, 1, size, 0)?;
            }
        }
        if self.dev.checks_bounds() {
            use irgc_artifact::BoundsReport as R;
            let report = self.dev.read(&self.mem.bounds_report, 8, 0, R::WORDS as u64)?;
            if report[R::SITE] != 0 {
                return Err(RunError::OutOfBounds {
                    kernel: desc.name.clone(),
                    site: report[R::SITE] - 1,
                    index: report[R::INDEX],
                    bound: report[R::BOUND],
                });
            }
        }
        for &w in watched {
            let wl = &mut self.mem.worklists[w];
            let counters = self.dev.read(&wl.counters, 8, 0, Worklist::<D::Buffer>::COUNTERS as u64)?;
            wl.seen.copy_from_slice(&counters);
            if counters[Worklist::<D::Buffer>::OVERFLOW] != 0 {
                return Err(RunError::Overflow(format!(
                    "worklist `{}` overflowed: kernel `{}` pushed more than its capacity of {} items \
                     (max(nodes, edges) + 1); a node is probably pushed more than once per round",
                    wl.name, desc.name, wl.capacity
                )));
            }
        }
        Ok((if desc.reduction.is_some() { launched.bits } else { 0 }, launched.seconds))
    }

    /// Makes the wait flags hold at least `size` bytes (all 0), for a launch of that many iterations whose sweep
    /// waits, and points the context at them.
    fn wait_flags(&mut self, size: u64) -> Result<(), RunError> {
        if self.mem.wait_flags.as_ref().is_some_and(|&(_, len)| len >= size) {
            return Ok(());
        }
        let len = size.max(1);
        let flags = self.dev.alloc_zeroed("the wait flags of a sweep that waits", len, 1)?;
        self.ctx[self.layout.wait_flags()] = flags.address();
        self.mem.wait_flags = Some((flags, len));
        Ok(())
    }

    /// Relaunches `desc` over the items it retried into worklist `w` until it retries none, then restores the
    /// worklist's current items (retries do not change a worklist's contents; only the swap rule does).
    fn retry_rounds(
        &mut self,
        k: usize,
        desc: &KernelDesc,
        w: usize,
        mut result: u64,
        watched: &[usize],
    ) -> Result<u64, RunError> {
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
            let retried = self.mem.worklists[w].seen[Worklist::<D::Buffer>::RETRY_COUNT];
            if retried == 0 {
                break;
            }
            round += 1;
            // The retried items become the kernel's input; retries of this round go to the other buffer.
            let wl = &mut self.mem.worklists[w];
            let Some(bufs) = &wl.retry else {
                return Err(RunError::plan(format!("worklist `{}` has no retry buffer", wl.name)));
            };
            let input = crate::device::DeviceBuffer::address(&bufs[wl.retry_cur]);
            wl.retry_cur = 1 - wl.retry_cur;
            self.write_counters(w, Worklist::<D::Buffer>::RETRY_COUNT, &[0])?;
            context::sync_worklist(&mut self.ctx, &self.layout, &self.mem, w);
            self.ctx[in_slot] = input;
            self.ctx[count_slot] = retried;
            let (r, seconds) = self.launch_once(k, desc, retried, watched)?;
            if let Some((op, ty)) = desc.reduction {
                result = reduce_combine(op, ty, result, r);
            }
            self.record(desc, retried, round, r, seconds);
        }
        self.ctx[in_slot] = saved.0;
        self.ctx[count_slot] = saved.1;
        Ok(result)
    }

    /// Keeps a record of one launch; `reduced` is its reduction's bits (ignored for a kernel without one).
    fn record(&mut self, desc: &KernelDesc, items: u64, retry: u32, reduced: u64, seconds: f64) {
        if !self.options.collect_stats {
            return;
        }
        let pushed = desc
            .pushes
            .iter()
            .map(|&w| {
                let wl = &self.mem.worklists[w];
                Pushed { worklist: wl.name.clone(), items: wl.seen[wl.out_slot] }
            })
            .collect();
        let rec = LaunchRecord {
            round: self.round,
            kernel: desc.name.clone(),
            items,
            pushed,
            retry,
            mode: self.mode,
            reduced: desc.reduction.map(|(_, ty)| eval::to_f64(ty, reduced)),
            seconds,
        };
        Stats::keep(&mut self.stats.launches, &mut self.stats.dropped, rec);
    }
}
