//! Turning generated edges into the undirected CSR every generator returns.
//!
//! The result is by definition what [`EdgeList::into_csr`] gives with `symmetrize`, `drop_self_loops` and `dedupe`
//! all on (the tests below check exactly that on every generator). It is not computed by calling `into_csr`
//! because generated graphs allow a faster route: for the 2^22-node, 128 M-edge R-MAT graph `into_csr` (bucket by
//! source, sort each row, carry weights along) takes about 22 s on two cores, this about 3 s (measured):
//! 1. write each edge as one `u64` key `min << 32 | max`, sort the keys (a plain parallel sort of integers, a few
//!    seconds) and drop duplicates and self loops;
//! 2. scatter every key into both rows: first `max -> min` for all keys, then `min -> max` for all keys. Because the
//!    keys are sorted, each row receives its smaller neighbours in increasing order and then its larger ones in
//!    increasing order, so the rows come out sorted with no further sorting.
//!
//! Weights need no care about which duplicate survives: a generated weight is a function of the unordered pair (see
//! `weights.rs`), so every copy of a pair carries the same one.

use irgc_graph::{Csr, EdgeList};
use rayon::prelude::*;

use crate::weights::WeightSpec;

/// The undirected simple CSR of `edges` (each undirected edge at least once, in either direction; self loops and
/// repeats allowed), with weights drawn under `seed`, and `edges.labels` as labels.
pub fn assemble(edges: EdgeList, weights: WeightSpec, seed: u64) -> Csr {
    let EdgeList { num_nodes, src, dst, labels, .. } = edges;
    assert_eq!(src.len(), dst.len(), "edge list halves differ in length");
    let mut keys: Vec<u64> = src
        .par_iter()
        .zip(dst.par_iter())
        .filter(|(u, v)| u != v)
        .map(|(&u, &v)| (u.min(v) as u64) << 32 | u.max(v) as u64)
        .collect();
    drop((src, dst));
    keys.par_sort_unstable();
    keys.dedup();

    let n = num_nodes as usize;
    let mut row_start = vec![0u64; n + 1];
    for &k in &keys {
        row_start[(k >> 32) as usize + 1] += 1;
        row_start[(k as u32) as usize + 1] += 1;
    }
    for v in 0..n {
        row_start[v + 1] += row_start[v];
    }
    let mut col = vec![0u32; 2 * keys.len()];
    let mut next: Vec<u64> = row_start[..n].to_vec();
    for &k in &keys {
        let (lo, hi) = ((k >> 32) as u32, k as u32);
        col[next[hi as usize] as usize] = lo;
        next[hi as usize] += 1;
    }
    for &k in &keys {
        let (lo, hi) = ((k >> 32) as u32, k as u32);
        col[next[lo as usize] as usize] = hi;
        next[lo as usize] += 1;
    }
    drop(keys);
    let mut csr = Csr::new(row_start, col, None, labels);
    csr.weights = weights.for_csr(&csr, seed);
    csr
}

#[cfg(test)]
mod tests {
    use irgc_graph::BuildOptions;

    use super::*;
    use crate::{GenSpec, GraphSpec};

    /// `assemble` must give exactly what `into_csr` gives with all three options, on every generator's output.
    #[test]
    fn equals_into_csr_on_every_generator() {
        for spec in [
            "rmat:scale=11,ef=8,seed=4,weights=int",
            "rmat:scale=8,ef=64,preset=rmat-b,weights=float",
            "er:n=3000,deg=10,seed=2,weights=int:-5:5",
            "er:n=30,deg=40,seed=2",
            "rgg:n=3000,seed=3,weights=float:1:2",
            "delaunay:n=3000,seed=5,weights=int",
            "grid:w=40,h=70,seed=6,weights=float",
        ] {
            let spec = GenSpec::parse(spec).unwrap();
            let seed = spec.graph.seed();
            let edges = match &spec.graph {
                GraphSpec::Rmat(p) => crate::rmat_edges(p),
                GraphSpec::Er(p) => crate::er_edges(p),
                GraphSpec::Rgg(p) => crate::rgg_points_and_edges(p).1,
                GraphSpec::Delaunay(p) => crate::delaunay_points_and_edges(p).1,
                GraphSpec::Grid(p) => crate::grid_edges(p),
            };
            let mut el = edges.clone();
            spec.weights.apply(&mut el, seed);
            let reference = el.into_csr(BuildOptions { symmetrize: true, drop_self_loops: true, dedupe: true });
            assert_eq!(assemble(edges, spec.weights, seed), reference, "{spec}");
        }
    }

    #[test]
    fn handles_repeats_self_loops_and_isolated_nodes() {
        let mut el = EdgeList::new(5);
        for (u, v) in [(3, 1), (1, 3), (1, 3), (2, 2), (0, 3), (3, 0)] {
            el.src.push(u);
            el.dst.push(v);
        }
        let g = assemble(el, WeightSpec::None, 1);
        assert_eq!(g.row_start, vec![0, 1, 2, 2, 4, 4]);
        assert_eq!(g.col, vec![3, 3, 0, 1]);
    }
}
