//! `--devices N` on the CPU: the edges split into N parts, every part run, the results merged pairwise by the
//! program's `merge` block (seed 004). Every CC program with a merge must give the single-device run's partition
//! on every shared graph.

mod common;

use common::*;
use std::collections::HashMap;

const MERGING: [&str; 4] =
    ["programs/cc/rem.irg", "programs/cc/groute.irg", "programs/cc/afforest.irg", "programs/cc/ecl_cc.irg"];

/// `node -> label` from a run's `--out` file.
fn labels(program: &str, graph: &str, devices: &str) -> HashMap<String, String> {
    let out = temp(&format!("devices-{devices}.out"));
    let o =
        irgc(&["run", program, "--graph", graph, "--symmetrize", "--devices", devices, "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{program} on {graph}, {devices} devices: {}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&out).unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_once(' ').map(|(a, b)| (a.to_string(), b.to_string())))
        .collect()
}

/// Whether two labelings partition the nodes the same way.
fn same_partition(a: &HashMap<String, String>, b: &HashMap<String, String>) -> bool {
    let (mut ab, mut ba) = (HashMap::new(), HashMap::new());
    a.len() == b.len()
        && a.iter().all(|(v, la)| {
            let Some(lb) = b.get(v) else { return false };
            *ab.entry(la).or_insert(lb) == lb && *ba.entry(lb).or_insert(la) == la
        })
}

#[test]
fn every_merging_cc_program_gives_the_single_device_partition_on_every_shared_graph() {
    for graph in SHARED_GRAPHS {
        let g = data(graph);
        for p in MERGING {
            let one = labels(p, &g, "1");
            let three = labels(p, &g, "3");
            assert!(same_partition(&one, &three), "{p} on {graph}: 3 devices differ from 1");
        }
    }
}

#[test]
fn any_device_count_verifies_and_reports_its_parts_and_merges() {
    // 300 nodes in 3 components plus isolated ones, so a merge has something to join.
    for devices in ["2", "4", "5", "8"] {
        let v = ecl_cc_json("gen:er:n=300,deg=1,seed=4", &["--devices", devices]);
        assert_eq!(v["devices"]["parts"].as_array().unwrap().len(), devices.parse::<usize>().unwrap());
        let rounds = (devices.parse::<f64>().unwrap()).log2().ceil() as u64;
        assert_eq!(v["devices"]["merge_rounds"], rounds);
        assert_eq!(v["verification"]["ok"], true);
    }
}

#[test]
fn a_program_without_a_merge_and_gpu_lists_that_do_not_fit_are_refused() {
    let refused = |args: &[&str], says: &str| {
        let o = irgc(args);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(says), "{args:?}: {err}");
    };
    let g = "gen:er:n=50,deg=2";
    refused(&["run", "programs/bfs/bfs_worklist.irg", "--graph", g, "--devices", "2"], "declares no `merge`");
    refused(&["run", "programs/cc/rem.irg", "--graph", g, "--gpus", "0,1"], "--gpus applies to --backend cuda only");
    refused(&["bench", "programs/cc/rem.irg", "--graph", g, "--gpus", "0"], "--gpus applies to --backend cuda only");
    let mismatch = ["--backend", "cuda", "--devices", "3", "--gpus", "0,0"];
    refused(&[&["run", "programs/cc/rem.irg", "--graph", g][..], &mismatch].concat(), "--gpus names 2 GPU(s)");
    refused(&[&["bench", "programs/cc/rem.irg", "--graph", g][..], &mismatch].concat(), "--gpus names 2 GPU(s)");
    if !irgc_cuda::driver_present() {
        refused(&["run", "programs/cc/rem.irg", "--graph", g, "--backend", "cuda", "--devices", "2"], "no CUDA driver");
    }
}

#[test]
fn bench_runs_on_several_devices_and_reports_the_merges() {
    let o = irgc(&[
        "bench",
        "programs/cc/ecl_cc.irg",
        "programs/cc/afforest.irg",
        "--graph",
        "gen:er:n=400,deg=1,seed=2",
        "--devices",
        "3",
        "--runs",
        "2",
        "--json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(rows.len(), 2);
    for r in rows {
        assert_eq!((r["backend"].as_str(), r["devices"].as_u64()), (Some("cpu×3"), Some(3)), "{r}");
        assert_eq!(r["verified"], "ok", "{r}");
        let merge = r["merge_ms"].as_f64().unwrap();
        assert!(merge > 0.0 && merge <= r["max_ms"].as_f64().unwrap(), "{r}");
    }
}

#[test]
fn a_merge_names_two_node_arrays_of_one_type_and_appears_once() {
    let base = "graph G;\nnode parent: node;\nnode theirs: node;\nnode other: u32;\narray d: node[4];\nplan { }\n";
    let check = |merge: &str| {
        let p = temp("merge.irg");
        std::fs::write(&p, format!("{base}{merge}")).unwrap();
        let o = irgc(&["check", p.to_str().unwrap()]);
        (o.status.code(), String::from_utf8_lossy(&o.stderr).into_owned())
    };
    assert_eq!(check("merge parent -> theirs { }\n").0, Some(0));
    let (code, err) = check("merge parent -> parent { }\n");
    assert_eq!(code, Some(1));
    assert!(err.contains("the partner's array needs an array of its own"), "{err}");
    let (_, err) = check("merge parent -> other { }\n");
    assert!(err.contains("their elements differ"), "{err}");
    let (_, err) = check("merge d -> theirs { }\n");
    assert!(err.contains("not a node array"), "{err}");
    let (_, err) = check("merge parent -> theirs { }\nmerge parent -> theirs { }\n");
    assert!(err.contains("a program has one merge"), "{err}");
    let o = irgc(&["compile", "programs/cc/rem.irg", "--emit", "ir"]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("merge @parent -> @theirs {"));
}

#[test]
fn the_lower_edges_partition_verifies_and_cuts_elsewhere_than_equal_edges() {
    // R-MAT puts its hubs at small ids, so the downward edges sit late in the edge order.
    let parts = |partition: &str| {
        let v = ecl_cc_json("gen:rmat:scale=10,ef=8,seed=3", &["--devices", "3", "--partition", partition]);
        assert_eq!(v["verification"]["ok"], true);
        v["devices"]["parts"].as_array().unwrap().iter().map(|p| p["edges"].as_u64().unwrap()).collect::<Vec<_>>()
    };
    let (edges, lower) = (parts("edges"), parts("lower-edges"));
    assert_eq!(edges.iter().sum::<u64>(), lower.iter().sum::<u64>());
    assert!(edges.iter().max().unwrap() - edges.iter().min().unwrap() <= 1, "{edges:?}");
    assert!(lower[0] > lower[2], "the first part should take more (mostly upward) edges: {lower:?}");
}

/// `irgc run programs/cc/ecl_cc.irg --graph GRAPH EXTRA --verify --json`, which must succeed: its summary.
fn ecl_cc_json(graph: &str, extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["run", "programs/cc/ecl_cc.irg", "--graph", graph];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--verify", "--json"]);
    let o = irgc(&args);
    assert!(o.status.success(), "{extra:?}: {}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

/// Runs `program` on `graph` as `ranks` processes at once (`--ranks N --rank r --join J`, CPU ranks meeting
/// through sockets), each with `--out`: rank 0's labels, and every rank's `--json` summary.
fn ranked(
    program: &str,
    graph: &str,
    ranks: usize,
    extra: &[&str],
) -> (HashMap<String, String>, Vec<serde_json::Value>) {
    let join = temp("join");
    let out = temp("ranks.out");
    let children: Vec<_> = (0..ranks)
        .map(|r| {
            let (ranks, r) = (ranks.to_string(), r.to_string());
            let mut args = vec!["run", program, "--graph", graph, "--symmetrize", "--threads", "1", "--json"];
            args.extend_from_slice(&["--ranks", &ranks, "--rank", &r, "--join", join.to_str().unwrap()]);
            args.extend_from_slice(&["--out", out.to_str().unwrap(), "--rank-timeout", "120"]);
            args.extend_from_slice(extra);
            std::process::Command::new(env!("CARGO_BIN_EXE_irgc"))
                .current_dir(root())
                .args(&args)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("irgc starts")
        })
        .collect();
    let summaries: Vec<serde_json::Value> = children
        .into_iter()
        .enumerate()
        .map(|(r, child)| {
            let o = child.wait_with_output().unwrap();
            assert!(o.status.success(), "{program} rank {r} of {ranks}: {}", String::from_utf8_lossy(&o.stderr));
            serde_json::from_slice(&o.stdout).unwrap()
        })
        .collect();
    let text = std::fs::read_to_string(&out).unwrap();
    let labels = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_once(' ').map(|(a, b)| (a.to_string(), b.to_string())))
        .collect();
    (labels, summaries)
}

#[test]
fn ranks_in_separate_processes_give_the_single_device_partition() {
    for (graph, ranks) in [(data("wiki-Vote.txt.xz"), 2), (data("road-luxembourg-osm.mtx.xz"), 3)] {
        for p in MERGING {
            let one = labels(p, &graph, "1");
            let (merged, summaries) = ranked(p, &graph, ranks, &[]);
            assert!(same_partition(&one, &merged), "{p} on {graph}: {ranks} ranks differ from 1 device");
            let rounds = (ranks as f64).log2().ceil() as u64;
            for (r, s) in summaries.iter().enumerate() {
                let me = if r == 0 { &s["rank"] } else { s };
                assert_eq!(me["rank"], r as u64);
                assert_eq!(me["ranks"], ranks as u64);
                assert_eq!(me["merge_rounds"], rounds);
                assert!(me["link"].as_str().unwrap().contains("sockets"), "{me}");
                assert_eq!(me["sent_to"].is_null(), r == 0, "rank {r}: {me}");
            }
            // Every edge is in exactly one rank's part.
            let edges: u64 = summaries
                .iter()
                .enumerate()
                .map(|(r, s)| if r == 0 { &s["rank"]["part"]["edges"] } else { &s["part"]["edges"] })
                .map(|e| e.as_u64().unwrap())
                .sum();
            assert_eq!(edges, summaries[0]["graph"]["edges"].as_u64().unwrap(), "{p} on {graph}");
        }
    }
}

#[test]
fn rank_zero_verifies_and_the_rank_options_that_do_not_fit_are_refused() {
    let (_, summaries) = ranked("programs/cc/ecl_cc.irg", "gen:er:n=300,deg=1,seed=4", 4, &["--verify"]);
    assert_eq!(summaries[0]["verification"]["ok"], true);
    assert_eq!(summaries[0]["rank"]["merges_received"], 2);
    assert_eq!(summaries[2]["merges_received"], 1);
    let refused = |extra: &[&str], says: &str| {
        let mut args = vec!["run", "programs/cc/ecl_cc.irg", "--graph", "gen:er:n=30,deg=1,seed=4"];
        args.extend_from_slice(extra);
        let o = irgc(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success() && err.contains(says), "{extra:?}: {err}");
    };
    refused(&["--ranks", "2", "--rank", "2", "--join", "/tmp/x"], "ranks are numbered 0 to 1");
    refused(&["--ranks", "2", "--rank", "0", "--join", "/tmp/x", "--devices", "2"], "one device per process");
    refused(&["--ranks", "2", "--rank", "0"], "--join");
    refused(&["--comm", "sockets"], "--rank, --ranks and --join");
    refused(&["--comm", "nccl"], "--backend cuda");
    refused(&["--ranks", "2", "--rank", "0", "--join", "/tmp/x", "--comm", "peer"], "--comm peer");
    // A partner that never comes: the rank stops with an error naming it, at the timeout.
    let join = temp("lonely");
    refused(
        &["--ranks", "2", "--rank", "1", "--join", join.to_str().unwrap(), "--rank-timeout", "1"],
        "rank 0 did not appear",
    );
    // A program without a merge is refused on a rank as on several devices.
    let o = irgc(&[
        "run",
        "programs/bfs/bfs_worklist.irg",
        "--graph",
        "gen:er:n=30,deg=1,seed=4",
        "--ranks",
        "1",
        "--rank",
        "0",
        "--join",
        temp("nomerge").to_str().unwrap(),
    ]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("declares no `merge`"));
}
