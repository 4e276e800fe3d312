//! Modularity of a partition (Newman and Girvan), the quality measure Louvain-style community detection
//! maximises.
//!
//! `Q = sum over communities c of [ in_c / 2m - (tot_c / 2m)^2 ]`, where, over the edges as stored (an undirected
//! graph stores both directions, so each undirected edge counts twice, as the formula wants): `2m` is the total
//! weight of all stored edges, `in_c` the weight of stored edges with both ends in `c`, and `tot_c` the total
//! weight of stored edges leaving nodes of `c`. A self loop counts once, as stored. Unweighted edges weigh 1. A
//! graph without edges has modularity 0 by convention.

use std::collections::HashMap;
use std::hash::Hash;

use irgc_graph::Csr;

use crate::{check_len, Mismatch};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ModularitySummary {
    pub modularity: f64,
    /// Distinct community labels.
    pub communities: u64,
}

/// The modularity of `partition` (a community label per node).
pub fn modularity<L: Copy + Eq + Hash>(g: &Csr, partition: &[L]) -> Result<ModularitySummary, Mismatch> {
    check_len("community labels", g, partition.len())?;
    let mut index: HashMap<L, usize> = HashMap::new();
    let community: Vec<usize> = partition
        .iter()
        .map(|l| {
            let next = index.len();
            *index.entry(*l).or_insert(next)
        })
        .collect();
    let (mut inside, mut total) = (vec![0.0f64; index.len()], vec![0.0f64; index.len()]);
    let mut two_m = 0.0;
    for v in 0..g.num_nodes() {
        let c = community[v as usize];
        for e in g.edge_range(v) {
            let w = g.weights.as_ref().map_or(1.0, |w| w.get_f64(e));
            two_m += w;
            total[c] += w;
            if community[g.col[e] as usize] == c {
                inside[c] += w;
            }
        }
    }
    let q = if two_m == 0.0 {
        0.0
    } else {
        inside.iter().zip(&total).map(|(i, t)| i / two_m - (t / two_m) * (t / two_m)).sum()
    };
    Ok(ModularitySummary { modularity: q, communities: index.len() as u64 })
}

/// Checks that `claimed` is the modularity of `partition` within an absolute `tolerance` (modularity lies in
/// `[-1/2, 1]`, so an absolute bound is the meaningful one; 1e-6 suits a parallel float sum).
pub fn check_modularity<L: Copy + Eq + Hash>(
    g: &Csr,
    partition: &[L],
    claimed: f64,
    tolerance: f64,
) -> Result<ModularitySummary, Mismatch> {
    let summary = modularity(g, partition)?;
    // Written so that a NaN claim fails.
    if (summary.modularity - claimed).abs() <= tolerance {
        Ok(summary)
    } else {
        Err(Mismatch::Total {
            what: "modularity",
            expected: summary.modularity.to_string(),
            found: claimed.to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_graphs::{undirected, weighted};

    /// Two triangles joined by one edge: {0, 1, 2} - {3, 4, 5} through 2 - 3.
    fn two_triangles() -> Csr {
        undirected(6, &[(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3), (2, 3)])
    }

    #[test]
    fn textbook_values() {
        let g = two_triangles();
        // m = 7; each side has in = 6 (3 edges, both directions), tot = 7: Q = 2 (6/14 - 1/4) = 5/14.
        let q = modularity(&g, &[0, 0, 0, 1, 1, 1]).unwrap();
        assert!((q.modularity - 5.0 / 14.0).abs() < 1e-12, "{}", q.modularity);
        assert_eq!(q.communities, 2);
        // Everything in one community: Q = 1 - 1 = 0.
        assert!(modularity(&g, &["x"; 6]).unwrap().modularity.abs() < 1e-12);
        // Singletons: Q = -sum (d_v / 2m)^2.
        let singles = modularity(&g, &[0, 1, 2, 3, 4, 5]).unwrap().modularity;
        let expected = -(4.0 * 4.0 + 2.0 * 9.0) / (14.0 * 14.0);
        assert!((singles - expected).abs() < 1e-12);
        assert_eq!(modularity(&undirected(3, &[]), &[0, 1, 2]).unwrap().modularity, 0.0);
    }

    #[test]
    fn weights_count() {
        // The bridge weighs 10: cutting it costs much more.
        let g = weighted(4, &[(0, 1, 1), (2, 3, 1), (1, 2, 10)], true);
        // 2m = 24; {0,1}: in 2, tot 12; {2,3} the same: Q = 2 (2/24 - 1/4) = -1/3.
        let q = modularity(&g, &[0, 0, 1, 1]).unwrap().modularity;
        assert!((q + 1.0 / 3.0).abs() < 1e-12, "{q}");
    }

    #[test]
    fn claims_are_checked_within_tolerance() {
        let g = two_triangles();
        check_modularity(&g, &[0, 0, 0, 1, 1, 1], 0.357142857, 1e-6).unwrap();
        let err = check_modularity(&g, &[0, 0, 0, 1, 1, 1], 0.36, 1e-6).unwrap_err();
        assert_eq!(err.to_string(), "modularity: expected 0.3571428571428571, found 0.36");
        assert!(check_modularity(&g, &[0, 0, 0, 1, 1, 1], f64::NAN, 1e-6).is_err());
        assert!(matches!(modularity(&g, &[0, 1]), Err(Mismatch::Length { .. })));
    }
}
