//! Connected components, by union-find.
//!
//! Components are weak: edge direction is ignored, so a directed graph gets its weakly connected components and a
//! symmetric one its ordinary components. Component labels are arbitrary in every algorithm (min-label
//! propagation, Afforest, Shiloach–Vishkin all pick different ones), so the check compares partitions: the
//! candidate is right exactly when its labels and the reference components correspond one to one.

use std::collections::HashMap;
use std::fmt::Display;
use std::hash::Hash;

use irgc_graph::Csr;

use crate::{check_len, Mismatch};

/// What the reference found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CcSummary {
    pub components: u64,
    /// Nodes in the largest component.
    pub largest: u64,
}

/// Union-find with path halving and union by size: short and obviously right.
struct UnionFind {
    parent: Vec<u32>,
    size: Vec<u32>,
}

impl UnionFind {
    fn new(n: u32) -> Self {
        UnionFind { parent: (0..n).collect(), size: vec![1; n as usize] }
    }

    fn find(&mut self, mut v: u32) -> u32 {
        while self.parent[v as usize] != v {
            let grandparent = self.parent[self.parent[v as usize] as usize];
            self.parent[v as usize] = grandparent;
            v = grandparent;
        }
        v
    }

    fn union(&mut self, a: u32, b: u32) {
        let (mut a, mut b) = (self.find(a), self.find(b));
        if a == b {
            return;
        }
        if self.size[a as usize] < self.size[b as usize] {
            std::mem::swap(&mut a, &mut b);
        }
        self.parent[b as usize] = a;
        self.size[a as usize] += self.size[b as usize];
    }
}

/// The component of every node, named by the smallest node id in it (so the result does not depend on the
/// union-find's internal choices).
pub fn components(g: &Csr) -> Vec<u32> {
    let n = g.num_nodes();
    let mut uf = UnionFind::new(n);
    for v in 0..n {
        for &u in g.neighbors(v) {
            uf.union(v, u);
        }
    }
    let mut smallest = vec![u32::MAX; n as usize];
    let roots: Vec<u32> = (0..n).map(|v| uf.find(v)).collect();
    for v in 0..n {
        let r = roots[v as usize] as usize;
        smallest[r] = smallest[r].min(v);
    }
    roots.iter().map(|&r| smallest[r as usize]).collect()
}

/// Checks a component label per node: two nodes must share a label exactly when they are (weakly) connected.
pub fn check_components<L: Copy + Eq + Hash + Display>(g: &Csr, candidate: &[L]) -> Result<CcSummary, Mismatch> {
    check_len("component labels", g, candidate.len())?;
    let reference = components(g);
    // The first node seen with each candidate label, and the candidate label of each reference component (by
    // its smallest node, which is always the first node of the component seen in id order).
    let mut first_with_label: HashMap<L, u32> = HashMap::new();
    let mut sizes: HashMap<u32, u64> = HashMap::new();
    for v in 0..g.num_nodes() {
        let (label, component) = (candidate[v as usize], reference[v as usize]);
        let first = *first_with_label.entry(label).or_insert(v);
        if reference[first as usize] != component {
            return Err(Mismatch::Node {
                what: "component",
                node: g.labels.label(v),
                expected: format!(
                    "a label other than that of node {}, which it is not connected to",
                    g.labels.label(first)
                ),
                found: format!("{label}, the label of node {}", g.labels.label(first)),
            });
        }
        let leader_label = candidate[component as usize];
        if leader_label != label {
            return Err(Mismatch::Node {
                what: "component",
                node: g.labels.label(v),
                expected: format!(
                    "{leader_label}, the label of node {}, which it is connected to",
                    g.labels.label(component)
                ),
                found: label.to_string(),
            });
        }
        *sizes.entry(component).or_default() += 1;
    }
    Ok(CcSummary { components: sizes.len() as u64, largest: sizes.values().copied().max().unwrap_or(0) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_graphs::directed;

    /// {0, 1, 2} (weakly, through 2 -> 1), {3, 4}, {5}.
    fn three_parts() -> Csr {
        directed(6, &[(0, 1), (2, 1), (4, 3)])
    }

    #[test]
    fn reference_names_components_by_their_smallest_node() {
        assert_eq!(components(&three_parts()), vec![0, 0, 0, 3, 3, 5]);
    }

    #[test]
    fn any_relabelling_of_the_partition_is_accepted() {
        let s = check_components(&three_parts(), &[7u64, 7, 7, 1, 1, 9]).unwrap();
        assert_eq!(s, CcSummary { components: 3, largest: 3 });
        check_components(&three_parts(), &["a", "a", "a", "b", "b", "c"]).unwrap();
    }

    #[test]
    fn merged_components_name_the_intruder() {
        // Node 3 is given the label of component {0, 1, 2}.
        let err = check_components(&three_parts(), &[7u32, 7, 7, 7, 1, 9]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "component of node 103: expected a label other than that of node 100, which it is not connected to, \
             found 7, the label of node 100"
        );
        assert_eq!(err.node(), Some(103));
    }

    #[test]
    fn split_components_name_the_stray() {
        let err = check_components(&three_parts(), &[7u32, 7, 8, 1, 1, 9]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "component of node 102: expected 7, the label of node 100, which it is connected to, found 8"
        );
    }
}
