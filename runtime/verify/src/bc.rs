//! Betweenness centrality from one source: Brandes's dependencies, for unweighted graphs.
//!
//! For a source `s`, `σ[v]` is the number of shortest paths from `s` to `v` along out-edges (an edge listed twice
//! is two paths, as the CSR stores it), and the dependency of `s` on `v` is
//! `δ[v] = Σ_{w : v → w, level[w] = level[v] + 1} σ[v] / σ[w] · (1 + δ[w])`: the part of every shortest path from
//! `s` that passes through `v`. Summed over all sources it is `v`'s betweenness centrality; from one source it is
//! that source's contribution, which is what is checked. The source's own value is 0, as are unreached nodes'.
//!
//! The reference is Brandes's sequential algorithm: a queue BFS that counts paths in `f64` (as GAP does: counts
//! grow exponentially with depth on meshes), then dependencies in reverse BFS order. A parallel program adds the
//! same terms in another order, so values are compared within a relative tolerance.

use std::collections::VecDeque;

use irgc_graph::Csr;

use crate::{check_len, check_source, Mismatch};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BcSummary {
    /// Nodes reached, the source included.
    pub reached: u64,
    /// The deepest BFS level.
    pub max_level: u64,
    /// The largest dependency and the label of a node that has it.
    pub max_dependency: f64,
    pub max_node: u64,
    /// The largest relative difference between candidate and reference.
    pub max_relative_error: f64,
}

/// The dependency of `source` on every node, and the reference's BFS levels (`None` = unreached).
pub fn brandes_dependencies(g: &Csr, source: u32) -> (Vec<f64>, Vec<Option<u64>>) {
    let n = g.num_nodes() as usize;
    let mut level: Vec<Option<u64>> = vec![None; n];
    let mut sigma = vec![0.0f64; n];
    let mut order = Vec::with_capacity(n);
    level[source as usize] = Some(0);
    sigma[source as usize] = 1.0;
    let mut queue = VecDeque::from([source]);
    while let Some(v) = queue.pop_front() {
        order.push(v);
        let next = level[v as usize].map(|l| l + 1);
        for &w in g.neighbors(v) {
            if level[w as usize].is_none() {
                level[w as usize] = next;
                queue.push_back(w);
            }
            if level[w as usize] == next {
                sigma[w as usize] += sigma[v as usize];
            }
        }
    }
    let mut delta = vec![0.0f64; n];
    for &v in order.iter().rev() {
        let next = level[v as usize].map(|l| l + 1);
        let mut sum = 0.0;
        for &w in g.neighbors(v) {
            if level[w as usize] == next {
                sum += sigma[v as usize] / sigma[w as usize] * (1.0 + delta[w as usize]);
            }
        }
        delta[v as usize] = sum;
    }
    delta[source as usize] = 0.0;
    (delta, level)
}

/// Checks the dependencies of `source` on every node against [`brandes_dependencies`]: each value within
/// `relative_tolerance` of the reference, relative to the reference's magnitude (a zero must be exactly zero,
/// which a sum over no terms is). A NaN fails, also where the reference has one (path counts beyond `f64`'s range).
pub fn check_bc(g: &Csr, source: u32, relative_tolerance: f64, candidate: &[f64]) -> Result<BcSummary, Mismatch> {
    check_source("betweenness centrality", g, source)?;
    check_len("betweenness centrality", g, candidate.len())?;
    let (expected, level) = brandes_dependencies(g, source);
    let relative = |v: usize| {
        let (c, r) = (candidate[v], expected[v]);
        if c == r {
            0.0
        } else {
            (c - r).abs() / r.abs()
        }
    };
    // Path counts beyond f64's range make the dependencies inf / inf: undefined here, whatever the candidate says.
    if let Some(v) = (0..expected.len()).find(|&v| !expected[v].is_finite()) {
        return Err(Mismatch::Unsupported {
            what: "betweenness centrality",
            reason: format!(
                "the number of shortest paths from source {} exceeds the range of f64 (about 1.8e308): the \
                 dependency of node {} is {} in the reference too, so betweenness from this source cannot be \
                 computed in f64 on this graph (long meshes have exponentially many shortest paths)",
                g.labels.label(source),
                g.labels.label(v as u32),
                expected[v]
            ),
        });
    }
    let wrong = |v: usize| relative(v).is_nan() || relative(v) > relative_tolerance;
    if let Some(v) = (0..expected.len()).find(|&v| wrong(v)) {
        return Err(Mismatch::Node {
            what: "betweenness dependency",
            node: g.labels.label(v as u32),
            expected: format!("{:.9e} (relative tolerance {relative_tolerance:e})", expected[v]),
            found: format!("{:.9e}", candidate[v]),
        });
    }
    let reached = level.iter().flatten();
    let max = (0..expected.len()).max_by(|&a, &b| expected[a].total_cmp(&expected[b])).unwrap_or(0);
    Ok(BcSummary {
        reached: reached.clone().count() as u64,
        max_level: reached.copied().max().unwrap_or(0),
        max_dependency: expected.get(max).copied().unwrap_or(0.0),
        max_node: if expected.is_empty() { 0 } else { g.labels.label(max as u32) },
        max_relative_error: (0..expected.len()).map(relative).fold(0.0, f64::max),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_graphs::{directed, undirected};

    #[test]
    fn a_path_and_a_diamond() {
        // Path 0-1-2-3 from 0: node 1 is on the paths to 2 and 3, node 2 on the path to 3.
        let g = undirected(4, &[(0, 1), (1, 2), (2, 3)]);
        assert_eq!(brandes_dependencies(&g, 0).0, vec![0.0, 2.0, 1.0, 0.0]);
        // Diamond 0 -> {1, 2} -> 3 -> 4: two shortest paths to 3 and 4, half through each of 1 and 2.
        let g = directed(6, &[(0, 1), (0, 2), (1, 3), (2, 3), (3, 4)]);
        let (d, level) = brandes_dependencies(&g, 0);
        assert_eq!(d, vec![0.0, 1.0, 1.0, 1.0, 0.0, 0.0]);
        assert_eq!(level[5], None);
        let ok = check_bc(&g, 0, 1e-9, &[0.0, 1.0, 1.0, 1.0, 0.0, 0.0]).unwrap();
        assert_eq!((ok.reached, ok.max_level, ok.max_dependency), (5, 3, 1.0));
    }

    #[test]
    fn tolerates_rounding_but_not_errors() {
        let g = directed(6, &[(0, 1), (0, 2), (1, 3), (2, 3), (3, 4)]);
        let close = [0.0, 1.0 + 1e-12, 1.0, 1.0, 0.0, 0.0];
        assert!(check_bc(&g, 0, 1e-9, &close).is_ok());
        let err = check_bc(&g, 0, 1e-9, &[0.0, 1.0, 1.5, 1.0, 0.0, 0.0]).unwrap_err();
        assert_eq!(err.node(), Some(102));
        assert!(check_bc(&g, 0, 1e-9, &[0.0, 1.0, 1.0, 1.0, f64::NAN, 0.0]).is_err());
        // The source's value is 0, not its dependency sum.
        assert!(check_bc(&g, 0, 1e-9, &[4.0, 1.0, 1.0, 1.0, 0.0, 0.0]).is_err());
        assert!(matches!(check_bc(&g, 9, 1e-9, &[0.0; 6]), Err(Mismatch::Unsupported { .. })));
    }

    #[test]
    fn path_counts_beyond_f64_are_named_not_compared() {
        // A chain of 1,100 diamonds: 2^1100 shortest paths to its end, beyond f64's range.
        let k = 1100u32;
        let mut edges = Vec::new();
        for i in 0..k {
            let (a, b, c, d) = (3 * i, 3 * i + 1, 3 * i + 2, 3 * i + 3);
            edges.extend([(a, b), (a, c), (b, d), (c, d)]);
        }
        let g = directed(3 * k + 1, &edges);
        let (candidate, _) = brandes_dependencies(&g, 0);
        let err = check_bc(&g, 0, 1e-9, &candidate).unwrap_err();
        assert!(matches!(err, Mismatch::Unsupported { .. }), "{err}");
        assert!(err.to_string().contains("exceeds the range of f64"), "{err}");
    }
}
