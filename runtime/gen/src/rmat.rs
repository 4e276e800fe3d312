//! R-MAT / Kronecker graphs (Chakrabarti, Zhan and Faloutsos 2004; the Graph500 generator).
//!
//! Each edge picks one quadrant of the adjacency matrix per level with probabilities `(a, b, c, d)`, `scale`
//! levels deep, giving a node pair in `0..2^scale`. Choices made here, following the Graph500 reference code:
//! - no per-level noise on the probabilities (the Graph500 Kronecker generator has none; PaRMAT/SSCA2-style
//!   noise only smooths the degree staircase);
//! - node ids are relabelled through a seeded random permutation afterwards, as Graph500 does, so the hub is not
//!   always node 0 and low ids are not systematically denser (that would flatter or punish a partitioning by id);
//! - `edge_factor * 2^scale` edges are drawn with replacement; duplicates and self loops are removed later, when
//!   the undirected CSR is built, so the final edge count is somewhat lower (more so for skewed presets).

use std::fmt;

use irgc_graph::EdgeList;
use rayon::prelude::*;

use crate::rng::{domain, permutation, Rng, CHUNK};

/// Named `(a, b, c, d)` choices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RmatPreset {
    /// 0.57/0.19/0.19/0.05, the Graph500 Kronecker parameters (also accepted as `kron`).
    Graph500,
    /// 0.25 each: an Erdős–Rényi-like R-MAT.
    Er,
    /// 0.45/0.15/0.15/0.25.
    G,
    /// 0.55/0.15/0.15/0.15.
    B,
}

impl RmatPreset {
    pub const ALL: [RmatPreset; 4] = [RmatPreset::Graph500, RmatPreset::Er, RmatPreset::G, RmatPreset::B];
    /// The names the spec parser accepts, for error messages.
    pub const NAMES: &'static str = "graph500, kron, rmat-er, rmat-g, rmat-b";

    pub fn probabilities(self) -> [f64; 4] {
        match self {
            RmatPreset::Graph500 => [0.57, 0.19, 0.19, 0.05],
            RmatPreset::Er => [0.25, 0.25, 0.25, 0.25],
            RmatPreset::G => [0.45, 0.15, 0.15, 0.25],
            RmatPreset::B => [0.55, 0.15, 0.15, 0.15],
        }
    }

    /// The canonical name (what [`fmt::Display`] of a spec prints).
    pub fn name(self) -> &'static str {
        match self {
            RmatPreset::Graph500 => "graph500",
            RmatPreset::Er => "rmat-er",
            RmatPreset::G => "rmat-g",
            RmatPreset::B => "rmat-b",
        }
    }

    pub fn from_name(name: &str) -> Option<RmatPreset> {
        match name {
            "graph500" | "kron" => Some(RmatPreset::Graph500),
            "rmat-er" => Some(RmatPreset::Er),
            "rmat-g" => Some(RmatPreset::G),
            "rmat-b" => Some(RmatPreset::B),
            _ => None,
        }
    }

    /// The preset with exactly these probabilities, if any.
    pub fn matching(probs: [f64; 4]) -> Option<RmatPreset> {
        Self::ALL.into_iter().find(|p| p.probabilities() == probs)
    }
}

impl fmt::Display for RmatPreset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An R-MAT graph: `2^scale` nodes, `edge_factor * 2^scale` sampled edges.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RmatParams {
    /// `log2` of the node count, at most 31 (node ids are `u32`).
    pub scale: u32,
    pub edge_factor: u32,
    /// `[a, b, c, d]`: the probabilities of the top-left, top-right, bottom-left and bottom-right quadrants.
    pub probabilities: [f64; 4],
    pub seed: u64,
}

impl RmatParams {
    pub fn new(scale: u32, edge_factor: u32, preset: RmatPreset, seed: u64) -> Self {
        RmatParams { scale, edge_factor, probabilities: preset.probabilities(), seed }
    }

    pub fn num_nodes(&self) -> u32 {
        (1u64 << self.scale) as u32
    }

    /// Edges sampled before duplicates and self loops are removed.
    pub fn num_samples(&self) -> u64 {
        (self.edge_factor as u64) << self.scale
    }
}

/// Samples the edges (one direction each, duplicates and self loops included), ids already permuted.
pub fn rmat_edges(p: &RmatParams) -> EdgeList {
    assert!(p.scale <= 31, "R-MAT scale {} does not fit 32-bit node ids", p.scale);
    let m = usize::try_from(p.num_samples()).expect("edge count fits in memory");
    // Thresholds on a 64-bit draw for "quadrant < k"; comparing integers is faster than comparing floats and the
    // 2^-64 resolution is far below any meaningful probability.
    let [a, b, c, _] = p.probabilities;
    let to_threshold = |x: f64| if x >= 1.0 { u64::MAX } else { (x * 2f64.powi(64)) as u64 };
    let (t_a, t_ab, t_abc) = (to_threshold(a), to_threshold(a + b), to_threshold(a + b + c));
    let mut src = vec![0u32; m];
    let mut dst = vec![0u32; m];
    src.par_chunks_mut(CHUNK).zip(dst.par_chunks_mut(CHUNK)).enumerate().for_each(|(chunk, (src, dst))| {
        let mut rng = Rng::new(p.seed, domain::RMAT_EDGES, chunk as u64);
        for (s, d) in src.iter_mut().zip(dst.iter_mut()) {
            let (mut u, mut v) = (0u32, 0u32);
            for _ in 0..p.scale {
                let r = rng.next_u64();
                let (bu, bv) = if r < t_a {
                    (0, 0)
                } else if r < t_ab {
                    (0, 1)
                } else if r < t_abc {
                    (1, 0)
                } else {
                    (1, 1)
                };
                u = u << 1 | bu;
                v = v << 1 | bv;
            }
            *s = u;
            *d = v;
        }
    });
    let perm = permutation(p.num_nodes(), p.seed, domain::RMAT_PERMUTATION);
    src.par_iter_mut().chain(dst.par_iter_mut()).for_each(|x| *x = perm[*x as usize]);
    let mut el = EdgeList::new(p.num_nodes());
    el.src = src;
    el.dst = dst;
    el
}
