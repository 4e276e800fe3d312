//! A program's memory: the graph, every global array and every worklist, as buffers of some [`Device`], plus the
//! host-side bookkeeping that goes with them (shapes, counts, which buffer of a pair is current).
//!
//! [`Memory::allocate`] checks every array against the device's memory before asking for it, so a program too big
//! for the machine fails naming the array rather than with an allocator's message.
//!
//! On the CPU ([`Buffer`]) a buffer is a `Vec<AtomicU64>`: 8-byte words, so every element of every type is
//! naturally aligned (the kernel ABI's promise), and kernels may write through the raw pointers the context hands
//! them while the host holds only shared references (`AtomicU64` is an `UnsafeCell`, so that is sound). The host
//! reads and writes elements with relaxed atomics, always between launches, so no ordering is needed beyond the
//! thread pool's join. Elements are packed little-endian within words as the ABI specifies: one byte per `bool`,
//! four bytes per 32-bit type, eight per 64-bit type. The graph's arrays are the exception: kernels only read them,
//! so a CPU run reads the graph's own ([`Shared`]) where they are, with no copy, until the host changes one
//! (`G.contract`), which then gets a copy of its own.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

use irgc_artifact::{Artifact, Scalar, Shape};
use irgc_graph::{Csr, Shared, Weights};
use rayon::prelude::*;

use crate::device::{Device, DeviceBuffer};
use crate::error::RunError;
use crate::eval::{eval, from_f64, StaticEnv};

/// The largest array the runtime will allocate, whatever the machine: 1 TiB. Above it a size is almost surely a
/// mistake in the program (a dense array over the edges, say) rather than a real need.
pub const MAX_ARRAY_BYTES: u64 = 1 << 40;

// The graph's arrays are shared as host integers (`Buffer::sharing_u32s`), and the CPU backend's kernels load
// elements at byte offsets: both take the host for the kernel ABI's little-endian.
const _: () = assert!(cfg!(target_endian = "little"), "irgc's CPU runtime needs a little-endian host");

/// A buffer of packed elements: 8-byte words of its own, or an array of the graph that it shares.
pub struct Buffer {
    storage: Storage,
}

enum Storage {
    Words(Vec<AtomicU64>),
    /// A graph array (edges, sources), read in place. Kernels only read it; the host copies it into words of its
    /// own before it writes ([`Buffer::words_mut`]).
    Graph32(Shared<u32>),
    /// The graph's row offsets.
    Graph64(Shared<u64>),
}

/// Asks the kernel to back a large allocation with transparent huge pages (`MADV_HUGEPAGE`: on systems where THP
/// is `madvise`-only, the default on Debian). Filling a fresh buffer is otherwise bound by one page fault per 4 KiB:
/// copying kron22's 513 MB of edge targets took longer than reading them. Only the whole 2 MiB pages inside the
/// allocation are advised; small vectors and failures are ignored (it is a hint).
#[allow(unsafe_code)] // One `madvise` on memory this vector owns.
fn huge_pages<T>(v: &Vec<T>) {
    const HUGE: usize = 2 << 20;
    let bytes = v.capacity() * std::mem::size_of::<T>();
    if bytes < 4 * HUGE {
        return;
    }
    let start = (v.as_ptr() as usize).next_multiple_of(HUGE);
    let end = (v.as_ptr() as usize + bytes) / HUGE * HUGE;
    if end > start {
        // SAFETY: `start..end` lies inside the vector's allocation, and MADV_HUGEPAGE changes no contents.
        unsafe {
            libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
        }
    }
}

impl Buffer {
    /// A zeroed buffer big enough for `len` elements of `elem_size` bytes. The allocation asks the allocator for
    /// zeroed memory (`calloc`), which for a large buffer is pages the kernel zeroes when first touched: a
    /// worklist sized for every edge costs nothing until items are pushed into it.
    #[allow(unsafe_code)] // Reinterpreting a `Vec<u64>` as `Vec<AtomicU64>`; the safety argument is below.
    pub fn zeroed(len: u64, elem_size: usize) -> Buffer {
        let words = (len * elem_size as u64).div_ceil(8) as usize;
        let zeros = std::mem::ManuallyDrop::new(vec![0u64; words]);
        huge_pages(&zeros);
        let (ptr, len, cap) = (zeros.as_ptr() as *mut AtomicU64, zeros.len(), zeros.capacity());
        // SAFETY: `AtomicU64` has the size, alignment and bit validity of `u64` (its documentation guarantees the
        // same in-memory representation), and the vector's allocation is handed over whole, once.
        Buffer::words(unsafe { Vec::from_raw_parts(ptr, len, cap) })
    }

    /// A buffer holding 32-bit `vals` (the graph's edge targets and sources), packed two per word in parallel
    /// without a widened copy.
    pub fn from_u32s(vals: &[u32]) -> Buffer {
        let words =
            vals.par_chunks(2).map(|c| AtomicU64::new(c[0] as u64 | (c.get(1).copied().unwrap_or(0) as u64) << 32));
        let mut out = Vec::with_capacity(vals.len().div_ceil(2));
        huge_pages(&out);
        out.par_extend(words);
        Buffer::words(out)
    }

    /// A buffer that reads the graph's 32-bit array `vals` in place.
    pub fn sharing_u32s(vals: &Shared<u32>) -> Buffer {
        Buffer { storage: Storage::Graph32(vals.clone()) }
    }

    /// A buffer that reads the graph's 64-bit array `vals` in place.
    pub fn sharing_u64s(vals: &Shared<u64>) -> Buffer {
        Buffer { storage: Storage::Graph64(vals.clone()) }
    }

    fn words(words: Vec<AtomicU64>) -> Buffer {
        Buffer { storage: Storage::Words(words) }
    }

    /// A buffer holding `vals` as elements of `elem_size` bytes (each value's low bytes).
    pub fn from_elems(vals: &[u64], elem_size: usize) -> Buffer {
        let per_word = 8 / elem_size;
        let words = vals
            .par_chunks(per_word)
            .map(|c| {
                let w = c.iter().enumerate().fold(0u64, |w, (i, &v)| w | (v & mask(elem_size)) << (i * elem_size * 8));
                AtomicU64::new(w)
            })
            .collect();
        Buffer::words(words)
    }

    /// The address kernels see.
    pub fn addr(&self) -> u64 {
        match &self.storage {
            Storage::Words(w) => w.as_ptr() as u64,
            Storage::Graph32(a) => a.as_ptr() as u64,
            Storage::Graph64(a) => a.as_ptr() as u64,
        }
    }

    /// Size in bytes (whole words).
    pub fn bytes(&self) -> u64 {
        match &self.storage {
            Storage::Words(w) => w.len() as u64 * 8,
            Storage::Graph32(a) => (a.len() as u64).div_ceil(2) * 8,
            Storage::Graph64(a) => a.len() as u64 * 8,
        }
    }

    /// The words, to write: a shared graph array is first copied into words of this buffer's own (so the graph,
    /// and any other run reading it, never sees the change). The address changes then; the caller re-syncs the
    /// context (`context::sync_memory`), as after `G.contract`.
    fn words_mut(&mut self) -> &[AtomicU64] {
        match &self.storage {
            Storage::Words(_) => {}
            Storage::Graph32(a) => *self = Buffer::from_u32s(a),
            Storage::Graph64(a) => *self = Buffer::from_elems(a, 8),
        }
        match &self.storage {
            Storage::Words(w) => w,
            Storage::Graph32(_) | Storage::Graph64(_) => unreachable!("copied into words above"),
        }
    }

    /// Element `i` of an array of `elem_size`-byte elements, zero-extended. The caller checks `i` against the
    /// array's length; this only checks the buffer.
    pub fn load(&self, elem_size: usize, i: u64) -> u64 {
        match &self.storage {
            Storage::Words(w) => {
                let (word, shift) = locate(elem_size, i);
                (w[word].load(Relaxed) >> shift) & mask(elem_size)
            }
            // Graph arrays are read with their own element size; another size reads their little-endian bytes.
            Storage::Graph32(a) if elem_size == 4 => a[i as usize] as u64,
            Storage::Graph64(a) if elem_size == 8 => a[i as usize],
            Storage::Graph32(a) => load_bytes(a, 4, elem_size, i),
            Storage::Graph64(a) => load_bytes(a, 8, elem_size, i),
        }
    }

    pub fn store(&mut self, elem_size: usize, i: u64, bits: u64) {
        let (word, shift) = locate(elem_size, i);
        let m = mask(elem_size) << shift;
        let w = &self.words_mut()[word];
        if elem_size == 8 {
            w.store(bits, Relaxed);
        } else {
            let old = w.load(Relaxed);
            w.store((old & !m) | ((bits << shift) & m), Relaxed);
        }
    }

    /// Sets elements `0..len` to `bits` (in parallel: fills of node arrays happen every round in some programs),
    /// and the rest of the last word they touch (padding, or elements past the array's current length, which
    /// nothing reads). Only the prefix: after `G.contract` a node array's length is the quotient's, and filling the
    /// input's length at every level cost Louvain's small levels milliseconds each.
    pub fn fill(&mut self, elem_size: usize, len: u64, bits: u64) {
        let mut pattern = 0u64;
        for k in 0..8 / elem_size {
            pattern |= (bits & mask(elem_size)) << (k * elem_size * 8);
        }
        let words = self.words_mut();
        let used = (len as usize).div_ceil(8 / elem_size).min(words.len());
        words[..used].par_iter().with_min_len(1 << 14).for_each(|w| w.store(pattern, Relaxed));
    }

    /// Writes `elems` at elements `start..`: whole words at once where the elements fill them (8-byte elements,
    /// or an aligned run of smaller ones), in parallel for long runs.
    pub fn write(&mut self, elem_size: usize, start: u64, elems: &[u64]) {
        let per_word = 8 / elem_size;
        // Element by element up to a word boundary, then whole words, then the tail.
        let head = ((per_word - start as usize % per_word) % per_word).min(elems.len());
        for (i, &v) in (start..).zip(&elems[..head]) {
            self.store(elem_size, i, v);
        }
        let body = (elems.len() - head) / per_word * per_word;
        let first_word = (start as usize + head) / per_word;
        let words = self.words_mut();
        words[first_word..first_word + body / per_word]
            .par_iter()
            .zip(elems[head..head + body].par_chunks(per_word))
            .with_min_len(1 << 12)
            .for_each(|(w, chunk)| {
                let packed = chunk
                    .iter()
                    .enumerate()
                    .fold(0u64, |acc, (k, &v)| acc | ((v & mask(elem_size)) << (k * elem_size * 8)));
                w.store(packed, Relaxed);
            });
        let tail_start = start + (head + body) as u64;
        for (i, &v) in (tail_start..).zip(&elems[head + body..]) {
            self.store(elem_size, i, v);
        }
    }

    /// Elements `0..len`, zero-extended.
    pub fn to_elems(&self, elem_size: usize, len: u64) -> Vec<u64> {
        (0..len as usize).into_par_iter().with_min_len(1 << 14).map(|i| self.load(elem_size, i as u64)).collect()
    }
}

impl DeviceBuffer for Buffer {
    fn address(&self) -> u64 {
        self.addr()
    }
}

fn mask(elem_size: usize) -> u64 {
    if elem_size == 8 {
        u64::MAX
    } else {
        (1u64 << (elem_size * 8)) - 1
    }
}

/// Element `i` of `elem_size` bytes from the little-endian bytes of `vals`, whose elements have `size` bytes; zero
/// past the end (as a word buffer's padding reads).
fn load_bytes<T: Copy + Into<u64>>(vals: &[T], size: usize, elem_size: usize, i: u64) -> u64 {
    let start = i as usize * elem_size;
    (0..elem_size).fold(0, |acc, k| {
        let byte = start + k;
        let b = vals.get(byte / size).map_or(0, |&x| (x.into() >> (8 * (byte % size))) & 0xFF);
        acc | b << (8 * k)
    })
}

fn locate(elem_size: usize, i: u64) -> (usize, u32) {
    let per_word = (8 / elem_size) as u64;
    ((i / per_word) as usize, ((i % per_word) as usize * elem_size * 8) as u32)
}

/// One global array.
pub struct Global<B = Buffer> {
    pub name: String,
    pub elem: Scalar,
    /// Elements per dimension: `[len, 1]` for node and edge arrays and 1-D dense arrays.
    pub dims: [u64; 2],
    /// Number of dimensions as declared (1 or 2; node and edge arrays have 1).
    pub rank: usize,
    pub shape: GlobalShape,
    pub buf: B,
}

/// What a global's elements are indexed by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GlobalShape {
    Node,
    Edge,
    Dense,
}

impl<B> Global<B> {
    pub fn len(&self) -> u64 {
        self.dims[0] * self.dims[1]
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The linear index of `index`, bounds-checked per dimension.
    pub fn linear(&self, index: &[u64]) -> Result<u64, RunError> {
        if index.len() != self.rank {
            return Err(RunError::plan(format!(
                "array `{}` has {} dimension(s) but is indexed with {}",
                self.name,
                self.rank,
                index.len()
            )));
        }
        for (d, (&i, &n)) in index.iter().zip(&self.dims).enumerate() {
            if i >= n {
                let pos = if self.rank > 1 { format!(" (dimension {d})") } else { String::new() };
                return Err(RunError::plan(format!(
                    "index {i} is out of bounds for array `{}`{pos}, which has {n} elements there",
                    self.name
                )));
            }
        }
        Ok(if self.rank == 2 { index[0] * self.dims[1] + index[1] } else { index[0] })
    }
}

/// One worklist: two item buffers that swap roles after a pushing launch, an optional retry pair, and four
/// counters kernels update atomically: a pair of push counters that alternate (see the kernel ABI in
/// `irgc-artifact`: a pushing kernel zeroes the one it does not count in), the retry counter and the overflow flag.
pub struct Worklist<B = Buffer> {
    pub name: String,
    pub elem: Scalar,
    pub capacity: u64,
    /// `bufs[cur]` holds the current items, `bufs[1 - cur]` receives pushes.
    pub bufs: [B; 2],
    pub cur: usize,
    /// Number of current items (the `InCount` slot mirrors it).
    pub count: u64,
    /// The retry buffer and a spare that the retried items move to while the kernel is relaunched over them;
    /// allocated only when some kernel retries into this worklist.
    pub retry: Option<[B; 2]>,
    /// Which of `retry` currently receives retries.
    pub retry_cur: usize,
    /// Words 0 and 1: the push counter pair; word 2: retry counter; word 3: overflow flag.
    pub counters: B,
    /// Which word of the pair the next pushing kernel counts in; the other one is zeroed by that kernel. Between
    /// launches the word `out_slot` is always 0.
    pub out_slot: usize,
    /// The counters as last read back, after the last launch that pushed or retried into this worklist (the
    /// interpreter reads them once per launch: on a GPU every read is a round trip).
    pub seen: [u64; 4],
}

impl<B> Worklist<B> {
    pub const RETRY_COUNT: usize = 2;
    pub const OVERFLOW: usize = 3;
    pub const COUNTERS: usize = 4;

    pub fn in_buf(&self) -> &B {
        &self.bufs[self.cur]
    }

    pub fn in_buf_mut(&mut self) -> &mut B {
        &mut self.bufs[self.cur]
    }

    pub fn out_buf(&self) -> &B {
        &self.bufs[1 - self.cur]
    }
}

impl Worklist<Buffer> {
    /// The current items.
    pub fn items(&self) -> Vec<u64> {
        self.in_buf().to_elems(self.elem.size(), self.count)
    }
}

/// All device memory of one run.
pub struct Memory<B = Buffer> {
    pub num_nodes: u64,
    pub num_edges: u64,
    /// The largest out-degree (what [`irgc_artifact::skewed`] needs).
    pub max_degree: u64,
    pub row_start: B,
    pub col: B,
    pub weights: Option<B>,
    pub sources: Option<B>,
    pub globals: Vec<Global<B>>,
    pub worklists: Vec<Worklist<B>>,
    /// Where bounds-checked kernels report the first bad index ([`irgc_artifact::BoundsReport`]).
    pub bounds_report: B,
    /// The wait flags of launches whose sweep waits ([`irgc_artifact::Layout::wait_flags`]) and their length in
    /// bytes: allocated at the first such launch, grown when a launch has more iterations; all 0 between
    /// launches.
    pub wait_flags: Option<(B, u64)>,
    /// After `G.contract`: each input node's node in the current graph (`None` while the graph is the input).
    pub origin: Option<Vec<u32>>,
    /// The same kept by the device that contracted the graph ([`Device::contract`]), and the input's node count;
    /// at most one of the two is set.
    pub device_origin: Option<(B, u64)>,
    /// How many times the plan has contracted the graph.
    pub contractions: usize,
    /// For a plan that contracts its graph: the current graph as the host has it, so that `G.contract` reads only
    /// the labels back (reading a 60 M-edge graph back from a GPU took 766 of a contraction's 931 ms); only its
    /// row offsets where the device contracts ([`Device::contracts_on_device`]).
    pub host_graph: Option<HostGraph>,
    /// How long [`Memory::allocate`] spent on each part (`device` is left to the caller).
    pub setup: SetupParts,
    /// What is left of the device's [`memory_limit`](Device::memory_limit) after the run's arrays (`None`: no
    /// limit): the most a device may take for a contraction's scratch ([`crate::ContractJob::memory_left`]).
    pub memory_left: Option<u64>,
}

pub use irgc_graph::memory::{available_memory, show_bytes};

/// The graph's arrays on the host, as the device holds them: row offsets, and the edges where the host builds the
/// quotients (`None` where the device does).
pub struct HostGraph {
    pub row_start: Shared<u64>,
    pub edges: Option<HostEdges>,
}

/// The graph's destinations, and its weights as bits of the program's weight type (`None` for a program without
/// weights).
pub struct HostEdges {
    pub col: Shared<u32>,
    pub weights: Option<Shared<u64>>,
}

/// What a run's set-up spent its time on (`--stats`, `--json`): the parts of [`Memory::allocate`], and on the CPU
/// the worker pool. Each part includes its allocation and its copy to the device.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct SetupParts {
    /// Creating the device: the CPU's worker threads (a GPU's context and module load precede the run).
    pub device: Duration,
    /// The CSR's row offsets and edges.
    pub graph: Duration,
    /// Numbering the graph by degree for a `degree_ordered` program: computed (a graph's first such run), read
    /// from beside its graph cache file (a later process's), or nothing (a later run in the same process).
    pub renumbering: Duration,
    /// Converting the weights to the program's type, and storing them.
    pub weights: Duration,
    /// The edge sources (only for programs that read `G.src`).
    pub sources: Duration,
    /// The program's node, edge and dense arrays (zeroed; their initial values are the plan's first fills).
    pub arrays: Duration,
    /// The worklists' buffers and counters.
    pub worklists: Duration,
}

impl std::ops::Add for SetupParts {
    type Output = SetupParts;
    fn add(self, o: SetupParts) -> SetupParts {
        SetupParts {
            device: self.device + o.device,
            graph: self.graph + o.graph,
            renumbering: self.renumbering + o.renumbering,
            weights: self.weights + o.weights,
            sources: self.sources + o.sources,
            arrays: self.arrays + o.arrays,
            worklists: self.worklists + o.worklists,
        }
    }
}

impl SetupParts {
    /// The parts with their names, in order.
    pub fn named(&self) -> [(&'static str, Duration); 7] {
        [
            ("device", self.device),
            ("graph", self.graph),
            ("renumbering", self.renumbering),
            ("weights", self.weights),
            ("sources", self.sources),
            ("arrays", self.arrays),
            ("worklists", self.worklists),
        ]
    }
}

/// Tracks what has been allocated so each new array is checked against what is left.
struct Budget {
    limit: Option<u64>,
    used: u64,
    /// The memory's name in messages ("memory", "GPU memory").
    kind: &'static str,
}

impl Budget {
    fn take(&mut self, what: &str, bytes: Option<u64>) -> Result<(), RunError> {
        let Some(bytes) = bytes.filter(|&b| b <= MAX_ARRAY_BYTES) else {
            let size = bytes.map_or("more than 2^64 bytes".to_string(), show_bytes);
            return Err(RunError::Memory(format!(
                "{what} would need {size}, more than the runtime's limit of 2^40 bytes per array; check its size"
            )));
        };
        if let Some(limit) = self.limit {
            if self.used.saturating_add(bytes) > limit {
                return Err(RunError::Memory(format!(
                    "{what} needs {}, but only {} of {} is available ({} already allocated)",
                    show_bytes(bytes),
                    show_bytes(limit.saturating_sub(self.used)),
                    self.kind,
                    show_bytes(self.used)
                )));
            }
        }
        self.used += bytes;
        Ok(())
    }
}

/// Rounds a byte count up to whole words, as allocated.
fn word_bytes(len: u64, elem: usize) -> Option<u64> {
    len.checked_mul(elem as u64).map(|b| b.div_ceil(8) * 8)
}

impl<B: DeviceBuffer> Memory<B> {
    /// Allocates on `dev` everything `artifact` needs for `graph` (named `graph_name` in messages), with `params`
    /// for the dense array sizes, within the device's [`memory_limit`](Device::memory_limit) (apart from the
    /// per-array cap, which always holds).
    pub fn allocate<D: Device<Buffer = B>>(
        dev: &mut D,
        artifact: &Artifact,
        graph: &Csr,
        graph_name: &str,
        params: &[u64],
    ) -> Result<Memory<B>, RunError> {
        let n = graph.num_nodes() as u64;
        let m = graph.num_edges();
        let mut setup = SetupParts::default();
        let mut last = Instant::now();
        // The time since the previous part ended.
        let mut lap = || {
            let now = Instant::now();
            now - std::mem::replace(&mut last, now)
        };
        let mut budget = Budget { limit: dev.memory_limit(), used: 0, kind: dev.memory_name() };
        // A device that shares the host's graph arrays takes no memory for them.
        let shares = dev.shares_graph();
        let graph_bytes = |bytes| if shares { Some(0) } else { bytes };
        budget.take("the graph's row offsets", graph_bytes(word_bytes(n + 1, 8)))?;
        budget.take("the graph's edges", graph_bytes(word_bytes(m, 4)))?;
        let row_start = dev.graph_u64("the graph's row offsets", &graph.row_start)?;
        let col = dev.graph_u32("the graph's edges", &graph.col)?;
        setup.graph = lap();

        let weight_ty = artifact.graph.as_ref().and_then(|g| g.weight);
        let contracts = artifact.plan.contracts();
        // The host keeps the edges for its own quotient; where the device contracts, only the offsets (for a
        // contraction it declines).
        let keeps_edges = contracts && !dev.contracts_on_device();
        let mut host_weights = None;
        let weights = match weight_ty {
            None => None,
            Some(ty) => {
                budget.take("the graph's weights", word_bytes(m, ty.size()))?;
                let what = "the graph's weights";
                Some(match ty.size() {
                    // Converted once per graph and type, and kept with it (like the edge sources).
                    4 => {
                        let converted = match &graph.weights {
                            // Stored as the program reads them: the graph's own array (for `i32`, once no weight
                            // is above `i32::MAX`, the bits are the same).
                            Some(Weights::U32(ws)) if in_place(ws, ty) => ws.clone(),
                            _ => graph.converted_weights(ty.name(), |g| convert_weights_u32(g, graph_name, ty))?,
                        };
                        if keeps_edges {
                            host_weights =
                                Some(Shared::from(converted.par_iter().map(|&w| w as u64).collect::<Vec<_>>()));
                        }
                        dev.graph_u32(what, &converted)?
                    }
                    size => {
                        let converted = convert_weights(graph, graph_name, ty)?;
                        let buf = dev.alloc_from(what, &converted, size)?;
                        if keeps_edges {
                            host_weights = Some(Shared::from(converted));
                        }
                        buf
                    }
                })
            }
        };
        let host_graph = contracts.then(|| HostGraph {
            row_start: graph.row_start.clone(),
            edges: keeps_edges.then(|| HostEdges { col: graph.col.clone(), weights: host_weights }),
        });
        setup.weights = lap();
        let sources = if artifact.needs_sources && dev.reads_sources() {
            // Computed once per graph and kept with it: a device that shares them takes only the graph's memory.
            budget.take("the graph's edge sources", word_bytes(m, 4))?;
            Some(dev.graph_u32("the graph's edge sources", &graph.shared_sources())?)
        } else {
            None
        };
        setup.sources = lap();

        let env = StaticEnv { params, num_nodes: n, num_edges: m };
        let mut globals = Vec::with_capacity(artifact.globals.len());
        for g in &artifact.globals {
            let (dims, rank, shape) = match &g.shape {
                Shape::Node => ([n, 1], 1, GlobalShape::Node),
                Shape::Edge => ([m, 1], 1, GlobalShape::Edge),
                Shape::Dense(ds) => {
                    if ds.is_empty() || ds.len() > 2 {
                        return Err(RunError::plan(format!(
                            "array `{}` has {} dimensions; 1 or 2 are supported",
                            g.name,
                            ds.len()
                        )));
                    }
                    let mut dims = [1u64; 2];
                    for (d, e) in ds.iter().enumerate() {
                        dims[d] = eval(e, &env)?;
                        if e.ty.is_signed() && (dims[d] as i64) < 0 {
                            return Err(RunError::Memory(format!(
                                "array `{}` has a negative size {} in dimension {d}",
                                g.name, dims[d] as i64
                            )));
                        }
                    }
                    (dims, ds.len(), GlobalShape::Dense)
                }
            };
            let shown: Vec<String> = dims[..rank].iter().map(|d| d.to_string()).collect();
            let what = format!("array `{}` ({}[{}])", g.name, g.elem.name(), shown.join(", "));
            let bytes = dims[0].checked_mul(dims[1]).and_then(|len| word_bytes(len, g.elem.size()));
            budget.take(&what, bytes)?;
            let buf = dev.alloc_zeroed(&what, dims[0] * dims[1], g.elem.size())?;
            globals.push(Global { name: g.name.clone(), elem: g.elem, dims, rank, shape, buf });
        }

        setup.arrays = lap();
        let capacity = n.max(m) + 1;
        let mut worklists = Vec::with_capacity(artifact.worklists.len());
        for (w, desc) in artifact.worklists.iter().enumerate() {
            let retries = artifact.kernels.iter().any(|k| k.retries == Some(w));
            let size = desc.elem.size();
            let buffers = if retries { 4 } else { 2 };
            let what = format!("worklist `{}` ({buffers} buffers of {capacity} {} items)", desc.name, desc.elem.name());
            budget.take(&what, word_bytes(capacity, size).and_then(|b| b.checked_mul(buffers)))?;
            let bufs = [dev.alloc_zeroed(&what, capacity, size)?, dev.alloc_zeroed(&what, capacity, size)?];
            let retry = match retries {
                true => Some([dev.alloc_zeroed(&what, capacity, size)?, dev.alloc_zeroed(&what, capacity, size)?]),
                false => None,
            };
            let counters = dev.alloc_zeroed(
                &format!("the counters of worklist `{}`", desc.name),
                Worklist::<D::Buffer>::COUNTERS as u64,
                8,
            )?;
            worklists.push(Worklist {
                name: desc.name.clone(),
                elem: desc.elem,
                capacity,
                bufs,
                cur: 0,
                count: 0,
                retry,
                retry_cur: 0,
                counters,
                out_slot: 0,
                seen: [0; 4],
            });
        }
        let max_degree = graph.row_start.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0);
        let bounds_report = dev.alloc_zeroed("the bounds report", irgc_artifact::BoundsReport::WORDS as u64, 8)?;
        setup.worklists = lap();
        Ok(Memory {
            num_nodes: n,
            num_edges: m,
            max_degree,
            row_start,
            col,
            weights,
            sources,
            globals,
            worklists,
            bounds_report,
            wait_flags: None,
            origin: None,
            device_origin: None,
            contractions: 0,
            host_graph,
            setup,
            memory_left: budget.limit.map(|limit| limit.saturating_sub(budget.used)),
        })
    }
}

/// The graph's weights as bits of the program's declared weight type.
///
/// Integer weights must fit the type; float weights convert to an integer type only when every one is integral
/// (a silent truncation would change the answer without a word).
pub fn convert_weights(graph: &Csr, graph_name: &str, ty: Scalar) -> Result<Vec<u64>, RunError> {
    convert_with(graph, graph_name, ty, |bits| bits)
}

/// [`convert_weights`] for a 4-byte weight type, as the `u32`s the device stores (no 8-byte copy in between).
pub fn convert_weights_u32(graph: &Csr, graph_name: &str, ty: Scalar) -> Result<Vec<u32>, RunError> {
    convert_with(graph, graph_name, ty, |bits| bits as u32)
}

/// The conversion, in parallel: every weight is checked first (`any`), and only a graph with a bad one takes the
/// sequential path, which names the first bad edge.
fn convert_with<T: Send>(
    graph: &Csr,
    graph_name: &str,
    ty: Scalar,
    narrow: impl Fn(u64) -> T + Sync + Send,
) -> Result<Vec<T>, RunError> {
    let Some(w) = &graph.weights else {
        return Err(RunError::Graph(format!(
            "the program reads edge weights (`graph G(weight: {})`) but {graph_name} has none; add \
             `--weights random:1:255` or `--weights const:1`",
            ty.name()
        )));
    };
    let (lo, hi): (i128, i128) = match ty {
        Scalar::Bool => (0, 1),
        Scalar::I32 => (i32::MIN as i128, i32::MAX as i128),
        Scalar::U32 | Scalar::Node => (0, u32::MAX as i128),
        Scalar::I64 => (i64::MIN as i128, i64::MAX as i128),
        Scalar::U64 | Scalar::Edge => (0, u64::MAX as i128),
        Scalar::F32 | Scalar::F64 => (0, 0),
    };
    let fits = |v: i128| lo <= v && v <= hi;
    let int = |v: i128| narrow(crate::eval::normalize(ty, v as i64 as u64));
    // Integers convert in one pass that also notes a weight that does not fit; only then is the sequential pass
    // that names it run (one read of the weights rather than two: on 128 M edges, 1 GB each).
    let bad = AtomicBool::new(false);
    let checked = |ok: bool, v: i128| {
        if !ok {
            bad.store(true, Relaxed);
        }
        int(v)
    };
    let converted = match w {
        Weights::Int(ws) if ty.is_float() => {
            return Ok(ws.par_iter().map(|&x| narrow(from_f64(ty, x as f64))).collect())
        }
        Weights::Float(ws) if ty.is_float() => return Ok(ws.par_iter().map(|&x| narrow(from_f64(ty, x))).collect()),
        Weights::Int(ws) => ws.par_iter().map(|&x| checked(fits(x as i128), x as i128)).collect(),
        Weights::U32(ws) if ty.is_float() => {
            return Ok(ws.par_iter().map(|&x| narrow(from_f64(ty, x as f64))).collect())
        }
        Weights::U32(ws) => ws.par_iter().map(|&x| checked(fits(x as i128), x as i128)).collect(),
        Weights::Float(ws) => ws.par_iter().map(|&x| checked(integral(x) && fits(x as i128), x as i128)).collect(),
    };
    if bad.load(Relaxed) {
        return Err(first_bad_weight(graph, graph_name, ty, w, fits));
    }
    Ok(converted)
}

/// Whether `u32` weights are already the program's weights of type `ty`, bit for bit: for `u32`, always; for
/// `i32`, when none is above `i32::MAX` (a parallel scan, no copy).
fn in_place(ws: &[u32], ty: Scalar) -> bool {
    match ty {
        Scalar::U32 => true,
        Scalar::I32 => ws.par_iter().all(|&x| x <= i32::MAX as u32),
        _ => false,
    }
}

/// Whether a float weight is a whole finite number (only those convert to an integer weight type).
fn integral(x: f64) -> bool {
    x.is_finite() && x.fract() == 0.0
}

/// Why the first weight that does not convert to `ty` does not (some weight does not).
fn first_bad_weight(graph: &Csr, graph_name: &str, ty: Scalar, w: &Weights, fits: impl Fn(i128) -> bool) -> RunError {
    let label = |e: usize| {
        let src = graph.row_start.partition_point(|&s| s <= e as u64).saturating_sub(1) as u32;
        format!("{} -> {}", graph.labels.label(src), graph.labels.label(graph.col[e]))
    };
    let too_big = |v: String, e: usize| {
        RunError::Graph(format!(
            "edge {} of {graph_name} has weight {v}, which does not fit the program's weight type {}",
            label(e),
            ty.name()
        ))
    };
    match w {
        Weights::Int(_) | Weights::U32(_) => {
            let int = |e: usize| w.int(e).unwrap_or_default();
            match (0..w.len()).find(|&e| !fits(int(e) as i128)) {
                Some(e) => too_big(int(e).to_string(), e),
                None => RunError::Graph(format!("internal error: no bad weight in {graph_name}")),
            }
        }
        Weights::Float(ws) => {
            let Some(e) = ws.iter().position(|&x| !integral(x) || !fits(x as i128)) else {
                return RunError::Graph(format!("internal error: no bad weight in {graph_name}"));
            };
            let x = ws[e];
            if !integral(x) {
                RunError::Graph(format!(
                    "edge {} of {graph_name} has weight {x}, but the program reads {} weights; only integral float \
                     weights convert (declare `graph G(weight: f64)` or load integer weights)",
                    label(e),
                    ty.name()
                ))
            } else {
                too_big((x as i128).to_string(), e)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use irgc_graph::Shared;

    use super::Buffer;

    #[test]
    fn shared_graph_arrays_read_in_place_and_are_copied_before_a_write() {
        let vals: Shared<u32> = (0..1001u32).map(|i| i.wrapping_mul(2_654_435_761)).collect::<Vec<_>>().into();
        let mut b = Buffer::sharing_u32s(&vals);
        assert_eq!(b.addr(), vals.as_ptr() as u64, "no copy");
        assert_eq!(b.bytes(), Buffer::from_u32s(&vals).bytes());
        assert!((0..1001).all(|i| b.load(4, i) == vals[i as usize] as u64));
        // Read as 8-byte elements: two 32-bit values per element, the last padded with zero.
        assert_eq!(b.load(8, 1), vals[2] as u64 | (vals[3] as u64) << 32);
        assert_eq!(b.load(8, 500), vals[1000] as u64);
        b.store(4, 7, 42);
        assert_ne!(b.addr(), vals.as_ptr() as u64, "copied before the write");
        assert_eq!((b.load(4, 6), b.load(4, 7), b.load(4, 8)), (vals[6] as u64, 42, vals[8] as u64));
        assert_eq!(vals[7], 7u32.wrapping_mul(2_654_435_761), "the graph's array is unchanged");

        let offsets: Shared<u64> = vec![0, 3, u64::MAX, 9].into();
        let mut r = Buffer::sharing_u64s(&offsets);
        assert_eq!((r.load(8, 2), r.load(4, 5), r.load(1, 24)), (u64::MAX, 0xFFFF_FFFF, 9));
        r.fill(8, 4, 5);
        assert_eq!(r.to_elems(8, 4), vec![5; 4]);
        assert_eq!(*offsets, vec![0, 3, u64::MAX, 9]);
    }

    #[test]
    fn bulk_writes_equal_element_stores_at_any_alignment_and_fills_touch_only_the_prefix() {
        for elem_size in [1usize, 2, 4, 8] {
            for (start, len) in [(0u64, 0usize), (0, 1), (3, 5), (1, 100_000), (7, 31), (16, 64)] {
                let vals: Vec<u64> = (0..len as u64).map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 3).collect();
                let mut bulk = Buffer::zeroed(200_000, elem_size);
                let mut each = Buffer::zeroed(200_000, elem_size);
                bulk.fill(elem_size, 200_000, 0xAB);
                each.fill(elem_size, 200_000, 0xAB);
                bulk.write(elem_size, start, &vals);
                for (i, &v) in (start..).zip(&vals) {
                    each.store(elem_size, i, v);
                }
                let n = start + len as u64 + 9;
                assert_eq!(bulk.to_elems(elem_size, n), each.to_elems(elem_size, n), "size {elem_size} at {start}");
            }
            let mut b = Buffer::zeroed(1000, elem_size);
            b.fill(elem_size, 10, 1);
            assert!((0..10).all(|i| b.load(elem_size, i) == 1));
            assert!((16..1000).all(|i| b.load(elem_size, i) == 0), "past the prefix's last word: untouched");
        }
    }

    #[test]
    fn zeroed_buffers_read_zero_and_take_stores() {
        let mut b = Buffer::zeroed(1 << 20, 4);
        assert_eq!(b.bytes(), 4 << 20);
        assert!((0..1u64 << 20).step_by(4099).all(|i| b.load(4, i) == 0));
        b.store(4, 12345, 0xDEAD_BEEF);
        assert_eq!((b.load(4, 12344), b.load(4, 12345), b.load(4, 12346)), (0, 0xDEAD_BEEF, 0));
    }

    #[test]
    fn u32_buffers_pack_as_their_widened_copies_do() {
        let vals: Vec<u32> = (0..1001u32).map(|i| i.wrapping_mul(0x9E37_79B9)).collect();
        let wide: Vec<u64> = vals.iter().map(|&x| x as u64).collect();
        let (a, b) = (Buffer::from_u32s(&vals), Buffer::from_elems(&wide, 4));
        assert_eq!(a.bytes(), b.bytes());
        assert_eq!(a.to_elems(4, 1001), wide);
    }
}
