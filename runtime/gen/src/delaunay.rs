//! Delaunay triangulations of random points (like the DIMACS-10 `delaunay_n*` graphs): planar, degree about 6,
//! large diameter, the mesh-like end of the benchmark range.
//!
//! The triangulation itself comes from the `delaunator` crate (a port of Mapbox's Delaunator, with robust
//! orientation predicates). Nodes keep the order the points were generated in.

use delaunator::{next_halfedge, triangulate, Point, EMPTY};
use irgc_graph::EdgeList;

use crate::points::random_points;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DelaunayParams {
    pub n: u32,
    pub seed: u64,
}

/// The points, indexed by node id, and the triangulation's edges, each once. Fewer than three points, or all
/// points on a line, give no triangles: their Delaunay graph is then the path through the points in order along
/// the line (two points: one edge), which the triangulation's hull lists.
pub fn delaunay_points_and_edges(p: &DelaunayParams) -> (Vec<[f64; 2]>, EdgeList) {
    let points = random_points(p.n, p.seed);
    let input: Vec<Point> = points.iter().map(|q| Point { x: q[0], y: q[1] }).collect();
    let t = triangulate(&input);
    drop(input);
    let mut el = EdgeList::new(p.n);
    // A half-edge and its twin are the two directions of one edge: emit the one with the larger index (or the lone
    // half-edge on the hull).
    for (e, &twin) in t.halfedges.iter().enumerate() {
        if twin == EMPTY || e > twin {
            el.src.push(t.triangles[e] as u32);
            el.dst.push(t.triangles[next_halfedge(e)] as u32);
        }
    }
    if t.triangles.is_empty() {
        for w in t.hull.windows(2) {
            el.src.push(w[0] as u32);
            el.dst.push(w[1] as u32);
        }
    }
    (points, el)
}
