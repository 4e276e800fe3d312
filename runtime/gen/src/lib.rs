//! Deterministic graph generators for irgc.
//!
//! A graph is named by a spec string (see [`GenSpec::parse`]); the same spec gives the same [`Csr`], bit for bit,
//! on any machine and with any number of threads, so benchmark results can name their input by spec alone. The
//! randomness is this crate's own (see `rng.rs`), so dependency upgrades cannot change a graph either.
//!
//! Every generated graph is undirected: both directions of every edge are stored, self loops and duplicate edges
//! are removed (by [`EdgeList::into_csr`] with all three [`BuildOptions`]), both directions of an edge carry the
//! same weight, and node labels are `Offset(0)`.

mod delaunay;
mod er;
mod grid;
mod points;
mod rgg;
mod rmat;
mod rng;
mod spec;
mod weights;

pub use delaunay::{delaunay_points_and_edges, DelaunayParams};
pub use er::{er_edges, ErParams};
pub use grid::{grid_edges, GridParams, DEFAULT_DROP};
pub use points::random_points;
pub use rgg::{default_radius, rgg_points_and_edges, RggParams};
pub use rmat::{rmat_edges, RmatParams, RmatPreset};
pub use spec::{GenError, GenSpec, GraphSpec, DEFAULT_DEGREE, DEFAULT_EDGE_FACTOR, DEFAULT_SEED};
pub use weights::WeightSpec;

use irgc_graph::{BuildOptions, Csr, EdgeList};

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
    Ok(build(edges, spec.weights, spec.graph.seed()))
}

/// Turns generated edges (each undirected edge at least once, in either direction) into the undirected CSR every
/// generator returns, with weights drawn under `seed`.
pub fn build(mut edges: EdgeList, weights: WeightSpec, seed: u64) -> Csr {
    weights.apply(&mut edges, seed);
    edges.into_csr(BuildOptions { symmetrize: true, drop_self_loops: true, dedupe: true })
}
