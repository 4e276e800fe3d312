//! Splitting a graph's edges among the devices of a multi-device run (seed 004's scheme): each part keeps every
//! node and one contiguous range of the edges in CSR order, so a device's part is an ordinary graph and every
//! edge is in exactly one part. Where the cuts fall is the [`Partition`]'s business.

use rayon::prelude::*;

use crate::csr::Csr;

/// Where a multi-device run cuts the edge order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Partition {
    /// Equal edge counts: part `k` holds edges `k·m/N .. (k+1)·m/N` (the seed's partition).
    #[default]
    Edges,
    /// Equal counts of the edges that lead to a smaller node (`u < v` for edge `v → u`). Union-find CC programs
    /// (`ecl_cc`, `rem`, `groute`) hook each undirected edge once, from its larger end, and skip the other
    /// direction; on a graph whose hubs have small ids, equal edge counts give the first part mostly skipped
    /// edges and the last part most of the work (measured in `docs/distributed.md`).
    LowerEdges,
}

impl Csr {
    /// The graph split into `parts` graphs over all its nodes, each holding one contiguous range of the edges,
    /// cut as `partition` says (see [`Partition`]). Node ids and labels are kept.
    pub fn parts(&self, parts: usize, partition: Partition) -> Vec<Csr> {
        let parts = parts.max(1);
        let cuts = self.cuts(parts, partition);
        cuts.windows(2).map(|w| self.edge_slice(w[0], w[1])).collect()
    }

    /// Part `k` of [`Csr::parts`]`(parts, partition)` alone (what one rank of a multi-process run holds).
    pub fn part(&self, k: usize, parts: usize, partition: Partition) -> Csr {
        let parts = parts.max(1);
        let cuts = self.cuts(parts, partition);
        let k = k.min(parts - 1);
        self.edge_slice(cuts[k], cuts[k + 1])
    }

    /// Where `partition` cuts the edge order into `parts` parts: `parts + 1` positions, 0 first and m last.
    fn cuts(&self, parts: usize, partition: Partition) -> Vec<usize> {
        match partition {
            Partition::Edges => self.parts_cuts_by_edges(parts),
            Partition::LowerEdges => self.lower_edge_cuts(parts),
        }
    }

    /// `parts + 1` edge positions (0 first, m last) that give every part as many edges as the others, up to one.
    fn parts_cuts_by_edges(&self, parts: usize) -> Vec<usize> {
        let m = self.col.len() as u128;
        (0..=parts).map(|k| (k as u128 * m / parts as u128) as usize).collect()
    }

    /// `parts + 1` edge positions (0 first, m last) that give every part as many lower edges as the others, up
    /// to one.
    fn lower_edge_cuts(&self, parts: usize) -> Vec<usize> {
        let n = self.row_start.len() - 1;
        let lower_in_row = |v: usize| {
            let (a, b) = (self.row_start[v] as usize, self.row_start[v + 1] as usize);
            self.col[a..b].iter().filter(|&&u| (u as usize) < v).count() as u64
        };
        let counts: Vec<u64> = (0..n).into_par_iter().map(lower_in_row).collect();
        // before[v]: lower edges in the rows before v.
        let mut before = Vec::with_capacity(n + 1);
        let mut sum = 0u64;
        before.push(0);
        for c in &counts {
            sum += c;
            before.push(sum);
        }
        if sum == 0 {
            // Nothing to balance (no edge leads down, or no edges at all): equal edge counts.
            return self.parts_cuts_by_edges(parts);
        }
        let mut cuts = vec![0];
        for k in 1..parts {
            let target = (k as u128 * sum as u128 / parts as u128) as u64;
            // The row holding the target-th lower edge (the first row whose rows-before-and-itself reach past it),
            // then the position right after the edge that reaches the target inside that row.
            let v = before[1..].partition_point(|&b| b <= target).min(n.saturating_sub(1));
            let mut seen = before[v];
            let mut cut = self.row_start[v] as usize;
            for &u in &self.col[self.row_start[v] as usize..self.row_start[v + 1] as usize] {
                if seen >= target {
                    break;
                }
                seen += u64::from((u as usize) < v);
                cut += 1;
            }
            cuts.push(cut.max(*cuts.last().unwrap_or(&0)));
        }
        cuts.push(self.col.len());
        cuts
    }

    /// Edges `lo..hi` over all nodes.
    fn edge_slice(&self, lo: usize, hi: usize) -> Csr {
        let row_start: Vec<u64> =
            self.row_start.iter().map(|&r| (r as usize).clamp(lo, hi) as u64 - lo as u64).collect();
        let weights = self.weights.as_ref().map(|w| w.slice(lo, hi));
        Csr::new(row_start, self.col[lo..hi].to_vec(), weights, self.labels.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::csr::{BuildOptions, EdgeList};

    fn graph(edges: &[(u32, u32)], n: u32) -> Csr {
        let mut el = EdgeList::new(n);
        for &(s, d) in edges {
            el.src.push(s);
            el.dst.push(d);
        }
        el.into_csr(BuildOptions::default())
    }

    /// A star's hub (node 0, 60 edges) first, then 60 nodes with one edge each.
    fn hub_first() -> Csr {
        let mut edges: Vec<(u32, u32)> = (1..=60).map(|v| (0, v)).collect();
        edges.extend((1..=60).map(|v| (v, (v % 60) + 1)));
        graph(&edges, 61)
    }

    #[test]
    fn every_partition_splits_the_edges_once_each_over_all_nodes() {
        let tiny = graph(&[(0, 1), (1, 2), (1, 2), (2, 2), (3, 0)], 4);
        for g in [tiny, hub_first(), graph(&[], 5)] {
            for partition in [Partition::Edges, Partition::LowerEdges] {
                for parts in 1..=7 {
                    let split = g.parts(parts, partition);
                    assert_eq!(split.len(), parts);
                    let mut edges: Vec<(u32, u32)> = Vec::new();
                    for (k, p) in split.iter().enumerate() {
                        let alone = g.part(k, parts, partition);
                        assert_eq!((&alone.row_start[..], &alone.col[..]), (&p.row_start[..], &p.col[..]));
                        assert_eq!(p.num_nodes(), g.num_nodes());
                        assert_eq!(p.check_invariants(), Ok(()));
                        edges.extend(p.sources().into_iter().zip(p.col.iter().copied()));
                    }
                    let all: Vec<(u32, u32)> = g.sources().into_iter().zip(g.col.iter().copied()).collect();
                    assert_eq!(edges, all, "{partition:?}, {parts} parts");
                }
            }
        }
    }

    #[test]
    fn lower_edges_give_every_part_the_same_number_of_edges_to_smaller_nodes() {
        // Node 0 is a hub of 60 edges, all to larger nodes; nodes 1..=60 each lead back to 0 and to a neighbour.
        let mut edges: Vec<(u32, u32)> = (1..=60).map(|v| (0, v)).collect();
        for v in 1..=60u32 {
            edges.push((v, 0));
            edges.push((v, if v == 60 { 1 } else { v + 1 }));
        }
        let g = graph(&edges, 61);
        let lower = |p: &Csr| {
            let src = p.sources();
            src.iter().zip(&p.col).filter(|(s, d)| d < s).count()
        };
        let total = lower(&g);
        assert_eq!(total, 61);
        let by_edges = g.parts(2, Partition::Edges);
        assert_eq!((lower(&by_edges[0]), lower(&by_edges[1])), (15, 46));
        for parts in 2..=5 {
            let split = g.parts(parts, Partition::LowerEdges);
            let each: Vec<usize> = split.iter().map(lower).collect();
            assert_eq!(each.iter().sum::<usize>(), total);
            let (lo, hi) = (each.iter().min().unwrap(), each.iter().max().unwrap());
            assert!(hi - lo <= 1, "{parts} parts: {each:?}");
        }
    }
}
