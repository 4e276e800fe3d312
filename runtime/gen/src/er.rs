//! Erdős–Rényi G(n, m) graphs with a given average degree.
//!
//! `m = round(n * deg / 2)` undirected edges, each endpoint uniform over `0..n`, drawn with replacement. Sampling
//! with replacement and then dropping duplicates and self loops (when the CSR is built) keeps generation
//! embarrassingly parallel; the price is that the final graph has slightly fewer than `m` edges, by about
//! `m^2 / n^2 + m / n` in expectation: a fraction `deg / n` of the edges, negligible for the sparse graphs this is
//! for.

use irgc_graph::EdgeList;
use rayon::prelude::*;

use crate::rng::{domain, Rng, CHUNK};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ErParams {
    pub n: u32,
    /// Average degree `2m / n`, counting each undirected edge at both ends.
    pub deg: f64,
    pub seed: u64,
}

impl ErParams {
    /// The number of undirected edges sampled.
    pub fn num_samples(&self) -> u64 {
        (self.n as f64 * self.deg / 2.0).round() as u64
    }
}

/// Samples the edges (one direction each, duplicates and self loops included).
pub fn er_edges(p: &ErParams) -> EdgeList {
    let m = usize::try_from(p.num_samples()).expect("edge count fits in memory");
    let mut src = vec![0u32; m];
    let mut dst = vec![0u32; m];
    if p.n > 0 {
        src.par_chunks_mut(CHUNK).zip(dst.par_chunks_mut(CHUNK)).enumerate().for_each(|(chunk, (src, dst))| {
            let mut rng = Rng::new(p.seed, domain::ER_EDGES, chunk as u64);
            for (s, d) in src.iter_mut().zip(dst.iter_mut()) {
                *s = rng.below(p.n as u64) as u32;
                *d = rng.below(p.n as u64) as u32;
            }
        });
    }
    let mut el = EdgeList::new(p.n);
    el.src = src;
    el.dst = dst;
    el
}
