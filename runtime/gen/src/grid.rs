//! Road-like graphs: a `w x h` grid with a random fraction of its edges removed.
//!
//! Road networks are near-planar, of degree at most about 4 and of large diameter; a grid with holes has all three
//! and is trivial to scale. Node `(x, y)` is `y * w + x`. Whether an edge survives is a hash of the seed and the
//! edge's index, not a draw from a stream, so it depends on nothing but the edge. Removal can isolate nodes or
//! cut the grid into several components, as closed roads would.

use irgc_graph::EdgeList;
use rayon::prelude::*;

use crate::rng::{domain, hash3, unit_f64};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GridParams {
    pub w: u32,
    pub h: u32,
    /// The probability that each grid edge is removed, in `[0, 1]`.
    pub drop: f64,
    pub seed: u64,
}

/// The default fraction of removed edges.
pub const DEFAULT_DROP: f64 = 0.25;

/// The surviving grid edges, each once, right and down from each node.
pub fn grid_edges(p: &GridParams) -> EdgeList {
    let (w, h) = (p.w as u64, p.h as u64);
    assert!(w * h <= u32::MAX as u64, "a {w}x{h} grid does not fit 32-bit node ids");
    let keep = |edge: u64| unit_f64(hash3(p.seed, domain::GRID_DROP, edge)) >= p.drop;
    let pairs: Vec<(u32, u32)> = (0..h)
        .into_par_iter()
        .flat_map_iter(|y| {
            let mut out = Vec::with_capacity(2 * w as usize);
            for x in 0..w {
                let v = y * w + x;
                // Edge indices: the horizontal edge right of (x, y) is 2v, the vertical one below it 2v + 1.
                if x + 1 < w && keep(2 * v) {
                    out.push((v as u32, (v + 1) as u32));
                }
                if y + 1 < h && keep(2 * v + 1) {
                    out.push((v as u32, (v + w) as u32));
                }
            }
            out
        })
        .collect();
    let mut el = EdgeList::new((w * h) as u32);
    (el.src, el.dst) = pairs.into_iter().unzip();
    el
}
