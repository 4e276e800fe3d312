//! Independent references that check irgc results.
//!
//! Every check recomputes the answer with the simplest sequential algorithm that is obviously correct (BFS with a
//! queue, Dijkstra with a binary heap, union-find, greedy matching, ...) and compares the candidate against it.
//! None of this code shares anything with the compiler or the runtime beyond the [`Csr`] it reads,
//! so a bug there cannot hide itself by also being here. Speed is a non-goal: clarity is the point. The
//! exceptions run in parallel (rayon) so that a 2^22-node Kronecker graph checks in seconds rather than minutes:
//! the triangle count's O(m^1.5) intersections, the PageRank reference's hundreds of steps (pulled over
//! in-edges, the same sums as the sequential push step, which the residual check still uses), and the matching
//! check's sorts of all pairs by weight.
//!
//! Conventions shared by all checks:
//! - results come in as slices indexed by node id (`0..num_nodes`), whatever backend produced them;
//! - "unreached" is `None` (see [`unreached_as_none`] for backends that write a sentinel);
//! - a check returns a summary of the reference answer on success, or a [`Mismatch`] naming the first (lowest id)
//!   node that is wrong, by its label as written in the input file, with what was expected and what was found.

mod apsp;
mod bc;
mod bfs;
mod cc;
mod coloring;
mod matching;
mod modularity;
mod pagerank;
mod sssp;
mod triangles;

pub use apsp::{check_apsp, ApspSummary};
pub use bc::{brandes_dependencies, check_bc, BcSummary};
pub use bfs::{bfs_levels, check_bfs, BfsSummary};
pub use cc::{check_components, components, CcSummary};
pub use coloring::{check_coloring, ColoringSummary};
pub use matching::{check_greedy_matching, check_matching, distinct_weights, greedy_matching, MatchingSummary};
pub use modularity::{check_modularity, modularity, ModularitySummary};
pub use pagerank::{
    check_pagerank, pagerank, pagerank_step, PageRankSummary, REFERENCE_MAX_STEPS, REFERENCE_TOLERANCE,
};
pub use sssp::{check_sssp, dijkstra, Distance, Distances, SsspSummary, FLOAT_TOLERANCE};
pub use triangles::{check_triangle_total, check_triangles, triangles_per_node, TriangleSummary};

use irgc_graph::Csr;
use thiserror::Error;

/// Why a candidate result is wrong. Node ids in here are labels (the ids of the input file), not internal ids.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum Mismatch {
    /// The candidate does not have one entry per node (or per pair of nodes).
    #[error("{what}: the candidate has {found} entries, expected {expected}")]
    Length { what: &'static str, expected: usize, found: usize },
    /// The value at one node is wrong.
    #[error("{what} of node {node}: expected {expected}, found {found}")]
    Node { what: &'static str, node: u64, expected: String, found: String },
    /// The value for the pair `(from, to)` is wrong (all-pairs results).
    #[error("{what} from node {from} to node {to}: expected {expected}, found {found}")]
    Pair { what: &'static str, from: u64, to: u64, expected: String, found: String },
    /// An edge violates a constraint (a colouring conflict, a matched pair that is not an edge).
    #[error("{what} at edge {from} -> {to}: {detail}")]
    Edge { what: &'static str, from: u64, to: u64, detail: String },
    /// A whole-graph number is wrong (a claimed modularity).
    #[error("{what}: expected {expected}, found {found}")]
    Total { what: &'static str, expected: String, found: String },
    /// The check does not apply to this input (a source out of range, negative weights for Dijkstra, ...).
    #[error("cannot check {what}: {reason}")]
    Unsupported { what: &'static str, reason: String },
}

impl Mismatch {
    /// The label of the node the mismatch is about: the node itself, the source end of an edge, or the target of
    /// a pair (the entry that is wrong in the row of `from`). `None` for whole-result mismatches.
    pub fn node(&self) -> Option<u64> {
        match self {
            Mismatch::Node { node, .. } => Some(*node),
            Mismatch::Edge { from, .. } => Some(*from),
            Mismatch::Pair { to, .. } => Some(*to),
            Mismatch::Length { .. } | Mismatch::Total { .. } | Mismatch::Unsupported { .. } => None,
        }
    }
}

/// Turns a sentinel-based result into the `Option` form the checks take: `None` wherever `values[v] == unreached`.
///
/// For backends that write, say, `u64::MAX` or `f64::INFINITY` for nodes they did not reach.
pub fn unreached_as_none<T: Copy + PartialEq>(values: &[T], unreached: T) -> Vec<Option<T>> {
    values.iter().map(|&x| (x != unreached).then_some(x)).collect()
}

/// Fails unless `candidate_len` is one entry per node of `g`.
fn check_len(what: &'static str, g: &Csr, candidate_len: usize) -> Result<(), Mismatch> {
    let n = g.num_nodes() as usize;
    if candidate_len == n {
        Ok(())
    } else {
        Err(Mismatch::Length { what, expected: n, found: candidate_len })
    }
}

/// Fails unless `source` is a node of `g`.
fn check_source(what: &'static str, g: &Csr, source: u32) -> Result<(), Mismatch> {
    if source < g.num_nodes() {
        Ok(())
    } else {
        Err(Mismatch::Unsupported {
            what,
            reason: format!("source {source} is not a node (the graph has {})", g.num_nodes()),
        })
    }
}

/// Shows an optional value in messages: the value, or "unreached".
fn show<T: std::fmt::Display>(x: Option<T>) -> String {
    match x {
        Some(x) => x.to_string(),
        None => "unreached".to_string(),
    }
}

#[cfg(test)]
pub(crate) mod test_graphs {
    use irgc_graph::{BuildOptions, Csr, EdgeList, NodeLabels, Weights};

    /// A graph from `(u, v)` pairs, labels `100 + id` so tests can tell labels from ids.
    pub fn directed(n: u32, edges: &[(u32, u32)]) -> Csr {
        build(n, edges, None, false)
    }

    pub fn undirected(n: u32, edges: &[(u32, u32)]) -> Csr {
        build(n, edges, None, true)
    }

    pub fn weighted(n: u32, edges: &[(u32, u32, i64)], symmetric: bool) -> Csr {
        let pairs: Vec<(u32, u32)> = edges.iter().map(|&(u, v, _)| (u, v)).collect();
        build(n, &pairs, Some(Weights::Int(edges.iter().map(|e| e.2).collect())), symmetric)
    }

    pub fn weighted_f(n: u32, edges: &[(u32, u32, f64)], symmetric: bool) -> Csr {
        let pairs: Vec<(u32, u32)> = edges.iter().map(|&(u, v, _)| (u, v)).collect();
        build(n, &pairs, Some(Weights::Float(edges.iter().map(|e| e.2).collect())), symmetric)
    }

    fn build(n: u32, edges: &[(u32, u32)], weights: Option<Weights>, symmetrize: bool) -> Csr {
        let mut el = EdgeList::new(n);
        el.src = edges.iter().map(|e| e.0).collect();
        el.dst = edges.iter().map(|e| e.1).collect();
        el.weights = weights;
        el.labels = NodeLabels::Offset(100);
        el.into_csr(BuildOptions { symmetrize, ..Default::default() })
    }
}
