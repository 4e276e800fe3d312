//! The CPU as a [`Device`]: word buffers in host memory ([`Buffer`]) and kernels from a [`CpuKernels`]
//! implementation, run in parallel chunks on the process's [`WorkerPool`] with their partial reductions combined.
//!
//! This is the one module of the crate allowed `unsafe` (with its child `pool`, which runs a launch's chunks on
//! the workers; its own documentation gives that argument): it calls [`CpuKernels::run`] and
//! [`CpuKernels::space_size`], whose contract is that the context was built by this runtime for this program. It
//! is: the interpreter builds the context from its own [`Memory`](crate::memory::Memory) of [`Buffer`]s allocated
//! here, which outlive every launch and never move, keeps every pointer slot in step with the buffers
//! (`context::sync_worklist` after every swap), and passes iteration ranges within the space size it computed for
//! that very context.

use irgc_artifact::{reduce_combine, reduce_identity, KernelDesc, ReduceOp, Scalar};
use irgc_graph::Shared;
use rayon::prelude::*;

use crate::device::{Device, Launched};
use crate::error::RunError;
use crate::memory::{available_memory, Buffer};
use crate::plan::timed;
use crate::{CpuKernels, RunOptions};
use pool::WorkerPool;
use std::sync::Arc;

mod pool;

/// The smallest chunk of iterations handed to one thread. The workers spin between launches and claim chunks
/// from a counter, so handing over a chunk costs about a microsecond: even a road network's BFS levels of a few
/// hundred nodes gain from being split (measured on FLA, 2 threads: `bfs_do` 40 ms run on the calling thread,
/// 28 ms split in chunks of 64; chunks of 32 to 256 measured within noise).
pub const MIN_CHUNK: u64 = 64;

/// How many chunks a large space is cut into per thread. Iterations may differ wildly in cost (a hub's row), and
/// the costly ones often sit together (graphs numbered by degree put every hub in the first chunk): with 8 chunks
/// a thread, triangle counting on a Kronecker graph numbered so (scale 19, 2 threads) took 4.2 s, with 64 3.3 s
/// (as with 512 or with chunks of 64 iterations); PageRank, BFS, CC and BC on the graph numbered at random, and
/// road networks, measured the same within noise.
pub const CHUNKS_PER_THREAD: u64 = 64;

/// The CPU: host memory and the kernels of the CPU backend.
pub struct CpuDevice<'a> {
    kernels: &'a dyn CpuKernels,
    pool: Arc<WorkerPool>,
    memory_limit: Option<u64>,
}

impl<'a> CpuDevice<'a> {
    /// A CPU device running `kernels` with `options.threads` workers, within `options.memory_limit` bytes (what
    /// the machine reports as available when `None`).
    pub fn new(kernels: &'a dyn CpuKernels, options: &RunOptions) -> Result<CpuDevice<'a>, RunError> {
        let threads = options.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        let pool = WorkerPool::shared(threads)
            .map_err(|e| RunError::Threads { threads: options.threads.unwrap_or(0), msg: e.to_string() })?;
        Ok(CpuDevice { kernels, pool, memory_limit: options.memory_limit.or_else(available_memory) })
    }

    /// Worker threads.
    pub fn threads(&self) -> usize {
        self.pool.threads()
    }
}

impl Device for CpuDevice<'_> {
    type Buffer = Buffer;

    fn memory_limit(&self) -> Option<u64> {
        self.memory_limit
    }

    fn checks_bounds(&self) -> bool {
        self.kernels.checks_bounds()
    }

    fn parallel_threads(&self) -> u64 {
        self.threads() as u64
    }

    fn alloc_zeroed(&mut self, _what: &str, len: u64, elem_size: usize) -> Result<Buffer, RunError> {
        Ok(Buffer::zeroed(len, elem_size))
    }

    fn alloc_from(&mut self, _what: &str, elems: &[u64], elem_size: usize) -> Result<Buffer, RunError> {
        Ok(Buffer::from_elems(elems, elem_size))
    }

    fn alloc_from_u32(&mut self, _what: &str, elems: &[u32]) -> Result<Buffer, RunError> {
        Ok(Buffer::from_u32s(elems))
    }

    fn graph_u32(&mut self, _what: &str, elems: &Shared<u32>) -> Result<Buffer, RunError> {
        Ok(Buffer::sharing_u32s(elems))
    }

    fn graph_u64(&mut self, _what: &str, elems: &Shared<u64>) -> Result<Buffer, RunError> {
        Ok(Buffer::sharing_u64s(elems))
    }

    fn shares_graph(&self) -> bool {
        true
    }

    fn reads_sources(&self) -> bool {
        self.kernels.reads_sources()
    }

    fn read(&self, buf: &Buffer, elem_size: usize, start: u64, len: u64) -> Result<Vec<u64>, RunError> {
        if len == 1 {
            return Ok(vec![buf.load(elem_size, start)]);
        }
        let (start, len) = (start as usize, len as usize);
        Ok((start..start + len).into_par_iter().with_min_len(1 << 14).map(|i| buf.load(elem_size, i as u64)).collect())
    }

    fn write(&mut self, buf: &mut Buffer, elem_size: usize, start: u64, elems: &[u64]) -> Result<(), RunError> {
        buf.write(elem_size, start, elems);
        Ok(())
    }

    fn fill(&mut self, buf: &mut Buffer, elem_size: usize, len: u64, bits: u64) -> Result<(), RunError> {
        buf.fill(elem_size, len, bits);
        Ok(())
    }

    fn space_size(&self, k: usize, ctx: &[u64]) -> Option<u64> {
        // SAFETY: `ctx` was built by the interpreter for this program's layout and memory (module documentation).
        Some(unsafe { self.kernels.space_size(k, ctx) })
    }

    fn launch(&mut self, k: usize, desc: &KernelDesc, ctx: &[u64], size: u64) -> Result<Launched, RunError> {
        let (kernels, pool) = (self.kernels, &self.pool);
        let (bits, seconds) = if desc.waits {
            timed(|| run_waiting(kernels, pool, k, ctx, size))
        } else {
            timed(|| run_space(kernels, pool, k, ctx, size, desc.reduction))
        };
        Ok(Launched { bits, seconds })
    }
}

/// The iterations of a chunk of a launch of `size` on `pool`: about [`CHUNKS_PER_THREAD`] chunks a thread, at
/// least [`MIN_CHUNK`] iterations each.
fn chunk_size(pool: &WorkerPool, size: u64) -> u64 {
    (size / (pool.threads() as u64 * CHUNKS_PER_THREAD)).max(MIN_CHUNK)
}

/// Runs a sweep that waits (`wait;`) over `0..size`: its compiled chunk runs the chunk's items in passes until
/// they are all finished or none of them could finish, and returns how many still wait; the chunks that
/// returned more than 0 run again, after every other chunk of the round, until none does. An item waits only on
/// what other items write, so a round in which no chunk makes progress can only follow one in which another
/// did (the program's own guarantee of progress, as on the GPU). Returns 0 (a waiting kernel has no reduction).
fn run_waiting(kernels: &dyn CpuKernels, pool: &WorkerPool, k: usize, ctx: &[u64], size: u64) -> u64 {
    if size == 0 {
        return 0;
    }
    let chunk = chunk_size(pool, size);
    let mut live: Vec<u64> = (0..size.div_ceil(chunk)).collect();
    while !live.is_empty() {
        // SAFETY: see the module documentation; every chunk lies within the space size computed for `ctx`.
        let run = |c: u64| {
            let c = live[c as usize];
            unsafe { kernels.run(k, ctx, c * chunk, ((c + 1) * chunk).min(size)) }
        };
        let waiting: Vec<u64> = if live.len() == 1 || pool.threads() == 1 {
            (0..live.len() as u64).map(run).collect()
        } else {
            pool.run(live.len() as u64, &run)
        };
        live = live.iter().zip(&waiting).filter(|&(_, &w)| w > 0).map(|(&c, _)| c).collect();
    }
    0
}

/// Runs iterations `0..size` of kernel `k` in parallel chunks on `pool`, combining partial reductions in chunk
/// order.
fn run_space(
    kernels: &dyn CpuKernels,
    pool: &WorkerPool,
    k: usize,
    ctx: &[u64],
    size: u64,
    reduction: Option<(ReduceOp, Scalar)>,
) -> u64 {
    let (op, ty) = reduction.unwrap_or((ReduceOp::Any, Scalar::Bool));
    let identity = reduce_identity(op, ty);
    if size == 0 {
        return identity;
    }
    let chunk = chunk_size(pool, size);
    let chunks = size.div_ceil(chunk);
    // SAFETY: see the module documentation; `lo..hi` lies within the space size computed for `ctx`.
    let run = |c: u64| unsafe { kernels.run(k, ctx, c * chunk, ((c + 1) * chunk).min(size)) };
    // One chunk runs on the calling thread: handing it to a worker would only add the hand-over.
    if chunks == 1 || pool.threads() == 1 {
        return (0..chunks).fold(identity, |acc, c| reduce_combine(op, ty, acc, run(c)));
    }
    pool.run(chunks, &run).into_iter().fold(identity, |acc, p| reduce_combine(op, ty, acc, p))
}
