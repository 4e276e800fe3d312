//! All-pairs shortest paths, checked by running [`dijkstra`] from every source. Quadratic memory and
//! `n` Dijkstra runs: meant for small graphs (a few thousand nodes).

use irgc_graph::Csr;

use crate::sssp::{agrees, check_supported, dijkstra, Distance};
use crate::{show, Mismatch};

/// What the reference APSP found.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ApspSummary {
    /// Ordered pairs `(s, t)` with `t` reachable from `s`, the `n` pairs `(v, v)` included.
    pub reachable_pairs: u64,
    /// The largest finite distance over all pairs.
    pub diameter: f64,
}

/// Checks an `n x n` distance matrix, row-major (`candidate[s * n + t]` is the distance from `s` to `t`; `None` =
/// unreached), against Dijkstra from every source. Distances follow [`check_sssp`](crate::check_sssp)'s rules.
pub fn check_apsp<D: Distance>(g: &Csr, candidate: &[Option<D>]) -> Result<ApspSummary, Mismatch> {
    check_supported::<D>("APSP", g)?;
    let n = g.num_nodes() as usize;
    if candidate.len() != n * n {
        return Err(Mismatch::Length { what: "APSP matrix", expected: n * n, found: candidate.len() });
    }
    let mut summary = ApspSummary { reachable_pairs: 0, diameter: 0.0 };
    for s in 0..n {
        let expected = dijkstra(g, s as u32)?;
        let row = &candidate[s * n..(s + 1) * n];
        if let Some(t) = (0..n).find(|&t| !agrees(&expected, t, row[t])) {
            return Err(Mismatch::Pair {
                what: "distance",
                from: g.labels.label(s as u32),
                to: g.labels.label(t as u32),
                expected: show(expected.get_f64(t)),
                found: show(row[t]),
            });
        }
        for d in (0..n).filter_map(|t| expected.get_f64(t)) {
            summary.reachable_pairs += 1;
            summary.diameter = summary.diameter.max(d);
        }
    }
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_graphs::weighted;

    #[test]
    fn checks_every_pair() {
        // 0 -> 1 (2), 1 -> 2 (3), 0 -> 2 (7).
        let g = weighted(3, &[(0, 1, 2), (1, 2, 3), (0, 2, 7)], false);
        let good = [Some(0i64), Some(2), Some(5), None, Some(0), Some(3), None, None, Some(0)];
        assert_eq!(check_apsp(&g, &good).unwrap(), ApspSummary { reachable_pairs: 6, diameter: 5.0 });
        let mut bad = good;
        bad[2] = Some(7);
        let err = check_apsp(&g, &bad).unwrap_err();
        assert_eq!(err.to_string(), "distance from node 100 to node 102: expected 5, found 7");
        assert_eq!(err.node(), Some(102));
        let mut bad = good;
        bad[7] = Some(1);
        assert_eq!(
            check_apsp(&g, &bad).unwrap_err().to_string(),
            "distance from node 102 to node 101: expected unreached, found 1"
        );
        assert!(matches!(check_apsp(&g, &good[..8]), Err(Mismatch::Length { expected: 9, found: 8, .. })));
    }
}
