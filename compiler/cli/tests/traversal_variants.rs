//! End to end on the CPU backend: every BFS and SSSP variant (seed 003 and beyond) must pass `--verify` on real and
//! generated graphs, and must reproduce the exact p2p-31 reference answers shipped with the data.

mod common;

use common::*;

/// BFS programs, and whether each needs a symmetric graph.
const BFS: &[(&str, bool)] = &[
    ("programs/bfs/bfs_worklist.irg", false),
    ("programs/bfs/bfs_topology.irg", false),
    ("programs/bfs/bfs_scan.irg", false),
    ("programs/bfs/bfs_do.irg", true),
    ("programs/bfs/bfs_chain.irg", false),
];

const SSSP: &[&str] = &[
    "programs/sssp/sssp_worklist.irg",
    "programs/sssp/sssp_harish.irg",
    "programs/sssp/sssp_atomic.irg",
    "programs/sssp/sssp_nearfar.irg",
    "programs/sssp/sssp_delta.irg",
    "programs/sssp/sssp_chain.irg",
];

const GENERATED: &[&str] = &[
    "gen:rmat:scale=12,ef=8,seed=7",
    "gen:er:scale=12,deg=16,seed=2",
    "gen:rgg:scale=12,seed=5",
    "gen:grid:w=64,h=64,seed=6",
];

/// Runs a BFS program on `graph` (symmetrised when the program needs it) with the extra arguments.
fn run_bfs(program: &str, symmetric_only: bool, graph: &str, extra: &[&str]) {
    let mut args = extra.to_vec();
    if symmetric_only && !args.contains(&"--symmetrize") {
        args.push("--symmetrize");
    }
    run_verified(program, graph, &args);
}

#[test]
fn bfs_variants_verify_on_shared_graphs() {
    // (graph, a node that exists in it, as written in the file)
    for (graph, source) in [
        ("bremen_dist.gr.xz", "0"),
        ("p2p-31.e.xz", "6"),
        ("wiki-Vote.txt.xz", "30"),
        ("delaunay_n15.graph.xz", "1"),
        ("road-luxembourg-osm.mtx.xz", "1"),
    ] {
        let g = data(graph);
        let param = format!("source={source}");
        for &(p, symmetric_only) in BFS {
            run_bfs(p, symmetric_only, &g, &["--param", &param]);
        }
    }
}

#[test]
fn bfs_variants_verify_on_generated_graphs() {
    for graph in GENERATED {
        for &(p, symmetric_only) in BFS {
            run_bfs(p, symmetric_only, graph, &["--weights", "random:1:255"]);
        }
        // Direction-optimizing BFS on both sides of its switch: bottom-up from the first level, and never.
        run_bfs("programs/bfs/bfs_do.irg", true, graph, &["--param", "H=0"]);
        run_bfs("programs/bfs/bfs_do.irg", true, graph, &["--param", "H=2"]);
        // The hub rule as a GPU's thread count sets it (edge-parallel top-down from a frontier holding a hub).
        run_bfs("programs/bfs/bfs_do.irg", true, graph, &["--param", "spread=1000000"]);
    }
}

#[test]
fn bfs_do_weighs_hubs_against_the_devices_threads() {
    // `device_threads()` is the CPU's worker count; on a skewed graph the hub rule then keeps top-down (no node has
    // m / 2 edges), and with a GPU-sized count it expands the hub's level edge-parallel.
    let launched = |extra: &[&str]| {
        let args = [&["--threads", "2", "--stats", "--param", "source=5"], extra].concat();
        let out = run_verified("programs/bfs/bfs_do.irg", "gen:rmat:scale=14,ef=16,seed=3", &args);
        launched_kernel(&out, "top_down_edges")
    };
    assert!(!launched(&[]));
    assert!(launched(&["--param", "spread=1000000"]));
    let out = irgc(&["run", "tests/ui/ok/device_threads.irg", "--graph", "gen:grid:w=8,h=8", "--threads", "3"]);
    assert_eq!(printed(&String::from_utf8_lossy(&out.stdout), "t"), "3", "{out:?}");
}

#[test]
fn sssp_variants_verify_on_weighted_and_generated_graphs() {
    for graph in ["bremen_dist.gr.xz", "bremen_time.gr.xz", "p2p-31.e.xz"] {
        let g = data(graph);
        for p in SSSP {
            run_verified(p, &g, &[]);
        }
    }
    for graph in GENERATED {
        for p in SSSP {
            run_verified(p, graph, &["--weights", "random:1:255"]);
        }
    }
}

/// Runs a delta-stepping program with each window width, verified on bremen (its own weights), on an R-MAT graph
/// and a grid with random weights, and on a grid with weights 0..2 (zero-weight edges and many equal distances: a
/// relaxation that re-queued a node on an equal distance would go round such an edge forever).
fn verify_for_every_delta(program: &str, deltas: &[&str]) {
    for delta in deltas {
        let param = format!("delta={delta}");
        run_verified(program, &data("bremen_time.gr.xz"), &["--param", &param]);
        for (graph, weights) in [
            ("gen:rmat:scale=12,ef=8,seed=7", "random:1:255"),
            ("gen:grid:w=64,h=64,seed=6", "random:1:255"),
            ("gen:grid:w=64,h=64,seed=6", "random:0:2"),
        ] {
            run_verified(program, graph, &["--weights", weights, "--param", &param]);
        }
    }
}

#[test]
fn near_far_verifies_for_every_delta() {
    // delta = 1: one distance per window (Dijkstra-like); 64: a middle width; 100000: one window (Bellman-Ford);
    // 0: the default, from the weights (16 x the largest weight / the mean degree).
    verify_for_every_delta("programs/sssp/sssp_nearfar.irg", &["1", "64", "100000", "0"]);
}

#[test]
fn sliding_window_delta_stepping_verifies_for_every_width() {
    // 1: a window of one distance (each round relaxes the frontier's nearest nodes, carries the rest); 64 and 2048:
    // narrower and wider than the default; 100000: every node in the window (Bellman-Ford); 0: the default, from
    // the weights (10 x the largest weight / the mean degree on the CPU).
    verify_for_every_delta("programs/sssp/sssp_delta.irg", &["1", "64", "2048", "100000", "0"]);
}

#[test]
fn chained_traversals_verify_for_every_chain_length() {
    // 0 and 1: no chain (plain worklist rounds); 2 and 4: short chains; 64: chains far longer than a level, so
    // most nodes are first reached by a path that is not a shortest one and corrected.
    for chain in ["0", "1", "2", "4", "64"] {
        let param = format!("chain={chain}");
        for graph in ["gen:grid:w=64,h=64,seed=6", "gen:rmat:scale=12,ef=8,seed=7"] {
            run_verified("programs/bfs/bfs_chain.irg", graph, &["--param", &param]);
            run_verified("programs/sssp/sssp_chain.irg", graph, &["--weights", "random:1:255", "--param", &param]);
        }
        run_verified("programs/sssp/sssp_chain.irg", &data("bremen_time.gr.xz"), &["--param", &param]);
    }
}

#[test]
fn wrong_chains_are_caught() {
    let grid = "gen:grid:w=64,h=64,seed=6";
    let weighted = ["--weights", "random:1:255"];
    // The chain's next node labelled but never expanded.
    for p in ["programs/bfs/bfs_chain.irg", "programs/sssp/sssp_chain.irg"] {
        caught(p, "            cur = next;\n", "            break;\n", grid, &weighted);
    }
    // A neighbour displaced as the chain's nearest dropped instead of pushed.
    caught("programs/sssp/sssp_chain.irg", "changed.push(next);", "", grid, &weighted);
}

#[test]
fn scan_bfs_with_tiny_tiles_uses_every_scan_level() {
    // With 4-item tiles, p2p-31's frontiers (up to ~30,000 nodes) need up to 8 scan levels, so the multi-level
    // up-sweep and add-back paths run that the 1024-item tiles reach only on frontiers of over a million nodes.
    let source = std::fs::read_to_string(root().join("programs/bfs/bfs_scan.irg")).unwrap();
    let tile = "const T: u32 = 1024;";
    assert!(source.contains(tile), "bfs_scan.irg no longer declares `{tile}`");
    for t in ["2", "4"] {
        let program = temp(&format!("bfs_scan_t{t}.irg"));
        std::fs::write(&program, source.replace(tile, &format!("const T: u32 = {t};"))).unwrap();
        let p = program.to_str().unwrap();
        run_verified(p, &data("p2p-31.e.xz"), &["--symmetrize", "--param", "source=6"]);
        run_verified(p, "gen:rmat:scale=12,ef=8,seed=7", &[]);
        std::fs::remove_file(&program).ok();
    }
}

#[test]
fn p2p31_bfs_variants_equal_the_exact_reference_answers() {
    let want = reference("p2p-31-BFS.xz");
    for &(p, _) in BFS {
        assert_same(&format!("BFS {p}"), &p2p31_result(p, &["--symmetrize"]), &want);
    }
}

#[test]
fn p2p31_sssp_variants_equal_the_exact_reference_answers() {
    let undirected = reference("p2p-31-SSSP.xz");
    let directed = reference("p2p-31-SSSP-directed.xz");
    for p in SSSP {
        assert_same(&format!("SSSP (undirected) {p}"), &p2p31_result(p, &["--symmetrize"]), &undirected);
        assert_same(&format!("SSSP (directed) {p}"), &p2p31_result(p, &[]), &directed);
    }
    for delta in ["1", "100000"] {
        let param = format!("delta={delta}");
        for p in ["programs/sssp/sssp_nearfar.irg", "programs/sssp/sssp_delta.irg"] {
            let got = p2p31_result(p, &["--symmetrize", "--param", &param]);
            assert_same(&format!("SSSP (undirected) {p}, {param}"), &got, &undirected);
        }
    }
}
