//! Programs whose per-node work could blow up on power-law graphs (hubs of high degree) must still verify there:
//! Louvain's hash table kept in each node's own edge range, and IPGC colouring's per-node neighbour lists and
//! colour bitmaps (built once a node loses a conflict). Correctness only: no timing assertions.

mod common;

use common::*;

/// R-MAT graphs with hubs of degree in the thousands next to many nodes of degree 1.
const POWER_LAW: &[&str] = &["gen:rmat:scale=13,ef=16,seed=1", "gen:rmat:scale=12,ef=4,preset=rmat-g,seed=2"];

#[test]
fn louvain_verifies_on_power_law_graphs() {
    for graph in POWER_LAW {
        for weights in ["random:1:255", "const:1"] {
            let out = run_verified("programs/louvain/louvain_local.irg", graph, &["--weights", weights]);
            assert!(out.contains("modularity"), "{out}");
        }
    }
    // With no gain threshold nodes keep moving for many rounds, so most nodes (hubs too) use their tables while
    // communities change around them.
    run_verified(
        "programs/louvain/louvain_local.irg",
        POWER_LAW[0],
        &["--weights", "const:1", "--param", "min_gain=0", "--param", "max_rounds=20"],
    );
}

#[test]
fn ipgc_verifies_on_power_law_graphs() {
    for graph in POWER_LAW {
        let out = run_verified("programs/coloring/ipgc_hybrid.irg", graph, &[]);
        assert!(out.contains("proper colouring"), "{out}");
        // Always topology-driven, and always data-driven.
        run_verified("programs/coloring/ipgc_hybrid.irg", graph, &["--param", "H=0"]);
        run_verified("programs/coloring/ipgc_hybrid.irg", graph, &["--param", "H=1.1"]);
    }
    run_verified("programs/coloring/ipgc_hybrid.irg", POWER_LAW[0], &["--threads", "16", "--param", "seed=7"]);
}

/// On the CPU nearly every node sees its neighbours' final colours, so IPGC finishes in a round or two and its
/// neighbour-list path is barely used. On a GPU thousands of nodes choose at once from the same stale colours. This
/// runs a copy of the program in which every assign round reads only the previous round's colours (the colours the
/// small and the large nodes' kernels pick are written to `newc` and committed by an extra kernel before the
/// resolve), the worst case for conflicts: about as many rounds as colours, nearly all of them on the list path.
/// With `large` low, the large nodes' kernel builds, copies and flips its lists and skips full windows too.
#[test]
fn ipgc_verifies_when_every_round_reads_stale_colours() {
    let mut stale = std::fs::read_to_string(root().join("programs/coloring/ipgc_hybrid.irg")).unwrap();
    assert!(
        stale.matches("color[v] = ").count() >= 3,
        "the program changed: update this test (the assign kernels' `color[v] = ` not found)"
    );
    stale = stale.replace("color[v] = ", "newc[v] = ");
    for (from, to) in [
        ("node color: u32 = 0;", "node color: u32 = 0;\nnode newc: u32 = 0;"),
        ("resolve_topology();\n", "commit();\nresolve_topology();\n"),
        ("resolve_data();\n", "commit();\nresolve_data();\n"),
    ] {
        assert!(stale.contains(from), "the program changed: update this test ({from:?} not found)");
        stale = stale.replace(from, to);
    }
    stale.push_str("\nkernel commit() {\n    forall v in G.nodes {\n        if active[v] {\n            color[v] = newc[v];\n        }\n    }\n}\n");
    let path = std::env::temp_dir().join(format!("irgc-ipgc-stale-{}.irg", std::process::id()));
    std::fs::write(&path, stale).unwrap();
    let program = path.to_str().unwrap();
    for graph in POWER_LAW.iter().chain(&["gen:er:scale=12,deg=16,seed=3", "gen:grid:w=64,h=64,seed=6"]) {
        for large in ["large=256", "large=8"] {
            let out = run_verified(program, graph, &["--stats", "--param", large]);
            assert!(out.contains("proper colouring"), "{out}");
        }
    }
    let out = run_verified(program, POWER_LAW[0], &["--stats"]);
    let rounds: u32 = out
        .lines()
        .find_map(|l| l.strip_prefix("pipe rounds: "))
        .and_then(|r| r.split(',').next())
        .and_then(|r| r.trim().parse().ok())
        .unwrap_or_else(|| panic!("no round count in:\n{out}"));
    std::fs::remove_file(&path).ok();
    assert!(rounds > 10, "expected many conflict rounds, got {rounds}:\n{out}");
}
