//! End to end on the CPU backend: every connected-components program in `programs/cc` must pass `--verify`
//! (sequential union-find) on real graphs and on generated graphs chosen to stress it: one giant component
//! (R-MAT, Erdős–Rényi), many small components (edge factor 1, degree 1), long paths (grids, road networks,
//! geometric and Delaunay meshes). Each check is one `irgc bench --runs 1 --warmup 0` over several programs and
//! graphs, so each graph is loaded and each program compiled once; the first run of every pair is verified.

mod common;

use common::*;

use std::process::Command;

/// Every CC program, with the params it is checked under by default.
const PROGRAMS: &[&str] = &[
    "programs/cc/rem.irg",
    "programs/cc/shiloach_vishkin.irg",
    "programs/cc/cc_update.irg",
    "programs/cc/stages.irg",
    "programs/cc/groute.irg",
    "programs/cc/ecl_cc.irg",
    "programs/cc/afforest.irg",
];

/// Runs `programs` on every graph once (`extra` may add `--symmetrize` and `--param`s) and asserts that every
/// (program, graph) pair verified as components.
fn all_verify(programs: &[&str], graphs: &[String], extra: &[&str]) {
    let mut args = vec!["bench", "--runs", "1", "--warmup", "0", "--json", "--no-cache"];
    args.extend_from_slice(programs);
    for g in graphs {
        args.extend_from_slice(&["--graph", g]);
    }
    args.extend_from_slice(extra);
    let out = Command::new(env!("CARGO_BIN_EXE_irgc")).current_dir(root()).args(&args).output().expect("irgc runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "irgc {}\nfailed:\n{stderr}\n{stdout}", args.join(" "));
    let rows: serde_json::Value = serde_json::from_str(&stdout).expect("bench --json prints a JSON array");
    let rows = rows.as_array().expect("an array of rows");
    assert_eq!(rows.len(), programs.len() * graphs.len(), "one row per program and graph:\n{stderr}");
    for row in rows {
        let what = format!("{} on {}", row["program"], row["graph"]);
        assert_eq!(row["verified"], "ok", "{what}: {}", row["verify_detail"]);
        assert!(row["verify_detail"].as_str().unwrap_or("").contains("components"), "{what}: {row}");
    }
}

fn generated() -> Vec<String> {
    [
        "gen:rmat:scale=12,ef=8,seed=7",
        "gen:rmat:scale=12,ef=16,preset=rmat-g,seed=3",
        "gen:rmat:scale=12,ef=1,seed=5",
        "gen:er:scale=12,deg=16,seed=2",
        "gen:er:scale=12,deg=1,seed=2",
        "gen:rgg:scale=12,seed=5",
        "gen:delaunay:scale=11,seed=4",
        "gen:grid:w=64,h=64,seed=6",
    ]
    .map(String::from)
    .to_vec()
}

#[test]
fn every_cc_program_verifies_on_generated_graphs() {
    all_verify(PROGRAMS, &generated(), &[]);
}

#[test]
fn every_cc_program_verifies_on_real_graphs() {
    let graphs = [
        "astro-ph.graph.xz",
        "delaunay_n15.graph.xz",
        "wiki-Vote.txt.xz",
        "p2p-31.e.xz",
        "road-luxembourg-osm.mtx.xz",
        "rgg_n_2_15_s0.graph.xz",
    ]
    .map(data);
    all_verify(PROGRAMS, &graphs, &["--symmetrize"]);
}

/// Stages across group sizes: many small groups (below the giant-component threshold too), about n edges, and one
/// group holding every edge (q > m/n); Groute with no Hook-non-atomic round (k = 1 is the default, checked above).
#[test]
fn stages_and_groute_verify_across_their_params() {
    let graphs = vec![
        "gen:rmat:scale=12,ef=1,seed=5".to_string(),
        "gen:er:scale=12,deg=16,seed=2".to_string(),
        "gen:grid:w=64,h=64,seed=6".to_string(),
        data("road-luxembourg-osm.mtx.xz"),
    ];
    let both = ["programs/cc/stages.irg", "programs/cc/groute.irg"];
    all_verify(&both, &graphs, &["--symmetrize", "--param", "q=0.25", "--param", "k=0"]);
    all_verify(&both, &graphs, &["--symmetrize", "--param", "q=0.6", "--param", "k=2"]);
    all_verify(&["programs/cc/stages.irg"], &graphs, &["--symmetrize", "--param", "q=1000"]);
}
