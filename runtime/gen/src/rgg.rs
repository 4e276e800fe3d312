//! Random geometric graphs as in DIMACS-10 (`rgg_n_2_k_s0`): `n` points uniform in the unit square, an edge
//! between every two points closer than `r`, by default `r = 0.55 * sqrt(ln n / n)` (average degree about
//! `0.95 ln n`).
//!
//! Pairs are found with a grid of square cells at least `r` wide, so a point's neighbours lie in its own cell or
//! the eight around it: O(n) expected work instead of O(n^2).
//!
//! Nodes are numbered in cell order (cells row by row, points within a cell in generation order), not in
//! generation order: the DIMACS-10 graphs are spatially ordered too (their adjacency matrices are banded), and the
//! memory locality that gives is part of what a benchmark on them measures.

use irgc_graph::EdgeList;
use rayon::prelude::*;

use crate::points::random_points;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RggParams {
    pub n: u32,
    /// The connection radius; `None` for the DIMACS-10 default [`default_radius`].
    pub radius: Option<f64>,
    pub seed: u64,
}

impl RggParams {
    pub fn radius(&self) -> f64 {
        self.radius.unwrap_or_else(|| default_radius(self.n))
    }
}

/// `0.55 * sqrt(ln n / n)`, the DIMACS-10 radius (0 for `n < 2`).
pub fn default_radius(n: u32) -> f64 {
    if n < 2 {
        return 0.0;
    }
    let n = n as f64;
    0.55 * (n.ln() / n).sqrt()
}

/// The graph's points, indexed by node id (in the cell order the nodes are numbered in), and its edges: each
/// unordered pair closer than the radius once, as `(u, v)` with `u < v`.
pub fn rgg_points_and_edges(p: &RggParams) -> (Vec<[f64; 2]>, EdgeList) {
    let r = p.radius();
    let generated = random_points(p.n, p.seed);
    let n = generated.len();
    // Cells at least r wide, but no more cells than points (a tiny radius must not allocate a huge grid).
    let max_side = ((n as f64).sqrt().ceil() as usize).max(1);
    let side = if r > 0.0 { ((1.0 / r).floor() as usize).clamp(1, max_side) } else { max_side };
    let cell_of = |q: &[f64; 2]| {
        let cx = ((q[0] * side as f64) as usize).min(side - 1);
        let cy = ((q[1] * side as f64) as usize).min(side - 1);
        cy * side + cx
    };
    // Counting sort of the points by cell; stable, so the numbering is deterministic.
    let mut cell_start = vec![0usize; side * side + 1];
    for q in &generated {
        cell_start[cell_of(q) + 1] += 1;
    }
    for c in 0..side * side {
        cell_start[c + 1] += cell_start[c];
    }
    let mut points = vec![[0.0; 2]; n];
    let mut next = cell_start.clone();
    for q in &generated {
        let c = cell_of(q);
        points[next[c]] = *q;
        next[c] += 1;
    }
    drop(generated);

    let r2 = r * r;
    let close = |u: usize, v: usize| {
        let (dx, dy) = (points[u][0] - points[v][0], points[u][1] - points[v][1]);
        dx * dx + dy * dy < r2
    };
    // One task per row of cells; collect keeps row order, so the edge order does not depend on the thread count.
    let pairs: Vec<(u32, u32)> = (0..side)
        .into_par_iter()
        .flat_map_iter(|cy| {
            let mut out = Vec::new();
            for cx in 0..side {
                let here = cell_start[cy * side + cx]..cell_start[cy * side + cx + 1];
                for u in here.clone() {
                    // Pairs inside the cell once each, then the four "forward" neighbour cells, so that every
                    // unordered pair of adjacent cells is visited from exactly one side.
                    for v in u + 1..here.end {
                        if close(u, v) {
                            out.push((u as u32, v as u32));
                        }
                    }
                    for (dx, dy) in [(1isize, 0isize), (-1, 1), (0, 1), (1, 1)] {
                        let (nx, ny) = (cx as isize + dx, cy as isize + dy);
                        if nx < 0 || nx >= side as isize || ny >= side as isize {
                            continue;
                        }
                        let c = ny as usize * side + nx as usize;
                        for v in cell_start[c]..cell_start[c + 1] {
                            if close(u, v) {
                                out.push((u.min(v) as u32, u.max(v) as u32));
                            }
                        }
                    }
                }
            }
            out
        })
        .collect();
    let mut el = EdgeList::new(p.n);
    (el.src, el.dst) = pairs.into_iter().unzip();
    (points, el)
}
