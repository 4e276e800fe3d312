//! The quality of a result that is one of many right answers is machine-readable: `irgc run --json` has it under
//! `verification.checks[].quality` (colours, matched pairs and weight, modularity and communities; null where the
//! check has one right answer), and `irgc bench` shows it in a quality column beside the times and in its JSON rows.

mod common;

use common::*;

/// `irgc run --verify --json` on `program` and `graph`, returning the one check's report.
fn check_of(program: &str, graph: &str, extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["run", program, "--graph", graph, "--no-cache", "--verify", "--json"];
    args.extend_from_slice(extra);
    let out = irgc(&args);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{program}: {stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_str(&stdout).expect("run --json prints JSON");
    assert_eq!(report["verification"]["ok"], true, "{report}");
    let checks = report["verification"]["checks"].as_array().expect("a list of checks");
    assert_eq!(checks.len(), 1, "{report}");
    checks[0].clone()
}

/// The number the summary states right after `before` (e.g. "with 57 colours": `before` = "with ").
fn number_after(summary: &str, before: &str) -> f64 {
    let rest = &summary[summary.find(before).unwrap_or_else(|| panic!("no `{before}` in {summary}")) + before.len()..];
    let end = rest.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(rest.len());
    rest[..end].parse().unwrap_or_else(|_| panic!("no number after `{before}` in {summary}"))
}

#[test]
fn run_json_rates_colourings_matchings_and_partitions() {
    let graph = data("astro-ph.graph.xz");
    let c = check_of("programs/coloring/jp_ldf.irg", &graph, &[]);
    let colors = c["quality"]["colors"].as_u64().expect("colours");
    assert_eq!(colors as f64, number_after(c["summary"].as_str().unwrap(), "with "), "{c}");
    // astro-ph holds a 57-clique, so no proper colouring has fewer.
    assert!(colors >= 57, "{c}");

    let c = check_of("programs/matching/suitor.irg", &graph, &["--weights", "random:1:1000"]);
    let (pairs, weight) = (c["quality"]["matched_pairs"].as_u64().unwrap(), c["quality"]["weight"].as_f64().unwrap());
    let summary = c["summary"].as_str().unwrap();
    assert_eq!(pairs as f64, number_after(summary, ""), "{c}");
    assert_eq!(weight, number_after(summary, "total weight "), "{c}");
    assert!(pairs > 0 && pairs <= 16_706 / 2 && weight >= pairs as f64, "{c}");

    let c = check_of("programs/louvain/louvain_local.irg", &graph, &[]);
    let q = c["quality"]["modularity"].as_f64().expect("modularity");
    let communities = c["quality"]["communities"].as_u64().expect("communities");
    assert!(q > 0.3 && q < 1.0, "{c}");
    assert!(communities > 1 && communities < 16_706, "{c}");

    // One right answer: nothing to rate.
    let c = check_of("programs/bfs/bfs_worklist.irg", &graph, &[]);
    assert!(c["quality"].is_null(), "{c}");
}

#[test]
fn bench_shows_a_quality_column() {
    let args = [
        "bench",
        "--runs",
        "1",
        "--warmup",
        "0",
        "--no-cache",
        "programs/coloring/ipgc_data.irg",
        "programs/coloring/jp_ldf.irg",
        "programs/bfs/bfs_worklist.irg",
        "--graph",
        "gen:rmat:scale=12,ef=16,seed=1",
    ];
    let out = irgc(&args);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<&str> = stdout.lines().collect();
    let head = lines.iter().position(|l| l.starts_with("program")).expect("a table heading");
    let at = lines[head].find("quality").expect("a quality column");
    let cell = |program: &str| {
        let row = lines.iter().find(|l| l.starts_with(program)).unwrap_or_else(|| panic!("no {program} row"));
        row[at..].split("  ").next().unwrap().trim().to_string()
    };
    for p in ["ipgc_data", "jp_ldf"] {
        let c = cell(p);
        assert!(c.ends_with(" colours") && c.split(' ').next().unwrap().parse::<u32>().is_ok(), "{p}: `{c}`\n{stdout}");
    }
    assert_eq!(cell("bfs_worklist"), "-", "{stdout}");
}

/// Louvain's rounds end when a round's moves gain less than `tolerance` modularity in total (ν-Louvain's rule):
/// fewer sweeps than running until no node moves, for a modularity within 0.01 of it; `tolerance=0` is the old
/// rule, whose last round moves nothing.
#[test]
fn louvains_tolerance_ends_the_rounds_that_gain_little() {
    let graph = data("astro-ph.graph.xz");
    let sweeps_and_q = |program: &str, extra: &[&str]| {
        let mut args = vec!["--threads", "1", "--stats"];
        args.extend_from_slice(extra);
        let out = run_verified(program, &graph, &args);
        let q = number_after(out.lines().find(|l| l.starts_with("verify")).unwrap(), ", modularity ");
        // A sweep is a round's `move_small` and its `move_large` (skipped on graphs without large nodes).
        let moves = |l: &&str| matches!(l.split_whitespace().nth(1), Some("move_small" | "move_large"));
        let sweeps = out.lines().filter(moves).map(String::from);
        (sweeps.collect::<Vec<_>>(), q)
    };
    for program in ["programs/louvain/louvain_local.irg", "programs/louvain/louvain.irg"] {
        let (early, q_early) = sweeps_and_q(program, &[]);
        let (all, q_all) = sweeps_and_q(program, &["--param", "tolerance=0"]);
        assert!(early.len() < all.len(), "{program}: {} sweeps with the tolerance, {} without", early.len(), all.len());
        assert!((q_early - q_all).abs() < 0.01, "{program}: Q {q_early} against {q_all}");
        // The last sweep without a tolerance moved nothing: its kernels' reductions (the gains' sums) are 0.
        let last_small = all.iter().rposition(|l| l.split_whitespace().nth(1) == Some("move_small")).unwrap();
        for l in &all[last_small..] {
            let cells = l.split_whitespace().collect::<Vec<_>>();
            assert_eq!(cells[cells.len() - 2], "0", "{program}: {l}");
        }
    }
}
