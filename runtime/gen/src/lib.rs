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
pub use delaunay::{delaunay_points_and_edges, DelaunayParams};
pub use er::{er_edges, ErParams};
pub use grid::{grid_edges, GridParams, DEFAULT_DROP};
pub use points::random_points;
pub use rgg::{default_radius, rgg_points_and_edges, RggParams};
pub use rmat::{rmat_edges, RmatParams, RmatPreset};
pub use spec::{GenError, GenSpec, GraphSpec, DEFAULT_DEGREE, DEFAULT_EDGE_FACTOR, DEFAULT_SEED};
pub use weights::WeightSpec;

use irgc_graph::Csr;

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
