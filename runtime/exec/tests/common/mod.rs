//! Shared test support: a fake CPU backend whose kernels are Rust closures following the kernel ABI, builders for
//! artifacts and host expressions, and small graphs.
//!
//! The fake backend is what lets the executor be tested without a compiler: each kernel reads and writes device
//! memory only through the context's pointers, exactly as generated code would, so a bug in the context layout,
//! the worklist protocol or the reduction protocol shows up here. Dereferencing those pointers is `unsafe`; it is
//! allowed in this module only, and sound because the runtime builds the context (the trait's contract).
#![allow(unsafe_code, dead_code)]

use std::sync::atomic::{AtomicU32, AtomicU64, AtomicU8, Ordering::Relaxed};

use irgc_artifact::*;
use irgc_graph::{BuildOptions, Csr, EdgeList, NodeLabels, Weights};
use irgc_runtime::{CpuKernels, Execution, Request, RunError, RunOptions};

/// A view of a kernel context, with typed access to what its pointers point at.
pub struct Ctx<'a> {
    pub slots: &'a [u64],
    pub layout: Layout,
}

impl Ctx<'_> {
    pub fn num_nodes(&self) -> u64 {
        self.slots[Layout::NUM_NODES]
    }

    pub fn num_edges(&self) -> u64 {
        self.slots[Layout::NUM_EDGES]
    }

    pub fn row_start(&self) -> &[u64] {
        unsafe {
            std::slice::from_raw_parts(self.slots[Layout::ROW_START] as *const u64, self.num_nodes() as usize + 1)
        }
    }

    pub fn col(&self) -> &[u32] {
        unsafe { std::slice::from_raw_parts(self.slots[Layout::COL] as *const u32, self.num_edges() as usize) }
    }

    pub fn src(&self) -> &[u32] {
        assert_ne!(self.slots[Layout::SRC], 0, "the runtime did not provide edge sources");
        unsafe { std::slice::from_raw_parts(self.slots[Layout::SRC] as *const u32, self.num_edges() as usize) }
    }

    pub fn weights_u32(&self) -> &[u32] {
        assert_ne!(self.slots[Layout::WEIGHTS], 0, "the runtime did not provide weights");
        unsafe { std::slice::from_raw_parts(self.slots[Layout::WEIGHTS] as *const u32, self.num_edges() as usize) }
    }

    fn global_len(&self, g: usize) -> usize {
        let at = self.layout.global(g);
        (self.slots[at + 1] * self.slots[at + 2]) as usize
    }

    pub fn dims(&self, g: usize) -> (u64, u64) {
        let at = self.layout.global(g);
        (self.slots[at + 1], self.slots[at + 2])
    }

    /// Global `g` as 32-bit elements (u32, i32, f32, node).
    pub fn g32(&self, g: usize) -> &[AtomicU32] {
        unsafe { std::slice::from_raw_parts(self.slots[self.layout.global(g)] as *const AtomicU32, self.global_len(g)) }
    }

    /// Global `g` as 64-bit elements.
    pub fn g64(&self, g: usize) -> &[AtomicU64] {
        unsafe { std::slice::from_raw_parts(self.slots[self.layout.global(g)] as *const AtomicU64, self.global_len(g)) }
    }

    /// Global `g` as bools.
    pub fn g8(&self, g: usize) -> &[AtomicU8] {
        unsafe { std::slice::from_raw_parts(self.slots[self.layout.global(g)] as *const AtomicU8, self.global_len(g)) }
    }

    pub fn param(&self, p: usize) -> u64 {
        self.slots[self.layout.param(p)]
    }

    pub fn arg(&self, i: usize) -> u64 {
        self.slots[self.layout.arg(i)]
    }

    fn wl(&self, w: usize, s: WorklistSlot) -> u64 {
        self.slots[self.layout.worklist(w, s)]
    }

    /// The current items of a worklist of 32-bit items.
    pub fn items(&self, w: usize) -> &[u32] {
        let (p, n) = (self.wl(w, WorklistSlot::InItems), self.wl(w, WorklistSlot::InCount));
        unsafe { std::slice::from_raw_parts(p as *const u32, n as usize) }
    }

    fn counter(&self, w: usize, s: WorklistSlot) -> &AtomicU64 {
        unsafe { &*(self.wl(w, s) as *const AtomicU64) }
    }

    fn append(&self, w: usize, buf: WorklistSlot, count: WorklistSlot, item: u32) {
        let i = self.counter(w, count).fetch_add(1, Relaxed);
        if i < self.wl(w, WorklistSlot::Capacity) {
            let items = self.wl(w, buf) as *const AtomicU32;
            unsafe { (*items.add(i as usize)).store(item, Relaxed) };
        } else {
            self.counter(w, WorklistSlot::Overflow).store(1, Relaxed);
        }
    }

    /// `wl.push(item)` as a kernel does it.
    pub fn push(&self, w: usize, item: u32) {
        self.append(w, WorklistSlot::OutItems, WorklistSlot::OutCount, item);
    }

    /// `wl.retry(item)` as a kernel does it.
    pub fn retry(&self, w: usize, item: u32) {
        self.append(w, WorklistSlot::RetryItems, WorklistSlot::RetryCount, item);
    }
}

/// One iteration of a fake kernel: gets the context and the iteration index, returns its `reduce` value (if any).
pub type Body = Box<dyn Fn(&Ctx<'_>, u64) -> Option<u64> + Sync>;

/// The space size of a `Range` or `Tiles` kernel, computed from the context (its arguments, usually).
pub type RangeFn = Box<dyn Fn(&Ctx<'_>) -> u64 + Sync>;

/// A fake kernel: a body per iteration plus the reduction to combine with, and a space size for `Range` spaces.
pub struct FakeKernel {
    pub body: Body,
    pub reduction: Option<(ReduceOp, Scalar)>,
    pub range: Option<RangeFn>,
}

/// A backend of closures, following the CPU kernel ABI: `run` combines its chunk's `reduce` values from the
/// identity and returns the partial result's bits.
pub struct Fake {
    pub layout: Layout,
    pub kernels: Vec<FakeKernel>,
    /// Per kernel, the worklists it pushes to (from the artifact): the chunk starting at iteration 0 zeroes their
    /// spent push counters, as the kernel ABI requires.
    pub pushes: Vec<Vec<usize>>,
}

impl CpuKernels for Fake {
    unsafe fn space_size(&self, k: usize, ctx: &[u64]) -> u64 {
        let c = Ctx { slots: ctx, layout: self.layout };
        self.kernels[k].range.as_ref().map_or(0, |f| f(&c))
    }

    unsafe fn run(&self, k: usize, ctx: &[u64], lo: u64, hi: u64) -> u64 {
        let c = Ctx { slots: ctx, layout: self.layout };
        let kern = &self.kernels[k];
        if lo == 0 {
            for &w in self.pushes.get(k).into_iter().flatten() {
                c.counter(w, WorklistSlot::SpentCount).store(0, Relaxed);
            }
        }
        let (op, ty) = kern.reduction.unwrap_or((ReduceOp::Any, Scalar::Bool));
        let mut acc = reduce_identity(op, ty);
        for i in lo..hi {
            if let Some(v) = (kern.body)(&c, i) {
                acc = reduce_combine(op, ty, acc, v);
            }
        }
        acc
    }
}

/// A kernel with no reduction.
pub fn kernel(body: impl Fn(&Ctx<'_>, u64) + Sync + 'static) -> FakeKernel {
    FakeKernel {
        body: Box::new(move |c, i| {
            body(c, i);
            None
        }),
        reduction: None,
        range: None,
    }
}

/// A kernel with a reduction.
pub fn reducing(op: ReduceOp, ty: Scalar, body: impl Fn(&Ctx<'_>, u64) -> Option<u64> + Sync + 'static) -> FakeKernel {
    FakeKernel { body: Box::new(body), reduction: Some((op, ty)), range: None }
}

pub fn kdesc(name: &str, params: Vec<Scalar>, space: Space) -> KernelDesc {
    KernelDesc {
        name: name.into(),
        params,
        reduction: None,
        space,
        pushes: vec![],
        retries: None,
        bounds: vec![],
        deals: false,
        waits: false,
    }
}

/// An artifact with a graph (optionally weighted) and nothing else yet.
pub fn artifact(name: &str, weight: Option<Scalar>) -> Artifact {
    Artifact {
        name: name.into(),
        graph: Some(GraphDesc {
            weight,
            default_weight: None,
            undirected: false,
            simple: false,
            degree_ordered: false,
        }),
        needs_sources: false,
        params: vec![],
        globals: vec![],
        worklists: vec![],
        kernels: vec![],
        pipes: vec![],
        plan: Plan::default(),
        outputs: vec![],
        merge: None,
    }
}

pub fn node_global(name: &str, elem: Scalar) -> GlobalDesc {
    GlobalDesc { name: name.into(), elem, shape: Shape::Node }
}

// Host expressions.

pub fn lit(ty: Scalar, bits: u64) -> HostExpr {
    HostExpr { ty, kind: HostExprKind::Literal(bits) }
}

pub fn u32c(v: u32) -> HostExpr {
    lit(Scalar::U32, v as u64)
}

pub fn local(ty: Scalar, i: usize) -> HostExpr {
    HostExpr { ty, kind: HostExprKind::Local(i) }
}

pub fn param(ty: Scalar, p: usize) -> HostExpr {
    HostExpr { ty, kind: HostExprKind::Param(p) }
}

pub fn bin(op: BinaryOp, a: HostExpr, b: HostExpr) -> HostExpr {
    use BinaryOp::*;
    let ty = match op {
        Eq | Ne | Lt | Le | Gt | Ge | And | Or => Scalar::Bool,
        _ => a.ty,
    };
    HostExpr { ty, kind: HostExprKind::Binary(op, Box::new(a), Box::new(b)) }
}

pub fn not(a: HostExpr) -> HostExpr {
    HostExpr { ty: Scalar::Bool, kind: HostExprKind::Unary(UnaryOp::Not, Box::new(a)) }
}

pub fn cast(ty: Scalar, a: HostExpr) -> HostExpr {
    HostExpr { ty, kind: HostExprKind::Cast(Box::new(a)) }
}

pub fn load(ty: Scalar, global: usize, index: Vec<HostExpr>) -> HostExpr {
    HostExpr { ty, kind: HostExprKind::Load { global, index } }
}

pub fn wl_size(w: usize) -> HostExpr {
    HostExpr { ty: Scalar::U64, kind: HostExprKind::WorklistSize(w) }
}

pub fn num_nodes() -> HostExpr {
    HostExpr { ty: Scalar::U32, kind: HostExprKind::NumNodes }
}

pub fn invoke(kernel: usize, args: Vec<HostExpr>, result: Option<usize>) -> HostStmt {
    HostStmt::Invoke { kernel, args, result }
}

// Graphs.

/// A graph from `(u, v)` pairs, labels `base + id`.
pub fn graph(n: u32, edges: &[(u32, u32)], symmetrize: bool, base: u64) -> Csr {
    let mut el = EdgeList::new(n);
    el.src = edges.iter().map(|e| e.0).collect();
    el.dst = edges.iter().map(|e| e.1).collect();
    el.labels = NodeLabels::Offset(base);
    el.into_csr(BuildOptions { symmetrize, ..Default::default() })
}

/// A graph with integer weights.
pub fn weighted(n: u32, edges: &[(u32, u32, i64)], symmetrize: bool) -> Csr {
    let mut el = EdgeList::new(n);
    el.src = edges.iter().map(|e| e.0).collect();
    el.dst = edges.iter().map(|e| e.1).collect();
    el.weights = Some(Weights::Int(edges.iter().map(|e| e.2).collect()));
    el.into_csr(BuildOptions { symmetrize, ..Default::default() })
}

/// The path 0 - 1 - 2 - 3 - 4 (undirected) plus an isolated node 5, labelled from 1 like a 1-based file.
pub fn path_graph() -> Csr {
    graph(6, &[(0, 1), (1, 2), (2, 3), (3, 4)], true, 1)
}

/// Runs `a` on `g` with `kernels` and default options (2 threads).
pub fn run(a: &Artifact, g: &Csr, params: &[u64], kernels: Vec<FakeKernel>) -> Result<Execution, RunError> {
    run_with(a, g, params, kernels, RunOptions { threads: Some(2), ..Default::default() })
}

pub fn run_with(
    a: &Artifact,
    g: &Csr,
    params: &[u64],
    kernels: Vec<FakeKernel>,
    options: RunOptions,
) -> Result<Execution, RunError> {
    let pushes = a.kernels.iter().map(|k| k.pushes.clone()).collect();
    let fake = Fake { layout: Layout::of(a), kernels, pushes };
    irgc_runtime::execute(Request { artifact: a, graph: g, graph_name: "test.el", params, kernels: &fake, options })
}

// The BFS program of `programs/bfs/bfs_worklist.irg`, by hand.

/// `level` (global 0, u32 per node), `frontier` (worklist 0), `expand(depth)` (kernel 0), param `source` (node).
pub fn bfs_artifact() -> Artifact {
    let mut a = artifact("bfs_worklist", None);
    a.params =
        vec![ParamDesc { name: "source".into(), ty: Scalar::Node, default: Some(Value { ty: Scalar::Node, bits: 0 }) }];
    a.globals = vec![node_global("level", Scalar::U32)];
    a.worklists = vec![WorklistDesc { name: "frontier".into(), elem: Scalar::Node }];
    let mut expand = kdesc("expand", vec![Scalar::U32], Space::Worklist(0));
    expand.pushes = vec![0];
    a.kernels = vec![expand];
    let source = || param(Scalar::Node, 0);
    let depth = || local(Scalar::U32, 0);
    a.plan = Plan {
        locals: vec![("depth".into(), Scalar::U32)],
        body: vec![
            HostStmt::Fill { global: 0, value: lit(Scalar::U32, u32::MAX as u64) },
            HostStmt::Store { global: 0, index: vec![source()], value: u32c(0) },
            HostStmt::Push { worklist: 0, value: source() },
            HostStmt::Assign { local: 0, value: u32c(0) },
            HostStmt::Pipe {
                worklist: 0,
                body: vec![
                    invoke(0, vec![depth()], None),
                    HostStmt::Assign { local: 0, value: bin(BinaryOp::Add, depth(), u32c(1)) },
                ],
                outlined: None,
            },
        ],
    };
    a.outputs = vec![OutputDesc { global: 0, check: Some(CheckDesc::Bfs { source: source() }) }];
    a
}

/// The `expand` kernel, optionally wrong (`off_by_one` adds 1 to every level it writes beyond depth 1).
pub fn bfs_kernels(off_by_one: bool) -> Vec<FakeKernel> {
    vec![kernel(move |c, i| {
        let v = c.items(0)[i as usize] as usize;
        let depth = c.arg(0) as u32;
        let next = if off_by_one && depth >= 1 { depth + 2 } else { depth + 1 };
        let (rs, col, level) = (c.row_start(), c.col(), c.g32(0));
        for &w in &col[rs[v] as usize..rs[v + 1] as usize] {
            if level[w as usize].fetch_min(next, Relaxed) > next {
                c.push(0, w);
            }
        }
    })]
}
