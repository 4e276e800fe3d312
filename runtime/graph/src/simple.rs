//! Whether a graph is simple (no self loops, no edge repeated in the same direction), and making it so: what a
//! program that declares `graph G(simple)` needs, so that its kernels may skip the checks for repeated neighbours
//! (triangle counting's merges compare every neighbour with the one before it otherwise).

use rayon::prelude::*;

use crate::rows::rows_of;
use crate::Csr;

impl Csr {
    /// A self loop `(u, u)` or an edge `(u, v)` that repeats one before it in `u`'s row; `None` when the graph is
    /// simple. Needs the rows sorted (every loader builds them so), which puts repeated edges side by side; linear
    /// and parallel over the rows, and the first such edge in row order is the one named.
    pub fn first_non_simple(&self) -> Option<(u32, u32)> {
        (0..self.num_nodes()).into_par_iter().find_map_first(|u| {
            let row = self.neighbors(u);
            let bad = |(i, &v): &(usize, &u32)| v == u || (*i > 0 && row[i - 1] == v);
            row.iter().enumerate().find(bad).map(|(_, &v)| (u, v))
        })
    }

    /// The graph without self loops and with one edge per `(u, v)` pair: of parallel edges, the one of smallest
    /// weight (the first in row order among equals, or without weights). Node ids and labels are unchanged. Rows
    /// stay sorted. Two parallel passes over the rows: count what each keeps, then copy it.
    pub fn simplified(&self) -> Csr {
        let n = self.num_nodes() as usize;
        let kept = |u: u32| -> usize {
            let row = self.neighbors(u);
            (0..row.len()).filter(|&i| row[i] != u && (i == 0 || row[i - 1] != row[i])).count()
        };
        let counts: Vec<u64> = (0..n as u32).into_par_iter().map(|u| kept(u) as u64).collect();
        let mut row_start = vec![0u64; n + 1];
        for v in 0..n {
            row_start[v + 1] = row_start[v] + counts[v];
        }
        drop(counts);
        let mut order = vec![0usize; row_start[n] as usize];
        let lighter = |a: usize, b: usize| match &self.weights {
            Some(w) => w.get_f64(b).total_cmp(&w.get_f64(a)).is_lt(),
            None => false,
        };
        rows_of(&mut order, &row_start).into_par_iter().enumerate().for_each(|(u, out)| {
            let range = self.edge_range(u as u32);
            let mut k = 0;
            let mut e = range.start;
            while e < range.end {
                let v = self.col[e];
                let mut best = e;
                e += 1;
                while e < range.end && self.col[e] == v {
                    if lighter(best, e) {
                        best = e;
                    }
                    e += 1;
                }
                if v as usize != u {
                    out[k] = best;
                    k += 1;
                }
            }
        });
        let col: Vec<u32> = order.par_iter().map(|&e| self.col[e]).collect();
        let weights = self.weights.as_ref().map(|w| w.permuted(&order));
        Csr::new(row_start, col, weights, self.labels.clone())
    }
}

#[cfg(test)]
mod tests {
    use crate::{BuildOptions, EdgeList, Weights};

    fn graph(n: u32, edges: &[(u32, u32, i64)]) -> crate::Csr {
        let mut el = EdgeList::new(n);
        for &(a, b, _) in edges {
            el.src.push(a);
            el.dst.push(b);
        }
        el.weights = Some(Weights::Int(edges.iter().map(|e| e.2).collect::<Vec<_>>().into()));
        el.into_csr(BuildOptions::default())
    }

    #[test]
    fn a_simple_graph_is_found_simple() {
        let g = graph(3, &[(0, 1, 1), (1, 0, 1), (1, 2, 1), (2, 1, 1)]);
        assert_eq!(g.first_non_simple(), None);
        assert_eq!(g.simplified(), g);
    }

    #[test]
    fn loops_and_repeats_are_named_and_dropped_keeping_the_lightest() {
        let g = graph(4, &[(0, 1, 9), (1, 2, 4), (1, 2, 3), (1, 2, 5), (2, 2, 1), (3, 0, 2), (0, 1, 7)]);
        assert_eq!(g.first_non_simple(), Some((0, 1)), "0 -> 1 twice");
        let s = g.simplified();
        s.check_invariants().unwrap();
        assert_eq!(s.first_non_simple(), None);
        assert_eq!(s.row_start, vec![0, 1, 2, 2, 3]);
        assert_eq!(s.col, vec![1, 2, 0]);
        assert_eq!(s.weights, Some(Weights::Int(vec![7, 3, 2].into())));
        let only_loop = graph(2, &[(0, 1, 1), (1, 1, 1)]);
        assert_eq!(only_loop.first_non_simple(), Some((1, 1)));
        assert_eq!(only_loop.simplified().num_edges(), 1);
    }
}
