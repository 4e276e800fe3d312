//! A hand-built kernel context for tests: typed buffers (stored in `u64` words, so they are 8-byte aligned) and
//! the slot table pointing at them, filled as the runtime would (parameters get their declared defaults; globals
//! do not get their declared fills).

#![allow(dead_code)]

use irgc_artifact::{Layout, WorklistSlot};
use irgc_backend_cpu::CpuProgram;
use irgc_front::ir::{GlobalKind, Module, Scalar};

/// A buffer of `len` elements of `size` bytes, little-endian, packed into `u64` words.
pub struct Buf {
    words: Vec<u64>,
    size: usize,
    pub len: usize,
}

impl Buf {
    pub fn new(size: usize, len: usize) -> Buf {
        Buf { words: vec![0; (len * size).div_ceil(8).max(1)], size, len }
    }

    pub fn ptr(&mut self) -> u64 {
        self.words.as_mut_ptr() as u64
    }

    pub fn get(&self, i: usize) -> u64 {
        assert!(i < self.len);
        let bit = i * self.size * 8;
        let w = self.words[bit / 64] >> (bit % 64);
        if self.size == 8 {
            w
        } else {
            w & ((1u64 << (self.size * 8)) - 1)
        }
    }

    pub fn set(&mut self, i: usize, v: u64) {
        assert!(i < self.len);
        let bit = i * self.size * 8;
        if self.size == 8 {
            self.words[bit / 64] = v;
        } else {
            let mask = ((1u64 << (self.size * 8)) - 1) << (bit % 64);
            let w = &mut self.words[bit / 64];
            *w = (*w & !mask) | ((v << (bit % 64)) & mask);
        }
    }

    pub fn all(&self) -> Vec<u64> {
        (0..self.len).map(|i| self.get(i)).collect()
    }
}

/// A directed graph in CSR form, built from an edge list (sorted by source).
pub struct Graph {
    pub n: usize,
    pub edges: Vec<(u32, u32)>,
    /// Weight bits per edge (of the program's weight type).
    pub weights: Vec<u64>,
}

impl Graph {
    /// Both directions of every undirected edge.
    pub fn undirected(n: usize, edges: &[(u32, u32)]) -> Graph {
        let mut e: Vec<(u32, u32)> = edges.iter().flat_map(|&(a, b)| [(a, b), (b, a)]).collect();
        e.sort();
        Graph { n, edges: e, weights: vec![] }
    }

    pub fn directed(n: usize, edges: &[(u32, u32)], weights: Vec<u64>) -> Graph {
        let mut idx: Vec<usize> = (0..edges.len()).collect();
        idx.sort_by_key(|&i| edges[i]);
        let w = if weights.is_empty() { vec![] } else { idx.iter().map(|&i| weights[i]).collect() };
        Graph { n, edges: idx.iter().map(|&i| edges[i]).collect(), weights: w }
    }

    /// A path 0 - 1 - ... - (n-1).
    pub fn path(n: usize) -> Graph {
        let e: Vec<(u32, u32)> = (1..n as u32).map(|i| (i - 1, i)).collect();
        Graph::undirected(n, &e)
    }
}

pub struct Worklist {
    pub items: Buf,
    pub out: Buf,
    pub out_count: Buf,
    /// The other push counter of the pair: a pushing kernel zeroes it (the kernel ABI's counter protocol).
    pub spent_count: Buf,
    pub retry: Buf,
    pub retry_count: Buf,
    pub overflow: Buf,
}

pub struct Harness {
    pub m: Module,
    pub prog: CpuProgram,
    pub layout: Layout,
    pub slots: Vec<u64>,
    pub globals: Vec<Buf>,
    pub worklists: Vec<Worklist>,
    graph: Vec<Buf>,
}

impl Harness {
    /// Compiles `m` and builds a context over `g`; dense globals get `dims` (in declaration order).
    pub fn new(m: Module, g: &Graph, dense: &[(usize, usize)]) -> Harness {
        let prog = irgc_backend_cpu::compile(&m).unwrap_or_else(|e| panic!("{e}"));
        let layout = irgc_backend_cpu::layout_of(&m);
        let mut slots = vec![0u64; layout.len()];
        let n = g.n;
        let ne = g.edges.len();
        let mut row = Buf::new(8, n + 1);
        for &(s, _) in &g.edges {
            row.set(s as usize + 1, row.get(s as usize + 1) + 1);
        }
        for i in 0..n {
            row.set(i + 1, row.get(i + 1) + row.get(i));
        }
        let mut col = Buf::new(4, ne);
        let mut src = Buf::new(4, ne);
        for (i, &(s, d)) in g.edges.iter().enumerate() {
            col.set(i, u64::from(d));
            src.set(i, u64::from(s));
        }
        let wsize = m.graph.as_ref().and_then(|g| g.weight).map_or(8, |w| (w.bits() / 8) as usize);
        let mut w = Buf::new(wsize, ne);
        for (i, &x) in g.weights.iter().enumerate() {
            w.set(i, x);
        }
        slots[Layout::ROW_START] = row.ptr();
        slots[Layout::COL] = col.ptr();
        slots[Layout::WEIGHTS] = w.ptr();
        slots[Layout::SRC] = src.ptr();
        slots[Layout::NUM_NODES] = n as u64;
        slots[Layout::NUM_EDGES] = ne as u64;
        let mut dense = dense.iter();
        let mut globals = Vec::new();
        for (h, gl) in m.globals.iter() {
            let (d0, d1) = match gl.kind {
                GlobalKind::Node => (n, 1),
                GlobalKind::Edge => (ne, 1),
                GlobalKind::Dense(_) => *dense.next().expect("dims for every dense global"),
            };
            let mut b = Buf::new((gl.elem.bits() / 8) as usize, d0 * d1);
            let s = layout.global(h.index());
            slots[s] = b.ptr();
            slots[s + 1] = d0 as u64;
            slots[s + 2] = d1 as u64;
            globals.push(b);
        }
        // Declared defaults, as the runtime applies them (a test overrides one with `param`).
        for (i, (_, p)) in m.params.iter().enumerate() {
            if let Some(d) = p.default {
                slots[layout.param(i)] = irgc_backend_host::literal_bits(d, p.ty);
            }
        }
        let mut h = Harness { m, prog, layout, slots, globals, worklists: vec![], graph: vec![row, col, src, w] };
        for w in 0..h.m.worklists.len() {
            h.set_worklist(w, &[], 64);
        }
        h
    }

    pub fn global(&self, name: &str) -> usize {
        self.m.globals.iter().position(|(_, g)| g.name == name).unwrap_or_else(|| panic!("no global {name}"))
    }

    pub fn get(&self, name: &str) -> Vec<u64> {
        self.globals[self.global(name)].all()
    }

    pub fn set(&mut self, name: &str, values: &[u64]) {
        let g = self.global(name);
        for (i, &v) in values.iter().enumerate() {
            self.globals[g].set(i, v);
        }
    }

    pub fn fill(&mut self, name: &str, v: u64) {
        let g = self.global(name);
        for i in 0..self.globals[g].len {
            self.globals[g].set(i, v);
        }
    }

    pub fn param(&mut self, name: &str, bits: u64) {
        let p = self.m.params.iter().position(|(_, p)| p.name == name).unwrap();
        self.slots[self.layout.param(p)] = bits;
    }

    /// Gives worklist `w` the current items `items` and fresh push/retry buffers of `capacity` items.
    pub fn set_worklist(&mut self, w: usize, items: &[u64], capacity: usize) {
        let elem = self.m.worklists.iter().nth(w).unwrap().1.elem;
        let size = (elem.bits() / 8) as usize;
        let mut wl = Worklist {
            items: Buf::new(size, items.len()),
            out: Buf::new(size, capacity),
            out_count: Buf::new(8, 1),
            spent_count: Buf::new(8, 1),
            retry: Buf::new(size, capacity),
            retry_count: Buf::new(8, 1),
            overflow: Buf::new(8, 1),
        };
        for (i, &x) in items.iter().enumerate() {
            wl.items.set(i, x);
        }
        let l = self.layout;
        let s = |k| l.worklist(w, k);
        self.slots[s(WorklistSlot::InItems)] = wl.items.ptr();
        self.slots[s(WorklistSlot::InCount)] = items.len() as u64;
        self.slots[s(WorklistSlot::OutItems)] = wl.out.ptr();
        self.slots[s(WorklistSlot::OutCount)] = wl.out_count.ptr();
        self.slots[s(WorklistSlot::Capacity)] = capacity as u64;
        self.slots[s(WorklistSlot::RetryItems)] = wl.retry.ptr();
        self.slots[s(WorklistSlot::RetryCount)] = wl.retry_count.ptr();
        self.slots[s(WorklistSlot::Overflow)] = wl.overflow.ptr();
        self.slots[s(WorklistSlot::SpentCount)] = wl.spent_count.ptr();
        if w < self.worklists.len() {
            self.worklists[w] = wl;
        } else {
            self.worklists.push(wl);
        }
    }

    /// The items pushed to worklist `w` (sorted, since pushes come in any order) and its overflow flag.
    pub fn pushed(&self, w: usize) -> (Vec<u64>, bool) {
        let wl = &self.worklists[w];
        let n = (wl.out_count.get(0) as usize).min(wl.out.len);
        let mut v: Vec<u64> = (0..n).map(|i| wl.out.get(i)).collect();
        v.sort();
        (v, wl.overflow.get(0) != 0)
    }

    pub fn kernel(&self, name: &str) -> usize {
        self.m.kernels.iter().position(|(_, k)| k.name == name).unwrap_or_else(|| panic!("no kernel {name}"))
    }

    pub fn size(&self, kernel: &str, args: &[u64]) -> u64 {
        let mut slots = self.slots.clone();
        for (i, &a) in args.iter().enumerate() {
            slots[self.layout.arg(i)] = a;
        }
        // SAFETY: the slots point at buffers sized for this module and graph.
        unsafe_free::size(&self.prog, self.kernel(kernel), &slots)
    }

    /// Runs a whole kernel on one thread; returns the reduction bits.
    pub fn run(&mut self, kernel: &str, args: &[u64]) -> u64 {
        let n = self.size(kernel, args);
        self.run_range(kernel, args, 0, n)
    }

    pub fn run_range(&mut self, kernel: &str, args: &[u64], lo: u64, hi: u64) -> u64 {
        for (i, &a) in args.iter().enumerate() {
            self.slots[self.layout.arg(i)] = a;
        }
        unsafe_free::run(&self.prog, self.kernel(kernel), &self.slots, lo, hi)
    }

    /// Runs a whole kernel in `chunks` chunks on as many threads; returns the partial reductions.
    pub fn run_threads(&mut self, kernel: &str, args: &[u64], chunks: u64) -> Vec<u64> {
        let n = self.size(kernel, args);
        for (i, &a) in args.iter().enumerate() {
            self.slots[self.layout.arg(i)] = a;
        }
        let k = self.kernel(kernel);
        let (prog, slots) = (&self.prog, &self.slots);
        std::thread::scope(|s| {
            let hs: Vec<_> = (0..chunks)
                .map(|c| {
                    let (lo, hi) = (n * c / chunks, n * (c + 1) / chunks);
                    s.spawn(move || unsafe_free::run(prog, k, slots, lo, hi))
                })
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).collect()
        })
    }
}

/// The tests' one door to the `unsafe` API, kept in a module the workspace lint allows.
#[allow(unsafe_code)]
mod unsafe_free {
    use irgc_backend_cpu::CpuProgram;

    pub fn size(p: &CpuProgram, k: usize, slots: &[u64]) -> u64 {
        // SAFETY: `Harness` fills every slot with buffers of the sizes the layout implies.
        unsafe { p.space_size(k, slots) }
    }

    pub fn run(p: &CpuProgram, k: usize, slots: &[u64], lo: u64, hi: u64) -> u64 {
        // SAFETY: as above; tests index in bounds.
        unsafe { p.run(k, slots, lo, hi) }
    }
}

pub fn scalar_bits(s: Scalar, x: f64) -> u64 {
    match s {
        Scalar::F32 => u64::from((x as f32).to_bits()),
        Scalar::F64 => x.to_bits(),
        _ => x as i64 as u64,
    }
}
