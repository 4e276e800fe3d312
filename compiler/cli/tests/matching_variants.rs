//! End to end on the CPU backend: the two half-approximate matching programs, Suitor (`suitor.irg`) and the
//! locally-dominant algorithm (`ld_matching.irg`). Both break ties the same way, so on graphs with distinct weights
//! both must produce the greedy matching, and so each other's: their `--out` files are compared byte for byte. Every
//! shared graph must verify as a matching, through `irgc bench`, with its quality (pairs and weight) reported.

mod common;

use common::*;

const SUITOR: &str = "programs/matching/suitor.irg";
const LD: &str = "programs/matching/ld_matching.irg";

/// Random weights over the whole `u32` range, keyed by the unordered node pair (`--symmetrize` makes the loader key
/// them so even for a directed file), so both directions of an edge weigh the same and repeats are rare.
const WEIGHTS: &[&str] = &["--symmetrize", "--weights", "random:1:4294967295"];

/// Runs `program` on `graph` with `--verify` and returns its `--out` file and the run's summary.
fn matching_of(program: &str, graph: &str) -> (String, String) {
    let out = temp("mate.txt");
    let mut extra = WEIGHTS.to_vec();
    extra.extend_from_slice(&["--out", out.to_str().unwrap()]);
    let summary = run_verified(program, graph, &extra);
    let text = std::fs::read_to_string(&out).expect("--out wrote the matching");
    std::fs::remove_file(&out).ok();
    (text, summary)
}

/// Asserts that both programs write the same matching on `graph`; with `greedy`, also that the weights were
/// distinct there, so the verifier compared both with the greedy matching.
fn same_matching(graph: &str, greedy: bool) {
    let (ld, ld_summary) = matching_of(LD, graph);
    let (suitor, suitor_summary) = matching_of(SUITOR, graph);
    assert!(ld.lines().any(|l| !l.ends_with("unmatched")), "{graph}: nothing matched:\n{ld_summary}");
    if greedy {
        for s in [&ld_summary, &suitor_summary] {
            assert!(s.contains("equal to greedy"), "{graph}: weights not distinct, no greedy comparison:\n{s}");
        }
    }
    if ld != suitor {
        let diff = ld.lines().zip(suitor.lines()).find(|(a, b)| a != b);
        panic!("{graph}: ld_matching and suitor differ, first at {diff:?}\n{ld_summary}\n{suitor_summary}");
    }
}

#[test]
fn ld_matching_equals_suitor_on_generated_graphs_with_distinct_weights() {
    for g in [
        "gen:rmat:scale=11,ef=8,seed=3",
        "gen:rmat:scale=11,ef=16,preset=rmat-g,seed=4",
        "gen:er:scale=11,deg=8,seed=2",
        "gen:rgg:scale=11,seed=5",
        "gen:delaunay:scale=11,seed=4",
        "gen:grid:w=48,h=48,seed=6",
    ] {
        same_matching(g, true);
    }
}

/// The shared graphs have 10^5 pairs or more, so a few weights repeat even over the whole `u32` range (the verifier
/// then checks validity only); Bremen's pairs happen to be distinct. The two programs still agree on all of them.
#[test]
fn ld_matching_equals_suitor_on_shared_graphs() {
    same_matching(&data("bremen_dist.gr.xz"), true);
    for g in ["astro-ph.graph.xz", "delaunay_n15.graph.xz", "wiki-Vote.txt.xz", "road-luxembourg-osm.mtx.xz"] {
        same_matching(&data(g), false);
    }
}

/// Both programs verify on every shared graph (directed ones symmetrized), and `bench --json` reports the
/// matching's quality on each row.
#[test]
fn both_matchings_verify_on_every_shared_graph() {
    let graphs = SHARED_GRAPHS.map(data);
    let (rows, _) = bench_rows(&[SUITOR, LD], &graphs, WEIGHTS);
    for pair in rows.chunks(2) {
        for row in pair {
            let what = format!("{} on {}", row["program"], row["graph"]);
            assert_eq!(row["verified"], "ok", "{what}: {}", row["verify_detail"]);
            let q = &row["quality"][0];
            assert!(q["matched_pairs"].as_u64().unwrap_or(0) > 0, "{what}: no matched pairs in {row}");
            assert!(q["weight"].as_f64().unwrap_or(0.0) > 0.0, "{what}: no weight in {row}");
        }
        // Same graph, same tie-break: the same number of pairs and the same weight.
        assert_eq!(pair[0]["quality"], pair[1]["quality"], "suitor vs ld_matching on {}", pair[0]["graph"]);
    }
}
