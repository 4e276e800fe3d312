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
