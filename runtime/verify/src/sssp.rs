//! Single-source shortest paths: Dijkstra with a binary heap.
//!
//! Distances are computed in the graph's own number type: exactly in `i64` for integer weights (and for
//! unweighted graphs, where every edge weighs 1), in `f64` for float weights. Candidates may be `i64` or `f64`
//! (see [`Distance`]); an integer graph's distances must match exactly either way, a float graph's within a
//! relative 1e-9, because a parallel backend adds the same weights in a different order and float addition is not
//! associative.

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;
use std::fmt;
use std::ops::Add;

use irgc_graph::{Csr, Weights};

use crate::{check_len, check_source, show, Mismatch};

/// Relative tolerance for float distances.
pub const FLOAT_TOLERANCE: f64 = 1e-9;

/// Reference distances, in the graph's number type; `None` = unreached.
#[derive(Clone, Debug, PartialEq)]
pub enum Distances {
    Int(Vec<Option<i64>>),
    Float(Vec<Option<f64>>),
}

impl Distances {
    /// The distance of node `v` as an `f64` (exact for integers below 2^53).
    pub fn get_f64(&self, v: usize) -> Option<f64> {
        match self {
            Distances::Int(d) => d[v].map(|x| x as f64),
            Distances::Float(d) => d[v],
        }
    }

    fn show(&self, v: usize) -> String {
        match self {
            Distances::Int(d) => show(d[v]),
            Distances::Float(d) => show(d[v]),
        }
    }
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for i64 {}
    impl Sealed for f64 {}
}

/// The number types a candidate's distances may come in: `i64` or `f64`.
pub trait Distance: Copy + fmt::Display + sealed::Sealed {
    /// Whether this type can hold a float graph's distances (an `i64` candidate for a float graph is rejected).
    const HOLDS_FLOATS: bool;
    /// Whether `self` is exactly the integer `expected`.
    fn equals_int(self, expected: i64) -> bool;
    /// Whether `self` is within [`FLOAT_TOLERANCE`] of `expected`, relatively.
    fn near_float(self, expected: f64) -> bool;
}

impl Distance for i64 {
    const HOLDS_FLOATS: bool = false;
    fn equals_int(self, expected: i64) -> bool {
        self == expected
    }
    fn near_float(self, expected: f64) -> bool {
        (self as f64).near_float(expected)
    }
}

impl Distance for f64 {
    const HOLDS_FLOATS: bool = true;
    fn equals_int(self, expected: i64) -> bool {
        self == expected as f64
    }
    fn near_float(self, expected: f64) -> bool {
        self == expected || (self - expected).abs() <= FLOAT_TOLERANCE * self.abs().max(expected.abs())
    }
}

/// Whether the candidate's value for node `v` agrees with the reference.
pub(crate) fn agrees<D: Distance>(expected: &Distances, v: usize, found: Option<D>) -> bool {
    match (expected, found) {
        (Distances::Int(e), Some(f)) => e[v].is_some_and(|e| f.equals_int(e)),
        (Distances::Float(e), Some(f)) => e[v].is_some_and(|e| f.near_float(e)),
        (Distances::Int(e), None) => e[v].is_none(),
        (Distances::Float(e), None) => e[v].is_none(),
    }
}

/// Rejects inputs Dijkstra cannot answer (negative or NaN weights) and candidate types that cannot hold the
/// answer (`i64` for float weights).
pub(crate) fn check_supported<D: Distance>(what: &'static str, g: &Csr) -> Result<(), Mismatch> {
    let bad = match &g.weights {
        None => None,
        Some(Weights::Int(w)) => w.iter().position(|&x| x < 0),
        Some(Weights::U32(_)) => None,
        Some(Weights::Float(w)) => w.iter().position(|&x| x.is_nan() || x < 0.0),
    };
    if let Some(e) = bad {
        let src = g.row_start.partition_point(|&s| s <= e as u64) - 1;
        let reason = format!(
            "edge {} -> {} has weight {}; Dijkstra needs non-negative weights",
            g.labels.label(src as u32),
            g.labels.label(g.col[e]),
            g.weights.as_ref().unwrap().get_f64(e)
        );
        return Err(Mismatch::Unsupported { what, reason });
    }
    if matches!(g.weights, Some(Weights::Float(_))) && !D::HOLDS_FLOATS {
        let reason = "the graph has float weights but the candidate distances are integers".to_string();
        return Err(Mismatch::Unsupported { what, reason });
    }
    Ok(())
}

/// An `f64` ordered by `total_cmp`, so that it can key a heap (weights are checked to be non-negative and not NaN
/// first, where the total order agrees with the usual one).
#[derive(Clone, Copy, Debug, PartialEq)]
struct TotalF64(f64);

impl Eq for TotalF64 {}
impl PartialOrd for TotalF64 {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for TotalF64 {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0)
    }
}
impl Add for TotalF64 {
    type Output = TotalF64;
    fn add(self, rhs: Self) -> Self {
        TotalF64(self.0 + rhs.0)
    }
}

/// Textbook Dijkstra with lazy deletion: a node's distance is final when it is first popped.
fn dijkstra_by<K: Ord + Copy + Add<Output = K>>(
    g: &Csr,
    source: u32,
    zero: K,
    weight: impl Fn(usize) -> K,
) -> Vec<Option<K>> {
    let mut dist: Vec<Option<K>> = vec![None; g.num_nodes() as usize];
    let mut done = vec![false; g.num_nodes() as usize];
    let mut heap = BinaryHeap::from([Reverse((zero, source))]);
    dist[source as usize] = Some(zero);
    while let Some(Reverse((d, v))) = heap.pop() {
        if std::mem::replace(&mut done[v as usize], true) {
            continue;
        }
        for e in g.edge_range(v) {
            let u = g.col[e] as usize;
            let through_v = d + weight(e);
            if dist[u].is_none_or(|old| through_v < old) {
                dist[u] = Some(through_v);
                heap.push(Reverse((through_v, u as u32)));
            }
        }
    }
    dist
}

/// Shortest distances from `source` along out-edges; unweighted graphs count every edge as 1.
///
/// Fails (as [`Mismatch::Unsupported`]) on negative or NaN weights, or a source that is not a node.
pub fn dijkstra(g: &Csr, source: u32) -> Result<Distances, Mismatch> {
    check_source("SSSP", g, source)?;
    check_supported::<f64>("SSSP", g)?;
    Ok(match &g.weights {
        None => Distances::Int(dijkstra_by(g, source, 0i64, |_| 1)),
        Some(Weights::Int(w)) => Distances::Int(dijkstra_by(g, source, 0i64, |e| w[e])),
        Some(Weights::U32(w)) => Distances::Int(dijkstra_by(g, source, 0i64, |e| w[e] as i64)),
        Some(Weights::Float(w)) => {
            let d = dijkstra_by(g, source, TotalF64(0.0), |e| TotalF64(w[e]));
            Distances::Float(d.into_iter().map(|x| x.map(|x| x.0)).collect())
        }
    })
}

/// What the reference SSSP found.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SsspSummary {
    /// Nodes reached, the source included.
    pub reached: u64,
    /// The largest finite distance (0 when only the source is reached).
    pub max_distance: f64,
}

/// Checks shortest distances from `source` (`None` = unreached) against [`dijkstra`].
pub fn check_sssp<D: Distance>(g: &Csr, source: u32, candidate: &[Option<D>]) -> Result<SsspSummary, Mismatch> {
    check_supported::<D>("SSSP", g)?;
    check_len("SSSP distances", g, candidate.len())?;
    let expected = dijkstra(g, source)?;
    if let Some(v) = (0..candidate.len()).find(|&v| !agrees(&expected, v, candidate[v])) {
        return Err(Mismatch::Node {
            what: "distance",
            node: g.labels.label(v as u32),
            expected: expected.show(v),
            found: show(candidate[v]),
        });
    }
    let reached: Vec<f64> = (0..candidate.len()).filter_map(|v| expected.get_f64(v)).collect();
    Ok(SsspSummary { reached: reached.len() as u64, max_distance: reached.iter().copied().fold(0.0, f64::max) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_graphs::{directed, weighted, weighted_f};

    /// 0 -> 1 (4), 0 -> 2 (1), 2 -> 1 (2), 1 -> 3 (5); node 4 unreachable.
    fn diamond() -> Csr {
        weighted(5, &[(0, 1, 4), (0, 2, 1), (2, 1, 2), (1, 3, 5), (4, 0, 1)], false)
    }

    #[test]
    fn integer_distances_are_exact() {
        let g = diamond();
        assert_eq!(dijkstra(&g, 0).unwrap(), Distances::Int(vec![Some(0), Some(3), Some(1), Some(8), None]));
        let s = check_sssp(&g, 0, &[Some(0i64), Some(3), Some(1), Some(8), None]).unwrap();
        assert_eq!(s, SsspSummary { reached: 4, max_distance: 8.0 });
        // f64 candidates for an integer graph must still be exact.
        check_sssp(&g, 0, &[Some(0.0), Some(3.0), Some(1.0), Some(8.0), None]).unwrap();
        let err = check_sssp(&g, 0, &[Some(0.0), Some(3.0), Some(1.0), Some(8.000001), None]).unwrap_err();
        assert_eq!(err.to_string(), "distance of node 103: expected 8, found 8.000001");
        let err = check_sssp(&g, 0, &[Some(0i64), Some(4), Some(1), Some(9), None]).unwrap_err();
        assert_eq!(err.node(), Some(101));
        let err = check_sssp(&g, 0, &[Some(0i64), Some(3), Some(1), Some(8), Some(0)]).unwrap_err();
        assert_eq!(err.to_string(), "distance of node 104: expected unreached, found 0");
    }

    #[test]
    fn unweighted_edges_weigh_one() {
        let g = directed(3, &[(0, 1), (1, 2), (0, 2)]);
        check_sssp(&g, 0, &[Some(0i64), Some(1), Some(1)]).unwrap();
    }

    #[test]
    fn float_distances_within_relative_tolerance() {
        let g = weighted_f(3, &[(0, 1, 0.1), (1, 2, 0.2), (0, 2, 0.5)], false);
        // 0.1 + 0.2 is 0.30000000000000004; a backend adding in another order may get 0.3.
        check_sssp(&g, 0, &[Some(0.0), Some(0.1), Some(0.3)]).unwrap();
        let err = check_sssp(&g, 0, &[Some(0.0), Some(0.1), Some(0.3001)]).unwrap_err();
        assert_eq!(err.node(), Some(102));
        let err = check_sssp(&g, 0, &[Some(0i64), Some(0), Some(0)]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "cannot check SSSP: the graph has float weights but the candidate distances are integers"
        );
    }

    #[test]
    fn negative_weights_are_refused() {
        let g = weighted(2, &[(0, 1, -1)], false);
        assert_eq!(
            dijkstra(&g, 0).unwrap_err().to_string(),
            "cannot check SSSP: edge 100 -> 101 has weight -1; Dijkstra needs non-negative weights"
        );
    }
}
