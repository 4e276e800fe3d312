//! Matchings: validity, weight, and comparison with the sequential greedy half-approximation.
//!
//! Matchings are about undirected graphs. The weight of a pair `{u, v}` is the largest weight among the stored
//! edges `u -> v` and `v -> u` (an undirected graph stores both with the same weight, so that is just its
//! weight); unweighted graphs weigh 1 per edge.
//!
//! The greedy algorithm takes edges by weight, heaviest first, ties broken by `(min id, max id)` ascending, and
//! matches both ends when both are free. With that total order on edges, the locally-dominant algorithm and Suitor
//! produce exactly the greedy matching; when all weights are distinct the order needs no tie-break at all, so
//! any correct implementation of those algorithms must produce it, which is what [`check_greedy_matching`] checks.

use irgc_graph::Csr;
use rayon::prelude::*;

use crate::{check_len, Mismatch};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MatchingSummary {
    /// Matched pairs.
    pub pairs: u64,
    /// Total weight of the matched pairs.
    pub weight: f64,
    /// Whether no edge has both ends unmatched (every greedy-style matching is maximal).
    pub maximal: bool,
    /// Whether the candidate was compared with (and found equal to) the greedy matching: only by
    /// [`check_greedy_matching`], and only when all weights are distinct.
    pub compared_with_greedy: bool,
}

fn edge_weight(g: &Csr, e: usize) -> f64 {
    g.weights.as_ref().map_or(1.0, |w| w.get_f64(e))
}

/// The weight of the pair `{u, v}`: the largest over stored edges between them in either direction; `None` if
/// they are not adjacent.
fn pair_weight(g: &Csr, u: u32, v: u32) -> Option<f64> {
    let one_way = |a: u32, b: u32| g.edge_range(a).filter(move |&e| g.col[e] == b).map(|e| edge_weight(g, e));
    one_way(u, v).chain(one_way(v, u)).max_by(f64::total_cmp)
}

/// Every pair `{u, v}` (`u < v`, adjacent, not a self loop) once, keyed `u << 32 | v` (so keys order like
/// `(u, v)`), with its weight: the heaviest stored edge between them. Sorted by key. Sorts and dedups in parallel
/// rather than through a hash set: kron22's 128 M edges take seconds, not minutes.
fn pair_weights(g: &Csr) -> Vec<(u64, f64)> {
    let mut pairs: Vec<(u64, f64)> = (0..g.num_nodes())
        .into_par_iter()
        .flat_map_iter(|v| {
            g.edge_range(v).filter_map(move |e| {
                let u = g.col[e];
                (u != v).then(|| (u64::from(v.min(u)) << 32 | u64::from(v.max(u)), edge_weight(g, e)))
            })
        })
        .collect();
    // Heaviest first within a pair, so the dedup keeps the heaviest copy.
    pairs.par_sort_unstable_by(|a, b| a.0.cmp(&b.0).then(b.1.total_cmp(&a.1)));
    pairs.dedup_by_key(|p| p.0);
    pairs
}

/// Whether the pairs' weights are all distinct.
fn all_distinct(pairs: &[(u64, f64)]) -> bool {
    let mut weights: Vec<f64> = pairs.par_iter().map(|p| p.1).collect();
    weights.par_sort_unstable_by(f64::total_cmp);
    weights.par_windows(2).all(|w| w[0] != w[1])
}

/// The greedy matching over `pairs` (from [`pair_weights`]): heaviest first, ties by `(u, v)` ascending.
fn greedy_over(num_nodes: u32, mut pairs: Vec<(u64, f64)>) -> Vec<Option<u32>> {
    pairs.par_sort_unstable_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut mate = vec![None; num_nodes as usize];
    for (key, _) in pairs {
        let (u, v) = ((key >> 32) as usize, (key & 0xffff_ffff) as usize);
        if mate[u].is_none() && mate[v].is_none() {
            mate[u] = Some(v as u32);
            mate[v] = Some(u as u32);
        }
    }
    mate
}

/// The greedy half-approximate maximum-weight matching (see the module docs for the order).
pub fn greedy_matching(g: &Csr) -> Vec<Option<u32>> {
    greedy_over(g.num_nodes(), pair_weights(g))
}

/// Whether all pairs have distinct weights (so the greedy matching is the only one locally-dominant algorithms can
/// produce).
pub fn distinct_weights(g: &Csr) -> bool {
    all_distinct(&pair_weights(g))
}

fn show_mate(g: &Csr, mate: Option<u32>) -> String {
    match mate {
        Some(u) if u < g.num_nodes() => format!("node {}", g.labels.label(u)),
        Some(u) => format!("node id {u}, which is out of range"),
        None => "unmatched".to_string(),
    }
}

/// Checks that `mate` is a matching (`mate[v] = Some(u)` exactly when `mate[u] = Some(v)`, and `u`, `v` adjacent,
/// distinct) and sums its weight.
pub fn check_matching(g: &Csr, mate: &[Option<u32>]) -> Result<MatchingSummary, Mismatch> {
    check_len("mates", g, mate.len())?;
    let n = g.num_nodes();
    let (mut pairs, mut weight) = (0u64, 0.0f64);
    for v in 0..n {
        let Some(u) = mate[v as usize] else { continue };
        let node = g.labels.label(v);
        if u >= n || u == v {
            return Err(Mismatch::Node {
                what: "mate",
                node,
                expected: "another node or unmatched".to_string(),
                found: show_mate(g, Some(u)),
            });
        }
        if mate[u as usize] != Some(v) {
            return Err(Mismatch::Node {
                what: "mate",
                node,
                expected: format!("node {} to name it back", g.labels.label(u)),
                found: format!("node {}'s mate is {}", g.labels.label(u), show_mate(g, mate[u as usize])),
            });
        }
        let Some(w) = pair_weight(g, v, u) else {
            return Err(Mismatch::Edge {
                what: "matching",
                from: node,
                to: g.labels.label(u),
                detail: "the mates are not adjacent".to_string(),
            });
        };
        if v < u {
            pairs += 1;
            weight += w;
        }
    }
    // Every matching irgc's programs compute (Suitor, locally dominant) is maximal over the edges worth taking
    // (weight > 0): an edge of positive weight with both ends unmatched means a wrong answer, not a poor one.
    for v in 0..n {
        if mate[v as usize].is_some() {
            continue;
        }
        let open = g
            .neighbors(v)
            .iter()
            .find(|&&u| u != v && mate[u as usize].is_none() && pair_weight(g, v, u).is_some_and(|w| w > 0.0));
        if let Some(&u) = open {
            return Err(Mismatch::Edge {
                what: "matching",
                from: g.labels.label(v),
                to: g.labels.label(u),
                detail: "both ends are unmatched: the matching is not maximal, which a locally dominant one is"
                    .to_string(),
            });
        }
    }
    Ok(MatchingSummary { pairs, weight, maximal: true, compared_with_greedy: false })
}

/// [`check_matching`], and, when all pair weights are distinct, that the candidate is exactly the
/// [`greedy_matching`] (what locally-dominant and Suitor matchings must produce then). With repeated weights
/// only validity is checked and `compared_with_greedy` is false.
pub fn check_greedy_matching(g: &Csr, mate: &[Option<u32>]) -> Result<MatchingSummary, Mismatch> {
    let mut summary = check_matching(g, mate)?;
    let pairs = pair_weights(g);
    if !all_distinct(&pairs) {
        return Ok(summary);
    }
    let greedy = greedy_over(g.num_nodes(), pairs);
    if let Some(v) = (0..g.num_nodes()).find(|&v| greedy[v as usize] != mate[v as usize]) {
        return Err(Mismatch::Node {
            what: "mate (greedy matching)",
            node: g.labels.label(v),
            expected: show_mate(g, greedy[v as usize]),
            found: show_mate(g, mate[v as usize]),
        });
    }
    summary.compared_with_greedy = true;
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_graphs::{undirected, weighted};

    /// A path 0 - 1 - 2 - 3 with weights 3, 4, 2: greedy takes 1-2 (weight 4) and nothing else fits.
    fn path() -> Csr {
        weighted(4, &[(0, 1, 3), (1, 2, 4), (2, 3, 2)], true)
    }

    #[test]
    fn greedy_takes_heaviest_first() {
        assert_eq!(greedy_matching(&path()), vec![None, Some(2), Some(1), None]);
        let s = check_greedy_matching(&path(), &[None, Some(2), Some(1), None]).unwrap();
        assert_eq!(s, MatchingSummary { pairs: 1, weight: 4.0, maximal: true, compared_with_greedy: true });
    }

    #[test]
    fn a_valid_but_different_matching_fails_the_greedy_check_only() {
        let other = [Some(1), Some(0), Some(3), Some(2)];
        let s = check_matching(&path(), &other).unwrap();
        assert_eq!((s.pairs, s.weight, s.maximal), (2, 5.0, true));
        let err = check_greedy_matching(&path(), &other).unwrap_err();
        assert_eq!(err.to_string(), "mate (greedy matching) of node 100: expected unmatched, found node 101");
    }

    #[test]
    fn ties_are_not_compared() {
        let g = undirected(4, &[(0, 1), (1, 2), (2, 3)]);
        assert!(!distinct_weights(&g));
        assert_eq!(greedy_matching(&g), vec![Some(1), Some(0), Some(3), Some(2)]);
        let s = check_greedy_matching(&g, &[None, Some(2), Some(1), None]).unwrap();
        assert!(!s.compared_with_greedy);
        assert!(s.maximal);
        // Nodes 2 and 3 are adjacent and both unmatched: not maximal, so wrong.
        let err = check_matching(&g, &[Some(1), Some(0), None, None]).unwrap_err();
        assert!(err.to_string().contains("not maximal"), "{err}");
    }

    #[test]
    fn invalid_matchings_name_the_node() {
        let g = path();
        let err = check_matching(&g, &[Some(1), None, None, None]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "mate of node 100: expected node 101 to name it back, found node 101's mate is unmatched"
        );
        let err = check_matching(&g, &[Some(3), None, None, Some(0)]).unwrap_err();
        assert_eq!(err.to_string(), "matching at edge 100 -> 103: the mates are not adjacent");
        let err = check_matching(&g, &[None, None, Some(2), None]).unwrap_err();
        assert_eq!(err.to_string(), "mate of node 102: expected another node or unmatched, found node 102");
        let err = check_matching(&g, &[None, Some(9), None, None]).unwrap_err();
        assert_eq!(err.node(), Some(101));
    }
}
