//! End to end on the CPU backend: every colouring program in `programs/coloring` must give a proper colouring
//! (`--verify`) on real and generated graphs, with its colour count reported as the row's quality; the hybrid's
//! threshold must really force each branch; and Jones-Plassmann must need no more colours than IPGC where
//! largest-degree-first is known to help, and give the same colouring on any thread count (it is the greedy
//! colouring in priority order, whatever the interleaving); its asynchronous form, `jp_async`, must give exactly
//! that colouring too.

mod common;

use common::*;

const PROGRAMS: &[&str] = &[
    "programs/coloring/ipgc_hybrid.irg",
    "programs/coloring/ipgc_data.irg",
    "programs/coloring/ipgc_topology.irg",
    "programs/coloring/jp_ldf.irg",
    "programs/coloring/jp_async.irg",
];

/// Benches `programs` on `graphs` once each (`extra` adds flags) and returns the colours of every row, in row order
/// (graph-major), after asserting each verified.
fn colours(programs: &[&str], graphs: &[String], extra: &[&str]) -> Vec<(String, String, u64)> {
    let (rows, _) = bench_rows(programs, graphs, extra);
    rows.iter()
        .map(|row| {
            let what = format!("{} on {}", row["program"], row["graph"]);
            assert_eq!(row["verified"], "ok", "{what}: {}", row["verify_detail"]);
            let c = row["quality"][0]["colors"].as_u64().unwrap_or_else(|| panic!("{what}: no colours in {row}"));
            assert!(c >= 2, "{what}: {c} colours for a graph with edges");
            (row["program"].as_str().unwrap().to_string(), row["graph"].as_str().unwrap().to_string(), c)
        })
        .collect()
}

fn generated() -> Vec<String> {
    [
        "gen:rmat:scale=12,ef=8,seed=7",
        "gen:rmat:scale=12,ef=16,preset=rmat-g,seed=3",
        "gen:er:scale=12,deg=16,seed=2",
        "gen:rgg:scale=12,seed=5",
        "gen:delaunay:scale=11,seed=4",
        "gen:grid:w=64,h=64,seed=6",
    ]
    .map(String::from)
    .to_vec()
}

#[test]
fn every_colouring_program_verifies_on_generated_graphs() {
    colours(PROGRAMS, &generated(), &[]);
}

#[test]
fn every_colouring_program_verifies_on_real_graphs() {
    let graphs = [
        "astro-ph.graph.xz",
        "delaunay_n15.graph.xz",
        "wiki-Vote.txt.xz",
        "email-Enron.txt.xz",
        "p2p-31.e.xz",
        "road-luxembourg-osm.mtx.xz",
        "rgg_n_2_15_s0.graph.xz",
        "copter2.graph.xz",
        "uk-2007-05@100000.arcs.tsv.xz",
    ]
    .map(data);
    colours(PROGRAMS, &graphs, &[]);
}

/// The hybrid's presets: `H=-1` takes the dense (topology-driven) branch every round, `H=1` the sparse
/// (data-driven) one, as `--stats` shows per launch; both still verify.
#[test]
fn the_hybrid_threshold_forces_each_branch() {
    for (h, kernel, other) in [("-1", "assign_topology", "assign_data"), ("1", "assign_data", "assign_topology")] {
        let out = run_verified(
            "programs/coloring/ipgc_hybrid.irg",
            "gen:rmat:scale=12,ef=8,seed=7",
            &["--param", &format!("H={h}"), "--stats"],
        );
        assert!(out.contains(kernel), "H={h}: no {kernel} launch in\n{out}");
        assert!(!out.contains(other), "H={h}: {other} launched in\n{out}");
    }
}

/// Largest-degree-first Jones-Plassmann against IPGC on skewed graphs: never more colours.
#[test]
fn jp_ldf_needs_no_more_colours_than_ipgc_on_skewed_graphs() {
    let graphs = ["gen:rmat:scale=13,ef=16,seed=1".to_string(), data("uk-2007-05@100000.arcs.tsv.xz")];
    let rows = colours(&["programs/coloring/ipgc_data.irg", "programs/coloring/jp_ldf.irg"], &graphs, &[]);
    for pair in rows.chunks(2) {
        assert!(
            pair[1].2 <= pair[0].2,
            "{} needs more colours than {} on {}: {pair:?}",
            pair[1].0,
            pair[0].0,
            pair[0].1
        );
    }
}

/// The colouring `program` writes for `graph` on `threads` threads (verified), and the pipe rounds `--stats` reports
/// (none for a program without a pipe).
fn colouring(program: &str, graph: &str, threads: &str) -> (String, Option<u64>) {
    colouring_with(program, graph, threads, &[])
}

/// [`colouring`] with more options for `irgc run` (e.g. a `--param`).
fn colouring_with(program: &str, graph: &str, threads: &str, options: &[&str]) -> (String, Option<u64>) {
    let out = temp("color.txt");
    let mut args = vec!["--threads", threads, "--stats", "--out", out.to_str().unwrap()];
    args.extend_from_slice(options);
    let stats = run_verified(program, graph, &args);
    let text = std::fs::read_to_string(&out).expect("--out wrote the colours");
    std::fs::remove_file(&out).ok();
    let rounds = stats.lines().find_map(|l| l.strip_prefix("pipe rounds: ")?.split(',').next()?.trim().parse().ok());
    (text, rounds)
}

/// Jones-Plassmann colours in priority order whatever the threads do, so one thread and two give the same file.
#[test]
fn jp_ldf_is_deterministic() {
    let graph = "gen:rmat:scale=13,ef=16,seed=1";
    let files: Vec<String> = ["1", "2"].iter().map(|t| colouring("programs/coloring/jp_ldf.irg", graph, t).0).collect();
    assert!(files[0] == files[1], "jp_ldf gave different colourings on 1 and 2 threads");
}

/// `jp_async` colours in one asynchronous sweep (`wait;`) what `jp_ldf` colours in rounds: the same greedy
/// colouring, so the same file, on one thread and on two (where a chunk's items wait for other chunks'). So does
/// `jp_shortcut`, whose early colours are the lowest a node can take that no higher neighbour may still take: the
/// colour greedy gives it (the R-MAT graph of edge factor 32 needs 69 colours, so its nodes from 64 on use the
/// `high` bitmap).
#[test]
fn jp_async_and_jp_shortcut_colour_exactly_as_jp_ldf() {
    for graph in [
        "gen:rmat:scale=13,ef=16,seed=1",
        "gen:rgg:scale=12,seed=5",
        "gen:grid:w=64,h=64,seed=6",
        "gen:rmat:scale=13,ef=32,seed=1",
    ] {
        let (want, _) = colouring("programs/coloring/jp_ldf.irg", graph, "2");
        for (program, threads) in [("jp_async", "1"), ("jp_async", "2"), ("jp_shortcut", "1"), ("jp_shortcut", "2")] {
            let (got, _) = colouring(&format!("programs/coloring/{program}.irg"), graph, threads);
            assert!(got == want, "{program} on {threads} thread(s) differs from jp_ldf on {graph}");
        }
    }
}

/// A nearly complete graph of 400 nodes that needs 313 colours, so the colour kernels' passes past 256 run.
fn nearly_complete_graph() -> std::path::PathBuf {
    dense_graph("dense.mtx", 400, |i, j| (i * 7 + j * 13) % 97 != 0 || i % 4 != 0)
}

/// The undirected graph on `n` nodes with the edges {i, j} (j < i) that `keep` keeps, as a Matrix Market file.
fn dense_graph(name: &str, n: u32, keep: impl Fn(u32, u32) -> bool) -> std::path::PathBuf {
    let edges: Vec<(u32, u32)> =
        (0..n).flat_map(|i| (0..i).map(move |j| (i, j))).filter(|&(i, j)| keep(i, j)).collect();
    let graph = temp(name);
    let mut text = format!("%%MatrixMarket matrix coordinate pattern symmetric\n{n} {n} {}\n", edges.len());
    for (i, j) in &edges {
        text += &format!("{} {}\n", i + 1, j + 1);
    }
    std::fs::write(&graph, text).expect("wrote the graph");
    graph
}

/// A node whose 256 first colours are all taken by higher neighbours is left by `jp_ldf`'s `colour` for
/// `colour_far`: on a nearly complete graph of 400 nodes (313 colours) the colouring is still the greedy one, the
/// same file as `jp_async`'s, and uses colours past 256.
#[test]
fn jp_ldf_colours_past_256_as_greedy_does() {
    let graph = nearly_complete_graph();
    let (want, _) = colouring("programs/coloring/jp_async.irg", graph.to_str().unwrap(), "2");
    let (got, _) = colouring("programs/coloring/jp_ldf.irg", graph.to_str().unwrap(), "2");
    std::fs::remove_file(&graph).ok();
    assert!(got == want, "jp_ldf differs from jp_async on a nearly complete graph");
    let most = got.lines().filter_map(|l| l.split_whitespace().last()?.parse::<u32>().ok()).max();
    assert!(most.is_some_and(|c| c > 256), "the graph needs more than 256 colours, got {most:?}");
}

/// The candidates in `scripts/bench` that the GPU compares with `jp_ldf` must give its colouring: `jp_ldf_taken`
/// (colours 1..256 marked in a node's own words instead of a list of higher neighbours), `jp_rounds_shortcut`
/// (ECL-GC's shortcut in rounds, whose early colour is the one greedy gives), which must also take fewer rounds, and
/// fewer still the more colours its `taken` words mark, and `jp_masks` (the shortcut with ECL-GC's sets of possible
/// colours, read from the neighbours by kernels that race), which must also take fewer rounds. The R-MAT graphs and
/// the Kronecker graph have nodes of degree above 63, which `jp_masks` handles with a list, beside the masks of the
/// others; the 400-node graph has nodes whose colour is past 64 (kept in `jp_masks`'s `hi` words), and in the
/// complete graph on 65 nodes a node of degree 64 needs colour 65.
#[test]
fn the_bench_candidates_colour_exactly_as_jp_ldf() {
    let dense = nearly_complete_graph();
    // The complete graph on 65 nodes: each has degree 64 and the last needs colour 65, one past `jp_masks`'s masks.
    // No shortcut can cut its rounds (every uncoloured neighbour may still take any colour), so it has no rounds to
    // compare: the flag beside each graph says whether its rounds must fall.
    let k65 = dense_graph("k65.mtx", 65, |_, _| true);
    let graphs = [
        (k65.to_str().unwrap(), false),
        ("gen:rmat:scale=13,ef=16,seed=1", true),
        ("gen:rmat:scale=13,ef=32,seed=1", true),
        ("gen:kron:scale=12", true),
        ("gen:rgg:scale=12,seed=5", true),
        ("gen:grid:w=64,h=64,seed=6", true),
        (dense.to_str().unwrap(), true),
    ];
    for (graph, cuts_rounds) in graphs {
        let (want, ldf_rounds) = colouring("programs/coloring/jp_ldf.irg", graph, "2");
        let ldf_rounds = ldf_rounds.expect("a pipe");
        let (taken, _) = colouring("scripts/bench/jp_ldf_taken.irg", graph, "2");
        assert!(taken == want, "jp_ldf_taken differs from jp_ldf on {graph}");
        for program in ["jp_rounds_shortcut", "jp_masks"] {
            let (got, rounds) = colouring(&format!("scripts/bench/{program}.irg"), graph, "2");
            assert!(got == want, "{program} differs from jp_ldf on {graph}");
            let rounds = rounds.expect("a pipe");
            assert!(
                !cuts_rounds || rounds < ldf_rounds,
                "{program} took {rounds} rounds on {graph}, jp_ldf {ldf_rounds}"
            );
        }
    }
    // How many colours `taken` marks changes the rounds, not the colouring: on the 400-node graph (313 colours), one
    // word leaves every node past colour 64 to `colour_far`, and 8 words (512 colours) mark them all.
    let dense = dense.to_str().unwrap();
    let (want, _) = colouring("programs/coloring/jp_ldf.irg", dense, "2");
    let shortcut = "scripts/bench/jp_rounds_shortcut.irg";
    let mut rounds = Vec::new();
    for words in ["1", "4", "8"] {
        let (got, r) = colouring_with(shortcut, dense, "2", &["--param", &format!("words={words}")]);
        assert!(got == want, "jp_rounds_shortcut with {words} words differs from jp_ldf on the 400-node graph");
        rounds.push(r.expect("a pipe"));
    }
    assert!(rounds[0] > rounds[1] && rounds[1] > rounds[2], "rounds with 1, 4 and 8 words: {rounds:?}");
    std::fs::remove_file(dense).ok();
    std::fs::remove_file(&k65).ok();
}

/// A sweep whose items wait for each other across the whole space finishes them all, in order: node v waits for
/// node v - 1 (`tests/ui/ok/waiting_sweep.irg`), so the chunks of two threads hand the chain on to each other.
#[test]
fn a_waiting_sweep_finishes_a_chain_across_chunks() {
    for threads in ["1", "2"] {
        let out = temp("order.txt");
        let o = irgc(&[
            "run",
            "tests/ui/ok/waiting_sweep.irg",
            "--graph",
            "gen:er:scale=13,deg=4,seed=1",
            "--threads",
            threads,
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let text = std::fs::read_to_string(&out).expect("--out wrote the order");
        std::fs::remove_file(&out).ok();
        let mut lines = 0;
        for line in text.lines() {
            let f: Vec<u64> = line.split_whitespace().map(|x| x.parse().expect("numbers")).collect();
            assert_eq!(f[1], f[0] + 1, "node {} finished as {} on {threads} thread(s)", f[0], f[1]);
            lines += 1;
        }
        assert_eq!(lines, 1 << 13);
    }
}
