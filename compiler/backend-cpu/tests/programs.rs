//! Every kernel of every shipped program compiles, and the shipped programs' kernels compute what they should
//! on small graphs.

mod common;

use common::{Graph, Harness};
use irgc_test_support::program_module;

fn programs() -> Vec<String> {
    let root = format!("{}/../../programs", env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for dir in std::fs::read_dir(&root).unwrap() {
        let dir = dir.unwrap();
        for f in std::fs::read_dir(dir.path()).unwrap() {
            let f = f.unwrap().file_name().to_string_lossy().into_owned();
            if f.ends_with(".irg") {
                out.push(format!("programs/{}/{f}", dir.file_name().to_string_lossy()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn every_program_compiles() {
    let progs = programs();
    assert!(progs.len() >= 9, "{progs:?}");
    for p in progs {
        let m = program_module(&p);
        let start = std::time::Instant::now();
        let prog = irgc_backend_cpu::compile(&m).unwrap_or_else(|e| panic!("{p}: {e}"));
        assert_eq!(prog.kernel_count(), m.kernels.len(), "{p}");
        let _ = start.elapsed();
    }
}

const INF32: u64 = u32::MAX as u64;

#[test]
fn bfs_expand_one_round() {
    let m = program_module("programs/bfs/bfs_worklist.irg");
    let mut h = Harness::new(m, &Graph::path(6), &[]);
    h.fill("level", INF32);
    h.set("level", &[0]);
    h.set_worklist(0, &[0], 16);
    h.run("expand", &[0]);
    assert_eq!(h.get("level"), vec![0, 1, INF32, INF32, INF32, INF32]);
    assert_eq!(h.pushed(0), (vec![1], false));
    // Next round from node 1: only node 2 improves.
    h.set_worklist(0, &[1], 16);
    h.run("expand", &[1]);
    assert_eq!(h.get("level"), vec![0, 1, 2, INF32, INF32, INF32]);
    assert_eq!(h.pushed(0), (vec![2], false));
}

#[test]
fn bfs_topology_reduces_any_until_done() {
    let m = program_module("programs/bfs/bfs_topology.irg");
    let mut h = Harness::new(m, &Graph::path(6), &[]);
    h.fill("level", INF32);
    h.set("level", &[INF32, INF32, 0]);
    let mut depth = 0;
    while h.run("step", &[depth]) != 0 {
        depth += 1;
    }
    assert_eq!(depth, 3);
    assert_eq!(h.get("level"), vec![2, 1, 0, 1, 2, 3]);
    // Chunked on threads: partial `any`s, one per chunk; none true once converged.
    assert_eq!(h.run_threads("step", &[depth], 3), vec![0, 0, 0]);
}

/// Runs a worklist kernel to a fixed point the way the runtime does: pushes become the next items.
/// Runs `kernel` over worklist `w` from `start` until nothing is pushed; with `counted`, the kernel's one argument
/// is the round number (from 0).
fn pipe(h: &mut Harness, kernel: &str, w: usize, start: &[u64], counted: bool) -> usize {
    let mut items = start.to_vec();
    let mut rounds = 0;
    while !items.is_empty() {
        h.set_worklist(w, &items, 1024);
        let round = [rounds as u64];
        h.run_threads(kernel, if counted { &round } else { &[] }, 2);
        let (next, overflow) = h.pushed(w);
        assert!(!overflow);
        items = next;
        rounds += 1;
    }
    rounds
}

#[test]
fn sssp_relaxes_to_shortest_distances() {
    let m = program_module("programs/sssp/sssp_worklist.irg");
    // 0 -> 1 (4), 0 -> 2 (1), 2 -> 1 (2), 1 -> 3 (1), 3 -> 4 (7), 2 -> 4 (20)
    let g = Graph::directed(5, &[(0, 1), (0, 2), (2, 1), (1, 3), (3, 4), (2, 4)], vec![4, 1, 2, 1, 7, 20]);
    let mut h = Harness::new(m, &g, &[]);
    h.fill("dist", INF32);
    h.fill("queued", INF32);
    h.set("dist", &[0]);
    pipe(&mut h, "relax", 0, &[0], true);
    assert_eq!(h.get("dist"), vec![0, 3, 1, 4, 11]);
}

#[test]
fn coloring_is_proper() {
    let m = program_module("programs/coloring/ipgc_hybrid.irg");
    let g = Graph::undirected(7, &[(0, 1), (1, 2), (2, 0), (2, 3), (3, 4), (4, 5), (5, 3), (5, 6), (6, 0)]);
    // Every node is below `large` (its default, 256), so only the small nodes' kernel picks.
    let mut h = Harness::new(m, &g, &[]);
    h.param("seed", 7);
    h.fill("color", 0);
    h.fill("active", 1);
    // The harness does not apply declared fills: `nlive` starts at inf ("no neighbour list yet").
    h.fill("nlive", u32::MAX as u64);
    h.set_worklist(0, &[], 64);
    h.run("seed_all", &[]);
    let (mut items, _) = h.pushed(0);
    assert_eq!(items, (0..7).collect::<Vec<u64>>());
    let mut rounds = 0;
    while !items.is_empty() {
        rounds += 1;
        assert!(rounds <= 7, "still {} nodes to colour after 7 rounds: {items:?}", items.len());
        h.set_worklist(0, &items, 64);
        h.run("assign_data_small", &[]);
        h.set_worklist(0, &items, 64);
        h.run("resolve_data", &[]);
        items = h.pushed(0).0;
    }
    let c = h.get("color");
    for &(a, b) in &g.edges {
        assert_ne!(c[a as usize], c[b as usize], "edge {a}-{b} in {c:?}");
    }
    assert!(c.iter().all(|&x| x >= 1));
}

#[test]
fn apsp_tiles_match_floyd_warshall() {
    let m = program_module("programs/apsp/fw_blocked.irg");
    // 150 nodes: three 64-wide tiles per side, the last partly padding, so every phase runs on real and padding
    // threads.
    let n = 150usize;
    let mut edges = Vec::new();
    let mut w = Vec::new();
    let mut x = 99u64;
    for _ in 0..600 {
        x = irgc_backend_cpu::random(x, 3);
        edges.push(((x % n as u64) as u32, ((x >> 20) % n as u64) as u32));
        w.push((x >> 40) % 50 + 1);
    }
    let g = Graph::directed(n, &edges, w.clone());
    const UNREACHED: i64 = 1073741823;
    let mut d = vec![vec![UNREACHED; n]; n];
    for (i, row) in d.iter_mut().enumerate() {
        row[i] = 0;
    }
    for (&(a, b), &wt) in edges.iter().zip(&w) {
        if a != b {
            d[a as usize][b as usize] = d[a as usize][b as usize].min(wt as i64);
        }
    }
    for k in 0..n {
        for i in 0..n {
            for j in 0..n {
                d[i][j] = d[i][j].min(d[i][k] + d[k][j]);
            }
        }
    }
    let mut h = Harness::new(m, &g, &[(n, n)]);
    h.run("init_dist", &[]);
    h.run_threads("load_edges", &[], 2);
    let nb = n.div_ceil(64) as u64;
    assert_eq!(h.size("phase3", &[0, nb]), nb * nb);
    assert_eq!(h.size("phase2", &[0, nb]), nb * 2);
    for kb in 0..nb {
        h.run("phase1", &[kb]);
        h.run_threads("phase2", &[kb, nb], 2);
        h.run_threads("phase3", &[kb, nb], 2);
    }
    let got: Vec<i64> = h.get("dist").iter().map(|&b| b as u32 as i32 as i64).collect();
    let want: Vec<i64> = d.concat();
    assert_eq!(got, want);
}

/// Triangle 0-1-2 with pendant 3, a path 4-5-6, and isolated 7.
fn cc_graph() -> Graph {
    Graph::undirected(8, &[(0, 1), (1, 2), (2, 0), (2, 3), (4, 5), (5, 6)])
}

#[test]
fn rem_components_on_several_threads() {
    let m = program_module("programs/cc/rem.irg");
    let mut h = Harness::new(m, &cc_graph(), &[]);
    h.run("init", &[]);
    assert_eq!(h.get("parent"), (0..8).collect::<Vec<u64>>());
    h.run_threads("unite", &[], 3);
    h.run_threads("compress", &[], 2);
    assert_eq!(h.get("parent"), vec![0, 0, 0, 0, 4, 4, 4, 7]);
}

#[test]
fn rem_on_a_larger_random_graph_matches_union_find() {
    let n = 2000usize;
    let mut edges = Vec::new();
    let mut x = 12345u64;
    for _ in 0..1500 {
        x = irgc_backend_cpu::random(x, 1);
        let a = (x % n as u64) as u32;
        let b = ((x >> 32) % n as u64) as u32;
        edges.push((a, b));
    }
    // Reference: sequential union-find.
    let mut p: Vec<usize> = (0..n).collect();
    fn find(p: &mut [usize], mut v: usize) -> usize {
        while p[v] != v {
            p[v] = p[p[v]];
            v = p[v];
        }
        v
    }
    for &(a, b) in &edges {
        let (ra, rb) = (find(&mut p, a as usize), find(&mut p, b as usize));
        p[ra.max(rb)] = ra.min(rb);
    }
    let want: Vec<u64> = (0..n).map(|v| find(&mut p, v) as u64).collect();
    let m = program_module("programs/cc/rem.irg");
    let mut h = Harness::new(m, &Graph::undirected(n, &edges), &[]);
    h.run("init", &[]);
    h.run_threads("unite", &[], 4);
    h.run_threads("compress", &[], 4);
    // Labels are the minimum node of each component in both.
    assert_eq!(h.get("parent"), want);
}
