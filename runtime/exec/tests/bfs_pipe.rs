//! A data-driven BFS (a `pipe` over a worklist, the swap rule after every launch) on small graphs: the levels, the
//! per-round statistics, parallel chunking, and that the thread count does not change the result.

mod common;

use common::*;
use irgc_runtime::{digest, RunOptions};

#[test]
fn levels_rounds_and_stats_on_a_path() {
    let g = path_graph();
    let a = bfs_artifact();
    // source = internal node 1 (label 2).
    let run = run(&a, &g, &[1], bfs_kernels(false)).unwrap();
    let level = &run.outputs()[0];
    assert_eq!(level.name, "level");
    assert_eq!(level.values, vec![1, 0, 1, 2, 3, u32::MAX as u64]);
    // Rounds: {1}, {0, 2}, {3}, {4}; the last launch pushes nothing and the pipe stops.
    let sizes: Vec<u64> = run.stats.pipe_rounds.iter().map(|r| r.size).collect();
    assert_eq!(sizes, vec![1, 2, 1, 1]);
    assert_eq!(run.launches, 4);
    let pushed: Vec<u64> = run.stats.launches.iter().map(|l| l.pushed[0].items).collect();
    assert_eq!(pushed, vec![2, 1, 1, 0]);
    assert!(run.stats.launches.iter().all(|l| l.kernel == "expand" && l.mode.is_none() && l.retry == 0));
    assert_eq!(run.stats.launches.iter().map(|l| l.round).collect::<Vec<_>>(), vec![1, 2, 3, 4]);
    // The frontier is empty at the end (what the last launch pushed).
    assert_eq!(run.worklist(0).unwrap(), Vec::<u64>::new());
}

/// A grid big enough that launches split into many chunks across threads.
fn grid(w: u32, h: u32) -> irgc_graph::Csr {
    let mut edges = Vec::new();
    for y in 0..h {
        for x in 0..w {
            let v = y * w + x;
            if x + 1 < w {
                edges.push((v, v + 1));
            }
            if y + 1 < h {
                edges.push((v, v + w));
            }
        }
    }
    graph(w * h, &edges, true, 0)
}

#[test]
fn parallel_chunks_agree_with_one_thread() {
    let g = grid(300, 40);
    let a = bfs_artifact();
    let one =
        run_with(&a, &g, &[0], bfs_kernels(false), RunOptions { threads: Some(1), ..Default::default() }).unwrap();
    let many =
        run_with(&a, &g, &[0], bfs_kernels(false), RunOptions { threads: Some(4), ..Default::default() }).unwrap();
    assert_eq!(one.threads, 1);
    assert_eq!(many.threads, 4);
    assert_eq!(one.outputs()[0].values, many.outputs()[0].values);
    assert_eq!(digest(one.outputs()), digest(many.outputs()));
    // Level of the far corner: Manhattan distance.
    assert_eq!(one.outputs()[0].values[(300 * 40 - 1) as usize], 299 + 39);
    assert_eq!(one.launches, 299 + 39 + 1);
    // The widest round (an anti-diagonal) has 40 nodes; the frontier never holds a node twice here.
    assert_eq!(one.stats.pipe_rounds.iter().map(|r| r.size).max(), Some(40));
}

#[test]
fn stats_can_be_turned_off() {
    let g = path_graph();
    let opts = RunOptions { collect_stats: false, ..Default::default() };
    let run = run_with(&bfs_artifact(), &g, &[0], bfs_kernels(false), opts).unwrap();
    assert_eq!(run.launches, 5);
    assert!(run.stats.launches.is_empty() && run.stats.pipe_rounds.is_empty());
}
