//! End to end on the CPU backend: every shipped program, run by the `irgc` binary on real and generated graphs,
//! must pass `--verify` (an independent sequential reference), and the p2p-31 results must equal the exact
//! reference answers shipped with the data.

mod common;

use common::*;
use std::collections::HashMap;

const PROGRAMS: &[&str] = &[
    "programs/bfs/bfs_worklist.irg",
    "programs/bfs/bfs_topology.irg",
    "programs/cc/rem.irg",
    "programs/cc/shiloach_vishkin.irg",
    "programs/sssp/sssp_worklist.irg",
    "programs/coloring/ipgc_hybrid.irg",
    "programs/matching/suitor.irg",
    "programs/louvain/louvain_local.irg",
    "programs/louvain/louvain.irg",
];

#[test]
fn every_program_verifies_on_small_real_graphs() {
    for graph in ["astro-ph.graph.xz", "delaunay_n15.graph.xz", "wiki-Vote.txt.xz", "bremen_dist.gr.xz", "p2p-31.e.xz"]
    {
        let g = &data(graph);
        for p in PROGRAMS {
            run_verified(p, g, &["--symmetrize", "--weights", "random:1:255"]);
        }
    }
}

#[test]
fn every_program_verifies_on_generated_graphs() {
    for graph in [
        "gen:rmat:scale=12,ef=8,seed=7",
        "gen:rmat:scale=11,ef=4,preset=rmat-g,seed=3",
        "gen:er:scale=12,deg=8,seed=2",
        "gen:rgg:scale=12,seed=5",
        "gen:delaunay:scale=11,seed=4",
        "gen:grid:w=64,h=64,seed=6",
    ] {
        for p in PROGRAMS {
            run_verified(p, graph, &["--weights", "random:1:255"]);
        }
    }
}

#[test]
fn bfs_and_connected_components_verify_on_every_shared_graph() {
    let graphs = SHARED_GRAPHS;
    for graph in graphs {
        let g = &data(graph);
        // BFS from a node that exists in the file (ids are as written: 1-based formats have no node 0).
        let first = match graph {
            "wiki-Vote.txt.xz" => "30",
            "email-Enron.txt.xz" | "uk-2007-05@100000.arcs.tsv.xz" | "bremen_dist.gr.xz" | "bremen_time.gr.xz" => "0",
            _ => "1",
        };
        run_verified("programs/bfs/bfs_worklist.irg", g, &["--param", &format!("source={first}")]);
        let cc = run_verified("programs/cc/rem.irg", g, &["--symmetrize"]);
        assert!(cc.contains("components"), "{cc}");
    }
}

#[test]
fn multi_level_louvain_verifies_on_every_shared_graph() {
    for graph in SHARED_GRAPHS {
        let out = run_verified("programs/louvain/louvain.irg", &data(graph), &[]);
        assert!(out.contains("modularity"), "{out}");
    }
}

#[test]
fn blocked_floyd_warshall_matches_dijkstra_from_every_node() {
    run_verified("programs/apsp/fw_blocked.irg", "gen:er:n=150,deg=6,seed=9", &["--weights", "random:1:255"]);
}

#[test]
fn p2p31_results_equal_the_exact_reference_answers() {
    let bfs = p2p31_result("programs/bfs/bfs_worklist.irg", &["--symmetrize"]);
    assert_same("BFS", &bfs, &reference("p2p-31-BFS.xz"));
    let sssp = p2p31_result("programs/sssp/sssp_worklist.irg", &["--symmetrize"]);
    assert_same("SSSP (undirected)", &sssp, &reference("p2p-31-SSSP.xz"));
    let directed = p2p31_result("programs/sssp/sssp_worklist.irg", &[]);
    assert_same("SSSP (directed)", &directed, &reference("p2p-31-SSSP-directed.xz"));
    // Components: the same partition (labels are arbitrary).
    let out = std::env::temp_dir().join(format!("irgc-p2p31-wcc-{}.out", std::process::id()));
    let g = data("p2p-31.e.xz");
    run_verified("programs/cc/rem.irg", &g, &["--symmetrize", "--out", out.to_str().unwrap()]);
    let text = std::fs::read_to_string(&out).unwrap();
    std::fs::remove_file(&out).ok();
    let got: HashMap<&str, &str> = text.lines().filter_map(|l| l.split_once(' ')).collect();
    let want = reference("p2p-31-WCC.xz");
    let (mut fwd, mut back) = (HashMap::new(), HashMap::new());
    for (v, w) in &want {
        let g = got[v.as_str()];
        assert_eq!(*fwd.entry(w.as_str()).or_insert(g), g, "WCC: vertex {v} is in the wrong component");
        assert_eq!(*back.entry(g).or_insert(w.as_str()), w.as_str(), "WCC: vertex {v} joins two components");
    }
}

#[test]
fn run_errors_are_clear() {
    let fla = data("FLA.gr.xz");
    let out = irgc(&["run", "programs/bfs/bfs_worklist.irg", "--graph", &fla, "--param", "source=0"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no node 0") && err.contains("source=#0"), "{err}");
    // `#i` names a node by its position, whatever the file calls it: here the node written as 1.
    let astro = data("astro-ph.graph.xz");
    let by_position = run_verified("programs/bfs/bfs_worklist.irg", &astro, &["--param", "source=#0"]);
    assert!(by_position.contains("from node 1"), "{by_position}");
    let out = irgc(&["run", "programs/bfs/bfs_worklist.irg", "--graph", "/nonexistent/g.mtx"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/g.mtx"));
    let out = irgc(&["run", "programs/bfs/bfs_worklist.irg", "--graph", "gen:rmat:scale=4", "--param", "nope=1"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nope"));
    let out = irgc(&["run", "programs/sssp/sssp_worklist.irg", "--graph", "gen:grid:w=4,h=4"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("weights"), "{}", String::from_utf8_lossy(&out.stderr));
}
