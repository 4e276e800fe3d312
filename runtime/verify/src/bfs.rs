//! Breadth-first search levels.

use std::collections::VecDeque;

use irgc_graph::Csr;

use crate::{check_len, check_source, show, Mismatch};

/// What the reference BFS found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BfsSummary {
    /// Nodes reached, the source included.
    pub reached: u64,
    /// The largest level (0 when only the source is reached).
    pub max_level: u64,
}

/// The level (hop count) of every node from `source` along out-edges; `None` for nodes not reached. For an
/// undirected search, pass a symmetric graph.
pub fn bfs_levels(g: &Csr, source: u32) -> Vec<Option<u64>> {
    let mut level = vec![None; g.num_nodes() as usize];
    level[source as usize] = Some(0);
    let mut queue = VecDeque::from([source]);
    while let Some(v) = queue.pop_front() {
        let next = level[v as usize].map(|l| l + 1);
        for &u in g.neighbors(v) {
            if level[u as usize].is_none() {
                level[u as usize] = next;
                queue.push_back(u);
            }
        }
    }
    level
}

/// Checks BFS levels from `source` (`None` = unreached) against [`bfs_levels`].
pub fn check_bfs(g: &Csr, source: u32, candidate: &[Option<u64>]) -> Result<BfsSummary, Mismatch> {
    check_source("BFS", g, source)?;
    check_len("BFS levels", g, candidate.len())?;
    let expected = bfs_levels(g, source);
    if let Some(v) = (0..g.num_nodes()).find(|&v| expected[v as usize] != candidate[v as usize]) {
        return Err(Mismatch::Node {
            what: "BFS level",
            node: g.labels.label(v),
            expected: show(expected[v as usize]),
            found: show(candidate[v as usize]),
        });
    }
    let reached = expected.iter().flatten();
    Ok(BfsSummary { reached: reached.clone().count() as u64, max_level: reached.copied().max().unwrap_or(0) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_graphs::{directed, undirected};

    #[test]
    fn levels_on_a_path_with_a_shortcut() {
        let g = directed(5, &[(0, 1), (1, 2), (2, 3), (0, 2), (4, 0)]);
        assert_eq!(bfs_levels(&g, 0), vec![Some(0), Some(1), Some(1), Some(2), None]);
        let ok = check_bfs(&g, 0, &[Some(0), Some(1), Some(1), Some(2), None]).unwrap();
        assert_eq!(ok, BfsSummary { reached: 4, max_level: 2 });
    }

    #[test]
    fn names_the_first_wrong_node_by_label() {
        let g = directed(5, &[(0, 1), (1, 2), (2, 3), (0, 2), (4, 0)]);
        let err = check_bfs(&g, 0, &[Some(0), Some(1), Some(2), Some(3), None]).unwrap_err();
        assert_eq!(err.to_string(), "BFS level of node 102: expected 1, found 2");
        assert_eq!(err.node(), Some(102));
        // Reaching a node that is unreachable is as wrong as missing one.
        let err = check_bfs(&g, 0, &[Some(0), Some(1), Some(1), Some(2), Some(1)]).unwrap_err();
        assert_eq!(err.to_string(), "BFS level of node 104: expected unreached, found 1");
        let err = check_bfs(&undirected(3, &[(0, 1)]), 0, &[Some(0), None, None]).unwrap_err();
        assert_eq!(err.node(), Some(101));
    }

    #[test]
    fn rejects_bad_shapes() {
        let g = directed(2, &[(0, 1)]);
        assert_eq!(
            check_bfs(&g, 0, &[Some(0)]).unwrap_err().to_string(),
            "BFS levels: the candidate has 1 entries, expected 2"
        );
        assert_eq!(
            check_bfs(&g, 2, &[Some(0), Some(1)]).unwrap_err().to_string(),
            "cannot check BFS: source 2 is not a node (the graph has 2)"
        );
    }
}
