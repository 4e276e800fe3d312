//! The GAP benchmark kernels irgc had lacked (PageRank, triangle counting, betweenness centrality), end to end on
//! the CPU backend: each verifies against its independent reference on real and generated graphs, and a
//! deliberately wrong variant of each (the program edited in a temporary file) is caught by the check.

mod common;

use common::*;

const PAGERANK: &str = "programs/pagerank/pagerank.irg";
const PAGERANK_PULL: &str = "programs/pagerank/pagerank_pull.irg";
const PAGERANK_PULL_F32: &str = "programs/pagerank/pagerank_pull_f32.irg";
const TC: &str = "programs/tc/tc.irg";
const TC_PER_NODE: &str = "programs/tc/tc_per_node.irg";
const BC: &str = "programs/bc/bc.irg";

#[test]
fn every_gap_program_verifies_on_small_real_graphs() {
    // wiki-Vote and p2p-31 are directed (PageRank and BC follow their arcs, TC symmetrizes them), the others
    // undirected; p2p-31's weights are ignored.
    for graph in ["wiki-Vote.txt.xz", "p2p-31.e.xz", "astro-ph.graph.xz", "delaunay_n15.graph.xz", "email-Enron.txt.xz"]
    {
        let g = &data(graph);
        for p in [PAGERANK, TC, TC_PER_NODE, BC] {
            run_verified(p, g, &[]);
        }
    }
    run_verified(BC, &data("p2p-31.e.xz"), &["--param", "source=6"]);
    // The pull form is for undirected graphs: a directed one is symmetrized first, with a note, and the ranks are
    // checked against the PageRank of the graph it ran on.
    for graph in ["astro-ph.graph.xz", "delaunay_n15.graph.xz", "email-Enron.txt.xz"] {
        run_verified(PAGERANK_PULL, &data(graph), &[]);
        run_verified(PAGERANK_PULL_F32, &data(graph), &[]);
    }
    let out = run_verified(PAGERANK_PULL, &data("wiki-Vote.txt.xz"), &[]);
    assert!(out.contains("graph     symmetrized: the program needs an undirected graph"), "{out}");
}

#[test]
fn every_gap_program_verifies_on_generated_graphs() {
    for graph in [
        "gen:rmat:scale=12,ef=16,seed=7",
        "gen:rmat:scale=11,ef=4,preset=rmat-g,seed=3",
        "gen:er:scale=12,deg=8,seed=2",
        "gen:rgg:scale=12,seed=5",
        "gen:grid:w=64,h=64,drop=0.25,seed=6",
    ] {
        run_verified(PAGERANK, graph, &[]);
        run_verified(PAGERANK_PULL, graph, &[]);
        run_verified(PAGERANK_PULL_F32, graph, &[]);
        run_verified(TC, graph, &[]);
        // Node 0 is in the large component of each (else the check would hold trivially).
        let out = run_verified(BC, graph, &[]);
        let reached: u32 = out.split("reached ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap();
        assert!(reached > 1000, "{graph}: {out}");
    }
}

#[test]
fn a_road_network_verifies() {
    // Thousands of BFS levels for BC; few triangles; PageRank on a sparse, high-diameter graph.
    let g = &data("road-luxembourg-osm.mtx.xz");
    for p in [PAGERANK, PAGERANK_PULL, PAGERANK_PULL_F32, TC, TC_PER_NODE, BC] {
        run_verified(p, g, &[]);
    }
}

#[test]
fn triangle_totals_match_the_published_count_and_the_check() {
    // SNAP's page for email-Enron lists 727,044 triangles.
    for p in [TC, TC_PER_NODE] {
        let out = run_verified(p, &data("email-Enron.txt.xz"), &[]);
        assert_eq!(printed(&out, "triangles"), "727044", "{out}");
        assert!(out.contains(": 727044 triangles, at most"), "{out}");
    }
    // A directed input is symmetrized first, and the count is the same as on its undirected form.
    let out = run_verified(TC, &data("wiki-Vote.txt.xz"), &[]);
    assert!(out.contains("graph     symmetrized"), "{out}");
    let symmetric = run_verified(TC, &data("wiki-Vote.txt.xz"), &["--symmetrize"]);
    assert_eq!(printed(&out, "triangles"), printed(&symmetric, "triangles"));
}

#[test]
fn triangles_ordered_by_degree_or_by_id_agree() {
    // GAP's rule picks the order: by degree on a skewed graph with an average degree of at least 20, by id on
    // the rest; either may be forced, and both count the same triangles.
    for (graph, skewed) in [
        ("gen:rmat:scale=12,ef=16,seed=7", true),
        ("gen:er:scale=12,deg=24,seed=2", false),
        (&data("email-Enron.txt.xz") as &str, false),
        (&data("wiki-Vote.txt.xz"), true),
        (&data("road-luxembourg-osm.mtx.xz"), false),
    ] {
        for p in [TC, TC_PER_NODE] {
            let auto = run_verified(p, graph, &[]);
            assert_eq!(printed(&auto, "by_degree"), skewed.to_string(), "{p} {graph}: {auto}");
            for order in ["order=1", "order=2"] {
                let forced = run_verified(p, graph, &["--param", order]);
                assert_eq!(printed(&forced, "triangles"), printed(&auto, "triangles"), "{p} {graph} {order}");
            }
        }
    }
    // On the CPU a skewed graph is numbered by decreasing degree (`degree_ordered`), where the order by id is an
    // order by degree: `tc` then counts by id, without `orient`; a graph the runtime leaves as it is, with the order
    // by degree forced, still takes `orient` and `count`.
    let launched = |graph: &str, extra: &[&str]| {
        let out = run_verified(TC, graph, &[&["--stats"], extra].concat());
        ["degree_rises", "orient", "count", "count_by_id"].map(|k| launched_kernel(&out, k))
    };
    assert_eq!(launched("gen:rmat:scale=12,ef=16,seed=7", &[]), [true, false, false, true]);
    assert_eq!(launched("gen:er:scale=12,deg=24,seed=2", &["--param", "order=1"]), [true, true, true, false]);
    // K6 (20 triangles) with a duplicated edge and two self loops, kept by the edge-list loader: the programs
    // declare a simple graph, so the run drops them first and says so.
    let path = temp("k6-dup.el");
    let mut text: String =
        (0..6).flat_map(|a| (0..6).filter(move |&b| b != a).map(move |b| format!("{a} {b}\n"))).collect();
    text.push_str("0 1\n1 0\n2 2\n3 3\n");
    std::fs::write(&path, text).unwrap();
    for p in [TC, TC_PER_NODE] {
        for order in ["order=1", "order=2"] {
            let out = run_verified(p, path.to_str().unwrap(), &["--param", order]);
            assert_eq!(printed(&out, "triangles"), "20", "{p} {order}: {out}");
            assert!(out.contains("graph     made simple: the program needs a simple graph"), "{out}");
            assert!(out.contains("(34 -> 30 edges)"), "{out}");
        }
        // Without `simple` the loops would count the repeated edge's triangles twice: the declaration is needed.
        let err = caught(p, "undirected, simple", "undirected", path.to_str().unwrap(), &[]);
        assert!(err.contains("expected"), "{err}");
    }
    std::fs::remove_file(&path).ok();
}

#[test]
fn a_degree_ordered_program_gives_its_outputs_per_input_node() {
    // Each node's degree and its first neighbour (a node value), computed on the graph numbered by degree, must
    // read exactly as computed on the input's numbering: the outputs are mapped back, node values included.
    let plain = "graph G;\nnode deg: u32 = 0;\nnode first: node = inf;\noutput deg, first;\n\
        kernel k() {\n    forall v in G.nodes {\n        deg[v] = G.degree(v);\n        \
        if G.degree(v) > 0 {\n            first[v] = G.dst(G.first_edge(v));\n        }\n    }\n}\n\
        plan {\n    k();\n}\n";
    let mut outs = Vec::new();
    for (name, source) in
        [("plain", plain.to_string()), ("ordered", plain.replace("graph G;", "graph G(degree_ordered);"))]
    {
        let program = temp(&format!("{name}.irg"));
        std::fs::write(&program, source).unwrap();
        let out = temp(&format!("{name}.out"));
        let o = irgc(&[
            "run",
            program.to_str().unwrap(),
            "--graph",
            "gen:rmat:scale=12,ef=16,seed=7",
            "--out",
            out.to_str().unwrap(),
        ]);
        let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
        assert!(o.status.success(), "{name}: {stdout}{}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(stdout.contains("numbered by degree"), name == "ordered", "{stdout}");
        outs.push(std::fs::read_to_string(&out).unwrap());
        std::fs::remove_file(&program).ok();
        std::fs::remove_file(&out).ok();
    }
    assert!(outs[0].lines().count() > 4000, "one line per node");
    // The first neighbour is the smallest input id in the plain run; on the renumbered graph it is the neighbour
    // of highest degree. Degrees must match line for line; the first neighbours must be neighbours.
    for (a, b) in outs[0].lines().zip(outs[1].lines()) {
        let (a, b): (Vec<&str>, Vec<&str>) = (a.split_whitespace().collect(), b.split_whitespace().collect());
        assert_eq!(a[..2], b[..2], "node id and degree");
        assert_eq!(a[2] == "inf", b[2] == "inf", "{a:?} {b:?}");
    }
    assert_ne!(outs[0], outs[1], "the first neighbours differ: the program saw another numbering");
}

#[test]
fn pagerank_stops_at_its_tolerance() {
    let g = &data("astro-ph.graph.xz");
    let loose: u32 = printed(&run_verified(PAGERANK, g, &[]), "iters").parse().unwrap();
    let tight: u32 = printed(&run_verified(PAGERANK, g, &["--param", "tolerance=1e-9"]), "iters").parse().unwrap();
    assert!(loose > 5 && tight > loose + 20, "{loose} rounds at 1e-4, {tight} at 1e-9");
}

#[test]
fn wrong_pagerank_is_caught() {
    let g = &data("wiki-Vote.txt.xz");
    // A damping factor other than the declared one.
    let err = caught(PAGERANK, "damping * incoming[v]", "0.8 * incoming[v]", g, &[]);
    assert!(err.contains("PageRank L1 distance from the fixed point: expected at most"), "{err}");
    // Stopped by the round cap before converging.
    caught(PAGERANK, "", "", g, &["--param", "max_iters=3"]);
    // Every rank off by a little: 1e-5 at each of 7,115 nodes is 0.07 in L1.
    caught(PAGERANK, "let r = base + damping", "let r = 0.00001 + base + damping", g, &[]);

    // The pull form: shares not divided by the degree, and a share read from the node itself.
    let g = &data("astro-ph.graph.xz");
    caught(PAGERANK_PULL, "rank[u] / (d as f64)", "rank[u]", g, &[]);
    caught(PAGERANK_PULL, "sum += share[G.dst(e)];", "sum += share[v];", g, &[]);
    // The single-precision form: a damping factor applied twice, and the check's f32 allowance not a blank cheque.
    caught(PAGERANK_PULL_F32, "base + damping * sum", "base + damping * damping * sum", g, &[]);
    caught(PAGERANK_PULL_F32, "rank[u] / (d as f32)", "rank[u] / (d as f32) * 1.001", g, &[]);
}

#[test]
fn pulled_and_pushed_pagerank_agree_and_the_pull_is_the_same_every_run() {
    // Both stop at the same tolerance, so they take the same number of rounds on the same graph; the pull adds in
    // a fixed order, so its output is identical from run to run (the push's float atomics are not).
    let g = "gen:rmat:scale=12,ef=16,seed=7";
    let push = run_verified(PAGERANK, g, &[]);
    let pull = run_verified(PAGERANK_PULL, g, &["--threads", "2"]);
    assert_eq!(printed(&push, "iters"), printed(&pull, "iters"));
    let digest = |out: &str| out.lines().find(|l| l.starts_with("digest")).unwrap().to_string();
    let again = run_verified(PAGERANK_PULL, g, &["--threads", "2"]);
    assert_eq!(digest(&pull), digest(&again));
}

#[test]
fn wrong_triangle_counts_are_caught() {
    let g = &data("astro-ph.graph.xz");
    let by_degree = ["--param", "order=1"];
    // Without the order (every neighbour in `up`), each triangle is found from every corner.
    let err = caught(TC_PER_NODE, "if below(u, v) {", "if v != u {", g, &by_degree);
    assert!(err.contains("triangle count of node"), "{err}");
    let err = caught(TC, "if below(u, v) {", "if v != u {", g, &by_degree);
    assert!(err.contains("triangles in the graph: expected"), "{err}");
    // Forgetting the lowest corner.
    caught(TC_PER_NODE, "atomic_add(tri[u], mine);", "", g, &by_degree);
    // Ordered by id: forgetting the middle or the third corner, and a match taken for any neighbour at or past `w`.
    let middle = "atomic_add(tri[w], 1u64);\n                }\n            }\n            if found > 0 {\n";
    caught(TC_PER_NODE, &format!("{middle}                atomic_add(tri[v], found);"), middle, g, &[]);
    caught(TC_PER_NODE, "atomic_add(tri[w], 1u64);", "", g, &[]);
    caught(TC_PER_NODE, "if x == w {", "if x >= w {", g, &[]);
    caught(TC, "select(x == w,", "select(x >= w,", g, &[]);
    // The total not stored.
    caught(TC, "total[0] = triangles;", "", g, &[]);
}

#[test]
fn wrong_betweenness_is_caught() {
    // A grid: many shortest paths of equal length.
    let g = "gen:grid:w=32,h=32,seed=1";
    // Brandes's 1 + δ[w] without the 1.
    let err = caught(BC, "(1.0 + bc[w])", "bc[w]", g, &[]);
    assert!(err.contains("betweenness dependency of node"), "{err}");
    // Path counts not summed (every node gets one path).
    caught(BC, "atomic_add(sigma[w], su);", "sigma[w] = su;", g, &[]);
}

#[test]
fn the_gap_programs_compile_to_ptx() {
    for p in [PAGERANK, PAGERANK_PULL, PAGERANK_PULL_F32, TC, TC_PER_NODE, BC] {
        let o = irgc(&["compile", p, "--emit", "ptx"]);
        assert!(o.status.success(), "{p}: {}", String::from_utf8_lossy(&o.stderr));
        assert!(String::from_utf8_lossy(&o.stdout).contains(".entry"), "{p}");
    }
}
