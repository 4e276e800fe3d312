//! Every graph in the shared data set loads with the node and edge counts its README documents.
//!
//! Stored edge counts follow from the format: undirected formats (PACE, symmetric MatrixMarket, METIS) store both
//! directions of every edge, so twice the documented edge count when there are no self loops; directed arc lists
//! store what they list (email-Enron lists both directions itself: 2 x 183,831 lines).

use std::collections::VecDeque;
use std::io::Read;
use std::path::{Path, PathBuf};

use irgc_graph::{load_graph, Csr, LoadOptions, NodeLabels, Weights};

fn data_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data");
    assert!(
        dir.join("README.md").is_file(),
        "the shared test graphs are missing: expected them in {} (the project's shared/data folder beside the \
         repository)",
        dir.display()
    );
    dir
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Labels {
    Offset(u64),
    Explicit,
}

struct Expect {
    file: &'static str,
    nodes: u32,
    stored_edges: u64,
    weighted: bool,
    labels: Labels,
}

const fn ex(file: &'static str, nodes: u32, stored_edges: u64, weighted: bool, labels: Labels) -> Expect {
    Expect { file, nodes, stored_edges, weighted, labels }
}

fn load(file: &str) -> Csr {
    let path = data_dir().join(file);
    let mut last = (0, 0);
    let g = load_graph(&path, &LoadOptions::default(), &mut |done, total| {
        assert!(done >= last.0 && done <= total, "progress went from {last:?} to ({done}, {total})");
        last = (done, total);
    })
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(last.0, last.1, "{file}: progress must end at the total");
    g.check_invariants().unwrap_or_else(|e| panic!("{file}: {e}"));
    g
}

fn check(e: &Expect) -> Csr {
    let g = load(e.file);
    assert_eq!(g.num_nodes(), e.nodes, "{}: nodes", e.file);
    assert_eq!(g.num_edges(), e.stored_edges, "{}: stored edges", e.file);
    assert_eq!(g.weights.is_some(), e.weighted, "{}: weights", e.file);
    let labels = match g.labels {
        NodeLabels::Offset(b) => Labels::Offset(b),
        NodeLabels::Explicit(_) => Labels::Explicit,
    };
    assert_eq!(labels, e.labels, "{}: labels", e.file);
    g
}

fn self_loops(g: &Csr) -> usize {
    (0..g.num_nodes()).map(|v| g.neighbors(v).iter().filter(|&&d| d == v).count()).sum()
}

#[test]
fn small_graphs_have_the_documented_counts() {
    use Labels::*;
    let expected = [
        ex("road-luxembourg-osm.mtx.xz", 114_599, 2 * 119_666, false, Offset(1)),
        ex("bremen_dist.gr.xz", 40_461, 86_475, true, Offset(0)),
        ex("bremen_time.gr.xz", 40_461, 86_475, true, Offset(0)),
        ex("wiki-Vote.txt.xz", 7_115, 103_689, false, Explicit),
        ex("email-Enron.txt.xz", 36_692, 2 * 183_831, false, Offset(0)),
        ex("astro-ph.graph.xz", 16_706, 2 * 121_251, false, Offset(1)),
        ex("delaunay_n15.graph.xz", 32_768, 2 * 98_274, false, Offset(1)),
        ex("rgg_n_2_15_s0.graph.xz", 32_768, 2 * 160_240, false, Offset(1)),
        ex("wing.graph.xz", 62_032, 2 * 121_544, false, Offset(1)),
        ex("copter2.graph.xz", 55_476, 2 * 352_238, false, Offset(1)),
        ex("p2p-31.e.xz", 62_586, 147_892, true, Explicit),
        ex("p2p-31.v.xz", 62_586, 147_892, true, Explicit),
    ];
    for e in &expected {
        let g = check(e);
        match e.file {
            "bremen_dist.gr.xz" | "bremen_time.gr.xz" => assert_eq!(self_loops(&g), 305, "{}", e.file),
            "p2p-31.e.xz" => {
                let Some(Weights::Int(w)) = &g.weights else { panic!("p2p-31 has integer weights") };
                assert!(w.iter().all(|&x| (1..=100).contains(&x)), "p2p-31 weights are 1..100");
            }
            _ => {}
        }
    }
}

/// The large graphs share one test so the debug-mode run stays short when tests run in parallel.
#[test]
fn large_graphs_have_the_documented_counts() {
    use Labels::*;
    let expected = [
        ex("FLA.gr.xz", 1_070_376, 2 * 1_343_951, false, Offset(1)),
        ex("NY.gr.xz", 264_346, 2 * 365_050, false, Offset(1)),
        ex("BAY.gr.xz", 321_270, 2 * 397_415, false, Offset(1)),
        ex("uk-2007-05@100000.arcs.tsv.xz", 100_000, 3_050_615, false, Offset(0)),
    ];
    for e in &expected {
        let g = check(e);
        if e.file.starts_with("uk-") {
            assert_eq!(self_loops(&g), 15_670);
            let mut indeg = vec![0u32; g.num_nodes() as usize];
            g.col.iter().for_each(|&d| indeg[d as usize] += 1);
            assert_eq!(indeg.iter().max(), Some(&55_252));
        }
    }
}

/// Breadth-first depths from the vertex written as 6, over the undirected view, match the LDBC reference: this
/// checks the `.v`/`.e` pairing and the label mapping, not just the counts.
#[test]
fn p2p_bfs_matches_the_reference() {
    let g = load("p2p-31.e.xz");
    let NodeLabels::Explicit(ids) = &g.labels else { panic!("LDBC graphs keep explicit labels") };
    let n = g.num_nodes() as usize;
    let mut adj: Vec<Vec<u32>> = vec![Vec::new(); n];
    for (u, v) in g.sources().into_iter().zip(g.col.iter().copied()) {
        adj[u as usize].push(v);
        adj[v as usize].push(u);
    }
    let source = ids.iter().position(|&id| id == 6).unwrap();
    let mut depth = vec![i64::MAX; n];
    depth[source] = 0;
    let mut queue = VecDeque::from([source]);
    while let Some(u) = queue.pop_front() {
        for &v in &adj[u] {
            if depth[v as usize] == i64::MAX {
                depth[v as usize] = depth[u] + 1;
                queue.push_back(v as usize);
            }
        }
    }
    let mut text = String::new();
    let file = std::fs::File::open(data_dir().join("p2p-31-BFS.xz")).unwrap();
    xz2::read::XzDecoder::new(file).read_to_string(&mut text).unwrap();
    let by_label: std::collections::HashMap<u64, usize> = ids.iter().enumerate().map(|(i, &id)| (id, i)).collect();
    let mut checked = 0;
    for line in text.lines() {
        let mut f = line.split_whitespace();
        let id: u64 = f.next().unwrap().parse().unwrap();
        let d: i64 = f.next().unwrap().parse().unwrap();
        assert_eq!(depth[by_label[&id]], d, "BFS depth of vertex {id}");
        checked += 1;
    }
    assert_eq!(checked, n);
}
