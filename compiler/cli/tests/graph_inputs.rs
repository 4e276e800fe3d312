//! Graph inputs people have, end to end: programs run and verify on a CSV export with a header (in the file's own
//! ids) and on WebGraph ASCII; `irgc info` reports known answers in text and JSON; `irgc gen --help` lists every
//! generator.

mod common;

use common::*;

/// Writes `content` to a fresh temporary file whose name ends in `name` and returns its path.
fn file(name: &str, content: &str) -> String {
    let path = temp(name);
    std::fs::write(&path, content).unwrap();
    path.to_str().unwrap().to_string()
}

fn stdout(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn programs_verify_on_a_csv_table_with_a_header_in_the_files_ids() {
    let csv = file("edges.csv", "from,to,cost\n100,200,3\n200,300,4\n300,100,5\n300,400,1\n");
    // The source is given as the file writes it (100), not as an internal node number.
    let out = run_verified("programs/bfs/bfs_worklist.irg", &csv, &["--param", "source=100"]);
    assert!(out.contains("ok against BFS from node 100") && out.contains("reached 4 nodes, max level 3"), "{out}");
    let out = run_verified("programs/sssp/sssp_worklist.irg", &csv, &["--param", "source=100"]);
    assert!(out.contains("verify"), "{out}");
    let out = run_verified("programs/cc/rem.irg", &csv, &["--symmetrize"]);
    assert!(out.contains("1 components, the largest of 4 nodes"), "{out}");
}

#[test]
fn columns_pick_source_destination_and_weight_by_name_or_index() {
    let csv = file("export.tsv", "id\tkind\tdst\tsrc\tw\n0\tx\t2\t1\t5\n1\tx\t3\t2\t6\n2\ty\t1\t3\t7\n");
    for columns in ["src,dst,w", "3,2,4"] {
        let out = run_verified("programs/sssp/sssp_worklist.irg", &csv, &["--columns", columns, "--param", "source=1"]);
        assert!(out.contains("3 nodes, 3 edges"), "{columns}: {out}");
    }
    let o = irgc(&["info", &csv, "--no-cache", "--columns", "src,dst,w", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("one JSON object");
    assert_eq!(v["weights"], serde_json::json!({ "type": "int", "min": 5, "max": 7 }));
    // A missing column is an error naming the file, the line and the header.
    let o = irgc(&["info", &csv, "--no-cache", "--columns", "from,to"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("export.tsv:1: no column named 'from'; the header's columns are: id, kind, dst, src, w"),
        "{}",
        stderr(&o)
    );
    let o = irgc(&["info", "gen:grid:w=2,h=2", "--columns", "0,1"]);
    assert!(stderr(&o).contains("--columns applies to graph files"), "{}", stderr(&o));
}

#[test]
fn bad_rows_are_reported_with_file_line_and_column() {
    let csv = file("bad.csv", "src,dst\n1,2\n2,three\n");
    let o = irgc(&["run", "programs/bfs/bfs_worklist.irg", "--graph", &csv, "--no-cache"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o)
            .contains("bad.csv:3: column 'dst' (index 1): expected a node id (a non-negative integer), found 'three'"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn programs_verify_on_webgraph_ascii() {
    // 0 -> 1, 2; 1 -> 3; 2 has no successors (empty line); 3 -> 0.
    let g = file("web.graph-txt", "4\n1 2\n3\n\n0\n");
    let out = run_verified("programs/bfs/bfs_worklist.irg", &g, &["--param", "source=0"]);
    assert!(out.contains("4 nodes, 4 edges") && out.contains("reached 4 nodes, max level 2"), "{out}");
    let out = run_verified("programs/cc/afforest.irg", &g, &["--symmetrize"]);
    assert!(out.contains("1 components"), "{out}");
}

/// A directed graph with known answers: the path 0-1-2-3-4 (0 -> 1 twice, a loop at 4) and the separate edge
/// 5 -> 6.
const KNOWN: &str = "src,dst,w\n0,1,2\n1,2,7\n2,3,1\n3,4,5\n5,6,1\n0,1,9\n4,4,3\n";

#[test]
fn info_reports_known_answers_as_text() {
    let g = file("known.csv", KNOWN);
    let o = irgc(&["info", &g, "--no-cache"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.starts_with("graph            ") && text.contains("known.csv (csv)\n"), "{text}");
    for line in [
        "nodes            7",
        "edges            7 directed",
        "direction        directed (some edge has no reverse)",
        "self loops       1",
        "duplicate edges  1",
        "isolated nodes   0",
        "weights          integers, 1 to 9",
        "out-degree       min 0, median 1, max 2, mean 1.00",
        "in-degree        min 0, median 1, max 2, mean 1.00",
        "components       2 (weakly connected); the largest has 5 nodes (71.4%)",
        "diameter         4 in hops, ignoring edge direction (exact: 4 BFS sweeps bound it from both sides)",
        "gpu inner loops  each in its thread (no node has 32 edges)",
        "out-degree histogram (log2 bins):",
    ] {
        assert!(text.contains(&format!("{line}\n")), "missing `{line}` in:\n{text}");
    }
    // One node of out-degree 0, five of 1, one of 2; the longest bar is 40 marks, every non-empty bin gets some.
    for (bin, bar, count) in [("0", 8, 1), ("1", 40, 5), ("2-3", 8, 1)] {
        let line = format!("  {bin:>15} | {:<40} {count}\n", "#".repeat(bar));
        assert!(text.contains(&line), "missing `{line}` in:\n{text}");
    }
}

#[test]
fn info_json_is_one_object_with_the_same_answers() {
    let g = file("known.csv", KNOWN);
    let o = irgc(&["info", &g, "--no-cache", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("one JSON object");
    assert_eq!((v["nodes"].as_u64(), v["edges"].as_u64(), v["symmetric"].as_bool()), (Some(7), Some(7), Some(false)));
    assert_eq!(v["format"], "csv");
    assert_eq!((v["self_loops"].as_u64(), v["duplicate_edges"].as_u64()), (Some(1), Some(1)));
    assert_eq!(v["components"], serde_json::json!({ "count": 2, "largest": 5, "weakly": true }));
    assert_eq!(v["diameter"]["lower_bound"], 4);
    assert_eq!(v["diameter"]["exact"], true);
    assert_eq!(v["out_degree"]["histogram"][2], serde_json::json!({ "min": 2, "max": 3, "count": 1 }));
    // Symmetrized: loops and duplicates go, each of the 5 pairs is stored both ways, and the path is still 4 long.
    let o = irgc(&["info", &g, "--no-cache", "--json", "--symmetrize"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("one JSON object");
    assert_eq!((v["edges"].as_u64(), v["undirected_edges"].as_u64()), (Some(10), Some(5)));
    assert_eq!((v["symmetric"].as_bool(), v["self_loops"].as_u64()), (Some(true), Some(0)));
    assert_eq!(v["in_degree"], serde_json::Value::Null);
    assert_eq!(v["diameter"]["lower_bound"], 4);
}

#[test]
fn info_says_how_the_gpu_runs_inner_loops_on_the_graph() {
    // A star of 40 leaves: its hub has 40 edges, 20 times the mean (about 2). Every node of a 41-clique has 40
    // edges, the mean: wide but even. A path: no node has 32 edges.
    let star: String = (1..=40).map(|v| format!("0,{v}\n")).collect();
    let clique: String =
        (0..41).flat_map(|u| (0..41).filter(move |&v| v != u).map(move |v| format!("{u},{v}\n"))).collect();
    for (name, edges, class) in
        [("star.csv", star, "skewed"), ("clique.csv", clique, "wide"), ("path.csv", "0,1\n1,2\n".into(), "even")]
    {
        let g = file(name, &format!("src,dst\n{edges}"));
        let o = irgc(&["info", &g, "--no-cache", "--json", "--symmetrize"]);
        assert!(o.status.success(), "{}", stderr(&o));
        let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("one JSON object");
        assert_eq!(v["gpu_inner_loops"], class, "{name}");
    }
}

#[test]
fn gen_help_lists_every_generator_with_its_keys() {
    let o = irgc(&["gen", "--help"]);
    assert!(o.status.success());
    let help = stdout(&o);
    for g in irgc_gen::catalog::GENERATORS {
        assert!(help.contains(&format!("\n  {}  {}", g.name, g.summary)), "{} missing:\n{help}", g.name);
        for k in g.keys {
            assert!(help.contains(&format!("    {:<8} ", k.name)), "{}'s key {} missing:\n{help}", g.name, k.name);
        }
    }
}
