//! Per-round statistics people can read (`--stats-out` as CSV or JSON, reduction values included) and the
//! figures drawn from them (`run --plot`, `irgc plot`, `bench --plot`).

mod common;

use common::{irgc, temp};

fn ok(o: &std::process::Output) {
    assert!(o.status.success(), "{}\n{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
}

/// bfs_do on an R-MAT graph: a pipe whose rounds switch between sparse and dense.
const BFS_DO: [&str; 6] =
    ["run", "programs/bfs/bfs_do.irg", "--graph", "gen:rmat:scale=14,ef=16,seed=1", "--symmetrize", "--verify"];

#[test]
fn stats_out_csv_has_a_row_per_launch_with_mode_and_reduced_value() {
    let csv = temp("stats.csv");
    let o = irgc(&[&BFS_DO[..], &["--stats-out", csv.to_str().unwrap()]].concat());
    ok(&o);
    assert!(!String::from_utf8_lossy(&o.stdout).contains("kernel  "), "--stats-out does not print the table");
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("round,kernel,retry,items,pushed,mode,reduced,ms"));
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert!(rows.iter().all(|r| r.len() == 8), "{text}");
    assert!(rows.iter().any(|r| r[5] == "dense") && rows.iter().any(|r| r[5] == "sparse"), "{text}");
    // Every kernel of bfs_do reduces (the labelled nodes' degree sum): the first expansion labels something.
    assert!(rows.iter().any(|r| r[1] == "top_down" && r[6].parse::<f64>().unwrap() > 0.0), "{text}");
}

#[test]
fn stats_out_json_feeds_irgc_plot() {
    let json = temp("stats.json");
    ok(&irgc(&[&BFS_DO[..], &["--stats-out", json.to_str().unwrap()]].concat()));
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert!(v["pipe_rounds"].as_array().is_some_and(|r| !r.is_empty()));
    assert!(v["hybrid"].as_array().is_some_and(|h| h.iter().any(|c| c["mode"] == "dense")));
    let svg = temp("rounds.svg");
    ok(&irgc(&["plot", json.to_str().unwrap(), "-o", svg.to_str().unwrap()]));
    let figure = std::fs::read_to_string(&svg).unwrap();
    assert!(figure.starts_with("<svg") && figure.contains("dense (topology-driven) rounds"), "{figure:.300}");
    // Not statistics: a clear refusal.
    let other = temp("not-stats.json");
    std::fs::write(&other, "{\"a\": 1}").unwrap();
    let o = irgc(&["plot", other.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("holds no run statistics"));
}

#[test]
fn run_plot_draws_the_rounds_and_refuses_other_formats_before_running() {
    let svg = temp("bfs.svg");
    ok(&irgc(&[&BFS_DO[..], &["--plot", svg.to_str().unwrap()]].concat()));
    let figure = std::fs::read_to_string(&svg).unwrap();
    assert!(figure.contains("size of `frontier` per round"), "{figure:.300}");
    let o = irgc(&[&BFS_DO[..], &["--plot", "rounds.png"]].concat());
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("figures are written as SVG"));
}

#[test]
fn bench_plot_draws_a_bar_per_row() {
    let svg = temp("bench.svg");
    let o = irgc(&[
        "bench",
        "programs/cc/rem.irg",
        "programs/bfs/bfs_worklist.irg",
        "--graph",
        "gen:rmat:scale=10,ef=8,seed=1",
        "--symmetrize",
        "--runs",
        "1",
        "--plot",
        svg.to_str().unwrap(),
    ]);
    ok(&o);
    let figure = std::fs::read_to_string(&svg).unwrap();
    assert!(figure.contains("rem @ gen:rmat") && figure.contains("bfs_worklist @ gen:rmat"), "{figure:.400}");
}

/// A BFS that prints each round's frontier and, after the pipe, the depth and a fraction.
const PRINTING_BFS: &str = "graph G;\nparam source: node = 0;\nnode level: u32 = inf;\nworklist frontier;\n\
output level as bfs(source);\n\
kernel expand(depth: u32) -> sum u64 {\n  forall v in frontier {\n    for e in G.edges(v) {\n\
      let w = G.dst(e);\n      if atomic_min(level[w], depth + 1) > depth + 1 { frontier.push(w); reduce 1; }\n\
    }\n  }\n}\n\
plan {\n  level[source] = 0;\n  frontier.push(source);\n  var depth: u32 = 0;\n  var total: u64 = 1;\n\
  pipe frontier {\n    total += expand(depth);\n    print(frontier.size());\n    depth += 1;\n  }\n\
  print(depth,   total as f64 / G.num_nodes as f64);\n}\n";

#[test]
fn plan_prints_show_in_the_summary_and_in_json() {
    let program = temp("printing.irg");
    std::fs::write(&program, PRINTING_BFS).unwrap();
    let graph = temp("path.txt");
    std::fs::write(&graph, "0 1\n1 2\n2 3\n").unwrap();
    let (p, g) = (program.to_str().unwrap(), graph.to_str().unwrap());
    let o = irgc(&["run", p, "--graph", g, "--no-cache", "--verify"]);
    ok(&o);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("print     frontier.size() = 1  (round 1)"), "{out}");
    assert!(out.contains("print     frontier.size() = 0  (round 4)"), "{out}");
    assert!(out.contains("print     depth = 4\n"), "{out}");
    assert!(
        out.contains("print     total as f64 / G.num_nodes as f64 = 1\n"),
        "labels keep the source, spaces collapsed: {out}"
    );
    let o = irgc(&["run", p, "--graph", g, "--no-cache", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let printed = v["printed"].as_array().unwrap();
    assert_eq!(printed.len(), 6);
    assert_eq!(printed[4]["label"], "depth");
    assert_eq!(printed[4]["type"], "u32");
    assert_eq!(printed[4]["value"], 4.0);
    assert_eq!(printed[4]["round"], 0);
}

#[test]
fn print_is_for_the_plan_and_needs_a_value() {
    let program = temp("bad-print.irg");
    std::fs::write(
        &program,
        "graph G;\nnode x: u32 = 0;\nkernel k() { forall v in G.nodes { print(x[v]); } }\nplan { k(); print(); }\n",
    )
    .unwrap();
    let o = irgc(&["check", program.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("`print` is only allowed in the plan"), "{err}");
    assert!(err.contains("`print` needs at least one value"), "{err}");
}

/// The set-up is reported in its parts: a `setup` line with `--stats`, and `setup_parts_seconds` in `--json`,
/// whose parts add up to at most the whole.
#[test]
fn setup_is_split_into_its_parts() {
    let args = ["run", "programs/bfs/bfs_do.irg", "--graph", "gen:rmat:scale=10,ef=8,seed=1", "--threads", "2"];
    let o = irgc(&[&args[..], &["--stats"]].concat());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    let line = text.lines().find(|l| l.starts_with("setup ")).unwrap_or_else(|| panic!("no setup line in\n{text}"));
    for part in ["device ", "graph ", "renumbering ", "weights ", "sources ", "arrays ", "worklists "] {
        assert!(line.contains(part), "{line}");
    }
    let o = irgc(&[&args[..], &["--json"]].concat());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let parts = v["setup_parts_seconds"].as_object().unwrap();
    assert_eq!(parts.len(), 7, "{parts:?}");
    let sum: f64 = parts.values().map(|x| x.as_f64().unwrap()).sum();
    assert!(sum <= v["setup_seconds"].as_f64().unwrap() + 1e-9, "{v}");
    // Copying the CSR always takes some time.
    assert!(parts["graph"].as_f64().unwrap() > 0.0, "{parts:?}");
}
