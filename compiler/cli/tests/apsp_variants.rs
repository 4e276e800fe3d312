//! End to end on the CPU backend: every all-pairs shortest-path program (blocked and plain Floyd-Warshall, batched
//! SSSP) must pass `--verify` (Dijkstra from every source) on small graphs, including ones with unreachable pairs,
//! and the three must produce the same distance matrix on larger graphs (compared by the run's digest, a hash of
//! the outputs).

mod common;

use common::*;

use std::path::PathBuf;

const APSP: &[&str] = &["programs/apsp/fw_blocked.irg", "programs/apsp/fw_plain.irg", "programs/apsp/apsp_batched.irg"];

/// Runs a program (with `--no-cache` and the given extra arguments) and returns its stdout; fails with its
/// output if it fails.
fn run(program: &str, graph: &str, extra: &[&str]) -> String {
    let mut args = vec!["run", program, "--graph", graph, "--no-cache", "--weights", "random:1:255"];
    args.extend_from_slice(extra);
    let out = irgc(&args);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success() && !stdout.contains("FAILED"),
        "{program} on {graph} failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

fn run_verified(program: &str, graph: &str, extra: &[&str]) {
    let mut args = vec!["--verify"];
    args.extend_from_slice(extra);
    let stdout = run(program, graph, &args);
    assert!(stdout.contains("verify"), "{program} on {graph}: no verification in\n{stdout}");
}

/// A small directed DIMACS graph with unreachable pairs: 180 nodes, random arcs among the first 150 (so some
/// pairs are joined one way only) and the last 30 nodes isolated.
fn directed_graph() -> PathBuf {
    let path = std::env::temp_dir().join(format!("irgc-apsp-directed-{}.gr", std::process::id()));
    let (n, m) = (180u64, 420u64);
    let mut text = format!("p sp {n} {m}\n");
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..m {
        x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        let u = (x >> 33) % 150 + 1;
        let v = (x >> 13) % 150 + 1;
        text += &format!("a {u} {v} 1\n");
    }
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn every_apsp_program_matches_dijkstra_on_small_graphs() {
    let directed = directed_graph();
    let graphs = [
        "gen:er:n=150,deg=6,seed=9",
        "gen:er:n=300,deg=16,seed=3",
        "gen:grid:w=16,h=16,seed=1",
        // R-MAT leaves many nodes isolated: unreachable pairs in both directions.
        "gen:rmat:scale=8,ef=2,seed=4",
        directed.to_str().unwrap(),
    ];
    for graph in graphs {
        for p in APSP {
            run_verified(p, graph, &[]);
        }
    }
    // Batches that do not divide the node count, and a single batch holding every source.
    for batch in ["batch=7", "batch=1000"] {
        run_verified("programs/apsp/apsp_batched.irg", directed.to_str().unwrap(), &["--param", batch]);
        run_verified("programs/apsp/apsp_batched.irg", "gen:er:n=150,deg=6,seed=9", &["--param", batch]);
    }
    std::fs::remove_file(&directed).ok();
}

/// The `digest` of a `--json` run.
fn digest(program: &str, graph: &str) -> String {
    let stdout = run(program, graph, &["--json"]);
    let v: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    v["digest"].as_str().unwrap_or_else(|| panic!("no digest in {stdout}")).to_string()
}

#[test]
fn floyd_warshall_variants_and_batched_sssp_agree_on_larger_graphs() {
    // 1000 nodes: 16 tiles per side, the last one 40 wide (partly padding). Plain Floyd-Warshall is the slowest on
    // the CPU (n^3 cells with no blocking), so it is compared on a smaller graph of the same kind.
    let graph = "gen:er:n=1000,deg=8,seed=11";
    let blocked = digest("programs/apsp/fw_blocked.irg", graph);
    assert_eq!(digest("programs/apsp/apsp_batched.irg", graph), blocked, "apsp_batched differs from fw_blocked");
    let graph = "gen:er:n=520,deg=8,seed=12";
    let blocked = digest("programs/apsp/fw_blocked.irg", graph);
    assert_eq!(digest("programs/apsp/fw_plain.irg", graph), blocked, "fw_plain differs from fw_blocked");
}
