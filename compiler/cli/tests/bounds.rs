//! Bounds checks (on by default on the CPU backend, and with `--check-bounds` or `--verify`): a kernel's bad index
//! stops the run with the kernel, the array, the index, its bound and the source line, instead of a crash or a
//! silent wrong answer.

mod common;

use common::{irgc, temp};

fn program(body: &str) -> std::path::PathBuf {
    let path = temp("oob.irg");
    std::fs::write(
        &path,
        format!("graph G;\nnode x: u32 = 0;\narray h: u32[4] = 0;\noutput x;\nkernel bad() {{\n    forall v in G.nodes {{\n        {body}\n    }}\n}}\nplan {{ bad(); }}\n"),
    )
    .unwrap();
    path
}

/// The number between `before` and `after` in `text`, if they are there: the index a bounds error reports, which
/// is the first bad one a worker thread hit (which one depends on how the threads were scheduled).
fn number_after(text: &str, before: &str, after: &str) -> Option<u64> {
    text.split(before).nth(1)?.split_once(after)?.0.parse().ok()
}

fn run(program: &std::path::Path, extra: &[&str]) -> (Option<i32>, String) {
    let mut args = vec!["run", program.to_str().unwrap(), "--graph", "gen:rmat:scale=8,ef=8,seed=1"];
    args.extend_from_slice(extra);
    let o = irgc(&args);
    (o.status.code(), String::from_utf8_lossy(&o.stderr).into_owned())
}

#[test]
fn a_bad_node_array_index_is_reported_at_its_source_line() {
    let p = program("x[((v as u32) * 1000000) as node] = 1;");
    let (code, err) = run(&p, &["--check-bounds"]);
    assert_eq!(code, Some(1), "{err}");
    // Every node but 0 indexes out of bounds, and the launch reports the first one a thread hit, which depends on
    // how the worker threads were scheduled: some v * 1000000.
    let reported = number_after(&err, "out-of-bounds access in kernel `bad`: index ", " into `x`, whose length is 256");
    assert!(reported.is_some_and(|i| i >= 1_000_000 && i % 1_000_000 == 0 && i / 1_000_000 < 256), "{err}");
    assert!(err.contains("oob.irg:7:11"), "the source line: {err}");
}

#[test]
fn dense_arrays_and_graph_queries_are_checked_and_verify_turns_checks_on() {
    let (code, err) = run(&program("h[G.degree(v)] += 1;"), &["--verify"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("into `h`, whose length is 4"), "{err}");
    let (code, err) = run(&program("x[v] = G.dst((v as u64 + 5000000) as edge) as u32;"), &["--check-bounds"]);
    assert_eq!(code, Some(1), "{err}");
    // Every node's query is out of range; the first a thread hit is reported (v + 5000000 for some node v).
    let edge = number_after(&err, "`G.dst` of edge ", ", but the graph has");
    assert!(edge.is_some_and(|e| (5_000_000..5_000_256).contains(&e)), "{err}");
    let (code, err) = run(&program("x[v] = G.degree(((v as u32) + 300) as node);"), &["--check-bounds"]);
    assert_eq!(code, Some(1), "{err}");
    let node = number_after(&err, "`G.degree` of node ", ", but the graph has 256 nodes");
    assert!(node.is_some_and(|v| (300..556).contains(&v)), "{err}");
}

#[test]
fn an_array_passed_to_a_device_function_is_checked_against_the_node_count() {
    let path = temp("oob_fn.irg");
    std::fs::write(
        &path,
        "graph G;\nnode x: u32 = 0;\noutput x;\nfn g(a: [u32], v: node) -> u32 { return a[((v as u32) * 3) as node]; }\n\
         kernel k() { forall v in G.nodes { x[v] = g(x, v); } }\nplan { k(); }\n",
    )
    .unwrap();
    let (code, err) = run(&path, &["--check-bounds"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("in function `g`"), "{err}");
    assert!(err.contains("into `a`, whose length is 256"), "{err}");
    assert!(err.contains("oob_fn.irg:4:"), "the source line: {err}");
}

#[test]
fn the_cpu_backend_checks_by_default() {
    let (code, err) = run(&program("h[G.degree(v)] += 1;"), &[]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("into `h`, whose length is 4"), "{err}");
}

#[test]
fn good_programs_run_the_same_with_checks() {
    let p = program("x[v] = G.degree(v); h[G.degree(v) % 4] += 1;");
    let with = irgc(&["run", p.to_str().unwrap(), "--graph", "gen:rmat:scale=8,ef=8,seed=1", "--check-bounds"]);
    let without = irgc(&["run", p.to_str().unwrap(), "--graph", "gen:rmat:scale=8,ef=8,seed=1", "--no-check-bounds"]);
    assert!(with.status.success() && without.status.success());
    let digest = |o: &std::process::Output| {
        String::from_utf8_lossy(&o.stdout).lines().find(|l| l.starts_with("digest")).map(str::to_string)
    };
    assert_eq!(digest(&with), digest(&without));
}

#[test]
fn without_checks_a_crash_is_reported_not_silent() {
    let p = program("x[((v as u32) * 1000000) as node] = 1;");
    let (code, err) = run(&p, &["--no-check-bounds"]);
    assert_eq!(code, Some(1), "exit 1, not a signal: {err}");
    assert!(err.contains("a kernel most likely indexed outside an array") && err.contains("--check-bounds"), "{err}");
}

#[test]
fn a_heap_corrupted_by_a_kernel_is_reported_even_when_it_shows_after_the_run() {
    // Writes just past `x`: nothing faults, but the allocator finds its heap damaged at a later free.
    let p = program("atomic_add(x[((v as u32) + 256) as node], 1);");
    for args in
        [&["run", p.to_str().unwrap(), "--no-check-bounds"][..], &["bench", p.to_str().unwrap(), "--runs", "2"][..]]
    {
        let mut args = args.to_vec();
        args.extend(["--graph", "gen:rmat:scale=8,ef=8,seed=1"]);
        let o = irgc(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        // The write may also land where nothing notices: then the run ends normally. Never a bare signal.
        assert!(matches!(o.status.code(), Some(0 | 1)), "{args:?}: {:?} {err}", o.status);
        if o.status.code() == Some(1) {
            assert!(err.contains("a kernel most likely indexed outside an array"), "{err}");
        }
    }
}

/// In a sweep that waits, a bad read goes to scratch (0 here) and its item would wait for ever: the sweep stops
/// going round once the bad access is reported, and the run stops with the report instead of hanging.
#[test]
fn a_bad_index_in_a_waiting_sweep_stops_it_instead_of_hanging() {
    let p = program("if x[((v as u32) + 256) as node] == 0 { wait; }\n        x[v] = 1;");
    let (code, err) = run(&p, &["--check-bounds", "--timeout", "60"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("out-of-bounds access in kernel `bad`"), "{err}");
    assert!(err.contains("into `x`, whose length is 256"), "{err}");
}
