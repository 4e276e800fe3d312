//! Regressions from the bad-input campaign of issue 15: each case once crashed, hung, or answered wrongly.

mod common;

use common::{irgc, temp};

fn stderr_of(args: &[&str]) -> (Option<i32>, String) {
    let o = irgc(args);
    (o.status.code(), String::from_utf8_lossy(&o.stderr).into_owned())
}

#[test]
fn a_plan_loop_that_never_launches_stops_by_itself() {
    let p = temp("busy.irg");
    std::fs::write(&p, "graph G;\nplan { var i: u64 = 0; while i < 18446744073709551615u64 { i += 1; } }\n").unwrap();
    let (code, err) = stderr_of(&["run", p.to_str().unwrap(), "--graph", "gen:er:n=10,deg=2"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("without launching a kernel: it looks like a loop that never ends"), "{err}");
}

#[test]
fn a_byte_order_mark_is_not_part_of_the_program() {
    let p = temp("bom.irg");
    std::fs::write(&p, "\u{feff}graph G;\nplan { }\n").unwrap();
    let (code, err) = stderr_of(&["check", p.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{err}");
}

#[test]
fn a_node_param_default_on_an_empty_graph_is_named() {
    let g = temp("empty.graph");
    std::fs::write(&g, "0 0\n").unwrap();
    let (code, err) =
        stderr_of(&["run", "programs/bfs/bfs_worklist.irg", "--graph", g.to_str().unwrap(), "--no-cache"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("param `source` defaults to node #0, but the graph has 0 node(s)"), "{err}");
}

#[test]
fn nan_weights_are_refused_at_their_line() {
    let g = temp("nan.txt");
    std::fs::write(&g, "1 2 1.5\n2 3 nan\n").unwrap();
    let (code, err) =
        stderr_of(&["run", "programs/louvain/louvain_local.irg", "--graph", g.to_str().unwrap(), "--no-cache"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains(":2: expected an edge weight, found 'nan'"), "{err}");
}

#[test]
fn a_matching_on_edges_weighing_differently_each_way_gets_symmetric_weights() {
    let g = temp("asym.txt");
    std::fs::write(&g, "1 2 5\n2 1 9\n2 3 4\n3 2 4\n3 4 7\n4 3 1\n").unwrap();
    let o = irgc(&["run", "programs/matching/suitor.irg", "--graph", g.to_str().unwrap(), "--no-cache", "--verify"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{out}{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.contains("weights made symmetric"), "{out}");
    assert!(out.contains(", maximal"), "{out}");
}

#[test]
fn a_node_output_holding_no_node_is_an_error_not_a_number_passing_for_an_id() {
    let p = temp("badnode.irg");
    std::fs::write(
        &p,
        "graph G;\nnode p: node = inf;\noutput p;\n\
         kernel k() { forall v in G.nodes { if (v as u32) == 3 { p[v] = 7777777 as node; } } }\nplan { k(); }\n",
    )
    .unwrap();
    // On a 1-based file 7777777 could be some node's id: an error. Where ids are 0..n it names no node: written.
    let g = temp("one_based.txt");
    std::fs::write(&g, "1 2\n2 3\n3 4\n4 5\n").unwrap();
    let (code, err) = stderr_of(&["run", p.to_str().unwrap(), "--graph", g.to_str().unwrap(), "--no-cache"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("output `p` holds 7777777 at node 4 (#3)"), "{err}");
    assert!(err.contains("1 element(s) hold no node"), "{err}");
    let o = irgc(&["run", p.to_str().unwrap(), "--graph", "gen:er:n=64,deg=3", "--out", "-"]);
    assert!(o.status.success() && String::from_utf8_lossy(&o.stdout).contains("\n3 7777777\n"));
}

#[test]
fn a_graph_read_from_a_pipe_says_it_waits_and_skips_the_cache() {
    let fifo = temp("graph.fifo");
    let _ = std::fs::remove_file(&fifo);
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let writer_path = fifo.clone();
    let writer = std::thread::spawn(move || std::fs::write(writer_path, "1 2\n2 3\n3 1\n").unwrap());
    let o = irgc(&["info", fifo.to_str().unwrap(), "--format", "snap"]);
    writer.join().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("is a pipe; reading the graph from it blocks until a program writes to it"), "{err}");
    assert!(String::from_utf8_lossy(&o.stdout).contains("nodes            3"));
}

#[test]
fn weights_that_can_overflow_integer_distances_are_warned_about() {
    let run = |weights: &str| {
        stderr_of(&["run", "programs/sssp/sssp_worklist.irg", "--graph", "gen:er:n=64,deg=3", "--weights", weights])
    };
    let (code, err) = run("const:3000000000");
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("warning: weights up to 3000000000 can make a distance exceed u32's largest value"), "{err}");
    let (code, err) = run("random:1:255");
    assert_eq!(code, Some(0), "{err}");
    assert!(!err.contains("warning"), "{err}");
}

#[test]
fn a_plan_loop_of_fills_alone_stops_by_itself() {
    let p = temp("fills.irg");
    std::fs::write(&p, "graph G;\narray a: u64[G.num_nodes];\nplan { while true { a.fill(0); } }\n").unwrap();
    let (code, err) = stderr_of(&["run", p.to_str().unwrap(), "--graph", "gen:er:n=100000,deg=2"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("a fill counting one per 64 elements"), "{err}");
}

#[test]
fn compile_dash_o_dash_writes_to_standard_output_not_a_file_named_dash() {
    let dir = temp("dash-dir");
    std::fs::create_dir_all(&dir).unwrap();
    let program = common::root().join("programs/cc/rem.irg");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_irgc"))
        .args(["compile", program.to_str().unwrap(), "--emit", "ir", "-o", "-"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stdout).starts_with("module rem"));
    assert!(!dir.join("-").exists());
}

/// Campaign 2: small inputs that once crashed, hung or answered wrongly, each with the message it now gets.
#[test]
fn campaign_two_inputs_get_clear_answers() {
    // A UTF-8 byte order mark before a sniffed format and before a DIMACS file.
    let bom = temp("bom.gr");
    std::fs::write(&bom, b"\xEF\xBB\xBFp sp 3 1\na 1 2 1\n").unwrap();
    let o = irgc(&["info", bom.to_str().unwrap(), "--no-cache"]);
    assert!(o.status.success() && String::from_utf8_lossy(&o.stdout).contains("(dimacs)"), "{o:?}");
    // A zstd-compressed file is named as such.
    let zst = temp("g.mtx.zst");
    std::fs::write(&zst, [0x28, 0xB5, 0x2F, 0xFD, 0, 0, 0, 0]).unwrap();
    let (code, err) = stderr_of(&["info", zst.to_str().unwrap(), "--no-cache"]);
    assert_eq!(code, Some(1));
    assert!(err.contains("zstd-compressed, which irgc does not read"), "{err}");
    // Node ids beyond 2^64 - 1 do not wrap onto a real node.
    let (code, err) = stderr_of(&[
        "run",
        "programs/bfs/bfs_worklist.irg",
        "--graph",
        "gen:er:n=20,deg=2",
        "--param",
        "source=18446744073709551633",
    ]);
    assert_eq!(code, Some(1));
    assert!(err.contains("0 to 2^64 - 1"), "{err}");
    // A float division by zero in a constant.
    let p = temp("fdiv.irg");
    std::fs::write(&p, "graph G;\nconst B: f64 = 1.0 / 0.0;\nplan { }\n").unwrap();
    let (code, err) = stderr_of(&["check", p.to_str().unwrap()]);
    assert_eq!(code, Some(1));
    assert!(err.contains("division by zero in a constant expression"), "{err}");
    // The default node param is printed with the file's id.
    let g = temp("one_based_path.txt");
    std::fs::write(&g, "1 2\n2 3\n").unwrap();
    let (code, err) =
        stderr_of(&["run", "programs/bfs/bfs_worklist.irg", "--graph", g.to_str().unwrap(), "--out", "-"]);
    assert_eq!(code, Some(0));
    assert!(err.contains("param     source = 1 (node #0, the default)"), "{err}");
    // A failed write of the help, or of diagnostics to stderr, is exit 1, not a panic (101) or a success.
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_irgc")).arg("--help").stdout(full).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_irgc"))
        .args(["check", "/no/such.irg"])
        .stderr(full)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    // A pattern matrix cannot be skew-symmetric.
    let m = temp("skew.mtx");
    std::fs::write(&m, "%%MatrixMarket matrix coordinate pattern skew-symmetric\n2 2 1\n2 1\n").unwrap();
    let (code, err) = stderr_of(&["info", m.to_str().unwrap(), "--no-cache"]);
    assert_eq!(code, Some(1));
    assert!(err.contains("a pattern matrix cannot be skew-symmetric"), "{err}");
}

#[test]
fn outputs_never_overwrite_inputs_through_plot_or_ldbc_companions() {
    let (stats, json) = (temp("stats-as.svg"), temp("st.json"));
    let o =
        irgc(&["run", "programs/cc/rem.irg", "--graph", "gen:er:n=30,deg=2", "--stats-out", json.to_str().unwrap()]);
    assert!(o.status.success());
    std::fs::copy(&json, &stats).unwrap();
    let before = std::fs::read(&stats).unwrap();
    let (code, err) = stderr_of(&["plot", stats.to_str().unwrap()]);
    assert_eq!(code, Some(1));
    assert!(err.contains("is one of the command's inputs"), "{err}");
    assert_eq!(std::fs::read(&stats).unwrap(), before);
    let (v, e) = (temp("pair.v.bz"), temp("pair.e.bz"));
    std::fs::write(&v, "1\n2\n3\n").unwrap();
    std::fs::write(&e, "1 2\n2 3\n").unwrap();
    let (code, err) = stderr_of(&[
        "run",
        "programs/cc/rem.irg",
        "--graph",
        e.to_str().unwrap(),
        "--format",
        "ldbc",
        "--out",
        v.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(1), "{err}");
    assert_eq!(std::fs::read_to_string(&v).unwrap(), "1\n2\n3\n");
}

#[test]
fn a_header_claiming_more_nodes_than_memory_allows_is_refused_before_allocating() {
    // 600 M nodes (4.8 GB of row offsets) backed by enough comment bytes to pass the header plausibility check.
    let g = temp("huge.mtx");
    let padding = "% padding\n".repeat(1_000_000);
    let text = format!("%%MatrixMarket matrix coordinate pattern general\n{padding}600000000 600000000 1\n1 2\n");
    std::fs::write(&g, text).unwrap();
    let cmd = format!("ulimit -v 4000000; exec {} info {} --no-cache", env!("CARGO_BIN_EXE_irgc"), g.display());
    let o = std::process::Command::new("bash").args(["-c", &cmd]).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("the graph has 600000000 nodes and 1 edges, whose CSR needs about"), "{err}");
}
