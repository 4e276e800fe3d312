//! Whether a graph is symmetric (every edge's reverse present, as often), and making it so: what a program that
//! declares `graph G(undirected)` needs.

use rayon::prelude::*;

use crate::{BuildOptions, Csr, EdgeList};

impl Csr {
    /// An edge `(u, v)` (internal ids) whose reverse is missing, or present fewer times than it; `None` when the
    /// graph is symmetric. Linear: the transpose is built by a counting pass (its rows come out sorted), and each
    /// row is compared with the transpose's as a sorted multiset.
    pub fn missing_reverse(&self) -> Option<(u32, u32)> {
        let n = self.num_nodes() as usize;
        let mut t_start = vec![0u64; n + 1];
        for &v in &self.col {
            t_start[v as usize + 1] += 1;
        }
        for v in 0..n {
            t_start[v + 1] += t_start[v];
        }
        let mut t_col = vec![0u32; self.col.len()];
        let mut next = t_start[..n].to_vec();
        for u in 0..n as u32 {
            for &v in self.neighbors(u) {
                t_col[next[v as usize] as usize] = u;
                next[v as usize] += 1;
            }
        }
        drop(next);
        (0..n as u32).into_par_iter().find_map_first(|v| {
            let row = self.neighbors(v);
            let t_row = &t_col[t_start[v as usize] as usize..t_start[v as usize + 1] as usize];
            let sorted_row;
            let row = if row.windows(2).all(|w| w[0] <= w[1]) {
                row
            } else {
                sorted_row = {
                    let mut r = row.to_vec();
                    r.sort_unstable();
                    r
                };
                &sorted_row[..]
            };
            if row == t_row {
                return None;
            }
            // The first place the two sorted rows differ names an edge missing one way: v -> w lacking w -> v if
            // the row has w where the transpose does not, else u -> v lacking v -> u.
            let at = row.iter().zip(t_row).position(|(a, b)| a != b).unwrap_or(row.len().min(t_row.len()));
            match (row.get(at), t_row.get(at)) {
                (Some(&w), Some(&u)) if w < u => Some((v, w)),
                (Some(_), Some(&u)) | (None, Some(&u)) => Some((u, v)),
                (Some(&w), None) => Some((v, w)),
                (None, None) => None,
            }
        })
    }

    /// The graph with every edge's reverse added (the same weight), then self loops and duplicate edges dropped:
    /// exactly what `--symmetrize` does when loading.
    pub fn symmetrized(&self) -> Csr {
        let mut el = EdgeList::new(self.num_nodes());
        el.src = self.sources();
        el.dst = self.col.clone();
        el.weights = self.weights.clone();
        el.labels = self.labels.clone();
        el.into_csr(BuildOptions { symmetrize: true, drop_self_loops: true, dedupe: true })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(n: u32, edges: &[(u32, u32)]) -> Csr {
        let mut el = EdgeList::new(n);
        for &(a, b) in edges {
            el.src.push(a);
            el.dst.push(b);
        }
        el.into_csr(BuildOptions::default())
    }

    #[test]
    fn a_missing_reverse_is_named_and_symmetrizing_adds_it() {
        let sym = graph(3, &[(0, 1), (1, 0), (1, 2), (2, 1), (2, 2)]);
        assert_eq!(sym.missing_reverse(), None);
        let g = graph(3, &[(0, 1), (1, 0), (1, 2)]);
        assert_eq!(g.missing_reverse(), Some((1, 2)));
        let s = g.symmetrized();
        assert_eq!(s.missing_reverse(), None);
        assert_eq!(s.col, vec![1, 0, 2, 1]);
        // A duplicate on one side only is asymmetric too.
        assert!(graph(2, &[(0, 1), (0, 1), (1, 0)]).missing_reverse().is_some());
        // Only a reverse is missing in the other direction.
        assert_eq!(graph(3, &[(2, 0)]).missing_reverse(), Some((2, 0)));
    }
}
