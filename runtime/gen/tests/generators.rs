//! Properties every generated graph must have, and the ones particular to each generator.

use irgc_gen::{
    default_radius, delaunay_points_and_edges, generate, rgg_points_and_edges, DelaunayParams, GenSpec, GraphSpec,
    RggParams,
};
use irgc_graph::{BuildOptions, Csr, NodeLabels, Weights};

fn gen(spec: &str) -> Csr {
    let g = generate(&GenSpec::parse(spec).unwrap()).unwrap();
    assert_undirected_simple(&g, spec);
    g
}

/// Invariants, both directions present with equal weights, no self loops, no duplicates, labels Offset(0).
fn assert_undirected_simple(g: &Csr, spec: &str) {
    g.check_invariants().unwrap_or_else(|e| panic!("{spec}: {e}"));
    assert_eq!(g.labels, NodeLabels::Offset(0), "{spec}");
    for v in 0..g.num_nodes() {
        let nbrs = g.neighbors(v);
        assert!(nbrs.windows(2).all(|w| w[0] < w[1]), "{spec}: node {v} has unsorted or duplicate neighbours");
        for e in g.edge_range(v) {
            let u = g.col[e];
            assert_ne!(u, v, "{spec}: self loop at {v}");
            let back = g.neighbors(u).binary_search(&v).unwrap_or_else(|_| panic!("{spec}: {v}->{u} has no twin"));
            if let Some(w) = &g.weights {
                let twin = g.edge_range(u).start + back;
                assert_eq!(w.get_f64(e), w.get_f64(twin), "{spec}: {v}-{u} weights differ by direction");
            }
        }
    }
}

fn undirected_edges(g: &Csr) -> u64 {
    g.num_edges() / 2
}

fn max_degree(g: &Csr) -> (u32, u32) {
    (0..g.num_nodes()).map(|v| (g.degree(v), v)).max().unwrap()
}

#[test]
fn same_seed_same_graph_other_seed_other_graph() {
    for spec in [
        "rmat:scale=10,ef=8,seed=3,weights=int",
        "er:n=3000,deg=6,seed=3,weights=float",
        "rgg:n=3000,seed=3",
        "delaunay:n=3000,seed=3",
        "grid:w=50,h=40,seed=3,weights=int:1:9",
    ] {
        let a = gen(spec);
        assert_eq!(a, gen(spec), "{spec} is not deterministic");
        let other = gen(&spec.replace("seed=3", "seed=4"));
        assert_ne!(a, other, "{spec}: the seed changes nothing");
    }
}

#[test]
fn generation_does_not_depend_on_the_thread_count() {
    // Large enough for several chunks of 2^16 samples.
    let spec = GenSpec::parse("rmat:scale=14,ef=16,seed=9,weights=int").unwrap();
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap().install(|| generate(&spec).unwrap());
    let three = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap().install(|| generate(&spec).unwrap());
    assert_eq!(one, three);
}

/// Pins the output for one spec per generator, so that a change to the random streams (which would silently
/// change every published benchmark input) fails here. If the change is intended, update the numbers.
#[test]
fn outputs_are_pinned() {
    fn fingerprint(g: &Csr) -> u64 {
        // FNV-1a over the structure and the weights.
        let mut h = 0xcbf2_9ce4_8422_2325u64;
        let mut eat = |x: u64| {
            h ^= x;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        };
        g.row_start.iter().for_each(|&x| eat(x));
        g.col.iter().for_each(|&x| eat(x as u64));
        match &g.weights {
            Some(Weights::Int(w)) => w.iter().for_each(|&x| eat(x as u64)),
            Some(Weights::U32(w)) => w.iter().for_each(|&x| eat(x as u64)),
            Some(Weights::Float(w)) => w.iter().for_each(|&x| eat(x.to_bits())),
            None => {}
        }
        h
    }
    let got: Vec<(&str, u64, u64)> = [
        "rmat:scale=10,ef=8,seed=1,weights=int",
        "er:n=1000,deg=8,seed=1,weights=float",
        "rgg:n=1000,seed=1",
        "delaunay:n=1000,seed=1",
        "grid:w=30,h=30,seed=1",
    ]
    .into_iter()
    .map(|s| {
        let g = gen(s);
        (s, g.num_edges(), fingerprint(&g))
    })
    .collect();
    let expected = vec![
        ("rmat:scale=10,ef=8,seed=1,weights=int", 12094, 14505217404977694763),
        ("er:n=1000,deg=8,seed=1,weights=float", 7942, 331159171166272881),
        ("rgg:n=1000,seed=1", 6276, 11299582768033357075),
        ("delaunay:n=1000,seed=1", 5958, 2788371598341239285),
        ("grid:w=30,h=30,seed=1", 2624, 757102102217669999),
    ];
    assert_eq!(got, expected);
}

#[test]
fn rmat_sizes_and_skew() {
    let g = gen("rmat:scale=12,ef=16,seed=1");
    assert_eq!(g.num_nodes(), 4096);
    let sampled = 16 * 4096;
    let m = undirected_edges(&g);
    // Graph500 parameters at this scale lose a good share of samples to duplicates, but not most of them.
    assert!(m > sampled / 2 && m <= sampled, "{m} edges from {sampled} samples");
    let (dmax, hub) = max_degree(&g);
    assert!(dmax as u64 > 20 * (2 * m / 4096), "max degree {dmax} is not skewed");
    assert_ne!(hub, 0, "the permutation should move the hub away from node 0");

    // The Erdős–Rényi-like preset has no hubs.
    let er = gen("rmat:scale=12,ef=16,preset=rmat-er,seed=1");
    let m = undirected_edges(&er);
    assert!(m > sampled * 95 / 100, "{m}");
    assert!(max_degree(&er).0 < 4 * 32, "{}", max_degree(&er).0);
}

#[test]
fn er_sizes() {
    let g = gen("er:n=20000,deg=8,seed=2");
    assert_eq!(g.num_nodes(), 20000);
    let m = undirected_edges(&g);
    assert!((79_900..=80_000).contains(&m), "{m}");
    assert!(max_degree(&g).0 < 40);
    // scale= is n = 2^scale.
    assert_eq!(gen("er:scale=10,deg=2").num_nodes(), 1024);
}

#[test]
fn rgg_edges_are_exactly_the_close_pairs() {
    let p = RggParams { n: 2500, radius: None, seed: 5 };
    let (points, edges) = rgg_points_and_edges(&p);
    let r = default_radius(2500);
    let g = edges.into_csr(BuildOptions { symmetrize: true, drop_self_loops: true, dedupe: true });
    let dist = |u: u32, v: u32| {
        let (a, b) = (points[u as usize], points[v as usize]);
        ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt()
    };
    let mut brute = 0u64;
    for u in 0..2500u32 {
        for v in u + 1..2500 {
            if dist(u, v) < r {
                brute += 1;
            }
        }
    }
    for v in 0..g.num_nodes() {
        for &u in g.neighbors(v) {
            assert!(dist(u, v) < r, "{u}-{v} is {} long, radius {r}", dist(u, v));
        }
    }
    assert_eq!(undirected_edges(&g), brute, "some close pair is missing");
    // Average degree near pi r^2 n (a little less: points near the border have fewer neighbours).
    let avg = g.num_edges() as f64 / 2500.0;
    let ideal = std::f64::consts::PI * r * r * 2500.0;
    assert!(avg > 0.8 * ideal && avg <= ideal * 1.05, "average degree {avg}, ideal {ideal}");
    // Nodes are numbered in cell order, so neighbours have nearby ids.
    let spread: f64 =
        (0..g.num_nodes()).flat_map(|v| g.neighbors(v).iter().map(move |&u| (u as f64 - v as f64).abs())).sum::<f64>()
            / g.num_edges() as f64;
    assert!(spread < 250.0, "mean id distance {spread}");
    let same = generate(&GenSpec { graph: GraphSpec::Rgg(p), weights: Default::default() }).unwrap();
    assert_eq!(same, g);
}

#[test]
fn rgg_with_an_explicit_radius() {
    let g = gen("rgg:n=1000,radius=0.1,seed=1");
    let avg = g.num_edges() as f64 / 1000.0;
    let ideal = std::f64::consts::PI * 0.01 * 1000.0;
    assert!(avg > 0.8 * ideal && avg <= 1.05 * ideal, "{avg} vs {ideal}");
    // A radius above the diagonal connects everything.
    assert_eq!(gen("rgg:n=50,radius=2,seed=1").num_edges(), 50 * 49);
}

#[test]
fn delaunay_is_a_planar_triangulation() {
    let n = 5000u64;
    let g = gen("delaunay:n=5000,seed=7");
    let m = undirected_edges(&g);
    // A triangulation of n points with h on the hull has 3n - 3 - h edges; h is small for random points.
    assert!(m <= 3 * n - 6, "{m} edges is not planar");
    assert!(m >= 3 * n - 3 - 100, "{m} edges is too few for a triangulation");
    assert!((0..g.num_nodes()).all(|v| g.degree(v) >= 2));
    let (points, _) = delaunay_points_and_edges(&DelaunayParams { n: 5000, seed: 7 });
    assert_eq!(points.len(), 5000);
    // Degenerate inputs give their Delaunay graph (two points: one edge, both directions), not panics.
    assert_eq!(gen("delaunay:n=2").num_edges(), 2);
    assert_eq!(gen("delaunay:n=3").num_edges(), 6);
}

#[test]
fn grid_degrees_and_drop_rate() {
    let (w, h) = (100u32, 80u32);
    let full = gen("grid:w=100,h=80,drop=0");
    let full_edges = (2 * w * h - w - h) as u64;
    assert_eq!(undirected_edges(&full), full_edges);
    let g = gen("grid:w=100,h=80,seed=3");
    for v in 0..g.num_nodes() {
        assert!(g.degree(v) <= 4);
        for &u in g.neighbors(v) {
            let d = u.abs_diff(v);
            assert!(d == 1 && u / w == v / w || d == w, "{v}-{u} are not grid neighbours");
        }
    }
    let kept = undirected_edges(&g) as f64 / full_edges as f64;
    assert!((0.72..0.78).contains(&kept), "kept {kept} of the edges, expected about 0.75");
    assert_eq!(gen("grid:w=10,h=10,drop=1").num_edges(), 0);
}

#[test]
fn weights_are_in_range_on_every_generator() {
    for spec in ["rmat:scale=9,seed=2", "er:n=500,deg=4", "rgg:n=500", "delaunay:n=500", "grid:w=20,h=20"] {
        let g = gen(&format!("{spec},weights=int:-3:7"));
        let Some(Weights::Int(w)) = &g.weights else { panic!("{spec}: no int weights") };
        assert!(w.iter().all(|x| (-3..=7).contains(x)), "{spec}");
        assert!((-3..=7).all(|x| w.contains(&x)), "{spec}: some value never drawn");
        let g = gen(&format!("{spec},weights=float:0.5:2"));
        let Some(Weights::Float(w)) = &g.weights else { panic!("{spec}: no float weights") };
        assert!(w.iter().all(|x| (0.5..2.0).contains(x)), "{spec}");
        assert_eq!(gen(spec).weights, None);
    }
}

#[test]
fn tiny_inputs_give_tiny_graphs() {
    for (spec, nodes) in [
        ("rmat:scale=1,ef=4", 2),
        ("er:n=1,deg=4", 1),
        ("rgg:n=1", 1),
        ("delaunay:n=1", 1),
        ("grid:w=1,h=1", 1),
        ("grid:w=5,h=1,drop=0", 5),
    ] {
        assert_eq!(gen(spec).num_nodes(), nodes, "{spec}");
    }
    assert_eq!(gen("grid:w=1,h=1").num_edges(), 0);
    assert_eq!(undirected_edges(&gen("grid:w=5,h=1,drop=0")), 4);
}

#[test]
fn delaunay_of_two_points_is_one_edge_and_of_one_point_none() {
    let (_, two) = delaunay_points_and_edges(&DelaunayParams { n: 2, seed: 1 });
    assert_eq!(two.src.len(), 1, "two points make one edge");
    assert_ne!(two.src[0], two.dst[0]);
    let (_, one) = delaunay_points_and_edges(&DelaunayParams { n: 1, seed: 1 });
    assert!(one.src.is_empty());
}
