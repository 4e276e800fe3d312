//! Triangle counts per node, of the simple undirected graph underlying a CSR.
//!
//! The graph is read as undirected and simple: an edge in either direction joins two nodes, duplicates count once
//! and self loops not at all. A node's count is the number of triangles it is a corner of, so the counts sum to
//! three times the number of triangles.
//!
//! The reference is the ordered "forward" algorithm: orient every edge from the lower to the higher of its ends
//! in the order (degree, id), then for every oriented edge `u → v` intersect the oriented neighbour lists of `u`
//! and `v` by merging them; each triangle is found once, at its lowest corner. The neighbour lists are built here
//! from the edges (sorted, deduplicated), so the check assumes nothing about how the CSR's rows are ordered.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use irgc_graph::Csr;
use rayon::prelude::*;

use crate::{check_len, Mismatch};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TriangleSummary {
    /// Triangles in the graph.
    pub triangles: u64,
    /// The most triangles any node is a corner of.
    pub max_per_node: u64,
}

/// The number of triangles each node is a corner of. The intersections, O(m^1.5), run in parallel (over the lowest
/// corner, counts added atomically): sequentially, a 2^22-node Kronecker graph took minutes to check.
pub fn triangles_per_node(g: &Csr) -> Vec<u64> {
    let n = g.num_nodes() as usize;
    // The simple undirected edge set, as (low id, high id) pairs.
    let mut pairs: Vec<(u32, u32)> = (0..g.num_nodes())
        .into_par_iter()
        .flat_map_iter(|u| g.neighbors(u).iter().filter(move |&&v| v != u).map(move |&v| (u.min(v), u.max(v))))
        .collect();
    pairs.par_sort_unstable();
    pairs.dedup();
    let mut degree = vec![0u64; n];
    for &(a, b) in &pairs {
        degree[a as usize] += 1;
        degree[b as usize] += 1;
    }
    let before = |a: u32, b: u32| (degree[a as usize], a) < (degree[b as usize], b);
    // Oriented neighbour lists, each sorted by id.
    let mut out: Vec<Vec<u32>> = vec![Vec::new(); n];
    for &(a, b) in &pairs {
        if before(a, b) {
            out[a as usize].push(b);
        } else {
            out[b as usize].push(a);
        }
    }
    out.par_iter_mut().for_each(|row| row.sort_unstable());
    let count: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(0)).collect();
    let add = |x: u32, k: u64| {
        count[x as usize].fetch_add(k, Relaxed);
    };
    (0..n).into_par_iter().for_each(|u| {
        let mut mine = 0;
        for &v in &out[u] {
            let (a, b) = (&out[u], &out[v as usize]);
            let (mut i, mut j, mut found) = (0, 0, 0);
            while i < a.len() && j < b.len() {
                match a[i].cmp(&b[j]) {
                    std::cmp::Ordering::Less => i += 1,
                    std::cmp::Ordering::Greater => j += 1,
                    std::cmp::Ordering::Equal => {
                        add(a[i], 1);
                        found += 1;
                        i += 1;
                        j += 1;
                    }
                }
            }
            if found > 0 {
                add(v, found);
                mine += found;
            }
        }
        if mine > 0 {
            add(u as u32, mine);
        }
    });
    count.into_iter().map(AtomicU64::into_inner).collect()
}

/// Checks per-node triangle counts against [`triangles_per_node`], exactly.
pub fn check_triangles(g: &Csr, candidate: &[i64]) -> Result<TriangleSummary, Mismatch> {
    check_len("triangle counts", g, candidate.len())?;
    let expected = triangles_per_node(g);
    if let Some(v) = (0..expected.len()).find(|&v| candidate[v] != expected[v] as i64) {
        return Err(Mismatch::Node {
            what: "triangle count",
            node: g.labels.label(v as u32),
            expected: expected[v].to_string(),
            found: candidate[v].to_string(),
        });
    }
    Ok(TriangleSummary {
        triangles: expected.iter().sum::<u64>() / 3,
        max_per_node: expected.iter().copied().max().unwrap_or(0),
    })
}

/// Checks a triangle total (GAP's TC result: one number for the whole graph) against [`triangles_per_node`]'s.
pub fn check_triangle_total(g: &Csr, candidate: i64) -> Result<TriangleSummary, Mismatch> {
    let expected = triangles_per_node(g);
    let summary = TriangleSummary {
        triangles: expected.iter().sum::<u64>() / 3,
        max_per_node: expected.iter().copied().max().unwrap_or(0),
    };
    if candidate != summary.triangles as i64 {
        return Err(Mismatch::Total {
            what: "triangles in the graph",
            expected: summary.triangles.to_string(),
            found: candidate.to_string(),
        });
    }
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_graphs::{directed, undirected};

    #[test]
    fn counts_the_corners_of_every_triangle() {
        // K4 (4 triangles, 3 at each node) plus a pendant triangle 3-4-5 and a dangling edge 5-6.
        let k4 = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)];
        let g = undirected(7, &[&k4[..], &[(3, 4), (4, 5), (5, 3), (5, 6)]].concat());
        assert_eq!(triangles_per_node(&g), vec![3, 3, 3, 4, 1, 1, 0]);
        let ok = check_triangles(&g, &[3, 3, 3, 4, 1, 1, 0]).unwrap();
        assert_eq!(ok, TriangleSummary { triangles: 5, max_per_node: 4 });
    }

    #[test]
    fn reads_the_graph_as_simple_and_undirected() {
        // One direction only, a duplicate edge and a self loop: still one triangle.
        let g = directed(3, &[(0, 1), (1, 2), (0, 2), (0, 2), (1, 1)]);
        assert_eq!(triangles_per_node(&g), vec![1, 1, 1]);
    }

    #[test]
    fn names_the_first_wrong_node() {
        let g = undirected(4, &[(0, 1), (1, 2), (2, 0), (2, 3)]);
        let err = check_triangles(&g, &[1, 1, 2, 0]).unwrap_err();
        assert_eq!(err.to_string(), "triangle count of node 102: expected 1, found 2");
        assert!(matches!(check_triangles(&g, &[1, 1, 1]), Err(Mismatch::Length { .. })));
    }

    #[test]
    fn checks_the_total() {
        let g = undirected(4, &[(0, 1), (1, 2), (2, 0), (2, 3), (3, 0)]);
        assert_eq!(check_triangle_total(&g, 2).unwrap().triangles, 2);
        let err = check_triangle_total(&g, 3).unwrap_err();
        assert_eq!(err.to_string(), "triangles in the graph: expected 2, found 3");
    }
}
