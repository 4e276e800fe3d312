//! Deterministic graph generators for irgc.
//!
//! A graph is named by a spec string (see [`GenSpec::parse`]); the same spec gives the same [`Csr`], bit for bit,
//! on any machine and with any number of threads, so benchmark results can name their input by spec alone. The
//! randomness is this crate's own (see `rng.rs`), so dependency upgrades cannot change a graph either.
//!
//! Every generated graph is undirected: both directions of every edge are stored, self loops and duplicate edges
//! are removed, both directions of an edge carry the same weight, and node labels are `Offset(0)`; that is, it is
//! exactly what [`irgc_graph::EdgeList::into_csr`] gives with all three [`irgc_graph::BuildOptions`] on, built by a
//! faster route that [`assemble`] explains.
//!
//! The generators (each module's docs give the details and the choices made):
//! - `rmat` / `kron`: R-MAT with the Graph500, RMAT-ER, RMAT-G and RMAT-B parameter presets, noise-free like the
//!   Graph500 reference, node ids relabelled by a seeded random permutation (as Graph500 does) so the hub is not
//!   node 0;
//! - `er`: Erdős–Rényi G(n, m) with `m = n * deg / 2`, sampled with replacement;
//! - `rgg`: DIMACS-10 random geometric graphs, radius `0.55 * sqrt(ln n / n)`, nodes in spatial (cell) order;
//! - `delaunay`: Delaunay triangulations of uniform random points;
//! - `grid`: road-like `w x h` grids with a fraction (default 25%) of the edges removed.
//!
//! Weights (`weights=int:LO:HI`, `float:LO:HI`, `none`) are a hash of the seed and the unordered endpoint pair, so
//! both directions of an edge agree by construction.

mod assemble;
pub mod catalog;
mod delaunay;
mod er;
mod grid;
mod points;
mod rgg;
mod rmat;
mod rng;
mod spec;
mod weights;

pub use assemble::assemble;
pub use catalog::{DEFAULT_DEGREE, DEFAULT_EDGE_FACTOR, DEFAULT_SEED};
pub use delaunay::{delaunay_points_and_edges, DelaunayParams};
pub use er::{er_edges, ErParams};
pub use grid::{grid_edges, GridParams, DEFAULT_DROP};
pub use points::random_points;
pub use rgg::{default_radius, rgg_points_and_edges, RggParams};
pub use rmat::{rmat_edges, RmatParams, RmatPreset};
pub use spec::{GenError, GenSpec, GraphSpec};
pub use weights::WeightSpec;

use irgc_graph::Csr;

impl GenSpec {
    /// An upper bound on the memory, in bytes, that generating this graph takes at its peak: the edge pairs as
    /// generated (both directions of each undirected edge, 8 bytes each, and the build's copy of them), then the
    /// CSR (8 bytes per node, 4 per edge, 4 per weight). Callers refuse a spec above what the machine has before
    /// generating, instead of aborting on a failed allocation.
    pub fn estimated_bytes(&self) -> u64 {
        let (n, directed_edges): (f64, f64) = match &self.graph {
            GraphSpec::Rmat(p) => {
                let n = 2f64.powi(p.scale as i32);
                (n, 2.0 * n * p.edge_factor as f64)
            }
            GraphSpec::Er(p) => (p.n as f64, p.n as f64 * p.deg),
            GraphSpec::Rgg(p) => {
                let n = p.n as f64;
                let r = p.radius.unwrap_or_else(|| default_radius(p.n));
                // Expected degree of a point: n times the area of its disc (at most n - 1).
                (n, n * (n * std::f64::consts::PI * r * r).min(n))
            }
            GraphSpec::Delaunay(p) => (p.n as f64, 6.0 * p.n as f64),
            GraphSpec::Grid(p) => {
                let n = p.w as f64 * p.h as f64;
                (n, 4.0 * n)
            }
        };
        let bytes = 8.0 * (n + 1.0) + directed_edges * (8.0 + 8.0 + 4.0 + 4.0);
        if bytes >= u64::MAX as f64 {
            u64::MAX
        } else {
            bytes as u64
        }
    }
}

/// Generates the graph a spec names.
///
/// Returns a `Result` so that callers need not change if a generator gains a failure mode; the parser already
/// rejects every spec the generators cannot build, so today this never fails for a parsed spec.
pub fn generate(spec: &GenSpec) -> Result<Csr, GenError> {
    let edges = match &spec.graph {
        GraphSpec::Rmat(p) => rmat_edges(p),
        GraphSpec::Er(p) => er_edges(p),
        GraphSpec::Rgg(p) => rgg_points_and_edges(p).1,
        GraphSpec::Delaunay(p) => delaunay_points_and_edges(p).1,
        GraphSpec::Grid(p) => grid_edges(p),
    };
    Ok(assemble(edges, spec.weights, spec.graph.seed()))
}

#[cfg(test)]
mod memory_estimate {
    use super::*;

    #[test]
    fn the_estimate_bounds_what_generation_uses() {
        for spec in ["rmat:scale=10,ef=8,seed=1", "er:n=2000,deg=6", "rgg:n=3000", "delaunay:n=2000", "grid:w=40,h=30"]
        {
            let parsed = GenSpec::parse(spec).unwrap();
            let g = generate(&parsed).unwrap();
            let csr_bytes = 8 * (g.num_nodes() as u64 + 1) + 8 * g.num_edges();
            let est = parsed.estimated_bytes();
            assert!(est >= csr_bytes, "{spec}: estimate {est} below the CSR's {csr_bytes} bytes");
            assert!(est < 40 * csr_bytes.max(1 << 16), "{spec}: estimate {est} far above the CSR's {csr_bytes}");
        }
        // Far beyond any machine, and no overflow.
        assert!(GenSpec::parse("rmat:scale=31,ef=1000000").unwrap().estimated_bytes() > 1 << 50);
    }
}
