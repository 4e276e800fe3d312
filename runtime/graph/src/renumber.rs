//! Numbering a graph's nodes by decreasing degree, as GAP relabels a skewed graph before counting triangles: the
//! hubs then hold the smallest ids, so their rows, offsets and the prefixes of other rows that name them sit
//! together in memory, and "ordered by id" becomes "ordered by degree" for a program's loops. What a program that
//! declares `graph G(degree_ordered)` runs on, where [`Csr::degrees_skewed`] says it pays.
//! (Kept with the graph, and beside its graph cache file: [`Csr::degree_ordered`] in `cache.rs`.)

use rayon::prelude::*;

use crate::rows::rows_of;
use crate::{Csr, NodeLabels, Weights};

/// A graph numbered afresh, and where each of the original's nodes went.
#[derive(Debug)]
pub struct Renumbered {
    /// The graph with node `i` the original's `i`-th node by (degree descending, id): rows sorted, weights kept
    /// with their edges, each node labelled with the original's label.
    pub csr: Csr,
    /// `rank[v]`: the new id of the original's node `v`.
    pub rank: Vec<u32>,
    /// Whether the graph was read from the graph cache (kept there by an earlier run) rather than computed.
    pub from_cache: bool,
}

impl Csr {
    /// Whether numbering by degree pays, by GAP's rule (`WorthRelabelling`) on every node rather than a sample: an
    /// average degree of at least 20 stored edges (GAP's 10 counts an undirected edge once) and more than half the
    /// nodes below the average / 1.3, that is a median below it.
    pub fn degrees_skewed(&self) -> bool {
        let n = self.num_nodes() as u64;
        if n == 0 {
            return false;
        }
        let average = self.num_edges() as f64 / n as f64;
        let cut = average / 1.3;
        average >= 20.0
            && (0..self.num_nodes()).into_par_iter().filter(|&v| (self.degree(v) as f64) < cut).count() as u64 > n / 2
    }

    /// The node ids by (degree descending, id): a counting sort by degree (stable, so ties stay in id order), or a
    /// comparison sort where the largest degree is beyond the node count (a multigraph's; the counts would not
    /// fit).
    pub(crate) fn degree_order(&self) -> Vec<u32> {
        let n = self.num_nodes() as usize;
        let max = (0..self.num_nodes()).into_par_iter().map(|v| self.degree(v)).max().unwrap_or(0) as usize;
        if max > n {
            let mut order: Vec<u32> = (0..n as u32).collect();
            order.par_sort_unstable_by_key(|&v| (std::cmp::Reverse(self.degree(v)), v));
            return order;
        }
        // start[d]: where the nodes of degree d begin, the largest degrees first.
        let mut start = vec![0usize; max + 2];
        for v in 0..self.num_nodes() {
            start[max - self.degree(v) as usize + 1] += 1;
        }
        for d in 1..start.len() {
            start[d] += start[d - 1];
        }
        let mut order = vec![0u32; n];
        for v in 0..self.num_nodes() {
            let slot = &mut start[max - self.degree(v) as usize];
            order[*slot] = v;
            *slot += 1;
        }
        order
    }

    /// `rank` (the inverse of `order`) and the labels that go with the graph numbered by `order`.
    pub(crate) fn ranks_and_labels(&self, order: &[u32]) -> (Vec<u32>, NodeLabels) {
        let mut rank = vec![0u32; order.len()];
        for (i, &v) in order.iter().enumerate() {
            rank[v as usize] = i as u32;
        }
        (rank, NodeLabels::Explicit(order.iter().map(|&v| self.labels.label(v)).collect()))
    }

    /// The graph numbered by `order`, in parallel: each new row the old one's destinations renamed and sorted
    /// again. Without `with_weights` the new graph has none, and the rows sort plain destinations (a quarter of
    /// the bytes: kron22's 128 M edges took 14.7 s on two cores with their weights carried along).
    pub(crate) fn renumber(&self, order: Vec<u32>, with_weights: bool) -> Renumbered {
        let n = order.len();
        let (rank, labels) = self.ranks_and_labels(&order);
        let mut row_start = vec![0u64; n + 1];
        for (i, &v) in order.iter().enumerate() {
            row_start[i + 1] = row_start[i] + u64::from(self.degree(v));
        }
        let weights = self.weights.as_ref().filter(|_| with_weights);
        if weights.is_none() {
            let mut col = vec![0u32; self.col.len()];
            rows_of(&mut col, &row_start).into_par_iter().zip(order.par_iter()).for_each(|(row, &v)| {
                for (slot, &d) in row.iter_mut().zip(self.neighbors(v)) {
                    *slot = rank[d as usize];
                }
                row.sort_unstable();
            });
            return Renumbered { csr: Csr::new(row_start, col, None, labels), rank, from_cache: false };
        }
        // Each new row: (new destination, old edge), sorted; the old edges give the weights their new places.
        let mut pairs = vec![(0u32, 0u64); self.col.len()];
        rows_of(&mut pairs, &row_start).into_par_iter().zip(order.par_iter()).for_each(|(row, &v)| {
            for (slot, e) in row.iter_mut().zip(self.edge_range(v)) {
                *slot = (rank[self.col[e] as usize], e as u64);
            }
            row.sort_unstable();
        });
        let col: Vec<u32> = pairs.par_iter().map(|&(d, _)| d).collect();
        let weights = weights.map(|w: &Weights| {
            let edges: Vec<usize> = pairs.par_iter().map(|&(_, e)| e as usize).collect();
            w.permuted(&edges)
        });
        Renumbered { csr: Csr::new(row_start, col, weights, labels), rank, from_cache: false }
    }
}

#[cfg(test)]
mod tests {
    use crate::{BuildOptions, EdgeList, Weights};

    #[test]
    fn hubs_get_the_smallest_ids_and_edges_keep_their_weights() {
        // A star on 0 plus the edge 2-3: node 0 has degree 3, 2 and 3 degree 2, 1 degree 1.
        let mut el = EdgeList::new(4);
        for (a, b, w) in [(0, 1, 1), (0, 2, 2), (0, 3, 3), (2, 3, 4)] {
            for (x, y) in [(a, b), (b, a)] {
                el.src.push(x);
                el.dst.push(y);
                el.weights.get_or_insert(Weights::Int(Vec::new().into()));
                if let Some(Weights::Int(ws)) = &mut el.weights {
                    ws.make_mut().push(w);
                }
            }
        }
        el.labels = crate::NodeLabels::Offset(10);
        let g = el.into_csr(BuildOptions::default());
        let r = g.renumber(g.degree_order(), true);
        assert_eq!(r.rank, vec![0, 3, 1, 2], "by degree, then by id");
        r.csr.check_invariants().unwrap();
        assert_eq!(r.csr.row_start, vec![0, 3, 5, 7, 8]);
        assert_eq!(r.csr.col, vec![1, 2, 3, 0, 2, 0, 1, 0]);
        // New node 1 (old 2): edges to new 0 (old 0, weight 2) and new 2 (old 3, weight 4).
        assert_eq!(r.csr.weights, Some(Weights::Int(vec![2, 3, 1, 2, 4, 3, 4, 1].into())));
        assert_eq!(r.csr.labels.label(1), 12);
        let bare = g.renumber(g.degree_order(), false);
        assert_eq!((bare.rank, bare.csr.row_start, bare.csr.col), (r.rank, r.csr.row_start, r.csr.col));
        assert_eq!(bare.csr.weights, None);
        assert!(!g.degrees_skewed(), "too few edges a node");
    }
}
