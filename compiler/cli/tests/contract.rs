//! `G.contract(label)`: the plan replaces the graph by its quotient under a node array of group labels. The new
//! graph's sizes, degrees and summed weights are seen by the kernels that follow, arrays are re-initialised, and
//! outputs are still written per node of the input file.

mod common;

use common::{irgc, run_verified, temp};

/// Contracts a path 1-2-3-4-5-6 by pairs ({1,2}, {3,4}, {5,6}), then measures the new graph.
const PAIRS: &str = "graph G(undirected, weight: u32 = 1);
node pair: node;
node deg: u32 = 7;
node wsum: u32;
node rep: node;
edge mark: u32 = 5;
array first: u32[2] = 0;
output deg;
output wsum;
output rep;
output first;
kernel pairs() { forall v in G.nodes { pair[v] = ((v as u32) / 2) as node; } }
kernel measure() {
    forall v in G.nodes {
        deg[v] = G.degree(v) * 100 + mark[G.first_edge(v)];
        var s: u32 = 0;
        for e in G.edges(v) { s += G.weight(e); }
        wsum[v] = s;
        rep[v] = v;
    }
}
plan {
    first[0] = 9;
    pairs();
    G.contract(pair);
    first[1] = G.num_nodes;
    measure();
    print(G.num_nodes, G.num_edges);
}
";

fn path_graph() -> std::path::PathBuf {
    let g = temp("path.txt");
    std::fs::write(&g, "1 2\n2 3\n3 4\n4 5\n5 6\n").unwrap();
    g
}

fn run(program: &str, extra: &[&str]) -> (Option<i32>, String, String) {
    let p = temp("contract.irg");
    std::fs::write(&p, program).unwrap();
    let g = path_graph();
    let mut args = vec!["run", p.to_str().unwrap(), "--graph", g.to_str().unwrap(), "--no-cache"];
    args.extend_from_slice(extra);
    let o = irgc(&args);
    (o.status.code(), String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
}

#[test]
fn kernels_after_a_contraction_see_the_quotient_graph_and_outputs_keep_the_input_ids() {
    let (code, out, err) = run(PAIRS, &["--out", "-"]);
    assert_eq!(code, Some(0), "{err}");
    // Each pair is one node: {1,2} has a self loop of weight 2 (the two directions of 1-2) and an edge to {3,4};
    // {3,4} has its loop and two edges. Arrays were re-filled (`mark` = 5 on the new edges; `deg` was 7 before).
    // Node values name a group by its smallest input node; dense arrays keep their own indices.
    let rows: Vec<&str> = out.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(
        rows,
        ["1 205 3 1", "2 205 3 1", "3 305 4 3", "4 305 4 3", "5 205 3 5", "6 205 3 5", "0 9", "1 3"],
        "{out}"
    );
    assert!(err.contains("print     G.num_nodes = 3") && err.contains("print     G.num_edges = 7"), "{err}");
    // The summary names each contraction: the path's 6 nodes and 10 directed edges became 3 nodes and 7 edges.
    assert!(err.contains("contract  6 nodes, 10 edges -> 3 nodes, 7 edges in "), "{err}");
}

#[test]
fn the_ir_shows_the_contraction_and_the_refills_after_it() {
    let p = temp("contract_ir.irg");
    std::fs::write(&p, PAIRS).unwrap();
    let o = irgc(&["compile", p.to_str().unwrap(), "--emit", "ir"]);
    let ir = String::from_utf8_lossy(&o.stdout);
    let at = ir.find("contract G by @pair").expect("the contraction in the IR");
    let after = &ir[at..];
    assert!(after.contains("fill @deg = 7u32") && after.contains("fill @mark = 5u32"), "{ir}");
    assert!(!after.contains("fill @first"), "dense arrays are not re-filled: {ir}");
}

#[test]
fn a_label_that_is_no_node_and_an_edge_output_are_errors() {
    let bad_label = PAIRS.replace("((v as u32) / 2) as node", "((v as u32) + 100) as node");
    let (code, _, err) = run(&bad_label, &[]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("`G.contract(pair)`: node #0's group is 100, which is not a node (the graph has 6)"), "{err}");
    let edge_out = PAIRS.replace("output first;", "output mark;");
    let (code, _, err) = run(&edge_out, &[]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("output `mark` is an edge array, but the plan contracted the graph"), "{err}");
}

#[test]
fn contract_takes_a_node_array_of_nodes_in_the_plan_only() {
    let p = temp("contract_bad.irg");
    std::fs::write(&p, PAIRS.replace("G.contract(pair);", "G.contract(deg);")).unwrap();
    let o = irgc(&["check", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("`G.contract` takes a node array of `node`s"));
    std::fs::write(&p, PAIRS.replace("rep[v] = v;", "rep[v] = v; G.contract(pair);")).unwrap();
    let o = irgc(&["check", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("`G.contract` is only allowed in the plan"));
}

#[test]
fn multi_level_louvain_verifies_on_generated_graphs() {
    for graph in ["gen:rmat:scale=12,ef=8,seed=7", "gen:rgg:scale=12,seed=5", "gen:grid:w=64,h=64,seed=6"] {
        let out = run_verified("programs/louvain/louvain.irg", graph, &[]);
        assert!(out.contains("modularity"), "{out}");
    }
}
