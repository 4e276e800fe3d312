//! What a graph looks like, for `irgc info`: counts, symmetry, self loops and duplicates, weights, the degree
//! distribution, connected components and an estimate of the diameter.
//!
//! Everything is linear in the graph so that it takes seconds on million-node inputs: components by union-find,
//! the diameter by four BFS sweeps (the "4-Sweep" of Crescenzi et al. 2013) rather than all-pairs, which is what
//! makes it an estimate. The sweeps give a lower bound (the largest eccentricity seen, a true shortest-path
//! length) and an upper bound (twice the smallest eccentricity seen, by the triangle inequality; the third sweep
//! starts in the middle of the longest path found, so this is often close). On trees the lower bound is exact, and
//! on road networks and small-world graphs it usually is; the bounds say how sure it is.

use crate::csr::{Csr, Weights};

/// How many BFS passes the diameter estimate makes: from a highest-degree node `r` of the largest component, from
/// the node `a` farthest from `r`, from the middle `m` of the path from `a` to the node farthest from it, and from
/// the node farthest from `m`.
pub const DIAMETER_SWEEPS: usize = 4;

/// The weights' type and range.
#[derive(Clone, Debug, PartialEq)]
pub enum WeightRange {
    Int {
        min: i64,
        max: i64,
    },
    /// `min`/`max` over the non-NaN values (`None` when all are NaN); `nan` counts the NaNs.
    Float {
        min: Option<f64>,
        max: Option<f64>,
        nan: u64,
    },
}

/// The spread of a per-node quantity.
#[derive(Clone, Debug, PartialEq)]
pub struct Distribution {
    pub min: u64,
    /// The lower median (the value at index `(n - 1) / 2` of the sorted values).
    pub median: u64,
    pub max: u64,
    pub mean: f64,
    /// `histogram[0]` counts the zeros, `histogram[k]` for `k >= 1` the values in `2^(k-1) ..= 2^k - 1`; no
    /// trailing empty bins.
    pub histogram: Vec<u64>,
}

impl Distribution {
    fn of(values: &mut [u64]) -> Distribution {
        if values.is_empty() {
            return Distribution { min: 0, median: 0, max: 0, mean: 0.0, histogram: Vec::new() };
        }
        let mut histogram = Vec::new();
        let mut sum: u128 = 0;
        for &v in values.iter() {
            let bin = (u64::BITS - v.leading_zeros()) as usize;
            if histogram.len() <= bin {
                histogram.resize(bin + 1, 0);
            }
            histogram[bin] += 1;
            sum += v as u128;
        }
        let mid = (values.len() - 1) / 2;
        let (_, &mut median, _) = values.select_nth_unstable(mid);
        Distribution {
            min: *values.iter().min().unwrap_or(&0),
            median,
            max: *values.iter().max().unwrap_or(&0),
            mean: sum as f64 / values.len() as f64,
            histogram,
        }
    }

    /// The degrees bin `k` of the histogram holds, as `(lo, hi)`.
    pub fn bin_range(k: usize) -> (u64, u64) {
        match k {
            0 => (0, 0),
            _ => (1 << (k - 1), (1u64 << (k - 1)).saturating_mul(2) - 1),
        }
    }
}

/// The diameter estimate on the largest component (hops, ignoring edge direction and weights).
#[derive(Clone, Debug, PartialEq)]
pub struct DiameterEstimate {
    /// The largest eccentricity found: the diameter is at least this.
    pub lower: u64,
    /// Twice the smallest eccentricity found: the diameter is at most this.
    pub upper: u64,
    /// BFS passes made.
    pub sweeps: usize,
}

/// Everything `irgc info` reports about a graph.
#[derive(Clone, Debug, PartialEq)]
pub struct GraphStats {
    pub nodes: u64,
    /// Stored (directed) edges; an undirected edge counts twice, a self loop once.
    pub edges: u64,
    /// Whether every edge `u -> v` has a reverse `v -> u`, i.e. the graph is undirected.
    pub symmetric: bool,
    pub self_loops: u64,
    /// Edges that repeat an earlier edge with the same source and destination.
    pub duplicate_edges: u64,
    /// Nodes with no edge in or out.
    pub isolated_nodes: u64,
    pub weights: Option<WeightRange>,
    pub out_degree: Distribution,
    /// `None` for a symmetric graph, where it equals the out-degree.
    pub in_degree: Option<Distribution>,
    /// Connected components, weakly connected for directed graphs (an isolated node is one).
    pub components: u64,
    pub largest_component: u64,
    /// `None` for a graph without nodes.
    pub diameter: Option<DiameterEstimate>,
}

impl GraphStats {
    pub fn of(g: &Csr) -> GraphStats {
        let n = g.num_nodes();
        let mut self_loops = 0;
        let mut duplicate_edges = 0;
        let mut in_deg = vec![0u64; n as usize];
        for v in 0..n {
            let nb = g.neighbors(v);
            self_loops += nb.iter().filter(|&&d| d == v).count() as u64;
            // Rows are sorted by destination, so repeats are adjacent.
            duplicate_edges += nb.windows(2).filter(|w| w[0] == w[1]).count() as u64;
            for &d in nb {
                in_deg[d as usize] += 1;
            }
        }
        let symmetric = (0..n).all(|v| g.neighbors(v).iter().all(|&d| g.neighbors(d).binary_search(&v).is_ok()));
        let mut out: Vec<u64> = (0..n).map(|v| g.degree(v) as u64).collect();
        let isolated_nodes = out.iter().zip(&in_deg).filter(|(&o, &i)| o == 0 && i == 0).count() as u64;
        let out_degree = Distribution::of(&mut out);
        let in_degree = (!symmetric).then(|| Distribution::of(&mut in_deg));
        let reverse = (!symmetric).then(|| Reverse::of(g));
        let (components, hub, largest_component) = components(g);
        let diameter = hub.map(|r| diameter(g, reverse.as_ref(), r));
        GraphStats {
            nodes: n as u64,
            edges: g.num_edges(),
            symmetric,
            self_loops,
            duplicate_edges,
            isolated_nodes,
            weights: g.weights.as_ref().map(weight_range),
            out_degree,
            in_degree,
            components,
            largest_component,
            diameter,
        }
    }
}

fn weight_range(w: &Weights) -> WeightRange {
    match w {
        Weights::Int(v) => {
            WeightRange::Int { min: v.iter().copied().min().unwrap_or(0), max: v.iter().copied().max().unwrap_or(0) }
        }
        Weights::U32(v) => WeightRange::Int {
            min: v.iter().copied().min().unwrap_or(0) as i64,
            max: v.iter().copied().max().unwrap_or(0) as i64,
        },
        Weights::Float(v) => {
            let finite = || v.iter().copied().filter(|x| !x.is_nan());
            WeightRange::Float {
                min: finite().reduce(f64::min),
                max: finite().reduce(f64::max),
                nan: v.iter().filter(|x| x.is_nan()).count() as u64,
            }
        }
    }
}

/// The in-edges of a directed graph, so BFS can ignore direction without building the symmetrized graph.
struct Reverse {
    row_start: Vec<u64>,
    col: Vec<u32>,
}

impl Reverse {
    fn of(g: &Csr) -> Reverse {
        let (row_start, col) = g.transpose();
        Reverse { row_start, col }
    }

    fn neighbors(&self, v: u32) -> &[u32] {
        &self.col[self.row_start[v as usize] as usize..self.row_start[v as usize + 1] as usize]
    }
}

/// Union-find over every edge: the number of (weakly) connected components, a highest-degree node of a largest one
/// (hubs are central: a good first BFS source) and its size. Ties go to the smaller id, so the result is
/// deterministic.
fn components(g: &Csr) -> (u64, Option<u32>, u64) {
    let n = g.num_nodes() as usize;
    let mut parent: Vec<u32> = (0..n as u32).collect();
    fn find(parent: &mut [u32], mut x: u32) -> u32 {
        while parent[x as usize] != x {
            let p = parent[x as usize];
            parent[x as usize] = parent[p as usize];
            x = p;
        }
        x
    }
    for v in 0..g.num_nodes() {
        for &d in g.neighbors(v) {
            let (a, b) = (find(&mut parent, v), find(&mut parent, d));
            if a != b {
                // Smaller index as root: deterministic, and with path halving fast enough in practice.
                let (lo, hi) = (a.min(b), a.max(b));
                parent[hi as usize] = lo;
            }
        }
    }
    let mut size = vec![0u64; n];
    for v in 0..n as u32 {
        let r = find(&mut parent, v);
        size[r as usize] += 1;
    }
    let count = size.iter().filter(|&&s| s > 0).count() as u64;
    let Some((root, &largest)) = size.iter().enumerate().max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(&a.0))) else {
        return (0, None, 0);
    };
    let hub = (0..n as u32)
        .filter(|&v| find(&mut parent, v) == root as u32)
        .max_by_key(|&v| (g.degree(v), std::cmp::Reverse(v)));
    (count, hub, largest)
}

/// BFS ignoring direction from `source`: the farthest node (the smallest id among the farthest) and its distance.
fn bfs(g: &Csr, reverse: Option<&Reverse>, source: u32, dist: &mut [u32], queue: &mut Vec<u32>) -> (u32, u64) {
    dist.fill(u32::MAX);
    queue.clear();
    dist[source as usize] = 0;
    queue.push(source);
    let mut head = 0;
    let mut far = (source, 0u32);
    while head < queue.len() {
        let v = queue[head];
        head += 1;
        let dv = dist[v as usize];
        if dv > far.1 || (dv == far.1 && v < far.0) {
            far = (v, dv);
        }
        let back = reverse.map_or(&[][..], |r| r.neighbors(v));
        for &w in g.neighbors(v).iter().chain(back) {
            if dist[w as usize] == u32::MAX {
                dist[w as usize] = dv + 1;
                queue.push(w);
            }
        }
    }
    (far.0, far.1 as u64)
}

/// The 4-sweep estimate (see [`DIAMETER_SWEEPS`]) on the component of `hub`.
fn diameter(g: &Csr, reverse: Option<&Reverse>, hub: u32) -> DiameterEstimate {
    let n = g.num_nodes() as usize;
    let mut dist = vec![u32::MAX; n];
    let mut queue = Vec::with_capacity(n);
    let (mut lower, mut upper) = (0u64, u64::MAX);
    let mut sweep = |source: u32, dist: &mut Vec<u32>| {
        let (far, ecc) = bfs(g, reverse, source, dist, &mut queue);
        lower = lower.max(ecc);
        upper = upper.min(2 * ecc);
        (far, ecc)
    };
    let (a, _) = sweep(hub, &mut dist);
    let (b, ecc_a) = sweep(a, &mut dist);
    // Walk from `b` halfway back towards `a` along decreasing distances from `a`.
    let mut middle = b;
    for _ in 0..ecc_a / 2 {
        let d = dist[middle as usize];
        let back = reverse.map_or(&[][..], |r| r.neighbors(middle));
        match g.neighbors(middle).iter().chain(back).find(|&&w| dist[w as usize] == d - 1) {
            Some(&w) => middle = w,
            None => break,
        }
    }
    let (a2, _) = sweep(middle, &mut dist);
    sweep(a2, &mut dist);
    DiameterEstimate { lower, upper, sweeps: DIAMETER_SWEEPS }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::csr::{BuildOptions, EdgeList};

    fn graph(n: u32, edges: &[(u32, u32)], sym: bool) -> Csr {
        let mut el = EdgeList::new(n);
        el.src = edges.iter().map(|e| e.0).collect();
        el.dst = edges.iter().map(|e| e.1).collect();
        el.into_csr(BuildOptions { symmetrize: sym, ..Default::default() })
    }

    #[test]
    fn a_path_has_its_diameter_found_exactly() {
        let g = graph(6, &[(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)], true);
        let s = GraphStats::of(&g);
        assert!(s.symmetric);
        assert_eq!((s.components, s.largest_component), (1, 6));
        assert_eq!(s.diameter, Some(DiameterEstimate { lower: 5, upper: 6, sweeps: DIAMETER_SWEEPS }));
        assert_eq!((s.out_degree.min, s.out_degree.median, s.out_degree.max), (1, 2, 2));
        assert_eq!(s.out_degree.histogram, [0, 2, 4]);
    }

    #[test]
    fn directed_graphs_use_weak_components_and_ignore_direction_for_the_diameter() {
        // 0 -> 1 <- 2, 3 -> 3 (a loop), 3 -> 4 twice, 5 alone.
        let g = graph(6, &[(0, 1), (2, 1), (3, 3), (3, 4), (3, 4)], false);
        let s = GraphStats::of(&g);
        assert!(!s.symmetric);
        assert_eq!((s.self_loops, s.duplicate_edges, s.isolated_nodes), (1, 1, 1));
        assert_eq!((s.components, s.largest_component), (3, 3));
        assert_eq!(s.diameter.map(|d| d.lower), Some(2), "0 - 1 - 2 against the arcs' direction");
        let ind = s.in_degree.expect("directed graphs report in-degrees");
        assert_eq!((ind.max, ind.median), (2, 0));
        assert_eq!(s.out_degree.histogram, [3, 2, 1], "degree 3 is in the bin 2..=3");
        assert_eq!((Distribution::bin_range(2), Distribution::bin_range(3)), ((2, 3), (4, 7)));
    }

    #[test]
    fn float_weights_skip_nan() {
        assert_eq!(
            weight_range(&Weights::Float(vec![2.0, f64::NAN, -1.5].into())),
            WeightRange::Float { min: Some(-1.5), max: Some(2.0), nan: 1 }
        );
        assert_eq!(weight_range(&Weights::Int(vec![3, -7].into())), WeightRange::Int { min: -7, max: 3 });
    }

    #[test]
    fn an_empty_graph_has_no_diameter() {
        let s = GraphStats::of(&graph(0, &[], false));
        assert_eq!((s.components, s.largest_component, s.diameter), (0, 0, None));
    }
}
