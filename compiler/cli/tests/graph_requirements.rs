//! A program declares what it needs of its graph (`graph G(undirected, weight: T = D)`); the runtime fits the
//! graph to it and says so, instead of answering wrongly on a directed graph or refusing an unweighted one.

mod common;

use common::{irgc, temp};

/// A directed path 1 -> 2 -> 3 and an edge 4 -> 3: weakly one component, but no node reaches every other.
fn directed_graph() -> std::path::PathBuf {
    let path = temp("directed.txt");
    std::fs::write(&path, "1 2\n2 3\n4 3\n").unwrap();
    path
}

#[test]
fn an_undirected_program_symmetrizes_a_directed_graph_and_says_so() {
    let g = directed_graph();
    for program in ["programs/bfs/bfs_do.irg", "programs/cc/afforest.irg", "programs/coloring/ipgc_hybrid.irg"] {
        let o = irgc(&["run", program, "--graph", g.to_str().unwrap(), "--no-cache", "--verify"]);
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(o.status.success(), "{program}: {out}\n{}", String::from_utf8_lossy(&o.stderr));
        assert!(out.contains("graph     symmetrized: the program needs an undirected graph and"), "{program}: {out}");
        assert!(out.contains("is directed (1 -> 2 has no reverse)"), "{program}: {out}");
        assert!(out.contains("(3 -> 6 edges)"), "{program}: {out}");
    }
    // bfs_do from node 1 reaches node 4 only through the reverse of 4 -> 3.
    let out = temp("levels.csv");
    let o = irgc(&[
        "run",
        "programs/bfs/bfs_do.irg",
        "--graph",
        g.to_str().unwrap(),
        "--param",
        "source=1",
        "--no-cache",
        "--out",
        out.to_str().unwrap(),
        "--json",
    ]);
    assert!(o.status.success());
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(v["graph"]["adjusted"][0].as_str().unwrap().starts_with("symmetrized"));
    assert!(std::fs::read_to_string(&out).unwrap().contains("4,3\n"));
    // A program that needs no symmetry runs on the graph as given.
    let o = irgc(&["run", "programs/bfs/bfs_worklist.irg", "--graph", g.to_str().unwrap(), "--no-cache"]);
    assert!(!String::from_utf8_lossy(&o.stdout).contains("symmetrized"));
}

#[test]
fn a_default_weight_stands_in_for_missing_weights() {
    let g = directed_graph();
    let o =
        irgc(&["run", "programs/louvain/louvain_local.irg", "--graph", g.to_str().unwrap(), "--no-cache", "--verify"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{out}{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.contains("every edge weighs 1, the program's default"), "{out}");
    // Without a default, an unweighted graph is still refused with the fix.
    let o = irgc(&["run", "programs/sssp/sssp_worklist.irg", "--graph", g.to_str().unwrap(), "--no-cache"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("add `--weights random:1:255`"));
}

#[test]
fn graph_properties_are_checked() {
    let program = temp("props.irg");
    std::fs::write(
        &program,
        "graph G(undirected, weight: u32 = 1, directed, weight: f64, undirected: u32);\nplan { }\n",
    )
    .unwrap();
    let o = irgc(&["check", program.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("graphs have no property `directed`"), "{err}");
    assert!(err.contains("`weight` is given twice"), "{err}");
    assert!(err.contains("`undirected` is given twice"), "{err}");
    let program = temp("props2.irg");
    std::fs::write(&program, "graph G(weight: u32 = 1.5);\nplan { }\n").unwrap();
    let o = irgc(&["check", program.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "a default of the wrong type: {}", String::from_utf8_lossy(&o.stderr));
}
