//! Kernels of small `.irg` snippets: reductions, atomics, spaces, worklists, casts, bit counts, `random`,
//! control flow, device functions and `forall tile`.

mod common;

use common::{Graph, Harness};
use irgc_artifact::{reduce_combine, reduce_identity, ReduceOp, Scalar};
use irgc_test_support::{conformance, module};

fn harness(src: &str, g: &Graph, dense: &[(usize, usize)]) -> Harness {
    Harness::new(module(src), g, dense)
}

#[test]
fn reductions_any_sum_min_max() {
    let src = r#"
graph G;
node b: bool;
node f: f64;
node x: i32;
kernel any_b() -> any { forall v in G.nodes { if b[v] { reduce true; } } }
kernel all_b() -> all { forall v in G.nodes { reduce b[v]; } }
kernel sum_f() -> sum f64 { forall v in G.nodes { reduce f[v]; } }
kernel min_x() -> min i32 { forall v in G.nodes { reduce x[v]; } }
kernel max_x() -> max i32 { forall v in G.nodes { reduce x[v]; } }
kernel sum_x() -> sum i64 { forall v in G.nodes { reduce x[v] as i64; } }
plan { any_b(); }
"#;
    let mut h = harness(src, &Graph::path(6), &[]);
    assert_eq!(h.run("any_b", &[]), 0);
    assert_eq!(h.run("all_b", &[]), 0);
    h.set("b", &[0, 0, 0, 1]);
    assert_eq!(h.run("any_b", &[]), 1);
    h.fill("b", 1);
    assert_eq!(h.run("all_b", &[]), 1);
    let fs = [0.5, 1.25, -3.0, 8.0, 0.125, 2.0];
    h.set("f", &fs.map(f64::to_bits));
    assert_eq!(f64::from_bits(h.run("sum_f", &[])), 8.875);
    let xs: [i32; 6] = [5, -7, 3, i32::MAX, -2, 0];
    h.set("x", &xs.map(|v| v as u32 as u64));
    assert_eq!(h.run("min_x", &[]) as u32 as i32, -7);
    assert_eq!(h.run("max_x", &[]) as u32 as i32, i32::MAX);
    assert_eq!(h.run("sum_x", &[]) as i64, xs.iter().map(|&v| v as i64).sum::<i64>());
    // Empty chunks give the identity; partials combine as the runtime combines them.
    let t = Scalar::I32;
    assert_eq!(h.run_range("min_x", &[], 2, 2), reduce_identity(ReduceOp::Min, t));
    assert_eq!(h.run_range("max_x", &[], 3, 3), reduce_identity(ReduceOp::Max, t));
    assert_eq!(h.run_range("sum_f", &[], 0, 0), 0f64.to_bits());
    let parts = h.run_threads("min_x", &[], 3);
    let all = parts.iter().fold(reduce_identity(ReduceOp::Min, t), |a, &b| reduce_combine(ReduceOp::Min, t, a, b));
    assert_eq!(all as u32 as i32, -7);
}

#[test]
fn float_atomics_from_many_threads() {
    // A star: 400 edges into node 0, so every thread hammers the same elements.
    let n = 401;
    let edges: Vec<(u32, u32)> = (1..n as u32).map(|i| (i, 0)).collect();
    let weights: Vec<u64> = (1..n as u64).map(|i| ((i % 16) as f64 * 0.25).to_bits()).collect();
    let g = Graph::directed(n, &edges, weights);
    let src = &conformance("atomics");
    let mut h = harness(src, &g, &[]);
    h.fill("lo", u64::from(f32::INFINITY.to_bits()));
    h.fill("hi", f64::NEG_INFINITY.to_bits());
    h.run_threads("k", &[], 4);
    let want: f64 = (1..n).map(|i| (i % 16) as f64 * 0.25).sum();
    assert_eq!(f64::from_bits(h.get("acc")[0]), want);
    assert_eq!(f32::from_bits(h.get("sub")[0] as u32), -(want as f32));
    assert_eq!(f32::from_bits(h.get("lo")[0] as u32), 0.0);
    assert_eq!(f64::from_bits(h.get("hi")[0]), 3.75);
    // Each thread subtracts 3, then raises to -1: whatever the interleaving, a raise comes last.
    assert_eq!(h.get("cnt")[0] as i64, -1);
    h.run("swap", &[9.5f64.to_bits()]);
    assert_eq!(f64::from_bits(h.get("old")[0]), 3.75);
    assert_eq!(f64::from_bits(h.get("hi")[0]), 9.5);
    // The first cas fails (returns the sum), the second succeeds with it.
    assert_eq!(f64::from_bits(h.get("old")[1]), want);
    assert_eq!(f64::from_bits(h.get("acc")[0]), 7.5);
}

#[test]
fn integer_min_max_and_exchange_from_many_threads() {
    // `min`, `max` and `exchange` read first and write only a change: under contention they must still agree with
    // some order of the operations. A star of 600 edges into node 0, weights repeating (so many operations find the
    // value already there), run on 4 threads, several times.
    let src = r#"
graph G(weight: i32);
edge old: i32;
edge seen: u32;
array lo: i32[1];
array hi: u32[1];
array cur: i32[1];
kernel k() {
    forall e in G.edges {
        let w = G.weight(e);
        seen[e] = atomic_min(lo[0], w) as u32;
        atomic_max(hi[0], w as u32);
        old[e] = atomic_exch(cur[0], w);
    }
}
plan { k(); }
"#;
    let n = 601;
    let edges: Vec<(u32, u32)> = (1..n as u32).map(|i| (i, 0)).collect();
    let ws: Vec<i32> = (1..n as i32).map(|i| (i * 37) % 23 - 11).collect();
    let g = Graph::directed(n, &edges, ws.iter().map(|&w| w as u32 as u64).collect());
    for _ in 0..20 {
        let mut h = harness(src, &g, &[(1, 1), (1, 1), (1, 1)]);
        h.fill("lo", i32::MAX as u32 as u64);
        h.fill("cur", 1000);
        h.run_threads("k", &[], 4);
        assert_eq!(h.get("lo")[0] as u32 as i32, *ws.iter().min().unwrap());
        assert_eq!(h.get("hi")[0] as u32, ws.iter().map(|&w| w as u32).max().unwrap());
        // Every value min returned is at least the final minimum, and the minimum's own edge saw no smaller one.
        assert!(h.get("seen").iter().all(|&x| x as u32 as i32 >= -11));
        // Exchanges form a chain: the values returned and the last one left are the start and everything written.
        let mut before: Vec<i32> = h.get("old").iter().map(|&x| x as u32 as i32).collect();
        before.push(h.get("cur")[0] as u32 as i32);
        let mut written = ws.clone();
        written.push(1000);
        before.sort_unstable();
        written.sort_unstable();
        assert_eq!(before, written);
    }
}

#[test]
fn range2_space_size_and_indexing() {
    let src = r#"
graph G;
array a: u32[5, 6];
kernel fill(n: u32) {
    forall (i, j) in (1..n, 2..5) {
        a[i, j] = i * 10 + j;
    }
}
kernel one(lo: i32, hi: i32) -> sum u64 {
    forall i in lo..hi { reduce 1; }
}
plan { fill(4); }
"#;
    let mut h = harness(src, &Graph::path(2), &[(5, 6)]);
    assert_eq!(h.size("fill", &[4]), 9);
    assert_eq!(h.size("fill", &[0]), 0);
    assert_eq!(h.size("one", &[(-3i32) as u32 as u64, 4]), 7);
    assert_eq!(h.size("one", &[4, (-3i32) as u32 as u64]), 0);
    assert_eq!(h.run("one", &[(-3i32) as u32 as u64, 4]), 7);
    h.run_threads("fill", &[4], 2);
    let a = h.get("a");
    for i in 0..5u64 {
        for j in 0..6u64 {
            let want = if (1..4).contains(&i) && (2..5).contains(&j) { i * 10 + j } else { 0 };
            assert_eq!(a[(i * 6 + j) as usize], want, "a[{i}, {j}]");
        }
    }
}

#[test]
fn worklist_push_retry_and_overflow() {
    let src = r#"
graph G;
worklist wl;
worklist nums: u32;
kernel all() { forall v in G.nodes { wl.push(v); } }
kernel evens() { forall v in wl { if (v as u32) % 2 == 0 { wl.retry(v); } else { nums.push((v as u32) * 3); } } }
plan { all(); }
"#;
    let mut h = harness(src, &Graph::path(6), &[]);
    h.set_worklist(0, &[], 16);
    // The previous pushing kernel's count, which this pushing kernel must zero (and which no other kernel may).
    h.worklists[0].spent_count.set(0, 9);
    h.worklists[1].spent_count.set(0, 9);
    h.run_threads("all", &[], 3);
    assert_eq!(h.pushed(0), ((0..6).collect(), false));
    assert_eq!(h.worklists[0].spent_count.get(0), 0);
    assert_eq!(h.worklists[1].spent_count.get(0), 9, "`all` does not push to `nums`");
    // Capacity 4 for 6 pushes: four stored, the flag set, the counter past the capacity.
    h.set_worklist(0, &[], 4);
    h.run("all", &[]);
    let (items, overflow) = h.pushed(0);
    assert_eq!(items.len(), 4);
    assert!(overflow);
    assert_eq!(h.worklists[0].out_count.get(0), 6);
    h.set_worklist(0, &[0, 1, 2, 3, 4, 5], 16);
    h.set_worklist(1, &[], 16);
    h.run("evens", &[]);
    let wl = &h.worklists[0];
    let mut retried: Vec<u64> = (0..wl.retry_count.get(0) as usize).map(|i| wl.retry.get(i)).collect();
    retried.sort();
    assert_eq!(retried, vec![0, 2, 4]);
    assert_eq!(wl.out_count.get(0), 0);
    assert_eq!(h.pushed(1), (vec![3, 9, 15], false));
}

#[test]
fn a_worklist_sweep_names_each_item_position() {
    let src = r#"
graph G;
worklist wl;
node at: u64 = inf;
kernel place() { forall (i, v) in wl { at[v] = i; } }
kernel both() -> sum u64 { forall (i, v) in wl { reduce i * 100 + v as u64; } }
plan { place(); }
"#;
    let mut h = harness(src, &Graph::path(8), &[]);
    h.fill("at", u64::MAX);
    h.set_worklist(0, &[5, 2, 7, 0], 16);
    // Every chunking sees the same positions: the item's index in the worklist's current contents.
    for chunks in [1, 2, 3, 4] {
        h.fill("at", u64::MAX);
        h.run_threads("place", &[], chunks);
        assert_eq!(h.get("at"), vec![3, u64::MAX, 1, u64::MAX, u64::MAX, 0, u64::MAX, 2], "{chunks} chunks");
    }
    assert_eq!(h.run("both", &[]), 5 + 102 + 207 + 300);
}

#[test]
fn casts_and_signedness() {
    let src = &conformance("casts");
    let mut h = harness(src, &Graph::path(2), &[(16, 1), (16, 1), (8, 1), (64, 1), (64, 1)]);
    h.param("pi", (-7i32) as u32 as u64);
    h.run("casts", &[(-7i32) as u32 as u64, 0xFFFF_FFF9]);
    let r: Vec<i64> = h.get("r").iter().map(|&x| x as i64).collect();
    let u = h.get("u");
    assert_eq!(
        &r[..14],
        &[
            -7,
            -3,
            -1,
            -4,
            -2,
            i32::MAX as i64,
            1,
            0,
            -7,
            7,
            -4,
            (-7i32).wrapping_sub(i32::MAX).wrapping_sub(10) as i64,
            -7,
            i32::MIN as i64
        ]
    );
    assert_eq!(u[0], 0xFFFF_FFF9);
    assert_eq!(u[1], 0x7FFF_FFFC);
    assert_eq!(u[2], 0x7FFF_FFFC);
    assert_eq!(u[3], 1);
    assert_eq!(u[4], 0, "u32 compares unsigned");
    assert_eq!(u[5], 0, "float to unsigned saturates at 0");
    assert_eq!(u[6], 0xFFFF_FFF9);
    assert_eq!(u[7] as i64, -10);
    assert_eq!(u[8], 0xFFFF_FFF9u32 as f32 as f64 as u64);
    assert_eq!(u[9], 0xFFFF_FFF9, "i32 to node wraps, node to u64 zero-extends");
    assert_eq!(u[10], 1, "ids compare unsigned");
    assert_eq!(u[11], 0xF, "i32 to i64 sign-extends");
    assert_eq!(u[12], 3);
}

#[test]
fn bit_counts() {
    let src = r#"
graph G;
array u: u32[8];
kernel bits(x: u64, y: u32) {
    forall i in 0..1 {
        u[0] = ctz(x);
        u[1] = ctz(0u64);
        u[2] = popcount(x);
        u[3] = clz(y);
        u[4] = ctz(0u32);
        u[5] = popcount(y);
        u[6] = clz(x);
        u[7] = ctz(~0xffu64);
    }
}
plan { bits(1u64, 2u32); }
"#;
    let mut h = harness(src, &Graph::path(2), &[(8, 1)]);
    let x = 0x0F00_0000_0000_0100u64;
    h.run("bits", &[x, 0x0000_1234]);
    assert_eq!(h.get("u"), vec![8, 64, 5, 19, 32, 5, 4, 8]);
}

#[test]
fn random_matches_the_reference() {
    let src = r#"
import std.random;
graph G;
array out: u64[64];
array un: f64[64];
kernel rnd(seed: u64) {
    forall i in 0..64 {
        out[i] = random(seed, i as u64);
        un[i] = uniform(seed, (i as u64) * 1000);
    }
}
plan { rnd(1u64); }
"#;
    let mut h = harness(src, &Graph::path(2), &[(64, 1), (64, 1)]);
    for seed in [0u64, 1, 42, u64::MAX] {
        h.run("rnd", &[seed]);
        let want: Vec<u64> = (0..64).map(|i| irgc_backend_cpu::random(seed, i)).collect();
        assert_eq!(h.get("out"), want);
        let uni: Vec<u64> = (0..64)
            .map(|i| (((irgc_backend_cpu::random(seed, i * 1000) >> 11) as f64) * (1.0 / 9007199254740992.0)).to_bits())
            .collect();
        assert_eq!(h.get("un"), uni);
    }
    // Known values pin the definition for other backends.
    assert_eq!(irgc_backend_cpu::random(0, 0), 0xE220_A839_7B1D_CDAF);
}

#[test]
fn control_flow_and_functions() {
    let src = &conformance("control_flow");
    // Triangle 0-1-2 with pendant 3 on 2, and 4-5.
    let g = Graph::undirected(6, &[(0, 1), (1, 2), (2, 0), (2, 3), (4, 5)]);
    let mut h = harness(src, &g, &[]);
    h.run_threads("cf", &[], 2);
    assert_eq!(h.get("deg"), vec![2, 2, 3, 1, 1, 1]);
    let collatz = [0u64, 1, 7, 2, 5, 8];
    assert_eq!(h.get("s"), collatz.iter().map(|c| 25 + c * 100).collect::<Vec<_>>());
    assert_eq!(h.get("t"), vec![35; 6]);
    // Nodes with a neighbour of degree > 1: 0, 1, 2 (each other), 3 (2).
    assert_eq!(h.run("big", &[]), 4);
}

#[test]
fn negated_conditions_branch_the_other_way() {
    // Branches on `!c` swap their targets rather than flipping `c`: every arm and loop exit must still be right.
    let src = r#"
graph G;
node x: u32;
node a: u32;
node b: u32;
node c: u32;
kernel k() {
    forall v in G.nodes {
        if !(x[v] < 3) { a[v] = 1; } else { a[v] = 2; }
        // A `while` reaches the IR as `if !c { break }`: its test is negated once, or twice for `while !c`.
        var i: u32 = 0;
        while i < x[v] { i += 2; }
        var j: u32 = 1;
        while !(j >= x[v]) { j += 2; }
        b[v] = i * 10 + j;
        if !!(x[v] == 4) { c[v] = 7; }
    }
}
plan { k(); }
"#;
    let mut h = harness(src, &Graph::path(6), &[]);
    h.set("x", &[0, 1, 2, 3, 4, 5]);
    h.run("k", &[]);
    assert_eq!(h.get("a"), vec![2, 2, 2, 1, 1, 1]);
    assert_eq!(h.get("b"), vec![1, 21, 23, 43, 45, 65]);
    assert_eq!(h.get("c"), vec![0, 0, 0, 0, 7, 0]);
}

#[test]
fn short_circuit_guards_out_of_bounds_reads() {
    let src = &conformance("control_flow");
    let mut h = harness(src, &Graph::path(4), &[]);
    h.set("x", &[7, 1, 7, 7]);
    // Far past the array: `x[i]` must not be read when `i >= n`.
    assert_eq!(h.run_range("guard", &[4], 0, 1 << 20), 3);
}

#[test]
fn tile_reduction_with_barriers_in_loops() {
    let src = &conformance("tile_sum");
    let mut h = harness(src, &Graph::path(2), &[(64, 1), (4, 1)]);
    h.set("a", &(0..64).collect::<Vec<u64>>());
    assert_eq!(h.size("tsum", &[4]), 4);
    h.run_threads("tsum", &[4], 2);
    let want: Vec<u64> = (0..4).map(|b| (b * 16..b * 16 + 16).sum()).collect();
    assert_eq!(h.get("out"), want);
}

#[test]
fn compile_time_of_one_kernel() {
    let src = r#"
graph G;
node level: u32 = inf;
worklist frontier;
kernel expand(depth: u32) {
    forall v in frontier {
        for e in G.edges(v) {
            let w = G.dst(e);
            if atomic_min(level[w], depth + 1) > depth + 1 { frontier.push(w); }
        }
    }
}
plan { expand(0u32); }
"#;
    let m = module(src);
    let start = std::time::Instant::now();
    let n = 20;
    for _ in 0..n {
        irgc_backend_cpu::compile(&m).unwrap();
    }
    let per = start.elapsed() / n;
    // Generous: a debug-built Cranelift; this is about catching pathologies, not benchmarking.
    assert!(per < std::time::Duration::from_millis(500), "{per:?} per compile");
}

#[test]
fn barrier_in_a_nested_forall_is_refused() {
    let src = &conformance("nested_barrier");
    let m = module(src);
    let err = irgc_backend_cpu::compile(&m).err().expect("refused");
    assert_eq!(err.to_string(), "kernel `bad`: a barrier inside a nested `forall` of a `forall tile`");
}

#[test]
fn edge_sweeps_walk_the_rows() {
    // Rows of 2, 0, 0, 3, 1, 0, 2 and 0 edges: empty rows inside and at the end, and every chunking of the 8
    // edges, so chunks start and end mid-row, at row ends and on empty rows.
    let edges = [(0, 3), (0, 4), (3, 0), (3, 4), (3, 6), (4, 3), (6, 0), (6, 4)];
    let g = Graph::directed(8, &edges, vec![]);
    let src = r#"
graph G;
node out: u32;
node hits: u32;
node on: bool;
edge seen: node;
kernel sources() { forall e in G.edges { atomic_add(out[G.src(e)], 1u32); seen[e] = G.src(e); } }
kernel gated() { forall e in G.edges { if on[G.src(e)] { atomic_add(hits[G.dst(e)], 1u32); } } }
kernel gated_per_edge() { forall e in G.edges { if on[G.src(e)] && G.dst(e) != 4 { atomic_add(hits[G.dst(e)], 1u32); } } }
plan { sources(); }
"#;
    let mut h = harness(src, &g, &[]);
    assert!(!h.prog.reads_sources(), "every G.src is of the swept edge");
    let sources: Vec<u64> = edges.iter().map(|&(s, _)| u64::from(s)).collect();
    for chunks in 1..=8 {
        h.fill("out", 0);
        h.fill("seen", 99);
        h.run_threads("sources", &[], chunks);
        assert_eq!(h.get("seen"), sources, "{chunks} chunks");
        assert_eq!(h.get("out"), vec![2, 0, 0, 3, 1, 0, 2, 0], "{chunks} chunks");
    }
    // The row test (a condition on the source alone) and a per-edge condition, with rows 3 and 6 on.
    h.set("on", &[0, 0, 0, 1, 0, 0, 1, 0]);
    for chunks in 1..=8 {
        h.fill("hits", 0);
        h.run_threads("gated", &[], chunks);
        assert_eq!(h.get("hits"), vec![2, 0, 0, 0, 2, 0, 1, 0], "{chunks} chunks");
        h.fill("hits", 0);
        h.run_threads("gated_per_edge", &[], chunks);
        assert_eq!(h.get("hits"), vec![2, 0, 0, 0, 0, 0, 1, 0], "{chunks} chunks");
    }
    // A chunk past the last row with edges, and an empty one.
    h.fill("out", 0);
    assert_eq!(h.run_range("sources", &[], 7, 8), 0);
    assert_eq!(h.run_range("sources", &[], 8, 8), 0);
    assert_eq!(h.get("out"), vec![0, 0, 0, 0, 0, 0, 1, 0]);

    // `G.src` of an edge that is not the swept one reads the runtime's array.
    let other = r#"
graph G;
node first_src: node;
fn source_of(e: edge) -> node { return G.src(e); }
kernel k() { forall v in G.nodes { if G.degree(v) > 0 { first_src[v] = source_of(G.first_edge(v)); } } }
plan { k(); }
"#;
    let mut h = harness(other, &g, &[]);
    assert!(h.prog.reads_sources());
    h.fill("first_src", 99);
    h.run("k", &[]);
    assert_eq!(h.get("first_src"), vec![0, 99, 99, 3, 4, 99, 6, 99]);
}
