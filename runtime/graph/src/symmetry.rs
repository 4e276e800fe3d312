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
        let (t_start, t_col) = self.transpose();
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

    /// An edge `(u, v)` whose weights differ from those of `(v, u)` (compared as sorted lists, so parallel edges
    /// of different weights count too), with one weight of each direction; `None` when every edge weighs the same
    /// both ways (or the graph has no weights). Needs the rows sorted, as every loader builds them.
    pub fn asymmetric_weight(&self) -> Option<(u32, u32, f64, f64)> {
        let w = self.weights.as_ref()?;
        let weights_to = |from: u32, to: u32| -> Vec<f64> {
            let row = self.edge_range(from);
            let cols = &self.col[row.clone()];
            let lo = cols.partition_point(|&c| c < to);
            let hi = cols.partition_point(|&c| c <= to);
            let mut ws: Vec<f64> = (row.start + lo..row.start + hi).map(|e| w.get_f64(e)).collect();
            ws.sort_by(f64::total_cmp);
            ws
        };
        (0..self.num_nodes()).into_par_iter().find_map_first(|u| {
            let row = self.neighbors(u);
            row.iter().enumerate().filter(|&(i, &v)| v != u && (i == 0 || row[i - 1] != v)).find_map(|(_, &v)| {
                let (there, back) = (weights_to(u, v), weights_to(v, u));
                (there != back).then(|| {
                    (u, v, there.first().copied().unwrap_or(f64::NAN), back.first().copied().unwrap_or(f64::NAN))
                })
            })
        })
    }

    /// The undirected graph of this one: one edge per unordered pair of distinct nodes, in both directions, weighing
    /// the smallest weight any of its copies (either direction, parallel edges) had. Self loops are dropped.
    pub fn undirected_min_weights(&self) -> Csr {
        let src = self.sources();
        let mut pairs: Vec<(u32, u32, f64)> = (0..self.col.len())
            .filter(|&e| src[e] != self.col[e])
            .map(|e| {
                let (a, b) = (src[e].min(self.col[e]), src[e].max(self.col[e]));
                (a, b, self.weights.as_ref().map_or(0.0, |w| w.get_f64(e)))
            })
            .collect();
        pairs.par_sort_unstable_by(|x, y| (x.0, x.1).cmp(&(y.0, y.1)).then(x.2.total_cmp(&y.2)));
        pairs.dedup_by(|later, first| (later.0, later.1) == (first.0, first.1));
        let mut el = EdgeList::new(self.num_nodes());
        let ints = self.weights.as_ref().is_some_and(crate::Weights::is_int);
        let (mut wi, mut wf) = (Vec::new(), Vec::new());
        for &(a, b, w) in &pairs {
            for (x, y) in [(a, b), (b, a)] {
                el.src.push(x);
                el.dst.push(y);
                if ints {
                    wi.push(w as i64);
                } else {
                    wf.push(w);
                }
            }
        }
        el.weights = match (&self.weights, ints) {
            (None, _) => None,
            // Narrow weights stay narrow: every weight kept is one of them.
            (Some(crate::Weights::U32(_)), true) => Some(crate::Weights::U32(wi.iter().map(|&w| w as u32).collect())),
            (Some(_), true) => Some(crate::Weights::Int(wi.into())),
            (Some(_), false) => Some(crate::Weights::Float(wf.into())),
        };
        el.labels = self.labels.clone();
        el.into_csr(BuildOptions::default())
    }

    /// The graph with every edge's reverse added (the same weight), then self loops and duplicate edges dropped:
    /// exactly what `--symmetrize` does when loading.
    pub fn symmetrized(&self) -> Csr {
        let mut el = EdgeList::new(self.num_nodes());
        el.src = self.sources();
        el.dst = self.col.to_vec();
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
    fn asymmetric_weights_are_found_and_the_smaller_one_kept() {
        let mut el = EdgeList::new(3);
        for (a, b) in [(0, 1), (1, 0), (1, 2), (2, 1), (2, 1)] {
            el.src.push(a);
            el.dst.push(b);
        }
        el.weights = Some(crate::Weights::Int(vec![5, 5, 7, 3, 9].into()));
        let g = el.into_csr(BuildOptions::default());
        assert_eq!(g.asymmetric_weight(), Some((1, 2, 7.0, 3.0)));
        let u = g.undirected_min_weights();
        assert_eq!(u.asymmetric_weight(), None);
        assert_eq!(u.col, vec![1, 0, 2, 1]);
        assert_eq!(u.weights, Some(crate::Weights::Int(vec![5, 5, 3, 3].into())));
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
