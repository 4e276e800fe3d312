//! Hand-written Rust baselines for `irgc bench --baseline`: the same algorithms as the shipped programs, written
//! the plain way one would write them in Rust with rayon, so a table row says how far the compiled program is
//! from code nobody had to compile.
//!
//! "The same algorithm" is meant literally: the same rounds, the same atomics, the same work per round. A faster
//! algorithm (direction-optimising BFS, Afforest, delta-stepping) would measure the algorithm, not the compiler.
//! Frontiers are built by pushes exactly as the runtime builds them (an atomic tail into a buffer allocated in
//! setup). What differs is only what a hand-writer gets for free: edge-parallel loops that find each chunk's
//! source node by binary search instead of reading a materialised source array, rayon's work stealing instead of
//! fixed chunks, and no plan to interpret between rounds.
//!
//! Timing follows the runtime's split: allocating and initialising arrays that the program declares with an
//! initial value (`node level: u32 = inf`) is setup, like the runtime's setup; everything the program's plan does
//! (including `init()` kernels) is compute. Results are checked once with `irgc_verify`, the same references
//! `irgc run --verify` uses.
//!
//! All atomics are `Relaxed`: every algorithm here needs only per-location atomicity (levels, distances and
//! parents only ever decrease), and on x86 the read-modify-write instructions are the same whatever the ordering.

use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering::Relaxed};
use std::time::{Duration, Instant};

use irgc_graph::Csr;
use rayon::prelude::*;

/// The "unreached" value of `u32` levels and distances, as the programs' `inf`.
const INF: u32 = u32::MAX;

/// Edges handed to one task by [`par_edges_any`]: big enough that the binary search for the chunk's first source
/// is noise, small enough that a hub's edges are spread over many tasks.
const EDGE_CHUNK: usize = 4096;

/// The fewest frontier items or nodes one rayon task takes (`with_min_len`), as the runtime's `MIN_CHUNK`: below
/// it, splitting and stealing cost more than the work, which matters on road graphs with thousands of tiny rounds.
const MIN_LEN: usize = 256;

/// The programs that have a baseline, by the file stem of the `.irg` program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Algo {
    /// `bfs_worklist`: level-synchronous frontier BFS, `fetch_min` on levels, the next frontier built by pushes.
    BfsWorklist,
    /// `bfs_topology`: every round sweeps all nodes and expands those on the current level.
    BfsTopology,
    /// `rem`: Rem's union-find with compare-and-swap over all edges, then a pointer-jumping compress.
    Rem,
    /// `shiloach_vishkin`: graft over edges, shortcut over nodes, until no graft happens.
    ShiloachVishkin,
    /// `sssp_worklist`: worklist Bellman-Ford with `fetch_min` on `u32` distances.
    SsspWorklist,
}

impl Algo {
    /// The baseline for a program file stem, if there is one.
    pub fn for_stem(stem: &str) -> Option<Algo> {
        Some(match stem {
            "bfs_worklist" => Algo::BfsWorklist,
            "bfs_topology" => Algo::BfsTopology,
            "rem" => Algo::Rem,
            "shiloach_vishkin" => Algo::ShiloachVishkin,
            "sssp_worklist" => Algo::SsspWorklist,
            _ => return None,
        })
    }

    /// Whether the algorithm starts from a source node.
    pub fn needs_source(self) -> bool {
        matches!(self, Algo::BfsWorklist | Algo::BfsTopology | Algo::SsspWorklist)
    }

    /// Whether the algorithm reads `u32` edge weights.
    pub fn reads_weights(self) -> bool {
        self == Algo::SsspWorklist
    }
}

/// What one baseline run did.
pub struct Trial {
    pub setup: Duration,
    pub compute: Duration,
    /// Parallel phases, counted as the program counts kernel launches (so the two columns compare).
    pub launches: u64,
    /// The result per node: levels, distances (`INF` = unreached) or component labels.
    pub output: Vec<u32>,
}

/// The inputs of one baseline on one graph: the source (internal id) and the weights as `u32`, converted once.
pub struct Input<'a> {
    pub graph: &'a Csr,
    pub source: u32,
    pub weights: Option<&'a [u32]>,
}

/// Runs `algo` once on `pool`.
pub fn run(algo: Algo, input: &Input<'_>, pool: &rayon::ThreadPool) -> Trial {
    pool.install(|| match algo {
        Algo::BfsWorklist => bfs_worklist(input.graph, input.source),
        Algo::BfsTopology => bfs_topology(input.graph, input.source),
        Algo::Rem => rem(input.graph),
        Algo::ShiloachVishkin => shiloach_vishkin(input.graph),
        Algo::SsspWorklist => match input.weights {
            Some(w) => sssp_worklist(input.graph, input.source, w),
            // The driver converts the weights before it runs this baseline; with none there is nothing to run.
            None => Trial { setup: Duration::ZERO, compute: Duration::ZERO, launches: 0, output: Vec::new() },
        },
    })
}

/// Checks a baseline's output with `irgc_verify`; the reference's one-line summary, or the mismatch.
pub fn verify(algo: Algo, input: &Input<'_>, output: &[u32]) -> Result<String, String> {
    let g = input.graph;
    let unreached = |x: u32| (x != INF).then_some(x);
    match algo {
        Algo::BfsWorklist | Algo::BfsTopology => {
            let cand: Vec<Option<u64>> = output.iter().map(|&x| unreached(x).map(u64::from)).collect();
            irgc_verify::check_bfs(g, input.source, &cand)
                .map(|s| format!("reached {} nodes, max level {}", s.reached, s.max_level))
        }
        Algo::Rem | Algo::ShiloachVishkin => irgc_verify::check_components(g, output)
            .map(|s| format!("{} components, the largest of {} nodes", s.components, s.largest)),
        Algo::SsspWorklist => {
            let cand: Vec<Option<i64>> = output.iter().map(|&x| unreached(x).map(i64::from)).collect();
            irgc_verify::check_sssp(g, input.source, &cand)
                .map(|s| format!("reached {} nodes, max distance {}", s.reached, s.max_distance))
        }
    }
    .map_err(|m| m.to_string())
}

/// A `u32` array of `n` atomics, all `value`.
fn atomic_array(n: usize, value: u32) -> Vec<AtomicU32> {
    (0..n).into_par_iter().map(|_| AtomicU32::new(value)).collect()
}

fn into_plain(a: Vec<AtomicU32>) -> Vec<u32> {
    a.into_iter().map(AtomicU32::into_inner).collect()
}

/// Calls `f(src, dst)` for every edge, in parallel chunks of [`EDGE_CHUNK`] edges, and ORs the results.
///
/// Edge-parallel like the programs' `forall e in G.edges` (so a hub's edges are split over tasks), but without
/// the materialised source array the runtime builds: each chunk finds its first source by binary search on
/// `row_start` and walks forward.
fn par_edges_any(g: &Csr, f: impl Fn(u32, u32) -> bool + Sync) -> bool {
    let m = g.col.len();
    (0..m.div_ceil(EDGE_CHUNK))
        .into_par_iter()
        .map(|c| {
            let (lo, hi) = (c * EDGE_CHUNK, ((c + 1) * EDGE_CHUNK).min(m));
            // The last node whose edges start at or before `lo`: its range contains `lo` (lo < m = row_start[n]).
            let mut u = g.row_start.partition_point(|&s| s <= lo as u64) - 1;
            let mut any = false;
            for e in lo..hi {
                while g.row_start[u + 1] as usize <= e {
                    u += 1;
                }
                any |= f(u as u32, g.col[e]);
            }
            any
        })
        .reduce(|| false, |a, b| a | b)
}

/// A worklist as the runtime keeps one: a buffer allocated once (in setup) and an atomic tail that every push
/// bumps. Sized so it cannot overflow: `n` for BFS (a node enters a frontier once), `max(n, m) + 1` for SSSP (at
/// most one push per relaxed edge per round), the runtime's own capacity.
struct Worklist {
    items: Vec<AtomicU32>,
    len: AtomicUsize,
}

impl Worklist {
    fn new(capacity: usize) -> Worklist {
        Worklist { items: atomic_array(capacity, 0), len: AtomicUsize::new(0) }
    }

    fn push(&self, v: u32) {
        let i = self.len.fetch_add(1, Relaxed);
        self.items[i].store(v, Relaxed);
    }

    /// The items, once the round that pushed them is over.
    fn items(&self) -> &[AtomicU32] {
        &self.items[..self.len.load(Relaxed)]
    }
}

/// Level-synchronous BFS: each round expands the frontier in parallel; a node whose level `fetch_min` lowered is
/// pushed to the next frontier (at most once, since every write of a round is the same level).
fn bfs_worklist(g: &Csr, source: u32) -> Trial {
    let t = Instant::now();
    let n = g.num_nodes() as usize;
    let level = atomic_array(n, INF);
    let (mut cur, mut next) = (Worklist::new(n), Worklist::new(n));
    let setup = t.elapsed();

    let t = Instant::now();
    level[source as usize].store(0, Relaxed);
    cur.push(source);
    let (mut depth, mut launches) = (0u32, 0u64);
    while !cur.items().is_empty() {
        let d = depth + 1;
        cur.items().par_iter().with_min_len(MIN_LEN).for_each(|v| {
            for &w in g.neighbors(v.load(Relaxed)) {
                if level[w as usize].fetch_min(d, Relaxed) > d {
                    next.push(w);
                }
            }
        });
        std::mem::swap(&mut cur, &mut next);
        next.len.store(0, Relaxed);
        depth = d;
        launches += 1;
    }
    let compute = t.elapsed();
    Trial { setup, compute, launches, output: into_plain(level) }
}

/// Topology-driven BFS: every round visits every node; those on the current level label their unvisited
/// neighbours (a benign race: all writers of a round write the same value). Stops after a round labels nothing.
fn bfs_topology(g: &Csr, source: u32) -> Trial {
    let t = Instant::now();
    let level = atomic_array(g.num_nodes() as usize, INF);
    let setup = t.elapsed();

    let t = Instant::now();
    level[source as usize].store(0, Relaxed);
    let (mut depth, mut launches) = (0u32, 0u64);
    loop {
        let labelled = (0..g.num_nodes())
            .into_par_iter()
            .with_min_len(MIN_LEN)
            .map(|v| {
                if level[v as usize].load(Relaxed) != depth {
                    return false;
                }
                let mut any = false;
                for &w in g.neighbors(v) {
                    if level[w as usize].load(Relaxed) == INF {
                        level[w as usize].store(depth + 1, Relaxed);
                        any = true;
                    }
                }
                any
            })
            .reduce(|| false, |a, b| a | b);
        launches += 1;
        if !labelled {
            break;
        }
        depth += 1;
    }
    let compute = t.elapsed();
    Trial { setup, compute, launches, output: into_plain(level) }
}

/// `parent[v] = v` for every node: the programs' `init()` kernel, part of compute.
fn init_parents(parent: &[AtomicU32]) {
    parent.par_iter().with_min_len(MIN_LEN).enumerate().for_each(|(v, p)| p.store(v as u32, Relaxed));
}

/// The root of `x`'s tree, changing nothing (the stdlib's `find`).
fn find(parent: &[AtomicU32], x: u32) -> u32 {
    let mut v = x;
    let mut p = parent[v as usize].load(Relaxed);
    while p != v {
        v = p;
        p = parent[v as usize].load(Relaxed);
    }
    v
}

/// Points every node at its root (pointer jumping without path compression, as the programs' compress/shortcut).
fn compress(parent: &[AtomicU32]) {
    parent.par_iter().with_min_len(MIN_LEN).enumerate().for_each(|(v, p)| p.store(find(parent, v as u32), Relaxed));
}

/// Rem's splice-and-hook for one edge, exactly as `rem.irg`'s `unite` kernel: the endpoint with the larger parent
/// is spliced under (or, at a root, hooked under) the smaller parent; `parent[v] <= v` throughout.
fn rem_unite(parent: &[AtomicU32], mut u: u32, mut v: u32) {
    let mut pu = parent[u as usize].load(Relaxed);
    let mut pv = parent[v as usize].load(Relaxed);
    while pu != pv {
        if pu < pv {
            std::mem::swap(&mut u, &mut v);
            std::mem::swap(&mut pu, &mut pv);
        }
        if u == pu {
            if parent[u as usize].compare_exchange(u, pv, Relaxed, Relaxed).is_ok() {
                break;
            }
        } else {
            // Another thread may have spliced u already; either way u's parent is now at most pu.
            let _ = parent[u as usize].compare_exchange(pu, pv, Relaxed, Relaxed);
            u = pu;
        }
        pu = parent[u as usize].load(Relaxed);
        pv = parent[v as usize].load(Relaxed);
    }
}

/// Rem's union-find: init, unite over all edges, compress every node to its root (3 phases, like 3 launches).
fn rem(g: &Csr) -> Trial {
    let t = Instant::now();
    let parent = atomic_array(g.num_nodes() as usize, 0);
    let setup = t.elapsed();

    let t = Instant::now();
    init_parents(&parent);
    par_edges_any(g, |u, v| {
        rem_unite(&parent, u, v);
        false
    });
    compress(&parent);
    let compute = t.elapsed();
    Trial { setup, compute, launches: 3, output: into_plain(parent) }
}

/// Shiloach-Vishkin: init, then rounds of graft (over edges: a root parent hooks under the smaller parent with
/// `fetch_min`) and shortcut (every node jumps to its root) until a round grafts nothing.
fn shiloach_vishkin(g: &Csr) -> Trial {
    let t = Instant::now();
    let parent = atomic_array(g.num_nodes() as usize, 0);
    let setup = t.elapsed();

    let t = Instant::now();
    init_parents(&parent);
    let mut launches = 1;
    loop {
        let grafted = par_edges_any(g, |u, v| {
            let pu = parent[u as usize].load(Relaxed);
            let pv = parent[v as usize].load(Relaxed);
            let (hi, lo) = (pu.max(pv), pu.min(pv));
            if hi != lo && parent[hi as usize].load(Relaxed) == hi {
                parent[hi as usize].fetch_min(lo, Relaxed);
                return true;
            }
            false
        });
        compress(&parent);
        launches += 2;
        if !grafted {
            break;
        }
    }
    let compute = t.elapsed();
    Trial { setup, compute, launches, output: into_plain(parent) }
}

/// Worklist Bellman-Ford: each round relaxes the out-edges of the nodes whose distance dropped the round before;
/// a node is pushed each time `fetch_min` lowers it (so it may appear more than once, as in the program).
fn sssp_worklist(g: &Csr, source: u32, weight: &[u32]) -> Trial {
    let t = Instant::now();
    let n = g.num_nodes() as usize;
    let dist = atomic_array(n, INF);
    let capacity = n.max(g.col.len()) + 1;
    let (mut cur, mut next) = (Worklist::new(capacity), Worklist::new(capacity));
    let setup = t.elapsed();

    let t = Instant::now();
    dist[source as usize].store(0, Relaxed);
    cur.push(source);
    let mut launches = 0;
    while !cur.items().is_empty() {
        cur.items().par_iter().with_min_len(MIN_LEN).for_each(|v| {
            let v = v.load(Relaxed);
            let dv = dist[v as usize].load(Relaxed);
            for e in g.edge_range(v) {
                let (w, nd) = (g.col[e], dv.wrapping_add(weight[e]));
                if dist[w as usize].fetch_min(nd, Relaxed) > nd {
                    next.push(w);
                }
            }
        });
        std::mem::swap(&mut cur, &mut next);
        next.len.store(0, Relaxed);
        launches += 1;
    }
    let compute = t.elapsed();
    Trial { setup, compute, launches, output: into_plain(dist) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use irgc_graph::{BuildOptions, EdgeList, NodeLabels, Weights};

    /// Two components ({0..4} as a path with a chord, {5, 6}) and an isolated node 7, undirected, weighted.
    fn graph() -> Csr {
        let edges = [(0, 1, 4), (1, 2, 1), (2, 3, 7), (0, 3, 20), (3, 4, 2), (5, 6, 3)];
        let mut el = EdgeList::new(8);
        let mut w = Vec::new();
        for &(a, b, c) in &edges {
            el.src.push(a);
            el.dst.push(b);
            w.push(c);
        }
        el.weights = Some(Weights::Int(w.into()));
        el.labels = NodeLabels::Offset(0);
        el.into_csr(BuildOptions { symmetrize: true, drop_self_loops: true, dedupe: true })
    }

    #[test]
    fn every_baseline_passes_its_check() {
        let g = graph();
        let weights: Vec<u32> = match &g.weights {
            Some(Weights::Int(w)) => w.iter().map(|&x| x as u32).collect(),
            _ => unreachable!("the test graph has integer weights"),
        };
        let input = Input { graph: &g, source: 0, weights: Some(&weights) };
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        for algo in [Algo::BfsWorklist, Algo::BfsTopology, Algo::Rem, Algo::ShiloachVishkin, Algo::SsspWorklist] {
            let trial = run(algo, &input, &pool);
            verify(algo, &input, &trial.output).unwrap_or_else(|e| panic!("{algo:?}: {e}"));
        }
        let bfs = run(Algo::BfsWorklist, &input, &pool);
        assert_eq!(bfs.output, vec![0, 1, 2, 1, 2, INF, INF, INF]);
        let sssp = run(Algo::SsspWorklist, &input, &pool);
        assert_eq!(sssp.output, vec![0, 4, 5, 12, 14, INF, INF, INF]);
    }

    #[test]
    fn a_wrong_answer_is_caught() {
        let g = graph();
        let input = Input { graph: &g, source: 0, weights: None };
        assert!(verify(Algo::BfsWorklist, &input, &[0, 1, 2, 2, 2, INF, INF, INF]).is_err());
        assert!(verify(Algo::Rem, &input, &[0, 0, 0, 0, 0, 0, 0, 7]).is_err());
    }

    #[test]
    fn stems_match_the_shipped_programs() {
        assert_eq!(Algo::for_stem("rem"), Some(Algo::Rem));
        assert_eq!(Algo::for_stem("shiloach_vishkin"), Some(Algo::ShiloachVishkin));
        assert_eq!(Algo::for_stem("louvain_local"), None);
    }
}
